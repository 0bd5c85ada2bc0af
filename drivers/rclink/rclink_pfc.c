// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: PFC in the hardware, IEEE 802.1Qbb on the LL 100G MAC's Pause/PFC
 * CSRs (seed 003, 7.4) and the IP's PFC enables and thresholds (seed 000,
 * "register configuration in PFC mode"); Documentation/congestion.rst,
 * "PFC".  The board's choice of priorities is rclink_dev.pfc_en, set by
 * dcbnl (rclink_dcb.c); this file writes it to the board, under
 * rclink_t1.lock, when the netdev is registered and attached again after a
 * reset, on every change and when the flows' priorities change
 * (rclink_qp.c).  In CBFC mode the MAC's PFC stays off (rclink_cbfc.c).
 */

#include <linux/bitfield.h>
#include <linux/minmax.h>

#include "rclink.h"

/* The PFC enables of the IP's flows (XON_THR_RDMA) */
#define RCLINK_PFC_IP_EN	GENMASK_ULL(45, 32)
/*
 * The ACK thresholds of the seed ("register configuration in PFC mode", step 1)
 */
#define RCLINK_PFC_XON_ACK	0x80
#define RCLINK_PFC_XOFF_ACK	0xc0

/*
 * The IP's side of PFC (seed 000, "register configuration in PFC mode"): every
 * flow on an enabled priority stops while the peer pauses it (rx_*_pfc_en, the
 * IP's RX_PFC_REQ_I) and keeps what the host has no room for, asking the MAC
 * for XOFF of its priority from the XOFF threshold of its receive buffer down
 * to XON (tx_*_pfc_en, TX_PFC_REQ_O).  The thresholds are the seed's: XON at
 * half and XOFF at three quarters of each buffer, the TYPE1 one
 * (2^TYPE1_RX_BUF_AW 64-byte words) in XON_THR_RDMA, the TYPE3 one
 * (NONR_RX_DEPTH words) in XON_THR_NON_RDMA, and 0x80/0xc0 for ACKs.
 */
static void rclink_pfc_ip_apply(struct rclink_dev *rdev, u8 en)
{
	u64 afh = rclink_rd64(rdev, RCLINK_AFH_CFG_EN);
	u32 depth = 1U << rdev->params.type1_rx_buf_aw;
	u32 nonr = rdev->params.nonr_rx_depth;
	u64 val, flows = 0;
	unsigned int f;

	for (f = 0; f < RCLINK_CBFC_FLOWS; f++) {
		const struct rclink_fc_flow *fl = &rclink_fc_flows[f];

		if ((en >> rclink_fc_field(afh, fl->vc)) & 1)
			flows |= fl->pfc_rx | fl->pfc_tx;
	}

	val = rclink_rd64(rdev, RCLINK_XON_THR_RDMA);
	val &= ~(RCLINK_PFC_IP_EN | RCLINK_XON_THR_RDMA_XON_THR_RDMA |
		 RCLINK_XON_THR_RDMA_XOFF_THR_RDMA |
		 RCLINK_XON_THR_RDMA_TYPE1_FREE_BUSY);
	rclink_wr64(rdev, RCLINK_XON_THR_RDMA, val | flows |
		    FIELD_PREP(RCLINK_XON_THR_RDMA_XON_THR_RDMA, depth / 2) |
		    FIELD_PREP(RCLINK_XON_THR_RDMA_XOFF_THR_RDMA,
			       depth * 3 / 4));
	rclink_wr64(rdev, RCLINK_XON_THR_NON_RDMA,
		    FIELD_PREP(RCLINK_XON_THR_NON_RDMA_XON_THR_NON_RDMA,
			       nonr / 2) |
		    FIELD_PREP(RCLINK_XON_THR_NON_RDMA_XOFF_THR_NON_RDMA,
			       nonr * 3 / 4) |
		    FIELD_PREP(RCLINK_XON_THR_NON_RDMA_XON_THR_ACK_RDMA,
			       RCLINK_PFC_XON_ACK) |
		    FIELD_PREP(RCLINK_XON_THR_NON_RDMA_XOFF_THR_ACK_RDMA,
			       RCLINK_PFC_XOFF_ACK));
}

