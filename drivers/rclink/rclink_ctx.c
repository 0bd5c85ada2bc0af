// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: kernel-bypass contexts of /dev/rclinkN (uapi/linux/rclink_dev.h,
 * Documentation/uapi/rclink-dev.rst "Contexts"; the device side is
 * Documentation/hw/shim.rst "Contexts").
 *
 * A file creates one context: the kernel allocates its queues, doorbell
 * record, area table and area (zeroed pages, charged to the caller's
 * memory cgroup with GFP_KERNEL_ACCOUNT and to its RLIMIT_MEMLOCK with
 * account_locked_vm()), maps them for the device, programs the shim's
 * context through DMAQ_CTX_SEL and enables it.  The process mmaps the
 * memory (remap_pfn_range of the kernel's pages, which stay the kernel's
 * until the file is released) and the context's doorbell page, which is
 * inserted at fault time (write-combining) so that it can be revoked.
 *
 * Kill (file release, or board removal, reset and unbind through
 * rclink_cdev_remove()): revoke the doorbell (unmap_mapping_range() of the
 * page's offset, later faults SIGBUS), put the context in error (pollers
 * see EPOLLERR), stop it and wait until the shim reports it inactive (a
 * board that is gone has its bus mastering turned off instead), give its
 * QPs and groups back to context 0, disable it, and only then unmap its
 * memory for the device.  The pages are freed with the file (mappings of
 * the process hold it), never while the board may write them.
 *
 * Locks: the file's bind_lock (create, bind) and the board's
 * rclink_cdev.rw (every file operation reads it, removal writes it)
 * serialize create, bind, events and kill; rclink_ctx_hw.sel_lock the
 * selector registers; rclink_ctx.db_lock the doorbell's fault against its
 * revocation; rclink_ctx.lock the event state, with interrupts off (the
 * event ring's hard handler takes it).  Event records find a context in
 * rclink_ctx_hw.ctxs under RCU (contexts are freed with kfree_rcu()).
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "rclink_compat.h"
#include "rclink_dp.h"
#include "rclink_ctx.h"
#include "rclink_qp.h"

/* Area chunks of at most 64 KiB (fewer and larger when the shim allows) */
#define RCLINK_CTX_CHUNK_ORDER	4
/* The stop handshake: the board's DMA in flight, far below this */
#define RCLINK_CTX_STOP_US	USEC_PER_SEC

/* ---- the board ----------------------------------------------------------- */

int rclink_ctx_hw_init(struct rclink_dmaq *dq)
{
	struct rclink_dev *rdev = dq->rdev;
	struct pci_dev *pdev = rdev->pdev;
	struct rclink_ctx_hw *hw;
	u32 num, bar, shift;
	u64 cap, dcap;

	cap = rclink_rd64(rdev, RCLINK_DMAQ_CTX_CAP);
	dcap = rclink_rd64(rdev, RCLINK_DMAQ_CAP);
	if (rclink_gone(rdev))
		return -ENODEV;
	num = FIELD_GET(RCLINK_DMAQ_CTX_CAP_NUM, cap);
	bar = FIELD_GET(RCLINK_DMAQ_CTX_CAP_DB_BAR, cap);
	shift = FIELD_GET(RCLINK_DMAQ_CTX_CAP_DB_SHIFT, cap);
	if (num <= 1)
		return 0;		/* no user contexts */
	if (shift < PAGE_SHIFT || shift > 30 || bar >= PCI_STD_NUM_BARS ||
	    !(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, bar) < ((resource_size_t)num << shift)) {
		dev_warn(rdev->dev,
			 "DMAQ_CTX_CAP 0x%llx: no usable doorbell BAR for %u pages of %u bytes: no user contexts\n",
			 cap, num, 1U << min(shift, 31U));
		return 0;
	}

	/*
	 * how long a context's TYPE1 packet without room may hold the receive
	 * path of every context (Documentation/hw/shim.rst, "Contexts")
	 */
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_RX_HOLD,
		    FIELD_PREP(RCLINK_DMAQ_CTX_RX_HOLD_USEC,
			       rdev->cfg.ctx_rx_hold_us));

	/* ours alone: no other driver (or /dev/mem user) maps the doorbells */
	if (pci_request_region(pdev, bar, KBUILD_MODNAME "-doorbells")) {
		dev_warn(rdev->dev, "doorbell BAR%u is taken: no user contexts\n",
			 bar);
		return 0;
	}
	hw = kzalloc(sizeof(*hw), GFP_KERNEL);
	if (!hw) {
		pci_release_region(pdev, bar);
		return -ENOMEM;
	}
	hw->rdev = rdev;
	hw->db_bar = bar;
	hw->dev = rdev->dev;
	mutex_init(&hw->sel_lock);
	ida_init(&hw->ida);
	xa_init(&hw->ctxs);
	hw->num = num;
	hw->db_shift = shift;
	hw->max_chunks = FIELD_GET(RCLINK_DMAQ_CTX_CAP_MAX_CHUNKS, cap);
	hw->chunk_min = FIELD_GET(RCLINK_DMAQ_CTX_CAP_CHUNK_MIN, cap);
	hw->chunk_max = FIELD_GET(RCLINK_DMAQ_CTX_CAP_CHUNK_MAX, cap);
	hw->max_order = FIELD_GET(RCLINK_DMAQ_CAP_MAX_ORDER, dcap);
	hw->max_msg = FIELD_GET(RCLINK_DMAQ_CAP_MAX_MSG, dcap);
	/* a share of the outstanding slots, leaving the others theirs */
	hw->ost_max = max_t(u32, rdev->params.type1_ost_n / 4, 1);
	hw->db_phys = pci_resource_start(pdev, bar);
	hw->db_len = (resource_size_t)num << shift;
	/* the registration table: a board without memory for it is not up */
	if (rclink_mr_hw_init(hw)) {
		mutex_destroy(&hw->sel_lock);
		pci_release_region(pdev, bar);
		kfree(hw);
		return -ENOMEM;
	}
	/*
	 * write-combining for the pages inserted at fault time: without a
	 * reservation of the range x86's PAT inserts them uncached
	 */
	hw->db_wc = !arch_io_reserve_memtype_wc(hw->db_phys, hw->db_len);
	if (!hw->db_wc)
		dev_warn(rdev->dev, "doorbell BAR%u not write-combining\n",
			 bar);
	/* the event records' handler may look already */
	WRITE_ONCE(dq->ctx, hw);
	dev_info(rdev->dev, "%u user contexts, doorbells in BAR%u\n", num - 1,
		 bar);
	return 0;
}

