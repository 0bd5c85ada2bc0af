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
 * Contexts (Documentation/hw/shim.rst, "Contexts"): every function works on
 * one context's rings.  Context 0 is the kernel's (the DMAQ_* registers);
 * user contexts 1..RCLINK_CTX_NUM-1 have their rings in RclinkCtx, their
 * doorbells in BAR4, WQE/RQE addresses that are offsets into their area
 * (translated and bounds-checked here), the QP owner table and an error
 * state of their own.
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

enum { DQ_SQ, DQ_RQ, DQ_CQ };
enum { DQ_BASE, DQ_CFG, DQ_PROD, DQ_CONS };

typedef struct RclinkDmaqRing {
    const char *name;
    unsigned ring;
    hwaddr reg[4];             /* context 0: base, cfg, prod, cons */
    uint64_t order_mask, enable;
    unsigned esize;
} RclinkDmaqRing;

static const RclinkDmaqRing dmaq_sq = {
    "SQ", DQ_SQ, { RCLINK_DMAQ_SQ_BASE, RCLINK_DMAQ_SQ_CFG,
    RCLINK_DMAQ_SQ_PROD, RCLINK_DMAQ_SQ_CONS }, RCLINK_DMAQ_SQ_CFG_ORDER,
    RCLINK_DMAQ_SQ_CFG_ENABLE, RCLINK_WQE_BYTES,
};
static const RclinkDmaqRing dmaq_rq = {
    "RQ", DQ_RQ, { RCLINK_DMAQ_RQ_BASE, RCLINK_DMAQ_RQ_CFG,
    RCLINK_DMAQ_RQ_PROD, RCLINK_DMAQ_RQ_CONS }, RCLINK_DMAQ_RQ_CFG_ORDER,
    RCLINK_DMAQ_RQ_CFG_ENABLE, RCLINK_RQE_BYTES,
};
static const RclinkDmaqRing dmaq_cq = {
    "CQ", DQ_CQ, { RCLINK_DMAQ_CQ_BASE, RCLINK_DMAQ_CQ_CFG,
    RCLINK_DMAQ_CQ_PROD, RCLINK_DMAQ_CQ_CONS }, RCLINK_DMAQ_CQ_CFG_ORDER,
    RCLINK_DMAQ_CQ_CFG_ENABLE, RCLINK_CQE_BYTES,
};

static void ctx_fail(RclinkCtx *x, uint8_t cause, uint64_t info);
static void rx_hold_retry(RclinkCore *c);
static void ctx_dbrec_write(RclinkCtx *x, bool force);

static RclinkCtx *ctx0(RclinkCore *c)
{
    return &c->t1->ctx[0];
}

/* A ring register of the context: context 0's are the DMAQ_* registers. */
static uint64_t *dq_reg(RclinkCtx *x, const RclinkDmaqRing *r, unsigned f)
{
    if (!x->id) {
        return rclink_reg_ptr(x->c, r->reg[f]);
    }
    return &x->ring[r->ring][f];
}

static uint32_t dq_get(RclinkCtx *x, const RclinkDmaqRing *r, unsigned f)
{
    return *dq_reg(x, r, f);
}

static void dq_set(RclinkCtx *x, const RclinkDmaqRing *r, unsigned f,
                   uint32_t v)
{
    *dq_reg(x, r, f) = v;
}

/* Entries of a running ring, 0 when it is disabled. */
static uint32_t dmaq_size(RclinkCtx *x, const RclinkDmaqRing *r)
{
    uint64_t cfg = *dq_reg(x, r, DQ_CFG);

    if (!(cfg & r->enable)) {
        return 0;
    }
    return 1u << RF_GET(r->order_mask, cfg);
}

static hwaddr dmaq_entry(RclinkCtx *x, const RclinkDmaqRing *r,
                         uint32_t size, uint32_t idx)
{
    return *dq_reg(x, r, DQ_BASE) + (hwaddr)(idx & (size - 1)) * r->esize;
}

/*
 * The area of a user context: [off, off + len) must lie in it.  Context 0
 * has none (its addresses are bus addresses).
 */
static bool ctx_in_area(RclinkCtx *x, uint64_t off, uint64_t len)
{
    return !x->id || (off <= x->area_size && len <= x->area_size - off);
}

/*
 * DMA of the context's data: context 0 at bus address a, a user context at
 * area offset a, chunk by chunk.  A failure puts a user context in error.
 */
static bool ctx_dma(RclinkCtx *x, uint64_t a, void *buf, uint64_t len,
                    bool write)
{
    RclinkCore *c = x->c;
    uint8_t *p = buf;

    if (!x->id) {
        return (write ? rclink_dma_write(c, a, buf, len)
                      : rclink_dma_read(c, a, buf, len)) == MEMTX_OK;
    }
    if (!ctx_in_area(x, a, len)) {
        return false;           /* checked before: cannot happen */
    }
    while (len) {
        uint64_t csz = 1ull << x->chunk_shift;
        uint64_t in = a & (csz - 1);
        uint64_t n = MIN(len, csz - in);
        dma_addr_t bus = x->chunk[a >> x->chunk_shift] + in;

        if ((write ? rclink_dma_write(c, bus, p, n)
                   : rclink_dma_read(c, bus, p, n)) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: area DMA at "
                          "offset 0x%" PRIx64 " (bus 0x%" PRIx64 ") failed\n",
                          x->id, a, (uint64_t)bus);
            ctx_fail(x, RCLINK_CTX_EVT_CAUSE_DMA, bus);
            return false;
        }
        a += n;
        p += n;
        len -= n;
    }
    return true;
}

/* A queue entry DMA of a context; a failure puts a user context in error. */
static bool ctx_qdma(RclinkCtx *x, hwaddr a, void *buf, size_t len,
                     bool write)
{
    RclinkCore *c = x->c;

    if ((write ? rclink_dma_write(c, a, buf, len)
               : rclink_dma_read(c, a, buf, len)) == MEMTX_OK) {
        return true;
    }
    if (x->id) {
        ctx_fail(x, RCLINK_CTX_EVT_CAUSE_DMA, a);
    }
    return false;
}

/* --------------------------------------------------------- completions */

bool rclink_dmaq_cq_pending(RclinkCore *c)
{
    RclinkCtx *x = ctx0(c);

    if (c->bridge) {
        return false;
    }
    return dmaq_size(x, &dmaq_cq) &&
           dq_get(x, &dmaq_cq, DQ_PROD) != dq_get(x, &dmaq_cq, DQ_CONS);
}

/* Free CQ entries (before the held completions take theirs). */
static uint32_t dmaq_cq_space(RclinkCtx *x)
{
    uint32_t size = dmaq_size(x, &dmaq_cq);
    uint32_t used = dq_get(x, &dmaq_cq, DQ_PROD) -
                    dq_get(x, &dmaq_cq, DQ_CONS);

    return used < size ? size - used : 0;
}

/* CQ entries new completions may still take. */
static uint32_t dmaq_cq_room(RclinkCtx *x)
{
    uint32_t space = dmaq_cq_space(x), held = x->nheld;

    return space > held ? space - held : 0;
}

/* An armed CQ's event (CTX_CQ record), one shot. */
static void ctx_cq_event(RclinkCtx *x)
{
    uint64_t info = RF_SET(RCLINK_CTX_EVT_CTX, 0, x->id);

    info = RF_SET(RCLINK_CTX_EVT_CQ_PROD, info, dq_get(x, &dmaq_cq, DQ_PROD));
    x->armed = false;
    if (x->mod_timer_on) {
        timer_del(&x->mod_timer);
        x->mod_timer_on = false;
    }
    x->events++;
    trace_rclink_ctx_cq_event(x->id, dq_get(x, &dmaq_cq, DQ_PROD));
    rclink_event(x->c, RCLINK_EVT_SRC_CTX_CQ, info);
}

/* After a CQE of an armed CQ: the event when DMAQ_CTX_MOD says so. */
static void ctx_cq_moderate(RclinkCtx *x)
{
    uint32_t count = RF_GET(RCLINK_DMAQ_CTX_MOD_COUNT, x->mod);
    uint32_t usec = RF_GET(RCLINK_DMAQ_CTX_MOD_USEC, x->mod);
    uint32_t n = dq_get(x, &dmaq_cq, DQ_PROD) - x->arm_idx;

    if (!x->armed || !n) {
        return;
    }
    if (n >= MAX(count, 1)) {
        ctx_cq_event(x);
    } else if (usec && !x->mod_timer_on) {
        x->mod_timer_on = true;
        timer_mod(&x->mod_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)usec * SCALE_US);
    }
}

static void ctx_mod_timer(void *opaque)
{
    RclinkCtx *x = opaque;

    x->mod_timer_on = false;
    if (x->armed && dq_get(x, &dmaq_cq, DQ_PROD) != x->arm_idx) {
        ctx_cq_event(x);
    }
}

static void dmaq_cq_write(RclinkCtx *x, const uint64_t *w)
{
    RclinkCore *c = x->c;
    uint32_t size = dmaq_size(x, &dmaq_cq);
    uint32_t prod = dq_get(x, &dmaq_cq, DQ_PROD);
    unsigned order = ctz32(size);
    hwaddr a = dmaq_entry(x, &dmaq_cq, size, prod);
    uint64_t le[3], w3;

    le[0] = cpu_to_le64(w[0]);
    le[1] = cpu_to_le64(w[1]);
    le[2] = cpu_to_le64(w[2]);
    w3 = RF_SET(RCLINK_CQE_SEQ, 0, prod);
    if (!((prod >> order) & 1)) {
        w3 |= RCLINK_CQE_PHASE;
    }
    w3 = cpu_to_le64(w3);
    if (x->id && x->running) {
        /* the consumer indexes reach the record before the completion */
        ctx_dbrec_write(x, false);
    }
    /* Words 0-2, then word 3 with the phase that publishes the entry. */
    if (rclink_dma_write(c, a, le, sizeof(le)) != MEMTX_OK ||
        rclink_dma_write(c, a + 24, &w3, sizeof(w3)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: CQE write to 0x%"
                      PRIx64 " failed\n", x->id, (uint64_t)a);
        if (x->id) {
            ctx_fail(x, RCLINK_CTX_EVT_CAUSE_DMA, a);
        }
    }
    trace_rclink_dmaq_cqe(prod, RF_GET(RCLINK_CQE_KIND, w[0]),
                          RF_GET(RCLINK_CQE_STATUS, w[0]),
                          RF_GET(RCLINK_CQE_QPN, w[0]),
                          RF_GET(RCLINK_CQE_LEN, w[0]),
                          RF_GET(RCLINK_CQE_IDX, w[1]));
    dq_set(x, &dmaq_cq, DQ_PROD, prod + 1);
    if (!x->id) {
        x->irq_pending = true;
    } else {
        ctx_cq_moderate(x);
    }
}

