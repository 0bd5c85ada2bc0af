// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: TYPE1 queue pairs, the control plane.
 *
 *  - the registry of boards by index ("rclinkN", also /dev/rclinkN);
 *  - step 1 of the seed's TYPE1 init sequence (the board's global
 *    configuration) and steps 2-8 (one QP), for `rclink dev set` and
 *    `rclink qp add/set/del` (rclink_nl.c);
 *  - the recovery of a QP that went fatal because its retries ran out
 *    (seed 000, "TX retry times over") and its re-arm.
 *
 * The per-QP registers are indirect through QP_ID_SET, so every register
 * access takes rdev->qp_lock.  QP objects change under rclink_t1.lock (which
 * nests qp_lock) and are published in the xarray rclink_t1.qps for the data
 * path, which looks them up under RCU; a deleted QP is freed with
 * kfree_rcu(), so a delete does not wait for a grace period.
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/iopoll.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/time64.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>

#include "rclink.h"
#include "rclink_netdev.h"
#include "rclink_ctx.h"
#include "rclink_qp.h"
#include "rclink_nl_gen.h"

#define RCLINK_QP_POLL_US		10
#define RCLINK_QP_FREE_BUSY_TIMEOUT_US	(100 * USEC_PER_MSEC)
#define RCLINK_QP_FREE_BUF_TIMEOUT_US	(100 * USEC_PER_MSEC)
/* qp del: how long the flushed messages of a QP may take to complete */
#define RCLINK_QP_DRAIN_TIMEOUT		msecs_to_jiffies(1000)

/* Board indices: rclink0 .. rclink255 */
#define RCLINK_T1_MAX_DEVS		256

/* Defaults of step 1 */
#define RCLINK_T1_DEF_TTL		64
/* TYPE2 defaults (Documentation/hw/shim.rst, "TYPE2: multicast") */
#define RCLINK_T2_DEF_IP		0xef524300	/* 239.82.67.0 */
#define RCLINK_T2_UDP_PORT		4792
#define RCLINK_T1_DEF_RETRY_TIMER_US	4000
#define RCLINK_T1_DEF_RETRY_CNT		7
#define RCLINK_T1_DEF_RNR_RETRY_CNT	0	/* retry forever */

/*
 * The registry: boards by index.  The xarray allocates the lowest free
 * index (as an IDA would) and maps it to the board.
 */
DEFINE_MUTEX(rclink_t1_devs_lock);
static DEFINE_XARRAY_ALLOC(rclink_t1_devs);

/* The board's counters DMAQ_QPS_* (of the QP DMAQ_QP_STAT_SEL selects) */
static const u32 rclink_t1_hw_regs[RCLINK_T1_HW_NUM] = {
	[RCLINK_T1_HW_TX_PKTS]		= RCLINK_DMAQ_QPS_TX_PKTS,
	[RCLINK_T1_HW_TX_BYTES]		= RCLINK_DMAQ_QPS_TX_BYTES,
	[RCLINK_T1_HW_RX_PKTS]		= RCLINK_DMAQ_QPS_RX_PKTS,
	[RCLINK_T1_HW_RX_BYTES]		= RCLINK_DMAQ_QPS_RX_BYTES,
	[RCLINK_T1_HW_RETX_PKTS]	= RCLINK_DMAQ_QPS_RETX_PKTS,
	[RCLINK_T1_HW_NAK_RX]		= RCLINK_DMAQ_QPS_NAK_RX,
	[RCLINK_T1_HW_NAK_TX]		= RCLINK_DMAQ_QPS_NAK_TX,
	[RCLINK_T1_HW_RNR_RX]		= RCLINK_DMAQ_QPS_RNR_RX,
	[RCLINK_T1_HW_RNR_TX]		= RCLINK_DMAQ_QPS_RNR_TX,
	[RCLINK_T1_HW_TIMEOUTS]		= RCLINK_DMAQ_QPS_TIMEOUTS,
	[RCLINK_T1_HW_RX_DUP]		= RCLINK_DMAQ_QPS_RX_DUP,
	[RCLINK_T1_HW_RX_OOS]		= RCLINK_DMAQ_QPS_RX_OOS,
	[RCLINK_T1_HW_ACK_TX]		= RCLINK_DMAQ_QPS_ACK_TX,
	[RCLINK_T1_HW_ACK_RX]		= RCLINK_DMAQ_QPS_ACK_RX,
};

/* The board's global TYPE1 drop counters */
static const u32 rclink_t1_dev_regs[RCLINK_T1_DEV_NUM] = {
	[RCLINK_T1_DEV_RX_DROP_DA]	  = RCLINK_DMAQ_T1_RX_DROP_DA,
	[RCLINK_T1_DEV_RX_DROP_CSUM]	  = RCLINK_DMAQ_T1_RX_DROP_CSUM,
	[RCLINK_T1_DEV_RX_DROP_ICRC]	  = RCLINK_DMAQ_T1_RX_DROP_ICRC,
	[RCLINK_T1_DEV_RX_DROP_PKEY]	  = RCLINK_DMAQ_T1_RX_DROP_PKEY,
	[RCLINK_T1_DEV_RX_DROP_BADQP]	  = RCLINK_DMAQ_T1_RX_DROP_BADQP,
	[RCLINK_T1_DEV_RX_DROP_QP_OFF]	  = RCLINK_DMAQ_T1_RX_DROP_QP_OFF,
	[RCLINK_T1_DEV_RX_DROP_NOBUF]	  = RCLINK_DMAQ_T1_RX_DROP_NOBUF,
	[RCLINK_T1_DEV_RX_DROP_MALFORMED] = RCLINK_DMAQ_T1_RX_DROP_MALFORMED,
	[RCLINK_T1_DEV_TX_DROP_QP_OFF]	  = RCLINK_DMAQ_T1_TX_DROP_QP_OFF,
	[RCLINK_T1_DEV_BAD_WQE]		  = RCLINK_DMAQ_BAD_WQE,
	[RCLINK_T1_DEV_RX_DROP_FORMAT]	  = RCLINK_DMAQ_T1_RX_DROP_FORMAT,
	[RCLINK_T1_DEV_T2_TX_PKTS]	  = RCLINK_DMAQ_T2_TX_PKTS,
	[RCLINK_T1_DEV_T2_TX_DROP]	  = RCLINK_DMAQ_T2_TX_DROP,
	[RCLINK_T1_DEV_T2_RX_PKTS]	  = RCLINK_DMAQ_T2_RX_PKTS,
	[RCLINK_T1_DEV_T2_RX_DROP_NOGROUP] = RCLINK_DMAQ_T2_RX_DROP_NOGROUP,
	[RCLINK_T1_DEV_T2_RX_DROP_NOBUF]  = RCLINK_DMAQ_T2_RX_DROP_NOBUF,
	[RCLINK_T1_DEV_T2_RX_DROP_MALFORMED] = RCLINK_DMAQ_T2_RX_DROP_MALFORMED,
	[RCLINK_T1_DEV_T2_RX_LOST]	  = RCLINK_DMAQ_T2_RX_LOST,
	[RCLINK_T1_DEV_T2_RX_DROP_OLD]	  = RCLINK_DMAQ_T2_RX_DROP_OLD,
};

/* The board's RDMA WRITE and READ counters */
static const u32 rclink_t1_rdma_regs[RCLINK_T1_RDMA_NUM] = {
	[RCLINK_T1_RDMA_TX_WRITE]	= RCLINK_DMAQ_RDMA_TX_WRITE,
	[RCLINK_T1_RDMA_TX_READ]	= RCLINK_DMAQ_RDMA_TX_READ,
	[RCLINK_T1_RDMA_RX_WRITE]	= RCLINK_DMAQ_RDMA_RX_WRITE,
	[RCLINK_T1_RDMA_RX_READ]	= RCLINK_DMAQ_RDMA_RX_READ,
	[RCLINK_T1_RDMA_RX_BAD_KEY]	= RCLINK_DMAQ_RDMA_RX_BAD_KEY,
	[RCLINK_T1_RDMA_RX_ACCESS]	= RCLINK_DMAQ_RDMA_RX_ACCESS,
	[RCLINK_T1_RDMA_RX_BOUNDS]	= RCLINK_DMAQ_RDMA_RX_BOUNDS,
	[RCLINK_T1_RDMA_RX_SILENT]	= RCLINK_DMAQ_RDMA_RX_SILENT,
	[RCLINK_T1_RDMA_REM_ERR]	= RCLINK_DMAQ_RDMA_REM_ERR,
	[RCLINK_T1_RDMA_TIMEOUT]	= RCLINK_DMAQ_RDMA_TIMEOUT,
	[RCLINK_T1_RDMA_RX_LATE]	= RCLINK_DMAQ_RDMA_RX_LATE,
	[RCLINK_T1_RDMA_RX_IMM_DROP]	= RCLINK_DMAQ_RDMA_RX_IMM_DROP,
};

/* ---- limits -------------------------------------------------------------- */

/* PSNs are EPSN_W bits wide (and the PSN fields 12) */
u32 rclink_t1_psn_mask(struct rclink_dev *rdev)
{
	u32 w = rdev->params.epsn_w;
	u32 mask = w >= 32 ? U32_MAX : (u32)BIT(w) - 1;

	return mask & FIELD_MAX(RCLINK_TX_EPSN_MEM_TX_PSN);
}

/* The bank bits of a QPN: the low log2(TYPE1_VC_NUM) bits */
u32 rclink_t1_bank_mask(struct rclink_dev *rdev)
{
	u32 vc = rdev->params.type1_vc_num;

	return vc > 1 ? (u32)roundup_pow_of_two(vc) - 1 : 0;
}

/* ---- registry ------------------------------------------------------------ */

/* The board with index @index, or NULL; the caller holds rclink_t1_devs_lock */
struct rclink_dev *rclink_t1_dev_get(int index)
{
	lockdep_assert_held(&rclink_t1_devs_lock);
	if (index < 0)
		return NULL;
	return xa_load(&rclink_t1_devs, index);
}

/*
 * The board named @name, "rclinkN" or its handle "pci/<bus address>" (which
 * survives re-probing), or NULL; under rclink_t1_devs_lock
 */
struct rclink_dev *rclink_t1_dev_by_name(const char *name)
{
	size_t bus = strlen(RCLINK_DEV_HANDLE_BUS);
	const char *bdf = NULL;
	struct rclink_dev *rdev;
	unsigned long index;

