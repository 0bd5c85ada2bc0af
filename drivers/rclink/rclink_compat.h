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

#endif /* _RCLINK_COMPAT_H_ */
