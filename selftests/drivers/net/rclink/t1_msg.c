// SPDX-License-Identifier: GPL-2.0
/*
 * TYPE1 messages through /dev/rclinkN (Documentation/uapi/rclink-dev.rst)
 * between two wired boards A and B: binding rules, whole messages with
 * write/writev and read/readv, poll/epoll, O_NONBLOCK, the send window,
 * signals, and RCLINK_T1_MSGS messages of random sizes (1 B..64 KiB,
 * log-uniform, from a seed printed in the output) checked byte-exact and
 * in order on one QP, on 64 QPs at once, and over a wire that loses,
 * corrupts, reorders and duplicates frames.
 *
 * Every message carries its sequence number, QP and length in a header
 * followed by bytes derived from (seed, QP, sequence number): the receiver
 * knows what the next message must be and reports a loss, a duplicate, a
 * reordering or a corruption as such.
 *
 * Run by t1_msg.sh, which picks the boards and passes them here:
 *   RCLINK_TOOL          the rclink tool
 *   RCLINK_T1_A/_B       the boards' names (rclinkN, also /dev/rclinkN)
 *   RCLINK_T1_IP_A/_B    their IPv4 addresses (already set)
 *   RCLINK_T1_MAC_A/_B   their MAC addresses
 *   RCLINK_T1_QP_NUM     QP_NUM of the boards
 * and optionally
 *   RCLINK_T1_MSGS       messages per transfer test (default 10000)
 *   RCLINK_T1_FAULT_MSGS messages of the test with wire faults (default
 *                        RCLINK_T1_MSGS)
 *   RCLINK_T1_BACK_MSGS  messages of one_qp_back (default RCLINK_T1_MSGS,
 *                        at most 1000)
 *   RCLINK_T1_SEED       the seed (default 0x52434c31)
 *   RCLINK_T1_STALL      seconds without progress that fail a transfer
 *                        (default 60)
 *   RCLINK_T1_CHURN_QPS  QP pairs qp_churn adds and deletes (default 32)
 * Each test adds the QPs it uses and deletes them at the end; the wire
 * fault injection is switched off at the end of the tests that use it.
 *
 * The wire hooks of the boards (Documentation/hw/shim.rst, "Wire fault
 * injection": SHIM_WIRE_FAULT_*, SHIM_LINK.force_down) are written through
 * BAR0 (sysfs resource0 of /sys/class/rclink/<board>/device, as
 * lib/rclink_wire.py does); a test needing them is skipped when BAR0 cannot
 * be mapped while the driver holds it (boot with iomem=relaxed) or when
 * the board ignores them (a real board).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/rclink_dev.h>

#include "rclink_ring.h"

#include "rclink_hw.h"

#include "kselftest_harness.h"

#define MAX_SIZE	65536u		/* largest message of the tests */
#define HDR_LEN		16u
#define MSG_MAGIC	0x31434c52u	/* "RCL1" */
#define MAX_QPS		64
#define MAX_FDS		(2 * MAX_QPS + 8)
#define MAX_REPORTS	10
#define QP_ONE		1		/* the QP of the single-QP tests */
#define QP_MULTI	100		/* first of the 64 */

struct t1env {
	const char *tool, *a, *b, *ip_a, *ip_b, *mac_a, *mac_b;
	uint32_t qp_num;
	uint32_t msgs, fault_msgs, back_msgs;
	uint64_t seed;
	unsigned int stall;
};

/* ------------------------------------------------------------------ */
/* environment, the tool, the wire                                     */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static bool env_load(struct t1env *e)
{
	e->tool = getenv("RCLINK_TOOL");
	e->a = getenv("RCLINK_T1_A");
	e->b = getenv("RCLINK_T1_B");
	e->ip_a = getenv("RCLINK_T1_IP_A");
	e->ip_b = getenv("RCLINK_T1_IP_B");
	e->mac_a = getenv("RCLINK_T1_MAC_A");
	e->mac_b = getenv("RCLINK_T1_MAC_B");
	e->qp_num = env_u64("RCLINK_T1_QP_NUM", 0);
	e->msgs = env_u64("RCLINK_T1_MSGS", 10000);
	e->fault_msgs = env_u64("RCLINK_T1_FAULT_MSGS", e->msgs);
	e->back_msgs = env_u64("RCLINK_T1_BACK_MSGS",
			       e->msgs < 1000 ? e->msgs : 1000);
	e->seed = env_u64("RCLINK_T1_SEED", 0x52434c31);
	e->stall = env_u64("RCLINK_T1_STALL", 60);
	if (!e->msgs)
		e->msgs = 1;
	if (!e->fault_msgs)
		e->fault_msgs = 1;
	if (!e->back_msgs)
		e->back_msgs = 1;
	return e->tool && e->a && e->b && e->ip_a && e->ip_b && e->mac_a &&
	       e->mac_b && e->qp_num;
}

/*
 * Run a shell command line; its output (stdout and stderr) lands in out.
 * Returns the exit status (128 + signal when killed, -1 when it could not
 * run).
 */
static int __attribute__((format(printf, 3, 4)))
run(char *out, size_t outlen, const char *fmt, ...)
{
	char cmd[2048], dummy[256];
	size_t used = 0;
	va_list ap;
	FILE *p;
	int st;

	if (!out) {
		out = dummy;
		outlen = sizeof(dummy);
	}
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	out[0] = '\0';
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (!feof(p) && !ferror(p)) {
		char buf[512];
		size_t n = fread(buf, 1, sizeof(buf), p);

		if (n && used + 1 < outlen) {
			size_t k = n < outlen - 1 - used ? n : outlen - 1 - used;

			memcpy(out + used, buf, k);
			used += k;
			out[used] = '\0';
		}
		if (!n)
			break;
	}
	st = pclose(p);
	if (st == -1)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/*
 * Run n shell command lines, up to 4 at a time (the tool's start-up
 * dominates under TCG); a failing one is logged with its output.  Returns
 * the number of failures.
 */
static int run_batch(struct __test_metadata *_metadata, char **cmds, int n)
{
	int i, running = 0, failed = 0, st;

	for (i = 0; i < n || running; ) {
		if (i < n && running < 4) {
			pid_t pid = fork();

			if (pid == 0) {
				char out[1024];
				int rc = run(out, sizeof(out), "%s", cmds[i]);

				if (rc)
					fprintf(stderr, "# %s: exit %d: %s", cmds[i], rc, out);
				_exit(rc ? 1 : 0);
			}
			if (pid < 0) {
				failed++;
			} else {
				running++;
			}
			i++;
			continue;
		}
		if (wait(&st) < 0)
			break;
		running--;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			failed++;
	}
	return failed;
}

/* `rclink qp add` of a pair: A's qpn <-> B's qpn (the same number) */
static int pair_add(struct __test_metadata *_metadata, const struct t1env *e,
		    uint32_t qpn, const char *extra)
{
	char out[1024];
	int rc;

	rc = run(out, sizeof(out), "%s qp add dev %s qpn %u dqpn %u dip %s dmac %s %s",
		 e->tool, e->a, qpn, qpn, e->ip_b, e->mac_b, extra ? extra : "");
	if (rc) {
		TH_LOG("rclink qp add dev %s qpn %u: exit %d: %s", e->a, qpn, rc, out);
		return -1;
	}
	rc = run(out, sizeof(out), "%s qp add dev %s qpn %u dqpn %u dip %s dmac %s %s",
		 e->tool, e->b, qpn, qpn, e->ip_a, e->mac_a, extra ? extra : "");
	if (rc) {
		TH_LOG("rclink qp add dev %s qpn %u: exit %d: %s", e->b, qpn, rc, out);
		run(NULL, 0, "%s qp del dev %s qpn %u", e->tool, e->a, qpn);
		return -1;
	}
	return 0;
}

/* A counter or field of `rclink -j -s qp show`; UINT64_MAX when missing */
static uint64_t qp_stat(const struct t1env *e, const char *dev, uint32_t qpn,
			const char *key)
{
	char out[8192], pat[64], *s;

	if (run(out, sizeof(out), "%s -j -s qp show dev %s qpn %u", e->tool,
		dev, qpn))
		return UINT64_MAX;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	s = strstr(out, pat);
	if (!s)
		return UINT64_MAX;
	s += strlen(pat);
	while (*s == ' ')
		s++;
	if (!strncmp(s, "true", 4))
		return 1;
	if (!strncmp(s, "false", 5))
		return 0;
	if (*s == '"')		/* "on"/"off" and the like */
		return s[1] == 'o' && s[2] == 'n';
	return strtoull(s, NULL, 0);
}

/*
 * The board counts key of QP qpn: the driver leaves out the counters of
 * events inside the IP on a board without SHIM_CAP3.ip_counters
 * (Documentation/hw/shim.rst, "What a shim can count"); an assertion on
 * one is skipped there, not the test
 */
static bool qp_counted(const struct t1env *e, const char *dev, uint32_t qpn,
		       const char *key)
{
	char out[8192], pat[64];

	if (run(out, sizeof(out), "%s -j -s qp show dev %s qpn %u", e->tool,
		dev, qpn))
		return true;	/* a failure: the assertion tells */
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	return strstr(out, pat) != NULL;
}

/* A counter of QP qpn in the `rclink -j -s qp show dev X` dump json */
static uint64_t dump_stat(const char *json, uint32_t qpn, const char *key)
{
	char pat[64], kpat[64];
	const char *s = json, *next, *k;

	snprintf(pat, sizeof(pat), "\"qpn\": %u,", qpn);
	snprintf(kpat, sizeof(kpat), "\"%s\":", key);
	s = strstr(s, pat);
	if (!s)
		return UINT64_MAX;
	next = strstr(s + 1, "\"qpn\":");
	k = strstr(s, kpat);
	if (!k || (next && k > next))
		return UINT64_MAX;
	return strtoull(k + strlen(kpat), NULL, 0);
}

/* The whole `rclink -s qp show` of a QP, for the log */
static void qp_log(const struct t1env *e, const char *dev, uint32_t qpn)
{
	char out[4096];

	run(out, sizeof(out), "%s -s qp show dev %s qpn %u", e->tool, dev, qpn);
	ksft_print_msg("%s qpn %u: %s", dev, qpn, out);
	if (!*out || out[strlen(out) - 1] != '\n')
		printf("\n");
}

/* ------------------------------------------------------------------ */
/* the wire hooks, through BAR0                                         */

#define FPREP(mask, v)	(((uint64_t)(v) << __builtin_ctzll(mask)) & (mask))
#define FGET(mask, v)	(((v) & (mask)) >> __builtin_ctzll(mask))

/* PCI address of board dev into bdf; -1 when not found */
/* The char device's ioctls, each struct with its size */
static int get_info(int fd, struct rclink_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, RCLINK_IOC_INFO, info);
}

static int set_window(int fd, uint32_t window)
{
	struct rclink_window w = { .size = sizeof(w), .window = window };

	return ioctl(fd, RCLINK_IOC_SET_WINDOW, &w);
}

static int dev_bdf(const char *dev, char *bdf, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	struct stat st;
	ssize_t n;
	char *b;

	snprintf(path, sizeof(path), "/sys/class/rclink/%s/device", dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		snprintf(path, sizeof(path), "/dev/%s", dev);
		if (stat(path, &st))
			return -1;
		snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/device",
			 major(st.st_rdev), minor(st.st_rdev));
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			return -1;
	}
	link[n] = '\0';
	b = strrchr(link, '/');
	snprintf(bdf, len, "%.63s", b ? b + 1 : link);
	return 0;
}

/*
 * The wire hooks of board dev, in the syntax of lib/rclink_wire.py:
 * "loss=PPM corrupt=PPM reorder=PPM dup=PPM delay=US seed=N link=up|down
 * off show" (seed first, show last).  show writes key=value words into
 * out.  Returns 0, KSFT_SKIP when BAR0 cannot be mapped while the driver
 * holds it (iomem=relaxed), 1 on an error (the reason in out).
 */
static int wire(const struct t1env *e, const char *dev, const char *args,
		char *out, size_t outlen)
{
	static const struct {
		const char *key;
		uint32_t reg;
		uint64_t mask;
	} rates[] = {
		{ "loss", RCLINK_SHIM_WIRE_FAULT_RATE0, RCLINK_SHIM_WIRE_FAULT_RATE0_LOSS_PPM },
		{ "corrupt", RCLINK_SHIM_WIRE_FAULT_RATE0, RCLINK_SHIM_WIRE_FAULT_RATE0_CORRUPT_PPM },
		{ "reorder", RCLINK_SHIM_WIRE_FAULT_RATE1, RCLINK_SHIM_WIRE_FAULT_RATE1_REORDER_PPM },
		{ "dup", RCLINK_SHIM_WIRE_FAULT_RATE1, RCLINK_SHIM_WIRE_FAULT_RATE1_DUP_PPM },
		{ "delay", RCLINK_SHIM_WIRE_FAULT_DELAY, RCLINK_SHIM_WIRE_FAULT_DELAY_DELAY_US },
	};
	static const struct {
		const char *key;
		uint32_t reg;
	} counters[] = {
		{ "lost", RCLINK_SHIM_WIRE_LOST },
		{ "corrupted", RCLINK_SHIM_WIRE_CORRUPTED },
		{ "reordered", RCLINK_SHIM_WIRE_REORDERED },
		{ "duplicated", RCLINK_SHIM_WIRE_DUPLICATED },
		{ "tx_frames", RCLINK_SHIM_WIRE_TX_FRAMES },
		{ "rx_frames", RCLINK_SHIM_WIRE_RX_FRAMES },
		{ "rx_drop_da", RCLINK_DMAQ_T1_RX_DROP_DA },
		{ "rx_drop_csum", RCLINK_DMAQ_T1_RX_DROP_CSUM },
		{ "rx_drop_icrc", RCLINK_DMAQ_T1_RX_DROP_ICRC },
		{ "rx_drop_pkey", RCLINK_DMAQ_T1_RX_DROP_PKEY },
		{ "rx_drop_badqp", RCLINK_DMAQ_T1_RX_DROP_BADQP },
		{ "rx_drop_qp_off", RCLINK_DMAQ_T1_RX_DROP_QP_OFF },
		{ "rx_drop_nobuf", RCLINK_DMAQ_T1_RX_DROP_NOBUF },
		{ "rx_drop_malformed", RCLINK_DMAQ_T1_RX_DROP_MALFORMED },
		{ "tx_drop_qp_off", RCLINK_DMAQ_T1_TX_DROP_QP_OFF },
		{ "bad_wqe", RCLINK_DMAQ_BAD_WQE },
		{ "ost_free", RCLINK_DMAQ_T1_OST_FREE },
	};
	char bdf[64], path[PATH_MAX], buf[512], *tok, *save, dummy[64];
	volatile uint64_t *r;
	bool show = false;
	size_t used = 0;
	unsigned int i;
	void *map;
	int fd, rc = 0;
	double end;

	if (!out) {
		out = dummy;
		outlen = sizeof(dummy);
	}
	out[0] = '\0';
	if (dev_bdf(dev, bdf, sizeof(bdf))) {
		snprintf(out, outlen, "no PCI device for %s", dev);
		return 1;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", bdf);
	fd = open(path, O_RDWR | O_SYNC);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, RCLINK_BAR0_SIZE,
					  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		snprintf(out, outlen, "cannot map BAR0 of %s (%s) while bound: %s; boot with iomem=relaxed",
			 dev, bdf, strerror(err));
		return err == EPERM || err == EINVAL || err == EBUSY ||
		       err == EACCES ? KSFT_SKIP : 1;
	}
	r = map;
#define RD(off)		(r[(off) / 8])
#define WR(off, v)	(r[(off) / 8] = (v))
	snprintf(buf, sizeof(buf), "%s", args);
	/* seed first */
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strncmp(tok, "seed=", 5))
			WR(RCLINK_SHIM_WIRE_FAULT_SEED, strtoull(tok + 5, NULL, 0));
	snprintf(buf, sizeof(buf), "%s", args);
	for (tok = strtok_r(buf, " ", &save); tok && !rc;
	     tok = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(tok, '=');

		if (!strcmp(tok, "show")) {
			show = true;
			continue;
		}
		if (!strcmp(tok, "off")) {
			WR(RCLINK_SHIM_WIRE_FAULT_RATE0, 0);
			WR(RCLINK_SHIM_WIRE_FAULT_RATE1, 0);
			WR(RCLINK_SHIM_WIRE_FAULT_DELAY, 0);
			tok = "link=up";
			eq = tok + 4;
		}
		if (!eq) {
			snprintf(out, outlen, "bad wire argument %s", tok);
			rc = 1;
			break;
		}
		if (!strncmp(tok, "seed=", 5))
			continue;
		if (!strncmp(tok, "link=", 5)) {
			bool up = !strcmp(eq + 1, "up");

			WR(RCLINK_SHIM_LINK, up ? 0 : RCLINK_SHIM_LINK_FORCE_DOWN);
			if (!up && !(RD(RCLINK_SHIM_LINK) & RCLINK_SHIM_LINK_FORCE_DOWN)) {
				snprintf(out, outlen, "%s ignores SHIM_LINK.force_down (no wire hooks: a real board?)",
					 dev);
				rc = KSFT_SKIP;
				break;
			}
			end = now_s() + 5;
			while (up && !(RD(RCLINK_SHIM_LINK) & RCLINK_SHIM_LINK_UP)) {
				if (now_s() > end) {
					snprintf(out, outlen, "%s: link not up", dev);
					rc = 1;
					break;
				}
				sleep_ms(10);
			}
			continue;
		}
		for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
			uint64_t v, n;

			if (strncmp(tok, rates[i].key, eq - tok) ||
			    strlen(rates[i].key) != (size_t)(eq - tok))
				continue;
			n = strtoull(eq + 1, NULL, 0);
			v = RD(rates[i].reg) & ~rates[i].mask;
			WR(rates[i].reg, v | FPREP(rates[i].mask, n));
			if (FGET(rates[i].mask, RD(rates[i].reg)) != n) {
				snprintf(out, outlen, "%s ignores the wire fault registers (no wire hooks: a real board?)",
					 dev);
				rc = KSFT_SKIP;
			}
			break;
		}
		if (i == sizeof(rates) / sizeof(rates[0])) {
			snprintf(out, outlen, "bad wire argument %s", tok);
			rc = 1;
		}
	}
	(void)RD(RCLINK_SHIM_ID);	/* flush the posted writes */
	if (show && !rc) {
		uint64_t r0 = RD(RCLINK_SHIM_WIRE_FAULT_RATE0);
		uint64_t r1 = RD(RCLINK_SHIM_WIRE_FAULT_RATE1);
		uint64_t lk = RD(RCLINK_SHIM_LINK);

		used = snprintf(out, outlen, "dev=%s bdf=%s loss=%llu corrupt=%llu reorder=%llu dup=%llu delay=%llu force_down=%d link_up=%d",
				dev, bdf,
				(unsigned long long)FGET(RCLINK_SHIM_WIRE_FAULT_RATE0_LOSS_PPM, r0),
				(unsigned long long)FGET(RCLINK_SHIM_WIRE_FAULT_RATE0_CORRUPT_PPM, r0),
				(unsigned long long)FGET(RCLINK_SHIM_WIRE_FAULT_RATE1_REORDER_PPM, r1),
				(unsigned long long)FGET(RCLINK_SHIM_WIRE_FAULT_RATE1_DUP_PPM, r1),
				(unsigned long long)RD(RCLINK_SHIM_WIRE_FAULT_DELAY),
				!!(lk & RCLINK_SHIM_LINK_FORCE_DOWN), !!(lk & RCLINK_SHIM_LINK_UP));
		for (i = 0; i < sizeof(counters) / sizeof(counters[0]) && used < outlen; i++)
			used += snprintf(out + used, outlen - used, " %s=%llu",
					 counters[i].key,
					 (unsigned long long)RD(counters[i].reg));
		if (used < outlen - 1)
			strcat(out, "\n");
	}
