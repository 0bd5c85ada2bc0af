/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions rclink builds against
 * (6.1 and 6.12) lives here, and LINUX_VERSION_CODE is tested nowhere else.
 */
#ifndef _RCLINK_COMPAT_H_
#define _RCLINK_COMPAT_H_

#include <linux/device.h>
#include <linux/err.h>
#include <linux/ethtool.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/string.h>
#include <linux/version.h>
#include <net/devlink.h>
#include <net/genetlink.h>

/*
 * True when building against a kernel older than maj.min.sub.  The one
 * place that looks at LINUX_VERSION_CODE.
 */
#define RCLINK_KERNEL_BEFORE(maj, min, sub) \
	(KERNEL_VERSION(maj, min, sub) > LINUX_VERSION_CODE)

/* 6.8 renamed PCI_IRQ_LEGACY to PCI_IRQ_INTX */
#if RCLINK_KERNEL_BEFORE(6, 8, 0)
#define RCLINK_PCI_IRQ_INTX	PCI_IRQ_LEGACY
#else
#define RCLINK_PCI_IRQ_INTX	PCI_IRQ_INTX
#endif

/*
 * Request and map one BAR, managed.  pcim_iomap_region() is public from
 * 6.12 on; before that pcim_iomap_regions() plus the iomap table.
 */
static inline void __iomem *rclink_pcim_iomap_bar(struct pci_dev *pdev,
						  int bar, const char *name)
{
#if !RCLINK_KERNEL_BEFORE(6, 12, 0)
	return pcim_iomap_region(pdev, bar, name);
#else
	int err;

	err = pcim_iomap_regions(pdev, BIT(bar), name);
	if (err)
		return IOMEM_ERR_PTR(err);
	return pcim_iomap_table(pdev)[bar];
#endif
}

/*
 * A multicast group only CAP_NET_ADMIN may join: GENL_MCAST_CAP_NET_ADMIN
 * (6.7, and backported to 6.1 stable, where Debian's 6.1 has it); the
 * kernels before it tested GENL_UNS_ADMIN_PERM of the group, if anything
 */
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define RCLINK_GENL_MCAST_ADMIN	GENL_MCAST_CAP_NET_ADMIN
#else
#define RCLINK_GENL_MCAST_ADMIN	GENL_UNS_ADMIN_PERM
#endif

/* From 6.2 on the devlink core reports the driver name itself */
static inline int rclink_devlink_put_driver_name(struct devlink_info_req *req,
						 const char *name)
{
#if RCLINK_KERNEL_BEFORE(6, 2, 0)
	return devlink_info_driver_name_put(req, name);
#else
	return 0;
#endif
}

/*
 * devlink driverinit params: 6.4 moved them under the instance lock
 * (devl_param_driverinit_value_{get,set}()).  init_set is called without
 * the lock (probe, before devlink_register()); get with it held (reload).
 */
static inline void
rclink_devlink_param_init_set(struct devlink *devlink, u32 id,
			      union devlink_param_value val)
{
#if RCLINK_KERNEL_BEFORE(6, 4, 0)
	devlink_param_driverinit_value_set(devlink, id, val);
#else
	devl_lock(devlink);
	devl_param_driverinit_value_set(devlink, id, val);
	devl_unlock(devlink);
#endif
}

static inline int
rclink_devl_param_init_get(struct devlink *devlink, u32 id,
			   union devlink_param_value *val)
{
#if RCLINK_KERNEL_BEFORE(6, 4, 0)
	return devlink_param_driverinit_value_get(devlink, id, val);
#else
	return devl_param_driverinit_value_get(devlink, id, val);
#endif
}

/* Before 6.3 a driver announced `devlink dev reload` with a feature flag */
static inline void rclink_devlink_enable_reload(struct devlink *devlink)
{
#if RCLINK_KERNEL_BEFORE(6, 3, 0)
	devlink_set_features(devlink, DEVLINK_F_RELOAD);
#endif
}

/*
 * Per-queue statistics through the netdev netlink family (qstats): struct
 * netdev_stat_ops is 6.9, its TX stop/wake counters 6.10; before, the
 * netdev has no qstats.  The driver fills struct rclink_qstats for its
 * one RX and one TX queue (rclink_netdev.c); all of it is in the queues,
 * so the base is zero.
 */
struct rclink_qstats {
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_alloc_fail;
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_stop;
	u64 tx_wake;
};

void rclink_net_qstats(struct net_device *netdev, struct rclink_qstats *q);

#if !RCLINK_KERNEL_BEFORE(6, 10, 0)
#include <net/netdev_queues.h>

static inline void
rclink_qstats_rx(struct net_device *netdev, int idx,
		 struct netdev_queue_stats_rx *rx)
{
	struct rclink_qstats q;

	rclink_net_qstats(netdev, &q);
	rx->packets = q.rx_packets;
	rx->bytes = q.rx_bytes;
	rx->alloc_fail = q.rx_alloc_fail;
}

static inline void
rclink_qstats_tx(struct net_device *netdev, int idx,
		 struct netdev_queue_stats_tx *tx)
{
	struct rclink_qstats q;

	rclink_net_qstats(netdev, &q);
	tx->packets = q.tx_packets;
	tx->bytes = q.tx_bytes;
	tx->stop = q.tx_stop;
	tx->wake = q.tx_wake;
}

