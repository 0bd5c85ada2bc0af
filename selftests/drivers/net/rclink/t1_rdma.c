// SPDX-License-Identifier: GPL-2.0
/*
 * One-sided RDMA WRITE and READ between the kernel-bypass contexts of two
 * wired boards A and B (Documentation/uapi/rclink-dev.rst, "RDMA WRITE and
 * READ"; librclink(3)).  A is the requester, B the responder: B registers
 * a range of its area between two guard ranges.
 *
 *   sizes        WRITE then READ back of 1 B .. 1 MiB at the registration's
 *                start, an odd offset and its end: the bytes at B (WRITE)
 *                and at A (READ) are checked, and the guards around B's
 *                registration and A's READ target are untouched; B's
 *                interrupts do not move (no driver code per operation)
 *   errors       a key never given, a stale key (deregistered, the entry
 *                registered again), a WRITE to a read-only and a READ of a
 *                write-only registration, a range beyond the registration:
 *                REM_KEY, REM_ACCESS, REM_BOUNDS at A, nothing written at
 *                B; a READ B does not answer (DMAQ_RDMA_CFG.resp_silent):
 *                REM_TIMEOUT, nothing written at A; the counters of both
 *                boards; the QP and the contexts run on (an operation
 *                after each error succeeds)
 *   loss         WRITE and READ of 1 B .. 256 KiB with 5 % loss, 1 %
 *                duplication and 1 % reordering on both boards' wire
 *   exchange     B sends its registration to A in the exchange message
 *                (rclink_xchg_pack) as a SEND; A unpacks it and WRITEs
 *   dereg_busy   deregistration of a registration and the context's end
 *                with WRITEs in flight: every WRITE completes (OK or
 *                REM_KEY), nothing is written outside the registration
 *   write_imm    a WRITE with immediate data: the data at B, then B's
 *                next RQE taken with a RECV_IMM completion (immediate,
 *                length); refused (bad key): no completion at B; without
 *                an RQE at B the WRITE completes (B's board took it) and
 *                its immediate waits there (DMAQ_CTX_RX_HOLD set long)
 *                until one is posted
 *   requester_exit  A's context ends with WRITEs and READs in flight:
 *                a new context of A works at once (on another QP), and
 *                nothing of the old operations lands in its area
 *   user_memory  B registers ordinary memory of its own (pinned pages, an
 *                odd start): WRITE and READ of 1 B .. 1 MiB at its start
 *                and end, guards untouched; after deregistration REM_KEY
 *   user_memlock without CAP_IPC_LOCK a registration of user memory over
 *                RLIMIT_MEMLOCK fails ENOMEM; one under it shows its pages
 *                in VmLck until deregistered
 *   kernel_ring  the kernel path: A's QP stays the kernel's (context 0), a
 *                file bound to it WRITEs and READs through its mmap'd rings
 *                (RCLINK_OP_WRITE/READ + RCLINK_OP_REMOTE SQEs): 1 B ..
 *                1 MiB at odd area offsets, the bytes at B and at A and the
 *                guards checked; a bad key (-ENOKEY), a read-only
 *                registration (-EACCES), a range beyond it (-ERANGE), a
 *                WRITE without its REMOTE SQE (-EINVAL), too long
 *                (-EMSGSIZE) and outside the area (-EFAULT), nothing
 *                written at B; then a WRITE that succeeds
 *   ring_target  the kernel path as the target: a file of B bound to a
 *                kernel QP registers a range of its rings' area; A's
 *                context WRITEs and READs it (1 B .. 1 MiB), the bytes and
 *                guards in B's mapping checked and not one interrupt of
 *                B; a read-only registration refuses a WRITE (REM_ACCESS);
 *                the same key on another kernel QP of B (another file's)
 *                is refused (REM_KEY); a WRITE with immediate data lands
 *                and its immediate is counted (DMAQ_RDMA_RX_IMM_DROP: the
 *                kernel's queues take no RECV_IMM); after B's file is
 *                unbound, its key
 *                is refused (REM_KEY); registration errors (outside the
 *                area, an unbound file)
 *   formats      each TYPE1 header format (Standard with VLAN and without
 *                ICRC, AFH_GEN1, AFH_GEN1 with TC and VLAN, AFH_GEN2_16b,
 *                AFH_Lite) set on both boards: WRITE and READ of 1 B,
 *                1321 B and 64 KiB + 3 arrive intact, then a refused key
 *                (REM_KEY); Standard again after
 *   tool         what `rclink mr show` and `rclink -s dev show` say: B's
 *                registrations (context, offset, length, rights, pid; a
 *                read-only one; one of user memory with its pages), one by
 *                key; after a WRITE and a READ the RDMA counters of both
 *                boards as BAR0 has them; a deregistered key and the
 *                context's end take the entries off the list
 *   local_key    the local side in a registration of A's context (its
 *                lkey) instead of its area: WRITE from and READ into
 *                pinned user memory of A at odd offsets (1 B .. 1 MiB;
 *                when A registers host memory), bytes and guards checked
 *                on both sides; an lkey of A's
 *                area without rights works too; another context's lkey
 *                and a range beyond the registration complete BAD_ADDR,
 *                put the context in error and write nothing at B
 *   no_table     board A without a registration table (DMAQ_MR_CAP.num
 *                0: a shim without user contexts): a ring WRITE or READ
 *                completes -EOPNOTSUPP at once, RCLINK_IOC_MR_REG on the ring file
 *                fails EOPNOTSUPP, and a SEND on the same ring still works
 *
 * Run by t1_rdma.sh (the boards as t1_uctx.sh passes them); BAR0 through
 * sysfs resource0 for the counters and the test hooks.  Without the boards,
 * or a board without a registration table, every test is skipped.  Each
 * case skips on what it needs and a board lacks, and only then: board A's
 * requester taking its longest WRITE or READ (DMAQ_MR_CAP.max_len at least
 * that; 0: no requester), registrations of host memory on the board that
 * registers it (DMAQ_MR_CAP.max_pages; local_key runs its parts in A's
 * area without them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/capability.h>

#include <linux/rclink_dev.h>

#include "rclink_hw.h"
#include "librclink.h"
#include "librclink.c"

#include "kselftest_harness.h"
#include "t1_pair.h"

/* librclink's formats are the contract's */
_Static_assert(RCLINK_U_WQE_OP_WRITE == RCLINK_WQE_OP_WRITE, "WQE");
_Static_assert(RCLINK_U_WQE_OP_READ == RCLINK_WQE_OP_READ, "WQE");
_Static_assert(RCLINK_U_WQE_OP_REMOTE == RCLINK_WQE_OP_REMOTE, "WQE");
_Static_assert(RCLINK_WC_WRITE == RCLINK_CQE_KIND_WRITE, "CQE");
_Static_assert(RCLINK_WC_READ == RCLINK_CQE_KIND_READ, "CQE");
_Static_assert(RCLINK_WC_REM_KEY == RCLINK_CQE_ST_REM_KEY, "CQE");
_Static_assert(RCLINK_WC_REM_ACCESS == RCLINK_CQE_ST_REM_ACCESS, "CQE");
_Static_assert(RCLINK_WC_REM_BOUNDS == RCLINK_CQE_ST_REM_BOUNDS, "CQE");
_Static_assert(RCLINK_WC_REM_TIMEOUT == RCLINK_CQE_ST_REM_TIMEOUT, "CQE");
_Static_assert(RCLINK_U_WQE_OP_IMM == RCLINK_WQE_OP_IMM, "WQE");
_Static_assert(RCLINK_WC_RECV_IMM == RCLINK_CQE_KIND_RECV_IMM, "CQE");

#define MIB		(1u << 20)
#define GUARD		(64u * 1024)
#define MR_LEN		(MIB + 3)	/* an odd length, to test its end */
/* B: guard, registration, guard; A: source, guard, READ target, guard */
#define B_AREA		(4 * MIB)
#define B_MR		GUARD
#define A_AREA		(4 * MIB)
#define A_SRC		0
#define A_DST		(MIB + 2 * GUARD)
#define GUARD_BYTE	0xa5

#define QP_RDMA		220
#define QP_ERR		221
#define QP_LOSS		222
#define QP_XCHG		223
#define QP_BUSY		224
#define QP_USER		225
#define QP_IMM		226
#define QP_EXIT2	227
#define QP_ORDER	228
#define QP_KRING	229
#define QP_FMT		230
#define QP_RT		231
#define QP_RT2		232
#define QP_NOTAB	233
#define QP_TOOL		234
#define QP_LKEY		235
#define ENTRIES		64u

/* Interrupts of the board's vectors (/proc/interrupts, rclink-BDF-*) */
static uint64_t irqs(const struct bar *b)
{
	char line[4096], name[96];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	snprintf(name, sizeof(name), "rclink-%s-", b->bdf);
	while (fgets(line, sizeof(line), f)) {
		char *s = strchr(line, ':'), *e;

		if (!s || !strstr(line, name))
			continue;
		for (s++;; s = e) {
			unsigned long long v = strtoull(s, &e, 10);

			if (e == s)
				break;
			sum += v;
		}
	}
	fclose(f);
	return sum;
}

/* ---- the two sides ---------------------------------------------------- */

static int side_open(struct side *s, const char *name, uint32_t area)
{
	struct rclink_uctx_attr a = {
		.sq_entries = ENTRIES, .rq_entries = 16,
		.cq_entries = 4 * ENTRIES, .area_size = area,
	};

	return side_attach(s, name, &a);
}

static uint8_t pat(uint32_t seed, uint64_t i)
{
	return (uint8_t)(seed * 131u + i * 7u + (i >> 9) * 13u + 1u);
}

static void fill(uint8_t *p, uint32_t seed, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, i);
}

/* Offset of the first byte that differs from the pattern, or -1 */
static int64_t check(const uint8_t *p, uint32_t seed, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, i))
			return (int64_t)i;
	return -1;
}

static int64_t check_byte(const uint8_t *p, uint8_t v, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (p[i] != v)
			return (int64_t)i;
	return -1;
}

/* A pair of contexts on QP qpn, B's registration between guards */
struct rig {
	struct side a, b;
	struct bar ba, bb;
	uint32_t qpn;
	uint32_t rkey;
	bool up;
};

static void rig_down(struct rig *r)
{
	side_close(&r->a);
	side_close(&r->b);
	bar_close(&r->ba);
	bar_close(&r->bb);
	if (r->up)
		pair_del(r->qpn);
	r->up = false;
}

/*
 * Board A posts the WRITEs and READs: a case skips when A's requester does
 * not take its longest one (DMAQ_MR_CAP.max_len below @need; 0: a shim
 * with a responder only)
 */
static uint32_t max_len(struct bar *b)
{
	return (rd(b, RCLINK_DMAQ_MR_CAP) & RCLINK_DMAQ_MR_CAP_MAX_LEN) >>
	       __builtin_ctzll(RCLINK_DMAQ_MR_CAP_MAX_LEN);
}
#define NO_REQUESTER(b, need)	(max_len(b) < (need))
#define NO_REQUESTER_WHY \
	"board A's requester takes shorter WRITEs and READs than the case's" \
	" (DMAQ_MR_CAP.max_len)"
