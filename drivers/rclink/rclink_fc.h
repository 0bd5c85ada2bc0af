/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: the board's flow control, CBFC (rclink_cbfc.c) or PFC
 * (rclink_pfc.c), chosen by the devlink param flow_control.
 */
#ifndef _RCLINK_FC_H_
#define _RCLINK_FC_H_

#include <linux/dcbnl.h>
#include <linux/types.h>

#include <rclink_hw.h>

#include "../../uapi/linux/rclink_nl.h"

struct netlink_ext_ack;
struct rclink_dev;
struct rclink_t1_dev_cfg;

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
	bool rx_buf_absent;		/* not seen by the shim */
	u64 rx_drop[RCLINK_CBFC_VCS];	/* SHIM_CBFC_RX_DROP(n) */
	bool rx_drop_absent;		/* not counted */
	u64 tx_blocked[RCLINK_CBFC_VCS];	/* SHIM_CBFC_TX_BLOCKED(n) */
	u64 upd_tx;			/* SHIM_CBFC_UPD_TX */
	u64 upd_rx;			/* SHIM_CBFC_UPD_RX */
	u64 recovered;			/* SHIM_CBFC_RECOVERED */
	bool recovered_absent;		/* not counted */
	u64 resync;			/* SHIM_CBFC_RESYNC */
	u64 mac_ctrl_drop;		/* SHIM_MAC_CTRL_DROP */
};

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

/*
 * rclink_pfc.c: PFC in the MAC and the IP (rclink_dev.pfc_en, set by
 * dcbnl); __rclink_pfc_apply() with rclink_t1.lock held
 */
#define RCLINK_PFC_PRIOS	IEEE_8021QAZ_MAX_TCS
void __rclink_pfc_apply(struct rclink_dev *rdev);
void rclink_pfc_apply(struct rclink_dev *rdev);
void rclink_pfc_frames(struct rclink_dev *rdev, u64 *tx, u64 *rx);

#endif /* _RCLINK_FC_H_ */
