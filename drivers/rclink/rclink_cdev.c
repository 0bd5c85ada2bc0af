// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: /dev/rclinkN, the TYPE1 message device of a board
 * (Documentation/uapi/rclink-dev.rst, uapi/linux/rclink_dev.h).
 *
 * Lifetime.  struct rclink_cdev lives as long as its struct device: the
 * board holds a reference until rclink_dp_fini(), every open file another
 * (and the cdev of an open file pins the device).  Removal sets @dead,
 * wakes every sleeper and takes @rw for writing, so it waits until no file
 * operation runs; then it unbinds every file.  Operations after that fail
 * with ENODEV.  An rclink_file outlives its file while its messages are in
 * flight (each holds a reference).
 *
 * Sleeping.  Readers, writers and DRAIN sleep on the file's wait queue,
 * writers short of SQ entries on the board's; poll waits on both.  UNBIND
 * and BIND set the file's @unbinding and take its @rw for writing: the
 * file's sleepers leave with ENOTCONN (a RING_ENTER of an unbound file may
 * wait for SENDs that never complete).  BIND, UNBIND and RING_SETUP take
 * @bind_lock interruptibly.  A sleep always ends before anything is
 * queued or dequeued, so a signal (ERESTARTSYS) loses and duplicates
 * nothing; a message being read stays on its queue until it is copied.
 *
 * Ownership.  BIND takes only a QP or group of the file's opener: its
 * euid (file->f_cred) and network namespace (at open) are the QP's owner,
 * or the opener had CAP_NET_ADMIN (Documentation/uapi/rclink-dev.rst,
 * "Ownership").  Rings and areas are the file's own: mmap, RING_ENTER and
 * DRAIN reach no other file's.
 */

#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/nsproxy.h>
#include <asm/ioctls.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <net/net_namespace.h>

#include "rclink_compat.h"
#include "rclink_ctx.h"
#include "rclink_dp.h"

#define RCLINK_CDEV_MINORS	256

static dev_t rclink_cdev_devt;
static struct class *rclink_class;

/* ---- files --------------------------------------------------------------- */

static void rclink_file_free(struct kref *ref)
{
	struct rclink_file *rf = container_of(ref, struct rclink_file, ref);

	if (rf->ring)
		rclink_ring_free(rf->ring);
	put_device(&rf->cd->dev);
	mutex_destroy(&rf->read_lock);
	mutex_destroy(&rf->bind_lock);
	kfree(rf);
}

void rclink_file_get(struct rclink_file *rf)
{
	kref_get(&rf->ref);
}

void rclink_file_put(struct rclink_file *rf)
{
	kref_put(&rf->ref, rclink_file_free);
}

/*
 * A message of @rf completed: @res is its length when acknowledged, else
 * -errno.  A ring's SEND completes as a CQE.
 */
void rclink_file_tx_done(struct rclink_file *rf,
			 const struct rclink_tx_msg *msg, int res)
{
	spin_lock(&rf->lock);
	if (!WARN_ON_ONCE(!rf->tx_inflight))
		rf->tx_inflight--;
	if (res < 0)
		rf->tx_flushed++;
	spin_unlock(&rf->lock);
	if (msg->ring)
		rclink_ring_tx_done(rf->ring, msg, res);
	/* a window slot (writers), a ring's CQE (its pollers) */
	wake_up_poll(&rf->wq, EPOLLOUT | EPOLLWRNORM |
		     (msg->ring ? EPOLLIN | EPOLLRDNORM : 0));
	rclink_file_put(rf);
}

/* Take a slot of the file's window */
bool rclink_file_reserve(struct rclink_file *rf)
{
	bool ok;

	spin_lock(&rf->lock);
	ok = rf->tx_inflight < rf->window;
	if (ok)
		rf->tx_inflight++;
	spin_unlock(&rf->lock);
	return ok;
}

void rclink_file_unreserve(struct rclink_file *rf)
{
	spin_lock(&rf->lock);
	rf->tx_inflight--;
	spin_unlock(&rf->lock);
	wake_up_poll(&rf->wq, EPOLLOUT | EPOLLWRNORM);
}

/* Sleepers of a bound file leave for these (error code, or 0) */
int rclink_file_gone(struct rclink_file *rf)
{
	if (READ_ONCE(rf->cd->dead))
		return -ENODEV;
	if (READ_ONCE(rf->unbinding))
		return -ENOTCONN;
	return 0;
}