/* board @b registers host memory (a table of pages a registration) */
#define HOST_MRS(b) \
	(!!(rd(b, RCLINK_DMAQ_MR_CAP) & RCLINK_DMAQ_MR_CAP_MAX_PAGES))

/* the longest WRITE or READ of each case */
#define NEED_SIZES	MIB
#define NEED_ERRORS	3000u
#define NEED_LOSS	262144u
#define NEED_XCHG	64u
#define NEED_BUSY	65536u
#define NEED_IMM	5000u
#define NEED_ORDER	MIB
#define NEED_EXIT	65536u
#define NEED_USER	MIB
#define NEED_TOOL	1000u
#define NEED_LKEY	MIB
#define NEED_FMT	(65536u + 3)
#define NEED_KRING	MIB
#define NEED_RT		MIB

/*
 * Both boards answer requests: a case the harness killed while a board
 * had DMAQ_RDMA_CFG.resp_silent set (errors, at its timeout) must not
 * leave every later case waiting for responses that never come
 */
static void rig_answer(struct rig *r)
{
	wr(&r->ba, RCLINK_DMAQ_RDMA_CFG, rd(&r->ba, RCLINK_DMAQ_RDMA_CFG) &
	   ~RCLINK_DMAQ_RDMA_CFG_RESP_SILENT);
	wr(&r->bb, RCLINK_DMAQ_RDMA_CFG, rd(&r->bb, RCLINK_DMAQ_RDMA_CFG) &
	   ~RCLINK_DMAQ_RDMA_CFG_RESP_SILENT);
}

#define RIG_UP(r, q, access, need) do {				\
	if (!env_load())						\
		SKIP(return, "no boards (run by t1_rdma.sh)");		\
	(r)->a.fd = (r)->b.fd = -1;					\
	(r)->qpn = (q);							\
	if (bar_open(&(r)->ba, env.a) || bar_open(&(r)->bb, env.b))	\
		SKIP(return, "no BAR0 through sysfs resource0: %m");	\
	if (!FIELD_MR_NUM(rd(&(r)->ba, RCLINK_DMAQ_MR_CAP)) ||		\
	    !FIELD_MR_NUM(rd(&(r)->bb, RCLINK_DMAQ_MR_CAP))) {		\
		rig_down(r);						\
		SKIP(return, "board without a registration table");	\
	}								\
	if (NO_REQUESTER(&(r)->ba, (need))) {				\
		rig_down(r);						\
		SKIP(return, NO_REQUESTER_WHY);				\
	}								\
	rig_answer(r);							\
	ASSERT_EQ(0, pair_add(q));					\
	(r)->up = true;							\
	ASSERT_EQ(0, side_open(&(r)->a, env.a, A_AREA)) TH_LOG("%m");	\
	ASSERT_EQ(0, side_open(&(r)->b, env.b, B_AREA)) TH_LOG("%m");	\
	ASSERT_EQ(0, rclink_uctx_bind(&(r)->a.c, q, 0));		\
	ASSERT_EQ(0, rclink_uctx_bind(&(r)->b.c, q, 0));		\
	memset(rclink_uctx_area(&(r)->b.c, 0), GUARD_BYTE, B_AREA);	\
	memset(rclink_uctx_area(&(r)->a.c, 0), GUARD_BYTE, A_AREA);	\
	ASSERT_EQ(0, rclink_mr_reg(&(r)->b.c, B_MR, MR_LEN, (access),	\
				   NULL, &(r)->rkey)) TH_LOG("%m");	\
} while (0)

#define FIELD_MR_NUM(v)	((v) & RCLINK_DMAQ_MR_CAP_NUM)

/* An operation posted (err: the post's result): ring, wait, its status */
static int op_done(struct side *s, int err, struct rclink_wc *wc)
{
	if (err)
		return -1;
	rclink_uctx_doorbell(&s->c);
	if (!wait_wc(s, wc))
		return -2;
	return wc->status;
}

/* Post one operation and wait for its completion; the WC's status */
static int op(struct side *s, bool write, uint32_t qpn, uint64_t off,
	      uint32_t len, uint32_t rkey, uint64_t raddr,
	      struct rclink_wc *wc)
{
	return op_done(s, write ? rclink_post_write(&s->c, qpn, off, len, rkey,
						    raddr)
				: rclink_post_read(&s->c, qpn, off, len, rkey,
						   raddr), wc);
}

/* B's guards untouched, the registration's bytes outside [lo, hi) too */
static int64_t b_outside(struct rig *r, uint64_t lo, uint64_t hi,
			 uint8_t inside)
{
	const uint8_t *p = rclink_uctx_area(&r->b.c, 0);
	int64_t bad;

	bad = check_byte(p, GUARD_BYTE, B_MR + lo);
	if (bad >= 0)
		return bad;
	bad = check_byte(p + B_MR + hi, GUARD_BYTE, B_AREA - B_MR - hi);
	if (bad >= 0)
		return B_MR + hi + bad;
	(void)inside;
	return -1;
}

static void one_size(struct __test_metadata *_metadata, struct rig *r,
		     uint32_t len, uint64_t raddr, uint32_t seed)
{
	uint8_t *a = rclink_uctx_area(&r->a.c, 0);
	uint8_t *b = rclink_uctx_area(&r->b.c, 0);
	struct rclink_wc wc;
	int64_t bad;

	/* WRITE: A's source to B's registration at raddr */
	fill(a + A_SRC, seed, len);
	memset(b, GUARD_BYTE, B_AREA);
	ASSERT_EQ(RCLINK_WC_OK, op(&r->a, true, r->qpn, A_SRC, len, r->rkey,
				   raddr, &wc)) TH_LOG("WRITE %u at %" PRIu64,
						       len, raddr);
	EXPECT_EQ(RCLINK_WC_WRITE, wc.kind);
	EXPECT_EQ(len, wc.len);
	EXPECT_EQ(r->qpn, wc.qpn);
	bad = check(b + B_MR + raddr, seed, len);
	EXPECT_EQ(-1, bad) TH_LOG("WRITE %u at %" PRIu64 ": byte %" PRId64
				  " differs", len, raddr, bad);
	bad = b_outside(r, raddr, raddr + len, 0);
	EXPECT_EQ(-1, bad) TH_LOG("WRITE %u at %" PRIu64
				  ": B's byte %" PRId64 " outside touched",
				  len, raddr, bad);

	/* READ: B's registration at raddr (new bytes) into A's target */
	fill(b + B_MR + raddr, seed + 1, len);
	memset(a + A_DST - GUARD, GUARD_BYTE, MIB + 2 * GUARD);
	ASSERT_EQ(RCLINK_WC_OK, op(&r->a, false, r->qpn, A_DST, len, r->rkey,
				   raddr, &wc)) TH_LOG("READ %u at %" PRIu64,
						       len, raddr);
	EXPECT_EQ(RCLINK_WC_READ, wc.kind);
	EXPECT_EQ(len, wc.len);
	bad = check(a + A_DST, seed + 1, len);
	EXPECT_EQ(-1, bad) TH_LOG("READ %u at %" PRIu64 ": byte %" PRId64
				  " differs", len, raddr, bad);
	EXPECT_EQ(-1, check_byte(a + A_DST - GUARD, GUARD_BYTE, GUARD));
	EXPECT_EQ(-1, check_byte(a + A_DST + len, GUARD_BYTE,
				 MIB + GUARD - len));
}

static const uint32_t all_sizes[] = {
	1, 2, 7, 64, 1319, 1320, 1321, 4096, 4097, 65536, 65537, 262144,
	MIB,
};

/* (slow: some 8 MiB each way, several seconds through an RTL board) */
TEST_SLOW(sizes)
{
	struct rig r = { 0 };
	uint64_t wr0, rr0, tw0, tr0, ib0, ib1;
	unsigned int i, n = 0;

	RIG_UP(&r, QP_RDMA, RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ,
	       NEED_SIZES);
	wr0 = rd(&r.bb, RCLINK_DMAQ_RDMA_RX_WRITE);
	rr0 = rd(&r.bb, RCLINK_DMAQ_RDMA_RX_READ);
	tw0 = rd(&r.ba, RCLINK_DMAQ_RDMA_TX_WRITE);
	tr0 = rd(&r.ba, RCLINK_DMAQ_RDMA_TX_READ);
	ib0 = irqs(&r.bb);
	for (i = 0; i < sizeof(all_sizes) / sizeof(all_sizes[0]); i++) {
		uint32_t len = all_sizes[i];

		one_size(_metadata, &r, len, 0, i);
		one_size(_metadata, &r, len, 3, i + 50);
		one_size(_metadata, &r, len, MR_LEN - len, i + 100);
		n += 3;
	}
	ib1 = irqs(&r.bb);
	EXPECT_EQ(n, rd(&r.bb, RCLINK_DMAQ_RDMA_RX_WRITE) - wr0);
	EXPECT_EQ(n, rd(&r.bb, RCLINK_DMAQ_RDMA_RX_READ) - rr0);
	EXPECT_EQ(n, rd(&r.ba, RCLINK_DMAQ_RDMA_TX_WRITE) - tw0);
	EXPECT_EQ(n, rd(&r.ba, RCLINK_DMAQ_RDMA_TX_READ) - tr0);
	/* B's CPUs ran nothing for these: not one interrupt of B */
	EXPECT_EQ(ib0, ib1) TH_LOG("B took %" PRIu64 " interrupts", ib1 - ib0);
	TH_LOG("%u WRITEs and %u READs; B's interrupts %" PRIu64 " -> %" PRIu64,
	       n, n, ib0, ib1);
	EXPECT_FALSE(rclink_uctx_error(&r.a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&r.b.c, NULL));
	rig_down(&r);
}

struct counters {
	uint64_t rem_err, timeout, bad_key, access, bounds, silent;
};

static void counters(struct rig *r, struct counters *c)
{
	c->rem_err = rd(&r->ba, RCLINK_DMAQ_RDMA_REM_ERR);
	c->timeout = rd(&r->ba, RCLINK_DMAQ_RDMA_TIMEOUT);
	c->bad_key = rd(&r->bb, RCLINK_DMAQ_RDMA_RX_BAD_KEY);
	c->access = rd(&r->bb, RCLINK_DMAQ_RDMA_RX_ACCESS);
	c->bounds = rd(&r->bb, RCLINK_DMAQ_RDMA_RX_BOUNDS);
	c->silent = rd(&r->bb, RCLINK_DMAQ_RDMA_RX_SILENT);
}

