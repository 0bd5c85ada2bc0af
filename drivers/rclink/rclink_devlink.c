// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: devlink instance.  Its private area is struct rclink_dev, so it is
 * allocated first in probe and freed last in remove; it is registered only
 * once the device is fully up and unregistered first.
 *
 * `devlink dev info`: every identity and version the board reports.
 * `devlink dev param`: the board-wide choices (ring sizes, header format,
 * the congestion-control loop and its tunables, flow control), driverinit
 * only: a value set
 * takes effect at the next `devlink dev reload` (action driver_reinit: the
 * board goes down and up again as after a function reset) or probe.
 * The health reporters live from alloc to free (rclink_health.c).
 */

#include <linux/kernel.h>
#include <linux/log2.h>
#include <net/devlink.h>

#include "rclink.h"
#include "rclink_compat.h"
#include "rclink_dp.h"
#include "rclink_netdev.h"
#include "rclink_nl_gen.h"

#define RCLINK_DL_BOARD_ID	DEVLINK_INFO_VERSION_GENERIC_BOARD_ID
#define RCLINK_DL_ASIC_ID	DEVLINK_INFO_VERSION_GENERIC_ASIC_ID
#define RCLINK_DL_ASIC_REV	DEVLINK_INFO_VERSION_GENERIC_ASIC_REV
#define RCLINK_DL_FW		DEVLINK_INFO_VERSION_GENERIC_FW
#define RCLINK_DL_MAC_TX_REV	"mac.tx_fc.rev"
#define RCLINK_DL_MAC_RX_REV	"mac.rx_fc.rev"
#define RCLINK_DL_BOARD_SUBSYS	"board.subsys"

/* The smallest event ring the shim takes (SHIM_EVT_CTRL.order) */
#define RCLINK_EVT_RING_MIN_ORDER	4

static int rclink_devlink_info_get(struct devlink *devlink,
				   struct devlink_info_req *req,
				   struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_priv(devlink);
	struct rclink_params *p = &rdev->params;
	char buf[32];
	u64 id;
	int err;

	err = rclink_devlink_put_driver_name(req, KBUILD_MODNAME);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%016llx", p->serial);
	err = devlink_info_serial_number_put(req, buf);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%04x:%04x", rdev->pdev->vendor,
		 rdev->pdev->device);
	err = devlink_info_version_fixed_put(req, RCLINK_DL_BOARD_ID, buf);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%04x:%04x",
		 rdev->pdev->subsystem_vendor, rdev->pdev->subsystem_device);
	err = devlink_info_version_fixed_put(req, RCLINK_DL_BOARD_SUBSYS, buf);
	if (err)
		return err;

	/*
	 * The board's registers only while it is up (the instance lock held:
	 * no reset runs now, but one may have failed or be in the middle of
	 * AER recovery)
	 */
	if (!rclink_is_up(rdev)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the board is down (a reset failed or is in progress)");
		return -ENODEV;
	}
	/* SHIM_ID.magic: the board's own identity */
	id = rclink_rd64(rdev, RCLINK_SHIM_ID);
	if (rclink_gone(rdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device gone");
		return -ENODEV;
	}
	snprintf(buf, sizeof(buf), "0x%08x",
		 (u32)FIELD_GET(RCLINK_SHIM_ID_MAGIC, id));
	err = devlink_info_version_fixed_put(req, RCLINK_DL_ASIC_ID, buf);
	if (err)
		return err;

	/* SHIM_VERSION.ip is BCD: 0x0204 is "2.4" */
	snprintf(buf, sizeof(buf), "%x.%x", p->ip_version >> 8,
		 p->ip_version & 0xff);
	err = devlink_info_version_fixed_put(req, RCLINK_DL_ASIC_REV, buf);
	if (err)
		return err;

	/* The MAC's flow control blocks: TX_FC/RX_FC_REVISION_ID */
	snprintf(buf, sizeof(buf), "0x%08x",
		 rclink_rd32(rdev, RCLINK_TX_FC_REVISION_ID));
	err = devlink_info_version_fixed_put(req, RCLINK_DL_MAC_TX_REV, buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "0x%08x",
		 rclink_rd32(rdev, RCLINK_RX_FC_REVISION_ID));
	err = devlink_info_version_fixed_put(req, RCLINK_DL_MAC_RX_REV, buf);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%u.%u", p->shim_major, p->shim_minor);
	return devlink_info_version_running_put(req, RCLINK_DL_FW, buf);
}

