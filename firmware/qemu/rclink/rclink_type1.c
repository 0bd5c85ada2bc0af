/*
 * rclink board model: the TYPE1 transport of the RCLINK-Stream IP as the
 * contract in Documentation/hw/shim.rst ("TYPE1: reliable messages") has
 * it (seed 000: TYPE1, RH, ACK MERGE, TYPE1 发送仲裁, 异常处理).
 *
 * Requester: TYPE1_OST_N outstanding slots (EMPTY / WAIT_GRANT /
 * WAIT_ACK).  The queue engine (rclink_dmaq.c) fills a slot per packet;
 * the arbiter sends WAIT_GRANT slots in entry order, at most 32 frames a
 * round, from a bottom half; cumulative ACKs free slots and return the
 * credits to the engine; NAKs, RNR NAKs and the per-QP retry timer go back
 * N; reaching the retry threshold makes the QP fatal.
 *
 * Responder: the receive checks in the documented order, in-order
 * delivery to the queue engine, duplicate and gap handling and the ACK
 * merge (FACK at once, else when the merge pointer reaches the QP).
 *
 * Frames from the wire arrive synchronously from the peer's send (the QEMU
 * hub delivers at once), so the receive side only updates state and
 * schedules the bottom half; frames are sent from the bottom half (and
 * merged ACKs from their timer), never from a receive.  Arbitration rounds
 * are paced at the MAC's line rate on the virtual clock.  The PSN
 * registers of a QP (qp_val) are the transport's own state.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qemu/main-loop.h"
#include <zlib.h>
#include "rclink_type1.h"
#include "trace.h"

#define T1_ROUND            32          /* frames per arbitration round */
/* line rate of the LL 100G MAC, and preamble + IFG per frame */
#define T1_LINE_GBPS        100
#define T1_FRAME_GAP        20
/* ACK MERGE: the pointer checks 4 QPs of the buffer a cycle of CLK_I */
#define T1_MERGE_GROUP      4
#define T1_MERGE_CYCLE_NS   1           /* CLK_I: at most 1 GHz */
#define T1_RNR_VALUE        15          /* RNR NAK syndrome value: 160 us */
#define T1_UDP_DPORT        4791
#define T1_ETH_HLEN         14
#define T1_VLAN_HLEN        4
#define T1_IP_HLEN          20
#define T1_UDP_HLEN         8
#define T1_ICRC_LEN         4
#define T1_ECN_MASK         3           /* IPv4 ToS[1:0] */
/* AFH_Lite QPID = {XPU_ID, BANK}: the bank is QPN[1:0] (TYPE1_VC_NUM 4) */
#define T1_LITE_BANK_BITS   2
#define T1_BANK_MASK        (RCLINK_PARAM_TYPE1_VC_NUM_DEFAULT - 1)
#define T1_ECN_CE           3
#define T1_ETH_ZLEN         60
#define T1_FRAME_MAX        (T1_ETH_HLEN + T1_VLAN_HLEN + T1_IP_HLEN + \
                             T1_UDP_HLEN + RCLINK_RH_BYTES + \
                             RCLINK_T1_PKT_LEN + 3 + T1_ICRC_LEN)
#define T1_RH_PKT_LEN_MAX   127
#define T1_RETRY_CNT_MAX    15

static const hwaddr rclink_qcol_reg[RCLINK_QCOL_N] = {
    [RCLINK_QCOL_DEST_IP] = RCLINK_DEST_IP_MEM,
    [RCLINK_QCOL_DEST_MAC] = RCLINK_DEST_MAC_MEM,
    [RCLINK_QCOL_UDP_SRC] = RCLINK_UDP_SRC_PORT_MEM,
    [RCLINK_QCOL_CTRL] = RCLINK_QP_CONTROL_STATUS,
    [RCLINK_QCOL_EXPECT_RESP] = RCLINK_EXPECT_RESP_PSN_MEM,
    [RCLINK_QCOL_TX_LAST] = RCLINK_TX_LAST_PSN_MEM,
    [RCLINK_QCOL_TX_ACK_SN] = RCLINK_TX_ACK_SN_MEM,
    [RCLINK_QCOL_TX_SPEED] = RCLINK_TX_SPEED_MEM,
    [RCLINK_QCOL_TX_EPSN] = RCLINK_TX_EPSN_MEM,
    [RCLINK_QCOL_RETRY_CNT] = RCLINK_RETRY_CNT_MEM,
    [RCLINK_QCOL_BTH] = RCLINK_BTH_QP_CFG_MEM,
    [RCLINK_QCOL_REQ_CHK] = RCLINK_REQ_CHK_SN_MEM,
    [RCLINK_QCOL_MAX_FW] = RCLINK_TX_MAX_FW_PSN_MEM,
    [RCLINK_QCOL_CC_CNT] = RCLINK_TX_CC_BYTE_CNT_MEM,
};

/* A field of a per-QP register */
#define QGET(c, qpn, col, mask) RF_GET(mask, *rclink_qreg(c, qpn, col))
#define QSET(c, qpn, col, mask, x) \
    (*rclink_qreg(c, qpn, col) = RF_SET(mask, *rclink_qreg(c, qpn, col), x))

bool rclink_t1_active(RclinkCore *c)
{
    unsigned fmt = rclink_t1_format(c);

    return (rclink_get(c, RCLINK_RDMA_EN) & RCLINK_RDMA_EN_TYPE1_EN) &&
           fmt != RCLINK_T1_FMT_NONE;
}

bool rclink_t1_qp_enabled(RclinkCore *c, uint32_t qpn)
{
    return *rclink_qreg(c, qpn, RCLINK_QCOL_CTRL) &
           RCLINK_QP_CONTROL_STATUS_QP_EN;
}

void rclink_t1_kick(RclinkCore *c)
{
    if (c->t1) {
        qemu_bh_schedule(c->t1->bh);
    }
}

/* IRQ_INFO TYPE1 code with the QPN, and its INTR_STATUS (RC_INTR_O) bit. */
void rclink_t1_irq_info(RclinkCore *c, unsigned code, uint32_t qpn,
                        uint64_t rc_bit)
{
    uint64_t info = RF_SET(RCLINK_IRQ_INFO_TYPE, 0, RCLINK_IRQ_TYPE1);

    info = RF_SET(RCLINK_IRQ_INFO_CODE, info, code);
    info = RF_SET(RCLINK_IRQ_INFO_T1_QPID, info, qpn);
    rclink_event(c, RCLINK_EVT_SRC_IRQ_INFO, info);
    rclink_raise_causes(c, rc_bit, 0, 0);
}

uint16_t rclink_t1_now_ts(void)
{
    return qemu_clock_get_us(QEMU_CLOCK_VIRTUAL) & 0xffff;
}

/* ------------------------------------------------------------ slots */

/*
 * DFX_TYPE1_OST_FREE_LVL_O and RCLINK_IDLE_O (seed 000, DFX 接口): the TX
 * side is idle with every slot free.  Frames are received whole (RX always
 * idle between them) and the wire takes a frame at once (the MAC is free);
 * TYPE2 packets in the IP keep TX busy, and may wait for MAC credits.
 */
void rclink_dfx_update(RclinkCore *c)
{
    uint64_t dfx = RCLINK_DMAQ_DFX_RX_IDLE | RCLINK_DMAQ_DFX_TX_MAC_FREE;

    if (c->t1->nfree == RCLINK_T1_OST_N && !c->t1->q.t2_nost) {
        dfx |= RCLINK_DMAQ_DFX_TX_IDLE;
    }
    if (c->t1->t2.wait_crd) {
        dfx |= RCLINK_DMAQ_DFX_TX_WAIT_MAC_CRD;
    }
    rclink_set(c, RCLINK_DMAQ_DFX, dfx);
}

static void rclink_t1_ost_free_update(RclinkCore *c)
{
    rclink_set(c, RCLINK_DMAQ_T1_OST_FREE, c->t1->nfree);
    rclink_dfx_update(c);
}

int rclink_t1_slot_alloc(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;
    int s = t1->free_head;

    if (s == RCLINK_T1_NIL) {
        return RCLINK_T1_NIL;
    }
    t1->free_head = t1->slots[s].qnext;
    t1->nfree--;
    t1->slots[s].qnext = RCLINK_T1_NIL;
    rclink_t1_ost_free_update(c);
    return s;
}

void rclink_t1_slot_put(RclinkCore *c, int s)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Slot *sl = &t1->slots[s];

    sl->state = RCLINK_SLOT_EMPTY;
    sl->msg = NULL;
    sl->gprev = sl->gnext = RCLINK_T1_NIL;
    sl->qnext = t1->free_head;
    t1->free_head = s;
    t1->nfree++;
    rclink_t1_ost_free_update(c);
}

static void rclink_t1_grant_remove(RclinkT1 *t1, int s)
{
    RclinkT1Slot *sl = &t1->slots[s];

    if (sl->gprev != RCLINK_T1_NIL) {
        t1->slots[sl->gprev].gnext = sl->gnext;
    } else {
        t1->ghead = sl->gnext;
    }
    if (sl->gnext != RCLINK_T1_NIL) {
        t1->slots[sl->gnext].gprev = sl->gprev;
    } else {
        t1->gtail = sl->gprev;
    }
    sl->gprev = sl->gnext = RCLINK_T1_NIL;
}

/* Insert s before the slot at (an index) or at the tail (RCLINK_T1_NIL) */
static void rclink_t1_grant_insert_before(RclinkT1 *t1, int s, int at)
{
    RclinkT1Slot *sl = &t1->slots[s];

    sl->gnext = at;
    sl->gprev = at == RCLINK_T1_NIL ? t1->gtail : t1->slots[at].gprev;
    if (sl->gprev != RCLINK_T1_NIL) {
        t1->slots[sl->gprev].gnext = s;
    } else {
        t1->ghead = s;
    }
    if (at != RCLINK_T1_NIL) {
        t1->slots[at].gprev = s;
    } else {
        t1->gtail = s;
    }
}

/*
 * Back to WAIT_GRANT in its original place (entry order).  *cursor is a
 * WAIT_GRANT slot at or before the place (or NIL: start at the head), so
 * that putting back a run of slots in entry order costs one pass.
 */
static void rclink_t1_grant_return(RclinkT1 *t1, int s, int *cursor)
{
    int g = *cursor != RCLINK_T1_NIL ? *cursor : t1->ghead;
    uint64_t seq = t1->slots[s].seq;

    while (g != RCLINK_T1_NIL && t1->slots[g].seq < seq) {
        g = t1->slots[g].gnext;
    }
    rclink_t1_grant_insert_before(t1, s, g);
    t1->slots[s].state = RCLINK_SLOT_WAIT_GRANT;
    *cursor = s;
}

/* The engine hands over a filled slot: it takes the QP's next PSN. */
void rclink_t1_submit(RclinkCore *c, int s)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Slot *sl = &t1->slots[s];
    RclinkT1Qp *q = &t1->qps[sl->qpn];
    uint32_t psn = QGET(c, sl->qpn, RCLINK_QCOL_TX_EPSN,
                        RCLINK_TX_EPSN_MEM_TX_PSN);

    sl->psn = psn;
    sl->sent = false;
    sl->seq = ++t1->seq;
    QSET(c, sl->qpn, RCLINK_QCOL_TX_EPSN, RCLINK_TX_EPSN_MEM_TX_PSN,
         rclink_psn(psn + 1));
    sl->qnext = RCLINK_T1_NIL;
    if (q->tail != RCLINK_T1_NIL) {
        t1->slots[q->tail].qnext = s;
    } else {
        q->head = s;
    }
    q->tail = s;
    q->nslots++;
    rclink_t1_grant_insert_before(t1, s, RCLINK_T1_NIL);
    sl->state = RCLINK_SLOT_WAIT_GRANT;
    trace_rclink_t1_submit(sl->qpn, psn, sl->len, t1->nfree);
}

