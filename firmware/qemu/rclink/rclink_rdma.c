/*
 * rclink board model: one-sided RDMA WRITE and READ of the shim's queue
 * engine (Documentation/hw/shim.rst, "RDMA WRITE and READ"; seed 004's
 * WRITE_HEAD / WRITE_DATA and READ request states), carried in TYPE1
 * packets whose segment header has an RDMA KIND and an RDMA header (RDMAH)
 * after it.
 *
 * Requester: a WRITE or READ of a user context's SQ (two WQEs, the second
 * REMOTE) is a message of its QP (rclink_dmaq.c reads it); it is cut here
 * into WRITE packets (data from the context's area) or one READ_REQ packet.
 * When every packet is acknowledged it waits for its response (WRITE_RESP,
 * READ_RESP with the data) on a list in acknowledgement order, with a
 * deadline DMAQ_RDMA_CFG.timeout_us later; the response (its TAG is the
 * operation's) completes it, or the deadline does (REM_TIMEOUT) and a
 * response that comes later matches nothing and is dropped (RX_LATE).
 *
 * Responder: the registration table (DMAQ_MR_*) is checked (key, owner,
 * access, bounds) before any memory is touched; a WRITE's data is written
 * into the owner context's area by DMA with no CQE and no interrupt; a READ
 * is read at once and answered with READ_RESP messages the engine sends on
 * the same QP (they are the shim's own: no CQE at either end, no SQ).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qemu/timer.h"
#include "rclink_type1.h"
#include "trace.h"

#define RDMA_MR_NUM         256
/* largest page table of a registration of host memory (1 GiB) */
#define RDMA_MAX_PAGES      65535
#define RDMA_PAGE           4096
/*
 * Responses waiting to be cut, and bytes of READ data held by the
 * responses until acknowledged, beyond which requests are refused as for
 * want of receive buffers (the requester's transport sends them again).
 */
#define RDMA_OUT_MAX        256
#define RDMA_OUT_BYTES      (16u << 20)
#define RDMA_HDR            (RCLINK_SEG_BYTES + RCLINK_RDMAH_BYTES)

typedef struct RclinkMr {
    uint64_t base;
    uint32_t len;
    uint64_t ctrl;             /* DMAQ_MR_CTRL as written (no busy) */
    uint64_t tbl;              /* DMAQ_MR_TBL */
    uint64_t *pages;           /* pages: the table, read when made valid */
    uint32_t npages;
} RclinkMr;

/* The responder's state of a QP's WRITE being received */
typedef struct RclinkRdmaQp {
    uint16_t tx_tag;           /* requester: the next operation's TAG */
    uint16_t rx_tag;
    bool rx_open;
    bool rx_failed;            /* refused: its other packets are dropped */
    bool rx_done;              /* written in full: its IMM may come */
} RclinkRdmaQp;

typedef QTAILQ_HEAD(, RclinkDmaqMsg) RclinkMsgList;

struct RclinkRdma {
    RclinkMr mr[RDMA_MR_NUM];
    RclinkRdmaQp *qp;
    RclinkMsgList out;         /* responses to cut into packets */
    RclinkMsgList sent;        /* ... cut, their packets in flight */
    uint32_t nout;
    uint64_t out_bytes;        /* READ data held by responses */
    RclinkMsgList wait;        /* requests acknowledged, no response yet */
    QEMUTimer timer;
};

static uint64_t rdma_timeout_ns(RclinkCore *c)
{
    uint64_t us = RF_GET(RCLINK_DMAQ_RDMA_CFG_TIMEOUT_US,
                         rclink_get(c, RCLINK_DMAQ_RDMA_CFG));

    return (us ? us : 100000) * SCALE_US;
}

static unsigned rdma_cqe_kind(const RclinkDmaqMsg *m)
{
    return m->rdma == RCLINK_SEG_KIND_WRITE ? RCLINK_CQE_KIND_WRITE :
                                             RCLINK_CQE_KIND_READ;
}

/*
 * A requester's operation is decided (out of any list but its QP's done
 * list): its CQE comes when the QP's older messages have theirs.
 */
static void rdma_decide(RclinkDmaqMsg *m, uint8_t status)
{
    m->decided = true;
    m->rstatus = status;
}

/* Its CQE (rclink_dmaq.c, in the QP's order), then it is freed. */
void rclink_rdma_cqe(RclinkCore *c, RclinkDmaqMsg *m)
{
    uint8_t status = m->rstatus;

    if (status >= RCLINK_CQE_ST_REM_KEY && status <= RCLINK_CQE_ST_REM_BOUNDS) {
        rclink_count(c, RCLINK_DMAQ_RDMA_REM_ERR);
    } else if (status == RCLINK_CQE_ST_REM_TIMEOUT) {
        rclink_count(c, RCLINK_DMAQ_RDMA_TIMEOUT);
    } else if (status == RCLINK_CQE_ST_DMA_ERR && m->responded) {
        rclink_count(c, RCLINK_DMAQ_RDMA_REM_ERR);
    }
    trace_rclink_rdma_done(m->ctx->id, m->qpn, m->tag, m->rdma, status);
    rclink_dmaq_cqe(m->ctx, rdma_cqe_kind(m), m->qpn, status, m->len,
                    m->sq_idx);
    g_free(m);
}

