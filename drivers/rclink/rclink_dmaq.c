// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the shim's TYPE1 queue engine (Documentation/hw/shim.rst,
 * "Queue engine (DMAQ window)").
 *
 * Send queue.  A message written to /dev/rclinkN is copied into pages (up
 * to 64 KiB of contiguous pages per piece, order 0 when memory is
 * fragmented), each piece DMA mapped and described by one WQE; MORE chains
 * the pieces of a message and FACK asks the peer to acknowledge its last
 * packet at once.  The pages stay mapped until the message's SEND CQE: the
 * engine reads them again for retransmissions.  The messages in flight are
 * listed per QP number (a QP's messages complete in order, so the SEND
 * CQE's IDX is normally the oldest of its QP) and all together.
 *
 * Receive queue.  Pages of 4 KiB.  The engine fills a QP's buffer and takes
 * the next RQE when it is full, so buffers complete out of order: an entry
 * the engine has taken is posted again at once, and a buffer still being
 * filled waits on a "held" list for its RECV CQE.  The data of a RECV CQE
 * is copied into the QP's message being reassembled (kvmalloc'ed for
 * MSG_LEN on FIRST) and the page is posted again.  The peer chooses
 * MSG_LEN: the messages being reassembled on the board may hold at most
 * 16 MiB (debugfs t1_rx_partial_max); a FIRST beyond that drops its message
 * (rx_drop_partial, and the QP's rx_flushed), as when memory runs out.
 * At most the RQ's size plus one per QP are in circulation: when the CQ
 * handler lags behind the engine, the RQ runs dry instead of the memory
 * growing.  While more than 64 MiB of complete messages wait to be read
 * on the board, no buffer is posted: the board answers RNR
 * (AFH_CFG_EN.type1_flow_stop_send_rnr_en)
 * and the sender retries (with CBFC the frames wait in their VC's buffer
 * and the sender runs out of credits instead); reading resumes the flow.
 * The stop holds every QP and context of the board (FLOW_STOP is per
 * bank) and each RNR makes a sender resend its window, so the limit sits
 * well above what keeping-up readers leave queued.
 *
 * Completion queue.  Consumed in process context: by the threaded handler
 * of vector 1 under MSI-X (DMAQ_CQ_CFG.vector), else by the event ring's
 * threaded handler, which shares the one interrupt.  A threaded handler
 * may sleep (reassembly buffers are allocated with GFP_KERNEL, the RQ is
 * under a mutex), runs on one CPU at a time and runs again when the engine
 * raises the vector while it runs, so no CQE waits for a later interrupt.
 */

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "rclink_ctx.h"
#include "rclink_dp.h"

static const char * const rclink_dp_cnt_names[RCLINK_DP_CNT_NUM] = {
	[RCLINK_DP_TX_MSGS] = "tx_msgs",
	[RCLINK_DP_TX_BYTES] = "tx_bytes",
	[RCLINK_DP_TX_FLUSHED] = "tx_flushed",
	[RCLINK_DP_TX_ERRORS] = "tx_errors",
	[RCLINK_DP_RX_MSGS] = "rx_msgs",
	[RCLINK_DP_RX_BYTES] = "rx_bytes",
	[RCLINK_DP_RX_DROP_NOQP] = "rx_drop_noqp",
	[RCLINK_DP_RX_DROP_FLUSHED] = "rx_drop_flushed",
	[RCLINK_DP_RX_DROP_SEQ] = "rx_drop_seq",
	[RCLINK_DP_RX_DROP_NOMEM] = "rx_drop_nomem",
	[RCLINK_DP_CQE_ERRORS] = "cqe_errors",
	[RCLINK_DP_RX_FLOW_STOPS] = "rx_flow_stops",
	[RCLINK_DP_RX_ALLOC_FAIL] = "rx_alloc_fail",
	[RCLINK_DP_TX_TEARDOWN] = "tx_teardown",
	[RCLINK_DP_CQ_IRQS] = "cq_runs",
	[RCLINK_DP_CQES] = "cqes",
	[RCLINK_DP_RING_SENDS] = "ring_sends",
	[RCLINK_DP_RING_RDMA] = "ring_rdma",
	[RCLINK_DP_RING_RECVS] = "ring_recvs",
	[RCLINK_DP_RING_SQE_ERRORS] = "ring_sqe_errors",
	[RCLINK_DP_RING_BAD_INDEX] = "ring_bad_index",
	[RCLINK_DP_RING_CQ_OVERFLOW] = "ring_cq_overflow",
	[RCLINK_DP_RX_DROP_PARTIAL] = "rx_drop_partial",
};

/* The board's drop counters of the queue engine, for debugfs */
static const struct {
	const char *name;
	u32 reg;
} rclink_dp_hw_cnts[] = {
	{ "hw_rx_drop_da", RCLINK_DMAQ_T1_RX_DROP_DA },
	{ "hw_rx_drop_csum", RCLINK_DMAQ_T1_RX_DROP_CSUM },
	{ "hw_rx_drop_icrc", RCLINK_DMAQ_T1_RX_DROP_ICRC },
	{ "hw_rx_drop_pkey", RCLINK_DMAQ_T1_RX_DROP_PKEY },
	{ "hw_rx_drop_badqp", RCLINK_DMAQ_T1_RX_DROP_BADQP },
	{ "hw_rx_drop_qp_off", RCLINK_DMAQ_T1_RX_DROP_QP_OFF },
	{ "hw_rx_drop_nobuf", RCLINK_DMAQ_T1_RX_DROP_NOBUF },
	{ "hw_rx_drop_malformed", RCLINK_DMAQ_T1_RX_DROP_MALFORMED },
	{ "hw_tx_drop_qp_off", RCLINK_DMAQ_T1_TX_DROP_QP_OFF },
	{ "hw_bad_wqe", RCLINK_DMAQ_BAD_WQE },
	{ "hw_rx_drop_format", RCLINK_DMAQ_T1_RX_DROP_FORMAT },
	{ "hw_ost_free", RCLINK_DMAQ_T1_OST_FREE },
	{ "hw_cc_parked", RCLINK_DMAQ_T1_CC_PARKED },
};

#define RCLINK_DP_REFILL_RETRY	(HZ / 10)

/*
 * The board's queue engine.  Published under rclink_t1.lock and
 * rclink_t1_devs_lock, so holders of either may use it; the interrupt
 * handlers may because removal synchronizes them after unpublishing.
 */
static struct rclink_dmaq *rclink_dmaq_get(struct rclink_dev *rdev)
{
	return READ_ONCE(rdev->t1.dmaq);
}

static u32 rclink_dp_mask(u32 order)
{
	return (1U << order) - 1;
}

/* ---- send queue ---------------------------------------------------------- */

u32 rclink_dmaq_max_pieces(const struct rclink_dmaq *dq)
{
	return DIV_ROUND_UP(dq->max_msg, PAGE_SIZE);
}

/* Contiguous pages of at most 2^@order, fewer when memory is fragmented */
static struct page *rclink_dmaq_tx_pages(u32 *order)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_NORETRY;
	struct page *page;

	for (; *order; (*order)--) {
		page = alloc_pages(gfp, *order);
		if (page)
			return page;
	}
	return alloc_page(GFP_KERNEL_ACCOUNT);
}

void rclink_dmaq_tx_free(struct rclink_dmaq *dq, struct rclink_tx_msg *msg)
{
	struct rclink_tx_piece *p;
	u32 i;

	for (i = 0; i < msg->npieces; i++) {
		p = &msg->piece[i];
		if (!p->page)
			continue;	/* in a ring's area */
		dma_unmap_page(dq->dev, p->dma, p->len, DMA_TO_DEVICE);
		__free_pages(p->page, p->order);
	}
	kvfree(msg);
}

/*
 * Copy @len bytes (1..max_msg) from user space into DMA mapped pages: the
 * message as the engine will read it.  No lock held: this may sleep.
 */
struct rclink_tx_msg *rclink_dmaq_tx_alloc(struct rclink_dmaq *dq,
					   struct iov_iter *from, u32 len)
{
	u32 off = 0, plen, order;
	struct rclink_tx_msg *msg;
	struct rclink_tx_piece *p;
	int err = -ENOMEM;

