// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: probe-time self-tests of the shim (Documentation/hw/shim.rst,
 * Self-test registers): register access, every interrupt vector, and DMA in
 * both directions.  A failure fails the probe and names the step.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/jiffies.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "rclink.h"

const char * const rclink_selftest_step_names[RCLINK_ST_NUM] = {
	[RCLINK_ST_REGISTER] = "register",
	[RCLINK_ST_IRQ] = "irq",
	[RCLINK_ST_DMA] = "dma",
};

#define RCLINK_ST_IRQ_TIMEOUT_MS	1000
#define RCLINK_ST_DMA_TIMEOUT_US	(1000 * USEC_PER_MSEC)
#define RCLINK_ST_DMA_POLL_US		10
#define RCLINK_ST_DMA_BYTES		SZ_16K
#define RCLINK_ST_DMA_WORDS		(RCLINK_ST_DMA_BYTES / sizeof(u32))
#define RCLINK_ST_DMA_BAD_WORD		17

/* SHIM_TEST_DMA_CTRL.op */
#define RCLINK_TEST_DMA_OP_FILL		1
#define RCLINK_TEST_DMA_OP_CHECK	2

#define RCLINK_ST_SEED_FILL		0x52434c4bU
#define RCLINK_ST_SEED_CHECK		0x5eed2404U

static int rclink_selftest_result(struct rclink_dev *rdev,
				  enum rclink_selftest_step step, int err)
{
	if (!err) {
		rdev->st.result[step] = RCLINK_ST_OK;
		return 0;
	}
	rdev->st.result[step] = RCLINK_ST_FAILED;
	if (rclink_gone(rdev))
		err = -ENODEV;
	dev_err(rdev->dev, "self-test failed at step %s: %d\n",
		rclink_selftest_step_names[step], err);
	return err;
}

/* Register: SCRATCH holds what was written, TEST_ECHO returns its inverse */
static int rclink_selftest_reg_one(struct rclink_dev *rdev, u64 pat)
{
	u64 val;

	rclink_wr64(rdev, RCLINK_SHIM_SCRATCH, pat);
	val = rclink_rd64(rdev, RCLINK_SHIM_SCRATCH);
	if (val != pat) {
		dev_err(rdev->dev,
			"register self-test: SCRATCH wrote 0x%016llx, read 0x%016llx\n",
			pat, val);
		return -EIO;
	}

	rclink_wr64(rdev, RCLINK_SHIM_TEST_ECHO, pat);
	val = rclink_rd64(rdev, RCLINK_SHIM_TEST_ECHO);
	if (val != ~pat) {
		dev_err(rdev->dev,
			"register self-test: TEST_ECHO wrote 0x%016llx, read 0x%016llx (expected 0x%016llx)\n",
			pat, val, ~pat);
		return -EIO;
	}
	return 0;
}

int rclink_selftest_regs(struct rclink_dev *rdev)
{
	static const u64 fixed[] = {
		0, ~0ULL, 0x5555555555555555ULL, 0xaaaaaaaaaaaaaaaaULL,
		0x0123456789abcdefULL, 0xfedcba9876543210ULL,
	};
	unsigned int i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(fixed); i++)
		err = rclink_selftest_reg_one(rdev, fixed[i]);
	/* walking one, walking zero */
	for (i = 0; !err && i < 64; i++) {
		err = rclink_selftest_reg_one(rdev, BIT_ULL(i));
		if (!err)
			err = rclink_selftest_reg_one(rdev, ~BIT_ULL(i));
	}
	/* leave both as after reset: SCRATCH 0, TEST_ECHO reading all ones */
	rclink_wr64(rdev, RCLINK_SHIM_SCRATCH, 0);
	rclink_wr64(rdev, RCLINK_SHIM_TEST_ECHO, 0);

	return rclink_selftest_result(rdev, RCLINK_ST_REGISTER, err);
}

/*
 * Called from interrupt context for self-test interrupt @vec (MSI-X: the
 * vector itself; MSI and INTx: the INFO of a SELFTEST record).  Returns
 * whether it was the one the test waits for.
 */
bool rclink_selftest_irq_seen(struct rclink_dev *rdev, u64 vec)
{
	int want = atomic_read(&rdev->st.irq_vec);

	if (want < 0 || vec != (u64)want)
		return false;
	if (atomic_cmpxchg(&rdev->st.irq_vec, want, -1) != want)
		return false;
	complete(&rdev->st.irq_done);
	return true;
}

/*
 * Interrupt: fire SHIM_TEST_IRQ for every allocated vector.  Under MSI-X
 * vector N is raised directly; under MSI and INTx the shim writes a
 * SELFTEST event record that arrives through the event ring.
 */
int rclink_selftest_irq(struct rclink_dev *rdev)
{
	unsigned long tmo = msecs_to_jiffies(RCLINK_ST_IRQ_TIMEOUT_MS);
	unsigned int vec;
	int err = 0;

	for (vec = 0; vec < rdev->num_vecs; vec++) {
		reinit_completion(&rdev->st.irq_done);
		atomic_set(&rdev->st.irq_vec, vec);
		rclink_wr64(rdev, RCLINK_SHIM_TEST_IRQ,
			    FIELD_PREP(RCLINK_SHIM_TEST_IRQ_VECTOR, vec));
		if (!wait_for_completion_timeout(&rdev->st.irq_done, tmo)) {
			atomic_set(&rdev->st.irq_vec, -1);
			dev_err(rdev->dev,
				"interrupt self-test: no interrupt on vector %u (%s) within %u ms\n",
				vec, rclink_irq_mode_name(rdev->irq_mode),
				RCLINK_ST_IRQ_TIMEOUT_MS);
			err = -ETIMEDOUT;
			break;
		}
	}

	return rclink_selftest_result(rdev, RCLINK_ST_IRQ, err);
}

