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
int rclink_uctx_wait(struct rclink_uctx *c, int timeout_ms);

int rclink_post_send(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
		     uint32_t len, uint32_t flags);
int rclink_post_recv(struct rclink_uctx *c, uint64_t off, uint32_t len);
void rclink_uctx_doorbell(struct rclink_uctx *c);
int rclink_poll_cq(struct rclink_uctx *c, struct rclink_wc *wc, int n);
void rclink_arm_cq(struct rclink_uctx *c);
bool rclink_uctx_error(const struct rclink_uctx *c, uint32_t *cause);
void rclink_uctx_db_write(struct rclink_uctx *c, uint32_t off, uint32_t val);

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

static inline void *rclink_uctx_area(struct rclink_uctx *c, uint64_t off)
{
	return c->area + off;
}

#endif /* LIBRCLINK_H */
