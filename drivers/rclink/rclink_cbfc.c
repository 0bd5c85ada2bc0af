// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the board's flow control, CBFC or PFC (seed 000: "CBFC and PFC cannot
 * be used at the same time"), chosen by the devlink param flow_control at probe
 * and reload (Documentation/flow-control.rst).
 *
 *  - pfc, the default: CBFC off as in the seed's "register configuration in PFC
 *    mode" step 2 (AFH_CFG_EN.stop_cbfc_en 1, the seven flow enables 0) and the
 *    MAC side reset (SHIM_CBFC_CTRL.reset).  The TYPE1 banks, ACK/CNP and TYPE2
 *    carry one 802.1Q priority (`rclink dev set ... vlan_pri`) in the VC fields
 *    PFC shares with CBFC; PFC itself is dcbnl's (rclink_dcb.c).
 *  - cbfc: the seed's "register configuration in CBFC mode": stop_cbfc_en 0,
 *    the seven flows enabled, each on a VC of its own (ACK/CNP on VC 4, TYPE2
 *    on 5, TYPE3 on 6; TYPE1 bank n on the VC of its Traffic Class, tc[7:2]:
 *    "the upper 6 bits of the TC field carry the VCID", by default VC n; seed:
 *    "one VCID cannot be given to different flows"), credit_uf_limit, the TYPE1
 *    dynamic limit, software_ctrl_cbfc_vc_status, the RX PFC enables 0 and the
 *    TX ones 1 ("backpressure in the RX direction"); the MAC side
 *    ("initialisation phase") gets every VC's credit size and limit
 *    (SHIM_CBFC_VC_CFG, SHIM_CBFC_CTRL.load).  PFC stays off (dcbnl refuses
 *    it).
 *
 * The CBFC settings are `rclink dev set` configuration: rclink_qp.c calls
 * in under rclink_t1.lock.  They start from the defaults (256-byte
 * credits, 64 per VC, credit_uf_limit 1, TYPE1 dynamic limit on, every VC
 * on) at probe and devlink reload, and are kept across resets.
 */

#include <linux/bitfield.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/netlink.h>
#include <linux/string.h>

#include "rclink.h"
#include "rclink_qp.h"

#define RCLINK_CBFC_DEF_SIZE	256
#define RCLINK_CBFC_DEF_LIMIT	64
#define RCLINK_CBFC_DEF_UF	1
/* L2 to RH headers, ICRC and FCS of a TYPE1/TYPE2 frame, at most */
#define RCLINK_CBFC_HDR_MAX	128
/* SHIM_CBFC_CTRL.load of every VC (MAC2TX_CBFC_RST_I[7:0] in one beat) */
#define RCLINK_CBFC_LOAD_ALL	RCLINK_SHIM_CBFC_CTRL_LOAD
#define RCLINK_CBFC_VC_ALL	RCLINK_AFH_CFG_EN_SOFTWARE_CTRL_CBFC_VC_STATUS

const char * const rclink_fc_names[RCLINK_FLOW_CONTROL_MAX + 1] = {
	[RCLINK_FLOW_CONTROL_PFC]	= "pfc",
	[RCLINK_FLOW_CONTROL_CBFC]	= "cbfc",
};

/* SHIM_CBFC_VC_CFG.credit_size: the seed's CREDIT_SIZE choices */
static const u16 rclink_cbfc_sizes[] = { 32, 64, 128, 256, 1024, 2048 };

/* The dev-set flag of each credit_uf_limit class */
static const u32 rclink_cbfc_uf_given[RCLINK_FC_UF_NUM] = {
	[RCLINK_FC_UF_TYPE1]	= RCLINK_DEV_F_CBFC_UF_TYPE1,
	[RCLINK_FC_UF_TYPE2]	= RCLINK_DEV_F_CBFC_UF_TYPE2,
	[RCLINK_FC_UF_TYPE3]	= RCLINK_DEV_F_CBFC_UF_TYPE3,
	[RCLINK_FC_UF_ACK]	= RCLINK_DEV_F_CBFC_UF_ACK,
};

