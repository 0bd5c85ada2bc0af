// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/rclink.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "rclink_nl_gen.h"
#include "rclink_compat.h"

#include <uapi/linux/rclink_nl.h>
#include <linux/rclink_dev.h>
#include <linux/rclink_dev.h>

/* Integer value ranges */
static struct netlink_range_validation rclink_a_dev_cnp_window_us_range = {
	.max	= RCLINK_CNP_WINDOW_MAX,
};

static struct netlink_range_validation rclink_a_dev_cbfc_limit_range = {
	.min	= 1ULL,
	.max	= RCLINK_CBFC_LIMIT_MAX,
};

static struct netlink_range_validation rclink_a_qp_speed_range = {
	.min	= 1ULL,
	.max	= RCLINK_SPEED_MAX,
};

/* Common nested types */
const struct nla_policy rclink_bank_nl_policy[RCLINK_A_BANK_VC + 1] = {
	[RCLINK_A_BANK_ID] = NLA_POLICY_MAX(NLA_U8, RCLINK_BANK_MAX),
	[RCLINK_A_BANK_TC] = { .type = NLA_U8, },
	[RCLINK_A_BANK_VC] = { .type = NLA_U8, },
};

/* RCLINK_CMD_DEV_GET - do */
const struct nla_policy rclink_dev_get_nl_policy[RCLINK_A_DEV_NAME + 1] = {
	[RCLINK_A_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_DEV_NAME] = { .type = NLA_NUL_STRING, },
};

/* RCLINK_CMD_DEV_SET - do */
const struct nla_policy rclink_dev_set_nl_policy[RCLINK_A_DEV_BANK + 1] = {
	[RCLINK_A_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_DEV_MAC] = NLA_POLICY_EXACT_LEN(6),
	[RCLINK_A_DEV_IP] = { .type = NLA_U32, },
	[RCLINK_A_DEV_TTL] = NLA_POLICY_MIN(NLA_U8, 1),
	[RCLINK_A_DEV_IP_ID] = { .type = NLA_U16, },
	[RCLINK_A_DEV_TC] = { .type = NLA_U8, },
	[RCLINK_A_DEV_ACK_TC] = { .type = NLA_U8, },
	[RCLINK_A_DEV_FORMAT] = NLA_POLICY_MAX(NLA_U8, 4),
	[RCLINK_A_DEV_RETRY_TIMER] = NLA_POLICY_RANGE(NLA_U32, 1, RCLINK_RETRY_TIMER_MAX),
	[RCLINK_A_DEV_RETRY_CNT] = NLA_POLICY_RANGE(NLA_U8, 1, RCLINK_RETRY_CNT_MAX),
	[RCLINK_A_DEV_RNR_RETRY_CNT] = NLA_POLICY_MAX(NLA_U8, RCLINK_RETRY_CNT_MAX),
	[RCLINK_A_DEV_ACK_TIMESTAMP] = NLA_POLICY_MAX(NLA_U8, 1),
	[RCLINK_A_DEV_ICRC] = NLA_POLICY_MAX(NLA_U8, 1),
	[RCLINK_A_DEV_VLAN_ID] = NLA_POLICY_MAX(NLA_U16, RCLINK_VLAN_ID_MAX),
	[RCLINK_A_DEV_VLAN_PRI] = NLA_POLICY_MAX(NLA_U8, RCLINK_VLAN_PRI_MAX),
	[RCLINK_A_DEV_CC_WINDOW] = { .type = NLA_U32, },
	[RCLINK_A_DEV_BANK_RR] = NLA_POLICY_MAX(NLA_U8, 1),
	[RCLINK_A_DEV_T2_RATE] = { .type = NLA_U64, },
	[RCLINK_A_DEV_CNP_MERGE] = NLA_POLICY_MAX(NLA_U8, 1),
	[RCLINK_A_DEV_CNP_WINDOW_US] = NLA_POLICY_FULL_RANGE(NLA_U32, &rclink_a_dev_cnp_window_us_range),
	[RCLINK_A_DEV_NOCNP_US] = NLA_POLICY_MAX(NLA_U32, RCLINK_NOCNP_MAX),
	[RCLINK_A_DEV_CBFC_SIZE] = { .type = NLA_U32, },
	[RCLINK_A_DEV_CBFC_LIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &rclink_a_dev_cbfc_limit_range),
	[RCLINK_A_DEV_CBFC_UF_TYPE1] = NLA_POLICY_RANGE(NLA_U8, 1, RCLINK_CBFC_UF_MAX),
	[RCLINK_A_DEV_CBFC_UF_TYPE2] = NLA_POLICY_RANGE(NLA_U8, 1, RCLINK_CBFC_UF_MAX),
	[RCLINK_A_DEV_CBFC_UF_TYPE3] = NLA_POLICY_RANGE(NLA_U8, 1, RCLINK_CBFC_UF_MAX),
	[RCLINK_A_DEV_CBFC_UF_ACK] = NLA_POLICY_RANGE(NLA_U8, 1, RCLINK_CBFC_UF_MAX),
	[RCLINK_A_DEV_CBFC_DYN] = NLA_POLICY_MAX(NLA_U8, 1),
	[RCLINK_A_DEV_VC_STATUS] = { .type = NLA_U8, },
	[RCLINK_A_DEV_BANK] = NLA_POLICY_NESTED(rclink_bank_nl_policy),
};

