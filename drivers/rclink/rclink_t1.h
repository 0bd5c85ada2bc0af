/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: TYPE1 reliable messages.
 *
 * Two halves meet here:
 *  - the control plane (rclink_qp.c, rclink_nl.c): QP objects, their
 *    registers (seed 000, TYPE1 init steps 1-8), the generic netlink
 *    family "rclink", the recovery of fatal QPs;
 *  - the data path (rclink_dmaq.c, rclink_cdev.c): the shim's queue
 *    engine (send, receive and completion queues) and /dev/rclinkN.
 *
 * Documentation/hw/shim.rst ("TYPE1: reliable messages") is the contract
 * with the board.
 */
#ifndef _RCLINK_T1_H_
#define _RCLINK_T1_H_

#include <linux/bits.h>
#include <linux/if_ether.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "../../uapi/linux/rclink_dev.h"

struct dentry;
struct rclink_dev;
struct rclink_file;
struct netlink_ext_ack;

/* Per-QP configuration: steps 2-7 of the seed's TYPE1 init sequence */
struct rclink_t1_qp_cfg {
	u32 dqpn;		/* DEST_IP_MEM.dest_qpid */
	__be32 dip;		/* DEST_IP_MEM.dest_ip_addr */
	u8 dmac[ETH_ALEN];	/* DEST_MAC_MEM */
	u16 sport;		/* UDP_SRC_PORT_MEM.udp_src_port */
	u8 pkey;		/* UDP_SRC_PORT_MEM.qp_p_key (sent) */
	u8 rx_pkey;		/* BTH_QP_CFG_MEM.qp_p_key (required) */
	u32 sq_psn;		/* INIT_PSN (step 3) */
	u32 rq_psn;		/* REMOTE_INIT_PSN (step 4) */
	u32 speed;		/* TX_SPEED_MEM.tx_speed_cfg, nonzero */
	u64 rate;		/* bit/s asked for (speed from it), or 0 */
};

/* Software counters of a QP (the board's own are DMAQ_QPS_*) */
struct rclink_t1_qp_stats {
	u64 tx_msgs;		/* messages acknowledged by the peer */
	u64 tx_bytes;
	u64 tx_flushed;		/* messages completed FLUSHED or in error */
	u64 rx_msgs;		/* messages delivered to the QP's queue */
	u64 rx_bytes;
	u64 rx_flushed;		/* partial messages dropped (segment errors) */
	u64 fatal;		/* times the QP went fatal */
	u64 rtt_samples;
	u32 rtt_last_us;
	u32 rtt_min_us;
	u32 rtt_max_us;
	u64 cnp;		/* RECV_CNP records (CNPs the merge passed) */
	u64 nocnp_reports;	/* NOCNP records */
	u64 nocnp_bytes;	/* the sum of their BYTE_CNT */
	u64 retry_tmo;		/* RETRY_TMO records (retry timer expiries) */
};

/* The congestion-control loop's state of a QP (rclink_cc.c), under @lock */
struct rclink_t1_qp_cc {
	u32 line;		/* the configured speed (bytes per CC window) */
	u32 rc;			/* the current rate, in TX_SPEED_MEM */
	u32 rt;			/* the target rate */
	u32 alpha;		/* congestion estimate, 1024 = 1.0 */
	u32 stage;		/* NOCNP periods since the last cut */
	bool dirty;		/* rc not yet written to the board */
	u64 cuts;		/* rate cuts (RECV_CNP records acted on) */
	u64 raises;		/* rate increases (NOCNP records acted on) */
};

/*
 * Whom a QP or TYPE2 group belongs to (Documentation/uapi/rclink-dev.rst,
 * "Ownership"): a file of /dev/rclinkN opened by @uid (its euid) in the
 * network namespace whose cookie is @netns may bind it.
 */
struct rclink_owner {
	kuid_t uid;
	u64 netns;		/* net->net_cookie, never reused */
};

