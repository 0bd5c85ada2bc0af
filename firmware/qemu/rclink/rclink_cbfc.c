/*
 * rclink board model: CBFC (seed 000, CBFC 流量控制) of the IP and the
 * MAC side of it (Documentation/hw/shim.rst, "CBFC"), and the IP's
 * receive buffer and XOFF requests under PFC (RX 方向反压).
 *
 * Flows: the seven physical flows of the seed (TYPE1 REQ banks 0..3,
 * ACK+CNP, TYPE2, TYPE3), each mapped to its VC by AFH_CFG_EN.*_cbfc.  A
 * flow is under CBFC when stop_cbfc_en is 0 and its enable bit is 1; it
 * sends once its VC has been loaded (SHIM_CBFC_CTRL.load,
 * MAC2TX_CBFC_RST_I).
 *
 * TX (the IP): a VC has cf credits, credit_limit after a load.  A frame
 * costs ceil((length + pkt_ovhd) / credit_size) credits (at least one).
 * A flow may send while cf is at least credit_uf_limit maximum frames of
 * it (工作阶段: 流控触发) and software_ctrl_cbfc_vc_status has its VC;
 * TYPE1 REQs with type1_dyn_uf_limit_cbfc_en while cf holds one maximum
 * frame (动态下限调节).  ACKs wait like REQs; a CNP is sent and charged
 * even without credits (a CNP that waited would report old congestion).
 *
 * RX (the MAC side): every frame of a flow under CBFC is charged to its
 * VC on arrival and freed when its data has gone to the host.  The buffer
 * is the IP's: a TYPE1 REQ is checked and acknowledged by the transport,
 * then its data goes to the host or, when the host has no room (or data
 * of the VC already waits), into the VC's buffer; TYPE2 data and TYPE3
 * frames likewise.  What waits leaves in order when the host posts room.
 * Data that would take the buffer past credit_limit is dropped and
 * counted: the sender did not keep to its credits.
 *
 * Credit return: an update frame (formats: CBFC) carries, per loaded VC,
 * the credits this board has sent and the credits its receive buffer has
 * freed, both as running totals.  The receiver takes the partner's SENT
 * as the base of its own totals, so FREED counts in the partner's SENT:
 * the partner's MAC returns the growth of FREED to its IP
 * (MAC2TX_CBFC_VLD_I/NUM_I); a receiver that sees SENT run ahead of what
 * it received frees the difference (frames lost on the wire: the wire
 * keeps order, so they can no longer arrive).  Each board has an epoch,
 * new at each reset, that its updates carry with the partner's epoch its
 * FREED counts in: a new epoch of the partner makes the receiver take a
 * new base (all it sent is free but what waits in the buffer), and FREED
 * counts only when it is of this board's epoch.  So a reset of either
 * board leaves both sides' credits exact.  Updates go update_us after
 * credits were freed, and every sync_us while anything changed in the
 * last three periods or the partner has not based this board's totals.
 *
 * PFC (no CBFC): a flow with XON_THR_RDMA.tx_*_pfc_en keeps what the host
 * has no room for in the IP's receive buffer, in 64-byte words: TYPE1 and
 * TYPE2 in their priority's (2^TYPE1_RX_BUF_AW deep), TYPE3 in the NONR
 * buffer (NONR_RX_DEPTH deep, seed 000's parameter table), and the IP asks
 * the MAC for XOFF of the priority from the XOFF threshold down to XON
 * (XON_THR_RDMA; TYPE3: XON_THR_NON_RDMA; TX_PFC_REQ_O, rclink_mac.c).  A
 * flow with rx_*_pfc_en stops while the peer pauses its priority.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "rclink_core.h"
#include "rclink_type1.h"
#include "trace.h"

#define CBFC_VCS        RCLINK_CBFC_VCS
#define CBFC_FLOWS      RCLINK_CBFC_FLOWS
#define CBFC_HDR_MAX    128     /* L2..RH headers, ICRC, FCS: at most */
#define CBFC_FRAME      (14 + RCLINK_CBFC_BYTES)
#define CBFC_QUIET      3
#define PFC_WORD        (RCLINK_PARAM_DW_DEFAULT / 8)
#define PFC_DEPTH       (1u << RCLINK_PARAM_TYPE1_RX_BUF_AW_DEFAULT)
#define PFC_DEPTH_NONR  RCLINK_PARAM_NONR_RX_DEPTH_DEFAULT

static const uint16_t cbfc_sizes[8] = { 32, 64, 128, 256, 1024, 2048 };

