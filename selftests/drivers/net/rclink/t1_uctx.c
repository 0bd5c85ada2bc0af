// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-bypass contexts through /dev/rclinkN and librclink
 * (Documentation/uapi/rclink-dev.rst, "Contexts"; tools/lib/librclink.h)
 * between two wired boards A and B:
 *
 *   messages        RCLINK_T1_UCTX_MSGS messages each way on one QP pair,
 *                   of lengths 1..4000, checked byte-exact and in order
 *   cursors         the batch cursors post exactly a queue's room (then
 *                   EAGAIN) and reap in order
 *   not_owner       a WQE for a QP the context was not given completes
 *                   NOT_OWNER in its CQ; the context goes on
 *   quiet           SENDs with RCLINK_SEND_QUIET complete without a CQE:
 *                   of 8 SENDs, 7 quiet, A's CQ gets one CQE (the 8th's
 *                   SQ index), B receives all 8 in order; a quiet SEND
 *                   that fails (a QP not the context's) has its CQE
 *   ctx_show        `rclink -j ctx show` (netlink ctx-get): the context's
 *                   number, pid, state, queues, bound QP and its board's
 *                   counters (two NOT_OWNER messages: not_owner 2); in
 *                   error its cause; closed, it is gone (dump and id)
 *   bad_addr        a WQE beyond the area completes BAD_ADDR and puts the
 *                   context in error: EPOLLERR, cause BAD_ADDR
 *   bad_wqe         a WQE of length 0: BAD_WQE, error BAD_WQE
 *   doorbell        an SQ producer beyond the ring: error DOORBELL
 *   memlock         without CAP_IPC_LOCK a context over RLIMIT_MEMLOCK is
 *                   refused (ENOMEM); under it its pages show in VmLck
 *                   and leave it with the file
 *   armed_cq        EPOLLIN after the CQ is armed, one event per arming;
 *                   RCLINK_CTX_EVENTS_WAIT sleeps until the event (and
 *                   takes it), returns with none after its timeout, and
 *                   returns at once for an error (state ERROR); unknown
 *                   flags, and RCLINK_CTX_EVENTS_COUNTERS in a struct of
 *                   the first size: EINVAL; that size alone works
 *   mcast_group     a TYPE2 group given to a context on each board: a
 *                   MCAST message A -> B; a file cannot take the group;
 *                   one more with no buffer posted is dropped, B's
 *                   rx_nobuf counter (RCLINK_CTX_EVENTS_COUNTERS) 1 and B
 *                   running, the next with a buffer arrives; a group not
 *                   given completes NOT_OWNER (A's not_owner 1)
 *   fork_child      a child inherits none of the context's mappings (a
 *                   doorbell or area store: SIGSEGV); the parent's runs on
 *   unmap_busy      unmap and close with messages in flight: stopped and
 *                   freed; the board's contexts work on
 *   exit_busy_qp    a context's end leaves its QP usable when nothing was
 *                   in flight; with messages in flight (A's wire losing
 *                   every frame) the QP is fatal (its PSNs have a hole):
 *                   FLUSHED for the next context, re-armed with both PSNs
 *                   it carries traffic to B's context, bound all along
 *   rx_hold_posted  B's context without a buffer: A's message, which B's
 *                   board acknowledged, waits (B's DMAQ_CTX_RX_HOLD set
 *                   long) and lands once B posts one; B stays running
 *   rx_hold_never   B never posts: after the hold time (1 ms) the message
 *                   is dropped and B's context is in error, cause
 *                   RX_NOBUF, err_info the QP; A's SEND completed OK
 *   many            every context of the board (ctx_num), created and
 *                   torn down twice
 *   loss_formats    5 % loss, 1 % duplication, 1 % reordering on both
 *                   wires, in every header format: TYPE1 messages both
 *                   ways whole, once, in order (Lite, which has no
 *                   retransmission, on clean wires); TYPE2 messages whole,
 *                   in order, at most once, most of them
 *   db_bar_requested  the doorbell BAR is requested as rclink-doorbells
 *   flr_busy        a function reset of A with a context busy: EPOLLERR,
 *                   ENODEV, the doorbell page revoked (a store gets
 *                   SIGBUS), the other mappings harmless, no page leaked
 *   aer_busy        the same for an uncorrectable non-fatal AER error
 *                   (aer_inject; skipped without it or a root port above
 *                   the board: RCLINK_BOARDS=faults)
 *   dead_busy       the same for A leaving the bus (the model's hostile
 *                   "dead" mode: all ones, as a surprise removal), then a
 *                   PCI reset (skipped without BAR0 access)
 *   unbind_busy     the same for the driver unbound from A (as removal
 *                   does), which is then bound again
 *
 * Run by t1_uctx.sh, which picks the boards and passes them as t1_msg.sh
 * does (RCLINK_TOOL, RCLINK_T1_A/_B, RCLINK_T1_IP_A/_B, RCLINK_T1_MAC_A/_B,
 * RCLINK_T1_QP_NUM); RCLINK_T1_UCTX_MSGS (default 2000), RCLINK_T1_STALL
 * (seconds without progress that fail, default 60).  Each test adds the
 * QPs it uses and deletes them.  Without the boards every test is skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include <linux/rclink_dev.h>

#include "rclink_hw.h"
#include "librclink.h"
#include "librclink.c"

#include "kselftest_harness.h"
#include "t1_pair.h"

/* librclink's formats are the contract's */
_Static_assert(RCLINK_U_WQE_OP_SEND == RCLINK_WQE_OP_SEND, "WQE");
_Static_assert(RCLINK_U_WQE_MORE == RCLINK_WQE_MORE, "WQE");
_Static_assert(RCLINK_U_CQE_PHASE == RCLINK_CQE_PHASE, "CQE");
_Static_assert(RCLINK_U_DB_SQ_PROD == RCLINK_DB_OFF_SQ_PROD, "DB");
_Static_assert(RCLINK_U_DB_RQ_PROD == RCLINK_DB_OFF_RQ_PROD, "DB");
_Static_assert(RCLINK_U_DB_CQ_CONS == RCLINK_DB_OFF_CQ_CONS, "DB");
_Static_assert(RCLINK_U_DB_CQ_ARM == RCLINK_DB_OFF_CQ_ARM, "DB");
_Static_assert(RCLINK_WC_NOT_OWNER == RCLINK_CQE_ST_NOT_OWNER, "CQE");
_Static_assert(RCLINK_WC_BAD_ADDR == RCLINK_CQE_ST_BAD_ADDR, "CQE");

#define BUF		4096u		/* a receive buffer, a send slot */
#define ENTRIES		64u
#define AREA		(2 * ENTRIES * BUF)	/* RX slots, then TX slots */
#define TX_BASE		(ENTRIES * BUF)
#define MAX_LEN		4000u

#define QP_MSG		201
#define QP_OWN		210
#define QP_FOREIGN	211
#define QP_ADDR		212
#define QP_ARM		213
#define QP_FLR		214
#define QP_EXIT		215
#define QP_QUIET	216
#define QP_HOLD		217
#define QP_CURSOR	219

/* messages per direction of the transfer cases (RCLINK_T1_UCTX_MSGS) */
static uint32_t uctx_msgs;

static bool uctx_env_load(void)
{
	const char *m = getenv("RCLINK_T1_UCTX_MSGS");

	uctx_msgs = m && *m ? strtoul(m, NULL, 0) : 2000;
	if (!uctx_msgs)
		uctx_msgs = 1;
	return env_load();
}

static int dev_open(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return open(path, O_RDWR | O_CLOEXEC);
}

/*
 * Whether both boards' shims have user contexts (DMAQ_CTX_CAP.num > 1):
 * RCLINK_IOC_CTX_CREATE fails EOPNOTSUPP on a shim without them
 */
static bool uctx_boards_have_contexts(void)
{
	struct rclink_uctx_attr a = {
		.sq_entries = 16, .rq_entries = 16, .cq_entries = 64,
		.area_size = 65536,
	};
	const char *names[] = { env.a, env.b };
	struct rclink_uctx c;
	unsigned int i;
	bool ok = true;
	int fd;

	for (i = 0; i < 2 && ok; i++) {
		fd = dev_open(names[i]);
		if (fd < 0)
			return true;	/* the cases say why */
		if (rclink_uctx_open(&c, fd, &a))
			ok = errno != EOPNOTSUPP;
		else
			rclink_uctx_close(&c);
		close(fd);
	}
	return ok;
}

#define NEED_BOARDS() do {						\
	if (!uctx_env_load())						\
		SKIP(return, "no boards (run by t1_uctx.sh)");		\
	if (!uctx_boards_have_contexts())				\
		SKIP(return, "a shim without user contexts");		\
} while (0)

static int side_open(struct side *s, const char *name, uint32_t entries,
		     uint32_t area)
{
	struct rclink_uctx_attr a = {
		.sq_entries = entries, .rq_entries = entries,
		.cq_entries = 4 * entries, .area_size = area,
	};

	return side_attach(s, name, &a);
}

