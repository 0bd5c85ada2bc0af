// SPDX-License-Identifier: GPL-2.0
/*
 * rclink-ring: TYPE1 messages through the mmap'd rings of /dev/rclinkN
 * (Documentation/uapi/rclink-dev.rst, "Rings"), with the header-only helper
 * tools/lib/rclink_ring.h.  The QP must exist (`rclink qp add`).
 *
 *   rclink-ring send DEV QPN COUNT [SIZE [BATCH]]
 *	COUNT messages of SIZE bytes (default 64), BATCH per system call
 *	(default 32); message k carries k in its first 8 bytes and the byte
 *	(k + i) & 0xff at offset i after them; waits for every completion
 *   rclink-ring recv DEV QPN COUNT [TIMEOUT [SIZE]]
 *	receives COUNT messages into lent buffers of SIZE bytes (default
 *	64 KiB), checks the pattern above, waiting up to TIMEOUT seconds
 *	(default 10) for each
 *
 * Both print the messages per second at the end.  Exit 0 on success, 1 on
 * an error (a timeout or a bad message included), 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rclink_ring.h"

#define SLOTS	64		/* buffers in flight */

static int bad_usage(void)
{
	fprintf(stderr,
		"usage: rclink-ring send DEV QPN COUNT [SIZE [BATCH]]\n"
		"       rclink-ring recv DEV QPN COUNT [TIMEOUT [SIZE]]\n");
	return 2;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_bound(const char *dev, unsigned int qpn)
{
	char path[64];
	int fd;

	if (strchr(dev, '/'))
		snprintf(path, sizeof(path), "%s", dev);
	else
		snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "rclink-ring: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (rclink_bind(fd, qpn, 0)) {
		fprintf(stderr, "rclink-ring: bind %s qp %u: %s\n", path, qpn,
			rclink_bind_strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void fill(uint8_t *p, uint64_t k, uint32_t size)
{
	uint32_t i;

	for (i = 8; i < size; i++)
		p[i] = (uint8_t)(k + i);
	memcpy(p, &k, size < 8 ? size : 8);
}

static int check(const uint8_t *p, uint64_t k, uint32_t size)
{
	uint64_t got = 0;
	uint32_t i;

	memcpy(&got, p, size < 8 ? size : 8);
	if (size >= 8 && got != k)
		return -1;
	for (i = 8; i < size; i++)
		if (p[i] != (uint8_t)(k + i))
			return -1;
	return 0;
}

static int do_send(struct rclink_ring *r, unsigned long count, uint32_t size,
		   uint32_t batch)
{
	unsigned long sent = 0, done = 0;
	uint32_t slots[SLOTS], nfree = SLOTS, n, i;
	struct rclink_cqe *cqe;
	struct rclink_sqe *sqe;

	for (i = 0; i < SLOTS; i++)
		slots[i] = i;
	while (done < count) {
		for (n = 0; n < batch && sent < count && nfree; n++, sent++) {
			sqe = rclink_ring_get_sqe(r);
			if (!sqe)
				break;
			i = slots[--nfree];
			fill(rclink_ring_area(r, (uint64_t)i * size), sent, size);
			rclink_ring_prep_send(sqe, (uint64_t)i * size, size, i);
		}
		/* submit the batch; wait for one completion when nothing is free */
		if (rclink_ring_submit(r, nfree ? 0 : 1) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != EINTR) {
			fprintf(stderr, "rclink-ring: enter: %s\n", strerror(errno));
			return 1;
		}
		while ((cqe = rclink_ring_peek_cqe(r))) {
			if (cqe->res != (int32_t)size) {
				fprintf(stderr, "rclink-ring: send: %s\n",
					strerror(-cqe->res));
				return 1;
			}
			slots[nfree++] = (uint32_t)cqe->user_data;
			done++;
			rclink_ring_cqe_seen(r);
		}
	}
	return 0;
}

static int do_recv(struct rclink_ring *r, unsigned long count, uint32_t max,
		   int tmo_ms)
{
	unsigned long got = 0;
	struct rclink_cqe *cqe;
	struct rclink_sqe *sqe;
	uint32_t i;

	for (i = 0; i < SLOTS; i++) {
		sqe = rclink_ring_get_sqe(r);
		if (!sqe)
			break;
		rclink_ring_prep_recv(sqe, (uint64_t)i * max, max, i);
	}
	if (rclink_ring_submit(r, 0) < 0) {
		fprintf(stderr, "rclink-ring: enter: %s\n", strerror(errno));
		return 1;
	}
	while (got < count) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };

		cqe = rclink_ring_peek_cqe(r);
		if (!cqe) {
			/* no system call per message: sleep only when idle */
			if (poll(&p, 1, tmo_ms) == 0) {
				fprintf(stderr, "rclink-ring: timeout after %lu messages\n",
					got);
				return 1;
			}
			continue;
		}
		i = (uint32_t)cqe->user_data;
		if (cqe->res < 0 || i >= SLOTS ||
		    check(rclink_ring_area(r, (uint64_t)i * max), got,
			  (uint32_t)cqe->res)) {
			fprintf(stderr, "rclink-ring: message %lu: %s\n", got,
				cqe->res < 0 ? strerror(-cqe->res) : "bad data");
			return 1;
		}
		got++;
		rclink_ring_cqe_seen(r);
		sqe = rclink_ring_get_sqe(r);
		if (sqe) {
			rclink_ring_prep_recv(sqe, (uint64_t)i * max, max, i);
			if (rclink_ring_submit(r, 0) < 0) {
				fprintf(stderr, "rclink-ring: enter: %s\n",
					strerror(errno));
				return 1;
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t size = 64, batch = 32, area;
	struct rclink_info info = { .size = sizeof(info) };
	struct rclink_ring r;
	unsigned long count;
	int fd, ret, tmo = 10;
	unsigned int qpn;
	bool send;
	double t0;
	char *end;

	if (argc < 5)
		return bad_usage();
	send = !strcmp(argv[1], "send");
	if (!send && strcmp(argv[1], "recv"))
		return bad_usage();
	qpn = strtoul(argv[3], &end, 0);
	if (*end || !*argv[3])
		return bad_usage();
	count = strtoul(argv[4], &end, 0);
	if (*end || !count)
		return bad_usage();
	if (send && argc > 5)
		size = strtoul(argv[5], NULL, 0);
	if (send && argc > 6)
		batch = strtoul(argv[6], NULL, 0);
	if (!send) {
		size = 65536;
		if (argc > 5)
			tmo = atoi(argv[5]);
		if (argc > 6)
			size = strtoul(argv[6], NULL, 0);
	}
	if (argc > 7 || !size || !batch)
		return bad_usage();

	fd = open_bound(argv[2], qpn);
	if (fd < 0)
		return 1;
	if (ioctl(fd, RCLINK_IOC_INFO, &info)) {
		fprintf(stderr, "rclink-ring: info: %s\n", strerror(errno));
		return 1;
	}
	if (!send && size > info.max_msg)
		size = info.max_msg;
	if (size > info.max_msg) {
		fprintf(stderr, "rclink-ring: %u bytes: more than max_msg %u\n",
			size, info.max_msg);
		return 1;
	}
	area = (SLOTS * size + 4095) & ~4095u;
	if (area > RCLINK_RING_MAX_AREA)
		area = RCLINK_RING_MAX_AREA;
	if (area / size < SLOTS) {
		fprintf(stderr, "rclink-ring: %u bytes: too large for %u slots\n",
			size, SLOTS);
		return 1;
	}
	if (rclink_ring_init(&r, fd, SLOTS, 2 * SLOTS, area)) {
		fprintf(stderr, "rclink-ring: ring setup: %s\n", strerror(errno));
		return 1;
	}
	t0 = now_s();
	ret = send ? do_send(&r, count, size, batch) :
		     do_recv(&r, count, size, tmo * 1000);
	if (!ret)
		printf("%s %lu messages in %.3f s: %.0f messages/s\n",
		       send ? "sent" : "received", count, now_s() - t0,
		       count / (now_s() - t0));
	rclink_ring_exit(&r);
	close(fd);
	return ret;
}
