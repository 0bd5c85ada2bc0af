// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: TYPE1 queue pairs.  For now the recovery of a QP that went fatal
 * because its retries ran out (seed 000, "TX retry times over"); the per-QP
 * registers are indirect through QP_ID_SET, so every access takes qp_lock.
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/iopoll.h>
#include <linux/slab.h>

#include "rclink.h"

#define RCLINK_QP_POLL_US		10
#define RCLINK_QP_FREE_BUSY_TIMEOUT_US	(100 * USEC_PER_MSEC)
#define RCLINK_QP_FREE_BUF_TIMEOUT_US	(100 * USEC_PER_MSEC)

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

static void rclink_qp_recover(struct rclink_dev *rdev, u32 qpid)
{
	const char *step = "selecting the QP";
	u32 psn = 0;
	int err;

	rclink_cnt_inc(rdev, RCLINK_CNT_QP_FATAL);

	mutex_lock(&rdev->qp_lock);
	err = rclink_qp_recover_locked(rdev, qpid, &psn, &step);
	mutex_unlock(&rdev->qp_lock);
	if (rclink_gone(rdev))
		err = -ENODEV;

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

int rclink_qp_init(struct rclink_dev *rdev)
{
	mutex_init(&rdev->qp_lock);
	INIT_WORK(&rdev->qp_fatal_work, rclink_qp_fatal_work);
	rdev->qp_fatal_pending = bitmap_zalloc(max(rdev->params.qp_num, 1U),
					       GFP_KERNEL);
	if (!rdev->qp_fatal_pending) {
		mutex_destroy(&rdev->qp_lock);
		return -ENOMEM;
	}
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
	mutex_destroy(&rdev->qp_lock);
}
