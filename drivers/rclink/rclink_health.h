/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: the devlink health reporters "type3" (TYPE3 faults), "type1"
 * (fatal QPs) and "events" (event ring overflow), rclink_health.c.
 */
#ifndef _RCLINK_HEALTH_H_
#define _RCLINK_HEALTH_H_

#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct devlink_health_reporter;
struct rclink_dev;

/* The board's devlink health reporters and what they have to report */
struct rclink_health {
	struct devlink_health_reporter *t1;
	struct devlink_health_reporter *evt;
	struct devlink_health_reporter *t3;
	spinlock_t lock;		/* the fields below */
	u32 t1_last_qpn;		/* the last QP that went fatal */
	u32 t1_last_psn;
	int t1_last_err;		/* its recovery: 0 or -errno */
	u64 t1_reports;
	u32 evt_drops_reported;		/* SHIM_EVT_DROPS at the last report */
	u64 evt_reports;
	bool t1_pending;		/* a "type1" report to make */
	bool evt_pending;		/* SHIM_EVT_DROPS to look at */
	bool registered;		/* devlink registered: report */
	bool up;			/* the board is up: report TYPE3 */
	struct work_struct report_work;	/* makes both reports */

	/* "type3": TYPE3 faults and transmit timeouts */
	struct work_struct t3_work;	/* makes its reports */
	spinlock_t t3_lock;		/* the pending and last faults */
	u64 t3_pending_faults;		/* DMA_INTR_ST1 bits to report */
	bool t3_pending_tx_timeout;
	u64 t3_last_faults;		/* bits of the last report */
	u64 t3_fault_reports;
};

/*
 * What the "type3" reporter asks of the TYPE3 netdev above it; the board
 * core names them (rclink_main.c)
 */
struct rclink_health_ops {
	bool (*t3_present)(struct rclink_dev *rdev);	/* netdev attached */
	bool (*t3_reset)(struct rclink_dev *rdev);	/* its soft reset */
};

int rclink_health_create(struct rclink_dev *rdev);
void rclink_health_destroy(struct rclink_dev *rdev);
void rclink_health_t1_fatal(struct rclink_dev *rdev, u32 qpn, u32 psn,
			    int err);
void rclink_health_evt_ring_full(struct rclink_dev *rdev);
int rclink_health_init(struct rclink_dev *rdev);
void rclink_health_start(struct rclink_dev *rdev);
void rclink_health_stop(struct rclink_dev *rdev);
void rclink_health_fini(struct rclink_dev *rdev);
void rclink_health_t3_fault(struct rclink_dev *rdev, u64 faults);
void rclink_health_t3_tx_timeout(struct rclink_dev *rdev);

#endif /* _RCLINK_HEALTH_H_ */
