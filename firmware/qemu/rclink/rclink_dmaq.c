/*
 * rclink board model: the PCIe shim's TYPE1 queue engine (DMAQ window), the
 * upstream of the IP's TYPE1 transport (DESIGN.md 3.4, seed 004), as
 * Documentation/hw/shim.rst ("Queue engine") has it.
 *
 * Send: WQEs (MORE chains) are read only when a slot is free; a message is
 * cut into packets of at most TYPE1_PKT_LEN payload bytes, each starting
 * with the 8-byte segment header, and every packet is handed to the
 * transport (rclink_type1.c) in a slot.  The message completes when the
 * credits of all its packets have returned; messages of a QP complete in
 * order.
 *
 * Receive: the transport offers an in-order packet; the engine accepts it
 * only when the QP's current buffer plus the posted RQEs hold its data and
 * the CQ can take the CQEs it may complete (the same code runs dry first),
 * then writes the data and completes the buffers it filled.
 *
 * Completions: a CQE is written when the CQ has room, else held (never
 * overrun); an interrupt follows each batch.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "rclink_type1.h"
#include "trace.h"

#define DMAQ_MIN_ORDER      4
#define DMAQ_ALIGN          4096
#define DMAQ_RQE_MIN        64
#define DMAQ_RQE_MAX        65536
/* held completions beyond which no new WQE is read */
#define DMAQ_HELD_MAX       RCLINK_DMAQ_RING_MAX
/* messages set aside (CC_TYPE1_QP_EN_CLR) beyond which none is read */
#define DMAQ_PARK_MAX       RCLINK_DMAQ_RING_MAX

typedef struct RclinkDmaqRing {
    const char *name;
    hwaddr base, cfg, prod, cons;
    uint64_t order_mask, enable;
    unsigned esize;
} RclinkDmaqRing;

static const RclinkDmaqRing dmaq_sq = {
    "SQ", RCLINK_DMAQ_SQ_BASE, RCLINK_DMAQ_SQ_CFG, RCLINK_DMAQ_SQ_PROD,
    RCLINK_DMAQ_SQ_CONS, RCLINK_DMAQ_SQ_CFG_ORDER, RCLINK_DMAQ_SQ_CFG_ENABLE,
    RCLINK_WQE_BYTES,
};
static const RclinkDmaqRing dmaq_rq = {
    "RQ", RCLINK_DMAQ_RQ_BASE, RCLINK_DMAQ_RQ_CFG, RCLINK_DMAQ_RQ_PROD,
    RCLINK_DMAQ_RQ_CONS, RCLINK_DMAQ_RQ_CFG_ORDER, RCLINK_DMAQ_RQ_CFG_ENABLE,
    RCLINK_RQE_BYTES,
};
static const RclinkDmaqRing dmaq_cq = {
    "CQ", RCLINK_DMAQ_CQ_BASE, RCLINK_DMAQ_CQ_CFG, RCLINK_DMAQ_CQ_PROD,
    RCLINK_DMAQ_CQ_CONS, RCLINK_DMAQ_CQ_CFG_ORDER, RCLINK_DMAQ_CQ_CFG_ENABLE,
    RCLINK_CQE_BYTES,
};

/* Entries of a running ring, 0 when it is disabled. */
static uint32_t dmaq_size(RclinkCore *c, const RclinkDmaqRing *r)
{
    uint64_t cfg = rclink_get(c, r->cfg);

    if (!(cfg & r->enable)) {
        return 0;
    }
    return 1u << RF_GET(r->order_mask, cfg);
}

static uint32_t dmaq_idx(RclinkCore *c, hwaddr reg)
{
    return rclink_get(c, reg);
}

static hwaddr dmaq_entry(RclinkCore *c, const RclinkDmaqRing *r,
                         uint32_t size, uint32_t idx)
{
    return rclink_get(c, r->base) + (hwaddr)(idx & (size - 1)) * r->esize;
}

/* --------------------------------------------------------- completions */

bool rclink_dmaq_cq_pending(RclinkCore *c)
{
    return dmaq_size(c, &dmaq_cq) &&
           dmaq_idx(c, RCLINK_DMAQ_CQ_PROD) != dmaq_idx(c, RCLINK_DMAQ_CQ_CONS);
}

/* Free CQ entries (before the held completions take theirs). */
static uint32_t dmaq_cq_space(RclinkCore *c)
{
    uint32_t size = dmaq_size(c, &dmaq_cq);
    uint32_t used = dmaq_idx(c, RCLINK_DMAQ_CQ_PROD) -
                    dmaq_idx(c, RCLINK_DMAQ_CQ_CONS);

    return used < size ? size - used : 0;
}

/* CQ entries new completions may still take. */
static uint32_t dmaq_cq_room(RclinkCore *c)
{
    uint32_t space = dmaq_cq_space(c), held = c->t1->q.nheld;

    return space > held ? space - held : 0;
}

static void dmaq_cq_write(RclinkCore *c, const uint64_t *w)
{
    uint32_t size = dmaq_size(c, &dmaq_cq);
    uint32_t prod = dmaq_idx(c, RCLINK_DMAQ_CQ_PROD);
    unsigned order = ctz32(size);
    hwaddr a = dmaq_entry(c, &dmaq_cq, size, prod);
    uint64_t le[3], w3;

    le[0] = cpu_to_le64(w[0]);
    le[1] = cpu_to_le64(w[1]);
    le[2] = cpu_to_le64(w[2]);
    w3 = RF_SET(RCLINK_CQE_SEQ, 0, prod);
    if (!((prod >> order) & 1)) {
        w3 |= RCLINK_CQE_PHASE;
    }
    w3 = cpu_to_le64(w3);
    /* Words 0-2, then word 3 with the phase that publishes the entry. */
    if (pci_dma_write(c->pci, a, le, sizeof(le)) != MEMTX_OK ||
        pci_dma_write(c->pci, a + 24, &w3, sizeof(w3)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: CQE write to 0x%" PRIx64
                      " failed\n", (uint64_t)a);
    }
    trace_rclink_dmaq_cqe(prod, RF_GET(RCLINK_CQE_KIND, w[0]),
                          RF_GET(RCLINK_CQE_STATUS, w[0]),
                          RF_GET(RCLINK_CQE_QPN, w[0]),
                          RF_GET(RCLINK_CQE_LEN, w[0]),
                          RF_GET(RCLINK_CQE_IDX, w[1]));
    rclink_set(c, RCLINK_DMAQ_CQ_PROD, (uint32_t)(prod + 1));
    c->t1->q.irq_pending = true;
}

