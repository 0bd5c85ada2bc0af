/*
 * rclink board model: TYPE2, the IP's unreliable multicast (seed 000, TYPE2;
 * Documentation/hw/shim.rst, "TYPE2: multicast").
 *
 * A MCAST WQE chain of the send queue is one packet to group n: it waits in
 * one of TYPE2_OST_N buffers of the IP (rclink_dmaq.c) until the TYPE2 rate
 * (TYPE2_SPEED) and the MAC's multicast credits let it go, in the header
 * format of AFH_CFG_EN with DA = TYPE2_DA_n (Key_words
 * M = 1 in AFH_GEN2_16b), the RH carrying the group in DEST_QP and a PSN per
 * group, no ICRC.  A TYPE2 frame from the wire goes to the joined group whose
 * TYPE2_DA_n is its DA (DMAQ_T2_JOIN), as one RECV_MCAST message; the PSNs
 * of each (group, sender) show what was lost.  Nothing is retransmitted.
 * A sender is the low 10 bits of its MAC, what the IP tells the shim
 * (TYPE1_2_RX_M_SA_O[9:0]).  On a bridged RTL board the RTL shim checks
 * the join and follows the senders: the IP hands it the group of the DA
 * (RCLINK_AFH_T2_GROUPS for none), the sender and the PSN.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "rclink_type1.h"
#include "trace.h"

#define T2_GROUPS       RCLINK_AFH_T2_GROUPS
#define T2_PKT_LEN      RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT
#define T2_FRAME_MAX    (14 + 4 + 20 + 8 + RCLINK_RH_BYTES + T2_PKT_LEN + 3)
#define T2_RH_PKT_LEN_MAX 127
#define T2_CELL         128     /* a MAC multicast credit */

bool rclink_t2_active(RclinkCore *c)
{
    unsigned fmt = rclink_t1_format(c);

    return c->t1 && (rclink_get(c, RCLINK_RDMA_EN) & RCLINK_RDMA_EN_TYPE2_EN) &&
           fmt != RCLINK_T1_FMT_NONE;
}

/* IRQ_INFO TYPE2 code and sub type, and its INTR_STATUS bit (or 0) */
void rclink_t2_irq_info(RclinkCore *c, unsigned code, unsigned sub,
                        uint64_t intr)
{
    uint64_t info = RF_SET(RCLINK_IRQ_INFO_TYPE, 0, RCLINK_IRQ_TYPE2);

    info = RF_SET(RCLINK_IRQ_INFO_CODE, info, code);
    info = RF_SET(RCLINK_IRQ_INFO_T2_SUBTYPE, info, sub);
    rclink_event(c, RCLINK_EVT_SRC_IRQ_INFO, info);
    if (intr) {
        rclink_raise_causes(c, intr, 0, 0);
    }
}

static uint64_t rclink_t2_da(RclinkCore *c, unsigned g)
{
    return RF_GET(RCLINK_TYPE2_DA_0_TYPE2_DA,
                  rclink_get(c, RCLINK_TYPE2_DA_0 + 8 * g));
}

/* The frame of one packet (segment header and data, plen bytes) to group
 * g with the group's next PSN, into f; its length. */
