/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rclink character device: /dev/rclinkN, one per board.
 *
 * An open file is bound to one TYPE1 queue pair with RCLINK_IOC_BIND; the
 * QP must have been added with the netlink tool (`rclink qp add`) first.
 * Then write()/writev() send one whole message each and read()/readv()
 * return one whole message each.  See Documentation/uapi/rclink-dev.rst.
 *
 * Every ioctl argument struct begins with __u32 size and __u32 flags, so
 * that it can grow:
 * - size is the caller's sizeof() of the struct.  A size smaller than the
 *   ioctl's RCLINK_*_SIZE_VER0 fails with EINVAL; the fields a smaller
 *   (older) struct lacks read as 0; a larger (newer) struct is accepted
 *   when the bytes the kernel does not know are all 0, else E2BIG.  The
 *   kernel writes back at most size bytes of the fields it outputs.
 * - flags bits the kernel does not know fail with EINVAL.
 * The commands are matched without their size bits (_IOC_SIZE): the size
 * field decides how much is read and written.
 */
#ifndef _UAPI_LINUX_RCLINK_DEV_H
#define _UAPI_LINUX_RCLINK_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 'J' (0x4a): no entry of the kernel's ioctl number registry
 * (Documentation/userspace-api/ioctl/ioctl-number.rst) uses it.
 */
#define RCLINK_DEV_IOC_MAGIC	'J'

/*
 * RCLINK_IOC_BIND: bind this file to a TYPE1 QP, or with RCLINK_BIND_MCAST
 * to TYPE2 multicast group qpn (0..RCLINK_T2_GROUPS - 1): write() sends one
 * message of at most TYPE2_PKT_LEN - 8 bytes to the group (unreliable: it
 * completes when on the wire), read() returns the group's messages while
 * the board has joined it (`rclink mcast set ... join on`).
 */
struct rclink_bind {
	__u32 size;		/* sizeof(struct rclink_bind) */
	__u32 flags;		/* 0 or RCLINK_BIND_MCAST */
	__u32 qpn;		/* local QP number, or the group */
};

#define RCLINK_BIND_SIZE_VER0	12

#define RCLINK_BIND_MCAST	(1U << 0)
#define RCLINK_T2_GROUPS	8

/*
 * RCLINK_IOC_INFO: what this file is bound to and the limits.  In: size
 * (at least RCLINK_INFO_SIZE_VER0) and flags (0); out: the first size bytes.
 */
struct rclink_info {
	__u32 size;		/* in: sizeof(struct rclink_info) */
	__u32 flags;		/* in: must be 0 */
	__u32 qpn;		/* bound QP, or RCLINK_QPN_NONE */
	__u32 max_msg;		/* largest message in bytes */
	__u32 tx_window;	/* messages in flight allowed (see SET_WINDOW) */
	__u32 tx_inflight;	/* messages written and not yet acknowledged */
	__u32 rx_queued;	/* messages waiting to be read */
	__u32 state;		/* enum rclink_qp_state of the bound QP */
	__u64 tx_flushed;	/* this file's messages dropped by a QP fatal */
};

#define RCLINK_INFO_SIZE_VER0	8

/* RCLINK_IOC_SET_WINDOW: messages in flight per file */
struct rclink_window {
	__u32 size;		/* sizeof(struct rclink_window) */
	__u32 flags;		/* must be 0 */
	__u32 window;		/* 1..RCLINK_TX_WINDOW_MAX (default 64) */
};

#define RCLINK_WINDOW_SIZE_VER0	12

#define RCLINK_QPN_NONE		0xffffffffU

/*
 * States of a TYPE1 QP (also the netlink attribute's values): READY runs,
 * FATAL stopped after retries ran out (rearm it with `rclink qp set ...
 * state ready`).
 */
enum rclink_qp_state {
	RCLINK_QP_STATE_RESET = 0,
	RCLINK_QP_STATE_READY = 1,
	RCLINK_QP_STATE_FATAL = 2,
};