	lockdep_assert_held(&rclink_t1_devs_lock);
	if (!strncmp(name, RCLINK_DEV_HANDLE_BUS, bus))
		bdf = name + bus;
	xa_for_each(&rclink_t1_devs, index, rdev)
		if (bdf ? !strcmp(pci_name(rdev->pdev), bdf) :
		    !strcmp(rdev->t1.name, name))
			return rdev;
	return NULL;
}

/* The board at *@index or the next one (for dumps); under the lock */
struct rclink_dev *rclink_t1_dev_next(unsigned long *index)
{
	lockdep_assert_held(&rclink_t1_devs_lock);
	return xa_find(&rclink_t1_devs, index, ULONG_MAX, XA_PRESENT);
}

/* ---- QP objects ---------------------------------------------------------- */

static struct rclink_t1_qp *rclink_t1_qp_get_locked(struct rclink_dev *rdev,
						    u32 qpn)
{
	struct rclink_t1 *t1 = &rdev->t1;

	lockdep_assert_held(&t1->lock);
	if (!t1->qps_up || qpn >= rdev->params.qp_num)
		return NULL;
	return xa_load(&t1->qps, qpn);
}

/* The first QP at or above *@qpn (for dumps) */
bool rclink_t1_qp_next(struct rclink_dev *rdev, u32 *qpn)
{
	struct rclink_t1 *t1 = &rdev->t1;
	unsigned long index = *qpn;
	bool found = false;

	mutex_lock(&t1->lock);
	if (t1->qps_up && rdev->params.qp_num && *qpn < rdev->params.qp_num &&
	    xa_find(&t1->qps, &index, rdev->params.qp_num - 1, XA_PRESENT)) {
		*qpn = index;
		found = true;
	}
	mutex_unlock(&t1->lock);
	return found;
}

/* ---- registers ----------------------------------------------------------- */

/* CNP_CFG of the CNP merge window and the NOCNP period (0: off) */
static u64 rclink_t1_cnp_cfg_bits(const struct rclink_t1 *t1)
{
	u64 val = FIELD_PREP(RCLINK_CNP_CFG_TIMER_THR_US, t1->cnp_window_us);

	if (t1->nocnp_us)
		val |= RCLINK_CNP_CFG_NOCNP_EN |
		       FIELD_PREP(RCLINK_CNP_CFG_NOCNP_INTERVAL,
				  t1->nocnp_us - 1);
	return val;
}

/* CC_CFG.cc_window of a window length (4096 << n ns) */
static u64 rclink_t1_cc_window_bits(u32 ns)
{
	return FIELD_PREP(RCLINK_CC_CFG_CC_WINDOW, ilog2(ns / 4096));
}

/*
 * A rate in bit/s as TX_SPEED_MEM.tx_speed_cfg: the bytes it sends in one
 * CC window, rounded up (seed 000, rate control: length_thr).
 */
static int rclink_rate_bytes(u64 rate, u64 win, u32 *bytes)
{
	u64 b;

	if (rate > div64_u64(U64_MAX - 8ULL * NSEC_PER_SEC, win))
		return -ERANGE;
	b = div64_u64(rate * win + 8ULL * NSEC_PER_SEC - 1,
		      8ULL * NSEC_PER_SEC);
	if (b > FIELD_MAX(RCLINK_TX_SPEED_MEM_TX_SPEED_CFG))
		return -ERANGE;
	*bytes = b;
	return 0;
}

static int rclink_t1_rate_speed(struct rclink_t1 *t1, u64 rate, u32 *speed,
				struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&t1->lock);
	if (!rate) {
		NL_SET_ERR_MSG(extack, "rate: must be at least 1 bit/s");
		return -ERANGE;
	}
	if (rclink_rate_bytes(rate, t1->cc_window_ns, speed)) {
		NL_SET_ERR_MSG(extack,
			       "rate: above 2^22-1 bytes per CC window (dev cc_window)");
		return -ERANGE;
	}
	return 0;
}

/* The TYPE2 rate as TYPE2_SPEED.length_thr in a CC window of win ns */
static int rclink_t2_rate_speed(u64 rate, u32 win, u32 *speed,
				struct netlink_ext_ack *extack)
{
	*speed = 0;
	if (rate && rclink_rate_bytes(rate, win, speed)) {
		NL_SET_ERR_MSG(extack,
			       "t2_rate: above 2^22-1 bytes per CC window (dev cc_window)");
		return -ERANGE;
	}
	return 0;
}

/* The QP's rate: the one asked for, else what its speed gives */
u64 rclink_t1_qp_rate(struct rclink_dev *rdev,
		      const struct rclink_t1_qp_cfg *cfg)
{
	if (cfg->rate)
		return cfg->rate;
	return div64_u64((u64)cfg->speed * 8ULL * NSEC_PER_SEC,
			 rdev->t1.cc_window_ns);
}

/*
 * TYPE2 configuration (seed 000, TYPE2 configuration), with the TYPE1 settings
 * it shares (format, TC, VLAN priority or CBFC VC, IP_ADDR): RDMA_EN.type2_en,
 * TRAFFIC_CLASS.type2_req_tc, the 8 TYPE2_DA_n, DEST_IP_MEM2,
 * DEST_MAC_MEM2.mac_type2 (the AFH Ethernet type), UDP_PORT_MEM2, the RX
 * classification keys and the groups joined.  qp_lock held.
 */
static void rclink_t2_write_global(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	unsigned int g;
	u64 val;

	for (g = 0; g < RCLINK_AFH_T2_GROUPS; g++)
		rclink_wr64(rdev, RCLINK_TYPE2_DA_0 + 8 * g,
			    FIELD_PREP(RCLINK_TYPE2_DA_0_TYPE2_DA,
				       ether_addr_to_u64(t1->t2_mac[g])));
	rclink_wr64(rdev, RCLINK_DEST_IP_MEM2,
		    FIELD_PREP(RCLINK_DEST_IP_MEM2_DEST_IP_ADDR2,
			       RCLINK_T2_DEF_IP));
	rclink_wr64(rdev, RCLINK_DEST_MAC_MEM2,
		    FIELD_PREP(RCLINK_DEST_MAC_MEM2_MAC_TYPE2,
			       RCLINK_AFH_ETH_TYPE2));
	rclink_wr64(rdev, RCLINK_UDP_PORT_MEM2,
		    FIELD_PREP(RCLINK_UDP_PORT_MEM2_UDP_SRC_PORT2,
			       RCLINK_T2_UDP_PORT) |
		    FIELD_PREP(RCLINK_UDP_PORT_MEM2_UDP_DEST_PORT2,
			       RCLINK_T2_UDP_PORT));
	val = rclink_rd64(rdev, RCLINK_RX_CLASS_CFG);
	val &= ~(RCLINK_RX_CLASS_CFG_TYPE2_UDP_PORT |
		 RCLINK_RX_CLASS_CFG_MAC_TYPE2);
	val |= FIELD_PREP(RCLINK_RX_CLASS_CFG_TYPE2_UDP_PORT,
			  RCLINK_T2_UDP_PORT) |
	       FIELD_PREP(RCLINK_RX_CLASS_CFG_MAC_TYPE2, RCLINK_AFH_ETH_TYPE2);
	rclink_wr64(rdev, RCLINK_RX_CLASS_CFG, val);
	val = rclink_rd64(rdev, RCLINK_TRAFFIC_CLASS);
	val &= ~RCLINK_TRAFFIC_CLASS_TYPE2_REQ_TC;
	val |= FIELD_PREP(RCLINK_TRAFFIC_CLASS_TYPE2_REQ_TC, t1->tc);
	rclink_wr64(rdev, RCLINK_TRAFFIC_CLASS, val);
	/* type2_cbfc: the priority (PFC) or its VC (CBFC) */
	val = rclink_rd64(rdev, RCLINK_AFH_CFG_EN);
	rclink_wr64(rdev, RCLINK_AFH_CFG_EN, rclink_cbfc_afh(rdev, val));
	rclink_wr64(rdev, RCLINK_DMAQ_T2_JOIN,
		    FIELD_PREP(RCLINK_DMAQ_T2_JOIN_JOIN, t1->t2_join));
	rclink_wr64(rdev, RCLINK_TYPE2_SPEED,
		    FIELD_PREP(RCLINK_TYPE2_SPEED_LENGTH_THR, t1->t2_speed));
	val = rclink_rd64(rdev, RCLINK_RDMA_EN);
	rclink_wr64(rdev, RCLINK_RDMA_EN, val | RCLINK_RDMA_EN_TYPE2_EN);
}

/* AFH_CFG_EN format bits of each enum rclink_format */
static u64 rclink_t1_format_bits(u8 format)
{
	switch (format) {
	case RCLINK_FORMAT_GEN1:
		return RCLINK_AFH_CFG_EN_AFH_GEN1_EN;
	case RCLINK_FORMAT_GEN1_TC:
		return RCLINK_AFH_CFG_EN_AFH_GEN1_EN |
		       RCLINK_AFH_CFG_EN_AFH_GEN1_TC_EN;
	case RCLINK_FORMAT_GEN2:
		return RCLINK_AFH_CFG_EN_AFH_GEN2_16B_EN;
	case RCLINK_FORMAT_LITE:
		return RCLINK_AFH_CFG_EN_AFH_LITE_EN;
	default:
		return RCLINK_AFH_CFG_EN_STANDARD_EN;
	}
}

/*
 * Step 1 of the TYPE1 init sequence (seed 000, initialisation sequence) for the
 * header format chosen: RDMA_EN, MAC_ADDR (len_type: IPv4 for Standard, the AFH
 * Ethernet type otherwise), AFH_CFG_EN, IP_ADDR, TRAFFIC_CLASS; the optional
 * VLAN step (VLAN_CTRL, AFH_CFG_EN.tx_vlan_tag_sel_en and the priorities, which
 * are the VC map in CBFC mode: rclink_cbfc_afh(), with the VLAN forced on for
 * AFH_GEN1 without TC: rclink_cbfc_vlan_forced()); then the retry thresholds,
 * the switches of RC_MISC_CFG, the CC window and the ECN/CNP settings (CNP_CFG,
 * RC_MISC_CFG.cnp_merge_en).  RX_CLASS_CFG gets mac_type1 = the AFH Ethernet
 * type whatever the format, so that frames of a mismatched peer reach the TYPE1
 * path and are counted there (DMAQ_T1_RX_DROP_FORMAT); its other fields keep
 * their value.  AFH_CFG_EN is read-modify-written: the data path owns its
 * type1_flow_stop_send_rnr_en bits.
 */