/* ------------------------------------------------------------ timers */

static void rclink_t1_timer_off(RclinkT1Qp *q)
{
    q->timer_mode = RCLINK_QP_TIMER_OFF;
    timer_del(&q->timer);
}

/* (Re)start the retry timer; RETRY_TIMER_CFG.retry_timer 0 disables it. */
static void rclink_t1_retry_arm(RclinkCore *c, RclinkT1Qp *q)
{
    uint32_t us = RF_GET(RCLINK_RETRY_TIMER_CFG_RETRY_TIMER,
                         rclink_get(c, RCLINK_RETRY_TIMER_CFG));

    if (!us) {
        rclink_t1_timer_off(q);
        return;
    }
    q->timer_mode = RCLINK_QP_TIMER_RETRY;
    timer_mod(&q->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
              (int64_t)us * SCALE_US);
}

static void rclink_t1_fatal(RclinkCore *c, RclinkT1Qp *q)
{
    q->fatal = true;
    q->rnr_wait = false;
    rclink_t1_timer_off(q);
    trace_rclink_t1_fatal(q->qpn);
    rclink_t1_irq_info(c, RCLINK_IRQ_TYPE1_RETRY_TIMEOUT, q->qpn,
                       RCLINK_INTR_STATUS_T1_RETRY_OVER);
}

/* Go-Back-N: every WAIT_ACK slot of the QP returns to WAIT_GRANT. */
static void rclink_t1_go_back(RclinkCore *c, RclinkT1Qp *q)
{
    RclinkT1 *t1 = c->t1;
    int cursor = RCLINK_T1_NIL, s;
    unsigned n = 0;

    for (s = q->head; s != RCLINK_T1_NIL; s = t1->slots[s].qnext) {
        if (t1->slots[s].state == RCLINK_SLOT_WAIT_ACK) {
            rclink_t1_grant_return(t1, s, &cursor);
            n++;
        }
    }
    q->nwait_ack = 0;
    if (q->timer_mode == RCLINK_QP_TIMER_RETRY) {
        rclink_t1_timer_off(q);
    }
    if (q->head != RCLINK_T1_NIL) {
        trace_rclink_t1_go_back(q->qpn, t1->slots[q->head].psn, n);
    }
}

static void rclink_t1_qp_timer(void *opaque)
{
    RclinkT1Qp *q = opaque;
    RclinkCore *c = q->c;
    unsigned mode = q->timer_mode;
    uint32_t cnt, thr;

    q->timer_mode = RCLINK_QP_TIMER_OFF;
    if (mode == RCLINK_QP_TIMER_RNR) {
        q->rnr_wait = false;
        rclink_t1_kick(c);
        return;
    }
    if (mode != RCLINK_QP_TIMER_RETRY || q->fatal || !q->nwait_ack ||
        !rclink_t1_qp_enabled(c, q->qpn)) {
        return;
    }
    rclink_qps_add(c, q->qpn, RCLINK_QPS_TIMEOUTS, 1);
    cnt = QGET(c, q->qpn, RCLINK_QCOL_RETRY_CNT,
               RCLINK_RETRY_CNT_MEM_RETRY_COUNTER);
    if (cnt < T1_RETRY_CNT_MAX) {
        cnt++;
    }
    QSET(c, q->qpn, RCLINK_QCOL_RETRY_CNT, RCLINK_RETRY_CNT_MEM_RETRY_COUNTER,
         cnt);
    thr = RF_GET(RCLINK_RETRY_TIMER_CFG_RETRY_CNT_THR,
                 rclink_get(c, RCLINK_RETRY_TIMER_CFG));
    trace_rclink_t1_timeout(q->qpn, cnt, thr);
    if (thr && cnt >= thr) {
        rclink_t1_fatal(c, q);
        return;
    }
    /* RETRY_TMO_VLD_O / RETRY_TMO_QPID_O: a retransmission by timeout */
    rclink_event(c, RCLINK_EVT_SRC_RETRY_TMO,
                 RF_SET(RCLINK_CC_INFO_QPID, 0, q->qpn));
    rclink_t1_go_back(c, q);
    rclink_t1_kick(c);
}

/* ------------------------------------------------------- response lists */

static void rclink_t1_due_add(RclinkT1 *t1, RclinkT1Qp *q)
{
    if (!q->in_due) {
        q->in_due = true;
        QTAILQ_INSERT_TAIL(&t1->due, q, due_link);
    }
}

static void rclink_t1_merge_remove(RclinkT1 *t1, RclinkT1Qp *q)
{
    bool head;

    if (!q->in_merge) {
        return;
    }
    head = QTAILQ_FIRST(&t1->merge) == q;
    QTAILQ_REMOVE(&t1->merge, q, merge_link);
    q->in_merge = false;
    if (head) {
        RclinkT1Qp *n = QTAILQ_FIRST(&t1->merge);

        if (n) {
            timer_mod(&t1->merge_timer, n->merge_deadline_ns);
        } else {
            timer_del(&t1->merge_timer);
        }
    }
}

/*
 * ACK MERGE (seed 000): an ACK request sets the QP's bit of a buffer of
 * QP_NUM bits; a pointer checks the buffer 4 QPs (one group) a cycle, in
 * QPN order round and round, and sends the ACK of each set bit it finds
 * (the lower QPN of a group first).  Requests made before the pointer
 * gets there merge into that one ACK.  The ACK of QP q leaves in the cycle
 * the pointer reaches q's group: the list stays in that order.  A peer's
 * arbitration round reaches the model at one instant of the wire, but its
 * frames are handled one after the other while the virtual clock runs on:
 * requests made while others are pending count from the same instant as
 * those, the first one's.
 */
static int64_t rclink_t1_merge_deadline(RclinkCore *c, uint32_t qpn)
{
    RclinkT1 *t1 = c->t1;
    uint64_t groups = DIV_ROUND_UP(c->qp_num, T1_MERGE_GROUP);
    uint64_t cyc;

    if (QTAILQ_EMPTY(&t1->merge)) {
        t1->merge_ref_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    }
    cyc = t1->merge_ref_ns / T1_MERGE_CYCLE_NS;
    uint64_t g = qpn / T1_MERGE_GROUP;

    return (cyc + (g + groups - cyc % groups) % groups) * T1_MERGE_CYCLE_NS;
}

static void rclink_t1_merge_add(RclinkT1 *t1, RclinkT1Qp *q)
{
    RclinkT1Qp *n;

    if (q->in_merge) {
        return;
    }
    q->merge_deadline_ns = rclink_t1_merge_deadline(t1->c, q->qpn);
    q->in_merge = true;
    QTAILQ_FOREACH(n, &t1->merge, merge_link) {
        if (n->merge_deadline_ns > q->merge_deadline_ns ||
            (n->merge_deadline_ns == q->merge_deadline_ns &&
             n->qpn > q->qpn)) {
            QTAILQ_INSERT_BEFORE(n, q, merge_link);
            break;
        }
    }
    if (!n) {
        QTAILQ_INSERT_TAIL(&t1->merge, q, merge_link);
    }
    if (QTAILQ_FIRST(&t1->merge) == q) {
        timer_mod(&t1->merge_timer, q->merge_deadline_ns);
    }
}


/* Forget what the responder side of a QP was about to send. */
static void rclink_t1_resp_clear(RclinkT1 *t1, RclinkT1Qp *q)
{
    if (q->in_due) {
        QTAILQ_REMOVE(&t1->due, q, due_link);
        q->in_due = false;
    }
    rclink_t1_merge_remove(t1, q);
    q->resp_dup = q->resp_nak = q->resp_rnr = false;
    q->gap = false;
}

/* ------------------------------------------------------------- frames */

uint16_t rclink_ip_csum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;
    size_t i;

    for (i = 0; i + 1 < len; i += 2) {
        sum += lduw_be_p(p + i);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum & 0xffff;
}

/*
 * ICRC: CRC-32 (zlib) over the IPv4 header with ToS, TTL and checksum set
 * to all ones, then the UDP header, RH, payload and pad.
 */
static uint32_t rclink_icrc(const uint8_t *ip, size_t ihl, const uint8_t *udp,
                            size_t udp_bytes)
{
    uint8_t h[60];
    uint32_t crc;

    memcpy(h, ip, ihl);
    h[1] = 0xff;
    h[8] = 0xff;
    h[10] = h[11] = 0xff;
    crc = crc32(0, h, ihl);
    return crc32(crc, udp, udp_bytes);
}

void rclink_put_mac(uint8_t *p, uint64_t mac)
{
    unsigned i;

    for (i = 0; i < 6; i++) {
        p[i] = mac >> (40 - 8 * i);
    }
}

/*
 * The header format AFH_CFG_EN selects (Documentation/hw/formats.rst):
 * exactly one of standard_en, afh_gen1_en, afh_gen2_16b_en, afh_lite_en.
 * None or several: TYPE1 does not run (a guest error, logged on the write).
 */
unsigned rclink_t1_format(RclinkCore *c)
{
    uint64_t afh = rclink_get(c, RCLINK_AFH_CFG_EN);
    uint64_t sel = afh & (RCLINK_AFH_CFG_EN_STANDARD_EN |
                          RCLINK_AFH_CFG_EN_AFH_GEN1_EN |
                          RCLINK_AFH_CFG_EN_AFH_GEN2_16B_EN |
                          RCLINK_AFH_CFG_EN_AFH_LITE_EN);

    switch (sel) {
    case RCLINK_AFH_CFG_EN_STANDARD_EN:
        return RCLINK_T1_FMT_STD;
    case RCLINK_AFH_CFG_EN_AFH_GEN1_EN:
        return RCLINK_T1_FMT_GEN1;
    case RCLINK_AFH_CFG_EN_AFH_GEN2_16B_EN:
        return RCLINK_T1_FMT_GEN2;
    case RCLINK_AFH_CFG_EN_AFH_LITE_EN:
        return RCLINK_T1_FMT_LITE;
    default:
        return RCLINK_T1_FMT_NONE;
    }
}

/* The Traffic Class of a REQ of the QP's bank, or of an ACK */
static uint8_t rclink_t1_tc(RclinkCore *c, uint32_t qpn, bool req)
{
    uint64_t tc = rclink_get(c, RCLINK_TRAFFIC_CLASS);

    return req ? (tc >> (8 * (qpn & 3))) & 0xff
               : RF_GET(RCLINK_TRAFFIC_CLASS_TYPE1_ACK_TC, tc);
}

/*
 * The MAC header of a TYPE1 or TYPE2 frame in format fmt (seed 000, MAC
 * 报文头): DA and SA as the format fills them (tc: the Traffic Class, kw:
 * the GEN2 Key_words), the VLAN tag when vlan_en with priority pcp, the
 * Ethernet type (IPv4 for Standard, etype for the AFH formats).  Returns
 * its length.
 */
