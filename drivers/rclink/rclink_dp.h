/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: TYPE1 data path, private to rclink_dmaq.c (the shim's queue
 * engine) and rclink_cdev.c (/dev/rclinkN).
 *
 * Locks, outermost first:
 *   rclink_cdev.rw      read: a file operation; write: board removal
 *   rclink_file.bind_lock   BIND and UNBIND of a file
 *   rclink_file.rw      read: read/write/poll/ioctl; write: bind/unbind
 *   rclink_file.read_lock   one reader of a file at a time
 *   rclink_t1.lock      (bind only: QP lookup against `qp del`)
 *   rclink_ctx_hw.sel_lock  the context selector registers (rclink_ctx.c)
 *   rclink_dmaq.cq_lock     the CQ consumer (irq thread, teardown)
 *   rclink_dmaq.rq_lock     RQ producer, receive buffers (mutex)
 *   rclink_ring.submit_lock one RING_ENTER of a file at a time (mutex;
 *                       taken before rclink_file.read_lock)
 *   rclink_dmaq.sq_lock     SQ producer, messages in flight (spinlock)
 *   rclink_t1_qp.lock   a QP's queues and counters (spinlock)
 *   rclink_ring.lock    a file's CQ producer and RECV buffers (spinlock)
 *   rclink_file.lock    a file's window and counters (spinlock, leaf)
 * Every context that takes the spinlocks is a process context (system
 * calls, the threaded interrupt handlers, work items), so none of them
 * disables interrupts or bottom halves.
 */
#ifndef _RCLINK_DP_H_
#define _RCLINK_DP_H_

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "rclink.h"

/*
 * The data path's lookup of a QP in the table rclink_qp.c keeps
 * (rclink_t1.qps): under rcu_read_lock().  The QP stays in memory until
 * rcu_read_unlock(); whether it is still in use is
 * rclink_t1_qp.dp_released, under its lock.
 */
static inline struct rclink_t1_qp *
rclink_t1_qp_lookup_rcu(struct rclink_dev *rdev, u32 qpn)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "QP lookup outside an RCU read-side section");
	if (qpn >= rdev->params.qp_num)
		return NULL;
	return xa_load(&rdev->t1.qps, qpn);
}

struct rclink_ctx_hw;
struct rclink_ctx;

/* Queue orders we ask for (clamped to DMAQ_CAP.max_order) */
#define RCLINK_DP_SQ_ORDER	12	/* 4096 WQEs, 64 KiB */
#define RCLINK_DP_RQ_ORDER	9	/* 512 buffers of 4 KiB */
#define RCLINK_DP_CQ_ORDER	11	/* 2048 CQEs, 64 KiB */
#define RCLINK_DP_MIN_ORDER	4

/* Receive buffers: one page of 4 KiB each (RQE LEN) */
#define RCLINK_DP_RX_BUF	SZ_4K

/* Receive flow control (Documentation/uapi/rclink-dev.rst) */
/* a board-wide stop: see rclink_dmaq.c */
#define RCLINK_DP_RX_QUEUED_MAX	SZ_64M
/* messages being reassembled: what their FIRSTs allocated, at most */
#define RCLINK_DP_RX_PARTIAL_MAX	SZ_16M
/* ... the board answers RNR when it has no buffer (every bank) */
#define RCLINK_DP_RNR_EN	RCLINK_AFH_CFG_EN_TYPE1_FLOW_STOP_SEND_RNR_EN
/* ... which the shim's FLOW_STOP must reach first (every bank) */
#define RCLINK_DP_FLOW_STOP_EN	RCLINK_XON_THR_RDMA_FLOW_STOP_EN

/* TX pieces: up to 64 KiB of physically contiguous pages per WQE */
#define RCLINK_DP_TX_MAX_ORDER	get_order(RCLINK_WQE_MAX_PIECE)

/* CQEs handled before DMAQ_CQ_CONS is written back */
#define RCLINK_DP_CQ_BATCH	64