/* ---- params -------------------------------------------------------------- */

enum rclink_dl_param_id {
	RCLINK_DL_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	RCLINK_DL_PARAM_ID_T1_SQ_SIZE,
	RCLINK_DL_PARAM_ID_T1_RQ_SIZE,
	RCLINK_DL_PARAM_ID_T1_CQ_SIZE,
	RCLINK_DL_PARAM_ID_T3_TX_RING_SIZE,
	RCLINK_DL_PARAM_ID_T3_RX_RING_SIZE,
	RCLINK_DL_PARAM_ID_HEADER_FORMAT,
	RCLINK_DL_PARAM_ID_CC_ALGORITHM,
	RCLINK_DL_PARAM_ID_CC_AI_DIV,
	RCLINK_DL_PARAM_ID_CC_FAST_STEPS,
	RCLINK_DL_PARAM_ID_CC_G_SHIFT,
	RCLINK_DL_PARAM_ID_FLOW_CONTROL,
	RCLINK_DL_PARAM_ID_CTX_RX_HOLD_US,
	RCLINK_DL_PARAM_ID_RDMA_TIMEOUT_US,
};

/* The CC loop's tunables (rclink_cc.c): defaults and limits */
#define RCLINK_CC_AI_DIV_DEF		32
#define RCLINK_CC_AI_DIV_MAX		1024
#define RCLINK_CC_FAST_STEPS_DEF	5
#define RCLINK_CC_FAST_STEPS_MAX	64
#define RCLINK_CC_G_SHIFT_DEF		4
#define RCLINK_CC_G_SHIFT_MAX		10

/* DMAQ_RDMA_CFG.timeout_us: the shim's own value (0 there), said outright */
#define RCLINK_RDMA_TIMEOUT_US_DEF	100000

/* header_format values (Documentation/hw/formats.rst) */
static const struct {
	const char *name;
	u8 format;
} rclink_dl_formats[] = {
	{ "std", RCLINK_FORMAT_STANDARD },
	{ "gen1", RCLINK_FORMAT_GEN1 },
	{ "gen1-tc", RCLINK_FORMAT_GEN1_TC },
	{ "gen2", RCLINK_FORMAT_GEN2 },
	{ "lite", RCLINK_FORMAT_LITE },
};

static int rclink_dl_format_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rclink_dl_formats); i++)
		if (!strcmp(name, rclink_dl_formats[i].name))
			return rclink_dl_formats[i].format;
	return -EINVAL;
}

static const char *rclink_dl_format_name(u8 format)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rclink_dl_formats); i++)
		if (rclink_dl_formats[i].format == format)
			return rclink_dl_formats[i].name;
	return "std";
}

static int rclink_dl_format_validate(struct devlink *devlink, u32 id,
				     union devlink_param_value val,
				     struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_priv(devlink);
	int format = rclink_dl_format_parse(val.vstr);

	if (format < 0) {
		NL_SET_ERR_MSG_MOD(extack,
				   "unknown header format: std, gen1, gen1-tc, gen2 or lite");
		return -EINVAL;
	}
	/* the IP may lack the enable bit (rclink_assumed.c) */
	if (format == RCLINK_FORMAT_GEN2)
		return rclink_feat_need(rdev, RCLINK_FEAT_GEN2, extack);
	if (format == RCLINK_FORMAT_LITE)
		return rclink_feat_need(rdev, RCLINK_FEAT_LITE, extack);
	return 0;
}

static int rclink_dl_cc_algo_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < RCLINK_CC_ALGO_NUM; i++)
		if (!strcmp(name, rclink_cc_algo_names[i]))
			return i;
	return -EINVAL;
}

static int rclink_dl_cc_algo_validate(struct devlink *devlink, u32 id,
				      union devlink_param_value val,
				      struct netlink_ext_ack *extack)
{
	int algo = rclink_dl_cc_algo_parse(val.vstr);

	if (algo < 0) {
		NL_SET_ERR_MSG_MOD(extack,
				   "unknown congestion control algorithm: none or dcqcn");
		return -EINVAL;
	}
	/* the loop rises on NOCNP records (rclink_assumed.c) */
	if (algo != RCLINK_CC_ALGO_NONE)
		return rclink_feat_need(devlink_priv(devlink),
					RCLINK_FEAT_NOCNP, extack);
	return 0;
}

