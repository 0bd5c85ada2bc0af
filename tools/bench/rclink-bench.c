// SPDX-License-Identifier: GPL-2.0
/*
 * rclink-bench: TYPE1 message benchmarks between two boards of one machine
 * (the guest of `make bench`, or a host with a wired pair), see
 * Documentation/performance.rst.
 *
 *   rclink-bench tput [OPTS] DEV_A QPN_A DEV_B QPN_B
 *	COUNT messages of SIZE bytes from A to B: a sender and a receiver
 *	thread, one bound file each; messages/s and MB/s
 *   rclink-bench lat [OPTS] DEV_A QPN_A DEV_B QPN_B
 *	COUNT ping-pongs A -> B -> A of SIZE bytes: round trip median,
 *	p99 and mean
 *   rclink-bench qps [OPTS] DEV_A DEV_B
 *	add QP q on both boards (A q <-> B q) for q below QP_NUM (or -n),
 *	bind a file to each, then unbind and delete them all: time per QP
 *	and kernel memory per QP (/proc/meminfo before and after)
 *   rclink-bench write|read [-s SIZE] [-n COUNT] [-w WINDOW] [-l] DEV_A
 *		QPN_A DEV_B QPN_B
 *	COUNT one-sided RDMA WRITEs (READs) of SIZE bytes from A's context
 *	into (out of) a registration of B's context, WINDOW operations in
 *	flight, A busy-polling: operations/s, MB/s, interrupts per operation
 *	(both boards, and B's alone: B's CPU should take none; A's are
 *	the transport's RTT samples) and instructions per
 *	operation; with -l one at a time: median and p99 of an operation's
 *	time (post to completion).  Exit 3 on a board without contexts or a
 *	registration table.
 *   rclink-bench mark [-o FILE] -- COMMAND [ARG...]
 *	run COMMAND between two instruction-count markers, write the guest
 *	instructions it took (all of the guest) to FILE (default stdout)
 *   rclink-bench mark [-o FILE] -t SECONDS
 *	the same for a window of SECONDS (a sleep between the markers, no
 *	process started in it): what the rest of the guest executes then
 *
 * OPTS: -s SIZE (64), -n COUNT, -p rw|ring (rw), -b BATCH (32 for tput,
 * 1 for lat), -w WINDOW (messages in flight, 256), -W WARMUP messages,
 * -m: QPN_A and QPN_B are TYPE2 groups (RCLINK_BIND_MCAST; tput only): the
 * receiver stops 2 s after the last message and reports what arrived
 * (TYPE2 is unreliable: rx_msgs and lost instead of a hang).
 *
 * tput also reports tx_s_bps: the bit rate of what the IP's rate control
 * counts (TX_S lengths: each packet's 8-byte segment header and data),
 * for comparison with a QP's configured rate (make bench, part 5).
 *
 * Paths: "rw" is write()/read() of one message per call; "ring" is the
 * mmap'd rings (RCLINK_IOC_RING_SETUP): BATCH SQEs per RCLINK_IOC_RING_ENTER;
 * "uctx" is a kernel-bypass context per side (librclink): one doorbell
 * store per BATCH messages, completions polled from memory, and a side
 * with nothing to do arms its CQ and sleeps in poll() until EVENT (-e,
 * default 128) completions are there (or 2 ms after the first); lat
 * busy-polls.
 *
 * Guest instructions: when $RCLINK_INSN_LOG names the output file of the
 * rclink-insn TCG plugin (tools/bench/plugin), the measured window is
 * bracketed by the marker instruction (xchg %bx,%bx with a tag in %rbx);
 * the plugin appends "TAG TOTAL KERNEL" for each marker, and the difference
 * of the two totals is every instruction the guest executed in the window,
 * both vCPUs, kernel, interrupts and both threads included (KERNEL: the
 * part at kernel addresses).
 *
 * Output: one line of key=value pairs on stdout.  Exit status 0; 1 on an
 * error; 2 on a usage error; 3 when the driver has no rings (ENOTTY).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/rclink_dev.h>
#include <linux/rclink_nl.h>

#include "rclink_ring.h"
#include "librclink.h"

/* TYPE1 data bytes per packet: TYPE1_PKT_LEN less the segment header */
#define RCLINK_SEG_BYTES	8
#define RCLINK_SEG_DATA		(1344 - RCLINK_SEG_BYTES)

#define EXIT_USAGE	2
#define EXIT_NORING	3

static const char *prog = "rclink-bench";

static struct {
	uint32_t size;
	uint64_t count;
	bool ring;
	uint32_t batch;
	uint32_t window;
	uint32_t warmup;
	const char *out;
	double secs;
	bool mcast;
	bool uctx;
	bool lat;
	uint32_t event;
	bool quiet;			/* uctx: one signaled SEND per batch */
} opt = { .size = 64, .window = 256, .event = 128, .quiet = true };

static void __attribute__((format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- instruction-count markers ----------------------------------------- */

static const char *insn_log;
static uint64_t insn_tag;

static void marker(uint64_t tag)
{
	__asm__ __volatile__("xchg %%bx, %%bx" : : "b"(tag) : "memory");
}

/* The totals (all, kernel) the plugin logged for @tag; false if none */
static bool insn_total(uint64_t tag, uint64_t *all, uint64_t *kernel)
{
	char line[128];
	uint64_t t, v, k;
	bool got = false;
	FILE *f;

	f = fopen(insn_log, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		k = 0;
		if (sscanf(line, "%" SCNx64 " %" SCNu64 " %" SCNu64, &t, &v,
			   &k) >= 2 && t == tag) {
			*all = v;
			*kernel = k;
			got = true;
		}
	}
	fclose(f);
	return got;
}

static void insn_begin(void)
{
	insn_log = getenv("RCLINK_INSN_LOG");
	if (!insn_log || !*insn_log) {
		insn_log = NULL;
		return;
	}
	/* even tags open a window, the odd one after closes it */
	insn_tag = ((uint64_t)0x52c1 << 48) | ((uint64_t)getpid() << 16) |
		   ((uint64_t)(now() * 1000) & 0x7ffe);
	marker(insn_tag);
}

static void insn_end(void)
{
	if (insn_log)
		marker(insn_tag | 1);
}

/* Instructions (all, kernel) between begin and end; false if not counted */
static bool insn_delta(uint64_t *all, uint64_t *kernel)
{
	uint64_t a, ak, b, bk;

	if (!insn_log || !insn_total(insn_tag, &a, &ak) ||
	    !insn_total(insn_tag | 1, &b, &bk) || b < a || bk < ak)
		return false;
	*all = b - a;
	*kernel = bk - ak;
	return true;
}

static void print_insns(uint64_t msgs)
{
	uint64_t d, k;

	if (!msgs || !insn_delta(&d, &k))
		printf(" insns=- kinsns=- insn_per_msg=- kinsn_per_msg=-");
	else
		printf(" insns=%" PRIu64 " kinsns=%" PRIu64
		       " insn_per_msg=%.0f kinsn_per_msg=%.0f tag=%" PRIx64,
		       d, k, (double)d / msgs, (double)k / msgs, insn_tag | 1);
}

/*
 * Interrupts so far of the boards (@pci NULL), or of the board at PCI
 * address @pci: the rclink lines of /proc/interrupts ("rclink-PCI-...")
 */
static uint64_t irqs_of(const char *pci)
{
	char line[1024], want[96], *p, *end;
	uint64_t sum = 0;
	unsigned long v;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	snprintf(want, sizeof(want), "rclink-%s-", pci ? pci : "");
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, pci ? want : "rclink"))
			continue;
		p = strchr(line, ':');
		if (!p)
			continue;
		for (p++;; p = end) {
			v = strtoul(p, &end, 10);
			if (end == p)
				break;
			sum += v;
		}
	}
	fclose(f);
	return sum;
}