/*
 * Hostile-device mode: a CQE that names nothing of the host's, or a QP,
 * an index or lengths out of range, or the wrong kind and status.
 */
static void dmaq_cq_lie(RclinkCtx *x)
{
    static const uint64_t kinds[] = {
        RCLINK_CQE_KIND_SEND, RCLINK_CQE_KIND_RECV, 0, 3,
    };
    RclinkCore *c = x->c;
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
    dmaq_cq_write(x, w);
}

static void dmaq_cq_post3(RclinkCtx *x, uint64_t w0, uint64_t w1,
                          uint64_t w2)
{
    uint64_t w[3] = { w0, w1, w2 };

    if (x->id && !dmaq_size(x, &dmaq_cq)) {
        /* a stopped user context: nothing more is written for it */
        trace_rclink_ctx_cqe_dropped(x->id, RF_GET(RCLINK_CQE_QPN, w0));
        return;
    }
    if (!x->id && !x->nheld && dmaq_cq_space(x) >= 2 &&
        rclink_hostile(x->c, RCLINK_SHIM_HOSTILE_CTRL_CQE)) {
        dmaq_cq_lie(x);
    }
    if (!x->nheld && dmaq_cq_space(x)) {
        dmaq_cq_write(x, w);
        return;
    }
    /* No room: held until the host advances the CQ consumer index. */
    {
        RclinkDmaqHeld *h = g_new(RclinkDmaqHeld, 1);

        memcpy(h->w, w, sizeof(w));
        QSIMPLEQ_INSERT_TAIL(&x->held, h, next);
        x->nheld++;
        trace_rclink_dmaq_cqe_held(x->nheld);
    }
}

static void dmaq_cq_post(RclinkCtx *x, uint64_t w0, uint64_t w1)
{
    dmaq_cq_post3(x, w0, w1, 0);
}

static void dmaq_cq_flush_held(RclinkCtx *x)
{
    RclinkDmaqHeld *h;

    while ((h = QSIMPLEQ_FIRST(&x->held)) && dmaq_cq_space(x)) {
        QSIMPLEQ_REMOVE_HEAD(&x->held, next);
        x->nheld--;
        dmaq_cq_write(x, h->w);
        g_free(h);
    }
}

static void dmaq_held_free(RclinkCtx *x)
{
    RclinkDmaqHeld *h;

    while ((h = QSIMPLEQ_FIRST(&x->held))) {
        QSIMPLEQ_REMOVE_HEAD(&x->held, next);
        g_free(h);
    }
    x->nheld = 0;
}

/* The interrupt after a batch of CQEs (context 0's CQ). */
void rclink_dmaq_irq(RclinkCore *c)
{
    RclinkCtx *x = ctx0(c);

    if (c->bridge || !x->irq_pending) {
        return;
    }
    x->irq_pending = false;
    rclink_irq_raise(c, RF_GET(RCLINK_DMAQ_CQ_CFG_VECTOR,
                               rclink_get(c, RCLINK_DMAQ_CQ_CFG)));
}

/* ---------------------------------------------------------------- send */

static void dmaq_cqe_send(RclinkCtx *x, unsigned kind, uint32_t qpn,
                          uint8_t status, uint32_t len, uint32_t sq_idx)
{
    uint64_t w0 = RF_SET(RCLINK_CQE_KIND, 0, kind);

    w0 = RF_SET(RCLINK_CQE_STATUS, w0, status);
    w0 = RF_SET(RCLINK_CQE_QPN, w0, qpn);
    w0 = RF_SET(RCLINK_CQE_LEN, w0, len);
    dmaq_cq_post(x, w0, RF_SET(RCLINK_CQE_IDX, 0, sq_idx));
}

static void dmaq_send_cqe(RclinkCtx *x, uint32_t qpn, uint8_t status,
                          uint32_t len, uint32_t sq_idx)
{
    dmaq_cqe_send(x, RCLINK_CQE_KIND_SEND, qpn, status, len, sq_idx);
}

/*
 * Complete the QP's finished messages, oldest first, in order.  A WRITE or
 * READ whose packets are all acknowledged waits for its response; the
 * messages after it are done sending but wait in q->done for their CQEs,
 * so that a QP's CQEs come in the order of its WQEs.
 */
