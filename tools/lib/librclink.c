// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * librclink: the kernel-bypass data path of /dev/rclinkN (librclink.h).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "librclink.h"

#define FIELD(v, hi, lo)	(((v) >> (lo)) & ((1ull << ((hi) - (lo) + 1)) - 1))

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

static void *rclink_map(int fd, uint64_t off, size_t len, int prot)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)off);

	return p == MAP_FAILED ? NULL : p;
}

static void rclink_unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

void rclink_uctx_close(struct rclink_uctx *c)
{
	const struct rclink_ctx_create *p = &c->create;

	rclink_unmap((void *)c->db, p->db_size);
	rclink_unmap(c->sq, (size_t)16 * p->sq_entries);
	rclink_unmap(c->rq, (size_t)16 * p->rq_entries);
	rclink_unmap(c->cq, (size_t)32 * p->cq_entries);
	rclink_unmap((void *)c->dbrec, p->dbrec_size);
	rclink_unmap(c->area, p->area_size);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

int rclink_uctx_open(struct rclink_uctx *c, int fd,
		     const struct rclink_uctx_attr *a)
{
	struct rclink_ctx_create *p = &c->create;
	int err;

	memset(c, 0, sizeof(*c));
	c->fd = fd;
	p->size = sizeof(*p);
	p->sq_entries = a->sq_entries;
	p->rq_entries = a->rq_entries;
	p->cq_entries = a->cq_entries;
	p->area_size = a->area_size;
	p->mod_count = a->mod_count;
	p->mod_usec = a->mod_usec;
	if (ioctl(fd, RCLINK_IOC_CTX_CREATE, p))
		return -1;
	c->id = p->ctx_id;
	c->db = rclink_map(fd, p->db_off, p->db_size, PROT_WRITE);
	c->sq = rclink_map(fd, p->sq_off, (size_t)16 * p->sq_entries,
			   PROT_READ | PROT_WRITE);
	c->rq = rclink_map(fd, p->rq_off, (size_t)16 * p->rq_entries,
			   PROT_READ | PROT_WRITE);
	c->cq = rclink_map(fd, p->cq_off, (size_t)32 * p->cq_entries,
			   PROT_READ | PROT_WRITE);
	c->dbrec = rclink_map(fd, p->dbrec_off, p->dbrec_size, PROT_READ);
	c->area = rclink_map(fd, p->area_off, p->area_size,
			     PROT_READ | PROT_WRITE);
	if (!c->db || !c->sq || !c->rq || !c->cq || !c->dbrec || !c->area) {
		err = errno;
		rclink_uctx_close(c);
		c->fd = fd;
		errno = err;
		return -1;
	}
	c->area_size = p->area_size;
	c->sq_mask = p->sq_entries - 1;
	c->rq_mask = p->rq_entries - 1;
	c->cq_mask = p->cq_entries - 1;
	c->cq_order = __builtin_ctz(p->cq_entries);
	return 0;
}

int rclink_uctx_bind(struct rclink_uctx *c, uint32_t qpn, uint32_t flags)
{
	struct rclink_ctx_bind b = {
		.size = sizeof(b), .flags = flags, .qpn = qpn,
	};

	return ioctl(c->fd, RCLINK_IOC_CTX_BIND, &b);
}

int rclink_uctx_events(struct rclink_uctx *c, struct rclink_ctx_events *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	return ioctl(c->fd, RCLINK_IOC_CTX_EVENTS, ev);
}

/* Sleep until a CQ event (1), an error (-1, EIO) or the timeout (0) */
int rclink_uctx_wait(struct rclink_uctx *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n;
	if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL)) {
		errno = EIO;
		return -1;
	}
	return 1;
}

static inline uint32_t rclink_load_acquire32(const uint64_t *w, int hi)
{
	uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	return hi ? (uint32_t)(v >> 32) : (uint32_t)v;
}

