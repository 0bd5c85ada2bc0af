/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * rclink_ring.h: a header-only helper for the mmap'd rings of /dev/rclinkN
 * (Documentation/uapi/rclink-dev.rst, "Rings"; uapi/linux/rclink_dev.h).
 *
 *	struct rclink_ring r;
 *	struct rclink_sqe *sqe;
 *	struct rclink_cqe *cqe;
 *
 *	if (rclink_ring_init(&r, fd, 64, 0, 1 << 20))	// after BIND
 *		... errno says why ...
 *	sqe = rclink_ring_get_sqe(&r);			// NULL: SQ full
 *	memcpy(rclink_ring_area(&r, 0), msg, len);
 *	rclink_ring_prep_send(sqe, 0, len, cookie);
 *	rclink_ring_submit(&r, 1);			// one ioctl per batch
 *	while ((cqe = rclink_ring_peek_cqe(&r))) {
 *		... cqe->user_data, cqe->res ...
 *		rclink_ring_cqe_seen(&r);
 *	}
 *	rclink_ring_exit(&r);
 *
 * rclink_bind() binds a file to a QP (or a TYPE2 group) and
 * rclink_bind_strerror() says why a bind failed, in the terms of the
 * `rclink` tool (a QP belongs to a user: EACCES).
 *
 * Memory order follows the uapi header: entries before the tail (release),
 * the tail before the entries (acquire), the head after the entries
 * (release).  One thread produces SQEs and one consumes CQEs.
 */
#ifndef RCLINK_RING_H
#define RCLINK_RING_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/rclink_dev.h>

struct rclink_ring {
	int fd;
	struct rclink_ring_setup setup;
	void *rings;
	size_t rings_size;
	struct rclink_ring_hdr *hdr;
	struct rclink_sqe *sqes;
	struct rclink_cqe *cqes;
	uint8_t *area;
	uint32_t area_size;
	uint32_t sq_tail;	/* our copy: SQEs produced */
	uint32_t sq_mask;
	uint32_t cq_head;	/* our copy: CQEs consumed */
	uint32_t cq_mask;
};

static inline uint32_t rclink_ring_load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void rclink_ring_store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Set up the rings of @fd and map them; 0, or -1 with errno */
static inline int rclink_ring_init(struct rclink_ring *r, int fd,
				   uint32_t sq_entries, uint32_t cq_entries,
				   uint32_t area_size)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->setup.size = sizeof(r->setup);
	r->setup.sq_entries = sq_entries;
	r->setup.cq_entries = cq_entries;
	r->setup.area_size = area_size;
	if (ioctl(fd, RCLINK_IOC_RING_SETUP, &r->setup))
		return -1;
	r->rings_size = r->setup.rings_size;
	r->rings = mmap(NULL, r->rings_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, fd, RCLINK_RING_OFF_RINGS);
	if (r->rings == MAP_FAILED)
		return -1;
	r->area = mmap(NULL, area_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, RCLINK_RING_OFF_AREA);
	if (r->area == MAP_FAILED) {
		err = errno;
		munmap(r->rings, r->rings_size);
		errno = err;
		return -1;
	}
	r->area_size = area_size;
	r->hdr = r->rings;
	r->sqes = (struct rclink_sqe *)((char *)r->rings + r->setup.sq_off);
	r->cqes = (struct rclink_cqe *)((char *)r->rings + r->setup.cq_off);
	r->sq_mask = r->setup.sq_entries - 1;
	r->cq_mask = r->setup.cq_entries - 1;
	r->sq_tail = r->hdr->sq_tail;
	r->cq_head = r->hdr->cq_head;
	return 0;
}

/* Unmap (the rings themselves live until the file is closed) */
static inline void rclink_ring_exit(struct rclink_ring *r)
{
	if (r->area && r->area != MAP_FAILED)
		munmap(r->area, r->area_size);
	if (r->rings && r->rings != MAP_FAILED)
		munmap(r->rings, r->rings_size);
	r->area = NULL;
	r->rings = NULL;
}

static inline void *rclink_ring_area(struct rclink_ring *r, uint64_t off)
{
	return r->area + off;
}