/* flow_control: pfc or cbfc (rclink_cbfc.c) */
static int rclink_dl_fc_validate(struct devlink *devlink, u32 id,
				 union devlink_param_value val,
				 struct netlink_ext_ack *extack)
{
	int fc = rclink_fc_parse(val.vstr);

	if (fc < 0) {
		NL_SET_ERR_MSG_MOD(extack, "unknown flow control: pfc or cbfc");
		return -EINVAL;
	}
	/* the IP may lack a CBFC enable bit (rclink_assumed.c) */
	if (fc == RCLINK_FLOW_CONTROL_CBFC)
		return rclink_feat_need(devlink_priv(devlink),
					RCLINK_FEAT_CBFC, extack);
	return 0;
}

/* The CC loop's u32 tunables: a range each */
static int rclink_dl_cc_validate(struct devlink *devlink, u32 id,
				 union devlink_param_value val,
				 struct netlink_ext_ack *extack)
{
	switch (id) {
	case RCLINK_DL_PARAM_ID_CC_AI_DIV:
		if (val.vu32 >= 1 && val.vu32 <= RCLINK_CC_AI_DIV_MAX)
			return 0;
		NL_SET_ERR_MSG_MOD(extack, "cc_ai_div: must be 1..1024");
		break;
	case RCLINK_DL_PARAM_ID_CC_FAST_STEPS:
		if (val.vu32 <= RCLINK_CC_FAST_STEPS_MAX)
			return 0;
		NL_SET_ERR_MSG_MOD(extack, "cc_fast_steps: must be 0..64");
		break;
	default:
		if (val.vu32 >= 1 && val.vu32 <= RCLINK_CC_G_SHIFT_MAX)
			return 0;
		NL_SET_ERR_MSG_MOD(extack, "cc_g_shift: must be 1..10");
		break;
	}
	return -EINVAL;
}

static int rclink_dl_rdma_tmo_validate(struct devlink *devlink, u32 id,
				       union devlink_param_value val,
				       struct netlink_ext_ack *extack)
{
	/* DMAQ_RDMA_CFG.timeout_us 0 is the shim's own 100 ms: say so */
	if (val.vu32)
		return 0;
	NL_SET_ERR_MSG_MOD(extack, "rdma_timeout_us: must be at least 1");
	return -EINVAL;
}

static bool rclink_dl_pow2_ok(u32 val, u32 min_order, u32 max_order)
{
	return is_power_of_2(val) && val >= BIT_ULL(min_order) &&
	       val <= BIT_ULL(max_order);
}

static int rclink_dl_evt_size_validate(struct devlink *devlink, u32 id,
				       union devlink_param_value val,
				       struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_priv(devlink);

	if (!rclink_dl_pow2_ok(val.vu32, RCLINK_EVT_RING_MIN_ORDER,
			       rdev->params.evt_ring_max_order)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "must be a power of two from 16 to the board's maximum (SHIM_CAP3.evt_ring_max_order)");
		return -EINVAL;
	}
	return 0;
}

/* TYPE1 queue engine rings: up to DMAQ_CAP.max_order */
static int rclink_dl_t1_size_validate(struct devlink *devlink, u32 id,
				      union devlink_param_value val,
				      struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_priv(devlink);
	u32 max_order;
	u64 cap;

	/* a board that is down: the bring-up clamps to what it has */
	if (!rclink_is_up(rdev))
		return 0;
	cap = rclink_rd64(rdev, RCLINK_DMAQ_CAP);
	if (rclink_gone(rdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device gone");
		return -ENODEV;
	}
	max_order = FIELD_GET(RCLINK_DMAQ_CAP_MAX_ORDER, cap);
	if (max_order < RCLINK_DP_MIN_ORDER) {
		NL_SET_ERR_MSG_MOD(extack, "the board has no queue engine");
		return -EOPNOTSUPP;
	}
	if (!rclink_dl_pow2_ok(val.vu32, RCLINK_DP_MIN_ORDER, max_order)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "must be a power of two from 16 to the queue engine's maximum (DMAQ_CAP.max_order)");
		return -EINVAL;
	}
	return 0;
}

static int rclink_dl_t3_size_validate(struct devlink *devlink, u32 id,
				      union devlink_param_value val,
				      struct netlink_ext_ack *extack)
{
	if (!rclink_dl_pow2_ok(val.vu32, ilog2(RCLINK_RING_MIN),
			       ilog2(RCLINK_RING_MAX))) {
		NL_SET_ERR_MSG_MOD(extack,
				   "must be a power of two from 64 to 2048");
		return -EINVAL;
	}
	return 0;
}