/* RCLINK_CMD_QP_NEW - do */
const struct nla_policy rclink_qp_new_nl_policy[RCLINK_A_QP_OWNER_NETNS_FD + 1] = {
	[RCLINK_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_QP_QPN] = { .type = NLA_U32, },
	[RCLINK_A_QP_DQPN] = { .type = NLA_U32, },
	[RCLINK_A_QP_DIP] = { .type = NLA_U32, },
	[RCLINK_A_QP_DMAC] = NLA_POLICY_EXACT_LEN(6),
	[RCLINK_A_QP_SPORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[RCLINK_A_QP_PKEY] = { .type = NLA_U8, },
	[RCLINK_A_QP_RX_PKEY] = { .type = NLA_U8, },
	[RCLINK_A_QP_SQ_PSN] = { .type = NLA_U32, },
	[RCLINK_A_QP_RQ_PSN] = { .type = NLA_U32, },
	[RCLINK_A_QP_SPEED] = NLA_POLICY_FULL_RANGE(NLA_U32, &rclink_a_qp_speed_range),
	[RCLINK_A_QP_RATE] = { .type = NLA_U64, },
	[RCLINK_A_QP_OWNER_UID] = { .type = NLA_U32, },
	[RCLINK_A_QP_OWNER_NETNS_FD] = { .type = NLA_U32, },
};

/* RCLINK_CMD_QP_SET - do */
const struct nla_policy rclink_qp_set_nl_policy[RCLINK_A_QP_RATE + 1] = {
	[RCLINK_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_QP_QPN] = { .type = NLA_U32, },
	[RCLINK_A_QP_DQPN] = { .type = NLA_U32, },
	[RCLINK_A_QP_DIP] = { .type = NLA_U32, },
	[RCLINK_A_QP_DMAC] = NLA_POLICY_EXACT_LEN(6),
	[RCLINK_A_QP_SPORT] = NLA_POLICY_MIN(NLA_U16, 1),
	[RCLINK_A_QP_PKEY] = { .type = NLA_U8, },
	[RCLINK_A_QP_RX_PKEY] = { .type = NLA_U8, },
	[RCLINK_A_QP_SQ_PSN] = { .type = NLA_U32, },
	[RCLINK_A_QP_RQ_PSN] = { .type = NLA_U32, },
	[RCLINK_A_QP_SPEED] = NLA_POLICY_FULL_RANGE(NLA_U32, &rclink_a_qp_speed_range),
	[RCLINK_A_QP_RATE] = { .type = NLA_U64, },
	[RCLINK_A_QP_STATE] = NLA_POLICY_MAX(NLA_U8, 2),
};

/* RCLINK_CMD_QP_GET - do */
const struct nla_policy rclink_qp_get_nl_policy[RCLINK_A_QP_QPN + 1] = {
	[RCLINK_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_QP_QPN] = { .type = NLA_U32, },
};

/* RCLINK_CMD_QP_DEL - do */
const struct nla_policy rclink_qp_del_nl_policy[RCLINK_A_QP_QPN + 1] = {
	[RCLINK_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_QP_QPN] = { .type = NLA_U32, },
};

/* RCLINK_CMD_MCAST_GET - do */
const struct nla_policy rclink_mcast_get_nl_policy[RCLINK_A_MCAST_GROUP + 1] = {
	[RCLINK_A_MCAST_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_MCAST_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_MCAST_GROUP] = NLA_POLICY_MAX(NLA_U8, RCLINK_GROUP_MAX),
};

/* RCLINK_CMD_MCAST_SET - do */
const struct nla_policy rclink_mcast_set_nl_policy[RCLINK_A_MCAST_OWNER_NETNS_FD + 1] = {
	[RCLINK_A_MCAST_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_MCAST_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_MCAST_GROUP] = NLA_POLICY_MAX(NLA_U8, RCLINK_GROUP_MAX),
	[RCLINK_A_MCAST_DMAC] = NLA_POLICY_EXACT_LEN(6),
	[RCLINK_A_MCAST_JOIN] = NLA_POLICY_MAX(NLA_U8, 1),
	[RCLINK_A_MCAST_OWNER_UID] = { .type = NLA_U32, },
	[RCLINK_A_MCAST_OWNER_NETNS_FD] = { .type = NLA_U32, },
};

/* RCLINK_CMD_MR_GET - do */
const struct nla_policy rclink_mr_get_nl_policy[RCLINK_A_MR_KEY + 1] = {
	[RCLINK_A_MR_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_MR_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_MR_KEY] = { .type = NLA_U32, },
};

/* RCLINK_CMD_CTX_GET - do */
const struct nla_policy rclink_ctx_get_nl_policy[RCLINK_A_CTX_ID + 1] = {
	[RCLINK_A_CTX_DEV_INDEX] = { .type = NLA_U32, },
	[RCLINK_A_CTX_DEV_NAME] = { .type = NLA_NUL_STRING, },
	[RCLINK_A_CTX_ID] = { .type = NLA_U32, },
};

/* Ops table for rclink */
const struct genl_ops rclink_nl_ops[10] = {
	{
		.cmd		= RCLINK_CMD_DEV_GET,
		.doit		= rclink_nl_dev_get_doit,
		.dumpit		= rclink_nl_dev_get_dumpit,
		.policy		= rclink_dev_get_nl_policy,
		.maxattr	= RCLINK_A_DEV_NAME,
	},
	{
		.cmd		= RCLINK_CMD_DEV_SET,
		.doit		= rclink_nl_dev_set_doit,
		.policy		= rclink_dev_set_nl_policy,
		.maxattr	= RCLINK_A_DEV_BANK,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= RCLINK_CMD_QP_NEW,
		.doit		= rclink_nl_qp_new_doit,
		.policy		= rclink_qp_new_nl_policy,
		.maxattr	= RCLINK_A_QP_OWNER_NETNS_FD,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= RCLINK_CMD_QP_SET,
		.doit		= rclink_nl_qp_set_doit,
		.policy		= rclink_qp_set_nl_policy,
		.maxattr	= RCLINK_A_QP_RATE,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= RCLINK_CMD_QP_GET,
		.doit		= rclink_nl_qp_get_doit,
		.dumpit		= rclink_nl_qp_get_dumpit,
		.policy		= rclink_qp_get_nl_policy,
		.maxattr	= RCLINK_A_QP_QPN,
	},
	{
		.cmd		= RCLINK_CMD_QP_DEL,
		.doit		= rclink_nl_qp_del_doit,
		.policy		= rclink_qp_del_nl_policy,
		.maxattr	= RCLINK_A_QP_QPN,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= RCLINK_CMD_MCAST_GET,
		.doit		= rclink_nl_mcast_get_doit,
		.dumpit		= rclink_nl_mcast_get_dumpit,
		.policy		= rclink_mcast_get_nl_policy,
		.maxattr	= RCLINK_A_MCAST_GROUP,
	},
	{
		.cmd		= RCLINK_CMD_MCAST_SET,
		.doit		= rclink_nl_mcast_set_doit,
		.policy		= rclink_mcast_set_nl_policy,
		.maxattr	= RCLINK_A_MCAST_OWNER_NETNS_FD,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= RCLINK_CMD_MR_GET,
		.doit		= rclink_nl_mr_get_doit,
		.dumpit		= rclink_nl_mr_get_dumpit,
		.policy		= rclink_mr_get_nl_policy,
		.maxattr	= RCLINK_A_MR_KEY,
	},
	{
		.cmd		= RCLINK_CMD_CTX_GET,
		.doit		= rclink_nl_ctx_get_doit,
		.dumpit		= rclink_nl_ctx_get_dumpit,
		.policy		= rclink_ctx_get_nl_policy,
		.maxattr	= RCLINK_A_CTX_ID,
	},
};

const struct genl_multicast_group rclink_nl_mcgrps[] = {
	[RCLINK_NLGRP_EVENTS] = { "events", .flags = RCLINK_GENL_MCAST_ADMIN, },
};
