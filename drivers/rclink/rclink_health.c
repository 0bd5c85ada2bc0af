// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: devlink health reporters.  They live as long as the devlink
 * instance (created after devlink_alloc(), destroyed before devlink_free()),
 * so they survive a board going down and up (reload, PCI reset); reports
 * are made from work items that nothing flushes under the devlink instance
 * lock (devlink_health_report() takes it).
 *
 * "type3": the faults of the non-RDMA (TYPE3) path.
 *
 * Reported, from a work item: the DMA_INTR_ST1 faults after which the seed
 * asks for a soft reset (bits 5..10), the bus errors (bits 2..4, which
 * halt a running path too) while the interface is up, and TX timeouts.
 * recover() is the soft reset: the path goes into reset, the rings are
 * re-initialised (TX frames in flight are dropped as tx_errors), the RX
 * ring refilled and the path restarted.  With the interface down only the
 * path is reset.  The FIFO bits are counted (rclink_events.c) and not
 * reported.
 *
 * "type1": a TYPE1 QP went fatal (retries over, seed 000): the driver's
 * recovery quiesced it (rclink_qp.c) and the QP waits to be re-armed by
 * `rclink qp set ... state ready`.  recover() reports the outcome of that
 * recovery: healthy when it succeeded, the error when it did not.
 *
 * "events": the event ring overflowed; the shim dropped records and
 * counted them in SHIM_EVT_DROPS.  Seen when a drain consumes a full ring;
 * the drops are reported once each.  Nothing to reset: recover() checks
 * that the ring is enabled and the consumer index is the driver's.
 */

#include <linux/bitfield.h>
#include <linux/log2.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/devlink.h>

#include "rclink_compat.h"
#include "rclink_netdev.h"

#define RCLINK_ST1_NAME(bit, name, ...) \
	[bit] = #name,
static const char * const rclink_st1_names[] = {
	RCLINK_NONR_ST1_BITS(RCLINK_ST1_NAME)
};

struct rclink_t3_ctx {
	u64 faults;		/* DMA_INTR_ST1 bits */
	bool tx_timeout;
};

/* "tx_two_sop rx_oversize" */
static void rclink_st1_names_put(char *buf, size_t len, u64 faults)
{
	unsigned int bit;
	size_t n = 0;

	buf[0] = '\0';
	for (bit = 0; bit < ARRAY_SIZE(rclink_st1_names) && n < len; bit++) {
		if (!(faults & BIT_ULL(bit)) || !rclink_st1_names[bit])
			continue;
		n += scnprintf(buf + n, len - n, "%s%s", n ? " " : "",
			       rclink_st1_names[bit]);
	}
}

/* Soft reset of the bare path: into reset and back, enables kept */
static void rclink_nonr_soft_reset(struct rclink_dev *rdev)
{
	u64 ctrl;

	ctrl = rclink_rd64(rdev, RCLINK_NONR_DMA_CTRL);
	rclink_wr64(rdev, RCLINK_NONR_DMA_CTRL,
		    ctrl & ~(RCLINK_NONR_DMA_CTRL_TX_RESET |
			     RCLINK_NONR_DMA_CTRL_RX_RESET));
	rclink_rd64(rdev, RCLINK_NONR_DMA_CTRL);	/* flush */
	rclink_wr64(rdev, RCLINK_NONR_DMA_CTRL, ctrl);
}

/*
 * Nothing to do for a board that is down: its reset and the netdev's
 * attach start the path anew.  Up and down change the netdev's presence
 * under rtnl, which this holds.
 */
static int rclink_t3_soft_reset(struct rclink_dev *rdev)
{
	bool done = false;

	rtnl_lock();
	if (rdev->health_ops->t3_present(rdev)) {
		if (!rdev->health_ops->t3_reset(rdev))
			rclink_nonr_soft_reset(rdev);
		done = true;
	}
	rtnl_unlock();
	if (rclink_gone(rdev))
		return -ENODEV;
	if (done)
		rclink_cnt_inc(rdev, RCLINK_CNT_NONR_SOFT_RESET);
	return 0;
}