#undef RD
#undef WR
	munmap(map, RCLINK_BAR0_SIZE);
	close(fd);
	return rc;
}

/* A counter of `wire(... "show")` (key=value words) */
static uint64_t wire_counter(const char *show, const char *key)
{
	char pat[64];
	const char *s;

	snprintf(pat, sizeof(pat), " %s=", key);
	s = strstr(show, pat);
	return s ? strtoull(s + strlen(pat), NULL, 0) : UINT64_MAX;
}

/* ------------------------------------------------------------------ */
/* messages                                                             */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Size of message seq of a QP: 2^b + uniform below it, b in 0..16 */
static uint32_t msg_size(uint64_t seed, uint32_t qpn, uint32_t seq)
{
	uint64_t r = mix64(seed ^ mix64(((uint64_t)qpn << 32) | seq));
	unsigned int b = r % 17;

	if (b == 16)
		return MAX_SIZE;
	return (1u << b) + (uint32_t)((r >> 16) & ((1u << b) - 1));
}

/* Message seq of a QP into buf (MAX_SIZE bytes); returns its length */
static uint32_t msg_build(uint64_t seed, uint32_t qpn, uint32_t seq,
			  uint32_t len, uint8_t *buf)
{
	uint32_t hdr[4] = { seq, qpn, len, MSG_MAGIC };
	uint64_t x = mix64(seed ^ 0x5a5a5a5a5a5a5a5aULL ^
			   mix64(((uint64_t)qpn << 32) | seq)) | 1;
	uint32_t i;

	for (i = HDR_LEN; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, 8);
	}
	if (i < len) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + i, &x, len - i);
	}
	memcpy(buf, hdr, len < HDR_LEN ? len : HDR_LEN);
	return len;
}

/* One direction of one QP: the writer on one board, the reader on the other */
struct flow {
	const struct t1env *env;
	struct __test_metadata *md;
	uint32_t qpn;
	const char *txdev, *rxdev;
	int txfd, rxfd;
	uint32_t total;
	uint32_t fixed;		/* every message this size (0: random) */
	bool vec;		/* writev/readv for a part of the messages */
	/* writer */
	uint32_t sent;
	uint64_t sent_bytes;
	int werr;
	unsigned long w_eintr, w_eagain;
	uint8_t *tx;
	/* reader */
	uint32_t recvd;		/* messages read */
	uint32_t next;		/* sequence number expected next */
	uint64_t recvd_bytes;
	uint32_t lost, dup, corrupt;
	unsigned int reports;
	int rerr;
	unsigned long r_eintr;
	uint8_t *rx, *want;
	bool tx_done;
};

static bool flow_init(struct flow *f, const struct t1env *e,
		      struct __test_metadata *md, uint32_t qpn,
		      const char *txdev, int txfd, const char *rxdev, int rxfd,
		      uint32_t total)
{
	memset(f, 0, sizeof(*f));
	f->env = e;
	f->md = md;
	f->qpn = qpn;
	f->txdev = txdev;
	f->rxdev = rxdev;
	f->txfd = txfd;
	f->rxfd = rxfd;
	f->total = total;
	f->vec = true;
	f->tx = malloc(MAX_SIZE);
	f->rx = malloc(MAX_SIZE);
	f->want = malloc(MAX_SIZE);
	return f->tx && f->rx && f->want;
}

static void flow_free(struct flow *f)
{
	free(f->tx);
	free(f->rx);
	free(f->want);
	f->tx = f->rx = f->want = NULL;
}

#define FLOW_LOG(f, fmt, ...) do { \
	struct __test_metadata *_metadata = (f)->md; \
	if ((f)->reports++ < MAX_REPORTS) \
		TH_LOG("QP %u %s->%s: " fmt, (f)->qpn, (f)->txdev, \
		       (f)->rxdev, ##__VA_ARGS__); \
} while (0)

/* Check a received message against the one expected next */
static void flow_check(struct flow *f, const uint8_t *buf, size_t n)
{
	uint64_t seed = f->env->seed;
	uint32_t len = f->fixed ? f->fixed : msg_size(seed, f->qpn, f->next);
	uint32_t hdr[4], seq;
	size_t i;

	f->recvd++;
	f->recvd_bytes += n;
	msg_build(seed, f->qpn, f->next, len, f->want);
	if (n == len && !memcmp(buf, f->want, len)) {
		f->next++;
		return;
	}
	if (n >= HDR_LEN) {
		memcpy(hdr, buf, HDR_LEN);
		seq = hdr[0];
		if (hdr[3] == MSG_MAGIC && hdr[1] == f->qpn &&
		    hdr[2] == n && n == (f->fixed ? f->fixed :
					   msg_size(seed, f->qpn, seq))) {
			msg_build(seed, f->qpn, seq, n, f->want);
			if (!memcmp(buf, f->want, n)) {
				if (seq < f->next) {
					f->dup++;
					FLOW_LOG(f, "message %u again (or late), %u expected",
						 seq, f->next);
				} else {
					f->lost += seq - f->next;
					FLOW_LOG(f, "message %u arrived, %u expected: %u lost (or reordered)",
						 seq, f->next, seq - f->next);
					f->next = seq + 1;
				}
				return;
			}
			for (i = 0; i < n && buf[i] == f->want[i]; i++)
				;
			f->corrupt++;
			FLOW_LOG(f, "message %u (%zu bytes) corrupted at byte %zu: 0x%02x, want 0x%02x",
				 seq, n, i, buf[i], f->want[i]);
			if (seq >= f->next)
				f->next = seq + 1;
			return;
		}
	}
	for (i = 0; i < n && i < len && buf[i] == f->want[i]; i++)
		;
	f->corrupt++;
	FLOW_LOG(f, "%zu bytes arrived, message %u of %u bytes expected (first difference at byte %zu)",
		 n, f->next, len, i);
	f->next++;
}

/* Write message seq; writev with three pieces for every fourth */
static ssize_t flow_write(struct flow *f, uint32_t seq, uint32_t *lenp)
{
	uint32_t len = f->fixed ? f->fixed : msg_size(f->env->seed, f->qpn, seq);
	struct iovec iov[3];

	msg_build(f->env->seed, f->qpn, seq, len, f->tx);
	*lenp = len;
	if (f->vec && seq % 4 == 1 && len >= 3) {
		iov[0].iov_base = f->tx;
		iov[0].iov_len = len / 3;
		iov[1].iov_base = f->tx + len / 3;
		iov[1].iov_len = len / 3;
		iov[2].iov_base = f->tx + 2 * (len / 3);
		iov[2].iov_len = len - 2 * (len / 3);
		return writev(f->txfd, iov, 3);
	}
	return write(f->txfd, f->tx, len);
}

/* Read one message; readv into three buffers for every fifth */
static ssize_t flow_read(struct flow *f)
{
	struct iovec iov[3] = {
		{ f->rx, 1000 },
		{ f->rx + 1000, 29000 },
		{ f->rx + 30000, MAX_SIZE - 30000 },
	};

	if (f->vec && f->recvd % 5 == 2)
		return readv(f->rxfd, iov, 3);
	return read(f->rxfd, f->rx, MAX_SIZE);
}

static void flow_report(struct flow *f, double secs)
{
	ksft_print_msg("QP %u %s->%s: %u/%u sent, %u read (%" PRIu64 " bytes) in %.1f s, %.2f MB/s, lost %u dup %u corrupt %u, EINTR w %lu r %lu\n",
		       f->qpn, f->txdev, f->rxdev, f->sent, f->total, f->recvd,
		       f->recvd_bytes, secs, secs > 0 ? f->recvd_bytes / secs / 1e6 : 0,
		       f->lost, f->dup, f->corrupt, f->w_eintr, f->r_eintr);
}

static bool flow_ok(struct flow *f)
{
	return f->sent == f->total && f->recvd == f->total &&
	       f->next == f->total && !f->lost && !f->dup && !f->corrupt &&
	       !f->werr && !f->rerr;
}

/* ------------------------------------------------------------------ */
/* threads: blocking writer and reader, a watchdog that also signals     */

static volatile sig_atomic_t sig_count;

static void on_sigusr1(int sig)
{
	sig_count++;
}

/* SIGUSR1 interrupts (no SA_RESTART) */
static void sigusr1_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

struct tctx {
	struct flow *f;
	unsigned int reader_delay_ms;	/* the reader starts late */
	volatile bool abort;
	volatile bool w_done, r_done;
};

static void *writer_main(void *arg)
{
	struct tctx *c = arg;
	struct flow *f = c->f;
	uint32_t seq = 0, len;
	ssize_t n;

	while (seq < f->total && !c->abort) {
		n = flow_write(f, seq, &len);
		if (n < 0 && errno == EINTR) {
			f->w_eintr++;
			continue;
		}
		if (n < 0) {
			f->werr = errno;
			break;
		}
		if ((uint32_t)n != len) {
			f->werr = -1;
			FLOW_LOG(f, "write of message %u: %zd, want %u", seq, n, len);
			break;
		}
		f->sent_bytes += len;
		__atomic_store_n(&f->sent, ++seq, __ATOMIC_RELEASE);
	}
	c->w_done = true;
	return NULL;
}

static void *reader_main(void *arg)
{
	struct tctx *c = arg;
	struct flow *f = c->f;
	ssize_t n;

	if (c->reader_delay_ms)
		sleep_ms(c->reader_delay_ms);
	while (f->recvd < f->total && !c->abort) {
		n = flow_read(f);
		if (n < 0 && errno == EINTR) {
			f->r_eintr++;
			continue;
		}
		if (n < 0) {
			f->rerr = errno;
			break;
		}
		flow_check(f, f->rx, n);
	}
	c->r_done = true;
	return NULL;
}

/*
 * Transfer f->total messages with a blocking writer thread and a blocking
 * reader thread.  storm_us > 0: SIGUSR1 to both every storm_us
 * microseconds.  A transfer that makes no progress for env->stall seconds
 * is stopped (both threads are interrupted) and fails.
 */
static bool transfer_threads(struct flow *f, unsigned int storm_us,
			     unsigned int reader_delay_ms, double *secs)
{
	struct __test_metadata *_metadata = f->md;
	struct tctx c = { .f = f, .reader_delay_ms = reader_delay_ms };
	pthread_t wt, rt;
	uint32_t last_s = 0, last_r = 0;
	double t0 = now_s(), last = t0;
	bool stalled = false;

	sigusr1_install();
	if (pthread_create(&wt, NULL, writer_main, &c))
		return false;
	if (pthread_create(&rt, NULL, reader_main, &c)) {
		c.abort = true;
		pthread_kill(wt, SIGUSR1);
		pthread_join(wt, NULL);
		return false;
	}
	while (!(c.w_done && c.r_done)) {
		uint32_t s = __atomic_load_n(&f->sent, __ATOMIC_ACQUIRE);
		uint32_t r = f->recvd;
		double t = now_s();

		if (s != last_s || r != last_r) {
			last_s = s;
			last_r = r;
			last = t;
		} else if (t - last > f->env->stall + reader_delay_ms / 1000.0 &&
			   !stalled) {
			struct rclink_info ia = {}, ib = {};

			stalled = true;
			get_info(f->txfd, &ia);
			get_info(f->rxfd, &ib);
			TH_LOG("QP %u %s->%s: no progress for %u s: %u/%u sent, %u read; %s tx_inflight %u state %u, %s rx_queued %u state %u",
			       f->qpn, f->txdev, f->rxdev, f->env->stall, s,
			       f->total, r, f->txdev, ia.tx_inflight, ia.state,
			       f->rxdev, ib.rx_queued, ib.state);
			c.abort = true;
		}
		if (c.abort || storm_us) {
			if (!c.w_done)
				pthread_kill(wt, SIGUSR1);
			if (!c.r_done)
				pthread_kill(rt, SIGUSR1);
		}
		if (storm_us)
			usleep(storm_us);
		else
			sleep_ms(c.abort ? 10 : 50);
	}
	pthread_join(wt, NULL);
	pthread_join(rt, NULL);
	*secs = now_s() - t0;
	if (f->werr > 0)
		TH_LOG("QP %u: write: %s after %u messages", f->qpn,
		       strerror(f->werr), f->sent);
	if (f->rerr)
		TH_LOG("QP %u: read: %s after %u messages", f->qpn,
		       strerror(f->rerr), f->recvd);
	return !stalled;
}

/* ------------------------------------------------------------------ */
/* the fixture                                                          */

static int debugfs_u64(const char *dev, const char *name, uint64_t *get,
		       const uint64_t *set);