size_t rclink_l2_build(RclinkCore *c, uint8_t *f, unsigned fmt, uint64_t da,
                       uint8_t tc, uint8_t kw, unsigned pcp, uint16_t etype)
{
    uint64_t vlan = rclink_get(c, RCLINK_VLAN_CTRL);
    uint64_t afh = rclink_get(c, RCLINK_AFH_CFG_EN);
    uint64_t sa = RF_GET(RCLINK_MAC_ADDR_MAC_ADDR,
                         rclink_get(c, RCLINK_MAC_ADDR));
    size_t off = 12;

    if (fmt == RCLINK_T1_FMT_GEN1 &&
        (afh & RCLINK_AFH_CFG_EN_AFH_GEN1_TC_EN)) {
        /* MAC_SA[47:40] Traffic Class, [39:0] Source Addr */
        sa = ((uint64_t)tc << 40) | (sa & MAKE_64BIT_MASK(0, 40));
    } else if (fmt == RCLINK_T1_FMT_GEN2 || fmt == RCLINK_T1_FMT_LITE) {
        /* DA {TC, Reserve/SUE_payload, Dest Addr[15:0]},
         * SA {Key_words, Reserve/SUE_payload, Source Addr[15:0]};
         * AFH_Lite: TC the VC, SA[47:40] the XPU_ID (passed as kw) */
        da = ((uint64_t)tc << 40) | (da & 0xffff);
        sa = ((uint64_t)kw << 40) | (sa & 0xffff);
    }
    rclink_put_mac(f, da);
    rclink_put_mac(f + 6, sa);
    if (vlan & RCLINK_VLAN_CTRL_VLAN_EN) {
        uint16_t tpid = RF_GET(RCLINK_VLAN_CTRL_TPID, vlan) ?: 0x8100;
        uint16_t tci = ((pcp & 7) << 13) |
                       ((vlan & RCLINK_VLAN_CTRL_CFI) ? 1u << 12 : 0) |
                       RF_GET(RCLINK_VLAN_CTRL_VID, vlan);

        stw_be_p(f + off, tpid);
        stw_be_p(f + off + 2, tci);
        off += T1_VLAN_HLEN;
    }
    stw_be_p(f + off, fmt == RCLINK_T1_FMT_STD ? 0x0800 : etype);
    return off + 2;
}

/*
 * IPv4 and UDP headers at f for a UDP payload of plen bytes: the IPv4
 * header of seed 000 (IP 报文头: ID and TTL from IP_ADDR, DF, protocol 17,
 * the checksum) and UDP with checksum 0.  Returns their length.
 */
size_t rclink_ipv4_udp_build(RclinkCore *c, uint8_t *f, uint8_t tos,
                             uint32_t dip, uint16_t sport, uint16_t dport,
                             size_t plen)
{
    uint64_t ipa = rclink_get(c, RCLINK_IP_ADDR);
    size_t ulen = T1_UDP_HLEN + plen;

    f[0] = 0x45;
    f[1] = tos;
    stw_be_p(f + 2, T1_IP_HLEN + ulen);
    stw_be_p(f + 4, RF_GET(RCLINK_IP_ADDR_IP_ID, ipa));
    stw_be_p(f + 6, 0x4000);                 /* DF, fragment 0 */
    f[8] = RF_GET(RCLINK_IP_ADDR_IP_TTL, ipa);
    f[9] = 17;
    stw_be_p(f + 10, 0);
    stl_be_p(f + 12, RF_GET(RCLINK_IP_ADDR_IP_ADDR, ipa));
    stl_be_p(f + 16, dip);
    stw_be_p(f + 10, rclink_ip_csum(f, T1_IP_HLEN));
    stw_be_p(f + T1_IP_HLEN, sport);
    stw_be_p(f + T1_IP_HLEN + 2, dport);
    stw_be_p(f + T1_IP_HLEN + 4, ulen);
    stw_be_p(f + T1_IP_HLEN + 6, 0);
    return T1_IP_HLEN + T1_UDP_HLEN;
}

/* The MAC header of a TYPE1 frame of the QP (REQ or ACK) */
static size_t rclink_t1_l2(RclinkCore *c, uint32_t qpn, uint8_t *f, bool req,
                           unsigned fmt)
{
    uint64_t afh = rclink_get(c, RCLINK_AFH_CFG_EN);
    /* type1_req_bankN_cbfc: 3 bits each from bank 0's */
    unsigned req_pcp = ctz64(RCLINK_AFH_CFG_EN_TYPE1_REQ_BANK0_CBFC) +
                       3 * (qpn & 3);
    unsigned pcp = req ? (afh >> req_pcp) & 7
                       : RF_GET(RCLINK_AFH_CFG_EN_TYPE1_ACK_CBFC, afh);
    uint8_t tc = rclink_t1_tc(c, qpn, req), kw = RCLINK_AFH_KW_TYPE1;

    if (fmt == RCLINK_T1_FMT_LITE) {
        /* LITE 模式组网: TC the VC (the bank), MAC_SA[47:40] the XPU_ID of
         * the destination QPID {XPU_ID, BANK} */
        tc = qpn & T1_BANK_MASK;
        kw = QGET(c, qpn, RCLINK_QCOL_DEST_IP, RCLINK_DEST_IP_MEM_DEST_QPID) >>
             T1_LITE_BANK_BITS;
    }
    return rclink_l2_build(c, f, fmt,
                           QGET(c, qpn, RCLINK_QCOL_DEST_MAC,
                                RCLINK_DEST_MAC_MEM_DEST_MAC_ADDR),
                           tc, kw, pcp,
                           RF_GET(RCLINK_MAC_ADDR_LEN_TYPE,
                                  rclink_get(c, RCLINK_MAC_ADDR)));
}

/*
 * Build a frame of the QP in the format of AFH_CFG_EN (REQ when pl != NULL,
 * else ACK) into f; returns its length.  rh is the RH word without
 * PAD/PKT_LEN.  Standard: MAC, IPv4, UDP, RH, payload, pad, ICRC over the
 * masked IPv4 header on.  AFH_GEN1/GEN2: MAC, RH, payload, pad, ICRC over
 * the RH on.
 */
static size_t rclink_t1_build(RclinkCore *c, uint32_t qpn, uint8_t *f,
                              uint64_t rh, const uint8_t *pl, size_t plen)
{
    unsigned fmt = rclink_t1_format(c);
    bool req = pl != NULL;
    /* AFH_Lite: "不支持 CRC 保护" */
    bool icrc = !(rclink_get(c, RCLINK_RC_MISC_CFG) &
                  RCLINK_RC_MISC_CFG_TYPE1_REMOVE_ICRC_EN) &&
                fmt != RCLINK_T1_FMT_LITE;
    size_t padded = ROUND_UP(plen, 4), off, ip = 0, udp, rhoff;

    off = rclink_t1_l2(c, qpn, f, req, fmt);
    if (fmt == RCLINK_T1_FMT_STD) {
        ip = off;
        udp = ip + T1_IP_HLEN;
        rhoff = ip + rclink_ipv4_udp_build(
            c, f + ip, rclink_t1_tc(c, qpn, req),
            QGET(c, qpn, RCLINK_QCOL_DEST_IP, RCLINK_DEST_IP_MEM_DEST_IP_ADDR),
            QGET(c, qpn, RCLINK_QCOL_UDP_SRC,
                 RCLINK_UDP_SRC_PORT_MEM_UDP_SRC_PORT),
            T1_UDP_DPORT,
            RCLINK_RH_BYTES + padded + (icrc ? T1_ICRC_LEN : 0));
    } else {
        udp = rhoff = off;
    }

    rh = RF_SET(RCLINK_RH_PAD, rh, padded - plen);
    if (req) {
        size_t pkt = RCLINK_RH_BYTES + padded;

        rh = RF_SET(RCLINK_RH_PKT_LEN, rh,
                    pkt <= T1_RH_PKT_LEN_MAX ? pkt : 0);
    }
    stq_be_p(f + rhoff, rh);
    off = rhoff + RCLINK_RH_BYTES;
    if (plen) {
        memcpy(f + off, pl, plen);
    }
    memset(f + off + plen, 0, padded - plen);
    off += padded;
    if (icrc && fmt == RCLINK_T1_FMT_STD) {
        stl_le_p(f + off, rclink_icrc(f + ip, T1_IP_HLEN, f + udp,
                                      off - udp));
        off += T1_ICRC_LEN;
    } else if (icrc) {
        stl_le_p(f + off, crc32(0, f + rhoff, off - rhoff));
        off += T1_ICRC_LEN;
    }
    if (off < T1_ETH_ZLEN) {
        /* Like a MAC: at least a minimum Ethernet frame. */
        memset(f + off, 0, T1_ETH_ZLEN - off);
        off = T1_ETH_ZLEN;
    }
    return off;
}

static uint64_t rclink_t1_rh(RclinkCore *c, uint32_t qpn, unsigned op,
                             uint32_t psn)
{
    uint64_t rh = RF_SET(RCLINK_RH_OPCODE, 0, op);

    rh = RF_SET(RCLINK_RH_DEST_QP, rh, QGET(c, qpn, RCLINK_QCOL_DEST_IP,
                                            RCLINK_DEST_IP_MEM_DEST_QPID));
    rh = RF_SET(RCLINK_RH_PSN, rh, psn);
    return RF_SET(RCLINK_RH_PKEY, rh,
                  QGET(c, qpn, RCLINK_QCOL_UDP_SRC,
                       RCLINK_UDP_SRC_PORT_MEM_QP_P_KEY));
}

static size_t rclink_t1_send_req(RclinkCore *c, RclinkT1Slot *sl)
{
    uint8_t f[T1_FRAME_MAX];
    uint64_t rh = rclink_t1_rh(c, sl->qpn, RCLINK_RH_OP_REQ, sl->psn);
    uint32_t max_fw = QGET(c, sl->qpn, RCLINK_QCOL_MAX_FW,
                           RCLINK_TX_MAX_FW_PSN_MEM_MAX_FORWARD_PSN);
    bool retx = rclink_psn_le(sl->psn, max_fw);
    size_t len;

    rh = RF_SET(RCLINK_RH_TS, rh, rclink_t1_now_ts());
    rh |= RCLINK_RH_TS_EN;
    if (sl->fack) {
        rh |= RCLINK_RH_FACK;
    }
    len = rclink_t1_build(c, sl->qpn, f, rh, sl->payload, sl->len);
    QSET(c, sl->qpn, RCLINK_QCOL_TX_LAST, RCLINK_TX_LAST_PSN_MEM_TX_LAST_PSN,
         sl->psn);
    if (!retx) {
        QSET(c, sl->qpn, RCLINK_QCOL_MAX_FW,
             RCLINK_TX_MAX_FW_PSN_MEM_MAX_FORWARD_PSN, sl->psn);
    } else {
        rclink_qps_add(c, sl->qpn, RCLINK_QPS_RETX_PKTS, 1);
    }
    rclink_qps_add(c, sl->qpn, RCLINK_QPS_TX_PKTS, 1);
    rclink_qps_add(c, sl->qpn, RCLINK_QPS_TX_BYTES, sl->len);
    rclink_cnp_tx_bytes(c, &c->t1->qps[sl->qpn], sl->len);
    trace_rclink_t1_tx_req(sl->qpn, sl->psn, sl->len, retx, len);
    rclink_cbfc_tx_sent(c, sl->qpn & T1_BANK_MASK, len);
    rclink_wire_send(c, f, len);
    return len;
}

/*
 * A CNP to the sender of a REQ that arrived marked CE (seed 000, ECN: the
 * IP answers at once, on the ACK's VC and Traffic Class): the RH with
 * OPCODE CNP, the QP's DEST_QP and P_Key, PSN 0, no payload.
 */
static void rclink_t1_send_cnp(RclinkCore *c, RclinkT1Qp *q)
{
    uint8_t f[T1_FRAME_MAX];
    size_t len = rclink_t1_build(c, q->qpn, f,
                                 rclink_t1_rh(c, q->qpn, RCLINK_RH_OP_CNP, 0),
                                 NULL, 0);

    trace_rclink_t1_tx_cnp(q->qpn);
    rclink_cbfc_tx_sent(c, RCLINK_CBFC_FLOW_ACK, len);
    rclink_wire_send(c, f, len);
}