static void rdma_timer_arm(RclinkRdma *r)
{
    RclinkDmaqMsg *m = QTAILQ_FIRST(&r->wait);

    if (m) {
        timer_mod(&r->timer, m->deadline_ns);
    } else {
        timer_del(&r->timer);
    }
}

static void rdma_timer(void *opaque)
{
    RclinkCore *c = opaque;
    RclinkRdma *r = c->t1->rdma;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    RclinkDmaqMsg *m;

    while ((m = QTAILQ_FIRST(&r->wait)) && m->deadline_ns <= now) {
        QTAILQ_REMOVE(&r->wait, m, wait_link);
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u QP %u: %s tag %u "
                      "got no response: REM_TIMEOUT\n", m->ctx->id, m->qpn,
                      m->rdma == RCLINK_SEG_KIND_WRITE ? "WRITE" : "READ",
                      m->tag);
        rdma_decide(m, RCLINK_CQE_ST_REM_TIMEOUT);
        rclink_dmaq_qp_complete(c, m->qpn);
    }
    rdma_timer_arm(r);
}

/*
 * The engine is done with a message of an RDMA kind (every packet
 * acknowledged, or flushed): a request waits for its response unless it
 * failed or the response came first.  The caller puts it on its QP's done
 * list and writes the CQEs that are due.
 */
void rclink_rdma_msg_done(RclinkCore *c, RclinkDmaqMsg *m)
{
    RclinkRdma *r = c->t1->rdma;

    if (m->status != RCLINK_CQE_ST_OK) {
        rdma_decide(m, m->status);
        return;
    }
    if (m->responded) {
        rdma_decide(m, m->rstatus);
        return;
    }
    m->deadline_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                     rdma_timeout_ns(c);
    QTAILQ_INSERT_TAIL(&r->wait, m, wait_link);
    if (QTAILQ_FIRST(&r->wait) == m) {
        rdma_timer_arm(r);
    }
}

/* The TAG of a new request of the QP. */
uint16_t rclink_rdma_tag(RclinkCore *c, uint32_t qpn)
{
    return c->t1->rdma->qp[qpn].tx_tag++;
}

uint32_t rclink_rdma_max_len(RclinkCore *c)
{
    return RF_GET(RCLINK_DMAQ_CAP_MAX_MSG, rclink_get(c, RCLINK_DMAQ_CAP));
}

static bool rdma_mr_dma(RclinkCore *c, RclinkCtx *x, RclinkMr *mr,
                        uint64_t off, uint8_t *buf, uint64_t len, bool write);

/*
 * Context x's own registration lkey, valid (any rights: local access
 * needs none), or NULL
 */
static RclinkMr *rdma_lkey_mr(RclinkCore *c, RclinkCtx *x, uint32_t lkey)
{
    uint32_t idx = RF_GET(RCLINK_MR_KEY_INDEX, lkey);
    RclinkMr *mr = idx < RDMA_MR_NUM ? &c->t1->rdma->mr[idx] : NULL;

    if (!x->id || !mr || !(mr->ctrl & RCLINK_DMAQ_MR_CTRL_VALID) ||
        RF_GET(RCLINK_DMAQ_MR_CTRL_GEN, mr->ctrl) !=
        RF_GET(RCLINK_MR_KEY_GEN, lkey) ||
        RF_GET(RCLINK_DMAQ_MR_CTRL_CTX, mr->ctrl) != x->id ||
        (!mr->pages && (mr->base > x->area_size ||
                        mr->len > x->area_size - mr->base))) {
        return NULL;
    }
    return mr;
}

/*
 * A WRITE's or READ's local range [off, off + len) in context x's
 * registration lkey (the WQE checks of rclink_dmaq.c)
 */
bool rclink_rdma_lkey_ok(RclinkCore *c, RclinkCtx *x, uint32_t lkey,
                         uint64_t off, uint64_t len)
{
    RclinkMr *mr = rdma_lkey_mr(c, x, lkey);

    return mr && off <= mr->len && len <= mr->len - off;
}

/*
 * DMA of [off, off + len) of a request's local memory: its WQE pieces (a
 * user context's one area range, or context 0's bus address pieces), or
 * with a local key the range of that registration, which must still be
 * there: invalidated meanwhile, nothing more is read or written.
 */
static bool rdma_local_dma(RclinkDmaqMsg *m, uint64_t off, uint8_t *buf,
                           uint64_t len, bool write)
{
    uint32_t i;

    if (m->lkey_en) {
        RclinkCore *c = m->ctx->c;
        RclinkMr *mr = rdma_lkey_mr(c, m->ctx, m->lkey);

        if (!mr || !rclink_rdma_lkey_ok(c, m->ctx, m->lkey,
                                        m->pieces[0].addr + off, len)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: context %u: local "
                          "registration 0x%x of a WRITE or READ went "
                          "away\n", m->ctx->id, m->lkey);
            return false;
        }
        return rdma_mr_dma(c, m->ctx, mr, m->pieces[0].addr + off, buf, len,
                           write);
    }

    for (i = 0; i < m->npieces && len; i++) {
        RclinkDmaqPiece *p = &m->pieces[i];
        uint64_t n;

        if (off >= p->len) {
            off -= p->len;
            continue;
        }
        n = MIN(len, p->len - off);
        if (!rclink_ctx_dma(m->ctx, p->addr + off, buf, n, write)) {
            return false;
        }
        buf += n;
        len -= n;
        off = 0;
    }
    return !len;
}