static int rclink_t3_recover(struct devlink_health_reporter *reporter,
			     void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	int err;

	err = rclink_t3_soft_reset(rdev);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "device gone");
	return err;
}

static void rclink_t3_ring_put(struct devlink_fmsg *fmsg, const char *name,
			       u32 size, u32 head, u32 ntc, u64 hw_head,
			       u64 hw_tail, const struct rclink_md *md)
{
	devlink_fmsg_pair_nest_start(fmsg, name);
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "size", size);
	devlink_fmsg_u32_pair_put(fmsg, "head", head);
	devlink_fmsg_u32_pair_put(fmsg, "cleaned", ntc);
	devlink_fmsg_u64_pair_put(fmsg, "hw_head", hw_head);
	devlink_fmsg_u64_pair_put(fmsg, "hw_tail", hw_tail);
	if (md && hw_tail < size) {
		devlink_fmsg_u64_pair_put(fmsg, "tail_md_ctrl",
					  le64_to_cpu(md[hw_tail].ctrl));
		devlink_fmsg_u64_pair_put(fmsg, "tail_md_addr",
					  le64_to_cpu(md[hw_tail].addr));
	}
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

/* Both rings: software and hardware pointers; @mds: the MDs at the tails */
static void rclink_t3_rings_put(struct rclink_dev *rdev,
				struct devlink_fmsg *fmsg, bool mds)
{
	u64 tx_head, tx_tail, rx_head, rx_tail;
	struct rclink_net *net;
	bool up, board_up;

	rtnl_lock();
	net = rdev->net;
	up = net && net->up;
	devlink_fmsg_bool_pair_put(fmsg, "interface_up", up);
	/* no register access while the board is down (rtnl held) */
	board_up = rdev->health_ops->t3_present(rdev);
	devlink_fmsg_bool_pair_put(fmsg, "board_up", board_up);
	if (!board_up) {
		rtnl_unlock();
		return;
	}
	devlink_fmsg_u64_pair_put(fmsg, "nonr_dma_ctrl",
				  rclink_rd64(rdev, RCLINK_NONR_DMA_CTRL));
	devlink_fmsg_u64_pair_put(fmsg, "dma_intr_st0",
				  rclink_rd64(rdev, RCLINK_DMA_INTR_ST0));
	devlink_fmsg_u64_pair_put(fmsg, "dma_intr_st1",
				  rclink_rd64(rdev, RCLINK_DMA_INTR_ST1));
	devlink_fmsg_u64_pair_put(fmsg, "tail_up_cfg",
				  rclink_rd64(rdev, RCLINK_TAIL_UP_CFG));
	tx_head = FIELD_GET(RCLINK_TX_MD_HEAD_PTR_HEAD,
			    rclink_rd64(rdev, RCLINK_TX_MD_HEAD_PTR));
	tx_tail = FIELD_GET(RCLINK_TX_MD_TAIL_PTR_TAIL,
			    rclink_rd64(rdev, RCLINK_TX_MD_TAIL_PTR));
	rx_head = FIELD_GET(RCLINK_RX_MD_HEAD_PTR_HEAD,
			    rclink_rd64(rdev, RCLINK_RX_MD_HEAD_PTR));
	rx_tail = FIELD_GET(RCLINK_RX_MD_TAIL_PTR_TAIL,
			    rclink_rd64(rdev, RCLINK_RX_MD_TAIL_PTR));
	if (up) {
		rclink_t3_ring_put(fmsg, "tx", net->tx.size, net->tx.head,
				   net->tx.ntc, tx_head, tx_tail,
				   mds ? net->tx.md : NULL);
		rclink_t3_ring_put(fmsg, "rx", net->rx.size, net->rx.head,
				   net->rx.ntc, rx_head, rx_tail,
				   mds ? net->rx.md : NULL);
	} else {
		rclink_t3_ring_put(fmsg, "tx", net ? net->tx_size : 0, 0, 0,
				   tx_head, tx_tail, NULL);
		rclink_t3_ring_put(fmsg, "rx", net ? net->rx_size : 0, 0, 0,
				   rx_head, rx_tail, NULL);
	}
	rtnl_unlock();
}