/* An ACK, NAK or RNR NAK of the QP's responder side. */
static void rclink_t1_send_resp(RclinkCore *c, RclinkT1Qp *q, unsigned syn,
                                uint32_t psn)
{
    uint8_t f[T1_FRAME_MAX];
    uint64_t rh = rclink_t1_rh(c, q->qpn, RCLINK_RH_OP_ACK, psn);
    bool ack_ts = rclink_get(c, RCLINK_RC_MISC_CFG) &
                  RCLINK_RC_MISC_CFG_TX_ACK_TIME_EN;
    size_t len;

    rh = RF_SET(RCLINK_RH_SYNDROME, rh, syn);
    if (q->last_ts_en && (ack_ts || q->last_fack)) {
        rh = RF_SET(RCLINK_RH_TS, rh, q->last_ts);
        rh |= RCLINK_RH_TS_EN;
    }
    len = rclink_t1_build(c, q->qpn, f, rh, NULL, 0);
    trace_rclink_t1_tx_ack(q->qpn, psn, syn);
    rclink_cbfc_tx_sent(c, RCLINK_CBFC_FLOW_ACK, len);
    rclink_wire_send(c, f, len);
}

static unsigned rclink_syn(unsigned type, unsigned value)
{
    return RF_SET(RCLINK_SYN_TYPE, RF_SET(RCLINK_SYN_VALUE, 0, value), type);
}

/* Send the responses due (ACK merge done, FACK, duplicates, NAK, RNR). */
static void rclink_t1_send_responses(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Qp *q;

    while ((q = QTAILQ_FIRST(&t1->due))) {
        if (!rclink_cbfc_tx_ok(c, RCLINK_CBFC_FLOW_ACK)) {
            /* CBFC: the responses wait for credits (then a kick) */
            break;
        }
        uint32_t epsn = QGET(c, q->qpn, RCLINK_QCOL_REQ_CHK,
                             RCLINK_REQ_CHK_SN_MEM_RX_REQ_EPSN);
        uint32_t acksn = QGET(c, q->qpn, RCLINK_QCOL_TX_ACK_SN,
                              RCLINK_TX_ACK_SN_MEM_TX_EPSN);

        QTAILQ_REMOVE(&t1->due, q, due_link);
        q->in_due = false;
        if (!rclink_t1_qp_enabled(c, q->qpn)) {
            rclink_t1_resp_clear(t1, q);
            continue;
        }
        if (q->resp_nak && q->resp_psn == epsn) {
            rclink_t1_send_resp(c, q, rclink_syn(RCLINK_SYN_NAK,
                                                 RCLINK_SYN_NAK_PSN_SEQ), epsn);
            rclink_qps_add(c, q->qpn, RCLINK_QPS_NAK_TX, 1);
        } else if (q->resp_rnr && q->resp_psn == epsn) {
            rclink_t1_send_resp(c, q, rclink_syn(RCLINK_SYN_RNR, T1_RNR_VALUE),
                                epsn);
            rclink_qps_add(c, q->qpn, RCLINK_QPS_RNR_TX, 1);
        } else if (q->resp_dup || epsn != acksn) {
            rclink_t1_send_resp(c, q, rclink_syn(RCLINK_SYN_ACK, 0x1f),
                                rclink_psn(epsn - 1));
            rclink_qps_add(c, q->qpn, RCLINK_QPS_ACK_TX, 1);
        } else {
            /* Nothing left to say. */
            rclink_t1_merge_remove(t1, q);
            continue;
        }
        QSET(c, q->qpn, RCLINK_QCOL_TX_ACK_SN, RCLINK_TX_ACK_SN_MEM_TX_EPSN,
             epsn);
        q->resp_dup = q->resp_nak = q->resp_rnr = false;
        rclink_t1_merge_remove(t1, q);
    }
}

/*
 * The merge pointer reached the QPs.  The ACKs leave from here rather than
 * from the bottom half: the main loop runs the timers after the bottom
 * halves, so an ACK left for the bottom half could lose the race against
 * the peer's retry timer when the host stalls QEMU for longer than it.
 */
static void rclink_t1_merge_timer(void *opaque)
{
    RclinkCore *c = opaque;
    RclinkT1 *t1 = c->t1;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    RclinkT1Qp *q;

    while ((q = QTAILQ_FIRST(&t1->merge)) && q->merge_deadline_ns <= now) {
        QTAILQ_REMOVE(&t1->merge, q, merge_link);
        q->in_merge = false;
        rclink_t1_due_add(t1, q);
    }
    if (q) {
        timer_mod(&t1->merge_timer, q->merge_deadline_ns);
    }
    if (c->link_up && rclink_t1_active(c)) {
        rclink_t1_send_responses(c);
    }
}

/* ----------------------------------------------------------- arbiter */

/* ------------------------------------------------------ rate control */

/*
 * crdt_ctrl (seed 000, 速率控制): per QP, acc_cnt (TX_CC_BYTE_CNT_MEM) adds
 * the TX_S length of every REQ sent and loses length_thr (TX_SPEED_MEM) at
 * each CC window end, down to 0; while acc_cnt >= length_thr the QP's
 * requests are masked (ARB_REQ_MASK).  Window ends are applied lazily: the
 * windows ended since the QP was last looked at are subtracted at once
 * (k windows: k * length_thr), which is what per-window subtraction gives.
 * With SHIM_CC_TEST.manual the windows end only on SHIM_CC_TEST.step.
 */
static int64_t rclink_cc_window_ns(RclinkCore *c)
{
    unsigned w = RF_GET(RCLINK_CC_CFG_CC_WINDOW, rclink_get(c, RCLINK_CC_CFG));

    return 4096LL << MIN(w, 4u);
}

static bool rclink_cc_manual(RclinkCore *c)
{
    return rclink_get(c, RCLINK_SHIM_CC_TEST) & RCLINK_SHIM_CC_TEST_MANUAL;
}

uint64_t rclink_cc_now(RclinkCore *c)
{
    if (rclink_cc_manual(c)) {
        return c->t1->cc_steps;
    }
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) / rclink_cc_window_ns(c);
}

/* acc_cnt after k window ends: length_thr less each, down to 0 */
uint64_t rclink_cc_decay(uint64_t acc, uint64_t k, uint32_t thr)
{
    return !thr ? acc : k > acc / thr ? 0 : acc - k * thr;
}

static uint32_t rclink_cc_thr(RclinkCore *c, RclinkT1Qp *q)
{
    return QGET(c, q->qpn, RCLINK_QCOL_TX_SPEED,
                RCLINK_TX_SPEED_MEM_TX_SPEED_CFG);
}

static uint64_t rclink_cc_acc(RclinkCore *c, RclinkT1Qp *q)
{
    return QGET(c, q->qpn, RCLINK_QCOL_CC_CNT,
                RCLINK_TX_CC_BYTE_CNT_MEM_BYTE_COUNTER);
}

/* acc_cnt now, without changing the state */
static uint64_t rclink_cc_peek(RclinkCore *c, RclinkT1Qp *q)
{
    uint64_t now = rclink_cc_now(c);

    return now > q->cc_win ?
           rclink_cc_decay(rclink_cc_acc(c, q), now - q->cc_win,
                           rclink_cc_thr(c, q)) : rclink_cc_acc(c, q);
}

static void rclink_cc_store(RclinkCore *c, RclinkT1Qp *q, uint64_t acc,
                            uint64_t win)
{
    uint32_t thr = rclink_cc_thr(c, q);

    acc = MIN(acc, (uint64_t)UINT32_MAX);
    q->cc_win = win;
    /* speed 0 is the recovery's stop, not the rate control's mask */
    *rclink_qreg(c, q->qpn, RCLINK_QCOL_CC_CNT) =
        RF_SET(RCLINK_TX_CC_BYTE_CNT_MEM_BYTE_COUNTER, 0, acc) |
        (thr && acc >= thr ? RCLINK_TX_CC_BYTE_CNT_MEM_CC_MASK : 0);
}

/* Bring the QP's acc_cnt to the current window; returns it. */
static uint32_t rclink_cc_sync(RclinkCore *c, RclinkT1Qp *q)
{
    uint64_t acc = rclink_cc_peek(c, q);

    /* (a switch to or from SHIM_CC_TEST.manual may go back: no window) */
    rclink_cc_store(c, q, acc, rclink_cc_now(c));
    return acc;
}

/*
 * CC_TYPE1_QP_EN_SET_O / CC_TYPE1_QP_EN_CLR_O (seed 000, 速率控制接口): the
 * IP tells its upstream, the queue engine, when the rate control masks a
 * QP (CLR) and when it lets it send again (SET), so that the engine stops
 * handing over packets of a QP the IP will not send for a while.  The
 * signal follows ARB_REQ_MASK (TX_CC_BYTE_CNT_MEM.cc_mask: a non-zero
 * length_thr reached); window ends are seen lazily, so while a QP is off
 * the CC timer wakes the bottom half at each window end to look again.
 */
static void rclink_cc_hint(RclinkCore *c, RclinkT1Qp *q)
{
    uint32_t thr = rclink_cc_thr(c, q);
    bool off = thr && rclink_cc_peek(c, q) >= thr;

    if (off != q->cc_off) {
        q->cc_off = off;
        if (off) {
            c->t1->ncc_off++;
        } else {
            c->t1->ncc_off--;
        }
        trace_rclink_t1_cc_hint(q->qpn, !off);
        rclink_dmaq_cc_qp_en(c, q->qpn, !off);
    }
    if (off && !rclink_cc_manual(c)) {
        /* the window end that brings acc_cnt below length_thr */
        uint64_t k = (rclink_cc_peek(c, q) - thr) / thr + 1;
        int64_t w = rclink_cc_window_ns(c);

        timer_mod_anticipate_ns(&c->t1->cc_timer,
                                (int64_t)(rclink_cc_now(c) + k) * w);
    }
}

/* The QPs the IP has masked: SET for those a window end let go. */
static void rclink_cc_hints(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;
    uint32_t i;

    for (i = 0; i < c->qp_num && t1->ncc_off; i++) {
        if (t1->qps[i].cc_off) {
            rclink_cc_hint(c, &t1->qps[i]);
        }
    }
}

/*
 * A REQ of len bytes (segment header and data) went on the wire.  While
 * the QP has slots waiting for the rate control (a backlog), the IP sends
 * each in the first window whose end makes acc_cnt < length_thr; the
 * model's timers may wake later than that, so each packet counts from the
 * window it would have left in (cc_win stays in the past), and a late
 * wake-up sends the packets it owes back to back: a late timer costs no
 * rate.  Without a backlog the packet counts from now.
 */
static void rclink_cc_sent(RclinkCore *c, RclinkT1Qp *q, uint32_t len)
{
    uint64_t now = rclink_cc_now(c), acc = rclink_cc_acc(c, q);
    uint64_t win = q->cc_win;
    uint32_t thr = rclink_cc_thr(c, q);
    uint64_t need = thr && acc >= thr ? (acc - thr) / thr + 1 : 0;

    if (q->cc_backlog && thr && now >= win && win + need <= now) {
        acc -= need * thr;
        win += need;
    } else {
        acc = rclink_cc_peek(c, q);
        win = now;
    }
    acc += len;
    rclink_cc_store(c, q, acc, win);
    /* the QP's other slots not yet granted wait from now on */
    q->cc_backlog = q->nslots > q->nwait_ack;
    trace_rclink_t1_cc(q->qpn, len, acc, thr, win, now - win);
}

/* TX_CC_BYTE_CNT_MEM as it reads now (the model's register read hook). */
void rclink_t1_cc_read(RclinkCore *c, uint32_t qpn)
{
    if (c->t1 && qpn < c->qp_num) {
        rclink_cc_sync(c, &c->t1->qps[qpn]);
    }
}