#define RCLINK_IOC_BIND		_IOW(RCLINK_DEV_IOC_MAGIC, 1, struct rclink_bind)
#define RCLINK_IOC_UNBIND	_IO(RCLINK_DEV_IOC_MAGIC, 2)
#define RCLINK_IOC_INFO		_IOWR(RCLINK_DEV_IOC_MAGIC, 3, struct rclink_info)
#define RCLINK_IOC_SET_WINDOW	_IOW(RCLINK_DEV_IOC_MAGIC, 4, \
				     struct rclink_window)
/* wait until every message written on this file is acknowledged/flushed */
#define RCLINK_IOC_DRAIN	_IO(RCLINK_DEV_IOC_MAGIC, 5)
/* FIONREAD (int): size of the next message, 0 when none is queued */

#define RCLINK_TX_WINDOW_DEFAULT	64
#define RCLINK_TX_WINDOW_MAX		1024

/*
 * mmap'd rings (Documentation/uapi/rclink-dev.rst, "Rings").
 *
 * RCLINK_IOC_RING_SETUP gives the file a submission queue (SQ) of
 * struct rclink_sqe, a completion queue (CQ) of struct rclink_cqe and a
 * message area of area_size bytes.  mmap() the rings at
 * RCLINK_RING_OFF_RINGS (rings_size bytes: a struct rclink_ring_hdr at 0,
 * the SQEs at sq_off, the CQEs at cq_off) and the area at
 * RCLINK_RING_OFF_AREA.  A SEND is sent from the area without a copy; a
 * RECV lends the kernel a buffer of the area for the next message.
 *
 * Memory order: the producer of a ring writes its entries, then the tail
 * with a release store; the consumer loads the tail with an acquire load,
 * reads the entries, then stores the head with a release store.  User space
 * produces the SQ (writes sq_tail) and consumes the CQ (writes cq_head); the
 * kernel does the rest.  The kernel keeps its own copies of its indexes
 * and counters and only ever reads sq_tail and cq_head.
 */
struct rclink_ring_setup {
	__u32 size;		/* in: sizeof(struct rclink_ring_setup) */
	__u32 flags;		/* in: must be 0 */
	__u32 sq_entries;	/* in: power of 2, 1..RCLINK_RING_MAX_SQ */
	__u32 cq_entries;	/* in: power of 2, sq..RCLINK_RING_MAX_CQ; 0: 2*sq */
	__u32 area_size;	/* in: bytes, page multiple, ..RCLINK_RING_MAX_AREA */
	__u32 rings_size;	/* out: bytes to mmap at RCLINK_RING_OFF_RINGS */
	__u32 sq_off;		/* out: offset of the SQE array in the rings */
	__u32 cq_off;		/* out: offset of the CQE array in the rings */
	__u32 max_msg;		/* out: largest message in bytes */
};

#define RCLINK_RING_SETUP_SIZE_VER0	36

/* The shared header at offset 0 of the rings; each index on its own line */
struct rclink_ring_hdr {
	__u32 sq_head;		/* kernel: SQEs consumed */
	__u32 sq_mask;		/* kernel: sq_entries - 1 */
	__u32 resv0[14];
	__u32 sq_tail;		/* user: SQEs produced */
	__u32 resv1[15];
	__u32 cq_head;		/* user: CQEs consumed */
	__u32 resv2[15];
	__u32 cq_tail;		/* kernel: CQEs produced */
	__u32 cq_mask;		/* kernel: cq_entries - 1 */
	__u32 cq_overflow;	/* kernel: CQEs written over unconsumed ones */
	__u32 sq_errors;	/* kernel: SQEs completed with an error */
	__u32 resv3[12];
};

enum rclink_ring_op {
	RCLINK_OP_NOP = 0,	/* completes with res 0 */
	RCLINK_OP_SEND = 1,	/* send area[addr, addr + len) as one message */
	RCLINK_OP_RECV = 2,	/* receive the next message into area[addr..+len) */
	RCLINK_OP_WRITE = 3,	/* RDMA WRITE of area[addr, addr + len) */
	RCLINK_OP_READ = 4,	/* RDMA READ into area[addr, addr + len) */
	RCLINK_OP_REMOTE = 5,	/* the SQE after a WRITE or READ: its remote side */
};

