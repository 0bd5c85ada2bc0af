// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the mmap'd rings of /dev/rclinkN (Documentation/uapi/rclink-dev.rst,
 * "Rings"; uapi/linux/rclink_dev.h).
 *
 * A file gets, once, a submission queue, a completion queue and a message
 * area.  The rings (a header page, the SQEs, the CQEs) are vmalloc_user
 * memory; the area is chunks of contiguous pages of RCLINK_WQE_MAX_PIECE
 * (one WQE each), zeroed, DMA mapped towards the device for the file's
 * whole life, so a SEND becomes WQEs pointing into the area: no copy.  A
 * RECV lends a buffer of the area: the next message of the bound QP is
 * copied there by the CQ handler (straight from reassembly when nothing
 * older waits on the QP) or by RING_ENTER, and completes as a CQE.
 *
 * User space is not trusted: the kernel keeps its own SQ head, CQ tail and
 * counters and only reads sq_tail and cq_head from the shared header; every
 * SQE is copied before it is checked; addresses and lengths are checked
 * against the area; a SQ tail more than sq_entries ahead fails RING_ENTER.
 * Completions never outnumber the CQ: a SQE is taken only with a CQE
 * reserved for it, so only a process that lies about cq_head can have its
 * own CQEs overwritten (counted in cq_overflow).  The area and the rings
 * are freed with the file, so unmapping them while messages are in flight
 * hurts nobody: the device reads pages that are still the file's.
 */

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "rclink_compat.h"
#include "rclink_ctx.h"
#include "rclink_dp.h"

#define RCLINK_RING_CHUNK	RCLINK_WQE_MAX_PIECE
#define RCLINK_RING_CHUNK_SHIFT	ilog2(RCLINK_RING_CHUNK)

static struct rclink_ring *rclink_file_ring(struct rclink_file *rf)
{
	/* pairs with the release in rclink_ring_setup() */
	return smp_load_acquire(&rf->ring);
}

/* ---- memory -------------------------------------------------------------- */

void rclink_ring_dma_unmap(struct rclink_ring *ring)
{
	u32 i;

	if (!ring->dev)
		return;
	for (i = 0; i < ring->nchunks; i++)
		dma_unmap_page(ring->dev, ring->chunks[i].dma,
			       ring->chunks[i].len, DMA_BIDIRECTIONAL);
	ring->dev = NULL;
}

/* With the file: no mapping, no message in flight, no operation left */
void rclink_ring_free(struct rclink_ring *ring)
{
	struct rclink_ring_chunk *c;
	u32 i;

	/* the board may still write into the area: leave it be */
	if (!ring->board_holds) {
		rclink_ring_dma_unmap(ring);
		for (i = 0; i < ring->nchunks; i++) {
			c = &ring->chunks[i];
			__free_pages(c->page, get_order(c->len));
		}
	}
	kvfree(ring->chunks);
	kvfree(ring->rbufs);
	kvfree(ring->cq_done);
	vfree(ring->mem);
	mutex_destroy(&ring->submit_lock);
	kfree(ring);
}

static int rclink_ring_area_alloc(struct rclink_ring *ring,
				  struct device *dev)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN;
	struct rclink_ring_chunk *c;
	u32 n, i;

	n = DIV_ROUND_UP(ring->area_size, RCLINK_RING_CHUNK);
	ring->chunks = kvcalloc(n, sizeof(*ring->chunks), GFP_KERNEL_ACCOUNT);
	if (!ring->chunks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		c = &ring->chunks[i];
		c->len = min_t(u32, RCLINK_RING_CHUNK,
			       ring->area_size - i * RCLINK_RING_CHUNK);
		c->page = alloc_pages(gfp, get_order(c->len));
		if (!c->page)
			return -ENOMEM;
		ring->nchunks++;
	}
	for (i = 0; i < n; i++) {
		c = &ring->chunks[i];
		c->dma = dma_map_page(dev, c->page, 0, c->len,
				      DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, c->dma)) {
			while (i--)
				dma_unmap_page(dev, ring->chunks[i].dma,
					       ring->chunks[i].len,
					       DMA_BIDIRECTIONAL);
			return -ENOMEM;
		}
	}
	ring->dev = dev;
	return 0;
}

