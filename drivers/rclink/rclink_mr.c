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
 * A registration of the caller's own memory (RCLINK_MR_REG_USER) pins its
 * pages (pin_user_pages_fast(), FOLL_LONGTERM), charges them to
 * RLIMIT_MEMLOCK (account_locked_vm()), maps them for the device and
 * gives the shim a table of their 4 KiB pieces (DMAQ_MR_TBL,
 * DMAQ_MR_CTRL.pages); it all goes when the registration does, after the
 * shim let go of the entry.
 *
 * A file without a context registers a range of its rings' area instead
 * (the kernel path): the entry belongs to context 0, which has no area, so
 * the shim gets the table of the area's 4 KiB pieces (DMAQ_MR_CTRL.pages)
 * and serves it only to requests on the file's bound QP (qp_only, qpn):
 * every QP of the kernel's is context 0's, and the files must not reach
 * each other's areas.  The registrations go when the file is unbound,
 * closed, or its board removed.
 *
 * Locks: rclink_mr_hw.lock (the selector DMAQ_MR_SEL and the table); the
 * ioctls run under the board's rclink_cdev.rw (read), the kill under it
 * or at the file's release, so rclink_ctx.hw holds; a ring registration
 * holds the file's rw (read), so that the bound QP holds.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rclink_compat.h"
#include "rclink_dp.h"
#include "rclink_ctx.h"

/* A request the shim is serving when valid goes 0: far below this */
#define RCLINK_MR_BUSY_US	USEC_PER_SEC
#define RCLINK_MR_ACCESS	(RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ)

/* A registration of user memory: its pinned pages and their table */
struct rclink_mr_user {
	struct page **pages;
	dma_addr_t *dma;
	unsigned long npages;		/* pinned and charged */
	unsigned long nmapped;
	__le64 *tbl;			/* 4 KiB pieces, DMAQ_MR_TBL */
	dma_addr_t tbl_dma;
	size_t tbl_size;
	struct mm_struct *mm;		/* charged to its locked_vm */
};

struct rclink_mr_ent {
	const void *owner;		/* context, or ring file; NULL: free */
	struct rclink_mr_user *user;	/* RCLINK_MR_REG_USER, or NULL */
	u8 gen;
	bool busy;			/* invalid, the shim did not let go */
	/* what mr-get shows: the registration's request */
	u32 ctx;
	u32 qpn;
	bool qp_only;
	bool umem;			/* RCLINK_MR_REG_USER */
	u32 access;
	u64 offset;
	u64 length;
	struct pid *pid;		/* the registering process */
};

struct rclink_mr_hw {
	struct mutex lock;		/* DMAQ_MR_SEL and the entries */
	u32 num;
	u32 max_len;
	u32 max_pages;			/* 4 KiB pieces of a user MR */
	struct rclink_mr_ent *ent;
};

int rclink_mr_hw_init(struct rclink_ctx_hw *hw)
{
	struct rclink_dev *rdev = hw->rdev;
	struct rclink_mr_hw *mr;
	u64 cap;

	cap = rclink_rd64(rdev, RCLINK_DMAQ_MR_CAP);
	if (rclink_gone(rdev) || !FIELD_GET(RCLINK_DMAQ_MR_CAP_NUM, cap))
		return 0;		/* no RDMA WRITE or READ */
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return -ENOMEM;
	mr->num = FIELD_GET(RCLINK_DMAQ_MR_CAP_NUM, cap);
	mr->max_len = FIELD_GET(RCLINK_DMAQ_MR_CAP_MAX_LEN, cap);
	mr->max_pages = FIELD_GET(RCLINK_DMAQ_MR_CAP_MAX_PAGES, cap);
	mr->ent = kcalloc(mr->num, sizeof(*mr->ent), GFP_KERNEL);
	if (!mr->ent) {
		kfree(mr);
		return -ENOMEM;
	}
	mutex_init(&mr->lock);
	hw->mr = mr;
	/* the requester's response timeout (devlink param rdma_timeout_us) */
	rclink_wr64(rdev, RCLINK_DMAQ_RDMA_CFG,
		    FIELD_PREP(RCLINK_DMAQ_RDMA_CFG_TIMEOUT_US,
			       rdev->cfg.rdma_timeout_us));
	dev_info(rdev->dev, "%u registrations for RDMA WRITE and READ\n",
		 mr->num);
	return 0;
}

