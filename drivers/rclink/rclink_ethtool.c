// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: ethtool_ops of the TYPE3 netdev.  -i, -g/-G, link, and -S:
 * the device's event counters (the names of the debugfs "events" file),
 * the shim's TYPE3 counters and the rings' software counters that
 * rtnl_link_stats64 does not already carry.  The set of names is constant.
 */

#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/netdevice.h>

#include "rclink_compat.h"
#include "rclink_netdev.h"

/* Shim counters not reported 1:1 in stats64 (see rclink_get_stats64()) */
static const struct {
	const char *name;
	enum rclink_shim_cnt cnt;
} rclink_shim_stats[] = {
	{ "shim_wire_tx_frames", RCLINK_SHIM_CNT_WIRE_TX },
	{ "shim_wire_rx_frames", RCLINK_SHIM_CNT_WIRE_RX },
	{ "shim_rx_drop_off", RCLINK_SHIM_CNT_RX_OFF },		/* rx_dropped */
	{ "shim_rx_drop_err", RCLINK_SHIM_CNT_RX_ERR },		/* rx_errors */
	{ "shim_rx_drop_t12", RCLINK_SHIM_CNT_RX_T12 },
	{ "shim_rx_drop_mac_ctrl", RCLINK_SHIM_CNT_MAC_CTRL_DROP },
	{ "shim_t3_dma_err", RCLINK_SHIM_CNT_T3_DMA_ERR },
};

/* Software counters of the rings; the parts of an aggregate are named */
enum rclink_sw_stat {
	RCLINK_SW_TX_BUSY,
	RCLINK_SW_TX_STOP,
	RCLINK_SW_TX_WAKE,
	RCLINK_SW_TX_TIMEOUT,
	RCLINK_SW_TX_OVERSIZE,		/* part of tx_dropped */
	RCLINK_SW_TX_FLUSH_DOWN,	/* part of tx_dropped */
	RCLINK_SW_TX_MAPPED,
	RCLINK_SW_TX_COPIED,
	RCLINK_SW_TX_MAP_ERR,
	RCLINK_SW_RX_ALLOC_FAIL,
	RCLINK_SW_RX_NOBUF,		/* part of rx_dropped */
	RCLINK_SW_RX_PARTIAL,		/* part of rx_dropped */
	RCLINK_SW_RX_MD_SIZE_ERR,	/* part of rx_length_errors */
	RCLINK_SW_NUM
};

static const char * const rclink_sw_stat_names[RCLINK_SW_NUM] = {
	[RCLINK_SW_TX_BUSY] = "tx_busy",
	[RCLINK_SW_TX_STOP] = "tx_stop",
	[RCLINK_SW_TX_WAKE] = "tx_wake",
	[RCLINK_SW_TX_TIMEOUT] = "tx_timeout",
	[RCLINK_SW_TX_OVERSIZE] = "tx_oversize",
	[RCLINK_SW_TX_FLUSH_DOWN] = "tx_flush_down",
	[RCLINK_SW_TX_MAPPED] = "tx_mapped",
	[RCLINK_SW_TX_COPIED] = "tx_copied",
	[RCLINK_SW_TX_MAP_ERR] = "tx_map_err",
	[RCLINK_SW_RX_ALLOC_FAIL] = "rx_alloc_fail",
	[RCLINK_SW_RX_NOBUF] = "rx_nobuf",
	[RCLINK_SW_RX_PARTIAL] = "rx_partial",
	[RCLINK_SW_RX_MD_SIZE_ERR] = "rx_md_size_err",
};

/* the board's event counters: devlink health diagnose, reporter events */
#define RCLINK_ETHTOOL_NSTATS \
	(rclink_cnt_netdev_num() + ARRAY_SIZE(rclink_shim_stats) + \
	 RCLINK_SW_NUM)

static void rclink_get_drvinfo(struct net_device *netdev,
			       struct ethtool_drvinfo *info)
{
	struct rclink_net *net = netdev_priv(netdev);
	struct rclink_params *p = &net->rdev->params;

	/* version: left to the core (the kernel release) */
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(net->rdev->pdev),
		sizeof(info->bus_info));
	snprintf(info->fw_version, sizeof(info->fw_version), "shim %u.%u",
		 p->shim_major, p->shim_minor);
}

static void rclink_get_ringparam(struct net_device *netdev,
				 struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	struct rclink_net *net = netdev_priv(netdev);

	ring->rx_max_pending = RCLINK_RING_MAX;
	ring->tx_max_pending = RCLINK_RING_MAX;
	ring->rx_pending = net->rx_size;
	ring->tx_pending = net->tx_size;
}

static bool rclink_ring_size_ok(u32 n)
{
	return is_power_of_2(n) && n >= RCLINK_RING_MIN &&
	       n <= RCLINK_RING_MAX;
}

static int rclink_set_ringparam(struct net_device *netdev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct rclink_net *net = netdev_priv(netdev);

	if (!rclink_ring_size_ok(ring->rx_pending) ||
	    !rclink_ring_size_ok(ring->tx_pending)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "ring sizes must be powers of two from 64 to 2048");
		return -EINVAL;
	}
	if (ring->rx_pending == net->rx_size &&
	    ring->tx_pending == net->tx_size)
		return 0;
	return rclink_net_set_rings(net, ring->tx_pending, ring->rx_pending);
}

static int rclink_get_sset_count(struct net_device *netdev, int sset)
{
	return sset == ETH_SS_STATS ? RCLINK_ETHTOOL_NSTATS : -EOPNOTSUPP;
}