#define RCLINK_DL_DRIVERINIT	BIT(DEVLINK_PARAM_CMODE_DRIVERINIT)
#define RCLINK_DL_PARAM(id, name, validate)				\
	DEVLINK_PARAM_DRIVER(RCLINK_DL_PARAM_ID_##id, name,		\
			     DEVLINK_PARAM_TYPE_U32, RCLINK_DL_DRIVERINIT, \
			     NULL, NULL, validate)

static const struct devlink_param rclink_dl_params[] = {
	DEVLINK_PARAM_GENERIC(EVENT_EQ_SIZE, RCLINK_DL_DRIVERINIT, NULL, NULL,
			      rclink_dl_evt_size_validate),
	RCLINK_DL_PARAM(T1_SQ_SIZE, "type1_sq_size",
			rclink_dl_t1_size_validate),
	RCLINK_DL_PARAM(T1_RQ_SIZE, "type1_rq_size",
			rclink_dl_t1_size_validate),
	RCLINK_DL_PARAM(T1_CQ_SIZE, "type1_cq_size",
			rclink_dl_t1_size_validate),
	RCLINK_DL_PARAM(T3_TX_RING_SIZE, "type3_tx_ring_size",
			rclink_dl_t3_size_validate),
	RCLINK_DL_PARAM(T3_RX_RING_SIZE, "type3_rx_ring_size",
			rclink_dl_t3_size_validate),
	DEVLINK_PARAM_DRIVER(RCLINK_DL_PARAM_ID_HEADER_FORMAT, "header_format",
			     DEVLINK_PARAM_TYPE_STRING, RCLINK_DL_DRIVERINIT,
			     NULL, NULL, rclink_dl_format_validate),
	DEVLINK_PARAM_DRIVER(RCLINK_DL_PARAM_ID_CC_ALGORITHM, "cc_algorithm",
			     DEVLINK_PARAM_TYPE_STRING, RCLINK_DL_DRIVERINIT,
			     NULL, NULL, rclink_dl_cc_algo_validate),
	RCLINK_DL_PARAM(CC_AI_DIV, "cc_ai_div", rclink_dl_cc_validate),
	RCLINK_DL_PARAM(CC_FAST_STEPS, "cc_fast_steps", rclink_dl_cc_validate),
	RCLINK_DL_PARAM(CC_G_SHIFT, "cc_g_shift", rclink_dl_cc_validate),
	DEVLINK_PARAM_DRIVER(RCLINK_DL_PARAM_ID_FLOW_CONTROL, "flow_control",
			     DEVLINK_PARAM_TYPE_STRING, RCLINK_DL_DRIVERINIT,
			     NULL, NULL, rclink_dl_fc_validate),
	/* any u32: DMAQ_CTX_RX_HOLD.usec, 0 (no wait) included */
	RCLINK_DL_PARAM(CTX_RX_HOLD_US, "ctx_rx_hold_us", NULL),
	RCLINK_DL_PARAM(RDMA_TIMEOUT_US, "rdma_timeout_us",
			rclink_dl_rdma_tmo_validate),
};

/* Where each param's value lives in struct rclink_cfg; log2: an order */
static const struct {
	u32 id;
	size_t off;
	bool log2;
} rclink_dl_param_cfg[] = {
	{ DEVLINK_PARAM_GENERIC_ID_EVENT_EQ_SIZE,
	  offsetof(struct rclink_cfg, evt_ring_order), true },
	{ RCLINK_DL_PARAM_ID_T1_SQ_SIZE,
	  offsetof(struct rclink_cfg, t1_sq_order), true },
	{ RCLINK_DL_PARAM_ID_T1_RQ_SIZE,
	  offsetof(struct rclink_cfg, t1_rq_order), true },
	{ RCLINK_DL_PARAM_ID_T1_CQ_SIZE,
	  offsetof(struct rclink_cfg, t1_cq_order), true },
	{ RCLINK_DL_PARAM_ID_T3_TX_RING_SIZE,
	  offsetof(struct rclink_cfg, t3_tx_ring_size), false },
	{ RCLINK_DL_PARAM_ID_T3_RX_RING_SIZE,
	  offsetof(struct rclink_cfg, t3_rx_ring_size), false },
	{ RCLINK_DL_PARAM_ID_CC_AI_DIV,
	  offsetof(struct rclink_cfg, cc_ai_div), false },
	{ RCLINK_DL_PARAM_ID_CC_FAST_STEPS,
	  offsetof(struct rclink_cfg, cc_fast_steps), false },
	{ RCLINK_DL_PARAM_ID_CC_G_SHIFT,
	  offsetof(struct rclink_cfg, cc_g_shift), false },
	{ RCLINK_DL_PARAM_ID_CTX_RX_HOLD_US,
	  offsetof(struct rclink_cfg, ctx_rx_hold_us), false },
	{ RCLINK_DL_PARAM_ID_RDMA_TIMEOUT_US,
	  offsetof(struct rclink_cfg, rdma_timeout_us), false },
};