/*
 * Hostile-device mode: a CQE that names nothing of the host's, or a QP,
 * an index or lengths out of range, or the wrong kind and status.
 */
static void dmaq_cq_lie(RclinkCore *c)
{
    static const uint64_t kinds[] = {
        RCLINK_CQE_KIND_SEND, RCLINK_CQE_KIND_RECV, 0, 3,
    };
    uint64_t r = rclink_hostile_rand(c);
    uint64_t w[3] = { rclink_hostile_rand(c), rclink_hostile_rand(c), 0 };

    w[0] = RF_SET(RCLINK_CQE_KIND, w[0], kinds[r & 3]);
    if (r & 4) {
        w[0] = RF_SET(RCLINK_CQE_STATUS, w[0], RCLINK_CQE_ST_OK);
    }
    if (r & 8) {
        /* a QP of the board: the lie reaches deeper */
        w[0] = RF_SET(RCLINK_CQE_QPN, w[0], (r >> 8) % c->qp_num);
    }
    dmaq_cq_write(c, w);
}

static void dmaq_cq_post(RclinkCore *c, uint64_t w0, uint64_t w1)
{
    RclinkDmaq *q = &c->t1->q;
    uint64_t w[3] = { w0, w1, 0 };

    if (!q->nheld && dmaq_cq_space(c) >= 2 &&
        rclink_hostile(c, RCLINK_SHIM_HOSTILE_CTRL_CQE)) {
        dmaq_cq_lie(c);
    }
    if (!q->nheld && dmaq_cq_space(c)) {
        dmaq_cq_write(c, w);
        return;
    }
    /* No room: held until the host advances DMAQ_CQ_CONS. */
    {
        RclinkDmaqHeld *h = g_new(RclinkDmaqHeld, 1);

        memcpy(h->w, w, sizeof(w));
        QSIMPLEQ_INSERT_TAIL(&q->held, h, next);
        q->nheld++;
        trace_rclink_dmaq_cqe_held(q->nheld);
    }
}

static void dmaq_cq_flush_held(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;
    RclinkDmaqHeld *h;

    while ((h = QSIMPLEQ_FIRST(&q->held)) && dmaq_cq_space(c)) {
        QSIMPLEQ_REMOVE_HEAD(&q->held, next);
        q->nheld--;
        dmaq_cq_write(c, h->w);
        g_free(h);
    }
}

static void dmaq_held_free(RclinkDmaq *q)
{
    RclinkDmaqHeld *h;

    while ((h = QSIMPLEQ_FIRST(&q->held))) {
        QSIMPLEQ_REMOVE_HEAD(&q->held, next);
        g_free(h);
    }
    q->nheld = 0;
}

/* The interrupt after a batch of CQEs. */
void rclink_dmaq_irq(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;

    if (!q->irq_pending) {
        return;
    }
    q->irq_pending = false;
    rclink_irq_raise(c, RF_GET(RCLINK_DMAQ_CQ_CFG_VECTOR,
                               rclink_get(c, RCLINK_DMAQ_CQ_CFG)));
}

/* ---------------------------------------------------------------- send */

static void dmaq_cqe_send(RclinkCore *c, unsigned kind, uint32_t qpn,
                          uint8_t status, uint32_t len, uint32_t sq_idx)
{
    uint64_t w0 = RF_SET(RCLINK_CQE_KIND, 0, kind);

    w0 = RF_SET(RCLINK_CQE_STATUS, w0, status);
    w0 = RF_SET(RCLINK_CQE_QPN, w0, qpn);
    w0 = RF_SET(RCLINK_CQE_LEN, w0, len);
    dmaq_cq_post(c, w0, RF_SET(RCLINK_CQE_IDX, 0, sq_idx));
}

static void dmaq_send_cqe(RclinkCore *c, uint32_t qpn, uint8_t status,
                          uint32_t len, uint32_t sq_idx)
{
    dmaq_cqe_send(c, RCLINK_CQE_KIND_SEND, qpn, status, len, sq_idx);
}

/* Complete the QP's finished messages, oldest first, in order. */
static void dmaq_qp_complete(RclinkCore *c, uint32_t qpn)
{
    RclinkT1Qp *q = &c->t1->qps[qpn];
    RclinkDmaqMsg *m;

    while ((m = QSIMPLEQ_FIRST(&q->msgs)) && m->all_submitted &&
           !m->outstanding) {
        QSIMPLEQ_REMOVE_HEAD(&q->msgs, next);
        trace_rclink_dmaq_msg_done(qpn, m->sq_idx, m->len, m->status);
        dmaq_send_cqe(c, qpn, m->status, m->len, m->sq_idx);
        g_free(m);
    }
}

static void dmaq_msg_status(RclinkDmaqMsg *m, uint8_t status)
{
    /* DMA_ERR > BAD_WQE > FLUSHED > OK */
    if (status > m->status) {
        m->status = status;
    }
}

/* A packet's credit returns: acknowledged (ok) or released/dropped. */
void rclink_dmaq_credit(RclinkCore *c, RclinkDmaqMsg *m, bool ok)
{
    if (m->outstanding) {
        m->outstanding--;
    }
    if (!ok) {
        dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
    }
    if (m->all_submitted && !m->outstanding) {
        dmaq_qp_complete(c, m->qpn);
    }
}

enum {
    DMAQ_READ_WAIT,          /* the chain is not fully posted */
    DMAQ_READ_DONE,          /* consumed (*out is the message, or NULL) */
};

/*
 * Read the message at DMAQ_SQ_CONS: its WQE chain, validated.  A message
 * with a bad WQE (or a WQE read failure) completes at once (in order with
 * the QP's other messages when its QPN is valid).
 */