/* One message on a QP's receive queue */
struct rclink_msg {
	struct list_head list;
	u32 len;		/* bytes in data[] so far */
	u32 size;		/* the message's length */
	/*
	 * A RECV buffer of @rx_rf's ring taken for the message: copied into
	 * it and completed in CQE @rx_slot outside the locks (rclink_ring.c)
	 */
	struct rclink_file *rx_rf;	/* a reference, or NULL */
	u64 rx_addr;			/* the buffer, in the ring's area */
	u32 rx_slot;
	u8 data[];
};

/*
 * A TYPE1 QP.  Created by `rclink qp add` (rclink_qp.c), published in the
 * xarray rclink_t1.qps for the data path under RCU, deleted only when no
 * file is bound to it: unpublished, released (dp_released), then freed
 * after a grace period (kfree_rcu() of @rcu).
 */
struct rclink_t1_qp {
	struct rclink_dev *rdev;
	u32 qpn;
	struct rcu_head rcu;

	/* control plane, under rclink_t1.lock */
	struct rclink_t1_qp_cfg cfg;
	struct rclink_owner user;	/* who may bind it */
	u32 fatal_psn;		/* TX_EPSN_MEM read by the recovery */
	/*
	 * FATAL with its PSNs lost (a board reset, or a context stopped with
	 * its packets in flight): re-armed only with both PSNs
	 */
	bool reset_fatal;

	/* both halves: written under @lock, read locklessly for reports */
	enum rclink_qp_state state;

	/* data path, under @lock */
	spinlock_t lock;
	struct rclink_file *owner;	/* the bound file, or NULL */
	struct list_head rx_msgs;	/* complete messages, oldest first */
	u32 rx_queued;			/* messages on rx_msgs */
	u64 rx_queued_bytes;
	struct rclink_msg *rx_partial;	/* message being reassembled */
	u32 tx_inflight;		/* messages sent, not yet completed */
	bool rx_discard;		/* dropping the rest of a message */
	bool dp_released;		/* rclink_dp_qp_release() ran */
	wait_queue_head_t wq;		/* readers, writers, pollers, drain */

	struct rclink_t1_qp_stats stats;	/* under @lock */
	struct rclink_t1_qp_cc cc;		/* under @lock */
	bool group;			/* a TYPE2 group: qpn is its index */
};

/*
 * The TYPE1 REQ banks (QPN[1:0], TYPE1_VC_NUM at most 4), each with a
 * Traffic Class of its own (TRAFFIC_CLASS.type1_req_tc_bankN); in CBFC mode
 * its bits 7:2 are the bank's VC (seed 000: "the upper 6 bits of the TC
 * field carry the VCID"), bits 1:0 the ECN bits of the IPv4 ToS.
 */
#define RCLINK_T1_BANKS		4
#define RCLINK_TC_VC		GENMASK(7, 2)
#define RCLINK_TC_ECN		GENMASK(1, 0)

/* Per board TYPE1 state, embedded in struct rclink_dev */
struct rclink_t1 {
	/* QP add/set/del and register programming; nests qp_lock */
	struct mutex lock;
	/*
	 * The QPs by number (below params.qp_num): stored and erased under
	 * @lock, looked up under RCU by the data path; initialised by
	 * rclink_t1_probe(), kept across resets, emptied by
	 * rclink_t1_forget().
	 */
	struct xarray qps;
	bool qps_up;		/* between t1_init and t1_fini, under @lock */
	/* the configuration below is kept across resets (rclink_t1_forget()) */
	bool configured;
	u32 nr_qps;