static bool rclink_file_qp_fatal(struct rclink_t1_qp *qp)
{
	return READ_ONCE(qp->state) == RCLINK_QP_STATE_FATAL;
}

static bool rclink_file_window_open(struct rclink_file *rf,
				    struct rclink_t1_qp *qp)
{
	return READ_ONCE(rf->tx_inflight) < READ_ONCE(rf->window) ||
	       rclink_file_gone(rf) || rclink_file_qp_fatal(qp);
}

static bool rclink_file_sq_open(struct rclink_file *rf,
				struct rclink_t1_qp *qp,
				struct rclink_dmaq *dq, u32 n)
{
	return rclink_file_gone(rf) || rclink_file_qp_fatal(qp) ||
	       rclink_dmaq_sq_room(dq, n);
}

int rclink_file_wait_window(struct rclink_file *rf, struct rclink_t1_qp *qp)
{
	return wait_event_interruptible(rf->wq,
					rclink_file_window_open(rf, qp));
}

int rclink_file_wait_sq(struct rclink_file *rf, struct rclink_t1_qp *qp,
			struct rclink_dmaq *dq, u32 n)
{
	return wait_event_interruptible(rf->cd->wq,
					rclink_file_sq_open(rf, qp, dq, n));
}

static bool rclink_file_readable(struct rclink_file *rf,
				 struct rclink_t1_qp *qp)
{
	return READ_ONCE(qp->rx_queued) || rclink_file_gone(rf);
}

/*
 * Caller holds @rf->rw for writing, or the board's @rw for writing, or
 * releases the file (no other operation of it runs)
 */
static void rclink_file_unbind_locked(struct rclink_file *rf)
{
	struct rclink_t1_qp *qp = rf->qp;

	if (!qp)
		return;
	rclink_file_give_qp(qp);
	rf->qp = NULL;
	/* the buffers lent to the QP's messages come back */
	if (rf->ring)
		rclink_ring_unbind(rf->ring, -ENOTCONN);
}

/*
 * The registrations of @rf's ring go with its QP (bind_lock or the
 * board's rw for writing held; sleeps)
 */
static void rclink_file_mr_kill(struct rclink_file *rf)
{
	struct rclink_dev *rdev = rf->cd->rdev;
	struct rclink_dmaq *dq = rdev ? READ_ONCE(rdev->t1.dmaq) : NULL;

	if (rf->ring && dq)
		rclink_mr_file_kill(READ_ONCE(dq->ctx), rf);
}

/* ---- file operations ----------------------------------------------------- */

static int rclink_fop_open(struct inode *inode, struct file *file)
{
	struct rclink_cdev *cd = container_of(inode->i_cdev,
					      struct rclink_cdev, cdev);
	struct rclink_file *rf;
	int err = 0;

	rf = kzalloc(sizeof(*rf), GFP_KERNEL);
	if (!rf)
		return -ENOMEM;
	kref_init(&rf->ref);
	INIT_LIST_HEAD(&rf->node);
	mutex_init(&rf->bind_lock);
	init_rwsem(&rf->rw);
	mutex_init(&rf->read_lock);
	init_waitqueue_head(&rf->wq);
	spin_lock_init(&rf->lock);
	rf->window = RCLINK_TX_WINDOW_DEFAULT;
	rf->netns = current->nsproxy->net_ns->net_cookie;
	rf->cd = cd;
	get_device(&cd->dev);

	down_read(&cd->rw);
	if (cd->dead) {
		err = -ENODEV;
	} else {
		spin_lock(&cd->files_lock);
		list_add_tail(&rf->node, &cd->files);
		spin_unlock(&cd->files_lock);
	}
	up_read(&cd->rw);
	if (err) {
		rclink_file_put(rf);
		return err;
	}
	file->private_data = rf;
	return stream_open(inode, file);
}