static size_t rclink_t2_frame(RclinkCore *c, unsigned g, const uint8_t *pl,
                              size_t plen, uint8_t *f)
{
    RclinkT2 *t2 = &c->t1->t2;
    unsigned fmt = rclink_t1_format(c);
    uint8_t tc = RF_GET(RCLINK_TRAFFIC_CLASS_TYPE2_REQ_TC,
                        rclink_get(c, RCLINK_TRAFFIC_CLASS));
    uint64_t ports = rclink_get(c, RCLINK_UDP_PORT_MEM2);
    size_t padded = ROUND_UP(plen, 4), pkt = RCLINK_RH_BYTES + padded;
    uint16_t etype = RF_GET(RCLINK_DEST_MAC_MEM2_MAC_TYPE2,
                            rclink_get(c, RCLINK_DEST_MAC_MEM2));
    uint8_t kw = RCLINK_AFH_KW_TYPE2;
    size_t off, rhoff;
    uint64_t rh;

    if (fmt == RCLINK_T1_FMT_LITE) {
        /* AFH_Lite: TYPE1's Ethernet type, TYPE2 told by its VC in the TC */
        tc = RCLINK_AFH_LITE_VC_TYPE2;
        kw = 0;
        etype = RF_GET(RCLINK_MAC_ADDR_LEN_TYPE,
                       rclink_get(c, RCLINK_MAC_ADDR));
    }
    off = rclink_l2_build(c, f, fmt, rclink_t2_da(c, g), tc, kw,
                          RF_GET(RCLINK_AFH_CFG_EN_TYPE2_CBFC,
                                 rclink_get(c, RCLINK_AFH_CFG_EN)), etype);
    rhoff = off;
    if (fmt == RCLINK_T1_FMT_STD) {
        rhoff += rclink_ipv4_udp_build(
            c, f + off, tc,
            RF_GET(RCLINK_DEST_IP_MEM2_DEST_IP_ADDR2,
                   rclink_get(c, RCLINK_DEST_IP_MEM2)),
            RF_GET(RCLINK_UDP_PORT_MEM2_UDP_SRC_PORT2, ports),
            RF_GET(RCLINK_UDP_PORT_MEM2_UDP_DEST_PORT2, ports), pkt);
    }
    rh = RF_SET(RCLINK_RH_OPCODE, 0, RCLINK_RH_OP_REQ);
    rh = RF_SET(RCLINK_RH_DEST_QP, rh, g);
    rh = RF_SET(RCLINK_RH_PSN, rh, t2->tx_psn[g]);
    rh = RF_SET(RCLINK_RH_PKT_LEN, rh, pkt <= T2_RH_PKT_LEN_MAX ? pkt : 0);
    rh = RF_SET(RCLINK_RH_TS, rh, rclink_t1_now_ts());
    rh = RF_SET(RCLINK_RH_PAD, rh, padded - plen);
    rh |= RCLINK_RH_TS_EN;
    stq_be_p(f + rhoff, rh);
    memcpy(f + rhoff + RCLINK_RH_BYTES, pl, plen);
    memset(f + rhoff + RCLINK_RH_BYTES + plen, 0, padded - plen);
    off = rhoff + pkt;
    if (off < 60) {
        memset(f + off, 0, 60 - off);
        off = 60;
    }
    return off;
}

static bool rclink_t2_crd_on(RclinkCore *c)
{
    return rclink_get(c, RCLINK_RC_MISC_CFG) &
           RCLINK_RC_MISC_CFG_MULTI_CREDIT_CTRL_EN;
}

static void rclink_t2_crd_update(RclinkCore *c)
{
    rclink_set(c, RCLINK_DMAQ_T2_CRD, c->t1->t2.crd);
    rclink_dfx_update(c);
}

/* TYPE2's acc_cnt now (seed 000, TYPE2 速率控制: as a QP's, in CC_CFG
 * windows, against TYPE2_SPEED.length_thr) */
static uint64_t rclink_t2_acc(RclinkCore *c, uint32_t thr)
{
    RclinkT2 *t2 = &c->t1->t2;
    uint64_t now = rclink_cc_now(c);

    if (now > t2->acc_win) {
        t2->acc = rclink_cc_decay(t2->acc, now - t2->acc_win, thr);
    }
    t2->acc_win = now;
    return t2->acc;
}

/*
 * One packet to group g.  Over the TYPE2 rate the IP drops it with
 * IRQ_INFO TYPE2 code 1 (seed 000, TYPE2 中断信息: "丢掉超长包和超流量包";
 * the rate is a policer, not a pacer): RCLINK_T2_OVER_RATE.  Else, when the
 * CBFC or PFC state and the MAC's multicast credits (seed 000, 多播报文流量
 * 控制: 128-byte cells, with multi_credit_ctrl_en) let it go now, the frame
 * goes on the wire: RCLINK_T2_SENT; otherwise RCLINK_T2_WAIT, and the
 * caller tries again when credits come back or a pause ends.
 */