/* Every context was killed (rclink_cdev_remove()) */
void rclink_ctx_hw_fini(struct rclink_dmaq *dq)
{
	struct rclink_ctx_hw *hw = dq->ctx;

	if (!hw)
		return;
	WARN_ON_ONCE(!xa_empty(&hw->ctxs));
	rclink_mr_hw_fini(hw);
	if (hw->db_wc)
		arch_io_free_memtype_wc(hw->db_phys, hw->db_len);
	pci_release_region(hw->rdev->pdev, hw->db_bar);
	xa_destroy(&hw->ctxs);
	ida_destroy(&hw->ida);
	mutex_destroy(&hw->sel_lock);
	kfree(hw);
	dq->ctx = NULL;
}

static void rclink_ctx_sel(struct rclink_ctx_hw *hw, u32 id)
{
	lockdep_assert_held(&hw->sel_lock);
	rclink_wr64(hw->rdev, RCLINK_DMAQ_CTX_SEL,
		    FIELD_PREP(RCLINK_DMAQ_CTX_SEL_CTX, id));
}

static void rclink_ctx_qp_owner(struct rclink_ctx_hw *hw, u32 qpn, u32 id)
{
	lockdep_assert_held(&hw->sel_lock);
	rclink_wr64(hw->rdev, RCLINK_DMAQ_QP_OWNER_SEL,
		    FIELD_PREP(RCLINK_DMAQ_QP_OWNER_SEL_QPN, qpn));
	rclink_wr64(hw->rdev, RCLINK_DMAQ_QP_OWNER,
		    FIELD_PREP(RCLINK_DMAQ_QP_OWNER_CTX, id));
}

/* ---- memory -------------------------------------------------------------- */