static uint64_t board_irqs(void)
{
	return irqs_of(NULL);
}

/* The PCI address of board @dev ("" when unknown) */
static void board_pci(const char *dev, char *pci, size_t len)
{
	char path[256], link[512];
	const char *b;

	snprintf(path, sizeof(path), "/sys/class/rclink/%s/device", dev);
	if (!realpath(path, link)) {
		snprintf(pci, len, "unknown");
		return;
	}
	b = strrchr(link, '/');
	b = b ? b + 1 : link;
	if (strlen(b) >= len)
		b = "unknown";
	memcpy(pci, b, strlen(b) + 1);
}

/* ---- the character device ---------------------------------------------- */

static int open_bound(const char *dev, uint32_t qpn)
{
	struct rclink_bind b = { .size = sizeof(b), .qpn = qpn,
				 .flags = opt.mcast ? RCLINK_BIND_MCAST : 0 };
	char path[128];
	int fd;

	if (strchr(dev, '/'))
		snprintf(path, sizeof(path), "%s", dev);
	else
		snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (ioctl(fd, RCLINK_IOC_BIND, &b))
		die("%s: bind QP %u: %s", path, qpn, strerror(errno));
	return fd;
}

static void set_window(int fd, uint32_t w)
{
	struct rclink_window win = { .size = sizeof(win) };

	if (w > RCLINK_TX_WINDOW_MAX)
		w = RCLINK_TX_WINDOW_MAX;
	win.window = w;
	if (ioctl(fd, RCLINK_IOC_SET_WINDOW, &win))
		die("set window %u: %s", w, strerror(errno));
}

static void fill(uint8_t *p, uint32_t len, uint64_t seq)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seq + i);
}

static void write_msg(int fd, const void *buf, uint32_t len)
{
	ssize_t n;

	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		die("write of %u bytes: %s", len, n < 0 ? strerror(errno) :
		    "short");
}

static void read_msg(int fd, void *buf, uint32_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		die("read: %s (got %zd, want %u)", n < 0 ? strerror(errno) :
		    "wrong size", n, len);
}

/* ---- rings --------------------------------------------------------------- */

/*
 * One side's rings: @nslots message slots of @slot bytes in the area; a
 * stack of free slots.  The SQ has room for every slot, the CQ twice.
 */
struct side {
	int fd;
	struct rclink_ring r;
	uint32_t slot;
	uint32_t nslots;
	uint32_t *free;
	uint32_t nfree;
	uint32_t queued;	/* SQEs prepared and not yet entered */
};

static uint32_t pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static void ring_setup(struct side *s, uint32_t nslots)
{
	uint32_t area, i;
	long pg = sysconf(_SC_PAGESIZE);

	s->nslots = pow2(nslots);
	s->slot = (opt.size + 63) & ~63U;
	area = s->slot * s->nslots;
	area = (area + pg - 1) & ~(uint32_t)(pg - 1);
	if (rclink_ring_init(&s->r, s->fd, s->nslots, 2 * s->nslots, area)) {
		if (errno == ENOTTY) {
			printf("ring path: not supported by this driver\n");
			exit(EXIT_NORING);
		}
		die("ring setup (sq %u, area %u): %s", s->nslots, area,
		    strerror(errno));
	}
	if (opt.size > s->r.setup.max_msg)
		die("size %u above the rings' max_msg %u", opt.size,
		    s->r.setup.max_msg);
	s->free = calloc(s->nslots, sizeof(*s->free));
	if (!s->free)
		die("out of memory");
	for (i = 0; i < s->nslots; i++)
		s->free[i] = s->nslots - 1 - i;
	s->nfree = s->nslots;
}

static uint32_t slot_get(struct side *s)
{
	if (!s->nfree)
		die("no free slot");
	return s->free[--s->nfree];
}

static void slot_put(struct side *s, uint32_t i)
{
	s->free[s->nfree++] = i;
}

static void ring_prep(struct side *s, uint8_t op, uint32_t slot, uint32_t len)
{
	struct rclink_sqe *sqe = rclink_ring_get_sqe(&s->r);

	if (!sqe)
		die("SQ full");
	if (op == RCLINK_OP_SEND)
		rclink_ring_prep_send(sqe, (uint64_t)slot * s->slot, len, slot);
	else
		rclink_ring_prep_recv(sqe, (uint64_t)slot * s->slot, len, slot);
	s->queued++;
}

/* Submit what is prepared and wait for @min_complete unconsumed CQEs */
static void ring_enter(struct side *s, uint32_t min_complete)
{
	int n;

	do
		n = rclink_ring_enter(&s->r, min_complete);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		die("ring enter: %s", strerror(errno));
	s->queued = 0;
}

/*
 * Consume every CQE: SEND completions free their slot, RECV completions
 * are passed to @recv (which gets the slot and owns it).  Returns the
 * number of SEND completions.
 */
static uint32_t ring_reap(struct side *s, void (*recv)(struct side *,
						       uint32_t, int32_t),
			  uint32_t *nrecv)
{
	uint32_t i, n = rclink_ring_cq_ready(&s->r), sends = 0;

	for (i = 0; i < n; i++) {
		struct rclink_cqe *c = rclink_ring_cqe_at(&s->r, i);
		uint32_t slot = (uint32_t)c->user_data;

		if (c->res < 0)
			die("%s completion: %s",
			    RCLINK_CQE_OP(c->flags) == RCLINK_OP_SEND ?
			    "SEND" : "RECV", strerror(-c->res));
		if (RCLINK_CQE_OP(c->flags) == RCLINK_OP_SEND) {
			slot_put(s, slot);
			sends++;
		} else {
			if (recv)
				recv(s, slot, c->res);
			(*nrecv)++;
		}
	}
	if (n)
		rclink_ring_cq_advance(&s->r, n);
	if (s->r.hdr->cq_overflow)
		die("CQ overflow");
	return sends;
}

/* A received message: check its size, post the slot again */
static void recv_repost(struct side *s, uint32_t slot, int32_t res)
{
	if ((uint32_t)res != opt.size)
		die("received %d bytes, want %u", res, opt.size);
	ring_prep(s, RCLINK_OP_RECV, slot, s->slot);
}

/* ---- throughput ------------------------------------------------------------ */

struct tput {
	int fd_a, fd_b;
	uint64_t count;		/* messages per run */
	uint64_t received;	/* TYPE2: messages that arrived */
	double t_recv_done;
};