/*
 * The seven flows: AFH_CFG_EN's CBFC enable and VC field of each, and
 * XON_THR_RDMA's PFC enables (tx: the IP asks the MAC for XOFF of the
 * flow's priority, TX_PFC_REQ_O; rx: the flow stops while the MAC was
 * paused, RX_PFC_REQ_I).
 */
#define CBFC_FLOW(f, af, xf) { \
    .cbfc_en = RCLINK_AFH_CFG_EN_RX_##af##_CBFC_EN, \
    .cbfc_vc = RCLINK_AFH_CFG_EN_##af##_CBFC, \
    .pfc_tx_en = RCLINK_XON_THR_RDMA_TX_##xf##_PFC_EN, \
    .pfc_rx_en = RCLINK_XON_THR_RDMA_RX_##xf##_PFC_EN, \
    .name = f }

static const struct {
    uint64_t cbfc_en, cbfc_vc, pfc_tx_en, pfc_rx_en;
    const char *name;
} cbfc_flows[CBFC_FLOWS] = {
    CBFC_FLOW("type1 bank0", TYPE1_REQ_BANK0, TYPE1_REQ_BANK0),
    CBFC_FLOW("type1 bank1", TYPE1_REQ_BANK1, TYPE1_REQ_BANK1),
    CBFC_FLOW("type1 bank2", TYPE1_REQ_BANK2, TYPE1_REQ_BANK2),
    CBFC_FLOW("type1 bank3", TYPE1_REQ_BANK3, TYPE1_REQ_BANK3),
    CBFC_FLOW("ack/cnp", TYPE1_ACK, ACK),
    CBFC_FLOW("type2", TYPE2, TYPE2),
    CBFC_FLOW("type3", TYPE3, NON_RDMA),
};

static unsigned cbfc_flow_vc(RclinkCore *c, unsigned flow)
{
    return RF_GET(cbfc_flows[flow].cbfc_vc,
                  rclink_get(c, RCLINK_AFH_CFG_EN));
}

/*
 * Is the flow under CBFC now?  Its VC may not be loaded: then it has no
 * credits and does not send (MAC2TX_CBFC_RESET_I: "设 CBFC 为阻塞状态").
 */
static bool cbfc_active(RclinkCore *c, unsigned flow)
{
    uint64_t afh = rclink_get(c, RCLINK_AFH_CFG_EN);

    return !(afh & RCLINK_AFH_CFG_EN_STOP_CBFC_EN) &&
           (afh & cbfc_flows[flow].cbfc_en);
}

/* Under CBFC with its VC loaded: the receive side counts its credits */
static bool cbfc_loaded(RclinkCore *c, unsigned flow)
{
    return cbfc_active(c, flow) &&
           (c->cbfc.loaded >> cbfc_flow_vc(c, flow) & 1);
}

/*
 * Is the flow lossless through PFC now?  Without CBFC, a flow whose
 * tx_*_pfc_en is set keeps what the host has no room for in the IP's
 * receive buffer and asks the MAC for XOFF above the XOFF threshold
 * (RX 方向反压).  ACKs never wait.
 */
static bool pfc_lossless(RclinkCore *c, unsigned flow)
{
    return flow != RCLINK_CBFC_FLOW_ACK && !cbfc_active(c, flow) &&
           (rclink_get(c, RCLINK_XON_THR_RDMA) &
            cbfc_flows[flow].pfc_tx_en);
}

/* The XON and XOFF thresholds of a flow, 64-byte words */
static void pfc_thr(RclinkCore *c, unsigned flow, uint32_t *xon,
                    uint32_t *xoff)
{
    uint64_t r = flow == RCLINK_CBFC_FLOW_TYPE3 ?
                 rclink_get(c, RCLINK_XON_THR_NON_RDMA) :
                 rclink_get(c, RCLINK_XON_THR_RDMA);

    /* the two registers keep their thresholds in the same bits */
    *xon = RF_GET(RCLINK_XON_THR_RDMA_XON_THR_RDMA, r);
    *xoff = RF_GET(RCLINK_XON_THR_RDMA_XOFF_THR_RDMA, r);
}

/* The words a lossless flow's receive buffer holds under PFC, and its depth */
static uint32_t *pfc_buf(RclinkCbfc *b, unsigned flow, unsigned v,
                         uint32_t *depth)
{
    if (flow == RCLINK_CBFC_FLOW_TYPE3) {
        *depth = PFC_DEPTH_NONR;
        return &b->pfc_nonr;
    }
    *depth = PFC_DEPTH;
    return &b->pfc_rdma[v];
}

/*
 * TX_PFC_REQ_O: a priority is requested (XOFF) while a lossless flow of it
 * holds its XOFF threshold or more in its buffer, until it is down to XON.
 */