/* An error cause of both kinds of operation, B untouched after each */
static void expect_refused(struct __test_metadata *_metadata, struct rig *r,
			   bool write, uint32_t rkey, uint64_t raddr,
			   uint32_t len, int status)
{
	struct rclink_wc wc;

	fill(rclink_uctx_area(&r->a.c, A_SRC), 9, len);
	memset(rclink_uctx_area(&r->a.c, A_DST), GUARD_BYTE, len);
	EXPECT_EQ(status, op(&r->a, write, r->qpn, write ? A_SRC : A_DST, len,
			     rkey, raddr, &wc))
		TH_LOG("%s key 0x%x at %" PRIu64 " len %u", write ? "WRITE" :
		       "READ", rkey, raddr, len);
	EXPECT_EQ(write ? RCLINK_WC_WRITE : RCLINK_WC_READ, wc.kind);
	EXPECT_EQ(-1, b_outside(r, 0, 0, 0)) TH_LOG("B written");
	EXPECT_EQ(-1, check_byte(rclink_uctx_area(&r->b.c, B_MR), GUARD_BYTE,
				 MR_LEN));
	EXPECT_EQ(-1, check_byte(rclink_uctx_area(&r->a.c, A_DST), GUARD_BYTE,
				 len)) TH_LOG("A's READ target written");
}

/* The QP and both contexts still work: a WRITE that succeeds */
static void expect_alive(struct __test_metadata *_metadata, struct rig *r,
			 uint32_t rkey)
{
	struct rclink_wc wc;
	uint8_t *b = rclink_uctx_area(&r->b.c, B_MR);

	fill(rclink_uctx_area(&r->a.c, A_SRC), 77, 100);
	EXPECT_EQ(RCLINK_WC_OK, op(&r->a, true, r->qpn, A_SRC, 100, rkey, 0,
				   &wc));
	EXPECT_EQ(-1, check(b, 77, 100));
	memset(b, GUARD_BYTE, 100);
	EXPECT_FALSE(rclink_uctx_error(&r->a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&r->b.c, NULL));
}

TEST(errors)
{
	struct rig r = { 0 };
	struct counters c0, c1;
	uint32_t ro, wo, stale, rkey2, never;
	uint64_t cfg;

	RIG_UP(&r, QP_ERR, RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ,
	       NEED_ERRORS);
	ASSERT_EQ(0, rclink_mr_reg(&r.b.c, B_MR, MR_LEN, RCLINK_MR_REMOTE_READ,
				   NULL, &ro));
	ASSERT_EQ(0, rclink_mr_reg(&r.b.c, B_MR, MR_LEN,
				   RCLINK_MR_REMOTE_WRITE, NULL, &wo));
	/* a stale key: registered, deregistered, its entry taken again */
	ASSERT_EQ(0, rclink_mr_reg(&r.b.c, B_MR, 64, RCLINK_MR_REMOTE_WRITE,
				   NULL, &stale));
	ASSERT_EQ(0, rclink_mr_dereg(&r.b.c, stale));
	ASSERT_EQ(0, rclink_mr_reg(&r.b.c, B_MR, 64, RCLINK_MR_REMOTE_WRITE,
				   NULL, &rkey2));
	EXPECT_EQ(stale & 0xffff, rkey2 & 0xffff);
	EXPECT_NE(stale, rkey2);
	/* dereg of a key not ours, or already gone: EINVAL */
	EXPECT_EQ(-1, rclink_mr_dereg(&r.b.c, stale));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, rclink_mr_dereg(&r.a.c, rkey2));
	EXPECT_EQ(EINVAL, errno);
	/* bad arguments */
	EXPECT_EQ(-1, rclink_mr_reg(&r.b.c, B_AREA - 10, 11,
				    RCLINK_MR_REMOTE_READ, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, rclink_mr_reg(&r.b.c, 0, 64, 1u << 7, NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	never = 0x00ff00f0;		/* index 240, generation 255 */

	counters(&r, &c0);
	expect_refused(_metadata, &r, true, never, 0, 100, RCLINK_WC_REM_KEY);
	expect_refused(_metadata, &r, false, never, 0, 100, RCLINK_WC_REM_KEY);
	expect_refused(_metadata, &r, true, stale, 0, 10, RCLINK_WC_REM_KEY);
	expect_refused(_metadata, &r, true, ro, 0, 5000, RCLINK_WC_REM_ACCESS);
	expect_refused(_metadata, &r, false, wo, 0, 100, RCLINK_WC_REM_ACCESS);
	expect_refused(_metadata, &r, true, r.rkey, MR_LEN - 99, 100,
		       RCLINK_WC_REM_BOUNDS);
	expect_refused(_metadata, &r, false, r.rkey, MR_LEN + 1, 1,
		       RCLINK_WC_REM_BOUNDS);
	expect_refused(_metadata, &r, true, rkey2, 0, 65, RCLINK_WC_REM_BOUNDS);
	counters(&r, &c1);
	EXPECT_EQ(3, c1.bad_key - c0.bad_key);
	EXPECT_EQ(2, c1.access - c0.access);
	EXPECT_EQ(3, c1.bounds - c0.bounds);
	EXPECT_EQ(8, c1.rem_err - c0.rem_err);
	expect_alive(_metadata, &r, r.rkey);

	/* B answers nothing: A's READ and WRITE time out, nothing written */
	cfg = rd(&r.ba, RCLINK_DMAQ_RDMA_CFG);
	/*
	 * 2 ms: each timeout runs its time on A (500,000 cycles of an RTL
	 * board, 1 to 2 s of the co-simulation; 20 ms took it past the
	 * case's 30 s)
	 */
	wr(&r.ba, RCLINK_DMAQ_RDMA_CFG, 2000);
	wr(&r.bb, RCLINK_DMAQ_RDMA_CFG, rd(&r.bb, RCLINK_DMAQ_RDMA_CFG) |
	   RCLINK_DMAQ_RDMA_CFG_RESP_SILENT);
	counters(&r, &c0);
	expect_refused(_metadata, &r, false, r.rkey, 0, 3000,
		       RCLINK_WC_REM_TIMEOUT);
	expect_refused(_metadata, &r, true, r.rkey, 0, 3000,
		       RCLINK_WC_REM_TIMEOUT);
	counters(&r, &c1);
	wr(&r.bb, RCLINK_DMAQ_RDMA_CFG, rd(&r.bb, RCLINK_DMAQ_RDMA_CFG) &
	   ~RCLINK_DMAQ_RDMA_CFG_RESP_SILENT);
	wr(&r.ba, RCLINK_DMAQ_RDMA_CFG, cfg);
	EXPECT_EQ(2, c1.timeout - c0.timeout);
	EXPECT_EQ(0, c1.rem_err - c0.rem_err);
	EXPECT_LE(2, c1.silent - c0.silent);
	expect_alive(_metadata, &r, r.rkey);
	/* nothing came later into A's READ target either */
	EXPECT_EQ(-1, check_byte(rclink_uctx_area(&r.a.c, A_DST), GUARD_BYTE,
				 3000));
	rig_down(&r);
}

TEST(loss)
{
	static const uint32_t lsizes[] = { 1, 1321, 4096, 65537, 262144 };
	struct rig r = { 0 };
	uint64_t lost0;
	unsigned int i, k;

	RIG_UP(&r, QP_LOSS, RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ,
	       NEED_LOSS);
	lost0 = rd(&r.ba, RCLINK_SHIM_WIRE_LOST) +
		rd(&r.bb, RCLINK_SHIM_WIRE_LOST);
	set_faults(&r.ba, 50000, 10000, 10000);
	set_faults(&r.bb, 50000, 10000, 10000);
	for (k = 0; k < 3; k++)
		for (i = 0; i < sizeof(lsizes) / sizeof(lsizes[0]); i++)
			one_size(_metadata, &r, lsizes[i], k * 11,
				 i + 10 * k);
	set_faults(&r.ba, 0, 0, 0);
	set_faults(&r.bb, 0, 0, 0);
	TH_LOG("%" PRIu64 " frames lost on the way",
	       rd(&r.ba, RCLINK_SHIM_WIRE_LOST) +
	       rd(&r.bb, RCLINK_SHIM_WIRE_LOST) - lost0);
	EXPECT_LT(lost0, rd(&r.ba, RCLINK_SHIM_WIRE_LOST) +
		  rd(&r.bb, RCLINK_SHIM_WIRE_LOST));
	rig_down(&r);
}

TEST(exchange)
{
	struct rig r = { 0 };
	struct rclink_xchg x = { 0 }, y;
	struct rclink_wc wc;
	uint8_t *msg;
	unsigned int mac[6], i;

	RIG_UP(&r, QP_XCHG, RCLINK_MR_REMOTE_WRITE, NEED_XCHG);
	/* B: its address, its registration, sent to A as a SEND */
	x.ip = ntohl(inet_addr(env.ip_b));
	ASSERT_EQ(6, sscanf(env.mac_b, "%x:%x:%x:%x:%x:%x", &mac[0], &mac[1],
			    &mac[2], &mac[3], &mac[4], &mac[5]));
	for (i = 0; i < 6; i++)
		x.mac[i] = mac[i];
	x.qpn = QP_XCHG;
	x.start = 0;
	x.size = MR_LEN;
	x.rkey = r.rkey;
	ASSERT_EQ(0, rclink_post_recv(&r.a.c, A_DST, 4096));
	rclink_uctx_doorbell(&r.a.c);
	msg = rclink_uctx_area(&r.b.c, 0);
	rclink_xchg_pack(&x, msg);
	ASSERT_EQ(0, rclink_post_send(&r.b.c, QP_XCHG, 0, RCLINK_XCHG_BYTES,
				      0));
	rclink_uctx_doorbell(&r.b.c);
	ASSERT_TRUE(wait_wc(&r.b, &wc));
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	memset(msg, GUARD_BYTE, RCLINK_XCHG_BYTES);
	ASSERT_TRUE(wait_wc(&r.a, &wc));
	ASSERT_EQ(RCLINK_WC_RECV, wc.kind);
	ASSERT_EQ(RCLINK_XCHG_BYTES, wc.len);
	ASSERT_EQ(0, rclink_xchg_unpack(&y, rclink_uctx_area(&r.a.c, A_DST),
					wc.len));
	EXPECT_EQ(x.ip, y.ip);
	EXPECT_EQ(0, memcmp(x.mac, y.mac, 6));
	EXPECT_EQ(x.qpn, y.qpn);
	EXPECT_EQ(x.size, y.size);
	EXPECT_EQ(x.rkey, y.rkey);
	/* a message that is not one */
	EXPECT_EQ(-1, rclink_xchg_unpack(&y, msg, RCLINK_XCHG_BYTES));
	/* A writes the last 64 bytes of what it was told */
	fill(rclink_uctx_area(&r.a.c, A_SRC), 5, 64);
	EXPECT_EQ(RCLINK_WC_OK, op(&r.a, true, y.qpn, A_SRC, 64, y.rkey,
				   y.start + y.size - 64, &wc));
	EXPECT_EQ(-1, check(rclink_uctx_area(&r.b.c, B_MR + MR_LEN - 64), 5,
			    64));
	rig_down(&r);
}

/*
 * Deregistration with WRITEs in flight: each completes OK (before) or
 * REM_KEY (after); B's bytes outside the registration stay; then B's
 * context goes with more in flight: A's complete REM_KEY.
 */
TEST(dereg_busy)
{
	struct rig r = { 0 };
	struct rclink_wc wc;
	uint32_t i, posted = 0, done = 0, ok = 0, refused = 0, other = 0;
	double end;

	RIG_UP(&r, QP_BUSY, RCLINK_MR_REMOTE_WRITE, NEED_BUSY);
	fill(rclink_uctx_area(&r.a.c, A_SRC), 3, 65536);
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(0, rclink_post_write(&r.a.c, QP_BUSY, A_SRC, 65536,
					       r.rkey, (uint64_t)i * 65536));
		posted++;
	}
	rclink_uctx_doorbell(&r.a.c);
	ASSERT_EQ(0, rclink_mr_dereg(&r.b.c, r.rkey));
	end = now_s() + env.stall;
	while (done < posted && now_s() < end) {
		if (!rclink_poll_cq(&r.a.c, &wc, 1)) {
			sched_yield();
			continue;
		}
		done++;
		if (wc.status == RCLINK_WC_OK)
			ok++;
		else if (wc.status == RCLINK_WC_REM_KEY)
			refused++;
		else
			other++;
	}
	EXPECT_EQ(posted, done);
	EXPECT_EQ(0, other);
	/* once refused, refused on: the OKs come first */
	TH_LOG("%u OK, %u REM_KEY", ok, refused);
	EXPECT_EQ(-1, b_outside(&r, 0, MR_LEN, 0));

	/* B's context ends while A's WRITEs are in flight */
	ASSERT_EQ(0, rclink_mr_reg(&r.b.c, B_MR, MR_LEN,
				   RCLINK_MR_REMOTE_WRITE, NULL, &r.rkey));
	for (i = 0; i < 16; i++)
		ASSERT_EQ(0, rclink_post_write(&r.a.c, QP_BUSY, A_SRC, 65536,
					       r.rkey, (uint64_t)i * 65536));
	rclink_uctx_doorbell(&r.a.c);
	side_close(&r.b);
	for (done = 0, other = 0; done < 16 && wait_wc(&r.a, &wc); done++)
		if (wc.status != RCLINK_WC_OK && wc.status != RCLINK_WC_REM_KEY)
			other++;
	EXPECT_EQ(16, done);
	EXPECT_EQ(0, other);
	EXPECT_FALSE(rclink_uctx_error(&r.a.c, NULL));
	rig_down(&r);
}

/* A counter of `rclink -j -s qp show dev D qpn N` (the driver's view) */
static uint64_t qp_stat(const char *dev, uint32_t qpn, const char *name)
{
	char cmd[512], key[64], buf[16384];
	uint64_t v = 0;
	size_t n;
	char *p;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s -j -s qp show dev %s qpn %u 2>/dev/null",
		 env.tool, dev, qpn);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[n] = 0;
	snprintf(key, sizeof(key), "\"%s\"", name);
	p = strstr(buf, key);
	if (p && (p = strchr(p, ':')))
		v = strtoull(p + 1, NULL, 10);
	return v;
}