static void rclink_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	unsigned int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < RCLINK_CNT_NUM; i++)
		if (rclink_cnt_netdev(i))
			rclink_ethtool_puts(&data, rclink_cnt_names[i]);
	for (i = 0; i < ARRAY_SIZE(rclink_shim_stats); i++)
		rclink_ethtool_puts(&data, rclink_shim_stats[i].name);
	for (i = 0; i < RCLINK_SW_NUM; i++)
		rclink_ethtool_puts(&data, rclink_sw_stat_names[i]);
}

static void rclink_get_sw_stats(struct rclink_net *net, u64 *v)
{
	struct rclink_tx_xstats *txx = &net->tx_xstats;
	struct rclink_tx_stats *tx = &net->tx_stats;
	struct rclink_rx_stats *rx = &net->rx_stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&txx->syncp);
		v[RCLINK_SW_TX_BUSY] = txx->busy;
		v[RCLINK_SW_TX_STOP] = txx->stop;
		v[RCLINK_SW_TX_OVERSIZE] = txx->oversize;
		v[RCLINK_SW_TX_MAPPED] = txx->mapped;
		v[RCLINK_SW_TX_COPIED] = txx->copied;
		v[RCLINK_SW_TX_MAP_ERR] = txx->map_err;
	} while (u64_stats_fetch_retry(&txx->syncp, start));
	do {
		start = u64_stats_fetch_begin(&tx->syncp);
		v[RCLINK_SW_TX_WAKE] = tx->wake;
		v[RCLINK_SW_TX_FLUSH_DOWN] = tx->flush_down;
	} while (u64_stats_fetch_retry(&tx->syncp, start));
	do {
		start = u64_stats_fetch_begin(&rx->syncp);
		v[RCLINK_SW_RX_ALLOC_FAIL] = rx->alloc_fail;
		v[RCLINK_SW_RX_NOBUF] = rx->nobuf;
		v[RCLINK_SW_RX_PARTIAL] = rx->partial;
		v[RCLINK_SW_RX_MD_SIZE_ERR] = rx->md_size_err;
	} while (u64_stats_fetch_retry(&rx->syncp, start));
	v[RCLINK_SW_TX_TIMEOUT] = atomic64_read(&net->tx_timeout);
}

static void rclink_get_ethtool_stats(struct net_device *netdev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct rclink_net *net = netdev_priv(netdev);
	unsigned int i;

	for (i = 0; i < RCLINK_CNT_NUM; i++)
		if (rclink_cnt_netdev(i))
			*data++ = rclink_cnt_read(net->rdev, i);
	rclink_net_shim_cnt_update(net);
	for (i = 0; i < ARRAY_SIZE(rclink_shim_stats); i++)
		*data++ = READ_ONCE(net->shim_cnt[rclink_shim_stats[i].cnt]);
	rclink_get_sw_stats(net, data);
}

/*
 * ethtool -a: no autonegotiation; RX: a Pause frame received stops the
 * sending (TX_PAUSE_ENABLE); TX: the MAC sends Pause rather than PFC frames
 * on request (TX_FC_SELECT).  PFC is set through dcbnl.
 */
static void rclink_get_pauseparam(struct net_device *netdev,
				  struct ethtool_pauseparam *pause)
{
	struct rclink_net *net = netdev_priv(netdev);
	u32 sel = rclink_rd32(net->rdev, RCLINK_TX_FC_SELECT);

	pause->autoneg = 0;
	pause->rx_pause = !!(rclink_rd32(net->rdev, RCLINK_TX_PAUSE_ENABLE) &
			     RCLINK_TX_PAUSE_ENABLE_ENABLE);
	pause->tx_pause = !(sel & RCLINK_TX_FC_SELECT_PFC);
}

/* ethtool -I -a: the MAC's Pause/PFC frames, all priorities */
static void rclink_get_pause_stats(struct net_device *netdev,
				   struct ethtool_pause_stats *stats)
{
	struct rclink_net *net = netdev_priv(netdev);
	u64 tx[IEEE_8021QAZ_MAX_TCS], rx[IEEE_8021QAZ_MAX_TCS];
	unsigned int i;

	rclink_pfc_frames(net->rdev, tx, rx);
	if (rclink_gone(net->rdev))
		return;
	stats->tx_pause_frames = 0;
	stats->rx_pause_frames = 0;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		stats->tx_pause_frames += tx[i];
		stats->rx_pause_frames += rx[i];
	}
}

/*
 * The LL 100G MAC runs at one speed, full duplex, without autonegotiation;
 * the shim does not know the media (the board's cage and module), so no
 * link mode is claimed.  Speed and duplex only while there is a carrier.
 */
static int rclink_get_link_ksettings(struct net_device *netdev,
				     struct ethtool_link_ksettings *ks)
{
	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.autoneg = AUTONEG_DISABLE;
	ks->base.port = PORT_OTHER;
	if (netif_carrier_ok(netdev)) {
		ks->base.speed = SPEED_100000;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

static const struct ethtool_ops rclink_ethtool_ops = {
	.get_drvinfo = rclink_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = rclink_get_link_ksettings,
	.get_ringparam = rclink_get_ringparam,
	.set_ringparam = rclink_set_ringparam,
	.get_sset_count = rclink_get_sset_count,
	.get_strings = rclink_get_strings,
	.get_ethtool_stats = rclink_get_ethtool_stats,
	.get_pauseparam = rclink_get_pauseparam,
	.get_pause_stats = rclink_get_pause_stats,
};

void rclink_set_ethtool_ops(struct net_device *netdev)
{
	netdev->ethtool_ops = &rclink_ethtool_ops;
}