static void pfc_update(RclinkCore *c)
{
    RclinkCbfc *b = &c->cbfc;
    uint8_t hi = 0, mid = 0, req;
    uint32_t xon, xoff, held, depth;
    unsigned f, v;

    for (f = 0; f < CBFC_FLOWS; f++) {
        if (!pfc_lossless(c, f)) {
            continue;
        }
        v = cbfc_flow_vc(c, f);
        pfc_thr(c, f, &xon, &xoff);
        held = *pfc_buf(b, f, v, &depth);
        if (xoff && held >= xoff) {
            hi |= 1u << v;
        } else if (held > xon) {
            mid |= 1u << v;
        }
    }
    /* XOFF from the XOFF threshold on, kept down to XON (or PFC off) */
    req = hi | (b->pfc_req & mid);
    if (req != b->pfc_req) {
        trace_rclink_pfc_req(b->pfc_req, req);
        rclink_mac_signal_req(c, b->pfc_req, req);
        b->pfc_req = req;
    }
}

/* The credits a frame of len bytes costs on VC v */
static uint32_t cbfc_credits(RclinkCore *c, unsigned v, size_t len)
{
    uint64_t cfg = rclink_get(c, RCLINK_SHIM_CBFC_VC_CFG(v));
    unsigned size = cbfc_sizes[RF_GET(RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE,
                                      cfg)];
    int32_t ovhd = sextract64(cfg, ctz64(RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD),
                              ctpop64(RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD));
    int64_t bytes = (int64_t)len + ovhd;

    if (!size || bytes <= 0) {
        return 1;
    }
    return MAX(DIV_ROUND_UP(bytes, size), 1);
}

static uint32_t cbfc_limit(RclinkCore *c, unsigned v)
{
    return RF_GET(RCLINK_SHIM_CBFC_VC_CFG_CREDIT_LIMIT,
                  rclink_get(c, RCLINK_SHIM_CBFC_VC_CFG(v)));
}

/* The largest frame of a flow */
static size_t cbfc_frame_max(unsigned flow)
{
    switch (flow) {
    case RCLINK_CBFC_FLOW_ACK:
        return CBFC_HDR_MAX;
    case RCLINK_CBFC_FLOW_TYPE2:
        return RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT + CBFC_HDR_MAX;
    case RCLINK_CBFC_FLOW_TYPE3:
        return RCLINK_MD_TX_MAX_FRAME;
    default:
        return RCLINK_PARAM_TYPE1_PKT_LEN_DEFAULT + CBFC_HDR_MAX;
    }
}

/* credit_uf_limit of a flow (in maximum frames), and its dyn enable */
static unsigned cbfc_uf(RclinkCore *c, unsigned flow, bool *dyn)
{
    uint64_t afh = rclink_get(c, RCLINK_AFH_CFG_EN);

    *dyn = false;
    switch (flow) {
    case RCLINK_CBFC_FLOW_ACK:
        return RF_GET(RCLINK_AFH_CFG_EN_ACK_CREDIT_UF_LIMIT_CBFC, afh);
    case RCLINK_CBFC_FLOW_TYPE2:
        return RF_GET(RCLINK_AFH_CFG_EN_TYPE2_CREDIT_UF_LIMIT_CBFC, afh);
    case RCLINK_CBFC_FLOW_TYPE3:
        return RF_GET(RCLINK_AFH_CFG_EN_TYPE3_CREDIT_UF_LIMIT_CBFC, afh);
    default:
        *dyn = afh & RCLINK_AFH_CFG_EN_TYPE1_DYN_UF_LIMIT_CBFC_EN;
        return RF_GET(RCLINK_AFH_CFG_EN_TYPE1_CREDIT_UF_LIMIT_CBFC, afh);
    }
}

/* The VC status of a flow (credits at or above its under-flow limit) */
static bool cbfc_flow_on(RclinkCore *c, unsigned flow, bool *dyn_ok)
{
    unsigned v = cbfc_flow_vc(c, flow);
    uint32_t max = cbfc_credits(c, v, cbfc_frame_max(flow));
    uint8_t sw = RF_GET(RCLINK_AFH_CFG_EN_SOFTWARE_CTRL_CBFC_VC_STATUS,
                        rclink_get(c, RCLINK_AFH_CFG_EN));
    bool dyn;
    unsigned uf = cbfc_uf(c, flow, &dyn);

    *dyn_ok = false;
    if (!(sw >> v & 1) || !(c->cbfc.loaded >> v & 1)) {
        return false;
    }
    /* uf 0 is forbidden (the credits leak): the limit does not apply */
    if (c->cbfc.cf[v] >= (int64_t)uf * max) {
        return true;
    }
    *dyn_ok = dyn && c->cbfc.cf[v] >= max;
    return false;
}