/* The board's error, from the doorbell record (no system call) */
bool rclink_uctx_error(const struct rclink_uctx *c, uint32_t *cause)
{
	uint64_t w = __atomic_load_n(&c->dbrec[1], __ATOMIC_ACQUIRE);

	if (cause)
		*cause = FIELD(w, 15, 8);
	return w & 1;
}

void rclink_uctx_db_write(struct rclink_uctx *c, uint32_t off, uint32_t val)
{
	rclink_wmb();
	*(volatile uint32_t *)(c->db + off) = val;
	rclink_wc_flush();
}

int rclink_post_send(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
		     uint32_t len, uint32_t flags)
{
	uint32_t cons = rclink_load_acquire32(&c->dbrec[0], 0);
	uint64_t *wqe;

	if (c->sq_prod - cons > c->sq_mask) {
		errno = EAGAIN;
		return -1;
	}
	wqe = c->sq + 2 * (c->sq_prod & c->sq_mask);
	wqe[0] = ((flags & RCLINK_SEND_MCAST) ? RCLINK_U_WQE_OP_MCAST :
		  RCLINK_U_WQE_OP_SEND) |
		 ((flags & RCLINK_SEND_MORE) ? RCLINK_U_WQE_MORE : 0) |
		 ((uint64_t)(qpn & 0xffff) << 16) | ((uint64_t)len << 32);
	wqe[1] = off;
	c->sq_prod++;
	return 0;
}

int rclink_post_recv(struct rclink_uctx *c, uint64_t off, uint32_t len)
{
	uint32_t cons = rclink_load_acquire32(&c->dbrec[0], 1);
	uint64_t *rqe;

	if (c->rq_prod - cons > c->rq_mask) {
		errno = EAGAIN;
		return -1;
	}
	rqe = c->rq + 2 * (c->rq_prod & c->rq_mask);
	rqe[0] = off;
	rqe[1] = len;
	c->rq_prod++;
	return 0;
}

/* Publish what was posted: one doorbell store per queue that moved */
void rclink_uctx_doorbell(struct rclink_uctx *c)
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

int rclink_poll_cq(struct rclink_uctx *c, struct rclink_wc *wc, int n)
{
	/* locals: the stores to wc[] cannot alias them (no reloads) */
	const uint64_t *cq = c->cq;
	const uint32_t mask = c->cq_mask, order = c->cq_order;
	uint32_t cons = c->cq_cons;
	int got;

	for (got = 0; got < n; got++, cons++) {
		const uint64_t *cqe = cq + 4 * (cons & mask);
		uint64_t w3 = __atomic_load_n(&cqe[3], __ATOMIC_ACQUIRE);
		/* word 3 of the CQE numbered cons: its phase and SEQ */
		uint64_t want = ((cons >> order) & 1 ? 0 : RCLINK_U_CQE_PHASE) |
				(uint64_t)cons << 16;
		uint64_t w0, w1;

		if ((w3 & (RCLINK_U_CQE_PHASE | 0xffffffff0000ull)) != want)
			break;
		w0 = cqe[0];
		w1 = cqe[1];
		wc[got] = (struct rclink_wc){
			.kind = FIELD(w0, 3, 0),
			.status = FIELD(w0, 11, 4),
			.first = FIELD(w0, 12, 12),
			.last = FIELD(w0, 13, 13),
			.qpn = FIELD(w0, 31, 16),
			.len = w0 >> 32,
			.idx = (uint32_t)w1,
			.msg_len = w1 >> 32,
		};
	}
	if (got) {
		c->cq_cons = cons;
		/* the entries are read before the board may reuse them */
		rclink_wmb();
		*(volatile uint32_t *)(c->db + RCLINK_U_DB_CQ_CONS) = cons;
		c->cq_rung = cons;
		rclink_wc_flush();
	}
	return got;
}

/*
 * One CQ event (POLLIN of the file) for the next CQE from cq_cons on:
 * at once when it is already written.  One shot: arm again after it.
 */
void rclink_arm_cq(struct rclink_uctx *c)
{
	rclink_uctx_db_write(c, RCLINK_U_DB_CQ_ARM, c->cq_cons);
}