static int rclink_ctx_mem_alloc(struct device *dev, struct rclink_ctx_mem *m,
				u32 order)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN;

	m->order = order;
	m->page = alloc_pages(gfp, order);
	if (!m->page)
		return -ENOMEM;
	m->dma = dma_map_page(dev, m->page, 0, PAGE_SIZE << order,
			      DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, m->dma)) {
		__free_pages(m->page, order);
		m->page = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void rclink_ctx_mem_unmap(struct device *dev, struct rclink_ctx_mem *m)
{
	if (m->page)
		dma_unmap_page(dev, m->dma, PAGE_SIZE << m->order,
			       DMA_BIDIRECTIONAL);
}

static void rclink_ctx_mem_free(struct rclink_ctx_mem *m)
{
	if (m->page)
		__free_pages(m->page, m->order);
	m->page = NULL;
}

/* Every mapping for the device goes (the context is stopped) */
static void rclink_ctx_unmap(struct rclink_ctx *ctx, struct device *dev)
{
	u32 i;

	rclink_ctx_mem_unmap(dev, &ctx->sq);
	rclink_ctx_mem_unmap(dev, &ctx->rq);
	rclink_ctx_mem_unmap(dev, &ctx->cq);
	rclink_ctx_mem_unmap(dev, &ctx->rec);
	rclink_ctx_mem_unmap(dev, &ctx->tbl);
	for (i = 0; ctx->chunks && i < ctx->nchunks; i++)
		rclink_ctx_mem_unmap(dev, &ctx->chunks[i]);
}

static u32 rclink_ctx_order(size_t bytes)
{
	return get_order(bytes);
}

/* The pages a context pins, charged to RLIMIT_MEMLOCK */
static unsigned long rclink_ctx_pages(const struct rclink_ctx *ctx,
				      u32 tbl_order)
{
	return (1UL << rclink_ctx_order(RCLINK_WQE_BYTES << ctx->sq_order)) +
	       (1UL << rclink_ctx_order(RCLINK_RQE_BYTES << ctx->rq_order)) +
	       (1UL << rclink_ctx_order(RCLINK_CQE_BYTES << ctx->cq_order)) +
	       1 + (1UL << tbl_order) + (ctx->area_size >> PAGE_SHIFT);
}

static int rclink_ctx_alloc(struct rclink_ctx *ctx, struct device *dev,
			    u32 tbl_order)
{
	u32 corder = ctx->chunk_shift - PAGE_SHIFT;
	__le64 *tbl;
	int err;
	u32 i;

	err = rclink_ctx_mem_alloc(dev, &ctx->sq,
				   rclink_ctx_order(RCLINK_WQE_BYTES <<
						    ctx->sq_order));
	if (!err)
		err = rclink_ctx_mem_alloc(dev, &ctx->rq,
					   rclink_ctx_order(RCLINK_RQE_BYTES <<
							    ctx->rq_order));
	if (!err)
		err = rclink_ctx_mem_alloc(dev, &ctx->cq,
					   rclink_ctx_order(RCLINK_CQE_BYTES <<
							    ctx->cq_order));
	if (!err)
		err = rclink_ctx_mem_alloc(dev, &ctx->rec, 0);
	if (!err)
		err = rclink_ctx_mem_alloc(dev, &ctx->tbl, tbl_order);
	if (err)
		return err;
	ctx->chunks = kvcalloc(ctx->nchunks, sizeof(*ctx->chunks),
			       GFP_KERNEL_ACCOUNT);
	if (!ctx->chunks)
		return -ENOMEM;
	tbl = page_address(ctx->tbl.page);
	for (i = 0; i < ctx->nchunks; i++) {
		err = rclink_ctx_mem_alloc(dev, &ctx->chunks[i], corder);
		if (err)
			return err;
		/* the shim translates chunk by chunk: aligned to their size */
		if (ctx->chunks[i].dma & ((PAGE_SIZE << corder) - 1)) {
			dev_warn_ratelimited(dev, "context area chunk at %pad not aligned to %lu bytes\n",
					     &ctx->chunks[i].dma,
					     PAGE_SIZE << corder);
			return -EIO;
		}
		tbl[i] = cpu_to_le64(ctx->chunks[i].dma);
	}
	return 0;
}

/* Frees what rclink_ctx_alloc() allocated; the mappings are gone */
static void rclink_ctx_free_mem(struct rclink_ctx *ctx)
{
	u32 i;

	rclink_ctx_mem_free(&ctx->sq);
	rclink_ctx_mem_free(&ctx->rq);
	rclink_ctx_mem_free(&ctx->cq);
	rclink_ctx_mem_free(&ctx->rec);
	rclink_ctx_mem_free(&ctx->tbl);
	for (i = 0; ctx->chunks && i < ctx->nchunks; i++)
		rclink_ctx_mem_free(&ctx->chunks[i]);
	kvfree(ctx->chunks);
	ctx->chunks = NULL;
}

static void rclink_ctx_unpin(struct rclink_ctx *ctx)
{
	struct mm_struct *mm = ctx->mm;

	if (!mm)
		return;
	/* an mm that is gone took its locked_vm with it */
	if (mmget_not_zero(mm)) {
		account_locked_vm(mm, ctx->pinned, false);
		mmput(mm);
	}
	mmdrop(mm);
	ctx->mm = NULL;
}

/* ---- stop ---------------------------------------------------------------- */

/*
 * The stopped handshake: nothing more is read or written in host memory
 * for the context once it returns true.  A board that is gone has bus
 * mastering turned off instead.
 */
static bool rclink_ctx_stop_locked(struct rclink_ctx_hw *hw, u32 id)
{
	struct rclink_dev *rdev = hw->rdev;
	u64 st;
	int err;

	rclink_ctx_sel(hw, id);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_CTRL, RCLINK_DMAQ_CTX_CTRL_ENABLE |
		    RCLINK_DMAQ_CTX_CTRL_STOP);
	err = read_poll_timeout(rclink_rd64, st, rclink_gone(rdev) ||
				!(st & RCLINK_DMAQ_CTX_STATUS_ACTIVE), 20,
				RCLINK_CTX_STOP_US, false, rdev,
				RCLINK_DMAQ_CTX_STATUS);
	if (rclink_gone(rdev)) {
		rclink_dma_fence(rdev);
		return true;
	}
	return !err;
}

/* ---- create -------------------------------------------------------------- */

static int rclink_ctx_entries(u32 n, const struct rclink_ctx_hw *hw,
			      u32 *order)
{
	if (!is_power_of_2(n) || n < BIT(RCLINK_DP_MIN_ORDER) ||
	    n > BIT(hw->max_order))
		return -EINVAL;
	*order = ilog2(n);
	return 0;
}

/* Program and enable context @ctx->id; its memory is mapped */
/*
 * The board's counters of the selected context number: they count on
 * across the contexts that number was given to
 */
static void rclink_ctx_counters(struct rclink_ctx_hw *hw,
				u64 count[RCLINK_CTX_CNT_NUM])
{
	static const u32 regs[RCLINK_CTX_CNT_NUM] = {
		[RCLINK_CTX_CNT_EVENTS] = RCLINK_DMAQ_CTX_EVENTS,
		[RCLINK_CTX_CNT_RX_NOBUF] = RCLINK_DMAQ_CTX_RX_NOBUF,
		[RCLINK_CTX_CNT_NOT_OWNER] = RCLINK_DMAQ_CTX_NOT_OWNER,
	};
	unsigned int i;

	lockdep_assert_held(&hw->sel_lock);
	for (i = 0; i < RCLINK_CTX_CNT_NUM; i++)
		count[i] = rclink_rd64(hw->rdev, regs[i]);
}