/* QP qpn on both boards and a context of each side with it */
#define PAIR_OPEN(sa, sb, qpn, entries, area)				\
	do {								\
		ASSERT_EQ(0, pair_add(qpn));				\
		ASSERT_EQ(0, side_open(sa, env.a, entries, area))	\
			TH_LOG("%s: %m", env.a);			\
		ASSERT_EQ(0, side_open(sb, env.b, entries, area))	\
			TH_LOG("%s: %m", env.b);			\
		ASSERT_EQ(0, rclink_uctx_bind(&(sa)->c, qpn, 0))	\
			TH_LOG("bind: %m");				\
		ASSERT_EQ(0, rclink_uctx_bind(&(sb)->c, qpn, 0))	\
			TH_LOG("bind: %m");				\
	} while (0)


/*
 * lib/NAME ARGS (RCLINK_T1_LIB, set by t1_uctx.sh): its exit status (4:
 * it cannot reach BAR0, a skip), or -1 without the library
 */
static int __attribute__((format(printf, 2, 3)))
lib_run(const char *name, const char *fmt, ...)
{
	const char *lib = getenv("RCLINK_T1_LIB");
	char args[512];
	va_list ap;

	if (!lib || !*lib)
		return -1;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return sh("/usr/bin/python3 %s/%s %s", lib, name, args);
}

/*
 * DMAQ_CTX_RX_HOLD of board dev set to us; *old gets what it was.  0, or
 * KSFT_SKIP when BAR0 cannot be written, -1 on an error
 */
static int rx_hold_set(const char *dev, uint32_t us, uint32_t *old)
{
	const char *lib = getenv("RCLINK_T1_LIB");
	char cmd[512];
	unsigned long v;
	FILE *f;
	int st, n;

	if (!lib || !*lib)
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 %s/rclink_rx_hold.py %s %u 2>/dev/null",
		 lib, dev, us);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%lu", &v);
	st = pclose(f);
	if (WIFEXITED(st) && WEXITSTATUS(st) == KSFT_SKIP)
		return KSFT_SKIP;
	if (n != 1 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	*old = v;
	return 0;
}


/* Message seq of direction dir: its length and bytes */
static uint32_t msg_len(uint32_t dir, uint32_t seq)
{
	return 1 + (seq * 977u + dir * 131u) % MAX_LEN;
}

static void msg_fill(uint8_t *p, uint32_t dir, uint32_t seq, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seq * 31u + i * 7u + dir * 101u + (i >> 8));
}

static bool msg_ok(const uint8_t *p, uint32_t dir, uint32_t seq, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seq * 31u + i * 7u + dir * 101u + (i >> 8)))
			return false;
	return true;
}

/* One direction's progress */
struct flow {
	struct side *tx, *rx;
	uint32_t dir;
	uint32_t total;			/* messages to send */
	uint32_t sent, acked, recvd, posted;
	uint32_t errors;
};

/* Both sides' CQs carry SENDs of one flow and RECVs of the other */
static void side_poll(struct __test_metadata *_metadata, struct side *s,
		      struct flow *out, struct flow *in, uint32_t qpn,
		      bool *moved)
{
	struct rclink_wc wc;
	uint32_t slot, len;
	const uint8_t *p;

	while (rclink_poll_cq(&s->c, &wc, 1)) {
		*moved = true;
		if (wc.kind == RCLINK_WC_SEND) {
			if (wc.status != RCLINK_WC_OK ||
			    wc.len != msg_len(out->dir, out->acked)) {
				if (out->errors++ < 5)
					TH_LOG("dir %u SEND %u: status %u len %u",
					       out->dir, out->acked, wc.status,
					       wc.len);
			}
			out->acked++;
			continue;
		}
		len = msg_len(in->dir, in->recvd);
		slot = wc.idx % ENTRIES;
		p = rclink_uctx_area(&s->c, (uint64_t)slot * BUF);
		if (wc.kind != RCLINK_WC_RECV || wc.status != RCLINK_WC_OK ||
		    wc.qpn != qpn || !wc.first || !wc.last ||
		    wc.len != len || wc.msg_len != len ||
		    slot != in->recvd % ENTRIES ||
		    !msg_ok(p, in->dir, in->recvd, len)) {
			if (in->errors++ < 5)
				TH_LOG("dir %u RECV %u: kind %u status %u qpn %u len %u/%u (want %u) slot %u %s",
				       in->dir, in->recvd, wc.kind, wc.status,
				       wc.qpn, wc.len, wc.msg_len, len, slot,
				       msg_ok(p, in->dir, in->recvd, len) ?
				       "" : "bytes differ");
		}
		in->recvd++;
	}
}

static void flow_post(struct flow *f, uint32_t qpn)
{
	uint32_t len;

	while (f->posted - f->recvd < ENTRIES &&
	       !rclink_post_recv(&f->rx->c,
				 (uint64_t)(f->posted % ENTRIES) * BUF, BUF))
		f->posted++;
	rclink_uctx_doorbell(&f->rx->c);
	/*
	 * no message without a buffer posted for it: one that waits at the
	 * receiver for longer than its board's DMAQ_CTX_RX_HOLD fails the
	 * receiving context
	 */
	while (f->sent < f->total && f->sent - f->acked < ENTRIES &&
	       f->sent < f->posted) {
		uint64_t off = TX_BASE + (uint64_t)(f->sent % ENTRIES) * BUF;

		len = msg_len(f->dir, f->sent);
		msg_fill(rclink_uctx_area(&f->tx->c, off), f->dir, f->sent,
			 len);
		if (rclink_post_send(&f->tx->c, qpn, off, len, 0))
			break;
		f->sent++;
	}
	rclink_uctx_doorbell(&f->tx->c);
}

/*
 * n messages each way between contexts of A and B with QP qpn, of every
 * length up to MAX_LEN, checked byte by byte and in order
 */
static void flows(struct __test_metadata *_metadata, uint32_t qpn,
		  uint32_t n)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct flow ab = { .tx = &a, .rx = &b, .dir = 0, .total = n };
	struct flow ba = { .tx = &b, .rx = &a, .dir = 1, .total = n };
	double last;
	bool moved;

	PAIR_OPEN(&a, &b, qpn, ENTRIES, AREA);
	TH_LOG("contexts %u (A) and %u (B) of %u, %u messages each way",
	       a.c.id, b.c.id, a.c.create.ctx_num, n);

	last = now_s();
	while (ab.recvd < n || ba.recvd < n || ab.acked < n || ba.acked < n) {
		moved = false;
		flow_post(&ab, qpn);
		flow_post(&ba, qpn);
		side_poll(_metadata, &a, &ab, &ba, qpn, &moved);
		side_poll(_metadata, &b, &ba, &ab, qpn, &moved);
		if (moved)
			last = now_s();
		else if (now_s() - last > env.stall)
			break;
		else
			sched_yield();
	}
	EXPECT_EQ(n, ab.recvd);
	EXPECT_EQ(n, ba.recvd);
	EXPECT_EQ(n, ab.acked);
	EXPECT_EQ(n, ba.acked);
	EXPECT_EQ(0, ab.errors);
	EXPECT_EQ(0, ba.errors);
	EXPECT_FALSE(rclink_uctx_error(&a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&b.c, NULL));
	side_close(&a);
	side_close(&b);
	pair_del(qpn);
}

TEST(messages)
{
	NEED_BOARDS();
	flows(_metadata, QP_MSG, uctx_msgs);
}

TEST(quiet)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_wc wc;
	uint32_t i, idx0;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_QUIET));
	ASSERT_EQ(0, pair_add(QP_FOREIGN));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 16 * BUF));
	ASSERT_EQ(0, side_open(&b, env.b, 16, 16 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_QUIET, 0));
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, QP_QUIET, 0));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, rclink_post_recv(&b.c, (uint64_t)i * BUF, BUF));
	rclink_uctx_doorbell(&b.c);
	idx0 = a.c.sq_prod;
	for (i = 0; i < 8; i++) {
		msg_fill(rclink_uctx_area(&a.c, (8 + i) * BUF), 9, i, 100 + i);
		ASSERT_EQ(0, rclink_post_send(&a.c, QP_QUIET, (8 + i) * BUF,
					      100 + i,
					      i < 7 ? RCLINK_SEND_QUIET : 0));
	}
	rclink_uctx_doorbell(&a.c);
	for (i = 0; i < 8; i++) {
		ASSERT_TRUE(wait_wc(&b, &wc)) TH_LOG("message %u", i);
		EXPECT_EQ(RCLINK_WC_RECV, wc.kind);
		EXPECT_EQ(100 + i, wc.len);
		EXPECT_TRUE(msg_ok(rclink_uctx_area(&b.c, (uint64_t)i * BUF), 9,
				   i, 100 + i));
	}
	/* the signaled one's CQE, and no other */
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_SEND, wc.kind);
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	EXPECT_EQ(idx0 + 7, wc.idx);
	EXPECT_EQ(107, wc.len);
	usleep(100 * 1000);
	EXPECT_EQ(0, rclink_poll_cq(&a.c, &wc, 1)) TH_LOG("a CQE of a quiet SEND");

	/* a quiet SEND that fails: its CQE says so */
	ASSERT_EQ(0, rclink_post_send(&a.c, QP_FOREIGN, 0, 64,
				      RCLINK_SEND_QUIET));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_NOT_OWNER, wc.status);
	EXPECT_EQ(idx0 + 8, wc.idx);
	side_close(&a);
	side_close(&b);
	pair_del(QP_QUIET);
	pair_del(QP_FOREIGN);
}

