/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the C selftests of a wired pair of boards share (t1_uctx, t1_rdma):
 * the pair as their .sh wrapper describes it in the environment
 * (lib/rclink_lib.sh, rcl_t1_run_prog), shell commands, `rclink qp add` of
 * a QP on both boards, the locked-memory helpers of the RLIMIT_MEMLOCK
 * cases, reading the tool's JSON output, and a user context of one board
 * (struct side: open, close, the next CQE, the context's error).
 */
#ifndef RCLINK_T1_PAIR_H
#define RCLINK_T1_PAIR_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct t1env {
	const char *tool, *a, *b, *ip_a, *ip_b, *mac_a, *mac_b;
	unsigned int stall;		/* seconds without progress: a stall */
};

static struct t1env env;

/*
 * A case that may take longer than the harness's 30 s on a slow kernel
 * (the debug kernel's KASAN and lockdep under TCG): TEST_SLOW(name) gives
 * it 600 s.  Its name in the output is slow.NAME.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}
#define TEST_SLOW(name) TEST_F_TIMEOUT(slow, name, 600)

/* The pair from the environment; false when a variable is missing */
static inline bool env_load(void)
{
	const char *st = getenv("RCLINK_T1_STALL");

	env.tool = getenv("RCLINK_TOOL");
	env.a = getenv("RCLINK_T1_A");
	env.b = getenv("RCLINK_T1_B");
	env.ip_a = getenv("RCLINK_T1_IP_A");
	env.ip_b = getenv("RCLINK_T1_IP_B");
	env.mac_a = getenv("RCLINK_T1_MAC_A");
	env.mac_b = getenv("RCLINK_T1_MAC_B");
	env.stall = st && *st ? strtoul(st, NULL, 0) : 60;
	return env.tool && env.a && env.b && env.ip_a && env.ip_b &&
	       env.mac_a && env.mac_b;
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A shell command, its output discarded; its exit status */
static inline int __attribute__((format(printf, 1, 2)))
sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 16, fmt, ap);
	va_end(ap);
	strcat(cmd, " >/dev/null 2>&1");
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static inline void pair_del(uint32_t qpn);

/*
 * `rclink qp add` of a pair: A's qpn <-> B's qpn.  A case the harness
 * ended at its timeout left its QPs behind: they go first, so that one
 * slow case does not fail the cases after it.
 */
static inline int pair_add(uint32_t qpn)
{
	pair_del(qpn);
	if (sh("%s qp add dev %s qpn %u dqpn %u dip %s dmac %s", env.tool,
	       env.a, qpn, qpn, env.ip_b, env.mac_b))
		return -1;
	if (sh("%s qp add dev %s qpn %u dqpn %u dip %s dmac %s", env.tool,
	       env.b, qpn, qpn, env.ip_a, env.mac_a)) {
		sh("%s qp del dev %s qpn %u", env.tool, env.a, qpn);
		return -1;
	}
	return 0;
}

static inline void pair_del(uint32_t qpn)
{
	sh("%s qp del dev %s qpn %u", env.tool, env.a, qpn);
	sh("%s qp del dev %s qpn %u", env.tool, env.b, qpn);
}

/* VmLck of this process, kB */
static inline long vm_locked_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Drop CAP_IPC_LOCK from the effective set: RLIMIT_MEMLOCK counts */
static inline int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	return syscall(SYS_capset, &h, d);
}

/* ---- BAR0 of a board (sysfs resource0), for counters and test hooks ---- */

struct bar {
	char bdf[64];
	volatile uint8_t *p;
};

