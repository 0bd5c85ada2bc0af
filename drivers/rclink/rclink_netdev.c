// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the TYPE3 Ethernet netdev.  net_device_ops, carrier (SHIM_LINK
 * and its LINK events), stats64 and the bring-up and tear-down of the
 * TYPE3 rings (rclink_txrx.c) for ifup/ifdown, ring resizing, fault
 * recovery (rclink_health.c) and the t3_fault test hook.
 */

#include <linux/bitfield.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "rclink_compat.h"
#include "rclink_netdev.h"

#define RCLINK_TX_TIMEOUT	(5 * HZ)

static const u32 rclink_shim_cnt_regs[RCLINK_SHIM_CNT_NUM] = {
	[RCLINK_SHIM_CNT_WIRE_TX] = RCLINK_SHIM_WIRE_TX_FRAMES,
	[RCLINK_SHIM_CNT_WIRE_RX] = RCLINK_SHIM_WIRE_RX_FRAMES,
	[RCLINK_SHIM_CNT_RX_NOMD] = RCLINK_SHIM_RX_DROP_NOMD,
	[RCLINK_SHIM_CNT_RX_OFF] = RCLINK_SHIM_RX_DROP_OFF,
	[RCLINK_SHIM_CNT_RX_T12] = RCLINK_SHIM_RX_DROP_T12,
	[RCLINK_SHIM_CNT_TX_LINK] = RCLINK_SHIM_TX_DROP_LINK,
	[RCLINK_SHIM_CNT_RX_ERR] = RCLINK_SHIM_RX_DROP_ERR,
	[RCLINK_SHIM_CNT_MAC_CTRL_DROP] = RCLINK_SHIM_MAC_CTRL_DROP,
	[RCLINK_SHIM_CNT_T3_DMA_ERR] = RCLINK_SHIM_T3_DMA_ERR,
};

/* Read the shim's counters; a dead board keeps the last values read */
void rclink_net_shim_cnt_update(struct rclink_net *net)
{
	struct rclink_dev *rdev = net->rdev;
	unsigned int i;
	u64 val;

	for (i = 0; i < RCLINK_SHIM_CNT_NUM; i++) {
		val = rclink_rd64(rdev, rclink_shim_cnt_regs[i]);
		if (rclink_gone(rdev))
			return;
		WRITE_ONCE(net->shim_cnt[i], val);
	}
}

/* ---- carrier ------------------------------------------------------------- */

/* Carrier follows SHIM_LINK.up while the interface is up */
static void rclink_net_carrier_update(struct rclink_net *net)
{
	struct net_device *netdev = net->netdev;
	struct rclink_dev *rdev = net->rdev;
	bool up;

	spin_lock(&net->carrier_lock);
	if (!net->up)
		goto out;
	up = rclink_rd64(rdev, RCLINK_SHIM_LINK) & RCLINK_SHIM_LINK_UP;
	if (rclink_gone(rdev))
		up = false;
	if (up == netif_carrier_ok(netdev))
		goto out;
	if (up) {
		netif_carrier_on(netdev);
		netdev_info(netdev, "link up\n");
	} else {
		netif_carrier_off(netdev);
		netdev_info(netdev, "link down\n");
	}
out:
	spin_unlock(&net->carrier_lock);
}

/* A LINK event record (the event thread) */
void rclink_netdev_link_event(struct rclink_dev *rdev)
{
	struct rclink_net *net = READ_ONCE(rdev->net);

	if (net)
		rclink_net_carrier_update(net);
}

/* A TYPE3 event (the event thread): tails moved, or an MD ran out */
void rclink_netdev_t3_event(struct rclink_dev *rdev)
{
	struct rclink_net *net = READ_ONCE(rdev->net);

	if (!net)
		return;
	/* a no-op while NAPI is disabled (interface down) */
	local_bh_disable();
	napi_schedule(&net->napi);
	local_bh_enable();
}

/*
 * Vector 2 (hard interrupt): TYPE3 raised it instead of writing an event
 * record.  NAPI reads and clears the causes before it cleans.
 */
void rclink_netdev_t3_irq(struct rclink_dev *rdev)
{
	struct rclink_net *net = READ_ONCE(rdev->net);

	if (!net)
		return;
	atomic_set(&net->t3_irq, 1);
	napi_schedule_irqoff(&net->napi);
}

/*
 * TYPE3 interrupts on vector 2 while NAPI runs (MSI-X), else as event
 * records.  A shim without SHIM_T3_IRQ keeps enable 0: the event ring then.
 */