	msg = kvzalloc(struct_size(msg, piece, DIV_ROUND_UP(len, PAGE_SIZE)),
		       GFP_KERNEL_ACCOUNT);
	if (!msg)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&msg->list);
	INIT_LIST_HEAD(&msg->qp_list);
	msg->len = len;

	/* every piece but the last holds at least PAGE_SIZE bytes */
	while (off < len) {
		p = &msg->piece[msg->npieces];
		order = min_t(u32, get_order(len - off),
			      RCLINK_DP_TX_MAX_ORDER);
		p->page = rclink_dmaq_tx_pages(&order);
		if (!p->page)
			goto err_free;
		p->order = order;
		plen = min_t(u32, len - off, PAGE_SIZE << order);
		if (copy_from_iter(page_address(p->page), plen, from) != plen) {
			err = -EFAULT;
			goto err_free_page;
		}
		p->dma = dma_map_page(dq->dev, p->page, 0, plen, DMA_TO_DEVICE);
		if (dma_mapping_error(dq->dev, p->dma))
			goto err_free_page;
		p->len = plen;
		msg->npieces++;
		off += plen;
	}
	return msg;

err_free_page:
	__free_pages(p->page, p->order);
err_free:
	rclink_dmaq_tx_free(dq, msg);
	return ERR_PTR(err);
}

/*
 * SQ entries the host may fill (sq_lock held).  DMAQ_SQ_CONS is read only
 * when the last value read leaves fewer than @want.
 */
static u32 rclink_dmaq_sq_free_locked(struct rclink_dmaq *dq, u32 want)
{
	u32 size = 1U << dq->sq_order;
	u32 cons;
	u64 val;

	lockdep_assert_held(&dq->sq_lock);

	if (size - (dq->sq_prod - dq->sq_cons) >= want)
		return size - (dq->sq_prod - dq->sq_cons);
	val = rclink_rd64(dq->rdev, RCLINK_DMAQ_SQ_CONS);
	if (rclink_gone(dq->rdev))
		return 0;
	cons = FIELD_GET(RCLINK_DMAQ_SQ_CONS_IDX, val);
	/* forward only, and never past what was posted */
	if (cons - dq->sq_cons <= dq->sq_prod - dq->sq_cons)
		dq->sq_cons = cons;
	else
		dev_warn_ratelimited(dq->dev,
				     "DMAQ_SQ_CONS %u outside the posted WQEs %u..%u\n",
				     cons, dq->sq_cons, dq->sq_prod);
	return size - (dq->sq_prod - dq->sq_cons);
}

/* Whether @n WQEs fit now; true once stopped, so that waiters leave */
bool rclink_dmaq_sq_room(struct rclink_dmaq *dq, u32 n)
{
	bool room;

	spin_lock(&dq->sq_lock);
	room = dq->stopped || rclink_dmaq_sq_free_locked(dq, n) >= n;
	spin_unlock(&dq->sq_lock);
	return room;
}

/*
 * Queue @msg on @qp for the file @rf: its WQEs, then the doorbell (or,
 * without @doorbell, a later rclink_dmaq_sq_doorbell() for a batch).
 * -ENOSPC: the SQ is full (nothing queued); -ECONNRESET: the QP is fatal;
 * -ENODEV: the engine is stopped.  From here on the message is the
 * engine's until its SEND CQE.
 */
int rclink_dmaq_tx_post(struct rclink_dmaq *dq, struct rclink_tx_msg *msg,
			struct rclink_t1_qp *qp, struct rclink_file *rf,
			bool doorbell)
{
	u32 mask = rclink_dp_mask(dq->sq_order), idx, i, nwqe;
	struct rclink_dp_wqe *wqe;
	int err = 0;
	u64 ctrl;

	spin_lock(&dq->sq_lock);
	if (dq->stopped || rclink_gone(dq->rdev)) {
		err = -ENODEV;
		goto out;
	}
	nwqe = msg->npieces + (msg->rdma ? 1 : 0);
	if (rclink_dmaq_sq_free_locked(dq, nwqe) < nwqe) {
		err = -ENOSPC;
		goto out;
	}
	spin_lock(&qp->lock);
	if (qp->state == RCLINK_QP_STATE_FATAL)
		err = -ECONNRESET;
	else
		qp->tx_inflight++;
	spin_unlock(&qp->lock);
	if (err)
		goto out;

	/*
	 * FACK on every piece: the engine takes it from the message.  A
	 * TYPE2 group's message is one MCAST packet (no ACK, no FACK).  A
	 * WRITE's or READ's pieces are its local memory, then a REMOTE WQE.
	 */
	idx = dq->sq_prod;
	for (i = 0; i < msg->npieces; i++, idx++) {
		if (msg->rdma)
			ctrl = FIELD_PREP(RCLINK_WQE_OPCODE, msg->rdma);
		else if (qp->group)
			ctrl = FIELD_PREP(RCLINK_WQE_OPCODE,
					  RCLINK_WQE_OP_MCAST);
		else
			ctrl = FIELD_PREP(RCLINK_WQE_OPCODE,
					  RCLINK_WQE_OP_SEND) |
			       RCLINK_WQE_FACK;
		ctrl |= FIELD_PREP(RCLINK_WQE_QPN, qp->qpn) |
			FIELD_PREP(RCLINK_WQE_LEN, msg->piece[i].len);
		if (i + 1 < nwqe)
			ctrl |= RCLINK_WQE_MORE;
		wqe = &dq->sq[idx & mask];
		wqe->addr = cpu_to_le64(msg->piece[i].dma);
		wqe->ctrl = cpu_to_le64(ctrl);
	}
	if (msg->rdma) {
		wqe = &dq->sq[idx++ & mask];
		wqe->addr = cpu_to_le64(msg->raddr);
		wqe->ctrl = cpu_to_le64(FIELD_PREP(RCLINK_WQE_OPCODE,
						   RCLINK_WQE_OP_REMOTE) |
					FIELD_PREP(RCLINK_WQE_QPN, qp->qpn) |
					FIELD_PREP(RCLINK_WQE_RKEY,
						   msg->rkey));
	}
	msg->last_idx = idx - 1;
	msg->qpn = qp->qpn;
	msg->qp = qp;
	msg->rf = rf;
	rclink_file_get(rf);
	list_add_tail(&msg->list, &dq->tx_inflight);
	if (qp->group)
		INIT_LIST_HEAD(&msg->qp_list);	/* completes in any order */
	else
		list_add_tail(&msg->qp_list, &dq->tx_qp[qp->qpn]);
	dq->tx_nr_inflight++;
	dq->sq_prod = idx;
	/* writeq() orders the WQE stores before the doorbell */
	if (doorbell)
		rclink_wr64(dq->rdev, RCLINK_DMAQ_SQ_PROD,
			    FIELD_PREP(RCLINK_DMAQ_SQ_PROD_IDX, idx));
out:
	spin_unlock(&dq->sq_lock);
	return err;
}

/* Ring the doorbell for the WQEs posted without one */
void rclink_dmaq_sq_doorbell(struct rclink_dmaq *dq)
{
	spin_lock(&dq->sq_lock);
	if (!dq->stopped && !rclink_gone(dq->rdev))
		rclink_wr64(dq->rdev, RCLINK_DMAQ_SQ_PROD,
			    FIELD_PREP(RCLINK_DMAQ_SQ_PROD_IDX, dq->sq_prod));
	spin_unlock(&dq->sq_lock);
}

/* The message of a SEND (or MCAST) CQE (sq_lock held), or NULL */
static struct rclink_tx_msg *rclink_dmaq_tx_find(struct rclink_dmaq *dq,
						 u32 qpn, u32 idx, bool mcast)
{
	struct rclink_tx_msg *msg;

	if (!mcast && qpn < dq->qp_num) {
		msg = list_first_entry_or_null(&dq->tx_qp[qpn],
					       struct rclink_tx_msg, qp_list);
		if (msg && msg->last_idx == idx)
			return msg;
	}
	list_for_each_entry(msg, &dq->tx_inflight, list)
		if (msg->last_idx == idx)
			return msg;
	return NULL;
}

/* Unlink a completed message and count it on its QP (sq_lock held) */
static void rclink_dmaq_tx_unlink(struct rclink_dmaq *dq,
				  struct rclink_tx_msg *msg, bool ok)
{
	struct rclink_t1_qp *qp = msg->qp;

	lockdep_assert_held(&dq->sq_lock);

	list_del_init(&msg->list);
	list_del_init(&msg->qp_list);
	dq->tx_nr_inflight--;
	if (!qp)
		return;
	spin_lock(&qp->lock);
	if (!WARN_ON_ONCE(!qp->tx_inflight))
		qp->tx_inflight--;
	if (ok) {
		qp->stats.tx_msgs++;
		qp->stats.tx_bytes += msg->len;
	} else {
		qp->stats.tx_flushed++;
	}
	wake_up_all(&qp->wq);
	spin_unlock(&qp->lock);
}

/*
 * The file's share of a completion, then the pages (no lock held).  @res:
 * the length, or -ECONNRESET (flushed), -EIO (failed), -ENODEV (removal).
 */