/* Close: unbind; messages in flight complete in the background */
static int rclink_fop_release(struct inode *inode, struct file *file)
{
	struct rclink_file *rf = file->private_data;
	struct rclink_cdev *cd = rf->cd;

	/* no other operation of this file runs; removal unbound it already */
	down_read(&cd->rw);
	if (!cd->dead) {
		rclink_file_mr_kill(rf);
		rclink_file_unbind_locked(rf);
	}
	/*
	 * the stop handshake before the context's memory goes; no mapping
	 * is left (each holds the file), no operation, and event records
	 * find the context under RCU.  Here, not with the last reference a
	 * message in flight may drop: unpinning sleeps.
	 */
	if (rf->ctx) {
		rclink_ctx_kill(rf->ctx);
		rclink_ctx_free(rf->ctx);
		rf->ctx = NULL;
	}
	spin_lock(&cd->files_lock);
	list_del_init(&rf->node);
	spin_unlock(&cd->files_lock);
	up_read(&cd->rw);
	rclink_file_put(rf);
	return 0;
}

static bool rclink_fop_nonblock(struct kiocb *iocb)
{
	return (iocb->ki_filp->f_flags & O_NONBLOCK) ||
	       (iocb->ki_flags & IOCB_NOWAIT);
}

/* One message, oldest first; EMSGSIZE leaves it queued */
static ssize_t rclink_fop_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct rclink_file *rf = iocb->ki_filp->private_data;
	struct rclink_cdev *cd = rf->cd;
	struct rclink_t1_qp *qp;
	struct rclink_msg *m;
	ssize_t ret;

	down_read(&cd->rw);
	if (cd->dead) {
		ret = -ENODEV;
		goto out_cd;
	}
	down_read(&rf->rw);
	if (mutex_lock_interruptible(&rf->read_lock)) {
		ret = -ERESTARTSYS;
		goto out_rf;
	}
	qp = rf->qp;
	ret = rclink_file_gone(rf);
	if (!qp && !ret)
		ret = -ENOTCONN;
	if (ret)
		goto out;

	for (;;) {
		spin_lock(&qp->lock);
		m = list_first_entry_or_null(&qp->rx_msgs, struct rclink_msg,
					     list);
		spin_unlock(&qp->lock);
		if (m)
			break;
		if (rclink_fop_nonblock(iocb)) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(rf->wq,
					       rclink_file_readable(rf, qp));
		if (!ret)
			ret = rclink_file_gone(rf);
		if (ret)
			goto out;
	}

	/* only this reader takes messages off the queue: m stays first */
	if (m->size > iov_iter_count(to)) {
		ret = -EMSGSIZE;
		goto out;
	}
	if (copy_to_iter(m->data, m->size, to) != m->size) {
		ret = -EFAULT;
		goto out;
	}
	spin_lock(&qp->lock);
	list_del(&m->list);
	qp->rx_queued--;
	qp->rx_queued_bytes -= m->size;
	spin_unlock(&qp->lock);
	ret = m->size;
	rclink_dmaq_rx_dequeued(cd->rdev->t1.dmaq, m->size);
	kvfree(m);
out:
	mutex_unlock(&rf->read_lock);
out_rf:
	up_read(&rf->rw);
out_cd:
	up_read(&cd->rw);
	return ret;
}

/*
 * One message of the whole iovec.  A window slot first (so that EAGAIN
 * copies nothing), then the copy into DMA mapped pages, then the SQ
 * entries; any sleep ends with nothing queued.
 */
static ssize_t rclink_fop_write_iter(struct kiocb *iocb,
				     struct iov_iter *from)
{
	struct rclink_file *rf = iocb->ki_filp->private_data;
	bool nonblock = rclink_fop_nonblock(iocb);
	size_t len = iov_iter_count(from);
	struct rclink_cdev *cd = rf->cd;
	struct rclink_tx_msg *msg = NULL;
	bool reserved = false;
	struct rclink_t1_qp *qp;
	struct rclink_dmaq *dq;
	ssize_t ret;

	down_read(&cd->rw);
	if (cd->dead) {
		ret = -ENODEV;
		goto out_cd;
	}
	dq = cd->rdev->t1.dmaq;
	down_read(&rf->rw);
	qp = rf->qp;
	if (!qp) {
		ret = -ENOTCONN;
		goto out;
	}
	if (!len) {
		ret = -EINVAL;
		goto out;
	}
	/* a TYPE2 message is one packet */
	if (len > (qp->group ? rclink_dp_t2_max_msg(dq) : dq->max_msg)) {
		ret = -EMSGSIZE;
		goto out;
	}