static int dmaq_read_msg(RclinkCore *c, uint32_t size, RclinkDmaqMsg **out)
{
    RclinkDmaq *q = &c->t1->q;
    uint32_t cons = dmaq_idx(c, RCLINK_DMAQ_SQ_CONS);
    uint32_t prod = dmaq_idx(c, RCLINK_DMAQ_SQ_PROD);
    uint32_t max_msg = RF_GET(RCLINK_DMAQ_CAP_MAX_MSG,
                              rclink_get(c, RCLINK_DMAQ_CAP));
    uint32_t n = 0, qpn = 0, i;
    uint64_t total = 0;
    uint8_t status = RCLINK_CQE_ST_OK;
    const char *why = NULL;
    bool fack = false, have_qpn = false, mcast = false, t2_oversize = false;
    unsigned op = 0;
    RclinkDmaqMsg *m;

    *out = NULL;
    for (;;) {
        uint64_t w[2], w0;
        uint32_t len, wq;

        if (n == size) {
            why = "chain longer than the ring";
            status = RCLINK_CQE_ST_BAD_WQE;
            break;
        }
        if (cons + n == prod) {
            return DMAQ_READ_WAIT;
        }
        if (pci_dma_read(c->pci, dmaq_entry(c, &dmaq_sq, size, cons + n),
                         w, sizeof(w)) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: WQE %u read failed\n",
                          cons + n);
            status = RCLINK_CQE_ST_DMA_ERR;
            n++;
            break;
        }
        w0 = le64_to_cpu(w[0]);
        q->wqe[n][0] = w0;
        q->wqe[n][1] = le64_to_cpu(w[1]);
        n++;
        len = RF_GET(RCLINK_WQE_LEN, w0);
        wq = RF_GET(RCLINK_WQE_QPN, w0);
        if (n == 1) {
            qpn = wq;
            have_qpn = true;
            op = RF_GET(RCLINK_WQE_OPCODE, w0);
            mcast = op == RCLINK_WQE_OP_MCAST;
        }
        total += len;
        fack |= !!(w0 & RCLINK_WQE_FACK);
        if (!why) {
            if ((op != RCLINK_WQE_OP_SEND && !mcast) ||
                RF_GET(RCLINK_WQE_OPCODE, w0) != op) {
                why = "opcode";
            } else if (!len || len > RCLINK_WQE_MAX_PIECE) {
                why = "length";
            } else if (mcast && wq >= RCLINK_AFH_T2_GROUPS) {
                why = "group number";
            } else if (mcast && (c->t2_pkt_len <= RCLINK_SEG_BYTES ||
                                 total > c->t2_pkt_len - RCLINK_SEG_BYTES)) {
                why = "TYPE2 message over TYPE2_PKT_LEN";
                t2_oversize = true;
            } else if (wq >= c->qp_num) {
                why = "qp number";
            } else if (wq != qpn) {
                why = "qp number differs within the chain";
            } else if (total > max_msg) {
                why = "message too long";
            }
        }
        if (!(w0 & RCLINK_WQE_MORE)) {
            break;
        }
    }
    rclink_set(c, RCLINK_DMAQ_SQ_CONS, (uint32_t)(cons + n));
    if (why && status == RCLINK_CQE_ST_OK) {
        status = RCLINK_CQE_ST_BAD_WQE;
    }
    if (status == RCLINK_CQE_ST_BAD_WQE) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: bad WQE at SQ index %u (%s): "
                      "message not sent\n", cons, why);
        rclink_count(c, RCLINK_DMAQ_BAD_WQE);
        trace_rclink_dmaq_bad_wqe(cons, why);
    }
    if (t2_oversize) {
        /* IRQ_INFO TYPE2 code 1: TX oversize */
        rclink_count(c, RCLINK_DMAQ_T2_TX_DROP);
        rclink_t2_irq_info(c, RCLINK_IRQ_TYPE2_TX_OVERSIZE, 0,
                           RCLINK_INTR_STATUS_T2_TX_OVERSIZE);
    }
    if (mcast && status != RCLINK_CQE_ST_OK) {
        dmaq_cqe_send(c, RCLINK_CQE_KIND_SEND_MCAST, qpn, status, total,
                      cons + n - 1);
        return DMAQ_READ_DONE;
    }
    if (status != RCLINK_CQE_ST_OK && (!have_qpn || qpn >= c->qp_num)) {
        /* No QP to keep the order of: completes at once. */
        dmaq_send_cqe(c, qpn, status, total, cons + n - 1);
        return DMAQ_READ_DONE;
    }
    m = g_malloc0(sizeof(*m) + sizeof(m->pieces[0]) * n);
    m->qpn = qpn;
    m->len = total;
    m->sq_idx = cons + n - 1;
    m->fack = fack;
    m->status = status;
    m->npieces = n;
    m->mcast = mcast;
    for (i = 0; i < n; i++) {
        m->pieces[i].addr = q->wqe[i][1];
        m->pieces[i].len = RF_GET(RCLINK_WQE_LEN, q->wqe[i][0]);
    }
    if (mcast) {
        *out = m;
        return DMAQ_READ_DONE;
    }
    QSIMPLEQ_INSERT_TAIL(&c->t1->qps[qpn].msgs, m, next);
    trace_rclink_dmaq_msg(qpn, cons, n, total, status);
    if (status != RCLINK_CQE_ST_OK) {
        m->all_submitted = true;
        dmaq_qp_complete(c, qpn);
        return DMAQ_READ_DONE;
    }
    *out = m;
    return DMAQ_READ_DONE;
}

/* Copy the next dlen bytes of the message into buf (one read per piece). */
static bool dmaq_msg_copy(RclinkCore *c, RclinkDmaqMsg *m, uint8_t *buf,
                          uint32_t dlen)
{
    while (dlen) {
        RclinkDmaqPiece *p = &m->pieces[m->piece];
        uint32_t n = MIN(dlen, p->len - m->piece_off);

        if (buf && pci_dma_read(c->pci, p->addr + m->piece_off, buf, n) !=
            MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: WQE buffer read at 0x%"
                          PRIx64 " failed\n", p->addr + m->piece_off);
            return false;
        }
        if (buf) {
            buf += n;
        }
        dlen -= n;
        m->piece_off += n;
        if (m->piece_off == p->len) {
            m->piece++;
            m->piece_off = 0;
        }
    }
    return true;
}

/*
 * Cut the current message into packets while slots are free.  Returns
 * false when it had to stop for want of a slot.
 */