/* B's refusals of QP_IMM's packets for want of an RQE: RNR or dropped */
static uint64_t b_refusals(struct rig *r)
{
	return rd(&r->bb, RCLINK_DMAQ_T1_RX_DROP_NOBUF) +
	       qp_stat(env.b, r->qpn, "rnr_tx");
}

static int op_imm(struct side *s, uint32_t qpn, uint64_t off, uint32_t len,
		  uint32_t rkey, uint64_t raddr, uint32_t imm,
		  struct rclink_wc *wc)
{
	if (rclink_post_write_imm(&s->c, qpn, off, len, rkey, raddr, imm))
		return -1;
	rclink_uctx_doorbell(&s->c);
	if (!wait_wc(s, wc))
		return -2;
	return wc->status;
}

TEST(write_imm)
{
	struct rig r = { 0 };
	struct rclink_wc wc, bw;
	uint64_t nobuf, hold0;

	RIG_UP(&r, QP_IMM, RCLINK_MR_REMOTE_WRITE, NEED_IMM);
	/* B lends one buffer (the WRITE does not use its bytes) */
	ASSERT_EQ(0, rclink_post_recv(&r.b.c, B_AREA - 4096, 4096));
	rclink_uctx_doorbell(&r.b.c);
	fill(rclink_uctx_area(&r.a.c, A_SRC), 61, 5000);
	ASSERT_EQ(RCLINK_WC_OK, op_imm(&r.a, QP_IMM, A_SRC, 5000, r.rkey,
					  100, 0xc0ffee01, &wc));
	EXPECT_EQ(RCLINK_WC_WRITE, wc.kind);
	EXPECT_EQ(5000, wc.len);
	/*
	 * B's completion: A's WRITE completed when B's board took the IMM
	 * packet, B's shim writes the CQE after it (at once on the model, a
	 * little later on the RTL)
	 */
	ASSERT_TRUE(wait_wc(&r.b, &bw));
	EXPECT_EQ(RCLINK_WC_RECV_IMM, bw.kind);
	EXPECT_EQ(RCLINK_WC_OK, bw.status);
	EXPECT_EQ(0xc0ffee01, bw.imm);
	EXPECT_EQ(5000, bw.msg_len);
	EXPECT_EQ(QP_IMM, bw.qpn);
	EXPECT_EQ(0, bw.idx);
	EXPECT_EQ(-1, check(rclink_uctx_area(&r.b.c, B_MR + 100), 61, 5000));
	EXPECT_EQ(-1, b_outside(&r, 100, 5100, 0));
	EXPECT_EQ(-1, check_byte(rclink_uctx_area(&r.b.c, B_AREA - 4096),
				 GUARD_BYTE, 4096)) TH_LOG("the RQE's bytes");

	/* refused: the requester's error, no completion at B */
	ASSERT_EQ(0, rclink_post_recv(&r.b.c, B_AREA - 4096, 4096));
	rclink_uctx_doorbell(&r.b.c);
	EXPECT_EQ(RCLINK_WC_REM_KEY, op_imm(&r.a, QP_IMM, A_SRC, 64,
					       0x00ff00f0, 0, 7, &wc));
	EXPECT_EQ(0, rclink_poll_cq(&r.b.c, &bw, 1));

	/* the RQE posted above is still B's: this one takes it */
	ASSERT_EQ(RCLINK_WC_OK, op_imm(&r.a, QP_IMM, A_SRC, 1, r.rkey, 0,
					  8, &wc));
	ASSERT_TRUE(wait_wc(&r.b, &bw));
	EXPECT_EQ(8, bw.imm);
	EXPECT_EQ(1, bw.idx);

	/*
	 * no RQE at B: B's board takes the IMM packet (the WRITE completes
	 * OK at A) and holds it (DMAQ_CTX_RX_HOLD, set long here) until an
	 * RQE is posted; nothing is refused
	 */
	nobuf = b_refusals(&r);
	hold0 = rd(&r.bb, RCLINK_DMAQ_CTX_RX_HOLD);
	wr(&r.bb, RCLINK_DMAQ_CTX_RX_HOLD, 60000000);
	ASSERT_EQ(RCLINK_WC_OK, op_imm(&r.a, QP_IMM, A_SRC, 64, r.rkey, 0, 9,
				       &wc));
	usleep(100000);
	EXPECT_EQ(0, rclink_poll_cq(&r.b.c, &bw, 1))
		TH_LOG("a completion at B without an RQE");
	EXPECT_EQ(nobuf, b_refusals(&r));
	ASSERT_EQ(0, rclink_post_recv(&r.b.c, B_AREA - 4096, 4096));
	rclink_uctx_doorbell(&r.b.c);
	memset(&bw, 0, sizeof(bw));
	EXPECT_TRUE(wait_wc(&r.b, &bw));
	wr(&r.bb, RCLINK_DMAQ_CTX_RX_HOLD, hold0);
	EXPECT_EQ(RCLINK_WC_RECV_IMM, bw.kind);
	EXPECT_EQ(9, bw.imm);
	EXPECT_FALSE(rclink_uctx_error(&r.a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&r.b.c, NULL));
	rig_down(&r);
}

/*
 * A QP's completions come in the order of its work requests: a SEND
 * acknowledged while an older READ's data is still coming back (or an
 * older WRITE waits for its response) completes after it
 */
TEST(order)
{
	static const struct {
		int kind;		/* RCLINK_WC_* */
		uint32_t len;
	} ops[] = {
		{ RCLINK_WC_READ, MIB }, { RCLINK_WC_SEND, 64 },
		{ RCLINK_WC_WRITE, 65536 }, { RCLINK_WC_SEND, 64 },
		{ RCLINK_WC_READ, 64 }, { RCLINK_WC_SEND, 1 },
	};
	struct rig r = { 0 };
	struct rclink_wc wc;
	uint32_t i, nsend = 0;
	int err;

	RIG_UP(&r, QP_ORDER, RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ,
	       NEED_ORDER);
	/* B's receive buffers for the SENDs, past its registration */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, rclink_post_recv(&r.b.c, B_AREA - (i + 1) * 4096,
					      4096));
	rclink_uctx_doorbell(&r.b.c);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		switch (ops[i].kind) {
		case RCLINK_WC_READ:
			err = rclink_post_read(&r.a.c, QP_ORDER, A_DST,
					       ops[i].len, r.rkey, 0);
			break;
		case RCLINK_WC_WRITE:
			err = rclink_post_write(&r.a.c, QP_ORDER, A_SRC,
						ops[i].len, r.rkey, 0);
			break;
		default:
			err = rclink_post_send(&r.a.c, QP_ORDER, A_SRC,
					       ops[i].len, 0);
			nsend++;
			break;
		}
		ASSERT_EQ(0, err) TH_LOG("post %u: %m", i);
	}
	rclink_uctx_doorbell(&r.a.c);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		ASSERT_TRUE(wait_wc(&r.a, &wc)) TH_LOG("completion %u", i);
		EXPECT_EQ(ops[i].kind, wc.kind) TH_LOG("completion %u", i);
		EXPECT_EQ(RCLINK_WC_OK, wc.status) TH_LOG("completion %u", i);
		EXPECT_EQ(ops[i].len, wc.len) TH_LOG("completion %u", i);
	}
	/* and B got the SENDs */
	for (i = 0; i < nsend; i++) {
		ASSERT_TRUE(wait_wc(&r.b, &wc));
		EXPECT_EQ(RCLINK_WC_RECV, wc.kind);
	}
	rig_down(&r);
}

