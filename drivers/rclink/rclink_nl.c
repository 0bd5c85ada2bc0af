// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the generic netlink family "rclink", the TYPE1 control plane
 * (Documentation/netlink/specs/rclink.yaml; the policies and the ops table
 * are generated from it into rclink_nl_gen.c).  Every operation holds
 * rclink_t1_devs_lock, so the board it works on cannot be removed under it.
 * Every refusal says why in an extended ack message that names the
 * attribute as the tool (Documentation/uapi/rclink-tool.rst) calls it.
 */

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/log2.h>
#include <linux/cred.h>
#include <linux/netlink.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "rclink.h"
#include "rclink_compat.h"
#include "rclink_qp.h"
#include "rclink_ctx.h"
#include "rclink_nl_gen.h"

#define RCLINK_NL_SPORT_BASE	49152	/* default UDP source port + qpn */

static struct genl_family rclink_nl_family;

/* ---- requests ------------------------------------------------------------ */

/*
 * The board a request names: dev-index, else dev-name (index and name in
 * the dev set: the same attribute types in every set)
 */
static struct rclink_dev *rclink_nl_dev(struct nlattr **attrs,
					struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev;
	struct nlattr *attr;

	lockdep_assert_held(&rclink_t1_devs_lock);

	attr = attrs[RCLINK_A_DEV_INDEX];
	if (attr) {
		rdev = nla_get_u32(attr) > INT_MAX ? NULL :
		       rclink_t1_dev_get(nla_get_u32(attr));
	} else {
		attr = attrs[RCLINK_A_DEV_NAME];
		if (!attr) {
			NL_SET_ERR_MSG(extack, "dev: a board is required");
			return ERR_PTR(-EINVAL);
		}
		rdev = rclink_t1_dev_by_name(nla_data(attr));
	}
	if (!rdev) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "dev: no such board");
		return ERR_PTR(-ENODEV);
	}
	return rdev;
}

/* The QP a request names: qpn below the board's QP_NUM */
static int rclink_nl_qpn(struct rclink_dev *rdev, struct nlattr **attrs,
			 u32 *qpn, struct netlink_ext_ack *extack)
{
	struct nlattr *attr = attrs[RCLINK_A_QP_QPN];

	if (!attr) {
		NL_SET_ERR_MSG(extack, "qpn: a QP number is required");
		return -EINVAL;
	}
	*qpn = nla_get_u32(attr);
	if (*qpn >= rdev->params.qp_num) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "qpn: at or above the board's qp_num");
		return -ERANGE;
	}
	return 0;
}

/* The user namespace of a request's socket: owner-uid is one of its uids */
static struct user_namespace *rclink_nl_userns(const struct sk_buff *skb)
{
	return sk_user_ns(NETLINK_CB(skb).sk);
}

/* Where the qp and mcast attribute sets keep a QP's or group's owner */
struct rclink_nl_owner_attrs {
	int uid;
	int netns_fd;
	int netns;
	int pad;
};

static const struct rclink_nl_owner_attrs rclink_nl_qp_owner = {
	.uid = RCLINK_A_QP_OWNER_UID,
	.netns_fd = RCLINK_A_QP_OWNER_NETNS_FD,
	.netns = RCLINK_A_QP_OWNER_NETNS,
	.pad = RCLINK_A_QP_PAD,
};

static const struct rclink_nl_owner_attrs rclink_nl_mcast_owner = {
	.uid = RCLINK_A_MCAST_OWNER_UID,
	.netns_fd = RCLINK_A_MCAST_OWNER_NETNS_FD,
	.netns = RCLINK_A_MCAST_OWNER_NETNS,
	.pad = RCLINK_A_MCAST_PAD,
};

/*
 * The owner of qp-new and mcast-set: owner-uid, else the requester's euid,
 * in the network namespace of owner-netns-fd, else the requester's.
 * *given (if not NULL): one of the two attributes came.
 */
static int rclink_nl_owner(struct sk_buff *skb, struct genl_info *info,
			   const struct rclink_nl_owner_attrs *oa,
			   struct rclink_owner *user, bool *given)
{
	struct nlattr **attrs = info->attrs;
	struct nlattr *attr;
	struct net *net;

	if (given)
		*given = attrs[oa->uid] || attrs[oa->netns_fd];
	user->uid = current_euid();
	user->netns = genl_info_net(info)->net_cookie;

	attr = attrs[oa->uid];
	if (attr) {
		user->uid = make_kuid(rclink_nl_userns(skb),
				      nla_get_u32(attr));
		if (!uid_valid(user->uid)) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "owner: not a uid of the requester's user namespace");
			return -EINVAL;
		}
	}
	attr = attrs[oa->netns_fd];
	if (attr) {
		net = get_net_ns_by_fd(nla_get_u32(attr));
		if (IS_ERR(net)) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "netns: not a network namespace file");
			return PTR_ERR(net);
		}
		user->netns = net->net_cookie;
		put_net(net);
	}
	return 0;
}

static int rclink_nl_put_owner(struct sk_buff *skb, struct user_namespace *ns,
			       const struct rclink_nl_owner_attrs *oa,
			       const struct rclink_owner *user)
{
	if (nla_put_u32(skb, oa->uid, from_kuid_munged(ns, user->uid)) ||
	    nla_put_u64_64bit(skb, oa->netns, user->netns, oa->pad))
		return -EMSGSIZE;
	return 0;
}

/*
 * Plain request fields: a netlink attribute copied into a member of the
 * request's configuration struct, its RCLINK_*_F_* bit noted.  The member's
 * C type is named in the table and checked at build time; the attribute's
 * type and range are the generated policy's.
 */
enum rclink_nl_kind {
	RCLINK_NL_KIND_u8,
	RCLINK_NL_KIND_bool,
	RCLINK_NL_KIND_u16,
	RCLINK_NL_KIND_u32,
	RCLINK_NL_KIND_u64,
};

struct rclink_nl_field {
	u16 attr;
	u8 kind;
	u16 off;
	u32 flag;
};

#define RCLINK_NL_FIELD(type, a, member, ctype, f) {			\
	.attr = (a),							\
	.kind = RCLINK_NL_KIND_##ctype,					\
	.off = offsetof(type, member) +					\
	       BUILD_BUG_ON_ZERO(!__same_type(((type *)NULL)->member,	\
					      ctype)),			\
	.flag = (f),							\
}

static void rclink_nl_fields(struct nlattr **attrs,
			     const struct rclink_nl_field *f, unsigned int n,
			     void *cfg, u32 *given)
{
	const struct nlattr *attr;
	void *dst;

	for (; n; n--, f++) {
		attr = attrs[f->attr];
		if (!attr)
			continue;
		dst = cfg + f->off;
		switch (f->kind) {
		case RCLINK_NL_KIND_u8:
			*(u8 *)dst = nla_get_u8(attr);
			break;
		case RCLINK_NL_KIND_bool:
			*(bool *)dst = nla_get_u8(attr);
			break;
		case RCLINK_NL_KIND_u16:
			*(u16 *)dst = nla_get_u16(attr);
			break;
		case RCLINK_NL_KIND_u32:
			*(u32 *)dst = nla_get_u32(attr);
			break;
		case RCLINK_NL_KIND_u64:
			*(u64 *)dst = nla_get_u64(attr);
			break;
		}
		*given |= f->flag;
	}
}

#define RCLINK_QP_FIELD(a, member, ctype) \
	RCLINK_NL_FIELD(struct rclink_t1_qp_cfg, RCLINK_A_QP_##a, member, \
			ctype, RCLINK_QP_F_##a)

static const struct rclink_nl_field rclink_nl_qp_fields[] = {
	RCLINK_QP_FIELD(SPORT, sport, u16),
	RCLINK_QP_FIELD(PKEY, pkey, u8),
	RCLINK_QP_FIELD(RX_PKEY, rx_pkey, u8),
	RCLINK_QP_FIELD(SPEED, speed, u32),
};

/* A PSN of qp-new / qp-set; whether it fits EPSN_W bits (@mask) */
static bool rclink_nl_psn(const struct nlattr *attr, u32 mask, u32 *psn)
{
	*psn = nla_get_u32(attr);
	return !(*psn & ~mask);
}

/* The QP's peer: its QP number, IPv4 and MAC addresses */
static int rclink_nl_qp_peer(struct rclink_dev *rdev, u32 qpn,
			     struct nlattr **attrs,
			     struct rclink_t1_qp_cfg *cfg, u32 *given,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *attr;

	attr = attrs[RCLINK_A_QP_DQPN];
	if (attr) {
		cfg->dqpn = nla_get_u32(attr);
		if (cfg->dqpn > FIELD_MAX(RCLINK_RH_DEST_QP)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "dqpn: wider than the RH's DEST_QP");
			return -ERANGE;
		}
		if ((cfg->dqpn ^ qpn) & rclink_t1_bank_mask(rdev)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "dqpn: not in the bank of qpn (the low log2(TYPE1_VC_NUM) bits differ)");
			return -EINVAL;
		}
		*given |= RCLINK_QP_F_DQPN;
	}

	attr = attrs[RCLINK_A_QP_DIP];
	if (attr) {
		cfg->dip = nla_get_in_addr(attr);
		if (ipv4_is_zeronet(cfg->dip) || ipv4_is_multicast(cfg->dip) ||
		    ipv4_is_lbcast(cfg->dip)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "dip: not a unicast IPv4 address");
			return -EINVAL;
		}
		*given |= RCLINK_QP_F_DIP;
	}

	attr = attrs[RCLINK_A_QP_DMAC];
	if (attr) {
		ether_addr_copy(cfg->dmac, nla_data(attr));
		if (!is_valid_ether_addr(cfg->dmac)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "dmac: not a unicast MAC address");
			return -EINVAL;
		}
		*given |= RCLINK_QP_F_DMAC;
	}
	return 0;
}