/*
 * SHIM_CC_TEST.manual changes: the windows count on the other clock (steps
 * or the virtual clock), whose window numbers have nothing to do with the
 * old ones.  Every QP's acc_cnt is brought to the old clock's current
 * window and then counts from the new clock's (so is TYPE2's), no backlog
 * owed across the switch; what waits for a window end looks again.
 */
static void rclink_cc_switch(RclinkCore *c, bool manual)
{
    RclinkT1 *t1 = c->t1;
    uint64_t now;
    uint32_t i, t2thr = RF_GET(RCLINK_TYPE2_SPEED_LENGTH_THR,
                               rclink_get(c, RCLINK_TYPE2_SPEED));

    for (i = 0; i < c->qp_num; i++) {
        rclink_cc_sync(c, &t1->qps[i]);
        t1->qps[i].cc_backlog = false;
    }
    now = rclink_cc_now(c);
    if (now > t1->t2.acc_win) {
        t1->t2.acc = rclink_cc_decay(t1->t2.acc, now - t1->t2.acc_win, t2thr);
    }
    rclink_set(c, RCLINK_SHIM_CC_TEST,
               manual ? RCLINK_SHIM_CC_TEST_MANUAL : 0);
    now = rclink_cc_now(c);
    for (i = 0; i < c->qp_num; i++) {
        t1->qps[i].cc_win = now;
    }
    t1->t2.acc_win = now;
    rclink_t1_kick(c);
}

/*
 * SHIM_CC_TEST written (val; old: what it held before the write, the
 * register holds val already): a step ends one window for every QP.
 */
void rclink_t1_cc_test(RclinkCore *c, uint64_t val, uint64_t old)
{
    if (val & RCLINK_SHIM_CC_TEST_STEP) {
        if (rclink_cc_manual(c)) {
            c->t1->cc_steps++;
            rclink_t1_kick(c);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: SHIM_CC_TEST.step "
                          "without manual: ignored\n");
        }
    }
    if ((val ^ old) & RCLINK_SHIM_CC_TEST_MANUAL) {
        rclink_set(c, RCLINK_SHIM_CC_TEST, old);
        rclink_cc_switch(c, val & RCLINK_SHIM_CC_TEST_MANUAL);
    }
    rclink_set(c, RCLINK_SHIM_CC_TEST,
               val & (RCLINK_SHIM_CC_TEST_MANUAL |
                      RCLINK_SHIM_CC_TEST_T2_CRD_HOLD |
                      RCLINK_SHIM_CC_TEST_T3_RX_HOLD));
    rclink_t2_crd_hold(c, val & RCLINK_SHIM_CC_TEST_T2_CRD_HOLD);
    if (old & ~val & RCLINK_SHIM_CC_TEST_T3_RX_HOLD) {
        /* released: the frames waiting for MDs go */
        rclink_t3_rx_head_write(c);
    }
}

static void rclink_t1_cc_timer(void *opaque)
{
    rclink_t1_kick(opaque);
}

/* speed 0: the recovery procedure's cc_mask; else the rate control's mask */
static bool rclink_t1_qp_can_send(RclinkCore *c, RclinkT1Qp *q)
{
    uint32_t thr = QGET(c, q->qpn, RCLINK_QCOL_TX_SPEED,
                        RCLINK_TX_SPEED_MEM_TX_SPEED_CFG);

    return !q->fatal && !q->rnr_wait && rclink_t1_qp_enabled(c, q->qpn) &&
           thr && rclink_cc_peek(c, q) < thr;
}

/* A slot (or TYPE2) waits for its window to end (WAIT_CRD): wake up then. */
void rclink_cc_wait(RclinkCore *c)
{
    int64_t w;

    if (rclink_cc_manual(c)) {
        return;                 /* the step kicks */
    }
    w = rclink_cc_window_ns(c);
    timer_mod(&c->t1->cc_timer,
              (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) / w + 1) * w);
}

/*
 * One arbitration round: WAIT_GRANT slots in entry order, skipping those
 * whose QP may not send.  Returns true when the round was full (more may
 * be waiting); *bytes: what went on the wire.
 */
/*
 * May slot s go now?  A QP found unable to send stays so for the whole
 * round: a CC window may end while the round runs, and the QP's later
 * slots must not overtake its earlier ones (PSN order).
 */
static bool rclink_t1_slot_ok(RclinkCore *c, int s)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Qp *q = &t1->qps[t1->slots[s].qpn];

    if (q->held_round == t1->round) {
        return false;
    }
    if (!rclink_cbfc_tx_ok(c, q->qpn & T1_BANK_MASK)) {
        /* CBFC credits or a PFC pause of the bank (kicked when it ends) */
        q->held_round = t1->round;
        return false;
    }
    if (!rclink_t1_qp_can_send(c, q)) {
        q->held_round = t1->round;
        if (!q->fatal && !q->rnr_wait && rclink_t1_qp_enabled(c, q->qpn) &&
            QGET(c, q->qpn, RCLINK_QCOL_TX_SPEED,
                 RCLINK_TX_SPEED_MEM_TX_SPEED_CFG)) {
            q->cc_backlog = true;   /* WAIT_CRD */
            rclink_cc_wait(c);
        }
        return false;
    }
    return true;
}

static unsigned rclink_t1_ack_upto(RclinkCore *c, RclinkT1Qp *q,
                                   uint32_t psn);

/* WAIT_GRANT -> WAIT_ACK: slot s goes on the wire; its frame's bytes */
static size_t rclink_t1_grant(RclinkCore *c, int s)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Slot *sl = &t1->slots[s];
    RclinkT1Qp *q = &t1->qps[sl->qpn];
    size_t bytes;

    rclink_t1_grant_remove(t1, s);
    sl->state = RCLINK_SLOT_WAIT_ACK;
    sl->sent = true;
    q->nwait_ack++;
    bytes = rclink_t1_send_req(c, sl) + T1_FRAME_GAP;
    rclink_cc_sent(c, q, sl->len);
    rclink_cc_hint(c, q);
    if (rclink_t1_format(c) == RCLINK_T1_FMT_LITE) {
        /* LITE: no end-to-end retransmission: done once on the wire */
        rclink_t1_ack_upto(c, q, sl->psn);
    } else if (q->timer_mode == RCLINK_QP_TIMER_OFF) {
        rclink_t1_retry_arm(c, q);
    }
    t1->last_bank = sl->qpn & (RCLINK_PARAM_TYPE1_VC_NUM_DEFAULT - 1);
    return bytes;
}

/*
 * One arbitration round (seed 000, TYPE1 发送仲裁): WAIT_GRANT slots in
 * entry order, skipping those whose QP may not send.  With
 * RC_MISC_CFG.tx_bank_rr_en (Bank 轮转机制) the slots of the bank that sent
 * last (QPN[1:0]) are masked for the next grant, unless no other bank has
 * a slot that may go.  Returns true when the round was full (more may be
 * waiting); *bytes: what went on the wire.
 */
static bool rclink_t1_arbitrate(RclinkCore *c, size_t *bytes)
{
    RclinkT1 *t1 = c->t1;
    bool rr = rclink_get(c, RCLINK_RC_MISC_CFG) &
              RCLINK_RC_MISC_CFG_TX_BANK_RR_EN;
    unsigned sent = 0;
    int s, next;

    if (!c->link_up || !rclink_t1_active(c)) {
        return false;
    }
    t1->round++;
    if (!rr) {
        for (s = t1->ghead; s != RCLINK_T1_NIL && sent < T1_ROUND;
             s = next) {
            next = t1->slots[s].gnext;
            if (rclink_t1_slot_ok(c, s)) {
                *bytes += rclink_t1_grant(c, s);
                sent++;
            }
        }
        return sent == T1_ROUND && t1->ghead != RCLINK_T1_NIL;
    }
    while (sent < T1_ROUND) {
        int pick = RCLINK_T1_NIL, same = RCLINK_T1_NIL;

        for (s = t1->ghead; s != RCLINK_T1_NIL; s = t1->slots[s].gnext) {
            unsigned bank = t1->slots[s].qpn &
                            (RCLINK_PARAM_TYPE1_VC_NUM_DEFAULT - 1);

            if (!rclink_t1_slot_ok(c, s)) {
                continue;
            }
            if (t1->last_bank < 0 || bank != (unsigned)t1->last_bank) {
                pick = s;
                break;
            }
            if (same == RCLINK_T1_NIL) {
                same = s;
            }
        }
        if (pick == RCLINK_T1_NIL) {
            pick = same;        /* one bank only: the mask does not apply */
        }
        if (pick == RCLINK_T1_NIL) {
            break;
        }
        *bytes += rclink_t1_grant(c, pick);
        sent++;
    }
    return sent == T1_ROUND && t1->ghead != RCLINK_T1_NIL;
}

/*
 * The bottom half: the engine's work, the responses due, then one
 * arbitration round once the previous round has left at the MAC's line
 * rate.  Rounds are paced on the virtual clock, so the main loop sleeps
 * between them (the vCPUs get the big lock) and ACKs are handled between
 * rounds.
 */
static void rclink_t1_bh(void *opaque)
{
    RclinkCore *c = opaque;
    RclinkT1 *t1 = c->t1;
    int64_t now;
    size_t bytes = 0;

    if (t1->ncc_off) {
        rclink_cc_hints(c);
    }
    rclink_dmaq_run(c);
    if (c->link_up && rclink_t1_active(c)) {
        rclink_t1_send_responses(c);
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (now >= t1->wire_free_ns) {
        bool more = rclink_t1_arbitrate(c, &bytes);

        if (bytes) {
            t1->wire_free_ns = now + bytes * 8 / T1_LINE_GBPS;
        }
        if (more) {
            timer_mod(&t1->round_timer, t1->wire_free_ns);
        }
    } else if (t1->ghead != RCLINK_T1_NIL) {
        timer_mod(&t1->round_timer, t1->wire_free_ns);
    }
    rclink_dmaq_irq(c);
}

static void rclink_t1_round_timer(void *opaque)
{
    rclink_t1_kick(opaque);
}

/* ---------------------------------------------------------- requester */

/* Free one slot of the QP (its credit returns to the engine). */
static void rclink_t1_slot_release(RclinkCore *c, RclinkT1Qp *q, int s,
                                   bool ok)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Slot *sl = &t1->slots[s];
    RclinkDmaqMsg *m = sl->msg;

    if (sl->state == RCLINK_SLOT_WAIT_GRANT) {
        rclink_t1_grant_remove(t1, s);
    } else if (sl->state == RCLINK_SLOT_WAIT_ACK) {
        q->nwait_ack--;
    }
    q->head = sl->qnext;
    if (q->head == RCLINK_T1_NIL) {
        q->tail = RCLINK_T1_NIL;
    }
    q->nslots--;
    rclink_t1_slot_put(c, s);
    if (m) {
        rclink_dmaq_credit(c, m, ok);
    }
}

/* Cumulative acknowledgement of every sent slot up to psn; returns how many. */
static unsigned rclink_t1_ack_upto(RclinkCore *c, RclinkT1Qp *q, uint32_t psn)
{
    RclinkT1 *t1 = c->t1;
    unsigned n = 0;
    uint32_t last = 0;

    while (q->head != RCLINK_T1_NIL) {
        RclinkT1Slot *sl = &t1->slots[q->head];

        if (!sl->sent || !rclink_psn_le(sl->psn, psn)) {
            break;
        }
        last = sl->psn;
        rclink_t1_slot_release(c, q, q->head, true);
        n++;
    }
    if (n) {
        QSET(c, q->qpn, RCLINK_QCOL_EXPECT_RESP,
             RCLINK_EXPECT_RESP_PSN_MEM_EXPECT_RESP_PSN, rclink_psn(last + 1));
        QSET(c, q->qpn, RCLINK_QCOL_RETRY_CNT,
             RCLINK_RETRY_CNT_MEM_RETRY_COUNTER, 0);
    }
    return n;
}