static void rclink_dmaq_tx_finish(struct rclink_dmaq *dq,
				  struct rclink_tx_msg *msg, int res)
{
	rclink_file_tx_done(msg->rf, msg, res);
	rclink_dmaq_tx_free(dq, msg);
}

/* The WQE opcode of the messages a send-side CQE kind completes */
static u8 rclink_dmaq_cqe_rdma(u32 kind)
{
	switch (kind) {
	case RCLINK_CQE_KIND_WRITE:
		return RCLINK_WQE_OP_WRITE;
	case RCLINK_CQE_KIND_READ:
		return RCLINK_WQE_OP_READ;
	}
	return 0;
}

/* A WRITE's or READ's status as the ring's CQE says it */
static int rclink_dmaq_rdma_res(u32 status)
{
	switch (status) {
	case RCLINK_CQE_ST_REM_KEY:
		return -ENOKEY;
	case RCLINK_CQE_ST_REM_ACCESS:
		return -EACCES;
	case RCLINK_CQE_ST_REM_BOUNDS:
		return -ERANGE;
	case RCLINK_CQE_ST_REM_TIMEOUT:
		return -ETIMEDOUT;
	}
	return -EIO;
}

/* A READ's data is in its pieces: the CPU's view of them */
static void rclink_dmaq_read_sync(struct rclink_dmaq *dq,
				  const struct rclink_tx_msg *msg)
{
	u32 i;

	for (i = 0; i < msg->npieces; i++)
		dma_sync_single_for_cpu(dq->dev, msg->piece[i].dma,
					msg->piece[i].len, DMA_BIDIRECTIONAL);
}

static void rclink_dmaq_send_cqe(struct rclink_dmaq *dq, u64 w0, u64 w1,
				 u32 kind)
{
	bool mcast = kind == RCLINK_CQE_KIND_SEND_MCAST;
	u32 status = FIELD_GET(RCLINK_CQE_STATUS, w0);
	u32 qpn = FIELD_GET(RCLINK_CQE_QPN, w0);
	u32 len = FIELD_GET(RCLINK_CQE_LEN, w0);
	u32 idx = FIELD_GET(RCLINK_CQE_IDX, w1);
	bool ok = status == RCLINK_CQE_ST_OK;
	struct rclink_tx_msg *msg;
	int res;

	spin_lock(&dq->sq_lock);
	msg = rclink_dmaq_tx_find(dq, qpn, idx, mcast);
	if (msg && ((msg->qp && msg->qp->group != mcast) ||
		    msg->rdma != rclink_dmaq_cqe_rdma(kind)))
		msg = NULL;			/* a CQE of the wrong kind */
	if (msg)
		rclink_dmaq_tx_unlink(dq, msg, ok);
	spin_unlock(&dq->sq_lock);

	if (!msg) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_CQE_ERRORS);
		dev_warn_ratelimited(dq->dev,
				     "SEND CQE of qp %u for SQ index %u: no such message\n",
				     qpn, idx);
		return;
	}
	if (len != msg->len)
		dev_warn_ratelimited(dq->dev,
				     "qp %u: SEND CQE says %u bytes, the message has %u\n",
				     qpn, len, msg->len);

	switch (status) {
	case RCLINK_CQE_ST_OK:
		rclink_dp_cnt_inc(dq, RCLINK_DP_TX_MSGS);
		rclink_dp_cnt_add(dq, RCLINK_DP_TX_BYTES, msg->len);
		if (msg->rdma == RCLINK_WQE_OP_READ)
			rclink_dmaq_read_sync(dq, msg);
		res = msg->len;
		break;
	case RCLINK_CQE_ST_FLUSHED:
		rclink_dp_cnt_inc(dq, RCLINK_DP_TX_FLUSHED);
		res = -ECONNRESET;
		break;
	case RCLINK_CQE_ST_REM_KEY:
	case RCLINK_CQE_ST_REM_ACCESS:
	case RCLINK_CQE_ST_REM_BOUNDS:
	case RCLINK_CQE_ST_REM_TIMEOUT:
		/* the peer refused it or never answered (the board counts) */
		rclink_dp_cnt_inc(dq, RCLINK_DP_TX_ERRORS);
		res = rclink_dmaq_rdma_res(status);
		break;
	default:
		rclink_dp_cnt_inc(dq, RCLINK_DP_TX_ERRORS);
		res = -EIO;
		dev_warn_ratelimited(dq->dev,
				     "qp %u: message of %u bytes failed: CQE status %u\n",
				     qpn, msg->len, status);
		break;
	}
	rclink_dmaq_tx_finish(dq, msg, res);
}

/* Complete every message left as flushed (the queues are stopped) */
static void rclink_dmaq_tx_flush(struct rclink_dmaq *dq)
{
	struct rclink_tx_msg *msg, *tmp;
	LIST_HEAD(done);

	spin_lock(&dq->sq_lock);
	list_for_each_entry_safe(msg, tmp, &dq->tx_inflight, list) {
		rclink_dmaq_tx_unlink(dq, msg, false);
		list_add_tail(&msg->list, &done);
	}
	spin_unlock(&dq->sq_lock);

	list_for_each_entry_safe(msg, tmp, &done, list) {
		list_del(&msg->list);
		rclink_dp_cnt_inc(dq, RCLINK_DP_TX_TEARDOWN);
		rclink_dmaq_tx_finish(dq, msg, -ENODEV);
	}
}

/* ---- receive queue ------------------------------------------------------- */

static struct rclink_rq_buf *rclink_dmaq_rq_buf_alloc(struct rclink_dmaq *dq)
{
	struct rclink_rq_buf *buf;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->page = alloc_page(GFP_KERNEL | __GFP_NOWARN);
	if (!buf->page)
		goto err_free_buf;
	buf->dma = dma_map_page(dq->dev, buf->page, 0, RCLINK_DP_RX_BUF,
				DMA_FROM_DEVICE);
	if (dma_mapping_error(dq->dev, buf->dma))
		goto err_free_page;
	dq->rq_nbufs++;
	return buf;

err_free_page:
	__free_page(buf->page);
err_free_buf:
	kfree(buf);
	return NULL;
}

static void rclink_dmaq_rq_buf_free(struct rclink_dmaq *dq,
				    struct rclink_rq_buf *buf)
{
	dma_unmap_page(dq->dev, buf->dma, RCLINK_DP_RX_BUF, DMA_FROM_DEVICE);
	__free_page(buf->page);
	kfree(buf);
	dq->rq_nbufs--;
}

/* A buffer back from the engine: keep it for the next post (rq_lock) */
static void rclink_dmaq_rq_buf_put(struct rclink_dmaq *dq,
				   struct rclink_rq_buf *buf)
{
	if (dq->rq_nfree >= 1U << dq->rq_order) {
		rclink_dmaq_rq_buf_free(dq, buf);
		return;
	}
	list_add(&buf->list, &dq->rq_free);
	dq->rq_nfree++;
}

/*
 * Receive flow control (rq_lock held): true while the complete messages
 * queued on the board exceed t1_rx_queued_max.  Pairs with
 * rclink_dmaq_rx_dequeued(): one of the two sees the other's update.
 */
static bool rclink_dmaq_rx_flow_stop(struct rclink_dmaq *dq)
{
	if (atomic64_read(&dq->rx_queued_bytes) <=
	    READ_ONCE(dq->rx_queued_max)) {
		WRITE_ONCE(dq->rx_stopped, false);
		return false;
	}
	if (dq->rx_stopped)
		return true;
	WRITE_ONCE(dq->rx_stopped, true);
	smp_mb();	/* rx_stopped before rx_queued_bytes */
	if (atomic64_read(&dq->rx_queued_bytes) <=
	    READ_ONCE(dq->rx_queued_max)) {
		WRITE_ONCE(dq->rx_stopped, false);
		return false;
	}
	rclink_dp_cnt_inc(dq, RCLINK_DP_RX_FLOW_STOPS);
	return true;
}

/* A buffer to post: a free one, else a new one within the limit (rq_lock) */
static struct rclink_rq_buf *rclink_dmaq_rq_buf_get(struct rclink_dmaq *dq)
{
	struct rclink_rq_buf *buf;

	buf = list_first_entry_or_null(&dq->rq_free, struct rclink_rq_buf,
				       list);
	if (buf) {
		list_del(&buf->list);
		dq->rq_nfree--;
		dma_sync_single_for_device(dq->dev, buf->dma, RCLINK_DP_RX_BUF,
					   DMA_FROM_DEVICE);
		return buf;
	}
	/* the CQ lags: buffers come back with their CQEs */
	if (dq->rq_nbufs >= dq->rq_max_bufs)
		return NULL;
	buf = rclink_dmaq_rq_buf_alloc(dq);
	if (!buf) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_RX_ALLOC_FAIL);
		schedule_delayed_work(&dq->refill_work, RCLINK_DP_REFILL_RETRY);
	}
	return buf;
}