/*
 * One-sided RDMA WRITE and READ on the bound TYPE1 QP (a board with a
 * registration table, RCLINK_IOC_MR_REG): a WRITE or READ SQE is followed
 * by a RCLINK_OP_REMOTE SQE in the same submission, whose addr is the
 * remote address (counted from the start of the peer's registration) and
 * whose len is the peer's rkey; its user_data is not used.  One CQE for
 * the pair: res is len, or -ENOKEY (the peer knows no such key),
 * -EACCES (the key does not allow it), -ERANGE (outside the
 * registration), -ETIMEDOUT (no response in time), -ECONNRESET
 * (flushed), -EIO; nothing is written into the area after a READ's error.
 */

struct rclink_sqe {
	__u8 opcode;		/* enum rclink_ring_op */
	__u8 flags;		/* must be 0 */
	__u16 resv;		/* must be 0 */
	__u32 len;		/* bytes (SEND: 1..max_msg; RECV: buffer size) */
	__u64 addr;		/* offset in the area */
	__u64 user_data;	/* returned in the CQE */
};

struct rclink_cqe {
	__u64 user_data;	/* of the SQE */
	__s32 res;		/* bytes sent or received, or -errno */
	__u32 flags;		/* RCLINK_CQE_OP: the SQE's opcode */
};

#define RCLINK_CQE_OP(flags)	((flags) & 0xff)

/* RCLINK_IOC_RING_ENTER: submit SQEs, then wait for CQEs */
struct rclink_ring_enter {
	__u32 size;		/* in: sizeof(struct rclink_ring_enter) */
	__u32 flags;		/* in: must be 0 */
	__u32 to_submit;	/* in: SQEs to take from the SQ */
	__u32 min_complete;	/* in: wait until this many CQEs are unconsumed */
	__u32 submitted;	/* out: SQEs taken */
};

#define RCLINK_RING_ENTER_SIZE_VER0	20

#define RCLINK_RING_OFF_RINGS	0x0ULL
#define RCLINK_RING_OFF_AREA	0x40000000ULL
#define RCLINK_RING_MAX_SQ	4096
#define RCLINK_RING_MAX_CQ	8192
#define RCLINK_RING_MAX_AREA	(64U << 20)

#define RCLINK_IOC_RING_SETUP	_IOWR(RCLINK_DEV_IOC_MAGIC, 6, \
				      struct rclink_ring_setup)
#define RCLINK_IOC_RING_ENTER	_IOWR(RCLINK_DEV_IOC_MAGIC, 7, \
				      struct rclink_ring_enter)

/*
 * Kernel-bypass contexts (Documentation/uapi/rclink-dev.rst, "Contexts").
 *
 * RCLINK_IOC_CTX_CREATE gives the file one context of the board's shim:
 * a send queue (SQ) of 16-byte WQEs, a receive queue (RQ) of 16-byte
 * RQEs, a completion queue (CQ) of 32-byte CQEs, a doorbell record the
 * board writes its SQ and RQ consumer indexes (and an error) into, a
 * registered area of area_size bytes, and the context's doorbell page.
 * The formats are those of include/rclink_hw.h (WQE, RQE, CQE, DBREC, DB);
 * a WQE's or RQE's ADDR is an offset into the area.  mmap() each at the
 * offset returned (MAP_SHARED; the doorbell record read-only), or use
 * librclink (tools/lib/librclink.h).  The queues, the record and the area
 * are charged to the caller's memory cgroup and their pages to its
 * RLIMIT_MEMLOCK (ENOMEM beyond it, unless CAP_IPC_LOCK).
 */