static int rclink_ctx_enable(struct rclink_ctx_hw *hw, struct rclink_ctx *ctx,
			     const struct rclink_ctx_create *p)
{
	struct rclink_dev *rdev = hw->rdev;
	u64 st, info = 0;

	mutex_lock(&hw->sel_lock);
	rclink_ctx_sel(hw, ctx->id);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_CTRL, 0);
	rclink_ctx_counters(hw, ctx->base);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_SQ_BASE, ctx->sq.dma);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_RQ_BASE, ctx->rq.dma);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_CQ_BASE, ctx->cq.dma);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_QCFG,
		    FIELD_PREP(RCLINK_DMAQ_CTX_QCFG_SQ_ORDER, ctx->sq_order) |
		    FIELD_PREP(RCLINK_DMAQ_CTX_QCFG_RQ_ORDER, ctx->rq_order) |
		    FIELD_PREP(RCLINK_DMAQ_CTX_QCFG_CQ_ORDER, ctx->cq_order));
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_DBREC,
		    ctx->rec.dma + RCLINK_CTX_DBREC_OFFSET);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_AREA_TBL, ctx->tbl.dma);
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_AREA_CFG,
		    FIELD_PREP(RCLINK_DMAQ_CTX_AREA_CFG_CHUNKS, ctx->nchunks) |
		    FIELD_PREP(RCLINK_DMAQ_CTX_AREA_CFG_CHUNK_SHIFT,
			       ctx->chunk_shift));
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_MOD,
		    FIELD_PREP(RCLINK_DMAQ_CTX_MOD_COUNT, p->mod_count) |
		    FIELD_PREP(RCLINK_DMAQ_CTX_MOD_USEC, p->mod_usec));
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_OST,
		    FIELD_PREP(RCLINK_DMAQ_CTX_OST_MAX, hw->ost_max));
	rclink_wr64(rdev, RCLINK_DMAQ_CTX_CTRL, RCLINK_DMAQ_CTX_CTRL_ENABLE);
	st = rclink_rd64(rdev, RCLINK_DMAQ_CTX_STATUS);
	if (!(st & RCLINK_DMAQ_CTX_STATUS_RUNNING)) {
		info = rclink_rd64(rdev, RCLINK_DMAQ_CTX_ERR_INFO);
		rclink_wr64(rdev, RCLINK_DMAQ_CTX_CTRL, 0);
	}
	mutex_unlock(&hw->sel_lock);
	if (rclink_gone(rdev))
		return -ENODEV;
	if (!(st & RCLINK_DMAQ_CTX_STATUS_RUNNING)) {
		dev_warn_ratelimited(hw->dev, "context %u not enabled: status 0x%llx, info 0x%llx\n",
				     ctx->id, st, info);
		return -EIO;
	}
	return 0;
}

static void rclink_ctx_destroy(struct rclink_ctx *ctx)
{
	rclink_ctx_kill(ctx);
	rclink_ctx_free(ctx);
}

long rclink_ctx_create(struct file *file, struct rclink_file *rf,
		       struct rclink_dmaq *dq, void __user *argp)
{
	struct rclink_ctx_hw *hw = dq->ctx;
	struct rclink_ctx_create p;
	struct rclink_ctx *ctx;
	u32 usize, shift, tbl_order;
	int id, err;

	lockdep_assert_held(&rf->bind_lock);
	err = rclink_ioc_copy_in(&p, sizeof(p), RCLINK_CTX_CREATE_SIZE_VER0,
				 argp, &usize);
	if (err)
		return err;
	if (p.flags || p.resv)
		return -EINVAL;
	if (!hw)
		return -EOPNOTSUPP;
	if (rf->ctx)
		return -EBUSY;
	if (!p.area_size || !PAGE_ALIGNED(p.area_size) ||
	    p.area_size > RCLINK_CTX_MAX_AREA ||
	    p.mod_count > FIELD_MAX(RCLINK_DMAQ_CTX_MOD_COUNT) ||
	    p.mod_usec > FIELD_MAX(RCLINK_DMAQ_CTX_MOD_USEC))
		return -EINVAL;
	/*
	 * the largest chunks the area is a multiple of, up to 64 KiB; larger
	 * ones (up to what the area is a multiple of and the shim takes) when
	 * the shim's table has too few chunks for the area
	 */
	shift = min_t(u32, __ffs(p.area_size),
		      PAGE_SHIFT + RCLINK_CTX_CHUNK_ORDER);
	shift = min(shift, hw->chunk_max);
	while ((p.area_size >> shift) > hw->max_chunks &&
	       shift < min_t(u32, __ffs(p.area_size), hw->chunk_max))
		shift++;
	if (shift < hw->chunk_min || shift < PAGE_SHIFT ||
	    (p.area_size >> shift) > hw->max_chunks)
		return -EINVAL;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	mutex_init(&ctx->db_lock);
	spin_lock_init(&ctx->lock);
	ctx->wq = &rf->wq;
	xa_init(&ctx->qps);
	ctx->life = RCLINK_CTX_DEAD;	/* nothing on the board yet */
	ctx->area_size = p.area_size;
	ctx->chunk_shift = shift;
	ctx->nchunks = p.area_size >> shift;
	err = rclink_ctx_entries(p.sq_entries, hw, &ctx->sq_order);
	if (!err)
		err = rclink_ctx_entries(p.rq_entries, hw, &ctx->rq_order);
	if (!err)
		err = rclink_ctx_entries(p.cq_entries, hw, &ctx->cq_order);
	if (err)
		goto err_free;

	/* every page of the context is pinned: RLIMIT_MEMLOCK */
	tbl_order = rclink_ctx_order(array_size(ctx->nchunks, sizeof(u64)));
	ctx->pinned = rclink_ctx_pages(ctx, tbl_order);
	err = account_locked_vm(current->mm, ctx->pinned, true);
	if (err) {
		ctx->pinned = 0;
		err = -ENOMEM;
		goto err_free;
	}
	ctx->mm = current->mm;
	mmgrab(ctx->mm);
	ctx->pid = get_pid(task_tgid(current));

	id = ida_alloc_range(&hw->ida, 1, hw->num - 1, GFP_KERNEL);
	if (id < 0) {
		err = id == -ENOSPC ? -EBUSY : id;
		goto err_free;
	}
	ctx->id = id;
	ctx->hw = hw;
	err = rclink_ctx_alloc(ctx, hw->dev, tbl_order);
	if (err)
		goto err_destroy;
	err = xa_insert(&hw->ctxs, id, ctx, GFP_KERNEL);
	if (err)
		goto err_destroy;
	ctx->life = RCLINK_CTX_LIVE;
	err = rclink_ctx_enable(hw, ctx, &p);
	if (err)
		goto err_destroy;