/* The largest WRITE or READ; 0 when the board has no registration table */
u32 rclink_mr_max_len(const struct rclink_ctx_hw *hw)
{
	return hw->mr ? hw->mr->max_len : 0;
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

static void rclink_mr_user_free(struct device *dev, struct rclink_mr_user *u)
{
	unsigned long i;

	if (!u)
		return;
	if (u->tbl)
		dma_free_coherent(dev, PAGE_ALIGN(u->tbl_size), u->tbl,
				  u->tbl_dma);
	for (i = 0; i < u->nmapped; i++)
		dma_unmap_page(dev, u->dma[i], PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (u->npages) {
		unpin_user_pages_dirty_lock(u->pages, u->npages, true);
		/* an mm that is gone took its locked_vm with it */
		if (mmget_not_zero(u->mm)) {
			account_locked_vm(u->mm, u->npages, false);
			mmput(u->mm);
		}
	}
	if (u->mm)
		mmdrop(u->mm);
	kvfree(u->dma);
	kvfree(u->pages);
	kfree(u);
}

/*
 * Pin [addr, addr + len) of the caller, map it, and build the table of
 * its 4 KiB pieces from the one holding addr; *base is addr's offset in
 * that piece.
 */
static struct rclink_mr_user *rclink_mr_user_pin(struct device *dev,
						 u32 max_pages, u64 addr,
						 u64 len, u64 *base)
{
	u64 first = addr & PAGE_MASK, first4k = addr & ~(u64)(SZ_4K - 1);
	struct rclink_mr_user *u;
	unsigned long n4k, j;
	long pinned;
	u64 end;
	int err;

	if (check_add_overflow(addr, len, &end) || end > TASK_SIZE)
		return ERR_PTR(-EINVAL);
	n4k = DIV_ROUND_UP(end - first4k, SZ_4K);
	if (n4k > max_pages)
		return ERR_PTR(-EINVAL);
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		return ERR_PTR(-ENOMEM);
	u->tbl_size = array_size(n4k, sizeof(*u->tbl));
	u->pages = kvcalloc((PAGE_ALIGN(end) - first) >> PAGE_SHIFT,
			    sizeof(*u->pages), GFP_KERNEL_ACCOUNT);
	u->dma = kvcalloc((PAGE_ALIGN(end) - first) >> PAGE_SHIFT,
			  sizeof(*u->dma), GFP_KERNEL_ACCOUNT);
	if (!u->pages || !u->dma) {
		err = -ENOMEM;
		goto err;
	}
	if (account_locked_vm(current->mm,
			      (PAGE_ALIGN(end) - first) >> PAGE_SHIFT, true)) {
		err = -ENOMEM;
		goto err;
	}
	u->mm = current->mm;
	mmgrab(u->mm);
	pinned = pin_user_pages_fast(first, (PAGE_ALIGN(end) - first) >>
				     PAGE_SHIFT, FOLL_WRITE | FOLL_LONGTERM,
				     u->pages);
	if (pinned != (long)((PAGE_ALIGN(end) - first) >> PAGE_SHIFT)) {
		if (pinned > 0)
			unpin_user_pages(u->pages, pinned);
		if (mmget_not_zero(u->mm)) {
			account_locked_vm(u->mm, (PAGE_ALIGN(end) - first) >>
					  PAGE_SHIFT, false);
			mmput(u->mm);
		}
		err = pinned < 0 ? pinned : -EFAULT;
		goto err;
	}
	u->npages = pinned;
	for (; u->nmapped < u->npages; u->nmapped++) {
		dma_addr_t d = dma_map_page(dev, u->pages[u->nmapped], 0,
					    PAGE_SIZE, DMA_BIDIRECTIONAL);

		if (dma_mapping_error(dev, d)) {
			err = -ENOMEM;
			goto err;
		}
		u->dma[u->nmapped] = d;
	}
	u->tbl = dma_alloc_coherent(dev, PAGE_ALIGN(u->tbl_size), &u->tbl_dma,
				    GFP_KERNEL);
	if (!u->tbl) {
		err = -ENOMEM;
		goto err;
	}
	for (j = 0; j < n4k; j++) {
		u64 off = first4k - first + (u64)j * SZ_4K;

		u->tbl[j] = cpu_to_le64(u->dma[off >> PAGE_SHIFT] +
					(off & ~PAGE_MASK));
	}
	*base = addr - first4k;
	return u;

err:
	rclink_mr_user_free(dev, u);
	return ERR_PTR(err);
}

/* Entry @e is free again (its memory is the caller's to free) */
static void rclink_mr_ent_clear(struct rclink_mr_ent *e)
{
	e->owner = NULL;
	e->user = NULL;
	e->busy = false;
	put_pid(e->pid);
	e->pid = NULL;
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

/*
 * Every registration of @owner goes (busy ones too); false when the board
 * kept one busy: the memory under it must never be freed
 */
static bool rclink_mr_owner_kill(struct rclink_ctx_hw *hw, const void *owner)
{
	struct rclink_mr_hw *mr = hw->mr;
	bool let_go = true;
	u32 i;

	if (!mr)
		return true;
	mutex_lock(&mr->lock);
	for (i = 0; i < mr->num; i++) {
		if (mr->ent[i].owner != owner)
			continue;
		if (!mr->ent[i].busy &&
		    rclink_mr_invalidate_locked(hw, i)) {
			rclink_mr_user_free(hw->dev, mr->ent[i].user);
		} else {
			let_go = false;
			/* the board may still use the pages: never freed */
			if (mr->ent[i].user)
				dev_err(hw->dev, "registration %u: its pages are left pinned\n",
					i);
		}
		rclink_mr_ent_clear(&mr->ent[i]);
	}
	mutex_unlock(&mr->lock);
	return let_go;
}

/* Before the context stops: its registrations go (busy ones too) */
void rclink_mr_ctx_kill(struct rclink_ctx_hw *hw, struct rclink_ctx *ctx)
{
	rclink_mr_owner_kill(hw, ctx);
}

/*
 * The ring file @rf is unbound, closed or its board removed: its
 * registrations go.  One the board would not let go keeps the ring's
 * area from being freed.
 */
void rclink_mr_file_kill(struct rclink_ctx_hw *hw, struct rclink_file *rf)
{
	if (!hw || !rf->ring || rclink_mr_owner_kill(hw, rf))
		return;
	dev_err(hw->dev, "a ring's area stays allocated: the board did not let go of its registration\n");
	rf->ring->board_holds = true;
}

/*
 * The table of the 4 KiB pieces of [offset, offset + len) of @ring's area
 * (checked by the caller), from the piece holding offset; *base is
 * offset's place in it.  The area's pages are the ring's until the file
 * goes, after its registrations.
 */
static struct rclink_mr_user *rclink_mr_ring_table(struct device *dev,
						   u32 max_pages,
						   struct rclink_ring *ring,
						   u64 offset, u64 len,
						   u64 *base)
{
	u64 first4k = offset & ~(u64)(SZ_4K - 1), a;
	struct rclink_mr_user *u;
	unsigned long n4k, j;
	u32 c;

	n4k = DIV_ROUND_UP(offset + len - first4k, SZ_4K);
	if (n4k > max_pages)
		return ERR_PTR(-EINVAL);
	u = kzalloc(sizeof(*u), GFP_KERNEL_ACCOUNT);
	if (!u)
		return ERR_PTR(-ENOMEM);
	u->tbl_size = array_size(n4k, sizeof(*u->tbl));
	u->tbl = dma_alloc_coherent(dev, PAGE_ALIGN(u->tbl_size), &u->tbl_dma,
				    GFP_KERNEL);
	if (!u->tbl) {
		kfree(u);
		return ERR_PTR(-ENOMEM);
	}
	for (j = 0; j < n4k; j++) {
		a = first4k + (u64)j * SZ_4K;
		c = a / RCLINK_WQE_MAX_PIECE;
		u->tbl[j] = cpu_to_le64(ring->chunks[c].dma +
					a % RCLINK_WQE_MAX_PIECE);
	}
	*base = offset - first4k;
	return u;
}

/* Who registers for @rf: its context, or the file itself for its ring */
struct rclink_mr_who {
	const void *owner;
	struct rclink_ctx_hw *hw;
	u32 ctx;			/* DMAQ_MR_CTRL.ctx */
	u64 area_size;
	struct rclink_ring *ring;	/* a ring's registration */
	u32 qpn;			/* ... on this QP only */
};

static int rclink_mr_who(struct rclink_file *rf, struct rclink_mr_who *w)
{
	struct rclink_dev *rdev = rf->cd->rdev;
	struct rclink_ring *ring;
	struct rclink_ctx *ctx;
	struct rclink_dmaq *dq;

	/* pairs with the release in rclink_ctx_create() */
	ctx = smp_load_acquire(&rf->ctx);
	/* pairs with the release in rclink_ring_setup() */
	ring = smp_load_acquire(&rf->ring);
	memset(w, 0, sizeof(*w));
	if (ctx) {
		if (!ctx->hw)
			return -ENODEV;	/* killed: reset or removal */
		w->owner = ctx;
		w->hw = ctx->hw;
		w->ctx = ctx->id;
		w->area_size = ctx->area_size;
	} else if (ring) {
		lockdep_assert_held(&rf->rw);
		/* a TYPE2 group has no WRITE or READ */
		if (!rf->qp || rf->qp->group)
			return -ENOTCONN;
		dq = rdev ? READ_ONCE(rdev->t1.dmaq) : NULL;
		w->hw = dq ? READ_ONCE(dq->ctx) : NULL;
		if (!w->hw)
			return -EOPNOTSUPP;
		if (!ring->dev)
			return -ENODEV;	/* the board went */
		w->owner = rf;
		w->area_size = ring->area_size;
		w->ring = ring;
		w->qpn = rf->qp->qpn;
	} else {
		return -EINVAL;
	}
	return w->hw->mr ? 0 : -EOPNOTSUPP;
}

long rclink_mr_reg(struct rclink_file *rf, void __user *argp)
{
	struct rclink_mr_user *user = NULL;
	struct rclink_mr_reg r;
	struct rclink_mr_who w;
	struct rclink_mr_hw *mr;
	struct rclink_ctx_hw *hw;
	u32 usize, idx, key;
	u64 ctrl, base;
	int err;

	err = rclink_ioc_copy_in(&r, sizeof(r), RCLINK_MR_REG_SIZE_VER0, argp,
				 &usize);
	if (err)
		return err;
	if ((r.flags & ~RCLINK_MR_REG_USER) || r.resv ||
	    (r.access & ~RCLINK_MR_ACCESS))
		return -EINVAL;
	/* a ring's registration: the bound QP holds until it is done */
	down_read(&rf->rw);
	err = rclink_mr_who(rf, &w);
	if (err)
		goto out_rw;
	hw = w.hw;
	mr = hw->mr;
	err = -EINVAL;
	if (!r.length || r.length > FIELD_MAX(RCLINK_DMAQ_MR_LEN_LEN))
		goto out_rw;
	/*
	 * host memory (a process's pages, a ring's pieces) needs page tables;
	 * a board without them (DMAQ_MR_CAP.max_pages 0: the RTL) registers
	 * area ranges only
	 */
	if (!mr->max_pages && ((r.flags & RCLINK_MR_REG_USER) || w.ring)) {
		err = -EOPNOTSUPP;
		goto out_rw;
	}
	if (r.flags & RCLINK_MR_REG_USER) {
		if (r.offset || !r.addr)
			goto out_rw;
		user = rclink_mr_user_pin(hw->dev, mr->max_pages, r.addr,
					  r.length, &base);
	} else {
		if (r.addr || r.offset > w.area_size ||
		    r.length > w.area_size - r.offset)
			goto out_rw;
		base = r.offset;
		/* context 0 has no area: the shim gets the ring's pieces */
		if (w.ring)
			user = rclink_mr_ring_table(hw->dev, mr->max_pages,
						    w.ring, r.offset, r.length,
						    &base);
	}
	if (IS_ERR(user)) {
		err = PTR_ERR(user);
		goto out_rw;
	}

	mutex_lock(&mr->lock);
	for (idx = 0; idx < mr->num; idx++)
		if (!mr->ent[idx].owner)
			break;
	if (idx == mr->num) {
		mutex_unlock(&mr->lock);
		rclink_mr_user_free(hw->dev, user);
		err = -ENOSPC;
		goto out_rw;
	}
	mr->ent[idx].owner = w.owner;
	mr->ent[idx].user = user;
	mr->ent[idx].gen++;
	mr->ent[idx].ctx = w.ctx;
	mr->ent[idx].qp_only = !!w.ring;
	mr->ent[idx].qpn = w.qpn;
	mr->ent[idx].umem = !!(r.flags & RCLINK_MR_REG_USER);
	mr->ent[idx].access = r.access;
	mr->ent[idx].offset = r.offset;
	mr->ent[idx].length = r.length;
	mr->ent[idx].pid = get_pid(task_tgid(current));
	rclink_mr_sel(hw, idx);
	rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_BASE, base);
	rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_LEN,
		    FIELD_PREP(RCLINK_DMAQ_MR_LEN_LEN, r.length));
	if (user)
		rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_TBL, user->tbl_dma);
	ctrl = RCLINK_DMAQ_MR_CTRL_VALID |
	       FIELD_PREP(RCLINK_DMAQ_MR_CTRL_GEN, mr->ent[idx].gen) |
	       FIELD_PREP(RCLINK_DMAQ_MR_CTRL_CTX, w.ctx);
	if (w.ring)
		ctrl |= RCLINK_DMAQ_MR_CTRL_QP_ONLY |
			FIELD_PREP(RCLINK_DMAQ_MR_CTRL_QPN, w.qpn);
	if (r.access & RCLINK_MR_REMOTE_WRITE)
		ctrl |= RCLINK_DMAQ_MR_CTRL_REMOTE_WRITE;
	if (r.access & RCLINK_MR_REMOTE_READ)
		ctrl |= RCLINK_DMAQ_MR_CTRL_REMOTE_READ;
	if (user)
		ctrl |= RCLINK_DMAQ_MR_CTRL_PAGES;
	rclink_wr64(hw->rdev, RCLINK_DMAQ_MR_CTRL, ctrl);
	/* the shim refuses a table it cannot use: the entry stays invalid */
	if (user && !(rclink_rd64(hw->rdev, RCLINK_DMAQ_MR_CTRL) &
		      RCLINK_DMAQ_MR_CTRL_VALID)) {
		rclink_mr_ent_clear(&mr->ent[idx]);
		mutex_unlock(&mr->lock);
		rclink_mr_user_free(hw->dev, user);
		err = -EIO;
		goto out_rw;
	}
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
		if (rclink_mr_invalidate_locked(hw, idx)) {
			rclink_mr_user_free(hw->dev, mr->ent[idx].user);
			rclink_mr_ent_clear(&mr->ent[idx]);
		}
		mutex_unlock(&mr->lock);
	}