static void dmaq_qp_complete(RclinkCore *c, uint32_t qpn)
{
    RclinkT1Qp *q = &c->t1->qps[qpn];
    RclinkDmaqMsg *m;

    while ((m = QSIMPLEQ_FIRST(&q->msgs)) && m->all_submitted &&
           !m->outstanding) {
        QSIMPLEQ_REMOVE_HEAD(&q->msgs, next);
        if (m->rdma) {
            /* decided now, or when its response or deadline comes */
            rclink_rdma_msg_done(c, m);
        } else {
            m->decided = true;
        }
        QSIMPLEQ_INSERT_TAIL(&q->done, m, next);
    }
    while ((m = QSIMPLEQ_FIRST(&q->done)) && m->decided) {
        QSIMPLEQ_REMOVE_HEAD(&q->done, next);
        if (m->rdma) {
            rclink_rdma_cqe(c, m);
            continue;
        }
        trace_rclink_dmaq_msg_done(qpn, m->sq_idx, m->len, m->status);
        /* a QUIET SEND's CQE only says what went wrong */
        if (!m->quiet || m->status != RCLINK_CQE_ST_OK) {
            dmaq_send_cqe(m->ctx, qpn, m->status, m->len, m->sq_idx);
        }
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
    if (c->bridge) {
        /* the RTL shim's packet: its TX_S_CRD_O token, QPID when acked */
        rclink_cosim_ip_credit(c->bridge, BIT(0), m->qpn, ok);
        g_free(m);
        return;
    }
    if (m->outstanding) {
        m->outstanding--;
        m->ctx->ost_used--;
    }
    if (!ok) {
        dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
    }
    if (m->internal) {
        rclink_rdma_credit(c, m);
        return;
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
static int dmaq_read_msg(RclinkCtx *x, uint32_t size, RclinkDmaqMsg **out)
{
    RclinkCore *c = x->c;
    RclinkDmaq *q = &c->t1->q;
    uint32_t cons = dq_get(x, &dmaq_sq, DQ_CONS);
    uint32_t prod = dq_get(x, &dmaq_sq, DQ_PROD);
    uint32_t max_msg = RF_GET(RCLINK_DMAQ_CAP_MAX_MSG,
                              rclink_get(c, RCLINK_DMAQ_CAP));
    uint32_t n = 0, qpn = 0, i;
    uint64_t total = 0;
    uint8_t status = RCLINK_CQE_ST_OK;
    const char *why = NULL;
    bool fack = false, have_qpn = false, mcast = false, t2_oversize = false;
    bool bad_addr = false, not_owner = false, rdma = false, imm = false;
    uint32_t nlocal = 0, nremote = 0;
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
        if (!ctx_qdma(x, dmaq_entry(x, &dmaq_sq, size, cons + n),
                      w, sizeof(w), false)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: WQE %u read "
                          "failed\n", x->id, cons + n);
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
            rdma = op == RCLINK_WQE_OP_WRITE || op == RCLINK_WQE_OP_READ;
        }
        if (rdma) {
            /*
             * WRITE or READ: its local WQEs (one in a user context, a
             * chain of bus address pieces on context 0), a REMOTE WQE,
             * perhaps an IMM WQE (rclink_rdma.c)
             */
            if (!nremote && RF_GET(RCLINK_WQE_OPCODE, w0) == op) {
                nlocal++;
                total += len;
                if (!(w0 & RCLINK_WQE_MORE)) {
                    why = why ? why : "WRITE or READ without its REMOTE WQE";
                    break;
                }
                if (why) {
                    continue;
                }
                if (x->id && nlocal > 1) {
                    why = "a user context's WRITE or READ of more than one "
                          "WQE";
                } else if (!len || (!x->id && len > RCLINK_WQE_MAX_PIECE) ||
                           total > rclink_rdma_max_len(c)) {
                    why = "length";
                } else if (wq >= c->qp_num) {
                    why = "qp number";
                } else if (wq != qpn) {
                    why = "qp number differs within the chain";
                }
                continue;
            }
            if (!nremote) {
                nremote = n;
                if (RF_GET(RCLINK_WQE_OPCODE, w0) != RCLINK_WQE_OP_REMOTE) {
                    why = why ? why : "opcode (REMOTE expected)";
                    break;
                }
                /*
                 * the local side: an area range, or with LKEY_EN (user
                 * contexts only) a range of the context's registration
                 */
                if (!why && (w0 & RCLINK_WQE_LKEY_EN)) {
                    if (!x->id) {
                        why = "a local key on context 0";
                    } else if (!rclink_rdma_lkey_ok(c, x,
                                                    RF_GET(RCLINK_WQE_LKEY, w0),
                                                    q->wqe[0][1], total)) {
                        why = "local key, or the range outside its "
                              "registration";
                        bad_addr = true;
                    }
                } else if (!why && x->id &&
                           !ctx_in_area(x, q->wqe[0][1], total)) {
                    why = "address outside the context's area";
                    bad_addr = true;
                }
                if (!(w0 & RCLINK_WQE_MORE)) {
                    break;
                }
                /* an IMM WQE follows: a WRITE with immediate data */
                imm = true;
                if (!why && op != RCLINK_WQE_OP_WRITE) {
                    why = "READ with immediate data";
                }
                continue;
            }
            if (!why && RF_GET(RCLINK_WQE_OPCODE, w0) != RCLINK_WQE_OP_IMM) {
                why = "opcode (IMM expected)";
            } else if (!why && (w0 & RCLINK_WQE_MORE)) {
                why = "IMM WQE with MORE";
            }
            break;
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
            } else if (!ctx_in_area(x, q->wqe[n - 1][1], len)) {
                why = "address outside the context's area";
                bad_addr = true;
            }
        }
        if (!(w0 & RCLINK_WQE_MORE)) {
            break;
        }
    }
    dq_set(x, &dmaq_sq, DQ_CONS, cons + n);
    if (why && status == RCLINK_CQE_ST_OK) {
        status = bad_addr ? RCLINK_CQE_ST_BAD_ADDR : RCLINK_CQE_ST_BAD_WQE;
    }
    if (status == RCLINK_CQE_ST_OK && have_qpn &&
        (mcast ? c->t1->t2_owner[qpn] : c->t1->qp_owner[qpn]) != x->id) {
        /* isolation: the QP (group) is another context's */
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: WQE at SQ index "
                      "%u for %s %u of context %u: not sent\n", x->id, cons,
                      mcast ? "group" : "QP", qpn,
                      mcast ? c->t1->t2_owner[qpn] : c->t1->qp_owner[qpn]);
        trace_rclink_ctx_not_owner(x->id, cons, qpn);
        status = RCLINK_CQE_ST_NOT_OWNER;
        not_owner = true;
        x->not_owner++;
    }
    if (status == RCLINK_CQE_ST_BAD_WQE || status == RCLINK_CQE_ST_BAD_ADDR) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: bad WQE at SQ "
                      "index %u (%s): message not sent\n", x->id, cons, why);
        rclink_count(c, RCLINK_DMAQ_BAD_WQE);
        trace_rclink_dmaq_bad_wqe(cons, why);
        if (x->id) {
            ctx_fail(x, bad_addr ? RCLINK_CTX_EVT_CAUSE_BAD_ADDR :
                     RCLINK_CTX_EVT_CAUSE_BAD_WQE, cons);
        }
    }
    if (t2_oversize) {
        /* IRQ_INFO TYPE2 code 1: TX oversize */
        rclink_count(c, RCLINK_DMAQ_T2_TX_DROP);
        rclink_t2_irq_info(c, RCLINK_IRQ_TYPE2_TX_OVERSIZE, 0,
                           RCLINK_INTR_STATUS_T2_TX_OVERSIZE);
    }
    if (mcast && status != RCLINK_CQE_ST_OK) {
        dmaq_cqe_send(x, RCLINK_CQE_KIND_SEND_MCAST, qpn, status, total,
                      cons + n - 1);
        return DMAQ_READ_DONE;
    }
    if (rdma && status != RCLINK_CQE_ST_OK) {
        dmaq_cqe_send(x, op == RCLINK_WQE_OP_WRITE ? RCLINK_CQE_KIND_WRITE :
                      RCLINK_CQE_KIND_READ, qpn, status, total, cons + n - 1);
        return DMAQ_READ_DONE;
    }
    if (status != RCLINK_CQE_ST_OK &&
        (!have_qpn || qpn >= c->qp_num || not_owner || x->id)) {
        /*
         * No QP to keep the order of (or not the context's QP, or the
         * context goes into error): completes at once.
         */
        dmaq_send_cqe(x, qpn, status, total, cons + n - 1);
        return DMAQ_READ_DONE;
    }
    m = g_malloc0(sizeof(*m) + sizeof(m->pieces[0]) * n);
    m->ctx = x;
    m->qpn = qpn;
    m->len = total;
    m->sq_idx = cons + n - 1;
    m->fack = fack;
    m->quiet = op == RCLINK_WQE_OP_SEND && (q->wqe[0][0] & RCLINK_WQE_QUIET);
    m->status = status;
    m->npieces = n;
    m->mcast = mcast;
    for (i = 0; i < n; i++) {
        m->pieces[i].addr = q->wqe[i][1];
        m->pieces[i].len = RF_GET(RCLINK_WQE_LEN, q->wqe[i][0]);
    }
    if (rdma) {
        m->npieces = nlocal;
        m->rdma = op == RCLINK_WQE_OP_WRITE ? RCLINK_SEG_KIND_WRITE :
                                              RCLINK_SEG_KIND_READ_REQ;
        m->rkey = RF_GET(RCLINK_WQE_RKEY, q->wqe[nlocal][0]);
        m->raddr = q->wqe[nlocal][1];
        m->lkey_en = !!(q->wqe[nlocal][0] & RCLINK_WQE_LKEY_EN);
        m->lkey = RF_GET(RCLINK_WQE_LKEY, q->wqe[nlocal][0]);
        m->has_imm = imm;
        m->imm = imm ? (uint32_t)q->wqe[nlocal + 1][1] : 0;
        m->tag = rclink_rdma_tag(c, qpn);
        rclink_count(c, op == RCLINK_WQE_OP_WRITE ? RCLINK_DMAQ_RDMA_TX_WRITE :
                     RCLINK_DMAQ_RDMA_TX_READ);
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

        if (buf && !ctx_dma(m->ctx, p->addr + m->piece_off, buf, n, false)) {
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

    if (m->rdma) {
        return rclink_rdma_cut(c, m);
    }

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
        if (m->ctx->ost_max && m->ctx->ost_used >= m->ctx->ost_max) {
            /* the context's share of the slots is taken: it waits */
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
        m->ctx->ost_used++;
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
    if (c->bridge) {
        /* the RTL shim's packet left: its TX_S_CRD_O[3] token */
        rclink_cosim_ip_credit(c->bridge, BIT(3), 0, false);
        g_free(m->t2_pl);
        g_free(m);
        return;
    }
    trace_rclink_dmaq_msg_done(m->qpn, m->sq_idx, m->len, status);
    dmaq_cqe_send(m->ctx, RCLINK_CQE_KIND_SEND_MCAST, m->qpn, status, m->len,
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
 * The bridge (rtl-bridge=on, rclink_cosim.c): a TX_S packet of the RTL
 * shim comes to this model's IP as this model's engine would hand it over:
 * a TYPE1 packet into an outstanding slot (its credit returns through
 * rclink_dmaq_credit), a TYPE2 packet into a TYPE2 buffer.  What the IP
 * does with a packet it cannot take is the IP's: a disabled QP's packet
 * is dropped with IRQ_INFO TYPE1 code 4 and its credit returns without
 * QPID.
 */
void rclink_dmaq_bridge_tx(RclinkCore *c, uint32_t qpn, unsigned flags,
                           const uint8_t *pkt, size_t len)
{
    RclinkT1 *t1 = c->t1;
    RclinkDmaqMsg *m;
    RclinkT1Slot *sl;
    int s;

    if ((flags >> 1 & 3) == 3) {
        RclinkDmaq *q = &t1->q;

        if (len > RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT ||
            q->t2_nost >= RCLINK_PARAM_TYPE2_OST_N_DEFAULT) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: RTL TYPE2 packet of %zu "
                          "bytes, %u buffers taken: dropped\n", len,
                          q->t2_nost);
            rclink_cosim_ip_credit(c->bridge, BIT(3), 0, false);
            return;
        }
        m = g_new0(RclinkDmaqMsg, 1);
        m->qpn = flags >> 3 & 7;
        m->mcast = true;
        m->t2_pl = g_memdup2(pkt, len);
        m->t2_plen = len;
        QSIMPLEQ_INSERT_TAIL(&q->t2_ost, m, next);
        q->t2_nost++;
        dmaq_t2_run(c);
        return;
    }
    if (qpn >= c->qp_num || len < RCLINK_SEG_BYTES ||
        len > RCLINK_T1_PKT_LEN || !t1->nfree) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: RTL TYPE1 packet of QP %u, "
                      "%zu bytes, %u slots free: dropped\n", qpn, len,
                      t1->nfree);
        rclink_cosim_ip_credit(c->bridge, BIT(0), qpn, false);
        return;
    }
    if (!rclink_t1_qp_enabled(c, qpn)) {
        trace_rclink_dmaq_tx_qp_off(qpn, 0);
        rclink_t1_irq_info(c, RCLINK_IRQ_TYPE1_TX_QP_DISABLED, qpn,
                           RCLINK_INTR_STATUS_T1_TX_QP_DISABLED);
        rclink_cosim_ip_credit(c->bridge, BIT(0), qpn, false);
        return;
    }
    s = rclink_t1_slot_alloc(c);
    sl = &t1->slots[s];
    memcpy(sl->payload, pkt, len);
    sl->qpn = qpn;
    sl->len = len;
    sl->fack = flags & 1;
    m = g_new0(RclinkDmaqMsg, 1);
    m->qpn = qpn;
    sl->msg = m;
    rclink_t1_submit(c, s);
    rclink_t1_kick(c);
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
    m->ctx->nparked++;
    rclink_count(c, RCLINK_DMAQ_T1_CC_PARKED);
    trace_rclink_dmaq_park(qp->qpn, m->sq_idx, m->off, qp->nparked);
}