static void rclink_t1_write_global(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	bool vlan = t1->vlan_id || rclink_cbfc_vlan_forced(rdev);
	u64 val;

	lockdep_assert_held(&t1->lock);

	mutex_lock(&rdev->qp_lock);
	val = rclink_rd64(rdev, RCLINK_RDMA_EN);
	rclink_wr64(rdev, RCLINK_RDMA_EN, val | RCLINK_RDMA_EN_TYPE1_EN);

	val = FIELD_PREP(RCLINK_MAC_ADDR_MAC_ADDR, ether_addr_to_u64(t1->mac)) |
	      FIELD_PREP(RCLINK_MAC_ADDR_LEN_TYPE,
			 t1->format == RCLINK_FORMAT_STANDARD ?
			 ETH_P_IP : RCLINK_AFH_ETH_TYPE1);
	rclink_wr64(rdev, RCLINK_MAC_ADDR, val);

	val = rclink_rd64(rdev, RCLINK_RX_CLASS_CFG);
	val &= ~RCLINK_RX_CLASS_CFG_MAC_TYPE1;
	val |= FIELD_PREP(RCLINK_RX_CLASS_CFG_MAC_TYPE1, RCLINK_AFH_ETH_TYPE1);
	rclink_wr64(rdev, RCLINK_RX_CLASS_CFG, val);

	val = rclink_rd64(rdev, RCLINK_AFH_CFG_EN);
	val &= ~(RCLINK_AFH_CFG_EN_STANDARD_EN |
		 RCLINK_AFH_CFG_EN_AFH_GEN1_EN |
		 RCLINK_AFH_CFG_EN_AFH_GEN1_TC_EN |
		 RCLINK_AFH_CFG_EN_AFH_GEN2_16B_EN |
		 RCLINK_AFH_CFG_EN_AFH_LITE_EN |
		 RCLINK_AFH_CFG_EN_TX_VLAN_TAG_SEL_EN);
	val |= rclink_t1_format_bits(t1->format);
	if (vlan)
		val |= RCLINK_AFH_CFG_EN_TX_VLAN_TAG_SEL_EN;
	rclink_wr64(rdev, RCLINK_AFH_CFG_EN, rclink_cbfc_afh(rdev, val));
	/* the IP's PFC enables follow the flows' priorities */
	__rclink_pfc_apply(rdev);

	/* VLAN: vid (0 when forced), TPID 0x8100, CFI 0 (vlan_flag stays 0) */
	val = 0;
	if (vlan)
		val = RCLINK_VLAN_CTRL_VLAN_EN |
		      FIELD_PREP(RCLINK_VLAN_CTRL_VID, t1->vlan_id) |
		      FIELD_PREP(RCLINK_VLAN_CTRL_TPID, ETH_P_8021Q);
	rclink_wr64(rdev, RCLINK_VLAN_CTRL, val);

	val = FIELD_PREP(RCLINK_IP_ADDR_IP_ADDR, be32_to_cpu(t1->ip)) |
	      FIELD_PREP(RCLINK_IP_ADDR_IP_ID, t1->ip_id) |
	      FIELD_PREP(RCLINK_IP_ADDR_IP_TTL, t1->ttl);
	rclink_wr64(rdev, RCLINK_IP_ADDR, val);

	val = rclink_rd64(rdev, RCLINK_TRAFFIC_CLASS);
	val &= ~(RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK0 |
		 RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK1 |
		 RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK2 |
		 RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK3 |
		 RCLINK_TRAFFIC_CLASS_TYPE1_ACK_TC);
	val |= FIELD_PREP(RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK0,
			  t1->bank_tc[0]) |
	       FIELD_PREP(RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK1,
			  t1->bank_tc[1]) |
	       FIELD_PREP(RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK2,
			  t1->bank_tc[2]) |
	       FIELD_PREP(RCLINK_TRAFFIC_CLASS_TYPE1_REQ_TC_BANK3,
			  t1->bank_tc[3]) |
	       FIELD_PREP(RCLINK_TRAFFIC_CLASS_TYPE1_ACK_TC, t1->ack_tc);
	rclink_wr64(rdev, RCLINK_TRAFFIC_CLASS, val);

	val = FIELD_PREP(RCLINK_RETRY_TIMER_CFG_RETRY_TIMER,
			 t1->retry_timer_us) |
	      FIELD_PREP(RCLINK_RETRY_TIMER_CFG_RETRY_CNT_THR, t1->retry_cnt) |
	      FIELD_PREP(RCLINK_RETRY_TIMER_CFG_RNR_RETRY_CNT_THR,
			 t1->rnr_retry_cnt);
	rclink_wr64(rdev, RCLINK_RETRY_TIMER_CFG, val);

	val = rclink_rd64(rdev, RCLINK_RC_MISC_CFG);
	val &= ~(RCLINK_RC_MISC_CFG_TX_ACK_TIME_EN |
		 RCLINK_RC_MISC_CFG_TX_BANK_RR_EN |
		 RCLINK_RC_MISC_CFG_TYPE1_REMOVE_ICRC_EN |
		 RCLINK_RC_MISC_CFG_CNP_MERGE_EN);
	/* TYPE2 never overruns the MAC's multicast buffer */
	val |= RCLINK_RC_MISC_CFG_MULTI_CREDIT_CTRL_EN;
	if (t1->bank_rr)
		val |= RCLINK_RC_MISC_CFG_TX_BANK_RR_EN;
	if (t1->ack_timestamp)
		val |= RCLINK_RC_MISC_CFG_TX_ACK_TIME_EN;
	if (!t1->icrc)
		val |= RCLINK_RC_MISC_CFG_TYPE1_REMOVE_ICRC_EN;
	if (t1->cnp_merge)
		val |= RCLINK_RC_MISC_CFG_CNP_MERGE_EN;
	rclink_wr64(rdev, RCLINK_RC_MISC_CFG, val);

	rclink_wr64(rdev, RCLINK_CC_CFG,
		    rclink_t1_cc_window_bits(t1->cc_window_ns));
	rclink_wr64(rdev, RCLINK_CNP_CFG, rclink_t1_cnp_cfg_bits(t1));
	rclink_t2_write_global(rdev);
	mutex_unlock(&rdev->qp_lock);
}

/* What rclink_t1_qp_write() writes: steps of the TYPE1 init sequence */
enum {
	RCLINK_T1_W_DISABLE	= BIT(0),	/* qp_en 0 first: set, re-arm */
	RCLINK_T1_W_TX_PSN	= BIT(3),	/* step 3 */
	RCLINK_T1_W_RX_PSN	= BIT(4),	/* step 4 */
	RCLINK_T1_W_SPEED	= BIT(5),	/* step 5 */
	RCLINK_T1_W_HDR		= BIT(6),	/* step 6 */
	RCLINK_T1_W_RETRY	= BIT(7),	/* step 7 */
	RCLINK_T1_W_ENABLE	= BIT(8),	/* step 8 */
};

#define RCLINK_T1_W_INIT	(RCLINK_T1_W_TX_PSN | RCLINK_T1_W_RX_PSN | \
				 RCLINK_T1_W_SPEED | RCLINK_T1_W_HDR |	   \
				 RCLINK_T1_W_RETRY | RCLINK_T1_W_ENABLE)

/* Steps 2-8 of the TYPE1 init sequence for QP @qpn, in the seed's order */
static void rclink_t1_qp_write(struct rclink_dev *rdev, u32 qpn,
			       const struct rclink_t1_qp_cfg *cfg, u32 what)
{
	u32 mask = rclink_t1_psn_mask(rdev);
	u64 val;

	lockdep_assert_held(&rdev->qp_lock);

	/* step 2: select the QP */
	rclink_wr64(rdev, RCLINK_QP_ID_SET,
		    FIELD_PREP(RCLINK_QP_ID_SET_QP_ID_SET, qpn));
	if (what & RCLINK_T1_W_DISABLE)
		rclink_wr64(rdev, RCLINK_QP_CONTROL_STATUS, 0);

	/* step 3: the send PSN */
	if (what & RCLINK_T1_W_TX_PSN) {
		rclink_wr64(rdev, RCLINK_TX_EPSN_MEM,
			    FIELD_PREP(RCLINK_TX_EPSN_MEM_TX_PSN, cfg->sq_psn));
		val = FIELD_PREP(RCLINK_EXPECT_RESP_PSN_MEM_EXPECT_RESP_PSN,
				 cfg->sq_psn);
		rclink_wr64(rdev, RCLINK_EXPECT_RESP_PSN_MEM, val);
		rclink_wr64(rdev, RCLINK_TX_LAST_PSN_MEM,
			    FIELD_PREP(RCLINK_TX_LAST_PSN_MEM_TX_LAST_PSN,
				       (cfg->sq_psn - 1) & mask));
		rclink_wr64(rdev, RCLINK_TX_MAX_FW_PSN_MEM,
			    FIELD_PREP(RCLINK_TX_MAX_FW_PSN_MEM_MAX_FORWARD_PSN,
				       (cfg->sq_psn - 1) & mask));
	}

	/* step 4: the receive PSN */
	if (what & RCLINK_T1_W_RX_PSN) {
		rclink_wr64(rdev, RCLINK_REQ_CHK_SN_MEM,
			    FIELD_PREP(RCLINK_REQ_CHK_SN_MEM_RX_REQ_EPSN,
				       cfg->rq_psn));
		rclink_wr64(rdev, RCLINK_TX_ACK_SN_MEM,
			    FIELD_PREP(RCLINK_TX_ACK_SN_MEM_TX_EPSN,
				       cfg->rq_psn));
	}

	/* step 5: the rate and its byte counter */
	if (what & RCLINK_T1_W_SPEED) {
		rclink_wr64(rdev, RCLINK_TX_SPEED_MEM,
			    FIELD_PREP(RCLINK_TX_SPEED_MEM_TX_SPEED_CFG,
				       cfg->speed));
		rclink_wr64(rdev, RCLINK_TX_CC_BYTE_CNT_MEM, 0);
	}

	/* step 6: headers: peer IP and QP, UDP port, peer MAC, P_Keys */
	if (what & RCLINK_T1_W_HDR) {
		val = FIELD_PREP(RCLINK_DEST_IP_MEM_DEST_IP_ADDR,
				 be32_to_cpu(cfg->dip)) |
		      FIELD_PREP(RCLINK_DEST_IP_MEM_DEST_QPID, cfg->dqpn);
		rclink_wr64(rdev, RCLINK_DEST_IP_MEM, val);
		val = FIELD_PREP(RCLINK_UDP_SRC_PORT_MEM_UDP_SRC_PORT,
				 cfg->sport) |
		      FIELD_PREP(RCLINK_UDP_SRC_PORT_MEM_QP_P_KEY, cfg->pkey);
		rclink_wr64(rdev, RCLINK_UDP_SRC_PORT_MEM, val);
		rclink_wr64(rdev, RCLINK_DEST_MAC_MEM,
			    FIELD_PREP(RCLINK_DEST_MAC_MEM_DEST_MAC_ADDR,
				       ether_addr_to_u64(cfg->dmac)));
		rclink_wr64(rdev, RCLINK_BTH_QP_CFG_MEM,
			    FIELD_PREP(RCLINK_BTH_QP_CFG_MEM_QP_P_KEY,
				       cfg->rx_pkey));
	}

	/* step 7: the retry counters */
	if (what & RCLINK_T1_W_RETRY)
		rclink_wr64(rdev, RCLINK_RETRY_CNT_MEM, 0);

	/* step 8: enable */
	if (what & RCLINK_T1_W_ENABLE)
		rclink_wr64(rdev, RCLINK_QP_CONTROL_STATUS,
			    RCLINK_QP_CONTROL_STATUS_QP_EN);
}