int rclink_t2_try_send(RclinkCore *c, unsigned g, const uint8_t *pl,
                       size_t plen)
{
    RclinkT2 *t2 = &c->t1->t2;
    uint32_t thr = RF_GET(RCLINK_TYPE2_SPEED_LENGTH_THR,
                          rclink_get(c, RCLINK_TYPE2_SPEED));
    uint8_t f[T2_FRAME_MAX];
    size_t len;
    uint32_t cells;

    if (thr && rclink_t2_acc(c, thr) >= thr) {
        trace_rclink_t2_over_rate(g, plen, t2->acc);
        rclink_t2_irq_info(c, RCLINK_IRQ_TYPE2_TX_OVERSIZE, 0, 0);
        return RCLINK_T2_OVER_RATE;
    }
    if (!rclink_cbfc_tx_ok(c, RCLINK_CBFC_FLOW_TYPE2)) {
        trace_rclink_t2_wait("cbfc", 0);
        return RCLINK_T2_WAIT;  /* kicked when credits come back */
    }
    len = rclink_t2_frame(c, g, pl, plen, f);
    cells = DIV_ROUND_UP(len, T2_CELL);
    if (rclink_t2_crd_on(c)) {
        if (t2->crd < cells) {
            if (!t2->wait_crd) {
                trace_rclink_t2_wait("credit", t2->crd);
                t2->wait_crd = true;
                rclink_dfx_update(c);
            }
            return RCLINK_T2_WAIT;
        }
        /* the MAC returns the cells once the frame left (at once here) */
        if (rclink_get(c, RCLINK_SHIM_CC_TEST) &
            RCLINK_SHIM_CC_TEST_T2_CRD_HOLD) {
            t2->crd -= cells;
            t2->crd_held += cells;
        }
    }
    t2->wait_crd = false;
    t2->acc = thr ? t2->acc + plen : 0;         /* no limit: no debt */
    rclink_t2_crd_update(c);
    trace_rclink_t2_tx(g, t2->tx_psn[g], plen, len);
    t2->tx_psn[g] = rclink_psn(t2->tx_psn[g] + 1);
    rclink_count(c, RCLINK_DMAQ_T2_TX_PKTS);
    rclink_cbfc_tx_sent(c, RCLINK_CBFC_FLOW_TYPE2, len);
    rclink_wire_send(c, f, len);
    return RCLINK_T2_SENT;
}

/* SHIM_CC_TEST.t2_crd_hold written: released, the MAC returns what it kept */
void rclink_t2_crd_hold(RclinkCore *c, bool hold)
{
    RclinkT2 *t2 = &c->t1->t2;

    if (hold || !t2->crd_held) {
        return;
    }
    t2->crd += t2->crd_held;
    t2->crd_held = 0;
    rclink_t2_crd_update(c);
    rclink_t1_kick(c);
}

static void rclink_t2_drop(RclinkCore *c, hwaddr counter, const char *why,
                           size_t len)
{
    rclink_count(c, counter);
    trace_rclink_t2_rx_drop(why, len);
}

/* A drop of the IP's own checks (rclink_count_ip()) */
static void rclink_t2_drop_ip(RclinkCore *c, hwaddr counter, const char *why,
                              size_t len)
{
    rclink_count_ip(c, counter);
    trace_rclink_t2_rx_drop(why, len);
}

/* The sender sa of group g: its entry, or a new one (oldest replaced) */
static RclinkT2Src *rclink_t2_src(RclinkT2 *t2, unsigned g, uint64_t sa)
{
    RclinkT2Src *s;
    unsigned i;

    sa &= RCLINK_T2_SA_MASK;
    for (i = 0; i < RCLINK_T2_SRCS; i++) {
        s = &t2->src[g][i];
        if (s->used && s->sa == sa) {
            return s;
        }
    }
    for (i = 0; i < RCLINK_T2_SRCS; i++) {
        s = &t2->src[g][i];
        if (!s->used) {
            s->sa = sa;
            return s;
        }
    }
    s = &t2->src[g][t2->src_victim[g]++ % RCLINK_T2_SRCS];
    s->used = false;
    s->sa = sa;
    return s;
}

