// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the registration table of one-sided RDMA WRITE and READ
 * (uapi/linux/rclink_dev.h RCLINK_IOC_MR_*, Documentation/uapi/rclink-dev.rst
 * "RDMA WRITE and READ"; the device side is Documentation/hw/shim.rst "RDMA
 * WRITE and READ").
 *
 * A file with a context registers a range of its context's area: the
 * kernel takes a free entry of the shim's table (DMAQ_MR_CAP.num), bumps
 * its generation, writes DMAQ_MR_BASE and DMAQ_MR_LEN while the entry is
 * not valid, then DMAQ_MR_CTRL with valid, the rights, the generation and
 * the owner context.  The key is the entry's index and generation, so a
 * key of an earlier registration of the entry is refused by the shim.
 * Deregistration writes valid 0 and waits for DMAQ_MR_CTRL.busy to clear;
 * the context's kill deregisters what is left before the context stops.
 *
 * Locks: rclink_mr_hw.lock (the selector DMAQ_MR_SEL and the table); the
 * ioctls run under the board's rclink_cdev.rw (read), the kill under it
 * or at the file's release, so rclink_ctx.hw holds.
 */

#include <linux/bitfield.h>
#include <linux/iopoll.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rclink_compat.h"
#include "rclink_dp.h"
#include "rclink_ctx.h"

/* A request the shim is serving when valid goes 0: far below this */
#define RCLINK_MR_BUSY_US	USEC_PER_SEC
#define RCLINK_MR_ACCESS	(RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ)

struct rclink_mr_ent {
	struct rclink_ctx *owner;	/* NULL: free */
	u8 gen;
	bool busy;			/* invalid, the shim did not let go */
};

struct rclink_mr_hw {
	struct mutex lock;		/* DMAQ_MR_SEL and the entries */
	u32 num;
	u32 max_len;
	struct rclink_mr_ent *ent;
};

void rclink_mr_hw_init(struct rclink_ctx_hw *hw)
{
	struct rclink_dev *rdev = hw->rdev;
	struct rclink_mr_hw *mr;
	u64 cap;

	cap = rclink_rd64(rdev, RCLINK_DMAQ_MR_CAP);
	if (rclink_gone(rdev) || !FIELD_GET(RCLINK_DMAQ_MR_CAP_NUM, cap))
		return;			/* no RDMA WRITE or READ */
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return;
	mr->num = FIELD_GET(RCLINK_DMAQ_MR_CAP_NUM, cap);
	mr->max_len = FIELD_GET(RCLINK_DMAQ_MR_CAP_MAX_LEN, cap);
	mr->ent = kcalloc(mr->num, sizeof(*mr->ent), GFP_KERNEL);
	if (!mr->ent) {
		kfree(mr);
		return;
	}
	mutex_init(&mr->lock);
	hw->mr = mr;
	dev_info(rdev->dev, "%u registrations for RDMA WRITE and READ\n",
		 mr->num);
}

void rclink_mr_hw_fini(struct rclink_ctx_hw *hw)
{
	struct rclink_mr_hw *mr = hw->mr;

	if (!mr)
		return;
	mutex_destroy(&mr->lock);
	kfree(mr->ent);
	kfree(mr);
	hw->mr = NULL;
}

static void rclink_mr_sel(struct rclink_ctx_hw *hw, u32 idx)
{
	rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_SEL,
		    FIELD_PREP(RCLINK_DMAQ_MR_SEL_IDX, idx));
}

/* Entry idx not valid any more; false when the shim stays busy with it */
static bool rclink_mr_invalidate_locked(struct rclink_ctx_hw *hw, u32 idx)
{
	struct rclink_mr_ent *e = &hw->mr->ent[idx];
	struct rclink_dev *rdev = hw->rdev;
	u64 ctrl;
	int err;

	rclink_mr_sel(hw, idx);
	rclink_wr64(rdev, RCLINK_DMAQ_MR_CTRL,
		    FIELD_PREP(RCLINK_DMAQ_MR_CTRL_GEN, e->gen));
	if (rclink_gone(rdev))
		return true;		/* no board, no DMA */
	err = read_poll_timeout(rclink_rd64, ctrl,
				!(ctrl & RCLINK_DMAQ_MR_CTRL_BUSY) ||
				rclink_gone(rdev), 10, RCLINK_MR_BUSY_US,
				false, rdev, RCLINK_DMAQ_MR_CTRL);
	if (err) {
		dev_err(hw->dev, "registration %u stays busy after invalidation\n",
			idx);
		e->busy = true;
		return false;
	}
	return true;
}

/* Before the context stops: its registrations go (busy ones too) */
void rclink_mr_ctx_kill(struct rclink_ctx_hw *hw, struct rclink_ctx *ctx)
{
	struct rclink_mr_hw *mr = hw->mr;
	u32 i;

	if (!mr)
		return;
	mutex_lock(&mr->lock);
	for (i = 0; i < mr->num; i++) {
		if (mr->ent[i].owner != ctx)
			continue;
		if (!mr->ent[i].busy)
			rclink_mr_invalidate_locked(hw, i);
		/* the stop handshake that follows ends whatever was busy */
		mr->ent[i].owner = NULL;
		mr->ent[i].busy = false;
	}
	mutex_unlock(&mr->lock);
}