static void rclink_t1_rx_ack(RclinkCore *c, RclinkT1Qp *q, uint64_t rh)
{
    unsigned syn = RF_GET(RCLINK_RH_SYNDROME, rh);
    unsigned type = RF_GET(RCLINK_SYN_TYPE, syn);
    uint32_t psn = RF_GET(RCLINK_RH_PSN, rh);
    uint32_t upto = psn;
    unsigned acked;
    bool nak = false;

    switch (type) {
    case RCLINK_SYN_ACK:
        rclink_qps_add(c, q->qpn, RCLINK_QPS_ACK_RX, 1);
        break;
    case RCLINK_SYN_NAK:
        if (RF_GET(RCLINK_SYN_VALUE, syn) != RCLINK_SYN_NAK_PSN_SEQ) {
            rclink_count_ip(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED);
            trace_rclink_t1_rx_drop("unsupported NAK code", q->qpn);
            return;
        }
        rclink_qps_add(c, q->qpn, RCLINK_QPS_NAK_RX, 1);
        upto = rclink_psn(psn - 1);
        nak = true;
        break;
    case RCLINK_SYN_RNR:
        rclink_qps_add(c, q->qpn, RCLINK_QPS_RNR_RX, 1);
        upto = rclink_psn(psn - 1);
        nak = true;
        break;
    default:
        rclink_count_ip(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED);
        trace_rclink_t1_rx_drop("reserved syndrome", q->qpn);
        return;
    }
    acked = rclink_t1_ack_upto(c, q, upto);
    trace_rclink_t1_rx_ack(q->qpn, psn, syn, acked);
    if (rh & RCLINK_RH_TS_EN) {
        uint64_t info = RF_SET(RCLINK_RECV_ACK_RTT, 0,
                               (rclink_t1_now_ts() - RF_GET(RCLINK_RH_TS, rh)) &
                               0xffff);

        info = RF_SET(RCLINK_RECV_ACK_QPID, info, q->qpn);
        info = RF_SET(RCLINK_RECV_ACK_NUM_ACKED, info, acked);
        if (nak) {
            info |= RCLINK_RECV_ACK_NAK;
        }
        rclink_event(c, RCLINK_EVT_SRC_RECV_ACK, info);
    }
    if (q->fatal) {
        /* Acknowledged packets complete; nothing is sent again. */
        return;
    }
    if (type != RCLINK_SYN_ACK) {
        /*
         * A NAK or an RNR NAK is the responder answering: the transport
         * retry counter counts silence only (the RNR counter has its own
         * threshold below).
         */
        QSET(c, q->qpn, RCLINK_QCOL_RETRY_CNT,
             RCLINK_RETRY_CNT_MEM_RETRY_COUNTER, 0);
    }
    if (type == RCLINK_SYN_ACK) {
        if (acked) {
            QSET(c, q->qpn, RCLINK_QCOL_RETRY_CNT,
                 RCLINK_RETRY_CNT_MEM_RNR_RETRY_COUNTER, 0);
            if (q->nwait_ack) {
                rclink_t1_retry_arm(c, q);
            } else if (q->timer_mode == RCLINK_QP_TIMER_RETRY) {
                rclink_t1_timer_off(q);
            }
        }
        return;
    }
    if (type == RCLINK_SYN_RNR) {
        uint32_t cnt = QGET(c, q->qpn, RCLINK_QCOL_RETRY_CNT,
                            RCLINK_RETRY_CNT_MEM_RNR_RETRY_COUNTER);
        uint32_t thr = RF_GET(RCLINK_RETRY_TIMER_CFG_RNR_RETRY_CNT_THR,
                              rclink_get(c, RCLINK_RETRY_TIMER_CFG));

        if (cnt < T1_RETRY_CNT_MAX) {
            cnt++;
        }
        QSET(c, q->qpn, RCLINK_QCOL_RETRY_CNT,
             RCLINK_RETRY_CNT_MEM_RNR_RETRY_COUNTER, cnt);
        if (thr && cnt >= thr) {
            rclink_t1_fatal(c, q);
            return;
        }
        rclink_t1_go_back(c, q);
        q->rnr_wait = true;
        q->timer_mode = RCLINK_QP_TIMER_RNR;
        timer_mod(&q->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)(RF_GET(RCLINK_SYN_VALUE, syn) + 1) *
                  RCLINK_SYN_RNR_UNIT_US * SCALE_US);
        return;
    }
    rclink_t1_go_back(c, q);
}

/* ---------------------------------------------------------- responder */

/* RH.PKEY against the QP's RX P_Key; a mismatch is dropped and counted */
static bool rclink_t1_rx_pkey_ok(RclinkCore *c, uint32_t qpn, uint64_t rh)
{
    if (RF_GET(RCLINK_RH_PKEY, rh) !=
        QGET(c, qpn, RCLINK_QCOL_BTH, RCLINK_BTH_QP_CFG_MEM_QP_P_KEY)) {
        rclink_count(c, RCLINK_DMAQ_T1_RX_DROP_PKEY);
        trace_rclink_t1_rx_drop("pkey", qpn);
        return false;
    }
    return true;
}

/* what becomes of a TYPE1 REQ that its QP takes by its PSN */
enum {
    T1_RX_TAKEN,        /* to the host, waiting on RX_M or in CBFC's buffer */
    T1_RX_REFUSED,      /* no room: the caller answers RNR or counts it */
    T1_RX_FULL,         /* CBFC's buffer full: dropped and counted there */
};

/*
 * The receive decision of a TYPE1 REQ at the expected PSN (AFH_Lite: at
 * or after it), in every format, and its delivery when it is taken.
 *
 * The IP first looks at the FLOW_STOP level of the QP's bank, before it
 * knows whose packet it is: rclink_dmaq_flow_stop() raises it on every
 * bank while a packet is held on RX_M (nothing goes to the host
 * meanwhile) and while context 0 lacks RQEs, so a user context's QP, or
 * a WRITE or READ of the kernel's that needs no RQE, is refused under it
 * too.  Behind the co-simulation bridge the RTL raises the level and
 * rclink_cosim_ip_rx() applies it: rclink_dmaq_flow_stop() reads 0 there,
 * so a packet held on RX_M is looked at apart from the level.
 *
 * A user context's packet does not wait in the shared receive buffer
 * (Documentation/hw/shim.rst, Contexts): without room, and with the level
 * down, it waits on RX_M for a bounded time (rclink_dmaq_rx_hold), and
 * none of its QP's packets is ever in the buffer, so going past it keeps
 * the QP's order.  A packet of context 0 that does not fit although the
 * level is down (its CQ full, more buffers than are posted), which the
 * RTL lets wait on RX_M instead, is refused as under FLOW_STOP.
 */
static int rclink_t1_rx_take(RclinkCore *c, uint32_t qpn, const uint8_t *pl,
                             size_t plen)
{
    bool user = rclink_dmaq_qp_user(c, qpn);
    bool stop = rclink_dmaq_rx_held(c) ||
                (rclink_dmaq_flow_stop(c) & (1u << (qpn & T1_BANK_MASK)));
    bool room = !stop && rclink_dmaq_rx_accept(c, qpn, pl, plen, true);
    int cbfc = user ? RCLINK_CBFC_DIRECT :
               rclink_cbfc_rx_defer(c, RCLINK_CBFC_T1, qpn, pl, plen, room);

    if (cbfc == RCLINK_CBFC_FULL) {
        return T1_RX_FULL;
    }
    if (cbfc != RCLINK_CBFC_DIRECT) {
        return T1_RX_TAKEN;
    }
    if (room) {
        rclink_dmaq_rx_accept(c, qpn, pl, plen, false);
        return T1_RX_TAKEN;
    }
    if (stop || !user) {
        return T1_RX_REFUSED;
    }
    /* taken and acknowledged by the IP: it waits on RX_M */
    rclink_dmaq_rx_hold(c, qpn, pl, plen);
    return T1_RX_TAKEN;
}

static void rclink_t1_rx_req(RclinkCore *c, RclinkT1Qp *q, uint64_t rh,
                             const uint8_t *pl, size_t plen, bool ce)
{
    RclinkT1 *t1 = c->t1;
    uint32_t qpn = q->qpn;
    uint32_t psn = RF_GET(RCLINK_RH_PSN, rh);
    uint32_t epsn = QGET(c, qpn, RCLINK_QCOL_REQ_CHK,
                         RCLINK_REQ_CHK_SN_MEM_RX_REQ_EPSN);
    uint32_t d = rclink_psn_diff(psn, epsn);
    int take;

    if (!rclink_t1_rx_pkey_ok(c, qpn, rh)) {
        return;
    }
    if (ce) {
        /* Congestion on the way here, whatever becomes of the packet. */
        rclink_qps_add(c, qpn, RCLINK_QPS_ECN_RX, 1);
        rclink_t1_send_cnp(c, q);
    }
    if (d >= RCLINK_T1_PSN_HALF) {
        /* Already received: acknowledged again at once. */
        rclink_qps_add(c, qpn, RCLINK_QPS_RX_DUP, 1);
        trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "duplicate");
        q->resp_dup = true;
        rclink_t1_due_add(t1, q);
        return;
    }
    if (d) {
        /* A gap: one NAK until the expected PSN arrives. */
        rclink_qps_add(c, qpn, RCLINK_QPS_RX_OOS, 1);
        trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "out of sequence");
        if (!q->gap) {
            q->gap = true;
            q->resp_nak = true;
            q->resp_rnr = false;
            q->resp_psn = epsn;
            rclink_t1_due_add(t1, q);
        }
        return;
    }
    take = rclink_t1_rx_take(c, qpn, pl, plen);
    if (take == T1_RX_FULL) {
        return;
    }
    if (take == T1_RX_REFUSED) {
        /*
         * FLOW_STOP reaches the IP only with XON_THR_RDMA.flow_stop_en,
         * and only then may the IP answer RNR
         * (type1_flow_stop_send_rnr_en); else the sender's retry timer
         * sends the packet again.
         */
        unsigned rnr = RF_GET(RCLINK_AFH_CFG_EN_TYPE1_FLOW_STOP_SEND_RNR_EN,
                              rclink_get(c, RCLINK_AFH_CFG_EN));
        unsigned fs = RF_GET(RCLINK_XON_THR_RDMA_FLOW_STOP_EN,
                             rclink_get(c, RCLINK_XON_THR_RDMA));

        if (rnr & fs & (1u << (qpn & T1_BANK_MASK))) {
            trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "refused: RNR");
            q->gap = true;          /* the packets behind it: no NAK */
            q->resp_rnr = true;
            q->resp_nak = false;
            q->resp_psn = epsn;
            rclink_t1_due_add(t1, q);
        } else {
            trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "refused: no buffer");
            rclink_count(c, RCLINK_DMAQ_T1_RX_DROP_NOBUF);
        }
        return;
    }
    trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "accepted");
    rclink_qps_add(c, qpn, RCLINK_QPS_RX_PKTS, 1);
    rclink_qps_add(c, qpn, RCLINK_QPS_RX_BYTES, plen);
    epsn = rclink_psn(epsn + 1);
    QSET(c, qpn, RCLINK_QCOL_REQ_CHK, RCLINK_REQ_CHK_SN_MEM_RX_REQ_EPSN, epsn);
    q->gap = false;
    q->resp_nak = q->resp_rnr = false;
    q->last_fack = rh & RCLINK_RH_FACK;
    q->last_ts_en = rh & RCLINK_RH_TS_EN;
    q->last_ts = RF_GET(RCLINK_RH_TS, rh);
    if (q->last_fack) {
        /* FACK: at once, past the merge (seed 000: FACK 绕过) */
        rclink_t1_due_add(t1, q);
    } else {
        rclink_t1_merge_add(t1, q);
    }
}