/* Whether [addr, addr + len) lies in the area */
static bool rclink_ring_in_area(const struct rclink_ring *ring, u64 addr,
				u32 len)
{
	return addr <= ring->area_size && len <= ring->area_size - addr;
}

/* Copy a received message into the area (checked by the caller) */
static void rclink_ring_copy_in(struct rclink_ring *ring, u64 addr,
				const u8 *src, u32 len)
{
	u32 c, off, n;

	while (len) {
		c = addr >> RCLINK_RING_CHUNK_SHIFT;
		off = addr & (RCLINK_RING_CHUNK - 1);
		n = min(len, ring->chunks[c].len - off);
		memcpy(page_address(ring->chunks[c].page) + off, src, n);
		addr += n;
		src += n;
		len -= n;
	}
}

/* ---- setup and mmap ------------------------------------------------------ */

long rclink_ring_setup(struct rclink_file *rf, struct rclink_dmaq *dq,
		       void __user *argp)
{
	struct rclink_ring_setup p;
	struct rclink_ring *ring;
	size_t sq_bytes, cq_bytes;
	u32 usize;
	int err;

	lockdep_assert_held(&rf->bind_lock);

	err = rclink_ioc_copy_in(&p, sizeof(p), RCLINK_RING_SETUP_SIZE_VER0,
				 argp, &usize);
	if (err)
		return err;
	if (p.flags)
		return -EINVAL;
	if (!p.cq_entries)
		p.cq_entries = 2 * p.sq_entries;
	if (!p.sq_entries || p.sq_entries > RCLINK_RING_MAX_SQ ||
	    !is_power_of_2(p.sq_entries) || p.cq_entries < p.sq_entries ||
	    p.cq_entries > RCLINK_RING_MAX_CQ || !is_power_of_2(p.cq_entries))
		return -EINVAL;
	if (!p.area_size || p.area_size > RCLINK_RING_MAX_AREA ||
	    !PAGE_ALIGNED(p.area_size))
		return -EINVAL;
	if (rf->ring)
		return -EBUSY;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		return -ENOMEM;
	mutex_init(&ring->submit_lock);
	spin_lock_init(&ring->lock);
	ring->sq_entries = p.sq_entries;
	ring->cq_entries = p.cq_entries;
	ring->area_size = p.area_size;

	sq_bytes = array_size(p.sq_entries, sizeof(struct rclink_sqe));
	cq_bytes = array_size(p.cq_entries, sizeof(struct rclink_cqe));
	p.sq_off = sizeof(struct rclink_ring_hdr);
	p.cq_off = ALIGN(p.sq_off + sq_bytes, SMP_CACHE_BYTES);
	p.rings_size = PAGE_ALIGN(p.cq_off + cq_bytes);
	p.max_msg = dq->max_msg;

	err = -ENOMEM;
	ring->mem_size = p.rings_size;
	ring->mem = vmalloc_user(ring->mem_size);
	ring->rbufs = kvcalloc(p.cq_entries, sizeof(*ring->rbufs),
			       GFP_KERNEL_ACCOUNT);
	ring->cq_done = kvcalloc(p.cq_entries, sizeof(*ring->cq_done),
				 GFP_KERNEL_ACCOUNT);
	if (!ring->mem || !ring->rbufs || !ring->cq_done)
		goto err_free;
	ring->hdr = ring->mem;
	ring->sqes = ring->mem + p.sq_off;
	ring->cqes = ring->mem + p.cq_off;
	ring->hdr->sq_mask = p.sq_entries - 1;
	ring->hdr->cq_mask = p.cq_entries - 1;
	err = rclink_ring_area_alloc(ring, dq->dev);
	if (err)
		goto err_free;

	err = rclink_ioc_copy_out(argp, usize, &p, sizeof(p));
	if (err)
		goto err_free;
	/* the file's operations see a complete ring */
	smp_store_release(&rf->ring, ring);
	return 0;

err_free:
	rclink_ring_free(ring);
	return err;
}

