/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: TYPE1 control plane, between the QP code (rclink_qp.c: objects
 * and registers) and the generic netlink family (rclink_nl.c: parsing,
 * validation and replies).  The caller holds rclink_t1_devs_lock, so the
 * board stays registered; the functions take rclink_t1.lock themselves.
 */
#ifndef _RCLINK_QP_H_
#define _RCLINK_QP_H_

#include <linux/bits.h>
#include <linux/types.h>

#include "rclink.h"
#include "rclink_t1.h"

struct netlink_ext_ack;

/* Fields of struct rclink_t1_qp_cfg present in a request */
enum {
	RCLINK_QP_F_DQPN	= BIT(0),
	RCLINK_QP_F_DIP		= BIT(1),
	RCLINK_QP_F_DMAC	= BIT(2),
	RCLINK_QP_F_SPORT	= BIT(3),
	RCLINK_QP_F_PKEY	= BIT(4),
	RCLINK_QP_F_RX_PKEY	= BIT(5),
	RCLINK_QP_F_SQ_PSN	= BIT(6),
	RCLINK_QP_F_RQ_PSN	= BIT(7),
	RCLINK_QP_F_SPEED	= BIT(8),
	RCLINK_QP_F_READY	= BIT(9),	/* qp-set state ready */
	RCLINK_QP_F_RATE	= BIT(10),
};

/* The global configuration of step 1, as dev-set changes it */
struct rclink_t1_dev_cfg {
	u8 mac[ETH_ALEN];
	__be32 ip;
	u16 ip_id;
	u8 ttl;
	u8 tc;
	u8 bank_tc[RCLINK_T1_BANKS];	/* the banks of bank_given */
	u8 bank_given;			/* BIT(n): bank n's tc is given */
	u8 ack_tc;
	u32 retry_timer_us;
	u8 retry_cnt;
	u8 rnr_retry_cnt;
	bool ack_timestamp;
	bool icrc;
	u16 vlan_id;		/* 0: VLAN off */
	u8 vlan_pri;
	u8 format;		/* enum rclink_format */
	u32 cc_window_ns;
	bool bank_rr;
	u64 t2_rate;		/* bit/s, 0: no limit */
	bool cnp_merge;
	u32 cnp_window_us;	/* 0..65535 */
	u32 nocnp_us;		/* 1..256, 0: off */
	/* flow control (rclink_cbfc.c): the first two in dev-get only */
	u8 flow_control;	/* enum rclink_flow_control */
	bool vlan_forced;	/* tagged with VID 0: CBFC and AFH_GEN1 */
	u32 cbfc_size;		/* credit size, bytes */
	u32 cbfc_limit;		/* credit limit, 1..65535 */
	u8 cbfc_uf[RCLINK_FC_UF_NUM];	/* credit_uf_limit, 1..7 */
	bool cbfc_dyn;		/* type1_dyn_uf_limit_cbfc_en */
	u8 vc_status;		/* software_ctrl_cbfc_vc_status */
};

/* Fields of struct rclink_t1_dev_cfg present in a dev-set request */
enum {
	RCLINK_DEV_F_IP			= BIT(0),
	RCLINK_DEV_F_IP_ID		= BIT(1),
	RCLINK_DEV_F_TTL		= BIT(2),
	RCLINK_DEV_F_TC			= BIT(3),
	RCLINK_DEV_F_ACK_TC		= BIT(4),
	RCLINK_DEV_F_RETRY_TIMER	= BIT(5),
	RCLINK_DEV_F_RETRY_CNT		= BIT(6),
	RCLINK_DEV_F_RNR_RETRY_CNT	= BIT(7),
	RCLINK_DEV_F_ACK_TIMESTAMP	= BIT(8),
	RCLINK_DEV_F_ICRC		= BIT(9),
	RCLINK_DEV_F_MAC		= BIT(10),
	RCLINK_DEV_F_VLAN_ID		= BIT(11),
	RCLINK_DEV_F_VLAN_PRI		= BIT(12),
	RCLINK_DEV_F_FORMAT		= BIT(13),
	RCLINK_DEV_F_CC_WINDOW		= BIT(14),
	RCLINK_DEV_F_BANK_RR		= BIT(15),
	RCLINK_DEV_F_T2_RATE		= BIT(16),
	RCLINK_DEV_F_CNP_MERGE		= BIT(17),
	RCLINK_DEV_F_CNP_WINDOW		= BIT(18),
	RCLINK_DEV_F_NOCNP		= BIT(19),
	RCLINK_DEV_F_CBFC_SIZE		= BIT(20),
	RCLINK_DEV_F_CBFC_LIMIT		= BIT(21),
	RCLINK_DEV_F_CBFC_UF_TYPE1	= BIT(22),
	RCLINK_DEV_F_CBFC_UF_TYPE2	= BIT(23),
	RCLINK_DEV_F_CBFC_UF_TYPE3	= BIT(24),
	RCLINK_DEV_F_CBFC_UF_ACK	= BIT(25),
	RCLINK_DEV_F_CBFC_DYN		= BIT(26),
	RCLINK_DEV_F_VC_STATUS		= BIT(27),
	RCLINK_DEV_F_BANK_TC		= BIT(28),	/* see bank_given */
};