static int rclink_t3_diagnose(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg,
			      struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	u64 last, reports;
	char names[160];

	spin_lock_irq(&rdev->health.t3_lock);
	last = rdev->health.t3_last_faults;
	reports = rdev->health.t3_fault_reports;
	spin_unlock_irq(&rdev->health.t3_lock);
	rclink_st1_names_put(names, sizeof(names), last);

	devlink_fmsg_u64_pair_put(fmsg, "last_faults", last);
	devlink_fmsg_string_pair_put(fmsg, "last_fault_names", names);
	devlink_fmsg_u64_pair_put(fmsg, "reports", reports);
	devlink_fmsg_u64_pair_put(fmsg, "soft_resets",
				  rclink_cnt_read(rdev,
						  RCLINK_CNT_NONR_SOFT_RESET));
	rclink_t3_rings_put(rdev, fmsg, false);
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static int rclink_t3_dump(struct devlink_health_reporter *reporter,
			  struct devlink_fmsg *fmsg, void *priv_ctx,
			  struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	struct rclink_t3_ctx *ctx = priv_ctx;

	if (ctx) {
		devlink_fmsg_u64_pair_put(fmsg, "faults", ctx->faults);
		devlink_fmsg_bool_pair_put(fmsg, "tx_timeout",
					   ctx->tx_timeout);
	}
	if (!rclink_is_up(rdev))
		goto rings;
	devlink_fmsg_u64_pair_put(fmsg, "tx_mdq_ba",
				  rclink_rd64(rdev, RCLINK_TX_MDQ_BA));
	devlink_fmsg_u64_pair_put(fmsg, "tx_mdq_size",
				  rclink_rd64(rdev, RCLINK_TX_MDQ_SIZE));
	devlink_fmsg_u64_pair_put(fmsg, "rx_mdq_ba",
				  rclink_rd64(rdev, RCLINK_RX_MDQ_BA));
	devlink_fmsg_u64_pair_put(fmsg, "rx_mdq_size",
				  rclink_rd64(rdev, RCLINK_RX_MDQ_SIZE));
rings:
	rclink_t3_rings_put(rdev, fmsg, true);
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static const struct devlink_health_reporter_ops rclink_t3_reporter_ops = {
	.name = "type3",
	.recover = rclink_t3_recover,
	.diagnose = rclink_t3_diagnose,
	.dump = rclink_t3_dump,
};

static void rclink_t3_fault_work(struct work_struct *work)
{
	struct rclink_dev *rdev = container_of(work, struct rclink_dev,
					       health.t3_work);
	struct rclink_t3_ctx ctx;
	char names[160], msg[200];

	spin_lock_irq(&rdev->health.t3_lock);
	ctx.faults = rdev->health.t3_pending_faults;
	ctx.tx_timeout = rdev->health.t3_pending_tx_timeout;
	rdev->health.t3_pending_faults = 0;
	rdev->health.t3_pending_tx_timeout = false;
	if (ctx.faults)
		rdev->health.t3_last_faults = ctx.faults;
	if (ctx.faults || ctx.tx_timeout)
		rdev->health.t3_fault_reports++;
	spin_unlock_irq(&rdev->health.t3_lock);
	if (!ctx.faults && !ctx.tx_timeout)
		return;

	rclink_st1_names_put(names, sizeof(names), ctx.faults);
	snprintf(msg, sizeof(msg), "%s%s%s", names,
		 ctx.faults && ctx.tx_timeout ? ", " : "",
		 ctx.tx_timeout ? "TX timeout" : "");
	dev_warn_ratelimited(rdev->dev, "non-RDMA path: %s: soft reset\n",
			     msg);

	/* reports only while devlink is registered (no recovery without) */
	if (READ_ONCE(rdev->health.up) && READ_ONCE(rdev->health.registered))
		devlink_health_report(rdev->health.t3, msg, &ctx);
	else
		rclink_t3_soft_reset(rdev);
}

/* DMA_INTR_ST1 bits 5..10 from a TYPE3 event (the event thread) */
void rclink_health_t3_fault(struct rclink_dev *rdev, u64 faults)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->health.t3_lock, flags);
	rdev->health.t3_pending_faults |= faults;
	spin_unlock_irqrestore(&rdev->health.t3_lock, flags);
	schedule_work(&rdev->health.t3_work);
}