/* A response of the shim's is done: every packet acknowledged or flushed */
static void rdma_internal_free(RclinkRdma *r, RclinkDmaqMsg *m)
{
    QTAILQ_REMOVE(&r->sent, m, wait_link);
    r->out_bytes -= m->len;
    g_free(m);
}

/*
 * Cut an RDMA message into packets while slots are free (as
 * dmaq_msg_cut() does a SEND).  WRITE and READ_RESP carry up to
 * RDMAH_PKT_DATA bytes each; READ_REQ and WRITE_RESP are one packet.
 */
bool rclink_rdma_cut(RclinkCore *c, RclinkDmaqMsg *m)
{
    RclinkT1 *t1 = c->t1;
    bool data = m->rdma == RCLINK_SEG_KIND_WRITE ||
                m->rdma == RCLINK_SEG_KIND_READ_RESP;

    while (!m->npkts || (data && m->off < m->len) ||
           (m->has_imm && !m->imm_sent)) {
        /* a WRITE with immediate data: one IMM packet after the data */
        bool imm = m->npkts && m->off == m->len && m->has_imm;
        uint32_t dlen = data && !imm ?
                        MIN(RCLINK_RDMAH_PKT_DATA, m->len - m->off) : 0;
        bool first = !m->npkts || imm;
        bool last = !data || imm || m->off + dlen == m->len;
        RclinkT1Slot *sl;
        uint64_t seg, w0;
        int s;

        if (!rclink_t1_active(c) || !rclink_t1_qp_enabled(c, m->qpn)) {
            /* not sent: the operation (response) is flushed */
            m->status = MAX(m->status, RCLINK_CQE_ST_FLUSHED);
            break;
        }
        if (!t1->nfree) {
            return false;
        }
        if (m->ctx->ost_max && m->ctx->ost_used >= m->ctx->ost_max) {
            return false;
        }
        s = rclink_t1_slot_alloc(c);
        sl = &t1->slots[s];
        if (dlen) {
            if (m->data) {
                memcpy(sl->payload + RDMA_HDR, m->data + m->off, dlen);
            } else if (!rdma_local_dma(m, m->off, sl->payload + RDMA_HDR,
                                       dlen, false)) {
                rclink_t1_slot_put(c, s);
                m->status = MAX(m->status, RCLINK_CQE_ST_DMA_ERR);
                break;
            }
        }
        seg = RF_SET(RCLINK_SEG_POS, 0,
                     first ? (last ? RCLINK_SEG_ONLY : RCLINK_SEG_FIRST)
                           : (last ? RCLINK_SEG_LAST : RCLINK_SEG_MIDDLE));
        seg = RF_SET(RCLINK_SEG_KIND, seg, imm ? RCLINK_SEG_KIND_IMM : m->rdma);
        seg = RF_SET(RCLINK_SEG_OFFSET, seg, imm ? 0 : m->off);
        seg = RF_SET(RCLINK_SEG_MSG_LEN, seg, m->len);
        w0 = RF_SET(RCLINK_RDMAH_KEY, 0, imm ? m->imm : m->rkey);
        w0 = RF_SET(RCLINK_RDMAH_TAG, w0, m->tag);
        w0 = RF_SET(RCLINK_RDMAH_STATUS, w0, m->rstatus);
        stq_le_p(sl->payload, seg);
        stq_le_p(sl->payload + RCLINK_SEG_BYTES, w0);
        stq_le_p(sl->payload + RCLINK_SEG_BYTES + 8, m->raddr);
        sl->qpn = m->qpn;
        sl->len = RDMA_HDR + dlen;
        if (sl->len < RCLINK_SEG_PKT_MIN) {
            memset(sl->payload + sl->len, 0, RCLINK_SEG_PKT_MIN - sl->len);
            sl->len = RCLINK_SEG_PKT_MIN;
        }
        /*
         * The last packet of a request is acknowledged at once; a
         * response's is not: a FACK'd packet's ACK echoes its timestamp,
         * which makes a RECV_ACK event record (an interrupt) at the
         * responder, whose CPU must do nothing per operation.
         */
        sl->fack = last && !m->internal && (imm || !m->has_imm);
        sl->msg = m;
        m->outstanding++;
        m->ctx->ost_used++;
        m->off += dlen;
        m->npkts++;
        m->imm_sent |= imm;
        trace_rclink_rdma_pkt(m->qpn, imm ? RCLINK_SEG_KIND_IMM : m->rdma,
                              m->tag, m->off - dlen, dlen);
        rclink_t1_submit(c, s);
    }
    m->all_submitted = true;
    if (!m->outstanding) {
        if (m->internal) {
            rdma_internal_free(c->t1->rdma, m);
        } else {
            rclink_dmaq_qp_complete(c, m->qpn);
        }
    }
    return true;
}

/* A credit of one of the responder's messages returned. */
void rclink_rdma_credit(RclinkCore *c, RclinkDmaqMsg *m)
{
    if (m->all_submitted && !m->outstanding) {
        rdma_internal_free(c->t1->rdma, m);
    }
}