/* Post buffers until the RQ is full, then ring the doorbell (rq_lock) */
static void rclink_dmaq_rq_refill_locked(struct rclink_dmaq *dq)
{
	u32 size = 1U << dq->rq_order, mask = size - 1;
	u32 prod = dq->rq_prod, cons;
	struct rclink_rq_buf *buf, *old;
	struct rclink_dp_rqe *rqe;
	u64 val;

	lockdep_assert_held(&dq->rq_lock);

	if (dq->stopped || rclink_dmaq_rx_flow_stop(dq))
		return;
	if (prod - dq->rq_cons == size) {
		val = rclink_rd64(dq->rdev, RCLINK_DMAQ_RQ_CONS);
		if (rclink_gone(dq->rdev))
			return;
		cons = FIELD_GET(RCLINK_DMAQ_RQ_CONS_IDX, val);
		if (cons - dq->rq_cons <= prod - dq->rq_cons)
			dq->rq_cons = cons;
		else
			dev_warn_ratelimited(dq->dev,
					     "DMAQ_RQ_CONS %u outside the posted RQEs %u..%u\n",
					     cons, dq->rq_cons, prod);
	}

	while (prod - dq->rq_cons < size) {
		buf = rclink_dmaq_rq_buf_get(dq);
		if (!buf)
			break;
		/* the engine took the entry's last buffer: still filling */
		old = dq->rq_slot[prod & mask];
		if (old) {
			list_add_tail(&old->list, &dq->rq_held);
			dq->rq_nheld++;
		}
		buf->idx = prod;
		dq->rq_slot[prod & mask] = buf;
		rqe = &dq->rq[prod & mask];
		rqe->addr = cpu_to_le64(buf->dma);
		rqe->len = cpu_to_le64(FIELD_PREP(RCLINK_RQE_LEN,
						  RCLINK_DP_RX_BUF));
		prod++;
	}
	if (prod != dq->rq_prod) {
		dq->rq_prod = prod;
		rclink_wr64(dq->rdev, RCLINK_DMAQ_RQ_PROD,
			    FIELD_PREP(RCLINK_DMAQ_RQ_PROD_IDX, prod));
	}
}

static void rclink_dmaq_rq_refill(struct rclink_dmaq *dq)
{
	mutex_lock(&dq->rq_lock);
	rclink_dmaq_rq_refill_locked(dq);
	mutex_unlock(&dq->rq_lock);
}

static void rclink_dmaq_refill_work(struct work_struct *work)
{
	struct rclink_dmaq *dq = container_of(to_delayed_work(work),
					      struct rclink_dmaq, refill_work);

	rclink_dmaq_rq_refill(dq);
}

/*
 * A reader took @bytes of messages off a QP of this board: resume posting
 * when flow control held the buffers back and the queue fell to the limit.
 */
void rclink_dmaq_rx_dequeued(struct rclink_dmaq *dq, u64 bytes)
{
	/* a value-returning atomic is a full barrier: see rx_flow_stop() */
	if (atomic64_sub_return(bytes, &dq->rx_queued_bytes) <=
	    READ_ONCE(dq->rx_queued_max) && READ_ONCE(dq->rx_stopped))
		rclink_dmaq_rq_refill(dq);
}

/* The buffer of a RECV CQE (rq_lock held), or NULL */
static struct rclink_rq_buf *rclink_dmaq_rq_take(struct rclink_dmaq *dq,
						 u32 idx)
{
	u32 mask = rclink_dp_mask(dq->rq_order);
	struct rclink_rq_buf *buf = dq->rq_slot[idx & mask];

	if (buf && buf->idx == idx) {
		dq->rq_slot[idx & mask] = NULL;
		return buf;
	}
	list_for_each_entry(buf, &dq->rq_held, list) {
		if (buf->idx == idx) {
			list_del(&buf->list);
			dq->rq_nheld--;
			return buf;
		}
	}
	return NULL;
}

/*
 * Drop the QP's message being reassembled and the rest of it up to its
 * LAST (qp->lock held); the caller frees what lands on @drop.
 */
static void rclink_dmaq_rx_cut(struct rclink_dmaq *dq,
			       struct rclink_t1_qp *qp, bool last,
			       struct list_head *drop)
{
	if (qp->rx_partial) {
		atomic64_sub(qp->rx_partial->size, &dq->rx_partial_bytes);
		list_add_tail(&qp->rx_partial->list, drop);
	}
	qp->rx_partial = NULL;
	qp->rx_discard = !last;
}

/* Count a message dropped on @qp (qp->lock held) */
static void rclink_dmaq_rx_drop(struct rclink_dmaq *dq,
				struct rclink_t1_qp *qp, enum rclink_dp_cnt c)
{
	qp->stats.rx_flushed++;
	rclink_dp_cnt_inc(dq, c);
}

/*
 * A complete message (qp->lock held): straight into a RECV buffer of the
 * bound file's ring when nothing older waits (then it lands on @drop, to
 * be copied into the buffer and freed once the locks are dropped), else on
 * the QP's queue; wake its reader.
 */
static void rclink_dmaq_rx_deliver(struct rclink_dmaq *dq,
				   struct rclink_t1_qp *qp,
				   struct rclink_msg *m, struct list_head *drop)
{
	struct rclink_ring *ring = NULL;

	if (qp->owner)
		/* pairs with the release in rclink_ring_setup() */
		ring = smp_load_acquire(&qp->owner->ring);

	qp->stats.rx_msgs++;
	qp->stats.rx_bytes += m->size;
	rclink_dp_cnt_inc(dq, RCLINK_DP_RX_MSGS);
	rclink_dp_cnt_add(dq, RCLINK_DP_RX_BYTES, m->size);
	if (ring && list_empty(&qp->rx_msgs) &&
	    rclink_ring_rx_direct(ring, qp, m)) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_RING_RECVS);
		list_add_tail(&m->list, drop);
		return;
	}
	list_add_tail(&m->list, &qp->rx_msgs);
	qp->rx_queued++;
	qp->rx_queued_bytes += m->size;
	atomic64_add(m->size, &dq->rx_queued_bytes);
	/* the bound file's readers, not its writers' pollers */
	if (qp->owner)
		wake_up_poll(&qp->owner->wq, EPOLLIN | EPOLLRDNORM);
	wake_up_all(&qp->wq);
}

/*
 * One filled buffer of @qp (qp->lock held): a message starts on FIRST
 * (with *@new, allocated by the caller for MSG_LEN, or NULL: then @nonew
 * says why), the data is appended, the message is delivered on LAST.  A
 * message that cannot be completed is dropped once, counted, and the rest
 * of it up to its LAST is ignored; what must be freed is put on @drop.
 */
static void rclink_dmaq_rx_buf(struct rclink_dmaq *dq,
			       struct rclink_t1_qp *qp, u64 w0,
			       struct rclink_msg **new,
			       enum rclink_dp_cnt nonew, const void *data,
			       struct list_head *drop)
{
	u32 status = FIELD_GET(RCLINK_CQE_STATUS, w0);
	u32 len = FIELD_GET(RCLINK_CQE_LEN, w0);
	bool first = w0 & RCLINK_CQE_FIRST;
	bool last = w0 & RCLINK_CQE_LAST;
	struct rclink_msg *m;

	if (status != RCLINK_CQE_ST_OK && !last) {
		/* a buffer the engine could not use (bad RQE): nothing lost */
		rclink_dp_cnt_inc(dq, RCLINK_DP_CQE_ERRORS);
		return;
	}
	if (status != RCLINK_CQE_ST_OK) {
		/* a segment error or a write failure cut the message */
		if (!qp->rx_discard)
			rclink_dmaq_rx_drop(dq, qp, RCLINK_DP_RX_DROP_FLUSHED);
		rclink_dmaq_rx_cut(dq, qp, last, drop);
		return;
	}

	if (first) {
		/* a message still open never saw its LAST */
		if (qp->rx_partial)
			rclink_dmaq_rx_drop(dq, qp, RCLINK_DP_RX_DROP_SEQ);
		rclink_dmaq_rx_cut(dq, qp, true, drop);
		if (!*new) {
			rclink_dmaq_rx_drop(dq, qp, nonew);
			rclink_dmaq_rx_cut(dq, qp, last, drop);
			return;
		}
		qp->rx_partial = *new;
		*new = NULL;
	} else if (!qp->rx_partial) {
		/* the rest of a dropped message, or a stray buffer */
		if (!qp->rx_discard)
			rclink_dp_cnt_inc(dq, RCLINK_DP_RX_DROP_SEQ);
		qp->rx_discard = !last;
		return;
	}

