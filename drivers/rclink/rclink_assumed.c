// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the register fields whose place rclink assumed (Documentation/
 * driver.rst, "Assumed registers").  The IP's documents name these
 * functions without an address or without bits; the contract marks them
 * "assumed" and include/rclink_hw.h lists them (RCLINK_ASSUMED_FIELDS).
 *
 * At probe each field is written with its bits inverted, read back and
 * restored.  A field that does not hold what was written is missing: the
 * IP placed it elsewhere or has no such register.  The driver then keeps
 * the board (TYPE3 needs none of them) but disables what needs the field,
 * says so in the kernel log and refuses the settings that would use it.
 */

#include <linux/bitfield.h>
#include <linux/netlink.h>
#include <linux/seq_file.h>

#include "rclink.h"

static const struct {
	const char *name;
	u32 reg;
	u64 mask;
} rclink_asm_fields[RCLINK_ASM_NUM] = {
#define RCLINK_ASM_DESC(r, f, n) \
	[RCLINK_ASM_##r##_##f] = { n, RCLINK_##r, RCLINK_##r##_##f },
	RCLINK_ASSUMED_FIELDS(RCLINK_ASM_DESC)
#undef RCLINK_ASM_DESC
};

#define ASM(r, f)	BIT(RCLINK_ASM_##r##_##f)

/* What TYPE1 cannot do without: its enable, timer, RX key and CC window */
#define RCLINK_ASM_NEEDS_T1	(ASM(RDMA_EN, TYPE1_EN) |		\
				 ASM(RETRY_TIMER_CFG, RETRY_TIMER) |	\
				 ASM(RX_CLASS_CFG, MAC_TYPE1) |		\
				 ASM(CC_CFG, CC_WINDOW))

/*
 * The features that need assumed fields.  A feature is off when one of
 * the fields it needs is missing.
 */
static const struct {
	const char *name;
	u32 needs;
} rclink_feats[RCLINK_FEAT_NUM] = {
	[RCLINK_FEAT_TYPE1] = {
		"type1",
		RCLINK_ASM_NEEDS_T1,
	},
	[RCLINK_FEAT_TYPE2] = {
		"type2",
		RCLINK_ASM_NEEDS_T1 | ASM(RDMA_EN, TYPE2_EN) |
		ASM(RX_CLASS_CFG, TYPE2_UDP_PORT) |
		ASM(RX_CLASS_CFG, MAC_TYPE2) | ASM(TYPE2_SPEED, LENGTH_THR) |
		ASM(RC_MISC_CFG, MULTI_CREDIT_CTRL_EN),
	},
	[RCLINK_FEAT_GEN2] = {
		"format gen2",
		ASM(AFH_CFG_EN, AFH_GEN2_16B_EN),
	},
	[RCLINK_FEAT_LITE] = {
		"format lite",
		ASM(AFH_CFG_EN, AFH_LITE_EN),
	},
	[RCLINK_FEAT_CBFC] = {
		"flow control cbfc",
		ASM(AFH_CFG_EN, RX_TYPE2_CBFC_EN),
	},
	[RCLINK_FEAT_RNR_LIMIT] = {
		"rnr_retry_cnt",
		ASM(RETRY_TIMER_CFG, RNR_RETRY_CNT_THR),
	},
	[RCLINK_FEAT_ACK_TS] = {
		"ack_timestamp",
		ASM(RC_MISC_CFG, TX_ACK_TIME_EN),
	},
	[RCLINK_FEAT_BANK_RR] = {
		"bank_rr",
		ASM(RC_MISC_CFG, TX_BANK_RR_EN),
	},
	[RCLINK_FEAT_NO_ICRC] = {
		"icrc off",
		ASM(RC_MISC_CFG, TYPE1_REMOVE_ICRC_EN),
	},
	[RCLINK_FEAT_CNP_MERGE] = {
		"cnp_merge",
		ASM(RC_MISC_CFG, CNP_MERGE_EN) | ASM(CNP_CFG, TIMER_THR_US),
	},
	[RCLINK_FEAT_NOCNP] = {
		"nocnp (cc_algorithm dcqcn)",
		ASM(CNP_CFG, NOCNP_INTERVAL) | ASM(CNP_CFG, NOCNP_EN),
	},
};