/* The engine's turn: cut the responses waiting, oldest first. */
void rclink_rdma_run(RclinkCore *c)
{
    RclinkRdma *r = c->t1->rdma;
    RclinkDmaqMsg *m;

    while ((m = QTAILQ_FIRST(&r->out))) {
        if (c->t1->qps[m->qpn].eng_off) {
            return;             /* the rate control masked the QP: waits */
        }
        QTAILQ_REMOVE(&r->out, m, wait_link);
        QTAILQ_INSERT_TAIL(&r->sent, m, wait_link);
        if (!rclink_rdma_cut(c, m)) {
            /* no slot: first again */
            QTAILQ_REMOVE(&r->sent, m, wait_link);
            QTAILQ_INSERT_HEAD(&r->out, m, wait_link);
            return;
        }
        r->nout--;
    }
}

/* Queue a response of the shim on the QP (data: READ_RESP's, or NULL). */
static RclinkDmaqMsg *rdma_respond(RclinkCore *c, uint32_t qpn, unsigned kind,
                                   uint16_t tag, uint8_t status, uint32_t len)
{
    RclinkRdma *r = c->t1->rdma;
    RclinkDmaqMsg *m = g_malloc0(sizeof(*m) + sizeof(m->pieces[0]) + len);

    m->ctx = &c->t1->ctx[0];
    m->qpn = qpn;
    m->len = len;
    m->rdma = kind;
    m->internal = true;
    m->tag = tag;
    m->rstatus = status;
    m->data = len ? (uint8_t *)(m->pieces + 1) : NULL;
    QTAILQ_INSERT_TAIL(&r->out, m, wait_link);
    r->nout++;
    r->out_bytes += len;
    trace_rclink_rdma_respond(qpn, kind, tag, status, len);
    rclink_t1_kick(c);
    return m;
}

/*
 * The responder's checks of a request on QP qpn for [raddr, raddr + len)
 * of the registration key names: OK with the owner context and the area
 * offset of raddr, or the status it is refused with (counted).
 */
static uint8_t rdma_check(RclinkCore *c, uint32_t qpn, uint32_t key,
                          uint64_t raddr, uint64_t len, bool write,
                          RclinkCtx **px, RclinkMr **pmr)
{
    RclinkRdma *r = c->t1->rdma;
    uint32_t idx = RF_GET(RCLINK_MR_KEY_INDEX, key);
    RclinkMr *mr = idx < RDMA_MR_NUM ? &r->mr[idx] : NULL;
    RclinkCtx *x = NULL;
    const char *why = NULL;
    uint8_t st = RCLINK_CQE_ST_REM_KEY;
    hwaddr counter = RCLINK_DMAQ_RDMA_RX_BAD_KEY;

    if (!mr || !(mr->ctrl & RCLINK_DMAQ_MR_CTRL_VALID)) {
        why = "no such registration";
    } else if (RF_GET(RCLINK_DMAQ_MR_CTRL_GEN, mr->ctrl) !=
               RF_GET(RCLINK_MR_KEY_GEN, key)) {
        why = "stale key (generation)";
    } else if (RF_GET(RCLINK_DMAQ_MR_CTRL_CTX, mr->ctrl) !=
               c->t1->qp_owner[qpn] ||
               RF_GET(RCLINK_DMAQ_MR_CTRL_CTX, mr->ctrl) >= RCLINK_CTX_NUM) {
        why = "registration of another context than the QP's";
    } else if ((mr->ctrl & RCLINK_DMAQ_MR_CTRL_QP_ONLY) &&
               RF_GET(RCLINK_DMAQ_MR_CTRL_QPN, mr->ctrl) != qpn) {
        why = "registration of another QP";
    } else {
        x = &c->t1->ctx[RF_GET(RCLINK_DMAQ_MR_CTRL_CTX, mr->ctrl)];
        if (x->id && !x->running) {
            why = "owner context not running";
        } else if (!(mr->ctrl & (write ? RCLINK_DMAQ_MR_CTRL_REMOTE_WRITE :
                                         RCLINK_DMAQ_MR_CTRL_REMOTE_READ))) {
            why = write ? "no remote write right" : "no remote read right";
            st = RCLINK_CQE_ST_REM_ACCESS;
            counter = RCLINK_DMAQ_RDMA_RX_ACCESS;
        } else if (raddr > mr->len || len > mr->len - raddr ||
                   (!mr->pages && (mr->base > x->area_size ||
                                   mr->len > x->area_size - mr->base))) {
            why = "range outside the registration";
            st = RCLINK_CQE_ST_REM_BOUNDS;
            counter = RCLINK_DMAQ_RDMA_RX_BOUNDS;
        }
    }
    if (why) {
        rclink_count(c, counter);
        trace_rclink_rdma_refused(qpn, key, raddr, len, why);
        return st;
    }
    *px = x;
    *pmr = mr;
    return RCLINK_CQE_ST_OK;
}

/*
 * DMA of [off, off + len) of a registration (checked): its owner's area,
 * or its pages.  A failure of a page's DMA fails the operation only.
 */