	m = qp->rx_partial;
	if (len > RCLINK_DP_RX_BUF || len > m->size - m->len ||
	    (last && m->len + len != m->size)) {
		rclink_dmaq_rx_drop(dq, qp, RCLINK_DP_RX_DROP_SEQ);
		rclink_dmaq_rx_cut(dq, qp, last, drop);
		return;
	}
	memcpy(m->data + m->len, data, len);
	m->len += len;
	if (last) {
		qp->rx_partial = NULL;
		atomic64_sub(m->size, &dq->rx_partial_bytes);
		rclink_dmaq_rx_deliver(dq, qp, m, drop);
	}
}

/* A RECV or MCAST RECV CQE (cq_lock and rq_lock held) */
static void rclink_dmaq_recv_cqe(struct rclink_dmaq *dq, u64 w0, u64 w1,
				 bool mcast)
{
	u32 status = FIELD_GET(RCLINK_CQE_STATUS, w0);
	u32 qpn = FIELD_GET(RCLINK_CQE_QPN, w0);
	u32 len = FIELD_GET(RCLINK_CQE_LEN, w0);
	u32 idx = FIELD_GET(RCLINK_CQE_IDX, w1);
	u32 msg_len = FIELD_GET(RCLINK_CQE_MSG_LEN, w1);
	struct rclink_msg *new = NULL, *m, *tmp;
	enum rclink_dp_cnt nonew;
	struct rclink_rq_buf *buf;
	struct rclink_t1_qp *qp;
	bool noqp = true;
	LIST_HEAD(drop);

	buf = rclink_dmaq_rq_take(dq, idx);
	if (!buf) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_CQE_ERRORS);
		dev_warn_ratelimited(dq->dev,
				     "RECV CQE of qp %u for RQ index %u: no such buffer\n",
				     qpn, idx);
		return;
	}
	if (len && len <= RCLINK_DP_RX_BUF)
		dma_sync_single_for_cpu(dq->dev, buf->dma, len,
					DMA_FROM_DEVICE);

	/*
	 * Before any spinlock: this may sleep.  The peer decides MSG_LEN:
	 * what its FIRSTs make the driver allocate is bounded by the board's
	 * partial budget (a QP reassembles one message at a time).
	 */
	nonew = RCLINK_DP_RX_DROP_SEQ;
	if (status == RCLINK_CQE_ST_OK && (w0 & RCLINK_CQE_FIRST) &&
	    msg_len && msg_len <= dq->rx_max_msg) {
		nonew = RCLINK_DP_RX_DROP_PARTIAL;
		if (atomic64_add_return(msg_len, &dq->rx_partial_bytes) <=
		    READ_ONCE(dq->rx_partial_max)) {
			nonew = RCLINK_DP_RX_DROP_NOMEM;
			new = kvmalloc(struct_size(new, data, msg_len),
				       GFP_KERNEL);
		}
		if (new) {
			new->len = 0;
			new->size = msg_len;
			new->rx_rf = NULL;
		} else {
			atomic64_sub(msg_len, &dq->rx_partial_bytes);
		}
	}

	rcu_read_lock();
	if (mcast)
		/* the groups outlive the data path */
		qp = qpn < RCLINK_AFH_T2_GROUPS ?
		     dq->rdev->t1.groups[qpn] : NULL;
	else
		qp = qpn < dq->qp_num ?
		     rclink_t1_qp_lookup_rcu(dq->rdev, qpn) : NULL;
	if (qp) {
		spin_lock(&qp->lock);
		if (!qp->dp_released) {
			rclink_dmaq_rx_buf(dq, qp, w0, &new, nonew,
					   page_address(buf->page), &drop);
			noqp = false;
		}
		spin_unlock(&qp->lock);
	}
	rcu_read_unlock();
	if (noqp) {
		rclink_dp_cnt_inc(dq, RCLINK_DP_RX_DROP_NOQP);
		dev_dbg_ratelimited(dq->dev,
				    "%u bytes received for qp %u, which does not exist\n",
				    len, qpn);
	}

	if (new) {
		/* no QP took it */
		atomic64_sub(new->size, &dq->rx_partial_bytes);
		kvfree(new);
	}
	/* delivered into a ring's RECV buffer: copied now, no lock held */
	list_for_each_entry_safe(m, tmp, &drop, list) {
		if (m->rx_rf)
			rclink_ring_rx_fill(m);
		kvfree(m);
	}
	rclink_dmaq_rq_buf_put(dq, buf);
}

/* ---- completion queue ---------------------------------------------------- */

/* PHASE is 1 on the first pass through the ring, 0 on the second, ... */
static bool rclink_dmaq_cq_phase(const struct rclink_dmaq *dq, u32 idx)
{
	return !((idx >> dq->cq_order) & 1);
}

static bool rclink_dmaq_cqe_valid(const struct rclink_dmaq *dq, u32 idx,
				  u64 *w3)
{
	const struct rclink_dp_cqe *cqe;

	cqe = &dq->cq[idx & rclink_dp_mask(dq->cq_order)];
	*w3 = le64_to_cpu(READ_ONCE(cqe->w[3]));
	return !!(*w3 & RCLINK_CQE_PHASE) == rclink_dmaq_cq_phase(dq, idx);
}

/*
 * Consume up to RCLINK_DP_CQ_BATCH CQEs, give the entries back, then post
 * the receive buffers again and wake the writers.  Returns the count.
 */
static u32 rclink_dmaq_cq_batch(struct rclink_dmaq *dq)
{
	u32 mask = rclink_dp_mask(dq->cq_order), cons = dq->cq_cons, n;
	const struct rclink_dp_cqe *cqe;
	bool recv = false, sent = false;
	u64 w0, w1, w3;
	u32 seq;

	for (n = 0; n < RCLINK_DP_CQ_BATCH; n++, cons++) {
		if (!rclink_dmaq_cqe_valid(dq, cons, &w3))
			break;
		/* read words 0-2 only after word 3 said they are written */
		dma_rmb();
		cqe = &dq->cq[cons & mask];
		w0 = le64_to_cpu(READ_ONCE(cqe->w[0]));
		w1 = le64_to_cpu(READ_ONCE(cqe->w[1]));
		seq = FIELD_GET(RCLINK_CQE_SEQ, w3);
		if (seq != cons)
			dev_warn_ratelimited(dq->dev,
					     "CQE %u has sequence %u\n",
					     cons, seq);

		switch (FIELD_GET(RCLINK_CQE_KIND, w0)) {
		case RCLINK_CQE_KIND_SEND:
		case RCLINK_CQE_KIND_SEND_MCAST:
		case RCLINK_CQE_KIND_WRITE:
		case RCLINK_CQE_KIND_READ:
			rclink_dmaq_send_cqe(dq, w0, w1,
					     FIELD_GET(RCLINK_CQE_KIND, w0));
			sent = true;
			break;
		case RCLINK_CQE_KIND_RECV:
		case RCLINK_CQE_KIND_RECV_MCAST:
			if (!recv)
				mutex_lock(&dq->rq_lock);
			recv = true;
			rclink_dmaq_recv_cqe(dq, w0, w1,
					     FIELD_GET(RCLINK_CQE_KIND, w0) ==
					     RCLINK_CQE_KIND_RECV_MCAST);
			break;
		default:
			rclink_dp_cnt_inc(dq, RCLINK_DP_CQE_ERRORS);
			dev_warn_ratelimited(dq->dev,
					     "CQE %u of unknown kind: 0x%llx 0x%llx\n",
					     cons, w0, w1);
			break;
		}
	}
	if (!n)
		return 0;

	rclink_dp_cnt_add(dq, RCLINK_DP_CQES, n);
	WRITE_ONCE(dq->cq_cons, cons);
	rclink_wr64(dq->rdev, RCLINK_DMAQ_CQ_CONS,
		    FIELD_PREP(RCLINK_DMAQ_CQ_CONS_IDX, cons));
	if (recv) {
		rclink_dmaq_rq_refill_locked(dq);
		mutex_unlock(&dq->rq_lock);
	}
	if (sent)
		rclink_cdev_wake_tx(dq->rdev);
	return n;
}

/* Consume every valid CQE (cq_lock held) */
static void rclink_dmaq_cq_poll(struct rclink_dmaq *dq)
{
	lockdep_assert_held(&dq->cq_lock);

	if (!dq->cq_enabled)
		return;
	rclink_dp_cnt_inc(dq, RCLINK_DP_CQ_IRQS);
	while (rclink_dmaq_cq_batch(dq) == RCLINK_DP_CQ_BATCH)
		cond_resched();
}