static_assert(RCLINK_ASM_NUM <= 32);
/* feat_off is the dev-get attribute hw-disabled as it is */
#define RCLINK_FEAT_UAPI(f, u)	static_assert(BIT(RCLINK_FEAT_##f) == \
					      RCLINK_HW_FEATURE_##u)
RCLINK_FEAT_UAPI(TYPE1, TYPE1);
RCLINK_FEAT_UAPI(TYPE2, TYPE2);
RCLINK_FEAT_UAPI(GEN2, GEN2);
RCLINK_FEAT_UAPI(LITE, LITE);
RCLINK_FEAT_UAPI(CBFC, CBFC);
RCLINK_FEAT_UAPI(RNR_LIMIT, RNR_RETRY_CNT);
RCLINK_FEAT_UAPI(ACK_TS, ACK_TIMESTAMP);
RCLINK_FEAT_UAPI(BANK_RR, BANK_RR);
RCLINK_FEAT_UAPI(NO_ICRC, ICRC_OFF);
RCLINK_FEAT_UAPI(CNP_MERGE, CNP_MERGE);
RCLINK_FEAT_UAPI(NOCNP, NOCNP);
static_assert(RCLINK_FEAT_NUM == 11);

bool rclink_feat_ok(struct rclink_dev *rdev, enum rclink_feat feat)
{
	return !(rdev->assumed.feat_off & BIT(feat));
}

/* 0, or -EOPNOTSUPP with the feature's message when it is disabled */
int rclink_feat_need(struct rclink_dev *rdev, enum rclink_feat feat,
		     struct netlink_ext_ack *extack)
{
	if (rclink_feat_ok(rdev, feat))
		return 0;
	switch (feat) {
	case RCLINK_FEAT_TYPE1:
		NL_SET_ERR_MSG(extack,
			       "TYPE1 is disabled: the IP lacks a register it needs (assumed place, see the kernel log)");
		break;
	case RCLINK_FEAT_TYPE2:
		NL_SET_ERR_MSG(extack,
			       "TYPE2 is disabled: the IP lacks a register it needs (assumed place, see the kernel log)");
		break;
	case RCLINK_FEAT_GEN2:
		NL_SET_ERR_MSG(extack,
			       "format: gen2 is disabled, the IP lacks AFH_CFG_EN.afh_gen2_16b_en (assumed place)");
		break;
	case RCLINK_FEAT_LITE:
		NL_SET_ERR_MSG(extack,
			       "format: lite is disabled, the IP lacks AFH_CFG_EN.afh_lite_en (assumed place)");
		break;
	case RCLINK_FEAT_CBFC:
		NL_SET_ERR_MSG(extack,
			       "flow control: cbfc is disabled, the IP lacks AFH_CFG_EN.rx_type2_cbfc_en (assumed place)");
		break;
	case RCLINK_FEAT_RNR_LIMIT:
		NL_SET_ERR_MSG(extack,
			       "rnr_retry_cnt: only 0 (forever), the IP lacks RETRY_TIMER_CFG.rnr_retry_cnt_thr (assumed place)");
		break;
	case RCLINK_FEAT_ACK_TS:
		NL_SET_ERR_MSG(extack,
			       "ack_timestamp: only 0, the IP lacks RC_MISC_CFG.tx_ack_time_en (assumed place)");
		break;
	case RCLINK_FEAT_BANK_RR:
		NL_SET_ERR_MSG(extack,
			       "bank_rr: only 0, the IP lacks RC_MISC_CFG.tx_bank_rr_en (assumed place)");
		break;
	case RCLINK_FEAT_NO_ICRC:
		NL_SET_ERR_MSG(extack,
			       "icrc: only 1, the IP lacks RC_MISC_CFG.type1_remove_icrc_en (assumed place)");
		break;
	case RCLINK_FEAT_CNP_MERGE:
		NL_SET_ERR_MSG(extack,
			       "cnp_merge, cnp_window: only 0, the IP lacks RC_MISC_CFG.cnp_merge_en or CNP_CFG.timer_thr_us (assumed place)");
		break;
	case RCLINK_FEAT_NOCNP:
		NL_SET_ERR_MSG(extack,
			       "nocnp, cc_algorithm dcqcn: disabled, the IP lacks CNP_CFG.nocnp_en or nocnp_interval (assumed place)");
		break;
	default:
		NL_SET_ERR_MSG(extack,
			       "disabled: the IP lacks a register it needs");
		break;
	}
	return -EOPNOTSUPP;
}