static bool dmaq_msg_cut(RclinkCore *c, RclinkDmaqMsg *m)
{
    RclinkT1 *t1 = c->t1;

    while (m->off < m->len) {
        uint32_t dlen = MIN(RCLINK_T1_SEG_DATA, m->len - m->off);
        bool last = m->off + dlen == m->len;
        RclinkT1Slot *sl;
        uint64_t seg;
        int s;

        if (!rclink_t1_active(c)) {
            /* TYPE1 is off: the rest of the message is not sent. */
            dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
            break;
        }
        if (!t1->nfree) {
            return false;
        }
        if (!rclink_t1_qp_enabled(c, m->qpn)) {
            /* Dropped at submission; its credit returns at once. */
            rclink_count(c, RCLINK_DMAQ_T1_TX_DROP_QP_OFF);
            trace_rclink_dmaq_tx_qp_off(m->qpn, m->off);
            rclink_t1_irq_info(c, RCLINK_IRQ_TYPE1_TX_QP_DISABLED, m->qpn,
                               RCLINK_INTR_STATUS_T1_TX_QP_DISABLED);
            dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
            dmaq_msg_copy(c, m, NULL, dlen);
            m->off += dlen;
            continue;
        }
        s = rclink_t1_slot_alloc(c);
        sl = &t1->slots[s];
        if (!dmaq_msg_copy(c, m, sl->payload + RCLINK_SEG_BYTES, dlen)) {
            /* Not sent: the message completes DMA_ERR. */
            rclink_t1_slot_put(c, s);
            dmaq_msg_status(m, RCLINK_CQE_ST_DMA_ERR);
            break;
        }
        seg = RF_SET(RCLINK_SEG_POS, 0,
                     m->off == 0 ? (last ? RCLINK_SEG_ONLY : RCLINK_SEG_FIRST)
                                 : (last ? RCLINK_SEG_LAST :
                                    RCLINK_SEG_MIDDLE));
        seg = RF_SET(RCLINK_SEG_OFFSET, seg, m->off);
        seg = RF_SET(RCLINK_SEG_MSG_LEN, seg, m->len);
        stq_le_p(sl->payload, seg);
        sl->qpn = m->qpn;
        sl->len = RCLINK_SEG_BYTES + dlen;
        if (sl->len < RCLINK_SEG_PKT_MIN) {
            /* the IP's TX_S minimum: zero padding, dropped by the receiver */
            memset(sl->payload + sl->len, 0, RCLINK_SEG_PKT_MIN - sl->len);
            sl->len = RCLINK_SEG_PKT_MIN;
        }
        sl->fack = last && m->fack;
        sl->msg = m;
        m->outstanding++;
        m->off += dlen;
        rclink_t1_submit(c, s);
    }
    m->all_submitted = true;
    if (!m->outstanding) {
        dmaq_qp_complete(c, m->qpn);
    }
    return true;
}

/*
 * TYPE2 (seed 000, TYPE2): a MCAST message takes one of the IP's
 * TYPE2_OST_N packet buffers with its data (a TX_S_CRD_O[3] token) and
 * leaves, in order, when CBFC/PFC and the MAC's multicast credits let it
 * (rclink_t2_try_send; over the TYPE2 rate the IP drops it instead, with
 * IRQ_INFO TYPE2 code 1); it completes MCAST OK then, FLUSHED when
 * TYPE2 cannot send (off, no header format, link down: DMAQ_T2_TX_DROP).
 * No slot, no ACK.
 */
static void dmaq_t2_done(RclinkCore *c, RclinkDmaqMsg *m, uint8_t status)
{
    trace_rclink_dmaq_msg_done(m->qpn, m->sq_idx, m->len, status);
    dmaq_cqe_send(c, RCLINK_CQE_KIND_SEND_MCAST, m->qpn, status, m->len,
                  m->sq_idx);
    g_free(m->t2_pl);
    g_free(m);
}

static void dmaq_t2_run(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;
    bool can = rclink_t2_active(c) && c->link_up;
    RclinkDmaqMsg *m;

    if (QSIMPLEQ_EMPTY(&q->t2_ost)) {
        return;                 /* every engine run: nothing to update */
    }
    while ((m = QSIMPLEQ_FIRST(&q->t2_ost))) {
        uint8_t status = RCLINK_CQE_ST_OK;

        if (!can) {
            rclink_count(c, RCLINK_DMAQ_T2_TX_DROP);
            status = RCLINK_CQE_ST_FLUSHED;
        } else if (rclink_t2_try_send(c, m->qpn, m->t2_pl, m->t2_plen) ==
                   RCLINK_T2_WAIT) {
            break;
        }
        /* over the rate the IP dropped it: the shim handed it over, OK */
        QSIMPLEQ_REMOVE_HEAD(&q->t2_ost, next);
        q->t2_nost--;
        dmaq_t2_done(c, m, status);
    }
    rclink_set(c, RCLINK_DMAQ_T2_OST_FREE,
               RCLINK_PARAM_TYPE2_OST_N_DEFAULT - q->t2_nost);
    rclink_dfx_update(c);
}

/* A MCAST message into the IP: false while its TYPE2_OST_N buffers are all
 * taken (the send queue waits). */
static bool dmaq_t2_admit(RclinkCore *c, RclinkDmaqMsg *m)
{
    RclinkDmaq *q = &c->t1->q;
    uint64_t seg;

    if (q->t2_nost >= RCLINK_PARAM_TYPE2_OST_N_DEFAULT) {
        return false;
    }
    if (!rclink_t2_active(c) || !c->link_up) {
        rclink_count(c, RCLINK_DMAQ_T2_TX_DROP);
        dmaq_t2_done(c, m, RCLINK_CQE_ST_FLUSHED);
        return true;
    }
    /* at least the IP's TX_S minimum: zero padding */
    m->t2_plen = MAX(RCLINK_SEG_BYTES + m->len, RCLINK_SEG_PKT_MIN);
    m->t2_pl = g_malloc0(m->t2_plen);
    if (!dmaq_msg_copy(c, m, m->t2_pl + RCLINK_SEG_BYTES, m->len)) {
        dmaq_t2_done(c, m, RCLINK_CQE_ST_DMA_ERR);
        return true;
    }
    seg = RF_SET(RCLINK_SEG_POS, 0, RCLINK_SEG_ONLY);
    seg = RF_SET(RCLINK_SEG_MSG_LEN, seg, m->len);
    stq_le_p(m->t2_pl, seg);
    QSIMPLEQ_INSERT_TAIL(&q->t2_ost, m, next);
    q->t2_nost++;
    dmaq_t2_run(c);
    return true;
}

/*
 * CC_TYPE1_QP_EN_SET_O / CLR_O (seed 000, 速率控制接口): while the IP's
 * rate control masks a QP, its messages would only fill the shared slots
 * and stop every other QP.  The engine sets them aside instead (the one
 * being cut keeps what it has submitted) and reads on; at SET they are
 * taken up again, in order, before anything new is read.
 */
static void dmaq_park(RclinkCore *c, RclinkT1Qp *qp, RclinkDmaqMsg *m,
                      bool front)
{
    if (front || !qp->nparked) {
        qp->park_head = m;
    }
    qp->nparked++;
    c->t1->q.nparked++;
    rclink_count(c, RCLINK_DMAQ_T1_CC_PARKED);
    trace_rclink_dmaq_park(qp->qpn, m->sq_idx, m->off, qp->nparked);
}