/* The CQ's interrupt: a threaded handler (process context) */
void rclink_dp_cq_irq(struct rclink_dev *rdev)
{
	struct rclink_dmaq *dq = rclink_dmaq_get(rdev);

	if (!dq)
		return;
	mutex_lock(&dq->cq_lock);
	rclink_dmaq_cq_poll(dq);
	mutex_unlock(&dq->cq_lock);
}

/* Whether a CQE waits (hard irq context: INTx is shared) */
bool rclink_dp_cq_pending(struct rclink_dev *rdev)
{
	struct rclink_dmaq *dq = rclink_dmaq_get(rdev);
	u64 w3;

	if (!dq || !READ_ONCE(dq->cq_enabled))
		return false;
	return rclink_dmaq_cqe_valid(dq, READ_ONCE(dq->cq_cons), &w3);
}

/* ---- bring-up and teardown ----------------------------------------------- */

static void *rclink_dmaq_ring_alloc(struct rclink_dmaq *dq, u32 order,
				    size_t esize, dma_addr_t *dma)
{
	void *ring;

	/* coherent memory is zeroed and at least page aligned */
	ring = dma_alloc_coherent(dq->dev, esize << order, dma, GFP_KERNEL);
	if (ring && !IS_ALIGNED(*dma, SZ_4K)) {
		dev_err(dq->dev, "queue at %pad is not 4 KiB aligned\n", dma);
		dma_free_coherent(dq->dev, esize << order, ring, *dma);
		ring = NULL;
	}
	return ring;
}

static void rclink_dmaq_ring_free(struct rclink_dmaq *dq, u32 order,
				  size_t esize, void *ring, dma_addr_t dma)
{
	if (ring)
		dma_free_coherent(dq->dev, esize << order, ring, dma);
}

static void rclink_dmaq_free(struct rclink_dmaq *dq)
{
	struct rclink_rq_buf *buf, *tmp;
	u32 i;

	if (dq->rq_slot) {
		for (i = 0; i < 1U << dq->rq_order; i++)
			if (dq->rq_slot[i])
				rclink_dmaq_rq_buf_free(dq, dq->rq_slot[i]);
		kvfree(dq->rq_slot);
	}
	list_for_each_entry_safe(buf, tmp, &dq->rq_held, list)
		rclink_dmaq_rq_buf_free(dq, buf);
	list_for_each_entry_safe(buf, tmp, &dq->rq_free, list)
		rclink_dmaq_rq_buf_free(dq, buf);
	WARN_ON_ONCE(dq->rq_nbufs);
	WARN_ON_ONCE(!list_empty(&dq->tx_inflight));
	kvfree(dq->tx_qp);
	rclink_dmaq_ring_free(dq, dq->sq_order, sizeof(*dq->sq), dq->sq,
			      dq->sq_dma);
	rclink_dmaq_ring_free(dq, dq->rq_order, sizeof(*dq->rq), dq->rq,
			      dq->rq_dma);
	rclink_dmaq_ring_free(dq, dq->cq_order, sizeof(*dq->cq), dq->cq,
			      dq->cq_dma);
	rclink_ctx_hw_fini(dq);
	mutex_destroy(&dq->cq_lock);
	mutex_destroy(&dq->rq_lock);
	kfree(dq);
}

static struct rclink_dmaq *rclink_dmaq_alloc(struct rclink_dev *rdev,
					     u64 cap)
{
	u32 max_order = FIELD_GET(RCLINK_DMAQ_CAP_MAX_ORDER, cap);
	struct rclink_dmaq *dq;
	u32 i;

	BUILD_BUG_ON(sizeof(struct rclink_dp_wqe) != RCLINK_WQE_BYTES);
	BUILD_BUG_ON(sizeof(struct rclink_dp_rqe) != RCLINK_RQE_BYTES);
	BUILD_BUG_ON(sizeof(struct rclink_dp_cqe) != RCLINK_CQE_BYTES);
	BUILD_BUG_ON((PAGE_SIZE << RCLINK_DP_TX_MAX_ORDER) >
		     RCLINK_WQE_MAX_PIECE);
	BUILD_BUG_ON(RCLINK_DP_RX_BUF > PAGE_SIZE);

	dq = kzalloc(sizeof(*dq), GFP_KERNEL);
	if (!dq)
		return NULL;
	dq->rdev = rdev;
	dq->dev = rdev->dev;
	dq->qp_num = rdev->params.qp_num;
	spin_lock_init(&dq->sq_lock);
	INIT_LIST_HEAD(&dq->tx_inflight);
	mutex_init(&dq->rq_lock);
	INIT_LIST_HEAD(&dq->rq_held);
	INIT_LIST_HEAD(&dq->rq_free);
	atomic64_set(&dq->rx_queued_bytes, 0);
	INIT_DELAYED_WORK(&dq->refill_work, rclink_dmaq_refill_work);
	mutex_init(&dq->cq_lock);

	dq->sq_order = min_t(u32, rdev->cfg.t1_sq_order, max_order);
	dq->rq_order = min_t(u32, rdev->cfg.t1_rq_order, max_order);
	dq->cq_order = min_t(u32, rdev->cfg.t1_cq_order, max_order);
	/*
	 * Buffers in circulation: the RQ's, plus one per QP: the engine fills
	 * at most one per QP, so QPs in the middle of messages can never hold
	 * every buffer.
	 */
	dq->rx_queued_max = RCLINK_DP_RX_QUEUED_MAX;
	dq->rx_partial_max = RCLINK_DP_RX_PARTIAL_MAX;
	dq->rq_max_bufs = (1U << dq->rq_order) + dq->qp_num;
	dq->rx_max_msg = FIELD_GET(RCLINK_DMAQ_CAP_MAX_MSG, cap);
	/* a message of order-0 pages takes at most half of the SQ */
	dq->max_msg = min_t(u64, dq->rx_max_msg,
			    (u64)PAGE_SIZE << (dq->sq_order - 1));

	dq->tx_qp = kvcalloc(dq->qp_num, sizeof(*dq->tx_qp), GFP_KERNEL);
	dq->rq_slot = kvcalloc(1U << dq->rq_order, sizeof(*dq->rq_slot),
			       GFP_KERNEL);
	dq->sq = rclink_dmaq_ring_alloc(dq, dq->sq_order, sizeof(*dq->sq),
					&dq->sq_dma);
	dq->rq = rclink_dmaq_ring_alloc(dq, dq->rq_order, sizeof(*dq->rq),
					&dq->rq_dma);
	dq->cq = rclink_dmaq_ring_alloc(dq, dq->cq_order, sizeof(*dq->cq),
					&dq->cq_dma);
	if (!dq->tx_qp || !dq->rq_slot || !dq->sq || !dq->rq || !dq->cq) {
		rclink_dmaq_free(dq);
		return NULL;
	}
	for (i = 0; i < dq->qp_num; i++)
		INIT_LIST_HEAD(&dq->tx_qp[i]);
	return dq;
}

/* Stopped: indices 0.  Then CQ, RQ and SQ, each programmed and enabled */
static int rclink_dmaq_hw_start(struct rclink_dmaq *dq)
{
	struct rclink_dev *rdev = dq->rdev;
	u64 sq_cfg, rq_cfg, cq_cfg;

	rclink_wr64(rdev, RCLINK_DMAQ_SQ_CFG, 0);
	rclink_wr64(rdev, RCLINK_DMAQ_RQ_CFG, 0);
	rclink_wr64(rdev, RCLINK_DMAQ_CQ_CFG, 0);

	cq_cfg = RCLINK_DMAQ_CQ_CFG_ENABLE |
		 FIELD_PREP(RCLINK_DMAQ_CQ_CFG_ORDER, dq->cq_order) |
		 FIELD_PREP(RCLINK_DMAQ_CQ_CFG_VECTOR,
			    rclink_irq_cq_shared(rdev) ? RCLINK_VEC_EVT :
			    RCLINK_VEC_CQ);
	rq_cfg = RCLINK_DMAQ_RQ_CFG_ENABLE |
		 FIELD_PREP(RCLINK_DMAQ_RQ_CFG_ORDER, dq->rq_order);
	sq_cfg = RCLINK_DMAQ_SQ_CFG_ENABLE |
		 FIELD_PREP(RCLINK_DMAQ_SQ_CFG_ORDER, dq->sq_order);

	WRITE_ONCE(dq->cq_enabled, true);
	rclink_wr64(rdev, RCLINK_DMAQ_CQ_BASE, dq->cq_dma);
	rclink_wr64(rdev, RCLINK_DMAQ_CQ_CONS, 0);
	rclink_wr64(rdev, RCLINK_DMAQ_CQ_CFG, cq_cfg);
	rclink_wr64(rdev, RCLINK_DMAQ_RQ_BASE, dq->rq_dma);
	rclink_wr64(rdev, RCLINK_DMAQ_RQ_PROD, 0);
	rclink_wr64(rdev, RCLINK_DMAQ_RQ_CFG, rq_cfg);
	rclink_wr64(rdev, RCLINK_DMAQ_SQ_BASE, dq->sq_dma);
	rclink_wr64(rdev, RCLINK_DMAQ_SQ_PROD, 0);
	rclink_wr64(rdev, RCLINK_DMAQ_SQ_CFG, sq_cfg);

	if (rclink_rd64(rdev, RCLINK_DMAQ_CQ_CFG) != cq_cfg ||
	    rclink_rd64(rdev, RCLINK_DMAQ_RQ_CFG) != rq_cfg ||
	    rclink_rd64(rdev, RCLINK_DMAQ_SQ_CFG) != sq_cfg) {
		dev_err(dq->dev, "queue engine: DMAQ_*_CFG did not take the configuration\n");
		return rclink_gone(rdev) ? -ENODEV : -EIO;
	}
	return 0;
}