enum rclink_dp_cnt {
	RCLINK_DP_TX_MSGS,
	RCLINK_DP_TX_BYTES,
	RCLINK_DP_TX_FLUSHED,
	RCLINK_DP_TX_ERRORS,
	RCLINK_DP_RX_MSGS,
	RCLINK_DP_RX_BYTES,
	RCLINK_DP_RX_DROP_NOQP,
	RCLINK_DP_RX_DROP_FLUSHED,
	RCLINK_DP_RX_DROP_SEQ,
	RCLINK_DP_RX_DROP_NOMEM,
	RCLINK_DP_CQE_ERRORS,
	RCLINK_DP_RX_FLOW_STOPS,
	RCLINK_DP_RX_ALLOC_FAIL,	/* receive buffer allocation failed */
	RCLINK_DP_TX_TEARDOWN,		/* messages freed by the removal */
	RCLINK_DP_CQ_IRQS,		/* CQ processing runs */
	RCLINK_DP_CQES,			/* CQEs consumed */
	RCLINK_DP_RING_SENDS,		/* SENDs posted from a ring */
	RCLINK_DP_RING_RDMA,		/* WRITEs, READs posted from a ring */
	RCLINK_DP_RING_RECVS,		/* messages received into a ring */
	RCLINK_DP_RING_SQE_ERRORS,	/* SQEs completed with an error */
	RCLINK_DP_RING_BAD_INDEX,	/* RING_ENTER refused: SQ tail insane */
	RCLINK_DP_RING_CQ_OVERFLOW,	/* CQEs over unconsumed ones (liar) */
	RCLINK_DP_RX_DROP_PARTIAL,	/* FIRST over the partial budget */
	RCLINK_DP_CNT_NUM
};

struct rclink_dp_wqe {
	__le64 ctrl;
	__le64 addr;
};

struct rclink_dp_rqe {
	__le64 addr;
	__le64 len;
};

struct rclink_dp_cqe {
	__le64 w[4];
};

/* One piece of a message: pages copied from user space, DMA mapped */
struct rclink_tx_piece {
	struct page *page;
	dma_addr_t dma;
	u32 len;
	u32 order;
};

/*
 * A message written to a file, in flight from post to its SEND CQE.  A
 * piece without a page points into the file's ring area (zero copy): the
 * area owns the mapping.
 */
struct rclink_tx_msg {
	struct list_head list;		/* rclink_dmaq.tx_inflight */
	struct list_head qp_list;	/* rclink_dmaq.tx_qp[qpn] */
	struct rclink_file *rf;		/* the writer (holds a reference) */
	struct rclink_t1_qp *qp;	/* NULL once the QP was released */
	u32 qpn;
	u32 len;
	u32 last_idx;			/* SQ index of the last WQE */
	u32 npieces;
	bool ring;			/* a ring SEND: completes as a CQE */
	u8 rdma;			/* 0 SEND, RCLINK_WQE_OP_WRITE, _READ */
	u32 rkey;			/* WRITE, READ: the REMOTE WQE */
	u64 raddr;
	u64 user_data;			/* of the ring's SQE */
	struct rclink_tx_piece piece[];
};

/* A receive buffer: one page, mapped for the device */
struct rclink_rq_buf {
	struct list_head list;		/* rq_free or rq_held */
	struct page *page;
	dma_addr_t dma;
	u32 idx;			/* RQ index it was posted at */
};

/* The shim's queue engine of one board (rclink_t1.dmaq) */
struct rclink_dmaq {
	struct rclink_dev *rdev;
	struct device *dev;
	u32 max_msg;			/* largest message we send */
	u32 rx_max_msg;			/* DMAQ_CAP.max_msg */
	u32 qp_num;

	/* send queue and the messages in flight, under @sq_lock */
	spinlock_t sq_lock;
	struct rclink_dp_wqe *sq;
	dma_addr_t sq_dma;
	u32 sq_order;
	u32 sq_prod;			/* free running, DMAQ_SQ_PROD */
	u32 sq_cons;			/* last DMAQ_SQ_CONS read */
	struct list_head tx_inflight;	/* every message, oldest first */
	struct list_head *tx_qp;	/* per QP number, oldest first */
	u32 tx_nr_inflight;
	bool stopped;			/* no doorbell any more */