static bool rdma_mr_dma(RclinkCore *c, RclinkCtx *x, RclinkMr *mr,
                        uint64_t off, uint8_t *buf, uint64_t len, bool write)
{
    uint64_t a = mr->base + off;

    if (!mr->pages) {
        return rclink_ctx_dma(x, a, buf, len, write);
    }
    while (len) {
        uint64_t in = a & (RDMA_PAGE - 1);
        uint64_t n = MIN(len, RDMA_PAGE - in);
        dma_addr_t bus = mr->pages[a / RDMA_PAGE] + in;

        if ((write ? rclink_dma_write(c, bus, buf, n)
                   : rclink_dma_read(c, bus, buf, n)) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: registration page DMA "
                          "at 0x%" PRIx64 " failed\n", (uint64_t)bus);
            return false;
        }
        a += n;
        buf += n;
        len -= n;
    }
    return true;
}

/*
 * The requester's operation a response of the QP with this TAG is for:
 * waiting for it (the wait list is in deadline order, not the QP's), or
 * the oldest not answered of those still sending.
 */
static RclinkDmaqMsg *rdma_find(RclinkCore *c, uint32_t qpn, uint16_t tag,
                                bool *waiting)
{
    RclinkDmaqMsg *m;

    QTAILQ_FOREACH(m, &c->t1->rdma->wait, wait_link) {
        if (m->qpn == qpn && m->tag == tag) {
            *waiting = true;
            return m;
        }
    }
    *waiting = false;
    QSIMPLEQ_FOREACH(m, &c->t1->qps[qpn].msgs, next) {
        if (m->rdma && !m->responded) {
            return m;
        }
    }
    return NULL;
}

static void rdma_rx_resp(RclinkCore *c, uint32_t qpn, unsigned kind,
                         unsigned pos, uint32_t off, uint32_t mlen,
                         uint16_t tag, uint8_t status, const uint8_t *data,
                         uint32_t dlen)
{
    RclinkRdma *r = c->t1->rdma;
    bool waiting, ends = pos == RCLINK_SEG_ONLY || pos == RCLINK_SEG_LAST;
    RclinkDmaqMsg *m = rdma_find(c, qpn, tag, &waiting);

    if (!m || m->tag != tag ||
        (kind == RCLINK_SEG_KIND_WRITE_RESP) !=
        (m->rdma == RCLINK_SEG_KIND_WRITE)) {
        rclink_count(c, RCLINK_DMAQ_RDMA_RX_LATE);
        trace_rclink_rdma_late(qpn, kind, tag);
        return;
    }
    if (kind == RCLINK_SEG_KIND_READ_RESP && status == RCLINK_CQE_ST_OK) {
        if (mlen != m->len || off != m->piece_off || dlen > mlen - off ||
            (ends && off + dlen != mlen)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: QP %u: READ_RESP tag %u "
                          "offset %u length %u of %u does not fit the READ "
                          "of %u: DMA_ERR\n", qpn, tag, off, dlen, mlen,
                          m->len);
            status = RCLINK_CQE_ST_DMA_ERR;
        } else if (dlen && ((m->ctx->id && !m->ctx->running) ||
                            !rdma_local_dma(m, off, (uint8_t *)data, dlen,
                                            true))) {
            status = RCLINK_CQE_ST_DMA_ERR;
        } else {
            m->piece_off += dlen;
            if (!ends) {
                if (waiting) {
                    /* progress: the timeout counts from this packet */
                    QTAILQ_REMOVE(&r->wait, m, wait_link);
                    m->deadline_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                     rdma_timeout_ns(c);
                    QTAILQ_INSERT_TAIL(&r->wait, m, wait_link);
                    rdma_timer_arm(r);
                }
                return;
            }
        }
    }
    m->responded = true;
    m->rstatus = status;
    if (waiting) {
        QTAILQ_REMOVE(&r->wait, m, wait_link);
        rdma_decide(m, status);
        rdma_timer_arm(r);
        rclink_dmaq_qp_complete(c, qpn);
    }
}

/*
 * An in-order TYPE1 packet of an RDMA kind on QP qpn (the engine's receive
 * side; dry_run: only whether it can be taken).
 */