/* Recompute the VC status bits; count the VCs that went off */
static void cbfc_status(RclinkCore *c)
{
    uint8_t on = 0, off;
    unsigned f;
    bool dyn;

    for (f = 0; f < CBFC_FLOWS; f++) {
        if (cbfc_active(c, f) && cbfc_flow_on(c, f, &dyn)) {
            on |= 1u << cbfc_flow_vc(c, f);
        }
    }
    off = c->cbfc.on & ~on;
    for (f = 0; f < CBFC_VCS; f++) {
        if (off >> f & 1) {
            rclink_count(c, RCLINK_SHIM_CBFC_TX_BLOCKED(f));
        }
    }
    c->cbfc.on = on;
}

/* Credits came back or the status may have changed: what waits goes. */
static void cbfc_kick(RclinkCore *c)
{
    cbfc_status(c);
    rclink_t3_tx_head_write(c);
    rclink_t1_kick(c);
}

/*
 * May the flow send now?  CBFC: its VC's credits; else PFC: not while the
 * peer pauses its priority and rx_*_pfc_en says it obeys (RX_PFC_REQ_I);
 * the paused wait is kicked when the pause ends.
 */
bool rclink_cbfc_tx_ok(RclinkCore *c, unsigned flow)
{
    uint8_t prio;
    bool dyn;

    if (cbfc_active(c, flow)) {
        return cbfc_flow_on(c, flow, &dyn) || dyn;
    }
    if (!(rclink_get(c, RCLINK_XON_THR_RDMA) & cbfc_flows[flow].pfc_rx_en)) {
        return true;
    }
    prio = 1u << cbfc_flow_vc(c, flow);
    /* paused: the pause timer kicks the work when the pause ends */
    if (rclink_mac_paused(c) & prio) {
        return false;
    }
    return true;
}

void rclink_cbfc_tx_sent(RclinkCore *c, unsigned flow, size_t len)
{
    RclinkCbfc *b = &c->cbfc;
    unsigned v;
    uint32_t cr;

    if (!cbfc_loaded(c, flow)) {
        return;
    }
    v = cbfc_flow_vc(c, flow);
    cr = cbfc_credits(c, v, len);
    b->cf[v] -= cr;
    b->sent[v] += cr;
    b->quiet = 0;
    cbfc_status(c);
    trace_rclink_cbfc_tx(flow, v, cr, b->cf[v]);
}

/* ---------------------------------------------------------- updates */

static void cbfc_send_update(RclinkCore *c)
{
    RclinkCbfc *b = &c->cbfc;
    uint8_t f[CBFC_FRAME] = { 0 };
    uint64_t w;
    unsigned v;

    timer_del(&b->upd_timer);
    if (!c->link_up || !b->loaded) {
        return;
    }
    rclink_put_mac(f, rclink_mac_addr(c, RCLINK_TX_FC_DADDR_HI,
                                      RCLINK_TX_FC_DADDR_LO));
    rclink_put_mac(f + 6, rclink_mac_addr(c, RCLINK_TX_FC_SADDR_HI,
                                          RCLINK_TX_FC_SADDR_LO));
    stw_be_p(f + 12, RCLINK_CBFC_ETH_TYPE);
    w = RF_SET(RCLINK_CBFC_OPCODE, 0, RCLINK_CBFC_OP_UPDATE);
    w = RF_SET(RCLINK_CBFC_VC_MASK, w, b->loaded);
    w = RF_SET(RCLINK_CBFC_BASED, w, b->based & b->loaded);
    w = RF_SET(RCLINK_CBFC_EPOCH, w, b->epoch);
    w = RF_SET(RCLINK_CBFC_PEER_EPOCH, w, b->peer_epoch);
    stq_be_p(f + 14, w);
    for (v = 0; v < CBFC_VCS; v++) {
        if (b->loaded >> v & 1) {
            stq_be_p(f + 22 + 8 * v,
                     RF_SET(RCLINK_CBFC_FREED,
                            RF_SET(RCLINK_CBFC_SENT, 0, b->sent[v]),
                            b->freed[v]));
        }
    }
    rclink_count(c, RCLINK_SHIM_CBFC_UPD_TX);
    trace_rclink_cbfc_update_tx(b->loaded);
    rclink_wire_send(c, f, sizeof(f));
}