static void rclink_net_irq_own(struct rclink_net *net, bool on)
{
	struct rclink_dev *rdev = net->rdev;
	u64 cfg = 0;

	if (!rclink_irq_t3_own(rdev))
		return;
	if (on)
		cfg = RCLINK_SHIM_T3_IRQ_ENABLE |
		      FIELD_PREP(RCLINK_SHIM_T3_IRQ_VECTOR, RCLINK_VEC_T3);
	rclink_wr64(rdev, RCLINK_SHIM_T3_IRQ, cfg);
	/* flush; an old shim reads 0 */
	cfg = rclink_rd64(rdev, RCLINK_SHIM_T3_IRQ);
	if (on && (rclink_gone(rdev) || !(cfg & RCLINK_SHIM_T3_IRQ_ENABLE)))
		netdev_dbg(net->netdev, "TYPE3 interrupts stay in the event ring\n");
}

/* ---- up / down ----------------------------------------------------------- */

/* Rings allocated: start the path, NAPI, the queue (rtnl) */
static void rclink_net_up(struct rclink_net *net, bool poison_rx)
{
	rclink_t3_hw_start(net, poison_rx);
	napi_enable(&net->napi);
	rclink_net_irq_own(net, true);
	netif_tx_wake_all_queues(net->netdev);
	/* frames may have landed before NAPI could be scheduled */
	local_bh_disable();
	napi_schedule(&net->napi);
	local_bh_enable();
}

/*
 * Stop the queue and NAPI, reset the path, free what was in flight (rtnl).
 * The carrier stays: the wire does not change with a reset of the path.
 */
static void rclink_net_down(struct rclink_net *net, bool fault)
{
	netif_tx_disable(net->netdev);
	rclink_net_irq_own(net, false);
	napi_disable(&net->napi);
	/* causes raised on the vector that NAPI did not get to */
	if (atomic_xchg(&net->t3_irq, 0))
		rclink_t3_causes(net->rdev);
	rclink_t3_hw_stop(net, fault);
}

static void rclink_net_set_up(struct rclink_net *net, bool up)
{
	spin_lock(&net->carrier_lock);
	WRITE_ONCE(net->up, up);
	if (!up)
		netif_carrier_off(net->netdev);
	spin_unlock(&net->carrier_lock);
	if (up)
		rclink_net_carrier_update(net);
}

/* Rings allocated and running, the carrier followed (rtnl) */
static int rclink_net_rings_up(struct rclink_net *net)
{
	int err;

	err = rclink_txr_alloc(net, &net->tx, net->tx_size);
	if (err)
		goto err;
	err = rclink_rxr_alloc(net, &net->rx, net->rx_size);
	if (err)
		goto err_txr_free;
	rclink_net_up(net, false);
	rclink_net_set_up(net, true);
	return 0;

err_txr_free:
	rclink_txr_free(net, &net->tx);
err:
	netdev_err(net->netdev,
		   "cannot allocate rings of %u TX and %u RX MDs: %d\n",
		   net->tx_size, net->rx_size, err);
	return err;
}

/* Undoes rclink_net_rings_up(); nothing to do when they are not up (rtnl) */
static void rclink_net_rings_down(struct rclink_net *net)
{
	if (!net->up)
		return;
	rclink_net_set_up(net, false);
	rclink_net_down(net, false);
	rclink_rxr_free(net, &net->rx);
	rclink_txr_free(net, &net->tx);
}

static int rclink_open(struct net_device *netdev)
{
	return rclink_net_rings_up(netdev_priv(netdev));
}

/* Also called for an interface detached by a reset: its rings are gone */
static int rclink_stop(struct net_device *netdev)
{
	rclink_net_rings_down(netdev_priv(netdev));
	return 0;
}

/*
 * ethtool -G.  The new RX ring's page pool belongs to the NAPI instance,
 * and a page pool may only be created or destroyed while its NAPI is
 * disabled: the path stops first, the new rings are allocated, and on a
 * failure the old rings run again as they were (what was in flight on TX
 * is dropped either way, counted in tx_flush_down).  rtnl held.
 */
int rclink_net_set_rings(struct rclink_net *net, u32 tx_size, u32 rx_size)
{
	struct rclink_txr tx;
	struct rclink_rxr rx;
	int err;

	if (!net->up) {
		net->tx_size = tx_size;
		net->rx_size = rx_size;
		return 0;
	}

	rclink_net_down(net, false);
	err = rclink_txr_alloc(net, &tx, tx_size);
	if (err)
		goto err_up;
	err = rclink_rxr_alloc(net, &rx, rx_size);
	if (err) {
		rclink_txr_free(net, &tx);
		goto err_up;
	}
	swap(net->tx, tx);
	swap(net->rx, rx);
	net->tx_size = tx_size;
	net->rx_size = rx_size;
	rclink_rxr_free(net, &rx);
	rclink_txr_free(net, &tx);
	rclink_net_up(net, false);
	return 0;

err_up:
	netdev_err(net->netdev,
		   "cannot allocate rings of %u TX and %u RX MDs: %d; the rings of %u and %u stay\n",
		   tx_size, rx_size, err, net->tx_size, net->rx_size);
	rclink_net_up(net, false);
	return err;
}