bool rclink_rdma_rx(RclinkCore *c, uint32_t qpn, const uint8_t *pl,
                    size_t len, bool dry_run)
{
    RclinkRdma *r = c->t1->rdma;
    RclinkRdmaQp *q = &r->qp[qpn];
    uint64_t seg = ldq_le_p(pl);
    unsigned kind = RF_GET(RCLINK_SEG_KIND, seg);
    unsigned pos = RF_GET(RCLINK_SEG_POS, seg);
    uint32_t off = RF_GET(RCLINK_SEG_OFFSET, seg);
    uint32_t mlen = RF_GET(RCLINK_SEG_MSG_LEN, seg);
    uint64_t w0, raddr;
    uint32_t key, dlen;
    uint16_t tag;
    uint8_t st;
    bool start = pos == RCLINK_SEG_ONLY || pos == RCLINK_SEG_FIRST;
    bool ends = pos == RCLINK_SEG_ONLY || pos == RCLINK_SEG_LAST;
    RclinkCtx *x = NULL;
    RclinkMr *mr = NULL;

    if (dry_run) {
        /* a request may need a response queued (a READ, its data too) */
        if (kind == RCLINK_SEG_KIND_READ_RESP ||
            kind == RCLINK_SEG_KIND_WRITE_RESP) {
            return true;
        }
        if (kind == RCLINK_SEG_KIND_IMM) {
            /* delivered (an RQE and a CQE) only after its WRITE */
            uint64_t h = len >= RDMA_HDR ? ldq_le_p(pl + RCLINK_SEG_BYTES) : 0;

            return !(q->rx_done && q->rx_tag == RF_GET(RCLINK_RDMAH_TAG, h) &&
                     c->t1->qp_owner[qpn]) ||
                   rclink_dmaq_rx_imm(c, qpn, 0, 0, true);
        }
        return r->nout < RDMA_OUT_MAX &&
               (kind != RCLINK_SEG_KIND_READ_REQ || !r->out_bytes ||
                r->out_bytes + mlen <= RDMA_OUT_BYTES);
    }
    if (len < RDMA_HDR || kind > RCLINK_SEG_KIND_IMM ||
        off > mlen) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: QP %u: RDMA packet kind %u "
                      "of %zu bytes malformed: dropped\n", qpn, kind, len);
        rclink_count(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED);
        return true;
    }
    w0 = ldq_le_p(pl + RCLINK_SEG_BYTES);
    raddr = ldq_le_p(pl + RCLINK_SEG_BYTES + 8);
    key = RF_GET(RCLINK_RDMAH_KEY, w0);
    tag = RF_GET(RCLINK_RDMAH_TAG, w0);
    st = RF_GET(RCLINK_RDMAH_STATUS, w0);
    dlen = MIN(len - RDMA_HDR, mlen - off);
    trace_rclink_rdma_rx(qpn, kind, pos, tag, off, dlen);

    switch (kind) {
    case RCLINK_SEG_KIND_IMM:
        if (!q->rx_done || q->rx_tag != tag) {
            /* its WRITE was refused (or never came): no completion */
            trace_rclink_rdma_late(qpn, kind, tag);
            return true;
        }
        if (!c->t1->qp_owner[qpn]) {
            /*
             * the kernel's QP (a ring's registration, or its context
             * went): context 0 takes no RECV_IMM; the data stays
             */
            q->rx_done = false;
            rclink_count(c, RCLINK_DMAQ_RDMA_RX_IMM_DROP);
            trace_rclink_rdma_late(qpn, kind, tag);
            return true;
        }
        q->rx_done = false;
        rclink_dmaq_rx_imm(c, qpn, key, mlen, false);
        return true;
    case RCLINK_SEG_KIND_READ_RESP:
    case RCLINK_SEG_KIND_WRITE_RESP:
        rdma_rx_resp(c, qpn, kind, pos, off, mlen, tag, st,
                     pl + RDMA_HDR, kind == RCLINK_SEG_KIND_READ_RESP ?
                     dlen : 0);
        return true;
    case RCLINK_SEG_KIND_READ_REQ:
        if (rclink_get(c, RCLINK_DMAQ_RDMA_CFG) &
            RCLINK_DMAQ_RDMA_CFG_RESP_SILENT) {
            rclink_count(c, RCLINK_DMAQ_RDMA_RX_SILENT);
            return true;
        }
        if (mlen > rclink_rdma_max_len(c)) {
            st = RCLINK_CQE_ST_REM_BOUNDS;
            rclink_count(c, RCLINK_DMAQ_RDMA_RX_BOUNDS);
        } else {
            st = rdma_check(c, qpn, key, raddr, mlen, false, &x, &mr);
        }
        if (st == RCLINK_CQE_ST_OK) {
            RclinkDmaqMsg *m = rdma_respond(c, qpn, RCLINK_SEG_KIND_READ_RESP,
                                            tag, st, mlen);

            if (!rdma_mr_dma(c, x, mr, raddr, (uint8_t *)(m->pieces + 1),
                             mlen, false)) {
                /* the data could not be read: the READ fails, no data */
                m->rstatus = RCLINK_CQE_ST_DMA_ERR;
                r->out_bytes -= m->len;
                m->len = 0;
                m->data = NULL;
                return true;
            }
            rclink_count(c, RCLINK_DMAQ_RDMA_RX_READ);
        } else {
            rdma_respond(c, qpn, RCLINK_SEG_KIND_READ_RESP, tag, st, 0);
        }
        return true;
    default:        /* WRITE */
        if (rclink_get(c, RCLINK_DMAQ_RDMA_CFG) &
            RCLINK_DMAQ_RDMA_CFG_RESP_SILENT) {
            rclink_count(c, RCLINK_DMAQ_RDMA_RX_SILENT);
            return true;
        }
        if (start) {
            q->rx_open = true;
            q->rx_failed = false;
            q->rx_done = false;
            q->rx_tag = tag;
        } else if (!q->rx_open || q->rx_tag != tag) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: QP %u: WRITE packet tag "
                          "%u pos %u outside a WRITE: dropped\n", qpn, tag,
                          pos);
            rclink_count(c, RCLINK_DMAQ_T1_RX_DROP_MALFORMED);
            return true;
        }
        if (!q->rx_failed) {
            if (mlen > rclink_rdma_max_len(c)) {
                st = RCLINK_CQE_ST_REM_BOUNDS;
                rclink_count(c, RCLINK_DMAQ_RDMA_RX_BOUNDS);
            } else {
                st = rdma_check(c, qpn, key, raddr, mlen, true, &x, &mr);
            }
            if (st == RCLINK_CQE_ST_OK && dlen &&
                !rdma_mr_dma(c, x, mr, raddr + off, (uint8_t *)(pl + RDMA_HDR),
                             dlen, true)) {
                st = RCLINK_CQE_ST_DMA_ERR;
            }
            if (st != RCLINK_CQE_ST_OK) {
                q->rx_failed = true;
                rdma_respond(c, qpn, RCLINK_SEG_KIND_WRITE_RESP, tag, st, 0);
            } else if (ends) {
                rclink_count(c, RCLINK_DMAQ_RDMA_RX_WRITE);
                rdma_respond(c, qpn, RCLINK_SEG_KIND_WRITE_RESP, tag, st, 0);
                q->rx_done = true;
            }
        }
        if (ends) {
            q->rx_open = false;
        }
        return true;
    }
}