/* ---- recovery ------------------------------------------------------------ */

/*
 * The procedure of seed 000, "TX retry times over":
 * select the QP, clear qp_en, set its rate to 0 (the IP then masks the QP
 * in arbitration), wait 1 us, wait for XON_THR_RDMA.type1_free_busy to
 * clear, set free_buf_set and wait until the IP has released the buffers
 * (the bit clears itself), then read the next PSN from TX_EPSN_MEM.
 */
static int rclink_qp_recover_locked(struct rclink_dev *rdev, u32 qpid,
				    u32 *next_psn, const char **step)
{
	u64 ctl, val;
	int err;

	lockdep_assert_held(&rdev->qp_lock);

	rclink_wr64(rdev, RCLINK_QP_ID_SET,
		    FIELD_PREP(RCLINK_QP_ID_SET_QP_ID_SET, qpid));
	ctl = rclink_rd64(rdev, RCLINK_QP_CONTROL_STATUS);
	ctl &= ~(RCLINK_QP_CONTROL_STATUS_QP_EN |
		 RCLINK_QP_CONTROL_STATUS_FREE_BUF_SET);
	rclink_wr64(rdev, RCLINK_QP_CONTROL_STATUS, ctl);
	rclink_wr64(rdev, RCLINK_TX_SPEED_MEM, 0);
	rclink_rd64(rdev, RCLINK_TX_SPEED_MEM);		/* flush */
	fsleep(1);

	*step = "waiting for type1_free_busy";
	err = read_poll_timeout(rclink_rd64, val, rclink_gone(rdev) ||
				!(val & RCLINK_XON_THR_RDMA_TYPE1_FREE_BUSY),
				RCLINK_QP_POLL_US,
				RCLINK_QP_FREE_BUSY_TIMEOUT_US, false,
				rdev, RCLINK_XON_THR_RDMA);
	if (err)
		return err;

	*step = "releasing the buffers (free_buf_set)";
	rclink_wr64(rdev, RCLINK_QP_CONTROL_STATUS,
		    ctl | RCLINK_QP_CONTROL_STATUS_FREE_BUF_SET);
	err = read_poll_timeout(rclink_rd64, val, rclink_gone(rdev) ||
				!(val & RCLINK_QP_CONTROL_STATUS_FREE_BUF_SET),
				RCLINK_QP_POLL_US,
				RCLINK_QP_FREE_BUF_TIMEOUT_US, false,
				rdev, RCLINK_QP_CONTROL_STATUS);
	if (err)
		return err;

	*step = "reading TX_EPSN_MEM";
	val = rclink_rd64(rdev, RCLINK_TX_EPSN_MEM);
	*next_psn = FIELD_GET(RCLINK_TX_EPSN_MEM_TX_PSN, val);
	return 0;
}

/*
 * The QP object of a recovered QP: FATAL until `rclink qp set ... state
 * ready`; the file bound to it and `rclink monitor` learn of it.
 */
static void rclink_t1_qp_went_fatal(struct rclink_t1_qp *qp, u32 psn)
{
	unsigned long flags;

	lockdep_assert_held(&qp->rdev->t1.lock);

	qp->fatal_psn = psn;
	spin_lock_irqsave(&qp->lock, flags);
	qp->state = RCLINK_QP_STATE_FATAL;
	qp->stats.fatal++;
	spin_unlock_irqrestore(&qp->lock, flags);

	rclink_dp_qp_state_changed(qp);
	rclink_nl_notify_qp(qp, RCLINK_CMD_QP_FATAL_NTF);
}

static void rclink_qp_recover(struct rclink_dev *rdev, u32 qpid)
{
	const char *step = "selecting the QP";
	struct rclink_t1_qp *qp;
	u32 psn = 0;
	u64 val;
	int err;

	rclink_cnt_inc(rdev, RCLINK_CNT_QP_FATAL);

	mutex_lock(&rdev->t1.lock);
	mutex_lock(&rdev->qp_lock);
	err = rclink_qp_recover_locked(rdev, qpid, &psn, &step);
	if (err) {
		/* the PSN as it is, for the report and the re-arm */
		val = rclink_rd64(rdev, RCLINK_TX_EPSN_MEM);
		psn = FIELD_GET(RCLINK_TX_EPSN_MEM_TX_PSN, val);
	}
	mutex_unlock(&rdev->qp_lock);
	if (rclink_gone(rdev))
		err = -ENODEV;

	qp = rclink_t1_qp_get_locked(rdev, qpid);
	if (qp)
		rclink_t1_qp_went_fatal(qp, psn);
	mutex_unlock(&rdev->t1.lock);

	rclink_health_t1_fatal(rdev, qpid, psn, err);
	if (err) {
		rclink_cnt_inc(rdev, RCLINK_CNT_QP_RECOVERY_FAILED);
		dev_err_ratelimited(rdev->dev,
				    "qp %u fatal: retry times over, recovery failed %s: %d\n",
				    qpid, step, err);
		return;
	}
	rclink_cnt_inc(rdev, RCLINK_CNT_QP_RECOVERED);
	dev_warn_ratelimited(rdev->dev,
			     "qp %u fatal: retry times over, recovered, next psn %u\n",
			     qpid, psn);
}

/*
 * A user context stopped while QP @qpn had packets in flight
 * (DMAQ_QP_OWNER.flushed): the shim completed their messages FLUSHED but
 * leaves the IP's slots of the unacknowledged packets to the kernel
 * (Documentation/hw/shim.rst, "Contexts"), which releases them here with
 * the recovery procedure (free_buf_set).  The PSN sequence the peer
 * expects has a hole no retry fills: the QP is disabled and FATAL as
 * after a reset, until `rclink qp set ... state ready` gives both PSNs
 * agreed with the peer.
 */
void rclink_t1_qp_flushed(struct rclink_dev *rdev, u32 qpn)
{
	const char *step = "selecting the QP";
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *qp;
	u32 psn = 0;
	u64 val;
	int err;

	mutex_lock(&t1->lock);
	qp = rclink_t1_qp_get_locked(rdev, qpn);
	if (!qp) {
		mutex_unlock(&t1->lock);
		return;
	}
	mutex_lock(&rdev->qp_lock);
	err = rclink_qp_recover_locked(rdev, qpn, &psn, &step);
	if (err) {
		val = rclink_rd64(rdev, RCLINK_TX_EPSN_MEM);
		psn = FIELD_GET(RCLINK_TX_EPSN_MEM_TX_PSN, val);
	}
	mutex_unlock(&rdev->qp_lock);
	if (rclink_gone(rdev))
		err = 0;	/* nothing left to release */
	qp->reset_fatal = true;
	if (READ_ONCE(qp->state) != RCLINK_QP_STATE_FATAL)
		rclink_t1_qp_went_fatal(qp, psn);
	mutex_unlock(&t1->lock);
	if (err) {
		rclink_cnt_inc(rdev, RCLINK_CNT_QP_RECOVERY_FAILED);
		dev_err_ratelimited(rdev->dev,
				    "qp %u fatal: a context stopped with its packets in flight, release failed %s: %d\n",
				    qpn, step, err);
		return;
	}
	dev_warn_ratelimited(rdev->dev,
			     "qp %u fatal: a context stopped with its packets in flight, re-arm with sq_psn and rq_psn\n",
			     qpn);
}

/* ---- board: step 1 ------------------------------------------------------- */

void rclink_t1_dev_info(struct rclink_dev *rdev,
			struct rclink_t1_dev_info *info)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_dev_cfg *cfg = &info->cfg;
	unsigned int i;
	u64 val;

	mutex_lock(&t1->lock);
	ether_addr_copy(cfg->mac, t1->mac);
	cfg->ip = t1->ip;
	cfg->ip_id = t1->ip_id;
	cfg->ttl = t1->ttl;
	cfg->tc = t1->tc;
	memcpy(cfg->bank_tc, t1->bank_tc, sizeof(cfg->bank_tc));
	cfg->ack_tc = t1->ack_tc;
	cfg->retry_timer_us = t1->retry_timer_us;
	cfg->retry_cnt = t1->retry_cnt;
	cfg->rnr_retry_cnt = t1->rnr_retry_cnt;
	cfg->ack_timestamp = t1->ack_timestamp;
	cfg->icrc = t1->icrc;
	cfg->vlan_id = t1->vlan_id;
	cfg->vlan_pri = t1->vlan_pri;
	cfg->format = t1->format;
	cfg->cc_window_ns = t1->cc_window_ns;
	cfg->bank_rr = t1->bank_rr;
	cfg->t2_rate = t1->t2_rate;
	cfg->cnp_merge = t1->cnp_merge;
	cfg->cnp_window_us = t1->cnp_window_us;
	cfg->nocnp_us = t1->nocnp_us;
	rclink_cbfc_get(rdev, cfg);

	mutex_lock(&rdev->qp_lock);
	val = rclink_rd64(rdev, RCLINK_DMAQ_CAP);
	info->max_msg = rclink_gone(rdev) ? 0 :
			FIELD_GET(RCLINK_DMAQ_CAP_MAX_MSG, val);
	info->absent = 0;
	for (i = 0; i < RCLINK_T1_DEV_NUM; i++) {
		info->stats[i] = rclink_rd64(rdev, rclink_t1_dev_regs[i]);
		if (!rclink_counted(rdev, rclink_t1_dev_regs[i]))
			info->absent |= BIT(i);
	}
	info->ost_free = FIELD_GET(RCLINK_DMAQ_T1_OST_FREE_FREE,
				   rclink_rd64(rdev, RCLINK_DMAQ_T1_OST_FREE));
	info->dfx = rclink_rd64(rdev, RCLINK_DMAQ_DFX);
	val = rclink_rd64(rdev, RCLINK_DMAQ_T2_OST_FREE);
	info->t2_ost_free = FIELD_GET(RCLINK_DMAQ_T2_OST_FREE_FREE, val);
	info->t2_crd = FIELD_GET(RCLINK_DMAQ_T2_CRD_CELLS,
				 rclink_rd64(rdev, RCLINK_DMAQ_T2_CRD));
	info->cnp_merged = rclink_rd64(rdev, RCLINK_DMAQ_T1_CNP_MERGED);
	info->cnp_merged_absent = !rclink_counted(rdev,
						  RCLINK_DMAQ_T1_CNP_MERGED);
	/* a board without a registration table has no RDMA counters */
	info->rdma_absent = !FIELD_GET(RCLINK_DMAQ_MR_CAP_NUM,
				       rclink_rd64(rdev, RCLINK_DMAQ_MR_CAP));
	for (i = 0; i < RCLINK_T1_RDMA_NUM && !info->rdma_absent; i++)
		info->rdma[i] = rclink_rd64(rdev, rclink_t1_rdma_regs[i]);
	info->ctx_db_drop = rclink_ctx_db_drop(rdev,
					       &info->ctx_db_drop_absent);
	info->dma_bm_drop = rclink_rd64(rdev, RCLINK_SHIM_DMA_BM_DROP);
	if (rclink_cbfc_on(rdev))
		rclink_cbfc_info(rdev, &info->cbfc);
	mutex_unlock(&rdev->qp_lock);
	mutex_unlock(&t1->lock);
}

