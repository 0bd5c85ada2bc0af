/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: interrupt vectors and their handlers (rclink_irq.c).  The
 * handlers hand what they see to the consumers the board core names in
 * struct rclink_evt_ops (rclink_events.h).
 */
#ifndef _RCLINK_IRQ_H_
#define _RCLINK_IRQ_H_

#include <linux/types.h>

struct rclink_dev;

enum rclink_irq_mode {
	RCLINK_IRQ_NONE,
	RCLINK_IRQ_MSIX,
	RCLINK_IRQ_MSI,
	RCLINK_IRQ_INTX,
};

/* Vector plan (shim.rst): 0 event ring, 1 TYPE1 CQ, 2 TYPE3, 3.. reserved */
#define RCLINK_VEC_EVT		0
#define RCLINK_VEC_CQ		1
#define RCLINK_VEC_T3		2

struct rclink_vec {
	struct rclink_dev *rdev;
	unsigned int idx;
	int irq;
	bool requested;
	char name[32];
};

int rclink_irq_alloc_vectors(struct rclink_dev *rdev);
void rclink_irq_free_vectors(struct rclink_dev *rdev);
int rclink_irq_request(struct rclink_dev *rdev);
void rclink_irq_free(struct rclink_dev *rdev);
const char *rclink_irq_mode_name(enum rclink_irq_mode mode);
void rclink_irq_sync(struct rclink_dev *rdev);
bool rclink_irq_cq_shared(struct rclink_dev *rdev);
bool rclink_irq_t3_own(struct rclink_dev *rdev);

#endif /* _RCLINK_IRQ_H_ */