/* The QP fields of qp-new and qp-set, checked against the board */
static int rclink_nl_qp_cfg(struct rclink_dev *rdev, u32 qpn,
			    struct nlattr **attrs, struct rclink_t1_qp_cfg *cfg,
			    u32 *given, struct netlink_ext_ack *extack)
{
	u32 psn_mask = rclink_t1_psn_mask(rdev);
	struct nlattr *attr;
	int err;

	err = rclink_nl_qp_peer(rdev, qpn, attrs, cfg, given, extack);
	if (err)
		return err;

	attr = attrs[RCLINK_A_QP_SQ_PSN];
	if (attr) {
		if (!rclink_nl_psn(attr, psn_mask, &cfg->sq_psn)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "sq_psn: wider than EPSN_W bits");
			return -ERANGE;
		}
		*given |= RCLINK_QP_F_SQ_PSN;
	}

	attr = attrs[RCLINK_A_QP_RQ_PSN];
	if (attr) {
		if (!rclink_nl_psn(attr, psn_mask, &cfg->rq_psn)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "rq_psn: wider than EPSN_W bits");
			return -ERANGE;
		}
		*given |= RCLINK_QP_F_RQ_PSN;
	}

	attr = attrs[RCLINK_A_QP_RATE];
	if (attr) {
		if (attrs[RCLINK_A_QP_SPEED]) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "rate: give rate or speed, not both");
			return -EINVAL;
		}
		cfg->rate = nla_get_u64(attr);
		*given |= RCLINK_QP_F_RATE;
	}

	rclink_nl_fields(attrs, rclink_nl_qp_fields,
			 ARRAY_SIZE(rclink_nl_qp_fields), cfg, given);
	return 0;
}

/* ---- replies ------------------------------------------------------------- */

static int rclink_nl_put_dev(struct sk_buff *skb, struct rclink_dev *rdev)
{
	char handle[sizeof(RCLINK_DEV_HANDLE_BUS) + 32];

	snprintf(handle, sizeof(handle), RCLINK_DEV_HANDLE_BUS "%s",
		 pci_name(rdev->pdev));
	if (nla_put_u32(skb, RCLINK_A_DEV_INDEX, rdev->t1.index) ||
	    nla_put_string(skb, RCLINK_A_DEV_NAME, rdev->t1.name) ||
	    nla_put_string(skb, RCLINK_A_DEV_HANDLE, handle))
		return -EMSGSIZE;
	return 0;
}

/*
 * The DFX levels (seed 000, DFX interface) and the TYPE2 send state in the dev
 * stats nest
 */
static int rclink_nl_put_dfx(struct sk_buff *skb,
			     const struct rclink_t1_dev_info *info)
{
	static const struct {
		int attr;
		u64 bit;
	} bits[] = {
		{ RCLINK_A_DEV_STATS_RX_IDLE, RCLINK_DMAQ_DFX_RX_IDLE },
		{ RCLINK_A_DEV_STATS_TX_IDLE, RCLINK_DMAQ_DFX_TX_IDLE },
		{ RCLINK_A_DEV_STATS_TX_WAIT_MAC_CRD,
		  RCLINK_DMAQ_DFX_TX_WAIT_MAC_CRD },
		{ RCLINK_A_DEV_STATS_TX_MAC_FREE, RCLINK_DMAQ_DFX_TX_MAC_FREE },
	};
	unsigned int i;

	if (nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_T1_OST_FREE,
			      info->ost_free, RCLINK_A_DEV_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_T2_OST_FREE,
			      info->t2_ost_free, RCLINK_A_DEV_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_T2_CRD,
			      info->t2_crd, RCLINK_A_DEV_STATS_PAD))
		return -EMSGSIZE;
	/* a counter the board does not count is absent, not 0 */
	if (!info->cnp_merged_absent &&
	    nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_CNP_MERGED,
			      info->cnp_merged, RCLINK_A_DEV_STATS_PAD))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (nla_put_u64_64bit(skb, bits[i].attr,
				      !!(info->dfx & bits[i].bit),
				      RCLINK_A_DEV_STATS_PAD))
			return -EMSGSIZE;
	for (i = 0; i < RCLINK_T1_RDMA_NUM && !info->rdma_absent; i++)
		if (nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_RDMA_TX_WRITE + i,
				      info->rdma[i], RCLINK_A_DEV_STATS_PAD))
			return -EMSGSIZE;
	if (!info->ctx_db_drop_absent &&
	    nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_CTX_DB_DROP,
			      info->ctx_db_drop, RCLINK_A_DEV_STATS_PAD))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_DMA_BM_DROP,
			      info->dma_bm_drop, RCLINK_A_DEV_STATS_PAD))
		return -EMSGSIZE;
	return 0;
}