/* The batch cursors fill the queues exactly to their room and no further */
TEST(cursors)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_post_cursor k;
	struct rclink_cq_cursor q;
	struct rclink_wc wc;
	uint32_t i, got, sends, idx0;
	double end;

	NEED_BOARDS();
	PAIR_OPEN(&a, &b, QP_CURSOR, 16, 32 * BUF);

	/* the whole RQ in one batch; then no room */
	k = rclink_rq_begin(&b.c);
	ASSERT_EQ(16, k.room);
	for (i = 0; k.room; i++)
		rclink_cursor_recv(&k, (uint64_t)i * BUF, BUF);
	rclink_rq_end(&b.c, &k);
	EXPECT_EQ(16, i);
	EXPECT_EQ(-1, rclink_post_recv(&b.c, 0, BUF));
	EXPECT_EQ(EAGAIN, errno);
	rclink_uctx_doorbell(&b.c);

	/* the whole SQ in one batch, every SEND signaled */
	idx0 = a.c.sq_prod;
	k = rclink_sq_begin(&a.c);
	ASSERT_EQ(16, k.room);
	for (i = 0; k.room; i++) {
		msg_fill(rclink_uctx_area(&a.c, (16 + i) * BUF), 7, i, 64 + i);
		rclink_cursor_send(&k, QP_CURSOR, (16 + i) * BUF, 64 + i, 0);
	}
	rclink_sq_end(&a.c, &k);
	EXPECT_EQ(idx0 + 16, a.c.sq_prod);
	EXPECT_EQ(-1, rclink_post_send(&a.c, QP_CURSOR, 16 * BUF, 64, 0));
	EXPECT_EQ(EAGAIN, errno);
	rclink_uctx_doorbell(&a.c);

	/* reaped through the CQ cursor, in order, with the right bytes */
	end = now_s() + env.stall;
	for (got = 0; got < 16 && now_s() < end;) {
		q = rclink_cq_begin(&b.c);
		while (got < 16 && rclink_cq_cursor_next(&q, &wc)) {
			EXPECT_EQ(RCLINK_WC_RECV, wc.kind);
			EXPECT_EQ(RCLINK_WC_OK, wc.status);
			EXPECT_EQ(64 + got, wc.len);
			EXPECT_EQ(got, wc.idx % 16);
			EXPECT_TRUE(msg_ok(rclink_uctx_area(&b.c,
							    (uint64_t)got * BUF),
					   7, got, 64 + got));
			got++;
		}
		rclink_cq_end(&b.c, &q);
		sched_yield();
	}
	EXPECT_EQ(16, got);
	EXPECT_EQ(b.c.cq_cons, b.c.cq_rung) TH_LOG("the CQ doorbell was not rung");

	/* the 16 SEND completions; then the SQ and RQ have their room back */
	for (sends = 0; sends < 16 && wait_wc(&a, &wc); sends++) {
		EXPECT_EQ(RCLINK_WC_SEND, wc.kind);
		EXPECT_EQ(RCLINK_WC_OK, wc.status);
		EXPECT_EQ(idx0 + sends, wc.idx);
	}
	EXPECT_EQ(16, sends);
	end = now_s() + env.stall;
	while (rclink_sq_begin(&a.c).room != 16 && now_s() < end)
		sched_yield();
	EXPECT_EQ(16, rclink_sq_begin(&a.c).room);
	EXPECT_EQ(16, rclink_rq_begin(&b.c).room);
	EXPECT_FALSE(rclink_uctx_error(&a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&b.c, NULL));
	side_close(&a);
	side_close(&b);
	pair_del(QP_CURSOR);
}

TEST(not_owner)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_ctx_events ev;
	struct rclink_wc wc;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_OWN));
	ASSERT_EQ(0, pair_add(QP_FOREIGN));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 16 * BUF));
	ASSERT_EQ(0, side_open(&b, env.b, 16, 16 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_OWN, 0));
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, QP_OWN, 0));
	/* a QP a context has already: taken, not shared */
	EXPECT_EQ(-1, rclink_uctx_bind(&b.c, QP_OWN, 0));
	EXPECT_EQ(EBUSY, errno);

	/* QP_FOREIGN exists but is not the context's */
	ASSERT_EQ(0, rclink_post_send(&a.c, QP_FOREIGN, 0, 64, 0));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_NOT_OWNER, wc.status);
	EXPECT_EQ(QP_FOREIGN, wc.qpn);

	/* the context goes on: a message on its own QP */
	ASSERT_EQ(0, rclink_post_recv(&b.c, 0, BUF));
	rclink_uctx_doorbell(&b.c);
	msg_fill(rclink_uctx_area(&a.c, BUF), 7, 7, 100);
	ASSERT_EQ(0, rclink_post_send(&a.c, QP_OWN, BUF, 100, 0));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&b, &wc));
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	EXPECT_EQ(100, wc.len);
	EXPECT_TRUE(msg_ok(rclink_uctx_area(&b.c, 0), 7, 7, 100));
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_SEND, wc.kind);
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	ASSERT_EQ(0, rclink_uctx_events(&a.c, &ev));
	EXPECT_EQ(RCLINK_CTX_STATE_RUNNING, ev.state);
	side_close(&a);
	side_close(&b);
	pair_del(QP_OWN);
	pair_del(QP_FOREIGN);
}

/* The JSON value of "name" starts with @want */
static bool jis(const char *obj, const char *name, const char *want)
{
	const char *v = jval(obj, name);

	return v && !strncmp(v, want, strlen(want));
}

/* EPOLLERR of the context's file, then its cause */
static void expect_error(struct __test_metadata *_metadata, struct side *s,
			 uint32_t cause)
{
	struct rclink_ctx_events ev;
	uint32_t rec_cause = 0;

	ASSERT_TRUE(side_wait_error(s, &rec_cause));
	EXPECT_EQ(cause, rec_cause);
	/* a sleep for events returns at once: the context is in error */
	ASSERT_EQ(0, rclink_uctx_wait_events(&s->c, &ev, env.stall * 1000));
	EXPECT_EQ(RCLINK_CTX_STATE_ERROR, ev.state);
	EXPECT_EQ(cause, ev.cause);
	TH_LOG("context %u: cause %u, info 0x%" PRIx64, s->c.id, ev.cause,
	       (uint64_t)ev.err_info);
}

TEST(bad_addr)
{
	struct side a = { .fd = -1 };
	struct rclink_wc wc;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_ADDR));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 4 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_ADDR, 0));
	/* 100 bytes from 16 before the end of the area */
	ASSERT_EQ(0, rclink_post_send(&a.c, QP_ADDR, 4 * BUF - 16, 100, 0));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_BAD_ADDR, wc.status);
	expect_error(_metadata, &a, RCLINK_CTX_EVT_CAUSE_BAD_ADDR);
	/* in error: no further QP */
	EXPECT_EQ(-1, rclink_uctx_bind(&a.c, QP_ADDR + 100, 0));
	side_close(&a);
	pair_del(QP_ADDR);
}

TEST(ctx_show)
{
	struct side a = { .fd = -1 };
	char out[8192], obj[2048], want[32];
	struct rclink_wc wc;
	uint32_t id;
	int i;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_OWN));
	ASSERT_EQ(0, pair_add(QP_FOREIGN));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 4 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_OWN, 0));
	id = a.c.id;
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rclink_post_send(&a.c, QP_FOREIGN, 0, 64, 0));
		rclink_uctx_doorbell(&a.c);
		ASSERT_TRUE(wait_wc(&a, &wc));
		EXPECT_EQ(RCLINK_WC_NOT_OWNER, wc.status);
	}

	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j ctx show dev %s",
			      env.tool, env.a));
	ASSERT_TRUE(json_obj(out, "id", id, obj, sizeof(obj))) TH_LOG("%s", out);
	EXPECT_EQ(getpid(), jnum(obj, "pid"));
	EXPECT_TRUE(jis(obj, "state", "\"running\"")) TH_LOG("%s", obj);
	snprintf(want, sizeof(want), "[%u]", QP_OWN);
	EXPECT_TRUE(jis(obj, "qpns", want)) TH_LOG("%s", obj);
	EXPECT_TRUE(jis(obj, "groups", "[]")) TH_LOG("%s", obj);
	EXPECT_EQ(16, jnum(obj, "sq_entries"));
	EXPECT_EQ(16, jnum(obj, "rq_entries"));
	EXPECT_EQ(64, jnum(obj, "cq_entries"));
	EXPECT_EQ(4 * BUF, jnum(obj, "area_size"));
	EXPECT_EQ(2, jnum(obj, "not_owner"));
	EXPECT_EQ(0, jnum(obj, "rx_nobuf"));
	EXPECT_EQ(-1, jnum(obj, "cause")) TH_LOG("running: no cause");
	/* one by number */
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j ctx show dev %s id %u",
			      env.tool, env.a, id));
	EXPECT_TRUE(json_obj(out, "id", id, obj, sizeof(obj))) TH_LOG("%s", out);

	/* in error: the cause the process is told */
	ASSERT_EQ(0, rclink_post_send(&a.c, QP_OWN, 4 * BUF - 16, 100, 0));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_BAD_ADDR, wc.status);
	expect_error(_metadata, &a, RCLINK_CTX_EVT_CAUSE_BAD_ADDR);
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j ctx show dev %s id %u",
			      env.tool, env.a, id));
	ASSERT_TRUE(json_obj(out, "id", id, obj, sizeof(obj))) TH_LOG("%s", out);
	EXPECT_TRUE(jis(obj, "state", "\"error\"")) TH_LOG("%s", obj);
	EXPECT_EQ(RCLINK_CTX_EVT_CAUSE_BAD_ADDR, jnum(obj, "cause"));

	/* closed: gone */
	side_close(&a);
	EXPECT_NE(0, tool_out(out, sizeof(out), "%s -j ctx show dev %s id %u",
			      env.tool, env.a, id));
	ASSERT_EQ(0, tool_out(out, sizeof(out), "%s -j ctx show dev %s",
			      env.tool, env.a));
	EXPECT_FALSE(json_obj(out, "id", id, obj, sizeof(obj))) TH_LOG("%s", out);
	pair_del(QP_OWN);
	pair_del(QP_FOREIGN);
}