	ctx->mapping = file->f_mapping;
	ctx->db_off = RCLINK_CTX_MMAP_DB +
		      ((u64)id << RCLINK_CTX_MMAP_DB_SHIFT);
	ctx->db_phys = hw->db_phys + ((phys_addr_t)id << hw->db_shift);

	p.ctx_id = id;
	p.db_size = PAGE_SIZE;
	p.db_off = ctx->db_off;
	p.sq_off = RCLINK_CTX_MMAP_SQ;
	p.rq_off = RCLINK_CTX_MMAP_RQ;
	p.cq_off = RCLINK_CTX_MMAP_CQ;
	p.dbrec_off = RCLINK_CTX_MMAP_DBREC;
	p.area_off = RCLINK_CTX_MMAP_AREA;
	p.dbrec_size = PAGE_SIZE;
	p.max_msg = hw->max_msg;
	p.ctx_num = hw->num - 1;
	err = rclink_ioc_copy_out(argp, usize, &p, sizeof(p));
	if (err)
		goto err_destroy;
	/* the file's operations see a complete context */
	smp_store_release(&rf->ctx, ctx);
	return 0;

err_destroy:
	rclink_ctx_destroy(ctx);
	return err;
err_free:
	rclink_ctx_free(ctx);
	return err;
}

/* ---- QPs and groups ------------------------------------------------------ */

long rclink_ctx_bind(struct file *file, struct rclink_file *rf,
		     struct rclink_dev *rdev, void __user *argp)
{
	struct rclink_ctx *ctx = rf->ctx;
	struct rclink_ctx_bind b;
	struct rclink_ctx_hw *hw;
	struct rclink_t1_qp *qp;
	u32 usize;
	int err;

	lockdep_assert_held(&rf->bind_lock);
	err = rclink_ioc_copy_in(&b, sizeof(b), RCLINK_CTX_BIND_SIZE_VER0,
				 argp, &usize);
	if (err)
		return err;
	if (b.flags & ~RCLINK_BIND_MCAST)
		return -EINVAL;
	if (!ctx)
		return -EINVAL;
	hw = ctx->hw;
	if (!hw || READ_ONCE(ctx->error))
		return -EIO;
	err = rclink_file_take_qp(file, rf, rdev, b.flags, b.qpn, &qp);
	if (err)
		return err;
	if (b.flags & RCLINK_BIND_MCAST) {
		ctx->groups[b.qpn] = qp;
		mutex_lock(&hw->sel_lock);
		rclink_wr64(rdev, RCLINK_DMAQ_T2_OWNER(b.qpn),
			    FIELD_PREP(RCLINK_DMAQ_T2_OWNER_CTX, ctx->id));
		mutex_unlock(&hw->sel_lock);
		return 0;
	}
	err = xa_insert(&ctx->qps, b.qpn, qp, GFP_KERNEL_ACCOUNT);
	if (err) {
		rclink_file_give_qp(qp);
		return err;
	}
	mutex_lock(&hw->sel_lock);
	rclink_ctx_qp_owner(hw, b.qpn, ctx->id);
	mutex_unlock(&hw->sel_lock);
	return 0;
}

/*
 * Owner tables back to context 0; the QPs and groups back to the files,
 * but for the QPs whose packets in flight the stop dropped
 * (DMAQ_QP_OWNER.flushed, which the owner's write clears): they stay in
 * ctx->qps for rclink_ctx_give_back_flushed().
 */
static void rclink_ctx_give_back_locked(struct rclink_ctx_hw *hw,
					struct rclink_ctx *ctx)
{
	struct rclink_t1_qp *qp;
	unsigned long qpn;
	bool flushed;
	u32 n;

	xa_for_each(&ctx->qps, qpn, qp) {
		rclink_wr64(hw->rdev, RCLINK_DMAQ_QP_OWNER_SEL,
			    FIELD_PREP(RCLINK_DMAQ_QP_OWNER_SEL_QPN, qpn));
		flushed = rclink_rd64(hw->rdev, RCLINK_DMAQ_QP_OWNER) &
			  RCLINK_DMAQ_QP_OWNER_FLUSHED;
		rclink_ctx_qp_owner(hw, qpn, 0);
		if (flushed && !rclink_gone(hw->rdev))
			continue;
		rclink_file_give_qp(qp);
		xa_erase(&ctx->qps, qpn);
	}
	for (n = 0; n < ARRAY_SIZE(ctx->groups); n++) {
		if (!ctx->groups[n])
			continue;
		rclink_wr64(hw->rdev, RCLINK_DMAQ_T2_OWNER(n), 0);
		rclink_file_give_qp(ctx->groups[n]);
		ctx->groups[n] = NULL;
	}
}

/*
 * The QPs left by rclink_ctx_give_back_locked(): their PSN sequence has a
 * hole, they go FATAL (rclink_evt_ops.qp_flushed) before a file or another
 * context can take them.  Without the selector lock: it takes the QPs'.
 */
static void rclink_ctx_give_back_flushed(struct rclink_ctx_hw *hw,
					 struct rclink_ctx *ctx)
{
	struct rclink_t1_qp *qp;
	unsigned long qpn;

	xa_for_each(&ctx->qps, qpn, qp) {
		hw->rdev->evt_ops->qp_flushed(hw->rdev, qpn);
		rclink_file_give_qp(qp);
		xa_erase(&ctx->qps, qpn);
	}
}

