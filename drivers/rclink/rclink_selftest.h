/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: the register, interrupt and DMA self-tests of every bring-up
 * (rclink_selftest.c).
 */
#ifndef _RCLINK_SELFTEST_H_
#define _RCLINK_SELFTEST_H_

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/types.h>

struct rclink_dev;

enum rclink_selftest_step {
	RCLINK_ST_REGISTER,
	RCLINK_ST_IRQ,
	RCLINK_ST_DMA,
	RCLINK_ST_NUM
};

enum rclink_selftest_result {
	RCLINK_ST_NOT_RUN,
	RCLINK_ST_OK,
	RCLINK_ST_FAILED,
};

/* The self-tests of every bring-up: their results, the interrupt armed */
struct rclink_selftest {
	atomic_t irq_vec;		/* vector expected next, -1 when none */
	struct completion irq_done;
	u8 result[RCLINK_ST_NUM];	/* enum rclink_selftest_result */
};

extern const char * const rclink_selftest_step_names[RCLINK_ST_NUM];
int rclink_selftest_regs(struct rclink_dev *rdev);
int rclink_selftest_irq(struct rclink_dev *rdev);
int rclink_selftest_dma(struct rclink_dev *rdev);
bool rclink_selftest_irq_seen(struct rclink_dev *rdev, u64 vec);

#endif /* _RCLINK_SELFTEST_H_ */