	for (;;) {
		ret = rclink_file_gone(rf);
		if (!ret && rclink_file_qp_fatal(qp))
			ret = -ECONNRESET;
		if (ret)
			break;

		if (!reserved) {
			reserved = rclink_file_reserve(rf);
			if (!reserved) {
				if (nonblock) {
					ret = -EAGAIN;
					break;
				}
				ret = rclink_file_wait_window(rf, qp);
				if (ret)
					break;
				continue;
			}
		}
		if (!msg) {
			msg = rclink_dmaq_tx_alloc(dq, from, len);
			if (IS_ERR(msg)) {
				ret = PTR_ERR(msg);
				msg = NULL;
				break;
			}
		}

		ret = rclink_dmaq_tx_post(dq, msg, qp, rf, true);
		if (!ret) {
			/* the engine's now; the window slot goes with it */
			msg = NULL;
			reserved = false;
			ret = len;
			break;
		}
		if (ret != -ENOSPC)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			break;
		}
		ret = rclink_file_wait_sq(rf, qp, dq, msg->npieces);
		if (ret)
			break;
	}

	if (msg)
		rclink_dmaq_tx_free(dq, msg);
	if (reserved)
		rclink_file_unreserve(rf);
out:
	up_read(&rf->rw);
out_cd:
	up_read(&cd->rw);
	return ret;
}