/*
 * A user context stops: its requests waiting for a response are decided
 * FLUSHED, with the messages behind them (a stopped context gets no CQE).
 */
void rclink_rdma_ctx_stop(RclinkCtx *x)
{
    RclinkCore *c = x->c;
    RclinkRdma *r = c->t1->rdma;
    RclinkDmaqMsg *m, *n;
    uint32_t i;

    /*
     * the IMM of a WRITE its QPs received makes no completion any more
     * (a WRITE still arriving is refused by the key checks: REM_KEY)
     */
    for (i = 0; i < c->qp_num; i++) {
        if (c->t1->qp_owner[i] == x->id) {
            r->qp[i].rx_done = false;
        }
    }
    QTAILQ_FOREACH_SAFE(m, &r->wait, wait_link, n) {
        if (m->ctx == x) {
            QTAILQ_REMOVE(&r->wait, m, wait_link);
            rdma_decide(m, RCLINK_CQE_ST_FLUSHED);
            /* frees only decided messages: none still on the wait list */
            rclink_dmaq_qp_complete(c, m->qpn);
        }
    }
    rdma_timer_arm(r);
}

/* ----------------------------------------------------------- registers */

static void rdma_mr_mirror(RclinkCore *c)
{
    uint32_t idx = RF_GET(RCLINK_DMAQ_MR_SEL_IDX,
                          rclink_get(c, RCLINK_DMAQ_MR_SEL));
    RclinkMr *mr = idx < RDMA_MR_NUM ? &c->t1->rdma->mr[idx] : NULL;

    rclink_set(c, RCLINK_DMAQ_MR_BASE, mr ? mr->base : 0);
    rclink_set(c, RCLINK_DMAQ_MR_LEN, mr ? mr->len : 0);
    rclink_set(c, RCLINK_DMAQ_MR_CTRL, mr ? mr->ctrl : 0);
    rclink_set(c, RCLINK_DMAQ_MR_TBL, mr ? mr->tbl : 0);
}

static void rdma_mr_pages_free(RclinkMr *mr)
{
    g_free(mr->pages);
    mr->pages = NULL;
    mr->npages = 0;
}

/* valid written 1 with pages: the page table, read now; false if bad */
static bool rdma_mr_pages_read(RclinkCore *c, uint32_t idx, RclinkMr *mr)
{
    uint64_t n = (mr->base + mr->len + RDMA_PAGE - 1) / RDMA_PAGE;
    const char *why = NULL;
    uint32_t i;

    if (mr->base >= RDMA_PAGE) {
        why = "BASE beyond the first page";
    } else if (n > RDMA_MAX_PAGES) {
        why = "more pages than DMAQ_MR_CAP.max_pages";
    } else if (mr->tbl & (RDMA_PAGE - 1)) {
        why = "page table not 4 KiB aligned";
    } else {
        mr->pages = g_new(uint64_t, n);
        mr->npages = n;
        if (rclink_dma_read(c, mr->tbl, mr->pages,
                         n * sizeof(uint64_t)) != MEMTX_OK) {
            why = "page table unreadable";
        }
        for (i = 0; !why && i < n; i++) {
            mr->pages[i] = le64_to_cpu(mr->pages[i]);
            if (mr->pages[i] & (RDMA_PAGE - 1)) {
                why = "page not 4 KiB aligned";
            }
        }
    }
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: registration %u of host "
                      "memory (table 0x%" PRIx64 ", %u bytes at %" PRIu64
                      "): %s: not valid\n", idx, mr->tbl, mr->len, mr->base,
                      why);
        rdma_mr_pages_free(mr);
        return false;
    }
    return true;
}