struct rclink_ctx_create {
	__u32 size;		/* in: sizeof(struct rclink_ctx_create) */
	__u32 flags;		/* in: must be 0 */
	__u32 sq_entries;	/* in: power of 2, 16..max (DMAQ_CAP.max_order) */
	__u32 rq_entries;	/* in: power of 2, 16..max */
	__u32 cq_entries;	/* in: power of 2, 16..max */
	__u32 area_size;	/* in: bytes, page multiple, ..RCLINK_CTX_MAX_AREA */
	__u32 mod_count;	/* in: CQ event after this many CQEs (0, 1: at once) */
	__u32 mod_usec;		/* in: ... or this long after the first (0: never) */
	__u32 ctx_id;		/* out: the shim's context number (1..) */
	__u32 db_size;		/* out: bytes to mmap at db_off */
	__u64 db_off;		/* out: mmap offset of the doorbell page */
	__u64 sq_off;		/* out: mmap offsets of the queues ... */
	__u64 rq_off;
	__u64 cq_off;
	__u64 dbrec_off;	/* out: ... of the doorbell record (PROT_READ) */
	__u64 area_off;		/* out: ... and of the area */
	__u32 dbrec_size;	/* out: bytes to mmap at dbrec_off */
	__u32 max_msg;		/* out: largest message (DMAQ_CAP.max_msg) */
	__u32 ctx_num;		/* out: user contexts of the board (all files) */
	__u32 resv;		/* must be 0 */
};

#define RCLINK_CTX_CREATE_SIZE_VER0	104

#define RCLINK_CTX_MAX_AREA	(64U << 20)
/* where the context's doorbell record lies in its page */
#define RCLINK_CTX_DBREC_OFFSET	0

/* RCLINK_IOC_CTX_BIND: give a QP (or with RCLINK_BIND_MCAST a TYPE2 group) to
 * the file's context; the rules of RCLINK_IOC_BIND (ownership, one owner)
 */
struct rclink_ctx_bind {
	__u32 size;		/* sizeof(struct rclink_ctx_bind) */
	__u32 flags;		/* 0 or RCLINK_BIND_MCAST */
	__u32 qpn;		/* local QP number, or the group */
};

#define RCLINK_CTX_BIND_SIZE_VER0	12

enum rclink_ctx_state {
	RCLINK_CTX_STATE_RUNNING = 0,
	RCLINK_CTX_STATE_ERROR = 1,	/* the board stopped it: see cause */
	RCLINK_CTX_STATE_DEAD = 2,	/* reset or removal: close the file */
};

/*
 * RCLINK_IOC_CTX_EVENTS: the context's state and its CQ events.  events is
 * the count of CQ events (one per arming of the CQ) since the last call;
 * the call clears EPOLLIN of poll() until the next event.  poll() reports
 * EPOLLERR once the context is in error or dead.
 */
struct rclink_ctx_events {
	__u32 size;		/* in: sizeof(struct rclink_ctx_events) */
	__u32 flags;		/* in: 0 or RCLINK_CTX_EVENTS_WAIT */
	__u32 events;		/* out: CQ events since the last call */
	__u32 state;		/* out: enum rclink_ctx_state */
	__u32 cause;		/* out: RCLINK_CTX_EVT_CAUSE_* of the error, or 0 */
	__u32 timeout_ms;	/* in: RCLINK_CTX_EVENTS_WAIT: at most this
				 * long (0: no limit) */
	__u64 err_info;		/* out: DMAQ_CTX_ERR_INFO of the error */
	/*
	 * out, with RCLINK_CTX_EVENTS_COUNTERS: the board's counters of the
	 * context since it was created.  rx_nobuf: packets of its QPs and
	 * groups dropped for want of RQ or CQ room (a TYPE1 one also puts
	 * the context in error, cause RX_NOBUF; a TYPE2 one does not);
	 * not_owner: messages of its SQ for a QP or group it does not own.
	 */
	__u64 rx_nobuf;
	__u64 not_owner;
};

/*
 * RCLINK_CTX_EVENTS_WAIT: sleep until there is a CQ event, the context is
 * in error or dead, or timeout_ms passed (then events is 0), and report as
 * without the flag: one system call instead of poll() and the report.
 * EINTR (a signal) takes no event.
 */
#define RCLINK_CTX_EVENTS_WAIT		(1U << 0)
/* RCLINK_CTX_EVENTS_COUNTERS: fill rx_nobuf and not_owner (size VER1) */
#define RCLINK_CTX_EVENTS_COUNTERS	(1U << 1)