static __poll_t rclink_fop_poll(struct file *file, poll_table *pt)
{
	struct rclink_file *rf = file->private_data;
	struct rclink_cdev *cd = rf->cd;
	struct rclink_t1_qp *qp;
	struct rclink_dmaq *dq;
	struct rclink_ctx *ctx;
	__poll_t mask = 0;

	/*
	 * The file's queue carries a context's events, errors and death
	 * (removal kills it) too: an epoll added before the context was
	 * created keeps only the queues it was given then.  The board's
	 * queue only without a context (its SQ room is not a context's).
	 * Pairs with the release in rclink_ctx_create().
	 */
	ctx = smp_load_acquire(&rf->ctx);
	poll_wait(file, &rf->wq, pt);
	if (!ctx)
		poll_wait(file, &cd->wq, pt);

	down_read(&cd->rw);
	if (cd->dead) {
		mask = EPOLLERR | EPOLLHUP;
		goto out_cd;
	}
	dq = cd->rdev->t1.dmaq;
	/* a context's file: its CQ events and errors */
	if (ctx) {
		mask = rclink_ctx_poll(ctx);
		goto out_cd;
	}
	down_read(&rf->rw);
	/* a ring's completions are readable whatever the binding */
	if (rf->ring && rclink_ring_cq_ready(rf->ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	qp = rf->qp;
	if (!qp) {
		mask |= EPOLLERR;
		goto out;
	}
	if (READ_ONCE(qp->rx_queued))
		mask |= EPOLLIN | EPOLLRDNORM;
	/* writable: a window slot, and SQ room for the largest message */
	if (rclink_file_qp_fatal(qp))
		mask |= EPOLLERR;
	else if (READ_ONCE(rf->tx_inflight) < READ_ONCE(rf->window) &&
		 rclink_dmaq_sq_room(dq, rclink_dmaq_max_pieces(dq)))
		mask |= EPOLLOUT | EPOLLWRNORM;
out:
	up_read(&rf->rw);
out_cd:
	up_read(&cd->rw);
	return mask;
}

/* ---- ioctls -------------------------------------------------------------- */

/*
 * Every ioctl argument begins with the caller's __u32 size
 * (Documentation/uapi/rclink-dev.rst, "Growing the ioctls"): a struct
 * smaller than @ksize is zero-extended, a larger one must be zero past
 * @ksize (copy_struct_from_user()), one smaller than @minsize is refused.
 */
int rclink_ioc_copy_in(void *karg, size_t ksize, size_t minsize,
		       const void __user *uarg, u32 *usize)
{
	u32 size;
	int err;

	if (get_user(size, (const u32 __user *)uarg))
		return -EFAULT;
	if (size < minsize)
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(karg, ksize, uarg, size);
	if (err)
		return err;
	*usize = size;
	return 0;
}

/* Write back no more than the caller's struct holds */
int rclink_ioc_copy_out(void __user *uarg, u32 usize, const void *karg,
			size_t ksize)
{
	return copy_to_user(uarg, karg, min_t(size_t, usize, ksize)) ?
	       -EFAULT : 0;
}

/*
 * The file's opener owns the QP, or may bind any: CAP_NET_ADMIN adds,
 * changes and deletes every QP through netlink anyway.
 */
static bool rclink_file_may_bind(struct file *file, struct rclink_file *rf,
				 const struct rclink_owner *user)
{
	if (uid_eq(file->f_cred->euid, user->uid) && rf->netns == user->netns)
		return true;
	return file_ns_capable(file, &init_user_ns, CAP_NET_ADMIN);
}

/*
 * BIND and UNBIND change the binding under @rw for writing: the file's
 * sleepers (which hold it for reading) leave with ENOTCONN first.
 */
static void rclink_file_rw_take(struct rclink_file *rf)
{
	WRITE_ONCE(rf->unbinding, true);
	wake_up_all(&rf->wq);
	wake_up_all(&rf->cd->wq);
	down_write(&rf->rw);
}

static void rclink_file_rw_give(struct rclink_file *rf)
{
	WRITE_ONCE(rf->unbinding, false);
	up_write(&rf->rw);
}

/*
 * Take QP (or with RCLINK_BIND_MCAST TYPE2 group) @qpn for @rf: the file's
 * opener may bind it and no file has it.  Shared by BIND and CTX_BIND.
 */
int rclink_file_take_qp(struct file *file, struct rclink_file *rf,
			struct rclink_dev *rdev, u32 flags, u32 qpn,
			struct rclink_t1_qp **qpp)
{
	struct rclink_t1_qp *qp;
	int err;

	if (qpn >= ((flags & RCLINK_BIND_MCAST) ? RCLINK_T2_GROUPS :
		    rdev->params.qp_num))
		return -ERANGE;
	/*
	 * the IP lacks a register TYPE2 needs (rclink_assumed.c), or its
	 * TYPE2_PKT_LEN holds no message
	 */
	if ((flags & RCLINK_BIND_MCAST) &&
	    (!rclink_feat_ok(rdev, RCLINK_FEAT_TYPE2) ||
	     !rclink_dp_t2_max_msg(rdev->t1.dmaq)))
		return -EOPNOTSUPP;
	/*
	 * `rclink qp del` and mcast-set hold rclink_t1.lock: the QP and its
	 * owner stay while it is held, and the capability check (which may
	 * sleep in a security module) runs outside the RCU section
	 */
	err = -ENOENT;
	mutex_lock(&rdev->t1.lock);
	rcu_read_lock();
	if (flags & RCLINK_BIND_MCAST)
		qp = rdev->t1.groups[qpn];
	else
		qp = rclink_t1_qp_lookup_rcu(rdev, qpn);
	rcu_read_unlock();
	if (qp && !rclink_file_may_bind(file, rf, &qp->user)) {
		err = -EACCES;
	} else if (qp) {
		spin_lock(&qp->lock);
		if (qp->owner) {
			err = -EBUSY;
		} else if (!qp->dp_released) {
			qp->owner = rf;
			err = 0;
		}
		spin_unlock(&qp->lock);
	}
	mutex_unlock(&rdev->t1.lock);
	if (!err)
		*qpp = qp;
	return err;
}

/* Give back a QP taken by rclink_file_take_qp() */
void rclink_file_give_qp(struct rclink_t1_qp *qp)
{
	spin_lock(&qp->lock);
	qp->owner = NULL;
	spin_unlock(&qp->lock);
}

static long rclink_ioc_bind(struct file *file, struct rclink_file *rf,
			    struct rclink_dev *rdev, void __user *argp)
{
	struct rclink_t1_qp *qp;
	struct rclink_bind b;
	long err = 0;
	u32 usize;

	err = rclink_ioc_copy_in(&b, sizeof(b), RCLINK_BIND_SIZE_VER0, argp,
				 &usize);
	if (err)
		return err;
	if (b.flags & ~RCLINK_BIND_MCAST)
		return -EINVAL;

	if (mutex_lock_interruptible(&rf->bind_lock))
		return -ERESTARTSYS;
	if (rf->qp) {
		err = -EINVAL;
		goto out;
	}
	err = rclink_file_take_qp(file, rf, rdev, b.flags, b.qpn, &qp);
	if (err)
		goto out;

	/*
	 * A RING_ENTER of the unbound file may sleep holding @rw until SENDs
	 * sent while it was bound complete, which can be never (RNR retried
	 * for ever): its sleepers leave first, as for an unbind.
	 */
	rclink_file_rw_take(rf);
	rf->qp = qp;
	rclink_file_rw_give(rf);
out:
	mutex_unlock(&rf->bind_lock);
	return err;
}

static long rclink_ioc_unbind(struct rclink_file *rf)
{
	long err = 0;

	if (mutex_lock_interruptible(&rf->bind_lock))
		return -ERESTARTSYS;
	if (!rf->qp) {
		err = -EINVAL;
		goto out;
	}
	rclink_file_rw_take(rf);
	/* before the QP is given back: a ring's registrations are its */
	rclink_file_mr_kill(rf);
	rclink_file_unbind_locked(rf);
	rclink_file_rw_give(rf);
out:
	mutex_unlock(&rf->bind_lock);
	return err;
}

static long rclink_ioc_info(struct rclink_file *rf, struct rclink_dmaq *dq,
			    void __user *argp)
{
	struct rclink_info info;
	struct rclink_t1_qp *qp;
	u32 usize;
	int err;

	err = rclink_ioc_copy_in(&info, sizeof(info), RCLINK_INFO_SIZE_VER0,
				 argp, &usize);
	if (err)
		return err;
	if (info.flags)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	info.size = usize;

	down_read(&rf->rw);
	qp = rf->qp;
	info.qpn = qp ? qp->qpn : RCLINK_QPN_NONE;
	info.max_msg = dq->max_msg;
	info.state = RCLINK_QP_STATE_RESET;
	spin_lock(&rf->lock);
	info.tx_window = rf->window;
	info.tx_inflight = rf->tx_inflight;
	info.tx_flushed = rf->tx_flushed;
	spin_unlock(&rf->lock);
	if (qp) {
		spin_lock(&qp->lock);
		info.rx_queued = qp->rx_queued;
		info.state = qp->state;
		spin_unlock(&qp->lock);
	}
	up_read(&rf->rw);

	return rclink_ioc_copy_out(argp, usize, &info, sizeof(info));
}

static long rclink_ioc_set_window(struct rclink_file *rf, void __user *argp)
{
	struct rclink_window w;
	u32 usize;
	int err;

	err = rclink_ioc_copy_in(&w, sizeof(w), RCLINK_WINDOW_SIZE_VER0, argp,
				 &usize);
	if (err)
		return err;
	if (w.flags || !w.window || w.window > RCLINK_TX_WINDOW_MAX)
		return -EINVAL;
	spin_lock(&rf->lock);
	rf->window = w.window;
	spin_unlock(&rf->lock);
	wake_up_all(&rf->wq);
	return 0;
}

/* Every message of the file completed (bound or not) */
static long rclink_ioc_drain(struct rclink_file *rf)
{
	int err;

	err = wait_event_interruptible(rf->wq, !READ_ONCE(rf->tx_inflight) ||
				       READ_ONCE(rf->cd->dead));
	if (!err && READ_ONCE(rf->cd->dead))
		err = -ENODEV;
	return err;
}

static long rclink_ioc_fionread(struct rclink_file *rf, void __user *argp)
{
	struct rclink_t1_qp *qp;
	struct rclink_msg *m;
	int size = 0;

	down_read(&rf->rw);
	qp = rf->qp;
	if (qp) {
		spin_lock(&qp->lock);
		m = list_first_entry_or_null(&qp->rx_msgs, struct rclink_msg,
					     list);
		if (m)
			size = m->size;
		spin_unlock(&qp->lock);
	}
	up_read(&rf->rw);
	if (!qp)
		return -ENOTCONN;
	return put_user(size, (int __user *)argp);
}

#define RCLINK_IOC_NOSIZE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long rclink_fop_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	struct rclink_file *rf = file->private_data;
	struct rclink_cdev *cd = rf->cd;
	void __user *argp = (void __user *)arg;
	struct rclink_dev *rdev;
	long err;

	down_read(&cd->rw);
	if (cd->dead) {
		err = -ENODEV;
		goto out;
	}
	rdev = cd->rdev;
	if (cmd == FIONREAD) {
		err = rclink_ioc_fionread(rf, argp);
		goto out;
	}
	/* the struct's own size field, not _IOC_SIZE, says how big it is */
	switch (RCLINK_IOC_NOSIZE(cmd)) {
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_BIND):
		err = rclink_ioc_bind(file, rf, rdev, argp);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_UNBIND):
		err = rclink_ioc_unbind(rf);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_INFO):
		err = rclink_ioc_info(rf, rdev->t1.dmaq, argp);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_SET_WINDOW):
		err = rclink_ioc_set_window(rf, argp);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_DRAIN):
		err = rclink_ioc_drain(rf);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_RING_SETUP):
		if (mutex_lock_interruptible(&rf->bind_lock)) {
			err = -ERESTARTSYS;
			break;
		}
		err = rclink_ring_setup(rf, rdev->t1.dmaq, argp);
		mutex_unlock(&rf->bind_lock);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_CTX_CREATE):
		if (mutex_lock_interruptible(&rf->bind_lock)) {
			err = -ERESTARTSYS;
			break;
		}
		err = rclink_ctx_create(file, rf, rdev->t1.dmaq, argp);
		mutex_unlock(&rf->bind_lock);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_CTX_BIND):
		if (mutex_lock_interruptible(&rf->bind_lock)) {
			err = -ERESTARTSYS;
			break;
		}
		err = rclink_ctx_bind(file, rf, rdev, argp);
		mutex_unlock(&rf->bind_lock);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_CTX_EVENTS):
		err = rclink_ctx_events(rf, argp);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_MR_REG):
		err = rclink_mr_reg(rf, argp);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_MR_DEREG):
		err = rclink_mr_dereg(rf, argp);
		break;
	case RCLINK_IOC_NOSIZE(RCLINK_IOC_RING_ENTER):
		err = rclink_ring_enter(rf, rdev->t1.dmaq, argp,
					file->f_flags & O_NONBLOCK);
		break;
	default:
		err = -ENOTTY;
		break;
	}
