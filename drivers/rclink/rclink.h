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
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <rclink_hw.h>

#include "../../uapi/linux/rclink_nl.h"
#include "rclink_regs.h"
#include "rclink_t1.h"

struct dentry;
struct devlink_health_reporter;
struct netlink_ext_ack;
struct rclink_net;
struct rclink_t1_dev_cfg;
struct seq_file;

/* The fields whose place rclink assumed, by index (rclink_assumed.c) */
#define RCLINK_ASM_ENUM(r, f, ...)	RCLINK_ASM_##r##_##f,
enum rclink_asm {
	RCLINK_ASSUMED_FIELDS(RCLINK_ASM_ENUM)
	RCLINK_ASM_NUM
};

/*
 * What the driver disables when the IP lacks an assumed field it needs;
 * BIT(n) is enum rclink_hw_feature of the uAPI (dev-get hw-disabled)
 */
enum rclink_feat {
	RCLINK_FEAT_TYPE1,	/* QPs, dev set */
	RCLINK_FEAT_TYPE2,	/* multicast groups, t2_rate */
	RCLINK_FEAT_GEN2,	/* header format gen2 */
	RCLINK_FEAT_LITE,	/* header format lite */
	RCLINK_FEAT_CBFC,	/* flow control cbfc */
	RCLINK_FEAT_RNR_LIMIT,	/* rnr_retry_cnt other than 0 */
	RCLINK_FEAT_ACK_TS,	/* ack_timestamp 1 */
	RCLINK_FEAT_BANK_RR,	/* bank_rr 1 */
	RCLINK_FEAT_NO_ICRC,	/* icrc 0 */
	RCLINK_FEAT_CNP_MERGE,	/* cnp_merge 1, cnp_window */
	RCLINK_FEAT_NOCNP,	/* nocnp, cc_algorithm dcqcn */
	RCLINK_FEAT_NUM
};

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
};

enum rclink_irq_mode {
	RCLINK_IRQ_NONE,
	RCLINK_IRQ_MSIX,
	RCLINK_IRQ_MSI,
	RCLINK_IRQ_INTX,
};

/* Vector plan (shim.rst): 0 = event ring, 1 = TYPE1 CQ, 2.. reserved */
#define RCLINK_VEC_EVT		0
#define RCLINK_VEC_CQ		1
#define RCLINK_VEC_T3		2

struct rclink_vec {
	struct rclink_dev *rdev;
	unsigned int idx;
	int irq;
	bool requested;
	char name[32];
};

/* One event ring record (Documentation/hw/registers.rst, Event records) */
struct rclink_evt_rec {
	__le64 info;
	__le64 meta;
};

#define RCLINK_EVT_RING_ORDER	8

struct rclink_evt_ring {
	struct rclink_evt_rec *recs;
	dma_addr_t dma;
	unsigned int order;
	/*
	 * cons: free running; the irq thread and (MSI-X) the hard handler
	 * consume records under @lock, interrupts off
	 */
	spinlock_t lock;
	u32 cons;
	u32 told;		/* the cons last written to SHIM_EVT_CONS */
	bool fast_full;		/* the hard handler consumed a full ring */
	bool enabled;
};

enum rclink_selftest_step {
	RCLINK_ST_REGISTER,
	RCLINK_ST_IRQ,
	RCLINK_ST_DMA,
	RCLINK_ST_NUM
};

enum rclink_selftest_result {
	RCLINK_ST_NOT_RUN,
	RCLINK_ST_OK,
	RCLINK_ST_FAILED,
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
	u8 flow_control;		/* enum rclink_flow_control */
};

/* The classes of AFH_CFG_EN.*_credit_uf_limit_cbfc */
enum rclink_fc_uf {
	RCLINK_FC_UF_TYPE1,
	RCLINK_FC_UF_TYPE2,
	RCLINK_FC_UF_TYPE3,
	RCLINK_FC_UF_ACK,
	RCLINK_FC_UF_NUM
};

/*
 * The CBFC settings of `rclink dev set` (rclink_cbfc.c), under
 * rclink_t1.lock; back to the defaults at every rclink_up().
 */
struct rclink_cbfc {
	u32 size;			/* credit size in bytes */
	u32 limit;			/* credit limit of every VC */
	u8 uf[RCLINK_FC_UF_NUM];	/* credit_uf_limit, maximum frames */
	bool dyn;			/* type1_dyn_uf_limit_cbfc_en */
	u8 vc_status;			/* software_ctrl_cbfc_vc_status */
};

/* A snapshot of the board's CBFC state for dev-get */
/*
 * One of the IP's seven physical flows (seed 000, CBFC: TYPE1 REQ banks
 * 0..3, ACK/CNP, TYPE2, TYPE3, in DFX_CBFC_CF_O order): where its VC (CBFC)
 * or priority (PFC), its credits and its PFC enables are
 */