	/* global configuration (step 1), under @lock */
	u8 mac[ETH_ALEN];
	__be32 ip;
	u16 ip_id;
	u8 ttl;
	u8 tc;			/* dev-set tc: every bank, type2_req_tc */
	u8 bank_tc[RCLINK_T1_BANKS];	/* type1_req_tc_bankN */
	u8 ack_tc;		/* TRAFFIC_CLASS.type1_ack_tc */
	u32 retry_timer_us;	/* RETRY_TIMER_CFG.retry_timer */
	u8 retry_cnt;		/* RETRY_TIMER_CFG.retry_cnt_thr */
	u8 rnr_retry_cnt;	/* RETRY_TIMER_CFG.rnr_retry_cnt_thr */
	bool ack_timestamp;	/* RC_MISC_CFG.tx_ack_time_en */
	bool icrc;		/* !RC_MISC_CFG.type1_remove_icrc_en */
	u16 vlan_id;		/* VLAN_CTRL.vid, 0: VLAN off */
	u8 vlan_pri;		/* AFH_CFG_EN.*_cbfc (PFC mode only) */
	u8 format;		/* enum rclink_format: AFH_CFG_EN */
	u32 cc_window_ns;	/* CC_CFG.cc_window */
	bool bank_rr;		/* RC_MISC_CFG.tx_bank_rr_en */
	u64 t2_rate;		/* TYPE2 rate asked for (bit/s), 0: none */
	u32 t2_speed;		/* TYPE2_SPEED.length_thr it gives */
	bool cnp_merge;		/* RC_MISC_CFG.cnp_merge_en */
	u32 cnp_window_us;	/* CNP_CFG.timer_thr_us */
	u32 nocnp_us;		/* CNP_CFG.nocnp_interval + 1, 0: off */

	/*
	 * TYPE2 multicast groups (seed 000, TYPE2): the data path treats a
	 * group like a QP (files bind to it, messages queue on it); they
	 * live from rclink_t1_probe() to rclink_t1_remove().  Under @lock.
	 */
	struct rclink_t1_qp *groups[RCLINK_AFH_T2_GROUPS];
	u8 t2_mac[RCLINK_AFH_T2_GROUPS][ETH_ALEN];	/* TYPE2_DA_n */
	u8 t2_join;					/* DMAQ_T2_JOIN */

	/* /dev/rclinkN and the netlink device name "rclinkN" */
	int index;
	char name[16];

	struct rclink_dmaq *dmaq;	/* rclink_dmaq.c */
	struct rclink_cdev *cdev;	/* rclink_cdev.c */
	struct work_struct cc_work;	/* rclink_cc.c: rates to the board */
};

/* rclink_cc.c: the congestion-control loop (devlink cc_algorithm) */
#define RCLINK_CC_NOCNP_US	256	/* NOCNP period the loop starts with */
enum rclink_cc_algo {
	RCLINK_CC_ALGO_NONE,
	RCLINK_CC_ALGO_DCQCN,
	RCLINK_CC_ALGO_NUM
};

extern const char * const rclink_cc_algo_names[RCLINK_CC_ALGO_NUM];
void rclink_cc_qp_reset(struct rclink_t1_qp_cc *cc, u32 speed);
bool rclink_cc_event(struct rclink_dev *rdev, struct rclink_t1_qp *qp,
		     bool cnp);
void rclink_cc_kick(struct rclink_dev *rdev);
/* the IP's per-QP records (event thread): false when no such QP */
bool rclink_cc_recv_ack(struct rclink_dev *rdev, u64 info);	/* RTT */
bool rclink_cc_info(struct rclink_dev *rdev, u64 info, bool cnp);
bool rclink_cc_retry_tmo(struct rclink_dev *rdev, u32 qpn);
void rclink_cc_init(struct rclink_dev *rdev);
void rclink_cc_fini(struct rclink_dev *rdev);

/*
 * rclink_qp.c: control plane (QP objects, registers, recovery) and the
 * registry of boards by index.  rclink_t1_probe() gives the board its index
 * and name, which it keeps until rclink_t1_remove().  rclink_t1_init()
 * programs step 1 (the defaults the first time, else the kept
 * configuration), brings the kept QPs back FATAL and makes the board
 * visible to netlink; rclink_t1_fini() (after rclink_dp_fini(): no file is
 * bound any more) hides it and stops the QPs, keeping them and the
 * configuration; rclink_t1_forget() deletes them (devlink reload).
 * Netlink operations find a board with rclink_t1_dev_get() and hold
 * rclink_t1_devs_lock for the whole operation, so the board cannot go
 * down under them.
 */
extern struct mutex rclink_t1_devs_lock;
int rclink_t1_probe(struct rclink_dev *rdev);
void rclink_t1_remove(struct rclink_dev *rdev);
void rclink_t1_forget(struct rclink_dev *rdev);
int rclink_t1_init(struct rclink_dev *rdev);
void rclink_t1_fini(struct rclink_dev *rdev);
struct rclink_dev *rclink_t1_dev_get(int index);	/* NULL: none */
/* The bus part of a board's handle, "pci/0000:03:00.0" (as devlink names it) */
#define RCLINK_DEV_HANDLE_BUS	"pci/"

