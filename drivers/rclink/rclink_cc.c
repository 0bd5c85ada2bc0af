// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the congestion-control loop of TYPE1 QPs (Documentation/
 * congestion.rst), off by default: devlink param cc_algorithm.
 *
 * "dcqcn" is DCQCN's reaction point, fed by the IP's CC interface (seed 000,
 * flow-control interface): a RECV_CNP record (a CNP that passed the CNP merge)
 * cuts the QP's rate, TX_SPEED_MEM, by alpha / 2 (the target becomes the rate
 * before the cut) and moves alpha towards 1 by g; a NOCNP record (the QP sent
 * bytes and got no CNP for a NOCNP period) moves alpha towards 0 by g and
 * raises the rate halfway to the target: for the first cc_fast_steps periods
 * after a cut (fast recovery), then with the target raised by speed / cc_ai_div
 * each period (additive increase).  The rate stays between 1/64 of the QP's
 * configured speed and the speed itself.
 *
 * The records are handled in the event thread under the QP's lock; the
 * register writes (indirect through QP_ID_SET, under qp_lock) are left to
 * a work item, which writes the newest rate of every QP that changed.
 */

#include <linux/bitfield.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/workqueue.h>

#include "rclink.h"
#include "rclink_dp.h"
#include "rclink_qp.h"
#include "rclink_nl_gen.h"

#define RCLINK_CC_ONE		1024	/* alpha = 1.0 */
#define RCLINK_CC_MIN_SHIFT	6	/* the lowest rate: speed / 64 */

const char * const rclink_cc_algo_names[RCLINK_CC_ALGO_NUM] = {
	[RCLINK_CC_ALGO_NONE] = "none",
	[RCLINK_CC_ALGO_DCQCN] = "dcqcn",
};

/* A QP at its configured speed: no congestion seen (under qp->lock) */
void rclink_cc_qp_reset(struct rclink_t1_qp_cc *cc, u32 speed)
{
	cc->line = speed;
	cc->rc = speed;
	cc->rt = speed;
	cc->alpha = RCLINK_CC_ONE;
	cc->stage = 0;
	cc->dirty = false;
}

/* The alpha gain g = 2^-shift applied to a: a(1 - g) + g * to */
static u32 rclink_cc_ewma(u32 a, u32 shift, u32 to)
{
	return a - (a >> shift) + (to >> shift);
}

/*
 * A RECV_CNP (@cnp) or NOCNP record of @qp, under qp->lock.  True when the
 * QP's rate changed and the board must be told (rclink_cc_kick()).
 */
bool rclink_cc_event(struct rclink_dev *rdev, struct rclink_t1_qp *qp,
		     bool cnp)
{
	const struct rclink_cfg *cfg = &rdev->cfg;
	struct rclink_t1_qp_cc *cc = &qp->cc;
	u32 old = cc->rc, lo, half;

	if (cfg->cc_algo != RCLINK_CC_ALGO_DCQCN || !cc->line)
		return false;
	lo = max(cc->line >> RCLINK_CC_MIN_SHIFT, 1U);
	if (cnp) {
		u32 cut = div_u64((u64)cc->rc * cc->alpha, 2 * RCLINK_CC_ONE);

		cc->rt = cc->rc;
		cc->rc = max(cc->rc - cut, lo);
		cc->alpha = rclink_cc_ewma(cc->alpha, cfg->cc_g_shift,
					   RCLINK_CC_ONE);
		cc->stage = 0;
		cc->cuts++;
	} else {
		cc->alpha = rclink_cc_ewma(cc->alpha, cfg->cc_g_shift, 0);
		if (cc->rc < cc->line) {
			if (++cc->stage > cfg->cc_fast_steps)
				cc->rt = min(cc->line,
					     cc->rt + max(cc->line /
							  cfg->cc_ai_div, 1U));
			half = DIV_ROUND_UP(cc->rc + cc->rt, 2);
			cc->rc = min(cc->line, half);
			cc->raises++;
		}
	}
	if (cc->rc == old)
		return false;
	cc->dirty = true;
	return true;
}

void rclink_cc_kick(struct rclink_dev *rdev)
{
	queue_work(system_wq, &rdev->t1.cc_work);
}