int rclink_ring_mmap(struct rclink_file *rf, struct vm_area_struct *vma)
{
	struct rclink_ring *ring = rclink_file_ring(rf);
	unsigned long size = vma->vm_end - vma->vm_start;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long done;
	u32 i, n;
	int err;

	if (!ring)
		return -EINVAL;
	/* shared only: a private copy would never see the kernel's updates */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (off == RCLINK_RING_OFF_RINGS) {
		if (size > ring->mem_size)
			return -EINVAL;
		rclink_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
		return remap_vmalloc_range(vma, ring->mem, 0);
	}
	if (off != RCLINK_RING_OFF_AREA || size > ring->area_size)
		return -EINVAL;
	for (i = 0, done = 0; done < size; i++, done += n) {
		n = min_t(unsigned long, ring->chunks[i].len, size - done);
		err = remap_pfn_range(vma, vma->vm_start + done,
				      page_to_pfn(ring->chunks[i].page), n,
				      vma->vm_page_prot);
		if (err)
			return err;
	}
	return 0;
}

/* ---- completions --------------------------------------------------------- */

/* CQEs produced and not consumed, as far as user space says (ring->lock) */
static u32 rclink_ring_cq_used(const struct rclink_ring *ring)
{
	u32 used = ring->cq_tail - READ_ONCE(ring->hdr->cq_head);

	/* a head ahead of the tail, or too far behind: a full ring */
	return min(used, ring->cq_entries);
}

bool rclink_ring_cq_ready(struct rclink_ring *ring)
{
	return READ_ONCE(ring->cq_pub) != READ_ONCE(ring->hdr->cq_head);
}

/*
 * Take the next CQE for @user_data and @op (ring->lock held); it is
 * published by rclink_ring_cq_fill().  A RECV buffer's CQE is taken when
 * a message is given the buffer, and filled after the copy, which runs
 * without the locks: CQEs are published in the order they were taken.
 */
static u32 rclink_ring_cq_take(struct rclink_ring *ring, u64 user_data,
			       u8 op)
{
	struct rclink_cqe *cqe;

	lockdep_assert_held(&ring->lock);

	/* counted; cq_reserved keeps it from happening (a lying user) */
	if (ring->cq_tail - READ_ONCE(ring->hdr->cq_head) >= ring->cq_entries)
		WRITE_ONCE(ring->hdr->cq_overflow, ++ring->cq_overflow);
	cqe = &ring->cqes[ring->cq_tail & (ring->cq_entries - 1)];
	WRITE_ONCE(cqe->user_data, user_data);
	WRITE_ONCE(cqe->flags, op);
	return ring->cq_tail++;
}

/*
 * The result of CQE @slot, then publish every CQE written up to the first
 * one still being filled (ring->lock held)
 */
static void rclink_ring_cq_fill(struct rclink_ring *ring, u32 slot, int res)
{
	u32 mask = ring->cq_entries - 1;

	lockdep_assert_held(&ring->lock);

	WRITE_ONCE(ring->cqes[slot & mask].res, res);
	ring->cq_done[slot & mask] = 1;
	if (slot != ring->cq_pub)
		return;
	while (ring->cq_pub != ring->cq_tail &&
	       ring->cq_done[ring->cq_pub & mask]) {
		ring->cq_done[ring->cq_pub & mask] = 0;
		ring->cq_pub++;
	}
	/* the CQEs before the tail */
	smp_store_release(&ring->hdr->cq_tail, ring->cq_pub);
}

/* Post a CQE (ring->lock held) */
static void rclink_ring_post(struct rclink_ring *ring, u64 user_data, int res,
			     u8 op)
{
	u32 slot = rclink_ring_cq_take(ring, user_data, op);

	rclink_ring_cq_fill(ring, slot, res);
}