#define RCLINK_CBFC_AFH_EN					\
	(RCLINK_AFH_CFG_EN_RX_TYPE1_REQ_BANK0_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_RX_TYPE1_REQ_BANK1_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_RX_TYPE1_REQ_BANK2_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_RX_TYPE1_REQ_BANK3_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_RX_TYPE1_ACK_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_RX_TYPE2_CBFC_EN |			\
	 RCLINK_AFH_CFG_EN_RX_TYPE3_CBFC_EN)

/* The VC (CBFC) or priority (PFC) fields the driver sets in PFC mode */
#define RCLINK_CBFC_AFH_PRI					\
	(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK0_CBFC |		\
	 RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK1_CBFC |		\
	 RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK2_CBFC |		\
	 RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK3_CBFC |		\
	 RCLINK_AFH_CFG_EN_TYPE1_ACK_CBFC |			\
	 RCLINK_AFH_CFG_EN_TYPE2_CBFC)

#define RCLINK_CBFC_AFH_LIMITS					\
	(RCLINK_AFH_CFG_EN_TYPE1_CREDIT_UF_LIMIT_CBFC |		\
	 RCLINK_AFH_CFG_EN_TYPE2_CREDIT_UF_LIMIT_CBFC |		\
	 RCLINK_AFH_CFG_EN_TYPE3_CREDIT_UF_LIMIT_CBFC |		\
	 RCLINK_AFH_CFG_EN_ACK_CREDIT_UF_LIMIT_CBFC |		\
	 RCLINK_AFH_CFG_EN_TYPE1_DYN_UF_LIMIT_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_TYPE2_DYN_UF_LIMIT_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_TYPE3_DYN_UF_LIMIT_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_ACK_DYN_UF_LIMIT_CBFC_EN |		\
	 RCLINK_AFH_CFG_EN_SOFTWARE_CTRL_CBFC_VC_STATUS)

#define RCLINK_CBFC_RX_PFC_EN					\
	(RCLINK_XON_THR_RDMA_RX_TYPE1_REQ_BANK0_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_RX_TYPE1_REQ_BANK1_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_RX_TYPE1_REQ_BANK2_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_RX_TYPE1_REQ_BANK3_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_RX_ACK_PFC_EN |			\
	 RCLINK_XON_THR_RDMA_RX_TYPE2_PFC_EN |			\
	 RCLINK_XON_THR_RDMA_RX_NON_RDMA_PFC_EN)

#define RCLINK_CBFC_TX_PFC_EN					\
	(RCLINK_XON_THR_RDMA_TX_TYPE1_REQ_BANK0_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_TX_TYPE1_REQ_BANK1_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_TX_TYPE1_REQ_BANK2_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_TX_TYPE1_REQ_BANK3_PFC_EN |	\
	 RCLINK_XON_THR_RDMA_TX_ACK_PFC_EN |			\
	 RCLINK_XON_THR_RDMA_TX_TYPE2_PFC_EN |			\
	 RCLINK_XON_THR_RDMA_TX_NON_RDMA_PFC_EN)

