// SPDX-License-Identifier: GPL-2.0
/*
 * rclink-uctx: send or receive TYPE1 messages through a kernel-bypass
 * context of /dev/rclinkN with librclink (an example;
 * tools/lib/librclink.3).
 *
 *   rclink-uctx DEV QPN recv COUNT     print the length of each message
 *   rclink-uctx DEV QPN send COUNT LEN send COUNT messages of LEN bytes
 *
 * The QP must have been added with `rclink qp add` by this user.  The
 * receiver sleeps in poll() between bursts (the CQ armed first); the
 * sender polls its CQ for room.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "librclink.h"

#define ENTRIES	64u
#define BUF	4096u

static int run_recv(struct rclink_uctx *c, unsigned long count)
{
	struct rclink_wc wc[16];
	unsigned long got = 0;
	uint32_t posted = 0;
	int i, n;

	while (got < count) {
		while (posted - got < ENTRIES &&
		       !rclink_post_recv(c, (uint64_t)(posted % ENTRIES) * BUF,
					 BUF))
			posted++;
		rclink_uctx_doorbell(c);
		n = rclink_poll_cq(c, wc, 16);
		if (!n) {
			/* armed before the last look: no event is lost */
			rclink_arm_cq(c);
			n = rclink_poll_cq(c, wc, 16);
			if (!n && rclink_uctx_wait(c, -1) < 0)
				return -1;
			if (!n) {
				struct rclink_ctx_events ev;

				rclink_uctx_events(c, &ev);
				continue;
			}
		}
		for (i = 0; i < n; i++, got++) {
			if (wc[i].status != RCLINK_WC_OK) {
				fprintf(stderr, "message %lu: status %u\n",
					got, wc[i].status);
				return -1;
			}
			printf("%u\n", wc[i].len);
		}
	}
	return 0;
}

static int run_send(struct rclink_uctx *c, uint32_t qpn, unsigned long count,
		    uint32_t len)
{
	unsigned long sent = 0, done = 0;
	struct rclink_wc wc[16];
	int i, n;

	if (len < 1 || len > BUF) {
		fprintf(stderr, "LEN: 1..%u\n", BUF);
		return -1;
	}
	while (done < count) {
		while (sent < count && sent - done < ENTRIES) {
			uint64_t off = (uint64_t)(sent % ENTRIES) * BUF;

			memset(rclink_uctx_area(c, off), (int)sent, len);
			if (rclink_post_send(c, qpn, off, len, 0))
				break;
			sent++;
		}
		rclink_uctx_doorbell(c);
		n = rclink_poll_cq(c, wc, 16);
		for (i = 0; i < n; i++, done++)
			if (wc[i].status != RCLINK_WC_OK) {
				fprintf(stderr, "message %lu: status %u\n",
					done, wc[i].status);
				return -1;
			}
		if (rclink_uctx_error(c, NULL)) {
			fprintf(stderr, "the context is in error\n");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct rclink_uctx_attr a = {
		.sq_entries = ENTRIES, .rq_entries = ENTRIES,
		.cq_entries = 2 * ENTRIES, .area_size = ENTRIES * BUF,
	};
	struct rclink_uctx c;
	char path[128];
	uint32_t qpn;
	int fd, err;

	if (argc < 5 || (strcmp(argv[3], "send") && strcmp(argv[3], "recv")) ||
	    (!strcmp(argv[3], "send") && argc < 6)) {
		fprintf(stderr, "usage: %s DEV QPN recv COUNT\n"
			"       %s DEV QPN send COUNT LEN\n", argv[0], argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	qpn = strtoul(argv[2], NULL, 0);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	if (rclink_uctx_open(&c, fd, &a)) {
		perror("context");
		return 1;
	}
	if (rclink_uctx_bind(&c, qpn, 0)) {
		fprintf(stderr, "qp %u: %s\n", qpn, strerror(errno));
		return 1;
	}
	if (!strcmp(argv[3], "recv"))
		err = run_recv(&c, strtoul(argv[4], NULL, 0));
	else
		err = run_send(&c, qpn, strtoul(argv[4], NULL, 0),
			       strtoul(argv[5], NULL, 0));
	rclink_uctx_close(&c);
	close(fd);
	return err ? 1 : 0;
}
