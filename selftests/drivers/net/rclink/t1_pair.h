/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the C selftests of a wired pair of boards share (t1_uctx, t1_rdma):
 * the pair as their .sh wrapper describes it in the environment
 * (lib/rclink_lib.sh, rcl_t1_run_prog), shell commands, `rclink qp add` of
 * a QP on both boards, and the locked-memory helpers of the RLIMIT_MEMLOCK
 * cases.
 */
#ifndef RCLINK_T1_PAIR_H
#define RCLINK_T1_PAIR_H

#include <linux/capability.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* `rclink qp add` of a pair: A's qpn <-> B's qpn */
static inline int pair_add(uint32_t qpn)
{
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

#endif /* RCLINK_T1_PAIR_H */