/* The seven flows, in the uAPI's (and DFX_CBFC_CF_O's) order */
#define RCLINK_FC_FLOW(vc_field, reg, cf_field, rx, tx)			\
	{ .vc = RCLINK_AFH_CFG_EN_##vc_field,				\
	  .cf_reg = RCLINK_DMAQ_DFX_CBFC_##reg,				\
	  .cf = RCLINK_DMAQ_DFX_CBFC_##reg##_##cf_field,		\
	  .pfc_rx = RCLINK_XON_THR_RDMA_RX_##rx##_PFC_EN,		\
	  .pfc_tx = RCLINK_XON_THR_RDMA_TX_##tx##_PFC_EN }

const struct rclink_fc_flow rclink_fc_flows[RCLINK_CBFC_FLOWS] = {
	[RCLINK_FC_FLOW_TYPE1_BANK0] = RCLINK_FC_FLOW(TYPE1_REQ_BANK0_CBFC, CF0,
			TYPE1_BANK0, TYPE1_REQ_BANK0, TYPE1_REQ_BANK0),
	[RCLINK_FC_FLOW_TYPE1_BANK1] = RCLINK_FC_FLOW(TYPE1_REQ_BANK1_CBFC, CF0,
			TYPE1_BANK1, TYPE1_REQ_BANK1, TYPE1_REQ_BANK1),
	[RCLINK_FC_FLOW_TYPE1_BANK2] = RCLINK_FC_FLOW(TYPE1_REQ_BANK2_CBFC, CF0,
			TYPE1_BANK2, TYPE1_REQ_BANK2, TYPE1_REQ_BANK2),
	[RCLINK_FC_FLOW_TYPE1_BANK3] = RCLINK_FC_FLOW(TYPE1_REQ_BANK3_CBFC, CF0,
			TYPE1_BANK3, TYPE1_REQ_BANK3, TYPE1_REQ_BANK3),
	[RCLINK_FC_FLOW_ACKCNP] = RCLINK_FC_FLOW(TYPE1_ACK_CBFC, CF1, ACKCNP,
			ACK, ACK),
	[RCLINK_FC_FLOW_TYPE2] = RCLINK_FC_FLOW(TYPE2_CBFC, CF1, TYPE2, TYPE2,
			TYPE2),
	[RCLINK_FC_FLOW_TYPE3] = RCLINK_FC_FLOW(TYPE3_CBFC, CF1, TYPE3,
			NON_RDMA, NON_RDMA),
};

/* The flows of the uAPI are the contract's, in DMAQ_DFX_CBFC_CF0/1 order */
static_assert(RCLINK_FC_FLOW_TYPE1_BANK3 == 3);
static_assert(RCLINK_FC_FLOW_TYPE1_BANK3 + 1 == RCLINK_T1_BANKS);
static_assert(RCLINK_FC_FLOW_ACKCNP == RCLINK_CBFC_FLOW_ACK);
static_assert(RCLINK_FC_FLOW_TYPE2 == RCLINK_CBFC_FLOW_TYPE2);
static_assert(RCLINK_FC_FLOW_TYPE3 == RCLINK_CBFC_FLOW_TYPE3);
static_assert(RCLINK_CBFC_FLOWS <= RCLINK_CBFC_VCS);

int rclink_fc_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rclink_fc_names); i++)
		if (!strcmp(name, rclink_fc_names[i]))
			return i;
	return -EINVAL;
}

/* SHIM_CBFC_VC_CFG.credit_size of a credit size in bytes, or -EINVAL */
int rclink_cbfc_size_code(u32 bytes)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rclink_cbfc_sizes); i++)
		if (bytes == rclink_cbfc_sizes[i])
			return i;
	return -EINVAL;
}

/* A TYPE1 bank's VC in cbfc mode: tc[7:2] (checked to be a VC) */
static u8 rclink_cbfc_bank_vc(u8 tc)
{
	return FIELD_GET(RCLINK_TC_VC, tc);
}

/*
 * AFH_CFG_EN's flow control part of @afh: the fields of the other
 * features (format, VLAN tag select, RNR enables) are kept.
 */