/*
 * Stop the engine: no doorbell any more, SQ and RQ disabled (the engine
 * completes its messages FLUSHED), the CQ consumed, then disabled.  No DMA
 * after the read back.  (Removal, failed probe, shutdown.)
 */
static void rclink_dmaq_hw_stop(struct rclink_dmaq *dq)
{
	struct rclink_dev *rdev = dq->rdev;

	mutex_lock(&dq->rq_lock);
	spin_lock(&dq->sq_lock);
	dq->stopped = true;
	spin_unlock(&dq->sq_lock);
	mutex_unlock(&dq->rq_lock);

	rclink_wr64(rdev, RCLINK_DMAQ_SQ_CFG, 0);
	rclink_wr64(rdev, RCLINK_DMAQ_RQ_CFG, 0);
	rclink_rd64(rdev, RCLINK_DMAQ_RQ_CFG);		/* flush */

	mutex_lock(&dq->cq_lock);
	rclink_dmaq_cq_poll(dq);
	WRITE_ONCE(dq->cq_enabled, false);
	rclink_wr64(rdev, RCLINK_DMAQ_CQ_CFG, 0);
	rclink_rd64(rdev, RCLINK_DMAQ_CQ_CFG);		/* flush */
	mutex_unlock(&dq->cq_lock);
}

/*
 * The queue engine raises FLOW_STOP (TYPE1_FLOW_STOP_I) of a bank when the
 * host has no room for a packet of its QPs: let it reach the IP
 * (XON_THR_RDMA.flow_stop_en, every bank), so that the IP answers RNR
 * (AFH_CFG_EN.type1_flow_stop_send_rnr_en) instead of dropping the packet
 * for the sender's retry timer.  Not RNR with CBFC, whose VC buffer holds
 * the frames instead (seed 000, "register configuration in CBFC mode":
 * "RNR enable (0 recommended in CBFC mode)"); there FLOW_STOP only holds
 * the VC back.
 */
static void rclink_dmaq_rnr_enable(struct rclink_dev *rdev)
{
	u64 val;

	/* every bank (QPN bits 1:0) */
	mutex_lock(&rdev->t1.lock);
	val = rclink_rd64(rdev, RCLINK_XON_THR_RDMA);
	val &= ~RCLINK_XON_THR_RDMA_TYPE1_FREE_BUSY;
	rclink_wr64(rdev, RCLINK_XON_THR_RDMA, val | RCLINK_DP_FLOW_STOP_EN);
	if (!rclink_cbfc_on(rdev)) {
		val = rclink_rd64(rdev, RCLINK_AFH_CFG_EN);
		rclink_wr64(rdev, RCLINK_AFH_CFG_EN, val | RCLINK_DP_RNR_EN);
	}
	mutex_unlock(&rdev->t1.lock);
}

static void rclink_dmaq_publish(struct rclink_dev *rdev,
				struct rclink_dmaq *dq)
{
	mutex_lock(&rclink_t1_devs_lock);
	mutex_lock(&rdev->t1.lock);
	/* pairs with READ_ONCE() of the readers: dq is initialized first */
	smp_store_release(&rdev->t1.dmaq, dq);
	mutex_unlock(&rdev->t1.lock);
	mutex_unlock(&rclink_t1_devs_lock);
	/* no handler holds the old pointer any more */
	if (!dq)
		rclink_irq_sync(rdev);
}

int rclink_dp_init(struct rclink_dev *rdev)
{
	struct rclink_dmaq *dq;
	u64 cap;
	int err;

	cap = rclink_rd64(rdev, RCLINK_DMAQ_CAP);
	if (rclink_gone(rdev))
		return -ENODEV;
	if (FIELD_GET(RCLINK_DMAQ_CAP_MAX_ORDER, cap) < RCLINK_DP_MIN_ORDER ||
	    !FIELD_GET(RCLINK_DMAQ_CAP_MAX_MSG, cap) ||
	    FIELD_GET(RCLINK_DMAQ_CAP_SEG_HDR, cap) != RCLINK_SEG_BYTES) {
		dev_warn(rdev->dev,
			 "no usable queue engine (DMAQ_CAP 0x%llx): no TYPE1 messages\n",
			 cap);
		return 0;
	}

	dq = rclink_dmaq_alloc(rdev, cap);
	if (!dq)
		return -ENOMEM;
	/* before the CQ runs: its (shared) interrupt finds the engine */
	rclink_dmaq_publish(rdev, dq);
	err = rclink_dmaq_hw_start(dq);
	if (err)
		goto err_hw_stop;
	rclink_dmaq_rq_refill(dq);
	rclink_dmaq_rnr_enable(rdev);
	err = rclink_ctx_hw_init(dq);
	if (err)
		goto err_hw_stop;

	err = rclink_cdev_create(rdev);
	if (err)
		goto err_hw_stop;

	dev_info(rdev->dev,
		 "TYPE1 queues: SQ %u, RQ %u x %u bytes, CQ %u; messages up to %u bytes; /dev/%s\n",
		 1U << dq->sq_order, 1U << dq->rq_order, RCLINK_DP_RX_BUF,
		 1U << dq->cq_order, dq->max_msg, rdev->t1.name);
	return 0;

err_hw_stop:
	rclink_dmaq_hw_stop(dq);
	rclink_dmaq_publish(rdev, NULL);
	cancel_delayed_work_sync(&dq->refill_work);
	rclink_dmaq_free(dq);
	return err;
}

void rclink_dp_fini(struct rclink_dev *rdev)
{
	struct rclink_dmaq *dq = rdev->t1.dmaq;
	u64 flushed;

	if (!dq)
		return;
	/* the engine's own flushes below count as the teardown's too */
	flushed = -atomic64_read(&dq->cnt[RCLINK_DP_TX_FLUSHED]);
	/* no file operation runs or starts; every file is unbound */
	rclink_cdev_remove(rdev);
	rclink_dmaq_hw_stop(dq);
	/* gone meanwhile: the stop above did not reach the engine */
	rclink_dma_fence(rdev);
	rclink_dmaq_publish(rdev, NULL);
	cancel_delayed_work_sync(&dq->refill_work);
	/* what the engine did not complete: flushed */
	rclink_dmaq_tx_flush(dq);
	flushed += atomic64_read(&dq->cnt[RCLINK_DP_TX_FLUSHED]) +
		   atomic64_read(&dq->cnt[RCLINK_DP_TX_TEARDOWN]);
	if (flushed)
		dev_info(dq->dev, "%llu TYPE1 message(s) in flight completed flushed\n",
			 flushed);
	rdev->pci_stats.teardown_flushed += flushed;
	/* nothing in flight: the files' ring areas are not DMA'd any more */
	rclink_cdev_rings_unmap(rdev);
	rclink_cdev_put(rdev);
	rclink_dmaq_free(dq);
}

/* Reboot, kexec: no DMA into host memory any more; nothing is freed */
void rclink_dp_shutdown(struct rclink_dev *rdev)
{
	struct rclink_dmaq *dq = rdev->t1.dmaq;

	if (dq)
		rclink_dmaq_hw_stop(dq);
}

/* ---- QPs ----------------------------------------------------------------- */

void rclink_dp_qp_init(struct rclink_t1_qp *qp)
{
	spin_lock_init(&qp->lock);
	qp->owner = NULL;
	INIT_LIST_HEAD(&qp->rx_msgs);
	qp->rx_queued = 0;
	qp->rx_queued_bytes = 0;
	qp->rx_partial = NULL;
	qp->tx_inflight = 0;
	qp->rx_discard = false;
	qp->dp_released = false;
	init_waitqueue_head(&qp->wq);
}