static void dmaq_ready_remove(RclinkCtx *x, RclinkT1Qp *qp)
{
    if (qp->in_ready) {
        QTAILQ_REMOVE(&x->ready, qp, ready_link);
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
    m->ctx->nparked--;
    qp->park_head = qp->nparked ? n : NULL;
    trace_rclink_dmaq_resume(qp->qpn, m->sq_idx, qp->nparked);
    return m;
}

void rclink_dmaq_cc_qp_en(RclinkCore *c, uint32_t qpn, bool en)
{
    RclinkT1Qp *qp = &c->t1->qps[qpn];

    if (c->bridge) {
        return;         /* the RTL shim has no CC_TYPE1_QP_EN_* inputs */
    }
    qp->eng_off = !en;
    if (en && qp->nparked && !qp->in_ready) {
        /* the set-aside messages' context serves the QP */
        QTAILQ_INSERT_TAIL(&qp->park_head->ctx->ready, qp, ready_link);
        qp->in_ready = true;
        rclink_t1_kick(c);
    }
}

/* The context's set-aside messages complete FLUSHED (its SQ stops). */
static void dmaq_park_flush(RclinkCtx *x)
{
    RclinkCore *c = x->c;
    RclinkDmaqMsg *m;
    uint32_t i;

    for (i = 0; i < c->qp_num && x->nparked; i++) {
        RclinkT1Qp *qp = &c->t1->qps[i];

        if (!qp->nparked || qp->park_head->ctx != x) {
            continue;
        }
        dmaq_ready_remove(x, qp);
        for (m = qp->park_head; qp->nparked && m; m = QSIMPLEQ_NEXT(m, next)) {
            if (!m->all_submitted) {
                m->all_submitted = true;
                dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
            }
        }
        x->nparked -= qp->nparked;
        qp->nparked = 0;
        qp->park_head = NULL;
    }
}

static void dmaq_sq_run(RclinkCtx *x)
{
    RclinkCore *c = x->c;
    RclinkCtx *q = x;
    uint32_t size = dmaq_size(x, &dmaq_sq);

    if (!size) {
        return;
    }
    for (;;) {
        if (x->id && !x->running) {
            return;             /* in error: ctx_error_finish() follows */
        }
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
                    dmaq_ready_remove(x, qp);
                }
                continue;
            }
            if (q->nheld >= DMAQ_HELD_MAX || q->nparked >= DMAQ_PARK_MAX) {
                return;
            }
            if (dmaq_read_msg(x, size, &m) == DMAQ_READ_WAIT) {
                return;
            }
            if (x->id && !x->running) {
                /* the message put the context in error: nothing more */
                if (m) {
                    m->all_submitted = true;
                    dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
                    if (m->mcast) {
                        dmaq_t2_done(c, m, RCLINK_CQE_ST_FLUSHED);
                    } else {
                        dmaq_qp_complete(c, m->qpn);
                    }
                }
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

static void ctx_error_finish(RclinkCtx *x);
static void ctx_dbrec(RclinkCtx *x);


/*
 * The engine's work: held completions, then the send queues, context 0
 * first, the user contexts round robin from the one after the last first.
 */
void rclink_dmaq_run(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;
    uint32_t i, n = RCLINK_CTX_NUM - 1;

    if (c->bridge) {
        dmaq_t2_run(c);         /* the RTL shim's TYPE2 packets */
        return;
    }
    dmaq_cq_flush_held(ctx0(c));
    dmaq_t2_run(c);
    rclink_rdma_run(c);
    dmaq_sq_run(ctx0(c));
    for (i = 0; i < n; i++) {
        RclinkCtx *x = &t1->ctx[1 + (t1->q.rr + i) % n];

        if (x->err_pending) {
            ctx_error_finish(x);
        }
        if (!x->enabled) {
            continue;
        }
        dmaq_cq_flush_held(x);
        if (x->running) {
            dmaq_sq_run(x);
        }
        if (x->err_pending) {
            ctx_error_finish(x);
        }
        ctx_dbrec(x);
    }
    t1->q.rr = (t1->q.rr + 1) % n;
    /* the shim's RDMA responses may have gone: a waiting packet may fit */
    rx_hold_retry(c);
}

/* rclink_rdma.c's way into the engine */
bool rclink_ctx_dma(RclinkCtx *x, uint64_t a, void *buf, uint64_t len,
                    bool write)
{
    return ctx_in_area(x, a, len) && ctx_dma(x, a, buf, len, write);
}

void rclink_dmaq_cqe(RclinkCtx *x, unsigned kind, uint32_t qpn,
                     uint8_t status, uint32_t len, uint32_t sq_idx)
{
    dmaq_cqe_send(x, kind, qpn, status, len, sq_idx);
}

void rclink_dmaq_qp_complete(RclinkCore *c, uint32_t qpn)
{
    dmaq_qp_complete(c, qpn);
}

static bool dmaq_rqe(RclinkCtx *x, uint32_t k, uint32_t *idx);

/*
 * The immediate data of a WRITE on QP qpn (rclink_rdma.c): the owner's
 * next RQE is taken unused and a RECV_IMM CQE written.  With dry_run,
 * whether there is an RQE and CQ room.
 */
bool rclink_dmaq_rx_imm(RclinkCore *c, uint32_t qpn, uint32_t imm,
                        uint32_t len, bool dry_run)
{
    RclinkCtx *x = &c->t1->ctx[c->t1->qp_owner[qpn]];
    uint32_t cons, ci;
    uint8_t st;
    uint64_t w0, w1;

    if (!dmaq_size(x, &dmaq_rq) || !dmaq_size(x, &dmaq_cq) ||
        (x->id && !x->running) || !dmaq_rqe(x, 0, &ci) ||
        dmaq_cq_room(x) < 1) {
        return false;
    }
    if (dry_run) {
        return true;
    }
    cons = dq_get(x, &dmaq_rq, DQ_CONS);
    dq_set(x, &dmaq_rq, DQ_CONS, cons + 1);
    x->rq_cached--;
    st = x->rqe[ci].status;
    w0 = RF_SET(RCLINK_CQE_KIND, 0, RCLINK_CQE_KIND_RECV_IMM);
    w0 = RF_SET(RCLINK_CQE_STATUS, w0, st);
    w0 = RF_SET(RCLINK_CQE_QPN, w0, qpn) | RCLINK_CQE_FIRST | RCLINK_CQE_LAST;
    w1 = RF_SET(RCLINK_CQE_IDX, 0, cons);
    w1 = RF_SET(RCLINK_CQE_MSG_LEN, w1, len);
    dmaq_cq_post3(x, w0, w1, RF_SET(RCLINK_CQE_IMM, 0, imm));
    if (st != RCLINK_CQE_ST_OK && x->id) {
        /* a user context's bad RQE: the context goes into error */
        ctx_fail(x, st == RCLINK_CQE_ST_BAD_ADDR ?
                 RCLINK_CTX_EVT_CAUSE_BAD_ADDR :
                 st == RCLINK_CQE_ST_DMA_ERR ? RCLINK_CTX_EVT_CAUSE_DMA :
                 RCLINK_CTX_EVT_CAUSE_BAD_RQE, cons);
    }
    return true;
}

/* ------------------------------------------------------------- receive */

/*
 * The RQE at DMAQ_RQ_CONS + k, read ahead into the cache: its cache index
 * in *idx, false when the host has not posted it.
 */
static bool dmaq_rqe(RclinkCtx *x, uint32_t k, uint32_t *idx)
{
    RclinkCtx *q = x;
    uint32_t size = dmaq_size(x, &dmaq_rq);
    uint32_t cons = dq_get(x, &dmaq_rq, DQ_CONS);
    uint32_t posted = dq_get(x, &dmaq_rq, DQ_PROD) - cons;

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
        if (!ctx_qdma(x, dmaq_entry(x, &dmaq_rq, size, i), w, sizeof(w),
                      false)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: RQE %u read "
                          "failed\n", x->id, i);
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
            } else if (!ctx_in_area(x, le64_to_cpu(w[0]), len)) {
                qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: RQE %u "
                              "outside its area\n", x->id, i);
                q->rqe[i % RCLINK_DMAQ_RING_MAX].status =
                    RCLINK_CQE_ST_BAD_ADDR;
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
    RclinkCtx *x;              /* the owner */
    RclinkDmaqRx *rx;
    unsigned kind;
    uint32_t id;
} DmaqRxTo;

static DmaqRxTo dmaq_rx_qp(RclinkCore *c, uint32_t qpn)
{
    return (DmaqRxTo){ &c->t1->ctx[c->t1->qp_owner[qpn]], &c->t1->qps[qpn].rx,
                       RCLINK_CQE_KIND_RECV, qpn };
}

static DmaqRxTo dmaq_rx_group(RclinkCore *c, unsigned g)
{
    return (DmaqRxTo){ &c->t1->ctx[c->t1->t2_owner[g]], &c->t1->t2.rx[g],
                       RCLINK_CQE_KIND_RECV_MCAST, g };
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
    dmaq_cq_post(to->x, w0, w1);
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

    if (c->bridge) {
        return;         /* the RTL shim keeps its own receive state */
    }
    dmaq_rx_flush(c, &to);
}

static void dmaq_rx_flush_group(RclinkCore *c, unsigned g)
{
    DmaqRxTo to = dmaq_rx_group(c, g);

    dmaq_rx_flush(c, &to);
}

/* Take the next RQE as the receiver's buffer (it must be cached). */
static bool dmaq_rx_take(RclinkCore *c, const DmaqRxTo *to)
{
    RclinkCtx *q = to->x;
    RclinkDmaqRx *rx = to->rx;
    uint32_t cons = dq_get(q, &dmaq_rq, DQ_CONS), ci;

    if (!dmaq_rqe(q, 0, &ci)) {
        return false;
    }
    dq_set(q, &dmaq_rq, DQ_CONS, cons + 1);
    q->rq_cached--;
    if (q->rqe[ci].status != RCLINK_CQE_ST_OK) {
        dmaq_recv_cqe(c, to, q->rqe[ci].status, false, false, 0, cons,
                      rx->msg_len);
        if (q->id) {
            /* a user context's bad RQE: the context goes into error */
            ctx_fail(q, q->rqe[ci].status == RCLINK_CQE_ST_BAD_ADDR ?
                     RCLINK_CTX_EVT_CAUSE_BAD_ADDR :
                     q->rqe[ci].status == RCLINK_CQE_ST_DMA_ERR ?
                     RCLINK_CTX_EVT_CAUSE_DMA : RCLINK_CTX_EVT_CAUSE_BAD_RQE,
                     cons);
        }
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

    if (!dmaq_size(to->x, &dmaq_rq) || !dmaq_size(to->x, &dmaq_cq) ||
        (to->x->id && !to->x->running)) {
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
                    if (!dmaq_rqe(to->x, k++, &idx)) {
                        return false;
                    }
                    if (to->x->rqe[idx].status != RCLINK_CQE_ST_OK) {
                        cqes++;             /* completed unused */
                        if (to->x->id) {
                            /* the context's error ends it there */
                            return dmaq_cq_room(to->x) >= cqes;
                        }
                        continue;
                    }
                    buf = true;
                    space = to->x->rqe[idx].len;
                    continue;
                }
                n = MIN(left, space);
                left -= n;
                space -= n;
            }
            cqes += ends;
        }
        return dmaq_cq_room(to->x) >= cqes;
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
            if (to->x->id && !to->x->running) {
                /* a bad RQE put the context in error: the rest is lost */
                dmaq_rx_flush(c, to);
                return true;
            }
            continue;
        }
        n = MIN(dlen, rx->size - rx->fill);
        if (!ctx_dma(to->x, rx->addr + rx->fill, (void *)data, n, true)) {
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

    if (c->bridge) {
        return rclink_cosim_ip_rx(c->bridge, qpn, 0, pl, len, dry_run);
    }
    if (RF_GET(RCLINK_SEG_KIND, ldq_le_p(pl)) != RCLINK_SEG_KIND_SEND) {
        /* WRITE, READ and their responses: the shim's, no RQE */
        return rclink_rdma_rx(c, qpn, pl, len, dry_run);
    }
    return dmaq_rx_accept(c, &to, pl, len, dry_run);
}

