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

/*
 * The report with the board's counters of the context (rx_nobuf,
 * not_owner); it takes the CQ events as rclink_uctx_events() does
 */
int rclink_uctx_counters(struct rclink_uctx *c, struct rclink_ctx_events *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->flags = RCLINK_CTX_EVENTS_COUNTERS;
	return ioctl(c->fd, RCLINK_IOC_CTX_EVENTS, ev);
}

/*
 * Sleep until a CQ event, an error or the timeout, and take the report:
 * one system call (RCLINK_CTX_EVENTS_WAIT); on a kernel without it,
 * poll() and then the report.  ev->events is 0 after the timeout.
 */
int rclink_uctx_wait_events(struct rclink_uctx *c,
			    struct rclink_ctx_events *ev, int timeout_ms)
{
	int err;

	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->flags = RCLINK_CTX_EVENTS_WAIT;
	ev->timeout_ms = timeout_ms > 0 ? (uint32_t)timeout_ms : 0;
	do {
		err = ioctl(c->fd, RCLINK_IOC_CTX_EVENTS, ev);
	} while (err && errno == EINTR);
	if (!err || errno != EINVAL)
		return err;
	/* an older kernel: no RCLINK_CTX_EVENTS_WAIT */
	if (rclink_uctx_wait(c, timeout_ms) < 0 && errno != EIO)
		return -1;
	return rclink_uctx_events(c, ev);
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

/* The board's error, from the doorbell record (no system call) */
bool rclink_uctx_error(const struct rclink_uctx *c, uint32_t *cause)
{
	uint64_t w = __atomic_load_n(&c->dbrec[1], __ATOMIC_ACQUIRE);

	if (cause)
		*cause = RCLINK_U_FIELD(w, 15, 8);
	return w & 1;
}

/*
 * The operation and its REMOTE entry, with room checked for @extra more
 * entries that the caller writes after them (REMOTE then carries MORE);
 * @lkey_bits: a REMOTE's LKEY_EN and LKEY, or 0 (off is in the area)
 */
static int rclink_post_rdma(struct rclink_uctx *c, uint32_t op, uint32_t qpn,
			    uint64_t off, uint32_t len, uint32_t rkey,
			    uint64_t raddr, uint32_t extra, uint64_t lkey_bits)
{
	uint32_t cons = rclink_load_acquire32(&c->dbrec[0], 0);
	uint64_t *wqe;

	if (c->sq_prod + 1 + extra - cons > c->sq_mask) {
		errno = EAGAIN;
		return -1;
	}
	wqe = c->sq + 2 * (c->sq_prod & c->sq_mask);
	wqe[0] = op | RCLINK_U_WQE_MORE | ((uint64_t)(qpn & 0xffff) << 16) |
		 ((uint64_t)len << 32);
	wqe[1] = off;
	wqe = c->sq + 2 * ((c->sq_prod + 1) & c->sq_mask);
	wqe[0] = RCLINK_U_WQE_OP_REMOTE | ((uint64_t)rkey << 32) |
		 (extra ? RCLINK_U_WQE_MORE : 0) | lkey_bits;
	wqe[1] = raddr;
	c->sq_prod += 2;
	return 0;
}

int rclink_post_write(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
		      uint32_t len, uint32_t rkey, uint64_t raddr)
{
	return rclink_post_rdma(c, RCLINK_U_WQE_OP_WRITE, qpn, off, len, rkey,
				raddr, 0, 0);
}

int rclink_post_read(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
		     uint32_t len, uint32_t rkey, uint64_t raddr)
{
	return rclink_post_rdma(c, RCLINK_U_WQE_OP_READ, qpn, off, len, rkey,
				raddr, 0, 0);
}

static uint64_t rclink_lkey_bits(uint32_t lkey)
{
	return RCLINK_U_WQE_LKEY_EN |
	       ((uint64_t)(lkey & 0xffffff) << RCLINK_U_WQE_LKEY_SHIFT);
}

int rclink_post_write_lkey(struct rclink_uctx *c, uint32_t qpn, uint32_t lkey,
			   uint64_t loff, uint32_t len, uint32_t rkey,
			   uint64_t raddr)
{
	return rclink_post_rdma(c, RCLINK_U_WQE_OP_WRITE, qpn, loff, len, rkey,
				raddr, 0, rclink_lkey_bits(lkey));
}

int rclink_post_read_lkey(struct rclink_uctx *c, uint32_t qpn, uint32_t lkey,
			  uint64_t loff, uint32_t len, uint32_t rkey,
			  uint64_t raddr)
{
	return rclink_post_rdma(c, RCLINK_U_WQE_OP_READ, qpn, loff, len, rkey,
				raddr, 0, rclink_lkey_bits(lkey));
}

/* Three entries: WRITE, REMOTE (MORE), IMM */
int rclink_post_write_imm(struct rclink_uctx *c, uint32_t qpn, uint64_t off,
			  uint32_t len, uint32_t rkey, uint64_t raddr,
			  uint32_t imm)
{
	uint64_t *wqe;

	if (rclink_post_rdma(c, RCLINK_U_WQE_OP_WRITE, qpn, off, len, rkey,
			     raddr, 1, 0))
		return -1;
	wqe = c->sq + 2 * (c->sq_prod & c->sq_mask);
	wqe[0] = RCLINK_U_WQE_OP_IMM;
	wqe[1] = imm;
	c->sq_prod++;
	return 0;
}

int rclink_mr_reg(struct rclink_uctx *c, uint64_t off, uint64_t len,
		  uint32_t access, uint32_t *lkey, uint32_t *rkey)
{
	struct rclink_mr_reg r = {
		.size = sizeof(r), .offset = off, .length = len,
		.access = access,
	};

	if (ioctl(c->fd, RCLINK_IOC_MR_REG, &r))
		return -1;
	if (lkey)
		*lkey = r.lkey;
	if (rkey)
		*rkey = r.rkey;
	return 0;
}

int rclink_mr_reg_user(struct rclink_uctx *c, void *addr, uint64_t len,
		       uint32_t access, uint32_t *lkey, uint32_t *rkey)
{
	struct rclink_mr_reg r = {
		.size = sizeof(r), .flags = RCLINK_MR_REG_USER,
		.addr = (uintptr_t)addr, .length = len, .access = access,
	};

	if (ioctl(c->fd, RCLINK_IOC_MR_REG, &r))
		return -1;
	if (lkey)
		*lkey = r.lkey;
	if (rkey)
		*rkey = r.rkey;
	return 0;
}

int rclink_mr_dereg(struct rclink_uctx *c, uint32_t key)
{
	struct rclink_mr_dereg d = { .size = sizeof(d), .key = key };

	return ioctl(c->fd, RCLINK_IOC_MR_DEREG, &d);
}

static void rclink_put_le(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rclink_get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/*
 * Layout: magic (4), IPv4 (4), MAC (6), QP (2), start (8), size (8),
 * rkey (4), reserved zero (4).
 */
void rclink_xchg_pack(const struct rclink_xchg *x, uint8_t *buf)
{
	memset(buf, 0, RCLINK_XCHG_BYTES);
	rclink_put_le(buf, RCLINK_XCHG_MAGIC, 4);
	rclink_put_le(buf + 4, x->ip, 4);
	memcpy(buf + 8, x->mac, 6);
	rclink_put_le(buf + 14, x->qpn, 2);
	rclink_put_le(buf + 16, x->start, 8);
	rclink_put_le(buf + 24, x->size, 8);
	rclink_put_le(buf + 32, x->rkey, 4);
}

int rclink_xchg_unpack(struct rclink_xchg *x, const uint8_t *buf,
		       size_t len)
{
	if (len < RCLINK_XCHG_BYTES ||
	    rclink_get_le(buf, 4) != RCLINK_XCHG_MAGIC ||
	    rclink_get_le(buf + 36, 4)) {
		errno = EINVAL;
		return -1;
	}
	x->ip = (uint32_t)rclink_get_le(buf + 4, 4);
	memcpy(x->mac, buf + 8, 6);
	x->qpn = (uint16_t)rclink_get_le(buf + 14, 2);
	x->start = rclink_get_le(buf + 16, 8);
	x->size = rclink_get_le(buf + 24, 8);
	x->rkey = (uint32_t)rclink_get_le(buf + 32, 4);
	return 0;
}