u64 rclink_cbfc_afh(struct rclink_dev *rdev, u64 afh)
{
	const struct rclink_cbfc *cb = &rdev->cbfc;
	const struct rclink_t1 *t1 = &rdev->t1;
	u8 pri = t1->vlan_pri;

	lockdep_assert_held(&rdev->t1.lock);

	if (!rclink_cbfc_on(rdev)) {
		/* TYPE3's priority (type3_cbfc) is left as it is */
		afh &= ~(RCLINK_AFH_CFG_EN_STOP_CBFC_EN | RCLINK_CBFC_AFH_EN |
			 RCLINK_CBFC_AFH_PRI);
		return afh | RCLINK_AFH_CFG_EN_STOP_CBFC_EN |
		       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK0_CBFC, pri) |
		       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK1_CBFC, pri) |
		       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK2_CBFC, pri) |
		       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK3_CBFC, pri) |
		       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_ACK_CBFC, pri) |
		       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE2_CBFC, pri);
	}

	/*
	 * ACK/CNP, TYPE2 and TYPE3 on the VC of their flow number, each TYPE1
	 * bank on the VC its Traffic Class carries; dyn only for TYPE1 (seed)
	 */
	afh &= ~(RCLINK_AFH_CFG_EN_STOP_CBFC_EN | RCLINK_CBFC_AFH_EN |
		 RCLINK_CBFC_AFH_PRI | RCLINK_AFH_CFG_EN_TYPE3_CBFC |
		 RCLINK_CBFC_AFH_LIMITS);
	afh |= RCLINK_CBFC_AFH_EN |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK0_CBFC,
			  rclink_cbfc_bank_vc(t1->bank_tc[0])) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK1_CBFC,
			  rclink_cbfc_bank_vc(t1->bank_tc[1])) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK2_CBFC,
			  rclink_cbfc_bank_vc(t1->bank_tc[2])) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK3_CBFC,
			  rclink_cbfc_bank_vc(t1->bank_tc[3])) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_ACK_CBFC,
			  RCLINK_FC_FLOW_ACKCNP) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE2_CBFC, RCLINK_FC_FLOW_TYPE2) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE3_CBFC, RCLINK_FC_FLOW_TYPE3) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE1_CREDIT_UF_LIMIT_CBFC,
			  cb->uf[RCLINK_FC_UF_TYPE1]) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE2_CREDIT_UF_LIMIT_CBFC,
			  cb->uf[RCLINK_FC_UF_TYPE2]) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_TYPE3_CREDIT_UF_LIMIT_CBFC,
			  cb->uf[RCLINK_FC_UF_TYPE3]) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_ACK_CREDIT_UF_LIMIT_CBFC,
			  cb->uf[RCLINK_FC_UF_ACK]) |
	       FIELD_PREP(RCLINK_AFH_CFG_EN_SOFTWARE_CTRL_CBFC_VC_STATUS,
			  cb->vc_status);
	if (cb->dyn)
		afh |= RCLINK_AFH_CFG_EN_TYPE1_DYN_UF_LIMIT_CBFC_EN;
	return afh;
}

/*
 * CBFC with AFH_GEN1 without TC: the VLAN tag carries the VC, so it is
 * on even without a VID: priority-tagged frames, VID 0 (seed 000,
 * "format notes": "with CBFC on and an AFH_GEN1 header
 * without a TC field, VLAN must be forced on").
 */
bool rclink_cbfc_vlan_forced(struct rclink_dev *rdev)
{
	const struct rclink_t1 *t1 = &rdev->t1;

	return rclink_cbfc_on(rdev) && t1->format == RCLINK_FORMAT_GEN1 &&
	       !t1->vlan_id;
}

/*
 * The credits a VC needs before its flow may send at all: credit_uf_limit
 * maximum frames ("configuration constraints": "CL must exceed the
 * credits the lower limit stands for, or the VC stays blocked").  A maximum
 * frame is the larger of a TYPE1 and a TYPE2 packet (TYPE1/2_PKT_LEN)
 * plus RCLINK_CBFC_HDR_MAX bytes of headers for the TYPE1, ACK and TYPE2
 * classes (the IP's one maximum frame), the largest TYPE3 frame for TYPE3.
 */