FIXTURE(t1) {
	struct t1env env;
	uint32_t qps[MAX_QPS + 4];
	int nqps;
	int fds[MAX_FDS];
	int nfds;
	bool wire_used;
	/* B's t1_rx_queued_max to restore in the teardown (a test set it) */
	bool queued_max_set;
	uint64_t queued_max;
	double t0;
};

FIXTURE_SETUP(t1)
{
	memset(self, 0, sizeof(*self));
	self->t0 = now_s();
	if (!env_load(&self->env))
		SKIP(return, "run by t1_msg.sh (RCLINK_T1_* not set)");
}

FIXTURE_TEARDOWN(t1)
{
	const struct t1env *e = &self->env;
	char out[1024];
	int i, rc;

	for (i = 0; i < self->nfds; i++)
		if (self->fds[i] >= 0)
			close(self->fds[i]);
	if (self->wire_used) {
		rc = wire(e, e->a, "off", out, sizeof(out));
		if (rc)
			TH_LOG("wire %s off: exit %d: %s", e->a, rc, out);
		rc = wire(e, e->b, "off", out, sizeof(out));
		if (rc)
			TH_LOG("wire %s off: exit %d: %s", e->b, rc, out);
	}
	if (self->queued_max_set)
		EXPECT_EQ(0, debugfs_u64(e->b, "t1_rx_queued_max", NULL,
					 &self->queued_max))
			TH_LOG("%s: t1_rx_queued_max not restored to %" PRIu64,
			       e->b, self->queued_max);
	if (self->nqps) {
		char *cmds[2 * (MAX_QPS + 4)];
		int n = 0;

		for (i = 0; i < self->nqps; i++) {
			if (asprintf(&cmds[n], "%s qp del dev %s qpn %u", e->tool,
				     e->a, self->qps[i]) > 0)
				n++;
			if (asprintf(&cmds[n], "%s qp del dev %s qpn %u", e->tool,
				     e->b, self->qps[i]) > 0)
				n++;
		}
		double t0 = now_s();

		rc = run_batch(_metadata, cmds, n);
		if (n > 8)
			ksft_print_msg("%d x rclink qp del: %.1f s\n", n, now_s() - t0);
		if (rc)
			TH_LOG("%d of %d qp del failed", rc, n);
		for (i = 0; i < n; i++)
			free(cmds[i]);
	}
	ksft_print_msg("%s: %.1f s\n", _metadata->name, now_s() - self->t0);
}

/* Add the pair qpn on both boards (deleted by the teardown) */
static int add_pair(struct __test_metadata *_metadata,
		    FIXTURE_DATA(t1) *self, uint32_t qpn)
{
	if (pair_add(_metadata, &self->env, qpn, NULL))
		return -1;
	self->qps[self->nqps++] = qpn;
	return 0;
}

/* debugfs t1: the receive side's flow control and CQ work */
#define T1_RX_KEYS "-E '^(rq_|cq_runs|cqes|rx_flow_stops|rx_alloc_fail|hw_rx_drop_nobuf)'"

/* The lines of a board's debugfs @file that grep's @grep picks, for the log */
static void debugfs_log(const char *dev, const char *file, const char *grep)
{
	char bdf[64], out[4096];

	if (dev_bdf(dev, bdf, sizeof(bdf)))
		return;
	run(out, sizeof(out), "grep %s /sys/kernel/debug/rclink/%s/%s | tr '\\n' ' '",
	    grep, bdf, file);
	ksft_print_msg("%s debugfs %s: %s\n", dev, file, out);
}

/* A u64 file of the board's debugfs directory: read into @get or write @set */
static int debugfs_u64(const char *dev, const char *name, uint64_t *get,
		       const uint64_t *set)
{
	char bdf[64], path[PATH_MAX];
	unsigned long long v;
	FILE *f;
	int ok;

	if (dev_bdf(dev, bdf, sizeof(bdf)))
		return -1;
	snprintf(path, sizeof(path), "/sys/kernel/debug/rclink/%s/%s", bdf,
		 name);
	f = fopen(path, set ? "w" : "r");
	if (!f)
		return -1;
	if (set)
		ok = fprintf(f, "%llu\n", (unsigned long long)*set) > 0;
	else
		ok = fscanf(f, "%llu", &v) == 1;
	if (fclose(f))
		ok = 0;
	if (ok && get)
		*get = v;
	return ok ? 0 : -1;
}

/* Add the pairs first .. first + count - 1 (deleted by the teardown) */
static int add_pairs(struct __test_metadata *_metadata,
		     FIXTURE_DATA(t1) *self, uint32_t first, int count)
{
	const struct t1env *e = &self->env;
	char *cmds[2 * MAX_QPS];
	int i, n = 0, rc;
	double t0;

	if (count > MAX_QPS)
		return -1;
	for (i = 0; i < count; i++) {
		uint32_t q = first + i;

		if (asprintf(&cmds[n], "%s qp add dev %s qpn %u dqpn %u dip %s dmac %s",
			     e->tool, e->a, q, q, e->ip_b, e->mac_b) > 0)
			n++;
		if (asprintf(&cmds[n], "%s qp add dev %s qpn %u dqpn %u dip %s dmac %s",
			     e->tool, e->b, q, q, e->ip_a, e->mac_a) > 0)
			n++;
		self->qps[self->nqps++] = q;
	}
	t0 = now_s();
	rc = run_batch(_metadata, cmds, n);
	ksft_print_msg("%d x rclink qp add: %.1f s\n", n, now_s() - t0);
	for (i = 0; i < n; i++)
		free(cmds[i]);
	if (rc)
		TH_LOG("%d of %d qp add failed", rc, n);
	return rc ? -1 : 0;
}

/* open /dev/DEV (closed by the teardown) */
static int dev_open(FIXTURE_DATA(t1) *self, const char *dev, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDWR | flags);
	if (fd >= 0 && self->nfds < MAX_FDS)
		self->fds[self->nfds++] = fd;
	return fd;
}

static int do_bind(int fd, uint32_t qpn)
{
	struct rclink_bind b = { .size = sizeof(b), .qpn = qpn };

	return ioctl(fd, RCLINK_IOC_BIND, &b);
}

/* open /dev/DEV and bind it to qpn; -1 on failure */
static int open_bound(FIXTURE_DATA(t1) *self, const char *dev, uint32_t qpn,
		      int flags)
{
	int fd = dev_open(self, dev, flags);

	if (fd < 0)
		return -1;
	if (do_bind(fd, qpn))
		return -1;
	return fd;
}

static void dev_close(FIXTURE_DATA(t1) *self, int fd)
{
	int i;

	for (i = 0; i < self->nfds; i++)
		if (self->fds[i] == fd)
			self->fds[i] = -1;
	close(fd);
}

static void set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/* Switch a wire hook; SKIP the test when BAR0 cannot be written */
#define WIRE(dev, args) do { \
	char _out[1024]; \
	int _rc; \
	self->wire_used = true; \
	_rc = wire(&self->env, dev, args, _out, sizeof(_out)); \
	if (_rc == KSFT_SKIP) \
		SKIP(return, "wire hooks: %.800s", _out); \
	ASSERT_EQ(0, _rc) TH_LOG("wire %s %s: %s", dev, args, _out); \
} while (0)

/* Wait up to ms for events on fd; the revents */
static short wait_ev(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	double end = now_s() + ms / 1000.0;
	int r;

	do {
		r = poll(&p, 1, ms);
		if (r > 0)
			return p.revents;
		if (r == 0)
			return 0;
		ms = (int)((end - now_s()) * 1000);
	} while (errno == EINTR && ms > 0);
	return 0;
}

/* Read the next message within 10 s and check it is message seq of qpn */
static int expect_msg(struct __test_metadata *_metadata, const struct t1env *e,
		      int fd, uint32_t qpn, uint32_t seq, uint8_t *buf,
		      uint8_t *want)
{
	uint32_t len = msg_size(e->seed, qpn, seq);
	ssize_t n;

	if (!(wait_ev(fd, POLLIN, 10000) & POLLIN)) {
		TH_LOG("QP %u: message %u did not arrive in 10 s", qpn, seq);
		return -1;
	}
	n = read(fd, buf, MAX_SIZE);
	if (n < 0) {
		TH_LOG("QP %u: read of message %u: %s", qpn, seq, strerror(errno));
		return -1;
	}
	msg_build(e->seed, qpn, seq, len, want);
	if ((uint32_t)n != len || memcmp(buf, want, len)) {
		uint32_t h = 0;

		memcpy(&h, buf, n < 4 ? n : 4);
		TH_LOG("QP %u: got %zd bytes (seq field %u), want message %u of %u bytes",
		       qpn, n, h, seq, len);
		return -1;
	}
	return 0;
}

/* The next read on a non-blocking fd must be EAGAIN (nothing more) */
static int expect_empty(struct __test_metadata *_metadata, int fd)
{
	uint8_t b[64];
	int fl = fcntl(fd, F_GETFL);
	ssize_t n;

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	n = read(fd, b, sizeof(b));
	fcntl(fd, F_SETFL, fl);
	if (n >= 0 || errno != EAGAIN) {
		TH_LOG("read after the last message: %zd (%s), want EAGAIN", n,
		       n < 0 ? strerror(errno) : "a message more");
		return -1;
	}
	return 0;
}

static int send_msg(const struct t1env *e, int fd, uint32_t qpn, uint32_t seq,
		    uint8_t *buf)
{
	uint32_t len = msg_size(e->seed, qpn, seq);

	msg_build(e->seed, qpn, seq, len, buf);
	return write(fd, buf, len) == (ssize_t)len ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* binding                                                              */

TEST_F(t1, bind)
{
	const struct t1env *e = &self->env;
	struct rclink_bind b = { .size = sizeof(b) };
	struct rclink_info info;
	char out[1024];
	int fd1, fd2, fd3;

	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fd1 = dev_open(self, e->a, 0);
	ASSERT_LE(0, fd1) TH_LOG("open /dev/%s: %s", e->a, strerror(errno));
	fd2 = dev_open(self, e->a, 0);
	ASSERT_LE(0, fd2);

	/* unbound */
	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(0, get_info(fd1, &info));
	EXPECT_EQ(RCLINK_QPN_NONE, info.qpn);

	b.qpn = QP_ONE;
	b.flags = RCLINK_BIND_MCAST << 1;	/* no such flag */
	EXPECT_EQ(-1, ioctl(fd1, RCLINK_IOC_BIND, &b));
	EXPECT_EQ(EINVAL, errno) TH_LOG("flags 0x%x: %s", b.flags, strerror(errno));
	b.qpn = RCLINK_T2_GROUPS;		/* groups are 0..7 */
	b.flags = RCLINK_BIND_MCAST;
	EXPECT_EQ(-1, ioctl(fd1, RCLINK_IOC_BIND, &b));
	EXPECT_EQ(ERANGE, errno) TH_LOG("group %u: %s", b.qpn, strerror(errno));
	b.flags = 0;
	b.qpn = e->qp_num;
	EXPECT_EQ(-1, ioctl(fd1, RCLINK_IOC_BIND, &b));
	EXPECT_EQ(ERANGE, errno) TH_LOG("qpn %u = QP_NUM: %s", b.qpn, strerror(errno));
	b.qpn = 0xfffffffe;
	EXPECT_EQ(-1, ioctl(fd1, RCLINK_IOC_BIND, &b));
	EXPECT_EQ(ERANGE, errno) TH_LOG("qpn %u: %s", b.qpn, strerror(errno));
	b.qpn = QP_ONE + 4;	/* not added */
	EXPECT_EQ(-1, ioctl(fd1, RCLINK_IOC_BIND, &b));
	EXPECT_EQ(ENOENT, errno) TH_LOG("qpn %u (no QP): %s", b.qpn, strerror(errno));

	ASSERT_EQ(0, do_bind(fd1, QP_ONE)) TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, get_info(fd1, &info));
	EXPECT_EQ(QP_ONE, info.qpn);
	EXPECT_LE(MAX_SIZE, info.max_msg);
	EXPECT_EQ(RCLINK_TX_WINDOW_DEFAULT, info.tx_window);
	EXPECT_EQ(0, info.tx_inflight);
	EXPECT_EQ(0, info.rx_queued);
	EXPECT_EQ(RCLINK_QP_STATE_READY, info.state);
	EXPECT_EQ(0, info.tx_flushed);
	ksft_print_msg("INFO: qpn %u max_msg %u tx_window %u state %u\n",
		       info.qpn, info.max_msg, info.tx_window, info.state);

	/* a file binds once; a QP belongs to one file */
	EXPECT_EQ(-1, do_bind(fd1, QP_ONE));
	EXPECT_EQ(EINVAL, errno) TH_LOG("double bind: %s", strerror(errno));
	EXPECT_EQ(-1, do_bind(fd2, QP_ONE));
	EXPECT_EQ(EBUSY, errno) TH_LOG("second file: %s", strerror(errno));
	EXPECT_EQ(1, qp_stat(e, e->a, QP_ONE, "bound")) TH_LOG("qp show: bound");

	/* the tool cannot delete a bound QP */
	EXPECT_NE(0, run(out, sizeof(out), "%s qp del dev %s qpn %u", e->tool,
			 e->a, QP_ONE)) TH_LOG("qp del of a bound QP succeeded");
	ksft_print_msg("qp del of a bound QP: %s", out);

	/* unbind / close release the QP */
	ASSERT_EQ(0, ioctl(fd1, RCLINK_IOC_UNBIND)) TH_LOG("unbind: %s", strerror(errno));
	ASSERT_EQ(0, get_info(fd1, &info));
	EXPECT_EQ(RCLINK_QPN_NONE, info.qpn);
	ASSERT_EQ(0, do_bind(fd2, QP_ONE)) TH_LOG("bind after unbind: %s", strerror(errno));
	EXPECT_EQ(-1, do_bind(fd1, QP_ONE));
	EXPECT_EQ(EBUSY, errno);
	dev_close(self, fd2);
	fd3 = dev_open(self, e->a, 0);
	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, do_bind(fd3, QP_ONE)) TH_LOG("bind after close: %s", strerror(errno));
	dev_close(self, fd3);
	dev_close(self, fd1);
	EXPECT_EQ(0, qp_stat(e, e->a, QP_ONE, "bound")) TH_LOG("qp show: bound after close");
}

/* write sizes, window settings */
TEST_F(t1, limits)
{
	const struct t1env *e = &self->env;
	struct rclink_info info;
	uint32_t w;
	uint8_t *buf;
	int fd;

	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fd = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fd) TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, get_info(fd, &info));
	buf = calloc(1, info.max_msg + 2);
	ASSERT_NE(NULL, buf);

	EXPECT_EQ(-1, write(fd, buf, 0));
	EXPECT_EQ(EINVAL, errno) TH_LOG("write 0: %s", strerror(errno));
	EXPECT_EQ(-1, write(fd, buf, info.max_msg + 1));
	EXPECT_EQ(EMSGSIZE, errno) TH_LOG("write max_msg + 1: %s", strerror(errno));
	{
		struct iovec iov[2] = { { buf, info.max_msg }, { buf, 1 } };

		EXPECT_EQ(-1, writev(fd, iov, 2));
		EXPECT_EQ(EMSGSIZE, errno) TH_LOG("writev max_msg + 1: %s", strerror(errno));
	}
	w = 0;
	EXPECT_EQ(-1, set_window(fd, w));
	EXPECT_EQ(EINVAL, errno);
	w = RCLINK_TX_WINDOW_MAX + 1;
	EXPECT_EQ(-1, set_window(fd, w));
	EXPECT_EQ(EINVAL, errno);
	w = RCLINK_TX_WINDOW_MAX;
	EXPECT_EQ(0, set_window(fd, w));
	ASSERT_EQ(0, get_info(fd, &info));
	EXPECT_EQ(RCLINK_TX_WINDOW_MAX, info.tx_window);
	w = 1;
	EXPECT_EQ(0, set_window(fd, w));
	ASSERT_EQ(0, get_info(fd, &info));
	EXPECT_EQ(1, info.tx_window);
	EXPECT_EQ(0, info.tx_inflight);
	/* nothing was sent */
	EXPECT_EQ(0, qp_stat(e, e->a, QP_ONE, "tx_msgs"));
	free(buf);
}