	/* receive queue and its buffers, under @rq_lock */
	struct mutex rq_lock;
	struct rclink_dp_rqe *rq;
	dma_addr_t rq_dma;
	u32 rq_order;
	u32 rq_prod;			/* free running, DMAQ_RQ_PROD */
	u32 rq_cons;			/* last DMAQ_RQ_CONS read */
	struct rclink_rq_buf **rq_slot;	/* last buffer posted per entry */
	struct list_head rq_held;	/* taken, entry reused, not completed */
	struct list_head rq_free;	/* mapped, not posted */
	u32 rq_nheld;
	u32 rq_nfree;
	u32 rq_nbufs;			/* allocated */
	u32 rq_max_bufs;
	bool rx_stopped;		/* flow control: not posting */
	u64 rx_queued_max;		/* ... above these bytes queued */
	atomic64_t rx_queued_bytes;	/* complete messages on the QPs */
	/*
	 * Messages being reassembled (one per QP at most): the bytes
	 * allocated for them, at most rx_partial_max; a FIRST beyond that
	 * drops its message (RCLINK_DP_RX_DROP_PARTIAL).
	 */
	u64 rx_partial_max;
	atomic64_t rx_partial_bytes;
	struct delayed_work refill_work;	/* after allocation failures */

	/* completion queue, under @cq_lock */
	struct mutex cq_lock;
	struct rclink_dp_cqe *cq;
	dma_addr_t cq_dma;
	u32 cq_order;
	u32 cq_cons;			/* free running, DMAQ_CQ_CONS */
	bool cq_enabled;

	atomic64_t cnt[RCLINK_DP_CNT_NUM];

	struct rclink_ctx_hw *ctx;	/* user contexts, or NULL (none) */
};

/*
 * The largest TYPE2 message: one packet of TYPE2_PKT_LEN, its header
 * aside, and no larger than a TYPE1 message (@max_msg: half the send
 * queue in order-0 pages, so that it always fits); 0 when TYPE2_PKT_LEN
 * leaves no room for a payload.
 */
static inline u32 rclink_dp_t2_max_msg(const struct rclink_dmaq *dq)
{
	u32 pkt = dq->rdev->params.type2_pkt_len;

	if (pkt <= RCLINK_SEG_BYTES)
		return 0;
	return min_t(u32, pkt - RCLINK_SEG_BYTES, dq->max_msg);
}

/* /dev/rclinkN: one per board, lives until its last file is closed */
struct rclink_cdev {
	struct device dev;		/* its release frees this */
	struct cdev cdev;
	struct rw_semaphore rw;
	struct rclink_dev *rdev;	/* NULL once the board is gone */
	bool dead;			/* removal started */
	spinlock_t files_lock;
	struct list_head files;		/* open files */
	wait_queue_head_t wq;		/* SQ room, removal */
};

/* One chunk of a ring's message area: contiguous pages, DMA mapped */
struct rclink_ring_chunk {
	struct page *page;
	dma_addr_t dma;
	u32 len;
};

/* A RECV buffer lent by user space, waiting for a message */
struct rclink_ring_rbuf {
	u64 addr;
	u64 user_data;
	u32 len;
};

/*
 * The mmap'd rings of a file (rclink_ring.c).  Lives as long as the file:
 * the mappings hold the file, messages in flight hold the file.
 */
struct rclink_ring {
	struct device *dev;		/* DMA mapping of the area, or NULL */
	u32 sq_entries;
	u32 cq_entries;
	u32 area_size;
	void *mem;			/* vmalloc_user: header, SQEs, CQEs */
	u32 mem_size;
	struct rclink_ring_hdr *hdr;
	struct rclink_sqe *sqes;
	struct rclink_cqe *cqes;
	struct rclink_ring_chunk *chunks;
	u32 nchunks;
	bool board_holds;		/* a registration the board kept */

	struct mutex submit_lock;	/* the SQ consumer */
	u32 sq_head;			/* our copy */

	spinlock_t lock;		/* the rest */
	u32 cq_tail;			/* CQEs taken (written or being) */
	u32 cq_pub;			/* CQEs published: hdr->cq_tail */
	u8 *cq_done;			/* cq_entries: written, unpublished */
	u32 cq_reserved;		/* SENDs in flight + RECVs lent */
	u32 cq_overflow;
	u32 sq_errors;
	struct rclink_ring_rbuf *rbufs;	/* cq_entries, a FIFO */
	u32 rb_head;
	u32 rb_tail;
};

/* An open file of /dev/rclinkN; messages in flight hold references */
struct rclink_file {
	struct kref ref;
	struct rclink_cdev *cd;
	struct list_head node;		/* rclink_cdev.files */
	struct mutex bind_lock;		/* BIND and UNBIND */
	struct rw_semaphore rw;
	struct mutex read_lock;		/* one reader at a time */
	struct rclink_t1_qp *qp;	/* bound QP, under @rw */
	u64 netns;			/* the opener's network namespace */
	bool unbinding;			/* sleepers: leave, @rw is wanted */
	wait_queue_head_t wq;		/* readers, writers, pollers, drain */