/*
 * The settings that need an assumed register field the IP lacks
 * (rclink_assumed.c) are refused; their "off" value is accepted.
 */
static int rclink_t1_feat_check(struct rclink_dev *rdev,
				const struct rclink_t1_dev_cfg *cfg, u32 given,
				struct netlink_ext_ack *extack)
{
	int err = rclink_feat_need(rdev, RCLINK_FEAT_TYPE1, extack);

	if (!err && (given & RCLINK_DEV_F_FORMAT) &&
	    cfg->format == RCLINK_FORMAT_GEN2)
		err = rclink_feat_need(rdev, RCLINK_FEAT_GEN2, extack);
	if (!err && (given & RCLINK_DEV_F_FORMAT) &&
	    cfg->format == RCLINK_FORMAT_LITE)
		err = rclink_feat_need(rdev, RCLINK_FEAT_LITE, extack);
	if (!err && (given & RCLINK_DEV_F_T2_RATE) && cfg->t2_rate)
		err = rclink_feat_need(rdev, RCLINK_FEAT_TYPE2, extack);
	if (!err && (given & RCLINK_DEV_F_RNR_RETRY_CNT) &&
	    cfg->rnr_retry_cnt)
		err = rclink_feat_need(rdev, RCLINK_FEAT_RNR_LIMIT, extack);
	if (!err && (given & RCLINK_DEV_F_ACK_TIMESTAMP) &&
	    cfg->ack_timestamp)
		err = rclink_feat_need(rdev, RCLINK_FEAT_ACK_TS, extack);
	if (!err && (given & RCLINK_DEV_F_BANK_RR) && cfg->bank_rr)
		err = rclink_feat_need(rdev, RCLINK_FEAT_BANK_RR, extack);
	if (!err && (given & RCLINK_DEV_F_ICRC) && !cfg->icrc)
		err = rclink_feat_need(rdev, RCLINK_FEAT_NO_ICRC, extack);
	if (!err && (((given & RCLINK_DEV_F_CNP_MERGE) && cfg->cnp_merge) ||
		     ((given & RCLINK_DEV_F_CNP_WINDOW) && cfg->cnp_window_us)))
		err = rclink_feat_need(rdev, RCLINK_FEAT_CNP_MERGE, extack);
	if (!err && (given & RCLINK_DEV_F_NOCNP) && cfg->nocnp_us)
		err = rclink_feat_need(rdev, RCLINK_FEAT_NOCNP, extack);
	return err;
}

int rclink_t1_dev_set(struct rclink_dev *rdev,
		      const struct rclink_t1_dev_cfg *cfg, u32 given,
		      struct netlink_ext_ack *extack)
{
	struct rclink_t1 *t1 = &rdev->t1;
	unsigned int i;
	bool cbfc_load;
	u64 t2_rate;
	u32 t2_speed;
	int err;

	err = rclink_t1_feat_check(rdev, cfg, given, extack);
	if (err)
		return err;

	if ((given & RCLINK_DEV_F_BANK_TC) &&
	    (cfg->bank_given & ~GENMASK(rclink_t1_bank_mask(rdev), 0))) {
		NL_SET_ERR_MSG(extack,
			       "bank: the board has fewer banks (TYPE1_VC_NUM)");
		return -ERANGE;
	}

	mutex_lock(&t1->lock);
	/* every check first: a refused request changes nothing */
	err = rclink_cbfc_check(rdev, cfg, given, extack);
	if (err) {
		mutex_unlock(&t1->lock);
		return err;
	}
	if ((given & RCLINK_DEV_F_CC_WINDOW) && t1->nr_qps &&
	    cfg->cc_window_ns != t1->cc_window_ns) {
		/* the QPs' speeds count in the window they were set for */
		mutex_unlock(&t1->lock);
		NL_SET_ERR_MSG(extack,
			       "cc_window: the board has QPs, delete them first");
		return -EBUSY;
	}
	/* the TYPE2 rate counts in the window too */
	t2_rate = given & RCLINK_DEV_F_T2_RATE ? cfg->t2_rate : t1->t2_rate;
	err = rclink_t2_rate_speed(t2_rate, given & RCLINK_DEV_F_CC_WINDOW ?
				   cfg->cc_window_ns : t1->cc_window_ns,
				   &t2_speed, extack);
	if (err) {
		mutex_unlock(&t1->lock);
		return err;
	}
	t1->t2_rate = t2_rate;
	t1->t2_speed = t2_speed;
	if (given & RCLINK_DEV_F_CC_WINDOW)
		t1->cc_window_ns = cfg->cc_window_ns;
	if (given & RCLINK_DEV_F_BANK_RR)
		t1->bank_rr = cfg->bank_rr;
	if (given & RCLINK_DEV_F_MAC)
		ether_addr_copy(t1->mac, cfg->mac);
	if (given & RCLINK_DEV_F_IP)
		t1->ip = cfg->ip;
	if (given & RCLINK_DEV_F_IP_ID)
		t1->ip_id = cfg->ip_id;
	if (given & RCLINK_DEV_F_TTL)
		t1->ttl = cfg->ttl;
	if (given & RCLINK_DEV_F_TC) {
		t1->tc = cfg->tc;
		memset(t1->bank_tc, cfg->tc, sizeof(t1->bank_tc));
	}
	for (i = 0; i < RCLINK_T1_BANKS; i++)
		if ((given & RCLINK_DEV_F_BANK_TC) &&
		    (cfg->bank_given & BIT(i)))
			t1->bank_tc[i] = cfg->bank_tc[i];
	if (given & RCLINK_DEV_F_ACK_TC)
		t1->ack_tc = cfg->ack_tc;
	if (given & RCLINK_DEV_F_RETRY_TIMER)
		t1->retry_timer_us = cfg->retry_timer_us;
	if (given & RCLINK_DEV_F_RETRY_CNT)
		t1->retry_cnt = cfg->retry_cnt;
	if (given & RCLINK_DEV_F_RNR_RETRY_CNT)
		t1->rnr_retry_cnt = cfg->rnr_retry_cnt;
	if (given & RCLINK_DEV_F_ACK_TIMESTAMP)
		t1->ack_timestamp = cfg->ack_timestamp;
	if (given & RCLINK_DEV_F_ICRC)
		t1->icrc = cfg->icrc;
	if (given & RCLINK_DEV_F_VLAN_ID)
		t1->vlan_id = cfg->vlan_id;
	if (given & RCLINK_DEV_F_VLAN_PRI)
		t1->vlan_pri = cfg->vlan_pri;
	if (given & RCLINK_DEV_F_FORMAT)
		t1->format = cfg->format;
	if (given & RCLINK_DEV_F_CNP_MERGE)
		t1->cnp_merge = cfg->cnp_merge;
	if (given & RCLINK_DEV_F_CNP_WINDOW)
		t1->cnp_window_us = cfg->cnp_window_us;
	if (given & RCLINK_DEV_F_NOCNP)
		t1->nocnp_us = cfg->nocnp_us;
	cbfc_load = rclink_cbfc_set(rdev, cfg, given);
	rclink_t1_write_global(rdev);
	if (cbfc_load)
		rclink_cbfc_load(rdev);
	mutex_unlock(&t1->lock);

	return rclink_gone(rdev) ? -ENODEV : 0;
}

/* ---- QPs: steps 2-8 ------------------------------------------------------ */

int rclink_t1_qp_add(struct rclink_dev *rdev, u32 qpn,
		     const struct rclink_t1_qp_cfg *cfg,
		     const struct rclink_owner *user, u32 given,
		     struct netlink_ext_ack *extack)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *qp;
	int err;

	err = rclink_feat_need(rdev, RCLINK_FEAT_TYPE1, extack);
	if (err)
		return err;
	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return -ENOMEM;
	qp->rdev = rdev;
	qp->qpn = qpn;
	qp->cfg = *cfg;
	qp->user = *user;
	if (!(given & RCLINK_QP_F_RATE))
		qp->cfg.rate = 0;
	qp->state = RCLINK_QP_STATE_RESET;
	spin_lock_init(&qp->lock);
	INIT_LIST_HEAD(&qp->rx_msgs);
	init_waitqueue_head(&qp->wq);
	rclink_dp_qp_init(qp);

	mutex_lock(&t1->lock);
	if (!t1->qps_up) {
		err = -ENODEV;
		goto unlock;
	}
	if (rclink_t1_qp_get_locked(rdev, qpn)) {
		NL_SET_ERR_MSG(extack, "qpn: the QP exists already");
		err = -EEXIST;
		goto unlock;
	}
	if (given & RCLINK_QP_F_RATE) {
		err = rclink_t1_rate_speed(t1, cfg->rate, &qp->cfg.speed,
					   extack);
		if (err)
			goto unlock;
	}
	/* the slot before the board is touched: publishing cannot fail */
	err = xa_reserve(&t1->qps, qpn, GFP_KERNEL);
	if (err)
		goto unlock;

	mutex_lock(&rdev->qp_lock);
	rclink_wr64(rdev, RCLINK_DMAQ_QP_STAT_SEL,
		    FIELD_PREP(RCLINK_DMAQ_QP_STAT_SEL_QPN, qpn) |
		    RCLINK_DMAQ_QP_STAT_SEL_CLEAR);
	rclink_t1_qp_write(rdev, qpn, &qp->cfg, RCLINK_T1_W_INIT);
	mutex_unlock(&rdev->qp_lock);
	if (rclink_gone(rdev)) {
		xa_release(&t1->qps, qpn);
		err = -ENODEV;
		goto unlock;
	}

	qp->state = RCLINK_QP_STATE_READY;
	rclink_cc_qp_reset(&qp->cc, qp->cfg.speed);
	/* a release store: the data path sees the QP initialised */
	WARN_ON_ONCE(xa_err(xa_store(&t1->qps, qpn, qp, GFP_KERNEL)));
	t1->nr_qps++;