/*
 * Every ioctl struct begins with its size and flags: unknown flags are
 * EINVAL, a larger struct is E2BIG unless its tail is zero, a smaller
 * (older) one is zero-extended or, for output, filled as far as it goes;
 * the command's own size bits do not matter.
 */
TEST_F(t1, ioctl_size)
{
	const struct t1env *e = &self->env;
	union {
		struct rclink_bind b;
		struct rclink_info i;
		struct rclink_window w;
		struct rclink_ring_setup s;
		struct rclink_ring_enter en;
		uint8_t raw[8192];
	} u;
	struct rclink_info info;
	size_t old, k;
	int fd;

	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fd = dev_open(self, e->a, 0);
	ASSERT_LE(0, fd) TH_LOG("open /dev/%s: %s", e->a, strerror(errno));

	/* unknown flags */
	memset(&u, 0, sizeof(u));
	u.i.size = sizeof(u.i);
	u.i.flags = 1;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_INFO, &u));
	EXPECT_EQ(EINVAL, errno) TH_LOG("INFO flags 1: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.w.size = sizeof(u.w);
	u.w.flags = 1U << 31;
	u.w.window = 8;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_SET_WINDOW, &u));
	EXPECT_EQ(EINVAL, errno) TH_LOG("SET_WINDOW flags: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.b.size = sizeof(u.b);
	u.b.flags = 1U << 31;
	u.b.qpn = QP_ONE;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_BIND, &u));
	EXPECT_EQ(EINVAL, errno) TH_LOG("BIND flags: %s", strerror(errno));

	/* smaller than the first version */
	memset(&u, 0, sizeof(u));
	u.i.size = 4;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_INFO, &u));
	EXPECT_EQ(EINVAL, errno) TH_LOG("INFO size 4: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.b.size = RCLINK_BIND_SIZE_VER0 - 4;
	u.b.qpn = QP_ONE;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_BIND, &u));
	EXPECT_EQ(EINVAL, errno) TH_LOG("BIND size 8: %s", strerror(errno));

	/* larger, with a non-zero byte the kernel does not know */
	memset(&u, 0, sizeof(u));
	u.i.size = sizeof(u.i) + 8;
	u.raw[sizeof(u.i) + 5] = 1;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_INFO, &u));
	EXPECT_EQ(E2BIG, errno) TH_LOG("INFO non-zero tail: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.w.size = sizeof(u.w) + 4;
	u.w.window = 8;
	u.raw[sizeof(u.w)] = 0x80;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_SET_WINDOW, &u));
	EXPECT_EQ(E2BIG, errno) TH_LOG("SET_WINDOW non-zero tail: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.b.size = sizeof(u.b) + 100;
	u.b.qpn = QP_ONE;
	u.raw[sizeof(u.b) + 99] = 1;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_BIND, &u));
	EXPECT_EQ(E2BIG, errno) TH_LOG("BIND non-zero tail: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.s.size = sizeof(u.s) + 4;
	u.s.sq_entries = 8;
	u.s.area_size = 65536;
	u.raw[sizeof(u.s) + 3] = 1;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_SETUP, &u));
	EXPECT_EQ(E2BIG, errno) TH_LOG("RING_SETUP non-zero tail: %s", strerror(errno));
	/* beyond a page: refused whatever it holds */
	memset(&u, 0, sizeof(u));
	u.i.size = sizeof(u.raw);
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_INFO, &u));
	EXPECT_EQ(E2BIG, errno) TH_LOG("INFO size 8192: %s", strerror(errno));

	/* larger with a zero tail: accepted, the tail left alone */
	memset(&u, 0, sizeof(u));
	u.b.size = sizeof(u.b) + 100;
	u.b.qpn = QP_ONE;
	ASSERT_EQ(0, ioctl(fd, RCLINK_IOC_BIND, &u)) TH_LOG("BIND zero tail: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.w.size = sizeof(u.w) + 4;
	u.w.window = 7;
	EXPECT_EQ(0, ioctl(fd, RCLINK_IOC_SET_WINDOW, &u))
		TH_LOG("SET_WINDOW zero tail: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.i.size = sizeof(u.i) + 16;
	ASSERT_EQ(0, ioctl(fd, RCLINK_IOC_INFO, &u)) TH_LOG("INFO zero tail: %s", strerror(errno));
	EXPECT_EQ(QP_ONE, u.i.qpn);
	EXPECT_EQ(7, u.i.tx_window);
	EXPECT_EQ(RCLINK_QP_STATE_READY, u.i.state);
	for (k = sizeof(u.i); k < sizeof(u.i) + 16; k++)
		if (u.raw[k])
			break;
	EXPECT_EQ(sizeof(u.i) + 16, k) TH_LOG("INFO wrote byte %zu of the tail", k);

	/* smaller (an older struct without tx_flushed): filled up to its size */
	old = offsetof(struct rclink_info, tx_flushed);
	memset(&u, 0xa5, sizeof(u));
	u.i.size = old;
	u.i.flags = 0;
	ASSERT_EQ(0, ioctl(fd, RCLINK_IOC_INFO, &u)) TH_LOG("INFO size %zu: %s", old, strerror(errno));
	EXPECT_EQ(old, u.i.size);
	EXPECT_EQ(QP_ONE, u.i.qpn);
	EXPECT_EQ(7, u.i.tx_window);
	for (k = old; k < sizeof(u.i); k++)
		if (u.raw[k] != 0xa5)
			break;
	EXPECT_EQ(sizeof(u.i), k) TH_LOG("INFO wrote byte %zu past its size", k);

	/* an older program's command number (other size bits) still works */
	memset(&u, 0, sizeof(u));
	u.i.size = old;
	EXPECT_EQ(0, ioctl(fd, _IOWR(RCLINK_DEV_IOC_MAGIC, 3, uint8_t[32]), &u))
		TH_LOG("INFO with _IOC_SIZE 32: %s", strerror(errno));
	EXPECT_EQ(QP_ONE, u.i.qpn);

	/* the rings: setup and enter follow the same rules */
	memset(&u, 0, sizeof(u));
	u.s.size = sizeof(u.s) + 8;
	u.s.sq_entries = 8;
	u.s.area_size = 65536;
	ASSERT_EQ(0, ioctl(fd, RCLINK_IOC_RING_SETUP, &u))
		TH_LOG("RING_SETUP zero tail: %s", strerror(errno));
	EXPECT_EQ(16, u.s.cq_entries);
	EXPECT_LT(0, u.s.rings_size);
	EXPECT_EQ(0, u.raw[sizeof(u.s)]);
	memset(&u, 0, sizeof(u));
	u.en.size = sizeof(u.en) + 4;
	u.raw[sizeof(u.en) + 1] = 1;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_ENTER, &u));
	EXPECT_EQ(E2BIG, errno) TH_LOG("RING_ENTER non-zero tail: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.en.size = sizeof(u.en);
	u.en.flags = 2;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_ENTER, &u));
	EXPECT_EQ(EINVAL, errno) TH_LOG("RING_ENTER flags 2: %s", strerror(errno));
	memset(&u, 0, sizeof(u));
	u.en.size = sizeof(u.en) + 4;
	EXPECT_EQ(0, ioctl(fd, RCLINK_IOC_RING_ENTER, &u))
		TH_LOG("RING_ENTER zero tail: %s", strerror(errno));
	EXPECT_EQ(0, u.en.submitted);
	ASSERT_EQ(0, get_info(fd, &info));
	EXPECT_EQ(QP_ONE, info.qpn);
}

/* A short buffer: EMSGSIZE, the message stays; FIONREAD; EAGAIN */
TEST_F(t1, emsgsize)
{
	const struct t1env *e = &self->env;
	uint8_t *buf = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	struct rclink_info info;
	struct iovec iov[2];
	int fa, fb, avail = -1;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa) TH_LOG("bind A: %s", strerror(errno));
	fb = open_bound(self, e->b, QP_ONE, O_NONBLOCK);
	ASSERT_LE(0, fb) TH_LOG("bind B: %s", strerror(errno));

	EXPECT_EQ(0, ioctl(fb, FIONREAD, &avail));
	EXPECT_EQ(0, avail);
	EXPECT_EQ(-1, read(fb, buf, MAX_SIZE));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("empty non-blocking read: %s", strerror(errno));
	EXPECT_EQ(0, wait_ev(fb, POLLIN, 200) & POLLIN);

	memset(want, 0x5c, 1000);
	ASSERT_EQ(1000, write(fa, want, 1000));
	ASSERT_EQ(POLLIN, wait_ev(fb, POLLIN, 10000) & POLLIN);
	EXPECT_EQ(0, ioctl(fb, FIONREAD, &avail));
	EXPECT_EQ(1000, avail);
	EXPECT_EQ(-1, read(fb, buf, 999));
	EXPECT_EQ(EMSGSIZE, errno) TH_LOG("short read: %s", strerror(errno));
	iov[0].iov_base = buf;
	iov[0].iov_len = 500;
	iov[1].iov_base = buf + 500;
	iov[1].iov_len = 499;
	EXPECT_EQ(-1, readv(fb, iov, 2));
	EXPECT_EQ(EMSGSIZE, errno) TH_LOG("short readv: %s", strerror(errno));
	EXPECT_EQ(0, ioctl(fb, FIONREAD, &avail));
	EXPECT_EQ(1000, avail);
	ASSERT_EQ(0, get_info(fb, &info));
	EXPECT_EQ(1, info.rx_queued);
	memset(buf, 0, 1001);
	EXPECT_EQ(1000, read(fb, buf, 1001));
	EXPECT_EQ(0, memcmp(buf, want, 1000));
	EXPECT_EQ(0, ioctl(fb, FIONREAD, &avail));
	EXPECT_EQ(0, avail);
	EXPECT_EQ(-1, read(fb, buf, MAX_SIZE));
	EXPECT_EQ(EAGAIN, errno);
	free(buf);
	free(want);
}

/* Messages received while no file is bound wait for the next file */
TEST_F(t1, rx_queued_unbound)
{
	const struct t1env *e = &self->env;
	uint8_t *buf = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	struct rclink_info info;
	int fa, fb, i;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa) TH_LOG("bind A: %s", strerror(errno));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, send_msg(e, fa, QP_ONE, i, buf)) TH_LOG("write %d: %s", i, strerror(errno));
	ASSERT_EQ(0, ioctl(fa, RCLINK_IOC_DRAIN)) TH_LOG("drain: %s", strerror(errno));
	ASSERT_EQ(0, get_info(fa, &info));
	EXPECT_EQ(0, info.tx_inflight);
	EXPECT_EQ(3, qp_stat(e, e->a, QP_ONE, "tx_msgs"));

	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb) TH_LOG("bind B: %s", strerror(errno));
	ASSERT_EQ(0, get_info(fb, &info));
	EXPECT_EQ(3, info.rx_queued);
	ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, 0, buf, want));
	dev_close(self, fb);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb) TH_LOG("bind B again: %s", strerror(errno));
	ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, 1, buf, want));
	ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, 2, buf, want));
	EXPECT_EQ(0, expect_empty(_metadata, fb));
	EXPECT_EQ(3, qp_stat(e, e->b, QP_ONE, "rx_msgs"));
	free(buf);
	free(want);
}

/* ------------------------------------------------------------------ */
/* transfers                                                            */

static void stats_check(struct __test_metadata *_metadata,
			const struct t1env *e, struct flow *f)
{
	uint64_t v;

	v = qp_stat(e, f->txdev, f->qpn, "tx_msgs");
	EXPECT_EQ(f->total, v) TH_LOG("%s qpn %u tx_msgs %" PRIu64, f->txdev, f->qpn, v);
	v = qp_stat(e, f->txdev, f->qpn, "tx_bytes");
	EXPECT_EQ(f->sent_bytes, v) TH_LOG("%s qpn %u tx_bytes %" PRIu64, f->txdev, f->qpn, v);
	v = qp_stat(e, f->txdev, f->qpn, "tx_flushed");
	EXPECT_EQ(0, v);
	v = qp_stat(e, f->rxdev, f->qpn, "rx_msgs");
	EXPECT_EQ(f->total, v) TH_LOG("%s qpn %u rx_msgs %" PRIu64, f->rxdev, f->qpn, v);
	v = qp_stat(e, f->rxdev, f->qpn, "rx_bytes");
	EXPECT_EQ(f->recvd_bytes, v) TH_LOG("%s qpn %u rx_bytes %" PRIu64, f->rxdev, f->qpn, v);
	v = qp_stat(e, f->rxdev, f->qpn, "rx_flushed");
	EXPECT_EQ(0, v);
}

/*
 * @total messages on QP_ONE from A to B, or with @back from B to A (a
 * board that only sends in one_qp receives here), blocking threads
 */
static void one_qp(struct __test_metadata *_metadata, FIXTURE_DATA(t1) *self,
		   uint32_t total, const char *what, bool back)
{
	const struct t1env *e = &self->env;
	const char *tx = back ? e->b : e->a, *rx = back ? e->a : e->b;
	struct rclink_info info;
	struct flow f;
	double secs = 0;
	int ft, fr;

	ft = open_bound(self, tx, QP_ONE, 0);
	ASSERT_LE(0, ft) TH_LOG("bind %s: %s", tx, strerror(errno));
	fr = open_bound(self, rx, QP_ONE, 0);
	ASSERT_LE(0, fr) TH_LOG("bind %s: %s", rx, strerror(errno));
	ASSERT_TRUE(flow_init(&f, e, _metadata, QP_ONE, tx, ft, rx, fr, total));
	ksft_print_msg("%s: %u messages on QP %u from %s to %s, seed 0x%" PRIx64
		       " (RCLINK_T1_SEED)\n", what, total, QP_ONE, tx, rx, e->seed);
	EXPECT_TRUE(transfer_threads(&f, 0, 0, &secs));
	flow_report(&f, secs);
	EXPECT_TRUE(flow_ok(&f));
	EXPECT_EQ(0, f.lost);
	EXPECT_EQ(0, f.dup);
	EXPECT_EQ(0, f.corrupt);
	EXPECT_EQ(total, f.recvd);
	if (flow_ok(&f)) {
		EXPECT_EQ(0, ioctl(ft, RCLINK_IOC_DRAIN)) TH_LOG("drain: %s", strerror(errno));
		EXPECT_EQ(0, get_info(ft, &info));
		EXPECT_EQ(0, info.tx_inflight);
		EXPECT_EQ(0, info.tx_flushed);
		EXPECT_EQ(0, get_info(fr, &info));
		EXPECT_EQ(0, info.rx_queued);
		EXPECT_EQ(0, expect_empty(_metadata, fr));
		stats_check(_metadata, e, &f);
	}
	qp_log(e, e->a, QP_ONE);
	qp_log(e, e->b, QP_ONE);
	flow_free(&f);
}

TEST_F_TIMEOUT(t1, one_qp, 3600)
{
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	one_qp(_metadata, self, self->env.msgs, "one_qp", false);
}

/* The other way: RCLINK_T1_BACK_MSGS messages from B to A */
TEST_F_TIMEOUT(t1, one_qp_back, 3600)
{
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	one_qp(_metadata, self, self->env.back_msgs, "one_qp_back", true);
}

