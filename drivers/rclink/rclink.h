/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: driver for the PCIe FPGA board carrying the RCLINK-Stream IP.
 *
 * The hardware contract (register offsets, fields, event codes) is
 * include/rclink_hw.h, generated from firmware/regs/rclink.yaml; the shim's
 * behaviour is described in Documentation/hw/shim.rst.
 */
#ifndef _RCLINK_H_
#define _RCLINK_H_

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <rclink_hw.h>

#include "../../uapi/linux/rclink_nl.h"
#include "rclink_assumed.h"
#include "rclink_events.h"
#include "rclink_fc.h"
#include "rclink_health.h"
#include "rclink_irq.h"
#include "rclink_regs.h"
#include "rclink_selftest.h"
#include "rclink_t1.h"

struct dentry;
struct rclink_net;

/* DMA_INTR_ST1 faults after which the non-RDMA path needs a soft reset */
#define RCLINK_NONR_ST1_SOFT_RESET_MASK				\
	(RCLINK_DMA_INTR_ST1_TX_TWO_SOP |			\
	 RCLINK_DMA_INTR_ST1_TX_TWO_EOP |			\
	 RCLINK_DMA_INTR_ST1_TX_OVERSIZE |			\
	 RCLINK_DMA_INTR_ST1_RX_OVERSIZE |			\
	 RCLINK_DMA_INTR_ST1_TX_MD_SIZE_ZERO |			\
	 RCLINK_DMA_INTR_ST1_RX_MD_SIZE_ZERO)

/*
 * Event counters.  The per-code and per-bit entries are generated from the
 * X-macro lists of rclink_hw.h, so a code added there gets its counter (and
 * its debugfs line) without touching the driver.
 */
#define RCLINK_CNT_ID(pfx, name, ...)	RCLINK_CNT_##pfx##_##name,
#define RCLINK_CNT_T1_ENUM(code, name, desc)	\
	RCLINK_CNT_ID(T1, name, code, desc)
#define RCLINK_CNT_T2_ENUM(code, name, desc)	\
	RCLINK_CNT_ID(T2, name, code, desc)
#define RCLINK_CNT_T3_ENUM(code, name, desc)	\
	RCLINK_CNT_ID(T3, name, code, desc)
#define RCLINK_CNT_RC_INTR_ENUM(bit, name, desc)	\
	RCLINK_CNT_ID(RC_INTR, name, bit, desc)
#define RCLINK_CNT_NONR_ST0_ENUM(bit, name, desc)	\
	RCLINK_CNT_ID(NONR_ST0, name, bit, desc)
#define RCLINK_CNT_NONR_ST1_ENUM(bit, name, desc)	\
	RCLINK_CNT_ID(NONR_ST1, name, bit, desc)

enum rclink_cnt {
	RCLINK_CNT_IRQ_TOTAL,		/* hard interrupts, all vectors */
	RCLINK_CNT_EVT_RECORDS,		/* event records consumed */
	RCLINK_CNT_EVT_DROPPED,		/* SHIM_EVT_DROPS, read live */
	RCLINK_IRQ_TYPE1_CODES(RCLINK_CNT_T1_ENUM)
	RCLINK_IRQ_TYPE2_CODES(RCLINK_CNT_T2_ENUM)
	RCLINK_IRQ_TYPE3_CODES(RCLINK_CNT_T3_ENUM)
	RCLINK_RC_INTR_BITS(RCLINK_CNT_RC_INTR_ENUM)
	RCLINK_NONR_ST0_BITS(RCLINK_CNT_NONR_ST0_ENUM)
	RCLINK_NONR_ST1_BITS(RCLINK_CNT_NONR_ST1_ENUM)
	RCLINK_CNT_SELFTEST_IRQ,	/* self-test interrupts received */
	RCLINK_CNT_NONR_SOFT_RESET,	/* soft resets of the non-RDMA path */
	RCLINK_CNT_T3_VECTOR,		/* TYPE3 interrupts on their vector */
	RCLINK_CNT_QP_FATAL,		/* QPs that went fatal (retry over) */
	RCLINK_CNT_QP_RECOVERED,
	RCLINK_CNT_QP_RECOVERY_FAILED,
	RCLINK_CNT_LINK_UP,		/* LINK events: the wire came up */
	RCLINK_CNT_LINK_DOWN,		/* LINK events: the wire went down */
	RCLINK_CNT_RECV_ACK,		/* RECV_ACK records (TYPE1 RTT) */
	RCLINK_CNT_RECV_CNP,		/* RECV_CNP records (CNPs passed) */
	RCLINK_CNT_NOCNP,		/* NOCNP records (NOCNP timer) */
	RCLINK_CNT_RETRY_TMO,		/* RETRY_TMO records (retry timer) */
	RCLINK_CNT_CC_DROP_NOQP,	/* CC interface records without a QP */
	RCLINK_CNT_T1_RX_UNREAD,	/* received messages freed unread */
	RCLINK_CNT_UNKNOWN,		/* unknown sources, codes and bits */
	RCLINK_CNT_NUM
};