/* The CBFC settings and, in cbfc-stats, the state of every flow and VC */
static int rclink_nl_put_cbfc(struct sk_buff *skb,
			      const struct rclink_t1_dev_info *info)
{
	const struct rclink_t1_dev_cfg *cfg = &info->cfg;
	const struct rclink_cbfc_info *cb = &info->cbfc;
	const struct {
		int attr;
		u64 val;
		bool absent;
	} cnt[] = {
		{ RCLINK_A_CBFC_STATS_UPD_TX, cb->upd_tx },
		{ RCLINK_A_CBFC_STATS_UPD_RX, cb->upd_rx },
		{ RCLINK_A_CBFC_STATS_RECOVERED, cb->recovered,
		  cb->recovered_absent },
		{ RCLINK_A_CBFC_STATS_RESYNC, cb->resync },
		{ RCLINK_A_CBFC_STATS_MAC_CTRL_DROP, cb->mac_ctrl_drop },
	};
	struct nlattr *nest, *one;
	unsigned int i;

	if (nla_put_u32(skb, RCLINK_A_DEV_CBFC_SIZE, cfg->cbfc_size) ||
	    nla_put_u32(skb, RCLINK_A_DEV_CBFC_LIMIT, cfg->cbfc_limit) ||
	    nla_put_u8(skb, RCLINK_A_DEV_CBFC_UF_TYPE1,
		       cfg->cbfc_uf[RCLINK_FC_UF_TYPE1]) ||
	    nla_put_u8(skb, RCLINK_A_DEV_CBFC_UF_TYPE2,
		       cfg->cbfc_uf[RCLINK_FC_UF_TYPE2]) ||
	    nla_put_u8(skb, RCLINK_A_DEV_CBFC_UF_TYPE3,
		       cfg->cbfc_uf[RCLINK_FC_UF_TYPE3]) ||
	    nla_put_u8(skb, RCLINK_A_DEV_CBFC_UF_ACK,
		       cfg->cbfc_uf[RCLINK_FC_UF_ACK]) ||
	    nla_put_u8(skb, RCLINK_A_DEV_CBFC_DYN, cfg->cbfc_dyn) ||
	    nla_put_u8(skb, RCLINK_A_DEV_VC_STATUS, cfg->vc_status))
		return -EMSGSIZE;

	nest = nla_nest_start(skb, RCLINK_A_DEV_CBFC_STATS);
	if (!nest)
		return -EMSGSIZE;
	/* a counter the board does not count is absent, not 0 */
	for (i = 0; i < ARRAY_SIZE(cnt); i++)
		if (!cnt[i].absent &&
		    nla_put_u64_64bit(skb, cnt[i].attr, cnt[i].val,
				      RCLINK_A_CBFC_STATS_PAD))
			return -EMSGSIZE;
	for (i = 0; i < RCLINK_CBFC_FLOWS; i++) {
		one = nla_nest_start(skb, RCLINK_A_CBFC_STATS_FLOW);
		if (!one ||
		    nla_put_u8(skb, RCLINK_A_CBFC_FLOW_ID, i) ||
		    nla_put_u8(skb, RCLINK_A_CBFC_FLOW_VC, cb->vc[i]) ||
		    nla_put_u32(skb, RCLINK_A_CBFC_FLOW_CREDITS,
				cb->credits[i]) ||
		    nla_put_u8(skb, RCLINK_A_CBFC_FLOW_ON,
			       !!(cb->vc_on & BIT(cb->vc[i]))))
			return -EMSGSIZE;
		nla_nest_end(skb, one);
	}
	for (i = 0; i < RCLINK_CBFC_VCS; i++) {
		one = nla_nest_start(skb, RCLINK_A_CBFC_STATS_VC);
		if (!one ||
		    nla_put_u8(skb, RCLINK_A_CBFC_VC_ID, i) ||
		    nla_put_u8(skb, RCLINK_A_CBFC_VC_LOADED,
			       !!(cb->loaded & BIT(i))) ||
		    nla_put_u8(skb, RCLINK_A_CBFC_VC_ON,
			       !!(cb->vc_on & BIT(i))) ||
		    (!cb->rx_buf_absent &&
		     nla_put_u32(skb, RCLINK_A_CBFC_VC_RX_BUF,
				 cb->rx_buf[i])) ||
		    (!cb->rx_drop_absent &&
		     nla_put_u64_64bit(skb, RCLINK_A_CBFC_VC_RX_DROP,
				       cb->rx_drop[i], RCLINK_A_CBFC_VC_PAD)) ||
		    nla_put_u64_64bit(skb, RCLINK_A_CBFC_VC_TX_BLOCKED,
				      cb->tx_blocked[i], RCLINK_A_CBFC_VC_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Each bank of the board: its tc and, in cbfc mode, its VC */
static int rclink_nl_put_banks(struct sk_buff *skb, struct rclink_dev *rdev,
			       const struct rclink_t1_dev_info *info)
{
	const struct rclink_t1_dev_cfg *cfg = &info->cfg;
	bool cbfc = cfg->flow_control == RCLINK_FLOW_CONTROL_CBFC;
	u32 last = min_t(u32, rclink_t1_bank_mask(rdev), RCLINK_T1_BANKS - 1);
	const u8 *vc = &info->cbfc.vc[RCLINK_FC_FLOW_TYPE1_BANK0];
	struct nlattr *nest;
	unsigned int n;

	for (n = 0; n <= last; n++) {
		nest = nla_nest_start(skb, RCLINK_A_DEV_BANK);
		if (!nest ||
		    nla_put_u8(skb, RCLINK_A_BANK_ID, n) ||
		    nla_put_u8(skb, RCLINK_A_BANK_TC, cfg->bank_tc[n]) ||
		    (cbfc && nla_put_u8(skb, RCLINK_A_BANK_VC, vc[n])))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int rclink_nl_dev_fill(struct sk_buff *skb, struct rclink_dev *rdev,
			      u32 portid, u32 seq, int flags)
{
	const struct rclink_params *p = &rdev->params;
	struct rclink_t1_dev_info info;
	struct rclink_t1_dev_cfg *cfg = &info.cfg;
	struct nlattr *nest;
	unsigned int i;
	void *hdr;

	BUILD_BUG_ON(RCLINK_A_DEV_STATS_BAD_WQE -
		     RCLINK_A_DEV_STATS_RX_DROP_DA !=
		     RCLINK_T1_DEV_BAD_WQE - RCLINK_T1_DEV_RX_DROP_DA);
	BUILD_BUG_ON(RCLINK_A_DEV_STATS_T2_RX_DROP_OLD -
		     RCLINK_A_DEV_STATS_RX_DROP_DA !=
		     RCLINK_T1_DEV_T2_RX_DROP_OLD - RCLINK_T1_DEV_RX_DROP_DA);
	BUILD_BUG_ON(RCLINK_A_DEV_STATS_RDMA_RX_IMM_DROP -
		     RCLINK_A_DEV_STATS_RDMA_TX_WRITE !=
		     RCLINK_T1_RDMA_RX_IMM_DROP - RCLINK_T1_RDMA_TX_WRITE);

	hdr = genlmsg_put(skb, portid, seq, &rclink_nl_family, flags,
			  RCLINK_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;

	rclink_t1_dev_info(rdev, &info);
	if (rclink_nl_put_dev(skb, rdev) ||
	    nla_put_u32(skb, RCLINK_A_DEV_QP_NUM, p->qp_num) ||
	    nla_put_u32(skb, RCLINK_A_DEV_PKT_LEN, p->type1_pkt_len) ||
	    nla_put_u32(skb, RCLINK_A_DEV_OST, p->type1_ost_n) ||
	    nla_put_u32(skb, RCLINK_A_DEV_EPSN_W, p->epsn_w) ||
	    nla_put_u32(skb, RCLINK_A_DEV_MAX_MSG, info.max_msg) ||
	    nla_put(skb, RCLINK_A_DEV_MAC, ETH_ALEN, cfg->mac) ||
	    nla_put_in_addr(skb, RCLINK_A_DEV_IP, cfg->ip) ||
	    nla_put_u8(skb, RCLINK_A_DEV_TTL, cfg->ttl) ||
	    nla_put_u16(skb, RCLINK_A_DEV_IP_ID, cfg->ip_id) ||
	    nla_put_u8(skb, RCLINK_A_DEV_TC, cfg->tc) ||
	    nla_put_u8(skb, RCLINK_A_DEV_ACK_TC, cfg->ack_tc) ||
	    nla_put_u8(skb, RCLINK_A_DEV_FORMAT, cfg->format) ||
	    nla_put_u32(skb, RCLINK_A_DEV_RETRY_TIMER, cfg->retry_timer_us) ||
	    nla_put_u8(skb, RCLINK_A_DEV_RETRY_CNT, cfg->retry_cnt) ||
	    nla_put_u8(skb, RCLINK_A_DEV_RNR_RETRY_CNT, cfg->rnr_retry_cnt) ||
	    nla_put_u8(skb, RCLINK_A_DEV_ACK_TIMESTAMP, cfg->ack_timestamp) ||
	    nla_put_u8(skb, RCLINK_A_DEV_ICRC, cfg->icrc) ||
	    nla_put_u16(skb, RCLINK_A_DEV_VLAN_ID, cfg->vlan_id) ||
	    nla_put_u8(skb, RCLINK_A_DEV_VLAN_PRI, cfg->vlan_pri) ||
	    nla_put_u32(skb, RCLINK_A_DEV_CC_WINDOW, cfg->cc_window_ns) ||
	    nla_put_u8(skb, RCLINK_A_DEV_BANK_RR, cfg->bank_rr) ||
	    nla_put_u64_64bit(skb, RCLINK_A_DEV_T2_RATE, cfg->t2_rate,
			      RCLINK_A_DEV_PAD) ||
	    nla_put_u8(skb, RCLINK_A_DEV_CNP_MERGE, cfg->cnp_merge) ||
	    nla_put_u32(skb, RCLINK_A_DEV_CNP_WINDOW_US, cfg->cnp_window_us) ||
	    nla_put_u32(skb, RCLINK_A_DEV_NOCNP_US, cfg->nocnp_us) ||
	    nla_put_u8(skb, RCLINK_A_DEV_FLOW_CONTROL, cfg->flow_control) ||
	    nla_put_u8(skb, RCLINK_A_DEV_VLAN_FORCED, cfg->vlan_forced) ||
	    nla_put_u32(skb, RCLINK_A_DEV_HW_DISABLED, rdev->assumed.feat_off))
		goto err_cancel;
	if (cfg->flow_control == RCLINK_FLOW_CONTROL_CBFC &&
	    rclink_nl_put_cbfc(skb, &info))
		goto err_cancel;
	if (rclink_nl_put_banks(skb, rdev, &info))
		goto err_cancel;

	nest = nla_nest_start(skb, RCLINK_A_DEV_STATS);
	if (!nest)
		goto err_cancel;
	for (i = 0; i < RCLINK_T1_DEV_NUM; i++)
		if (!(info.absent & BIT(i)) &&
		    nla_put_u64_64bit(skb, RCLINK_A_DEV_STATS_RX_DROP_DA + i,
				      info.stats[i], RCLINK_A_DEV_STATS_PAD))
			goto err_cancel;
	if (rclink_nl_put_dfx(skb, &info))
		goto err_cancel;
	nla_nest_end(skb, nest);

	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int rclink_nl_qp_stats_fill(struct sk_buff *skb,
				   const struct rclink_t1_qp_info *info)
{
	const struct rclink_t1_qp_stats *s = &info->stats;
	const struct {
		int attr;
		u64 val;
	} sw[] = {
		{ RCLINK_A_STATS_TX_MSGS, s->tx_msgs },
		{ RCLINK_A_STATS_TX_BYTES, s->tx_bytes },
		{ RCLINK_A_STATS_TX_FLUSHED, s->tx_flushed },
		{ RCLINK_A_STATS_RX_MSGS, s->rx_msgs },
		{ RCLINK_A_STATS_RX_BYTES, s->rx_bytes },
		{ RCLINK_A_STATS_RX_FLUSHED, s->rx_flushed },
		{ RCLINK_A_STATS_FATAL, s->fatal },
		{ RCLINK_A_STATS_RTT_SAMPLES, s->rtt_samples },
		{ RCLINK_A_STATS_CNP, s->cnp },
		{ RCLINK_A_STATS_NOCNP_REPORTS, s->nocnp_reports },
		{ RCLINK_A_STATS_NOCNP_BYTES, s->nocnp_bytes },
		{ RCLINK_A_STATS_RETRY_TMO, s->retry_tmo },
	};
	struct nlattr *nest;
	unsigned int i;

	/* the board's counters are attributes TX_PKTS.. in register order */
	BUILD_BUG_ON(RCLINK_A_STATS_ACK_RX - RCLINK_A_STATS_TX_PKTS !=
		     RCLINK_T1_HW_ACK_RX - RCLINK_T1_HW_TX_PKTS);

	nest = nla_nest_start(skb, RCLINK_A_QP_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(sw); i++)
		if (nla_put_u64_64bit(skb, sw[i].attr, sw[i].val,
				      RCLINK_A_STATS_PAD))
			return -EMSGSIZE;
	/* a counter the board does not count is absent, not 0 */
	for (i = 0; i < RCLINK_T1_HW_NUM; i++)
		if (!(info->hw_absent & BIT(i)) &&
		    nla_put_u64_64bit(skb, RCLINK_A_STATS_TX_PKTS + i,
				      info->hw[i], RCLINK_A_STATS_PAD))
			return -EMSGSIZE;
	/* the board's, but not next to DMAQ_QPS_ACK_RX */
	if ((!info->ecn_rx_absent &&
	     nla_put_u64_64bit(skb, RCLINK_A_STATS_ECN_RX, info->ecn_rx,
			       RCLINK_A_STATS_PAD)) ||
	    (!info->cnp_rx_absent &&
	     nla_put_u64_64bit(skb, RCLINK_A_STATS_CNP_RX, info->cnp_rx,
			       RCLINK_A_STATS_PAD)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, RCLINK_A_STATS_CC_ACC,
			      FIELD_GET(RCLINK_TX_CC_BYTE_CNT_MEM_BYTE_COUNTER,
					info->cc), RCLINK_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_CC_MASK,
			      FIELD_GET(RCLINK_TX_CC_BYTE_CNT_MEM_CC_MASK,
					info->cc), RCLINK_A_STATS_PAD))
		return -EMSGSIZE;
	if (nla_put_u32(skb, RCLINK_A_STATS_CC_SPEED, info->cc_state.rc) ||
	    nla_put_u32(skb, RCLINK_A_STATS_CC_ALPHA, info->cc_state.alpha) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_CC_CUTS, info->cc_state.cuts,
			      RCLINK_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_CC_RAISES,
			      info->cc_state.raises, RCLINK_A_STATS_PAD))
		return -EMSGSIZE;
	if (nla_put_u32(skb, RCLINK_A_STATS_RTT_LAST_US, s->rtt_last_us) ||
	    nla_put_u32(skb, RCLINK_A_STATS_RTT_MIN_US, s->rtt_min_us) ||
	    nla_put_u32(skb, RCLINK_A_STATS_RTT_MAX_US, s->rtt_max_us))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int rclink_nl_qp_fill(struct sk_buff *skb, struct rclink_dev *rdev,
			     u32 qpn, const struct rclink_t1_qp_info *info,
			     struct user_namespace *ns, u32 portid, u32 seq,
			     int flags)
{
	const struct rclink_t1_qp_cfg *cfg = &info->cfg;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rclink_nl_family, flags,
			  RCLINK_CMD_QP_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (rclink_nl_put_dev(skb, rdev) ||
	    nla_put_u32(skb, RCLINK_A_QP_QPN, qpn) ||
	    nla_put_u32(skb, RCLINK_A_QP_DQPN, cfg->dqpn) ||
	    nla_put_in_addr(skb, RCLINK_A_QP_DIP, cfg->dip) ||
	    nla_put(skb, RCLINK_A_QP_DMAC, ETH_ALEN, cfg->dmac) ||
	    nla_put_u16(skb, RCLINK_A_QP_SPORT, cfg->sport) ||
	    nla_put_u8(skb, RCLINK_A_QP_PKEY, cfg->pkey) ||
	    nla_put_u8(skb, RCLINK_A_QP_RX_PKEY, cfg->rx_pkey) ||
	    nla_put_u32(skb, RCLINK_A_QP_SPEED, cfg->speed) ||
	    nla_put_u64_64bit(skb, RCLINK_A_QP_RATE,
			      rclink_t1_qp_rate(rdev, cfg),
			      RCLINK_A_QP_PAD) ||
	    nla_put_u8(skb, RCLINK_A_QP_STATE, info->state) ||
	    nla_put_u8(skb, RCLINK_A_QP_BOUND, info->bound) ||
	    nla_put_u32(skb, RCLINK_A_QP_SQ_PSN, cfg->sq_psn) ||
	    nla_put_u32(skb, RCLINK_A_QP_RQ_PSN, cfg->rq_psn) ||
	    rclink_nl_put_owner(skb, ns, &rclink_nl_qp_owner, &info->user) ||
	    rclink_nl_qp_stats_fill(skb, info))
		goto err_cancel;

	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* A dump's return value: its length, or the error when nothing fitted */
static int rclink_nl_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* ---- dev ----------------------------------------------------------------- */

int rclink_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rclink_dev *rdev;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(info->attrs, info->extack);
	err = IS_ERR(rdev) ? PTR_ERR(rdev) :
	      rclink_nl_dev_fill(msg, rdev, info->snd_portid, info->snd_seq,
				 0);
	mutex_unlock(&rclink_t1_devs_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int rclink_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long index = cb->args[0];
	struct rclink_dev *rdev;
	int err = 0;

	mutex_lock(&rclink_t1_devs_lock);
	while ((rdev = rclink_t1_dev_next(&index))) {
		err = rclink_nl_dev_fill(skb, rdev,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
		index++;
	}
	mutex_unlock(&rclink_t1_devs_lock);
	cb->args[0] = index;
	return rclink_nl_dump_ret(skb, err);
}

/*
 * The banks of dev-set, "bank N tc T": every RCLINK_A_DEV_BANK of the request
 * (a multi-attr: info->attrs holds the last one only), each bank at most
 * once.  The board's number of banks is rclink_t1_dev_set()'s to check.
 */
static int rclink_nl_dev_banks(struct genl_info *info,
			       struct rclink_t1_dev_cfg *cfg, u32 *given)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[RCLINK_A_BANK_MAX + 1];
	struct nlattr *attr;
	int rem, err;
	u8 id;

	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) != RCLINK_A_DEV_BANK)
			continue;
		err = nla_parse_nested(tb, RCLINK_A_BANK_MAX, attr,
				       rclink_bank_nl_policy, extack);
		if (err)
			return err;
		if (!tb[RCLINK_A_BANK_ID] || !tb[RCLINK_A_BANK_TC]) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "bank: needs the bank (id) and its tc");
			return -EINVAL;
		}
		if (tb[RCLINK_A_BANK_VC]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[RCLINK_A_BANK_VC],
					    "bank vc: read only, the VC is tc[7:2] in CBFC mode");
			return -EINVAL;
		}
		id = nla_get_u8(tb[RCLINK_A_BANK_ID]);	/* the policy's 0..3 */
		if (cfg->bank_given & BIT(id)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "bank: the same bank twice");
			return -EINVAL;
		}
		cfg->bank_tc[id] = nla_get_u8(tb[RCLINK_A_BANK_TC]);
		cfg->bank_given |= BIT(id);
		*given |= RCLINK_DEV_F_BANK_TC;
	}
	return 0;
}

#define RCLINK_DEV_FIELD(a, member, ctype, f) \
	RCLINK_NL_FIELD(struct rclink_t1_dev_cfg, RCLINK_A_DEV_##a, member, \
			ctype, RCLINK_DEV_F_##f)

static const struct rclink_nl_field rclink_nl_dev_fields[] = {
	RCLINK_DEV_FIELD(FORMAT, format, u8, FORMAT),
	RCLINK_DEV_FIELD(BANK_RR, bank_rr, bool, BANK_RR),
	RCLINK_DEV_FIELD(T2_RATE, t2_rate, u64, T2_RATE),
	RCLINK_DEV_FIELD(CNP_MERGE, cnp_merge, bool, CNP_MERGE),
	RCLINK_DEV_FIELD(CNP_WINDOW_US, cnp_window_us, u32, CNP_WINDOW),
	RCLINK_DEV_FIELD(NOCNP_US, nocnp_us, u32, NOCNP),
	RCLINK_DEV_FIELD(TTL, ttl, u8, TTL),
	RCLINK_DEV_FIELD(IP_ID, ip_id, u16, IP_ID),
	RCLINK_DEV_FIELD(TC, tc, u8, TC),
	RCLINK_DEV_FIELD(ACK_TC, ack_tc, u8, ACK_TC),
	RCLINK_DEV_FIELD(RETRY_TIMER, retry_timer_us, u32, RETRY_TIMER),
	RCLINK_DEV_FIELD(RETRY_CNT, retry_cnt, u8, RETRY_CNT),
	RCLINK_DEV_FIELD(RNR_RETRY_CNT, rnr_retry_cnt, u8, RNR_RETRY_CNT),
	RCLINK_DEV_FIELD(ACK_TIMESTAMP, ack_timestamp, bool, ACK_TIMESTAMP),
	RCLINK_DEV_FIELD(ICRC, icrc, bool, ICRC),
	RCLINK_DEV_FIELD(VLAN_ID, vlan_id, u16, VLAN_ID),
	RCLINK_DEV_FIELD(VLAN_PRI, vlan_pri, u8, VLAN_PRI),
	RCLINK_DEV_FIELD(CBFC_LIMIT, cbfc_limit, u32, CBFC_LIMIT),
	/* 0 would disable the flow's CBFC (seed): the policy's 1.. */
	RCLINK_DEV_FIELD(CBFC_UF_TYPE1, cbfc_uf[RCLINK_FC_UF_TYPE1], u8,
			 CBFC_UF_TYPE1),
	RCLINK_DEV_FIELD(CBFC_UF_TYPE2, cbfc_uf[RCLINK_FC_UF_TYPE2], u8,
			 CBFC_UF_TYPE2),
	RCLINK_DEV_FIELD(CBFC_UF_TYPE3, cbfc_uf[RCLINK_FC_UF_TYPE3], u8,
			 CBFC_UF_TYPE3),
	RCLINK_DEV_FIELD(CBFC_UF_ACK, cbfc_uf[RCLINK_FC_UF_ACK], u8,
			 CBFC_UF_ACK),
	RCLINK_DEV_FIELD(CBFC_DYN, cbfc_dyn, bool, CBFC_DYN),
	RCLINK_DEV_FIELD(VC_STATUS, vc_status, u8, VC_STATUS),
};

/* The fields of dev-set the policy cannot check alone */
static int rclink_nl_dev_checked(struct nlattr **attrs,
				 struct rclink_t1_dev_cfg *cfg, u32 *given,
				 struct netlink_ext_ack *extack)
{
	struct nlattr *attr;

	attr = attrs[RCLINK_A_DEV_CC_WINDOW];
	if (attr) {
		cfg->cc_window_ns = nla_get_u32(attr);
		if (cfg->cc_window_ns < 4096 || cfg->cc_window_ns > 65536 ||
		    !is_power_of_2(cfg->cc_window_ns)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "cc_window: 4096, 8192, 16384, 32768 or 65536 ns");
			return -EINVAL;
		}
		*given |= RCLINK_DEV_F_CC_WINDOW;
	}

	attr = attrs[RCLINK_A_DEV_MAC];
	if (attr) {
		nla_memcpy(cfg->mac, attr, ETH_ALEN);
		if (!is_valid_ether_addr(cfg->mac)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "mac: not a unicast MAC address (multicast or zero)");
			return -EINVAL;
		}
		*given |= RCLINK_DEV_F_MAC;
	}

	attr = attrs[RCLINK_A_DEV_IP];
	if (attr) {
		cfg->ip = nla_get_in_addr(attr);
		if (ipv4_is_multicast(cfg->ip) || ipv4_is_lbcast(cfg->ip)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "ip: not a unicast IPv4 address");
			return -EINVAL;
		}
		*given |= RCLINK_DEV_F_IP;
	}

	/* the CBFC mode is rclink_cbfc_check()'s */
	attr = attrs[RCLINK_A_DEV_CBFC_SIZE];
	if (attr) {
		cfg->cbfc_size = nla_get_u32(attr);
		if (rclink_cbfc_size_code(cfg->cbfc_size) < 0) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "cbfc_size: 32, 64, 128, 256, 1024 or 2048");
			return -EINVAL;
		}
		*given |= RCLINK_DEV_F_CBFC_SIZE;
	}
	return 0;
}