/* 64 QPs at once, half A -> B and half B -> A, non-blocking with epoll */
TEST_F_TIMEOUT(t1, qp64, 3600)
{
	const struct t1env *e = &self->env;
	struct epoll_event ev, evs[2 * MAX_QPS];
	struct flow *fl = calloc(MAX_QPS, sizeof(*fl));
	uint32_t total = e->msgs, done = 0, nq = MAX_QPS;
	uint64_t bytes = 0;
	double t0, last, secs;
	bool stalled = false;
	int ep, i, n, nbad = 0;

	ASSERT_NE(NULL, fl);
	if (e->qp_num < QP_MULTI + MAX_QPS)
		SKIP(return, "QP_NUM %u < %u", e->qp_num, QP_MULTI + MAX_QPS);
	if (total < nq)
		nq = total;
	ASSERT_EQ(0, add_pairs(_metadata, self, QP_MULTI, nq));
	ep = epoll_create1(0);
	ASSERT_LE(0, ep);
	ksft_print_msg("qp64: %u messages over %u QPs, seed 0x%" PRIx64 "\n",
		       total, nq, e->seed);
	for (i = 0; i < (int)nq; i++) {
		uint32_t q = QP_MULTI + i, cnt = total / nq + (i < (int)(total % nq));
		const char *tx = i & 1 ? e->b : e->a, *rx = i & 1 ? e->a : e->b;
		int ft = open_bound(self, tx, q, O_NONBLOCK);
		int fr = open_bound(self, rx, q, O_NONBLOCK);

		ASSERT_LE(0, ft) TH_LOG("bind %s qpn %u: %s", tx, q, strerror(errno));
		ASSERT_LE(0, fr) TH_LOG("bind %s qpn %u: %s", rx, q, strerror(errno));
		ASSERT_TRUE(flow_init(&fl[i], e, _metadata, q, tx, ft, rx, fr, cnt));
		ev.events = EPOLLOUT;
		ev.data.u32 = i;
		ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, ft, &ev));
		ev.events = EPOLLIN;
		ev.data.u32 = i | 0x10000;
		ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, fr, &ev));
	}
	t0 = last = now_s();
	while (done < nq) {
		n = epoll_wait(ep, evs, 2 * MAX_QPS, 1000);
		if (n < 0 && errno == EINTR)
			continue;
		ASSERT_LE(0, n);
		for (i = 0; i < n; i++) {
			struct flow *f = &fl[evs[i].data.u32 & 0xffff];
			bool rxside = evs[i].data.u32 & 0x10000;
			uint32_t len;
			ssize_t r;

			if (evs[i].events & EPOLLERR) {
				struct rclink_info ii = {};

				get_info(rxside ? f->rxfd : f->txfd, &ii);
				FLOW_LOG(f, "EPOLLERR on the %s file (QP state %u, tx_flushed %llu) after %u sent, %u read",
					 rxside ? "reading" : "writing", ii.state,
					 (unsigned long long)ii.tx_flushed, f->sent, f->recvd);
				epoll_ctl(ep, EPOLL_CTL_DEL, f->txfd, NULL);
				f->tx_done = true;
				if (!rxside)
					f->werr = EIO;
				if (f->recvd < f->total && !f->rerr) {
					epoll_ctl(ep, EPOLL_CTL_DEL, f->rxfd, NULL);
					f->rerr = rxside ? EIO : ECANCELED;
					done++;
				}
				continue;
			}
			while (!rxside && f->sent < f->total) {
				r = flow_write(f, f->sent, &len);
				if (r < 0 && errno == EAGAIN) {
					f->w_eagain++;
					break;
				}
				if (r != (ssize_t)len) {
					FLOW_LOG(f, "write of message %u: %zd (%s)", f->sent,
						 r, r < 0 ? strerror(errno) : "short");
					f->werr = r < 0 ? errno : -1;
					/* the flow is over: stop writing and reading */
					epoll_ctl(ep, EPOLL_CTL_DEL, f->txfd, NULL);
					f->tx_done = true;
					if (f->recvd < f->total && !f->rerr) {
						epoll_ctl(ep, EPOLL_CTL_DEL, f->rxfd, NULL);
						f->rerr = ECANCELED;
						done++;
					}
					break;
				}
				f->sent++;
				f->sent_bytes += len;
				last = now_s();
			}
			if (!rxside && f->sent == f->total && !f->tx_done) {
				/* no more EPOLLOUT; EPOLLERR (QP fatal) still */
				f->tx_done = true;
				ev.events = 0;
				ev.data.u32 = evs[i].data.u32;
				epoll_ctl(ep, EPOLL_CTL_MOD, f->txfd, &ev);
			}
			while (rxside && f->recvd < f->total && !f->rerr) {
				r = flow_read(f);
				if (r < 0 && errno == EAGAIN)
					break;
				if (r < 0) {
					FLOW_LOG(f, "read: %s", strerror(errno));
					f->rerr = errno;
					epoll_ctl(ep, EPOLL_CTL_DEL, f->rxfd, NULL);
					done++;
					break;
				}
				flow_check(f, f->rx, r);
				bytes += r;
				last = now_s();
				if (f->recvd == f->total) {
					epoll_ctl(ep, EPOLL_CTL_DEL, f->rxfd, NULL);
					done++;
				}
			}
		}
		if (now_s() - last > e->stall) {
			stalled = true;
			break;
		}
	}
	secs = now_s() - t0;
	close(ep);
	ksft_print_msg("qp64: %u QPs, %" PRIu64 " bytes in %.1f s, %.2f MB/s\n",
		       nq, bytes, secs, secs > 0 ? bytes / secs / 1e6 : 0);
	EXPECT_FALSE(stalled) TH_LOG("no progress for %u s", e->stall);
	for (i = 0; i < (int)nq; i++) {
		struct flow *f = &fl[i];

		if (!flow_ok(f) || stalled) {
			struct rclink_info ia = {}, ib = {};

			get_info(f->txfd, &ia);
			get_info(f->rxfd, &ib);
			flow_report(f, secs);
			ksft_print_msg("  tx_inflight %u state %u, rx_queued %u state %u\n",
				       ia.tx_inflight, ia.state, ib.rx_queued, ib.state);
		}
		EXPECT_TRUE(flow_ok(f)) TH_LOG("QP %u", f->qpn);
		if (!flow_ok(f) && !nbad++) {
			char w[2048];

			/* the first failed QP in detail, the boards' drops */
			qp_log(e, f->txdev, f->qpn);
			qp_log(e, f->rxdev, f->qpn);
			wire(e, e->a, "show", w, sizeof(w));
			ksft_print_msg("wire A: %s", w);
			wire(e, e->b, "show", w, sizeof(w));
			ksft_print_msg("wire B: %s", w);
			debugfs_log(e->a, "events", "-v ' 0$'");
			debugfs_log(e->b, "events", "-v ' 0$'");
		}
	}
	if (nbad)
		ksft_print_msg("qp64: %d of %u QPs failed\n", nbad, nq);
	/* the QPs' counters: one dump of each board */
	for (i = 0; i < (int)nq; i++) {
		if (!flow_ok(&fl[i]))
			continue;
		set_nonblock(fl[i].txfd, false);
		EXPECT_EQ(0, ioctl(fl[i].txfd, RCLINK_IOC_DRAIN));
	}
	{
		static const char * const keys[] = { "retx_pkts", "rnr_rx", "rnr_tx", "timeouts" };
		static char da[1 << 18], db[1 << 18];
		uint64_t tx, rx, sum[ARRAY_SIZE(keys)] = {};
		unsigned int k;

		EXPECT_EQ(0, run(da, sizeof(da), "%s -j -s qp show dev %s", e->tool, e->a));
		EXPECT_EQ(0, run(db, sizeof(db), "%s -j -s qp show dev %s", e->tool, e->b));
		for (i = 0; i < (int)nq; i++) {
			struct flow *f = &fl[i];

			if (!flow_ok(f))
				continue;
			tx = dump_stat(f->txdev == e->a ? da : db, f->qpn, "tx_msgs");
			rx = dump_stat(f->rxdev == e->a ? da : db, f->qpn, "rx_msgs");
			EXPECT_EQ(f->total, tx) TH_LOG("%s qpn %u tx_msgs %" PRIu64,
						      f->txdev, f->qpn, tx);
			EXPECT_EQ(f->total, rx) TH_LOG("%s qpn %u rx_msgs %" PRIu64,
						      f->rxdev, f->qpn, rx);
		}
		/* where the time went: the recovery work of all QPs together */
		for (k = 0; k < ARRAY_SIZE(keys); k++) {
			for (i = 0; i < (int)nq; i++) {
				uint64_t v;

				v = dump_stat(da, fl[i].qpn, keys[k]);
				sum[k] += v == UINT64_MAX ? 0 : v;
				v = dump_stat(db, fl[i].qpn, keys[k]);
				sum[k] += v == UINT64_MAX ? 0 : v;
			}
		}
		ksft_print_msg("qp64: all QPs: retx_pkts %" PRIu64 " rnr_rx %" PRIu64
			       " rnr_tx %" PRIu64 " timeouts %" PRIu64 "\n",
			       sum[0], sum[1], sum[2], sum[3]);
		/* the receive side's flow control and CQ work */
		debugfs_log(e->a, "t1", T1_RX_KEYS);
		debugfs_log(e->b, "t1", T1_RX_KEYS);
	}
	for (i = 0; i < (int)nq; i++)
		flow_free(&fl[i]);
	qp_log(e, e->a, QP_MULTI);
	free(fl);
}

/* The transfer again with 5% loss, 1% corruption, ~1% reordering, a little duplication on both boards */
TEST_F_TIMEOUT(t1, faults, 3600)
{
	const struct t1env *e = &self->env;
	char out[1024], wa[2048], wb[2048], wa0[2048], wb0[2048];
	const char *keys[] = { "retx_pkts", "nak_rx", "nak_tx", "timeouts",
			       "rx_dup", "rx_oos", "rnr_rx", "ack_rx", "ack_tx" };
	uint64_t st[2][9];
	unsigned int i;

	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	/* retries enough for a lossy wire, ICRC on (else a payload bit flip gets through) */
	for (i = 0; i < 2; i++) {
		const char *d = i ? e->b : e->a;

		ASSERT_EQ(0, run(out, sizeof(out), "%s dev set dev %s retry_cnt 15 icrc on",
				 e->tool, d)) TH_LOG("rclink dev set dev %s: %s", d, out);
	}
	WIRE(e->a, "show");
	ASSERT_EQ(0, wire(e, e->a, "show", wa0, sizeof(wa0)));
	ASSERT_EQ(0, wire(e, e->b, "show", wb0, sizeof(wb0)));
	WIRE(e->a, "seed=1 loss=50000 corrupt=10000 reorder=10000 dup=2000");
	WIRE(e->b, "seed=2 loss=50000 corrupt=10000 reorder=10000 dup=2000");
	one_qp(_metadata, self, e->fault_msgs, "faults", false);
	ASSERT_EQ(0, wire(e, e->a, "off show", wa, sizeof(wa)));
	ASSERT_EQ(0, wire(e, e->b, "off show", wb, sizeof(wb)));
	ksft_print_msg("wire A: %s", wa);
	ksft_print_msg("wire B: %s", wb);
	for (i = 0; i < 9; i++) {
		st[0][i] = qp_stat(e, e->a, QP_ONE, keys[i]);
		st[1][i] = qp_stat(e, e->b, QP_ONE, keys[i]);
		ksft_print_msg("%s: A %" PRIu64 ", B %" PRIu64 "\n", keys[i],
			       st[0][i], st[1][i]);
	}
	/* with too few frames (RCLINK_T1_FAULT_MSGS small) a fault may not occur */
	if (wire_counter(wa, "tx_frames") - wire_counter(wa0, "tx_frames") < 5000) {
		ksft_print_msg("fewer than 5000 frames: the counters are not checked\n");
		return;
	}
	/* the injector did its job on both boards */
	EXPECT_LT(wire_counter(wa0, "lost"), wire_counter(wa, "lost"));
	EXPECT_LT(wire_counter(wa0, "corrupted"), wire_counter(wa, "corrupted"));
	EXPECT_LT(wire_counter(wa0, "reordered"), wire_counter(wa, "reordered"));
	EXPECT_LT(wire_counter(wa0, "duplicated"), wire_counter(wa, "duplicated"));
	EXPECT_LT(wire_counter(wb0, "lost"), wire_counter(wb, "lost"));
	/* the board's counters of events inside the IP: only where counted */
	if (!qp_counted(e, e->a, QP_ONE, "retx_pkts") ||
	    !qp_counted(e, e->b, QP_ONE, "nak_tx")) {
		ksft_print_msg("SKIP assertions on retx_pkts, nak_rx, nak_tx, rx_dup, rx_oos, rx_drop_csum, rx_drop_icrc: the board does not count them\n");
		EXPECT_EQ(0, qp_stat(e, e->a, QP_ONE, "fatal"));
		return;
	}
	/* B dropped the corrupted frames (IP checksum or ICRC) */
	EXPECT_LT(wire_counter(wb0, "rx_drop_csum") + wire_counter(wb0, "rx_drop_icrc") +
		  wire_counter(wb0, "rx_drop_malformed"),
		  wire_counter(wb, "rx_drop_csum") + wire_counter(wb, "rx_drop_icrc") +
		  wire_counter(wb, "rx_drop_malformed"));
	/* and the transport recovered: retransmissions, NAKs both ways */
	EXPECT_LT(0, st[0][0]) TH_LOG("A retx_pkts %" PRIu64, st[0][0]);
	EXPECT_NE(UINT64_MAX, st[0][0]);
	EXPECT_LT(0, st[0][1]) TH_LOG("A nak_rx %" PRIu64, st[0][1]);
	EXPECT_NE(UINT64_MAX, st[0][1]);
	EXPECT_LT(0, st[1][2]) TH_LOG("B nak_tx %" PRIu64, st[1][2]);
	EXPECT_NE(UINT64_MAX, st[1][2]);
	EXPECT_LT(0, st[1][4] + st[1][5]) TH_LOG("B rx_dup + rx_oos");
	EXPECT_EQ(0, qp_stat(e, e->a, QP_ONE, "fatal"));
}

/*
 * Receive flow control (rclink-dev.rst): a reader that does not read for a
 * while lets more than t1_rx_queued_max (8 MiB here, 64 MiB by default)
 * queue up and B's posted buffers (2 MiB) fill; the board then refuses
 * packets (RNR) and nothing is lost; reading resumes the flow.
 */
TEST_F_TIMEOUT(t1, rx_flow_control, 3600)
{
	const struct t1env *e = &self->env;
	uint32_t total = 24u << 20 >> 16;	/* 24 MiB in 64 KiB messages */
	uint64_t v, limit = 8u << 20;
	struct flow f;
	double secs = 0;
	int fa, fb;

	if (debugfs_u64(e->b, "t1_rx_queued_max", &self->queued_max, NULL))
		SKIP(return, "no debugfs t1_rx_queued_max of %s", e->b);
	/* the teardown restores it, whatever fails below */
	self->queued_max_set = true;
	ASSERT_EQ(0, debugfs_u64(e->b, "t1_rx_queued_max", NULL, &limit));
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb);
	ASSERT_TRUE(flow_init(&f, e, _metadata, QP_ONE, e->a, fa, e->b, fb, total));
	f.fixed = MAX_SIZE;
	ksft_print_msg("rx_flow_control: %u messages of 64 KiB, the reader starts after 3 s\n",
		       total);
	EXPECT_TRUE(transfer_threads(&f, 0, 3000, &secs));
	flow_report(&f, secs);
	EXPECT_TRUE(flow_ok(&f));
	if (flow_ok(&f)) {
		EXPECT_EQ(0, ioctl(fa, RCLINK_IOC_DRAIN));
		stats_check(_metadata, e, &f);
	}
	v = qp_stat(e, e->a, QP_ONE, "rnr_rx");
	ksft_print_msg("A rnr_rx %" PRIu64 ", timeouts %" PRIu64 ", retx_pkts %" PRIu64 "\n",
		       v, qp_stat(e, e->a, QP_ONE, "timeouts"),
		       qp_stat(e, e->a, QP_ONE, "retx_pkts"));
	/* the limit was reached: the board refused packets meanwhile */
	EXPECT_LT(0, v + qp_stat(e, e->a, QP_ONE, "timeouts"));
	EXPECT_EQ(0, qp_stat(e, e->a, QP_ONE, "fatal"));
	flow_free(&f);
}

/* ------------------------------------------------------------------ */
/* window full, poll, signals                                           */

struct bw {
	int fd;
	const uint8_t *buf;
	size_t len;
	volatile bool done;
	ssize_t ret;
	int err;
};

static void *blocking_write(void *arg)
{
	struct bw *w = arg;

	w->ret = write(w->fd, w->buf, w->len);
	w->err = errno;
	w->done = true;
	return NULL;
}

/*
 * Window 1 and the link of A held down (its packets wait, no retry timer
 * runs): the second write is EAGAIN (O_NONBLOCK), no POLLOUT; link up ->
 * POLLOUT; a blocking writer sleeps on the full window and wakes when
 * the acknowledgement returns.
 */