#define RCLINK_CTX_EVENTS_SIZE_VER0	32
#define RCLINK_CTX_EVENTS_SIZE_VER1	48

#define RCLINK_IOC_CTX_CREATE	_IOWR(RCLINK_DEV_IOC_MAGIC, 8, \
				      struct rclink_ctx_create)
#define RCLINK_IOC_CTX_BIND	_IOW(RCLINK_DEV_IOC_MAGIC, 9, \
				     struct rclink_ctx_bind)
#define RCLINK_IOC_CTX_EVENTS	_IOWR(RCLINK_DEV_IOC_MAGIC, 10, \
				      struct rclink_ctx_events)

/*
 * One-sided RDMA WRITE and READ (Documentation/uapi/rclink-dev.rst,
 * "RDMA WRITE and READ").
 *
 * RCLINK_IOC_MR_REG registers [offset, offset + length) of the file's
 * context's area in the board's registration table with the remote rights
 * in access, and returns its keys.  A peer's WRITE or READ names the rkey
 * and an address counted from the registration's start; it is served only
 * on a QP given to this context.  lkey is the same key (for later use: the
 * local side of a WRITE or READ is an area offset).  ENOSPC when the table
 * is full; EOPNOTSUPP when the board has no registration table.
 *
 * A file without a context registers a range of its rings' area instead
 * (RCLINK_IOC_RING_SETUP): served only on the file's bound TYPE1 QP
 * (ENOTCONN when unbound), gone when the file is unbound or closed.
 *
 * With RCLINK_MR_REG_USER, [addr, addr + length) of the caller's own
 * memory is registered instead (offset must be 0): its pages are pinned
 * (pin_user_pages(), FOLL_LONGTERM) and charged to RLIMIT_MEMLOCK (ENOMEM
 * beyond it, unless CAP_IPC_LOCK) until the registration goes; at most
 * DMAQ_MR_CAP.max_pages 4 KiB pages (EINVAL beyond).
 */
struct rclink_mr_reg {
	__u32 size;		/* in: sizeof(struct rclink_mr_reg) */
	__u32 flags;		/* in: 0 or RCLINK_MR_REG_USER */
	__u64 offset;		/* in: start in the context's (rings') area */
	__u64 length;		/* in: bytes, 1..area_size - offset */
	__u32 access;		/* in: RCLINK_MR_REMOTE_WRITE | _READ */
	__u32 lkey;		/* out */
	__u32 rkey;		/* out */
	__u32 resv;		/* must be 0 */
	__u64 addr;		/* in: RCLINK_MR_REG_USER: user address */
};

#define RCLINK_MR_REG_SIZE_VER0		40
#define RCLINK_MR_REG_SIZE_VER1		48	/* addr */

#define RCLINK_MR_REG_USER		(1U << 0)

#define RCLINK_MR_REMOTE_WRITE		(1U << 0)
#define RCLINK_MR_REMOTE_READ		(1U << 1)

/*
 * RCLINK_IOC_MR_DEREG: invalidate a registration of the file's context.
 * From the return on, a request naming the key completes REM_KEY at the
 * peer; the call waits until the board serves no request of it any more
 * (EBUSY if it did not stop: the entry stays taken until the context
 * goes).  A later registration of the entry has another key (generation).
 */
struct rclink_mr_dereg {
	__u32 size;		/* in: sizeof(struct rclink_mr_dereg) */
	__u32 flags;		/* in: must be 0 */
	__u32 key;		/* in: the lkey or rkey */
	__u32 resv;		/* must be 0 */
};

#define RCLINK_MR_DEREG_SIZE_VER0	16

#define RCLINK_IOC_MR_REG	_IOWR(RCLINK_DEV_IOC_MAGIC, 11, \
				      struct rclink_mr_reg)
#define RCLINK_IOC_MR_DEREG	_IOW(RCLINK_DEV_IOC_MAGIC, 12, \
				     struct rclink_mr_dereg)

#endif /* _UAPI_LINUX_RCLINK_DEV_H */