#define RCLINK_DEV_F_CBFC_UF_ALL	(RCLINK_DEV_F_CBFC_UF_TYPE1 |	\
					 RCLINK_DEV_F_CBFC_UF_TYPE2 |	\
					 RCLINK_DEV_F_CBFC_UF_TYPE3 |	\
					 RCLINK_DEV_F_CBFC_UF_ACK)
/* The settings only cbfc mode takes */
#define RCLINK_DEV_F_CBFC	(RCLINK_DEV_F_CBFC_SIZE |		\
				 RCLINK_DEV_F_CBFC_LIMIT |		\
				 RCLINK_DEV_F_CBFC_UF_ALL |		\
				 RCLINK_DEV_F_CBFC_DYN |		\
				 RCLINK_DEV_F_VC_STATUS)

/*
 * The board's DMAQ_QPS_* counters of one QP, in register order (those
 * after DMAQ_QPS_ACK_RX are not next to them: struct rclink_t1_qp_info)
 */
enum rclink_t1_hw_stat {
	RCLINK_T1_HW_TX_PKTS,
	RCLINK_T1_HW_TX_BYTES,
	RCLINK_T1_HW_RX_PKTS,
	RCLINK_T1_HW_RX_BYTES,
	RCLINK_T1_HW_RETX_PKTS,
	RCLINK_T1_HW_NAK_RX,
	RCLINK_T1_HW_NAK_TX,
	RCLINK_T1_HW_RNR_RX,
	RCLINK_T1_HW_RNR_TX,
	RCLINK_T1_HW_TIMEOUTS,
	RCLINK_T1_HW_RX_DUP,
	RCLINK_T1_HW_RX_OOS,
	RCLINK_T1_HW_ACK_TX,
	RCLINK_T1_HW_ACK_RX,
	RCLINK_T1_HW_NUM
};

/* The board's global TYPE1 drop counters, in register order */
enum rclink_t1_dev_stat {
	RCLINK_T1_DEV_RX_DROP_DA,
	RCLINK_T1_DEV_RX_DROP_CSUM,
	RCLINK_T1_DEV_RX_DROP_ICRC,
	RCLINK_T1_DEV_RX_DROP_PKEY,
	RCLINK_T1_DEV_RX_DROP_BADQP,
	RCLINK_T1_DEV_RX_DROP_QP_OFF,
	RCLINK_T1_DEV_RX_DROP_NOBUF,
	RCLINK_T1_DEV_RX_DROP_MALFORMED,
	RCLINK_T1_DEV_TX_DROP_QP_OFF,
	RCLINK_T1_DEV_BAD_WQE,
	RCLINK_T1_DEV_RX_DROP_FORMAT,
	RCLINK_T1_DEV_T2_TX_PKTS,
	RCLINK_T1_DEV_T2_TX_DROP,
	RCLINK_T1_DEV_T2_RX_PKTS,
	RCLINK_T1_DEV_T2_RX_DROP_NOGROUP,
	RCLINK_T1_DEV_T2_RX_DROP_NOBUF,
	RCLINK_T1_DEV_T2_RX_DROP_MALFORMED,
	RCLINK_T1_DEV_T2_RX_LOST,
	RCLINK_T1_DEV_T2_RX_DROP_OLD,
	RCLINK_T1_DEV_NUM
};

/* The board's RDMA WRITE and READ counters, in netlink attribute order */
enum rclink_t1_rdma_stat {
	RCLINK_T1_RDMA_TX_WRITE,
	RCLINK_T1_RDMA_TX_READ,
	RCLINK_T1_RDMA_RX_WRITE,
	RCLINK_T1_RDMA_RX_READ,
	RCLINK_T1_RDMA_RX_BAD_KEY,
	RCLINK_T1_RDMA_RX_ACCESS,
	RCLINK_T1_RDMA_RX_BOUNDS,
	RCLINK_T1_RDMA_RX_SILENT,
	RCLINK_T1_RDMA_REM_ERR,
	RCLINK_T1_RDMA_TIMEOUT,
	RCLINK_T1_RDMA_RX_LATE,
	RCLINK_T1_RDMA_RX_IMM_DROP,
	RCLINK_T1_RDMA_NUM
};