static void dmaq_ready_remove(RclinkDmaq *q, RclinkT1Qp *qp)
{
    if (qp->in_ready) {
        QTAILQ_REMOVE(&q->ready, qp, ready_link);
        qp->in_ready = false;
    }
}

/* The QP's oldest set-aside message, taken up again. */
static RclinkDmaqMsg *dmaq_unpark(RclinkCore *c, RclinkT1Qp *qp)
{
    RclinkDmaqMsg *m = qp->park_head, *n = m;

    do {
        n = QSIMPLEQ_NEXT(n, next);
    } while (n && n->all_submitted);
    qp->nparked--;
    c->t1->q.nparked--;
    qp->park_head = qp->nparked ? n : NULL;
    trace_rclink_dmaq_resume(qp->qpn, m->sq_idx, qp->nparked);
    return m;
}

void rclink_dmaq_cc_qp_en(RclinkCore *c, uint32_t qpn, bool en)
{
    RclinkDmaq *q = &c->t1->q;
    RclinkT1Qp *qp = &c->t1->qps[qpn];

    qp->eng_off = !en;
    if (en && qp->nparked && !qp->in_ready) {
        QTAILQ_INSERT_TAIL(&q->ready, qp, ready_link);
        qp->in_ready = true;
        rclink_t1_kick(c);
    }
}

/* The set-aside messages complete FLUSHED (the send queue stops). */
static void dmaq_park_flush(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;
    RclinkDmaqMsg *m;
    uint32_t i;

    for (i = 0; i < c->qp_num && q->nparked; i++) {
        RclinkT1Qp *qp = &c->t1->qps[i];

        dmaq_ready_remove(q, qp);
        for (m = qp->park_head; qp->nparked && m; m = QSIMPLEQ_NEXT(m, next)) {
            if (!m->all_submitted) {
                m->all_submitted = true;
                dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
            }
        }
        q->nparked -= qp->nparked;
        qp->nparked = 0;
        qp->park_head = NULL;
    }
}

static void dmaq_sq_run(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;
    uint32_t size = dmaq_size(c, &dmaq_sq);

    if (!size) {
        return;
    }
    for (;;) {
        if (q->cur && c->t1->qps[q->cur->qpn].eng_off) {
            /* masked while it waited for a slot: the rest waits aside */
            dmaq_park(c, &c->t1->qps[q->cur->qpn], q->cur, true);
            q->cur = NULL;
        }
        if (!q->cur) {
            RclinkDmaqMsg *m;
            RclinkT1Qp *qp;

            if (q->t2_parked) {
                if (!dmaq_t2_admit(c, q->t2_parked)) {
                    return;
                }
                q->t2_parked = NULL;
                continue;
            }
            if (!c->t1->nfree) {
                return;
            }
            qp = QTAILQ_FIRST(&q->ready);
            if (qp) {
                if (!qp->eng_off && qp->nparked) {
                    q->cur = dmaq_unpark(c, qp);
                }
                if (qp->eng_off || !qp->nparked) {
                    dmaq_ready_remove(q, qp);
                }
                continue;
            }
            if (q->nheld >= DMAQ_HELD_MAX || q->nparked >= DMAQ_PARK_MAX) {
                return;
            }
            if (dmaq_read_msg(c, size, &m) == DMAQ_READ_WAIT) {
                return;
            }
            if (m && m->mcast) {
                if (!dmaq_t2_admit(c, m)) {
                    q->t2_parked = m;
                    return;
                }
                continue;
            }
            if (m) {
                qp = &c->t1->qps[m->qpn];
                if (qp->nparked || qp->eng_off) {
                    /* behind the QP's set-aside messages, or masked */
                    dmaq_park(c, qp, m, false);
                    continue;
                }
            }
            q->cur = m;
            if (!m) {
                continue;
            }
        }
        if (!dmaq_msg_cut(c, q->cur)) {
            return;
        }
        q->cur = NULL;
    }
}

/* The engine's work: held completions, then the send queue. */
void rclink_dmaq_run(RclinkCore *c)
{
    dmaq_cq_flush_held(c);
    dmaq_t2_run(c);
    dmaq_sq_run(c);
}

/* ------------------------------------------------------------- receive */

/*
 * The RQE at DMAQ_RQ_CONS + k, read ahead into the cache: its cache index
 * in *idx, false when the host has not posted it.
 */
static bool dmaq_rqe(RclinkCore *c, uint32_t k, uint32_t *idx)
{
    RclinkDmaq *q = &c->t1->q;
    uint32_t size = dmaq_size(c, &dmaq_rq);
    uint32_t cons = dmaq_idx(c, RCLINK_DMAQ_RQ_CONS);
    uint32_t posted = dmaq_idx(c, RCLINK_DMAQ_RQ_PROD) - cons;

    if (posted > size) {
        posted = 0;                     /* refused at the write */
    }
    while (q->rq_cached <= k) {
        uint32_t i = cons + q->rq_cached;
        uint64_t w[2];
        uint32_t len;

        if (q->rq_cached >= posted) {
            return false;
        }
        q->rqe[i % RCLINK_DMAQ_RING_MAX].status = RCLINK_CQE_ST_OK;
        if (pci_dma_read(c->pci, dmaq_entry(c, &dmaq_rq, size, i), w,
                         sizeof(w)) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: RQE %u read failed\n", i);
            q->rqe[i % RCLINK_DMAQ_RING_MAX].status = RCLINK_CQE_ST_DMA_ERR;
        } else {
            len = RF_GET(RCLINK_RQE_LEN, le64_to_cpu(w[1]));
            q->rqe[i % RCLINK_DMAQ_RING_MAX].addr = le64_to_cpu(w[0]);
            q->rqe[i % RCLINK_DMAQ_RING_MAX].len = len;
            if (len < DMAQ_RQE_MIN || len > DMAQ_RQE_MAX) {
                qemu_log_mask(LOG_GUEST_ERROR, "rclink: RQE %u has a buffer "
                              "of %u bytes (64..65536): completed unused\n",
                              i, len);
                q->rqe[i % RCLINK_DMAQ_RING_MAX].status =
                    RCLINK_CQE_ST_BAD_WQE;
            }
        }
        q->rq_cached++;
    }
    *idx = (cons + k) % RCLINK_DMAQ_RING_MAX;
    return true;
}