/* Word @i of the shim's test pattern */
static u32 rclink_dma_pattern(u32 seed, u32 i)
{
	return seed ^ (i * 0x9e3779b9U);
}

static int rclink_selftest_dma_op(struct rclink_dev *rdev, dma_addr_t dma,
				  u32 op, u32 seed, u64 *status)
{
	const char *name = op == RCLINK_TEST_DMA_OP_FILL ? "FILL" : "CHECK";
	u64 st;
	int err;

	rclink_wr64(rdev, RCLINK_SHIM_TEST_DMA_ADDR, dma);
	rclink_wr64(rdev, RCLINK_SHIM_TEST_DMA_CTRL,
		    FIELD_PREP(RCLINK_SHIM_TEST_DMA_CTRL_LEN,
			       RCLINK_ST_DMA_BYTES) |
		    FIELD_PREP(RCLINK_SHIM_TEST_DMA_CTRL_OP, op) |
		    FIELD_PREP(RCLINK_SHIM_TEST_DMA_CTRL_SEED, seed));
	err = read_poll_timeout(rclink_rd64, st, rclink_gone(rdev) ||
				(!(st & RCLINK_SHIM_TEST_DMA_STATUS_BUSY) &&
				 (st & RCLINK_SHIM_TEST_DMA_STATUS_DONE)),
				RCLINK_ST_DMA_POLL_US, RCLINK_ST_DMA_TIMEOUT_US,
				false, rdev, RCLINK_SHIM_TEST_DMA_STATUS);
	if (rclink_gone(rdev))
		return -ENODEV;
	if (err) {
		dev_err(rdev->dev,
			"DMA self-test: %s did not complete (status 0x%llx)\n",
			name, st);
		return err;
	}
	if (st & RCLINK_SHIM_TEST_DMA_STATUS_ERR) {
		dev_err(rdev->dev, "DMA self-test: %s reported a bus error\n",
			name);
		return -EIO;
	}
	/* the device is done with the buffer: read it only now */
	dma_rmb();
	*status = st;
	return 0;
}

static int rclink_selftest_dma_check(struct rclink_dev *rdev, dma_addr_t dma,
				     u32 seed, u32 expect_bad)
{
	bool ok, expect_ok = !expect_bad;
	u32 bad;
	u64 st;
	int err;

	err = rclink_selftest_dma_op(rdev, dma, RCLINK_TEST_DMA_OP_CHECK, seed,
				     &st);
	if (err)
		return err;
	ok = st & RCLINK_SHIM_TEST_DMA_STATUS_OK;
	bad = FIELD_GET(RCLINK_SHIM_TEST_DMA_STATUS_BAD_WORDS, st);
	if (ok != expect_ok || bad != expect_bad) {
		dev_err(rdev->dev,
			"DMA self-test: CHECK reported ok=%d bad_words=%u, expected ok=%d bad_words=%u\n",
			ok, bad, expect_ok, expect_bad);
		return -EIO;
	}
	return 0;
}

/*
 * DMA: the shim FILLs a buffer with its pattern and the host verifies it;
 * the host writes the pattern and CHECK must match; one corrupted word
 * must make CHECK report exactly one bad word.
 */
static int rclink_selftest_dma_run(struct rclink_dev *rdev, __le32 *buf,
				   dma_addr_t dma)
{
	u32 i, got, want;
	u64 st;
	int err;

	/* device to host */
	memset(buf, 0, RCLINK_ST_DMA_BYTES);
	err = rclink_selftest_dma_op(rdev, dma, RCLINK_TEST_DMA_OP_FILL,
				     RCLINK_ST_SEED_FILL, &st);
	if (err)
		return err;
	for (i = 0; i < RCLINK_ST_DMA_WORDS; i++) {
		got = le32_to_cpu(READ_ONCE(buf[i]));
		want = rclink_dma_pattern(RCLINK_ST_SEED_FILL, i);
		if (got != want) {
			dev_err(rdev->dev,
				"DMA self-test: FILL word %u is 0x%08x, expected 0x%08x\n",
				i, got, want);
			return -EIO;
		}
	}

	/* host to device */
	for (i = 0; i < RCLINK_ST_DMA_WORDS; i++)
		buf[i] = cpu_to_le32(rclink_dma_pattern(RCLINK_ST_SEED_CHECK,
							i));
	err = rclink_selftest_dma_check(rdev, dma, RCLINK_ST_SEED_CHECK, 0);
	if (err)
		return err;

	/* one bad word */
	buf[RCLINK_ST_DMA_BAD_WORD] ^= cpu_to_le32(BIT(0));
	return rclink_selftest_dma_check(rdev, dma, RCLINK_ST_SEED_CHECK, 1);
}

int rclink_selftest_dma(struct rclink_dev *rdev)
{
	dma_addr_t dma;
	__le32 *buf;
	int err;

	buf = dma_alloc_coherent(rdev->dev, RCLINK_ST_DMA_BYTES, &dma,
				 GFP_KERNEL);
	if (!buf)
		return rclink_selftest_result(rdev, RCLINK_ST_DMA, -ENOMEM);

	err = rclink_selftest_dma_run(rdev, buf, dma);
	/* a DMA that did not finish must not land in freed memory */
	if (err == -ETIMEDOUT)
		pci_clear_master(rdev->pdev);

	dma_free_coherent(rdev->dev, RCLINK_ST_DMA_BYTES, buf, dma);
	return rclink_selftest_result(rdev, RCLINK_ST_DMA, err);
}