/* ndo_tx_timeout: the TX path stopped sending (an AXI error halts it) */
void rclink_health_t3_tx_timeout(struct rclink_dev *rdev)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->health.t3_lock, flags);
	rdev->health.t3_pending_tx_timeout = true;
	spin_unlock_irqrestore(&rdev->health.t3_lock, flags);
	schedule_work(&rdev->health.t3_work);
}

/* ---- "type1" ------------------------------------------------------------- */

struct rclink_t1_ctx {
	u32 qpn;
	u32 psn;
	int err;
};

static int rclink_t1_recover(struct devlink_health_reporter *reporter,
			     void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	struct rclink_t1_ctx *ctx = priv_ctx;
	int err;

	if (ctx) {
		err = ctx->err;
	} else {
		spin_lock_irq(&rdev->health.lock);
		err = rdev->health.t1_last_err;
		spin_unlock_irq(&rdev->health.lock);
	}
	if (err)
		NL_SET_ERR_MSG_MOD(extack,
				   "the QP recovery failed: unbind and bind the driver or reload");
	return err;
}

static void rclink_t1_counters_put(struct rclink_dev *rdev,
				   struct devlink_fmsg *fmsg)
{
	u64 fatal = rclink_cnt_read(rdev, RCLINK_CNT_QP_FATAL);
	u64 ok = rclink_cnt_read(rdev, RCLINK_CNT_QP_RECOVERED);
	u64 failed = rclink_cnt_read(rdev, RCLINK_CNT_QP_RECOVERY_FAILED);

	devlink_fmsg_u64_pair_put(fmsg, "qp_fatal", fatal);
	devlink_fmsg_u64_pair_put(fmsg, "qp_recovered", ok);
	devlink_fmsg_u64_pair_put(fmsg, "qp_recovery_failed", failed);
}

static int rclink_t1_diagnose(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg,
			      struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	struct rclink_t1_ctx last;
	u64 reports;

	spin_lock_irq(&rdev->health.lock);
	last.qpn = rdev->health.t1_last_qpn;
	last.psn = rdev->health.t1_last_psn;
	last.err = rdev->health.t1_last_err;
	reports = rdev->health.t1_reports;
	spin_unlock_irq(&rdev->health.lock);

	devlink_fmsg_u64_pair_put(fmsg, "reports", reports);
	if (reports) {
		devlink_fmsg_u32_pair_put(fmsg, "last_qpn", last.qpn);
		devlink_fmsg_u32_pair_put(fmsg, "last_psn", last.psn);
		devlink_fmsg_string_pair_put(fmsg, "last_recovery",
					     last.err ? "failed" : "ok");
	}
	rclink_t1_counters_put(rdev, fmsg);
	devlink_fmsg_u64_pair_put(fmsg, "xon_thr_rdma",
				  rclink_rd64(rdev, RCLINK_XON_THR_RDMA));
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static int rclink_t1_dump(struct devlink_health_reporter *reporter,
			  struct devlink_fmsg *fmsg, void *priv_ctx,
			  struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	struct rclink_t1_ctx *ctx = priv_ctx;

	if (ctx) {
		devlink_fmsg_u32_pair_put(fmsg, "qpn", ctx->qpn);
		devlink_fmsg_u32_pair_put(fmsg, "psn", ctx->psn);
		devlink_fmsg_u32_pair_put(fmsg, "recovery_err", -ctx->err);
	}
	rclink_t1_counters_put(rdev, fmsg);
	devlink_fmsg_u64_pair_put(fmsg, "xon_thr_rdma",
				  rclink_rd64(rdev, RCLINK_XON_THR_RDMA));
	devlink_fmsg_u64_pair_put(fmsg, "intr_status",
				  rclink_rd64(rdev, RCLINK_INTR_STATUS));
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static const struct devlink_health_reporter_ops rclink_t1_reporter_ops = {
	.name = "type1",
	.recover = rclink_t1_recover,
	.diagnose = rclink_t1_diagnose,
	.dump = rclink_t1_dump,
};

/* A QP went fatal; its recovery ended with @err (rclink_qp.c, a work) */
void rclink_health_t1_fatal(struct rclink_dev *rdev, u32 qpn, u32 psn,
			    int err)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->health.lock, flags);
	rdev->health.t1_last_qpn = qpn;
	rdev->health.t1_last_psn = psn;
	rdev->health.t1_last_err = err;
	rdev->health.t1_pending = true;
	spin_unlock_irqrestore(&rdev->health.lock, flags);
	schedule_work(&rdev->health.report_work);
}