/* ---- kill and free ------------------------------------------------------- */

/*
 * Take the context off the board: revoke the doorbell, wake the pollers
 * (EPOLLERR), stop it (the handshake), give back its QPs and groups,
 * disable it, unmap its memory for the device.  The caller excludes every
 * other operation of the file (release, or removal holding the board's
 * rclink_cdev.rw for writing).  Does nothing the second time.
 */
void rclink_ctx_kill(struct rclink_ctx *ctx)
{
	struct rclink_ctx_hw *hw = ctx->hw;
	bool stopped = true;

	if (!hw)
		return;
	/* no peer's WRITE or READ reaches the area from here on */
	rclink_mr_ctx_kill(hw, ctx);
	mutex_lock(&ctx->db_lock);
	ctx->db_revoked = true;
	mutex_unlock(&ctx->db_lock);
	if (ctx->mapping)
		unmap_mapping_range(ctx->mapping, ctx->db_off, PAGE_SIZE, 1);

	spin_lock_irq(&ctx->lock);
	WRITE_ONCE(ctx->dead, true);
	WRITE_ONCE(ctx->error, true);
	spin_unlock_irq(&ctx->lock);
	wake_up_all(ctx->wq);

	mutex_lock(&hw->sel_lock);
	if (ctx->life == RCLINK_CTX_LIVE)
		stopped = rclink_ctx_stop_locked(hw, ctx->id);
	rclink_ctx_give_back_locked(hw, ctx);
	if (stopped) {
		rclink_ctx_sel(hw, ctx->id);
		rclink_wr64(hw->rdev, RCLINK_DMAQ_CTX_CTRL, 0);
	}
	/* under sel_lock: rclink_ctx_info() finds live contexts only */
	xa_erase(&hw->ctxs, ctx->id);
	mutex_unlock(&hw->sel_lock);
	rclink_ctx_give_back_flushed(hw, ctx);

	if (stopped) {
		rclink_ctx_unmap(ctx, hw->dev);
		ida_free(&hw->ida, ctx->id);
		ctx->life = RCLINK_CTX_DEAD;
	} else {
		/* the board may still write the memory: keep it for ever */
		dev_err(hw->dev, "context %u did not stop: its memory is left mapped\n",
			ctx->id);
		ctx->life = RCLINK_CTX_LEAKED;
	}
	ctx->hw = NULL;
}

/* At the file's release: killed, or never on the board */
void rclink_ctx_free(struct rclink_ctx *ctx)
{
	if (WARN_ON_ONCE(ctx->hw) || ctx->life == RCLINK_CTX_LEAKED)
		return;
	rclink_ctx_free_mem(ctx);
	rclink_ctx_unpin(ctx);
	xa_destroy(&ctx->qps);
	mutex_destroy(&ctx->db_lock);
	put_pid(ctx->pid);
	kfree_rcu(ctx, rcu);
}

/* ---- netlink's view ------------------------------------------------------ */

/*
 * The context numbered *id or the next one above it into @ci (*id moved
 * to it); -ENOENT when there is none, -EOPNOTSUPP without contexts.
 * Under sel_lock a context in hw->ctxs is not killed (the kill erases it
 * under the lock) and so not freed.
 */
int rclink_ctx_info(struct rclink_dev *rdev, u32 *id,
		    struct rclink_ctx_info *ci)
{
	struct rclink_dmaq *dq = READ_ONCE(rdev->t1.dmaq);
	struct rclink_ctx_hw *hw = dq ? READ_ONCE(dq->ctx) : NULL;
	u32 *qpns = ci->qpns, qps_size = ci->qps_size;
	unsigned long n = *id, qpn;
	struct rclink_ctx *ctx;
	struct rclink_t1_qp *qp;
	unsigned int i;
	u64 st, ost;
	u32 g;

	lockdep_assert_held(&rclink_t1_devs_lock);
	if (!hw)
		return -EOPNOTSUPP;
	mutex_lock(&hw->sel_lock);
	ctx = xa_find(&hw->ctxs, &n, ULONG_MAX, XA_PRESENT);
	if (!ctx) {
		mutex_unlock(&hw->sel_lock);
		return -ENOENT;
	}
	*id = n;
	memset(ci, 0, sizeof(*ci));
	ci->qpns = qpns;
	ci->qps_size = qps_size;
	ci->id = ctx->id;
	ci->pid = pid_vnr(ctx->pid);
	ci->sq_entries = 1U << ctx->sq_order;
	ci->rq_entries = 1U << ctx->rq_order;
	ci->cq_entries = 1U << ctx->cq_order;
	ci->area_size = ctx->area_size;
	xa_for_each(&ctx->qps, qpn, qp)
		if (ci->nqps < ci->qps_size)
			ci->qpns[ci->nqps++] = qpn;
	for (g = 0; g < RCLINK_T2_GROUPS; g++)
		if (READ_ONCE(ctx->groups[g]))
			ci->groups |= BIT(g);

	rclink_ctx_sel(hw, ctx->id);
	st = rclink_rd64(rdev, RCLINK_DMAQ_CTX_STATUS);
	if (st & RCLINK_DMAQ_CTX_STATUS_ERROR) {
		ci->cause = FIELD_GET(RCLINK_DMAQ_CTX_STATUS_CAUSE, st);
		ci->err_info = rclink_rd64(rdev, RCLINK_DMAQ_CTX_ERR_INFO);
	}
	rclink_ctx_counters(hw, ci->count);
	for (i = 0; i < RCLINK_CTX_CNT_NUM; i++)
		ci->count[i] -= ctx->base[i];
	ost = rclink_rd64(rdev, RCLINK_DMAQ_CTX_OST);
	ci->ost_used = FIELD_GET(RCLINK_DMAQ_CTX_OST_USED, ost);
	ci->ost_max = FIELD_GET(RCLINK_DMAQ_CTX_OST_MAX, ost);