extern const char * const rclink_cnt_names[RCLINK_CNT_NUM];

/* IP synthesis parameters and identity, from SHIM_VERSION/CAP0..3/SERIAL */
struct rclink_params {
	u16 shim_major;
	u16 shim_minor;
	u16 ip_version;			/* BCD: 0x0204 is v2.4 */
	u64 serial;

	u32 qp_num;
	u32 type1_ost_n;
	u32 type1_pkt_len;
	u32 type1_vc_num;
	u32 epsn_w;

	u32 type2_ost_n;
	u32 type2_pkt_len;
	u32 type2_crd_rst_num;
	u32 type1_rx_buf_aw;
	bool use_qdma;

	u32 nonr_tx_depth;
	u32 nonr_rx_depth;
	u32 nonr_dat_id_w;
	u32 nonr_md_id_w;
	u32 ram_rd_latency;

	u32 dw;
	u32 mac_dw;
	u32 num_vectors;
	u32 evt_ring_max_order;
	/* SHIM_CAP3.ip_counters: the IP's internal events are counted */
	bool ip_counters;
};

/* rclink_dev.flags */
enum {
	RCLINK_FLAG_UP,			/* rclink_up() done, not yet down */
};

/* PCI fault handling of a board (rclink_main.c), for debugfs "pci" */
struct rclink_pci_stats {
	u64 err_detected;	/* AER: error_detected calls */
	u64 err_perm_failure;	/* ... that said the device is lost */
	u64 slot_resets;	/* AER: slot_reset calls */
	u64 slot_reset_failed;	/* ... after which the board did not answer */
	u64 resumed;		/* AER: resume calls */
	u64 resets;		/* function resets (FLR, bus reset, sysfs) */
	u64 up_failed;		/* bring-ups that failed after a reset */
	u64 teardown_flushed;	/* TYPE1 messages flushed by a teardown */
	u64 teardown_unread;	/* received TYPE1 messages freed unread */
	u64 qps_kept;		/* TYPE1 QPs back after a reset, FATAL */
	u64 suspends;		/* system sleep: suspend (or freeze) calls */
	u64 sleep_resumes;	/* system sleep: resume (thaw, restore) */
	u64 gone;		/* the board read all ones: taken down */
};

/*
 * Board-wide choices applied when the board comes up: the devlink
 * driverinit params (rclink_devlink.c), taken over at probe and at
 * `devlink dev reload`.  Ring sizes as log2 of their entries.
 */
struct rclink_cfg {
	u32 evt_ring_order;		/* event ring */
	u32 t1_sq_order;		/* TYPE1 queue engine: send queue */
	u32 t1_rq_order;		/* ... receive buffers */
	u32 t1_cq_order;		/* ... completion queue */
	u32 t3_tx_ring_size;		/* TYPE3 rings (ethtool -G after) */
	u32 t3_rx_ring_size;
	u8 t1_format;			/* TYPE1 header format at start */
	u8 cc_algo;			/* enum rclink_cc_algo */
	u32 cc_ai_div;			/* DCQCN additive increase: speed/N */
	u32 cc_fast_steps;		/* DCQCN fast recovery periods */
	u32 cc_g_shift;			/* DCQCN alpha gain g = 2^-N */
	u32 ctx_rx_hold_us;		/* DMAQ_CTX_RX_HOLD: a user context's
					 * packet without room waits this long
					 */
	u32 rdma_timeout_us;		/* DMAQ_RDMA_CFG: a WRITE or READ
					 * without its response this long
					 * completes REM_TIMEOUT
					 */
	u8 flow_control;		/* enum rclink_flow_control */
};

struct rclink_dev {
	struct pci_dev *pdev;
	struct device *dev;
	/* BAR0 and the gone state; its gone_work takes the board down */
	struct rclink_regs regs;
	unsigned long flags;
	struct rclink_pci_stats pci_stats;	/* under the device lock */

	struct rclink_params params;

	enum rclink_irq_mode irq_mode;
	unsigned int num_vecs;
	struct rclink_vec *vecs;

	struct rclink_evt_ring evt;
	/* who gets what interrupts and event records say (rclink_main.c) */
	const struct rclink_evt_ops *evt_ops;

	atomic64_t cnt[RCLINK_CNT_NUM];

	struct rclink_selftest st;	/* rclink_selftest.c */
	struct rclink_assumed assumed;	/* rclink_assumed.c */

	/* QP_ID_SET and every per-QP ("MEM") register access */
	struct mutex qp_lock;
	unsigned long *qp_fatal_pending;	/* bitmap of params.qp_num */
	struct work_struct qp_fatal_work;

	/* TYPE3 netdev; written under rtnl, read by the event thread */
	struct rclink_net *net;
	u32 t3_ring_alloc_fail;		/* test hook: RX rings to fail */