TEST(requester_exit)
{
	struct rig r = { 0 };
	struct rclink_wc wc;
	uint32_t i;

	RIG_UP(&r, QP_BUSY, RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ,
	       NEED_EXIT);
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, rclink_post_read(&r.a.c, QP_BUSY, A_DST, 65536,
					      r.rkey, (uint64_t)i * 65536));
		ASSERT_EQ(0, rclink_post_write(&r.a.c, QP_BUSY, A_SRC, 65536,
					       r.rkey, (uint64_t)i * 65536));
	}
	rclink_uctx_doorbell(&r.a.c);
	side_close(&r.a);
	/*
	 * a new context of A works at once, on another QP of B's context
	 * (QP_BUSY, with packets in flight at the kill, is fatal until
	 * re-armed with both PSNs: t1_uctx.c exit_busy_qp)
	 */
	ASSERT_EQ(0, pair_add(QP_EXIT2));
	ASSERT_EQ(0, side_open(&r.a, env.a, A_AREA));
	ASSERT_EQ(0, rclink_uctx_bind(&r.a.c, QP_EXIT2, 0));
	ASSERT_EQ(0, rclink_uctx_bind(&r.b.c, QP_EXIT2, 0));
	memset(rclink_uctx_area(&r.a.c, 0), GUARD_BYTE, A_AREA);
	/*
	 * past what the old WRITEs reach: those already sent may still land
	 * in B's first 512 KiB meanwhile (a slow responder: the RTL board)
	 */
	fill(rclink_uctx_area(&r.b.c, B_MR + 8 * 65536), 44, 4096);
	EXPECT_EQ(RCLINK_WC_OK, op(&r.a, false, QP_EXIT2, A_DST, 4096, r.rkey,
				   8 * 65536, &wc));
	EXPECT_EQ(-1, check(rclink_uctx_area(&r.a.c, A_DST), 44, 4096));
	/* nothing else of the old context's landed in the new area */
	EXPECT_EQ(-1, check_byte(rclink_uctx_area(&r.a.c, A_DST + 4096),
				 GUARD_BYTE, MIB - 4096));
	EXPECT_EQ(0, rclink_poll_cq(&r.a.c, &wc, 1));
	EXPECT_FALSE(rclink_uctx_error(&r.a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&r.b.c, NULL));
	side_close(&r.a);
	side_close(&r.b);
	pair_del(QP_EXIT2);
	rig_down(&r);
}

/* B's own memory: guard, the registration (an odd start), guard */
#define U_SIZE		(MIB + 4 * GUARD)
#define U_START		(GUARD + 5)

static void user_one(struct __test_metadata *_metadata, struct rig *r,
		     uint8_t *buf, uint32_t ukey, uint32_t len,
		     uint64_t raddr, uint32_t seed)
{
	uint8_t *a = rclink_uctx_area(&r->a.c, 0);
	struct rclink_wc wc;
	int64_t bad;

	fill(a + A_SRC, seed, len);
	memset(buf, GUARD_BYTE, U_SIZE);
	ASSERT_EQ(RCLINK_WC_OK, op(&r->a, true, r->qpn, A_SRC, len, ukey,
				   raddr, &wc)) TH_LOG("WRITE %u", len);
	bad = check(buf + U_START + raddr, seed, len);
	EXPECT_EQ(-1, bad) TH_LOG("WRITE %u at %" PRIu64 ": byte %" PRId64,
				  len, raddr, bad);
	EXPECT_EQ(-1, check_byte(buf, GUARD_BYTE, U_START + raddr));
	EXPECT_EQ(-1, check_byte(buf + U_START + raddr + len, GUARD_BYTE,
				 U_SIZE - U_START - raddr - len));
	fill(buf + U_START + raddr, seed + 1, len);
	memset(a + A_DST, GUARD_BYTE, len);
	ASSERT_EQ(RCLINK_WC_OK, op(&r->a, false, r->qpn, A_DST, len, ukey,
				   raddr, &wc)) TH_LOG("READ %u", len);
	bad = check(a + A_DST, seed + 1, len);
	EXPECT_EQ(-1, bad) TH_LOG("READ %u at %" PRIu64 ": byte %" PRId64,
				  len, raddr, bad);
}

TEST(user_memory)
{
	static const uint32_t usizes[] = { 1, 1321, 4095, 4097, 65537, MIB };
	struct rig r = { 0 };
	struct rclink_wc wc;
	uint32_t ukey;
	unsigned int i;
	uint8_t *buf;

	RIG_UP(&r, QP_USER, RCLINK_MR_REMOTE_WRITE, NEED_USER);
	if (!HOST_MRS(&r.bb))
		SKIP(goto out, "no registrations of host memory");
	buf = mmap(NULL, U_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, buf);
	memset(buf, GUARD_BYTE, U_SIZE);
	ASSERT_EQ(0, rclink_mr_reg_user(&r.b.c, buf + U_START, MR_LEN,
					RCLINK_MR_REMOTE_WRITE |
					RCLINK_MR_REMOTE_READ, NULL, &ukey))
		TH_LOG("%m");
	for (i = 0; i < sizeof(usizes) / sizeof(usizes[0]); i++) {
		user_one(_metadata, &r, buf, ukey, usizes[i], 0, i);
		user_one(_metadata, &r, buf, ukey, usizes[i],
			 MR_LEN - usizes[i], i + 30);
	}
	/* bounds as for the area's registrations */
	EXPECT_EQ(RCLINK_WC_REM_BOUNDS, op(&r.a, true, r.qpn, A_SRC, 2, ukey,
					   MR_LEN - 1, &wc));
	/* not the caller's memory, or offset with it: refused */
	EXPECT_EQ(-1, rclink_mr_reg_user(&r.b.c, (void *)8, 64,
					 RCLINK_MR_REMOTE_WRITE, NULL, NULL));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, rclink_mr_dereg(&r.b.c, ukey));
	memset(buf, GUARD_BYTE, U_SIZE);
	EXPECT_EQ(RCLINK_WC_REM_KEY, op(&r.a, true, r.qpn, A_SRC, 100, ukey, 0,
					&wc));
	EXPECT_EQ(-1, check_byte(buf, GUARD_BYTE, U_SIZE));
	/* the memory is the process's again */
	munmap(buf, U_SIZE);
out:
	rig_down(&r);
}

/* 10 capset, 11 context, 12 big one not refused, 13 another errno,
 * 14 small one refused, 15 VmLck not its pages, 16 not back after dereg
 */
static int memlock_child(void)
{
	struct side s = { .fd = -1 };
	long base, during, after;
	struct rlimit rl;
	uint32_t key;
	uint8_t *p;

	if (drop_ipc_lock())
		return 10;
	if (side_open(&s, env.b, 64 * 1024))
		return 11;
	p = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 11;
	memset(p, 0, 2 * MIB);
	base = vm_locked_kb();
	rl.rlim_cur = rl.rlim_max = (base + 32) * 1024;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	if (!rclink_mr_reg_user(&s.c, p, MIB, RCLINK_MR_REMOTE_WRITE, NULL,
				&key))
		return 12;
	if (errno != ENOMEM)
		return 13;
	/* 16 KiB, page aligned: 4 pages of 4 KiB */
	if (rclink_mr_reg_user(&s.c, p, 16 * 1024, RCLINK_MR_REMOTE_WRITE,
			       NULL, &key))
		return 14;
	during = vm_locked_kb();
	if (during - base != 16)
		return 15;
	if (rclink_mr_dereg(&s.c, key))
		return 16;
	after = vm_locked_kb();
	if (after != base)
		return 16;
	side_close(&s);
	return 0;
}

TEST(user_memlock)
{
	struct bar bb = { 0 };
	pid_t pid;
	int st;

	if (!env_load())
		SKIP(return, "no boards (run by t1_rdma.sh)");
	if (bar_open(&bb, env.b))
		SKIP(return, "no BAR0 through sysfs resource0: %m");
	if (!HOST_MRS(&bb)) {
		bar_close(&bb);
		SKIP(return, "no registrations of host memory");
	}
	bar_close(&bb);
	if (sysconf(_SC_PAGESIZE) != 4096)
		SKIP(return, "the VmLck sums assume 4 KiB pages");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(memlock_child());
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st));
}


/* ---- the kernel path: a ring file on a QP of context 0 ------------------ */

#define K_AREA		(4 * MIB)
#define K_SRC		(GUARD + 1)		/* odd: pieces cross chunks */
#define K_DST		(2 * MIB + GUARD + 3)

struct kring {
	int fd;
	struct rclink_ring_setup s;
	uint8_t *rings, *area;
	struct rclink_ring_hdr *hdr;
	struct rclink_sqe *sqes;
	struct rclink_cqe *cqes;
};

static int kring_open(struct kring *k, const char *name, uint32_t qpn)
{
	struct rclink_bind b = { .size = sizeof(b), .qpn = qpn };
	char path[128];

	memset(&k->s, 0, sizeof(k->s));
	k->s.size = sizeof(k->s);
	k->s.sq_entries = 64;
	k->s.area_size = K_AREA;
	k->rings = k->area = MAP_FAILED;
	snprintf(path, sizeof(path), "/dev/%s", name);
	k->fd = open(path, O_RDWR | O_CLOEXEC);
	if (k->fd < 0 || ioctl(k->fd, RCLINK_IOC_BIND, &b) ||
	    ioctl(k->fd, RCLINK_IOC_RING_SETUP, &k->s))
		return -1;
	k->rings = mmap(NULL, k->s.rings_size, PROT_READ | PROT_WRITE,
			MAP_SHARED, k->fd, RCLINK_RING_OFF_RINGS);
	k->area = mmap(NULL, K_AREA, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd,
		       RCLINK_RING_OFF_AREA);
	if (k->rings == MAP_FAILED || k->area == MAP_FAILED)
		return -1;
	k->hdr = (struct rclink_ring_hdr *)k->rings;
	k->sqes = (struct rclink_sqe *)(k->rings + k->s.sq_off);
	k->cqes = (struct rclink_cqe *)(k->rings + k->s.cq_off);
	return 0;
}