/* A WQE lying about its length (0 bytes) on an owned QP: BAD_WQE */
TEST(bad_wqe)
{
	struct side a = { .fd = -1 };
	struct rclink_wc wc;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_ADDR));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 4 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_ADDR, 0));
	ASSERT_EQ(0, rclink_post_send(&a.c, QP_ADDR, 0, 0, 0));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_BAD_WQE, wc.status);
	expect_error(_metadata, &a, RCLINK_CTX_EVT_CAUSE_BAD_WQE);
	side_close(&a);
	pair_del(QP_ADDR);
}

TEST(doorbell)
{
	struct side a = { .fd = -1 };

	NEED_BOARDS();
	ASSERT_EQ(0, side_open(&a, env.a, 16, BUF));
	/* 17 WQEs posted in a ring of 16, by the doorbell's word */
	rclink_uctx_db_write(&a.c, RCLINK_U_DB_SQ_PROD, 17);
	expect_error(_metadata, &a, RCLINK_CTX_EVT_CAUSE_DOORBELL);
	side_close(&a);
}

static int memlock_child(void)
{
	struct rlimit rl = { 64 << 10, 64 << 10 };
	struct side s = { .fd = -1 };
	long before, during, after;

	if (drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	before = vm_locked_kb();
	/* 1 MiB of area over a 64 KiB limit */
	if (!side_open(&s, env.a, 16, 1 << 20))
		return 11;
	if (errno != ENOMEM)
		return 12;
	/* 16-entry queues, record, table, one page of area: 6 pages */
	if (side_open(&s, env.a, 16, BUF))
		return 13;
	during = vm_locked_kb();
	if (during - before != 6 * (long)sysconf(_SC_PAGESIZE) / 1024)
		return 14;
	side_close(&s);
	after = vm_locked_kb();
	if (after != before)
		return 15;
	return 0;
}

TEST(memlock)
{
	int st;
	pid_t pid;

	NEED_BOARDS();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(memlock_child());
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	/* 10 capset, 11 not refused, 12 another errno, 13 a small one refused,
	 * 14 VmLck not its pages, 15 VmLck not back after close
	 */
	EXPECT_EQ(0, WEXITSTATUS(st));
}

static void send_one(struct __test_metadata *_metadata, struct side *tx,
		     uint32_t qpn, uint32_t seq)
{
	struct rclink_wc wc;

	msg_fill(rclink_uctx_area(&tx->c, BUF), 3, seq, 64);
	ASSERT_EQ(0, rclink_post_send(&tx->c, qpn, BUF, 64, 0));
	rclink_uctx_doorbell(&tx->c);
	ASSERT_TRUE(wait_wc(tx, &wc));
	ASSERT_EQ(RCLINK_WC_OK, wc.status);
}

TEST(armed_cq)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct epoll_event e = { .events = EPOLLIN }, got;
	struct rclink_ctx_events ev;
	struct rclink_wc wc;
	double t0;
	int ep;

	NEED_BOARDS();
	PAIR_OPEN(&a, &b, QP_ARM, 16, 4 * BUF);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, b.fd, &e));
	ASSERT_EQ(0, rclink_post_recv(&b.c, 0, BUF));
	ASSERT_EQ(0, rclink_post_recv(&b.c, BUF, BUF));
	ASSERT_EQ(0, rclink_post_recv(&b.c, 2 * BUF, BUF));
	rclink_uctx_doorbell(&b.c);

	/* armed, nothing arrived: nothing to report */
	rclink_arm_cq(&b.c);
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0));
	send_one(_metadata, &a, QP_ARM, 1);
	ASSERT_EQ(1, epoll_wait(ep, &got, 1, env.stall * 1000));
	EXPECT_TRUE(got.events & EPOLLIN);
	EXPECT_FALSE(got.events & EPOLLERR);
	ASSERT_TRUE(wait_wc(&b, &wc));
	EXPECT_EQ(RCLINK_WC_RECV, wc.kind);
	ASSERT_EQ(0, rclink_uctx_events(&b.c, &ev));
	EXPECT_EQ(1, ev.events);
	/* reported: readable no more */
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0));

	/* one shot: the next message, not armed, posts no event ... */
	send_one(_metadata, &a, QP_ARM, 2);
	ASSERT_TRUE(wait_wc(&b, &wc));
	/* ... and an arming after it waits for the third */
	rclink_arm_cq(&b.c);
	send_one(_metadata, &a, QP_ARM, 3);
	ASSERT_EQ(1, epoll_wait(ep, &got, 1, env.stall * 1000));
	ASSERT_EQ(0, rclink_uctx_events(&b.c, &ev));
	EXPECT_EQ(1, ev.events);
	EXPECT_EQ(RCLINK_CTX_STATE_RUNNING, ev.state);
	ASSERT_TRUE(wait_wc(&b, &wc));

	/* one call sleeps and takes the event: nothing yet, the timeout */
	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	ev.flags = RCLINK_CTX_EVENTS_WAIT;
	ev.timeout_ms = 100;
	t0 = now_s();
	ASSERT_EQ(0, ioctl(b.fd, RCLINK_IOC_CTX_EVENTS, &ev));
	EXPECT_EQ(0, ev.events);
	EXPECT_LE(0.09, now_s() - t0) TH_LOG("returned before its timeout");
	EXPECT_EQ(RCLINK_CTX_STATE_RUNNING, ev.state);
	/* armed: the next message ends the sleep */
	ASSERT_EQ(0, rclink_post_recv(&b.c, 3 * BUF, BUF));
	rclink_uctx_doorbell(&b.c);
	rclink_arm_cq(&b.c);
	send_one(_metadata, &a, QP_ARM, 4);
	ASSERT_EQ(0, rclink_uctx_wait_events(&b.c, &ev, env.stall * 1000));
	EXPECT_EQ(1, ev.events);
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0)) TH_LOG("taken: not readable");
	ASSERT_TRUE(wait_wc(&b, &wc));
	/* unknown flags; the counters in a struct of the first size */
	ev.flags = 4;
	EXPECT_EQ(-1, ioctl(b.fd, RCLINK_IOC_CTX_EVENTS, &ev));
	EXPECT_EQ(EINVAL, errno);
	ev.flags = RCLINK_CTX_EVENTS_COUNTERS;
	ev.size = RCLINK_CTX_EVENTS_SIZE_VER0;
	EXPECT_EQ(-1, ioctl(b.fd, RCLINK_IOC_CTX_EVENTS, &ev));
	EXPECT_EQ(EINVAL, errno);
	ev.flags = 0;
	EXPECT_EQ(0, ioctl(b.fd, RCLINK_IOC_CTX_EVENTS, &ev)) TH_LOG("VER0");
	close(ep);
	side_close(&a);
	side_close(&b);
	pair_del(QP_ARM);
}

/*
 * An epoll that took the file before the context existed: it keeps the
 * wait queues the file gave it then, and still sees the armed CQ's event
 */
TEST(epoll_before_ctx)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct epoll_event e = { .events = EPOLLIN }, got;
	struct rclink_uctx_attr attr = {
		.sq_entries = 16, .rq_entries = 16,
		.cq_entries = 64, .area_size = 4 * BUF,
	};
	struct rclink_wc wc;
	int ep;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_ARM));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 4 * BUF));
	b.fd = dev_open(env.b);
	ASSERT_LE(0, b.fd);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, b.fd, &e));
	ASSERT_EQ(0, rclink_uctx_open(&b.c, b.fd, &attr));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_ARM, 0));
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, QP_ARM, 0));
	ASSERT_EQ(0, rclink_post_recv(&b.c, 0, BUF));
	rclink_uctx_doorbell(&b.c);
	rclink_arm_cq(&b.c);
	EXPECT_EQ(0, epoll_wait(ep, &got, 1, 0));
	send_one(_metadata, &a, QP_ARM, 1);
	ASSERT_EQ(1, epoll_wait(ep, &got, 1, env.stall * 1000));
	EXPECT_TRUE(got.events & EPOLLIN);
	EXPECT_FALSE(got.events & EPOLLERR);
	ASSERT_TRUE(wait_wc(&b, &wc));
	EXPECT_EQ(RCLINK_WC_RECV, wc.kind);
	close(ep);
	side_close(&a);
	side_close(&b);
	pair_del(QP_ARM);
}