struct rclink_fc_flow {
	u64 vc;		/* AFH_CFG_EN field */
	u32 cf_reg;	/* DMAQ_DFX_CBFC_CF0 or CF1 */
	u64 cf;		/* its field there */
	u64 pfc_rx;	/* XON_THR_RDMA: stops while its priority is paused */
	u64 pfc_tx;	/* XON_THR_RDMA: asks for XOFF of its priority */
};

extern const struct rclink_fc_flow rclink_fc_flows[RCLINK_CBFC_FLOWS];

/* A field of @val by a mask known only at run time */
static inline u32 rclink_fc_field(u64 val, u64 mask)
{
	return (val & mask) >> __ffs64(mask);
}

struct rclink_cbfc_info {
	u8 vc[RCLINK_CBFC_FLOWS];	/* each flow's VC (AFH_CFG_EN) */
	u16 credits[RCLINK_CBFC_FLOWS];	/* DMAQ_DFX_CBFC_CF0/CF1 */
	u8 vc_on;			/* SHIM_CBFC_STATUS */
	u8 loaded;
	u32 rx_buf[RCLINK_CBFC_VCS];	/* SHIM_CBFC_RX_BUF(n) */
	u64 rx_drop[RCLINK_CBFC_VCS];	/* SHIM_CBFC_RX_DROP(n) */
	u64 tx_blocked[RCLINK_CBFC_VCS];	/* SHIM_CBFC_TX_BLOCKED(n) */
	u64 upd_tx;			/* SHIM_CBFC_UPD_TX */
	u64 upd_rx;			/* SHIM_CBFC_UPD_RX */
	u64 recovered;			/* SHIM_CBFC_RECOVERED */
	u64 resync;			/* SHIM_CBFC_RESYNC */
	u64 mac_ctrl_drop;		/* SHIM_MAC_CTRL_DROP */
};

/* devlink health reporters "type1" and "events" (rclink_health.c) */
struct rclink_health {
	struct devlink_health_reporter *t1;
	struct devlink_health_reporter *evt;
	spinlock_t lock;		/* the fields below */
	u32 t1_last_qpn;		/* the last QP that went fatal */
	u32 t1_last_psn;
	int t1_last_err;		/* its recovery: 0 or -errno */
	u64 t1_reports;
	u32 evt_drops_reported;		/* SHIM_EVT_DROPS at the last report */
	u64 evt_reports;
	bool t1_pending;		/* a "type1" report to make */
	bool evt_pending;		/* SHIM_EVT_DROPS to look at */
	bool registered;		/* devlink registered: report */
	struct work_struct report_work;	/* makes both reports */
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

	atomic64_t cnt[RCLINK_CNT_NUM];

	/* interrupt self-test: vector expected next, -1 when none */
	atomic_t st_irq_vec;
	struct completion st_irq_done;
	u8 st_result[RCLINK_ST_NUM];
	/* assumed fields the IP lacks (BIT(enum rclink_asm)), and so the
	 * features disabled (BIT(enum rclink_feat)): rclink_assumed.c
	 */
	u32 asm_missing;
	u32 feat_off;

	/* QP_ID_SET and every per-QP ("MEM") register access */
	struct mutex qp_lock;
	unsigned long *qp_fatal_pending;	/* bitmap of params.qp_num */
	struct work_struct qp_fatal_work;

	/* TYPE3 netdev; written under rtnl, read by the event thread */
	struct rclink_net *net;

	/* devlink health reporter "type3" (rclink_health.c) */
	struct devlink_health_reporter *t3_reporter;
	struct work_struct t3_fault_work;
	spinlock_t t3_fault_lock;	/* the pending and last faults */
	u64 t3_pending_faults;		/* DMA_INTR_ST1 bits to report */
	bool t3_pending_tx_timeout;
	bool t3_report;			/* devlink registered: report */
	u32 t3_ring_alloc_fail;		/* test hook: RX rings to fail */
	u64 t3_last_faults;		/* bits of the last report */
	u64 t3_fault_reports;
	struct rclink_health health;	/* "type1", "events" */

	struct rclink_cfg cfg;		/* devlink driverinit params */

	struct dentry *dbg_dir;

	/* TYPE1: QPs, netlink, queue engine, /dev/rclinkN (rclink_t1.h) */
	struct rclink_t1 t1;
	u8 pfc_en;			/* dcbnl PFC priorities (rclink_dcb) */
	struct rclink_cbfc cbfc;	/* rclink_cbfc.c, under t1.lock */
};

/* Register access: the board's rclink_regs (rclink_regs.h) */
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

bool rclink_is_up(struct rclink_dev *rdev);

static inline void rclink_cnt_inc(struct rclink_dev *rdev, enum rclink_cnt c)
{
	atomic64_inc(&rdev->cnt[c]);
}

u64 rclink_cnt_read(struct rclink_dev *rdev, enum rclink_cnt c);
bool rclink_cnt_netdev(enum rclink_cnt c);
unsigned int rclink_cnt_netdev_num(void);

