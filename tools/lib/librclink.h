/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * librclink: the kernel-bypass data path of /dev/rclinkN in user space, in
 * the manner of rdma-core's direct verbs (Documentation/uapi/rclink-dev.rst,
 * "Contexts"; librclink(3), tools/lib/librclink.3).
 *
 *	struct rclink_uctx c;
 *	struct rclink_uctx_attr a = { .sq_entries = 64, .rq_entries = 64,
 *				      .cq_entries = 128, .area_size = 1 << 20 };
 *	struct rclink_wc wc[16];
 *
 *	fd = open("/dev/rclink0", O_RDWR | O_CLOEXEC);
 *	rclink_uctx_open(&c, fd, &a);		// -1 and errno on failure
 *	rclink_uctx_bind(&c, qpn, 0);		// a QP of ours (`rclink qp add`)
 *	rclink_post_recv(&c, 0, 4096);		// area[0, 4096) lent to the board
 *	memcpy(rclink_uctx_area(&c, 8192), msg, len);
 *	rclink_post_send(&c, qpn, 8192, len, 0);
 *	rclink_uctx_doorbell(&c);		// one store per queue and batch
 *	n = rclink_poll_cq(&c, wc, 16);		// never enters the kernel
 *	rclink_arm_cq(&c);			// then poll(fd): POLLIN
 *	rclink_uctx_close(&c);  close(fd);
 *
 * No call enters the kernel but open, bind, events and wait; none
 * allocates or locks: one thread per context, or the caller's own lock.
 *
 * Memory order (the board is the other party, as the kernel is in AF_XDP):
 * - posting: the WQE or RQE is written with plain stores; before the
 *   doorbell store that publishes it a full fence (rclink_wmb()) orders
 *   the entries (write-back memory) before the doorbell (write-combining
 *   memory: weakly ordered); after it rclink_wc_flush() empties the
 *   write-combining buffer so that the doorbell leaves at once.
 * - completing: the board writes words 0-2 of a CQE, then word 3 with the
 *   phase and sequence number; the poller loads word 3 with acquire
 *   semantics and only then reads words 0-2.
 * - room: the board writes the doorbell record's consumer indexes after it
 *   has read the entries; the poster loads them with acquire semantics
 *   before reusing an entry.
 * - the area: a RECV buffer belongs to the board from rclink_post_recv()
 *   until its CQE has been polled; a SEND piece from rclink_post_send()
 *   until the SEND's CQE.
 */
#ifndef LIBRCLINK_H
#define LIBRCLINK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/rclink_dev.h>

/* Queue formats (include/rclink_hw.h: WQE, RQE, CQE, DBREC, DB) */
#define RCLINK_U_WQE_OP_SEND	1u
#define RCLINK_U_WQE_OP_MCAST	2u
#define RCLINK_U_WQE_OP_WRITE	3u
#define RCLINK_U_WQE_OP_READ	4u
#define RCLINK_U_WQE_OP_REMOTE	5u
#define RCLINK_U_WQE_OP_IMM	6u
#define RCLINK_U_WQE_MORE	(1ull << 5)
#define RCLINK_U_WQE_LKEY_EN	(1ull << 6)	/* REMOTE: local side in LKEY */
#define RCLINK_U_WQE_QUIET	(1ull << 7)	/* SEND: no CQE when OK */
#define RCLINK_U_WQE_LKEY_SHIFT	8		/* REMOTE: bits 31:8 */
#define RCLINK_U_CQE_PHASE	(1ull << 63)
#define RCLINK_U_DB_SQ_PROD	0x00
#define RCLINK_U_DB_RQ_PROD	0x08
#define RCLINK_U_DB_CQ_CONS	0x10
#define RCLINK_U_DB_CQ_ARM	0x18

enum rclink_wc_kind {
	RCLINK_WC_SEND = 1,
	RCLINK_WC_RECV = 2,
	RCLINK_WC_SEND_MCAST = 3,
	RCLINK_WC_RECV_MCAST = 4,
	RCLINK_WC_WRITE = 5,		/* RDMA WRITE done */
	RCLINK_WC_READ = 6,		/* RDMA READ done: the data is here */
	RCLINK_WC_RECV_IMM = 7,		/* a peer's WRITE with immediate data
					 * landed: idx the RQE it used, msg_len
					 * the WRITE's length, imm */
};