/* TYPE2: group 5 given to a context on each board; MCAST A -> B */
/* Wait (env.stall) until the context's rx_nobuf counter reaches want */
static bool wait_rx_nobuf(struct side *s, uint64_t want)
{
	time_t end = time(NULL) + env.stall;
	struct rclink_ctx_events ev;

	do {
		if (rclink_uctx_counters(&s->c, &ev))
			return false;
		if (ev.rx_nobuf >= want)
			return true;
		usleep(1000);
	} while (time(NULL) < end);
	return false;
}

TEST(mcast_group)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_ctx_events ev;
	const uint32_t grp = 5;
	struct rclink_bind bb = { .size = sizeof(bb), .qpn = grp,
				  .flags = RCLINK_BIND_MCAST };
	struct rclink_wc wc;
	int fd;

	NEED_BOARDS();
	ASSERT_EQ(0, sh("%s mcast set dev %s group %u join on", env.tool,
			env.b, grp));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 4 * BUF));
	ASSERT_EQ(0, side_open(&b, env.b, 16, 4 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, grp, RCLINK_BIND_MCAST));
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, grp, RCLINK_BIND_MCAST));
	/* a file cannot take the context's group */
	fd = dev_open(env.b);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_BIND, &bb));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	ASSERT_EQ(0, rclink_post_recv(&b.c, 0, BUF));
	rclink_uctx_doorbell(&b.c);
	msg_fill(rclink_uctx_area(&a.c, BUF), 9, 9, 200);
	ASSERT_EQ(0, rclink_post_send(&a.c, grp, BUF, 200, RCLINK_SEND_MCAST));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_SEND_MCAST, wc.kind);
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	ASSERT_TRUE(wait_wc(&b, &wc));
	EXPECT_EQ(RCLINK_WC_RECV_MCAST, wc.kind);
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	EXPECT_EQ(grp, wc.qpn);
	EXPECT_EQ(200, wc.len);
	EXPECT_TRUE(msg_ok(rclink_uctx_area(&b.c, 0), 9, 9, 200));
	/* no buffer posted: B drops the next one, counts it, runs on */
	ASSERT_EQ(0, rclink_post_send(&a.c, grp, BUF, 200, RCLINK_SEND_MCAST));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	ASSERT_TRUE(wait_rx_nobuf(&b, 1));
	ASSERT_EQ(0, rclink_uctx_counters(&b.c, &ev));
	EXPECT_EQ(RCLINK_CTX_STATE_RUNNING, ev.state);
	EXPECT_EQ(0, ev.not_owner);
	ASSERT_EQ(0, rclink_post_recv(&b.c, 0, BUF));
	rclink_uctx_doorbell(&b.c);
	msg_fill(rclink_uctx_area(&a.c, BUF), 10, 10, 300);
	ASSERT_EQ(0, rclink_post_send(&a.c, grp, BUF, 300, RCLINK_SEND_MCAST));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	ASSERT_TRUE(wait_wc(&b, &wc));
	EXPECT_EQ(300, wc.len);
	EXPECT_TRUE(msg_ok(rclink_uctx_area(&b.c, 0), 10, 10, 300));
	/* a group A's context was not given: NOT_OWNER */
	ASSERT_EQ(0, rclink_post_send(&a.c, grp + 1, BUF, 200,
				      RCLINK_SEND_MCAST));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_NOT_OWNER, wc.status);
	ASSERT_EQ(0, rclink_uctx_counters(&a.c, &ev));
	EXPECT_EQ(1, ev.not_owner);
	EXPECT_EQ(0, ev.rx_nobuf);
	side_close(&a);
	side_close(&b);
	sh("%s mcast set dev %s group %u join off", env.tool, env.b, grp);
}

static sigjmp_buf fault_jmp;

static void on_fault(int sig)
{
	siglongjmp(fault_jmp, sig);
}

/* A store to p: 0, or the signal it raised */
static int store_sig(volatile uint32_t *p, uint32_t v)
{
	struct sigaction sa = { .sa_handler = on_fault }, ob, os;
	int sig;

	sigaction(SIGBUS, &sa, &ob);
	sigaction(SIGSEGV, &sa, &os);
	sig = sigsetjmp(fault_jmp, 1);
	if (!sig)
		*p = v;
	sigaction(SIGBUS, &ob, NULL);
	sigaction(SIGSEGV, &os, NULL);
	return sig;
}

TEST(fork_child)
{
	struct side a = { .fd = -1 };
	int st;
	pid_t pid;

	NEED_BOARDS();
	ASSERT_EQ(0, side_open(&a, env.a, 16, BUF));
	/* the parent's doorbell page is in, and works */
	rclink_arm_cq(&a.c);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* none of the context's mappings is inherited */
		close(a.fd);
		_exit(store_sig((volatile uint32_t *)(a.c.db +
						      RCLINK_U_DB_SQ_PROD),
				17) == SIGSEGV &&
		      store_sig((volatile uint32_t *)a.c.area, 1) == SIGSEGV ?
		      0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	/* the child rang nothing: the parent's context still runs */
	EXPECT_FALSE(rclink_uctx_error(&a.c, NULL));
	side_close(&a);
}

/*
 * Close with messages in flight after unmapping everything: the kernel
 * stops the context before the pages go; the board is unhurt.
 */
TEST(unmap_busy)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 }, c = { .fd = -1 };
	struct rclink_wc wc;
	uint32_t i;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_FLR));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 16 * BUF));
	ASSERT_EQ(0, side_open(&b, env.b, 16, 16 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_FLR, 0));
	/*
	 * B's context has the QP and no buffer: A's messages wait (the first
	 * at B for its DMAQ_CTX_RX_HOLD, the others RNR; then B's context is
	 * in error)
	 */
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, QP_FLR, 0));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, rclink_post_send(&a.c, QP_FLR, i * BUF, 1000, 0));
	rclink_uctx_doorbell(&a.c);
	rclink_uctx_close(&a.c);	/* every mapping, then the file */
	close(a.fd);
	side_close(&b);
	pair_del(QP_FLR);

	/* the board's contexts work on */
	ASSERT_EQ(0, pair_add(QP_FLR));
	ASSERT_EQ(0, side_open(&c, env.a, 16, 16 * BUF));
	ASSERT_EQ(0, side_open(&b, env.b, 16, 16 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&c.c, QP_FLR, 0));
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, QP_FLR, 0));
	ASSERT_EQ(0, rclink_post_recv(&b.c, 0, BUF));
	rclink_uctx_doorbell(&b.c);
	msg_fill(rclink_uctx_area(&c.c, BUF), 5, 5, 300);
	ASSERT_EQ(0, rclink_post_send(&c.c, QP_FLR, BUF, 300, 0));
	rclink_uctx_doorbell(&c.c);
	ASSERT_TRUE(wait_wc(&b, &wc));
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	EXPECT_EQ(300, wc.len);
	EXPECT_TRUE(msg_ok(rclink_uctx_area(&b.c, 0), 5, 5, 300));
	side_close(&c);
	side_close(&b);
	pair_del(QP_FLR);
}

/* messages every board's send engine reads from an SQ at once */
#define EXIT_MSGS_HELD	4

/* The SQ consumer index of the doorbell record reaches n (or passes it) */
static bool sq_read(struct side *s, uint32_t n)
{
	double end = now_s() + env.stall;

	while ((int32_t)(rclink_load_acquire32(&s->c.dbrec[0], 0) - n) < 0) {
		if (now_s() > end)
			return false;
		sched_yield();
	}
	return true;
}

/* `rclink qp show` of the board's QP_EXIT says fatal */
static bool exit_qp_fatal(const char *dev)
{
	return !sh("%s qp show dev %s qpn %u | grep -qw fatal", env.tool, dev,
		   QP_EXIT);
}

/*
 * One message each way between a and b on QP_EXIT (receive buffer at 0,
 * send slot at BUF): each side sees its SEND and its RECV complete OK,
 * the bytes right
 */
static void exchange(struct __test_metadata *_metadata, struct side *a,
		     struct side *b, uint32_t seq)
{
	struct side *s[2] = { a, b };
	struct rclink_wc wc;
	uint32_t i, n, len;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rclink_post_recv(&s[i]->c, 0, BUF));
		rclink_uctx_doorbell(&s[i]->c);
	}
	for (i = 0; i < 2; i++) {
		len = 100 + 200 * i;
		msg_fill(rclink_uctx_area(&s[i]->c, BUF), i, seq, len);
		ASSERT_EQ(0, rclink_post_send(&s[i]->c, QP_EXIT, BUF, len, 0));
		rclink_uctx_doorbell(&s[i]->c);
	}
	for (i = 0; i < 2; i++) {
		len = 100 + 200 * !i;	/* what the other side sent */
		for (n = 0; n < 2; n++) {
			ASSERT_TRUE(wait_wc(s[i], &wc))
				TH_LOG("side %u, message %u: no completion",
				       i, seq);
			EXPECT_EQ(RCLINK_WC_OK, wc.status)
				TH_LOG("side %u, message %u: kind %u", i, seq,
				       wc.kind);
			if (wc.kind != RCLINK_WC_RECV)
				continue;
			EXPECT_EQ(len, wc.len);
			EXPECT_TRUE(msg_ok(rclink_uctx_area(&s[i]->c, 0), !i,
					   seq, len));
		}
	}
}