/* A static MAC register: written when it differs; true if it did */
static bool rclink_pfc_mac_set(struct rclink_dev *rdev, u32 reg, u32 val)
{
	if (rclink_rd32(rdev, reg) == val)
		return false;
	rclink_wr32(rdev, reg, val);
	return true;
}

/*
 * The MAC's flow control frames (PFC, and the CBFC updates of the shim):
 * a held XOFF repeated after half its pause (TX_FC_HOLD_QUANTA), from the
 * board's address (TX_FC_SADDR).  These registers do not change
 * dynamically (seed 003): when one changed, a soft reset of the MAC
 * through PHY_CONFIG makes it take effect.
 */
static void rclink_pfc_mac_apply(struct rclink_dev *rdev)
{
	bool changed = false;
	unsigned int q;
	u64 val, mac;

	for (q = 0; q < RCLINK_PFC_PRIOS; q++) {
		val = rclink_rd32(rdev, RCLINK_TX_FC_QUANTA(q));
		val = FIELD_GET(RCLINK_TX_FC_QUANTA_QUANTA, val) / 2;
		val = FIELD_PREP(RCLINK_TX_FC_HOLD_QUANTA_QUANTA,
				 max_t(u64, val, 1));
		changed |= rclink_pfc_mac_set(rdev, RCLINK_TX_FC_HOLD_QUANTA(q),
					      val);
	}
	mac = rclink_rd64(rdev, RCLINK_SHIM_MAC);
	mac = FIELD_GET(RCLINK_SHIM_MAC_ADDR, mac);
	changed |= rclink_pfc_mac_set(rdev, RCLINK_TX_FC_SADDR_LO,
				      FIELD_PREP(RCLINK_TX_FC_SADDR_LO_ADDR,
						 lower_32_bits(mac)));
	changed |= rclink_pfc_mac_set(rdev, RCLINK_TX_FC_SADDR_HI,
				      FIELD_PREP(RCLINK_TX_FC_SADDR_HI_ADDR,
						 upper_32_bits(mac)));
	if (changed) {
		rclink_wr32(rdev, RCLINK_PHY_CONFIG,
			    RCLINK_PHY_CONFIG_SOFT_RESET);
		rclink_wr32(rdev, RCLINK_PHY_CONFIG, 0);
		rclink_rd32(rdev, RCLINK_PHY_CONFIG);	/* flush */
	}
}

/*
 * The PFC enables into the MAC (both directions) and the IP; none in CBFC
 * mode, where the IP's enables are CBFC's (rclink_cbfc.c).  Under
 * rclink_t1.lock, the lock of the registers several parts of the driver
 * read-modify-write.
 */
void __rclink_pfc_apply(struct rclink_dev *rdev)
{
	u8 en;

	/* AFH_CFG_EN and XON_THR_RDMA are shared with TYPE1 and CBFC */
	lockdep_assert_held(&rdev->t1.lock);
	en = rclink_cbfc_on(rdev) ? 0 : READ_ONCE(rdev->pfc_en);

	rclink_wr32(rdev, RCLINK_TX_FC_ENABLE,
		    FIELD_PREP(RCLINK_TX_FC_ENABLE_ENABLE, en));
	rclink_wr32(rdev, RCLINK_RX_PFC_ENABLE,
		    FIELD_PREP(RCLINK_RX_PFC_ENABLE_ENABLE, en));
	rclink_pfc_mac_apply(rdev);
	if (!rclink_cbfc_on(rdev))
		rclink_pfc_ip_apply(rdev, en);
}

/* __rclink_pfc_apply() under rclink_t1.lock, for callers without it */
void rclink_pfc_apply(struct rclink_dev *rdev)
{
	mutex_lock(&rdev->t1.lock);
	__rclink_pfc_apply(rdev);
	mutex_unlock(&rdev->t1.lock);
}

/* Frames per priority: sent (SHIM_PFC_TX) or received (SHIM_PFC_RX) */
void rclink_pfc_frames(struct rclink_dev *rdev, u64 *tx, u64 *rx)
{
	unsigned int i;

	for (i = 0; i < RCLINK_PFC_PRIOS; i++) {
		tx[i] = rclink_rd64(rdev, RCLINK_SHIM_PFC_TX(i));
		rx[i] = rclink_rd64(rdev, RCLINK_SHIM_PFC_RX(i));
	}
}