static void *rw_sender(void *p)
{
	struct tput *t = p;
	uint8_t *buf = malloc(opt.size);
	uint64_t i;

	if (!buf)
		die("out of memory");
	fill(buf, opt.size, 0);
	for (i = 0; i < t->count; i++)
		write_msg(t->fd_a, buf, opt.size);
	if (ioctl(t->fd_a, RCLINK_IOC_DRAIN))
		die("drain: %s", strerror(errno));
	free(buf);
	return NULL;
}

static void *rw_receiver(void *p)
{
	struct tput *t = p;
	uint8_t *buf = malloc(opt.size);
	struct pollfd pfd = { .fd = t->fd_b, .events = POLLIN };
	uint64_t i;

	if (!buf)
		die("out of memory");
	t->received = 0;
	for (i = 0; i < t->count; i++) {
		/* TYPE2 may lose messages: stop when none came for 2 s */
		if (opt.mcast && poll(&pfd, 1, 2000) == 0)
			break;
		read_msg(t->fd_b, buf, opt.size);
		t->received++;
		t->t_recv_done = now();
	}
	free(buf);
	return NULL;
}

static struct side ring_a, ring_b;

/* Send count messages, BATCH SQEs per enter, at most window in flight */
static void *ring_sender(void *p)
{
	struct tput *t = p;
	struct side *s = &ring_a;
	uint64_t queued = 0, done = 0;
	uint32_t cap = s->nslots, b = opt.batch, i, k, nrecv = 0;

	while (done < t->count) {
		done += ring_reap(s, NULL, &nrecv);
		k = t->count - queued < b ? t->count - queued : b;
		if (k && s->nfree >= k) {
			for (i = 0; i < k; i++) {
				uint32_t slot = slot_get(s);

				ring_prep(s, RCLINK_OP_SEND, slot, opt.size);
			}
			queued += k;
		} else {
			k = 0;
		}
		/*
		 * Submit and, when the next batch would not fit, wait for the
		 * completions that make room for it: one call per batch.
		 */
		if (queued - done > cap - b)
			ring_enter(s, (uint32_t)(queued - done - (cap - b)));
		else if (k)
			ring_enter(s, 0);
		else if (queued == t->count && done < t->count)
			ring_enter(s, (uint32_t)(t->count - done));
	}
	return NULL;
}

static void *ring_receiver(void *p)
{
	struct tput *t = p;
	struct side *s = &ring_b;
	uint32_t nrecv = 0, want;
	uint64_t got = 0;

	while (got < t->count) {
		want = t->count - got < opt.batch ? t->count - got : opt.batch;
		ring_enter(s, want);
		nrecv = 0;
		ring_reap(s, recv_repost, &nrecv);
		got += nrecv;
	}
	return NULL;
}

static void ring_post_all_recvs(struct side *s)
{
	while (s->nfree)
		ring_prep(s, RCLINK_OP_RECV, slot_get(s), s->slot);
	ring_enter(s, 0);
}

static double tput_run(struct tput *t, uint64_t count)
{
	pthread_t ts, tr;
	double t0;

	t->count = count;
	t0 = now();
	if (pthread_create(&tr, NULL, opt.ring ? ring_receiver : rw_receiver,
			   t) ||
	    pthread_create(&ts, NULL, opt.ring ? ring_sender : rw_sender, t))
		die("pthread_create failed");
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	return now() - t0;
}

static int do_tput(char **argv)
{
	struct tput t = { 0 };
	uint64_t irqs;
	double secs;

	t.fd_a = open_bound(argv[0], strtoul(argv[1], NULL, 0));
	t.fd_b = open_bound(argv[2], strtoul(argv[3], NULL, 0));
	set_window(t.fd_a, opt.window);
	if (opt.ring) {
		ring_a.fd = t.fd_a;
		ring_b.fd = t.fd_b;
		ring_setup(&ring_a, opt.window < 2 * opt.batch ?
			   2 * opt.batch : opt.window);
		ring_setup(&ring_b, opt.window < 2 * opt.batch ?
			   2 * opt.batch : opt.window);
		ring_post_all_recvs(&ring_b);
	}
	if (opt.warmup)
		tput_run(&t, opt.warmup);
	irqs = board_irqs();
	insn_begin();
	secs = tput_run(&t, opt.count);
	insn_end();
	irqs = board_irqs() - irqs;
	printf("test=tput path=%s size=%u batch=%u msgs=%" PRIu64
	       " secs=%.3f msg_per_s=%.0f MBps=%.3f",
	       opt.ring ? "ring" : "rw", opt.size, opt.ring ? opt.batch : 1,
	       opt.count, secs, opt.count / secs,
	       opt.count * (double)opt.size / secs / 1e6);
	printf(" irq_per_msg=%.2f", (double)irqs / opt.count);
	printf(" tx_s_bps=%.0f", opt.count * 8.0 * (opt.size + RCLINK_SEG_BYTES *
	       ((opt.size + RCLINK_SEG_DATA - 1) / RCLINK_SEG_DATA)) / secs);
	if (opt.mcast)
		printf(" rx_msgs=%" PRIu64 " lost=%" PRIu64, t.received,
		       opt.count - t.received);
	print_insns(opt.count);
	printf("\n");
	if (opt.ring) {
		rclink_ring_exit(&ring_a.r);
		rclink_ring_exit(&ring_b.r);
	}
	close(t.fd_a);
	close(t.fd_b);
	return 0;
}

/* ---- latency ----------------------------------------------------------------- */

struct lat {
	int fd_a, fd_b;
	uint64_t count;
	double *rtt;		/* seconds, per round trip */
};

static void *rw_echo(void *p)
{
	struct lat *l = p;
	uint8_t *buf = malloc(opt.size);
	uint64_t i;

	if (!buf)
		die("out of memory");
	for (i = 0; i < l->count; i++) {
		read_msg(l->fd_b, buf, opt.size);
		write_msg(l->fd_b, buf, opt.size);
	}
	free(buf);
	return NULL;
}

static void rw_pinger(struct lat *l)
{
	uint8_t *buf = malloc(opt.size), *in = malloc(opt.size);
	uint64_t i;
	double t0;

	if (!buf || !in)
		die("out of memory");
	fill(buf, opt.size, 1);
	for (i = 0; i < l->count; i++) {
		t0 = now();
		write_msg(l->fd_a, buf, opt.size);
		read_msg(l->fd_a, in, opt.size);
		if (l->rtt)
			l->rtt[i] = now() - t0;
	}
	free(buf);
	free(in);
}

/* The echo side on rings: each message received goes back from its slot */
static void echo_recv(struct side *s, uint32_t slot, int32_t res)
{
	if ((uint32_t)res != opt.size)
		die("received %d bytes, want %u", res, opt.size);
	ring_prep(s, RCLINK_OP_SEND, slot, opt.size);
}