/* The same for a TYPE2 packet of group g: RECV_MCAST CQEs */
bool rclink_dmaq_t2_accept(RclinkCore *c, unsigned g, const uint8_t *pl,
                           size_t len, bool dry_run)
{
    DmaqRxTo to;

    if (c->bridge) {
        /* g is RCLINK_T2_RXM(): the group, the sender and the PSN */
        return rclink_cosim_ip_rx(c->bridge, g & 15, 3 | (g >> 4) << 2, pl,
                                  len, dry_run);
    }
    to = dmaq_rx_group(c, g);
    return dmaq_rx_accept(c, &to, pl, len, dry_run);
}

void rclink_dmaq_t2_nobuf(RclinkCore *c, unsigned g)
{
    uint16_t o = c->t1->t2_owner[g];

    if (o) {
        c->t1->ctx[o].rx_nobuf++;
    }
}

bool rclink_dmaq_qp_user(RclinkCore *c, uint32_t qpn)
{
    return c->t1->qp_owner[qpn] != 0;
}

/* ------------------------------------------- a packet waiting on RX_M */

bool rclink_dmaq_rx_held(RclinkCore *c)
{
    return c->t1 && c->t1->hold.on;
}

/*
 * The engine's FLOW_STOP (TYPE1_FLOW_STOP_I[3:0]), a level per bank that
 * the IP looks at before it knows what a packet is: up on every bank
 * while a packet is held on RX_M, and while context 0's RQ is disabled
 * or has fewer than two RQEs posted (shim.rst, "Stalls are the context's
 * own"), whatever QP, context or kind the next packet has.
 */
unsigned rclink_dmaq_flow_stop(RclinkCore *c)
{
    RclinkCtx *x = ctx0(c);

    if (c->bridge) {
        return 0;   /* the RTL's own, applied by rclink_cosim_ip_rx */
    }
    if (rclink_dmaq_rx_held(c) || !dmaq_size(x, &dmaq_rq) ||
        dq_get(x, &dmaq_rq, DQ_PROD) - dq_get(x, &dmaq_rq, DQ_CONS) < 2) {
        return 0xf;
    }
    return 0;
}

/* RX_M moves again: what waits behind the held packet may follow. */
static void rx_hold_release(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;

    timer_del(&t1->hold.timer);
    g_free(t1->hold.pl);
    t1->hold.pl = NULL;
    t1->hold.on = false;
    rclink_t2_rx_resume(c);
    rclink_cbfc_rx_drain(c);
    rclink_t1_kick(c);
}

/*
 * The held packet is dropped (its time ran out: fail; or its context
 * stopped, or its QP changed owner): counted, and a context still running
 * goes into error, since the IP acknowledged the packet.
 */
static void rx_hold_drop(RclinkCore *c, bool fail, const char *why)
{
    RclinkT1 *t1 = c->t1;
    RclinkCtx *x = &t1->ctx[t1->hold.ctx];
    uint32_t qpn = t1->hold.qpn;

    x->rx_nobuf++;
    trace_rclink_ctx_rx_hold(x->id, qpn, why);
    rx_hold_release(c);
    if (fail) {
        ctx_fail(x, RCLINK_CTX_EVT_CAUSE_RX_NOBUF, qpn);
    }
}

static void rx_hold_timer(void *opaque)
{
    RclinkCore *c = opaque;

    if (c->t1->hold.on) {
        rx_hold_drop(c, true, "dropped: hold time over");
    }
}

void rclink_dmaq_rx_hold(RclinkCore *c, uint32_t qpn, const uint8_t *pl,
                         size_t len)
{
    RclinkT1 *t1 = c->t1;
    RclinkCtx *x = &t1->ctx[t1->qp_owner[qpn]];
    uint32_t us = RF_GET(RCLINK_DMAQ_CTX_RX_HOLD_USEC,
                         rclink_get(c, RCLINK_DMAQ_CTX_RX_HOLD));

    if (!x->running) {
        /* stopped, disabled or in error: nothing to wait for */
        x->rx_nobuf++;
        trace_rclink_ctx_rx_hold(x->id, qpn, "dropped: not running");
        return;
    }
    if (!us) {
        x->rx_nobuf++;
        trace_rclink_ctx_rx_hold(x->id, qpn, "dropped: no hold time");
        ctx_fail(x, RCLINK_CTX_EVT_CAUSE_RX_NOBUF, qpn);
        return;
    }
    t1->hold.on = true;
    t1->hold.ctx = x->id;
    t1->hold.qpn = qpn;
    t1->hold.pl = g_memdup2(pl, len);
    t1->hold.len = len;
    timer_mod(&t1->hold.timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
              (int64_t)us * SCALE_US);
    trace_rclink_ctx_rx_hold(x->id, qpn, "held");
}

/* The held packet's context may have made room (a doorbell): try again. */
static void rx_hold_retry(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;

    if (!t1->hold.on) {
        return;
    }
    if (!rclink_dmaq_rx_accept(c, t1->hold.qpn, t1->hold.pl, t1->hold.len,
                               true)) {
        return;
    }
    rclink_dmaq_rx_accept(c, t1->hold.qpn, t1->hold.pl, t1->hold.len, false);
    trace_rclink_ctx_rx_hold(t1->hold.ctx, t1->hold.qpn, "delivered");
    rclink_dmaq_irq(c);
    rx_hold_release(c);
}

/* ----------------------------------------------------------- registers */

static void dmaq_sq_stop(RclinkCtx *x)
{
    RclinkCore *c = x->c;
    RclinkDmaqMsg *m = x->cur;
    uint32_t qpn = m ? m->qpn : 0;
    uint32_t i;

    x->cur = NULL;
    if (m) {
        /* The rest of the message is not sent. */
        m->all_submitted = true;
        dmaq_msg_status(m, RCLINK_CQE_ST_FLUSHED);
    }
    if (x->t2_parked) {
        dmaq_t2_done(c, x->t2_parked, RCLINK_CQE_ST_FLUSHED);
        x->t2_parked = NULL;
    }
    dmaq_park_flush(x);
    if (x->id) {
        rclink_rdma_ctx_stop(x);
    }
    /* In-flight messages complete FLUSHED first (m may go with them). */
    if (!x->id) {
        rclink_t1_release_all(c);
    } else {
        for (i = 0; i < c->qp_num; i++) {
            RclinkDmaqMsg *k;

            QSIMPLEQ_FOREACH(k, &c->t1->qps[i].msgs, next) {
                if (k->ctx == x) {
                    if (rclink_t1_detach_qp(c, i)) {
                        /*
                         * DMAQ_QP_OWNER.flushed: the PSNs have a hole,
                         * and the kernel releases the slots
                         */
                        c->t1->qp_flushed[i] = true;
                        trace_rclink_ctx_qp_flushed(x->id, i);
                    }
                    break;
                }
            }
        }
    }
    if (m) {
        dmaq_qp_complete(c, qpn);
    }
    for (i = 0; i < c->qp_num; i++) {
        if (!QSIMPLEQ_EMPTY(&c->t1->qps[i].msgs)) {
            dmaq_qp_complete(c, i);
        }
    }
    dq_set(x, &dmaq_sq, DQ_PROD, 0);
    dq_set(x, &dmaq_sq, DQ_CONS, 0);
}

static void dmaq_rq_stop(RclinkCtx *x)
{
    RclinkCore *c = x->c;
    uint32_t i;

    for (i = 0; i < c->qp_num; i++) {
        if (c->t1->qp_owner[i] == x->id) {
            rclink_dmaq_rx_flush_qp(c, i);
        }
    }
    if (x->id) {
        for (i = 0; i < RCLINK_AFH_T2_GROUPS; i++) {
            if (c->t1->t2_owner[i] == x->id) {
                dmaq_rx_flush_group(c, i);
            }
        }
    }
    x->rq_cached = 0;
    dq_set(x, &dmaq_rq, DQ_PROD, 0);
    dq_set(x, &dmaq_rq, DQ_CONS, 0);
}

