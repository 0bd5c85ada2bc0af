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