/* A SQE that failed its checks: complete it with @err (ring->lock held) */
static void rclink_ring_post_error(struct rclink_ring *ring,
				   const struct rclink_sqe *sqe, int err)
{
	WRITE_ONCE(ring->hdr->sq_errors, ++ring->sq_errors);
	rclink_ring_post(ring, sqe->user_data, err, sqe->opcode);
}

/* A ring SEND, WRITE or READ completed (the CQ handler or the removal) */
void rclink_ring_tx_done(struct rclink_ring *ring,
			 const struct rclink_tx_msg *msg, int res)
{
	u8 op = RCLINK_OP_SEND;

	if (msg->rdma == RCLINK_WQE_OP_WRITE)
		op = RCLINK_OP_WRITE;
	else if (msg->rdma == RCLINK_WQE_OP_READ)
		op = RCLINK_OP_READ;
	spin_lock(&ring->lock);
	ring->cq_reserved--;
	rclink_ring_post(ring, msg->user_data, res, op);
	spin_unlock(&ring->lock);
}

/*
 * Give @m the oldest RECV buffer of @rf's ring, if there is one, and take
 * its CQE (qp->lock held): rclink_ring_rx_fill() copies the message and
 * completes the CQE once the caller dropped the locks, so that no message
 * is copied under a spinlock.  A buffer too small completes with
 * -EMSGSIZE and the message stays queued.  True when @m has a buffer (it
 * holds a reference to @rf until filled).
 */
static bool rclink_ring_rx_take(struct rclink_ring *ring,
				struct rclink_file *rf, struct rclink_msg *m)
{
	struct rclink_ring_rbuf *rb;
	bool taken = false;

	spin_lock(&ring->lock);
	if (ring->rb_head != ring->rb_tail) {
		rb = &ring->rbufs[ring->rb_head & (ring->cq_entries - 1)];
		ring->rb_head++;
		ring->cq_reserved--;
		if (m->size > rb->len) {
			rclink_ring_post(ring, rb->user_data, -EMSGSIZE,
					 RCLINK_OP_RECV);
		} else {
			m->rx_slot = rclink_ring_cq_take(ring, rb->user_data,
							 RCLINK_OP_RECV);
			m->rx_addr = rb->addr;
			rclink_file_get(rf);
			m->rx_rf = rf;
			taken = true;
		}
	}
	spin_unlock(&ring->lock);
	return taken;
}

/* Copy @m into the RECV buffer it was given, complete it, wake (no lock) */
void rclink_ring_rx_fill(struct rclink_msg *m)
{
	struct rclink_file *rf = m->rx_rf;
	struct rclink_ring *ring = rf->ring;

	rclink_ring_copy_in(ring, m->rx_addr, m->data, m->size);
	spin_lock(&ring->lock);
	rclink_ring_cq_fill(ring, m->rx_slot, m->size);
	spin_unlock(&ring->lock);
	m->rx_rf = NULL;
	wake_up_poll(&rf->wq, EPOLLIN | EPOLLRDNORM);
	rclink_file_put(rf);
}

/* The bound file's ring takes @m (qp->lock held): see rx_take() */
bool rclink_ring_rx_direct(struct rclink_ring *ring, struct rclink_t1_qp *qp,
			   struct rclink_msg *m)
{
	lockdep_assert_held(&qp->lock);
	return rclink_ring_rx_take(ring, qp->owner, m);
}

/*
 * Messages queued on the QP into the RECV buffers, oldest first, with the
 * file's read_lock held (read() takes messages off the same queue).
 */
static void rclink_ring_rx_drain(struct rclink_ring *ring,
				 struct rclink_file *rf,
				 struct rclink_t1_qp *qp,
				 struct rclink_dmaq *dq)
{
	struct rclink_msg *m;
	bool more = true;

	lockdep_assert_held(&rf->read_lock);