static u32 *rclink_cfg_field(struct rclink_cfg *cfg, unsigned int i)
{
	return (u32 *)((u8 *)cfg + rclink_dl_param_cfg[i].off);
}

static void rclink_cfg_defaults(struct rclink_cfg *cfg)
{
	cfg->evt_ring_order = RCLINK_EVT_RING_ORDER;
	cfg->t1_sq_order = RCLINK_DP_SQ_ORDER;
	cfg->t1_rq_order = RCLINK_DP_RQ_ORDER;
	cfg->t1_cq_order = RCLINK_DP_CQ_ORDER;
	cfg->t3_tx_ring_size = RCLINK_RING_DEFAULT;
	cfg->t3_rx_ring_size = RCLINK_RING_DEFAULT;
	cfg->t1_format = RCLINK_FORMAT_STANDARD;
	cfg->cc_algo = RCLINK_CC_ALGO_NONE;
	cfg->cc_ai_div = RCLINK_CC_AI_DIV_DEF;
	cfg->cc_fast_steps = RCLINK_CC_FAST_STEPS_DEF;
	cfg->cc_g_shift = RCLINK_CC_G_SHIFT_DEF;
	cfg->flow_control = RCLINK_FLOW_CONTROL_PFC;
	cfg->ctx_rx_hold_us = FIELD_GET(RCLINK_DMAQ_CTX_RX_HOLD_USEC,
					RCLINK_DMAQ_CTX_RX_HOLD_RSTVAL);
	cfg->rdma_timeout_us = RCLINK_RDMA_TIMEOUT_US_DEF;
}

/* The defaults as the params' driverinit values (before registering) */
static void rclink_dl_params_init(struct rclink_dev *rdev)
{
	struct devlink *devlink = priv_to_devlink(rdev);
	union devlink_param_value val;
	unsigned int i;
	u32 v;

	for (i = 0; i < ARRAY_SIZE(rclink_dl_param_cfg); i++) {
		v = *rclink_cfg_field(&rdev->cfg, i);
		val.vu32 = rclink_dl_param_cfg[i].log2 ? 1U << v : v;
		rclink_devlink_param_init_set(devlink,
					      rclink_dl_param_cfg[i].id, val);
	}
	strscpy(val.vstr, rclink_dl_format_name(rdev->cfg.t1_format),
		sizeof(val.vstr));
	rclink_devlink_param_init_set(devlink, RCLINK_DL_PARAM_ID_HEADER_FORMAT,
				      val);
	strscpy(val.vstr, rclink_cc_algo_names[rdev->cfg.cc_algo],
		sizeof(val.vstr));
	rclink_devlink_param_init_set(devlink, RCLINK_DL_PARAM_ID_CC_ALGORITHM,
				      val);
	strscpy(val.vstr, rclink_fc_names[rdev->cfg.flow_control],
		sizeof(val.vstr));
	rclink_devlink_param_init_set(devlink, RCLINK_DL_PARAM_ID_FLOW_CONTROL,
				      val);
}