static void *ring_echo(void *p)
{
	struct lat *l = p;
	struct side *s = &ring_b;
	uint32_t nrecv, sends;
	uint64_t got = 0, sent = 0;

	while (got < l->count || sent < l->count) {
		ring_enter(s, 1);
		nrecv = 0;
		sends = ring_reap(s, echo_recv, &nrecv);
		got += nrecv;
		sent += sends;
		/* a slot sent from receives again */
		while (sends--)
			ring_prep(s, RCLINK_OP_RECV, slot_get(s), s->slot);
	}
	return NULL;
}

static uint32_t ping_slot;

/* Half the slots of each side receive; the pinger sends from one more */
static void ring_lat_init(void)
{
	uint32_t i;

	for (i = 0; i < ring_b.nslots / 2; i++)
		ring_prep(&ring_b, RCLINK_OP_RECV, slot_get(&ring_b),
			  ring_b.slot);
	ring_enter(&ring_b, 0);
	for (i = 0; i < ring_a.nslots / 2; i++)
		ring_prep(&ring_a, RCLINK_OP_RECV, slot_get(&ring_a),
			  ring_a.slot);
	ring_enter(&ring_a, 0);
	ping_slot = slot_get(&ring_a);
	fill(rclink_ring_area(&ring_a.r, (uint64_t)ping_slot * ring_a.slot),
	     opt.size, 1);
}