/* ---- recovery and the fault hook ----------------------------------------- */

/*
 * The board is up and its netdev attached (rtnl): registers may be used.
 * Before the netdev exists (probe) the board's up flag tells.
 */
bool rclink_netdev_present(struct rclink_dev *rdev)
{
	ASSERT_RTNL();
	if (!rdev->net)
		return rclink_is_up(rdev);
	return netif_device_present(rdev->net->netdev);
}

/*
 * Soft reset of the non-RDMA path with the rings re-initialised, when the
 * interface is up: false when it is not (the caller resets the bare path).
 */
bool rclink_netdev_t3_reset(struct rclink_dev *rdev)
{
	struct rclink_net *net;

	ASSERT_RTNL();
	net = rdev->net;
	if (!net || !net->up)
		return false;
	rclink_net_down(net, true);
	rclink_net_up(net, false);
	return true;
}

/* debugfs t3_fault: post a malformed MD (enum rclink_t3_fault) */
int rclink_netdev_t3_fault(struct rclink_dev *rdev, unsigned int fault)
{
	struct rclink_net *net;
	int err = 0;

	if (fault >= RCLINK_T3_FAULT_NUM)
		return -EINVAL;

	rtnl_lock();
	net = rdev->net;
	if (!net || !net->up) {
		err = -ENETDOWN;
		goto out;
	}
	netdev_warn(net->netdev, "test hook: posting a %s MD\n",
		    rclink_t3_fault_names[fault]);
	if (fault == RCLINK_T3_FAULT_RX_MD_SIZE_ZERO) {
		/* the next frame received lands in the poisoned MD */
		rclink_net_down(net, false);
		rclink_net_up(net, true);
	} else {
		err = rclink_t3_fault_post_tx(net, fault);
	}
out:
	rtnl_unlock();
	return err;
}

/* ---- net_device_ops ------------------------------------------------------ */

static void rclink_get_stats64(struct net_device *netdev,
			       struct rtnl_link_stats64 *s)
{
	struct rclink_net *net = netdev_priv(netdev);
	struct rclink_tx_xstats *txx = &net->tx_xstats;
	struct rclink_tx_stats *tx = &net->tx_stats;
	struct rclink_rx_stats *rx = &net->rx_stats;
	u64 t_pkts, t_bytes, t_down, t_fault, t_over;
	u64 r_pkts, r_bytes, r_nobuf, r_partial;
	u64 r_size, r_frame, r_crc, r_len;
	const u64 *shim = net->shim_cnt;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&tx->syncp);
		t_pkts = tx->packets;
		t_bytes = tx->bytes;
		t_down = tx->flush_down;
		t_fault = tx->flush_fault;
	} while (u64_stats_fetch_retry(&tx->syncp, start));
	do {
		start = u64_stats_fetch_begin(&txx->syncp);
		t_over = txx->oversize;
	} while (u64_stats_fetch_retry(&txx->syncp, start));
	do {
		start = u64_stats_fetch_begin(&rx->syncp);
		r_pkts = rx->packets;
		r_bytes = rx->bytes;
		r_nobuf = rx->nobuf;
		r_partial = rx->partial;
		r_size = rx->md_size_err;
		r_frame = rx->frame_err;
		r_crc = rx->crc_err;
		r_len = rx->len_err;
	} while (u64_stats_fetch_retry(&rx->syncp, start));
	/*
	 * The shim's counters only while the board is there: a reset detaches
	 * the netdev and waits for this section before the board goes down.
	 */
	rcu_read_lock();
	if (netif_device_present(netdev))
		rclink_net_shim_cnt_update(net);
	rcu_read_unlock();

	s->rx_packets = r_pkts;
	s->rx_bytes = r_bytes;
	s->rx_crc_errors = r_crc;
	s->rx_length_errors = r_len + r_size;
	s->rx_frame_errors = r_frame;
	s->rx_errors = r_crc + r_len + r_size + r_frame +
		       READ_ONCE(shim[RCLINK_SHIM_CNT_RX_ERR]);
	s->rx_dropped = r_nobuf + r_partial +
			READ_ONCE(shim[RCLINK_SHIM_CNT_RX_OFF]);
	s->rx_missed_errors = READ_ONCE(shim[RCLINK_SHIM_CNT_RX_NOMD]);

	s->tx_packets = t_pkts;
	s->tx_bytes = t_bytes;
	s->tx_dropped = t_over + t_down;
	s->tx_aborted_errors = t_fault;
	s->tx_carrier_errors = READ_ONCE(shim[RCLINK_SHIM_CNT_TX_LINK]);
	s->tx_errors = t_fault + s->tx_carrier_errors;
}