static void dmaq_cq_stop(RclinkCtx *x)
{
    dmaq_held_free(x);
    x->irq_pending = false;
    dq_set(x, &dmaq_cq, DQ_PROD, 0);
    dq_set(x, &dmaq_cq, DQ_CONS, 0);
    if (!x->id) {
        rclink_update_intx(x->c);
    }
}

static void dmaq_cfg_write(RclinkCore *c, const RclinkDmaqRing *r,
                           uint64_t *p, uint64_t old)
{
    RclinkCtx *x = ctx0(c);
    unsigned max = RF_GET(RCLINK_DMAQ_CAP_MAX_ORDER,
                          rclink_get(c, RCLINK_DMAQ_CAP));
    unsigned order = RF_GET(r->order_mask, *p);
    uint64_t base = rclink_get(c, r->reg[DQ_BASE]);
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
            dmaq_sq_stop(x);
        } else if (r == &dmaq_rq) {
            dmaq_rq_stop(x);
        } else {
            dmaq_cq_stop(x);
        }
        rclink_t1_kick(c);
    }
}

/* A producer index of the host: at most a ring's worth ahead. */
static bool dmaq_prod_ok(RclinkCtx *x, const RclinkDmaqRing *r, uint32_t v)
{
    uint32_t size = dmaq_size(x, r);

    return !size || (uint32_t)(v - dq_get(x, r, DQ_CONS)) <= size;
}

static void dmaq_prod_write(RclinkCore *c, const RclinkDmaqRing *r,
                            uint64_t *p, uint64_t old)
{
    RclinkCtx *x = ctx0(c);

    if (!dmaq_prod_ok(x, r, *p)) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ_%s_PROD %u more than "
                      "%u entries ahead of CONS %u: ignored\n", r->name,
                      (uint32_t)*p, dmaq_size(x, r), dq_get(x, r, DQ_CONS));
        *p = old;
        return;
    }
    rclink_t1_kick(c);
}

/* ------------------------------------------------------------ contexts */

/* The context DMAQ_CTX_SEL selects, NULL for none. */
static RclinkCtx *ctx_sel(RclinkCore *c, const char *what)
{
    uint64_t n = RF_GET(RCLINK_DMAQ_CTX_SEL_CTX,
                        rclink_get(c, RCLINK_DMAQ_CTX_SEL));

    if (!n || n >= RCLINK_CTX_NUM) {
        if (what) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: %s with DMAQ_CTX_SEL %"
                          PRIu64 " (1..%u): dropped\n", what, n,
                          RCLINK_CTX_NUM - 1);
        }
        return NULL;
    }
    return &c->t1->ctx[n];
}

/* The doorbell record: consumer indexes, error (only when changed). */
static void ctx_dbrec_write(RclinkCtx *x, bool force)
{
    uint32_t sq = dq_get(x, &dmaq_sq, DQ_CONS);
    uint32_t rq = dq_get(x, &dmaq_rq, DQ_CONS);
    uint64_t w[2];

    if (!force && sq == x->rec_sq && rq == x->rec_rq) {
        return;
    }
    w[0] = cpu_to_le64(RF_SET(RCLINK_DBREC_RQ_CONS,
                              RF_SET(RCLINK_DBREC_SQ_CONS, 0, sq), rq));
    w[1] = x->error ? RCLINK_DBREC_ERROR : 0;
    w[1] = cpu_to_le64(RF_SET(RCLINK_DBREC_CAUSE, w[1], x->cause));
    x->rec_sq = sq;
    x->rec_rq = rq;
    if (rclink_dma_write(x->c, x->dbrec, w, sizeof(w)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: doorbell record "
                      "write to 0x%" PRIx64 " failed\n", x->id, x->dbrec);
        if (!x->error) {
            ctx_fail(x, RCLINK_CTX_EVT_CAUSE_DMA, x->dbrec);
        }
    }
}

static void ctx_dbrec(RclinkCtx *x)
{
    if (x->running) {
        ctx_dbrec_write(x, false);
    }
}

/*
 * A cause found on the data path: the context stops fetching at once (its
 * SQ and RQ look disabled); the rest (flush, record, event) is done by
 * ctx_error_finish() in the engine's next run.
 */
static void ctx_fail(RclinkCtx *x, uint8_t cause, uint64_t info)
{
    if (!x->id || !x->enabled || x->error || x->err_pending) {
        return;
    }
    trace_rclink_ctx_error(x->id, cause, info);
    x->err_pending = cause;
    x->err_pending_info = info;
    x->running = false;
    rclink_t1_kick(x->c);
}

/*
 * Stop a user context: nothing is fetched any more, in-flight messages and
 * open receives complete FLUSHED into its CQ as far as it has room, the
 * rest is forgotten; then nothing more is read or written for it.
 */
static void ctx_quiesce(RclinkCtx *x)
{
    uint64_t idx[2][2] = {
        { x->ring[DQ_SQ][DQ_PROD], x->ring[DQ_SQ][DQ_CONS] },
        { x->ring[DQ_RQ][DQ_PROD], x->ring[DQ_RQ][DQ_CONS] },
    };

    x->running = false;
    if (x->c->t1->hold.on && x->c->t1->hold.ctx == x->id) {
        rx_hold_drop(x->c, false, "dropped: context stopped");
    }
    dmaq_sq_stop(x);
    dmaq_rq_stop(x);
    /* the indices stay for the record and the kernel's diagnostics */
    x->ring[DQ_SQ][DQ_PROD] = idx[0][0];
    x->ring[DQ_SQ][DQ_CONS] = idx[0][1];
    x->ring[DQ_RQ][DQ_PROD] = idx[1][0];
    x->ring[DQ_RQ][DQ_CONS] = idx[1][1];
    dmaq_cq_flush_held(x);
    dmaq_held_free(x);
    x->ring[DQ_SQ][DQ_CFG] = 0;
    x->ring[DQ_RQ][DQ_CFG] = 0;
    x->ring[DQ_CQ][DQ_CFG] = 0;
    x->armed = false;
    if (x->mod_timer_on) {
        timer_del(&x->mod_timer);
        x->mod_timer_on = false;
    }
}

static void ctx_error_finish(RclinkCtx *x)
{
    uint64_t info;

    if (!x->err_pending) {
        return;
    }
    x->cause = x->err_pending;
    x->err_info = x->err_pending_info;
    x->err_pending = 0;
    x->error = true;
    ctx_quiesce(x);
    ctx_dbrec_write(x, true);
    info = RF_SET(RCLINK_CTX_EVT_CTX, 0, x->id);
    info = RF_SET(RCLINK_CTX_EVT_CAUSE, info, x->cause);
    rclink_event(x->c, RCLINK_EVT_SRC_CTX_ERR, info);
}

/* DMAQ_CTX_CTRL.enable 0 -> 1: check, read the area table, run. */
static void ctx_enable(RclinkCtx *x)
{
    RclinkCore *c = x->c;
    unsigned max = RF_GET(RCLINK_DMAQ_CAP_MAX_ORDER,
                          rclink_get(c, RCLINK_DMAQ_CAP));
    uint64_t cap = rclink_get(c, RCLINK_DMAQ_CTX_CAP);
    unsigned o[3] = {
        RF_GET(RCLINK_DMAQ_CTX_QCFG_SQ_ORDER, x->qcfg),
        RF_GET(RCLINK_DMAQ_CTX_QCFG_RQ_ORDER, x->qcfg),
        RF_GET(RCLINK_DMAQ_CTX_QCFG_CQ_ORDER, x->qcfg),
    };
    static const RclinkDmaqRing *rings[3] = { &dmaq_sq, &dmaq_rq, &dmaq_cq };
    uint32_t chunks = RF_GET(RCLINK_DMAQ_CTX_AREA_CFG_CHUNKS, x->area_cfg);
    unsigned shift = RF_GET(RCLINK_DMAQ_CTX_AREA_CFG_CHUNK_SHIFT, x->area_cfg);
    const char *why = NULL;
    uint64_t info = 0;
    uint32_t i;

    for (i = 0; i < 3 && !why; i++) {
        if (o[i] < DMAQ_MIN_ORDER || o[i] > max) {
            why = "queue order";
            info = o[i];
        } else if (x->ring[i][DQ_BASE] & (DMAQ_ALIGN - 1)) {
            why = "queue base not 4 KiB aligned";
            info = x->ring[i][DQ_BASE];
        }
    }
    if (!why && (x->dbrec & 63)) {
        why = "doorbell record not 64-byte aligned";
        info = x->dbrec;
    } else if (!why && (!chunks ||
               chunks > RF_GET(RCLINK_DMAQ_CTX_CAP_MAX_CHUNKS, cap) ||
               shift < RF_GET(RCLINK_DMAQ_CTX_CAP_CHUNK_MIN, cap) ||
               shift > RF_GET(RCLINK_DMAQ_CTX_CAP_CHUNK_MAX, cap))) {
        why = "area size";
        info = x->area_cfg;
    } else if (!why && (x->area_tbl & (DMAQ_ALIGN - 1))) {
        why = "area table not 4 KiB aligned";
        info = x->area_tbl;
    }
    x->enabled = true;
    x->error = false;
    x->cause = 0;
    x->err_pending = 0;
    x->err_pending_info = 0;
    x->chunk = g_renew(uint64_t, x->chunk, MAX(chunks, 1));
    if (!why && rclink_dma_read(c, x->area_tbl, x->chunk,
                             chunks * sizeof(uint64_t)) != MEMTX_OK) {
        why = "area table unreadable";
        info = x->area_tbl;
    }
    for (i = 0; !why && i < chunks; i++) {
        x->chunk[i] = le64_to_cpu(x->chunk[i]);
        if (x->chunk[i] & ((1ull << shift) - 1)) {
            why = "area chunk not aligned to its size";
            info = i;
        }
    }
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u enabled with a bad "
                      "configuration (%s, 0x%" PRIx64 "): in error\n", x->id,
                      why, info);
        x->error = true;
        x->cause = RCLINK_CTX_EVT_CAUSE_CONFIG;
        x->err_info = info;
        x->running = false;
        trace_rclink_ctx_error(x->id, x->cause, info);
        return;
    }
    x->nchunks = chunks;
    x->chunk_shift = shift;
    x->area_size = (uint64_t)chunks << shift;
    for (i = 0; i < 3; i++) {
        const RclinkDmaqRing *r = rings[i];

        x->ring[i][DQ_CFG] = RF_SET(r->order_mask, 0, o[i]) | r->enable;
        x->ring[i][DQ_PROD] = x->ring[i][DQ_CONS] = 0;
    }
    x->rq_cached = 0;
    x->armed = false;
    x->running = true;
    x->rec_sq = x->rec_rq = 0;
    trace_rclink_ctx_enable(x->id, 1, x->area_size);
    ctx_dbrec_write(x, true);
    rclink_t1_kick(c);
}