static void ring_pinger(struct lat *l)
{
	struct side *s = &ring_a;
	uint32_t nrecv;
	bool sent_done, got;
	uint64_t k;
	double t0;

	for (k = 0; k < l->count; k++) {
		t0 = now();
		ring_prep(s, RCLINK_OP_SEND, ping_slot, opt.size);
		sent_done = false;
		got = false;
		while (!sent_done || !got) {
			ring_enter(s, 1);
			nrecv = 0;
			if (ring_reap(s, recv_repost, &nrecv)) {
				sent_done = true;
				/* ring_reap freed it: take it back */
				ping_slot = slot_get(s);
			}
			if (nrecv)
				got = true;
		}
		if (l->rtt)
			l->rtt[k] = now() - t0;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double lat_run(struct lat *l, uint64_t count, double *rtt)
{
	pthread_t te;
	double t0;

	l->count = count;
	l->rtt = rtt;
	t0 = now();
	if (pthread_create(&te, NULL, opt.ring ? ring_echo : rw_echo, l))
		die("pthread_create failed");
	if (opt.ring)
		ring_pinger(l);
	else
		rw_pinger(l);
	pthread_join(te, NULL);
	return now() - t0;
}

static int do_lat(char **argv)
{
	struct lat l = { 0 };
	double secs, *rtt, sum = 0;
	uint64_t i, n = opt.count, irqs;

	l.fd_a = open_bound(argv[0], strtoul(argv[1], NULL, 0));
	l.fd_b = open_bound(argv[2], strtoul(argv[3], NULL, 0));
	if (opt.ring) {
		ring_a.fd = l.fd_a;
		ring_b.fd = l.fd_b;
		ring_setup(&ring_a, 8);
		ring_setup(&ring_b, 8);
	}
	rtt = calloc(n, sizeof(*rtt));
	if (!rtt)
		die("out of memory");
	if (opt.ring)
		ring_lat_init();
	if (opt.warmup)
		lat_run(&l, opt.warmup, NULL);
	irqs = board_irqs();
	insn_begin();
	secs = lat_run(&l, n, rtt);
	insn_end();
	irqs = board_irqs() - irqs;
	for (i = 0; i < n; i++)
		sum += rtt[i];
	qsort(rtt, n, sizeof(*rtt), cmp_double);
	printf("test=lat path=%s size=%u batch=1 msgs=%" PRIu64
	       " secs=%.3f rtt_med_us=%.1f rtt_p99_us=%.1f rtt_avg_us=%.1f",
	       opt.ring ? "ring" : "rw", opt.size, 2 * n, secs,
	       rtt[n / 2] * 1e6, rtt[(n * 99) / 100] * 1e6, sum / n * 1e6);
	printf(" irq_per_msg=%.2f", (double)irqs / (2 * n));
	print_insns(2 * n);
	printf("\n");
	free(rtt);
	if (opt.ring) {
		rclink_ring_exit(&ring_a.r);
		rclink_ring_exit(&ring_b.r);
	}
	close(l.fd_a);
	close(l.fd_b);
	return 0;
}

/* ---- kernel-bypass contexts (librclink) ------------------------------------ */

/*
 * One side: a context with the QP, nslots message slots of slot bytes in
 * its area, the first half lent as receive buffers, the second for sends.
 */
struct uside {
	int fd;
	struct rclink_uctx c;
	uint32_t qpn;
	uint32_t slot;
	uint32_t nslots;		/* send slots */
	uint32_t rslots;		/* receive slots */
	uint64_t sent, acked, recvd, posted;
	uint32_t sq0;			/* SQ index of message 0 */
	uint64_t sleeps;
};

static struct uside ua, ub;

/* A context of @a on board @dev with QP @qpn; @what names the path */
static void ctx_open(struct uside *u, const char *dev, uint32_t qpn,
		     struct rclink_uctx_attr *a, const char *what)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", dev);
	u->fd = open(path, O_RDWR | O_CLOEXEC);
	if (u->fd < 0)
		die("%s: %s", path, strerror(errno));
	u->qpn = qpn;
	if (rclink_uctx_open(&u->c, u->fd, a)) {
		if (errno == ENOTTY || errno == EOPNOTSUPP) {
			printf("%s: not supported by this driver or board\n",
			       what);
			exit(EXIT_NORING);
		}
		die("%s: context: %s", path, strerror(errno));
	}
	if (rclink_uctx_bind(&u->c, qpn, 0))
		die("%s: context QP %u: %s", path, qpn, strerror(errno));
}

static void uctx_open(struct uside *u, const char *dev, uint32_t qpn,
		      uint32_t nslots, uint32_t rslots, uint32_t event)
{
	struct rclink_uctx_attr a = { 0 };

	u->nslots = pow2(nslots < 16 ? 16 : nslots);
	u->rslots = pow2(rslots < 16 ? 16 : rslots);
	u->slot = opt.size < 64 ? 64 : (opt.size + 63) & ~63u;
	a.sq_entries = u->nslots;
	a.rq_entries = u->rslots;
	a.cq_entries = pow2(u->nslots + u->rslots);
	a.area_size = ((u->nslots + u->rslots) * u->slot + 4095) & ~4095u;
	a.mod_count = event;
	a.mod_usec = event > 1 ? 2000 : 0;
	ctx_open(u, dev, qpn, &a, "uctx path");
	u->sq0 = u->c.sq_prod;
}

static void uctx_close(struct uside *u)
{
	rclink_uctx_close(&u->c);
	close(u->fd);
}

/* the area: rslots receive slots, then nslots send slots (powers of 2) */
static uint64_t uctx_rx_off(struct uside *u, uint64_t i)
{
	return (i & (u->rslots - 1)) * u->slot;
}

static uint64_t uctx_tx_off(struct uside *u, uint64_t i)
{
	return (u->rslots + (i & (u->nslots - 1))) * u->slot;
}

static void uctx_post_recvs(struct uside *u)
{
	struct rclink_post_cursor k = rclink_rq_begin(&u->c);
	uint64_t posted = u->posted, end = u->recvd + u->rslots;
	const uint64_t mask = u->rslots - 1;
	const uint32_t slot = u->slot;

	/* locals: the stores to the RQ cannot alias them */
	for (; posted < end && k.room; posted++)
		rclink_cursor_recv(&k, (posted & mask) * slot, slot);
	rclink_rq_end(&u->c, &k);
	u->posted = posted;
	rclink_uctx_doorbell(&u->c);
}

/* Reap the CQ; false when it was empty */
static bool uctx_reap(struct uside *u)
{
	struct rclink_cq_cursor k = rclink_cq_begin(&u->c);
	uint64_t acked, recvd = 0;
	struct rclink_wc wc;
	int n;

	/* one at a time: only kind, status and idx are decoded */
	for (n = 0; n < 32 && rclink_cq_cursor_next(&k, &wc); n++) {
		if (wc.status != RCLINK_WC_OK)
			die("context %u: %s status %u", u->c.id,
			    wc.kind == RCLINK_WC_SEND ? "SEND" : "RECV",
			    wc.status);
		if (wc.kind != RCLINK_WC_SEND) {
			recvd++;
			continue;
		}
		/* one message per WQE: the CQE's SQ index says how many are
		 * done, the QUIET ones before it included */
		acked = (uint32_t)(wc.idx + 1 - u->sq0) -
			(uint32_t)u->acked;
		u->acked += acked;
	}
	rclink_cq_end(&u->c, &k);
	u->recvd += recvd;
	return n > 0;
}

/*
 * Nothing to do: arm, look at the CQ once more (memory, no system call:
 * a CQE written before the arm took effect), else sleep until the CQ
 * event.  An event of an arm that found work is taken by the next sleep
 * (which then returns at once).
 */
/* Sleep until the armed CQ event (one system call: it takes the report) */
static uint32_t uctx_block(struct uside *u)
{
	struct rclink_ctx_events ev;

	u->sleeps++;
	if (rclink_uctx_wait_events(&u->c, &ev, 10000) ||
	    ev.state != RCLINK_CTX_STATE_RUNNING)
		die("context %u: state %u cause %u", u->c.id, ev.state,
		    ev.cause);
	return ev.events;
}

static void uctx_sleep(struct uside *u)
{
	rclink_arm_cq(&u->c);
	if (uctx_reap(u))
		return;
	if (!uctx_block(u))
		die("context %u: no CQ event in 10 s", u->c.id);
}

static void *uctx_sender(void *p)
{
	uint64_t count = *(uint64_t *)p, end = ua.sent + count, sent, stop;
	const uint32_t size = opt.size, batch = opt.batch, qpn = ua.qpn;
	const uint64_t mask = ua.nslots - 1, base = ua.rslots;
	const uint32_t slot = ua.slot, quiet = opt.quiet ? RCLINK_SEND_QUIET : 0;
	struct rclink_post_cursor k;
	uint32_t n;

	while (ua.acked < end) {
		sent = ua.sent;
		stop = ua.acked + ua.nslots < end ? ua.acked + ua.nslots : end;
		/*
		 * batches of @batch with a doorbell each; in each the last SEND
		 * is signaled, the others QUIET (locals: the stores to the SQ
		 * cannot alias them)
		 */
		while (sent < stop) {
			k = rclink_sq_begin(&ua.c);
			n = stop - sent < batch ? stop - sent : batch;
			if (n > k.room)
				n = k.room;
			if (!n)
				break;
			for (; n > 1; n--, sent++)
				rclink_cursor_send(&k, qpn,
						   (base + (sent & mask)) * slot,
						   size, quiet);
			rclink_cursor_send(&k, qpn,
					   (base + (sent & mask)) * slot, size, 0);
			sent++;
			rclink_sq_end(&ua.c, &k);
			rclink_uctx_doorbell(&ua.c);
		}
		ua.sent = sent;
		if (!uctx_reap(&ua) && ua.acked < end)
			uctx_sleep(&ua);
	}
	return NULL;
}

static void *uctx_receiver(void *p)
{
	uint64_t count = *(uint64_t *)p, end = ub.recvd + count;

	while (ub.recvd < end) {
		uctx_post_recvs(&ub);
		if (!uctx_reap(&ub) && ub.recvd < end)
			uctx_sleep(&ub);
	}
	uctx_post_recvs(&ub);
	return NULL;
}

static double uctx_tput_run(uint64_t count)
{
	pthread_t ts, tr;
	double t0 = now();

	if (pthread_create(&tr, NULL, uctx_receiver, &count) ||
	    pthread_create(&ts, NULL, uctx_sender, &count))
		die("pthread_create failed");
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	return now() - t0;
}

static int uctx_tput(char **argv)
{
	uint64_t irqs, sleeps;
	double secs;

	if (opt.mcast || opt.size > 65536)
		die("uctx: TYPE1 messages of at most 65536 bytes");
	/*
	 * B's RQ (and CQ) four windows deep: the IP has acknowledged what
	 * the sender's window counts as done, so a receiver that is slow to
	 * wake must have RQEs for more than a window; a packet that finds
	 * none holds the receive path only DMAQ_CTX_RX_HOLD before the
	 * context fails (Documentation/hw/shim.rst, "Contexts")
	 */
	uctx_open(&ua, argv[0], strtoul(argv[1], NULL, 0), opt.window, 16,
		  opt.event);
	uctx_open(&ub, argv[2], strtoul(argv[3], NULL, 0), opt.window,
		  4 * opt.window, opt.event);
	uctx_post_recvs(&ub);
	if (opt.warmup)
		uctx_tput_run(opt.warmup);
	sleeps = ua.sleeps + ub.sleeps;
	irqs = board_irqs();
	insn_begin();
	secs = uctx_tput_run(opt.count);
	insn_end();
	irqs = board_irqs() - irqs;
	sleeps = ua.sleeps + ub.sleeps - sleeps;
	printf("test=tput path=uctx size=%u batch=%u msgs=%" PRIu64
	       " secs=%.3f msg_per_s=%.0f MBps=%.3f event=%u",
	       opt.size, opt.batch, opt.count, secs, opt.count / secs,
	       opt.count * (double)opt.size / secs / 1e6, opt.event);
	printf(" irq_per_msg=%.2f sleeps_per_msg=%.4f",
	       (double)irqs / opt.count, (double)sleeps / opt.count);
	print_insns(opt.count);
	printf("\n");
	uctx_close(&ua);
	uctx_close(&ub);
	return 0;
}

/* Busy-polled ping-pong: B sends back what it receives */
static volatile bool uctx_lat_stop;

static void *uctx_echo(void *p)
{
	struct rclink_wc wc;

	(void)p;
	uctx_post_recvs(&ub);
	while (!uctx_lat_stop) {
		if (!rclink_poll_cq(&ub.c, &wc, 1))
			continue;
		if (wc.status != RCLINK_WC_OK)
			die("echo: status %u", wc.status);
		if (wc.kind != RCLINK_WC_RECV)
			continue;
		ub.recvd++;
		if (rclink_post_send(&ub.c, ub.qpn, uctx_rx_off(&ub, wc.idx),
				     wc.len, 0))
			die("echo: SQ full");
		/* one at a time: the slot is sent before it is lent again */
		uctx_post_recvs(&ub);
	}
	return NULL;
}

static void uctx_ping(uint64_t count, double *rtt)
{
	struct rclink_wc wc;
	uint64_t i, want;
	double t0;

	for (i = 0; i < count; i++) {
		uctx_post_recvs(&ua);
		want = ua.recvd + 1;
		t0 = now();
		if (rclink_post_send(&ua.c, ua.qpn, uctx_tx_off(&ua, i),
				     opt.size, 0))
			die("ping: SQ full");
		rclink_uctx_doorbell(&ua.c);
		while (ua.recvd < want) {
			if (!rclink_poll_cq(&ua.c, &wc, 1))
				continue;
			if (wc.status != RCLINK_WC_OK)
				die("ping: status %u", wc.status);
			if (wc.kind == RCLINK_WC_RECV)
				ua.recvd++;
		}
		if (rtt)
			rtt[i] = now() - t0;
	}
}

static int uctx_lat(char **argv)
{
	uint64_t i, n = opt.count, irqs;
	double secs, *rtt, sum = 0, t0;
	pthread_t te;

	uctx_open(&ua, argv[0], strtoul(argv[1], NULL, 0), 16, 16, 1);
	uctx_open(&ub, argv[2], strtoul(argv[3], NULL, 0), 16, 16, 1);
	rtt = calloc(n, sizeof(*rtt));
	if (!rtt)
		die("out of memory");
	if (pthread_create(&te, NULL, uctx_echo, NULL))
		die("pthread_create failed");
	if (opt.warmup)
		uctx_ping(opt.warmup, NULL);
	irqs = board_irqs();
	insn_begin();
	t0 = now();
	uctx_ping(n, rtt);
	secs = now() - t0;
	insn_end();
	irqs = board_irqs() - irqs;
	uctx_lat_stop = true;
	pthread_join(te, NULL);
	for (i = 0; i < n; i++)
		sum += rtt[i];
	qsort(rtt, n, sizeof(*rtt), cmp_double);
	printf("test=lat path=uctx size=%u batch=1 msgs=%" PRIu64
	       " secs=%.3f rtt_med_us=%.1f rtt_p99_us=%.1f rtt_avg_us=%.1f",
	       opt.size, 2 * n, secs, rtt[n / 2] * 1e6,
	       rtt[(n * 99) / 100] * 1e6, sum / n * 1e6);
	printf(" irq_per_msg=%.2f", (double)irqs / (2 * n));
	print_insns(2 * n);
	printf("\n");
	free(rtt);
	uctx_close(&ua);
	uctx_close(&ub);
	return 0;
}

/* ---- generic netlink: QPs ------------------------------------------------ */

struct nl {
	int fd;
	uint16_t family;
	uint32_t seq;
	char buf[16384];
};

struct nlreq {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char attrs[512];
};

static void nl_put(struct nlreq *r, uint16_t type, const void *data,
		   uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)r +
					     NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void nl_put_u32(struct nlreq *r, uint16_t type, uint32_t v)
{
	nl_put(r, type, &v, sizeof(v));
}

static void nl_put_str(struct nlreq *r, uint16_t type, const char *s)
{
	nl_put(r, type, s, strlen(s) + 1);
}

static void nl_init(struct nlreq *r, uint16_t family, uint8_t cmd,
		    uint8_t version)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = family;
	r->n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->g.cmd = cmd;
	r->g.version = version;
}