unlock:
	mutex_unlock(&t1->lock);
	if (err) {
		rclink_dp_qp_release(qp);
		kfree(qp);
	}
	return err;
}

/* The QP's configuration @new with the fields @given of a qp-set request */
static int rclink_t1_qp_merge(struct rclink_t1 *t1,
			      struct rclink_t1_qp_cfg *new,
			      const struct rclink_t1_qp_cfg *cfg, u32 *given,
			      struct netlink_ext_ack *extack)
{
	int err;

	if (*given & RCLINK_QP_F_DQPN)
		new->dqpn = cfg->dqpn;
	if (*given & RCLINK_QP_F_DIP)
		new->dip = cfg->dip;
	if (*given & RCLINK_QP_F_DMAC)
		ether_addr_copy(new->dmac, cfg->dmac);
	if (*given & RCLINK_QP_F_SPORT)
		new->sport = cfg->sport;
	if (*given & RCLINK_QP_F_PKEY)
		new->pkey = cfg->pkey;
	if (*given & RCLINK_QP_F_RX_PKEY)
		new->rx_pkey = cfg->rx_pkey;
	if (*given & RCLINK_QP_F_SQ_PSN)
		new->sq_psn = cfg->sq_psn;
	if (*given & RCLINK_QP_F_RQ_PSN)
		new->rq_psn = cfg->rq_psn;
	if (*given & RCLINK_QP_F_SPEED) {
		new->speed = cfg->speed;
		new->rate = 0;
	}
	if (*given & RCLINK_QP_F_RATE) {
		err = rclink_t1_rate_speed(t1, cfg->rate, &new->speed, extack);
		if (err)
			return err;
		new->rate = cfg->rate;
		*given |= RCLINK_QP_F_SPEED;
	}
	return 0;
}

/*
 * A FATAL QP: "state ready" re-arms it, steps 3-8 again, the first PSN
 * after the one the recovery read (seed 000, "TX retry times over").  The
 * receive PSNs stay unless given: the responder side did not fail.
 * Without "state ready" the fields are only stored (*what 0).
 */
static int rclink_t1_qp_rearm_what(struct rclink_dev *rdev,
				   struct rclink_t1_qp *qp,
				   struct rclink_t1_qp_cfg *new, u32 given,
				   u32 *what, struct netlink_ext_ack *extack)
{
	const u32 both = RCLINK_QP_F_SQ_PSN | RCLINK_QP_F_RQ_PSN;

	*what = 0;
	if (!(given & RCLINK_QP_F_READY))
		return 0;
	if (qp->reset_fatal && (given & both) != both) {
		/* the board's PSNs were reset or have a hole, the peer's not */
		NL_SET_ERR_MSG(extack,
			       "state ready: the PSNs were lost (board reset, or a context stopped with packets in flight), give sq_psn and rq_psn agreed with the peer");
		return -EINVAL;
	}
	if (!(given & RCLINK_QP_F_SQ_PSN))
		new->sq_psn = (qp->fatal_psn + 1) & rclink_t1_psn_mask(rdev);
	*what = RCLINK_T1_W_DISABLE | RCLINK_T1_W_INIT;
	if (!(given & RCLINK_QP_F_RQ_PSN))
		*what &= ~RCLINK_T1_W_RX_PSN;
	return 0;
}

/* What qp-set writes of a QP that is not FATAL */
static u32 rclink_t1_qp_set_what(u32 given)
{
	u32 what;

	if (!(given & ~(RCLINK_QP_F_SPEED | RCLINK_QP_F_RATE))) {
		/*
		 * Only the rate: TX_SPEED_MEM (and acc_cnt, step 5) of a
		 * running QP, as the congestion-control loop writes it.
		 * Disabling the QP for it would flush what it has in flight,
		 * and the messages the engine set aside while the old rate
		 * masked the QP would be taken up (CC_TYPE1_QP_EN_SET) into
		 * a disabled QP and flushed.
		 */
		return RCLINK_T1_W_SPEED;
	}
	/* a running QP: disable, write what changed, enable */
	what = RCLINK_T1_W_DISABLE | RCLINK_T1_W_ENABLE;
	if (given & RCLINK_QP_F_SQ_PSN)
		what |= RCLINK_T1_W_TX_PSN;
	if (given & RCLINK_QP_F_RQ_PSN)
		what |= RCLINK_T1_W_RX_PSN;
	if (given & RCLINK_QP_F_SPEED)
		what |= RCLINK_T1_W_SPEED;
	if (given & (RCLINK_QP_F_DQPN | RCLINK_QP_F_DIP |
		     RCLINK_QP_F_DMAC | RCLINK_QP_F_SPORT |
		     RCLINK_QP_F_PKEY | RCLINK_QP_F_RX_PKEY))
		what |= RCLINK_T1_W_HDR;
	return what;
}

/* A re-armed QP is READY again: its data path, listeners, the log */
static void rclink_t1_qp_rearmed(struct rclink_t1_qp *qp)
{
	unsigned long flags;

	qp->reset_fatal = false;
	spin_lock_irqsave(&qp->lock, flags);
	qp->state = RCLINK_QP_STATE_READY;
	spin_unlock_irqrestore(&qp->lock, flags);
	rclink_dp_qp_state_changed(qp);
	rclink_nl_notify_qp(qp, RCLINK_CMD_QP_READY_NTF);
	dev_info(qp->rdev->dev, "qp %u re-armed, next psn %u\n", qp->qpn,
		 qp->cfg.sq_psn);
}

int rclink_t1_qp_set(struct rclink_dev *rdev, u32 qpn,
		     const struct rclink_t1_qp_cfg *cfg, u32 given,
		     struct netlink_ext_ack *extack)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp_cfg new;
	struct rclink_t1_qp *qp;
	unsigned long flags;
	bool rearm = false;
	u32 what;
	int err;

	mutex_lock(&t1->lock);
	qp = rclink_t1_qp_get_locked(rdev, qpn);
	if (!qp) {
		NL_SET_ERR_MSG(extack, "qpn: no such QP");
		err = -ENOENT;
		goto unlock;
	}

	new = qp->cfg;
	err = rclink_t1_qp_merge(t1, &new, cfg, &given, extack);
	if (err)
		goto unlock;
	if (qp->state == RCLINK_QP_STATE_FATAL) {
		err = rclink_t1_qp_rearm_what(rdev, qp, &new, given, &what,
					      extack);
		if (err)
			goto unlock;
		rearm = what != 0;
	} else {
		what = rclink_t1_qp_set_what(given);
	}

	if (what) {
		mutex_lock(&rdev->qp_lock);
		rclink_t1_qp_write(rdev, qpn, &new, what);
		mutex_unlock(&rdev->qp_lock);
		if (rclink_gone(rdev)) {
			err = -ENODEV;
			goto unlock;
		}
	}
	qp->cfg = new;
	if (what & RCLINK_T1_W_SPEED) {
		/* a new speed, or a re-armed QP: the loop starts again */
		spin_lock_irqsave(&qp->lock, flags);
		rclink_cc_qp_reset(&qp->cc, new.speed);
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	if (rearm)
		rclink_t1_qp_rearmed(qp);
unlock:
	mutex_unlock(&t1->lock);
	return err;
}

int rclink_t1_qp_del(struct rclink_dev *rdev, u32 qpn,
		     struct netlink_ext_ack *extack)
{
	struct rclink_t1 *t1 = &rdev->t1;
	const char *step = "selecting the QP";
	struct rclink_t1_qp *qp;
	unsigned long flags;
	bool busy;
	u32 psn;
	int err;

	mutex_lock(&t1->lock);
	qp = rclink_t1_qp_get_locked(rdev, qpn);
	if (!qp) {
		mutex_unlock(&t1->lock);
		NL_SET_ERR_MSG(extack, "qpn: no such QP");
		return -ENOENT;
	}

	/* RESET: a file cannot bind it any more */
	spin_lock_irqsave(&qp->lock, flags);
	busy = !!qp->owner;
	if (!busy)
		qp->state = RCLINK_QP_STATE_RESET;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (busy) {
		mutex_unlock(&t1->lock);
		NL_SET_ERR_MSG(extack, "qpn: a file is bound to the QP");
		return -EBUSY;
	}
	rclink_dp_qp_state_changed(qp);

	/* disable it and release its packets in flight as the recovery does */
	mutex_lock(&rdev->qp_lock);
	err = rclink_qp_recover_locked(rdev, qpn, &psn, &step);
	mutex_unlock(&rdev->qp_lock);
	if (err && !rclink_gone(rdev))
		dev_warn(rdev->dev, "qp %u: delete: %s failed: %d\n", qpn,
			 step, err);
	/* the messages flushed by the release complete on the QP */
	if (!err && !rclink_gone(rdev) &&
	    !wait_event_timeout(qp->wq, !READ_ONCE(qp->tx_inflight),
				RCLINK_QP_DRAIN_TIMEOUT))
		dev_warn(rdev->dev, "qp %u: delete: %u messages still in flight\n",
			 qpn, READ_ONCE(qp->tx_inflight));

	xa_erase(&t1->qps, qpn);
	t1->nr_qps--;
	mutex_unlock(&t1->lock);

	/*
	 * A reader of the data path may still hold the QP: it finds it
	 * released under its lock and leaves it alone, and the memory stays
	 * until its RCU section is over.
	 */
	rclink_dp_qp_release(qp);
	kfree_rcu(qp, rcu);
	return 0;
}