	spin_lock_irq(&ctx->lock);
	if (st & RCLINK_DMAQ_CTX_STATUS_ERROR) {
		ci->state = RCLINK_CTX_STATE_ERROR;
	} else if (ctx->error) {
		ci->state = RCLINK_CTX_STATE_ERROR;
		ci->cause = ctx->cause;
	}
	if (ctx->dead)
		ci->state = RCLINK_CTX_STATE_DEAD;
	spin_unlock_irq(&ctx->lock);
	mutex_unlock(&hw->sel_lock);
	return 0;
}

/* DMAQ_CTX_DB_DROP; *absent on a board without user contexts */
u64 rclink_ctx_db_drop(struct rclink_dev *rdev, bool *absent)
{
	struct rclink_dmaq *dq = READ_ONCE(rdev->t1.dmaq);

	*absent = !dq || !READ_ONCE(dq->ctx);
	return *absent ? 0 : rclink_rd64(rdev, RCLINK_DMAQ_CTX_DB_DROP);
}

/* ---- mmap ---------------------------------------------------------------- */

static vm_fault_t rclink_ctx_db_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct rclink_ctx *ctx = vma->vm_private_data;
	vm_fault_t ret;

	/* a revocation zaps after this insert, or this sees it */
	mutex_lock(&ctx->db_lock);
	if (ctx->db_revoked)
		ret = VM_FAULT_SIGBUS;
	else
		ret = vmf_insert_pfn_prot(vma, vmf->address,
					  PHYS_PFN(ctx->db_phys),
					  vma->vm_page_prot);
	mutex_unlock(&ctx->db_lock);
	return ret;
}

static const struct vm_operations_struct rclink_ctx_db_vm_ops = {
	.fault = rclink_ctx_db_fault,
};

static int rclink_ctx_mmap_mem(struct vm_area_struct *vma,
			       const struct rclink_ctx_mem *m)
{
	unsigned long size = vma->vm_end - vma->vm_start;

	if (size > PAGE_SIZE << m->order)
		return -EINVAL;
	return remap_pfn_range(vma, vma->vm_start, page_to_pfn(m->page), size,
			       vma->vm_page_prot);
}

int rclink_ctx_mmap(struct rclink_file *rf, struct vm_area_struct *vma)
{
	/* pairs with the release in rclink_ctx_create() */
	struct rclink_ctx *ctx = smp_load_acquire(&rf->ctx);
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long done, n;
	u32 i;
	int err;

	if (!ctx)
		return -EINVAL;
	if (READ_ONCE(ctx->dead))
		return -ENODEV;
	/* shared only; never inherited (fork: the child gets none of it) */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	rclink_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);

	if (off == ctx->db_off) {
		if (size != PAGE_SIZE)
			return -EINVAL;
		rclink_vm_flags_set(vma, VM_IO | VM_PFNMAP);
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
		vma->vm_private_data = ctx;
		vma->vm_ops = &rclink_ctx_db_vm_ops;
		return 0;
	}
	switch (off) {
	case RCLINK_CTX_MMAP_SQ:
		return rclink_ctx_mmap_mem(vma, &ctx->sq);
	case RCLINK_CTX_MMAP_RQ:
		return rclink_ctx_mmap_mem(vma, &ctx->rq);
	case RCLINK_CTX_MMAP_CQ:
		return rclink_ctx_mmap_mem(vma, &ctx->cq);
	case RCLINK_CTX_MMAP_DBREC:
		/* the board's: read only */
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		rclink_vm_flags_clear(vma, VM_MAYWRITE);
		return rclink_ctx_mmap_mem(vma, &ctx->rec);
	case RCLINK_CTX_MMAP_AREA:
		if (size > ctx->area_size)
			return -EINVAL;
		for (i = 0, done = 0; done < size; i++, done += n) {
			n = min_t(unsigned long,
				  PAGE_SIZE << ctx->chunks[i].order,
				  size - done);
			err = remap_pfn_range(vma, vma->vm_start + done,
					      page_to_pfn(ctx->chunks[i].page),
					      n, vma->vm_page_prot);
			if (err)
				return err;
		}
		return 0;
	default:
		return -EINVAL;
	}
}

/* ---- events -------------------------------------------------------------- */

/*
 * Without the lock, as rclink_ctx_events_ready(): poll_wait()'s barriers
 * order these loads after the event ring handler's stores
 */
__poll_t rclink_ctx_poll(struct rclink_ctx *ctx)
{
	return (READ_ONCE(ctx->events) ? EPOLLIN | EPOLLRDNORM : 0) |
	       (READ_ONCE(ctx->error) ? EPOLLERR : 0);
}

/*
 * A CTX_CQ or CTX_ERR record: the event ring's hard interrupt handler
 * (MSI-X), or its thread
 */