/*
 * The joined group whose TYPE2_DA_n the frame's DA is, or T2_GROUPS.  On
 * a bridged RTL board DMAQ_T2_JOIN is the RTL shim's (the model's copy
 * stays 0): the IP hands the frame over with the group of its DA and the
 * shim checks the join (seed 000: the IP does not check a TYPE2 DA).
 */
static unsigned rclink_t2_group(RclinkCore *c, uint64_t da, unsigned fmt)
{
    uint64_t join = RF_GET(RCLINK_DMAQ_T2_JOIN_JOIN,
                           rclink_get(c, RCLINK_DMAQ_T2_JOIN));
    unsigned g;

    for (g = 0; g < T2_GROUPS; g++) {
        uint64_t gda = rclink_t2_da(c, g);

        if (!c->bridge && !(join & (1u << g))) {
            continue;
        }
        /* AFH_GEN2_16b and AFH_Lite carry Dest Addr[15:0] only */
        if (fmt == RCLINK_T1_FMT_GEN2 || fmt == RCLINK_T1_FMT_LITE
            ? (gda & 0xffff) == (da & 0xffff) : gda == da) {
            return g;
        }
    }
    return T2_GROUPS;
}

/*
 * A bridged RTL board: the packet goes to the RTL shim on RX_M with the
 * group (none: RCLINK_AFH_T2_GROUPS), the sender and the PSN; the shim
 * counts what it drops.  CBFC holds it as for the model's own shim.
 */
static void rclink_t2_bridge_rx(RclinkCore *c, unsigned g, uint64_t sa,
                                uint32_t psn, const uint8_t *pl, size_t plen,
                                size_t len)
{
    uint32_t id = RCLINK_T2_RXM(g, sa, psn);
    bool room = rclink_dmaq_t2_accept(c, id, pl, plen, true);
    int cbfc = g < T2_GROUPS && c->t1->t2_owner[g] ? RCLINK_CBFC_DIRECT :
               rclink_cbfc_rx_defer(c, RCLINK_CBFC_T2, id, pl, plen, room);

    if (cbfc == RCLINK_CBFC_DIRECT && !room) {
        /* the IP's receive buffer is full: its RX buffer overflow */
        rclink_t2_drop(c, RCLINK_DMAQ_T2_RX_DROP_NOBUF, "no buffer", len);
        rclink_t2_irq_info(c, RCLINK_IRQ_TYPE2_RX_OVERFLOW, 1, 0);
        return;
    }
    if (cbfc == RCLINK_CBFC_DIRECT) {
        rclink_dmaq_t2_accept(c, id, pl, plen, false);
    }
    trace_rclink_t2_rx(g, psn, plen);
}

static void t2_deliver(RclinkCore *c, unsigned g, uint32_t psn,
                       const uint8_t *pl, size_t plen, size_t len);