int rclink_t1_qp_info(struct rclink_dev *rdev, u32 qpn,
		      struct rclink_t1_qp_info *info)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *qp;
	unsigned long flags;
	unsigned int i;
	u64 val;
	int err = 0;

	mutex_lock(&t1->lock);
	qp = rclink_t1_qp_get_locked(rdev, qpn);
	if (!qp) {
		err = -ENOENT;
		goto unlock;
	}
	info->cfg = qp->cfg;
	spin_lock_irqsave(&qp->lock, flags);
	info->state = qp->state;
	info->bound = !!qp->owner;
	info->user = qp->user;
	info->stats = qp->stats;
	info->cc_state = qp->cc;
	spin_unlock_irqrestore(&qp->lock, flags);

	mutex_lock(&rdev->qp_lock);
	rclink_wr64(rdev, RCLINK_QP_ID_SET,
		    FIELD_PREP(RCLINK_QP_ID_SET_QP_ID_SET, qpn));
	val = rclink_rd64(rdev, RCLINK_TX_EPSN_MEM);
	info->cfg.sq_psn = FIELD_GET(RCLINK_TX_EPSN_MEM_TX_PSN, val);
	val = rclink_rd64(rdev, RCLINK_REQ_CHK_SN_MEM);
	info->cfg.rq_psn = FIELD_GET(RCLINK_REQ_CHK_SN_MEM_RX_REQ_EPSN, val);
	rclink_wr64(rdev, RCLINK_DMAQ_QP_STAT_SEL,
		    FIELD_PREP(RCLINK_DMAQ_QP_STAT_SEL_QPN, qpn));
	info->hw_absent = 0;
	for (i = 0; i < RCLINK_T1_HW_NUM; i++) {
		info->hw[i] = rclink_rd64(rdev, rclink_t1_hw_regs[i]);
		if (!rclink_counted(rdev, rclink_t1_hw_regs[i]))
			info->hw_absent |= BIT(i);
	}
	info->ecn_rx = rclink_rd64(rdev, RCLINK_DMAQ_QPS_ECN_RX);
	info->cnp_rx = rclink_rd64(rdev, RCLINK_DMAQ_QPS_CNP_RX);
	info->ecn_rx_absent = !rclink_counted(rdev, RCLINK_DMAQ_QPS_ECN_RX);
	info->cnp_rx_absent = !rclink_counted(rdev, RCLINK_DMAQ_QPS_CNP_RX);
	info->cc = rclink_rd64(rdev, RCLINK_TX_CC_BYTE_CNT_MEM);
	mutex_unlock(&rdev->qp_lock);
	if (rclink_gone(rdev))
		err = -ENODEV;
unlock:
	mutex_unlock(&t1->lock);
	return err;
}

/* ---- board: init and fini ------------------------------------------------ */

/*
 * Give the board its index and name, and program step 1 with the defaults:
 * TYPE1 on, Standard format, the MAC of SHIM_MAC, no IP address, TTL 64,
 * retry timer 1 ms, 7 retries, RNR retries forever, ICRC on, no ACK
 * timestamps, no VLAN tag, priority 0, no CNP merge (window 0), no NOCNP
 * timer.
 */
/* ---- TYPE2 groups ------------------------------------------------------- */

/* Once, at probe: the group objects live until the board is removed */
static int rclink_t2_groups_alloc(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *grp;
	unsigned int g;

	for (g = 0; g < RCLINK_AFH_T2_GROUPS; g++) {
		grp = kzalloc(sizeof(*grp), GFP_KERNEL);
		if (!grp)
			return -ENOMEM;	/* the caller frees the others */
		grp->rdev = rdev;
		grp->qpn = g;
		grp->group = true;
		grp->state = RCLINK_QP_STATE_READY;
		rclink_dp_qp_init(grp);
		/* no data path until the board is up */
		grp->dp_released = true;
		t1->groups[g] = grp;
	}
	return 0;
}

/* Removal: the data path is down, no file is bound, no CQE comes */
static void rclink_t2_groups_free(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	unsigned int g;

	for (g = 0; g < RCLINK_AFH_T2_GROUPS; g++) {
		kfree(t1->groups[g]);
		t1->groups[g] = NULL;
	}
}

int rclink_t2_group_info(struct rclink_dev *rdev, u32 group,
			 struct rclink_t2_group_info *info)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *grp;

	if (group >= RCLINK_AFH_T2_GROUPS)
		return -ERANGE;
	mutex_lock(&t1->lock);
	grp = t1->groups[group];
	ether_addr_copy(info->mac, t1->t2_mac[group]);
	info->join = t1->t2_join & BIT(group);
	info->user = grp->user;
	spin_lock_irq(&grp->lock);
	info->bound = !!grp->owner;
	info->stats = grp->stats;
	spin_unlock_irq(&grp->lock);
	mutex_unlock(&t1->lock);
	return 0;
}

int rclink_t2_group_set(struct rclink_dev *rdev, u32 group, const u8 *mac,
			bool join, const struct rclink_owner *user, u32 given,
			struct netlink_ext_ack *extack)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *grp;
	unsigned int g;
	bool busy;

	if (group >= RCLINK_AFH_T2_GROUPS) {
		NL_SET_ERR_MSG(extack, "group: 0..7 (TYPE2_DA_0..7)");
		return -ERANGE;
	}
	if (rclink_feat_need(rdev, RCLINK_FEAT_TYPE2, extack))
		return -EOPNOTSUPP;
	mutex_lock(&t1->lock);
	grp = t1->groups[group];
	if (given & RCLINK_T2_F_OWNER) {
		/* the bound file keeps what its opener may not bind any more */
		spin_lock_irq(&grp->lock);
		busy = !!grp->owner;
		spin_unlock_irq(&grp->lock);
		if (busy) {
			mutex_unlock(&t1->lock);
			NL_SET_ERR_MSG(extack,
				       "owner-uid: a file is bound to the group");
			return -EBUSY;
		}
	}
	if (given & RCLINK_T2_F_MAC) {
		for (g = 0; g < RCLINK_AFH_T2_GROUPS; g++) {
			if (g != group &&
			    ether_addr_equal(t1->t2_mac[g], mac)) {
				mutex_unlock(&t1->lock);
				NL_SET_ERR_MSG(extack,
					       "mac: another group of the board has it");
				return -EEXIST;
			}
		}
		ether_addr_copy(t1->t2_mac[group], mac);
	}
	if (given & RCLINK_T2_F_JOIN) {
		if (join)
			t1->t2_join |= BIT(group);
		else
			t1->t2_join &= ~BIT(group);
	}
	if (given & RCLINK_T2_F_OWNER)
		grp->user = *user;
	mutex_lock(&rdev->qp_lock);
	rclink_t2_write_global(rdev);
	mutex_unlock(&rdev->qp_lock);
	mutex_unlock(&t1->lock);
	return rclink_gone(rdev) ? -ENODEV : 0;
}

/*
 * The configuration of step 1 and of the TYPE2 groups as a fresh board has
 * it: at the first bring-up and after `devlink dev reload`.  The MAC is the
 * board's own (SHIM_MAC).
 */
static void rclink_t1_defaults(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *grp;
	unsigned int g;
	u64 val;

	val = rclink_rd64(rdev, RCLINK_SHIM_MAC);
	u64_to_ether_addr(FIELD_GET(RCLINK_SHIM_MAC_ADDR, val), t1->mac);
	if (!is_valid_ether_addr(t1->mac))
		dev_warn(rdev->dev, "TYPE1: SHIM_MAC holds %pM, not a unicast address\n",
			 t1->mac);
	t1->ip = 0;
	t1->ip_id = 0;
	t1->ttl = RCLINK_T1_DEF_TTL;
	t1->tc = 0;
	/* rclink_cbfc_init(): each bank's VC in cbfc mode */
	memset(t1->bank_tc, t1->tc, sizeof(t1->bank_tc));
	t1->ack_tc = 0;
	t1->retry_timer_us = RCLINK_T1_DEF_RETRY_TIMER_US;
	t1->retry_cnt = RCLINK_T1_DEF_RETRY_CNT;
	t1->rnr_retry_cnt = RCLINK_T1_DEF_RNR_RETRY_CNT;
	t1->ack_timestamp = false;
	t1->icrc = true;
	t1->vlan_id = 0;
	t1->vlan_pri = 0;
	t1->format = rdev->cfg.t1_format;	/* devlink header_format */
	t1->cc_window_ns = 4096;
	t1->bank_rr = false;
	t1->t2_rate = 0;
	t1->t2_speed = 0;
	t1->cnp_merge = false;
	t1->cnp_window_us = 0;
	/* the loop rises on NOCNP records: on with it, at 256 us */
	t1->nocnp_us = rdev->cfg.cc_algo == RCLINK_CC_ALGO_NONE ? 0 :
		       RCLINK_CC_NOCNP_US;
	for (g = 0; g < RCLINK_AFH_T2_GROUPS; g++) {
		grp = t1->groups[g];
		/* the administrator's until mcast-set gives it away */
		grp->user.uid = GLOBAL_ROOT_UID;
		grp->user.netns = init_net.net_cookie;
		/* 01:00:5e:52:43:0g, the MAC of IPv4 multicast 239.82.67.g */
		u64_to_ether_addr(0x01005e524300ULL | g, t1->t2_mac[g]);
	}
	t1->t2_join = 0;
}

/*
 * A kept QP or group gets its data path back (nothing is bound to it); a QP
 * also starts its congestion control afresh (@cc_reset)
 */
static void rclink_t1_qp_revive(struct rclink_t1_qp *qp, bool cc_reset)
{
	spin_lock_irq(&qp->lock);
	WARN_ON_ONCE(qp->owner || !list_empty(&qp->rx_msgs) ||
		     qp->rx_partial);
	qp->dp_released = false;
	qp->rx_discard = false;
	/* what was in flight completed flushed without the QP */
	qp->tx_inflight = 0;
	if (cc_reset)
		rclink_cc_qp_reset(&qp->cc, qp->cfg.speed);
	spin_unlock_irq(&qp->lock);
}

/*
 * The QPs kept across a reset (Documentation/driver.rst, "Life cycle"):
 * programmed again from their configuration but not enabled, FATAL like a
 * QP whose retries ran out, because the peer's PSNs moved on while the
 * board's were reset.  `rclink qp set ... state ready` re-arms one, with
 * the PSNs the two ends agree on.  A QP the board no longer has (a smaller
 * QP_NUM) is deleted.
 */
