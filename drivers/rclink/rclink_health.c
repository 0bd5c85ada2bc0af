// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: devlink health reporter "type3", the faults of the non-RDMA
 * (TYPE3) path.
 *
 * Reported, from a work item: the DMA_INTR_ST1 faults after which the seed
 * asks for a soft reset (bits 5..10), the bus errors (bits 2..4, which
 * halt a running path too) while the interface is up, and TX timeouts.
 * recover() is the soft reset: the path goes into reset, the rings are
 * re-initialised (TX frames in flight are dropped as tx_errors), the RX
 * ring refilled and the path restarted.  With the interface down only the
 * path is reset.  The FIFO bits are counted (rclink_events.c) and not
 * reported.
 */

#include <linux/bitfield.h>
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

static int rclink_t3_soft_reset(struct rclink_dev *rdev)
{
	rtnl_lock();
	if (!rclink_netdev_t3_reset(rdev))
		rclink_nonr_soft_reset(rdev);
	rtnl_unlock();
	if (rclink_gone(rdev))
		return -ENODEV;
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
	bool up;

	rtnl_lock();
	net = rdev->net;
	up = net && net->up;
	devlink_fmsg_bool_pair_put(fmsg, "interface_up", up);
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

	spin_lock_irq(&rdev->t3_fault_lock);
	last = rdev->t3_last_faults;
	reports = rdev->t3_fault_reports;
	spin_unlock_irq(&rdev->t3_fault_lock);
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
	devlink_fmsg_u64_pair_put(fmsg, "tx_mdq_ba",
				  rclink_rd64(rdev, RCLINK_TX_MDQ_BA));
	devlink_fmsg_u64_pair_put(fmsg, "tx_mdq_size",
				  rclink_rd64(rdev, RCLINK_TX_MDQ_SIZE));
	devlink_fmsg_u64_pair_put(fmsg, "rx_mdq_ba",
				  rclink_rd64(rdev, RCLINK_RX_MDQ_BA));
	devlink_fmsg_u64_pair_put(fmsg, "rx_mdq_size",
				  rclink_rd64(rdev, RCLINK_RX_MDQ_SIZE));
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
					       t3_fault_work);
	struct rclink_t3_ctx ctx;
	char names[160], msg[200];

	spin_lock_irq(&rdev->t3_fault_lock);
	ctx.faults = rdev->t3_pending_faults;
	ctx.tx_timeout = rdev->t3_pending_tx_timeout;
	rdev->t3_pending_faults = 0;
	rdev->t3_pending_tx_timeout = false;
	if (ctx.faults)
		rdev->t3_last_faults = ctx.faults;
	if (ctx.faults || ctx.tx_timeout)
		rdev->t3_fault_reports++;
	spin_unlock_irq(&rdev->t3_fault_lock);
	if (!ctx.faults && !ctx.tx_timeout)
		return;

	rclink_st1_names_put(names, sizeof(names), ctx.faults);
	snprintf(msg, sizeof(msg), "%s%s%s", names,
		 ctx.faults && ctx.tx_timeout ? ", " : "",
		 ctx.tx_timeout ? "TX timeout" : "");
	dev_warn_ratelimited(rdev->dev, "non-RDMA path: %s: soft reset\n",
			     msg);

	/* reports only while devlink is registered (no recovery without) */
	if (READ_ONCE(rdev->t3_report))
		devlink_health_report(rdev->t3_reporter, msg, &ctx);
	else
		rclink_t3_soft_reset(rdev);
}

/* DMA_INTR_ST1 bits 5..10 from a TYPE3 event (the event thread) */
void rclink_health_t3_fault(struct rclink_dev *rdev, u64 faults)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->t3_fault_lock, flags);
	rdev->t3_pending_faults |= faults;
	spin_unlock_irqrestore(&rdev->t3_fault_lock, flags);
	schedule_work(&rdev->t3_fault_work);
}

/* ndo_tx_timeout: the TX path stopped sending (an AXI error halts it) */
void rclink_health_t3_tx_timeout(struct rclink_dev *rdev)
{
	unsigned long flags;

	spin_lock_irqsave(&rdev->t3_fault_lock, flags);
	rdev->t3_pending_tx_timeout = true;
	spin_unlock_irqrestore(&rdev->t3_fault_lock, flags);
	schedule_work(&rdev->t3_fault_work);
}

/* Before any event can arrive */
int rclink_health_init(struct rclink_dev *rdev)
{
	struct devlink_health_reporter *rep;

	spin_lock_init(&rdev->t3_fault_lock);
	INIT_WORK(&rdev->t3_fault_work, rclink_t3_fault_work);
	rep = devlink_health_reporter_create(priv_to_devlink(rdev),
					     &rclink_t3_reporter_ops, 0, rdev);
	if (IS_ERR(rep)) {
		dev_err(rdev->dev, "cannot create the type3 health reporter: %pe\n",
			rep);
		return PTR_ERR(rep);
	}
	rdev->t3_reporter = rep;
	return 0;
}

/* devlink is registered: faults go through the reporter */
void rclink_health_start(struct rclink_dev *rdev)
{
	WRITE_ONCE(rdev->t3_report, true);
}

/* Before devlink_unregister(): a running report finishes first */
void rclink_health_stop(struct rclink_dev *rdev)
{
	WRITE_ONCE(rdev->t3_report, false);
	flush_work(&rdev->t3_fault_work);
}

/* After the last event (interrupts freed) */
void rclink_health_fini(struct rclink_dev *rdev)
{
	if (!rdev->t3_reporter)
		return;
	cancel_work_sync(&rdev->t3_fault_work);
	devlink_health_reporter_destroy(rdev->t3_reporter);
	rdev->t3_reporter = NULL;
}