static inline int bar_open(struct bar *b, const char *dev)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/rclink/%s/device", dev);
	if (!realpath(path, link))
		return -1;
	base = strrchr(link, '/');
	base = base ? base + 1 : link;
	if (strlen(base) >= sizeof(b->bdf))
		return -1;
	strcpy(b->bdf, base);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0",
		 b->bdf);
	fd = open(path, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return -1;
	p = mmap(NULL, RCLINK_BAR0_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	b->p = p;
	return 0;
}

static inline void bar_close(struct bar *b)
{
	if (b->p)
		munmap((void *)b->p, RCLINK_BAR0_SIZE);
	b->p = NULL;
}

static inline uint64_t rd(struct bar *b, uint32_t reg)
{
	return *(volatile uint64_t *)(b->p + reg);
}

static inline void wr(struct bar *b, uint32_t reg, uint64_t v)
{
	*(volatile uint64_t *)(b->p + reg) = v;
}

/*
 * The wire model's faults of a board's transmit side (SHIM_WIRE_FAULT_*,
 * parts per million): loss, duplication, reordering
 */
static inline void set_faults(struct bar *b, uint32_t loss, uint32_t dup,
		       uint32_t reorder)
{
	wr(b, RCLINK_SHIM_WIRE_FAULT_RATE0, loss);
	wr(b, RCLINK_SHIM_WIRE_FAULT_RATE1, reorder | (uint64_t)dup << 32);
}


/* ---- header formats ----------------------------------------------------- */

/* `rclink dev set` of both boards' TYPE1 header format */
static inline int set_format(const char *fmt, const char *vlan, unsigned int pri,
		      bool icrc)
{
	const char *devs[] = { env.a, env.b };
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (sh("%s dev set dev %s format %s vlan %s vlan_pri %u icrc %s",
		       env.tool, devs[i], fmt, vlan, pri, icrc ? "on" : "off"))
			return -1;
	return 0;
}

static const struct {
	const char *name, *fmt, *vlan;
	unsigned int pri;
	bool icrc;
} fmts[] = {
	{ "std_vlan_noicrc", "std", "100", 5, false },
	{ "gen1", "gen1", "off", 0, true },
	{ "gen1_tc_vlan", "gen1-tc", "7", 3, true },
	{ "gen2", "gen2", "off", 0, true },
	{ "lite", "lite", "off", 0, false },
};

/* `rclink ARGS` (printf-style) into buf; the tool's exit status */
static inline int __attribute__((format(printf, 3, 4)))
tool_out(char *buf, size_t size, const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	size_t n;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 16, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>/dev/null");
	buf[0] = 0;
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The object of the tool's JSON list @buf whose member "name" is @value
 * (not its last member), cut out of @buf into @obj; false when there is
 * none.  The objects have no nested objects.
 */
static inline bool json_obj(const char *buf, const char *name, uint32_t value,
			    char *obj, size_t size)
{
	const char *p, *e;
	char pat[64];

	snprintf(pat, sizeof(pat), "\"%s\": %u,", name, value);
	p = strstr(buf, pat);
	if (!p)
		return false;
	e = strchr(p, '}');
	while (p > buf && *p != '{')
		p--;
	if (!e || (size_t)(e - p) >= size)
		return false;
	memcpy(obj, p, e - p);
	obj[e - p] = 0;
	return true;
}

/* Where the value of "name" starts in a JSON object's text, or NULL */
static inline const char *jval(const char *obj, const char *name)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\": ", name);
	p = strstr(obj, pat);
	return p ? p + strlen(pat) : NULL;
}

/* "name": N of a JSON object's text; -1 when absent */
static inline int64_t jnum(const char *obj, const char *name)
{
	const char *v = jval(obj, name);

	return v ? (int64_t)strtoull(v, NULL, 10) : -1;
}

/* "name": true/false of a JSON object's text: 1, 0, or -1 when absent */
static inline int jbool(const char *obj, const char *name)
{
	const char *v = jval(obj, name);

	return v ? !strncmp(v, "true", 4) : -1;
}

/*
 * A user context of one board (librclink.h): its character device's file
 * and the context on it.
 */
struct side {
	int fd;
	struct rclink_uctx c;
};

/* /dev/NAME opened and a context with attributes @a on it; 0 or -1 (errno) */
static inline int side_attach(struct side *s, const char *name,
			      const struct rclink_uctx_attr *a)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", name);
	s->fd = open(path, O_RDWR | O_CLOEXEC);
	if (s->fd < 0)
		return -1;
	if (rclink_uctx_open(&s->c, s->fd, a)) {
		int err = errno;

		close(s->fd);
		s->fd = -1;
		errno = err;
		return -1;
	}
	return 0;
}

static inline void side_close(struct side *s)
{
	if (s->fd < 0)
		return;
	rclink_uctx_close(&s->c);
	close(s->fd);
	s->fd = -1;
}

/* The next CQE, spinning; false after RCLINK_T1_STALL seconds */
static inline bool wait_wc(struct side *s, struct rclink_wc *wc)
{
	double end = now_s() + env.stall;

	while (!rclink_poll_cq(&s->c, wc, 1)) {
		if (now_s() > end)
			return false;
		sched_yield();
	}
	return true;
}

/*
 * The context's error: its file's EPOLLERR within RCLINK_T1_STALL
 * seconds, then the cause its doorbell record shows.  The shim writes the
 * failed WQE's CQE before the record's ERROR (shim.rst, "Errors are the
 * context's own") and the CTX_ERR event after the record, so the record
 * is read only after the EPOLLERR.  False without the EPOLLERR or the
 * record's ERROR.
 */
static inline bool side_wait_error(struct side *s, uint32_t *cause)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };

	if (poll(&pfd, 1, env.stall * 1000) != 1 || !(pfd.revents & POLLERR))
		return false;
	return rclink_uctx_error(&s->c, cause);
}

#endif /* RCLINK_T1_PAIR_H */
