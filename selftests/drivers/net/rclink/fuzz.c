// SPDX-License-Identifier: GPL-2.0
/*
 * Random and malformed input from user space and from the wire, seeded:
 *
 *   netlink_root, netlink_user  RCLINK_FUZZ_N generic netlink messages to
 *       the family "rclink" (random commands, flags, versions, attributes
 *       of random types, lengths and payloads, lengths that lie), as root
 *       and as nobody: every request with NLM_F_ACK gets its answer within
 *       5 s, every refusal is an errno the kernel may return (no
 *       EINVAL-free crash), and nobody is refused with EPERM for what
 *       changes state
 *   cdev_root, cdev_user  RCLINK_FUZZ_N random calls on /dev/rclinkN
 *                   (the contexts' ioctls and mmap offsets included,
 *                   and the registrations of RDMA WRITE and READ):
 *       ioctls (the driver's and random numbers, arguments valid, NULL, bad
 *       and kernel pointers), reads and writes of random sizes at random
 *       pointers, mmap/munmap of random offsets, sizes and flags, ring
 *       setups and ring enters over garbage SQEs, binds, unbinds, closes;
 *       each call returns (the watchdog fails the test after 10 s without
 *       a call completing)
 *   wire  RCLINK_FUZZ_FRAMES malformed frames from board A's TYPE3 netdev
 *       (AF_PACKET) to board B: TYPE1 frames (IPv4/UDP 4791) with random
 *       RH fields, lengths and checksums aimed at B's QPs, and random
 *       frames of other types
 *
 * After each test the boards must still carry a message A -> B (the
 * wrapper fuzz.sh checks that, the kernel log, and puts back the
 * configuration the netlink fuzzing changed).  Environment (set by
 * fuzz.sh): RCLINK_T1_A/_B, RCLINK_T1_IP_A/_B, RCLINK_T1_MAC_A/_B,
 * RCLINK_IF_A (A's netdev), RCLINK_FUZZ_N (default 2000),
 * RCLINK_FUZZ_FRAMES (default 20000), RCLINK_FUZZ_SEED.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/genetlink.h>
#include <linux/if_packet.h>
#include <linux/netlink.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/rclink_dev.h>
#include <linux/rclink_nl.h>

#include "kselftest_harness.h"

#define NOBODY		65534

static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static uint32_t rnd_below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static void rnd_fill(void *p, size_t n)
{
	uint8_t *b = p;

	while (n--)
		*b++ = (uint8_t)rnd();
}

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : def;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Become nobody (in a child); false when that is not possible */
static bool drop_root(void)
{
	return !setgroups(0, NULL) && !setgid(NOBODY) && !setuid(NOBODY);
}

/* ------------------------------------------------------------------ */
/* generic netlink                                                      */

struct nlsock {
	int fd;
	uint16_t family;
	uint32_t seq;
};

static int nl_open(struct nlsock *s)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 5 };
	int one = 1;

	s->fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_GENERIC);
	if (s->fd < 0)
		return -1;
	setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return bind(s->fd, (struct sockaddr *)&sa, sizeof(sa));
}

/* The family's id (CTRL_CMD_GETFAMILY); 0 when unknown */
static uint16_t nl_family(struct nlsock *s, const char *name)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char buf[64];
	} req = {};
	char ans[4096];
	struct nlattr *a;
	ssize_t len;
	int off;

	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = ++s->seq;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	a = (struct nlattr *)req.buf;
	a->nla_type = CTRL_ATTR_FAMILY_NAME;
	a->nla_len = NLA_HDRLEN + strlen(name) + 1;
	strcpy((char *)a + NLA_HDRLEN, name);
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len);
	if (send(s->fd, &req, req.n.nlmsg_len, 0) < 0)
		return 0;
	len = recv(s->fd, ans, sizeof(ans), 0);
	if (len < (ssize_t)(NLMSG_HDRLEN + GENL_HDRLEN))
		return 0;
	for (off = NLMSG_HDRLEN + GENL_HDRLEN; off + NLA_HDRLEN <= len;
	     off += NLA_ALIGN(a->nla_len)) {
		a = (struct nlattr *)(ans + off);
		if (a->nla_len < NLA_HDRLEN)
			break;
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			return *(uint16_t *)((char *)a + NLA_HDRLEN);
	}
	return 0;
}