/* ---- "events" ------------------------------------------------------------ */

struct rclink_evt_ctx {
	u32 drops;		/* SHIM_EVT_DROPS */
	u32 new_drops;		/* since the last report */
};

static int rclink_evt_check(struct rclink_dev *rdev,
			    struct netlink_ext_ack *extack)
{
	u64 ctrl, cons;

	ctrl = rclink_rd64(rdev, RCLINK_SHIM_EVT_CTRL);
	cons = rclink_rd64(rdev, RCLINK_SHIM_EVT_CONS);
	if (rclink_gone(rdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device gone");
		return -ENODEV;
	}
	if (!rclink_is_up(rdev))
		return 0;
	if (!(ctrl & RCLINK_SHIM_EVT_CTRL_ENABLE)) {
		NL_SET_ERR_MSG_MOD(extack, "the event ring is disabled");
		return -EIO;
	}
	/* what the driver last wrote (records it handles may follow) */
	if ((u32)cons != READ_ONCE(rdev->evt.told)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "SHIM_EVT_CONS is not the driver's consumer index");
		return -EIO;
	}
	return 0;
}

static int rclink_evt_recover(struct devlink_health_reporter *reporter,
			      void *priv_ctx, struct netlink_ext_ack *extack)
{
	return rclink_evt_check(devlink_health_reporter_priv(reporter),
				extack);
}

static void rclink_evt_ring_put(struct rclink_dev *rdev,
				struct devlink_fmsg *fmsg)
{
	u64 dropped = rclink_cnt_read(rdev, RCLINK_CNT_EVT_DROPPED);
	u64 records = rclink_cnt_read(rdev, RCLINK_CNT_EVT_RECORDS);
	u32 order = READ_ONCE(rdev->evt.order);

	devlink_fmsg_bool_pair_put(fmsg, "up", rclink_is_up(rdev));
	devlink_fmsg_u32_pair_put(fmsg, "size", 1U << order);
	devlink_fmsg_u32_pair_put(fmsg, "cons", READ_ONCE(rdev->evt.cons));
	devlink_fmsg_u64_pair_put(fmsg, "shim_evt_ctrl",
				  rclink_rd64(rdev, RCLINK_SHIM_EVT_CTRL));
	devlink_fmsg_u64_pair_put(fmsg, "shim_evt_prod",
				  rclink_rd64(rdev, RCLINK_SHIM_EVT_PROD));
	devlink_fmsg_u64_pair_put(fmsg, "shim_evt_cons",
				  rclink_rd64(rdev, RCLINK_SHIM_EVT_CONS));
	devlink_fmsg_u64_pair_put(fmsg, "dropped", dropped);
	devlink_fmsg_u64_pair_put(fmsg, "records", records);
}