static int rclink_nl_dev_cfg(struct nlattr **attrs,
			     struct rclink_t1_dev_cfg *cfg, u32 *given,
			     struct netlink_ext_ack *extack)
{
	int err;

	err = rclink_nl_dev_checked(attrs, cfg, given, extack);
	if (err)
		return err;
	rclink_nl_fields(attrs, rclink_nl_dev_fields,
			 ARRAY_SIZE(rclink_nl_dev_fields), cfg, given);
	return 0;
}

int rclink_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rclink_t1_dev_cfg cfg = {};
	struct rclink_dev *rdev;
	u32 given = 0;
	int err;

	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(info->attrs, info->extack);
	if (IS_ERR(rdev)) {
		err = PTR_ERR(rdev);
		goto unlock;
	}
	err = rclink_nl_dev_cfg(info->attrs, &cfg, &given, info->extack);
	if (!err)
		err = rclink_nl_dev_banks(info, &cfg, &given);
	if (!err)
		err = rclink_t1_dev_set(rdev, &cfg, given, info->extack);
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	return err;
}

/* ---- qp ------------------------------------------------------------------ */

int rclink_nl_qp_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	struct rclink_t1_qp_cfg cfg = {};
	struct rclink_owner user;
	struct rclink_dev *rdev;
	u32 given = 0, qpn;
	int err;

	err = rclink_nl_owner(skb, info, &rclink_nl_qp_owner, &user, NULL);
	if (err)
		return err;

	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(attrs, extack);
	if (IS_ERR(rdev)) {
		err = PTR_ERR(rdev);
		goto unlock;
	}
	err = rclink_nl_qpn(rdev, attrs, &qpn, extack);
	if (err)
		goto unlock;

	/* the defaults of rclink-tool.rst */
	cfg.sport = (RCLINK_NL_SPORT_BASE + qpn) & U16_MAX;
	cfg.speed = FIELD_MAX(RCLINK_TX_SPEED_MEM_TX_SPEED_CFG);
	err = rclink_nl_qp_cfg(rdev, qpn, attrs, &cfg, &given, extack);
	if (err)
		goto unlock;

	err = -EINVAL;
	if (!(given & RCLINK_QP_F_DQPN))
		NL_SET_ERR_MSG(extack,
			       "dqpn: the peer's QP number is required");
	else if (!(given & RCLINK_QP_F_DIP))
		NL_SET_ERR_MSG(extack,
			       "dip: the peer's IPv4 address is required");
	else if (!(given & RCLINK_QP_F_DMAC))
		NL_SET_ERR_MSG(extack,
			       "dmac: the peer's MAC address is required");
	else
		err = rclink_t1_qp_add(rdev, qpn, &cfg, &user, given, extack);
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	return err;
}