/* One random request; returns its sequence number */
static uint32_t nl_random_msg(struct nlsock *s, uint8_t *buf, size_t cap,
			      size_t *lenp)
{
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(n);
	size_t off = NLMSG_LENGTH(GENL_HDRLEN), alen;
	struct nlattr *a;
	uint32_t i, nattr = rnd_below(8);

	memset(buf, 0, NLMSG_LENGTH(GENL_HDRLEN));
	n->nlmsg_type = rnd_below(50) ? s->family : rnd_below(0x40);
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	if (!rnd_below(4))
		n->nlmsg_flags |= NLM_F_DUMP;
	n->nlmsg_seq = ++s->seq;
	g->cmd = rnd_below(20) ? rnd_below(RCLINK_CMD_MAX + 3) : (uint8_t)rnd();
	g->version = rnd_below(10) ? RCLINK_FAMILY_VERSION : (uint8_t)rnd();
	for (i = 0; i < nattr && off + 64 + NLA_HDRLEN < cap; i++) {
		a = (struct nlattr *)(buf + off);
		alen = rnd_below(4) ? rnd_below(9) : rnd_below(64);
		/* the dev set is the largest of the three top-level sets */
		a->nla_type = rnd_below(8) ? rnd_below(RCLINK_A_DEV_MAX + 4) :
					     (uint16_t)rnd();
		a->nla_len = NLA_HDRLEN + alen;
		rnd_fill((uint8_t *)a + NLA_HDRLEN, alen);
		/* now and then a length that lies */
		if (!rnd_below(30))
			a->nla_len = (uint16_t)rnd();
		off += NLA_ALIGN(NLA_HDRLEN + alen);
	}
	n->nlmsg_len = off;
	if (!rnd_below(40))
		n->nlmsg_len = rnd_below(off + 16);
	*lenp = off;
	return n->nlmsg_seq;
}

struct nl_result {
	unsigned long sent, acked, refused, eperm, changed, timeouts;
	unsigned long err[256];
};

/*
 * Read until the answer (error or ACK) of seq arrives; dumps end with
 * NLMSG_DONE.  False on a timeout.
 */
static bool nl_answer(struct nlsock *s, uint32_t seq, struct nl_result *r,
		      uint8_t cmd)
{
	static char ans[65536];
	struct nlmsghdr *h;
	ssize_t len;
	int e;

	for (;;) {
		len = recv(s->fd, ans, sizeof(ans), 0);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)	/* a dump overran: fine */
				continue;
			return false;
		}
		for (h = (struct nlmsghdr *)ans; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return true;
			if (h->nlmsg_type != NLMSG_ERROR)
				continue;
			e = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (e) {
				r->refused++;
				r->err[e & 0xff]++;
				if (e == EPERM)
					r->eperm++;
			} else {
				r->acked++;
				if (cmd == RCLINK_CMD_DEV_SET ||
				    cmd == RCLINK_CMD_QP_NEW ||
				    cmd == RCLINK_CMD_QP_SET ||
				    cmd == RCLINK_CMD_QP_DEL)
					r->changed++;
			}
			return true;
		}
	}
}

static int nl_fuzz(struct __test_metadata *_metadata, unsigned long n,
		   struct nl_result *r)
{
	struct nlsock s = {};
	uint8_t buf[1024];
	unsigned long i;
	size_t len;
	uint32_t seq;

	if (nl_open(&s))
		return -1;
	s.family = nl_family(&s, RCLINK_FAMILY_NAME);
	if (!s.family) {
		TH_LOG("no generic netlink family %s", RCLINK_FAMILY_NAME);
		return -1;
	}
	for (i = 0; i < n; i++) {
		seq = nl_random_msg(&s, buf, sizeof(buf), &len);
		if (send(s.fd, buf, ((struct nlmsghdr *)buf)->nlmsg_len, 0) < 0) {
			/* a length that lies can be refused at send: fine */
			r->err[errno & 0xff]++;
			continue;
		}
		r->sent++;
		/* a datagram shorter than its header gets no answer */
		if (((struct nlmsghdr *)buf)->nlmsg_len < NLMSG_HDRLEN)
			continue;
		/* a state change counts only for a request to the family */
		if (!nl_answer(&s, seq, r,
			       ((struct nlmsghdr *)buf)->nlmsg_type == s.family ?
			       ((struct genlmsghdr *)
				NLMSG_DATA((struct nlmsghdr *)buf))->cmd : 0))
			r->timeouts++;
	}
	close(s.fd);
	return 0;
}