out_rw:
	up_read(&rf->rw);
	return err;
}

long rclink_mr_dereg(struct rclink_file *rf, void __user *argp)
{
	struct rclink_mr_user *user;
	struct rclink_mr_dereg d;
	struct rclink_mr_who w;
	struct rclink_mr_hw *mr;
	struct rclink_mr_ent *e;
	u32 usize, idx;
	int err;

	err = rclink_ioc_copy_in(&d, sizeof(d), RCLINK_MR_DEREG_SIZE_VER0, argp,
				 &usize);
	if (err)
		return err;
	if (d.flags || d.resv)
		return -EINVAL;
	down_read(&rf->rw);
	err = rclink_mr_who(rf, &w);
	if (err)
		goto out_rw;
	mr = w.hw->mr;
	idx = FIELD_GET(RCLINK_MR_KEY_INDEX, d.key);
	err = -EINVAL;
	if (idx >= mr->num ||
	    (d.key & ~(RCLINK_MR_KEY_INDEX | RCLINK_MR_KEY_GEN)))
		goto out_rw;

	mutex_lock(&mr->lock);
	e = &mr->ent[idx];
	/* not this owner's registration; a previous call left it busy */
	if (e->owner != w.owner ||
	    e->gen != FIELD_GET(RCLINK_MR_KEY_GEN, d.key))
		err = -EINVAL;
	else if (e->busy || !rclink_mr_invalidate_locked(w.hw, idx))
		err = -EBUSY;
	else
		err = 0;
	user = err ? NULL : e->user;
	if (!err)
		rclink_mr_ent_clear(e);
	mutex_unlock(&mr->lock);
	/* the shim let go: the pages may go */
	rclink_mr_user_free(w.hw->dev, user);
out_rw:
	up_read(&rf->rw);
	return err;
}