int rclink_nl_qp_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **attrs = info->attrs;
	struct rclink_t1_qp_cfg cfg = {};
	struct rclink_dev *rdev;
	u32 given = 0, qpn;
	int err;

	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(attrs, extack);
	if (IS_ERR(rdev)) {
		err = PTR_ERR(rdev);
		goto unlock;
	}
	err = rclink_nl_qpn(rdev, attrs, &qpn, extack);
	if (err)
		goto unlock;
	err = rclink_nl_qp_cfg(rdev, qpn, attrs, &cfg, &given, extack);
	if (err)
		goto unlock;
	if (attrs[RCLINK_A_QP_STATE]) {
		if (nla_get_u8(attrs[RCLINK_A_QP_STATE]) !=
		    RCLINK_QP_STATE_READY) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[RCLINK_A_QP_STATE],
					    "state: only ready can be set");
			err = -EINVAL;
			goto unlock;
		}
		given |= RCLINK_QP_F_READY;
	}
	err = rclink_t1_qp_set(rdev, qpn, &cfg, given, extack);
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	return err;
}

int rclink_nl_qp_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct rclink_t1_qp_info *qi;
	struct rclink_dev *rdev;
	struct sk_buff *msg;
	u32 qpn;
	int err;

	qi = kzalloc(sizeof(*qi), GFP_KERNEL);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!qi || !msg) {
		err = -ENOMEM;
		goto out_free;
	}

	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(info->attrs, extack);
	if (IS_ERR(rdev)) {
		err = PTR_ERR(rdev);
		goto unlock;
	}
	err = rclink_nl_qpn(rdev, info->attrs, &qpn, extack);
	if (err)
		goto unlock;
	err = rclink_t1_qp_info(rdev, qpn, qi);
	if (err == -ENOENT)
		NL_SET_ERR_MSG(extack, "qpn: no such QP");
	if (!err)
		err = rclink_nl_qp_fill(msg, rdev, qpn, qi,
					rclink_nl_userns(skb),
					info->snd_portid, info->snd_seq, 0);
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	if (err)
		goto out_free;
	kfree(qi);
	return genlmsg_reply(msg, info);