static inline void
rclink_qstats_base(struct net_device *netdev,
		   struct netdev_queue_stats_rx *rx,
		   struct netdev_queue_stats_tx *tx)
{
	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	tx->packets = 0;
	tx->bytes = 0;
	tx->stop = 0;
	tx->wake = 0;
}

static inline void rclink_netdev_set_stat_ops(struct net_device *netdev)
{
	static const struct netdev_stat_ops ops = {
		.get_queue_stats_rx = rclink_qstats_rx,
		.get_queue_stats_tx = rclink_qstats_tx,
		.get_base_stats = rclink_qstats_base,
	};

	netdev->stat_ops = &ops;
}
#else
static inline void rclink_netdev_set_stat_ops(struct net_device *netdev)
{
}
#endif

/*
 * The lockless stop and wake of a TX queue, netif_txq_maybe_stop() and
 * netif_txq_completed_wake() of <net/netdev_queues.h>, came with 6.3; for
 * 6.1 the same contract here: the stopper re-reads the free descriptors
 * after its stop bit is visible, the completer reports to BQL and wakes
 * after a full barrier (0: stopped or woken now; see the 6.3 header for
 * the other results).
 */
#if RCLINK_KERNEL_BEFORE(6, 3, 0)
/* @get_desc is read again after the stop, as in the 6.3 macros */
#define netif_txq_maybe_stop(txq, get_desc, stop_thrs, start_thrs) ({	\
	int __rcl_res = 1;						\
	if (unlikely((get_desc) < (stop_thrs))) {			\
		netif_tx_stop_queue(txq);				\
		/* the stop bit before the re-read: pairs with below */	\
		smp_mb__after_atomic();					\
		__rcl_res = 0;						\
		if (unlikely((get_desc) >= (start_thrs))) {		\
			netif_tx_start_queue(txq);			\
			__rcl_res = -1;					\
		}							\
	}								\
	__rcl_res;							\
})
#define netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs) ({ \
	int __rcl_res = -1;						\
	netdev_tx_completed_queue(txq, pkts, bytes);			\
	/* the consumer index before the stop bit: pairs with above */	\
	smp_mb();							\
	if ((pkts) && likely((get_desc) >= (start_thrs))) {		\
		__rcl_res = 1;						\
		if (unlikely(netif_tx_queue_stopped(txq))) {		\
			netif_tx_wake_queue(txq);			\
			__rcl_res = 0;					\
		}							\
	}								\
	__rcl_res;							\
})
#else
#include <net/netdev_queues.h>
#endif

/* 6.6 split net/page_pool.h into page_pool/{types,helpers}.h */
#if RCLINK_KERNEL_BEFORE(6, 6, 0)
#include <net/page_pool.h>
#else
#include <net/page_pool/helpers.h>
#endif

/*
 * A page pool knows its NAPI from 6.5 on (direct recycling from the NAPI
 * that owns it) and its netdev from 6.8 on (netlink introspection).
 */
static inline void rclink_page_pool_params_owner(struct page_pool_params *pp,
						 struct napi_struct *napi,
						 struct net_device *netdev)
{
#if !RCLINK_KERNEL_BEFORE(6, 5, 0)
	pp->napi = napi;
#endif
#if !RCLINK_KERNEL_BEFORE(6, 8, 0)
	pp->netdev = netdev;
#endif
}

/* ethtool_puts() is 6.8 */
static inline void rclink_ethtool_puts(u8 **data, const char *str)
{
#if RCLINK_KERNEL_BEFORE(6, 8, 0)
	strscpy_pad(*data, str, ETH_GSTRING_LEN);
	*data += ETH_GSTRING_LEN;
#else
	ethtool_puts(data, str);
#endif
}

/*
 * The attributes of a dump request, validated against the op's policy:
 * struct genl_dumpit_info carries a struct genl_info from 6.6 on.
 */
static inline struct nlattr **
rclink_genl_dump_attrs(struct netlink_callback *cb)
{
#if RCLINK_KERNEL_BEFORE(6, 6, 0)
	return genl_dumpit_info(cb)->attrs;
#else
	return genl_dumpit_info(cb)->info.attrs;
#endif
}

/* 6.4 dropped the module argument of class_create() */
static inline struct class *rclink_class_create(const char *name)
{
#if RCLINK_KERNEL_BEFORE(6, 4, 0)
	return class_create(THIS_MODULE, name);
#else
	return class_create(name);
#endif
}

/* 6.3 made vm_flags read-only outside vm_flags_set() */
static inline void rclink_vm_flags_set(struct vm_area_struct *vma,
				       unsigned long flags)
{
#if RCLINK_KERNEL_BEFORE(6, 3, 0)
	vma->vm_flags |= flags;
#else
	vm_flags_set(vma, flags);
#endif
}

static inline void rclink_vm_flags_clear(struct vm_area_struct *vma,
					 unsigned long flags)
{
#if RCLINK_KERNEL_BEFORE(6, 3, 0)
	vma->vm_flags &= ~flags;
#else
	vm_flags_clear(vma, flags);
#endif
}

/* dcbnl_ops exist only in kernels built with CONFIG_DCB */
static inline void rclink_set_dcbnl_ops(struct net_device *netdev,
					const struct dcbnl_rtnl_ops *ops)
{
#if IS_ENABLED(CONFIG_DCB)
	netdev->dcbnl_ops = ops;
#endif
}

#endif /* _RCLINK_COMPAT_H_ */
