// SPDX-License-Identifier: GPL-2.0
/*
 * rclink-msg: send and receive TYPE1 messages through /dev/rclinkN, the
 * smallest user of the character device (Documentation/uapi/rclink-dev.rst).
 * The QP must exist (`rclink qp add`).
 *
 *   rclink-msg send DEV QPN [MESSAGE...]
 *	one message per argument, or one per line of stdin without any;
 *	waits until the peer acknowledged them all
 *   rclink-msg recv DEV QPN [COUNT [TIMEOUT]]
 *	prints COUNT messages (default: until interrupted), waiting up to
 *	TIMEOUT seconds (default: for ever) for each
 *
 * DEV is rclinkN or /dev/rclinkN.  Exit 0 on success, 1 on an error
 * (a timeout included), 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/rclink_dev.h>

#include "rclink_ring.h"

#define SHOW_MAX	72	/* bytes of a message printed */

static int bad_usage(void)
{
	fprintf(stderr,
		"usage: rclink-msg send DEV QPN [MESSAGE...]\n"
		"       rclink-msg recv DEV QPN [COUNT [TIMEOUT]]\n");
	return 2;
}

static int open_bound(const char *dev, unsigned int qpn)
{
	char path[128];
	int fd;

	if (strchr(dev, '/'))
		snprintf(path, sizeof(path), "%s", dev);
	else
		snprintf(path, sizeof(path), "/dev/%s", dev);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "rclink-msg: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (rclink_bind(fd, qpn, 0)) {
		fprintf(stderr, "rclink-msg: %s: bind QP %u: %s\n", path, qpn,
			rclink_bind_strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int send_one(int fd, const char *msg, size_t len)
{
	ssize_t n;

	do
		n = write(fd, msg, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "rclink-msg: write of %zu bytes: %s\n", len,
			strerror(errno));
		return -1;
	}
	return 0;
}

static int do_send(int fd, int argc, char **argv)
{
	struct rclink_info info = { .size = sizeof(info) };
	unsigned long count = 0, bytes = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int i;

	if (argc) {
		for (i = 0; i < argc; i++) {
			if (send_one(fd, argv[i], strlen(argv[i])))
				return 1;
			count++;
			bytes += strlen(argv[i]);
		}
	} else {
		while ((len = getline(&line, &cap, stdin)) > 0) {
			if (line[len - 1] == '\n')
				line[--len] = '\0';
			if (!len)
				continue;
			if (send_one(fd, line, len)) {
				free(line);
				return 1;
			}
			count++;
			bytes += len;
		}
		free(line);
	}
	if (ioctl(fd, RCLINK_IOC_DRAIN)) {
		fprintf(stderr, "rclink-msg: drain: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(fd, RCLINK_IOC_INFO, &info)) {
		fprintf(stderr, "rclink-msg: info: %s\n", strerror(errno));
		return 1;
	}
	if (info.tx_flushed) {
		fprintf(stderr, "rclink-msg: %llu of %lu messages flushed (QP fatal)\n",
			(unsigned long long)info.tx_flushed, count);
		return 1;
	}
	printf("sent %lu message%s (%lu bytes), all acknowledged\n", count,
	       count == 1 ? "" : "s", bytes);
	return 0;
}

static void show(unsigned long k, const unsigned char *buf, size_t len)
{
	size_t i;

	printf("message %lu, %zu bytes: \"", k, len);
	for (i = 0; i < len && i < SHOW_MAX; i++) {
		if (buf[i] == '"' || buf[i] == '\\')
			printf("\\%c", buf[i]);
		else if (buf[i] >= 0x20 && buf[i] < 0x7f)
			putchar(buf[i]);
		else
			printf("\\x%02x", buf[i]);
	}
	printf("\"%s\n", len > SHOW_MAX ? "..." : "");
	fflush(stdout);
}

static int do_recv(int fd, unsigned long count, int timeout_ms)
{
	struct rclink_info info = { .size = sizeof(info) };
	unsigned char *buf;
	unsigned long k;
	ssize_t n;
	int r;

	if (ioctl(fd, RCLINK_IOC_INFO, &info)) {
		fprintf(stderr, "rclink-msg: info: %s\n", strerror(errno));
		return 1;
	}
	buf = malloc(info.max_msg);
	if (!buf)
		return 1;
	for (k = 0; !count || k < count; k++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		r = poll(&p, 1, timeout_ms);
		if (r < 0 && errno == EINTR) {
			k--;
			continue;
		}
		if (r <= 0) {
			fprintf(stderr, "rclink-msg: %s after %lu message%s\n",
				r ? strerror(errno) : "timeout", k,
				k == 1 ? "" : "s");
			free(buf);
			return 1;
		}
		n = read(fd, buf, info.max_msg);
		if (n < 0 && errno == EINTR) {
			k--;
			continue;
		}
		if (n < 0) {
			fprintf(stderr, "rclink-msg: read: %s\n", strerror(errno));
			free(buf);
			return 1;
		}
		show(k, buf, n);
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	int fd, ret, tmo = -1;
	unsigned int qpn;
	char *end;

	if (argc < 4)
		return bad_usage();
	qpn = strtoul(argv[3], &end, 0);
	if (*end || !*argv[3])
		return bad_usage();
	if (!strcmp(argv[1], "recv")) {
		if (argc > 4)
			count = strtoul(argv[4], NULL, 0);
		if (argc > 5)
			tmo = atoi(argv[5]) * 1000;
		if (argc > 6)
			return bad_usage();
	} else if (strcmp(argv[1], "send")) {
		return bad_usage();
	}
	fd = open_bound(argv[2], qpn);
	if (fd < 0)
		return 1;
	if (!strcmp(argv[1], "send"))
		ret = do_send(fd, argc - 4, argv + 4);
	else
		ret = do_recv(fd, count, tmo);
	close(fd);
	return ret;
}
