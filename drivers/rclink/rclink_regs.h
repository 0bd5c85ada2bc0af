/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: the lowest layer, access to the board's BAR0.
 *
 * It knows nothing of the driver above it: the board core (rclink.h)
 * embeds a struct rclink_regs, maps BAR0 into it and names the work that
 * runs when the board leaves the bus.  Every register access of the driver
 * goes through here, so that once a read says the board is gone (all
 * ones, and SHIM_ID all ones too), no access reaches the bus any more.
 */
#ifndef _RCLINK_REGS_H_
#define _RCLINK_REGS_H_

#include <linux/bitops.h>
#include <linux/compiler.h>
#include <linux/io.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct pci_dev;

/* rclink_regs.gone */
#define RCLINK_REGS_GONE	0

struct rclink_regs {
	void __iomem *bar0;
	struct pci_dev *pdev;
	unsigned long gone;		/* RCLINK_REGS_GONE: no access */
	struct delayed_work gone_work;	/* the owner's; queued when gone */
};

void rclink_regs_init(struct rclink_regs *regs, struct pci_dev *pdev,
		      work_func_t gone_fn);
int rclink_regs_map(struct rclink_regs *regs);
void rclink_regs_mark_gone(struct rclink_regs *regs);
void rclink_regs_block(struct rclink_regs *regs);
void rclink_regs_revive(struct rclink_regs *regs);
bool rclink_regs_answers(struct rclink_regs *regs);
void rclink_regs_dma_fence(struct rclink_regs *regs);
u64 rclink_regs_rd64(struct rclink_regs *regs, u32 reg);

static inline bool rclink_regs_gone(const struct rclink_regs *regs)
{
	return test_bit(RCLINK_REGS_GONE, &regs->gone);
}

/* RC, SHIM and DMAQ windows: 64-bit accesses */
static inline void rclink_regs_wr64(struct rclink_regs *regs, u32 reg,
				    u64 val)
{
	if (unlikely(rclink_regs_gone(regs)))
		return;
	writeq(val, regs->bar0 + reg);
}

/* MAC window: 32-bit accesses only */
static inline u32 rclink_regs_rd32(struct rclink_regs *regs, u32 reg)
{
	if (unlikely(rclink_regs_gone(regs)))
		return ~0U;
	return readl(regs->bar0 + reg);
}

static inline void rclink_regs_wr32(struct rclink_regs *regs, u32 reg,
				    u32 val)
{
	if (unlikely(rclink_regs_gone(regs)))
		return;
	writel(val, regs->bar0 + reg);
}

#endif /* _RCLINK_REGS_H_ */