	while (more) {
		spin_lock(&qp->lock);
		m = list_first_entry_or_null(&qp->rx_msgs, struct rclink_msg,
					     list);
		more = m && READ_ONCE(ring->rb_head) !=
			    READ_ONCE(ring->rb_tail);
		if (more && rclink_ring_rx_take(ring, rf, m)) {
			list_del(&m->list);
			qp->rx_queued--;
			qp->rx_queued_bytes -= m->size;
		} else {
			m = NULL;
		}
		spin_unlock(&qp->lock);
		if (m) {
			rclink_ring_rx_fill(m);
			rclink_dp_cnt_inc(dq, RCLINK_DP_RING_RECVS);
			rclink_dmaq_rx_dequeued(dq, m->size);
			kvfree(m);
		}
	}
}

/* ---- submission ---------------------------------------------------------- */

/* The area as WQE pieces of a SEND: one per chunk crossed */
static struct rclink_tx_msg *rclink_ring_tx_msg(struct rclink_ring *ring,
						struct rclink_dmaq *dq,
						u64 addr, u32 len)
{
	u32 first = addr >> RCLINK_RING_CHUNK_SHIFT;
	u32 last = (addr + len - 1) >> RCLINK_RING_CHUNK_SHIFT;
	struct rclink_tx_piece *p;
	struct rclink_tx_msg *msg;
	u32 c, off, n;

	msg = kmalloc(struct_size(msg, piece, last - first + 1),
		      GFP_KERNEL_ACCOUNT);
	if (!msg)
		return NULL;
	INIT_LIST_HEAD(&msg->list);
	INIT_LIST_HEAD(&msg->qp_list);
	msg->len = len;
	msg->npieces = 0;
	msg->ring = true;
	msg->rdma = 0;
	msg->qp = NULL;
	msg->rf = NULL;
	for (c = first; len; c++) {
		off = addr & (RCLINK_RING_CHUNK - 1);
		n = min(len, ring->chunks[c].len - off);
		p = &msg->piece[msg->npieces++];
		p->page = NULL;
		p->order = 0;
		p->dma = ring->chunks[c].dma + off;
		p->len = n;
		dma_sync_single_range_for_device(dq->dev, ring->chunks[c].dma,
						 off, n, DMA_BIDIRECTIONAL);
		addr += n;
		len -= n;
	}
	return msg;
}

/* Outcomes of one SQE */
enum rclink_ring_take {
	RCLINK_RING_TAKEN,	/* consumed: in flight, lent, or completed */
	RCLINK_RING_WINDOW,	/* the file's window is full: retry later */
	RCLINK_RING_SQ_FULL,	/* the board's send queue is full */
	RCLINK_RING_CQ_FULL,	/* no CQE to reserve: reap first */
};

/* Reserve a CQE for a SQE */
static bool rclink_ring_reserve(struct rclink_ring *ring)
{
	bool ok;

	spin_lock(&ring->lock);
	ok = rclink_ring_cq_used(ring) + ring->cq_reserved < ring->cq_entries;
	if (ok)
		ring->cq_reserved++;
	spin_unlock(&ring->lock);
	return ok;
}

/* Complete a reserved SQE at once */
static void rclink_ring_complete(struct rclink_ring *ring,
				 const struct rclink_sqe *sqe, int res)
{
	spin_lock(&ring->lock);
	ring->cq_reserved--;
	if (res < 0)
		rclink_ring_post_error(ring, sqe, res);
	else
		rclink_ring_post(ring, sqe->user_data, res, sqe->opcode);
	spin_unlock(&ring->lock);
}

/*
 * A SEND, or a WRITE or READ with its REMOTE SQE @rem (RCLINK_OP_REMOTE
 * checked by the caller)
 */