/* A frame the classifier found to be TYPE2. */
void rclink_t2_receive(RclinkCore *c, const uint8_t *buf, size_t len)
{
    unsigned fmt = rclink_t1_format(c), g, kw;
    size_t off = 14, rh_at, body, plen, pad, pkt;
    uint64_t rh, seg, da, sa;
    uint32_t psn, d, mlen;
    RclinkT2Src *src;
    uint16_t type;

    rclink_cbfc_rx_enter(c, RCLINK_CBFC_FLOW_TYPE2, len);
    if (!rclink_t2_active(c)) {
        rclink_count(c, RCLINK_SHIM_RX_DROP_T12);
        trace_rclink_rx_drop("type2 off", len);
        return;
    }
    if (len < 14) {
        rclink_t2_drop_ip(c, RCLINK_DMAQ_T2_RX_DROP_MALFORMED, "runt",
                          len);
        return;
    }
    type = lduw_be_p(buf + 12);
    if (rclink_is_vlan(c, type) && len >= 18) {
        type = lduw_be_p(buf + 16);
        off += 4;
    }
    kw = buf[6];
    if ((type == 0x0800) != (fmt == RCLINK_T1_FMT_STD) ||
        (fmt == RCLINK_T1_FMT_GEN2 &&
         (kw & (RCLINK_AFH_KW_W | RCLINK_AFH_KW_M)) !=
         (RCLINK_AFH_KW_W | RCLINK_AFH_KW_M))) {
        rclink_t2_drop_ip(c, RCLINK_DMAQ_T2_RX_DROP_MALFORMED, "format",
                          len);
        return;
    }
    da = ldq_be_p(buf) >> 16;
    sa = ldq_be_p(buf + 6) >> 16;
    g = rclink_t2_group(c, da, fmt);
    if (g == T2_GROUPS && !c->bridge) {
        rclink_t2_drop(c, RCLINK_DMAQ_T2_RX_DROP_NOGROUP, "no group", len);
        return;
    }
    if (fmt == RCLINK_T1_FMT_STD
        ? rclink_parse_ipv4_udp(buf, len, off, 0, &rh_at, &body)
        : (rh_at = off, rclink_parse_afh_len(buf, len, off, 0, &body))) {
        rclink_t2_drop_ip(c, RCLINK_DMAQ_T2_RX_DROP_MALFORMED, "length",
                          len);
        return;
    }
    rh = ldq_be_p(buf + rh_at);
    plen = body - RCLINK_RH_BYTES;
    pad = RF_GET(RCLINK_RH_PAD, rh);
    pkt = RCLINK_RH_BYTES + plen;
    if (RF_GET(RCLINK_RH_OPCODE, rh) != RCLINK_RH_OP_REQ || (plen & 3) ||
        plen < pad + RCLINK_SEG_BYTES + 1 ||
        RF_GET(RCLINK_RH_PKT_LEN, rh) !=
        (pkt <= T2_RH_PKT_LEN_MAX ? pkt : 0)) {
        rclink_t2_drop_ip(c, RCLINK_DMAQ_T2_RX_DROP_MALFORMED, "rh",
                          len);
        return;
    }
    if (plen - pad > c->t2_pkt_len) {
        rclink_t2_drop(c, RCLINK_DMAQ_T2_RX_DROP_MALFORMED, "oversize", len);
        rclink_t2_irq_info(c, RCLINK_IRQ_TYPE2_RX_OVERSIZE, 0,
                           RCLINK_INTR_STATUS_T2_RX_OVERSIZE);
        return;
    }
    seg = ldq_le_p(buf + rh_at + RCLINK_RH_BYTES);
    mlen = RF_GET(RCLINK_SEG_MSG_LEN, seg);
    if (RF_GET(RCLINK_SEG_POS, seg) != RCLINK_SEG_ONLY ||
        RF_GET(RCLINK_SEG_OFFSET, seg) ||
        (mlen != plen - pad - RCLINK_SEG_BYTES &&
         /* a short message padded to the TX_S minimum */
         (plen - pad != RCLINK_SEG_PKT_MIN ||
          mlen >= RCLINK_SEG_PKT_MIN - RCLINK_SEG_BYTES))) {
        rclink_t2_drop(c, RCLINK_DMAQ_T2_RX_DROP_MALFORMED, "segment", len);
        return;
    }

    psn = RF_GET(RCLINK_RH_PSN, rh);
    if (c->bridge) {
        rclink_t2_bridge_rx(c, g, sa, psn, buf + rh_at + RCLINK_RH_BYTES,
                            plen - pad, len);
        return;
    }
    /* the sender's sequence: gaps are losses, a PSN behind is old */
    src = rclink_t2_src(&c->t1->t2, g, sa);
    if (src->used) {
        d = rclink_psn_diff(psn, src->next);
        if (d >= RCLINK_T1_PSN_HALF) {
            rclink_t2_drop(c, RCLINK_DMAQ_T2_RX_DROP_OLD, "old", len);
            return;
        }
        if (d) {
            rclink_set(c, RCLINK_DMAQ_T2_RX_LOST,
                       rclink_get(c, RCLINK_DMAQ_T2_RX_LOST) + d);
            trace_rclink_t2_rx_lost(g, psn, d);
        }
    }
    src->used = true;
    src->next = rclink_psn(psn + 1);

    t2_deliver(c, g, psn, buf + rh_at + RCLINK_RH_BYTES, plen - pad, len);
}