/*
 * AFH_Lite (LITE 模式组网): no end-to-end retransmission, so no ACK.  A REQ
 * at the expected PSN or after it is taken (the PSNs skipped were lost on
 * the wire: counted in DMAQ_QPS_RX_OOS, the message they belonged to is
 * dropped by the reassembly); one before it is a duplicate (RX_DUP).
 * Without receive buffer space the packet is dropped (RX_DROP_NOBUF).
 */
static void rclink_t1_rx_req_lite(RclinkCore *c, RclinkT1Qp *q, uint64_t rh,
                                  const uint8_t *pl, size_t plen)
{
    uint32_t qpn = q->qpn;
    uint32_t psn = RF_GET(RCLINK_RH_PSN, rh);
    uint32_t epsn = QGET(c, qpn, RCLINK_QCOL_REQ_CHK,
                         RCLINK_REQ_CHK_SN_MEM_RX_REQ_EPSN);
    uint32_t d = rclink_psn_diff(psn, epsn);
    int take;

    if (!rclink_t1_rx_pkey_ok(c, qpn, rh)) {
        return;
    }
    if (d >= RCLINK_T1_PSN_HALF) {
        rclink_qps_add(c, qpn, RCLINK_QPS_RX_DUP, 1);
        trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "lite: old, dropped");
        return;
    }
    take = rclink_t1_rx_take(c, qpn, pl, plen);
    if (take == T1_RX_FULL) {
        return;
    }
    if (take == T1_RX_REFUSED) {
        /* no RNR and no retransmission: the packet is lost */
        rclink_count(c, RCLINK_DMAQ_T1_RX_DROP_NOBUF);
        trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "lite: no buffer");
        return;
    }
    if (d) {
        rclink_qps_add(c, qpn, RCLINK_QPS_RX_OOS, d);
    }
    trace_rclink_t1_rx_req(qpn, psn, epsn, plen, "lite: accepted");
    rclink_qps_add(c, qpn, RCLINK_QPS_RX_PKTS, 1);
    rclink_qps_add(c, qpn, RCLINK_QPS_RX_BYTES, plen);
    QSET(c, qpn, RCLINK_QCOL_REQ_CHK, RCLINK_REQ_CHK_SN_MEM_RX_REQ_EPSN,
         rclink_psn(psn + 1));
}

static void rclink_t1_rx_drop(RclinkCore *c, hwaddr counter, const char *why)
{
    /* the frame checks are the IP's: its MALFORMED drops too */
    if (counter == RCLINK_DMAQ_T1_RX_DROP_MALFORMED) {
        rclink_count_ip(c, counter);
    } else {
        rclink_count(c, counter);
    }
    trace_rclink_t1_rx_drop(why, 0);
}

bool rclink_is_vlan(RclinkCore *c, uint16_t type)
{
    uint16_t tpid = RF_GET(RCLINK_VLAN_CTRL_TPID,
                           rclink_get(c, RCLINK_VLAN_CTRL));

    return type == 0x8100 || type == 0x88a8 || (tpid && type == tpid);
}

/*
 * The IPv4 and UDP headers of a Standard frame whose IPv4 header starts at
 * off (version, lengths, no fragment, UDP, the checksum), with at least an
 * RH and tail bytes after the UDP header.  *rh_at / *body: where the RH
 * starts and the UDP payload before the tail.
 */
int rclink_parse_ipv4_udp(const uint8_t *buf, size_t len, size_t off,
                          size_t tail, size_t *rh_at, size_t *body)
{
    const uint8_t *ip = buf + off;
    size_t ihl, tot, ulen;

    ihl = len >= off + T1_IP_HLEN ? (ip[0] & 0xf) * 4 : 0;
    tot = ihl ? lduw_be_p(ip + 2) : 0;
    if (!ihl || (ip[0] >> 4) != 4 || ihl < T1_IP_HLEN ||
        len < off + ihl || tot < ihl + T1_UDP_HLEN || len < off + tot ||
        (lduw_be_p(ip + 6) & 0x3fff) || ip[9] != 17 ||
        rclink_ip_csum(ip, ihl)) {
        return RCLINK_PARSE_BAD_IP;
    }
    ulen = lduw_be_p(ip + ihl + 4);
    if (ulen != tot - ihl || ulen < T1_UDP_HLEN + RCLINK_RH_BYTES + tail) {
        return RCLINK_PARSE_BAD_LEN;
    }
    *rh_at = off + ihl + T1_UDP_HLEN;
    *body = ulen - T1_UDP_HLEN - tail;
    return 0;
}

/*
 * AFH formats: the RH follows the MAC header at off.  The RH + payload
 * length is PKT_LEN for a short REQ (the frame may carry Ethernet padding),
 * the RH alone for an ACK, else what the frame holds before the tail.
 */
int rclink_parse_afh_len(const uint8_t *buf, size_t len, size_t off,
                         size_t tail, size_t *body)
{
    uint64_t rh;
    size_t n;

    if (len < off + RCLINK_RH_BYTES + tail) {
        return RCLINK_PARSE_BAD_LEN;
    }
    rh = ldq_be_p(buf + off);
    if (RF_GET(RCLINK_RH_OPCODE, rh) == RCLINK_RH_OP_ACK) {
        n = RCLINK_RH_BYTES;
    } else if (RF_GET(RCLINK_RH_OPCODE, rh) == RCLINK_RH_OP_REQ &&
               RF_GET(RCLINK_RH_PKT_LEN, rh)) {
        n = RF_GET(RCLINK_RH_PKT_LEN, rh);
    } else {
        n = len - off - tail;
    }
    if (n < RCLINK_RH_BYTES || off + n + tail > len) {
        return RCLINK_PARSE_BAD_LEN;
    }
    *body = n;
    return 0;
}

/*
 * Standard format: the IPv4 header, UDP length and ICRC of a frame whose
 * IPv4 header starts at off.  *rh_at / *body: where the RH starts and the
 * bytes of RH + payload + pad.  false: dropped and counted.
 */
static bool rclink_t1_parse_std(RclinkCore *c, const uint8_t *buf, size_t len,
                                size_t off, bool icrc, size_t *rh_at,
                                size_t *body)
{
    const uint8_t *ip = buf + off, *udp;
    size_t ihl = (ip[0] & 0xf) * 4, n;

    switch (rclink_parse_ipv4_udp(buf, len, off, icrc ? T1_ICRC_LEN : 0,
                                  rh_at, &n)) {
    case RCLINK_PARSE_BAD_IP:
        /* Not a valid IPv4 header (version, lengths, fragment, checksum) */
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_CSUM, "ipv4 header");
        return false;
    case RCLINK_PARSE_BAD_LEN:
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED, "udp length");
        return false;
    }
    udp = ip + ihl;
    if (icrc && ldl_le_p(udp + T1_UDP_HLEN + n) !=
        rclink_icrc(ip, ihl, udp, T1_UDP_HLEN + n)) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_ICRC, "icrc");
        return false;
    }
    *body = n;
    return true;
}

/* AFH formats: the length rule above, then the ICRC over RH and payload */
static bool rclink_t1_parse_afh(RclinkCore *c, const uint8_t *buf, size_t len,
                                size_t off, bool icrc, size_t *body)
{
    size_t n;

    if (rclink_parse_afh_len(buf, len, off, icrc ? T1_ICRC_LEN : 0, &n)) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED, "afh length");
        return false;
    }
    if (icrc && (uint32_t)ldl_le_p(buf + off + n) !=
        (uint32_t)crc32(0, buf + off, n)) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_ICRC, "icrc");
        return false;
    }
    *body = n;
    return true;
}

/*
 * Is the frame of the local header format?  Standard frames carry IPv4, the
 * AFH ones MAC_TYPE1; AFH_GEN2_16b frames carry Key_words W = 1, M = 0 in
 * MAC_SA[47:40]; AFH_Lite frames a bank (0..3) as TC in MAC_DA[47:40] (the
 * XPU_ID in MAC_SA[47:40] is checked with the RH's DEST_QP later).  The DA: all 48 bits (Standard, GEN1) or Dest Addr[15:0]
 * (GEN2).  A GEN2 frame at a GEN1 board fails the DA but matches it in its
 * low 16 bits with GEN2 Key_words: a format mismatch, not a stranger.
 */
static bool rclink_t1_rx_l2(RclinkCore *c, const uint8_t *buf, unsigned fmt,
                            bool is_ip)
{
    uint64_t mac = RF_GET(RCLINK_MAC_ADDR_MAC_ADDR,
                          rclink_get(c, RCLINK_MAC_ADDR));
    uint64_t da = ldq_be_p(buf) >> 16;
    bool kw2 = (buf[6] & (RCLINK_AFH_KW_W | RCLINK_AFH_KW_M)) ==
               RCLINK_AFH_KW_W;
    bool low16 = (da & 0xffff) == (mac & 0xffff);

    bool lite_tc = (da >> 40) <= T1_BANK_MASK;

    if (is_ip != (fmt == RCLINK_T1_FMT_STD) ||
        (fmt == RCLINK_T1_FMT_GEN2 && !kw2) ||
        (fmt == RCLINK_T1_FMT_LITE && !lite_tc) ||
        (fmt == RCLINK_T1_FMT_GEN1 && da != mac && low16 && kw2)) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_FORMAT, "format");
        return false;
    }
    if (fmt == RCLINK_T1_FMT_GEN2 || fmt == RCLINK_T1_FMT_LITE ? !low16
                                                             : da != mac) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_DA, "da");
        return false;
    }
    return true;
}

