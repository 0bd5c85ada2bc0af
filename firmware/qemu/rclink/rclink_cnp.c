/*
 * rclink board model: the congestion side of the IP's CC interface (seed 000,
 * 显式拥塞通知 (ECN), CNP MERGE, 流量控制接口 RECV_CNP / NOCNP_TIMER;
 * Documentation/hw/shim.rst, "ECN and CNP").
 *
 * The responder answers every REQ that arrives marked CE with a CNP
 * (rclink_type1.c).  Here the requester's side: a CNP for a QP passes the
 * CNP merge (an 8-entry QPID buffer: a QP whose last passed CNP is at most
 * CNP_CFG.timer_thr_us old is filtered, DMAQ_T1_CNP_MERGED) and becomes a
 * RECV_CNP event record; it clears the QP's NOCNP byte counter.  With
 * CNP_CFG.nocnp_en every period of nocnp_interval + 1 us each QP that sent
 * REQ bytes since its last report or CNP gets a NOCNP record with the count.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "rclink_type1.h"
#include "trace.h"

static void rclink_nocnp_forget(RclinkT1 *t1, RclinkT1Qp *q)
{
    if (q->in_nocnp) {
        QTAILQ_REMOVE(&t1->nocnp, q, nocnp_link);
        q->in_nocnp = false;
    }
    q->nocnp_bytes = 0;
}

/* The CNP merge (data_filter): true when the CNP passes. */
static bool rclink_cnp_merge(RclinkCore *c, uint32_t qpn)
{
    RclinkT1 *t1 = c->t1;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t thr = (int64_t)RF_GET(RCLINK_CNP_CFG_TIMER_THR_US,
                                  rclink_get(c, RCLINK_CNP_CFG)) * SCALE_US;
    unsigned i;

    if (!(rclink_get(c, RCLINK_RC_MISC_CFG) &
          RCLINK_RC_MISC_CFG_CNP_MERGE_EN)) {
        return true;
    }
    for (i = 0; i < RCLINK_CNP_BUF_N; i++) {
        if (t1->cnp_buf[i].used && t1->cnp_buf[i].qpn == qpn) {
            if (now - t1->cnp_buf[i].ns <= thr) {
                return false;
            }
            t1->cnp_buf[i].ns = now;
            return true;
        }
    }
    /* Not in the buffer: it passes and takes the next entry. */
    i = t1->cnp_next;
    t1->cnp_next = (i + 1) % RCLINK_CNP_BUF_N;
    t1->cnp_buf[i].used = true;
    t1->cnp_buf[i].qpn = qpn;
    t1->cnp_buf[i].ns = now;
    return true;
}

/* A CNP for QP q arrived from the wire (its RH checked by the caller). */
void rclink_cnp_rx(RclinkCore *c, RclinkT1Qp *q)
{
    bool pass;

    rclink_qps_add(c, q->qpn, RCLINK_QPS_CNP_RX, 1);
    rclink_nocnp_forget(c->t1, q);
    pass = rclink_cnp_merge(c, q->qpn);
    trace_rclink_cnp_rx(q->qpn, pass);
    if (!pass) {
        rclink_count(c, RCLINK_DMAQ_T1_CNP_MERGED);
        return;
    }
    rclink_event(c, RCLINK_EVT_SRC_RECV_CNP,
                 RF_SET(RCLINK_CC_INFO_QPID, 0, q->qpn));
}

static int64_t rclink_nocnp_period_ns(RclinkCore *c)
{
    return ((int64_t)RF_GET(RCLINK_CNP_CFG_NOCNP_INTERVAL,
                            rclink_get(c, RCLINK_CNP_CFG)) + 1) * SCALE_US;
}

/* QP q put len REQ payload bytes on the wire. */
void rclink_cnp_tx_bytes(RclinkCore *c, RclinkT1Qp *q, uint32_t len)
{
    RclinkT1 *t1 = c->t1;

    if (!(rclink_get(c, RCLINK_CNP_CFG) & RCLINK_CNP_CFG_NOCNP_EN) || !len) {
        return;
    }
    q->nocnp_bytes += len;
    if (!q->in_nocnp) {
        q->in_nocnp = true;
        QTAILQ_INSERT_TAIL(&t1->nocnp, q, nocnp_link);
    }
    if (!timer_pending(&t1->nocnp_timer)) {
        timer_mod(&t1->nocnp_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  rclink_nocnp_period_ns(c));
    }
}

/*
 * The NOCNP period ended: one record per QP with bytes (the counter is 32
 * bits wide on the port: a larger count is reported as all ones).  The
 * timer runs while some QP has bytes to report.
 */
static void rclink_nocnp_timer(void *opaque)
{
    RclinkCore *c = opaque;
    RclinkT1 *t1 = c->t1;
    bool on = rclink_get(c, RCLINK_CNP_CFG) & RCLINK_CNP_CFG_NOCNP_EN;
    RclinkT1Qp *q;

    while ((q = QTAILQ_FIRST(&t1->nocnp))) {
        uint64_t n = MIN(q->nocnp_bytes, UINT32_MAX);

        if (on) {
            trace_rclink_nocnp(q->qpn, n);
            rclink_event(c, RCLINK_EVT_SRC_NOCNP,
                         RF_SET(RCLINK_CC_INFO_QPID,
                                RF_SET(RCLINK_CC_INFO_BYTE_CNT, 0, n),
                                q->qpn));
        }
        rclink_nocnp_forget(t1, q);
    }
}

void rclink_cnp_init(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;

    QTAILQ_INIT(&t1->nocnp);
    timer_init_ns(&t1->nocnp_timer, QEMU_CLOCK_VIRTUAL, rclink_nocnp_timer,
                  c);
}

void rclink_cnp_reset(RclinkCore *c)
{
    RclinkT1 *t1 = c->t1;
    unsigned i;

    timer_del(&t1->nocnp_timer);
    QTAILQ_INIT(&t1->nocnp);
    for (i = 0; i < c->qp_num; i++) {
        t1->qps[i].in_nocnp = false;
        t1->qps[i].nocnp_bytes = 0;
    }
    memset(t1->cnp_buf, 0, sizeof(t1->cnp_buf));
    t1->cnp_next = 0;
}

void rclink_cnp_fini(RclinkCore *c)
{
    timer_del(&c->t1->nocnp_timer);
}