out_free:
	nlmsg_free(msg);
	kfree(qi);
	return err;
}

/*
 * The QPs of every board, or of the board the request names: cb->args[0]
 * is the board index to continue at, cb->args[1] the QP number.
 */
int rclink_nl_qp_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = rclink_genl_dump_attrs(cb);
	unsigned long index = cb->args[0];
	struct rclink_t1_qp_info *qi;
	struct user_namespace *ns = rclink_nl_userns(cb->skb);
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	struct rclink_dev *rdev, *only = NULL;
	u32 qpn = cb->args[1];
	int err = 0;

	qi = kzalloc(sizeof(*qi), GFP_KERNEL);
	if (!qi)
		return -ENOMEM;

	mutex_lock(&rclink_t1_devs_lock);
	if (attrs &&
	    (attrs[RCLINK_A_QP_DEV_INDEX] || attrs[RCLINK_A_QP_DEV_NAME])) {
		only = rclink_nl_dev(attrs, cb->extack);
		if (IS_ERR(only)) {
			err = PTR_ERR(only);
			goto unlock;
		}
	}

	while ((rdev = rclink_t1_dev_next(&index))) {
		if (only && rdev != only) {
			index++;
			qpn = 0;
			continue;
		}
		for (; rclink_t1_qp_next(rdev, &qpn); qpn++) {
			err = rclink_t1_qp_info(rdev, qpn, qi);
			if (err == -ENOENT) {
				err = 0;	/* deleted meanwhile */
				continue;
			}
			if (!err)
				err = rclink_nl_qp_fill(skb, rdev, qpn, qi,
							ns, portid, seq,
							NLM_F_MULTI);
			if (err)
				goto unlock;
		}
		index++;
		qpn = 0;
	}
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	cb->args[0] = index;
	cb->args[1] = qpn;
	kfree(qi);
	return rclink_nl_dump_ret(skb, err);
}

int rclink_nl_qp_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rclink_dev *rdev;
	u32 qpn;
	int err;

	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(info->attrs, info->extack);
	if (IS_ERR(rdev)) {
		err = PTR_ERR(rdev);
		goto unlock;
	}
	err = rclink_nl_qpn(rdev, info->attrs, &qpn, info->extack);
	if (!err)
		err = rclink_t1_qp_del(rdev, qpn, info->extack);
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	return err;
}

/* ---- mr: registrations of RDMA WRITE and READ ---------------------------- */

static int rclink_nl_mr_fill(struct sk_buff *skb, struct rclink_dev *rdev,
			     const struct rclink_mr_info *mi, u32 portid,
			     u32 seq, int flags)
{
	void *hdr;

	BUILD_BUG_ON((int)RCLINK_A_MR_DEV_INDEX != (int)RCLINK_A_DEV_INDEX ||
		     (int)RCLINK_A_MR_DEV_NAME != (int)RCLINK_A_DEV_NAME);
	hdr = genlmsg_put(skb, portid, seq, &rclink_nl_family, flags,
			  RCLINK_CMD_MR_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, RCLINK_A_MR_DEV_INDEX, rdev->t1.index) ||
	    nla_put_string(skb, RCLINK_A_MR_DEV_NAME, rdev->t1.name) ||
	    nla_put_u32(skb, RCLINK_A_MR_KEY, mi->key) ||
	    nla_put_u32(skb, RCLINK_A_MR_CTX, mi->ctx) ||
	    (mi->qp_only && nla_put_u32(skb, RCLINK_A_MR_QPN, mi->qpn)) ||
	    (!mi->user && nla_put_u64_64bit(skb, RCLINK_A_MR_OFFSET,
					    mi->offset, RCLINK_A_MR_PAD)) ||
	    nla_put_u64_64bit(skb, RCLINK_A_MR_LENGTH, mi->length,
			      RCLINK_A_MR_PAD) ||
	    ((mi->access & RCLINK_MR_REMOTE_WRITE) &&
	     nla_put_flag(skb, RCLINK_A_MR_REMOTE_WRITE)) ||
	    ((mi->access & RCLINK_MR_REMOTE_READ) &&
	     nla_put_flag(skb, RCLINK_A_MR_REMOTE_READ)) ||
	    (mi->user && nla_put_flag(skb, RCLINK_A_MR_USER)) ||
	    (mi->pages && nla_put_u32(skb, RCLINK_A_MR_PAGES, mi->pages)) ||
	    nla_put_u32(skb, RCLINK_A_MR_PID, mi->pid) ||
	    (mi->busy && nla_put_flag(skb, RCLINK_A_MR_BUSY))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int rclink_nl_mr_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[RCLINK_A_MR_KEY];
	struct rclink_mr_info mi;
	struct rclink_dev *rdev;
	struct sk_buff *msg;
	u32 idx;
	int err;

	if (!attr) {
		NL_SET_ERR_MSG(info->extack,
			       "key: a registration's key is required");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(info->attrs, info->extack);
	err = IS_ERR(rdev) ? PTR_ERR(rdev) : 0;
	idx = FIELD_GET(RCLINK_MR_KEY_INDEX, nla_get_u32(attr));
	if (!err) {
		err = rclink_mr_info(rdev, &idx, &mi);
		if (err == -EOPNOTSUPP)
			NL_SET_ERR_MSG(info->extack,
				       "dev: the board has no registration table");
		else if (!err && mi.key != nla_get_u32(attr))
			err = -ENOENT;
	}
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "key: no such registration");
	if (!err)
		err = rclink_nl_mr_fill(msg, rdev, &mi, info->snd_portid,
					info->snd_seq, 0);
	mutex_unlock(&rclink_t1_devs_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int rclink_nl_mr_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = rclink_genl_dump_attrs(cb);
	unsigned long index = cb->args[0];
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	struct rclink_dev *rdev, *only = NULL;
	struct rclink_mr_info mi;
	u32 idx = cb->args[1];
	int err = 0;

	mutex_lock(&rclink_t1_devs_lock);
	if (attrs && (attrs[RCLINK_A_MR_DEV_INDEX] ||
		      attrs[RCLINK_A_MR_DEV_NAME])) {
		only = rclink_nl_dev(attrs, cb->extack);
		if (IS_ERR(only)) {
			err = PTR_ERR(only);
			goto unlock;
		}
	}
	while ((rdev = rclink_t1_dev_next(&index))) {
		while (!only || rdev == only) {
			err = rclink_mr_info(rdev, &idx, &mi);
			if (err) {
				err = 0;	/* no more, or no table */
				break;
			}
			err = rclink_nl_mr_fill(skb, rdev, &mi, portid, seq,
						NLM_F_MULTI);
			if (err)
				goto unlock;
			idx++;
		}
		index++;
		idx = 0;
	}
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	cb->args[0] = index;
	cb->args[1] = idx;
	return rclink_nl_dump_ret(skb, err);
}

/* ---- ctx: user contexts ------------------------------------------------- */

static int rclink_nl_ctx_fill(struct sk_buff *skb, struct rclink_dev *rdev,
			      const struct rclink_ctx_info *ci, u32 portid,
			      u32 seq, int flags)
{
	const struct {
		int attr;
		u64 val;
	} cnt[] = {
		{ RCLINK_A_CTX_EVENTS, ci->count[RCLINK_CTX_CNT_EVENTS] },
		{ RCLINK_A_CTX_RX_NOBUF, ci->count[RCLINK_CTX_CNT_RX_NOBUF] },
		{ RCLINK_A_CTX_NOT_OWNER, ci->count[RCLINK_CTX_CNT_NOT_OWNER] },
	};
	const struct {
		int attr;
		u32 val;
	} val[] = {
		{ RCLINK_A_CTX_ID, ci->id },
		{ RCLINK_A_CTX_PID, ci->pid },
		{ RCLINK_A_CTX_STATE, ci->state },
		{ RCLINK_A_CTX_SQ_ENTRIES, ci->sq_entries },
		{ RCLINK_A_CTX_RQ_ENTRIES, ci->rq_entries },
		{ RCLINK_A_CTX_CQ_ENTRIES, ci->cq_entries },
		{ RCLINK_A_CTX_AREA_SIZE, ci->area_size },
		{ RCLINK_A_CTX_OST_USED, ci->ost_used },
		{ RCLINK_A_CTX_OST_MAX, ci->ost_max },
	};
	unsigned long g;
	unsigned int i;
	void *hdr;

	BUILD_BUG_ON((int)RCLINK_A_CTX_DEV_INDEX != (int)RCLINK_A_DEV_INDEX ||
		     (int)RCLINK_A_CTX_DEV_NAME != (int)RCLINK_A_DEV_NAME);
	hdr = genlmsg_put(skb, portid, seq, &rclink_nl_family, flags,
			  RCLINK_CMD_CTX_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, RCLINK_A_CTX_DEV_INDEX, rdev->t1.index) ||
	    nla_put_string(skb, RCLINK_A_CTX_DEV_NAME, rdev->t1.name))
		goto cancel;
	for (i = 0; i < ARRAY_SIZE(val); i++)
		if (nla_put_u32(skb, val[i].attr, val[i].val))
			goto cancel;
	if (ci->state != RCLINK_CTX_STATE_RUNNING &&
	    (nla_put_u32(skb, RCLINK_A_CTX_CAUSE, ci->cause) ||
	     nla_put_u64_64bit(skb, RCLINK_A_CTX_ERR_INFO, ci->err_info,
			       RCLINK_A_CTX_PAD)))
		goto cancel;
	for (i = 0; i < ci->nqps; i++)
		if (nla_put_u32(skb, RCLINK_A_CTX_QPN, ci->qpns[i]))
			goto cancel;
	for_each_set_bit(g, &ci->groups, BITS_PER_LONG)
		if (nla_put_u32(skb, RCLINK_A_CTX_GROUP, g))
			goto cancel;
	for (i = 0; i < ARRAY_SIZE(cnt); i++)
		if (nla_put_u64_64bit(skb, cnt[i].attr, cnt[i].val,
				      RCLINK_A_CTX_PAD))
			goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* room for every QP number of the board in ci */
static int rclink_nl_ctx_qps(struct rclink_ctx_info *ci, u32 qp_num)
{
	kfree(ci->qpns);
	ci->qps_size = qp_num;
	ci->qpns = kcalloc(qp_num, sizeof(*ci->qpns), GFP_KERNEL);
	return ci->qpns ? 0 : -ENOMEM;
}

int rclink_nl_ctx_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[RCLINK_A_CTX_ID];
	struct rclink_ctx_info ci = { };
	struct rclink_dev *rdev;
	struct sk_buff *msg;
	u32 id;
	int err;

	if (!attr) {
		NL_SET_ERR_MSG(info->extack,
			       "id: a context's number is required");
		return -EINVAL;
	}
	id = nla_get_u32(attr);
	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(info->attrs, info->extack);
	err = IS_ERR(rdev) ? PTR_ERR(rdev) : 0;
	if (!err)
		err = rclink_nl_ctx_qps(&ci, rdev->params.qp_num);
	if (!err) {
		err = rclink_ctx_info(rdev, &id, &ci);
		if (err == -EOPNOTSUPP)
			NL_SET_ERR_MSG(info->extack,
				       "dev: the board has no user contexts");
		else if (!err && ci.id != nla_get_u32(attr))
			err = -ENOENT;
		if (err == -ENOENT)
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "id: no such context");
	}
	msg = err ? NULL : genlmsg_new(NLMSG_DEFAULT_SIZE +
				       ci.nqps * nla_total_size(sizeof(u32)),
				       GFP_KERNEL);
	if (!err && !msg)
		err = -ENOMEM;
	if (!err)
		err = rclink_nl_ctx_fill(msg, rdev, &ci, info->snd_portid,
					 info->snd_seq, 0);
	mutex_unlock(&rclink_t1_devs_lock);
	kfree(ci.qpns);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int rclink_nl_ctx_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = rclink_genl_dump_attrs(cb);
	unsigned long index = cb->args[0];
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	struct rclink_dev *rdev, *only = NULL;
	struct rclink_ctx_info ci = { };
	u32 id = cb->args[1];
	int err = 0;

	mutex_lock(&rclink_t1_devs_lock);
	if (attrs && (attrs[RCLINK_A_CTX_DEV_INDEX] ||
		      attrs[RCLINK_A_CTX_DEV_NAME])) {
		only = rclink_nl_dev(attrs, cb->extack);
		if (IS_ERR(only)) {
			err = PTR_ERR(only);
			goto unlock;
		}
	}
	while ((rdev = rclink_t1_dev_next(&index))) {
		err = 0;
		if (only && rdev != only)
			goto next;
		if (ci.qps_size != rdev->params.qp_num) {
			err = rclink_nl_ctx_qps(&ci, rdev->params.qp_num);
			if (err)
				goto unlock;
		}
		for (;; id++) {
			err = rclink_ctx_info(rdev, &id, &ci);
			if (err) {
				err = 0;	/* no more, or no contexts */
				break;
			}
			err = rclink_nl_ctx_fill(skb, rdev, &ci, portid, seq,
						 NLM_F_MULTI);
			if (err)
				goto unlock;
		}
next:
		index++;
		id = 0;
	}
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	kfree(ci.qpns);
	cb->args[0] = index;
	cb->args[1] = id;
	return rclink_nl_dump_ret(skb, err);
}

