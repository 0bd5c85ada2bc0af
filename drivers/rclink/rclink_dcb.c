// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: dcbnl of the TYPE3 netdev: IEEE 802.1Qbb PFC on the LL 100G MAC's
 * Pause/PFC CSRs (seed 003, 7.4; Documentation/congestion.rst, "PFC").
 * `dcb pfc set dev ethX prio-pfc 3:on` enables priority 3 both ways: the
 * MAC may send XOFF/XON for it (TX_FC_ENABLE) and honours the peer's
 * (RX_PFC_ENABLE), and the IP's flows on priority 3 obey pauses and ask
 * for XOFF when their receive buffer fills (XON_THR_RDMA).  `dcb pfc
 * show` adds the frames sent (requests) and received (indications) per
 * priority.  The choice is the board's: kept in struct rclink_dev,
 * written when the netdev is registered and attached again after every
 * reset (under rtnl), on every change and when the flows' priorities
 * change.  Host DCBX, IEEE only.
 *
 * PFC and CBFC are exclusive (seed 000, CBFC configuration constraints): with
 * the devlink param flow_control cbfc the MAC's PFC stays off, getpfc reports
 * no priority and setpfc refuses any (rclink_cbfc.c).
 */

#include <linux/bitfield.h>
#include <linux/netdevice.h>
#include <net/dcbnl.h>

#include "rclink.h"
#include "rclink_compat.h"
#include "rclink_netdev.h"

#define RCLINK_DCBX_MODE	(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)

static int rclink_dcb_ieee_getpfc(struct net_device *netdev,
				  struct ieee_pfc *pfc)
{
	struct rclink_net *net = netdev_priv(netdev);
	struct rclink_dev *rdev = net->rdev;

	memset(pfc, 0, sizeof(*pfc));
	pfc->pfc_cap = RCLINK_PFC_PRIOS;
	pfc->pfc_en = rclink_cbfc_on(rdev) ? 0 : READ_ONCE(rdev->pfc_en);
	/* the frame counters only while the board is there (rtnl held) */
	if (!netif_device_present(netdev))
		return 0;
	rclink_pfc_frames(rdev, pfc->requests, pfc->indications);
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static int rclink_dcb_ieee_setpfc(struct net_device *netdev,
				  struct ieee_pfc *pfc)
{
	struct rclink_net *net = netdev_priv(netdev);
	struct rclink_dev *rdev = net->rdev;

	/*
	 * No MACsec bypass, and the MAC has no cable delay allowance to set.
	 * dcbnl reports a refusal only in its reply's DCB_ATTR_IEEE, which
	 * `dcb` does not show: say it in the log too.
	 */
	if (pfc->mbc || pfc->delay) {
		netdev_info(netdev,
			    "PFC: refused: the MAC has no cable delay or MACsec bypass setting (delay %u, mbc %u)\n",
			    pfc->delay, pfc->mbc);
		return -EOPNOTSUPP;
	}
	if (rclink_cbfc_on(rdev) && pfc->pfc_en) {
		netdev_err(netdev,
			   "PFC and CBFC are exclusive: devlink param flow_control is cbfc\n");
		return -EOPNOTSUPP;
	}
	WRITE_ONCE(rdev->pfc_en, pfc->pfc_en);
	/* a board in a reset gets it when the netdev is attached again */
	if (!netif_device_present(netdev))
		return 0;
	rclink_pfc_apply(rdev);
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static u8 rclink_dcb_getdcbx(struct net_device *netdev)
{
	return RCLINK_DCBX_MODE;
}

static u8 rclink_dcb_setdcbx(struct net_device *netdev, u8 mode)
{
	return mode == RCLINK_DCBX_MODE ? 0 : 1;
}

static const struct dcbnl_rtnl_ops rclink_dcbnl_ops = {
	.ieee_getpfc = rclink_dcb_ieee_getpfc,
	.ieee_setpfc = rclink_dcb_ieee_setpfc,
	.getdcbx = rclink_dcb_getdcbx,
	.setdcbx = rclink_dcb_setdcbx,
};

void rclink_dcb_init(struct net_device *netdev)
{
	rclink_set_dcbnl_ops(netdev, &rclink_dcbnl_ops);
}