/*
 * The registration in use at entry *idx or the next one after it (*idx
 * moves there): 0 and @mi; -ENOENT when there is none from *idx on,
 * -EOPNOTSUPP on a board without a registration table.  The caller holds
 * rclink_t1_devs_lock, which keeps the queue engine, and with it the
 * table, published.
 */
int rclink_mr_info(struct rclink_dev *rdev, u32 *idx,
		   struct rclink_mr_info *mi)
{
	struct rclink_dmaq *dq = READ_ONCE(rdev->t1.dmaq);
	struct rclink_ctx_hw *hw = dq ? READ_ONCE(dq->ctx) : NULL;
	struct rclink_mr_hw *mr = hw ? hw->mr : NULL;
	const struct rclink_mr_ent *e;
	int err = -ENOENT;

	lockdep_assert_held(&rclink_t1_devs_lock);
	if (!mr)
		return -EOPNOTSUPP;
	mutex_lock(&mr->lock);
	for (; *idx < mr->num; (*idx)++) {
		e = &mr->ent[*idx];
		if (!e->owner)
			continue;
		memset(mi, 0, sizeof(*mi));
		mi->key = FIELD_PREP(RCLINK_MR_KEY_INDEX, *idx) |
			  FIELD_PREP(RCLINK_MR_KEY_GEN, e->gen);
		mi->ctx = e->ctx;
		mi->qp_only = e->qp_only;
		mi->qpn = e->qpn;
		mi->user = e->umem;
		mi->busy = e->busy;
		mi->access = e->access;
		mi->offset = e->offset;
		mi->length = e->length;
		if (e->user)
			mi->pages = e->user->tbl_size / sizeof(*e->user->tbl);
		mi->pid = e->pid ? pid_vnr(e->pid) : 0;
		err = 0;
		break;
	}
	mutex_unlock(&mr->lock);
	return err;
}