/*
 * The QP is going away (unpublished, unbound; rclink_t1_devs_lock held or
 * the data path down): free what it received, and let its messages in
 * flight complete without it.  Returns the whole messages it freed unread
 * (counted as t1_rx_unread_dropped; a partial one is its sender's to
 * flush).
 */
u32 rclink_dp_qp_release(struct rclink_t1_qp *qp)
{
	struct rclink_dmaq *dq = rclink_dmaq_get(qp->rdev);
	struct rclink_msg *m, *tmp;
	struct rclink_tx_msg *msg;
	LIST_HEAD(drop);
	u32 unread = 0;
	u64 bytes;

	might_sleep();

	if (dq && qp->qpn < dq->qp_num) {
		spin_lock(&dq->sq_lock);
		list_for_each_entry(msg, &dq->tx_qp[qp->qpn], qp_list)
			if (msg->qp == qp)
				msg->qp = NULL;
		spin_unlock(&dq->sq_lock);
	}

	spin_lock(&qp->lock);
	WARN_ON_ONCE(qp->owner);
	qp->dp_released = true;
	list_splice_init(&qp->rx_msgs, &drop);
	list_for_each_entry(m, &drop, list)
		unread++;
	if (qp->rx_partial) {
		if (dq)
			atomic64_sub(qp->rx_partial->size,
				     &dq->rx_partial_bytes);
		list_add_tail(&qp->rx_partial->list, &drop);
	}
	qp->rx_partial = NULL;
	bytes = qp->rx_queued_bytes;
	qp->rx_queued = 0;
	qp->rx_queued_bytes = 0;
	spin_unlock(&qp->lock);

	if (dq && bytes)
		rclink_dmaq_rx_dequeued(dq, bytes);
	list_for_each_entry_safe(m, tmp, &drop, list)
		kvfree(m);
	if (unread)
		atomic64_add(unread, &qp->rdev->cnt[RCLINK_CNT_T1_RX_UNREAD]);
	return unread;
}

/* ---- counters ------------------------------------------------------------ */

static u64 rclink_dp_cnt(struct rclink_dmaq *dq, enum rclink_dp_cnt c)
{
	return atomic64_read(&dq->cnt[c]);
}

/* With rclink_t1_devs_lock or rclink_t1.lock held; zeros without engine */
void rclink_dp_stats_read(struct rclink_dev *rdev,
			  struct rclink_t1_dp_stats *st)
{
	struct rclink_dmaq *dq = rclink_dmaq_get(rdev);

	memset(st, 0, sizeof(*st));
	if (!dq)
		return;
	st->tx_msgs = rclink_dp_cnt(dq, RCLINK_DP_TX_MSGS);
	st->tx_bytes = rclink_dp_cnt(dq, RCLINK_DP_TX_BYTES);
	st->tx_flushed = rclink_dp_cnt(dq, RCLINK_DP_TX_FLUSHED) +
			 rclink_dp_cnt(dq, RCLINK_DP_TX_TEARDOWN);
	st->tx_errors = rclink_dp_cnt(dq, RCLINK_DP_TX_ERRORS);
	st->rx_msgs = rclink_dp_cnt(dq, RCLINK_DP_RX_MSGS);
	st->rx_bytes = rclink_dp_cnt(dq, RCLINK_DP_RX_BYTES);
	st->rx_drop_noqp = rclink_dp_cnt(dq, RCLINK_DP_RX_DROP_NOQP);
	st->rx_drop_flushed = rclink_dp_cnt(dq, RCLINK_DP_RX_DROP_FLUSHED);
	st->rx_drop_seq = rclink_dp_cnt(dq, RCLINK_DP_RX_DROP_SEQ);
	st->rx_drop_nomem = rclink_dp_cnt(dq, RCLINK_DP_RX_DROP_NOMEM);
	st->cqe_errors = rclink_dp_cnt(dq, RCLINK_DP_CQE_ERRORS);
	st->rx_flow_stops = rclink_dp_cnt(dq, RCLINK_DP_RX_FLOW_STOPS);
	st->rx_queued_bytes = atomic64_read(&dq->rx_queued_bytes);
}

/* debugfs "t1": "<name> <value>" lines, rings first, then the counters */
static int rclink_dp_dbg_show(struct seq_file *s, void *unused)
{
	struct rclink_dev *rdev = s->private;
	struct rclink_dmaq *dq = rclink_dmaq_get(rdev);
	u32 sq_prod, sq_cons, pending, i;
	u64 afh;
	bool gone = rclink_gone(rdev);

	seq_printf(s, "enabled %u\n", !!dq);
	if (!dq)
		return 0;

	seq_printf(s, "max_msg %u\n", dq->max_msg);
	spin_lock(&dq->sq_lock);
	sq_prod = dq->sq_prod;
	sq_cons = dq->sq_cons;
	pending = dq->tx_nr_inflight;
	spin_unlock(&dq->sq_lock);
	seq_printf(s, "sq_size %u\nsq_prod %u\nsq_cons %u\n",
		   1U << dq->sq_order, sq_prod, sq_cons);
	if (!gone)
		seq_printf(s, "sq_cons_hw %llu\n",
			   FIELD_GET(RCLINK_DMAQ_SQ_CONS_IDX,
				     rclink_rd64(rdev, RCLINK_DMAQ_SQ_CONS)));
	seq_printf(s, "tx_inflight %u\n", pending);

	mutex_lock(&dq->rq_lock);
	seq_printf(s, "rq_size %u\nrq_prod %u\nrq_cons %u\n",
		   1U << dq->rq_order, dq->rq_prod, dq->rq_cons);
	seq_printf(s, "rq_bufs %u\nrq_bufs_max %u\nrq_held %u\nrq_free %u\n",
		   dq->rq_nbufs, dq->rq_max_bufs, dq->rq_nheld, dq->rq_nfree);
	seq_printf(s, "rx_stopped %u\n", dq->rx_stopped);
	mutex_unlock(&dq->rq_lock);
	if (!gone)
		seq_printf(s, "rq_cons_hw %llu\n",
			   FIELD_GET(RCLINK_DMAQ_RQ_CONS_IDX,
				     rclink_rd64(rdev, RCLINK_DMAQ_RQ_CONS)));
	seq_printf(s, "rx_queued_bytes %lld\nrx_queued_max %llu\n",
		   (s64)atomic64_read(&dq->rx_queued_bytes),
		   READ_ONCE(dq->rx_queued_max));
	seq_printf(s, "rx_partial_bytes %lld\nrx_partial_max %llu\n",
		   (s64)atomic64_read(&dq->rx_partial_bytes),
		   READ_ONCE(dq->rx_partial_max));
	if (!gone) {
		afh = rclink_rd64(rdev, RCLINK_AFH_CFG_EN);
		seq_printf(s, "rnr_en 0x%llx\n",
			   FIELD_GET(RCLINK_DP_RNR_EN, afh));
		seq_printf(s, "flow_stop_en 0x%llx\n",
			   FIELD_GET(RCLINK_DP_FLOW_STOP_EN,
				     rclink_rd64(rdev, RCLINK_XON_THR_RDMA)));
	}

	seq_printf(s, "cq_size %u\ncq_cons %u\n", 1U << dq->cq_order,
		   READ_ONCE(dq->cq_cons));
	if (!gone)
		seq_printf(s, "cq_prod_hw %llu\n",
			   FIELD_GET(RCLINK_DMAQ_CQ_PROD_IDX,
				     rclink_rd64(rdev, RCLINK_DMAQ_CQ_PROD)));

	for (i = 0; i < RCLINK_DP_CNT_NUM; i++)
		seq_printf(s, "%s %llu\n", rclink_dp_cnt_names[i],
			   rclink_dp_cnt(dq, i));
	for (i = 0; i < ARRAY_SIZE(rclink_dp_hw_cnts) && !gone; i++)
		seq_printf(s, "%s %llu\n", rclink_dp_hw_cnts[i].name,
			   rclink_rd64(rdev, rclink_dp_hw_cnts[i].reg));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rclink_dp_dbg);

void rclink_dp_debugfs_init(struct rclink_dev *rdev, struct dentry *dir)
{
	debugfs_create_file("t1", 0400, dir, rdev, &rclink_dp_dbg_fops);
	/* a test hook: where receive flow control starts (bytes) */
	if (rdev->t1.dmaq)
		debugfs_create_u64("t1_rx_queued_max", 0600, dir,
				   &rdev->t1.dmaq->rx_queued_max);
	/* and where the partial budget ends (bytes) */
	if (rdev->t1.dmaq)
		debugfs_create_u64("t1_rx_partial_max", 0600, dir,
				   &rdev->t1.dmaq->rx_partial_max);
}