static u32 rclink_cbfc_need(struct rclink_dev *rdev, enum rclink_fc_uf c,
			    u32 uf, u32 size)
{
	const struct rclink_params *p = &rdev->params;
	u32 frame = max(p->type1_pkt_len, p->type2_pkt_len) +
		    RCLINK_CBFC_HDR_MAX;

	if (c == RCLINK_FC_UF_TYPE3)
		frame = max_t(u32, frame, RCLINK_MD_TX_MAX_FRAME);
	return uf * DIV_ROUND_UP(frame, size);
}

/*
 * The TYPE1 banks' Traffic Classes a dev-set request leaves in cbfc mode:
 * tc[7:2] of each must be a VC (0..7) that neither ACK/CNP, TYPE2, TYPE3
 * nor another bank has (seed: "two banks cannot map to the same VC").
 */
static int rclink_cbfc_check_banks(const struct rclink_t1 *t1,
				   const struct rclink_t1_dev_cfg *cfg,
				   struct netlink_ext_ack *extack)
{
	const unsigned long others = BIT(RCLINK_FC_FLOW_ACKCNP) |
				     BIT(RCLINK_FC_FLOW_TYPE2) |
				     BIT(RCLINK_FC_FLOW_TYPE3);
	unsigned long used = 0;
	unsigned int n;
	u8 tc, vc;

	for (n = 0; n < RCLINK_T1_BANKS; n++) {
		tc = cfg->bank_given & BIT(n) ? cfg->bank_tc[n] :
		     t1->bank_tc[n];
		vc = rclink_cbfc_bank_vc(tc);
		if (vc >= RCLINK_CBFC_VCS) {
			NL_SET_ERR_MSG(extack,
				       "bank tc: in CBFC mode tc[7:2] is the bank's VC, 0..7: tc must be 0..31");
			return -ERANGE;
		}
		if (BIT(vc) & others) {
			NL_SET_ERR_MSG(extack,
				       "bank tc: VC 4, 5 and 6 (tc 16..27) carry ACK/CNP, TYPE2 and TYPE3: a bank takes VC 0..3 or 7");
			return -EINVAL;
		}
		if (used & BIT(vc)) {
			NL_SET_ERR_MSG(extack,
				       "bank tc: two banks on one VC (tc[7:2]): every bank needs a VC of its own");
			return -EINVAL;
		}
		used |= BIT(vc);
	}
	return 0;
}

/*
 * Check a dev-set request against the mode and the resulting settings,
 * before anything is changed.
 */
int rclink_cbfc_check(struct rclink_dev *rdev,
		      const struct rclink_t1_dev_cfg *cfg, u32 given,
		      struct netlink_ext_ack *extack)
{
	const struct rclink_cbfc *cb = &rdev->cbfc;
	struct rclink_t1 *t1 = &rdev->t1;
	u32 size, limit, uf;
	unsigned int c;
	u8 format;
	int err;

	lockdep_assert_held(&t1->lock);

	if (!rclink_cbfc_on(rdev)) {
		if (given & RCLINK_DEV_F_CBFC) {
			NL_SET_ERR_MSG(extack,
				       "CBFC settings need devlink param flow_control cbfc");
			return -EOPNOTSUPP;
		}
		return 0;
	}

	if (given & RCLINK_DEV_F_TC) {
		NL_SET_ERR_MSG(extack,
			       "tc: in CBFC mode each bank's tc[7:2] is its VC and no two banks share a VC: set them per bank (bank N tc T)");
		return -EINVAL;
	}
	if (given & RCLINK_DEV_F_BANK_TC) {
		err = rclink_cbfc_check_banks(t1, cfg, extack);
		if (err)
			return err;
	}
	if ((given & RCLINK_DEV_F_ACK_TC) &&
	    FIELD_GET(RCLINK_TC_VC, cfg->ack_tc) != RCLINK_FC_FLOW_ACKCNP) {
		NL_SET_ERR_MSG(extack,
			       "ack_tc: in CBFC mode tc[7:2] is the ACK/CNP VC, 4: ack_tc must be 16..19");
		return -EINVAL;
	}