static enum rclink_ring_take
rclink_ring_send(struct rclink_ring *ring, struct rclink_file *rf,
		 struct rclink_t1_qp *qp, struct rclink_dmaq *dq,
		 const struct rclink_sqe *sqe, const struct rclink_sqe *rem,
		 bool *doorbell)
{
	struct rclink_ctx_hw *hw = READ_ONCE(dq->ctx);
	u32 max_rdma = rem && hw ? rclink_mr_max_len(hw) : 0;
	struct rclink_tx_msg *msg;
	int err;

	if (rem && (!max_rdma || (qp && qp->group)))
		err = -EOPNOTSUPP;	/* no registration table; TYPE2 */
	else if (rem && (rem->flags || rem->resv))
		err = -EINVAL;
	else if (rem ? sqe->len > max_rdma :
		 (sqe->len > dq->max_msg ||
		  (qp && qp->group && sqe->len > rclink_dp_t2_max_msg(dq))))
		err = -EMSGSIZE;
	else if (!rclink_ring_in_area(ring, sqe->addr, sqe->len))
		err = -EFAULT;
	else if (!qp)
		err = -ENOTCONN;
	else if (READ_ONCE(qp->state) == RCLINK_QP_STATE_FATAL)
		err = -ECONNRESET;
	else if (!ring->dev)
		err = -ENODEV;
	else
		err = 0;
	if (err)
		goto complete;

	if (!rclink_file_reserve(rf))
		goto unreserve_cq;
	msg = rclink_ring_tx_msg(ring, dq, sqe->addr, sqe->len);
	if (!msg) {
		rclink_file_unreserve(rf);
		err = -ENOMEM;
		goto complete;
	}
	msg->user_data = sqe->user_data;
	if (rem) {
		msg->rdma = sqe->opcode == RCLINK_OP_WRITE ?
			    RCLINK_WQE_OP_WRITE : RCLINK_WQE_OP_READ;
		msg->rkey = rem->len;
		msg->raddr = rem->addr;
	}
	err = rclink_dmaq_tx_post(dq, msg, qp, rf, false);
	if (!err) {
		*doorbell = true;
		rclink_dp_cnt_inc(dq, rem ? RCLINK_DP_RING_RDMA :
				  RCLINK_DP_RING_SENDS);
		return RCLINK_RING_TAKEN;
	}
	kfree(msg);
	rclink_file_unreserve(rf);
	if (err == -ENOSPC) {
		spin_lock(&ring->lock);
		ring->cq_reserved--;
		spin_unlock(&ring->lock);
		return RCLINK_RING_SQ_FULL;
	}
complete:
	rclink_dp_cnt_inc(dq, RCLINK_DP_RING_SQE_ERRORS);
	rclink_ring_complete(ring, sqe, err);
	return RCLINK_RING_TAKEN;

unreserve_cq:
	spin_lock(&ring->lock);
	ring->cq_reserved--;
	spin_unlock(&ring->lock);
	return RCLINK_RING_WINDOW;
}

static void rclink_ring_recv(struct rclink_ring *ring,
			     struct rclink_t1_qp *qp, struct rclink_dmaq *dq,
			     const struct rclink_sqe *sqe)
{
	struct rclink_ring_rbuf *rb;
	int err = 0;

	if (!sqe->len)
		err = -EINVAL;
	else if (!rclink_ring_in_area(ring, sqe->addr, sqe->len))
		err = -EFAULT;
	else if (!qp)
		err = -ENOTCONN;
	if (err) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_RING_SQE_ERRORS);
		rclink_ring_complete(ring, sqe, err);
		return;
	}
	/* lent until a message comes: the CQE reserved stays reserved */
	spin_lock(&ring->lock);
	rb = &ring->rbufs[ring->rb_tail & (ring->cq_entries - 1)];
	rb->addr = sqe->addr;
	rb->len = sqe->len;
	rb->user_data = sqe->user_data;
	ring->rb_tail++;
	spin_unlock(&ring->lock);
}

/*
 * One SQE, copied out of the shared ring, and a copy of the next one if it
 * was submitted too (@next, or NULL); *@used: the SQEs it took (2 for a
 * WRITE or READ with its REMOTE SQE)
 */