static void kring_close(struct kring *k)
{
	if (k->area != MAP_FAILED)
		munmap(k->area, K_AREA);
	if (k->rings != MAP_FAILED)
		munmap(k->rings, k->s.rings_size);
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

/* Queue one SQE (not yet submitted) */
static void kring_sqe(struct kring *k, uint8_t opcode, uint64_t addr,
		      uint32_t len, uint64_t user_data)
{
	uint32_t t = k->hdr->sq_tail;
	struct rclink_sqe *e = &k->sqes[t & k->hdr->sq_mask];

	memset(e, 0, sizeof(*e));
	e->opcode = opcode;
	e->addr = addr;
	e->len = len;
	e->user_data = user_data;
	__atomic_store_n(&k->hdr->sq_tail, t + 1, __ATOMIC_RELEASE);
}

/*
 * Submit what is queued, wait for one CQE and take it: its res, or
 * INT32_MIN when RING_ENTER failed or no CQE came
 */
static int32_t kring_run(struct kring *k, uint32_t n, struct rclink_cqe *out)
{
	struct rclink_ring_enter e = {
		.size = sizeof(e), .to_submit = n, .min_complete = 1,
	};
	uint32_t h = k->hdr->cq_head;

	if (ioctl(k->fd, RCLINK_IOC_RING_ENTER, &e) || e.submitted != n)
		return INT32_MIN;
	if (__atomic_load_n(&k->hdr->cq_tail, __ATOMIC_ACQUIRE) == h)
		return INT32_MIN;
	*out = k->cqes[h & k->hdr->cq_mask];
	__atomic_store_n(&k->hdr->cq_head, h + 1, __ATOMIC_RELEASE);
	return out->res;
}

/* A WRITE or READ of the ring and its REMOTE SQE; the CQE's res */
static int32_t kring_op(struct kring *k, bool write, uint64_t off,
			uint32_t len, uint32_t rkey, uint64_t raddr,
			struct rclink_cqe *cqe)
{
	kring_sqe(k, write ? RCLINK_OP_WRITE : RCLINK_OP_READ, off, len,
		  0x1000 + len);
	kring_sqe(k, RCLINK_OP_REMOTE, raddr, rkey, 0);
	return kring_run(k, 2, cqe);
}

TEST(kernel_ring)
{
	uint8_t *b = NULL;
	struct bar ba = { 0 }, bb = { 0 };
	struct kring k = { .fd = -1 };
	struct side sb = { .fd = -1 };
	uint32_t rkey, ro, never = 0x00ff00f0;
	struct rclink_cqe cqe;
	unsigned int i, n = 0;
	uint64_t tw0, rr0;
	int64_t bad;

	if (!env_load())
		SKIP(return, "no boards (run by t1_rdma.sh)");
	if (bar_open(&ba, env.a) || bar_open(&bb, env.b))
		SKIP(return, "no BAR0 through sysfs resource0: %m");
	if (!FIELD_MR_NUM(rd(&bb, RCLINK_DMAQ_MR_CAP)) ||
	    !FIELD_MR_NUM(rd(&ba, RCLINK_DMAQ_MR_CAP)))
		SKIP(return, "board without a registration table");
	if (NO_REQUESTER(&ba, NEED_KRING))
		SKIP(return, NO_REQUESTER_WHY);
	ASSERT_EQ(0, pair_add(QP_KRING));
	ASSERT_EQ(0, side_open(&sb, env.b, B_AREA)) TH_LOG("%m");
	ASSERT_EQ(0, rclink_uctx_bind(&sb.c, QP_KRING, 0));
	b = rclink_uctx_area(&sb.c, 0);
	memset(b, GUARD_BYTE, B_AREA);
	ASSERT_EQ(0, rclink_mr_reg(&sb.c, B_MR, MR_LEN, RCLINK_MR_REMOTE_WRITE |
				   RCLINK_MR_REMOTE_READ, NULL, &rkey));
	ASSERT_EQ(0, rclink_mr_reg(&sb.c, B_MR, MR_LEN, RCLINK_MR_REMOTE_READ,
				   NULL, &ro));
	ASSERT_EQ(0, kring_open(&k, env.a, QP_KRING)) TH_LOG("%m");
	memset(k.area, GUARD_BYTE, K_AREA);

	tw0 = rd(&ba, RCLINK_DMAQ_RDMA_TX_WRITE);
	rr0 = rd(&bb, RCLINK_DMAQ_RDMA_RX_READ);
	for (i = 0; i < sizeof(all_sizes) / sizeof(all_sizes[0]); i++) {
		uint32_t len = all_sizes[i];
		uint64_t raddr = i & 1 || len + 5 > MR_LEN ? MR_LEN - len : 5;

		fill(k.area + K_SRC, i + 200, len);
		memset(b, GUARD_BYTE, B_AREA);
		ASSERT_EQ((int32_t)len, kring_op(&k, true, K_SRC, len, rkey,
						 raddr, &cqe))
			TH_LOG("ring WRITE %u", len);
		EXPECT_EQ(RCLINK_OP_WRITE, RCLINK_CQE_OP(cqe.flags));
		EXPECT_EQ(0x1000 + len, cqe.user_data);
		bad = check(b + B_MR + raddr, i + 200, len);
		EXPECT_EQ(-1, bad) TH_LOG("ring WRITE %u: B's byte %" PRId64
					  " differs", len, bad);
		EXPECT_EQ(-1, check_byte(b, GUARD_BYTE, B_MR + raddr));
		EXPECT_EQ(-1, check_byte(b + B_MR + raddr + len, GUARD_BYTE,
					 B_AREA - B_MR - raddr - len));

		fill(b + B_MR + raddr, i + 300, len);
		memset(k.area + K_DST - GUARD, GUARD_BYTE, MIB + 2 * GUARD);
		ASSERT_EQ((int32_t)len, kring_op(&k, false, K_DST, len, rkey,
						 raddr, &cqe))
			TH_LOG("ring READ %u", len);
		EXPECT_EQ(RCLINK_OP_READ, RCLINK_CQE_OP(cqe.flags));
		bad = check(k.area + K_DST, i + 300, len);
		EXPECT_EQ(-1, bad) TH_LOG("ring READ %u: byte %" PRId64
					  " differs", len, bad);
		EXPECT_EQ(-1, check_byte(k.area + K_DST - GUARD, GUARD_BYTE,
					 GUARD));
		EXPECT_EQ(-1, check_byte(k.area + K_DST + len, GUARD_BYTE,
					 MIB + GUARD - len));
		n++;
	}
	EXPECT_EQ(n, rd(&ba, RCLINK_DMAQ_RDMA_TX_WRITE) - tw0);
	EXPECT_EQ(n, rd(&bb, RCLINK_DMAQ_RDMA_RX_READ) - rr0);

	/* refusals: nothing written at B, nothing into A's READ target */
	memset(b, GUARD_BYTE, B_AREA);
	memset(k.area + K_DST, GUARD_BYTE, 100);
	EXPECT_EQ(-ENOKEY, kring_op(&k, true, K_SRC, 100, never, 0, &cqe));
	EXPECT_EQ(-ENOKEY, kring_op(&k, false, K_DST, 100, never, 0, &cqe));
	EXPECT_EQ(-EACCES, kring_op(&k, true, K_SRC, 100, ro, 0, &cqe));
	EXPECT_EQ(-ERANGE, kring_op(&k, true, K_SRC, 100, rkey, MR_LEN - 99,
				    &cqe));
	EXPECT_EQ(-ERANGE, kring_op(&k, false, K_DST, 100, rkey, MR_LEN,
				    &cqe));
	EXPECT_EQ(-1, check_byte(b, GUARD_BYTE, B_AREA)) TH_LOG("B written");
	EXPECT_EQ(-1, check_byte(k.area + K_DST, GUARD_BYTE, 100));
	/* checked by the kernel: the SQE completes at once */
	kring_sqe(&k, RCLINK_OP_WRITE, K_SRC, 100, 1);
	EXPECT_EQ(-EINVAL, kring_run(&k, 1, &cqe)) TH_LOG("no REMOTE SQE");
	kring_sqe(&k, RCLINK_OP_REMOTE, 0, rkey, 2);
	EXPECT_EQ(-EINVAL, kring_run(&k, 1, &cqe)) TH_LOG("REMOTE alone");
	EXPECT_EQ(-EMSGSIZE, kring_op(&k, true, 0, K_AREA, rkey, 0, &cqe));
	EXPECT_EQ(-EFAULT, kring_op(&k, false, K_AREA - 10, 11, rkey, 0,
				    &cqe));
	EXPECT_EQ(-1, check_byte(b, GUARD_BYTE, B_AREA));
	/* and the QP runs on */
	fill(k.area + K_SRC, 9, 300);
	EXPECT_EQ(300, kring_op(&k, true, K_SRC, 300, rkey, 0, &cqe));
	EXPECT_EQ(-1, check(b + B_MR, 9, 300));

	kring_close(&k);
	side_close(&sb);
	bar_close(&ba);
	bar_close(&bb);
	pair_del(QP_KRING);
}

/* Register [off, off + len) of a ring file's area; the rkey, or 0 */
static uint32_t kring_mr(struct kring *k, uint64_t off, uint64_t len,
			 uint32_t access)
{
	struct rclink_mr_reg r = {
		.size = sizeof(r), .offset = off, .length = len,
		.access = access,
	};

	if (ioctl(k->fd, RCLINK_IOC_MR_REG, &r))
		return 0;
	return r.rkey;
}

/* The object of `rclink -j mr show`'s output @buf whose key is @key */
static bool mr_obj(const char *buf, uint32_t key, char *obj, size_t size)
{
	return json_obj(buf, "key", key, obj, size);
}

TEST(tool)
{
	static const struct {
		uint32_t reg;
		const char *name;
	} rdma_cnt[] = {
		{ RCLINK_DMAQ_RDMA_TX_WRITE, "rdma_tx_write" },
		{ RCLINK_DMAQ_RDMA_TX_READ, "rdma_tx_read" },
		{ RCLINK_DMAQ_RDMA_RX_WRITE, "rdma_rx_write" },
		{ RCLINK_DMAQ_RDMA_RX_READ, "rdma_rx_read" },
		{ RCLINK_DMAQ_RDMA_RX_BAD_KEY, "rdma_rx_bad_key" },
		{ RCLINK_DMAQ_RDMA_RX_ACCESS, "rdma_rx_access" },
		{ RCLINK_DMAQ_RDMA_RX_BOUNDS, "rdma_rx_bounds" },
		{ RCLINK_DMAQ_RDMA_RX_SILENT, "rdma_rx_silent" },
		{ RCLINK_DMAQ_RDMA_REM_ERR, "rdma_rem_err" },
		{ RCLINK_DMAQ_RDMA_TIMEOUT, "rdma_timeout" },
		{ RCLINK_DMAQ_RDMA_RX_LATE, "rdma_rx_late" },
		{ RCLINK_DMAQ_RDMA_RX_IMM_DROP, "rdma_rx_imm_drop" },
	};
	static char out[65536];
	unsigned int side, i;
	struct rig r = { 0 };
	struct rclink_wc wc;
	uint32_t ro, ukey, lkey;
	char obj[1024];
	uint8_t *ubuf = MAP_FAILED;
	int64_t pid = getpid();

	RIG_UP(&r, QP_TOOL, RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ,
	       NEED_TOOL);
	ASSERT_EQ(0, rclink_mr_reg(&r.b.c, B_MR, 4096, RCLINK_MR_REMOTE_READ,
				   NULL, &ro));

	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j mr show dev %s",
			      env.tool, env.b));
	ASSERT_TRUE(mr_obj(out, r.rkey, obj, sizeof(obj))) TH_LOG("%s", out);
	EXPECT_EQ(r.b.c.id, jnum(obj, "ctx"));
	EXPECT_EQ(B_MR, jnum(obj, "offset"));
	EXPECT_EQ(MR_LEN, jnum(obj, "length"));
	EXPECT_EQ(pid, jnum(obj, "pid"));
	EXPECT_EQ(1, jbool(obj, "remote_write"));
	EXPECT_EQ(1, jbool(obj, "remote_read"));
	EXPECT_EQ(0, jbool(obj, "user"));
	EXPECT_EQ(0, jbool(obj, "busy"));
	EXPECT_EQ(-1, jnum(obj, "qpn")) TH_LOG("a context's registration");
	ASSERT_TRUE(mr_obj(out, ro, obj, sizeof(obj)));
	EXPECT_EQ(0, jbool(obj, "remote_write"));
	EXPECT_EQ(1, jbool(obj, "remote_read"));
	EXPECT_EQ(4096, jnum(obj, "length"));
	/* one by key */
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j mr show dev %s key %u",
			      env.tool, env.b, ro));
	EXPECT_TRUE(mr_obj(out, ro, obj, sizeof(obj)));
	EXPECT_FALSE(mr_obj(out, r.rkey, obj, sizeof(obj))) TH_LOG("%s", out);
	/* B's keys are not A's */
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j mr show dev %s",
			      env.tool, env.a));
	EXPECT_FALSE(mr_obj(out, r.rkey, obj, sizeof(obj))) TH_LOG("%s", out);

	/* user memory: its pages (4 KiB pieces from an odd start) */
	if (HOST_MRS(&r.bb)) {
		ubuf = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ASSERT_NE(MAP_FAILED, ubuf);
		memset(ubuf, 0, 4 * 4096);
		ASSERT_EQ(0, rclink_mr_reg_user(&r.b.c, ubuf + 100, 2 * 4096,
						RCLINK_MR_REMOTE_WRITE, &lkey,
						&ukey)) TH_LOG("%m");
		ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j mr show dev %s",
				      env.tool, env.b));
		ASSERT_TRUE(mr_obj(out, ukey, obj, sizeof(obj)));
		EXPECT_EQ(1, jbool(obj, "user"));
		EXPECT_EQ(3, jnum(obj, "pages"));
		EXPECT_EQ(2 * 4096, jnum(obj, "length"));
		EXPECT_EQ(-1, jnum(obj, "offset"));
		EXPECT_EQ(0, rclink_mr_dereg(&r.b.c, ukey));
	}

	/* the counters the tool shows are the board's */
	ASSERT_EQ(RCLINK_WC_OK, op(&r.a, true, QP_TOOL, A_SRC, 1000, r.rkey, 0,
				   &wc));
	ASSERT_EQ(RCLINK_WC_OK, op(&r.a, false, QP_TOOL, A_DST, 1000, r.rkey,
				   0, &wc));
	for (side = 0; side < 2; side++) {
		struct bar *bar = side ? &r.bb : &r.ba;

		ASSERT_EQ(0, tool_out(out, sizeof(out),
				      "%s -j -s dev show dev %s", env.tool,
				      side ? env.b : env.a));
		for (i = 0; i < sizeof(rdma_cnt) / sizeof(rdma_cnt[0]); i++)
			EXPECT_EQ(rd(bar, rdma_cnt[i].reg),
				  jnum(out, rdma_cnt[i].name))
				TH_LOG("counter %u of board %c", i,
				       side ? 'B' : 'A');
		EXPECT_LT(0, jnum(out, side ? "rdma_rx_write" :
					      "rdma_tx_read"));
	}

	/* deregistered: gone from the list, and by key an error */
	EXPECT_EQ(0, rclink_mr_dereg(&r.b.c, ro));
	EXPECT_EQ(1, tool_out(out, sizeof(out), "%s -j mr show dev %s key %u",
			      env.tool, env.b, ro));
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j mr show dev %s",
			      env.tool, env.b));
	EXPECT_FALSE(mr_obj(out, ro, obj, sizeof(obj)));
	EXPECT_TRUE(mr_obj(out, r.rkey, obj, sizeof(obj)));
	/* the context's end takes the rest */
	rig_down(&r);
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j mr show", env.tool));
	EXPECT_FALSE(mr_obj(out, r.rkey, obj, sizeof(obj))) TH_LOG("%s", out);
	if (ubuf != MAP_FAILED)
		munmap(ubuf, 4 * 4096);
}