/*
 * The board's event counters (every one ethtool -S of the netdev does not
 * show: TYPE1, TYPE2, RC_INTR, the event ring, QP recovery, CC records)
 */
static void rclink_evt_counters_put(struct rclink_dev *rdev,
				    struct devlink_fmsg *fmsg)
{
	unsigned int i;

	devlink_fmsg_pair_nest_start(fmsg, "counters");
	devlink_fmsg_obj_nest_start(fmsg);
	for (i = 0; i < RCLINK_CNT_NUM; i++)
		if (!rclink_cnt_netdev(i))
			devlink_fmsg_u64_pair_put(fmsg, rclink_cnt_names[i],
						  rclink_cnt_read(rdev, i));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

static int rclink_evt_diagnose(struct devlink_health_reporter *reporter,
			       struct devlink_fmsg *fmsg,
			       struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	u64 reports;

	spin_lock_irq(&rdev->health.lock);
	reports = rdev->health.evt_reports;
	spin_unlock_irq(&rdev->health.lock);
	devlink_fmsg_u64_pair_put(fmsg, "reports", reports);
	rclink_evt_ring_put(rdev, fmsg);
	rclink_evt_counters_put(rdev, fmsg);
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static int rclink_evt_dump(struct devlink_health_reporter *reporter,
			   struct devlink_fmsg *fmsg, void *priv_ctx,
			   struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_health_reporter_priv(reporter);
	struct rclink_evt_ctx *ctx = priv_ctx;

	if (ctx) {
		devlink_fmsg_u32_pair_put(fmsg, "drops", ctx->drops);
		devlink_fmsg_u32_pair_put(fmsg, "new_drops", ctx->new_drops);
	}
	rclink_evt_ring_put(rdev, fmsg);
	devlink_fmsg_u64_pair_put(fmsg, "shim_evt_base",
				  rclink_rd64(rdev, RCLINK_SHIM_EVT_BASE));
	return rclink_gone(rdev) ? -ENODEV : 0;
}

static const struct devlink_health_reporter_ops rclink_evt_reporter_ops = {
	.name = "events",
	.recover = rclink_evt_recover,
	.diagnose = rclink_evt_diagnose,
	.dump = rclink_evt_dump,
};

/* A drain consumed a whole ring (the event thread): look for drops */
void rclink_health_evt_ring_full(struct rclink_dev *rdev)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->health.lock, flags);
	rdev->health.evt_pending = true;
	spin_unlock_irqrestore(&rdev->health.lock, flags);
	schedule_work(&rdev->health.report_work);
}

/* ---- reports ------------------------------------------------------------- */

static void rclink_health_report_work(struct work_struct *work)
{
	struct rclink_dev *rdev = container_of(work, struct rclink_dev,
					       health.report_work);
	struct rclink_health *h = &rdev->health;
	struct rclink_t1_ctx t1 = {};
	struct rclink_evt_ctx evt = {};
	bool t1_pending, evt_pending;
	char msg[80];
	u64 drops;

	spin_lock_irq(&h->lock);
	t1_pending = h->t1_pending;
	evt_pending = h->evt_pending;
	h->t1_pending = false;
	h->evt_pending = false;
	if (t1_pending) {
		t1.qpn = h->t1_last_qpn;
		t1.psn = h->t1_last_psn;
		t1.err = h->t1_last_err;
		h->t1_reports++;
	}
	spin_unlock_irq(&h->lock);

	if (!READ_ONCE(h->registered))
		return;
	if (t1_pending) {
		snprintf(msg, sizeof(msg), "qp %u fatal: retry times over%s",
			 t1.qpn, t1.err ? ", recovery failed" : "");
		devlink_health_report(h->t1, msg, &t1);
	}

	/* a board that went down has a new ring, its drops counted anew */
	if (!evt_pending || !rclink_is_up(rdev))
		return;
	drops = rclink_cnt_read(rdev, RCLINK_CNT_EVT_DROPPED);
	if (rclink_gone(rdev))
		return;
	spin_lock_irq(&h->lock);
	evt.drops = drops;
	evt.new_drops = evt.drops - h->evt_drops_reported;
	h->evt_drops_reported = evt.drops;
	if (evt.new_drops)
		h->evt_reports++;
	spin_unlock_irq(&h->lock);
	if (!evt.new_drops)
		return;
	dev_warn_ratelimited(rdev->dev,
			     "event ring overflow: %u event records dropped\n",
			     evt.new_drops);
	snprintf(msg, sizeof(msg), "event ring overflow: %u records dropped",
		 evt.new_drops);
	devlink_health_report(h->evt, msg, &evt);
}