static int exit_side(struct side *s)
{
	if (side_open(s, env.a, 16, 16 * BUF))
		return -1;
	return rclink_uctx_bind(&s->c, QP_EXIT, 0);
}

/*
 * A's context ends, first with nothing in flight: the QP goes on with the
 * next context.  Then with messages in flight (A's wire loses them): the
 * board dropped them unacknowledged, so the QP comes back
 * fatal and disabled; a context bound to it gets FLUSHED; re-armed with
 * both PSNs (the peer's set to match) it carries traffic again, with B's
 * context bound all along.
 */
TEST_SLOW(exit_busy_qp)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_wc wc = { 0 };
	uint32_t i, base;
	int r;

	NEED_BOARDS();
	ASSERT_EQ(0, pair_add(QP_EXIT));
	ASSERT_EQ(0, exit_side(&a)) TH_LOG("%s: %m", env.a);
	ASSERT_EQ(0, side_open(&b, env.b, 16, 16 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, QP_EXIT, 0));
	exchange(_metadata, &a, &b, 1);

	/* a clean exit costs nothing */
	side_close(&a);
	EXPECT_FALSE(exit_qp_fatal(env.a));
	ASSERT_EQ(0, exit_side(&a));
	exchange(_metadata, &a, &b, 2);

	/*
	 * an exit with messages in flight: A's frames lost on the wire (B's
	 * context without a buffer would hold one of them only for its
	 * DMAQ_CTX_RX_HOLD, then go into error)
	 */
	r = lib_run("rclink_wire.py", "%s seed=1 loss=1000000", env.a);
	if (r == KSFT_SKIP) {
		side_close(&a);
		side_close(&b);
		pair_del(QP_EXIT);
		SKIP(return, "no wire hooks on %s", env.a);
	}
	ASSERT_EQ(0, r);
	base = rclink_load_acquire32(&a.c.dbrec[0], 0);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, rclink_post_send(&a.c, QP_EXIT, i * BUF, 1000, 0));
	rclink_uctx_doorbell(&a.c);
	/*
	 * the model reads all 8 at once; the RTL's send engine holds
	 * EXIT_MSGS_HELD messages at a time (rclink_sq MSGS): either way
	 * those first ones are out, waiting for B's buffer
	 */
	ASSERT_TRUE(sq_read(&a, base + EXIT_MSGS_HELD));
	side_close(&a);
	EXPECT_EQ(0, lib_run("rclink_wire.py", "%s off", env.a));
	EXPECT_TRUE(exit_qp_fatal(env.a));
	EXPECT_FALSE(exit_qp_fatal(env.b));

	/* bound to the fatal QP, a context's message is not sent */
	ASSERT_EQ(0, exit_side(&a));
	ASSERT_EQ(0, rclink_post_send(&a.c, QP_EXIT, BUF, 100, 0));
	rclink_uctx_doorbell(&a.c);
	ASSERT_TRUE(wait_wc(&a, &wc));
	EXPECT_EQ(RCLINK_WC_FLUSHED, wc.status);
	side_close(&a);

	/* the re-arm needs both PSNs, then the pair works again */
	EXPECT_NE(0, sh("%s qp set dev %s qpn %u state ready", env.tool, env.a,
			QP_EXIT));
	EXPECT_TRUE(exit_qp_fatal(env.a));
	ASSERT_EQ(0, sh("%s qp set dev %s qpn %u state ready sq_psn 300 rq_psn 700",
			env.tool, env.a, QP_EXIT));
	ASSERT_EQ(0, sh("%s qp set dev %s qpn %u sq_psn 700 rq_psn 300",
			env.tool, env.b, QP_EXIT));
	EXPECT_FALSE(exit_qp_fatal(env.a));
	ASSERT_EQ(0, exit_side(&a));
	exchange(_metadata, &a, &b, 3);
	EXPECT_FALSE(rclink_uctx_error(&a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&b.c, NULL));
	side_close(&a);
	side_close(&b);
	pair_del(QP_EXIT);
}

/*
 * QP_HOLD between a context on A and one on B (no buffer posted); A sends
 * len bytes (message seq of direction seq): true once A's SEND completed
 * OK, as B's board acknowledged it
 */
static bool hold_send(struct __test_metadata *_metadata, struct side *a,
		      struct side *b, uint32_t seq, uint32_t len)
{
	struct rclink_wc wc = { 0 };

	if (pair_add(QP_HOLD) || side_open(a, env.a, 16, 4 * BUF) ||
	    side_open(b, env.b, 16, 4 * BUF) ||
	    rclink_uctx_bind(&a->c, QP_HOLD, 0) ||
	    rclink_uctx_bind(&b->c, QP_HOLD, 0)) {
		TH_LOG("QP %u between two contexts: %m", QP_HOLD);
		return false;
	}
	msg_fill(rclink_uctx_area(&a->c, BUF), seq, seq, len);
	if (rclink_post_send(&a->c, QP_HOLD, BUF, len, 0))
		return false;
	rclink_uctx_doorbell(&a->c);
	if (!wait_wc(a, &wc)) {
		TH_LOG("A's SEND did not complete");
		return false;
	}
	EXPECT_EQ(RCLINK_WC_SEND, wc.kind);
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	return wc.kind == RCLINK_WC_SEND && wc.status == RCLINK_WC_OK;
}

#define RX_HOLD_LONG	60000000u	/* us: longer than any test step */
#define RX_HOLD_SHORT	1000u

/*
 * B's context has QP_HOLD and no buffer: A's message waits at B (its
 * board acknowledged it: A's SEND completes OK) until B posts one
 */
TEST(rx_hold_posted)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_wc wc;
	uint32_t old = 0;
	bool ok;
	int r;

	NEED_BOARDS();
	r = rx_hold_set(env.b, RX_HOLD_LONG, &old);
	if (r == KSFT_SKIP)
		SKIP(return, "cannot write DMAQ_CTX_RX_HOLD of %s (boot with iomem=relaxed)",
		     env.b);
	ASSERT_EQ(0, r);
	/* (the board's hold goes back whatever happens below) */
	ok = hold_send(_metadata, &a, &b, 7, 500);
	EXPECT_TRUE(ok);
	/* it waits at B: longer than the default hold, without an error */
	if (ok)
		usleep(200000);
	EXPECT_FALSE(ok && rclink_poll_cq(&b.c, &wc, 1));
	EXPECT_FALSE(ok && rclink_uctx_error(&b.c, NULL));
	EXPECT_EQ(0, ok ? rclink_post_recv(&b.c, 0, BUF) : -1);
	if (ok)
		rclink_uctx_doorbell(&b.c);
	memset(&wc, 0, sizeof(wc));
	EXPECT_TRUE(ok && wait_wc(&b, &wc))
		TH_LOG("the waiting message did not land");
	EXPECT_EQ(RCLINK_WC_RECV, wc.kind);
	EXPECT_EQ(RCLINK_WC_OK, wc.status);
	EXPECT_EQ(QP_HOLD, wc.qpn);
	EXPECT_EQ(500, wc.len);
	EXPECT_TRUE(ok && msg_ok(rclink_uctx_area(&b.c, 0), 7, 7, 500));
	EXPECT_FALSE(ok && rclink_uctx_error(&b.c, NULL));
	side_close(&a);
	side_close(&b);
	pair_del(QP_HOLD);
	EXPECT_EQ(0, rx_hold_set(env.b, old, &old));
}

/*
 * B's context never posts a buffer: the message is dropped after the hold
 * time and B's context is in error (RX_NOBUF, the QP), although A's SEND
 * completed OK
 */
TEST_SLOW(rx_hold_never)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_ctx_events ev;
	struct rclink_wc wc;
	uint32_t old = 0;
	int r;

	NEED_BOARDS();
	/* 1 ms rather than whatever the board has, where BAR0 can be written */
	r = rx_hold_set(env.b, RX_HOLD_SHORT, &old);
	ASSERT_TRUE(r == 0 || r == KSFT_SKIP);
	if (hold_send(_metadata, &a, &b, 8, 300)) {
		expect_error(_metadata, &b, RCLINK_CTX_EVT_CAUSE_RX_NOBUF);
		EXPECT_EQ(0, rclink_uctx_events(&b.c, &ev));
		EXPECT_EQ(QP_HOLD, ev.err_info);
		EXPECT_FALSE(rclink_poll_cq(&b.c, &wc, 1));
		/* only B's context is hurt */
		EXPECT_FALSE(rclink_uctx_error(&a.c, NULL));
	} else {
		EXPECT_TRUE(false) TH_LOG("no message sent");
	}
	side_close(&a);
	side_close(&b);
	pair_del(QP_HOLD);
	if (!r)
		EXPECT_EQ(0, rx_hold_set(env.b, old, &old));
}

#define MAX_CTX	1024

