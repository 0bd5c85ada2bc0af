/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/rclink.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_RCLINK_GEN_H
#define _LINUX_RCLINK_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/rclink_nl.h>
#include <linux/rclink_dev.h>
#include <linux/rclink_dev.h>

/* Common nested types */
extern const struct nla_policy rclink_bank_nl_policy[RCLINK_A_BANK_VC + 1];

extern const struct nla_policy rclink_dev_get_nl_policy[RCLINK_A_DEV_NAME + 1];

extern const struct nla_policy rclink_dev_set_nl_policy[RCLINK_A_DEV_BANK + 1];

extern const struct nla_policy rclink_qp_new_nl_policy[RCLINK_A_QP_OWNER_NETNS_FD + 1];

extern const struct nla_policy rclink_qp_set_nl_policy[RCLINK_A_QP_RATE + 1];

extern const struct nla_policy rclink_qp_get_nl_policy[RCLINK_A_QP_QPN + 1];

extern const struct nla_policy rclink_qp_del_nl_policy[RCLINK_A_QP_QPN + 1];

extern const struct nla_policy rclink_mcast_get_nl_policy[RCLINK_A_MCAST_GROUP + 1];

extern const struct nla_policy rclink_mcast_set_nl_policy[RCLINK_A_MCAST_OWNER_NETNS_FD + 1];

extern const struct nla_policy rclink_mr_get_nl_policy[RCLINK_A_MR_KEY + 1];

extern const struct nla_policy rclink_ctx_get_nl_policy[RCLINK_A_CTX_ID + 1];

/* Ops table for rclink */
extern const struct genl_ops rclink_nl_ops[10];

int rclink_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int rclink_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_qp_new_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_qp_set_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_qp_get_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int rclink_nl_qp_del_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_mcast_get_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_mcast_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);
int rclink_nl_mcast_set_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_mr_get_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_mr_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int rclink_nl_ctx_get_doit(struct sk_buff *skb, struct genl_info *info);
int rclink_nl_ctx_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	RCLINK_NLGRP_EVENTS,
};

/* tools/net/gen-nl.sh: for the hand-written family (genetlink-legacy) */
extern const struct genl_multicast_group rclink_nl_mcgrps[RCLINK_NLGRP_EVENTS + 1];

#endif /* _LINUX_RCLINK_GEN_H */