/* ---- mcast: TYPE2 groups ------------------------------------------------ */

static int rclink_nl_mcast_fill(struct sk_buff *skb, struct rclink_dev *rdev,
				u32 group,
				const struct rclink_t2_group_info *gi,
				struct user_namespace *ns, u32 portid, u32 seq,
				int flags)
{
	const struct rclink_t1_qp_stats *st = &gi->stats;
	struct nlattr *nest;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &rclink_nl_family, flags,
			  RCLINK_CMD_MCAST_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (rclink_nl_put_dev(skb, rdev) ||
	    nla_put_u8(skb, RCLINK_A_MCAST_GROUP, group) ||
	    nla_put(skb, RCLINK_A_MCAST_DMAC, ETH_ALEN, gi->mac) ||
	    nla_put_u8(skb, RCLINK_A_MCAST_JOIN, gi->join) ||
	    nla_put_u8(skb, RCLINK_A_MCAST_BOUND, gi->bound) ||
	    rclink_nl_put_owner(skb, ns, &rclink_nl_mcast_owner, &gi->user))
		goto err_cancel;
	nest = nla_nest_start(skb, RCLINK_A_MCAST_STATS);
	if (!nest ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_TX_MSGS, st->tx_msgs,
			      RCLINK_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_TX_BYTES, st->tx_bytes,
			      RCLINK_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_TX_FLUSHED, st->tx_flushed,
			      RCLINK_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_RX_MSGS, st->rx_msgs,
			      RCLINK_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_RX_BYTES, st->rx_bytes,
			      RCLINK_A_STATS_PAD) ||
	    nla_put_u64_64bit(skb, RCLINK_A_STATS_RX_FLUSHED, st->rx_flushed,
			      RCLINK_A_STATS_PAD))
		goto err_cancel;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* The group a request names, 0..7 */
static int rclink_nl_group(struct nlattr **attrs, u32 *group,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *attr = attrs[RCLINK_A_MCAST_GROUP];

	if (!attr) {
		NL_SET_ERR_MSG(extack, "group: a TYPE2 group is required");
		return -EINVAL;
	}
	*group = nla_get_u8(attr);
	return 0;
}

int rclink_nl_mcast_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct rclink_t2_group_info gi;
	struct rclink_dev *rdev;
	struct sk_buff *msg;
	u32 group;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(info->attrs, info->extack);
	err = IS_ERR(rdev) ? PTR_ERR(rdev) :
	      rclink_nl_group(info->attrs, &group, info->extack);
	if (!err)
		err = rclink_t2_group_info(rdev, group, &gi);
	if (!err)
		err = rclink_nl_mcast_fill(msg, rdev, group, &gi,
					   rclink_nl_userns(skb),
					   info->snd_portid, info->snd_seq, 0);
	mutex_unlock(&rclink_t1_devs_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int rclink_nl_mcast_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	struct nlattr **attrs = rclink_genl_dump_attrs(cb);
	unsigned long index = cb->args[0];
	struct user_namespace *ns = rclink_nl_userns(cb->skb);
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	struct rclink_dev *rdev, *only = NULL;
	struct rclink_t2_group_info gi;
	u32 group = cb->args[1];
	int err = 0;

	mutex_lock(&rclink_t1_devs_lock);
	if (attrs && (attrs[RCLINK_A_MCAST_DEV_INDEX] ||
		      attrs[RCLINK_A_MCAST_DEV_NAME])) {
		only = rclink_nl_dev(attrs, cb->extack);
		if (IS_ERR(only)) {
			err = PTR_ERR(only);
			goto unlock;
		}
	}
	while ((rdev = rclink_t1_dev_next(&index))) {
		for (; !only || rdev == only; group++) {
			if (group >= RCLINK_AFH_T2_GROUPS)
				break;
			err = rclink_t2_group_info(rdev, group, &gi);
			if (!err)
				err = rclink_nl_mcast_fill(skb, rdev, group,
							   &gi, ns, portid,
							   seq,
							   NLM_F_MULTI);
			if (err)
				goto unlock;
		}
		index++;
		group = 0;
	}
unlock:
	mutex_unlock(&rclink_t1_devs_lock);
	cb->args[0] = index;
	cb->args[1] = group;
	return rclink_nl_dump_ret(skb, err);
}