typedef void (*nl_cb)(struct nlattr *a, int len, void *arg);

/* Send @r, call @cb with the attributes of each reply; 0 or -errno */
static int nl_talk(struct nl *nl, struct nlreq *r, nl_cb cb, void *arg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int err = 0;
	ssize_t n;

	r->n.nlmsg_seq = ++nl->seq;
	if (sendto(nl->fd, r, r->n.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *h;

		n = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)nl->buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				return err;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb)
				cb((struct nlattr *)((char *)NLMSG_DATA(h) +
						     GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
				   arg);
		}
	}
}

#define nla_for_each(a, head, len) \
	for ((a) = (head); (len) >= (int)NLA_HDRLEN && \
	     (a)->nla_len >= NLA_HDRLEN && (a)->nla_len <= (len); \
	     (len) -= NLA_ALIGN((a)->nla_len), \
	     (a) = (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))

static void family_cb(struct nlattr *head, int len, void *arg)
{
	struct nlattr *a;

	nla_for_each(a, head, len)
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)arg = *(uint16_t *)((char *)a + NLA_HDRLEN);
}

static void nl_open(struct nl *nl)
{
	struct nlreq r;
	int err;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		die("netlink socket: %s", strerror(errno));
	nl_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	nl_put_str(&r, CTRL_ATTR_FAMILY_NAME, RCLINK_FAMILY_NAME);
	err = nl_talk(nl, &r, family_cb, &nl->family);
	if (err || !nl->family)
		die("generic netlink family %s: %s (is rclink.ko loaded?)",
		    RCLINK_FAMILY_NAME, err ? strerror(-err) : "not found");
}

struct board {
	const char *name;
	uint32_t qp_num;
	uint32_t ip;		/* network order */
	uint8_t mac[6];
};

static void dev_cb(struct nlattr *head, int len, void *arg)
{
	struct board *b = arg;
	struct nlattr *a;
	void *d;

	nla_for_each(a, head, len) {
		d = (char *)a + NLA_HDRLEN;
		switch (a->nla_type & NLA_TYPE_MASK) {
		case RCLINK_A_DEV_QP_NUM:
			b->qp_num = *(uint32_t *)d;
			break;
		case RCLINK_A_DEV_IP:
			b->ip = *(uint32_t *)d;
			break;
		case RCLINK_A_DEV_MAC:
			memcpy(b->mac, d, 6);
			break;
		}
	}
}

static void dev_get(struct nl *nl, struct board *b)
{
	struct nlreq r;
	int err;

	nl_init(&r, nl->family, RCLINK_CMD_DEV_GET, RCLINK_FAMILY_VERSION);
	nl_put_str(&r, RCLINK_A_DEV_NAME, b->name);
	err = nl_talk(nl, &r, dev_cb, b);
	if (err)
		die("rclink dev show dev %s: %s", b->name, strerror(-err));
}

static int qp_add(struct nl *nl, struct board *b, const struct board *peer,
		  uint32_t qpn)
{
	struct nlreq r;

	nl_init(&r, nl->family, RCLINK_CMD_QP_NEW, RCLINK_FAMILY_VERSION);
	nl_put_str(&r, RCLINK_A_QP_DEV_NAME, b->name);
	nl_put_u32(&r, RCLINK_A_QP_QPN, qpn);
	nl_put_u32(&r, RCLINK_A_QP_DQPN, qpn);
	nl_put_u32(&r, RCLINK_A_QP_DIP, peer->ip);
	nl_put(&r, RCLINK_A_QP_DMAC, peer->mac, 6);
	return nl_talk(nl, &r, NULL, NULL);
}