out:
	up_read(&cd->rw);
	return err;
}

static int rclink_fop_mmap(struct file *file, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (off >= RCLINK_CTX_MMAP_SQ)
		return rclink_ctx_mmap(file->private_data, vma);
	return rclink_ring_mmap(file->private_data, vma);
}

static const struct file_operations rclink_cdev_fops = {
	.owner = THIS_MODULE,
	.open = rclink_fop_open,
	.release = rclink_fop_release,
	.read_iter = rclink_fop_read_iter,
	.write_iter = rclink_fop_write_iter,
	.poll = rclink_fop_poll,
	.mmap = rclink_fop_mmap,
	.unlocked_ioctl = rclink_fop_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* ---- the board's device -------------------------------------------------- */

static void rclink_cdev_release(struct device *dev)
{
	kfree(container_of(dev, struct rclink_cdev, dev));
}

/* /dev/<rclink_t1.name>, minor rclink_t1.index */
int rclink_cdev_create(struct rclink_dev *rdev)
{
	int index = rdev->t1.index;
	struct rclink_cdev *cd;
	int err;

	if (index < 0 || index >= RCLINK_CDEV_MINORS) {
		dev_err(rdev->dev, "board index %d: no minor number left\n",
			index);
		return -ENOSPC;
	}
	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	init_rwsem(&cd->rw);
	spin_lock_init(&cd->files_lock);
	INIT_LIST_HEAD(&cd->files);
	init_waitqueue_head(&cd->wq);
	cd->rdev = rdev;

	device_initialize(&cd->dev);
	cd->dev.devt = MKDEV(MAJOR(rclink_cdev_devt), index);
	cd->dev.class = rclink_class;
	cd->dev.parent = rdev->dev;
	cd->dev.release = rclink_cdev_release;
	err = dev_set_name(&cd->dev, "%s", rdev->t1.name);
	if (err)
		goto err_put_device;
	cdev_init(&cd->cdev, &rclink_cdev_fops);
	cd->cdev.owner = THIS_MODULE;
	WRITE_ONCE(rdev->t1.cdev, cd);
	err = cdev_device_add(&cd->cdev, &cd->dev);
	if (err) {
		dev_err(rdev->dev, "cannot add /dev/%s: %d\n", rdev->t1.name,
			err);
		WRITE_ONCE(rdev->t1.cdev, NULL);
		goto err_put_device;
	}
	return 0;

err_put_device:
	put_device(&cd->dev);
	return err;
}

/*
 * Board removal: wait until no file operation runs, unbind every file and
 * remove /dev/rclinkN.  Open files stay, and fail with ENODEV.
 */
void rclink_cdev_remove(struct rclink_dev *rdev)
{
	struct rclink_cdev *cd = rdev->t1.cdev;
	struct rclink_file *rf;

	if (!cd)
		return;
	/* every sleeper tests @dead after it wakes */
	WRITE_ONCE(cd->dead, true);
	wake_up_all(&cd->wq);
	spin_lock(&cd->files_lock);
	list_for_each_entry(rf, &cd->files, node)
		wake_up_all(&rf->wq);
	spin_unlock(&cd->files_lock);

	down_write(&cd->rw);
	spin_lock(&cd->files_lock);
	list_for_each_entry(rf, &cd->files, node)
		rclink_file_unbind_locked(rf);
	spin_unlock(&cd->files_lock);
	/*
	 * before the reset: doorbells revoked, contexts stopped and unmapped
	 * (open and release wait for @rw: the list holds still)
	 */
	list_for_each_entry(rf, &cd->files, node) {
		if (rf->ctx)
			rclink_ctx_kill(rf->ctx);
		rclink_file_mr_kill(rf);
	}
	cd->rdev = NULL;
	up_write(&cd->rw);

	cdev_device_del(&cd->cdev, &cd->dev);
}

/*
 * The queue engine stopped and nothing is in flight: the ring areas of the
 * open files are not the device's any more (files already released are
 * freed, areas unmapped, by their last message's completion).
 */
void rclink_cdev_rings_unmap(struct rclink_dev *rdev)
{
	struct rclink_cdev *cd = rdev->t1.cdev;
	struct rclink_file *rf;

	if (!cd)
		return;
	spin_lock(&cd->files_lock);
	list_for_each_entry(rf, &cd->files, node)
		if (rf->ring)
			rclink_ring_dma_unmap(rf->ring);
	spin_unlock(&cd->files_lock);
}

/* The board's reference (after the CQ handlers stopped) */
void rclink_cdev_put(struct rclink_dev *rdev)
{
	struct rclink_cdev *cd = rdev->t1.cdev;

	if (!cd)
		return;
	WRITE_ONCE(rdev->t1.cdev, NULL);
	put_device(&cd->dev);
}

/*
 * SEND completions freed SQ entries: wake the writers waiting for them.
 * Keyed EPOLLOUT: of the epoll and poll entries every file of the board
 * has here, only those waiting to write are woken, not the readers
 * (sleepers in write() are woken whatever the key).  Always under the
 * queue's lock: poll() adds its entry with no full barrier before it
 * tests the SQ room, so a lockless look at the queue could miss it.
 */
void rclink_cdev_wake_tx(struct rclink_dev *rdev)
{
	struct rclink_cdev *cd = READ_ONCE(rdev->t1.cdev);

	if (cd)
		wake_up_poll(&cd->wq, EPOLLOUT | EPOLLWRNORM);
}

/* The QP's state changed (FATAL, READY again): its file looks again */
void rclink_dp_qp_state_changed(struct rclink_t1_qp *qp)
{
	spin_lock(&qp->lock);
	if (qp->owner)
		wake_up_all(&qp->owner->wq);
	wake_up_all(&qp->wq);
	spin_unlock(&qp->lock);
}

int rclink_cdev_module_init(void)
{
	int err;

	err = alloc_chrdev_region(&rclink_cdev_devt, 0, RCLINK_CDEV_MINORS,
				  KBUILD_MODNAME);
	if (err)
		return err;
	rclink_class = rclink_class_create(KBUILD_MODNAME);
	if (IS_ERR(rclink_class)) {
		err = PTR_ERR(rclink_class);
		unregister_chrdev_region(rclink_cdev_devt, RCLINK_CDEV_MINORS);
		return err;
	}
	return 0;
}

void rclink_cdev_module_exit(void)
{
	class_destroy(rclink_class);
	unregister_chrdev_region(rclink_cdev_devt, RCLINK_CDEV_MINORS);
}