/* The disabled features needing field @i, for the log */
static void rclink_asm_lost(u32 i, char *buf, size_t len)
{
	size_t n = 0;
	u32 f;

	buf[0] = '\0';
	for (f = 0; f < RCLINK_FEAT_NUM; f++)
		if (rclink_feats[f].needs & BIT(i))
			n += scnprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				       rclink_feats[f].name);
	if (!n)
		scnprintf(buf, len, "nothing (its reset value is relied on)");
}

/*
 * Read back every assumed field: write it inverted, read, restore.  Runs
 * right after the reset, before anything configured the IP.  Never fails
 * the probe but for a board that is gone.
 */
int rclink_assumed_probe(struct rclink_dev *rdev)
{
	u32 missing = 0, off = 0, i, f;
	char lost[128];
	u64 val, rb;

	for (i = 0; i < RCLINK_ASM_NUM; i++) {
		u32 reg = rclink_asm_fields[i].reg;
		u64 mask = rclink_asm_fields[i].mask;

		val = rclink_rd64(rdev, reg);
		rclink_wr64(rdev, reg, val ^ mask);
		rb = rclink_rd64(rdev, reg);
		rclink_wr64(rdev, reg, val);
		if (rclink_gone(rdev))
			return -ENODEV;
		if (((rb ^ val) & mask) != mask)
			missing |= BIT(i);
	}
	for (f = 0; f < RCLINK_FEAT_NUM; f++)
		if (rclink_feats[f].needs & missing)
			off |= BIT(f);
	rdev->assumed.missing = missing;
	rdev->assumed.feat_off = off;

	for (i = 0; i < RCLINK_ASM_NUM; i++) {
		if (!(missing & BIT(i)))
			continue;
		rclink_asm_lost(i, lost, sizeof(lost));
		dev_warn(rdev->dev,
			 "IP lacks %s (BAR0 0x%04x mask 0x%llx, a place rclink assumed): disabled: %s\n",
			 rclink_asm_fields[i].name, rclink_asm_fields[i].reg,
			 rclink_asm_fields[i].mask, lost);
	}
	if (missing)
		dev_warn(rdev->dev,
			 "%u of %u assumed register fields missing: confirm their place against the IP vendor's register map\n",
			 hweight32(missing), RCLINK_ASM_NUM);
	return 0;
}

/* debugfs "assumed": one line per field, then the disabled features */
void rclink_assumed_show(struct seq_file *s, struct rclink_dev *rdev)
{
	bool any = false;
	u32 i;

	for (i = 0; i < RCLINK_ASM_NUM; i++)
		seq_printf(s, "%s %s\n", rclink_asm_fields[i].name,
			   rdev->assumed.missing & BIT(i) ? "missing" : "ok");
	seq_puts(s, "disabled:");
	for (i = 0; i < RCLINK_FEAT_NUM; i++) {
		if (rdev->assumed.feat_off & BIT(i)) {
			seq_printf(s, "%s%s", any ? ", " : " ",
				   rclink_feats[i].name);
			any = true;
		}
	}
	seq_puts(s, any ? "\n" : " none\n");
}