/* Write the changed rates of the ready QPs to TX_SPEED_MEM */
static void rclink_cc_work(struct work_struct *work)
{
	struct rclink_t1 *t1 = container_of(work, struct rclink_t1, cc_work);
	struct rclink_dev *rdev = container_of(t1, struct rclink_dev, t1);
	struct rclink_t1_qp *qp;
	unsigned long flags, qpn;
	bool dirty, ready;
	u32 rc;

	mutex_lock(&t1->lock);
	if (!t1->qps_up)
		goto unlock;
	xa_for_each(&t1->qps, qpn, qp) {
		spin_lock_irqsave(&qp->lock, flags);
		dirty = qp->cc.dirty;
		rc = qp->cc.rc;
		qp->cc.dirty = false;
		ready = qp->state == RCLINK_QP_STATE_READY;
		spin_unlock_irqrestore(&qp->lock, flags);
		/* a QP in recovery keeps speed 0: its re-arm resets the loop */
		if (!dirty || !ready)
			continue;
		mutex_lock(&rdev->qp_lock);
		rclink_wr64(rdev, RCLINK_QP_ID_SET,
			    FIELD_PREP(RCLINK_QP_ID_SET_QP_ID_SET, qpn));
		rclink_wr64(rdev, RCLINK_TX_SPEED_MEM,
			    FIELD_PREP(RCLINK_TX_SPEED_MEM_TX_SPEED_CFG, rc));
		mutex_unlock(&rdev->qp_lock);
	}
unlock:
	mutex_unlock(&t1->lock);
}

/* Once, at probe: a work that may still be queued is never initialised */
void rclink_cc_init(struct rclink_dev *rdev)
{
	INIT_WORK(&rdev->t1.cc_work, rclink_cc_work);
}

/*
 * After the interrupts are freed (rclink_down()): no event thread is left
 * to kick the work, so nothing queues it after this; a run finds no QP.
 */
void rclink_cc_fini(struct rclink_dev *rdev)
{
	cancel_work_sync(&rdev->t1.cc_work);
}

/* ---- the IP's per-QP records: RTT, CNPs, retry timer --------------------- */

/*
 * A timed ACK/NAK of a QP (RECV_ACK event): its round trip time.  False
 * when the QP number names no QP.
 */
bool rclink_cc_recv_ack(struct rclink_dev *rdev, u64 info)
{
	u32 qpn = FIELD_GET(RCLINK_RECV_ACK_QPID, info);
	u32 rtt = FIELD_GET(RCLINK_RECV_ACK_RTT, info);
	struct rclink_t1_qp_stats *st;
	struct rclink_t1_qp *qp;
	bool found = false;

	if (qpn >= rdev->params.qp_num)
		return false;
	rcu_read_lock();
	qp = rclink_t1_qp_lookup_rcu(rdev, qpn);
	if (qp) {
		spin_lock(&qp->lock);
		st = &qp->stats;
		if (!st->rtt_samples || rtt < st->rtt_min_us)
			st->rtt_min_us = rtt;
		if (rtt > st->rtt_max_us)
			st->rtt_max_us = rtt;
		st->rtt_last_us = rtt;
		st->rtt_samples++;
		spin_unlock(&qp->lock);
		found = true;
	}
	rcu_read_unlock();
	return found;
}

/*
 * A CC_INFO word of a QP (RECV_CNP event when @cnp, else NOCNP): its
 * counters.  False when the QP number names no QP.
 */
bool rclink_cc_info(struct rclink_dev *rdev, u64 info, bool cnp)
{
	u32 qpn = FIELD_GET(RCLINK_CC_INFO_QPID, info);
	u32 bytes = FIELD_GET(RCLINK_CC_INFO_BYTE_CNT, info);
	struct rclink_t1_qp_stats *st;
	struct rclink_t1_qp *qp;
	bool found = false, kick = false;

	rcu_read_lock();
	qp = rclink_t1_qp_lookup_rcu(rdev, qpn);
	if (qp) {
		spin_lock(&qp->lock);
		st = &qp->stats;
		if (cnp) {
			st->cnp++;
		} else {
			st->nocnp_reports++;
			st->nocnp_bytes += bytes;
		}
		kick = rclink_cc_event(rdev, qp, cnp);
		spin_unlock(&qp->lock);
		found = true;
	}
	/* inside the section: a teardown that found the QP gone waits */
	if (kick)
		rclink_cc_kick(rdev);
	rcu_read_unlock();
	return found;
}

/* A RETRY_TMO record of QP @qpn.  False when the number names no QP. */
bool rclink_cc_retry_tmo(struct rclink_dev *rdev, u32 qpn)
{
	struct rclink_t1_qp *qp;
	bool found = false;

	rcu_read_lock();
	qp = rclink_t1_qp_lookup_rcu(rdev, qpn);
	if (qp) {
		spin_lock(&qp->lock);
		qp->stats.retry_tmo++;
		spin_unlock(&qp->lock);
		found = true;
	}
	rcu_read_unlock();
	return found;
}