TEST_F_TIMEOUT(t1, window_full, 120)
{
	const struct t1env *e = &self->env;
	uint8_t *buf = malloc(MAX_SIZE), *buf2 = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	struct rclink_info info;
	struct bw w = {};
	pthread_t th;
	uint32_t one = 1, len;
	double t0;
	int fa, fb, i;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, buf2);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, O_NONBLOCK);
	ASSERT_LE(0, fa) TH_LOG("bind A: %s", strerror(errno));
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb) TH_LOG("bind B: %s", strerror(errno));
	ASSERT_EQ(0, set_window(fa, one));
	EXPECT_EQ(POLLOUT, wait_ev(fa, POLLOUT, 1000) & POLLOUT);

	WIRE(e->a, "link=down");
	ASSERT_EQ(0, send_msg(e, fa, QP_ONE, 0, buf)) TH_LOG("write: %s", strerror(errno));
	len = msg_size(e->seed, QP_ONE, 1);
	msg_build(e->seed, QP_ONE, 1, len, buf);
	EXPECT_EQ(-1, write(fa, buf, len));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("write with the window full: %s", strerror(errno));
	EXPECT_EQ(0, wait_ev(fa, POLLOUT, 500) & POLLOUT) TH_LOG("POLLOUT with the window full");
	ASSERT_EQ(0, get_info(fa, &info));
	EXPECT_EQ(1, info.tx_inflight);
	EXPECT_EQ(RCLINK_QP_STATE_READY, info.state);
	ksft_print_msg("window full: EAGAIN, no POLLOUT\n");

	WIRE(e->a, "link=up");
	t0 = now_s();
	EXPECT_EQ(POLLOUT, wait_ev(fa, POLLOUT, 10000) & POLLOUT) TH_LOG("no POLLOUT after the link came back");
	ksft_print_msg("POLLOUT %.3f s after link up\n", now_s() - t0);
	ASSERT_EQ(0, send_msg(e, fa, QP_ONE, 1, buf)) TH_LOG("write: %s", strerror(errno));
	set_nonblock(fa, false);
	ASSERT_EQ(0, ioctl(fa, RCLINK_IOC_DRAIN));

	/* a blocking writer on the full window */
	WIRE(e->a, "link=down");
	ASSERT_EQ(0, send_msg(e, fa, QP_ONE, 2, buf));
	w.fd = fa;
	w.len = msg_size(e->seed, QP_ONE, 3);
	msg_build(e->seed, QP_ONE, 3, w.len, buf2);
	w.buf = buf2;
	ASSERT_EQ(0, pthread_create(&th, NULL, blocking_write, &w));
	sleep_ms(500);
	EXPECT_FALSE(w.done) TH_LOG("blocking write returned %zd (%s) with the window full",
				    w.ret, strerror(w.err));
	WIRE(e->a, "link=up");
	t0 = now_s();
	for (i = 0; i < 1000 && !w.done; i++)
		sleep_ms(10);
	EXPECT_TRUE(w.done) TH_LOG("the blocking writer did not wake in 10 s");
	if (!w.done) {
		sigusr1_install();
		pthread_kill(th, SIGUSR1);
	}
	pthread_join(th, NULL);
	EXPECT_EQ((ssize_t)w.len, w.ret) TH_LOG("blocking write: %s", strerror(w.err));
	ksft_print_msg("the blocking writer woke %.3f s after link up\n", now_s() - t0);

	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, i, buf, want));
	EXPECT_EQ(0, expect_empty(_metadata, fb));
	EXPECT_EQ(0, qp_stat(e, e->a, QP_ONE, "fatal"));
	free(buf);
	free(buf2);
	free(want);
}

struct sigger {
	pthread_t target;
	unsigned int delay_ms;
};

static void *sig_later(void *arg)
{
	struct sigger *s = arg;

	sleep_ms(s->delay_ms);
	pthread_kill(s->target, SIGUSR1);
	return NULL;
}

/* A blocking read with nothing queued: a signal gives EINTR; nothing lost */
TEST_F_TIMEOUT(t1, signal_read, 60)
{
	const struct t1env *e = &self->env;
	uint8_t *buf = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	struct sigger s = { pthread_self(), 300 };
	pthread_t th;
	double t0;
	ssize_t n;
	int fa, fb, i;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb);
	sigusr1_install();
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&th, NULL, sig_later, &s));
		t0 = now_s();
		n = read(fb, buf, MAX_SIZE);
		pthread_join(th, NULL);
		EXPECT_EQ(-1, n) TH_LOG("read returned %zd", n);
		EXPECT_EQ(EINTR, errno) TH_LOG("read: %s", strerror(errno));
		EXPECT_LE(0.25, now_s() - t0) TH_LOG("read returned before the signal");
		/* the message written after the signal arrives exactly once */
		ASSERT_EQ(0, send_msg(e, fa, QP_ONE, i, buf));
		ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, i, buf, want));
		EXPECT_EQ(0, expect_empty(_metadata, fb));
	}
	EXPECT_EQ(2, qp_stat(e, e->b, QP_ONE, "rx_msgs"));
	free(buf);
	free(want);
}

/* A blocking write on the full window: a signal gives EINTR, the message is not sent */
TEST_F_TIMEOUT(t1, signal_write, 60)
{
	const struct t1env *e = &self->env;
	uint8_t *buf = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	struct sigger s = { pthread_self(), 300 };
	struct rclink_info info;
	uint32_t one = 1, len;
	pthread_t th;
	double t0;
	ssize_t n;
	int fa, fb;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, set_window(fa, one));
	sigusr1_install();

	WIRE(e->a, "link=down");
	ASSERT_EQ(0, send_msg(e, fa, QP_ONE, 0, buf));
	len = msg_size(e->seed, QP_ONE, 1);
	msg_build(e->seed, QP_ONE, 1, len, buf);
	ASSERT_EQ(0, pthread_create(&th, NULL, sig_later, &s));
	t0 = now_s();
	n = write(fa, buf, len);
	pthread_join(th, NULL);
	EXPECT_EQ(-1, n) TH_LOG("write returned %zd", n);
	EXPECT_EQ(EINTR, errno) TH_LOG("write: %s", strerror(errno));
	EXPECT_LE(0.25, now_s() - t0) TH_LOG("write returned before the signal");
	ASSERT_EQ(0, get_info(fa, &info));
	EXPECT_EQ(1, info.tx_inflight);
	WIRE(e->a, "link=up");
	/* the interrupted message, written again, arrives once */
	ASSERT_EQ((ssize_t)len, write(fa, buf, len)) TH_LOG("write again: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fa, RCLINK_IOC_DRAIN));
	ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, 0, buf, want));
	ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, 1, buf, want));
	EXPECT_EQ(0, expect_empty(_metadata, fb));
	EXPECT_EQ(2, qp_stat(e, e->a, QP_ONE, "tx_msgs"));
	EXPECT_EQ(2, qp_stat(e, e->b, QP_ONE, "rx_msgs"));
	free(buf);
	free(want);
}

/* A stream with SIGUSR1 to the blocked writer and reader every millisecond */
TEST_F_TIMEOUT(t1, signal_storm, 3600)
{
	const struct t1env *e = &self->env;
	uint32_t two = 2, total = e->msgs / 10;
	struct flow f;
	double secs = 0;
	int fa, fb;

	if (total < 100)
		total = e->msgs < 100 ? e->msgs : 100;
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, set_window(fa, two));
	ASSERT_TRUE(flow_init(&f, e, _metadata, QP_ONE, e->a, fa, e->b, fb, total));
	ksft_print_msg("signal_storm: %u messages, window 2, seed 0x%" PRIx64 "\n",
		       total, e->seed);
	EXPECT_TRUE(transfer_threads(&f, 1000, 0, &secs));
	flow_report(&f, secs);
	EXPECT_TRUE(flow_ok(&f));
	if (flow_ok(&f)) {
		EXPECT_EQ(0, ioctl(fa, RCLINK_IOC_DRAIN));
		EXPECT_EQ(0, expect_empty(_metadata, fb));
		stats_check(_metadata, e, &f);
	}
	flow_free(&f);
}

/* ------------------------------------------------------------------ */
/* mmap'd rings (Documentation/uapi/rclink-dev.rst, "Rings")            */

#define RING_SLOTS	32		/* messages in flight per side */
#define RING_AREA	(RING_SLOTS * MAX_SIZE)

/* Set up the rings of fd (the area: RING_SLOTS slots of MAX_SIZE) */
static int ring_open(struct __test_metadata *_metadata, struct rclink_ring *r,
		     int fd, uint32_t sq, uint32_t cq, uint32_t area)
{
	if (rclink_ring_init(r, fd, sq, cq, area)) {
		TH_LOG("ring setup (sq %u cq %u area %u): %s", sq, cq, area,
		       strerror(errno));
		return -1;
	}
	return 0;
}

/* Reap one CQE within ms; 0 and *out, or -1 */
static int ring_wait_cqe(struct rclink_ring *r, struct rclink_cqe *out, int ms)
{
	struct rclink_cqe *cqe;
	double end = now_s() + ms / 1000.0;

	for (;;) {
		cqe = rclink_ring_peek_cqe(r);
		if (cqe) {
			*out = *cqe;
			rclink_ring_cqe_seen(r);
			return 0;
		}
		if (now_s() > end)
			return -1;
		wait_ev(r->fd, POLLIN, 100);
	}
}

/* Submit one SQE and reap its CQE */
static int ring_op(struct rclink_ring *r, uint8_t op, uint64_t addr,
		   uint32_t len, uint64_t ud, struct rclink_cqe *cqe)
{
	struct rclink_sqe *sqe = rclink_ring_get_sqe(r);

	if (!sqe)
		return -1;
	sqe->opcode = op;
	sqe->addr = addr;
	sqe->len = len;
	sqe->user_data = ud;
	if (rclink_ring_submit(r, 0) != 1)
		return -1;
	return ring_wait_cqe(r, cqe, 10000);
}

/* Submit a WRITE or READ of 64 bytes at area offset 0 and its REMOTE SQE
 * (remote address 0, key 1); reap the CQE */
static int ring_rdma_op(struct rclink_ring *r, uint8_t op,
			struct rclink_cqe *cqe)
{
	struct rclink_sqe *sqe = rclink_ring_get_sqe(r);
	struct rclink_sqe *rem = rclink_ring_get_sqe(r);

	if (!sqe || !rem)
		return -1;
	sqe->opcode = op;
	sqe->len = 64;
	rem->opcode = RCLINK_OP_REMOTE;
	rem->len = 1;
	if (rclink_ring_submit(r, 0) != 2)
		return -1;
	return ring_wait_cqe(r, cqe, 10000);
}

/* Setup limits, mmap rules, what a fresh ring shows */
TEST_F(t1, ring_setup)
{
	const struct t1env *e = &self->env;
	static const struct { uint32_t sq, cq, area, flags; } bad[] = {
		{ 0, 0, 65536, 0 }, { 3, 0, 65536, 0 },
		{ RCLINK_RING_MAX_SQ * 2, 0, 65536, 0 },
		{ 8, 4, 65536, 0 }, { 8, 24, 65536, 0 },
		{ 8, RCLINK_RING_MAX_CQ * 2, 65536, 0 },
		{ 8, 0, 0, 0 }, { 8, 0, 100, 0 },
		{ 8, 0, RCLINK_RING_MAX_AREA + 4096, 0 }, { 8, 0, 65536, 1 },
	};
	struct rclink_ring_setup s;
	struct rclink_ring_enter en = { .size = sizeof(en) };
	struct rclink_ring r;
	uint8_t *p;
	size_t i;
	void *m;
	int fd, fd2;

	fd = dev_open(self, e->a, 0);
	ASSERT_LE(0, fd);
	/* nothing to map or enter before the setup */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, RCLINK_RING_OFF_RINGS);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_ENTER, &en));
	EXPECT_EQ(EINVAL, errno);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.sq_entries = bad[i].sq;
		s.cq_entries = bad[i].cq;
		s.area_size = bad[i].area;
		s.flags = bad[i].flags;
		EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_SETUP, &s))
			TH_LOG("setup sq %u cq %u area %u flags %u accepted",
			       bad[i].sq, bad[i].cq, bad[i].area, bad[i].flags);
		EXPECT_EQ(EINVAL, errno);
	}
	/* works unbound; the CQ defaults to twice the SQ */
	ASSERT_EQ(0, ring_open(_metadata, &r, fd, 16, 0, 4 * 65536 + 4096));
	EXPECT_EQ(32, r.setup.cq_entries);
	EXPECT_EQ(15, r.hdr->sq_mask);
	EXPECT_EQ(31, r.hdr->cq_mask);
	EXPECT_EQ(0, r.hdr->sq_head);
	EXPECT_EQ(0, r.hdr->cq_tail);
	EXPECT_LE(64, r.setup.max_msg);
	EXPECT_LE(r.setup.cq_off + 32 * sizeof(struct rclink_cqe), r.setup.rings_size);
	EXPECT_LE(r.setup.sq_off + 16 * sizeof(struct rclink_sqe), r.setup.cq_off);
	/* a fresh area holds zeros only: no kernel memory shows through */
	for (i = 0, p = r.area; i < r.area_size; i++)
		if (p[i])
			break;
	EXPECT_EQ(r.area_size, i) TH_LOG("area byte %zu is 0x%02x", i, p[i]);
	/* once per file */
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.sq_entries = 8;
	s.area_size = 65536;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_SETUP, &s));
	EXPECT_EQ(EBUSY, errno);
	/* mapping rules: shared only, within each region, known offsets */
	m = mmap(NULL, r.setup.rings_size + 4096, PROT_READ, MAP_SHARED, fd,
		 RCLINK_RING_OFF_RINGS);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, r.area_size + 4096, PROT_READ, MAP_SHARED, fd,
		 RCLINK_RING_OFF_AREA);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, RCLINK_RING_OFF_AREA);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, RCLINK_RING_OFF_AREA + 65536);
	EXPECT_EQ(MAP_FAILED, m);
	/* another file reaches none of it */
	fd2 = dev_open(self, e->a, 0);
	ASSERT_LE(0, fd2);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2, RCLINK_RING_OFF_AREA);
	EXPECT_EQ(MAP_FAILED, m);
	rclink_ring_exit(&r);
}