/* DMAQ_CTX_CTRL.enable 1 -> 0: stop, then forget. */
static void ctx_disable(RclinkCtx *x)
{
    unsigned i;

    if (x->running || x->err_pending) {
        ctx_quiesce(x);
    }
    x->enabled = x->running = x->error = false;
    x->cause = x->err_pending = 0;
    x->err_info = x->err_pending_info = 0;
    x->nchunks = 0;
    x->area_size = 0;
    for (i = 0; i < 3; i++) {
        /* the configuration (the bases) stays, the indices go */
        x->ring[i][DQ_CFG] = x->ring[i][DQ_PROD] = x->ring[i][DQ_CONS] = 0;
    }
    trace_rclink_ctx_enable(x->id, 0, 0);
}

/* The configuration registers of a context as written, NULL for others. */
static uint64_t *ctx_cfg_reg(RclinkCtx *x, hwaddr reg)
{
    switch (reg) {
    case RCLINK_DMAQ_CTX_SQ_BASE:
        return &x->ring[DQ_SQ][DQ_BASE];
    case RCLINK_DMAQ_CTX_RQ_BASE:
        return &x->ring[DQ_RQ][DQ_BASE];
    case RCLINK_DMAQ_CTX_CQ_BASE:
        return &x->ring[DQ_CQ][DQ_BASE];
    case RCLINK_DMAQ_CTX_QCFG:
        return &x->qcfg;
    case RCLINK_DMAQ_CTX_DBREC:
        return &x->dbrec;
    case RCLINK_DMAQ_CTX_AREA_TBL:
        return &x->area_tbl;
    case RCLINK_DMAQ_CTX_AREA_CFG:
        return &x->area_cfg;
    case RCLINK_DMAQ_CTX_MOD:
        return &x->mod;
    case RCLINK_DMAQ_CTX_OST:
        return &x->ost_max;
    default:
        return NULL;
    }
}

static void ctx_write(RclinkCore *c, hwaddr reg, uint64_t v, uint64_t wval)
{
    RclinkCtx *x = ctx_sel(c, "DMAQ_CTX write");
    uint64_t *p;

    if (!x) {
        return;
    }
    if (reg == RCLINK_DMAQ_CTX_CTRL) {
        if (wval & RCLINK_DMAQ_CTX_CTRL_STOP) {
            if (x->running) {
                trace_rclink_ctx_stop(x->id);
                ctx_quiesce(x);
                ctx_dbrec_write(x, true);
            }
        }
        if ((v & RCLINK_DMAQ_CTX_CTRL_ENABLE) && !x->enabled) {
            ctx_enable(x);
        } else if (!(v & RCLINK_DMAQ_CTX_CTRL_ENABLE) && x->enabled) {
            ctx_disable(x);
        }
        return;
    }
    p = ctx_cfg_reg(x, reg);
    if (!p) {
        return;                 /* RO */
    }
    if (reg == RCLINK_DMAQ_CTX_MOD || reg == RCLINK_DMAQ_CTX_OST) {
        /* moderation and the slot share may change while it runs */
        *p = v & (reg == RCLINK_DMAQ_CTX_OST ? RCLINK_DMAQ_CTX_OST_MAX : ~0ull);
        rclink_t1_kick(c);
        return;
    }
    if (x->enabled) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: configuration "
                      "written while enabled: ignored\n", x->id);
        return;
    }
    *p = v;
}

static uint64_t ctx_read(RclinkCore *c, hwaddr reg)
{
    RclinkCtx *x = ctx_sel(c, NULL);
    uint64_t v = 0;

    if (!x) {
        return 0;
    }
    if (ctx_cfg_reg(x, reg) && reg != RCLINK_DMAQ_CTX_OST) {
        return *ctx_cfg_reg(x, reg);
    }
    switch (reg) {
    case RCLINK_DMAQ_CTX_CTRL:
        return x->enabled ? RCLINK_DMAQ_CTX_CTRL_ENABLE : 0;
    case RCLINK_DMAQ_CTX_STATUS:
        if (x->running) {
            v |= RCLINK_DMAQ_CTX_STATUS_RUNNING;
        }
        /* the model's stop is done at once: active while running */
        if (x->running || x->err_pending) {
            v |= RCLINK_DMAQ_CTX_STATUS_ACTIVE;
        }
        if (x->error || x->err_pending) {
            v |= RCLINK_DMAQ_CTX_STATUS_ERROR;
        }
        if (x->armed) {
            v |= RCLINK_DMAQ_CTX_STATUS_ARMED;
        }
        return RF_SET(RCLINK_DMAQ_CTX_STATUS_CAUSE, v,
                      x->error ? x->cause : x->err_pending);
    case RCLINK_DMAQ_CTX_ERR_INFO:
        return x->error ? x->err_info : x->err_pending_info;
    case RCLINK_DMAQ_CTX_SQ_IDX:
    case RCLINK_DMAQ_CTX_RQ_IDX:
    case RCLINK_DMAQ_CTX_CQ_IDX: {
        unsigned r = (reg - RCLINK_DMAQ_CTX_SQ_IDX) / 8;

        return (uint64_t)(uint32_t)x->ring[r][DQ_CONS] << 32 |
               (uint32_t)x->ring[r][DQ_PROD];
    }
    case RCLINK_DMAQ_CTX_RX_NOBUF:
        return x->rx_nobuf;
    case RCLINK_DMAQ_CTX_NOT_OWNER:
        return x->not_owner;
    case RCLINK_DMAQ_CTX_EVENTS:
        return x->events;
    case RCLINK_DMAQ_CTX_OST:
        return RF_SET(RCLINK_DMAQ_CTX_OST_USED, x->ost_max, x->ost_used);
    default:
        return 0;
    }
}

/* An owner table entry changes: what the old owner was receiving ends. */
static void ctx_owner_write(RclinkCore *c, uint16_t *owner, uint64_t v,
                            int qpn, int group)
{
    uint64_t n = RF_GET(RCLINK_DMAQ_QP_OWNER_CTX, v);

    if (n >= RCLINK_CTX_NUM) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: owner context %" PRIu64
                      " >= %u: not written\n", n, RCLINK_CTX_NUM);
        return;
    }
    if (*owner == n) {
        return;
    }
    if (qpn >= 0) {
        if (c->t1->hold.on && c->t1->hold.qpn == qpn) {
            /* the packet was taken for the old owner */
            rx_hold_drop(c, false, "dropped: owner changed");
        }
        rclink_dmaq_rx_flush_qp(c, qpn);
    } else {
        dmaq_rx_flush_group(c, group);
    }
    trace_rclink_ctx_owner(qpn >= 0 ? qpn : group, qpn < 0, *owner, n);
    *owner = n;
}

/* The doorbell BAR: context n's page at n << RCLINK_CTX_DB_SHIFT. */
void rclink_ctx_db_write(RclinkCore *c, hwaddr addr, uint64_t val,
                         unsigned size)
{
    uint32_t n = addr >> RCLINK_CTX_DB_SHIFT;
    hwaddr off = addr & ((1u << RCLINK_CTX_DB_SHIFT) - 1);
    uint32_t v = val;
    RclinkCtx *x;

    if (!c->t1 || !n || n >= RCLINK_CTX_NUM || (off & 7) ||
        off > RCLINK_DB_OFF_CQ_ARM || (size != 4 && size != 8)) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: doorbell write of %u bytes "
                      "at 0x%" HWADDR_PRIx ": ignored\n", size, addr);
        rclink_count(c, RCLINK_DMAQ_CTX_DB_DROP);
        return;
    }
    x = &c->t1->ctx[n];
    trace_rclink_ctx_doorbell(n, off, v);
    if (!x->running) {
        /* stopped, in error or disabled: rung for nothing */
        return;
    }
    switch (off) {
    case RCLINK_DB_OFF_SQ_PROD:
    case RCLINK_DB_OFF_RQ_PROD: {
        const RclinkDmaqRing *r = off == RCLINK_DB_OFF_SQ_PROD ? &dmaq_sq
                                                               : &dmaq_rq;

        if (!dmaq_prod_ok(x, r, v)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: %s producer "
                          "%u beyond the ring: in error\n", x->id, r->name, v);
            ctx_fail(x, RCLINK_CTX_EVT_CAUSE_DOORBELL, v);
            return;
        }
        dq_set(x, r, DQ_PROD, v);
        if (r == &dmaq_rq) {
            rx_hold_retry(c);
            rclink_cbfc_rx_drain(c);
        }
        break;
    }
    case RCLINK_DB_OFF_CQ_CONS: {
        uint32_t old = dq_get(x, &dmaq_cq, DQ_CONS);
        uint32_t prod = dq_get(x, &dmaq_cq, DQ_PROD);

        if ((uint32_t)(v - old) > (uint32_t)(prod - old)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: CQ consumer "
                          "%u beyond the producer %u: in error\n", x->id, v,
                          prod);
            ctx_fail(x, RCLINK_CTX_EVT_CAUSE_DOORBELL, v);
            return;
        }
        dq_set(x, &dmaq_cq, DQ_CONS, v);
        rx_hold_retry(c);
        rclink_cbfc_rx_drain(c);
        break;
    }
    default:                    /* CQ_ARM */
        x->armed = true;
        x->arm_idx = v;
        if (x->mod_timer_on) {
            timer_del(&x->mod_timer);
            x->mod_timer_on = false;
        }
        /* CQEs from v on already written: the event at once */
        if ((uint32_t)(dq_get(x, &dmaq_cq, DQ_PROD) - v) - 1 <
            dmaq_size(x, &dmaq_cq)) {
            ctx_cq_event(x);
        }
        return;
    }
    rclink_t1_kick(c);
}