/* A snapshot of a board for dev-get */
struct rclink_t1_dev_info {
	struct rclink_t1_dev_cfg cfg;
	u32 max_msg;
	u64 stats[RCLINK_T1_DEV_NUM];
	u32 absent;			/* bit i: stats[i] not counted */
	u64 ost_free;			/* DMAQ_T1_OST_FREE */
	u64 dfx;			/* DMAQ_DFX */
	u64 t2_ost_free;		/* DMAQ_T2_OST_FREE */
	u64 t2_crd;			/* DMAQ_T2_CRD */
	u64 cnp_merged;			/* DMAQ_T1_CNP_MERGED */
	bool cnp_merged_absent;		/* not counted */
	u64 rdma[RCLINK_T1_RDMA_NUM];	/* DMAQ_RDMA_* */
	bool rdma_absent;		/* no registration table */
	u64 ctx_db_drop;		/* DMAQ_CTX_DB_DROP */
	bool ctx_db_drop_absent;	/* no user contexts */
	u64 dma_bm_drop;		/* SHIM_DMA_BM_DROP */
	struct rclink_cbfc_info cbfc;	/* cbfc mode only */
};

/* A snapshot of a QP for qp-get */
struct rclink_t1_qp_info {
	struct rclink_t1_qp_cfg cfg;	/* sq_psn/rq_psn: the registers now */
	enum rclink_qp_state state;
	bool bound;
	struct rclink_owner user;
	struct rclink_t1_qp_stats stats;
	u64 hw[RCLINK_T1_HW_NUM];
	u32 hw_absent;			/* bit i: hw[i] not counted */
	u64 ecn_rx;			/* DMAQ_QPS_ECN_RX */
	u64 cnp_rx;			/* DMAQ_QPS_CNP_RX */
	bool ecn_rx_absent, cnp_rx_absent;	/* not counted */
	u64 cc;				/* TX_CC_BYTE_CNT_MEM */
	struct rclink_t1_qp_cc cc_state;	/* the CC loop (rclink_cc.c) */
};

/* Limits the requests are checked against */
u32 rclink_t1_psn_mask(struct rclink_dev *rdev);
u32 rclink_t1_bank_mask(struct rclink_dev *rdev);

struct rclink_dev *rclink_t1_dev_next(unsigned long *index);
void rclink_t1_dev_info(struct rclink_dev *rdev,
			struct rclink_t1_dev_info *info);
int rclink_t1_dev_set(struct rclink_dev *rdev,
		      const struct rclink_t1_dev_cfg *cfg, u32 given,
		      struct netlink_ext_ack *extack);
u64 rclink_t1_qp_rate(struct rclink_dev *rdev,
		      const struct rclink_t1_qp_cfg *cfg);

/* TYPE2 groups: rclink mcast show / set */
struct rclink_t2_group_info {
	u8 mac[ETH_ALEN];		/* TYPE2_DA_n */
	bool join;
	bool bound;
	struct rclink_owner user;
	struct rclink_t1_qp_stats stats;
};

enum {
	RCLINK_T2_F_MAC		= BIT(0),
	RCLINK_T2_F_JOIN	= BIT(1),
	RCLINK_T2_F_OWNER	= BIT(2),
};

int rclink_t2_group_info(struct rclink_dev *rdev, u32 group,
			 struct rclink_t2_group_info *info);
int rclink_t2_group_set(struct rclink_dev *rdev, u32 group, const u8 *mac,
			bool join, const struct rclink_owner *user, u32 given,
			struct netlink_ext_ack *extack);

int rclink_t1_qp_add(struct rclink_dev *rdev, u32 qpn,
		     const struct rclink_t1_qp_cfg *cfg,
		     const struct rclink_owner *user, u32 given,
		     struct netlink_ext_ack *extack);
int rclink_t1_qp_set(struct rclink_dev *rdev, u32 qpn,
		     const struct rclink_t1_qp_cfg *cfg, u32 given,
		     struct netlink_ext_ack *extack);
int rclink_t1_qp_del(struct rclink_dev *rdev, u32 qpn,
		     struct netlink_ext_ack *extack);
void rclink_t1_qp_flushed(struct rclink_dev *rdev, u32 qpn);
int rclink_t1_qp_info(struct rclink_dev *rdev, u32 qpn,
		      struct rclink_t1_qp_info *info);
bool rclink_t1_qp_next(struct rclink_dev *rdev, u32 *qpn);

#endif /* _RCLINK_QP_H_ */