/* Credits were freed: an update goes within update_us */
static void cbfc_freed(RclinkCore *c)
{
    unsigned us = RF_GET(RCLINK_SHIM_CBFC_TIMING_UPDATE_US,
                         rclink_get(c, RCLINK_SHIM_CBFC_TIMING));

    c->cbfc.quiet = 0;
    if (!us) {
        cbfc_send_update(c);
    } else if (!timer_pending(&c->cbfc.upd_timer)) {
        timer_mod(&c->cbfc.upd_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + us * SCALE_US);
    }
}

static void cbfc_upd_timer(void *opaque)
{
    cbfc_send_update(opaque);
}

static void cbfc_sync_arm(RclinkCore *c)
{
    unsigned us = RF_GET(RCLINK_SHIM_CBFC_TIMING_SYNC_US,
                         rclink_get(c, RCLINK_SHIM_CBFC_TIMING));

    if (us && c->cbfc.loaded) {
        timer_mod(&c->cbfc.sync_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + us * SCALE_US);
    } else {
        timer_del(&c->cbfc.sync_timer);
    }
}

/*
 * Periodic updates: while anything changed in the last three periods, and
 * while the partner has not been heard since this board's reset or has
 * not taken this board's totals as its base on a VC both have loaded (a
 * lost update must not leave a flow without its credits for good).
 */
static void cbfc_sync_timer(void *opaque)
{
    RclinkCore *c = opaque;
    RclinkCbfc *b = &c->cbfc;
    bool pending = !b->peer_epoch ||
                   (b->loaded & b->peer_loaded & ~b->acked);

    if (timer_pending(&b->upd_timer)) {
        /*
         * The update of freed credits is due: it goes now and is not one
         * of the periods after the change (after a host stall both timers
         * are overdue, and the periods must not shrink by one).
         */
        cbfc_send_update(c);
    } else if (b->quiet < CBFC_QUIET) {
        b->quiet++;
        cbfc_send_update(c);
    } else if (pending) {
        cbfc_send_update(c);
    }
    cbfc_sync_arm(c);
}

/*
 * RX: the partner's SENT on VC v becomes the base of recv and freed.
 * Everything it sent is free but what waits in the buffer (of whichever
 * epoch: it holds the room), which frees its credits when it leaves.
 */
static void cbfc_rebase(RclinkCbfc *b, unsigned v, uint32_t sent)
{
    RclinkCbfcFrame *fr;
    uint32_t held = 0;

    QSIMPLEQ_FOREACH(fr, &b->q[v], next) {
        if (!fr->pfc) {
            held += fr->credits;
        }
    }
    b->recv[v] = sent;
    b->freed[v] = sent - held;
    b->based |= 1u << v;
}

/* An update frame of the link partner (after the MAC's DA check) */
void rclink_cbfc_update_rx(RclinkCore *c, const uint8_t *buf, size_t len)
{
    RclinkCbfc *b = &c->cbfc;
    uint64_t w;
    uint16_t epoch;
    uint8_t mask, ours;
    bool more = false, freed = false;
    unsigned v;

    if (len < CBFC_FRAME) {
        rclink_count(c, RCLINK_SHIM_MAC_CTRL_DROP);
        trace_rclink_rx_drop("cbfc update: length", len);
        return;
    }
    rclink_count(c, RCLINK_SHIM_CBFC_UPD_RX);
    w = ldq_be_p(buf + 14);
    b->peer_loaded = RF_GET(RCLINK_CBFC_VC_MASK, w);
    mask = b->peer_loaded & b->loaded;
    epoch = RF_GET(RCLINK_CBFC_EPOCH, w);
    /* the VCs whose FREED counts this board's SENT of this epoch */
    ours = RF_GET(RCLINK_CBFC_PEER_EPOCH, w) == b->epoch ?
           RF_GET(RCLINK_CBFC_BASED, w) : 0;
    b->acked = ours & b->peer_loaded;
    if (epoch != b->peer_epoch) {
        if (b->peer_epoch) {
            rclink_count(c, RCLINK_SHIM_CBFC_RESYNC);
        }
        trace_rclink_cbfc_epoch(b->peer_epoch, epoch);
        b->peer_epoch = epoch;
        b->based = 0;
        freed = true;
    }
    for (v = 0; v < CBFC_VCS; v++) {
        uint64_t e = ldq_be_p(buf + 22 + 8 * v);
        uint32_t sent = RF_GET(RCLINK_CBFC_SENT, e);
        uint32_t fr = RF_GET(RCLINK_CBFC_FREED, e);
        int32_t d;

        if (!(mask >> v & 1)) {
            continue;
        }
        /* TX: MAC2TX_CBFC_VLD_I/NUM_I, the growth of the partner's FREED */
        if (ours >> v & 1) {
            d = fr - b->seen[v];
            b->cf[v] += d;
            if (d > 0) {
                more = true;
            } else if (d < 0) {
                /*
                 * Taken back: the partner's new base counts what waits in
                 * its buffer from before (this board's reset), or a frame
                 * it had returned twice (reordered on the wire).
                 */
                rclink_count(c, RCLINK_SHIM_CBFC_RESYNC);
            }
            b->seen[v] = fr;
        }
        /* RX: what the partner sent and never arrived is free again */
        if (!(b->based >> v & 1)) {
            cbfc_rebase(b, v, sent);
            freed = true;
            continue;
        }
        d = sent - b->recv[v];
        if (d > 0) {
            b->recv[v] += d;
            b->freed[v] += d;
            rclink_set(c, RCLINK_SHIM_CBFC_RECOVERED,
                       rclink_get(c, RCLINK_SHIM_CBFC_RECOVERED) + d);
            freed = true;
        } else if (d < 0) {
            /* a frame reordered on the wire came after its recovery: the
             * new base takes back its second return */
            cbfc_rebase(b, v, sent);
            rclink_count(c, RCLINK_SHIM_CBFC_RESYNC);
            freed = true;
        }
    }
    trace_rclink_cbfc_update_rx(mask, more);
    if (freed) {
        cbfc_freed(c);
    }
    if (more) {
        cbfc_kick(c);
    }
}