/* ---- life cycle ---------------------------------------------------------- */

static struct devlink_health_reporter *
rclink_reporter_create(struct rclink_dev *rdev,
		       const struct devlink_health_reporter_ops *ops)
{
	struct devlink_health_reporter *rep;

	rep = devlink_health_reporter_create(priv_to_devlink(rdev), ops, 0,
					     rdev);
	if (IS_ERR(rep))
		pr_err("%s: cannot create the %s health reporter: %pe\n",
		       KBUILD_MODNAME, ops->name, rep);
	return rep;
}

/* After devlink_alloc(): the reporters, for the life of the instance */
int rclink_health_create(struct rclink_dev *rdev)
{
	struct devlink_health_reporter *rep;

	spin_lock_init(&rdev->health.t3_lock);
	INIT_WORK(&rdev->health.t3_work, rclink_t3_fault_work);
	spin_lock_init(&rdev->health.lock);
	INIT_WORK(&rdev->health.report_work, rclink_health_report_work);

	rep = rclink_reporter_create(rdev, &rclink_t3_reporter_ops);
	if (IS_ERR(rep))
		goto err;
	rdev->health.t3 = rep;
	rep = rclink_reporter_create(rdev, &rclink_t1_reporter_ops);
	if (IS_ERR(rep))
		goto err;
	rdev->health.t1 = rep;
	rep = rclink_reporter_create(rdev, &rclink_evt_reporter_ops);
	if (IS_ERR(rep))
		goto err;
	rdev->health.evt = rep;
	return 0;

err:
	rclink_health_destroy(rdev);
	return PTR_ERR(rep);
}

/* Before devlink_free(), with devlink unregistered */
void rclink_health_destroy(struct rclink_dev *rdev)
{
	cancel_work_sync(&rdev->health.t3_work);
	cancel_work_sync(&rdev->health.report_work);
	if (rdev->health.evt)
		devlink_health_reporter_destroy(rdev->health.evt);
	if (rdev->health.t1)
		devlink_health_reporter_destroy(rdev->health.t1);
	if (rdev->health.t3)
		devlink_health_reporter_destroy(rdev->health.t3);
	rdev->health.evt = NULL;
	rdev->health.t1 = NULL;
	rdev->health.t3 = NULL;
}

/* The board comes up (a shim reset cleared SHIM_EVT_DROPS) */
int rclink_health_init(struct rclink_dev *rdev)
{
	spin_lock_irq(&rdev->health.lock);
	rdev->health.evt_drops_reported = 0;
	spin_unlock_irq(&rdev->health.lock);
	return 0;
}

/* The board is up: TYPE3 faults go through the reporter */
void rclink_health_start(struct rclink_dev *rdev)
{
	WRITE_ONCE(rdev->health.up, true);
}

/*
 * The board goes down.  The work items are not waited for here: this may
 * run under the devlink instance lock (reload), which a report takes; they
 * cope with a board that is down and are cancelled in
 * rclink_health_destroy().
 */
void rclink_health_stop(struct rclink_dev *rdev)
{
	WRITE_ONCE(rdev->health.up, false);
}

void rclink_health_fini(struct rclink_dev *rdev)
{
}