/* A WRITE or READ whose local side is registration lkey; the WC status */
static int op_lkey(struct side *s, bool write, uint32_t qpn, uint32_t lkey,
		   uint64_t loff, uint32_t len, uint32_t rkey, uint64_t raddr,
		   struct rclink_wc *wc)
{
	return op_done(s, write ? rclink_post_write_lkey(&s->c, qpn, lkey, loff,
							 len, rkey, raddr)
				: rclink_post_read_lkey(&s->c, qpn, lkey, loff,
							len, rkey, raddr), wc);
}

#define LK_OFF		(4096 + 7)	/* the registration in the mapping */
#define LK_LEN		(MIB + 5)
#define LK_MAP		(2 * MIB)

TEST(local_key)
{
	static const uint32_t lsizes[] = { 1, 1321, 4097, 65537, MIB };
	struct side a2 = { .fd = -1 };
	uint32_t lk, lk_area, k2, unused, cause = 0;
	struct rig r = { 0 };
	struct rclink_wc wc;
	uint8_t *u = MAP_FAILED, *b, *a;
	unsigned int i;
	int64_t bad;

	RIG_UP(&r, QP_LKEY, RCLINK_MR_REMOTE_WRITE | RCLINK_MR_REMOTE_READ,
	       NEED_LKEY);
	b = rclink_uctx_area(&r.b.c, 0);
	/* pinned user memory of A: with registrations of host memory */
	if (!HOST_MRS(&r.ba)) {
		TH_LOG("board A registers no host memory: its area only");
		goto area;
	}
	u = mmap(NULL, LK_MAP, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, u);
	memset(u, GUARD_BYTE, LK_MAP);
	/* local access needs no rights */
	ASSERT_EQ(0, rclink_mr_reg_user(&r.a.c, u + LK_OFF, LK_LEN, 0, &lk,
					&unused)) TH_LOG("%m");
	for (i = 0; i < sizeof(lsizes) / sizeof(lsizes[0]); i++) {
		uint32_t len = lsizes[i];
		uint64_t ra = len + 5 > MR_LEN ? MR_LEN - len : 5;

		/* WRITE from the user memory at its offset 3 */
		fill(u + LK_OFF + 3, i + 400, len);
		memset(b, GUARD_BYTE, B_AREA);
		ASSERT_EQ(RCLINK_WC_OK, op_lkey(&r.a, true, QP_LKEY, lk, 3, len,
						r.rkey, ra, &wc))
			TH_LOG("WRITE %u from the lkey", len);
		bad = check(b + B_MR + ra, i + 400, len);
		EXPECT_EQ(-1, bad) TH_LOG("WRITE %u: B's byte %" PRId64, len,
					  bad);
		EXPECT_EQ(-1, b_outside(&r, ra, ra + len, 0));
		/* READ into the registration's end */
		fill(b + B_MR + ra, i + 500, len);
		memset(u, GUARD_BYTE, LK_MAP);
		ASSERT_EQ(RCLINK_WC_OK, op_lkey(&r.a, false, QP_LKEY, lk,
						LK_LEN - len, len, r.rkey, ra,
						&wc))
			TH_LOG("READ %u into the lkey", len);
		bad = check(u + LK_OFF + LK_LEN - len, i + 500, len);
		EXPECT_EQ(-1, bad) TH_LOG("READ %u: byte %" PRId64, len, bad);
		EXPECT_EQ(-1, check_byte(u, GUARD_BYTE, LK_OFF + LK_LEN - len));
		EXPECT_EQ(-1, check_byte(u + LK_OFF + LK_LEN, GUARD_BYTE,
					 LK_MAP - LK_OFF - LK_LEN));
	}
area:
	/* an lkey of a range of the area */
	a = rclink_uctx_area(&r.a.c, 0);
	ASSERT_EQ(0, rclink_mr_reg(&r.a.c, A_SRC, 4096, 0, &lk_area, &unused));
	fill(a + A_SRC + 10, 77, 100);
	EXPECT_EQ(RCLINK_WC_OK, op_lkey(&r.a, true, QP_LKEY, lk_area, 10, 100,
					r.rkey, 0, &wc));
	EXPECT_EQ(-1, check(b + B_MR, 77, 100));

	/* another context's registration: BAD_ADDR, the context in error */
	ASSERT_EQ(0, side_open(&a2, env.a, A_AREA)) TH_LOG("%m");
	ASSERT_EQ(0, rclink_mr_reg(&a2.c, 0, 4096, 0, &k2, &unused));
	memset(b, GUARD_BYTE, B_AREA);
	EXPECT_EQ(RCLINK_WC_BAD_ADDR, op_lkey(&r.a, true, QP_LKEY, k2, 0, 100,
					      r.rkey, 0, &wc));
	EXPECT_TRUE(side_wait_error(&r.a, &cause));
	EXPECT_EQ(2, cause) TH_LOG("cause BAD_ADDR");
	/* the QP goes to a2: a range beyond its registration, the same */
	side_close(&r.a);
	ASSERT_EQ(0, rclink_uctx_bind(&a2.c, QP_LKEY, 0)) TH_LOG("%m");
	EXPECT_EQ(RCLINK_WC_BAD_ADDR, op_lkey(&a2, false, QP_LKEY, k2, 4000,
					      100, r.rkey, 0, &wc));
	EXPECT_TRUE(side_wait_error(&a2, &cause));
	EXPECT_EQ(-1, check_byte(b, GUARD_BYTE, B_AREA)) TH_LOG("B written");
	side_close(&a2);
	rig_down(&r);
	if (u != MAP_FAILED)
		munmap(u, LK_MAP);
}

TEST(no_table)
{
	struct bar ba = { 0 };
	struct kring k = { .fd = -1 };
	struct rclink_cqe cqe;
	uint64_t bad0;

	if (!env_load())
		SKIP(return, "no boards (run by t1_rdma.sh)");
	if (bar_open(&ba, env.a))
		SKIP(return, "no BAR0 through sysfs resource0: %m");
	if (FIELD_MR_NUM(rd(&ba, RCLINK_DMAQ_MR_CAP))) {
		bar_close(&ba);
		SKIP(return, "board A has a registration table");
	}
	ASSERT_EQ(0, pair_add(QP_NOTAB));
	ASSERT_EQ(0, kring_open(&k, env.a, QP_NOTAB)) TH_LOG("%m");
	bad0 = rd(&ba, RCLINK_DMAQ_BAD_WQE);
	memset(k.area, 0x5a, 64);
	EXPECT_EQ(-EOPNOTSUPP, kring_op(&k, true, 0, 64, 1, 0, &cqe));
	EXPECT_EQ(RCLINK_OP_WRITE, RCLINK_CQE_OP(cqe.flags));
	EXPECT_EQ(-EOPNOTSUPP, kring_op(&k, false, 0, 64, 1, 0, &cqe));
	EXPECT_EQ(RCLINK_OP_READ, RCLINK_CQE_OP(cqe.flags));
	/* refused by the kernel: nothing reached the board */
	EXPECT_EQ(bad0, rd(&ba, RCLINK_DMAQ_BAD_WQE));
	errno = 0;
	EXPECT_EQ(0, kring_mr(&k, 0, 4096, RCLINK_MR_REMOTE_WRITE));
	EXPECT_EQ(EOPNOTSUPP, errno);
	/* the ring runs on: a SEND goes out and completes */
	kring_sqe(&k, RCLINK_OP_SEND, 0, 64, 7);
	EXPECT_EQ(64, kring_run(&k, 1, &cqe));
	EXPECT_EQ(7, cqe.user_data);
	kring_close(&k);
	bar_close(&ba);
	pair_del(QP_NOTAB);
}