/* --------------------------------------------------------------- RX */

/* A frame of the flow arrived: charged to its VC while it is received. */
void rclink_cbfc_rx_enter(RclinkCore *c, unsigned flow, size_t len)
{
    RclinkCbfc *b = &c->cbfc;

    if (b->replay) {
        return;
    }
    b->flow = -1;
    b->cur_held = false;
    if (pfc_lossless(c, flow)) {
        /* PFC: the data waits in 64-byte words, no credits */
        b->flow = flow;
        b->cur_pfc = true;
        b->cur_credits = DIV_ROUND_UP(len, PFC_WORD);
        return;
    }
    if (!cbfc_loaded(c, flow)) {
        return;
    }
    b->flow = flow;
    b->cur_pfc = false;
    b->cur_credits = cbfc_credits(c, cbfc_flow_vc(c, flow), len);
    b->recv[cbfc_flow_vc(c, flow)] += b->cur_credits;
}

/*
 * The frame's data is about to go to the host (room: whether the host has
 * room for it now).  Under CBFC it goes into the VC's receive buffer
 * instead when the host has no room or earlier data waits there.
 */
int rclink_cbfc_rx_defer(RclinkCore *c, unsigned kind, uint32_t id,
                         const uint8_t *data, size_t len, bool room)
{
    RclinkCbfc *b = &c->cbfc;
    RclinkCbfcFrame *fr;
    uint32_t *pfc = NULL, depth;
    unsigned v;

    if (b->flow < 0) {
        return RCLINK_CBFC_DIRECT;
    }
    if (b->replay) {
        /* the head of the buffer again: it stays while there is no room */
        if (!room) {
            b->cur_held = true;
            return RCLINK_CBFC_QUEUED;
        }
        return RCLINK_CBFC_DIRECT;
    }
    v = cbfc_flow_vc(c, b->flow);
    if (room && QSIMPLEQ_EMPTY(&b->q[v])) {
        return RCLINK_CBFC_DIRECT;
    }
    if (b->cur_pfc) {
        pfc = pfc_buf(b, b->flow, v, &depth);
    }
    if (pfc ? *pfc + b->cur_credits > depth :
        b->held[v] + b->cur_credits > cbfc_limit(c, v)) {
        /* CBFC: beyond the partner's credits; PFC: XOFF came too late */
        rclink_count(c, RCLINK_SHIM_CBFC_RX_DROP(v));
        trace_rclink_rx_drop("lossless: receive buffer full", len);
        return RCLINK_CBFC_FULL;
    }
    fr = g_malloc(sizeof(*fr) + len);
    fr->kind = kind;
    fr->pfc = b->cur_pfc;
    fr->flow = b->flow;
    fr->id = id;
    fr->credits = b->cur_credits;
    fr->len = len;
    memcpy(fr->data, data, len);
    QSIMPLEQ_INSERT_TAIL(&b->q[v], fr, next);
    b->held[v] += fr->credits;
    if (pfc) {
        *pfc += fr->credits;
    }
    b->cur_held = true;
    trace_rclink_cbfc_rx_hold(cbfc_flows[b->flow].name, v, b->held[v]);
    if (b->cur_pfc) {
        pfc_update(c);
    }
    return RCLINK_CBFC_QUEUED;
}