/* A frame the classifier found to be TYPE1. */
void rclink_t1_receive(RclinkCore *c, const uint8_t *buf, size_t len)
{
    RclinkT1 *t1 = c->t1;
    bool icrc = !(rclink_get(c, RCLINK_RC_MISC_CFG) &
                  RCLINK_RC_MISC_CFG_TYPE1_REMOVE_ICRC_EN);
    unsigned fmt = rclink_t1_format(c);
    size_t off = T1_ETH_HLEN, rh_at, body, plen, pad;
    uint16_t type;
    uint64_t rh;
    unsigned op;
    uint32_t qpn;

    if (!rclink_t1_active(c)) {
        rclink_count(c, RCLINK_SHIM_RX_DROP_T12);
        trace_rclink_rx_drop("type1 off", len);
        return;
    }
    if (len < T1_ETH_HLEN) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED, "runt");
        return;
    }
    /* 1. the format, the DA, the IPv4 header or the AFH length, the ICRC */
    type = lduw_be_p(buf + 12);
    if (rclink_is_vlan(c, type) && len >= T1_ETH_HLEN + T1_VLAN_HLEN) {
        type = lduw_be_p(buf + 16);
        off += T1_VLAN_HLEN;
    }
    if (fmt == RCLINK_T1_FMT_LITE) {
        /* AFH_Lite: the TC tells TYPE2 (its VC) from TYPE1; no ICRC */
        if (buf[0] == RCLINK_AFH_LITE_VC_TYPE2) {
            rclink_t2_receive(c, buf, len);
            return;
        }
        icrc = false;
    }
    if (!rclink_t1_rx_l2(c, buf, fmt, type == 0x0800)) {
        return;
    }
    if (fmt == RCLINK_T1_FMT_STD) {
        if (!rclink_t1_parse_std(c, buf, len, off, icrc, &rh_at, &body)) {
            return;
        }
    } else {
        rh_at = off;
        if (!rclink_t1_parse_afh(c, buf, len, off, icrc, &body)) {
            return;
        }
    }
    rh = ldq_be_p(buf + rh_at);
    op = RF_GET(RCLINK_RH_OPCODE, rh);
    plen = body - RCLINK_RH_BYTES;
    pad = RF_GET(RCLINK_RH_PAD, rh);
    if (op == RCLINK_RH_OP_REQ) {
        size_t pkt = RCLINK_RH_BYTES + plen;

        if ((plen & 3) || plen < pad + RCLINK_SEG_BYTES + 1 ||
            plen - pad > RCLINK_T1_PKT_LEN ||
            RF_GET(RCLINK_RH_PKT_LEN, rh) !=
            (pkt <= T1_RH_PKT_LEN_MAX ? pkt : 0)) {
            rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED,
                              "req length");
            return;
        }
    } else if (fmt == RCLINK_T1_FMT_LITE) {
        /* LITE sends neither ACK nor CNP */
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED, "lite opcode");
        return;
    } else if (op == RCLINK_RH_OP_ACK || op == RCLINK_RH_OP_CNP) {
        if (plen || pad) {
            rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED,
                              "ack length");
            return;
        }
    } else {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED, "opcode");
        return;
    }
    /* 2. the QP (AFH_Lite: {XPU_ID of MAC_SA, the bank of the TC}) */
    qpn = RF_GET(RCLINK_RH_DEST_QP, rh);
    if (fmt == RCLINK_T1_FMT_LITE &&
        qpn != (((uint32_t)buf[6] << T1_LITE_BANK_BITS) | buf[0])) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_FORMAT, "lite qpid");
        return;
    }
    rclink_cbfc_rx_enter(c, op == RCLINK_RH_OP_REQ ?
                         (qpn & T1_BANK_MASK) : RCLINK_CBFC_FLOW_ACK, len);
    if (qpn >= c->qp_num) {
        rclink_t1_rx_drop(c, RCLINK_DMAQ_T1_RX_DROP_BADQP, "qp number");
        return;
    }
    if (!rclink_t1_qp_enabled(c, qpn)) {
        rclink_count(c, RCLINK_DMAQ_T1_RX_DROP_QP_OFF);
        trace_rclink_t1_rx_drop("qp disabled", qpn);
        rclink_t1_irq_info(c, RCLINK_IRQ_TYPE1_RX_QP_DISABLED, qpn,
                           RCLINK_INTR_STATUS_T1_RX_QP_DISABLED);
        return;
    }
    /* 3. ACK/NAK, CNP, 4. REQ (CE: ECN 11 in the IPv4 ToS) */
    if (fmt == RCLINK_T1_FMT_LITE) {
        rclink_t1_rx_req_lite(c, &t1->qps[qpn], rh,
                              buf + rh_at + RCLINK_RH_BYTES, plen - pad);
    } else if (op == RCLINK_RH_OP_ACK) {
        rclink_t1_rx_ack(c, &t1->qps[qpn], rh);
    } else if (op == RCLINK_RH_OP_CNP) {
        rclink_cnp_rx(c, &t1->qps[qpn]);
    } else {
        rclink_t1_rx_req(c, &t1->qps[qpn], rh,
                         buf + rh_at + RCLINK_RH_BYTES, plen - pad,
                         fmt == RCLINK_T1_FMT_STD &&
                         (buf[off + 1] & T1_ECN_MASK) == T1_ECN_CE);
    }
    rclink_t1_kick(c);
}

/* ------------------------------------------------------- QP registers */

/* free_buf_set: every slot of the QP is released, its messages FLUSHED. */
static void rclink_t1_free_buf(RclinkCore *c, RclinkT1Qp *q)
{
    unsigned n = 0;

    while (q->head != RCLINK_T1_NIL) {
        rclink_t1_slot_release(c, q, q->head, false);
        n++;
    }
    q->nwait_ack = 0;
    q->rnr_wait = false;
    rclink_t1_timer_off(q);
    trace_rclink_t1_free_buf(q->qpn, n);
}

/*
 * A user context stops: the messages of its QP's slots complete FLUSHED,
 * but the slots stay the IP's (the shim does not release them: the
 * kernel does, with free_buf_set, for a QP the stop left flushed); a
 * credit that comes back for them later returns nothing to the engine.
 * True when there were any: their PSNs were never acknowledged, the
 * sequence the peer expects has a hole.
 */
bool rclink_t1_detach_qp(RclinkCore *c, uint32_t qpn)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Qp *q = &t1->qps[qpn];
    g_autoptr(GPtrArray) msgs = NULL;
    int s;
    guint i;

    if (!q->nslots) {
        return false;
    }
    /* first off the slots: completing them may move the engine on */
    msgs = g_ptr_array_new();
    for (s = q->head; s != RCLINK_T1_NIL; s = t1->slots[s].qnext) {
        if (t1->slots[s].msg) {
            g_ptr_array_add(msgs, t1->slots[s].msg);
            t1->slots[s].msg = NULL;
        }
    }
    for (i = 0; i < msgs->len; i++) {
        rclink_dmaq_credit(c, g_ptr_array_index(msgs, i), false);
    }
    trace_rclink_t1_detach_qp(qpn, q->nslots);
    return true;
}

void rclink_t1_release_all(RclinkCore *c)
{
    uint32_t i;

    for (i = 0; i < c->qp_num; i++) {
        if (c->t1->qps[i].nslots) {
            rclink_t1_free_buf(c, &c->t1->qps[i]);
        }
    }
}

/* A write to a per-QP register of QP qpn (old: the value before). */
void rclink_t1_qp_write(RclinkCore *c, hwaddr reg, uint32_t qpn,
                        uint64_t old, uint64_t val)
{
    RclinkT1 *t1 = c->t1;
    RclinkT1Qp *q = &t1->qps[qpn];

    switch (reg) {
    case RCLINK_QP_CONTROL_STATUS:
        if (val & RCLINK_QP_CONTROL_STATUS_QP_EN) {
            if (q->fatal || !(old & RCLINK_QP_CONTROL_STATUS_QP_EN)) {
                /* Step 8 of the init sequence: the QP runs (again). */
                q->fatal = false;
                if (q->nwait_ack && q->timer_mode == RCLINK_QP_TIMER_OFF) {
                    rclink_t1_retry_arm(c, q);
                }
            }
        } else if (old & RCLINK_QP_CONTROL_STATUS_QP_EN) {
            /* Disabled: nothing more is received, nor answered. */
            rclink_t1_resp_clear(t1, q);
            q->rnr_wait = false;
            rclink_t1_timer_off(q);
            rclink_dmaq_rx_flush_qp(c, qpn);
        }
        if (val & RCLINK_QP_CONTROL_STATUS_FREE_BUF_SET) {
            /*
             * XON_THR_RDMA.type1_free_busy would read 1 meanwhile: the
             * release is done before the next register access.
             */
            rclink_t1_free_buf(c, q);
            *rclink_qreg(c, qpn, RCLINK_QCOL_CTRL) &=
                ~RCLINK_QP_CONTROL_STATUS_FREE_BUF_SET;
        }
        rclink_t1_kick(c);
        break;
    case RCLINK_TX_SPEED_MEM:
        rclink_cc_hint(c, q);
        if (RF_GET(RCLINK_TX_SPEED_MEM_TX_SPEED_CFG, val)) {
            rclink_t1_kick(c);
        }
        break;
    case RCLINK_TX_CC_BYTE_CNT_MEM:
        /* acc_cnt written (step 5 of the init): it counts from now */
        q->cc_win = rclink_cc_now(c);
        q->cc_backlog = false;
        rclink_cc_sync(c, q);
        rclink_cc_hint(c, q);
        rclink_t1_kick(c);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------- setup */

void rclink_t1_init(RclinkCore *c)
{
    RclinkT1 *t1 = g_new0(RclinkT1, 1);
    unsigned i;

    c->t1 = t1;
    t1->c = c;
    for (i = 0; i < RCLINK_QCOL_N; i++) {
        hwaddr off = rclink_qcol_reg[i];

        t1->col[i] = c->qp_index[c->slot_reg[c->map[off >> 2]]];
        assert(rclink_regtab[c->slot_reg[c->map[off >> 2]]].per_qp);
    }
    t1->bh = qemu_bh_new_guarded(rclink_t1_bh, c,
                                 &DEVICE(c->pci)->mem_reentrancy_guard);
    t1->qps = g_new0(RclinkT1Qp, c->qp_num);
    for (i = 0; i < c->qp_num; i++) {
        t1->qps[i].c = c;
        t1->qps[i].qpn = i;
        timer_init_ns(&t1->qps[i].timer, QEMU_CLOCK_VIRTUAL,
                      rclink_t1_qp_timer, &t1->qps[i]);
    }
    timer_init_ns(&t1->merge_timer, QEMU_CLOCK_VIRTUAL, rclink_t1_merge_timer,
                  c);
    timer_init_ns(&t1->round_timer, QEMU_CLOCK_VIRTUAL, rclink_t1_round_timer,
                  c);
    timer_init_ns(&t1->cc_timer, QEMU_CLOCK_VIRTUAL, rclink_t1_cc_timer, c);
    QTAILQ_INIT(&t1->due);
    QTAILQ_INIT(&t1->merge);
    rclink_cnp_init(c);
    rclink_dmaq_init(c);
}

void rclink_t1_fini(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;
    unsigned i;

    if (!t1) {
        return;
    }
    rclink_dmaq_fini(c);
    for (i = 0; i < c->qp_num; i++) {
        timer_del(&t1->qps[i].timer);
    }
    timer_del(&t1->merge_timer);
    timer_del(&t1->round_timer);
    timer_del(&t1->cc_timer);
    rclink_cnp_fini(c);
    qemu_bh_delete(t1->bh);
    g_free(t1->qps);
    g_free(t1);
    c->t1 = NULL;
}

/* SHIM_RESET (and device reset): every slot EMPTY, every QP at reset. */
void rclink_t1_reset(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;
    unsigned i;

    qemu_bh_cancel(t1->bh);
    rclink_dmaq_reset(c);        /* frees the messages the slots point at */
    for (i = 0; i < c->qp_num; i++) {
        RclinkT1Qp *q = &t1->qps[i];

        timer_del(&q->timer);
        q->head = q->tail = RCLINK_T1_NIL;
        q->nslots = q->nwait_ack = 0;
        q->fatal = q->rnr_wait = false;
        q->timer_mode = RCLINK_QP_TIMER_OFF;
        q->gap = q->resp_dup = q->resp_nak = q->resp_rnr = false;
        q->last_fack = q->last_ts_en = false;
        q->last_ts = 0;
        q->in_due = q->in_merge = false;
        q->cc_win = 0;
        q->held_round = 0;
        q->cc_backlog = false;
        q->cc_off = false;
    }
    t1->ncc_off = 0;
    t1->round = 0;
    t1->last_bank = -1;
    t1->cc_steps = 0;
    timer_del(&t1->cc_timer);
    rclink_cnp_reset(c);
    rclink_t2_reset(c);
    QTAILQ_INIT(&t1->due);
    QTAILQ_INIT(&t1->merge);
    timer_del(&t1->merge_timer);
    timer_del(&t1->round_timer);
    t1->wire_free_ns = 0;
    t1->free_head = RCLINK_T1_NIL;
    t1->nfree = 0;
    for (i = RCLINK_T1_OST_N; i-- > 0;) {
        if (c->bridge && t1->slots[i].state != RCLINK_SLOT_EMPTY) {
            g_free(t1->slots[i].msg);       /* the bridge's, per packet */
        }
        rclink_t1_slot_put(c, i);
    }
    t1->ghead = t1->gtail = RCLINK_T1_NIL;
    t1->seq = 0;
}