enum rclink_wc_status {
	RCLINK_WC_OK = 0,
	RCLINK_WC_FLUSHED = 1,
	RCLINK_WC_BAD_WQE = 2,
	RCLINK_WC_DMA_ERR = 3,
	RCLINK_WC_NOT_OWNER = 4,	/* a QP or group not ours */
	RCLINK_WC_BAD_ADDR = 5,		/* outside the area */
	/* WRITE and READ: the responder refused it, nothing written */
	RCLINK_WC_REM_KEY = 6,		/* no such registration (or stale) */
	RCLINK_WC_REM_ACCESS = 7,	/* the registration forbids it */
	RCLINK_WC_REM_BOUNDS = 8,	/* outside the registration */
	RCLINK_WC_REM_TIMEOUT = 9,	/* no response in time */
};

/* One completion */
struct rclink_wc {
	uint8_t kind;		/* enum rclink_wc_kind */
	uint8_t status;		/* enum rclink_wc_status */
	bool first;		/* RECV: the message's first buffer */
	bool last;		/* RECV: its last */
	uint32_t qpn;		/* QP, or TYPE2 group */
	uint32_t len;		/* SEND: message bytes; RECV: bytes in buffer */
	uint32_t idx;		/* SEND: SQ index of its last WQE; RECV: RQ index */
	uint32_t msg_len;	/* RECV: the whole message's length */
	uint32_t imm;		/* RECV_IMM: the immediate data */
};

struct rclink_uctx_attr {
	uint32_t sq_entries;	/* powers of 2, 16.. */
	uint32_t rq_entries;
	uint32_t cq_entries;
	uint32_t area_size;	/* bytes, page multiple */
	uint32_t mod_count;	/* CQ event after this many CQEs (0: the first) */
	uint32_t mod_usec;	/* ... or this long after the first (0: none) */
};

/* An open context; the fields are the library's, readable by the caller */
struct rclink_uctx {
	int fd;
	uint32_t id;
	struct rclink_ctx_create create;
	uint64_t *sq;			/* 2 words per WQE */
	uint64_t *rq;			/* 2 words per RQE */
	uint64_t *cq;			/* 4 words per CQE */
	const uint64_t *dbrec;		/* SQ_CONS, RQ_CONS; ERROR, CAUSE */
	volatile uint8_t *db;		/* the doorbell page */
	uint8_t *area;
	uint32_t area_size;
	uint32_t sq_prod, sq_rung, sq_mask;
	uint32_t rq_prod, rq_rung, rq_mask;
	uint32_t cq_cons, cq_rung, cq_mask, cq_order;
};

int rclink_uctx_open(struct rclink_uctx *c, int fd,
		     const struct rclink_uctx_attr *attr);
void rclink_uctx_close(struct rclink_uctx *c);
int rclink_uctx_bind(struct rclink_uctx *c, uint32_t qpn, uint32_t flags);
int rclink_uctx_events(struct rclink_uctx *c, struct rclink_ctx_events *ev);
int rclink_uctx_counters(struct rclink_uctx *c, struct rclink_ctx_events *ev);
int rclink_uctx_wait(struct rclink_uctx *c, int timeout_ms);
int rclink_uctx_wait_events(struct rclink_uctx *c,
			    struct rclink_ctx_events *ev, int timeout_ms);

bool rclink_uctx_error(const struct rclink_uctx *c, uint32_t *cause);

/*
 * One-sided RDMA (librclink(3), "RDMA WRITE and READ"): register a range
 * of the area for the peer, then WRITE area[off, off + len) to the peer's
 * registration rkey at raddr (counted from its start), or READ from there
 * into area[off, off + len).  Each takes two SQ entries; its completion
 * (RCLINK_WC_WRITE, RCLINK_WC_READ) comes when the peer's shim answered.
 * The area range is the board's from the post until that completion.
 * rclink_mr_reg_user() registers the caller's own memory [addr, addr +
 * len) instead (pinned and charged to RLIMIT_MEMLOCK until deregistered)
 * as the target of the peer's WRITE and READ.
 */
int rclink_mr_reg(struct rclink_uctx *c, uint64_t off, uint64_t len,
		  uint32_t access, uint32_t *lkey, uint32_t *rkey);
int rclink_mr_reg_user(struct rclink_uctx *c, void *addr, uint64_t len,
		       uint32_t access, uint32_t *lkey, uint32_t *rkey);
int rclink_mr_dereg(struct rclink_uctx *c, uint32_t key);
int rclink_post_write(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
		      uint32_t len, uint32_t rkey, uint64_t raddr);
