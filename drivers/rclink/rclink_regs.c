// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the lowest layer, access to the board's BAR0 (rclink_regs.h).
 */

#include <linux/device.h>
#include <linux/pci.h>

#include <rclink_hw.h>

#include "rclink_compat.h"
#include "rclink_regs.h"

#define RCLINK_BAR0	0

void rclink_regs_init(struct rclink_regs *regs, struct pci_dev *pdev,
		      work_func_t gone_fn)
{
	regs->pdev = pdev;
	regs->bar0 = NULL;
	regs->gone = 0;
	INIT_DELAYED_WORK(&regs->gone_work, gone_fn);
}

/* Map BAR0 (managed: devres unmaps it after remove or a failed probe) */
int rclink_regs_map(struct rclink_regs *regs)
{
	struct pci_dev *pdev = regs->pdev;
	void __iomem *bar;

	if (!(pci_resource_flags(pdev, RCLINK_BAR0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, RCLINK_BAR0) < RCLINK_BAR0_SIZE) {
		dev_err(&pdev->dev, "BAR0 is not a memory BAR of %#x bytes\n",
			RCLINK_BAR0_SIZE);
		return -ENODEV;
	}

	bar = rclink_pcim_iomap_bar(pdev, RCLINK_BAR0, KBUILD_MODNAME);
	if (IS_ERR(bar)) {
		dev_err(&pdev->dev, "cannot map BAR0: %pe\n", bar);
		return PTR_ERR(bar);
	}
	regs->bar0 = bar;
	return 0;
}

/* The board left the bus: no access from here on, the owner's work runs */
void rclink_regs_mark_gone(struct rclink_regs *regs)
{
	if (!test_and_set_bit(RCLINK_REGS_GONE, &regs->gone)) {
		dev_err(&regs->pdev->dev,
			"device gone (SHIM_ID reads all ones), no further access; a PCI reset may bring it back\n");
		schedule_delayed_work(&regs->gone_work, 0);
	}
}

/* AER: no access until the reset, without the owner's gone work */
void rclink_regs_block(struct rclink_regs *regs)
{
	set_bit(RCLINK_REGS_GONE, &regs->gone);
}

/* After a reset: the board answers again */
void rclink_regs_revive(struct rclink_regs *regs)
{
	clear_bit(RCLINK_REGS_GONE, &regs->gone);
}

/*
 * After a reset, while still marked gone: does the board answer again?
 * The one access that ignores the gone state.
 */
bool rclink_regs_answers(struct rclink_regs *regs)
{
	return readq(regs->bar0 + RCLINK_SHIM_ID) != ~0ULL;
}

/*
 * Before memory the board may DMA into is freed or unmapped: a board that is
 * gone (all ones, an AER error) is not stopped by the register writes of
 * the teardown, which are skipped, so its bus mastering goes off first and
 * nothing it still has in flight reaches the host.  A live board is stopped
 * through its registers and keeps bus mastering until it is taken down, so
 * the flushes of what it has in flight still land.
 */
void rclink_regs_dma_fence(struct rclink_regs *regs)
{
	if (rclink_regs_gone(regs))
		pci_clear_master(regs->pdev);
}

/*
 * 64-bit read of the RC, SHIM or DMAQ window.  An all-ones value may mean
 * the device left the bus: SHIM_ID tells (it never reads all ones on a
 * live board), and once the device is gone every access is skipped.
 */
u64 rclink_regs_rd64(struct rclink_regs *regs, u32 reg)
{
	u64 val;

	if (unlikely(rclink_regs_gone(regs)))
		return ~0ULL;
	val = readq(regs->bar0 + reg);
	if (unlikely(val == ~0ULL) &&
	    (reg == RCLINK_SHIM_ID ||
	     readq(regs->bar0 + RCLINK_SHIM_ID) == ~0ULL))
		rclink_regs_mark_gone(regs);
	return val;
}