/* The driverinit values into rdev->cfg (reload, instance lock held) */
static void rclink_dl_params_apply(struct rclink_dev *rdev)
{
	struct devlink *devlink = priv_to_devlink(rdev);
	union devlink_param_value val;
	unsigned int i;
	u32 id;

	for (i = 0; i < ARRAY_SIZE(rclink_dl_param_cfg); i++) {
		if (rclink_devl_param_init_get(devlink,
					       rclink_dl_param_cfg[i].id, &val))
			continue;
		*rclink_cfg_field(&rdev->cfg, i) = rclink_dl_param_cfg[i].log2 ?
			ilog2(val.vu32) : val.vu32;
	}
	id = RCLINK_DL_PARAM_ID_HEADER_FORMAT;
	if (!rclink_devl_param_init_get(devlink, id, &val)) {
		int format = rclink_dl_format_parse(val.vstr);

		if (format >= 0)
			rdev->cfg.t1_format = format;
	}
	id = RCLINK_DL_PARAM_ID_CC_ALGORITHM;
	if (!rclink_devl_param_init_get(devlink, id, &val)) {
		int algo = rclink_dl_cc_algo_parse(val.vstr);

		if (algo >= 0)
			rdev->cfg.cc_algo = algo;
	}
	id = RCLINK_DL_PARAM_ID_FLOW_CONTROL;
	if (!rclink_devl_param_init_get(devlink, id, &val)) {
		int fc = rclink_fc_parse(val.vstr);

		if (fc >= 0)
			rdev->cfg.flow_control = fc;
	}
}

/* ---- reload -------------------------------------------------------------- */

static int rclink_devlink_reload_down(struct devlink *devlink,
				      bool netns_change,
				      enum devlink_reload_action action,
				      enum devlink_reload_limit limit,
				      struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_priv(devlink);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack,
				   "reload into another network namespace is not supported");
		return -EOPNOTSUPP;
	}
	rclink_down(rdev);
	/* a re-initialisation: the QPs and `dev set` go, the name stays */
	rclink_t1_forget(rdev);
	return 0;
}

static int rclink_devlink_reload_up(struct devlink *devlink,
				    enum devlink_reload_action action,
				    enum devlink_reload_limit limit,
				    u32 *actions_performed,
				    struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_priv(devlink);
	u32 tx = rdev->cfg.t3_tx_ring_size, rx = rdev->cfg.t3_rx_ring_size;
	int err;

	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	rclink_dl_params_apply(rdev);
	/*
	 * The netdev is kept with its ring sizes (ethtool -G); new type3 ring
	 * size params replace them.
	 */
	if (rdev->cfg.t3_tx_ring_size != tx || rdev->cfg.t3_rx_ring_size != rx)
		rclink_netdev_set_ring_sizes(rdev, rdev->cfg.t3_tx_ring_size,
					     rdev->cfg.t3_rx_ring_size);
	err = rclink_up(rdev);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the board did not come back up (see the kernel log)");
		return err;
	}
	return 0;
}

static const struct devlink_ops rclink_devlink_ops = {
	.info_get = rclink_devlink_info_get,
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = rclink_devlink_reload_down,
	.reload_up = rclink_devlink_reload_up,
};

struct rclink_dev *rclink_devlink_alloc(struct device *dev)
{
	struct devlink *devlink;
	struct rclink_dev *rdev;
	int err;

	devlink = devlink_alloc(&rclink_devlink_ops, sizeof(struct rclink_dev),
				dev);
	if (!devlink)
		return NULL;
	rdev = devlink_priv(devlink);
	rclink_cfg_defaults(&rdev->cfg);

	err = devlink_params_register(devlink, rclink_dl_params,
				      ARRAY_SIZE(rclink_dl_params));
	if (err) {
		dev_err(dev, "cannot register the devlink params: %d\n", err);
		goto err_free;
	}
	rclink_dl_params_init(rdev);
	rclink_devlink_enable_reload(devlink);

	err = rclink_health_create(rdev);
	if (err)
		goto err_params;
	return rdev;

err_params:
	devlink_params_unregister(devlink, rclink_dl_params,
				  ARRAY_SIZE(rclink_dl_params));
err_free:
	devlink_free(devlink);
	return NULL;
}

void rclink_devlink_free(struct rclink_dev *rdev)
{
	struct devlink *devlink = priv_to_devlink(rdev);

	rclink_health_destroy(rdev);
	devlink_params_unregister(devlink, rclink_dl_params,
				  ARRAY_SIZE(rclink_dl_params));
	devlink_free(devlink);
}

void rclink_devlink_register(struct rclink_dev *rdev)
{
	devlink_register(priv_to_devlink(rdev));
	WRITE_ONCE(rdev->health.registered, true);
}

/* Health reports only while registered: a running one finishes first */
void rclink_devlink_unregister(struct rclink_dev *rdev)
{
	WRITE_ONCE(rdev->health.registered, false);
	flush_work(&rdev->health.report_work);
	flush_work(&rdev->health.t3_work);
	devlink_unregister(priv_to_devlink(rdev));
}