	struct rclink_health health;	/* rclink_health.c */
	const struct rclink_health_ops *health_ops;	/* rclink_main.c */

	struct rclink_cfg cfg;		/* devlink driverinit params */

	struct dentry *dbg_dir;

	/* TYPE1: QPs, netlink, queue engine, /dev/rclinkN (rclink_t1.h) */
	struct rclink_t1 t1;
	/* flow control (rclink_fc.h), written to the board under t1.lock */
	u8 pfc_en;			/* PFC priorities, set by dcbnl */
	struct rclink_cbfc cbfc;	/* the CBFC settings of dev set */
};

/* Register access: the board's rclink_regs (rclink_regs.h) */
/*
 * The board counts what counter register reg counts: a board without
 * SHIM_CAP3.ip_counters reads the counters of events inside the IP
 * (RCLINK_IS_IP_INTERNAL_COUNTER) as 0, meaning "not counted"
 */
static inline bool rclink_counted(const struct rclink_dev *rdev, u32 reg)
{
	return rdev->params.ip_counters || !RCLINK_IS_IP_INTERNAL_COUNTER(reg);
}

static inline bool rclink_gone(struct rclink_dev *rdev)
{
	return rclink_regs_gone(&rdev->regs);
}

static inline void rclink_dma_fence(struct rclink_dev *rdev)
{
	rclink_regs_dma_fence(&rdev->regs);
}

static inline u64 rclink_rd64(struct rclink_dev *rdev, u32 reg)
{
	return rclink_regs_rd64(&rdev->regs, reg);
}

static inline void rclink_wr64(struct rclink_dev *rdev, u32 reg, u64 val)
{
	rclink_regs_wr64(&rdev->regs, reg, val);
}

/* MAC window: 32-bit accesses only */
static inline u32 rclink_rd32(struct rclink_dev *rdev, u32 reg)
{
	return rclink_regs_rd32(&rdev->regs, reg);
}

static inline void rclink_wr32(struct rclink_dev *rdev, u32 reg, u32 val)
{
	rclink_regs_wr32(&rdev->regs, reg, val);
}

/* rclink_up() done, rclink_down() not yet begun */
static inline bool rclink_is_up(struct rclink_dev *rdev)
{
	return test_bit(RCLINK_FLAG_UP, &rdev->flags);
}

static inline void rclink_cnt_inc(struct rclink_dev *rdev, enum rclink_cnt c)
{
	atomic64_inc(&rdev->cnt[c]);
}

u64 rclink_cnt_read(struct rclink_dev *rdev, enum rclink_cnt c);
bool rclink_cnt_netdev(enum rclink_cnt c);
unsigned int rclink_cnt_netdev_num(void);

/* rclink_qp.c */
void rclink_qp_early_init(struct rclink_dev *rdev);
int rclink_qp_init(struct rclink_dev *rdev);
void rclink_qp_stop(struct rclink_dev *rdev);
void rclink_qp_fini(struct rclink_dev *rdev);
void rclink_qp_fatal(struct rclink_dev *rdev, u32 qpid);

static inline bool rclink_cbfc_on(const struct rclink_dev *rdev)
{
	return rdev->cfg.flow_control == RCLINK_FLOW_CONTROL_CBFC;
}

/* rclink_netdev.c: the TYPE3 Ethernet netdev */
int rclink_netdev_register(struct rclink_dev *rdev);
void rclink_netdev_unregister(struct rclink_dev *rdev);
int rclink_netdev_attach(struct rclink_dev *rdev);
void rclink_netdev_detach(struct rclink_dev *rdev);
void rclink_netdev_set_ring_sizes(struct rclink_dev *rdev, u32 tx, u32 rx);
bool rclink_netdev_present(struct rclink_dev *rdev);
void rclink_netdev_t3_event(struct rclink_dev *rdev);
void rclink_netdev_t3_irq(struct rclink_dev *rdev);
void rclink_netdev_link_event(struct rclink_dev *rdev);
bool rclink_netdev_t3_reset(struct rclink_dev *rdev);
int rclink_netdev_t3_fault(struct rclink_dev *rdev, unsigned int fault);
void rclink_netdev_shutdown(struct rclink_dev *rdev);

/* rclink_main.c: the board behind its PCI function (devlink reload too) */
int rclink_up(struct rclink_dev *rdev);
void rclink_down(struct rclink_dev *rdev);

/* rclink_devlink.c */
struct rclink_dev *rclink_devlink_alloc(struct device *dev);
void rclink_devlink_free(struct rclink_dev *rdev);
void rclink_devlink_register(struct rclink_dev *rdev);
void rclink_devlink_unregister(struct rclink_dev *rdev);

/* rclink_debugfs.c */
void rclink_debugfs_module_init(void);
void rclink_debugfs_module_exit(void);
void rclink_debugfs_init(struct rclink_dev *rdev);
void rclink_debugfs_exit(struct rclink_dev *rdev);

#endif /* _RCLINK_H_ */