/* The frame's receive is over: unless its data waits, its credits free. */
void rclink_cbfc_rx_done(RclinkCore *c)
{
    RclinkCbfc *b = &c->cbfc;

    if (b->flow < 0 || b->replay) {
        return;
    }
    if (!b->cur_held && !b->cur_pfc) {
        b->freed[cbfc_flow_vc(c, b->flow)] += b->cur_credits;
        cbfc_freed(c);
    }
    b->flow = -1;
}

/* Hand waiting data to the host; false when it still has no room. */
static bool cbfc_deliver(RclinkCore *c, unsigned flow, RclinkCbfcFrame *fr)
{
    RclinkCbfc *b = &c->cbfc;

    switch (fr->kind) {
    case RCLINK_CBFC_T1:
        if (!rclink_dmaq_rx_accept(c, fr->id, fr->data, fr->len, true)) {
            return false;
        }
        rclink_dmaq_rx_accept(c, fr->id, fr->data, fr->len, false);
        return true;
    case RCLINK_CBFC_T2:
        if (!rclink_dmaq_t2_accept(c, fr->id, fr->data, fr->len, true)) {
            return false;
        }
        rclink_dmaq_t2_accept(c, fr->id, fr->data, fr->len, false);
        return true;
    default:
        /* TYPE3: the MD path again, which defers it while there is no MD */
        b->replay = true;
        b->flow = flow;
        b->cur_held = false;
        b->cur_pfc = fr->pfc;
        rclink_t3_receive(c, fr->data, fr->len);
        b->replay = false;
        b->flow = -1;
        return !b->cur_held;
    }
}

/* The host posted room: the waiting data goes, in order, while it lasts. */
void rclink_cbfc_rx_drain(RclinkCore *c)
{
    RclinkCbfc *b = &c->cbfc;
    RclinkCbfcFrame *fr;
    unsigned v, f;
    bool freed = false, moved = false;

    if (b->replay || rclink_dmaq_rx_held(c)) {
        /* (behind a packet waiting on RX_M, nothing moves) */
        return;
    }
    for (f = 0; f < CBFC_FLOWS; f++) {
        v = cbfc_flow_vc(c, f);
        while ((fr = QSIMPLEQ_FIRST(&b->q[v])) &&
               cbfc_deliver(c, fr->flow, fr)) {
            QSIMPLEQ_REMOVE_HEAD(&b->q[v], next);
            b->held[v] -= fr->credits;
            if (fr->pfc) {
                uint32_t depth;

                *pfc_buf(b, fr->flow, v, &depth) -= fr->credits;
            } else {
                b->freed[v] += fr->credits;
                freed = true;
            }
            moved = true;
            g_free(fr);
        }
    }
    if (moved) {
        rclink_dmaq_irq(c);
        pfc_update(c);
    }
    if (freed) {
        cbfc_freed(c);
    }
}

static void cbfc_flush(RclinkCore *c)
{
    RclinkCbfc *b = &c->cbfc;
    RclinkCbfcFrame *fr;
    unsigned v;

    for (v = 0; v < CBFC_VCS; v++) {
        while ((fr = QSIMPLEQ_FIRST(&b->q[v]))) {
            QSIMPLEQ_REMOVE_HEAD(&b->q[v], next);
            g_free(fr);
        }
        b->held[v] = 0;
        b->pfc_rdma[v] = 0;
    }
    b->pfc_nonr = 0;
}

/* ------------------------------------------------------------ registers */

/* SHIM_CBFC_CTRL written: MAC2TX_CBFC_RESET_I, MAC2TX_CBFC_RST_I */
void rclink_cbfc_ctrl(RclinkCore *c, uint64_t val)
{
    RclinkCbfc *b = &c->cbfc;
    uint8_t load = RF_GET(RCLINK_SHIM_CBFC_CTRL_LOAD, val);
    unsigned v;

    if (val & RCLINK_SHIM_CBFC_CTRL_RESET) {
        /* every VC blocked until it is loaded again */
        b->loaded = 0;
        memset(b->cf, 0, sizeof(b->cf));
    }
    for (v = 0; v < CBFC_VCS; v++) {
        uint64_t cfg = rclink_get(c, RCLINK_SHIM_CBFC_VC_CFG(v));

        if (!(load >> v & 1)) {
            continue;
        }
        if (!cbfc_sizes[RF_GET(RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE, cfg)]) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: SHIM_CBFC_VC_CFG(%u) "
                          "credit_size %u is not a size: VC not loaded\n", v,
                          (unsigned)RF_GET(RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE,
                                           cfg));
            b->loaded &= ~(1u << v);
            continue;
        }
        /*
         * The limit less what is still out: the partner's totals run on
         * across our load, and what it has not freed yet comes back as
         * the growth of its FREED.
         */
        b->cf[v] = (int64_t)cbfc_limit(c, v) - (int32_t)(b->sent[v] -
                                                          b->seen[v]);
        b->loaded |= 1u << v;
    }
    trace_rclink_cbfc_ctrl(load, !!(val & RCLINK_SHIM_CBFC_CTRL_RESET),
                           b->loaded);
    cbfc_sync_arm(c);
    /* the partner learns our totals (and takes them as its base) */
    b->quiet = 0;
    cbfc_send_update(c);
    cbfc_kick(c);
}

