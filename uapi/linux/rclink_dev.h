/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rclink character device: /dev/rclinkN, one per board.
 *
 * An open file is bound to one TYPE1 queue pair with RCLINK_IOC_BIND; the
 * QP must have been added with the netlink tool (`rclink qp add`) first.
 * Then write()/writev() send one whole message each and read()/readv()
 * return one whole message each.  See Documentation/uapi/rclink-dev.rst.
 */
#ifndef _UAPI_LINUX_RCLINK_DEV_H
#define _UAPI_LINUX_RCLINK_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define RCLINK_DEV_IOC_MAGIC	'R'

/* RCLINK_IOC_BIND: bind this file to a TYPE1 QP */
struct rclink_bind {
	__u32 qpn;		/* local QP number */
	__u32 flags;		/* must be 0 */
};

/* RCLINK_IOC_INFO: what this file is bound to and the limits */
struct rclink_info {
	__u32 qpn;		/* bound QP, or RCLINK_QPN_NONE */
	__u32 max_msg;		/* largest message in bytes */
	__u32 tx_window;	/* messages in flight allowed (see SET_WINDOW) */
	__u32 tx_inflight;	/* messages written and not yet acknowledged */
	__u32 rx_queued;	/* messages waiting to be read */
	__u32 state;		/* enum rclink_qp_state of the bound QP */
	__u64 tx_flushed;	/* this file's messages dropped by a QP fatal */
};

#define RCLINK_QPN_NONE		0xffffffffU

/*
 * States of a TYPE1 QP (also the netlink attribute's values): READY runs,
 * FATAL stopped after retries ran out (rearm it with `rclink qp set ...
 * state ready`).
 */
enum rclink_qp_state {
	RCLINK_QP_STATE_RESET = 0,
	RCLINK_QP_STATE_READY = 1,
	RCLINK_QP_STATE_FATAL = 2,
};

#define RCLINK_IOC_BIND		_IOW(RCLINK_DEV_IOC_MAGIC, 1, struct rclink_bind)
#define RCLINK_IOC_UNBIND	_IO(RCLINK_DEV_IOC_MAGIC, 2)
#define RCLINK_IOC_INFO		_IOR(RCLINK_DEV_IOC_MAGIC, 3, struct rclink_info)
/* messages in flight per file, 1..RCLINK_TX_WINDOW_MAX (default 64) */
#define RCLINK_IOC_SET_WINDOW	_IOW(RCLINK_DEV_IOC_MAGIC, 4, __u32)
/* wait until every message written on this file is acknowledged/flushed */
#define RCLINK_IOC_DRAIN	_IO(RCLINK_DEV_IOC_MAGIC, 5)
/* FIONREAD (int): size of the next message, 0 when none is queued */

#define RCLINK_TX_WINDOW_DEFAULT	64
#define RCLINK_TX_WINDOW_MAX		1024

#endif /* _UAPI_LINUX_RCLINK_DEV_H */