/*
 * Where a received message goes: the receive state of a QP (RECV CQEs with
 * its QPN) or of a TYPE2 group (RECV_MCAST CQEs with the group).
 */
typedef struct DmaqRxTo {
    RclinkDmaqRx *rx;
    unsigned kind;
    uint32_t id;
} DmaqRxTo;

static DmaqRxTo dmaq_rx_qp(RclinkCore *c, uint32_t qpn)
{
    return (DmaqRxTo){ &c->t1->qps[qpn].rx, RCLINK_CQE_KIND_RECV, qpn };
}

static void dmaq_recv_cqe(RclinkCore *c, const DmaqRxTo *to, uint8_t status,
                          bool first, bool last, uint32_t len, uint32_t idx,
                          uint32_t msg_len)
{
    uint32_t qpn = to->id;
    uint64_t w0 = RF_SET(RCLINK_CQE_KIND, 0, to->kind);
    uint64_t w1 = RF_SET(RCLINK_CQE_IDX, 0, idx);

    w0 = RF_SET(RCLINK_CQE_STATUS, w0, status);
    if (first) {
        w0 |= RCLINK_CQE_FIRST;
    }
    if (last) {
        w0 |= RCLINK_CQE_LAST;
    }
    w0 = RF_SET(RCLINK_CQE_QPN, w0, qpn);
    w0 = RF_SET(RCLINK_CQE_LEN, w0, len);
    w1 = RF_SET(RCLINK_CQE_MSG_LEN, w1, msg_len);
    dmaq_cq_post(c, w0, w1);
}

/* Complete the QP's (or group's) current buffer. */
static void dmaq_rx_complete(RclinkCore *c, const DmaqRxTo *to,
                             uint8_t status, bool last)
{
    RclinkDmaqRx *rx = to->rx;

    if (rx->buf) {
        dmaq_recv_cqe(c, to, status, rx->first, last, rx->fill, rx->idx,
                      rx->msg_len);
        rx->buf = false;
    }
    if (last) {
        rx->open = false;
    }
}

/* Drop the message being received: its buffer completes LAST, FLUSHED. */
static void dmaq_rx_flush(RclinkCore *c, const DmaqRxTo *to)
{
    RclinkDmaqRx *rx = to->rx;

    if (rx->open) {
        trace_rclink_dmaq_rx_flush(to->id, rx->msg_off, rx->msg_len);
        dmaq_rx_complete(c, to, RCLINK_CQE_ST_FLUSHED, true);
    }
    rx->open = rx->buf = false;
}

void rclink_dmaq_rx_flush_qp(RclinkCore *c, uint32_t qpn)
{
    DmaqRxTo to = dmaq_rx_qp(c, qpn);

    dmaq_rx_flush(c, &to);
}

/* Take the next RQE as the receiver's buffer (it must be cached). */
static bool dmaq_rx_take(RclinkCore *c, const DmaqRxTo *to)
{
    RclinkDmaq *q = &c->t1->q;
    RclinkDmaqRx *rx = to->rx;
    uint32_t cons = dmaq_idx(c, RCLINK_DMAQ_RQ_CONS), ci;

    if (!dmaq_rqe(c, 0, &ci)) {
        return false;
    }
    rclink_set(c, RCLINK_DMAQ_RQ_CONS, (uint32_t)(cons + 1));
    q->rq_cached--;
    if (q->rqe[ci].status != RCLINK_CQE_ST_OK) {
        dmaq_recv_cqe(c, to, q->rqe[ci].status, false, false, 0, cons,
                      rx->msg_len);
        return true;
    }
    rx->buf = true;
    rx->first = rx->msg_off == 0;
    rx->idx = cons;
    rx->addr = q->rqe[ci].addr;
    rx->size = q->rqe[ci].len;
    rx->fill = 0;
    return true;
}

/*
 * The engine's side of a packet for the receiver to (a QP's in-order REQ,
 * or a TYPE2 group's packet): pl is the payload (segment header and
 * data).  With dry_run, only whether it can be taken (buffers and CQ
 * room); else it is taken.  A packet with a segment header out of order is
 * taken (and counted): the transport delivered it.
 */
static bool dmaq_rx_accept(RclinkCore *c, const DmaqRxTo *to,
                           const uint8_t *pl, size_t len, bool dry_run)
{
    RclinkDmaqRx *rx = to->rx;
    uint32_t qpn = to->id;
    uint64_t seg = ldq_le_p(pl);
    unsigned pos = RF_GET(RCLINK_SEG_POS, seg);
    uint32_t off = RF_GET(RCLINK_SEG_OFFSET, seg);
    uint32_t mlen = RF_GET(RCLINK_SEG_MSG_LEN, seg);
    uint32_t max_msg = RF_GET(RCLINK_DMAQ_CAP_MAX_MSG,
                              rclink_get(c, RCLINK_DMAQ_CAP));
    const uint8_t *data = pl + RCLINK_SEG_BYTES;
    uint32_t dlen = len - RCLINK_SEG_BYTES;
    bool start = pos == RCLINK_SEG_ONLY || pos == RCLINK_SEG_FIRST;
    bool ends = pos == RCLINK_SEG_ONLY || pos == RCLINK_SEG_LAST;
    bool flush = false, drop = false, buf;
    uint32_t cqes = 0, k, n, idx;

    if (ends && len == RCLINK_SEG_PKT_MIN && off <= mlen &&
        mlen - off < dlen) {
        dlen = mlen - off;          /* a short packet's padding */
    }

    if (!dmaq_size(c, &dmaq_rq) || !dmaq_size(c, &dmaq_cq)) {
        return false;
    }
    if (start) {
        flush = rx->open;
        if (off || mlen > max_msg ||
            (pos == RCLINK_SEG_ONLY ? mlen != dlen : mlen <= dlen)) {
            drop = true;
        }
    } else if (!rx->open) {
        drop = true;
    } else if (off != rx->msg_off || mlen != rx->msg_len ||
               (ends ? off + dlen != mlen : off + dlen >= mlen)) {
        flush = drop = true;
    }
    if (flush && rx->buf) {
        cqes++;
    }

    if (dry_run) {
        if (!drop) {
            /* As below: the buffers the data takes, the CQEs completed. */
            uint32_t left = dlen, space;

            buf = start ? false : rx->buf;
            space = buf ? rx->size - rx->fill : 0;
            for (k = 0; left;) {
                if (!buf || !space) {
                    if (buf) {
                        cqes++;             /* the full buffer */
                        buf = false;
                    }
                    if (!dmaq_rqe(c, k++, &idx)) {
                        return false;
                    }
                    if (c->t1->q.rqe[idx].status != RCLINK_CQE_ST_OK) {
                        cqes++;             /* completed unused */
                        continue;
                    }
                    buf = true;
                    space = c->t1->q.rqe[idx].len;
                    continue;
                }
                n = MIN(left, space);
                left -= n;
                space -= n;
            }
            cqes += ends;
        }
        return dmaq_cq_room(c) >= cqes;
    }

    if (flush) {
        dmaq_rx_flush(c, to);
    }
    if (drop) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: QP %u: segment header pos %u "
                      "offset %u msg_len %u out of order: dropped\n",
                      qpn, pos, off, mlen);
        rclink_count(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED);
        trace_rclink_dmaq_rx_seg_error(qpn, pos, off, mlen);
        return true;
    }
    if (start) {
        rx->open = true;
        rx->buf = false;
        rx->msg_len = mlen;
        rx->msg_off = 0;
    }
    while (dlen) {
        if (!rx->buf || rx->fill == rx->size) {
            dmaq_rx_complete(c, to, RCLINK_CQE_ST_OK, false);
            if (!dmaq_rx_take(c, to)) {
                /* Cannot happen after the dry run; never overrun. */
                dmaq_rx_flush(c, to);
                return true;
            }
            continue;
        }
        n = MIN(dlen, rx->size - rx->fill);
        if (pci_dma_write(c->pci, rx->addr + rx->fill, data, n) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: QP %u: receive buffer "
                          "write at 0x%" PRIx64 " failed\n", qpn,
                          rx->addr + rx->fill);
            dmaq_rx_complete(c, to, RCLINK_CQE_ST_DMA_ERR, true);
            return true;
        }
        rx->fill += n;
        rx->msg_off += n;
        data += n;
        dlen -= n;
    }
    if (ends) {
        dmaq_rx_complete(c, to, RCLINK_CQE_ST_OK, true);
    }
    return true;
}