static enum rclink_ring_take
rclink_ring_take(struct rclink_ring *ring, struct rclink_file *rf,
		 struct rclink_t1_qp *qp, struct rclink_dmaq *dq,
		 const struct rclink_sqe *sqe, const struct rclink_sqe *next,
		 u32 *used, bool *doorbell)
{
	*used = 1;
	if (!rclink_ring_reserve(ring))
		return RCLINK_RING_CQ_FULL;
	if (sqe->flags || sqe->resv) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_RING_SQE_ERRORS);
		rclink_ring_complete(ring, sqe, -EINVAL);
		return RCLINK_RING_TAKEN;
	}
	switch (sqe->opcode) {
	case RCLINK_OP_NOP:
		rclink_ring_complete(ring, sqe, 0);
		return RCLINK_RING_TAKEN;
	case RCLINK_OP_SEND:
		if (!sqe->len)
			break;
		return rclink_ring_send(ring, rf, qp, dq, sqe, NULL, doorbell);
	case RCLINK_OP_WRITE:
	case RCLINK_OP_READ:
		/* without its REMOTE SQE in the same submission: EINVAL */
		if (!sqe->len || !next || next->opcode != RCLINK_OP_REMOTE)
			break;
		*used = 2;
		return rclink_ring_send(ring, rf, qp, dq, sqe, next, doorbell);
	case RCLINK_OP_RECV:
		rclink_ring_recv(ring, qp, dq, sqe);
		return RCLINK_RING_TAKEN;
	}
	rclink_dp_cnt_inc(dq, RCLINK_DP_RING_SQE_ERRORS);
	rclink_ring_complete(ring, sqe, -EINVAL);
	return RCLINK_RING_TAKEN;
}

/*
 * Take up to @want SQEs.  A blocking caller sleeps while the first cannot
 * be taken for the window or the board's send queue; then it stops at
 * the first that cannot.  Returns the count, or -errno when none was taken.
 */
static int rclink_ring_submit(struct rclink_ring *ring, struct rclink_file *rf,
			      struct rclink_t1_qp *qp, struct rclink_dmaq *dq,
			      u32 want, bool nonblock)
{
	enum rclink_ring_take t = RCLINK_RING_TAKEN;
	u32 mask = ring->sq_entries - 1, done = 0, used;
	struct rclink_sqe sqe[2], *next;
	bool doorbell = false;
	int err = 0;

	while (done < want) {
		/* copies: user space may change the SQEs while we look */
		memcpy(&sqe[0], &ring->sqes[ring->sq_head & mask],
		       sizeof(sqe[0]));
		/* a WRITE's or READ's REMOTE SQE, if it was submitted too */
		next = NULL;
		if ((sqe[0].opcode == RCLINK_OP_WRITE ||
		     sqe[0].opcode == RCLINK_OP_READ) && done + 1 < want) {
			memcpy(&sqe[1], &ring->sqes[(ring->sq_head + 1) & mask],
			       sizeof(sqe[1]));
			next = &sqe[1];
		}
		t = rclink_ring_take(ring, rf, qp, dq, &sqe[0], next, &used,
				     &doorbell);
		if (t == RCLINK_RING_TAKEN) {
			ring->sq_head += used;
			done += used;
			continue;
		}
		if (done || nonblock || t == RCLINK_RING_CQ_FULL || !qp)
			break;
		/* nothing taken yet: wait as write() does */
		if (doorbell)
			rclink_dmaq_sq_doorbell(dq);
		doorbell = false;
		if (t == RCLINK_RING_WINDOW)
			err = rclink_file_wait_window(rf, qp);
		else
			err = rclink_file_wait_sq(rf, qp, dq,
						  rclink_dmaq_max_pieces(dq));
		if (!err)
			err = rclink_file_gone(rf);
		if (err)
			break;
	}
	if (doorbell)
		rclink_dmaq_sq_doorbell(dq);
	/* the SQEs before the head: user space may reuse them */
	smp_store_release(&ring->hdr->sq_head, ring->sq_head);
	if (done || !want)
		return done;
	if (err)
		return err;
	return t == RCLINK_RING_CQ_FULL ? -EBUSY : -EAGAIN;
}