/* AFH_CFG_EN or SHIM_CBFC_TIMING changed */
void rclink_cbfc_cfg_changed(RclinkCore *c)
{
    pfc_update(c);
    cbfc_sync_arm(c);
    cbfc_kick(c);
    rclink_cbfc_rx_drain(c);
}

static uint64_t cbfc_cf16(RclinkCore *c, unsigned flow)
{
    int64_t cf = c->cbfc.cf[cbfc_flow_vc(c, flow)];

    return cf < 0 ? 0 : MIN(cf, 0xffff);
}

/* Registers whose value is the state here; true when off is one */
bool rclink_cbfc_read(RclinkCore *c, hwaddr off, uint64_t *v)
{
    unsigned n;

    if (off == RCLINK_SHIM_CBFC_STATUS) {
        cbfc_status(c);
        *v = RF_SET(RCLINK_SHIM_CBFC_STATUS_LOADED,
                    RF_SET(RCLINK_SHIM_CBFC_STATUS_VC_ON, 0, c->cbfc.on),
                    c->cbfc.loaded);
        return true;
    }
    if (off == RCLINK_DMAQ_DFX_CBFC_CF0) {
        *v = cbfc_cf16(c, 0) | cbfc_cf16(c, 1) << 16 |
             cbfc_cf16(c, 2) << 32 | cbfc_cf16(c, 3) << 48;
        return true;
    }
    if (off == RCLINK_DMAQ_DFX_CBFC_CF1) {
        *v = cbfc_cf16(c, RCLINK_CBFC_FLOW_ACK) |
             cbfc_cf16(c, RCLINK_CBFC_FLOW_TYPE2) << 16 |
             cbfc_cf16(c, RCLINK_CBFC_FLOW_TYPE3) << 32;
        return true;
    }
    if (off >= RCLINK_SHIM_CBFC_RX_BUF(0) &&
        off < RCLINK_SHIM_CBFC_RX_BUF(CBFC_VCS)) {
        n = (off - RCLINK_SHIM_CBFC_RX_BUF(0)) / 8;
        *v = c->cbfc.held[n];
        return true;
    }
    return false;
}

void rclink_cbfc_init(RclinkCore *c)
{
    unsigned v;

    for (v = 0; v < CBFC_VCS; v++) {
        QSIMPLEQ_INIT(&c->cbfc.q[v]);
    }
    c->cbfc.flow = -1;
    /* epochs of two runs of the board differ (the partner may live on) */
    c->cbfc.epoch = g_random_int_range(1, UINT16_MAX);
    timer_init_ns(&c->cbfc.upd_timer, QEMU_CLOCK_VIRTUAL, cbfc_upd_timer, c);
    timer_init_ns(&c->cbfc.sync_timer, QEMU_CLOCK_VIRTUAL, cbfc_sync_timer,
                  c);
}

void rclink_cbfc_reset(RclinkCore *c)
{
    RclinkCbfc *b = &c->cbfc;

    timer_del(&b->upd_timer);
    timer_del(&b->sync_timer);
    cbfc_flush(c);
    memset(b->cf, 0, sizeof(b->cf));
    memset(b->sent, 0, sizeof(b->sent));
    memset(b->seen, 0, sizeof(b->seen));
    memset(b->recv, 0, sizeof(b->recv));
    memset(b->freed, 0, sizeof(b->freed));
    b->loaded = b->on = b->pfc_req = b->based = 0;
    b->peer_loaded = b->acked = 0;
    /* a new epoch: the partner takes this board's totals as a new base */
    b->epoch = b->epoch == UINT16_MAX ? 1 : b->epoch + 1;
    b->peer_epoch = 0;
    b->flow = -1;
    b->replay = b->cur_held = false;
    b->quiet = 0;
}

void rclink_cbfc_fini(RclinkCore *c)
{
    timer_del(&c->cbfc.upd_timer);
    timer_del(&c->cbfc.sync_timer);
    cbfc_flush(c);
}