#define RT_OFF		(GUARD + 5)

TEST(ring_target)
{
	static char out[65536];
	char obj[1024];
	struct bar ba = { 0 }, bb = { 0 };
	struct kring k = { .fd = -1 }, k2 = { .fd = -1 };
	struct side sa = { .fd = -1 };
	struct rclink_mr_reg bad = { .size = sizeof(bad) };
	uint32_t rkey, ro;
	struct rclink_wc wc;
	uint64_t ib0, ib1, imm0;
	unsigned int i;
	uint8_t *a, *b;
	int64_t w;

	if (!env_load())
		SKIP(return, "no boards (run by t1_rdma.sh)");
	if (bar_open(&ba, env.a) || bar_open(&bb, env.b))
		SKIP(return, "no BAR0 through sysfs resource0: %m");
	if (!FIELD_MR_NUM(rd(&ba, RCLINK_DMAQ_MR_CAP)) ||
	    !FIELD_MR_NUM(rd(&bb, RCLINK_DMAQ_MR_CAP)))
		SKIP(return, "board without a registration table");
	if (NO_REQUESTER(&ba, NEED_RT))
		SKIP(return, NO_REQUESTER_WHY);
	/* a ring's registration is a page table of its pieces */
	if (!HOST_MRS(&bb))
		SKIP(return, "board B registers no ring (no page tables)");
	ASSERT_EQ(0, pair_add(QP_RT));
	ASSERT_EQ(0, pair_add(QP_RT2));
	ASSERT_EQ(0, side_open(&sa, env.a, A_AREA)) TH_LOG("%m");
	ASSERT_EQ(0, rclink_uctx_bind(&sa.c, QP_RT, 0));
	ASSERT_EQ(0, rclink_uctx_bind(&sa.c, QP_RT2, 0));
	ASSERT_EQ(0, kring_open(&k, env.b, QP_RT)) TH_LOG("%m");
	ASSERT_EQ(0, kring_open(&k2, env.b, QP_RT2)) TH_LOG("%m");
	a = rclink_uctx_area(&sa.c, 0);
	b = k.area;
	memset(b, GUARD_BYTE, K_AREA);
	rkey = kring_mr(&k, RT_OFF, MR_LEN, RCLINK_MR_REMOTE_WRITE |
			RCLINK_MR_REMOTE_READ);
	ASSERT_NE(0, rkey) TH_LOG("MR_REG of a ring: %m");
	ro = kring_mr(&k, RT_OFF, MR_LEN, RCLINK_MR_REMOTE_READ);
	ASSERT_NE(0, ro) TH_LOG("MR_REG of a ring: %m");
	/* `rclink mr show`: context 0, served on the file's QP only */
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j mr show dev %s",
			      env.tool, env.b));
	ASSERT_TRUE(mr_obj(out, rkey, obj, sizeof(obj))) TH_LOG("%s", out);
	EXPECT_EQ(0, jnum(obj, "ctx"));
	EXPECT_EQ(QP_RT, jnum(obj, "qpn"));
	EXPECT_EQ(RT_OFF, jnum(obj, "offset"));
	EXPECT_EQ(MR_LEN, jnum(obj, "length"));
	EXPECT_EQ(((RT_OFF & 4095) + MR_LEN + 4095) / 4096, jnum(obj, "pages"));
	EXPECT_EQ(0, jbool(obj, "user"));
	EXPECT_EQ(getpid(), jnum(obj, "pid"));
	/* registration errors */
	bad.offset = K_AREA - 10;
	bad.length = 11;
	bad.access = RCLINK_MR_REMOTE_READ;
	EXPECT_EQ(-1, ioctl(k2.fd, RCLINK_IOC_MR_REG, &bad));
	EXPECT_EQ(EINVAL, errno);

	ib0 = irqs(&bb);
	for (i = 0; i < sizeof(all_sizes) / sizeof(all_sizes[0]); i++) {
		uint32_t len = all_sizes[i];
		uint64_t raddr = i & 1 ? MR_LEN - len : 0;

		fill(a + A_SRC, i + 400, len);
		memset(b, GUARD_BYTE, K_AREA);
		ASSERT_EQ(RCLINK_WC_OK, op(&sa, true, QP_RT, A_SRC, len, rkey,
					   raddr, &wc))
			TH_LOG("WRITE %u into a ring", len);
		w = check(b + RT_OFF + raddr, i + 400, len);
		EXPECT_EQ(-1, w) TH_LOG("WRITE %u: byte %" PRId64 " differs",
					len, w);
		EXPECT_EQ(-1, check_byte(b, GUARD_BYTE, RT_OFF + raddr));
		EXPECT_EQ(-1, check_byte(b + RT_OFF + raddr + len, GUARD_BYTE,
					 K_AREA - RT_OFF - raddr - len));
		fill(b + RT_OFF + raddr, i + 500, len);
		memset(a + A_DST, GUARD_BYTE, len);
		ASSERT_EQ(RCLINK_WC_OK, op(&sa, false, QP_RT, A_DST, len, rkey,
					   raddr, &wc))
			TH_LOG("READ %u of a ring", len);
		w = check(a + A_DST, i + 500, len);
		EXPECT_EQ(-1, w) TH_LOG("READ %u: byte %" PRId64 " differs",
					len, w);
	}
	ib1 = irqs(&bb);
	/* B's CPUs ran nothing for these: not one interrupt of B */
	EXPECT_EQ(ib0, ib1) TH_LOG("B took %" PRIu64 " interrupts", ib1 - ib0);

	memset(b, GUARD_BYTE, K_AREA);
	fill(a + A_SRC, 3, 100);
	EXPECT_EQ(RCLINK_WC_REM_ACCESS, op(&sa, true, QP_RT, A_SRC, 100, ro, 0,
					   &wc));
	/* another file's QP of B: the key is not its */
	EXPECT_EQ(RCLINK_WC_REM_KEY, op(&sa, true, QP_RT2, A_SRC, 100, rkey, 0,
					&wc));
	EXPECT_EQ(RCLINK_WC_REM_KEY, op(&sa, false, QP_RT2, A_DST, 100, rkey,
					0, &wc));
	EXPECT_EQ(-1, check_byte(b, GUARD_BYTE, K_AREA)) TH_LOG("B written");
	/* immediate data: the data lands, the immediate is counted dropped */
	imm0 = rd(&bb, RCLINK_DMAQ_RDMA_RX_IMM_DROP);
	fill(a + A_SRC, 6, 200);
	EXPECT_EQ(RCLINK_WC_OK, op_imm(&sa, QP_RT, A_SRC, 200, rkey, 0, 0x1234,
				       &wc));
	EXPECT_EQ(-1, check(b + RT_OFF, 6, 200));
	EXPECT_EQ(1, rd(&bb, RCLINK_DMAQ_RDMA_RX_IMM_DROP) - imm0);
	memset(b, GUARD_BYTE, K_AREA);
	/* unbound: the registrations went */
	EXPECT_EQ(0, ioctl(k.fd, RCLINK_IOC_UNBIND));
	EXPECT_EQ(RCLINK_WC_REM_KEY, op(&sa, true, QP_RT, A_SRC, 100, rkey, 0,
					&wc));
	EXPECT_EQ(-1, check_byte(b, GUARD_BYTE, K_AREA)) TH_LOG("B written");
	bad.offset = 0;
	bad.length = 100;
	EXPECT_EQ(-1, ioctl(k.fd, RCLINK_IOC_MR_REG, &bad));
	EXPECT_EQ(ENOTCONN, errno);

	kring_close(&k);
	kring_close(&k2);
	side_close(&sa);
	bar_close(&ba);
	bar_close(&bb);
	pair_del(QP_RT);
	pair_del(QP_RT2);
}

TEST_SLOW(formats)
{
	static const uint32_t lens[] = { 1, 1321, 65536 + 3 };
	struct bar ba = { 0 }, bb = { 0 };
	unsigned int f, i;
	bool tables;

	if (!env_load())
		SKIP(return, "no boards (run by t1_rdma.sh)");
	if (bar_open(&ba, env.a) || bar_open(&bb, env.b))
		SKIP(return, "no BAR0 through sysfs resource0: %m");
	tables = FIELD_MR_NUM(rd(&ba, RCLINK_DMAQ_MR_CAP)) &&
		 FIELD_MR_NUM(rd(&bb, RCLINK_DMAQ_MR_CAP));
	bar_close(&ba);
	bar_close(&bb);
	if (!tables)
		SKIP(return, "board without a registration table");
	for (f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		struct rig r = { 0 };
		struct rclink_wc wc;
		uint8_t *a, *b;

		ASSERT_EQ(0, set_format(fmts[f].fmt, fmts[f].vlan,
					fmts[f].pri, fmts[f].icrc))
			TH_LOG("format %s", fmts[f].name);
		RIG_UP(&r, QP_FMT, RCLINK_MR_REMOTE_WRITE |
		       RCLINK_MR_REMOTE_READ, NEED_FMT);
		a = rclink_uctx_area(&r.a.c, 0);
		b = rclink_uctx_area(&r.b.c, 0);
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			uint32_t len = lens[i];

			fill(a + A_SRC, f * 10 + i, len);
			EXPECT_EQ(RCLINK_WC_OK, op(&r.a, true, r.qpn, A_SRC,
						   len, r.rkey, 7, &wc))
				TH_LOG("%s: WRITE %u", fmts[f].name, len);
			EXPECT_EQ(-1, check(b + B_MR + 7, f * 10 + i, len))
				TH_LOG("%s: WRITE %u differs", fmts[f].name,
				       len);
			fill(b + B_MR + 11, f * 10 + i + 5, len);
			EXPECT_EQ(RCLINK_WC_OK, op(&r.a, false, r.qpn, A_DST,
						   len, r.rkey, 11, &wc))
				TH_LOG("%s: READ %u", fmts[f].name, len);
			EXPECT_EQ(-1, check(a + A_DST, f * 10 + i + 5, len))
				TH_LOG("%s: READ %u differs", fmts[f].name,
				       len);
		}
		EXPECT_EQ(RCLINK_WC_REM_KEY, op(&r.a, true, r.qpn, A_SRC, 10,
						0x00ff00f0, 0, &wc))
			TH_LOG("%s: a bad key", fmts[f].name);
		rig_down(&r);
	}
	EXPECT_EQ(0, set_format("std", "off", 0, true));
}

TEST_HARNESS_MAIN
