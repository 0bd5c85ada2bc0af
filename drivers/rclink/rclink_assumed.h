/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: the register fields whose place rclink assumed, read back at
 * bring-up, and the features disabled without them (rclink_assumed.c).
 */
#ifndef _RCLINK_ASSUMED_H_
#define _RCLINK_ASSUMED_H_

#include <linux/types.h>

#include <rclink_hw.h>

struct netlink_ext_ack;
struct rclink_dev;
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

/*
 * Assumed fields the IP lacks (BIT(enum rclink_asm)), and so the features
 * disabled (BIT(enum rclink_feat)); written at every bring-up, before
 * anything reads them
 */
struct rclink_assumed {
	u32 missing;
	u32 feat_off;
};

int rclink_assumed_probe(struct rclink_dev *rdev);
bool rclink_feat_ok(struct rclink_dev *rdev, enum rclink_feat feat);
int rclink_feat_need(struct rclink_dev *rdev, enum rclink_feat feat,
		     struct netlink_ext_ack *extack);
void rclink_assumed_show(struct seq_file *s, struct rclink_dev *rdev);

#endif /* _RCLINK_ASSUMED_H_ */