	if (given & RCLINK_DEV_F_VLAN_PRI) {
		NL_SET_ERR_MSG(extack,
			       "vlan_pri: in CBFC mode every flow has its own VC: TYPE1 bank n on the VC of its tc[7:2], ACK/CNP 4, TYPE2 5, TYPE3 6");
		return -EOPNOTSUPP;
	}
	format = given & RCLINK_DEV_F_FORMAT ? cfg->format : t1->format;
	if ((given & RCLINK_DEV_F_VLAN_ID) && !cfg->vlan_id &&
	    format == RCLINK_FORMAT_GEN1) {
		NL_SET_ERR_MSG(extack,
			       "vlan off: in CBFC mode AFH_GEN1 without TC carries the VC in the VLAN priority: the VLAN stays on (VID 0)");
		return -EINVAL;
	}

	size = given & RCLINK_DEV_F_CBFC_SIZE ? cfg->cbfc_size : cb->size;
	limit = given & RCLINK_DEV_F_CBFC_LIMIT ? cfg->cbfc_limit : cb->limit;
	for (c = 0; c < RCLINK_FC_UF_NUM; c++) {
		uf = given & rclink_cbfc_uf_given[c] ? cfg->cbfc_uf[c] :
		     cb->uf[c];
		if (limit >= rclink_cbfc_need(rdev, c, uf, size))
			continue;
		switch (c) {
		case RCLINK_FC_UF_TYPE3:
			NL_SET_ERR_MSG(extack,
				       "cbfc_limit: below cbfc_uf type3 x ceil(4096 / cbfc_size) credits: the TYPE3 VC would block for ever");
			break;
		default:
			NL_SET_ERR_MSG(extack,
				       "cbfc_limit: below cbfc_uf x ceil((pkt_len + 128) / cbfc_size) credits of a class: its VC would block for ever");
			break;
		}
		return -ERANGE;
	}
	return 0;
}

/*
 * Take the CBFC settings of a checked dev-set request; true when the credit
 * size or limit changed, so that the VCs must be loaded again
 * (rclink_cbfc_load(), after AFH_CFG_EN is written).
 */
bool rclink_cbfc_set(struct rclink_dev *rdev,
		     const struct rclink_t1_dev_cfg *cfg, u32 given)
{
	struct rclink_cbfc *cb = &rdev->cbfc;
	bool load = false;
	unsigned int c;

	lockdep_assert_held(&rdev->t1.lock);

	if ((given & RCLINK_DEV_F_CBFC_SIZE) && cfg->cbfc_size != cb->size) {
		cb->size = cfg->cbfc_size;
		load = true;
	}
	if ((given & RCLINK_DEV_F_CBFC_LIMIT) && cfg->cbfc_limit != cb->limit) {
		cb->limit = cfg->cbfc_limit;
		load = true;
	}
	for (c = 0; c < RCLINK_FC_UF_NUM; c++)
		if (given & rclink_cbfc_uf_given[c])
			cb->uf[c] = cfg->cbfc_uf[c];
	if (given & RCLINK_DEV_F_CBFC_DYN)
		cb->dyn = cfg->cbfc_dyn;
	if (given & RCLINK_DEV_F_VC_STATUS)
		cb->vc_status = cfg->vc_status;
	return load;
}

/*
 * Every VC's configuration (initialisation phase), then SHIM_CBFC_CTRL = @ctrl
 */
static void rclink_cbfc_write_vcs(struct rclink_dev *rdev, u64 ctrl)
{
	const struct rclink_cbfc *cb = &rdev->cbfc;
	unsigned int v;
	u64 val;

	/* PKT_OVHD_LEN 0: a frame's credits are those of its length */
	val = FIELD_PREP(RCLINK_SHIM_CBFC_VC_CFG_CREDIT_LIMIT, cb->limit) |
	      FIELD_PREP(RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE,
			 rclink_cbfc_size_code(cb->size));
	for (v = 0; v < RCLINK_SHIM_CBFC_VC_CFG_COUNT; v++)
		rclink_wr64(rdev, RCLINK_SHIM_CBFC_VC_CFG(v), val);
	rclink_wr64(rdev, RCLINK_SHIM_CBFC_CTRL, ctrl);
}

