// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the event ring (Documentation/hw/shim.rst, Event ring) and the
 * decoding of every event the IP reports: IRQ_INFO words of TYPE1, TYPE2 and
 * TYPE3, RC_INTR_O level causes, the shim's self-test and LINK records, the
 * CC interface's RECV_ACK, RECV_CNP and NOCNP records, the RETRY_TMO
 * records of the retry timer.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/sizes.h>
#include <linux/string.h>

#include "rclink.h"

/* Counter names: the debugfs "events" file prints them in this order */
#define RCLINK_CNT_NAME(pfx, prefix, name, ...) \
	[RCLINK_CNT_##pfx##_##name] = prefix #name,
#define RCLINK_T1_NAME(code, name, desc) \
	RCLINK_CNT_NAME(T1, "t1_", name, code, desc)
#define RCLINK_T2_NAME(code, name, desc) \
	RCLINK_CNT_NAME(T2, "t2_", name, code, desc)
#define RCLINK_T3_NAME(code, name, desc) \
	RCLINK_CNT_NAME(T3, "t3_", name, code, desc)
#define RCLINK_RC_INTR_NAME(bit, name, desc) \
	RCLINK_CNT_NAME(RC_INTR, "rc_intr_", name, bit, desc)
#define RCLINK_NONR_ST0_NAME(bit, name, desc) \
	RCLINK_CNT_NAME(NONR_ST0, "nonr_st0_", name, bit, desc)
#define RCLINK_NONR_ST1_NAME(bit, name, desc) \
	RCLINK_CNT_NAME(NONR_ST1, "nonr_st1_", name, bit, desc)

const char * const rclink_cnt_names[RCLINK_CNT_NUM] = {
	[RCLINK_CNT_IRQ_TOTAL] = "irq_total",
	[RCLINK_CNT_EVT_RECORDS] = "evt_records",
	[RCLINK_CNT_EVT_DROPPED] = "evt_dropped",
	RCLINK_IRQ_TYPE1_CODES(RCLINK_T1_NAME)
	RCLINK_IRQ_TYPE2_CODES(RCLINK_T2_NAME)
	RCLINK_IRQ_TYPE3_CODES(RCLINK_T3_NAME)
	RCLINK_RC_INTR_BITS(RCLINK_RC_INTR_NAME)
	RCLINK_NONR_ST0_BITS(RCLINK_NONR_ST0_NAME)
	RCLINK_NONR_ST1_BITS(RCLINK_NONR_ST1_NAME)
	[RCLINK_CNT_SELFTEST_IRQ] = "selftest_irq",
	[RCLINK_CNT_NONR_SOFT_RESET] = "nonr_soft_reset",
	[RCLINK_CNT_T3_VECTOR] = "t3_irq_vector",
	[RCLINK_CNT_QP_FATAL] = "qp_fatal",
	[RCLINK_CNT_QP_RECOVERED] = "qp_recovered",
	[RCLINK_CNT_QP_RECOVERY_FAILED] = "qp_recovery_failed",
	[RCLINK_CNT_LINK_UP] = "link_up",
	[RCLINK_CNT_LINK_DOWN] = "link_down",
	[RCLINK_CNT_RECV_ACK] = "recv_ack",
	[RCLINK_CNT_RECV_CNP] = "recv_cnp",
	[RCLINK_CNT_NOCNP] = "nocnp",
	[RCLINK_CNT_RETRY_TMO] = "retry_tmo",
	[RCLINK_CNT_CC_DROP_NOQP] = "cc_drop_noqp",
	[RCLINK_CNT_T1_RX_UNREAD] = "t1_rx_unread_dropped",
	[RCLINK_CNT_UNKNOWN] = "unknown",
};

/*
 * The netdev's own counters (ethtool -S): its path's IRQ_INFO codes and
 * interrupt causes, its soft resets, the link.  The rest are the board's:
 * devlink health diagnose of the "events" reporter and debugfs.
 */
#define RCLINK_CNT_TRUE(pfx, name, ...) \
	[RCLINK_CNT_##pfx##_##name] = true,
#define RCLINK_T3_NETDEV(code, name, desc) \
	RCLINK_CNT_TRUE(T3, name, code, desc)
#define RCLINK_NONR_ST0_NETDEV(bit, name, desc) \
	RCLINK_CNT_TRUE(NONR_ST0, name, bit, desc)
#define RCLINK_NONR_ST1_NETDEV(bit, name, desc) \
	RCLINK_CNT_TRUE(NONR_ST1, name, bit, desc)
static const bool rclink_cnt_netdev_tab[RCLINK_CNT_NUM] = {
	RCLINK_IRQ_TYPE3_CODES(RCLINK_T3_NETDEV)
	RCLINK_NONR_ST0_BITS(RCLINK_NONR_ST0_NETDEV)
	RCLINK_NONR_ST1_BITS(RCLINK_NONR_ST1_NETDEV)
	[RCLINK_CNT_NONR_SOFT_RESET] = true,
	[RCLINK_CNT_T3_VECTOR] = true,
	[RCLINK_CNT_LINK_UP] = true,
	[RCLINK_CNT_LINK_DOWN] = true,
};

bool rclink_cnt_netdev(enum rclink_cnt c)
{
	return rclink_cnt_netdev_tab[c];
}

unsigned int rclink_cnt_netdev_num(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < RCLINK_CNT_NUM; i++)
		n += rclink_cnt_netdev_tab[i];
	return n;
}

u64 rclink_cnt_read(struct rclink_dev *rdev, enum rclink_cnt c)
{
	u64 val;

	/* the shim counts drops; a dead board shows the last value read */
	if (c == RCLINK_CNT_EVT_DROPPED && !rclink_gone(rdev)) {
		val = rclink_rd64(rdev, RCLINK_SHIM_EVT_DROPS);
		val = FIELD_GET(RCLINK_SHIM_EVT_DROPS_COUNT, val);
		if (!rclink_gone(rdev))
			atomic64_set(&rdev->cnt[c], val);
	}
	return atomic64_read(&rdev->cnt[c]);
}

/* IRQ_INFO codes, from the X-macro lists of rclink_hw.h */
struct rclink_evt_code {
	u8 type;
	u8 code;
	u16 cnt;
	const char *name;
	const char *desc;
};

#define RCLINK_T1_CODE(c, n, d) \
	{ RCLINK_IRQ_TYPE1, c, RCLINK_CNT_T1_##n, #n, d },
#define RCLINK_T2_CODE(c, n, d) \
	{ RCLINK_IRQ_TYPE2, c, RCLINK_CNT_T2_##n, #n, d },
#define RCLINK_T3_CODE(c, n, d) \
	{ RCLINK_IRQ_TYPE3, c, RCLINK_CNT_T3_##n, #n, d },

static const struct rclink_evt_code rclink_evt_codes[] = {
	RCLINK_IRQ_TYPE1_CODES(RCLINK_T1_CODE)
	RCLINK_IRQ_TYPE2_CODES(RCLINK_T2_CODE)
	RCLINK_IRQ_TYPE3_CODES(RCLINK_T3_CODE)
};

/* Level causes: RC_INTR_O (INTR_STATUS), DMA_INTR_ST0, DMA_INTR_ST1 */
struct rclink_evt_bit {
	u8 bit;
	u16 cnt;
	const char *name;
	const char *desc;
};

#define RCLINK_RC_INTR_BIT(b, n, d) \
	{ b, RCLINK_CNT_RC_INTR_##n, #n, d },
#define RCLINK_NONR_ST0_BIT(b, n, d) \
	{ b, RCLINK_CNT_NONR_ST0_##n, #n, d },
#define RCLINK_NONR_ST1_BIT(b, n, d) \
	{ b, RCLINK_CNT_NONR_ST1_##n, #n, d },

static const struct rclink_evt_bit rclink_rc_intr_bits[] = {
	RCLINK_RC_INTR_BITS(RCLINK_RC_INTR_BIT)
};

static const struct rclink_evt_bit rclink_nonr_st0_bits[] = {
	RCLINK_NONR_ST0_BITS(RCLINK_NONR_ST0_BIT)
};

static const struct rclink_evt_bit rclink_nonr_st1_bits[] = {
	RCLINK_NONR_ST1_BITS(RCLINK_NONR_ST1_BIT)
};

static const struct rclink_evt_code *rclink_evt_code_find(u32 type, u32 code)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rclink_evt_codes); i++)
		if (rclink_evt_codes[i].type == type &&
		    rclink_evt_codes[i].code == code)
			return &rclink_evt_codes[i];
	return NULL;
}

/*
 * Count every bit of @bits that @tbl knows, and every other bit as unknown.
 * @what names the register in the log; @warn selects a warning per cause
 * (faults) or only a debug message (normal transaction causes).
 */
static void rclink_evt_count_bits(struct rclink_dev *rdev,
				  const struct rclink_evt_bit *tbl,
				  unsigned int n, u64 bits, const char *what,
				  bool warn)
{
	const char *desc;
	u64 known = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!(bits & BIT_ULL(tbl[i].bit)))
			continue;
		known |= BIT_ULL(tbl[i].bit);
		rclink_cnt_inc(rdev, tbl[i].cnt);
		/* some descriptions only repeat the name */
		desc = strcmp(tbl[i].desc, tbl[i].name) ? tbl[i].desc : "";
		if (warn)
			dev_warn_ratelimited(rdev->dev, "%s %s%s%s\n", what,
					     tbl[i].name, *desc ? ": " : "",
					     desc);
		else
			dev_dbg(rdev->dev, "%s %s%s%s\n", what, tbl[i].name,
				*desc ? ": " : "", desc);
	}
	if (bits & ~known) {
		rclink_cnt_inc(rdev, RCLINK_CNT_UNKNOWN);
		dev_warn_ratelimited(rdev->dev, "%s: unknown bits 0x%llx\n",
				     what, bits & ~known);
	}
}

/*
 * The causes of a TYPE3 interrupt, in DMA_INTR_ST0 and DMA_INTR_ST1 (W1C):
 * count, clear, and hand the faults to the type3 reporter.  The event
 * thread calls it for an IRQ_INFO TYPE3 record, NAPI for an interrupt on
 * the TYPE3 vector (softirq: nothing here sleeps).  Returns whether there
 * were any (DMA_INTR_ST0 is never 0 when the IP raised TYPE3).
 */
bool rclink_t3_causes(struct rclink_dev *rdev)
{
	u64 st0, st1 = 0, faults;

	/*
	 * ST0 first: a fault latched in ST1 after we cleared ST0 sets
	 * ST0.abnormal anew and so raises another TYPE3 event.  Without
	 * abnormal ST1 holds nothing: one read less per interrupt.
	 */
	st0 = rclink_rd64(rdev, RCLINK_DMA_INTR_ST0);
	if (rclink_gone(rdev))
		return false;
	if (st0)
		rclink_wr64(rdev, RCLINK_DMA_INTR_ST0, st0);
	if (st0 & RCLINK_DMA_INTR_ST0_ABNORMAL) {
		st1 = rclink_rd64(rdev, RCLINK_DMA_INTR_ST1);
		if (rclink_gone(rdev))
			return false;
		if (st1)
			rclink_wr64(rdev, RCLINK_DMA_INTR_ST1, st1);
	}

	rclink_evt_count_bits(rdev, rclink_nonr_st0_bits,
			      ARRAY_SIZE(rclink_nonr_st0_bits), st0,
			      "DMA_INTR_ST0", false);
	rclink_evt_count_bits(rdev, rclink_nonr_st1_bits,
			      ARRAY_SIZE(rclink_nonr_st1_bits), st1,
			      "DMA_INTR_ST1", true);

	/*
	 * The soft reset is the recovery of the type3 health reporter, after
	 * the faults seed 000 resets for; the bus errors (bits 2-4) it only
	 * reports: their frame is lost, counted above.
	 */
	faults = st1 & RCLINK_NONR_ST1_SOFT_RESET_MASK;
	if (faults)
		rdev->evt_ops->t3_fault(rdev, faults);
	return st0 || st1;
}

/* IRQ_INFO TYPE3 code 1 in the event ring (no vector of its own) */
static void rclink_evt_nonr(struct rclink_dev *rdev, u64 info)
{
	dev_dbg(rdev->dev, "TYPE3 interrupt: tx md tail %llu, rx md tail %llu\n",
		FIELD_GET(RCLINK_IRQ_INFO_T3_TX_TAIL, info),
		FIELD_GET(RCLINK_IRQ_INFO_T3_RX_TAIL, info));
	rclink_t3_causes(rdev);
	/* tails moved (tail up), RX MDs ran out: NAPI cleans and refills */
	rdev->evt_ops->t3_event(rdev);
}

static void rclink_evt_irq_info(struct rclink_dev *rdev, u64 info)
{
	u32 type = FIELD_GET(RCLINK_IRQ_INFO_TYPE, info);
	u32 code = FIELD_GET(RCLINK_IRQ_INFO_CODE, info);
	const struct rclink_evt_code *ec;
	u32 qpid, sub;

	ec = rclink_evt_code_find(type, code);
	if (!ec) {
		rclink_cnt_inc(rdev, RCLINK_CNT_UNKNOWN);
		dev_warn_ratelimited(rdev->dev,
				     "unknown IRQ_INFO 0x%llx (type %u code %u)\n",
				     info, type, code);
		return;
	}
	rclink_cnt_inc(rdev, ec->cnt);

	switch (type) {
	case RCLINK_IRQ_TYPE1:
		qpid = FIELD_GET(RCLINK_IRQ_INFO_T1_QPID, info);
		if (code == RCLINK_IRQ_TYPE1_RETRY_TIMEOUT) {
			dev_err_ratelimited(rdev->dev, "qp %u: TYPE1 %s: %s\n",
					    qpid, ec->name, ec->desc);
			rdev->evt_ops->qp_fatal(rdev, qpid);
		} else {
			dev_warn_ratelimited(rdev->dev,
					     "qp %u: TYPE1 %s: %s\n",
					     qpid, ec->name, ec->desc);
		}
		break;
	case RCLINK_IRQ_TYPE2:
		sub = FIELD_GET(RCLINK_IRQ_INFO_T2_SUBTYPE, info);
		dev_warn_ratelimited(rdev->dev, "TYPE2 %s (sub type %u): %s\n",
				     ec->name, sub, ec->desc);
		break;
	case RCLINK_IRQ_TYPE3:
		rclink_evt_nonr(rdev, info);
		break;
	}
}

/* RC_INTR record: INFO holds the bits newly set in INTR_STATUS (W1C) */
static void rclink_evt_rc_intr(struct rclink_dev *rdev, u64 bits)
{
	if (bits)
		rclink_wr64(rdev, RCLINK_INTR_STATUS, bits);
	rclink_evt_count_bits(rdev, rclink_rc_intr_bits,
			      ARRAY_SIZE(rclink_rc_intr_bits), bits,
			      "RC_INTR", true);
}

static void rclink_evt_selftest(struct rclink_dev *rdev, u64 info)
{
	rclink_cnt_inc(rdev, RCLINK_CNT_SELFTEST_IRQ);
	if (!rdev->evt_ops->selftest_irq(rdev, info))
		dev_dbg(rdev->dev, "self-test interrupt %llu (not armed)\n",
			info);
}

/* LINK record: SHIM_LINK.up changed, INFO bit 0 is the new state */
static void rclink_evt_link(struct rclink_dev *rdev, u64 info)
{
	rclink_cnt_inc(rdev, info & RCLINK_SHIM_LINK_UP ? RCLINK_CNT_LINK_UP :
			     RCLINK_CNT_LINK_DOWN);
	rdev->evt_ops->link(rdev);
}

/*
 * RECV_CNP (@cnp) or NOCNP record: INFO is a CC_INFO word.  Counted on the
 * QP; a record naming no QP is counted as a drop.  A RECV_CNP goes to the
 * netlink "events" group; a NOCNP (every few microseconds per QP) does not.
 */
static void rclink_evt_cc(struct rclink_dev *rdev, u64 info, bool cnp)
{
	u32 qpn = FIELD_GET(RCLINK_CC_INFO_QPID, info);
	const char *what = cnp ? "RECV_CNP" : "NOCNP";

	rclink_cnt_inc(rdev, cnp ? RCLINK_CNT_RECV_CNP : RCLINK_CNT_NOCNP);
	if (qpn >= rdev->params.qp_num) {
		rclink_cnt_inc(rdev, RCLINK_CNT_CC_DROP_NOQP);
		dev_warn_ratelimited(rdev->dev,
				     "%s record: no qp %u (QP_NUM %u)\n",
				     what, qpn, rdev->params.qp_num);
		return;
	}
	if (!rdev->evt_ops->cc_info(rdev, info, cnp)) {
		/* a QP deleted with CNPs on the way, a peer's stale QPN */
		rclink_cnt_inc(rdev, RCLINK_CNT_CC_DROP_NOQP);
		dev_dbg_ratelimited(rdev->dev,
				    "%s record: qp %u does not exist\n",
				    what, qpn);
		return;
	}
	if (cnp)
		rdev->evt_ops->qp_notify(rdev, qpn, RCLINK_CMD_QP_CNP_NTF);
}

/*
 * RETRY_TMO record (RETRY_TMO_VLD_O, RETRY_TMO_QPID_O): the retry timer of
 * a QP expired and the QP sends its unacknowledged packets again.  INFO
 * is a CC_INFO word.  Counted on the QP and sent to the netlink "events"
 * group; a record naming no QP is counted as a drop.
 */
static void rclink_evt_retry_tmo(struct rclink_dev *rdev, u64 info)
{
	u32 qpn = FIELD_GET(RCLINK_CC_INFO_QPID, info);

	rclink_cnt_inc(rdev, RCLINK_CNT_RETRY_TMO);
	if (qpn >= rdev->params.qp_num) {
		rclink_cnt_inc(rdev, RCLINK_CNT_CC_DROP_NOQP);
		dev_warn_ratelimited(rdev->dev,
				     "RETRY_TMO record: no qp %u (QP_NUM %u)\n",
				     qpn, rdev->params.qp_num);
		return;
	}
	if (!rdev->evt_ops->retry_tmo(rdev, qpn)) {
		/* a QP deleted while its timer ran out */
		rclink_cnt_inc(rdev, RCLINK_CNT_CC_DROP_NOQP);
		dev_dbg_ratelimited(rdev->dev,
				    "RETRY_TMO record: qp %u does not exist\n",
				    qpn);
		return;
	}
	rdev->evt_ops->qp_notify(rdev, qpn, RCLINK_CMD_QP_RETRY_TMO_NTF);
}

static void rclink_evt_handle(struct rclink_dev *rdev, u64 info, u64 meta)
{
	u32 source = FIELD_GET(RCLINK_EVT_META_SOURCE, meta);

	switch (source) {
	case RCLINK_EVT_SRC_IRQ_INFO:
		rclink_evt_irq_info(rdev, info);
		break;
	case RCLINK_EVT_SRC_RC_INTR:
		rclink_evt_rc_intr(rdev, info);
		break;
	case RCLINK_EVT_SRC_SELFTEST:
		rclink_evt_selftest(rdev, info);
		break;
	case RCLINK_EVT_SRC_LINK:
		rclink_evt_link(rdev, info);
		break;
	case RCLINK_EVT_SRC_RECV_ACK:
		/* an ACK/NAK with a timestamp: the RTT sample of a QP */
		rclink_cnt_inc(rdev, RCLINK_CNT_RECV_ACK);
		if (!rdev->evt_ops->recv_ack(rdev, info))
			rclink_cnt_inc(rdev, RCLINK_CNT_CC_DROP_NOQP);
		break;
	case RCLINK_EVT_SRC_RECV_CNP:
		rclink_evt_cc(rdev, info, true);
		break;
	case RCLINK_EVT_SRC_NOCNP:
		rclink_evt_cc(rdev, info, false);
		break;
	case RCLINK_EVT_SRC_RETRY_TMO:
		rclink_evt_retry_tmo(rdev, info);
		break;
	case RCLINK_EVT_SRC_CTX_CQ:
	case RCLINK_EVT_SRC_CTX_ERR:
		/* a user context's CQ event or error: its pollers */
		rdev->evt_ops->ctx_event(rdev, source, info);
		break;
	default:
		rclink_cnt_inc(rdev, RCLINK_CNT_UNKNOWN);
		dev_warn_ratelimited(rdev->dev,
				     "unknown event source %u (info 0x%llx)\n",
				     source, info);
		break;
	}
}

static size_t rclink_evt_ring_bytes(unsigned int order)
{
	return (size_t)RCLINK_EVT_RECORD_BYTES << order;
}

int rclink_evt_ring_alloc(struct rclink_dev *rdev)
{
	struct rclink_evt_ring *ring = &rdev->evt;
	unsigned int max = rdev->params.evt_ring_max_order;

	BUILD_BUG_ON(sizeof(struct rclink_evt_rec) != RCLINK_EVT_RECORD_BYTES);

	if (max < 4) {
		dev_err(rdev->dev, "event ring: SHIM_CAP3 allows order %u, need 4\n",
			max);
		return -EINVAL;
	}
	spin_lock_init(&ring->lock);
	ring->order = min(rdev->cfg.evt_ring_order, max);
	/* coherent memory is zeroed and at least page aligned */
	ring->recs = dma_alloc_coherent(rdev->dev,
					rclink_evt_ring_bytes(ring->order),
					&ring->dma, GFP_KERNEL);
	if (!ring->recs)
		return -ENOMEM;
	if (!IS_ALIGNED(ring->dma, SZ_4K)) {
		dev_err(rdev->dev, "event ring: %pad is not 4 KiB aligned\n",
			&ring->dma);
		rclink_evt_ring_free(rdev);
		return -ENOMEM;
	}
	ring->cons = 0;
	return 0;
}

void rclink_evt_ring_free(struct rclink_dev *rdev)
{
	struct rclink_evt_ring *ring = &rdev->evt;

	if (!ring->recs)
		return;
	WARN_ON(ring->enabled);
	/* gone: the disable may not have reached the board */
	rclink_dma_fence(rdev);
	dma_free_coherent(rdev->dev, rclink_evt_ring_bytes(ring->order),
			  ring->recs, ring->dma);
	ring->recs = NULL;
}

int rclink_evt_ring_enable(struct rclink_dev *rdev)
{
	struct rclink_evt_ring *ring = &rdev->evt;
	u64 ctrl;

	ring->cons = 0;
	WRITE_ONCE(ring->told, 0);
	rclink_wr64(rdev, RCLINK_SHIM_EVT_BASE, ring->dma);
	rclink_wr64(rdev, RCLINK_SHIM_EVT_CONS, 0);
	ctrl = RCLINK_SHIM_EVT_CTRL_ENABLE |
	       FIELD_PREP(RCLINK_SHIM_EVT_CTRL_ORDER, ring->order) |
	       FIELD_PREP(RCLINK_SHIM_EVT_CTRL_VECTOR, RCLINK_VEC_EVT);
	rclink_wr64(rdev, RCLINK_SHIM_EVT_CTRL, ctrl);
	ring->enabled = true;

	if (rclink_rd64(rdev, RCLINK_SHIM_EVT_CTRL) != ctrl) {
		dev_err(rdev->dev, "event ring: SHIM_EVT_CTRL did not take 0x%llx\n",
			ctrl);
		rclink_evt_ring_disable(rdev);
		return rclink_gone(rdev) ? -ENODEV : -EIO;
	}
	return 0;
}

void rclink_evt_ring_disable(struct rclink_dev *rdev)
{
	struct rclink_evt_ring *ring = &rdev->evt;

	if (!ring->enabled)
		return;
	rclink_wr64(rdev, RCLINK_SHIM_EVT_CTRL, 0);
	rclink_rd64(rdev, RCLINK_SHIM_EVT_CTRL);	/* flush */
	ring->enabled = false;
}

/* PHASE is 1 on the first pass through the ring, 0 on the second, ... */
static bool rclink_evt_phase(const struct rclink_evt_ring *ring, u32 idx)
{
	return !((idx >> ring->order) & 1);
}

static struct rclink_evt_rec *rclink_evt_rec(const struct rclink_evt_ring *ring,
					     u32 idx)
{
	return &ring->recs[idx & ((1U << ring->order) - 1)];
}

/* Whether the record at the consumer index is valid */
bool rclink_evt_pending(struct rclink_dev *rdev)
{
	const struct rclink_evt_ring *ring = &rdev->evt;
	u32 cons = READ_ONCE(ring->cons);
	u64 meta;

	if (!ring->recs)
		return false;
	meta = le64_to_cpu(READ_ONCE(rclink_evt_rec(ring, cons)->meta));
	return !!(meta & RCLINK_EVT_META_PHASE) == rclink_evt_phase(ring, cons);
}

/*
 * The record at the consumer index, when valid: its INFO and META (read
 * in that order), @ring->lock held
 */
static bool rclink_evt_peek(struct rclink_dev *rdev, u32 cons, u64 *info,
			    u64 *meta)
{
	struct rclink_evt_ring *ring = &rdev->evt;
	struct rclink_evt_rec *rec = rclink_evt_rec(ring, cons);
	u32 seq;

	lockdep_assert_held(&ring->lock);
	*meta = le64_to_cpu(READ_ONCE(rec->meta));
	if (!!(*meta & RCLINK_EVT_META_PHASE) != rclink_evt_phase(ring, cons))
		return false;
	/* read INFO only after META said the record is complete */
	dma_rmb();
	*info = le64_to_cpu(READ_ONCE(rec->info));
	seq = FIELD_GET(RCLINK_EVT_META_SEQ, *meta);
	if (seq != cons)
		dev_warn_ratelimited(rdev->dev,
				     "event ring: record %u has sequence %u\n",
				     cons, seq);
	return true;
}

/*
 * Records up to @cons consumed: tell the shim, unless it was told
 * (@ring->lock held; the thread claims records before it tells)
 */
static void rclink_evt_consumed(struct rclink_dev *rdev, u32 cons)
{
	struct rclink_evt_ring *ring = &rdev->evt;

	lockdep_assert_held(&ring->lock);
	if (cons == ring->told)
		return;
	WRITE_ONCE(ring->cons, cons);
	WRITE_ONCE(ring->told, cons);
	rclink_wr64(rdev, RCLINK_SHIM_EVT_CONS, cons);
}

static bool rclink_evt_src_fast(u64 meta)
{
	u32 source = FIELD_GET(RCLINK_EVT_META_SOURCE, meta);

	return source == RCLINK_EVT_SRC_CTX_CQ ||
	       source == RCLINK_EVT_SRC_CTX_ERR;
}

/*
 * Hard interrupt (MSI-X): the records at the head of the ring that only
 * wake a context's pollers (CTX_CQ, CTX_ERR), without the thread's wake-up
 * and two context switches per CQ event of a sleeping process.  True when
 * other records wait for the thread.
 */
bool rclink_evt_fast(struct rclink_dev *rdev)
{
	struct rclink_evt_ring *ring = &rdev->evt;
	u32 budget = 1U << ring->order;
	bool more = false;
	u32 cons, source;
	u64 info, meta;

	if (!ring->recs)
		return false;
	spin_lock(&ring->lock);
	cons = ring->cons;
	while (budget--) {
		if (!rclink_evt_peek(rdev, cons, &info, &meta))
			break;
		if (!rclink_evt_src_fast(meta)) {
			more = true;
			break;
		}
		rclink_cnt_inc(rdev, RCLINK_CNT_EVT_RECORDS);
		source = FIELD_GET(RCLINK_EVT_META_SOURCE, meta);
		rdev->evt_ops->ctx_event(rdev, source, info);
		cons++;
	}
	/* a full ring: the thread reports it */
	if (budget == U32_MAX) {
		ring->fast_full = true;
		more = true;
	}
	rclink_evt_consumed(rdev, cons);
	spin_unlock(&ring->lock);
	return more;
}

/*
 * Consume every valid record, then tell the shim (threaded irq context):
 * each record is taken under the lock and handled outside it
 */
void rclink_evt_drain(struct rclink_dev *rdev)
{
	struct rclink_evt_ring *ring = &rdev->evt;
	u32 budget = 1U << ring->order, n = 0;
	bool valid, full;
	u64 info, meta;

	if (!ring->recs)
		return;

	while (budget--) {
		spin_lock_irq(&ring->lock);
		valid = rclink_evt_peek(rdev, ring->cons, &info, &meta);
		if (valid)
			WRITE_ONCE(ring->cons, ring->cons + 1);
		spin_unlock_irq(&ring->lock);
		if (!valid)
			break;
		rclink_cnt_inc(rdev, RCLINK_CNT_EVT_RECORDS);
		rclink_evt_handle(rdev, info, meta);
		n++;
	}

	spin_lock_irq(&ring->lock);
	rclink_evt_consumed(rdev, ring->cons);
	full = ring->fast_full;
	ring->fast_full = false;
	spin_unlock_irq(&ring->lock);
	/* a full ring: the shim may have dropped records (devlink health) */
	if (full || n == 1U << ring->order)
		rdev->evt_ops->ring_full(rdev);
}