/* RX buffers do not depend on the MTU: frames span MDs */
static int rclink_change_mtu(struct net_device *netdev, int mtu)
{
	netdev_dbg(netdev, "MTU %u -> %d\n", netdev->mtu, mtu);
	WRITE_ONCE(netdev->mtu, mtu);
	return 0;
}

static void rclink_tx_timeout(struct net_device *netdev, unsigned int txq)
{
	struct rclink_net *net = netdev_priv(netdev);

	atomic64_inc(&net->tx_timeout);
	netdev_err(netdev, "TX timeout: head %u, cleaned to %u, TX_MD_TAIL_PTR %llu\n",
		   READ_ONCE(net->tx.head), READ_ONCE(net->tx.ntc),
		   FIELD_GET(RCLINK_TX_MD_TAIL_PTR_TAIL,
			     rclink_rd64(net->rdev, RCLINK_TX_MD_TAIL_PTR)));
	rclink_health_t3_tx_timeout(net->rdev);
}

/* The one RX and one TX queue's counters (qstats, rclink_compat.h) */
void rclink_net_qstats(struct net_device *netdev, struct rclink_qstats *q)
{
	struct rclink_net *net = netdev_priv(netdev);
	struct rclink_tx_xstats *txx = &net->tx_xstats;
	struct rclink_tx_stats *tx = &net->tx_stats;
	struct rclink_rx_stats *rx = &net->rx_stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&rx->syncp);
		q->rx_packets = rx->packets;
		q->rx_bytes = rx->bytes;
		q->rx_alloc_fail = rx->alloc_fail;
	} while (u64_stats_fetch_retry(&rx->syncp, start));
	do {
		start = u64_stats_fetch_begin(&tx->syncp);
		q->tx_packets = tx->packets;
		q->tx_bytes = tx->bytes;
		q->tx_wake = tx->wake;
	} while (u64_stats_fetch_retry(&tx->syncp, start));
	do {
		start = u64_stats_fetch_begin(&txx->syncp);
		q->tx_stop = txx->stop;
	} while (u64_stats_fetch_retry(&txx->syncp, start));
}

static const struct net_device_ops rclink_netdev_ops = {
	.ndo_open = rclink_open,
	.ndo_stop = rclink_stop,
	.ndo_start_xmit = rclink_xmit,
	.ndo_get_stats64 = rclink_get_stats64,
	.ndo_change_mtu = rclink_change_mtu,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_tx_timeout = rclink_tx_timeout,
};

/* ---- registration -------------------------------------------------------- */

/* SHIM_MAC, first byte in bits 47:40; a random address when it has none */
static void rclink_net_set_mac(struct rclink_net *net)
{
	u64 val = rclink_rd64(net->rdev, RCLINK_SHIM_MAC);
	u8 addr[ETH_ALEN];

	u64_to_ether_addr(FIELD_GET(RCLINK_SHIM_MAC_ADDR, val), addr);
	if (is_valid_ether_addr(addr)) {
		eth_hw_addr_set(net->netdev, addr);
		return;
	}
	eth_hw_addr_random(net->netdev);
	dev_warn(net->rdev->dev, "SHIM_MAC holds %pM: using the random %pM\n",
		 addr, net->netdev->dev_addr);
}

/*
 * The netdev lives from probe to remove; resets, system sleep and devlink
 * reload detach it (rclink_netdev_detach()) and attach it again
 * (rclink_netdev_attach()), so it keeps its ifindex, name, namespace,
 * addresses, MTU, ring sizes and PFC settings.  Called with the board up.
 */