static int qp_del(struct nl *nl, struct board *b, uint32_t qpn)
{
	struct nlreq r;

	nl_init(&r, nl->family, RCLINK_CMD_QP_DEL, RCLINK_FAMILY_VERSION);
	nl_put_str(&r, RCLINK_A_QP_DEV_NAME, b->name);
	nl_put_u32(&r, RCLINK_A_QP_QPN, qpn);
	return nl_talk(nl, &r, NULL, NULL);
}

/* kB of a /proc/meminfo field */
static long meminfo(const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* Slab + KernelStack + PageTables + VmallocUsed + Percpu, kB */
static long kernel_kb(void)
{
	static const char *const keys[] = { "Slab", "KernelStack",
		"PageTables", "VmallocUsed", "Percpu" };
	long sum = 0, v;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = meminfo(keys[i]);
		if (v > 0)
			sum += v;
	}
	return sum;
}

static void settle(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "3", 1) < 0)
			fprintf(stderr, "%s: drop_caches: %s\n", prog,
				strerror(errno));
		close(fd);
	}
	usleep(200000);
}

static int do_qps(char **argv)
{
	struct board a = { .name = argv[0] }, b = { .name = argv[1] };
	long k0, k1, k2, m0, m1, m2;
	double t0, t_add, t_bind, t_del;
	struct rlimit rl;
	uint32_t n, q;
	struct nl nl;
	int *fa, *fb, err;
	uint8_t msg[64];

	nl_open(&nl);
	dev_get(&nl, &a);
	dev_get(&nl, &b);
	n = a.qp_num < b.qp_num ? a.qp_num : b.qp_num;
	if (opt.count && opt.count < n)
		n = opt.count;
	if (!n)
		die("QP_NUM is 0");
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 2 * n + 64) {
		rl.rlim_cur = rl.rlim_max < 2 * n + 64 ? rl.rlim_max :
			      2 * n + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	fa = calloc(n, sizeof(*fa));
	fb = calloc(n, sizeof(*fb));
	if (!fa || !fb)
		die("out of memory");

	settle();
	k0 = kernel_kb();
	m0 = meminfo("MemAvailable");
	t0 = now();
	for (q = 0; q < n; q++) {
		err = qp_add(&nl, &a, &b, q);
		if (!err)
			err = qp_add(&nl, &b, &a, q);
		if (err)
			die("qp add qpn %u: %s", q, strerror(-err));
	}
	t_add = now() - t0;
	t0 = now();
	for (q = 0; q < n; q++) {
		fa[q] = open_bound(a.name, q);
		fb[q] = open_bound(b.name, q);
	}
	t_bind = now() - t0;
	/* they work: one message on the last pair */
	fill(msg, sizeof(msg), 7);
	write_msg(fa[n - 1], msg, sizeof(msg));
	read_msg(fb[n - 1], msg, sizeof(msg));
	settle();
	k1 = kernel_kb();
	m1 = meminfo("MemAvailable");

	t0 = now();
	for (q = 0; q < n; q++) {
		close(fa[q]);
		close(fb[q]);
	}
	for (q = 0; q < n; q++) {
		err = qp_del(&nl, &a, q);
		if (!err)
			err = qp_del(&nl, &b, q);
		if (err)
			die("qp del qpn %u: %s", q, strerror(-err));
	}
	t_del = now() - t0;
	settle();
	k2 = kernel_kb();
	m2 = meminfo("MemAvailable");
	printf("test=qps qp_num_a=%u qp_num_b=%u qps_per_board=%u qps=%u"
	       " add_secs=%.3f bind_secs=%.3f add_bind_us_per_qp=%.0f"
	       " unbind_del_secs=%.3f kernel_kb=%ld kernel_b_per_qp=%.0f"
	       " memavail_kb=%ld memavail_b_per_qp=%.0f"
	       " kernel_kb_after_del=%ld\n",
	       a.qp_num, b.qp_num, n, 2 * n, t_add, t_bind,
	       (t_add + t_bind) / (2.0 * n) * 1e6, t_del, k1 - k0,
	       (k1 - k0) * 1024.0 / (2 * n), m0 - m1,
	       (m0 - m1) * 1024.0 / (2 * n), k2 - k0);
	(void)m2;
	free(fa);
	free(fb);
	close(nl.fd);
	return 0;
}

/* ---- mark --------------------------------------------------------------- */