int rclink_nl_mcast_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct rclink_owner user;
	u8 mac[ETH_ALEN] = {};
	struct rclink_dev *rdev;
	bool join = false;
	u32 group, given = 0;
	bool owner_given;
	struct nlattr *attr;
	int err;

	err = rclink_nl_owner(skb, info, &rclink_nl_mcast_owner, &user,
			      &owner_given);
	if (err)
		return err;
	if (owner_given)
		given |= RCLINK_T2_F_OWNER;

	attr = attrs[RCLINK_A_MCAST_DMAC];
	if (attr) {
		nla_memcpy(mac, attr, ETH_ALEN);
		if (!is_multicast_ether_addr(mac) ||
		    is_broadcast_ether_addr(mac)) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "mac: not a multicast MAC address");
			return -EINVAL;
		}
		given |= RCLINK_T2_F_MAC;
	}
	if (attrs[RCLINK_A_MCAST_JOIN]) {
		join = nla_get_u8(attrs[RCLINK_A_MCAST_JOIN]);
		given |= RCLINK_T2_F_JOIN;
	}

	mutex_lock(&rclink_t1_devs_lock);
	rdev = rclink_nl_dev(attrs, info->extack);
	err = IS_ERR(rdev) ? PTR_ERR(rdev) :
	      rclink_nl_group(attrs, &group, info->extack);
	if (!err)
		err = rclink_t2_group_set(rdev, group, mac, join, &user, given,
					  info->extack);
	mutex_unlock(&rclink_t1_devs_lock);
	return err;
}

/* ---- notifications ------------------------------------------------------- */

/* qp-fatal-ntf or qp-ready-ntf to the "events" group */
void rclink_nl_notify_qp(struct rclink_t1_qp *qp, u8 cmd)
{
	struct rclink_dev *rdev = qp->rdev;
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&rclink_nl_family, &init_net,
				RCLINK_NLGRP_EVENTS))
		return;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		goto err_log;
	hdr = genlmsg_put(skb, 0, 0, &rclink_nl_family, 0, cmd);
	if (!hdr)
		goto err_free;
	if (rclink_nl_put_dev(skb, rdev) ||
	    nla_put_u32(skb, RCLINK_A_QP_QPN, qp->qpn) ||
	    (cmd == RCLINK_CMD_QP_FATAL_NTF &&
	     nla_put_u32(skb, RCLINK_A_QP_SQ_PSN, qp->fatal_psn)))
		goto err_free;
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&rclink_nl_family, skb, 0, RCLINK_NLGRP_EVENTS,
			  GFP_KERNEL);
	return;

err_free:
	nlmsg_free(skb);
err_log:
	dev_warn_ratelimited(rdev->dev, "qp %u: notification %u lost\n",
			     qp->qpn, cmd);
}

/*
 * qp-cnp-ntf (a RECV_CNP record) or qp-retry-tmo-ntf (a RETRY_TMO record)
 * of a QP to the "events" group.  From the event ring's thread, which may
 * sleep, but a burst of records must not hold the ring (and the CQ it may
 * serve) up in reclaim: nothing here sleeps, and a notification without
 * memory is lost (ratelimited warning).
 */
void rclink_nl_notify_qp_event(struct rclink_dev *rdev, u32 qpn, u8 cmd)
{
	const size_t size = nla_total_size(sizeof(u32)) +	/* dev-index */
			    nla_total_size(sizeof(rdev->t1.name)) +
			    nla_total_size(sizeof(u32));	/* qpn */
	struct sk_buff *skb;
	void *hdr;

	if (!genl_has_listeners(&rclink_nl_family, &init_net,
				RCLINK_NLGRP_EVENTS))
		return;

	skb = genlmsg_new(size, GFP_ATOMIC);
	if (!skb)
		goto err_log;
	hdr = genlmsg_put(skb, 0, 0, &rclink_nl_family, 0, cmd);
	if (!hdr)
		goto err_free;
	if (rclink_nl_put_dev(skb, rdev) ||
	    nla_put_u32(skb, RCLINK_A_QP_QPN, qpn))
		goto err_free;
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&rclink_nl_family, skb, 0, RCLINK_NLGRP_EVENTS,
			  GFP_ATOMIC);
	return;

err_free:
	nlmsg_free(skb);
err_log:
	dev_warn_ratelimited(rdev->dev, "qp %u: notification %u lost\n",
			     qpn, cmd);
}

/* ---- family -------------------------------------------------------------- */

static struct genl_family rclink_nl_family __ro_after_init = {
	.name		= RCLINK_FAMILY_NAME,
	.version	= RCLINK_FAMILY_VERSION,
	.netnsok	= false,	/* the boards live in init_net */
	.parallel_ops	= true,		/* rclink_t1_devs_lock */
	.module		= THIS_MODULE,
	.ops		= rclink_nl_ops,
	.n_ops		= ARRAY_SIZE(rclink_nl_ops),
	.mcgrps		= rclink_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(rclink_nl_mcgrps),
};

/*
 * The policy's limits are the spec's constants (uapi/linux/rclink_nl.h):
 * each must be what the register field holds.
 */
static void rclink_nl_limits_check(void)
{
	/* rclink_nl_dev() and rclink_nl_put_dev() serve every set */
	BUILD_BUG_ON((int)RCLINK_A_QP_DEV_INDEX != (int)RCLINK_A_DEV_INDEX ||
		     (int)RCLINK_A_MCAST_DEV_INDEX != (int)RCLINK_A_DEV_INDEX);
	BUILD_BUG_ON((int)RCLINK_A_QP_DEV_NAME != (int)RCLINK_A_DEV_NAME ||
		     (int)RCLINK_A_MCAST_DEV_NAME != (int)RCLINK_A_DEV_NAME);
	BUILD_BUG_ON((int)RCLINK_A_QP_DEV_HANDLE != (int)RCLINK_A_DEV_HANDLE);
	BUILD_BUG_ON((int)RCLINK_A_MCAST_DEV_HANDLE !=
		     (int)RCLINK_A_DEV_HANDLE);

	BUILD_BUG_ON(RCLINK_RETRY_TIMER_MAX !=
		     FIELD_MAX(RCLINK_RETRY_TIMER_CFG_RETRY_TIMER));
	BUILD_BUG_ON(RCLINK_RETRY_CNT_MAX !=
		     FIELD_MAX(RCLINK_RETRY_TIMER_CFG_RETRY_CNT_THR));
	BUILD_BUG_ON(RCLINK_RETRY_CNT_MAX !=
		     FIELD_MAX(RCLINK_RETRY_TIMER_CFG_RNR_RETRY_CNT_THR));
	BUILD_BUG_ON(RCLINK_CNP_WINDOW_MAX !=
		     FIELD_MAX(RCLINK_CNP_CFG_TIMER_THR_US));
	BUILD_BUG_ON(RCLINK_NOCNP_MAX !=
		     FIELD_MAX(RCLINK_CNP_CFG_NOCNP_INTERVAL) + 1);
	BUILD_BUG_ON(RCLINK_VLAN_ID_MAX != (VLAN_N_VID - 2));
	BUILD_BUG_ON(RCLINK_VLAN_PRI_MAX !=
		     FIELD_MAX(RCLINK_AFH_CFG_EN_TYPE1_ACK_CBFC));
	BUILD_BUG_ON(RCLINK_SPEED_MAX !=
		     FIELD_MAX(RCLINK_TX_SPEED_MEM_TX_SPEED_CFG));
	BUILD_BUG_ON(RCLINK_CBFC_LIMIT_MAX !=
		     FIELD_MAX(RCLINK_SHIM_CBFC_VC_CFG_CREDIT_LIMIT));
	BUILD_BUG_ON(RCLINK_CBFC_UF_MAX !=
		     FIELD_MAX(RCLINK_AFH_CFG_EN_TYPE1_CREDIT_UF_LIMIT_CBFC));
	BUILD_BUG_ON(RCLINK_BANK_MAX != (RCLINK_T1_BANKS - 1));
	BUILD_BUG_ON(RCLINK_GROUP_MAX != (RCLINK_AFH_T2_GROUPS - 1));
}

int rclink_nl_init(void)
{
	rclink_nl_limits_check();
	return genl_register_family(&rclink_nl_family);
}

void rclink_nl_exit(void)
{
	genl_unregister_family(&rclink_nl_family);
}