/* rclink_irq.c */
int rclink_irq_alloc_vectors(struct rclink_dev *rdev);
void rclink_irq_free_vectors(struct rclink_dev *rdev);
int rclink_irq_request(struct rclink_dev *rdev);
void rclink_irq_free(struct rclink_dev *rdev);
const char *rclink_irq_mode_name(enum rclink_irq_mode mode);
void rclink_irq_sync(struct rclink_dev *rdev);
bool rclink_irq_cq_shared(struct rclink_dev *rdev);
bool rclink_irq_t3_own(struct rclink_dev *rdev);

/* rclink_events.c */
int rclink_evt_ring_alloc(struct rclink_dev *rdev);
void rclink_evt_ring_free(struct rclink_dev *rdev);
int rclink_evt_ring_enable(struct rclink_dev *rdev);
void rclink_evt_ring_disable(struct rclink_dev *rdev);
bool rclink_evt_pending(struct rclink_dev *rdev);
void rclink_evt_drain(struct rclink_dev *rdev);
bool rclink_t3_causes(struct rclink_dev *rdev);
bool rclink_evt_fast(struct rclink_dev *rdev);

/* rclink_qp.c */
void rclink_qp_early_init(struct rclink_dev *rdev);
int rclink_qp_init(struct rclink_dev *rdev);
void rclink_qp_stop(struct rclink_dev *rdev);
void rclink_qp_fini(struct rclink_dev *rdev);
void rclink_qp_fatal(struct rclink_dev *rdev, u32 qpid);

/*
 * rclink_cbfc.c: the board's flow control, CBFC or PFC (devlink param
 * flow_control, rdev->cfg.flow_control).  rclink_cbfc_init() sets the
 * defaults (@fresh) and the MAC side at rclink_t1_init(); rclink_cbfc_afh() is
 * AFH_CFG_EN's flow control part, for every writer of AFH_CFG_EN.  All
 * but rclink_fc_parse() and rclink_cbfc_on() with rclink_t1.lock held.
 */
extern const char * const rclink_fc_names[RCLINK_FLOW_CONTROL_MAX + 1];
int rclink_fc_parse(const char *name);
int rclink_cbfc_size_code(u32 bytes);
void rclink_cbfc_init(struct rclink_dev *rdev, bool fresh);
u64 rclink_cbfc_afh(struct rclink_dev *rdev, u64 afh);
bool rclink_cbfc_vlan_forced(struct rclink_dev *rdev);
int rclink_cbfc_check(struct rclink_dev *rdev,
		      const struct rclink_t1_dev_cfg *cfg, u32 given,
		      struct netlink_ext_ack *extack);
bool rclink_cbfc_set(struct rclink_dev *rdev,
		     const struct rclink_t1_dev_cfg *cfg, u32 given);
void rclink_cbfc_load(struct rclink_dev *rdev);
void rclink_cbfc_get(struct rclink_dev *rdev, struct rclink_t1_dev_cfg *cfg);
void rclink_cbfc_info(struct rclink_dev *rdev, struct rclink_cbfc_info *info);

static inline bool rclink_cbfc_on(const struct rclink_dev *rdev)
{
	return rdev->cfg.flow_control == RCLINK_FLOW_CONTROL_CBFC;
}

/* rclink_assumed.c: the registers whose place rclink assumed */
int rclink_assumed_probe(struct rclink_dev *rdev);
bool rclink_feat_ok(struct rclink_dev *rdev, enum rclink_feat feat);
int rclink_feat_need(struct rclink_dev *rdev, enum rclink_feat feat,
		     struct netlink_ext_ack *extack);
void rclink_assumed_show(struct seq_file *s, struct rclink_dev *rdev);

/* rclink_selftest.c */
extern const char * const rclink_selftest_step_names[RCLINK_ST_NUM];
int rclink_selftest_regs(struct rclink_dev *rdev);
int rclink_selftest_irq(struct rclink_dev *rdev);
int rclink_selftest_dma(struct rclink_dev *rdev);
bool rclink_selftest_irq_seen(struct rclink_dev *rdev, u64 vec);

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

/* rclink_health.c: devlink health reporters "type3", "type1", "events" */
int rclink_health_create(struct rclink_dev *rdev);
void rclink_health_destroy(struct rclink_dev *rdev);
void rclink_health_t1_fatal(struct rclink_dev *rdev, u32 qpn, u32 psn,
			    int err);
void rclink_health_evt_ring_full(struct rclink_dev *rdev);
int rclink_health_init(struct rclink_dev *rdev);
void rclink_health_start(struct rclink_dev *rdev);
void rclink_health_stop(struct rclink_dev *rdev);
void rclink_health_fini(struct rclink_dev *rdev);
void rclink_health_t3_fault(struct rclink_dev *rdev, u64 faults);
void rclink_health_t3_tx_timeout(struct rclink_dev *rdev);

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