int rclink_netdev_register(struct rclink_dev *rdev)
{
	struct net_device *netdev;
	struct rclink_net *net;
	int err;

	netdev = alloc_etherdev(sizeof(*net));
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, rdev->dev);
	net = netdev_priv(netdev);
	net->netdev = netdev;
	net->rdev = rdev;
	net->tx_size = rdev->cfg.t3_tx_ring_size;
	net->rx_size = rdev->cfg.t3_rx_ring_size;
	spin_lock_init(&net->tail_up_lock);
	spin_lock_init(&net->carrier_lock);
	u64_stats_init(&net->tx_stats.syncp);
	u64_stats_init(&net->tx_xstats.syncp);
	u64_stats_init(&net->rx_stats.syncp);
	atomic64_set(&net->tx_timeout, 0);

	netdev->netdev_ops = &rclink_netdev_ops;
	rclink_set_ethtool_ops(netdev);
	rclink_dcb_init(netdev);
	rclink_netdev_set_stat_ops(netdev);
	netdev->watchdog_timeo = RCLINK_TX_TIMEOUT;
	netdev->min_mtu = RCLINK_MTU_MIN;
	netdev->max_mtu = RCLINK_MTU_MAX;
	/* frames are copied into the bounce buffers: any skb layout */
	netdev->hw_features = NETIF_F_SG | NETIF_F_FRAGLIST;
	netdev->features = netdev->hw_features;
	netdev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	rclink_net_set_mac(net);
	netif_napi_add(netdev, &net->napi, rclink_napi_poll);
	netif_carrier_off(netdev);

	rclink_pfc_apply(rdev);
	/* events reach the netdev from here on (NAPI disabled, no carrier) */
	WRITE_ONCE(rdev->net, net);
	err = register_netdev(netdev);
	if (err) {
		dev_err(rdev->dev, "cannot register the TYPE3 netdev: %d\n",
			err);
		rtnl_lock();
		WRITE_ONCE(rdev->net, NULL);
		rtnl_unlock();
		rclink_irq_sync(rdev);
		netif_napi_del(&net->napi);
		free_netdev(netdev);
		return err;
	}
	dev_info(rdev->dev, "TYPE3 netdev %s, MAC %pM\n", netdev->name,
		 netdev->dev_addr);
	return 0;
}

/*
 * At remove, before rclink_down() (whose detach then has nothing to do):
 * unregistered as any netdev is, closed by the stack while the board still
 * runs.  A netdev detached by a failed reset is unregistered the same way.
 */
void rclink_netdev_unregister(struct rclink_dev *rdev)
{
	struct rclink_net *net = rdev->net;

	if (!net)
		return;
	/* no event, recovery or test hook reaches the netdev any more */
	rtnl_lock();
	WRITE_ONCE(rdev->net, NULL);
	rtnl_unlock();
	rclink_irq_sync(rdev);

	unregister_netdev(net->netdev);
	netif_napi_del(&net->napi);
	free_netdev(net->netdev);
}

/*
 * The board goes down (reset, sleep, reload, device gone; the lifecycle
 * lock held): the stack stops using the netdev (ethtool and the rest get
 * ENODEV, the queue stays stopped), the rings of a running interface go
 * with what they had in flight (counted as flush_down), and no reader of
 * the shim's counters is left when the board is reset.
 */
void rclink_netdev_detach(struct rclink_dev *rdev)
{
	struct rclink_net *net = rdev->net;

	if (!net)
		return;
	rtnl_lock();
	netif_device_detach(net->netdev);
	rclink_net_rings_down(net);
	rtnl_unlock();
	synchronize_rcu();
	/* no event, NAPI poll or xmit is left running on the old rings */
	rclink_irq_sync(rdev);
}

/*
 * The board is up again (the lifecycle lock held): the board's PFC state
 * from the driver's, the rings of an interface that is up, then the stack
 * may use the netdev again.  On an error the netdev stays detached.
 */
int rclink_netdev_attach(struct rclink_dev *rdev)
{
	struct rclink_net *net = rdev->net;
	int err = 0;

	if (!net)
		return 0;
	rtnl_lock();
	rclink_pfc_apply(rdev);
	if (netif_running(net->netdev))
		err = rclink_net_rings_up(net);
	if (!err)
		netif_device_attach(net->netdev);
	rtnl_unlock();
	return err;
}

/* devlink reload took new type3 ring sizes: the next rings get them */
void rclink_netdev_set_ring_sizes(struct rclink_dev *rdev, u32 tx, u32 rx)
{
	struct rclink_net *net = rdev->net;

	if (!net)
		return;
	rtnl_lock();
	net->tx_size = tx;
	net->rx_size = rx;
	rtnl_unlock();
}

/* Reboot / kexec: no TYPE3 DMA any more */
void rclink_netdev_shutdown(struct rclink_dev *rdev)
{
	struct rclink_net *net;

	rtnl_lock();
	net = rdev->net;
	if (net) {
		netif_device_detach(net->netdev);
		if (netif_running(net->netdev))
			dev_close(net->netdev);
	}
	rtnl_unlock();
	rclink_wr64(rdev, RCLINK_NONR_DMA_CTRL, 0);
}