/* dmaq_rx_accept() for an in-order REQ of QP qpn: RECV CQEs */
bool rclink_dmaq_rx_accept(RclinkCore *c, uint32_t qpn, const uint8_t *pl,
                           size_t len, bool dry_run)
{
    DmaqRxTo to = dmaq_rx_qp(c, qpn);

    return dmaq_rx_accept(c, &to, pl, len, dry_run);
}

/* The same for a TYPE2 packet of group g: RECV_MCAST CQEs */
bool rclink_dmaq_t2_accept(RclinkCore *c, unsigned g, const uint8_t *pl,
                           size_t len, bool dry_run)
{
    DmaqRxTo to = { &c->t1->t2.rx[g], RCLINK_CQE_KIND_RECV_MCAST, g };

    return dmaq_rx_accept(c, &to, pl, len, dry_run);
}

/* ----------------------------------------------------------- registers */

static void dmaq_sq_stop(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;
    RclinkDmaqMsg *m = q->cur;
    uint32_t qpn = m ? m->qpn : 0;

    uint32_t i;

    q->cur = NULL;
    if (m) {
        /* The rest of the message is not sent. */
        m->all_submitted = true;
        dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
    }
    dmaq_park_flush(c);
    /* In-flight messages complete FLUSHED first (m may go with them). */
    rclink_t1_release_all(c);
    if (m) {
        dmaq_qp_complete(c, qpn);
    }
    for (i = 0; i < c->qp_num; i++) {
        if (!QSIMPLEQ_EMPTY(&c->t1->qps[i].msgs)) {
            dmaq_qp_complete(c, i);
        }
    }
    rclink_set(c, RCLINK_DMAQ_SQ_PROD, 0);
    rclink_set(c, RCLINK_DMAQ_SQ_CONS, 0);
}

static void dmaq_rq_stop(RclinkCore *c)
{
    uint32_t i;

    for (i = 0; i < c->qp_num; i++) {
        rclink_dmaq_rx_flush_qp(c, i);
    }
    c->t1->q.rq_cached = 0;
    rclink_set(c, RCLINK_DMAQ_RQ_PROD, 0);
    rclink_set(c, RCLINK_DMAQ_RQ_CONS, 0);
}

static void dmaq_cq_stop(RclinkCore *c)
{
    dmaq_held_free(&c->t1->q);
    c->t1->q.irq_pending = false;
    rclink_set(c, RCLINK_DMAQ_CQ_PROD, 0);
    rclink_set(c, RCLINK_DMAQ_CQ_CONS, 0);
    rclink_update_intx(c);
}

static void dmaq_cfg_write(RclinkCore *c, const RclinkDmaqRing *r,
                           uint64_t *p, uint64_t old)
{
    unsigned max = RF_GET(RCLINK_DMAQ_CAP_MAX_ORDER,
                          rclink_get(c, RCLINK_DMAQ_CAP));
    unsigned order = RF_GET(r->order_mask, *p);
    uint64_t base = rclink_get(c, r->base);
    bool was = old & r->enable, now = *p & r->enable;

    if (now && !was) {
        if (order < DMAQ_MIN_ORDER || order > max ||
            (base & (DMAQ_ALIGN - 1))) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ %s enabled with "
                          "order %u (%u..%u) and base 0x%" PRIx64 " (4 KiB "
                          "aligned): left disabled\n", r->name, order,
                          DMAQ_MIN_ORDER, max, base);
            *p &= ~r->enable;
            return;
        }
        trace_rclink_dmaq_queue(r->name, 1, order, base);
        rclink_t1_kick(c);
    } else if (now && order != RF_GET(r->order_mask, old)) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ %s order changed while "
                      "enabled: ignored\n", r->name);
        *p = RF_SET(r->order_mask, *p, RF_GET(r->order_mask, old));
    } else if (!now && was) {
        trace_rclink_dmaq_queue(r->name, 0, order, base);
        if (r == &dmaq_sq) {
            dmaq_sq_stop(c);
        } else if (r == &dmaq_rq) {
            dmaq_rq_stop(c);
        } else {
            dmaq_cq_stop(c);
        }
        rclink_t1_kick(c);
    }
}

/* A producer index of the host: at most a ring's worth ahead. */
static void dmaq_prod_write(RclinkCore *c, const RclinkDmaqRing *r,
                            uint64_t *p, uint64_t old)
{
    uint32_t size = dmaq_size(c, r);

    if (size && (uint32_t)(*p - dmaq_idx(c, r->cons)) > size) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ_%s_PROD %u more than "
                      "%u entries ahead of CONS %u: ignored\n", r->name,
                      (uint32_t)*p, size, dmaq_idx(c, r->cons));
        *p = old;
        return;
    }
    rclink_t1_kick(c);
}