/*
 * A new credit size or limit: every VC takes it at once (MAC2TX_CBFC_RST_I
 * of all VCs in one beat), its available credits become the limit.
 */
void rclink_cbfc_load(struct rclink_dev *rdev)
{
	lockdep_assert_held(&rdev->t1.lock);
	rclink_cbfc_write_vcs(rdev, RCLINK_CBFC_LOAD_ALL);
}

/*
 * The defaults and the board's flow control outside AFH_CFG_EN (which
 * rclink_cbfc_afh() gives the step-1 writer): at rclink_t1_init().
 */
void rclink_cbfc_init(struct rclink_dev *rdev, bool fresh)
{
	struct rclink_cbfc *cb = &rdev->cbfc;
	unsigned int c;
	u64 val;

	lockdep_assert_held(&rdev->t1.lock);

	/* else the settings of before the reset */
	if (fresh) {
		cb->size = RCLINK_CBFC_DEF_SIZE;
		cb->limit = RCLINK_CBFC_DEF_LIMIT;
		for (c = 0; c < RCLINK_FC_UF_NUM; c++)
			cb->uf[c] = RCLINK_CBFC_DEF_UF;
		cb->dyn = true;
		cb->vc_status = FIELD_MAX(RCLINK_CBFC_VC_ALL);
	}

	if (!rclink_cbfc_on(rdev)) {
		/* MAC2TX_CBFC_RESET_I: no VC loaded, nothing sent for CBFC */
		rclink_wr64(rdev, RCLINK_SHIM_CBFC_CTRL,
			    RCLINK_SHIM_CBFC_CTRL_RESET);
		return;
	}

	/*
	 * TYPE1 bank n on VC n, ACK/CNP and TYPE2 on the VCs of their flows:
	 * the Traffic Class carries the flow's VC (seed: with CBFC on, the
	 * upper 6 bits of the TC field are the VCID), which is how a receiver
	 * beside the IP tells a TYPE1 frame's VC (the RTL's CBFC receive
	 * totals)
	 */
	if (fresh) {
		for (c = 0; c < RCLINK_T1_BANKS; c++)
			rdev->t1.bank_tc[c] = FIELD_PREP(RCLINK_TC_VC, c);
		rdev->t1.ack_tc = FIELD_PREP(RCLINK_TC_VC,
					     RCLINK_FC_FLOW_ACKCNP);
		rdev->t1.tc = FIELD_PREP(RCLINK_TC_VC, RCLINK_FC_FLOW_TYPE2);
	}

	/* PFC off: dcbnl applies the cleared enables at netdev registration */
	if (READ_ONCE(rdev->pfc_en)) {
		dev_info(rdev->dev, "PFC priorities 0x%02x off: flow_control is cbfc\n",
			 READ_ONCE(rdev->pfc_en));
		WRITE_ONCE(rdev->pfc_en, 0);
	}

	/*
	 * RX PFC must be 0 ("register configuration in CBFC mode"); the TX
	 * enables 1, as CBFC's RX backpressure to the MAC shares the PFC
	 * request port ("backpressure in the RX direction")
	 */
	val = rclink_rd64(rdev, RCLINK_XON_THR_RDMA);
	val &= ~(RCLINK_CBFC_RX_PFC_EN | RCLINK_XON_THR_RDMA_TYPE1_FREE_BUSY);
	rclink_wr64(rdev, RCLINK_XON_THR_RDMA, val | RCLINK_CBFC_TX_PFC_EN);

	/* a clean state, then every VC with the same configuration */
	rclink_cbfc_write_vcs(rdev, RCLINK_SHIM_CBFC_CTRL_RESET |
			      RCLINK_CBFC_LOAD_ALL);
	dev_info(rdev->dev, "flow control: CBFC, %u credits of %u bytes per VC\n",
		 cb->limit, cb->size);
}