/* A write of a DMAQ_MR_* register (*p as written, old before). */
bool rclink_rdma_reg_write(RclinkCore *c, hwaddr reg, uint64_t *p,
                           uint64_t old)
{
    uint32_t idx = RF_GET(RCLINK_DMAQ_MR_SEL_IDX,
                          rclink_get(c, RCLINK_DMAQ_MR_SEL));
    RclinkMr *mr = idx < RDMA_MR_NUM ? &c->t1->rdma->mr[idx] : NULL;

    switch (reg) {
    case RCLINK_DMAQ_MR_CAP:
        *p = old;
        return true;
    case RCLINK_DMAQ_MR_SEL:
        rdma_mr_mirror(c);
        return true;
    case RCLINK_DMAQ_MR_BASE:
    case RCLINK_DMAQ_MR_LEN:
    case RCLINK_DMAQ_MR_TBL:
        if (!mr || (mr->ctrl & RCLINK_DMAQ_MR_CTRL_VALID)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ_MR_%s of entry %u "
                          "written while %s: dropped\n",
                          reg == RCLINK_DMAQ_MR_BASE ? "BASE" :
                          reg == RCLINK_DMAQ_MR_LEN ? "LEN" : "TBL", idx,
                          mr ? "valid" : "beyond DMAQ_MR_CAP.num");
            *p = old;
            return true;
        }
        if (reg == RCLINK_DMAQ_MR_BASE) {
            mr->base = *p;
        } else if (reg == RCLINK_DMAQ_MR_LEN) {
            mr->len = *p & RCLINK_DMAQ_MR_LEN_LEN;
        } else {
            mr->tbl = *p;
        }
        return true;
    case RCLINK_DMAQ_MR_CTRL:
        if (!mr) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: DMAQ_MR_CTRL of entry %u "
                          "beyond DMAQ_MR_CAP.num: dropped\n", idx);
            *p = 0;
            return true;
        }
        rdma_mr_pages_free(mr);
        mr->ctrl = *p & ~RCLINK_DMAQ_MR_CTRL_BUSY;
        if ((mr->ctrl & RCLINK_DMAQ_MR_CTRL_VALID) && !mr->len) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: registration %u made "
                          "valid with length 0: not valid\n", idx);
            mr->ctrl &= ~RCLINK_DMAQ_MR_CTRL_VALID;
        }
        if ((mr->ctrl & RCLINK_DMAQ_MR_CTRL_VALID) &&
            !RF_GET(RCLINK_DMAQ_MR_CTRL_CTX, mr->ctrl) &&
            (!(mr->ctrl & RCLINK_DMAQ_MR_CTRL_PAGES) ||
             !(mr->ctrl & RCLINK_DMAQ_MR_CTRL_QP_ONLY))) {
            /* context 0 has no area, and owns every kernel QP */
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: registration %u of "
                          "context 0 without pages and qp_only: not "
                          "valid\n", idx);
            mr->ctrl &= ~RCLINK_DMAQ_MR_CTRL_VALID;
        }
        if ((mr->ctrl & RCLINK_DMAQ_MR_CTRL_VALID) &&
            (mr->ctrl & RCLINK_DMAQ_MR_CTRL_PAGES) &&
            !rdma_mr_pages_read(c, idx, mr)) {
            mr->ctrl &= ~RCLINK_DMAQ_MR_CTRL_VALID;
        }
        trace_rclink_rdma_mr(idx, mr->base, mr->len, mr->ctrl);
        /* busy: the model serves a request at once, never after */
        *p = mr->ctrl;
        return true;
    }
    return false;
}

bool rclink_rdma_reg_read(RclinkCore *c, hwaddr reg, uint64_t *v)
{
    if (reg == RCLINK_DMAQ_MR_CAP) {
        *v = RF_SET(RCLINK_DMAQ_MR_CAP_NUM, 0, RDMA_MR_NUM);
        *v = RF_SET(RCLINK_DMAQ_MR_CAP_MAX_LEN, *v, rclink_rdma_max_len(c));
        *v = RF_SET(RCLINK_DMAQ_MR_CAP_MAX_PAGES, *v, RDMA_MAX_PAGES);
        return true;
    }
    return false;
}

/* --------------------------------------------------------------- setup */

void rclink_rdma_init(RclinkCore *c)
{
    RclinkRdma *r = g_new0(RclinkRdma, 1);

    r->qp = g_new0(RclinkRdmaQp, c->qp_num);
    QTAILQ_INIT(&r->out);
    QTAILQ_INIT(&r->sent);
    QTAILQ_INIT(&r->wait);
    timer_init_ns(&r->timer, QEMU_CLOCK_VIRTUAL, rdma_timer, c);
    c->t1->rdma = r;
}

static void rdma_free_list(RclinkMsgList *l)
{
    RclinkDmaqMsg *m;

    while ((m = QTAILQ_FIRST(l))) {
        QTAILQ_REMOVE(l, m, wait_link);
        g_free(m);
    }
}

/* SHIM_RESET (after the slots were emptied): everything is forgotten. */
void rclink_rdma_reset(RclinkCore *c)
{
    RclinkRdma *r = c->t1->rdma;
    uint32_t i;

    timer_del(&r->timer);
    rdma_free_list(&r->out);
    rdma_free_list(&r->sent);
    /* on their QPs' done lists too: freed there (rclink_dmaq.c) */
    QTAILQ_INIT(&r->wait);
    r->nout = 0;
    r->out_bytes = 0;
    for (i = 0; i < RDMA_MR_NUM; i++) {
        rdma_mr_pages_free(&r->mr[i]);
    }
    memset(r->mr, 0, sizeof(r->mr));
    memset(r->qp, 0, sizeof(r->qp[0]) * c->qp_num);
}

void rclink_rdma_fini(RclinkCore *c)
{
    RclinkRdma *r = c->t1->rdma;

    rclink_rdma_reset(c);
    g_free(r->qp);
    g_free(r);
    c->t1->rdma = NULL;
}