void rclink_ctx_event(struct rclink_dev *rdev, u32 source, u64 info)
{
	u32 id = FIELD_GET(RCLINK_CTX_EVT_CTX, info);
	struct rclink_ctx_hw *hw;
	struct rclink_dmaq *dq;
	struct rclink_ctx *ctx;
	unsigned long flags;
	__poll_t mask;

	rcu_read_lock();
	dq = READ_ONCE(rdev->t1.dmaq);
	hw = dq ? READ_ONCE(dq->ctx) : NULL;
	ctx = hw ? xa_load(&hw->ctxs, id) : NULL;
	if (ctx) {
		spin_lock_irqsave(&ctx->lock, flags);
		if (source == RCLINK_EVT_SRC_CTX_CQ) {
			WRITE_ONCE(ctx->events, ctx->events + 1);
			mask = EPOLLIN | EPOLLRDNORM;
		} else {
			WRITE_ONCE(ctx->error, true);
			ctx->cause = FIELD_GET(RCLINK_CTX_EVT_CAUSE, info);
			mask = EPOLLERR;
		}
		/*
		 * Under the lock: the queue is the file's, which is freed
		 * (without RCU) after rclink_ctx_kill() set dead
		 */
		if (!ctx->dead)
			wake_up_poll(ctx->wq, mask);
		spin_unlock_irqrestore(&ctx->lock, flags);
	}
	rcu_read_unlock();
	/* a context destroyed after it armed its CQ, or no such context */
	if (!ctx)
		dev_dbg_ratelimited(rdev->dev, "event of source %u for context %u, which does not exist (info 0x%llx)\n",
				    source, id, info);
}

/*
 * Something to report: a CQ event, an error, the context's or file's end.
 * Without the lock, so that a sleeper woken by the event ring's handler
 * does not spin on the lock the handler still holds while it wakes it:
 * the wait's barriers order these loads after the waker's stores.
 */
static bool rclink_ctx_events_ready(struct rclink_file *rf,
				    struct rclink_ctx *ctx)
{
	return READ_ONCE(ctx->events) || READ_ONCE(ctx->error) ||
	       READ_ONCE(ctx->dead) || rclink_file_gone(rf);
}

/*
 * RCLINK_CTX_EVENTS_WAIT: sleep on the file's queue, where the event ring's
 * handler wakes the context's pollers (rclink_ctx_event()) and removal
 * wakes every sleeper before it takes the board's rw for writing
 */
static int rclink_ctx_events_wait(struct rclink_file *rf,
				  struct rclink_ctx *ctx, u32 timeout_ms)
{
	long t = timeout_ms ? msecs_to_jiffies(timeout_ms) :
			      MAX_SCHEDULE_TIMEOUT;

	t = wait_event_interruptible_timeout(rf->wq,
					     rclink_ctx_events_ready(rf, ctx),
					     t);
	return t < 0 ? -EINTR : 0;
}

long rclink_ctx_events(struct rclink_file *rf, void __user *argp)
{
	/* pairs with the release in rclink_ctx_create() */
	struct rclink_ctx *ctx = smp_load_acquire(&rf->ctx);
	u64 count[RCLINK_CTX_CNT_NUM] = { };
	struct rclink_ctx_events ev;
	struct rclink_ctx_hw *hw;
	u32 usize, flags;
	u64 st = 0;
	unsigned int i;
	bool dead;
	int err;

	err = rclink_ioc_copy_in(&ev, sizeof(ev), RCLINK_CTX_EVENTS_SIZE_VER0,
				 argp, &usize);
	if (err)
		return err;
	flags = ev.flags;
	if (flags & ~(RCLINK_CTX_EVENTS_WAIT | RCLINK_CTX_EVENTS_COUNTERS) ||
	    ((flags & RCLINK_CTX_EVENTS_COUNTERS) &&
	     usize < RCLINK_CTX_EVENTS_SIZE_VER1))
		return -EINVAL;
	if (!ctx)
		return -EINVAL;
	if (ev.flags & RCLINK_CTX_EVENTS_WAIT) {
		err = rclink_ctx_events_wait(rf, ctx, ev.timeout_ms);
		if (err)
			return err;
	}
	memset(&ev, 0, sizeof(ev));
	ev.size = usize;

	/* removal (which kills) holds the board's rw for writing: hw stays */
	hw = ctx->hw;
	if (hw) {
		mutex_lock(&hw->sel_lock);
		rclink_ctx_sel(hw, ctx->id);
		st = rclink_rd64(hw->rdev, RCLINK_DMAQ_CTX_STATUS);
		if (st & RCLINK_DMAQ_CTX_STATUS_ERROR)
			ev.err_info = rclink_rd64(hw->rdev,
						  RCLINK_DMAQ_CTX_ERR_INFO);
		if (flags & RCLINK_CTX_EVENTS_COUNTERS) {
			rclink_ctx_counters(hw, count);
			for (i = 0; i < RCLINK_CTX_CNT_NUM; i++)
				count[i] -= ctx->base[i];
		}
		mutex_unlock(&hw->sel_lock);
	}
	ev.rx_nobuf = count[RCLINK_CTX_CNT_RX_NOBUF];
	ev.not_owner = count[RCLINK_CTX_CNT_NOT_OWNER];

	spin_lock_irq(&ctx->lock);
	/* CONFIG errors post no event; an error is one all the same */
	if (st & RCLINK_DMAQ_CTX_STATUS_ERROR) {
		WRITE_ONCE(ctx->error, true);
		ctx->cause = FIELD_GET(RCLINK_DMAQ_CTX_STATUS_CAUSE, st);
	}
	ev.events = ctx->events;
	WRITE_ONCE(ctx->events, 0);
	dead = ctx->dead;
	ev.cause = ctx->cause;
	if (dead)
		ev.state = RCLINK_CTX_STATE_DEAD;
	else if (ctx->error)
		ev.state = RCLINK_CTX_STATE_ERROR;
	else
		ev.state = RCLINK_CTX_STATE_RUNNING;
	spin_unlock_irq(&ctx->lock);

	return rclink_ioc_copy_out(argp, usize, &ev, sizeof(ev));
}