/* Bad SQEs complete with an error each; a bad tail fails the call */
TEST_F(t1, ring_bad_sqes)
{
	const struct t1env *e = &self->env;
	static const struct { uint8_t op, flags; uint64_t addr; uint32_t len;
			      int err; } bad[] = {
		{ RCLINK_OP_SEND, 0, 0, 0, EINVAL },
		{ RCLINK_OP_SEND, 0, 65536, 1, EFAULT },
		{ RCLINK_OP_SEND, 0, 65535, 2, EFAULT },
		{ RCLINK_OP_SEND, 0, UINT64_MAX - 4, 16, EFAULT },
		{ RCLINK_OP_SEND, 0, 0, 0x7fffffff, EMSGSIZE },
		{ RCLINK_OP_SEND, 1, 0, 16, EINVAL },
		{ RCLINK_OP_RECV, 0, 0, 0, EINVAL },
		{ RCLINK_OP_RECV, 0, 60000, 6000, EFAULT },
		{ 99, 0, 0, 16, EINVAL },
	};
	struct rclink_ring_enter en = { .size = sizeof(en) };
	struct rclink_cqe cqe;
	struct rclink_ring r, ru;
	uint32_t errs, tail;
	size_t i;
	int fd, fu;

	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fd = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fd) TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, ring_open(_metadata, &r, fd, 8, 8, 65536));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct rclink_sqe *sqe = rclink_ring_get_sqe(&r);

		ASSERT_NE(NULL, sqe);
		sqe->opcode = bad[i].op;
		sqe->flags = bad[i].flags;
		sqe->addr = bad[i].addr;
		sqe->len = bad[i].len;
		sqe->user_data = 1000 + i;
		ASSERT_EQ(1, rclink_ring_submit(&r, 1)) TH_LOG("enter: %s", strerror(errno));
		ASSERT_EQ(0, ring_wait_cqe(&r, &cqe, 1000));
		EXPECT_EQ(1000 + i, cqe.user_data);
		EXPECT_EQ(-bad[i].err, cqe.res)
			TH_LOG("SQE %zu (op %u addr %#" PRIx64 " len %u): res %d, want %d",
			       i, bad[i].op, bad[i].addr, bad[i].len, cqe.res, -bad[i].err);
	}
	EXPECT_EQ(sizeof(bad) / sizeof(bad[0]), r.hdr->sq_errors);
	/* a NOP completes with 0 */
	ASSERT_EQ(0, ring_op(&r, RCLINK_OP_NOP, 0, 0, 77, &cqe));
	EXPECT_EQ(77, cqe.user_data);
	EXPECT_EQ(0, cqe.res);
	EXPECT_EQ(RCLINK_OP_NOP, RCLINK_CQE_OP(cqe.flags));
	/* a tail beyond the SQ fails the call; nothing is taken */
	errs = r.hdr->sq_errors;
	tail = r.hdr->sq_head + 9;
	__atomic_store_n(&r.hdr->sq_tail, tail, __ATOMIC_RELEASE);
	en.to_submit = 9;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_ENTER, &en));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(tail - 9, r.hdr->sq_head);
	EXPECT_EQ(errs, r.hdr->sq_errors);
	__atomic_store_n(&r.hdr->sq_tail, r.sq_tail, __ATOMIC_RELEASE);
	en.flags = 1;
	en.to_submit = 0;
	EXPECT_EQ(-1, ioctl(fd, RCLINK_IOC_RING_ENTER, &en));
	EXPECT_EQ(EINVAL, errno);
	/* a CQ head that lies: the ring counts as full, nothing is lost */
	__atomic_store_n(&r.hdr->cq_head, r.cq_head + 1000, __ATOMIC_RELEASE);
	ASSERT_NE(NULL, rclink_ring_get_sqe(&r));
	EXPECT_EQ(-1, rclink_ring_submit(&r, 0));
	EXPECT_EQ(EBUSY, errno);
	__atomic_store_n(&r.hdr->cq_head, r.cq_head, __ATOMIC_RELEASE);
	EXPECT_EQ(1, rclink_ring_submit(&r, 1));
	ASSERT_EQ(0, ring_wait_cqe(&r, &cqe, 1000));
	EXPECT_EQ(0, cqe.res);
	EXPECT_EQ(0, r.hdr->cq_overflow);
	/* an unbound file's SEND and RECV: ENOTCONN */
	fu = dev_open(self, e->a, 0);
	ASSERT_LE(0, fu);
	ASSERT_EQ(0, ring_open(_metadata, &ru, fu, 4, 4, 65536));
	ASSERT_EQ(0, ring_op(&ru, RCLINK_OP_SEND, 0, 100, 5, &cqe));
	EXPECT_EQ(-ENOTCONN, cqe.res);
	ASSERT_EQ(0, ring_op(&ru, RCLINK_OP_RECV, 0, 100, 6, &cqe));
	EXPECT_EQ(-ENOTCONN, cqe.res);
	rclink_ring_exit(&ru);
	rclink_ring_exit(&r);
	/* nothing was sent */
	EXPECT_EQ(0, qp_stat(e, e->a, QP_ONE, "tx_msgs"));
}

/* One side of a ring transfer */
struct ring_side {
	struct rclink_ring r;
	uint32_t next;		/* sender: next seq to send */
	uint32_t done;		/* completions seen */
	uint32_t free_slots[RING_SLOTS];
	uint32_t nfree;
	int err;
};

/*
 * total messages A -> B through the rings, RING_SLOTS in flight, SENDs in
 * batches of up to `batch`; every message checked at B in order.
 */
static bool ring_transfer(struct __test_metadata *_metadata, struct flow *f,
			  struct ring_side *tx, struct ring_side *rx,
			  uint32_t batch)
{
	struct pollfd pfd[2] = {
		{ .fd = tx->r.fd, .events = POLLIN },
		{ .fd = rx->r.fd, .events = POLLIN },
	};
	double last = now_s();
	struct rclink_cqe *cqe;
	struct rclink_sqe *sqe;
	uint32_t i, n, len, slot;
	unsigned int stall = f->env->stall;

	tx->nfree = RING_SLOTS;
	for (i = 0; i < RING_SLOTS; i++)
		tx->free_slots[i] = i;
	/* lend every receive slot */
	for (i = 0; i < RING_SLOTS; i++) {
		sqe = rclink_ring_get_sqe(&rx->r);
		if (!sqe)
			return false;
		rclink_ring_prep_recv(sqe, (uint64_t)i * MAX_SIZE, MAX_SIZE, i);
	}
	if (rclink_ring_submit(&rx->r, 0) != RING_SLOTS) {
		TH_LOG("lending %u RECV buffers: %s", RING_SLOTS, strerror(errno));
		return false;
	}
	while (rx->done < f->total) {
		bool progress = false;

		/* sender: fill free slots, one enter per batch */
		for (n = 0; n < batch && tx->next < f->total && tx->nfree; n++) {
			sqe = rclink_ring_get_sqe(&tx->r);
			if (!sqe)
				break;
			slot = tx->free_slots[--tx->nfree];
			len = f->fixed ? f->fixed :
			      msg_size(f->env->seed, f->qpn, tx->next);
			msg_build(f->env->seed, f->qpn, tx->next, len,
				  rclink_ring_area(&tx->r, (uint64_t)slot * MAX_SIZE));
			rclink_ring_prep_send(sqe, (uint64_t)slot * MAX_SIZE, len,
					      ((uint64_t)tx->next << 32) | slot);
			tx->next++;
		}
		if (rclink_ring_sq_pending(&tx->r)) {
			int rc = rclink_ring_submit(&tx->r, 0);

			if (rc < 0 && errno != EAGAIN && errno != EBUSY) {
				TH_LOG("sender enter: %s", strerror(errno));
				return false;
			}
			if (rc > 0)
				progress = true;
		}
		/* sender completions: the slot is free again */
		while ((cqe = rclink_ring_peek_cqe(&tx->r))) {
			uint32_t seq = cqe->user_data >> 32;

			if (cqe->res != (int32_t)(f->fixed ? f->fixed :
				      msg_size(f->env->seed, f->qpn, seq))) {
				TH_LOG("SEND of message %u completed with %d", seq,
				       cqe->res);
				tx->err++;
			}
			tx->free_slots[tx->nfree++] = cqe->user_data & 0xffffffff;
			tx->done++;
			f->sent++;
			rclink_ring_cqe_seen(&tx->r);
			progress = true;
		}
		/* receiver: check, lend the slot again */
		n = 0;
		while ((cqe = rclink_ring_peek_cqe(&rx->r))) {
			slot = cqe->user_data;
			if (cqe->res < 0 || slot >= RING_SLOTS) {
				TH_LOG("RECV completed with %d (slot %u)", cqe->res, slot);
				rx->err++;
				return false;
			}
			flow_check(f, rclink_ring_area(&rx->r, (uint64_t)slot * MAX_SIZE),
				   cqe->res);
			rx->done++;
			rclink_ring_cqe_seen(&rx->r);
			sqe = rclink_ring_get_sqe(&rx->r);
			if (sqe) {
				rclink_ring_prep_recv(sqe, (uint64_t)slot * MAX_SIZE,
						      MAX_SIZE, slot);
				n++;
			}
			progress = true;
		}
		if (n && rclink_ring_submit(&rx->r, 0) < 0) {
			TH_LOG("receiver enter: %s", strerror(errno));
			return false;
		}
		if (progress) {
			last = now_s();
			continue;
		}
		if (now_s() - last > stall) {
			TH_LOG("no progress for %u s: %u sent, %u completed, %u received",
			       stall, tx->next, tx->done, rx->done);
			return false;
		}
		poll(pfd, 2, 50);
	}
	/* the last completions of the sender */
	while (tx->done < tx->next && now_s() - last < stall) {
		if (ring_wait_cqe(&tx->r, &(struct rclink_cqe){}, 1000) == 0) {
			tx->done++;
			f->sent++;
		}
	}
	return !tx->err && !rx->err && tx->done == f->total;
}

/* RCLINK_T1_MSGS messages of random sizes through the rings, zero copy */
TEST_F_TIMEOUT(t1, ring_transfer, 3600)
{
	const struct t1env *e = &self->env;
	struct ring_side *tx, *rx;
	struct rclink_info info;
	double t0, secs;
	uint32_t w = 2 * RING_SLOTS;
	struct flow f;
	int fa, fb;

	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa) TH_LOG("bind A: %s", strerror(errno));
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb) TH_LOG("bind B: %s", strerror(errno));
	ASSERT_EQ(0, set_window(fa, w));
	tx = calloc(1, sizeof(*tx));
	rx = calloc(1, sizeof(*rx));
	ASSERT_TRUE(tx && rx);
	ASSERT_EQ(0, ring_open(_metadata, &tx->r, fa, 64, 128, RING_AREA));
	ASSERT_EQ(0, ring_open(_metadata, &rx->r, fb, 64, 128, RING_AREA));
	ASSERT_TRUE(flow_init(&f, e, _metadata, QP_ONE, e->a, fa, e->b, fb,
			      e->msgs));
	ksft_print_msg("ring_transfer: %u messages on QP %u, seed 0x%" PRIx64 "\n",
		       f.total, QP_ONE, e->seed);
	t0 = now_s();
	EXPECT_TRUE(ring_transfer(_metadata, &f, tx, rx, 32));
	secs = now_s() - t0;
	flow_report(&f, secs);
	EXPECT_EQ(0, f.lost);
	EXPECT_EQ(0, f.dup);
	EXPECT_EQ(0, f.corrupt);
	EXPECT_EQ(f.total, f.recvd);
	EXPECT_EQ(f.total, f.next);
	EXPECT_EQ(0, tx->r.hdr->sq_errors);
	EXPECT_EQ(0, rx->r.hdr->cq_overflow);
	EXPECT_EQ(0, get_info(fa, &info));
	EXPECT_EQ(0, info.tx_inflight);
	EXPECT_EQ(0, info.tx_flushed);
	EXPECT_EQ(0, get_info(fb, &info));
	EXPECT_EQ(0, info.rx_queued);
	EXPECT_EQ(f.total, qp_stat(e, e->a, QP_ONE, "tx_msgs"));
	EXPECT_EQ(f.total, qp_stat(e, e->b, QP_ONE, "rx_msgs"));
	rclink_ring_exit(&tx->r);
	rclink_ring_exit(&rx->r);
	flow_free(&f);
	free(tx);
	free(rx);
}

/*
 * write() and ring SENDs on one file, read() and ring RECVs on the other:
 * one sequence, in order; a RECV buffer too small gives EMSGSIZE and the
 * message stays for read(); UNBIND gives the lent buffers back.
 */
TEST_F(t1, ring_mixed)
{
	const struct t1env *e = &self->env;
	uint8_t *buf = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	struct rclink_ring ra, rb;
	struct rclink_sqe *sqe;
	struct rclink_cqe cqe;
	uint32_t seq, len;
	int fa, fb;

	ASSERT_TRUE(buf && want);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ring_open(_metadata, &ra, fa, 8, 16, 2 * MAX_SIZE));
	ASSERT_EQ(0, ring_open(_metadata, &rb, fb, 8, 16, 2 * MAX_SIZE));

	/* 0..7: even ones by write(), odd ones from the ring */
	for (seq = 0; seq < 8; seq++) {
		if (seq % 2 == 0) {
			ASSERT_EQ(0, send_msg(e, fa, QP_ONE, seq, buf));
			continue;
		}
		len = msg_size(e->seed, QP_ONE, seq);
		msg_build(e->seed, QP_ONE, seq, len, rclink_ring_area(&ra, 0));
		ASSERT_EQ(0, ring_op(&ra, RCLINK_OP_SEND, 0, len, seq, &cqe));
		EXPECT_EQ(seq, cqe.user_data);
		EXPECT_EQ(len, cqe.res);
	}
	ASSERT_EQ(0, ioctl(fa, RCLINK_IOC_DRAIN));
	/* at B: read(), a ring RECV, alternately; order kept */
	for (seq = 0; seq < 8; seq++) {
		if (seq % 2 == 0) {
			ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, seq, buf, want));
			continue;
		}
		len = msg_size(e->seed, QP_ONE, seq);
		ASSERT_EQ(0, ring_op(&rb, RCLINK_OP_RECV, MAX_SIZE, MAX_SIZE, seq, &cqe));
		EXPECT_EQ(seq, cqe.user_data);
		ASSERT_EQ(len, cqe.res);
		msg_build(e->seed, QP_ONE, seq, len, want);
		EXPECT_EQ(0, memcmp(rclink_ring_area(&rb, MAX_SIZE), want, len));
	}
	EXPECT_EQ(0, expect_empty(_metadata, fb));

	/* a RECV lent first takes the next message straight from the wire */
	sqe = rclink_ring_get_sqe(&rb);
	ASSERT_NE(NULL, sqe);
	rclink_ring_prep_recv(sqe, 0, MAX_SIZE, 100);
	ASSERT_EQ(1, rclink_ring_submit(&rb, 0));
	ASSERT_EQ(0, send_msg(e, fa, QP_ONE, 8, buf));
	ASSERT_EQ(0, ring_wait_cqe(&rb, &cqe, 10000));
	len = msg_size(e->seed, QP_ONE, 8);
	EXPECT_EQ(100, cqe.user_data);
	ASSERT_EQ(len, cqe.res);
	msg_build(e->seed, QP_ONE, 8, len, want);
	EXPECT_EQ(0, memcmp(rclink_ring_area(&rb, 0), want, len));

	/* too small a buffer: EMSGSIZE, the message stays for read() */
	seq = 9;
	while (msg_size(e->seed, QP_ONE, seq) < 2)
		seq++;
	for (len = 9; len < seq; len++)
		ASSERT_EQ(0, send_msg(e, fa, QP_ONE, len, buf));
	for (len = 9; len < seq; len++)
		ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, len, buf, want));
	ASSERT_EQ(0, send_msg(e, fa, QP_ONE, seq, buf));
	ASSERT_EQ(0, ioctl(fa, RCLINK_IOC_DRAIN));
	ASSERT_EQ(0, ring_op(&rb, RCLINK_OP_RECV, 0, 1, 101, &cqe));
	EXPECT_EQ(-EMSGSIZE, cqe.res);
	EXPECT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, seq, buf, want));

	/* unbind: the buffers lent come back with ENOTCONN */
	sqe = rclink_ring_get_sqe(&rb);
	ASSERT_NE(NULL, sqe);
	rclink_ring_prep_recv(sqe, 0, MAX_SIZE, 102);
	ASSERT_EQ(1, rclink_ring_submit(&rb, 0));
	EXPECT_EQ(NULL, rclink_ring_peek_cqe(&rb));
	ASSERT_EQ(0, ioctl(fb, RCLINK_IOC_UNBIND));
	ASSERT_EQ(0, ring_wait_cqe(&rb, &cqe, 1000));
	EXPECT_EQ(102, cqe.user_data);
	EXPECT_EQ(-ENOTCONN, cqe.res);
	rclink_ring_exit(&ra);
	rclink_ring_exit(&rb);
	free(buf);
	free(want);
}

/*
 * The rings on a TYPE2 group (RCLINK_BIND_MCAST): B joins group 6, A sends
 * 16 messages of up to TYPE2_PKT_LEN - 8 bytes from its area, B receives
 * them into its own, whole and in order; a SEND over the group's limit
 * completes EMSGSIZE, a WRITE or READ EOPNOTSUPP, and a registration of
 * the ring's area fails ENOTCONN.  B leaves the group again.
 */