/* The mode and the settings for dev-get */
void rclink_cbfc_get(struct rclink_dev *rdev, struct rclink_t1_dev_cfg *cfg)
{
	const struct rclink_cbfc *cb = &rdev->cbfc;

	lockdep_assert_held(&rdev->t1.lock);

	cfg->flow_control = rdev->cfg.flow_control;
	cfg->vlan_forced = rclink_cbfc_vlan_forced(rdev);
	cfg->cbfc_size = cb->size;
	cfg->cbfc_limit = cb->limit;
	memcpy(cfg->cbfc_uf, cb->uf, sizeof(cfg->cbfc_uf));
	cfg->cbfc_dyn = cb->dyn;
	cfg->vc_status = cb->vc_status;
}

/* The board's CBFC state: each flow's VC and credits, each VC's counters */
void rclink_cbfc_info(struct rclink_dev *rdev, struct rclink_cbfc_info *info)
{
	u64 val, afh, cf0, cf1;
	unsigned int v, f;

	lockdep_assert_held(&rdev->t1.lock);

	afh = rclink_rd64(rdev, RCLINK_AFH_CFG_EN);
	cf0 = rclink_rd64(rdev, RCLINK_DMAQ_DFX_CBFC_CF0);
	cf1 = rclink_rd64(rdev, RCLINK_DMAQ_DFX_CBFC_CF1);
	for (f = 0; f < RCLINK_CBFC_FLOWS; f++) {
		const struct rclink_fc_flow *fl = &rclink_fc_flows[f];

		info->vc[f] = rclink_fc_field(afh, fl->vc);
		info->credits[f] = rclink_fc_field(fl->cf_reg ==
						   RCLINK_DMAQ_DFX_CBFC_CF0 ?
						   cf0 : cf1, fl->cf);
	}

	val = rclink_rd64(rdev, RCLINK_SHIM_CBFC_STATUS);
	info->vc_on = FIELD_GET(RCLINK_SHIM_CBFC_STATUS_VC_ON, val);
	info->loaded = FIELD_GET(RCLINK_SHIM_CBFC_STATUS_LOADED, val);
	for (v = 0; v < RCLINK_CBFC_VCS; v++) {
		val = rclink_rd64(rdev, RCLINK_SHIM_CBFC_RX_BUF(v));
		info->rx_buf[v] =
			FIELD_GET(RCLINK_SHIM_CBFC_RX_BUF_CREDITS, val);
		info->rx_drop[v] =
			rclink_rd64(rdev, RCLINK_SHIM_CBFC_RX_DROP(v));
		info->tx_blocked[v] =
			rclink_rd64(rdev, RCLINK_SHIM_CBFC_TX_BLOCKED(v));
	}
	info->upd_tx = rclink_rd64(rdev, RCLINK_SHIM_CBFC_UPD_TX);
	info->upd_rx = rclink_rd64(rdev, RCLINK_SHIM_CBFC_UPD_RX);
	info->recovered = rclink_rd64(rdev, RCLINK_SHIM_CBFC_RECOVERED);
	/* the IP's receive buffer, its level and counters: absent where not
	 * counted
	 */
	info->rx_buf_absent = !rclink_counted(rdev, RCLINK_SHIM_CBFC_RX_BUF(0));
	info->rx_drop_absent = !rclink_counted(rdev,
					       RCLINK_SHIM_CBFC_RX_DROP(0));
	info->recovered_absent = !rclink_counted(rdev,
						 RCLINK_SHIM_CBFC_RECOVERED);
	info->resync = rclink_rd64(rdev, RCLINK_SHIM_CBFC_RESYNC);
	info->mac_ctrl_drop = rclink_rd64(rdev, RCLINK_SHIM_MAC_CTRL_DROP);
}