/* The next free SQE, or NULL when the kernel has not consumed enough */
static inline struct rclink_sqe *rclink_ring_get_sqe(struct rclink_ring *r)
{
	uint32_t head = rclink_ring_load_acquire(&r->hdr->sq_head);
	struct rclink_sqe *sqe;

	if (r->sq_tail - head > r->sq_mask)
		return NULL;
	sqe = &r->sqes[r->sq_tail & r->sq_mask];
	r->sq_tail++;
	memset(sqe, 0, sizeof(*sqe));
	return sqe;
}

static inline void rclink_ring_prep_send(struct rclink_sqe *sqe,
					 uint64_t off, uint32_t len,
					 uint64_t user_data)
{
	sqe->opcode = RCLINK_OP_SEND;
	sqe->addr = off;
	sqe->len = len;
	sqe->user_data = user_data;
}

static inline void rclink_ring_prep_recv(struct rclink_sqe *sqe,
					 uint64_t off, uint32_t len,
					 uint64_t user_data)
{
	sqe->opcode = RCLINK_OP_RECV;
	sqe->addr = off;
	sqe->len = len;
	sqe->user_data = user_data;
}

/* SQEs produced and not yet taken by the kernel */
static inline uint32_t rclink_ring_sq_pending(struct rclink_ring *r)
{
	return r->sq_tail - rclink_ring_load_acquire(&r->hdr->sq_head);
}

/*
 * Publish the SQEs prepared so far and take them (one ioctl), waiting for
 * @min_complete CQEs.  Returns the SQEs taken, or -1 with errno.
 */
static inline int rclink_ring_enter(struct rclink_ring *r,
				    uint32_t min_complete)
{
	struct rclink_ring_enter e = { .size = sizeof(e) };

	rclink_ring_store_release(&r->hdr->sq_tail, r->sq_tail);
	e.to_submit = rclink_ring_sq_pending(r);
	e.min_complete = min_complete;
	if (ioctl(r->fd, RCLINK_IOC_RING_ENTER, &e))
		return -1;
	return (int)e.submitted;
}

static inline int rclink_ring_submit(struct rclink_ring *r,
				     uint32_t min_complete)
{
	return rclink_ring_enter(r, min_complete);
}

/* The oldest unconsumed CQE, or NULL */
static inline struct rclink_cqe *rclink_ring_peek_cqe(struct rclink_ring *r)
{
	if (r->cq_head == rclink_ring_load_acquire(&r->hdr->cq_tail))
		return NULL;
	return &r->cqes[r->cq_head & r->cq_mask];
}

static inline void rclink_ring_cqe_seen(struct rclink_ring *r)
{
	r->cq_head++;
	rclink_ring_store_release(&r->hdr->cq_head, r->cq_head);
}

/* Consume up to @n CQEs at once: the head is written once */
static inline uint32_t rclink_ring_cq_ready(struct rclink_ring *r)
{
	return rclink_ring_load_acquire(&r->hdr->cq_tail) - r->cq_head;
}

static inline struct rclink_cqe *rclink_ring_cqe_at(struct rclink_ring *r,
						    uint32_t i)
{
	return &r->cqes[(r->cq_head + i) & r->cq_mask];
}

static inline void rclink_ring_cq_advance(struct rclink_ring *r, uint32_t n)
{
	r->cq_head += n;
	rclink_ring_store_release(&r->hdr->cq_head, r->cq_head);
}

/* RCLINK_IOC_BIND; 0, or -1 with errno */
static inline int rclink_bind(int fd, uint32_t qpn, uint32_t flags)
{
	struct rclink_bind b = {
		.size = sizeof(b), .flags = flags, .qpn = qpn,
	};

	return ioctl(fd, RCLINK_IOC_BIND, &b);
}

/* Why RCLINK_IOC_BIND failed with @err (an errno) */
static inline const char *rclink_bind_strerror(int err)
{
	switch (err) {
	case EACCES:
		return "the QP belongs to another user or network namespace "
		       "(rclink qp show: owner, netns)";
	case ENOENT:
		return "no such QP (rclink qp add first)";
	case EBUSY:
		return "another file is bound to it";
	case ERANGE:
		return "no such QP number on the board";
	case EINVAL:
		return "the file is bound already, or a bad request";
	default:
		return strerror(err);
	}
}

#endif /* RCLINK_RING_H */