static bool rclink_ring_rx_waiting(struct rclink_ring *ring,
				   struct rclink_t1_qp *qp)
{
	return qp && READ_ONCE(qp->rx_queued) &&
	       READ_ONCE(ring->rb_head) != READ_ONCE(ring->rb_tail);
}

static u32 rclink_ring_cq_avail(struct rclink_ring *ring)
{
	u32 n = READ_ONCE(ring->cq_pub) - READ_ONCE(ring->hdr->cq_head);

	return min(n, ring->cq_entries);
}

/* RING_ENTER's waiter: enough CQEs, nothing more to come, work, or leave */
static bool rclink_ring_wake(struct rclink_ring *ring, struct rclink_file *rf,
			     struct rclink_t1_qp *qp, u32 want)
{
	return rclink_ring_cq_avail(ring) >= want ||
	       !READ_ONCE(ring->cq_reserved) ||
	       rclink_ring_rx_waiting(ring, qp) || rclink_file_gone(rf);
}

long rclink_ring_enter(struct rclink_file *rf, struct rclink_dmaq *dq,
		       void __user *argp, bool nonblock)
{
	struct rclink_ring *ring = rclink_file_ring(rf);
	struct rclink_ring_enter e;
	struct rclink_t1_qp *qp;
	u32 tail, queued, want, usize;
	int ret;

	if (!ring)
		return -EINVAL;
	ret = rclink_ioc_copy_in(&e, sizeof(e), RCLINK_RING_ENTER_SIZE_VER0,
				 argp, &usize);
	if (ret)
		return ret;
	if (e.flags)
		return -EINVAL;
	e.submitted = 0;

	down_read(&rf->rw);
	qp = rf->qp;
	if (mutex_lock_interruptible(&ring->submit_lock)) {
		ret = -ERESTARTSYS;
		goto out_rw;
	}
	/* the SQEs after the tail: pairs with user space's release */
	tail = smp_load_acquire(&ring->hdr->sq_tail);
	queued = tail - ring->sq_head;
	if (queued > ring->sq_entries) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_RING_BAD_INDEX);
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = rclink_ring_submit(ring, rf, qp, dq, min(e.to_submit, queued),
				 nonblock);
	if (ret < 0)
		goto out_unlock;
	e.submitted = ret;

	/* messages that waited on the QP for the buffers just lent */
	want = min(e.min_complete, ring->cq_entries);
	ret = 0;
	for (;;) {
		if (rclink_ring_rx_waiting(ring, qp)) {
			if (mutex_lock_interruptible(&rf->read_lock)) {
				ret = -ERESTARTSYS;
				break;
			}
			rclink_ring_rx_drain(ring, rf, qp, dq);
			mutex_unlock(&rf->read_lock);
		}
		/* enough, or nothing more can come */
		if (rclink_ring_cq_avail(ring) >= want ||
		    !READ_ONCE(ring->cq_reserved))
			break;
		ret = rclink_file_gone(rf);
		if (ret || nonblock)
			break;
		ret = wait_event_interruptible(rf->wq,
					       rclink_ring_wake(ring, rf, qp,
								want));
		if (ret)
			break;
	}
out_unlock:
	mutex_unlock(&ring->submit_lock);
out_rw:
	up_read(&rf->rw);
	/*
	 * What was taken stays taken: once a SQE is, the call succeeds and
	 * says how many (a signal or an unbind only ends the wait early).
	 */
	if (ret && !e.submitted)
		return ret;
	return rclink_ioc_copy_out(argp, usize, &e, sizeof(e));
}

/* The file is being unbound: the RECV buffers lent complete with @err */
void rclink_ring_unbind(struct rclink_ring *ring, int err)
{
	struct rclink_ring_rbuf *rb;

	spin_lock(&ring->lock);
	while (ring->rb_head != ring->rb_tail) {
		rb = &ring->rbufs[ring->rb_head & (ring->cq_entries - 1)];
		ring->rb_head++;
		ring->cq_reserved--;
		rclink_ring_post(ring, rb->user_data, err, RCLINK_OP_RECV);
	}
	spin_unlock(&ring->lock);
}