/*
 * A TYPE2 message for the host (pl, its SEG and data): into a buffer of
 * the group, deferred under CBFC, or dropped without one.  Behind a
 * packet held on RX_M it waits in the IP (rclink_t2_rx_resume), as long
 * as the IP's buffer has room.
 */
static void t2_deliver(RclinkCore *c, unsigned g, uint32_t psn,
                       const uint8_t *pl, size_t plen, size_t len)
{
    RclinkT2 *t2 = &c->t1->t2;
    bool held = rclink_dmaq_rx_held(c);
    bool room = !held && rclink_dmaq_t2_accept(c, g, pl, plen, true);
    int cbfc;

    /* a user context's group: never held in the shared buffer */
    cbfc = c->t1->t2_owner[g] ? RCLINK_CBFC_DIRECT :
           rclink_cbfc_rx_defer(c, RCLINK_CBFC_T2, g, pl, plen, room);
    if (cbfc == RCLINK_CBFC_FULL) {
        return;
    }
    if (cbfc == RCLINK_CBFC_DIRECT && held &&
        t2->nwait < RCLINK_T2_RX_WAIT) {
        t2->wait[t2->nwait].g = g;
        t2->wait[t2->nwait].psn = psn;
        t2->wait[t2->nwait].len = plen;
        t2->wait[t2->nwait].frame = len;
        memcpy(t2->wait[t2->nwait].pl, pl, plen);
        t2->nwait++;
        trace_rclink_t2_rx_wait(g, plen, t2->nwait);
        return;
    }
    if (cbfc == RCLINK_CBFC_DIRECT && !room) {
        if (!held) {
            rclink_dmaq_t2_nobuf(c, g);
        }
        /* the RX buffer overflow of IRQ_INFO TYPE2 code 4, sub type 1 */
        rclink_t2_drop(c, RCLINK_DMAQ_T2_RX_DROP_NOBUF,
                       held ? "behind a held packet, IP buffer full" :
                       "no buffer", len);
        rclink_t2_irq_info(c, RCLINK_IRQ_TYPE2_RX_OVERFLOW, 1, 0);
        return;
    }
    if (cbfc == RCLINK_CBFC_DIRECT) {
        rclink_dmaq_t2_accept(c, g, pl, plen, false);
    }
    rclink_count(c, RCLINK_DMAQ_T2_RX_PKTS);
    trace_rclink_t2_rx(g, psn, plen);
    rclink_dmaq_irq(c);
}

/* RX_M moves again: the packets that waited behind the held one go on. */
void rclink_t2_rx_resume(RclinkCore *c)
{
    RclinkT2 *t2 = &c->t1->t2;
    unsigned i, n = t2->nwait;

    t2->nwait = 0;
    /* (a TYPE2 packet never holds RX_M itself) */
    for (i = 0; i < n; i++) {
        t2_deliver(c, t2->wait[i].g, t2->wait[i].psn, t2->wait[i].pl,
                   t2->wait[i].len, t2->wait[i].frame);
    }
}

/*
 * DMAQ_T2_JOIN written: a group joined now starts its senders' sequences
 * afresh (what went to it before the join is not a loss of the member).
 */
void rclink_t2_join(RclinkCore *c, uint64_t old, uint64_t val)
{
    uint64_t joined = RF_GET(RCLINK_DMAQ_T2_JOIN_JOIN, val & ~old);
    unsigned g;

    for (g = 0; g < T2_GROUPS; g++) {
        if (joined & (1u << g)) {
            memset(c->t1->t2.src[g], 0, sizeof(c->t1->t2.src[g]));
        }
    }
}

void rclink_t2_reset(RclinkCore *c)
{
    memset(&c->t1->t2, 0, sizeof(c->t1->t2));
    c->t1->t2.crd = RCLINK_PARAM_TYPE2_CRD_RST_NUM_DEFAULT;
    rclink_t2_crd_update(c);
}