static void rclink_t1_qps_restore(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	u32 mask = rclink_t1_psn_mask(rdev);
	struct rclink_t1_qp *qp;
	unsigned long qpn;
	u32 kept = 0;

	lockdep_assert_held(&t1->lock);

	xa_for_each(&t1->qps, qpn, qp) {
		if (qpn >= rdev->params.qp_num) {
			dev_warn(rdev->dev, "qp %lu deleted: the board has %u QPs now\n",
				 qpn, rdev->params.qp_num);
			xa_erase(&t1->qps, qpn);
			t1->nr_qps--;
			kfree_rcu(qp, rcu);
			continue;
		}
		mutex_lock(&rdev->qp_lock);
		rclink_wr64(rdev, RCLINK_DMAQ_QP_STAT_SEL,
			    FIELD_PREP(RCLINK_DMAQ_QP_STAT_SEL_QPN, qpn) |
			    RCLINK_DMAQ_QP_STAT_SEL_CLEAR);
		rclink_t1_qp_write(rdev, qpn, &qp->cfg,
				   RCLINK_T1_W_INIT & ~RCLINK_T1_W_ENABLE);
		mutex_unlock(&rdev->qp_lock);
		rclink_t1_qp_revive(qp, true);
		/* the PSN a re-arm would take is meaningless now */
		qp->reset_fatal = true;
		rclink_t1_qp_went_fatal(qp, (qp->cfg.sq_psn - 1) & mask);
		kept++;
	}
	if (kept) {
		rdev->pci_stats.qps_kept += kept;
		dev_info(rdev->dev, "TYPE1: %u QP(s) kept across the reset, fatal until re-armed\n",
			 kept);
	}
}

/* Once, at probe: the QP table, the groups, the board's index and name */
int rclink_t1_probe(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	u32 index;
	int err;

	xa_init(&t1->qps);
	t1->nr_qps = 0;
	t1->qps_up = false;
	t1->configured = false;
	err = rclink_t2_groups_alloc(rdev);
	if (err)
		goto err_free_groups;

	/* reserved until the board is up: netlink finds it only then */
	mutex_lock(&rclink_t1_devs_lock);
	err = xa_alloc(&rclink_t1_devs, &index, NULL,
		       XA_LIMIT(0, RCLINK_T1_MAX_DEVS - 1), GFP_KERNEL);
	mutex_unlock(&rclink_t1_devs_lock);
	if (err) {
		dev_err(rdev->dev, "TYPE1: no free board index: %d\n", err);
		goto err_free_groups;
	}
	t1->index = index;
	snprintf(t1->name, sizeof(t1->name), "rclink%u", index);
	return 0;

err_free_groups:
	rclink_t2_groups_free(rdev);
	return err;
}

/*
 * Every QP deleted and the configuration back to the defaults at the next
 * bring-up: `devlink dev reload`, and removal.  The board is down.
 */
void rclink_t1_forget(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *qp;
	unsigned long qpn;

	mutex_lock(&t1->lock);
	WARN_ON_ONCE(t1->qps_up);
	xa_for_each(&t1->qps, qpn, qp) {
		xa_erase(&t1->qps, qpn);
		kfree_rcu(qp, rcu);
	}
	t1->nr_qps = 0;
	t1->configured = false;
	mutex_unlock(&t1->lock);
}

/* Removal, after the last rclink_down() */
void rclink_t1_remove(struct rclink_dev *rdev)
{
	rclink_t1_forget(rdev);
	mutex_lock(&rclink_t1_devs_lock);
	xa_erase(&rclink_t1_devs, rdev->t1.index);
	mutex_unlock(&rclink_t1_devs_lock);
	rclink_t2_groups_free(rdev);
	xa_destroy(&rdev->t1.qps);
}

/*
 * Take the QPs and groups off the data path (down already, no file bound):
 * what they received is freed, their objects and configuration stay.
 */
static void rclink_t1_release(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *qp;
	unsigned long qpn;
	unsigned int g;
	u64 unread = 0;

	mutex_lock(&t1->lock);
	t1->qps_up = false;
	xa_for_each(&t1->qps, qpn, qp)
		unread += rclink_dp_qp_release(qp);
	for (g = 0; g < RCLINK_AFH_T2_GROUPS; g++)
		unread += rclink_dp_qp_release(t1->groups[g]);
	mutex_unlock(&t1->lock);

	/* the CC work finds no QP now; rclink_down() cancels it */
	/* received, never read: their senders saw them complete */
	if (unread)
		dev_info(rdev->dev, "%llu received TYPE1 message(s) dropped unread\n",
			 unread);
	rdev->pci_stats.teardown_unread += unread;
}

/*
 * Bring-up: the configuration (the defaults the first time, else what the
 * board had before the reset) into the registers, the kept QPs and groups
 * back, then the board visible to netlink.
 */
int rclink_t1_init(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	unsigned int g;
	u64 val;

	/* rclink_dp_t2_max_msg() is 0: binding a group fails (EOPNOTSUPP) */
	if (rdev->params.type2_pkt_len <= RCLINK_SEG_BYTES)
		dev_warn(rdev->dev,
			 "TYPE2_PKT_LEN %u leaves no room for a message: TYPE2 groups cannot be bound\n",
			 rdev->params.type2_pkt_len);

	mutex_lock(&t1->lock);
	if (!t1->configured)
		rclink_t1_defaults(rdev);
	/* flow control's MAC side before the flows are enabled */
	rclink_cbfc_init(rdev, !t1->configured);
	rclink_t1_write_global(rdev);
	rclink_t1_qps_restore(rdev);
	for (g = 0; g < RCLINK_AFH_T2_GROUPS; g++)
		rclink_t1_qp_revive(t1->groups[g], false);
	t1->configured = true;
	t1->qps_up = true;
	mutex_unlock(&t1->lock);
	if (rclink_gone(rdev))
		goto err_down;

	mutex_lock(&rclink_t1_devs_lock);
	xa_store(&rclink_t1_devs, t1->index, rdev, GFP_KERNEL);
	mutex_unlock(&rclink_t1_devs_lock);

	dev_info(rdev->dev, "TYPE1: %s, %u QPs, MAC %pM\n", t1->name,
		 rdev->params.qp_num, t1->mac);
	return 0;

err_down:
	val = rclink_rd64(rdev, RCLINK_RDMA_EN);
	rclink_wr64(rdev, RCLINK_RDMA_EN, val & ~(RCLINK_RDMA_EN_TYPE1_EN |
						  RCLINK_RDMA_EN_TYPE2_EN));
	rclink_t1_release(rdev);
	return -ENODEV;
}

/*
 * Hide the board from netlink (no operation runs on it after this), stop
 * its QPs and take them off the data path, which is down already
 * (rclink_dp_fini()).  The QPs and the configuration stay for the next
 * rclink_t1_init().
 */
void rclink_t1_fini(struct rclink_dev *rdev)
{
	struct rclink_t1 *t1 = &rdev->t1;
	struct rclink_t1_qp *qp;
	unsigned long qpn;
	u64 val;

	mutex_lock(&rclink_t1_devs_lock);
	xa_store(&rclink_t1_devs, t1->index, NULL, GFP_KERNEL);
	mutex_unlock(&rclink_t1_devs_lock);

	mutex_lock(&t1->lock);
	mutex_lock(&rdev->qp_lock);
	xa_for_each(&t1->qps, qpn, qp) {
		rclink_wr64(rdev, RCLINK_QP_ID_SET,
			    FIELD_PREP(RCLINK_QP_ID_SET_QP_ID_SET, qpn));
		rclink_wr64(rdev, RCLINK_QP_CONTROL_STATUS, 0);
		rclink_wr64(rdev, RCLINK_TX_SPEED_MEM, 0);
	}
	val = rclink_rd64(rdev, RCLINK_RDMA_EN);
	rclink_wr64(rdev, RCLINK_RDMA_EN, val & ~(RCLINK_RDMA_EN_TYPE1_EN |
						  RCLINK_RDMA_EN_TYPE2_EN));
	mutex_unlock(&rdev->qp_lock);
	mutex_unlock(&t1->lock);
	rclink_t1_release(rdev);
}

/* ---- fatal events -------------------------------------------------------- */

static void rclink_qp_fatal_work(struct work_struct *work)
{
	struct rclink_dev *rdev = container_of(work, struct rclink_dev,
					       qp_fatal_work);
	u32 n = rdev->params.qp_num;
	u32 qpid;

	for (qpid = find_first_bit(rdev->qp_fatal_pending, n); qpid < n;
	     qpid = find_next_bit(rdev->qp_fatal_pending, n, qpid + 1)) {
		if (test_and_clear_bit(qpid, rdev->qp_fatal_pending))
			rclink_qp_recover(rdev, qpid);
	}
}

/* A TYPE1 retry-timeout event for @qpid: recover the QP in process context */
void rclink_qp_fatal(struct rclink_dev *rdev, u32 qpid)
{
	if (qpid >= rdev->params.qp_num) {
		rclink_cnt_inc(rdev, RCLINK_CNT_UNKNOWN);
		dev_err_ratelimited(rdev->dev,
				    "qp %u fatal, but the IP has only %u QPs\n",
				    qpid, rdev->params.qp_num);
		return;
	}
	set_bit(qpid, rdev->qp_fatal_pending);
	schedule_work(&rdev->qp_fatal_work);
}

/*
 * Once, at probe: the locks and the work outlive every up and down (a
 * lock or work initialised again while in use would be corrupted)
 */
void rclink_qp_early_init(struct rclink_dev *rdev)
{
	mutex_init(&rdev->qp_lock);
	mutex_init(&rdev->t1.lock);
	INIT_WORK(&rdev->qp_fatal_work, rclink_qp_fatal_work);
}

int rclink_qp_init(struct rclink_dev *rdev)
{
	rdev->qp_fatal_pending = bitmap_zalloc(max(rdev->params.qp_num, 1U),
					       GFP_KERNEL);
	if (!rdev->qp_fatal_pending)
		return -ENOMEM;
	return 0;
}

/* No new fatal event may arrive any more (the event interrupt is freed) */
void rclink_qp_stop(struct rclink_dev *rdev)
{
	cancel_work_sync(&rdev->qp_fatal_work);
}

void rclink_qp_fini(struct rclink_dev *rdev)
{
	cancel_work_sync(&rdev->qp_fatal_work);
	bitmap_free(rdev->qp_fatal_pending);
	rdev->qp_fatal_pending = NULL;
}