static struct rclink_ctx *rclink_mr_ctx(struct rclink_file *rf,
					struct rclink_mr_hw **pmr)
{
	/* pairs with the release in rclink_ctx_create() */
	struct rclink_ctx *ctx = smp_load_acquire(&rf->ctx);

	if (!ctx)
		return ERR_PTR(-EINVAL);
	if (!ctx->hw)
		return ERR_PTR(-ENODEV);	/* killed: reset or removal */
	if (!ctx->hw->mr)
		return ERR_PTR(-EOPNOTSUPP);
	*pmr = ctx->hw->mr;
	return ctx;
}

long rclink_mr_reg(struct rclink_file *rf, void __user *argp)
{
	struct rclink_mr_reg r;
	struct rclink_mr_hw *mr;
	struct rclink_ctx_hw *hw;
	struct rclink_ctx *ctx;
	u32 usize, idx, key;
	u64 ctrl;
	int err;

	err = rclink_ioc_copy_in(&r, sizeof(r), RCLINK_MR_REG_SIZE_VER0, argp,
				 &usize);
	if (err)
		return err;
	if (r.flags || r.resv || (r.access & ~RCLINK_MR_ACCESS))
		return -EINVAL;
	ctx = rclink_mr_ctx(rf, &mr);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	hw = ctx->hw;
	if (!r.length || r.offset > ctx->area_size ||
	    r.length > ctx->area_size - r.offset)
		return -EINVAL;

	mutex_lock(&mr->lock);
	for (idx = 0; idx < mr->num; idx++)
		if (!mr->ent[idx].owner)
			break;
	if (idx == mr->num) {
		mutex_unlock(&mr->lock);
		return -ENOSPC;
	}
	mr->ent[idx].owner = ctx;
	mr->ent[idx].gen++;
	rclink_mr_sel(hw, idx);
	rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_BASE, r.offset);
	rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_LEN,
		    FIELD_PREP(RCLINK_DMAQ_MR_LEN_LEN, r.length));
	ctrl = RCLINK_DMAQ_MR_CTRL_VALID |
	       FIELD_PREP(RCLINK_DMAQ_MR_CTRL_GEN, mr->ent[idx].gen) |
	       FIELD_PREP(RCLINK_DMAQ_MR_CTRL_CTX, ctx->id);
	if (r.access & RCLINK_MR_REMOTE_WRITE)
		ctrl |= RCLINK_DMAQ_MR_CTRL_REMOTE_WRITE;
	if (r.access & RCLINK_MR_REMOTE_READ)
		ctrl |= RCLINK_DMAQ_MR_CTRL_REMOTE_READ;
	rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_CTRL, ctrl);
	key = FIELD_PREP(RCLINK_MR_KEY_INDEX, idx) |
	      FIELD_PREP(RCLINK_MR_KEY_GEN, mr->ent[idx].gen);
	mutex_unlock(&mr->lock);

	r.lkey = key;
	r.rkey = key;
	r.size = usize;
	err = rclink_ioc_copy_out(argp, usize, &r, sizeof(r));
	if (err) {
		/* the caller never learnt the key: the entry goes again */
		mutex_lock(&mr->lock);
		if (rclink_mr_invalidate_locked(hw, idx))
			mr->ent[idx].owner = NULL;
		mutex_unlock(&mr->lock);
	}
	return err;
}

long rclink_mr_dereg(struct rclink_file *rf, void __user *argp)
{
	struct rclink_mr_dereg d;
	struct rclink_mr_hw *mr;
	struct rclink_ctx *ctx;
	struct rclink_mr_ent *e;
	u32 usize, idx;
	int err;

	err = rclink_ioc_copy_in(&d, sizeof(d), RCLINK_MR_DEREG_SIZE_VER0, argp,
				 &usize);
	if (err)
		return err;
	if (d.flags || d.resv)
		return -EINVAL;
	ctx = rclink_mr_ctx(rf, &mr);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	idx = FIELD_GET(RCLINK_MR_KEY_INDEX, d.key);
	if (idx >= mr->num ||
	    (d.key & ~(RCLINK_MR_KEY_INDEX | RCLINK_MR_KEY_GEN)))
		return -EINVAL;

	mutex_lock(&mr->lock);
	e = &mr->ent[idx];
	/* not this context's registration; a previous call left it busy */
	if (e->owner != ctx || e->gen != FIELD_GET(RCLINK_MR_KEY_GEN, d.key))
		err = -EINVAL;
	else if (e->busy || !rclink_mr_invalidate_locked(ctx->hw, idx))
		err = -EBUSY;
	else
		e->owner = NULL;
	mutex_unlock(&mr->lock);
	return err;
}