static int do_mark(char **argv)
{
	uint64_t d, k;
	int status = 0;
	pid_t pid;
	FILE *f = stdout;

	if (!argv[0]) {
		struct timespec ts = {
			.tv_sec = (time_t)opt.secs,
			.tv_nsec = (long)((opt.secs - (time_t)opt.secs) * 1e9),
		};

		insn_begin();
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		insn_end();
		goto report;
	}
	insn_begin();
	if (!insn_log)
		fprintf(stderr, "%s: no RCLINK_INSN_LOG: not counting\n", prog);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	insn_end();
report:
	if (opt.out) {
		f = fopen(opt.out, "w");
		if (!f)
			die("%s: %s", opt.out, strerror(errno));
	}
	if (!insn_delta(&d, &k))
		fprintf(f, "insns=- kinsns=-\n");
	else
		fprintf(f, "insns=%" PRIu64 " kinsns=%" PRIu64 "\n", d, k);
	if (f != stdout)
		fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* ---- main ------------------------------------------------------------------ */

/* ---- one-sided WRITE and READ between two contexts -------------------- */

/* A's operations completed so far; dies on an error completion */
static uint64_t rdma_reap(struct uside *u, bool write)
{
	struct rclink_wc wc;
	uint64_t n = 0;

	while (rclink_cq_next(&u->c, &wc)) {
		if (wc.status != RCLINK_WC_OK ||
		    wc.kind != (write ? RCLINK_WC_WRITE : RCLINK_WC_READ))
			die("context %u: %s completion kind %u status %u",
			    u->c.id, write ? "WRITE" : "READ", wc.kind,
			    wc.status);
		n++;
	}
	rclink_cq_done(&u->c);
	return n;
}

/*
 * The window full and nothing reaped: arm, look once more, sleep until the
 * CQ event (the context's moderation: half the window); what was reaped
 */
static uint64_t rdma_wait(struct uside *u, bool write)
{
	uint64_t n;

	rclink_arm_cq(&u->c);
	n = rdma_reap(u, write);
	if (n)
		return n;
	uctx_block(u);
	return rdma_reap(u, write);
}

/*
 * A context with sq_entries SQ entries and an area of one operation; a CQ
 * event after event completions (or 2 ms after the first)
 */
static void rdma_open(struct uside *u, const char *dev, uint32_t qpn,
		      uint32_t sq_entries, uint32_t event)
{
	struct rclink_uctx_attr a = { 0 };

	u->nslots = pow2(sq_entries < 16 ? 16 : sq_entries);
	u->slot = (opt.size + 4095) & ~4095u;
	a.sq_entries = u->nslots;
	a.rq_entries = 16;
	a.cq_entries = u->nslots;
	a.area_size = u->slot;
	a.mod_count = event;
	a.mod_usec = event > 1 ? 2000 : 0;
	ctx_open(u, dev, qpn, &a, "rdma (contexts)");
}

static int do_rdma(char **argv, bool write)
{
	uint64_t posted = 0, done = 0, irqs, irqs_b, i, n, sleeps;
	uint32_t rkey, window, slots;
	char pci_b[64];
	double t0, secs, *t = NULL;
	int err;

	if (opt.size > 1u << 20)
		die("%s: at most 1 MiB per operation", write ? "WRITE" : "READ");
	/* each operation takes two SQ entries */
	slots = opt.lat ? 1 : opt.window;
	rdma_open(&ua, argv[0], strtoul(argv[1], NULL, 0), 2 * slots,
		  slots / 2);
	rdma_open(&ub, argv[2], strtoul(argv[3], NULL, 0), 16, 0);
	window = opt.lat ? 1 : ua.nslots / 2;
	if (rclink_mr_reg(&ub.c, 0, ub.slot, RCLINK_MR_REMOTE_WRITE |
			  RCLINK_MR_REMOTE_READ, NULL, &rkey)) {
		if (errno == EOPNOTSUPP) {
			printf("rdma: the board has no registration table\n");
			exit(EXIT_NORING);
		}
		die("registration: %s", strerror(errno));
	}
	fill(rclink_uctx_area(&ua.c, 0), opt.size, 1);
	if (opt.lat) {
		t = calloc(opt.count, sizeof(*t));
		if (!t)
			die("out of memory");
	}
	board_pci(argv[2], pci_b, sizeof(pci_b));
	irqs = board_irqs();
	irqs_b = irqs_of(pci_b);
	sleeps = ua.sleeps;
	insn_begin();
	t0 = now();
	if (opt.lat) {
		for (i = 0; i < opt.count; i++) {
			double s = now();

			err = write ? rclink_post_write(&ua.c, ua.qpn, 0,
							opt.size, rkey, 0) :
				      rclink_post_read(&ua.c, ua.qpn, 0,
						       opt.size, rkey, 0);
			if (err)
				die("post: %s", strerror(errno));
			rclink_uctx_doorbell(&ua.c);
			while (!rdma_reap(&ua, write))
				;
			t[i] = now() - s;
		}
		done = opt.count;
	} else {
		while (done < opt.count) {
			while (posted < opt.count && posted - done < window) {
				err = write ?
				      rclink_post_write(&ua.c, ua.qpn, 0,
							opt.size, rkey, 0) :
				      rclink_post_read(&ua.c, ua.qpn, 0,
						       opt.size, rkey, 0);
				if (err)
					break;
				posted++;
			}
			rclink_uctx_doorbell(&ua.c);
			n = rdma_reap(&ua, write);
			/* the window full: sleep until half of it is done */
			if (!n && posted - done == window)
				n = rdma_wait(&ua, write);
			done += n;
		}
	}
	secs = now() - t0;
	insn_end();
	irqs = board_irqs() - irqs;
	irqs_b = irqs_of(pci_b) - irqs_b;
	if (opt.lat) {
		qsort(t, opt.count, sizeof(*t), cmp_double);
		printf("test=%s_lat size=%u ops=%" PRIu64
		       " med_us=%.1f p99_us=%.1f",
		       write ? "write" : "read", opt.size, opt.count,
		       t[opt.count / 2] * 1e6,
		       t[(opt.count * 99) / 100] * 1e6);
		free(t);
	} else {
		printf("test=%s size=%u window=%u ops=%" PRIu64
		       " secs=%.3f op_per_s=%.0f MBps=%.3f sleeps_per_op=%.4f",
		       write ? "write" : "read", opt.size, window, done, secs,
		       done / secs, done * (double)opt.size / secs / 1e6,
		       (double)(ua.sleeps - sleeps) / done);
	}
	printf(" irq_per_op=%.3f irq_b_per_op=%.3f", (double)irqs / done,
	       (double)irqs_b / done);
	print_insns(done);
	printf("\n");
	uctx_close(&ua);
	uctx_close(&ub);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: rclink-bench tput|lat [OPTS] DEV_A QPN_A DEV_B QPN_B\n"
		"       rclink-bench write|read [-s SIZE] [-n COUNT] [-w WINDOW] [-l]\n"
		"                    DEV_A QPN_A DEV_B QPN_B\n"
		"       rclink-bench qps [-n COUNT] DEV_A DEV_B\n"
		"       rclink-bench mark [-o FILE] -- COMMAND [ARG...]\n"
		"       rclink-bench mark [-o FILE] -t SECONDS\n"
		"OPTS: -s SIZE -n COUNT -p rw|ring|uctx -b BATCH -w WINDOW -W WARMUP\n"
		"      -e EVENT (uctx: completions per CQ event, 128)\n"
		"      -S (uctx: every SEND signaled; default: the last of a batch)\n");
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const char *mode;
	int c, nargs;

	if (argc < 2)
		return usage();
	mode = argv[1];
	argv++;
	argc--;
	while ((c = getopt(argc, argv, "+s:n:p:b:w:W:o:t:me:lS")) != -1) {
		switch (c) {
		case 'm':
			opt.mcast = true;
			break;
		case 'l':
			opt.lat = true;
			break;
		case 's':
			opt.size = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			opt.count = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			if (!strcmp(optarg, "ring"))
				opt.ring = true;
			else if (!strcmp(optarg, "uctx"))
				opt.uctx = true;
			else if (strcmp(optarg, "rw"))
				return usage();
			break;
		case 'b':
			opt.batch = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			opt.event = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			opt.quiet = false;
			break;
		case 'w':
			opt.window = strtoul(optarg, NULL, 0);
			break;
		case 'W':
			opt.warmup = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			opt.out = optarg;
			break;
		case 't':
			opt.secs = strtod(optarg, NULL);
			break;
		default:
			return usage();
		}
	}
	argv += optind;
	argc -= optind;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "mark"))
		return argc || opt.secs > 0 ? do_mark(argv) : usage();
	if (!strcmp(mode, "qps"))
		return argc == 2 ? do_qps(argv) : usage();
	nargs = 4;
	if (argc != nargs || !opt.size)
		return usage();
	if (!strcmp(mode, "tput")) {
		if (!opt.count)
			opt.count = 2000;
		if (!opt.batch)
			opt.batch = 32;
		if (opt.window < 2 * opt.batch)
			opt.window = 2 * opt.batch;
		return opt.uctx ? uctx_tput(argv) : do_tput(argv);
	}
	if (!strcmp(mode, "write") || !strcmp(mode, "read")) {
		if (!opt.count)
			opt.count = opt.lat ? 200 : 2000;
		if (opt.window > 512)
			opt.window = 512;
		return do_rdma(argv, !strcmp(mode, "write"));
	}
	if (!strcmp(mode, "lat")) {
		if (!opt.count)
			opt.count = 200;
		opt.batch = 1;
		return opt.uctx ? uctx_lat(argv) : do_lat(argv);
	}
	return usage();
}
