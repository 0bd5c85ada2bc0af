// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: dcbnl of the TYPE3 netdev: IEEE 802.1Qbb PFC on the LL 100G MAC's
 * Pause/PFC CSRs (seed 003, 7.4; Documentation/congestion.rst, "PFC").
 * `dcb pfc set dev ethX prio-pfc 3:on` enables priority 3 both ways: the
 * MAC may send XOFF/XON for it (TX_FC_ENABLE) and honours the peer's
 * (RX_PFC_ENABLE).  `dcb pfc show` adds the frames sent (requests) and
 * received (indications) per priority.  The choice is the board's: kept
 * in struct rclink_dev, written to the MAC when the netdev is registered
 * (after every reset) and on every change.  Host DCBX, IEEE only.
 */

#include <linux/bitfield.h>
#include <linux/netdevice.h>
#include <net/dcbnl.h>

#include "rclink.h"
#include "rclink_compat.h"
#include "rclink_netdev.h"

#define RCLINK_PFC_PRIOS	IEEE_8021QAZ_MAX_TCS
#define RCLINK_DCBX_MODE	(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)

/* The PFC enables into the MAC (both directions) */
void rclink_dcb_apply(struct rclink_dev *rdev)
{
	u8 en = READ_ONCE(rdev->pfc_en);

	rclink_wr32(rdev, RCLINK_TX_FC_ENABLE,
		    FIELD_PREP(RCLINK_TX_FC_ENABLE_ENABLE, en));
	rclink_wr32(rdev, RCLINK_RX_PFC_ENABLE,
		    FIELD_PREP(RCLINK_RX_PFC_ENABLE_ENABLE, en));
}

/* Frames per priority: sent (SHIM_PFC_TX) or received (SHIM_PFC_RX) */
void rclink_dcb_pfc_frames(struct rclink_dev *rdev, u64 *tx, u64 *rx)
{
	unsigned int i;

	for (i = 0; i < RCLINK_PFC_PRIOS; i++) {
		tx[i] = rclink_rd64(rdev, RCLINK_SHIM_PFC_TX(i));
		rx[i] = rclink_rd64(rdev, RCLINK_SHIM_PFC_RX(i));
	}
}

static int rclink_dcb_ieee_getpfc(struct net_device *netdev,
				  struct ieee_pfc *pfc)
{
	struct rclink_net *net = netdev_priv(netdev);
	struct rclink_dev *rdev = net->rdev;

	memset(pfc, 0, sizeof(*pfc));
	pfc->pfc_cap = RCLINK_PFC_PRIOS;
	pfc->pfc_en = READ_ONCE(rdev->pfc_en);
	rclink_dcb_pfc_frames(rdev, pfc->requests, pfc->indications);
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
	WRITE_ONCE(rdev->pfc_en, pfc->pfc_en);
	rclink_dcb_apply(rdev);
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