void rclink_dmaq_write(RclinkCore *c, const struct rclink_regdesc *d,
                       uint64_t *p, uint64_t old, uint64_t wval)
{
    switch (d->offset) {
    case RCLINK_DMAQ_T2_JOIN:
        rclink_t2_join(c, old, *p);
        break;
    case RCLINK_DMAQ_SQ_CFG:
        dmaq_cfg_write(c, &dmaq_sq, p, old);
        break;
    case RCLINK_DMAQ_RQ_CFG:
        dmaq_cfg_write(c, &dmaq_rq, p, old);
        break;
    case RCLINK_DMAQ_CQ_CFG:
        dmaq_cfg_write(c, &dmaq_cq, p, old);
        break;
    case RCLINK_DMAQ_SQ_BASE:
    case RCLINK_DMAQ_RQ_BASE:
    case RCLINK_DMAQ_CQ_BASE: {
        const RclinkDmaqRing *r = d->offset == RCLINK_DMAQ_SQ_BASE ? &dmaq_sq :
                                  d->offset == RCLINK_DMAQ_RQ_BASE ? &dmaq_rq :
                                  &dmaq_cq;

        if (dmaq_size(c, r) && *p != old) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ %s base written "
                          "while enabled: ignored\n", r->name);
            *p = old;
        }
        break;
    }
    case RCLINK_DMAQ_SQ_PROD:
        dmaq_prod_write(c, &dmaq_sq, p, old);
        break;
    case RCLINK_DMAQ_RQ_PROD:
        /* New buffers: pending work runs again. */
        dmaq_prod_write(c, &dmaq_rq, p, old);
        rclink_cbfc_rx_drain(c);
        break;
    case RCLINK_DMAQ_CQ_CONS: {
        uint32_t prod = dmaq_idx(c, RCLINK_DMAQ_CQ_PROD);

        if ((uint32_t)(*p - old) > (uint32_t)(prod - old)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ_CQ_CONS %u beyond "
                          "DMAQ_CQ_PROD %u: ignored\n", (uint32_t)*p, prod);
            *p = old;
            break;
        }
        rclink_update_intx(c);
        rclink_t1_kick(c);
        rclink_cbfc_rx_drain(c);
        break;
    }
    case RCLINK_DMAQ_QP_STAT_SEL:
        if (wval & RCLINK_DMAQ_QP_STAT_SEL_CLEAR) {
            uint32_t qpn = RF_GET(RCLINK_DMAQ_QP_STAT_SEL_QPN, *p);

            if (qpn < c->qp_num) {
                memset(c->t1->qps[qpn].stats, 0,
                       sizeof(c->t1->qps[qpn].stats));
            }
        }
        break;
    default:
        break;
    }
}

/* Reads that show engine state: DMAQ_QPS_* of the selected QP. */
uint64_t rclink_dmaq_read(RclinkCore *c, const struct rclink_regdesc *d,
                          uint64_t v)
{
    uint32_t qpn = RF_GET(RCLINK_DMAQ_QP_STAT_SEL_QPN,
                          rclink_get(c, RCLINK_DMAQ_QP_STAT_SEL));
    int i = -1;

    if (d->offset >= RCLINK_DMAQ_QPS_TX_PKTS &&
        d->offset <= RCLINK_DMAQ_QPS_ACK_RX) {
        i = (d->offset - RCLINK_DMAQ_QPS_TX_PKTS) / 8;
    } else if (d->offset == RCLINK_DMAQ_QPS_ECN_RX) {
        i = RCLINK_QPS_ECN_RX;
    } else if (d->offset == RCLINK_DMAQ_QPS_CNP_RX) {
        i = RCLINK_QPS_CNP_RX;
    }
    if (i < 0) {
        return v;
    }
    return qpn < c->qp_num ? c->t1->qps[qpn].stats[i] : 0;
}

/* --------------------------------------------------------------- setup */

void rclink_dmaq_init(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;
    uint32_t i;

    QSIMPLEQ_INIT(&q->held);
    QSIMPLEQ_INIT(&q->t2_ost);
    QTAILQ_INIT(&q->ready);
    for (i = 0; i < c->qp_num; i++) {
        QSIMPLEQ_INIT(&c->t1->qps[i].msgs);
    }
}

static void dmaq_free_msgs(RclinkCore *c)
{
    RclinkDmaqMsg *m;
    uint32_t i;

    for (i = 0; i < c->qp_num; i++) {
        RclinkT1Qp *qp = &c->t1->qps[i];

        while ((m = QSIMPLEQ_FIRST(&qp->msgs))) {
            QSIMPLEQ_REMOVE_HEAD(&qp->msgs, next);
            g_free(m);
        }
        qp->nparked = 0;
        qp->park_head = NULL;
        qp->in_ready = false;
        qp->eng_off = false;
    }
    QTAILQ_INIT(&c->t1->q.ready);
    c->t1->q.nparked = 0;
    c->t1->q.cur = NULL;
    while ((m = QSIMPLEQ_FIRST(&c->t1->q.t2_ost))) {
        QSIMPLEQ_REMOVE_HEAD(&c->t1->q.t2_ost, next);
        g_free(m->t2_pl);
        g_free(m);
    }
    c->t1->q.t2_nost = 0;
    if (c->t1->q.t2_parked) {
        g_free(c->t1->q.t2_parked->t2_pl);
        g_free(c->t1->q.t2_parked);
        c->t1->q.t2_parked = NULL;
    }
}

void rclink_dmaq_fini(RclinkCore *c)
{
    dmaq_free_msgs(c);
    dmaq_held_free(&c->t1->q);
}

/* SHIM_RESET: the queues stop, every message and counter is forgotten. */
void rclink_dmaq_reset(RclinkCore *c)
{
    RclinkDmaq *q = &c->t1->q;
    uint32_t i;

    dmaq_free_msgs(c);
    dmaq_held_free(q);
    q->irq_pending = false;
    q->rq_cached = 0;
    for (i = 0; i < c->qp_num; i++) {
        memset(&c->t1->qps[i].rx, 0, sizeof(c->t1->qps[i].rx));
        memset(c->t1->qps[i].stats, 0, sizeof(c->t1->qps[i].stats));
    }
}