TEST(many)
{
	static struct side s[MAX_CTX + 1];
	uint32_t n, round, i, num = 0;
	bool seen[MAX_CTX + 1];

	NEED_BOARDS();
	for (round = 0; round < 2; round++) {
		memset(seen, 0, sizeof(seen));
		for (n = 0; n <= MAX_CTX; n++) {
			if (side_open(&s[n], env.a, 16, BUF))
				break;
			num = s[n].c.create.ctx_num;
			EXPECT_LE(1, s[n].c.id);
			EXPECT_GE(num, s[n].c.id);
			if (s[n].c.id <= MAX_CTX) {
				EXPECT_FALSE(seen[s[n].c.id]);
				seen[s[n].c.id] = true;
			}
		}
		/* every context the board has, then none */
		EXPECT_EQ(EBUSY, errno);
		EXPECT_EQ(num, n);
		TH_LOG("round %u: %u contexts", round, n);
		for (i = 0; i < n; i++)
			side_close(&s[i]);
	}
}

/* ---- faults of board A with a context busy ---------------------------- */

static int sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = -errno;
	close(fd);
	return err;
}

/* A's PCI address, from its class device */
static bool a_bdf(char *bdf, size_t len)
{
	char path[256], link[256];
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "/sys/class/rclink/%s/device", env.a);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = 0;
	p = strrchr(link, '/');
	snprintf(bdf, len, "%s", p ? p + 1 : link);
	return true;
}

/* 0 done, 1 skip (the message in why), -1 failed (why) */
typedef int (*fault_fn)(const char *bdf, char *why, size_t len);

static int fault_flr(const char *bdf, char *why, size_t len)
{
	char path[256];
	int err;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset", bdf);
	if (access(path, W_OK)) {
		snprintf(why, len, "no function reset for %s", bdf);
		return 1;
	}
	err = sysfs_write(path, "1");
	snprintf(why, len, "reset: %s", strerror(-err));
	return err ? -1 : 0;
}

/*
 * An uncorrectable non-fatal error (a completion timeout) through
 * aer_inject, as pci_faults.py injects it: error_detected, slot_reset,
 * resume.  Needs the board behind a root port (RCLINK_BOARDS=faults).
 */
static int fault_aer(const char *bdf, char *why, size_t len)
{
	struct {
		uint8_t bus, dev, fn, pad;
		uint32_t uncor, cor, hdr[4], domain;
	} rec = { .uncor = 0x00004000 };
	unsigned int dom, bus, dev, fn;
	ssize_t n;
	int fd;

	if (sscanf(bdf, "%x:%x:%x.%u", &dom, &bus, &dev, &fn) != 4) {
		snprintf(why, len, "PCI address %s", bdf);
		return -1;
	}
	/* the module, when it is not loaded yet: the open below says */
	if (access("/dev/aer_inject", W_OK))
		n = system("modprobe aer_inject >/dev/null 2>&1");
	fd = open("/dev/aer_inject", O_WRONLY);
	if (fd < 0) {
		snprintf(why, len, "no aer_inject: %s", strerror(errno));
		return 1;
	}
	rec.bus = bus;
	rec.dev = dev;
	rec.fn = fn;
	rec.domain = dom;
	n = write(fd, &rec, sizeof(rec));
	close(fd);
	if (n != (ssize_t)sizeof(rec)) {
		/* no root port with AER above the board: not this board set */
		snprintf(why, len, "aer_inject refuses %s: %s", bdf,
			 strerror(errno));
		return 1;
	}
	return 0;
}

/* The driver unbound from A (what removal does to it), then bound again */
static int fault_unbind(const char *bdf, char *why, size_t len)
{
	int err;

	err = sysfs_write("/sys/bus/pci/drivers/rclink/unbind", bdf);
	if (err) {
		snprintf(why, len, "unbind %s: %s", bdf, strerror(-err));
		return -1;
	}
	return 0;
}

/*
 * The board leaves the bus (the model's hostile "dead" mode: every read
 * all ones, as after a surprise removal) and the driver notices at its
 * next register read; a PCI reset brings it back afterwards.  Needs BAR0
 * access (iomem=relaxed) and the model: else skipped.
 */
static int fault_dead(const char *bdf, char *why, size_t len)
{
	const char *hostile = getenv("RCLINK_T1_HOSTILE");
	char cmd[1024];
	int st;

	if (!hostile || !*hostile) {
		snprintf(why, len, "no RCLINK_T1_HOSTILE (run by t1_uctx.sh)");
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "%s %s dead >/dev/null 2>&1", hostile,
		 bdf);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(why, len, "rclink_hostile.py %s dead: exit %d", bdf,
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return WIFEXITED(st) && WEXITSTATUS(st) == 4 ? 1 : -1;
	}
	/* the next register read tells the driver */
	sh("%s dev show dev %s >/dev/null 2>&1", env.tool, env.a);
	return 0;
}

/* Whether board NAME takes a context again within @secs (it is back up) */
static bool board_back(const char *name, unsigned int secs)
{
	struct side s = { .fd = -1 };
	unsigned int i;

	for (i = 0; i < secs * 10; i++) {
		if (!side_open(&s, name, 16, BUF)) {
			side_close(&s);
			return true;
		}
		usleep(100000);
	}
	return false;
}

/*
 * A's context busy (SENDs waiting, lost on A's wire where it has the
 * hooks, for B's buffers otherwise; a RECV posted, the
 * doorbell page in), then @fault: the context's file reports EPOLLERR, its
 * events ENODEV, a later doorbell store gets SIGBUS, the other mappings
 * stay harmless pages, and closing it gives back every locked page.
 */
enum after { AFTER_NOTHING, AFTER_BIND, AFTER_RESET };

static void busy_fault(struct __test_metadata *_metadata, fault_fn fault,
		       enum after after)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct rclink_ctx_events ev;
	struct pollfd pfd;
	char bdf[256], why[256] = "";
	long lck0, lck;
	double end;
	bool wired;
	uint32_t i;
	int r;

	NEED_BOARDS();
	ASSERT_TRUE(a_bdf(bdf, sizeof(bdf)));
	lck0 = vm_locked_kb();
	ASSERT_EQ(0, pair_add(QP_FLR));
	ASSERT_EQ(0, side_open(&a, env.a, 16, 16 * BUF));
	ASSERT_EQ(0, side_open(&b, env.b, 16, 16 * BUF));
	ASSERT_EQ(0, rclink_uctx_bind(&a.c, QP_FLR, 0));
	/*
	 * B's context has the QP and no buffer; A's messages are lost on A's
	 * wire, so that none completes (an acknowledged one would raise A's
	 * armed CQ before the fault)
	 */
	ASSERT_EQ(0, rclink_uctx_bind(&b.c, QP_FLR, 0));
	wired = !lib_run("rclink_wire.py", "%s seed=1 loss=1000000", env.a);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, rclink_post_send(&a.c, QP_FLR, i * BUF, 1000, 0));
	ASSERT_EQ(0, rclink_post_recv(&a.c, 8 * BUF, BUF));
	rclink_uctx_doorbell(&a.c);	/* the doorbell page is in */
	rclink_arm_cq(&a.c);
	EXPECT_LT(lck0, vm_locked_kb());

	r = fault(bdf, why, sizeof(why));
	if (r) {
		side_close(&a);
		side_close(&b);
		pair_del(QP_FLR);
		if (wired)
			lib_run("rclink_wire.py", "%s off", env.a);
		if (r > 0)
			SKIP(return, "%s", why);
		ASSERT_EQ(0, r) TH_LOG("%s", why);
	}

	/*
	 * at once for a reset; AER recovery runs in the AER driver's work,
	 * a board gone is found by the next access: CQ events of A's
	 * messages (completed meanwhile, in error after their retries) or an
	 * error of A's context may come first; the events are taken until
	 * the context is dead
	 */
	pfd.fd = a.fd;
	pfd.events = POLLIN;
	end = now_s() + 30;
	do {
		ASSERT_EQ(1, poll(&pfd, 1, 30000));
		if (rclink_uctx_events(&a.c, &ev) && errno == ENODEV)
			break;
		usleep(10000);
	} while (now_s() < end);
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_EQ(-1, rclink_uctx_events(&a.c, &ev));
	EXPECT_EQ(ENODEV, errno);

	/* the doorbell page was revoked: a store gets SIGBUS */
	EXPECT_EQ(SIGBUS, store_sig((volatile uint32_t *)(a.c.db +
							  RCLINK_U_DB_SQ_PROD),
				    9));
	/* the rest of the mappings stay harmless pages */
	EXPECT_EQ(1000, (uint32_t)(a.c.sq[0] >> 32));
	a.c.area[0] = 1;

	side_close(&a);
	side_close(&b);
	/* the context's pages went with its file: none leaked */
	lck = vm_locked_kb();
	EXPECT_EQ(lck0, lck);
	if (after == AFTER_BIND) {
		EXPECT_EQ(0, sysfs_write("/sys/bus/pci/drivers/rclink/bind",
					 bdf));
	} else if (after == AFTER_RESET) {
		char path[512];

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset",
			 bdf);
		EXPECT_EQ(0, sysfs_write(path, "1"));
	}
	/* the board is back (the same name: the lowest free after a bind) */
	EXPECT_TRUE(board_back(env.a, 30));
	if (wired)
		EXPECT_EQ(0, lib_run("rclink_wire.py", "%s off", env.a));
	pair_del(QP_FLR);
}