/*
 * The storage of the selected registers (DMAQ_CTX_CTRL .. DMAQ_CTX_EVENTS,
 * DMAQ_QP_OWNER) holds what the selection shows, so that a 32-bit write
 * merges with the other half of the selected context's register.
 */
static uint64_t qp_owner_read(RclinkCore *c)
{
    uint32_t qpn = RF_GET(RCLINK_DMAQ_QP_OWNER_SEL_QPN,
                          rclink_get(c, RCLINK_DMAQ_QP_OWNER_SEL));

    if (qpn >= c->qp_num) {
        return 0;
    }
    return RF_SET(RCLINK_DMAQ_QP_OWNER_FLUSHED, c->t1->qp_owner[qpn],
                  c->t1->qp_flushed[qpn]);
}

static void ctx_mirror(RclinkCore *c)
{
    hwaddr r;

    for (r = RCLINK_DMAQ_CTX_CTRL; r <= RCLINK_DMAQ_CTX_OST; r += 8) {
        rclink_set(c, r, ctx_read(c, r));
    }
}

void rclink_dmaq_write(RclinkCore *c, const struct rclink_regdesc *d,
                       hwaddr elem, uint64_t *p, uint64_t old,
                       uint64_t wval)
{
    if (rclink_rdma_reg_write(c, d->offset, p, old)) {
        return;
    }
    if (d->offset >= RCLINK_DMAQ_CTX_CTRL &&
        d->offset <= RCLINK_DMAQ_CTX_OST) {
        ctx_write(c, d->offset, *p, wval);
        *p = ctx_read(c, d->offset);
        return;
    }
    switch (d->offset) {
    case RCLINK_DMAQ_CTX_CAP:
        *p = old;
        break;
    case RCLINK_DMAQ_CTX_SEL:
        ctx_mirror(c);
        break;
    case RCLINK_DMAQ_QP_OWNER_SEL:
        rclink_set(c, RCLINK_DMAQ_QP_OWNER, qp_owner_read(c));
        break;
    case RCLINK_DMAQ_QP_OWNER: {
        uint32_t qpn = RF_GET(RCLINK_DMAQ_QP_OWNER_SEL_QPN,
                              rclink_get(c, RCLINK_DMAQ_QP_OWNER_SEL));

        if (qpn >= c->qp_num) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ_QP_OWNER of QP %u "
                          ">= QP_NUM: dropped\n", qpn);
        } else {
            ctx_owner_write(c, &c->t1->qp_owner[qpn], *p, qpn, -1);
            /* any write clears flushed: the kernel has seen it */
            c->t1->qp_flushed[qpn] = false;
        }
        *p = qp_owner_read(c);
        break;
    }
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

        if (dmaq_size(ctx0(c), r) && *p != old) {
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
        uint32_t prod = rclink_get(c, RCLINK_DMAQ_CQ_PROD);

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
        if (d->offset == RCLINK_DMAQ_T2_OWNER(0)) {
            unsigned g = (elem - RCLINK_DMAQ_T2_OWNER(0)) / 8;

            ctx_owner_write(c, &c->t1->t2_owner[g], *p, -1, g);
            *p = c->t1->t2_owner[g];
        }
        break;
    }
}

/* Reads that show engine state: DMAQ_QPS_* of the selected QP, contexts. */
uint64_t rclink_dmaq_read(RclinkCore *c, const struct rclink_regdesc *d,
                          hwaddr elem, uint64_t v)
{
    uint32_t qpn = RF_GET(RCLINK_DMAQ_QP_STAT_SEL_QPN,
                          rclink_get(c, RCLINK_DMAQ_QP_STAT_SEL));
    int i = -1;

    if (rclink_rdma_reg_read(c, d->offset, &v)) {
        return v;
    }
    if (d->offset >= RCLINK_DMAQ_CTX_CTRL &&
        d->offset <= RCLINK_DMAQ_CTX_OST) {
        return ctx_read(c, d->offset);
    }
    if (d->offset == RCLINK_DMAQ_CTX_CAP) {
        /* the regtab's reset value is a shim without contexts */
        return RF_SET(RCLINK_DMAQ_CTX_CAP_DB_SHIFT,
                      RF_SET(RCLINK_DMAQ_CTX_CAP_NUM, v, RCLINK_CTX_NUM),
                      RCLINK_CTX_DB_SHIFT);
    }
    if (d->offset == RCLINK_DMAQ_QP_OWNER) {
        return qp_owner_read(c);
    }
    if (d->offset == RCLINK_DMAQ_T2_OWNER(0)) {
        return c->t1->t2_owner[(elem - RCLINK_DMAQ_T2_OWNER(0)) / 8];
    }
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
    RclinkT1 *t1 = c->t1;
    uint32_t i;

    QSIMPLEQ_INIT(&t1->q.t2_ost);
    t1->ctx = g_new0(RclinkCtx, RCLINK_CTX_NUM);
    t1->qp_owner = g_new0(uint16_t, c->qp_num);
    t1->qp_flushed = g_new0(bool, c->qp_num);
    for (i = 0; i < RCLINK_CTX_NUM; i++) {
        RclinkCtx *x = &t1->ctx[i];

        x->c = c;
        x->id = i;
        x->rqe = g_new0(RclinkDmaqRqe, RCLINK_DMAQ_RING_MAX);
        QSIMPLEQ_INIT(&x->held);
        QTAILQ_INIT(&x->ready);
        timer_init_ns(&x->mod_timer, QEMU_CLOCK_VIRTUAL, ctx_mod_timer, x);
    }
    timer_init_ns(&t1->hold.timer, QEMU_CLOCK_VIRTUAL, rx_hold_timer, c);
    for (i = 0; i < c->qp_num; i++) {
        QSIMPLEQ_INIT(&c->t1->qps[i].msgs);
        QSIMPLEQ_INIT(&c->t1->qps[i].done);
    }
    rclink_rdma_init(c);
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
        /* the WRITEs and READs waiting for a response among them */
        while ((m = QSIMPLEQ_FIRST(&qp->done))) {
            QSIMPLEQ_REMOVE_HEAD(&qp->done, next);
            g_free(m);
        }
        qp->nparked = 0;
        qp->park_head = NULL;
        qp->in_ready = false;
        qp->eng_off = false;
    }
    for (i = 0; i < RCLINK_CTX_NUM; i++) {
        RclinkCtx *x = &c->t1->ctx[i];

        QTAILQ_INIT(&x->ready);
        x->nparked = 0;
        x->cur = NULL;
        if (x->t2_parked) {
            g_free(x->t2_parked->t2_pl);
            g_free(x->t2_parked);
            x->t2_parked = NULL;
        }
    }
    while ((m = QSIMPLEQ_FIRST(&c->t1->q.t2_ost))) {
        QSIMPLEQ_REMOVE_HEAD(&c->t1->q.t2_ost, next);
        g_free(m->t2_pl);
        g_free(m);
    }
    c->t1->q.t2_nost = 0;
}

void rclink_dmaq_fini(RclinkCore *c)
{
    uint32_t i;

    dmaq_free_msgs(c);
    rclink_rdma_fini(c);
    timer_del(&c->t1->hold.timer);
    g_free(c->t1->hold.pl);
    for (i = 0; i < RCLINK_CTX_NUM; i++) {
        RclinkCtx *x = &c->t1->ctx[i];

        dmaq_held_free(x);
        timer_del(&x->mod_timer);
        g_free(x->rqe);
        g_free(x->chunk);
    }
    g_free(c->t1->ctx);
    g_free(c->t1->qp_owner);
    g_free(c->t1->qp_flushed);
}

/* SHIM_RESET: the queues stop, every message and counter is forgotten. */
void rclink_dmaq_reset(RclinkCore *c)
{
    uint32_t i;

    dmaq_free_msgs(c);
    rclink_rdma_reset(c);
    timer_del(&c->t1->hold.timer);
    g_free(c->t1->hold.pl);
    c->t1->hold.pl = NULL;
    c->t1->hold.on = false;
    c->t1->t2.nwait = 0;
    for (i = 0; i < RCLINK_CTX_NUM; i++) {
        RclinkCtx *x = &c->t1->ctx[i];

        dmaq_held_free(x);
        timer_del(&x->mod_timer);
        x->mod_timer_on = false;
        x->irq_pending = false;
        x->rq_cached = 0;
        memset(x->ring, 0, sizeof(x->ring));
        x->qcfg = x->dbrec = x->area_tbl = x->area_cfg = x->mod = 0;
        x->enabled = x->running = x->error = x->armed = false;
        x->cause = x->err_pending = 0;
        x->err_info = x->err_pending_info = 0;
        x->nchunks = 0;
        x->area_size = 0;
        x->rx_nobuf = x->not_owner = x->events = 0;
        x->ost_max = x->ost_used = 0;
    }
    memset(c->t1->qp_owner, 0, sizeof(uint16_t) * c->qp_num);
    memset(c->t1->qp_flushed, 0, sizeof(bool) * c->qp_num);
    memset(c->t1->t2_owner, 0, sizeof(c->t1->t2_owner));
    c->t1->q.rr = 0;
    for (i = 0; i < c->qp_num; i++) {
        memset(&c->t1->qps[i].rx, 0, sizeof(c->t1->qps[i].rx));
        memset(c->t1->qps[i].stats, 0, sizeof(c->t1->qps[i].stats));
    }
}