	spinlock_t lock;		/* the three below */
	u32 window;
	u32 tx_inflight;
	u64 tx_flushed;

	struct rclink_ring *ring;	/* set once (bind_lock), then fixed */
	struct rclink_ctx *ctx;		/* set once (bind_lock), then fixed */
};

static inline void rclink_dp_cnt_add(struct rclink_dmaq *dq,
				     enum rclink_dp_cnt c, u64 val)
{
	atomic64_add(val, &dq->cnt[c]);
}

static inline void rclink_dp_cnt_inc(struct rclink_dmaq *dq,
				     enum rclink_dp_cnt c)
{
	atomic64_inc(&dq->cnt[c]);
}

/* rclink_dmaq.c */
struct rclink_tx_msg *rclink_dmaq_tx_alloc(struct rclink_dmaq *dq,
					   struct iov_iter *from, u32 len);
void rclink_dmaq_tx_free(struct rclink_dmaq *dq, struct rclink_tx_msg *msg);
int rclink_dmaq_tx_post(struct rclink_dmaq *dq, struct rclink_tx_msg *msg,
			struct rclink_t1_qp *qp, struct rclink_file *rf,
			bool doorbell);
void rclink_dmaq_sq_doorbell(struct rclink_dmaq *dq);
bool rclink_dmaq_sq_room(struct rclink_dmaq *dq, u32 n);
u32 rclink_dmaq_max_pieces(const struct rclink_dmaq *dq);
void rclink_dmaq_rx_dequeued(struct rclink_dmaq *dq, u64 bytes);

/* rclink_cdev.c */
int rclink_cdev_create(struct rclink_dev *rdev);
void rclink_cdev_remove(struct rclink_dev *rdev);
void rclink_cdev_put(struct rclink_dev *rdev);
void rclink_cdev_wake_tx(struct rclink_dev *rdev);
void rclink_file_get(struct rclink_file *rf);
void rclink_file_put(struct rclink_file *rf);
void rclink_file_tx_done(struct rclink_file *rf,
			 const struct rclink_tx_msg *msg, int res);
bool rclink_file_reserve(struct rclink_file *rf);
void rclink_file_unreserve(struct rclink_file *rf);
int rclink_file_gone(struct rclink_file *rf);
int rclink_file_wait_window(struct rclink_file *rf, struct rclink_t1_qp *qp);
int rclink_file_wait_sq(struct rclink_file *rf, struct rclink_t1_qp *qp,
			struct rclink_dmaq *dq, u32 n);
void rclink_cdev_rings_unmap(struct rclink_dev *rdev);
int rclink_file_take_qp(struct file *file, struct rclink_file *rf,
			struct rclink_dev *rdev, u32 flags, u32 qpn,
			struct rclink_t1_qp **qpp);
void rclink_file_give_qp(struct rclink_t1_qp *qp);
int rclink_ioc_copy_in(void *karg, size_t ksize, size_t minsize,
		       const void __user *uarg, u32 *usize);
int rclink_ioc_copy_out(void __user *uarg, u32 usize, const void *karg,
			size_t ksize);

/* rclink_ring.c: the mmap'd rings of a file */
long rclink_ring_setup(struct rclink_file *rf, struct rclink_dmaq *dq,
		       void __user *argp);
long rclink_ring_enter(struct rclink_file *rf, struct rclink_dmaq *dq,
		       void __user *argp, bool nonblock);
int rclink_ring_mmap(struct rclink_file *rf, struct vm_area_struct *vma);
void rclink_ring_free(struct rclink_ring *ring);
void rclink_ring_dma_unmap(struct rclink_ring *ring);
void rclink_ring_unbind(struct rclink_ring *ring, int err);
bool rclink_ring_cq_ready(struct rclink_ring *ring);
void rclink_ring_tx_done(struct rclink_ring *ring,
			 const struct rclink_tx_msg *msg, int res);
void rclink_ring_rx_fill(struct rclink_msg *m);
bool rclink_ring_rx_direct(struct rclink_ring *ring, struct rclink_t1_qp *qp,
			   struct rclink_msg *m);

#endif /* _RCLINK_DP_H_ */