/*
 * The doorbell BAR is the driver's: requested under its name, so that no
 * other driver (nor a /dev/mem user under CONFIG_IO_STRICT_DEVMEM) maps it
 */
TEST(db_bar_requested)
{
	struct side a = { .fd = -1 };
	unsigned long long start = 0, end, flags, s, e;
	char bdf[256], path[512], line[512], name[256];
	bool found = false;
	unsigned int i;
	FILE *f;

	NEED_BOARDS();
	ASSERT_TRUE(a_bdf(bdf, sizeof(bdf)));
	if (side_open(&a, env.a, 16, BUF))
		SKIP(return, "no contexts on %s: %s", env.a, strerror(errno));
	side_close(&a);
	/* DMAQ_CTX_CAP.db_bar: BAR4 on the model */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", bdf);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	for (i = 0; i <= 4 && fgets(line, sizeof(line), f); i++)
		ASSERT_EQ(3, sscanf(line, "%llx %llx %llx", &start, &end,
				    &flags));
	fclose(f);
	ASSERT_NE(0, start);
	f = fopen("/proc/iomem", "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %llx-%llx : %255[^\n]", &s, &e, name) == 3 &&
		    s == start && !strcmp(name, "rclink-doorbells"))
			found = true;
	fclose(f);
	EXPECT_TRUE(found) TH_LOG("no rclink-doorbells region at 0x%llx in /proc/iomem",
				  start);
}

TEST_SLOW(flr_busy)
{
	busy_fault(_metadata, fault_flr, AFTER_NOTHING);
}

TEST_SLOW(aer_busy)
{
	busy_fault(_metadata, fault_aer, AFTER_NOTHING);
}

TEST_SLOW(dead_busy)
{
	busy_fault(_metadata, fault_dead, AFTER_RESET);
}

/* ---- loss, duplication and reordering, every header format ------------ */

#define QP_LOSSF	220
#define GRP_LOSSF	6

/* TYPE2 message seq's length: one packet (TYPE2_PKT_LEN, 1344) at most */
static uint32_t t2_len(uint32_t seq)
{
	return 1 + (seq * 977u) % 1300u;
}

/* What B's context received of a TYPE2 flow, and what was wrong */
struct t2rx {
	uint32_t n, next, recvd, bad;
};

/* B's TYPE2 completions: each checked, its buffer lent again; any? */
static bool t2_reap(struct side *b, struct t2rx *r)
{
	struct rclink_wc wc;
	bool any = false;
	uint64_t slot;
	uint32_t seq;

	while (rclink_poll_cq(&b->c, &wc, 1)) {
		any = true;
		slot = wc.idx % ENTRIES;
		if (wc.kind != RCLINK_WC_RECV_MCAST ||
		    wc.status != RCLINK_WC_OK) {
			r->bad++;
			continue;
		}
		/* its sequence number: the next one that matches */
		for (seq = r->next; seq < r->n; seq++)
			if (wc.len == t2_len(seq) &&
			    msg_ok(rclink_uctx_area(&b->c, slot * BUF), 2, seq,
				   wc.len))
				break;
		if (seq == r->n)
			r->bad++;
		else
			r->next = seq + 1;
		r->recvd += seq < r->n;
		rclink_post_recv(&b->c, slot * BUF, BUF);
		rclink_uctx_doorbell(&b->c);
	}
	return any;
}

/*
 * n TYPE2 messages from a context of A to one of B through group grp on a
 * lossy wire: what arrives is whole, in order and never twice (the shim
 * drops a sender's old PSNs); the rest is lost, as TYPE2 may.  The number
 * received.
 */
static uint32_t mcast_flow(struct __test_metadata *_metadata, uint32_t grp,
			   uint32_t n)
{
	struct side a = { .fd = -1 }, b = { .fd = -1 };
	struct t2rx r = { .n = n };
	uint32_t sent = 0, done = 0, len;
	struct rclink_wc wc;
	uint64_t slot;
	double last;

	if (sh("%s mcast set dev %s group %u join on", env.tool, env.b, grp))
		return 0;
	if (side_open(&a, env.a, ENTRIES, AREA) ||
	    side_open(&b, env.b, ENTRIES, AREA) ||
	    rclink_uctx_bind(&a.c, grp, RCLINK_BIND_MCAST) ||
	    rclink_uctx_bind(&b.c, grp, RCLINK_BIND_MCAST)) {
		TH_LOG("TYPE2 contexts: %m");
		goto out;
	}
	for (slot = 0; slot < ENTRIES; slot++)
		rclink_post_recv(&b.c, slot * BUF, BUF);
	rclink_uctx_doorbell(&b.c);
	last = now_s();
	while (done < n && now_s() - last < env.stall) {
		/* half of B's buffers in flight, B reaped every round */
		while (sent < n && sent - done < ENTRIES / 2) {
			uint64_t off = TX_BASE + (uint64_t)(sent % ENTRIES) * BUF;

			len = t2_len(sent);
			msg_fill(rclink_uctx_area(&a.c, off), 2, sent, len);
			if (rclink_post_send(&a.c, grp, off, len,
					     RCLINK_SEND_MCAST))
				break;
			sent++;
		}
		rclink_uctx_doorbell(&a.c);
		while (rclink_poll_cq(&a.c, &wc, 1)) {
			EXPECT_EQ(RCLINK_WC_OK, wc.status);
			done++;
			last = now_s();
		}
		t2_reap(&b, &r);
		sched_yield();
	}
	EXPECT_EQ(n, done) TH_LOG("TYPE2 SENDs completed");
	/* until a second without news (the reordered stragglers) */
	last = now_s();
	while (now_s() - last < 1) {
		if (t2_reap(&b, &r))
			last = now_s();
		else
			sched_yield();
	}
	EXPECT_EQ(0, r.bad) TH_LOG("TYPE2 messages damaged, repeated or late");
	EXPECT_FALSE(rclink_uctx_error(&a.c, NULL));
	EXPECT_FALSE(rclink_uctx_error(&b.c, NULL));
out:
	side_close(&a);
	side_close(&b);
	sh("%s mcast set dev %s group %u join off", env.tool, env.b, grp);
	return r.recvd;
}

/*
 * Both boards' wires lose 5 %, duplicate 1 % and reorder 1 % of the
 * frames; in the default header format and in each of t1_pair.h's, TYPE1
 * messages both ways arrive whole, once and in order (Lite's on clean
 * wires), and TYPE2 messages either arrive so or not at all.
 */
TEST_SLOW(loss_formats)
{
	const uint32_t n = 200, n2 = 100;
	struct bar ba = { 0 }, bb = { 0 };
	uint64_t lost0, lost;
	uint32_t got;
	bool lite;
	int f;

	NEED_BOARDS();
	if (bar_open(&ba, env.a) || bar_open(&bb, env.b))
		SKIP(return, "no BAR0 through sysfs resource0: %m");
	lost0 = rd(&ba, RCLINK_SHIM_WIRE_LOST) + rd(&bb, RCLINK_SHIM_WIRE_LOST);
	set_faults(&ba, 50000, 10000, 10000);
	set_faults(&bb, 50000, 10000, 10000);
	for (f = -1; f < (int)(sizeof(fmts) / sizeof(fmts[0])); f++) {
		const char *name = f < 0 ? "std" : fmts[f].name;

		if (f >= 0)
			ASSERT_EQ(0, set_format(fmts[f].fmt, fmts[f].vlan,
						fmts[f].pri, fmts[f].icrc))
				TH_LOG("format %s", name);
		/*
		 * AFH_Lite has no retransmission (seed 000: "no end-to-end
		 * retransmission protection"): its TYPE1 runs on clean wires
		 */
		lite = f >= 0 && !strcmp(fmts[f].fmt, "lite");
		if (lite) {
			set_faults(&ba, 0, 0, 0);
			set_faults(&bb, 0, 0, 0);
		}
		flows(_metadata, QP_LOSSF, n);
		if (lite) {
			set_faults(&ba, 50000, 10000, 10000);
			set_faults(&bb, 50000, 10000, 10000);
		}
		got = mcast_flow(_metadata, GRP_LOSSF, n2);
		TH_LOG("%s: TYPE1 %u each way, TYPE2 %u of %u received", name,
		       n, got, n2);
		EXPECT_LT(n2 / 2, got) TH_LOG("%s: TYPE2 mostly lost", name);
	}
	set_faults(&ba, 0, 0, 0);
	set_faults(&bb, 0, 0, 0);
	EXPECT_EQ(0, set_format("std", "off", 0, true));
	lost = rd(&ba, RCLINK_SHIM_WIRE_LOST) + rd(&bb, RCLINK_SHIM_WIRE_LOST) -
	       lost0;
	TH_LOG("%" PRIu64 " frames lost on the wires", lost);
	EXPECT_LT(0, lost);
	bar_close(&ba);
	bar_close(&bb);
}

/* last: the board is probed anew (its QPs and settings are gone) */
TEST_SLOW(unbind_busy)
{
	busy_fault(_metadata, fault_unbind, AFTER_BIND);
}

int main(int argc, char **argv)
{
	/* no boards: the whole program is skipped (exit 4) */
	if (!env_load()) {
		ksft_print_header();
		ksft_exit_skip("no boards (run by t1_uctx.sh)\n");
	}
	return test_harness_run(argc, argv);
}