struct rclink_dev *rclink_t1_dev_by_name(const char *name);

/* rclink_nl.c: generic netlink family "rclink" */
int rclink_nl_init(void);
void rclink_nl_exit(void);
void rclink_nl_notify_qp(struct rclink_t1_qp *qp, u8 cmd);
void rclink_nl_notify_qp_event(struct rclink_dev *rdev, u32 qpn, u8 cmd);

/*
 * Data path counters of a board (the QPs' own are rclink_t1_qp_stats),
 * read with rclink_dp_stats_read(); debugfs "t1" shows them too.
 */
struct rclink_t1_dp_stats {
	u64 tx_msgs;		/* messages completed OK */
	u64 tx_bytes;
	u64 tx_flushed;		/* completed FLUSHED (QP fatal, disabled) */
	u64 tx_errors;		/* completed BAD_WQE or DMA_ERR */
	u64 rx_msgs;		/* messages queued for reading */
	u64 rx_bytes;
	u64 rx_drop_noqp;	/* buffers for a QP number without a QP */
	u64 rx_drop_flushed;	/* messages cut by a segment error */
	u64 rx_drop_seq;	/* buffers out of order or of a bad length */
	u64 rx_drop_nomem;	/* messages without memory to reassemble */
	u64 cqe_errors;		/* CQEs naming no WQE or buffer of ours */
	u64 rx_flow_stops;	/* receive buffers withheld (limit reached) */
	u64 rx_queued_bytes;	/* now: bytes of messages waiting to be read */
};

/*
 * rclink_dmaq.c + rclink_cdev.c: data path.
 *
 * rclink_dp_init() runs after rclink_t1_init() (it needs the name, the
 * index and rclink_t1.lock) and sets AFH_CFG_EN.type1_flow_stop_send_rnr_en
 * (all banks) with a read-modify-write under rclink_t1.lock, so that a
 * receiver out of buffers answers RNR: the control plane must preserve
 * that field when it writes AFH_CFG_EN.  rclink_dp_fini() runs before
 * rclink_t1_fini(): afterwards no file is bound to a QP and no message is
 * in flight.
 *
 * rclink_dp_qp_init(): on a new QP before it is published.
 * rclink_dp_qp_release(): process context, with rclink_t1_devs_lock held
 * (a netlink operation) or after rclink_dp_fini(); the QP unpublished and
 * unbound, before it is freed with kfree_rcu().  It marks the QP released
 * under its lock (a reader that looked it up before it was unpublished
 * leaves it alone), frees the received messages and forgets the QP's
 * messages in flight (they still complete, counted on the board).
 * rclink_dp_stats_read(): with rclink_t1_devs_lock or rclink_t1.lock held.
 * rclink_dp_qp_state_changed(): after qp->state changed (process
 * context): wakes the bound file (ECONNRESET/POLLERR while FATAL).
 */
int rclink_dp_init(struct rclink_dev *rdev);	/* rings, /dev/rclinkN */
void rclink_dp_fini(struct rclink_dev *rdev);
void rclink_dp_shutdown(struct rclink_dev *rdev);	/* quiesce DMA */
void rclink_dp_cq_irq(struct rclink_dev *rdev);	/* CQ interrupt */
bool rclink_dp_cq_pending(struct rclink_dev *rdev);	/* INTx claim */
void rclink_dp_qp_init(struct rclink_t1_qp *qp);
u32 rclink_dp_qp_release(struct rclink_t1_qp *qp);	/* frees rx_msgs */
void rclink_dp_qp_state_changed(struct rclink_t1_qp *qp);	/* wake */
void rclink_dp_stats_read(struct rclink_dev *rdev,
			  struct rclink_t1_dp_stats *st);
void rclink_dp_debugfs_init(struct rclink_dev *rdev, struct dentry *dir);
int rclink_cdev_module_init(void);	/* chrdev region, class "rclink" */
void rclink_cdev_module_exit(void);

#endif /* _RCLINK_T1_H_ */