TEST_F(t1, ring_mcast)
{
	const struct t1env *e = &self->env;
	uint8_t *want = malloc(MAX_SIZE);
	struct rclink_bind b = { .size = sizeof(b), .qpn = 6,
				 .flags = RCLINK_BIND_MCAST };
	struct rclink_mr_reg mr = { .size = sizeof(mr), .length = 4096,
				    .access = RCLINK_MR_REMOTE_WRITE };
	struct rclink_ring ra, rb;
	struct rclink_sqe *sqe;
	struct rclink_cqe cqe;
	uint32_t seq, len, max = 1344 - 8;
	char out[512];
	int fa, fb, i;

	ASSERT_TRUE(want != NULL);
	ASSERT_EQ(0, run(out, sizeof(out), "%s mcast set dev %s group 6 join on",
			 e->tool, e->b)) TH_LOG("join: %s", out);
	fa = dev_open(self, e->a, 0);
	fb = dev_open(self, e->b, 0);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ioctl(fa, RCLINK_IOC_BIND, &b)) TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fb, RCLINK_IOC_BIND, &b)) TH_LOG("bind: %s", strerror(errno));
	ASSERT_EQ(0, ring_open(_metadata, &ra, fa, 16, 32, 16 * 2048));
	ASSERT_EQ(0, ring_open(_metadata, &rb, fb, 16, 32, 16 * 2048));

	/* every RECV lent first, then the SENDs */
	for (i = 0; i < 16; i++) {
		sqe = rclink_ring_get_sqe(&rb);
		ASSERT_NE(NULL, sqe);
		rclink_ring_prep_recv(sqe, i * 2048, 2048, 1000 + i);
	}
	ASSERT_EQ(16, rclink_ring_submit(&rb, 0));
	for (seq = 0; seq < 16; seq++) {
		len = 1 + msg_size(e->seed, 6, seq) % max;
		msg_build(e->seed, 6, seq, len, rclink_ring_area(&ra, seq * 2048));
		ASSERT_EQ(0, ring_op(&ra, RCLINK_OP_SEND, seq * 2048, len, seq, &cqe));
		EXPECT_EQ(seq, cqe.user_data);
		EXPECT_EQ(len, cqe.res);
	}
	for (seq = 0; seq < 16; seq++) {
		len = 1 + msg_size(e->seed, 6, seq) % max;
		ASSERT_EQ(0, ring_wait_cqe(&rb, &cqe, 10000)) TH_LOG("message %u did not arrive", seq);
		EXPECT_EQ(1000 + seq, cqe.user_data);
		ASSERT_EQ(len, cqe.res);
		msg_build(e->seed, 6, seq, len, want);
		EXPECT_EQ(0, memcmp(rclink_ring_area(&rb, seq * 2048), want, len));
	}
	/* one packet at most */
	ASSERT_EQ(0, ring_op(&ra, RCLINK_OP_SEND, 0, max + 1, 99, &cqe));
	EXPECT_EQ(-EMSGSIZE, cqe.res);
	/* TYPE2 is unreliable: no WRITE or READ, no registration */
	ASSERT_EQ(0, ring_rdma_op(&ra, RCLINK_OP_WRITE, &cqe));
	EXPECT_EQ(-EOPNOTSUPP, cqe.res);
	ASSERT_EQ(0, ring_rdma_op(&ra, RCLINK_OP_READ, &cqe));
	EXPECT_EQ(-EOPNOTSUPP, cqe.res);
	EXPECT_EQ(-1, ioctl(fa, RCLINK_IOC_MR_REG, &mr));
	EXPECT_EQ(ENOTCONN, errno);
	rclink_ring_exit(&ra);
	rclink_ring_exit(&rb);
	EXPECT_EQ(0, run(out, sizeof(out), "%s mcast set dev %s group 6 join off",
			 e->tool, e->b)) TH_LOG("leave: %s", out);
	free(want);
}

/*
 * A CQ as small as it gets: what cannot complete is not taken (EBUSY),
 * and unmapping the area and closing the file with SENDs in flight hurts
 * nobody: the messages arrive whole.
 */
TEST_F(t1, ring_unmap_inflight)
{
	const struct t1env *e = &self->env;
	uint8_t *buf = malloc(MAX_SIZE), *want = malloc(MAX_SIZE);
	struct rclink_ring r;
	struct rclink_sqe *sqe;
	struct rclink_cqe cqe;
	uint32_t seq, len;
	double t0;
	int fa, fb, rc;

	ASSERT_TRUE(buf && want);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ring_open(_metadata, &r, fa, 4, 4, 4 * MAX_SIZE));
	/* four SENDs fill the CQ's reservations: a fifth is refused */
	for (seq = 0; seq < 4; seq++) {
		sqe = rclink_ring_get_sqe(&r);
		ASSERT_NE(NULL, sqe);
		len = msg_size(e->seed, QP_ONE, seq);
		msg_build(e->seed, QP_ONE, seq, len,
			  rclink_ring_area(&r, (uint64_t)seq * MAX_SIZE));
		rclink_ring_prep_send(sqe, (uint64_t)seq * MAX_SIZE, len, seq);
	}
	rc = rclink_ring_submit(&r, 0);
	ASSERT_EQ(4, rc) TH_LOG("enter: %s", strerror(errno));
	/*
	 * nothing reaped: 4 CQEs used or reserved.  POLLIN stays up from the
	 * first CQE on, so the wait is bounded by time, not by polls (on a
	 * slow board, the RTL's co-simulation about 30 ms a message, the
	 * other three came after 100 polls that returned at once).
	 */
	t0 = now_s();
	while (rclink_ring_cq_ready(&r) < 4 && now_s() - t0 < 10.0) {
		if (rclink_ring_cq_ready(&r))
			sleep_ms(10);
		else
			wait_ev(fa, POLLIN, 100);
	}
	ASSERT_EQ(4, rclink_ring_cq_ready(&r));
	sqe = rclink_ring_get_sqe(&r);
	ASSERT_NE(NULL, sqe);
	rclink_ring_prep_send(sqe, 0, 16, 4);
	EXPECT_EQ(-1, rclink_ring_submit(&r, 0));
	EXPECT_EQ(EBUSY, errno);
	rclink_ring_cq_advance(&r, 4);
	for (seq = 0; seq < 4; seq++)
		ASSERT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, seq, buf, want));
	/* the SQE refused is still there: it goes now */
	EXPECT_EQ(1, rclink_ring_submit(&r, 0));
	ASSERT_EQ(0, ring_wait_cqe(&r, &cqe, 10000));
	EXPECT_EQ(4, cqe.user_data);
	EXPECT_EQ(16, cqe.res);
	EXPECT_EQ(16, read(fb, buf, MAX_SIZE));

	/* SENDs in flight, then munmap and close at once */
	for (seq = 4; seq < 8; seq++) {
		sqe = rclink_ring_get_sqe(&r);
		ASSERT_NE(NULL, sqe);
		len = msg_size(e->seed, QP_ONE, seq);
		msg_build(e->seed, QP_ONE, seq, len,
			  rclink_ring_area(&r, (uint64_t)(seq - 4) * MAX_SIZE));
		rclink_ring_prep_send(sqe, (uint64_t)(seq - 4) * MAX_SIZE, len, seq);
	}
	ASSERT_EQ(4, rclink_ring_submit(&r, 0));
	rclink_ring_exit(&r);
	dev_close(self, fa);
	for (seq = 4; seq < 8; seq++)
		EXPECT_EQ(0, expect_msg(_metadata, e, fb, QP_ONE, seq, buf, want));
	EXPECT_EQ(0, expect_empty(_metadata, fb));
	free(buf);
	free(want);
}

/*
 * BIND while a RING_ENTER of the same, unbound file waits for SENDs that
 * cannot complete: A's link is held down, so A's SENDs wait for ever
 * (the way SENDs retried for ever against RNR wait).  BIND must not wait
 * behind that sleeper (it used to, uninterruptibly, for as long as the
 * SENDs did): the sleeper leaves (ENOTCONN) and BIND returns.
 */
struct ring_waiter {
	struct rclink_ring *r;
	int ret, err;
	volatile bool done;
};

static void *ring_wait_main(void *arg)
{
	struct ring_waiter *w = arg;

	w->ret = rclink_ring_enter(w->r, 64);
	w->err = errno;
	w->done = true;
	return NULL;
}

struct binder {
	int fd, ret, err;
	volatile bool done;
};

static void *bind_main(void *arg)
{
	struct binder *b = arg;

	b->ret = do_bind(b->fd, QP_ONE);
	b->err = errno;
	b->done = true;
	return NULL;
}

TEST_F_TIMEOUT(t1, ring_bind_while_waiting, 300)
{
	const struct t1env *e = &self->env;
	const uint32_t n = 64, len = MAX_SIZE;
	struct ring_waiter w = {};
	struct binder b = {};
	pthread_t wt, bt;
	uint32_t seq, got;
	uint8_t *buf = malloc(MAX_SIZE);
	struct rclink_ring r;
	struct rclink_sqe *sqe;
	double t0;
	int fa, fb;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa);
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ring_open(_metadata, &r, fa, n, n, n * len));
	/* A's link held down: its packets wait, no retry timer runs */
	WIRE(e->a, "link=down");
	for (seq = 0; seq < n; seq++) {
		sqe = rclink_ring_get_sqe(&r);
		ASSERT_NE(NULL, sqe);
		memset(rclink_ring_area(&r, (uint64_t)seq * len), seq, len);
		rclink_ring_prep_send(sqe, (uint64_t)seq * len, len, seq);
	}
	ASSERT_EQ((int)n, rclink_ring_submit(&r, 0));
	wait_ev(fa, POLLIN, 500);
	got = rclink_ring_cq_ready(&r);
	EXPECT_EQ(0, got) TH_LOG("a SEND completed with the link down");

	ASSERT_EQ(0, ioctl(fa, RCLINK_IOC_UNBIND));
	w.r = &r;
	ASSERT_EQ(0, pthread_create(&wt, NULL, ring_wait_main, &w));
	sleep_ms(300);
	EXPECT_FALSE(w.done) TH_LOG("RING_ENTER returned at once: %d (%s)",
				    w.ret, strerror(w.err));
	b.fd = fa;
	ASSERT_EQ(0, pthread_create(&bt, NULL, bind_main, &b));
	for (t0 = now_s(); !b.done && now_s() - t0 < 10.0;)
		sleep_ms(50);
	EXPECT_TRUE(b.done) TH_LOG("BIND still waits after 10 s behind the RING_ENTER");
	if (b.done) {
		EXPECT_EQ(0, b.ret) TH_LOG("BIND: %s", strerror(b.err));
	}
	for (t0 = now_s(); !w.done && now_s() - t0 < 10.0;)
		sleep_ms(50);
	EXPECT_TRUE(w.done) TH_LOG("RING_ENTER still waits after the BIND");
	if (w.done) {
		EXPECT_EQ(-1, w.ret);
		EXPECT_EQ(ENOTCONN, w.err);
	}

	/* the link up again: every SEND completes, in order, intact */
	WIRE(e->a, "link=up");
	for (seq = 0; seq < n; seq++) {
		ssize_t rd;

		ASSERT_NE(0, wait_ev(fb, POLLIN, 30000) & POLLIN)
			TH_LOG("message %u of %u did not arrive", seq, n);
		rd = read(fb, buf, MAX_SIZE);
		ASSERT_EQ((ssize_t)len, rd);
		EXPECT_EQ(seq & 0xff, buf[0]);
		EXPECT_EQ(seq & 0xff, buf[len - 1]);
	}
	pthread_join(bt, NULL);
	pthread_join(wt, NULL);
	rclink_ring_exit(&r);
	free(buf);
}

/* `rclink qp add` (add) or `qp del` of the pairs first .. first + count - 1 */
static int churn_batch(struct __test_metadata *_metadata,
		       const struct t1env *e, uint32_t first, uint32_t count,
		       bool add)
{
	char **cmds = calloc(2 * count, sizeof(*cmds));
	uint32_t i;
	int n = 0, rc;
	double t0;

	if (!cmds)
		return -1;
	for (i = 0; i < count; i++) {
		uint32_t q = first + i;
		int r1, r2;

		if (add) {
			r1 = asprintf(&cmds[n], "%s qp add dev %s qpn %u dqpn %u dip %s dmac %s",
				      e->tool, e->a, q, q, e->ip_b, e->mac_b);
			n += r1 > 0;
			r2 = asprintf(&cmds[n], "%s qp add dev %s qpn %u dqpn %u dip %s dmac %s",
				      e->tool, e->b, q, q, e->ip_a, e->mac_a);
			n += r2 > 0;
		} else {
			r1 = asprintf(&cmds[n], "%s qp del dev %s qpn %u",
				      e->tool, e->a, q);
			n += r1 > 0;
			r2 = asprintf(&cmds[n], "%s qp del dev %s qpn %u",
				      e->tool, e->b, q);
			n += r2 > 0;
		}
	}
	t0 = now_s();
	rc = run_batch(_metadata, cmds, n);
	/* for the record only: nothing here depends on the time */
	ksft_print_msg("qp_churn: %d x rclink qp %s: %.1f s\n", n,
		       add ? "add" : "del", now_s() - t0);
	for (i = 0; i < (uint32_t)n; i++)
		free(cmds[i]);
	free(cmds);
	return rc + (n != (int)(2 * count));
}

/* How many QPs a board's `rclink -j qp show` dump lists; *only: the last */
static int qp_dump_count(const struct t1env *e, const char *dev,
			 uint32_t *only)
{
	static char out[1 << 20];
	const char *s = out;
	int n = 0;

	if (run(out, sizeof(out), "%s -j qp show dev %s", e->tool, dev))
		return -1;
	while ((s = strstr(s, "\"qpn\":"))) {
		s += strlen("\"qpn\":");
		*only = strtoul(s, NULL, 0);
		n++;
	}
	return n;
}

/*
 * QPs added and deleted by the hundred, twice, on both boards
 * (RCLINK_T1_CHURN_QPS pairs, default 32, at most QP_NUM - 2) while
 * messages flow on QP 1: every add and delete succeeds, the transfer is
 * whole, and only QP 1 is left.  A delete must not cost a grace period
 * (Documentation/performance.rst reports the times printed here).
 */
TEST_F_TIMEOUT(t1, qp_churn, 3600)
{
	const struct t1env *e = &self->env;
	uint32_t first = QP_ONE + 1, count, total, rounds = 0, only = 0;
	struct flow f;
	double secs;
	bool child_done = false, ok = true;
	int fa, fb, st, round, rc = 0, n;
	pid_t pid;

	count = env_u64("RCLINK_T1_CHURN_QPS", 32);
	if (e->qp_num < first + 1)
		SKIP(return, "QP_NUM %u < %u", e->qp_num, first + 1);
	if (count > e->qp_num - first)
		count = e->qp_num - first;
	total = e->msgs < 1000 ? e->msgs : 1000;

	ASSERT_EQ(0, add_pair(_metadata, self, QP_ONE));
	fa = open_bound(self, e->a, QP_ONE, 0);
	ASSERT_LE(0, fa) TH_LOG("bind A: %s", strerror(errno));
	fb = open_bound(self, e->b, QP_ONE, 0);
	ASSERT_LE(0, fb) TH_LOG("bind B: %s", strerror(errno));

	ksft_print_msg("qp_churn: %u QP pairs from %u, twice, beside QP %u\n",
		       count, first, QP_ONE);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		for (round = 0; round < 2; round++) {
			rc += churn_batch(_metadata, e, first, count, true);
			rc += churn_batch(_metadata, e, first, count, false);
		}
		_exit(rc > 100 ? 100 : rc);
	}

	/* messages on QP 1 until the churn is over (at least one transfer) */
	while (ok && !child_done) {
		ASSERT_TRUE(flow_init(&f, e, _metadata, QP_ONE, e->a, fa, e->b,
				      fb, total));
		secs = 0;
		ok = transfer_threads(&f, 0, 0, &secs) && flow_ok(&f);
		if (!ok)
			flow_report(&f, secs);
		flow_free(&f);
		rounds++;
		if (waitpid(pid, &st, WNOHANG) == pid)
			child_done = true;
	}
	if (!child_done)
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ksft_print_msg("qp_churn: %u transfers of %u messages on QP %u\n",
		       rounds, total, QP_ONE);
	EXPECT_TRUE(ok);
	EXPECT_TRUE(WIFEXITED(st));
	EXPECT_EQ(0, WEXITSTATUS(st)) TH_LOG("%d qp add/del failed", WEXITSTATUS(st));

	/* only QP 1 is left on each board */
	n = qp_dump_count(e, e->a, &only);
	EXPECT_EQ(1, n);
	EXPECT_EQ(QP_ONE, only);
	n = qp_dump_count(e, e->b, &only);
	EXPECT_EQ(1, n);
	EXPECT_EQ(QP_ONE, only);
	EXPECT_EQ(0, expect_empty(_metadata, fb));
}

TEST_HARNESS_MAIN