int rclink_post_read(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
		     uint32_t len, uint32_t rkey, uint64_t raddr);
/*
 * The same with the local side in the context's own registration lkey
 * (rclink_mr_reg() or rclink_mr_reg_user(), any access rights): WRITE
 * its [loff, loff + len) or READ into it, so that ordinary memory of the
 * process is sent from and read into without a copy through the area.
 * An lkey that is not the context's, or a range outside it, completes
 * RCLINK_WC_BAD_ADDR and puts the context in error.
 */
int rclink_post_write_lkey(struct rclink_uctx *c, uint32_t qpn, uint32_t lkey,
			   uint64_t loff, uint32_t len, uint32_t rkey,
			   uint64_t raddr);
int rclink_post_read_lkey(struct rclink_uctx *c, uint32_t qpn, uint32_t lkey,
			  uint64_t loff, uint32_t len, uint32_t rkey,
			  uint64_t raddr);
/*
 * A WRITE with immediate data (three SQ entries): once the data is in
 * place the peer's next RQE is taken (unused) and a RECV_IMM completion
 * with imm is written there; the WRITE completes after that.
 */
int rclink_post_write_imm(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
			  uint32_t len, uint32_t rkey, uint64_t raddr,
			  uint32_t imm);

/*
 * The optional exchange message (seed 004: a SEND of "local IP, MAC,
 * memory start, size and remote key"): what a peer needs to WRITE and
 * READ a registration, packed into RCLINK_XCHG_BYTES little-endian bytes
 * to be sent by any means (a SEND on the QP, a socket).  start is the
 * first remote address to use (0: the registration's start).
 */
#define RCLINK_XCHG_MAGIC	0x52444d41u	/* "RDMA" */
#define RCLINK_XCHG_BYTES	40

struct rclink_xchg {
	uint32_t ip;		/* IPv4, host order */
	uint8_t mac[6];
	uint16_t qpn;		/* the QP the peer's requests must come to */
	uint64_t start;
	uint64_t size;
	uint32_t rkey;
};

void rclink_xchg_pack(const struct rclink_xchg *x, uint8_t *buf);
int rclink_xchg_unpack(struct rclink_xchg *x, const uint8_t *buf,
		       size_t len);

/* rclink_post_send() flags */
#define RCLINK_SEND_MCAST	(1u << 0)	/* qpn is a TYPE2 group */
#define RCLINK_SEND_MORE	(1u << 1)	/* the next piece continues it */
/*
 * No completion when the SEND succeeds (one with an error is written); a
 * later SEND's completion on the same QP says it is done too: signal the
 * last of a batch (verbs' unsignaled sends).  On the message's first piece.
 */
#define RCLINK_SEND_QUIET	(1u << 2)

static inline void *rclink_uctx_area(struct rclink_uctx *c, uint64_t off)
{
	return c->area + off;
}

/*
 * The data path, inline (as rdma-core's direct verbs): a few instructions
 * per entry, and the compiler drops what the caller does not read of a
 * completion.
 */

#define RCLINK_U_FIELD(v, hi, lo) \
	(((v) >> (lo)) & ((1ull << ((hi) - (lo) + 1)) - 1))