static void nl_report(const char *who, struct nl_result *r)
{
	char line[512];
	int i, off = 0;

	for (i = 1; i < 256; i++)
		if (r->err[i] && off < (int)sizeof(line) - 32)
			off += snprintf(line + off, sizeof(line) - off, " %s:%lu",
					strerrorname_np(i) ?: "?", r->err[i]);
	ksft_print_msg("netlink %s: %lu sent, %lu acked (%lu changing state), %lu refused, %lu unanswered;%s\n",
		       who, r->sent, r->acked, r->changed, r->refused,
		       r->timeouts, line);
}

/* Run fn in a child (as nobody when user), so a crash is a failure too */
static int in_child(bool user, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		if (user && !drop_root())
			_exit(KSFT_SKIP);
		_exit(fn(arg) ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

struct nl_job {
	struct __test_metadata *md;
	unsigned long n;
	bool user;
	struct nl_result *r;	/* shared memory */
};

static int nl_job(void *arg)
{
	struct nl_job *j = arg;

	if (nl_fuzz(j->md, j->n, j->r))
		return 1;
	nl_report(j->user ? "as nobody" : "as root", j->r);
	if (j->r->timeouts)
		return 1;
	/* nobody changes nothing */
	if (j->user && j->r->changed)
		return 1;
	return 0;
}

static void netlink_run(struct __test_metadata *_metadata, bool user)
{
	struct nl_result *r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct nl_job j = { _metadata, env_ul("RCLINK_FUZZ_N", 2000), user, r };
	int rc;

	ASSERT_NE(MAP_FAILED, r);
	rc = in_child(user, nl_job, &j);
	if (rc == KSFT_SKIP)
		SKIP(return, "cannot become nobody");
	EXPECT_EQ(0, rc) TH_LOG("child: %d (unanswered %lu, state changes %lu)",
				rc, r->timeouts, r->changed);
	EXPECT_EQ(0, r->timeouts);
	if (user)
		EXPECT_EQ(0, r->changed);
	EXPECT_LT(0, r->sent);
	munmap(r, sizeof(*r));
}

/* no state: a fixture only for the timeouts */
FIXTURE(fz) {
	int unused;
};

FIXTURE_SETUP(fz)
{
}

FIXTURE_TEARDOWN(fz)
{
}

TEST_F_TIMEOUT(fz, netlink_root, 3600)
{
	rng = env_ul("RCLINK_FUZZ_SEED", 0x52434c46) | 1;
	netlink_run(_metadata, false);
}

TEST_F_TIMEOUT(fz, netlink_user, 3600)
{
	rng = (env_ul("RCLINK_FUZZ_SEED", 0x52434c46) ^ 0x5a5a) | 1;
	netlink_run(_metadata, true);
}

/* ------------------------------------------------------------------ */
/* the character device                                                 */

struct cdev_job {
	const char *path;
	unsigned long n;
	bool user;
	unsigned long *calls;	/* shared: the watchdog looks */
	unsigned long *errs;	/* shared: errno histogram */
};

static void *bad_ptr(void *good)
{
	switch (rnd_below(5)) {
	case 0:
		return NULL;
	case 1:
		return (void *)1;
	case 2:
		return (void *)0xffff888000000000ULL;	/* kernel memory */
	case 3:
		return (void *)(uintptr_t)rnd();
	default:
		return good;
	}
}

/* DRAIN is left out: it waits for the peer, which does not read here */
static const unsigned long cdev_cmds[] = {
	RCLINK_IOC_BIND, RCLINK_IOC_UNBIND, RCLINK_IOC_INFO,
	RCLINK_IOC_SET_WINDOW, FIONREAD, RCLINK_IOC_RING_SETUP,
	RCLINK_IOC_RING_ENTER, RCLINK_IOC_INFO, RCLINK_IOC_CTX_CREATE,
	RCLINK_IOC_CTX_BIND, RCLINK_IOC_CTX_EVENTS, RCLINK_IOC_MR_REG,
	RCLINK_IOC_MR_DEREG,
};

#define NCMDS	(sizeof(cdev_cmds) / sizeof(cdev_cmds[0]))

/* mmap offsets: the rings', the contexts' and a doorbell page's */
static off_t cdev_off(void)
{
	static const off_t offs[] = {
		RCLINK_RING_OFF_RINGS, RCLINK_RING_OFF_AREA, 0x80000000,
		0x81000000, 0x82000000, 0x83000000, 0x84000000,
	};

	if (!rnd_below(4))
		return 0x100000000LL + ((off_t)rnd_below(70) << 16);
	return offs[rnd_below(sizeof(offs) / sizeof(offs[0]))];
}

static int cdev_job(void *arg)
{
	struct cdev_job *j = arg;
	uint8_t *buf = malloc(1 << 17);
	int fd = -1, op;
	unsigned long i;
	void *m;
	long rc;

	if (!buf)
		return 1;
	for (i = 0; i < j->n; i++, (*j->calls)++) {
		if (fd < 0 || !rnd_below(200)) {
			if (fd >= 0)
				close(fd);
			/* never blocking: B does not read, so a sleep is for ever */
			fd = open(j->path, O_RDWR | O_NONBLOCK);
			if (fd < 0)
				return 2;
			if (!rnd_below(3)) {
				/* a real binding now and then: QPs 0..15 */
				struct rclink_bind b = {
					.size = sizeof(b), .qpn = rnd_below(16),
				};

				ioctl(fd, RCLINK_IOC_BIND, &b);
			}
		}
		rnd_fill(buf, 256);
		op = rnd_below(100);
		errno = 0;
		if (op < 45) {
			unsigned long cmd = rnd_below(4) ?
					    cdev_cmds[rnd_below(NCMDS)] :
					    (unsigned long)rnd();

			/*
			 * sane sizes mostly, so the checks behind are reached:
			 * the struct's size field, its flags 0 now and then
			 */
			if (rnd_below(4)) {
				uint32_t *hdr = (uint32_t *)buf;

				hdr[0] = rnd_below(4) ? _IOC_SIZE(cmd) :
					 (uint32_t)rnd_below(64);
				if (rnd_below(2))
					hdr[1] = 0;
			}
			if (cmd == RCLINK_IOC_RING_SETUP && rnd_below(2)) {
				struct rclink_ring_setup *p = (void *)buf;

				memset(p, 0, sizeof(*p));
				p->size = sizeof(*p);
				p->sq_entries = 1U << rnd_below(14);
				p->area_size = rnd_below(3) ? 65536 : (uint32_t)rnd();
			}
			if (cmd == RCLINK_IOC_CTX_CREATE && rnd_below(2)) {
				struct rclink_ctx_create *p = (void *)buf;

				memset(p, 0, sizeof(*p));
				p->size = sizeof(*p);
				p->sq_entries = 8U << rnd_below(5);
				p->rq_entries = 16U << rnd_below(3);
				p->cq_entries = 16U << rnd_below(3);
				p->area_size = rnd_below(3) ? 4096U << rnd_below(6) :
					       (uint32_t)rnd();
				p->mod_count = rnd_below(4);
			}
			if (cmd == RCLINK_IOC_MR_REG && rnd_below(2)) {
				struct rclink_mr_reg *p = (void *)buf;

				/* the area, or some of the fuzzer's own memory */
				memset(p, 0, sizeof(*p));
				p->size = sizeof(*p);
				p->length = 1 + rnd_below(1 << 20);
				p->access = rnd_below(4);
				if (rnd_below(2)) {
					p->flags = RCLINK_MR_REG_USER;
					p->addr = (uintptr_t)buf +
						  rnd_below(64);
					p->length = 1 + rnd_below(64);
				} else {
					p->offset = rnd_below(1 << 16);
				}
			}
			if (cmd == RCLINK_IOC_MR_DEREG && rnd_below(2)) {
				struct rclink_mr_dereg *p = (void *)buf;

				memset(p, 0, sizeof(*p));
				p->size = sizeof(*p);
				p->key = rnd_below(4) ? (uint32_t)rnd_below(8) |
					 (uint32_t)rnd_below(4) << 16 :
					 (uint32_t)rnd();
			}
			if (cmd == RCLINK_IOC_DRAIN)
				continue;
			if (cmd == RCLINK_IOC_RING_ENTER) {
				/* never wait: min_complete 0 */
				((struct rclink_ring_enter *)buf)->min_complete = 0;
			}
			rc = ioctl(fd, cmd, rnd_below(3) ? buf : bad_ptr(buf));
		} else if (op < 60) {
			rc = read(fd, rnd_below(4) ? buf : bad_ptr(buf),
				  rnd_below(2) ? rnd_below(1 << 17) : rnd());
		} else if (op < 75) {
			rc = write(fd, rnd_below(4) ? buf : bad_ptr(buf),
				   rnd_below(2) ? rnd_below(1 << 17) : rnd_below(64));
		} else if (op < 90) {
			size_t len = rnd_below(3) ? 4096 * (1 + rnd_below(32)) :
					(size_t)rnd_below(1 << 30);
			off_t off = rnd_below(3) ? cdev_off() :
					(off_t)(rnd() & ~0xfffULL);
			int prot = rnd_below(4) ? PROT_READ | PROT_WRITE : (int)rnd_below(8);
			int flags = rnd_below(4) ? MAP_SHARED : MAP_PRIVATE;

			m = mmap(NULL, len, prot, flags, fd, off);
			rc = m == MAP_FAILED ? -1 : 0;
			if (m != MAP_FAILED) {
				/* touch it, then (mostly) unmap */
				if (prot & PROT_WRITE)
					memset(m, 0x5a, len < 8192 ? len : 8192);
				else if (prot & PROT_READ)
					rc = *(volatile uint8_t *)m;
				if (rnd_below(8))
					munmap(m, len);
			}
		} else if (op < 97) {
			struct rclink_ring_enter e = {
				.size = sizeof(e), .to_submit = rnd_below(64), .min_complete = 0,
			};

			rc = ioctl(fd, RCLINK_IOC_RING_ENTER, &e);
		} else {
			rc = ioctl(fd, RCLINK_IOC_UNBIND);
		}
		if (rc < 0)
			j->errs[errno & 0xff]++;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return 0;
}

static void cdev_run(struct __test_metadata *_metadata, bool user)
{
	const char *dev = getenv("RCLINK_T1_A");
	unsigned long *shared;
	struct cdev_job j;
	char path[64], line[512];
	unsigned long last = 0;
	double stuck = now_s();
	int i, off = 0, st = 0;
	struct stat sb;
	pid_t pid;

	if (!dev)
		SKIP(return, "run by fuzz.sh (RCLINK_T1_A not set)");
	snprintf(path, sizeof(path), "/dev/%s", dev);
	ASSERT_EQ(0, stat(path, &sb));
	shared = mmap(NULL, 257 * sizeof(long), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	memset(shared, 0, 257 * sizeof(long));
	j = (struct cdev_job){ path, env_ul("RCLINK_FUZZ_N", 2000), user,
			       &shared[0], &shared[1] };
	/* nobody may use the device when its mode allows it (as udev may) */
	if (user)
		chmod(path, 0666);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (user && !drop_root())
			_exit(KSFT_SKIP);
		_exit(cdev_job(&j));
	}
	/* the watchdog: a call that never returns fails the test */
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (shared[0] != last) {
			last = shared[0];
			stuck = now_s();
		} else if (now_s() - stuck > 10) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			if (user)
				chmod(path, sb.st_mode & 07777);
			ASSERT_TRUE(false) TH_LOG("call %lu did not return in 10 s",
						 last);
		}
		usleep(20000);
	}
	if (user)
		chmod(path, sb.st_mode & 07777);
	for (i = 1; i < 256; i++)
		if (shared[1 + i] && off < (int)sizeof(line) - 32)
			off += snprintf(line + off, sizeof(line) - off, " %s:%lu",
					strerrorname_np(i) ?: "?", shared[1 + i]);
	line[off] = 0;
	ksft_print_msg("/dev/%s %s: %lu calls; refusals%s\n", dev,
		       user ? "as nobody" : "as root", shared[0], line);
	if (WIFEXITED(st) && WEXITSTATUS(st) == KSFT_SKIP)
		SKIP(return, "cannot become nobody");
	EXPECT_TRUE(WIFEXITED(st)) TH_LOG("fuzzer killed by signal %d",
					  WTERMSIG(st));
	EXPECT_EQ(0, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	EXPECT_EQ(j.n, shared[0]);
	munmap(shared, 257 * sizeof(long));
}

TEST_F_TIMEOUT(fz, cdev_root, 3600)
{
	rng = (env_ul("RCLINK_FUZZ_SEED", 0x52434c46) ^ 0xc0de) | 1;
	cdev_run(_metadata, false);
}

TEST_F_TIMEOUT(fz, cdev_user, 3600)
{
	rng = (env_ul("RCLINK_FUZZ_SEED", 0x52434c46) ^ 0xbeef) | 1;
	cdev_run(_metadata, true);
}

/* ------------------------------------------------------------------ */
/* the wire                                                             */

static uint16_t ip_csum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (b[i] << 8) | b[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static int parse_mac(const char *s, uint8_t *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		      &mac[2], &mac[3], &mac[4], &mac[5]) == 6 ? 0 : -1;
}

TEST_F_TIMEOUT(fz, wire, 3600)
{
	const char *ifname = getenv("RCLINK_IF_A");
	const char *mac_a = getenv("RCLINK_T1_MAC_A");
	const char *mac_b = getenv("RCLINK_T1_MAC_B");
	const char *ip_a = getenv("RCLINK_T1_IP_A");
	const char *ip_b = getenv("RCLINK_T1_IP_B");
	unsigned long n = env_ul("RCLINK_FUZZ_FRAMES", 20000), i, sent = 0;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	uint8_t f[1600], src[6], dst[6];
	struct in_addr sa, da;
	size_t len, plen;
	int fd;

	if (!ifname || !mac_a || !mac_b || !ip_a || !ip_b)
		SKIP(return, "run by fuzz.sh (RCLINK_IF_A ... not set)");
	rng = (env_ul("RCLINK_FUZZ_SEED", 0x52434c46) ^ 0xf00d) | 1;
	ASSERT_EQ(0, parse_mac(mac_a, src));
	ASSERT_EQ(0, parse_mac(mac_b, dst));
	ASSERT_EQ(1, inet_pton(AF_INET, ip_a, &sa));
	ASSERT_EQ(1, inet_pton(AF_INET, ip_b, &da));
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	ASSERT_LE(0, fd);
	sll.sll_ifindex = if_nametoindex(ifname);
	sll.sll_halen = 6;
	ASSERT_NE(0, sll.sll_ifindex);
	for (i = 0; i < n; i++) {
		memcpy(f, rnd_below(8) ? dst : (uint8_t *)"\xff\xff\xff\xff\xff\xff", 6);
		memcpy(f + 6, src, 6);
		if (rnd_below(8)) {
			/* IPv4 / UDP 4791 / RH + payload (+ ICRC) */
			uint8_t *ip = f + 14, *udp = ip + 20;

			f[12] = 0x08;
			f[13] = 0x00;
			plen = rnd_below(4) ? 12 + rnd_below(1400) : rnd_below(12);
			memset(ip, 0, 28);
			ip[0] = rnd_below(16) ? 0x45 : (uint8_t)rnd();
			ip[2] = (20 + 8 + plen) >> 8;
			ip[3] = (uint8_t)(20 + 8 + plen);
			if (!rnd_below(16)) {
				ip[2] = (uint8_t)rnd();
				ip[3] = (uint8_t)rnd();
			}
			ip[8] = 64;
			ip[9] = rnd_below(16) ? 17 : (uint8_t)rnd();
			memcpy(ip + 12, &sa, 4);
			memcpy(ip + 16, &da, 4);
			{
				uint16_t c = ip_csum(ip, 20);

				if (!rnd_below(16))
					c ^= 1;
				ip[10] = c >> 8;
				ip[11] = (uint8_t)c;
			}
			udp[0] = 0x12;
			udp[1] = 0xb7;
			udp[2] = 0x12;
			udp[3] = rnd_below(16) ? 0xb7 : (uint8_t)rnd();	/* 4791 */
			udp[4] = (8 + plen) >> 8;
			udp[5] = (uint8_t)(8 + plen);
			rnd_fill(udp + 8, plen);
			if (plen >= 12 && rnd_below(2)) {
				/* a DEST_QP of the ones in use, small PSNs */
				udp[8] = 0;
				udp[9] = (uint8_t)rnd_below(16);
			}
			len = 14 + 20 + 8 + plen;
		} else {
			f[12] = (uint8_t)rnd();
			f[13] = (uint8_t)rnd();
			len = 14 + rnd_below(1500);
			rnd_fill(f + 14, len - 14);
		}
		if (len < 60) {
			memset(f + len, 0, 60 - len);
			len = 60;
		}
		if (sendto(fd, f, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) == (ssize_t)len)
			sent++;
		else if (errno == ENOBUFS || errno == EAGAIN)
			usleep(100);
	}
	close(fd);
	ksft_print_msg("wire: %lu of %lu malformed frames sent from %s\n", sent,
		       n, ifname);
	EXPECT_LT(n / 2, sent);
}

TEST_HARNESS_MAIN