/* Entries (write-back memory) before the doorbell (write-combining) */
static inline void rclink_wmb(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The write-combining buffer out at once */
static inline void rclink_wc_flush(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("sfence" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline uint32_t rclink_load_acquire32(const uint64_t *w, int hi)
{
	uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	return hi ? (uint32_t)(v >> 32) : (uint32_t)v;
}

static inline void rclink_uctx_db_write(struct rclink_uctx *c, uint32_t off,
					uint32_t val)
{
	rclink_wmb();
	*(volatile uint32_t *)(c->db + off) = val;
	rclink_wc_flush();
}

/*
 * Posting a batch through a cursor in the caller's locals: the room is
 * looked at once (an acquire load of the doorbell record) and the
 * queue's state stays in registers while the entries are written (the
 * stores to the queue cannot alias a local).  Post at most k.room
 * entries, then rclink_sq_end() (rclink_rq_end()) and the doorbell.
 *
 *	struct rclink_post_cursor k = rclink_sq_begin(&c);
 *	for (i = 0; i < n && i < k.room; i++)
 *		rclink_cursor_send(&k, qpn, off[i], len[i], 0);
 *	rclink_sq_end(&c, &k);
 *	rclink_uctx_doorbell(&c);
 */
struct rclink_post_cursor {
	uint64_t *q;
	uint32_t mask, prod, room;
};

static inline struct rclink_post_cursor rclink_sq_begin(struct rclink_uctx *c)
{
	uint32_t cons = rclink_load_acquire32(&c->dbrec[0], 0);

	return (struct rclink_post_cursor){
		.q = c->sq, .mask = c->sq_mask, .prod = c->sq_prod,
		.room = c->sq_mask + 1 - (c->sq_prod - cons) };
}

static inline struct rclink_post_cursor rclink_rq_begin(struct rclink_uctx *c)
{
	uint32_t cons = rclink_load_acquire32(&c->dbrec[0], 1);

	return (struct rclink_post_cursor){
		.q = c->rq, .mask = c->rq_mask, .prod = c->rq_prod,
		.room = c->rq_mask + 1 - (c->rq_prod - cons) };
}

static inline void rclink_sq_end(struct rclink_uctx *c,
				 const struct rclink_post_cursor *k)
{
	c->sq_prod = k->prod;
}

static inline void rclink_rq_end(struct rclink_uctx *c,
				 const struct rclink_post_cursor *k)
{
	c->rq_prod = k->prod;
}

/* A SEND WQE (rclink_post_send()) at the cursor; the caller keeps to room */
static inline void rclink_cursor_send(struct rclink_post_cursor *k,
				      uint32_t qpn, uint64_t off, uint32_t len,
				      uint32_t flags)
{
	uint64_t *wqe = k->q + 2 * (k->prod & k->mask);

	wqe[0] = ((flags & RCLINK_SEND_MCAST) ? RCLINK_U_WQE_OP_MCAST :
		  RCLINK_U_WQE_OP_SEND) |
		 ((flags & RCLINK_SEND_MORE) ? RCLINK_U_WQE_MORE : 0) |
		 ((flags & RCLINK_SEND_QUIET) ? RCLINK_U_WQE_QUIET : 0) |
		 ((uint64_t)(qpn & 0xffff) << 16) | ((uint64_t)len << 32);
	wqe[1] = off;
	k->prod++;
	k->room--;
}

/* An RQE (rclink_post_recv()) at the cursor; the caller keeps to room */
static inline void rclink_cursor_recv(struct rclink_post_cursor *k,
				      uint64_t off, uint32_t len)
{
	uint64_t *rqe = k->q + 2 * (k->prod & k->mask);

	rqe[0] = off;
	rqe[1] = len;
	k->prod++;
	k->room--;
}

/* A SEND (or with RCLINK_SEND_MCAST a TYPE2 MCAST) of area[off, off + len) */
static inline int rclink_post_send(struct rclink_uctx *c, uint32_t qpn,
				   uint64_t off, uint32_t len, uint32_t flags)
{
	struct rclink_post_cursor k = rclink_sq_begin(c);

	if (!k.room) {
		errno = EAGAIN;
		return -1;
	}
	rclink_cursor_send(&k, qpn, off, len, flags);
	rclink_sq_end(c, &k);
	return 0;
}

/* Lend the board area[off, off + len) for the next message */
static inline int rclink_post_recv(struct rclink_uctx *c, uint64_t off,
				   uint32_t len)
{
	struct rclink_post_cursor k = rclink_rq_begin(c);

	if (!k.room) {
		errno = EAGAIN;
		return -1;
	}
	rclink_cursor_recv(&k, off, len);
	rclink_rq_end(c, &k);
	return 0;
}

/* Publish what was posted: one doorbell store per queue that moved */
static inline void rclink_uctx_doorbell(struct rclink_uctx *c)
{
	if (c->sq_prod == c->sq_rung && c->rq_prod == c->rq_rung)
		return;
	rclink_wmb();
	if (c->rq_prod != c->rq_rung) {
		*(volatile uint32_t *)(c->db + RCLINK_U_DB_RQ_PROD) =
			c->rq_prod;
		c->rq_rung = c->rq_prod;
	}
	if (c->sq_prod != c->sq_rung) {
		*(volatile uint32_t *)(c->db + RCLINK_U_DB_SQ_PROD) =
			c->sq_prod;
		c->sq_rung = c->sq_prod;
	}
	rclink_wc_flush();
}

/* Whether the board has written cqe, the CQE numbered cons */
static inline bool rclink_cqe_valid(const uint64_t *cqe, uint32_t order,
				    uint32_t cons)
{
	uint64_t w3 = __atomic_load_n(&cqe[3], __ATOMIC_ACQUIRE);
	/* word 3 of the CQE numbered cons: its phase and SEQ */
	uint64_t want = ((cons >> order) & 1 ? 0 : RCLINK_U_CQE_PHASE) |
			(uint64_t)cons << 16;

	return (w3 & (RCLINK_U_CQE_PHASE | 0xffffffff0000ull)) == want;
}

static inline void rclink_wc_decode(struct rclink_wc *wc, const uint64_t *cqe)
{
	uint64_t w0 = cqe[0], w1 = cqe[1];

	*wc = (struct rclink_wc){
		.kind = RCLINK_U_FIELD(w0, 3, 0),
		.status = RCLINK_U_FIELD(w0, 11, 4),
		.first = RCLINK_U_FIELD(w0, 12, 12),
		.last = RCLINK_U_FIELD(w0, 13, 13),
		.qpn = RCLINK_U_FIELD(w0, 31, 16),
		.len = w0 >> 32,
		.idx = (uint32_t)w1,
		.msg_len = w1 >> 32,
		.imm = (uint32_t)cqe[2],
	};
}

/*
 * Tell the board what was reaped (rclink_cq_next()): one doorbell store.
 * The entries were read before it may reuse them.
 */
static inline void rclink_cq_done(struct rclink_uctx *c)
{
	if (c->cq_cons == c->cq_rung)
		return;
	rclink_wmb();
	*(volatile uint32_t *)(c->db + RCLINK_U_DB_CQ_CONS) = c->cq_cons;
	c->cq_rung = c->cq_cons;
	rclink_wc_flush();
}

/*
 * Reaping a batch through a cursor in the caller's locals: the acquire
 * load of each CQE does not make the compiler reload the CQ's state from
 * *c (which other threads could change as far as it knows).
 *
 *	struct rclink_cq_cursor k = rclink_cq_begin(&c);
 *	while (rclink_cq_cursor_next(&k, &wc)) ...
 *	rclink_cq_end(&c, &k);		// one doorbell store
 */
struct rclink_cq_cursor {
	const uint64_t *cq;
	uint32_t mask, order, cons;
};

static inline struct rclink_cq_cursor rclink_cq_begin(const struct rclink_uctx *c)
{
	return (struct rclink_cq_cursor){ .cq = c->cq, .mask = c->cq_mask,
					  .order = c->cq_order,
					  .cons = c->cq_cons };
}

static inline bool rclink_cq_cursor_next(struct rclink_cq_cursor *k,
					 struct rclink_wc *wc)
{
	const uint64_t *cqe = k->cq + 4 * (k->cons & k->mask);

	if (!rclink_cqe_valid(cqe, k->order, k->cons))
		return false;
	rclink_wc_decode(wc, cqe);
	k->cons++;
	return true;
}

static inline void rclink_cq_end(struct rclink_uctx *c,
				 const struct rclink_cq_cursor *k)
{
	c->cq_cons = k->cons;
	rclink_cq_done(c);
}

/*
 * The next completion into *wc, false when there is none; the board learns
 * at rclink_cq_done().  A cursor of one entry, in the caller's variable:
 * the compiler keeps only what the caller reads of it.
 */
static inline bool rclink_cq_next(struct rclink_uctx *c, struct rclink_wc *wc)
{
	struct rclink_cq_cursor k = rclink_cq_begin(c);

	if (!rclink_cq_cursor_next(&k, wc))
		return false;
	c->cq_cons = k.cons;
	return true;
}

/* Reap up to n completions into wc[] and tell the board; how many */
static inline int rclink_poll_cq(struct rclink_uctx *c, struct rclink_wc *wc,
				 int n)
{
	struct rclink_cq_cursor k = rclink_cq_begin(c);
	int got = 0;

	while (got < n && rclink_cq_cursor_next(&k, &wc[got]))
		got++;
	rclink_cq_end(c, &k);
	return got;
}

/*
 * One CQ event (POLLIN of the file) for the next CQE from cq_cons on:
 * at once when it is already written.  One shot: arm again after it.
 */
static inline void rclink_arm_cq(struct rclink_uctx *c)
{
	rclink_uctx_db_write(c, RCLINK_U_DB_CQ_ARM, c->cq_cons);
}

#endif /* LIBRCLINK_H */
