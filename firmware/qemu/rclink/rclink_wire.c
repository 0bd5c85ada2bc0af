/*
 * rclink board model: the board's side of the wire.  Every frame the board
 * sends (TYPE3 and TYPE1) goes through rclink_wire_send(): counted, then
 * passed through the seeded fault injector of Documentation/hw/shim.rst
 * ("Wire fault injection"): ECN marking, loss, corruption, duplication,
 * reordering and delay, in that order, on the virtual clock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "rclink_core.h"
#include "trace.h"

#define RCLINK_WIRE_PPM             1000000u
#define RCLINK_WIRE_REORDER_NS      (100 * SCALE_US)
/* The first byte corruption may hit: after the Ethernet header */
#define RCLINK_WIRE_CORRUPT_FROM    14
#define RCLINK_WIRE_MAC_CTRL_TYPE   0x8808
/* SHIM_WIRE_INJECT: an Ethernet header at least, a jumbo frame at most */
#define RCLINK_WIRE_INJECT_MIN      14
#define RCLINK_WIRE_INJECT_MAX      2048

/* splitmix64: a fixed sequence per seed, any seed (0 too) is fine */
static uint64_t rclink_wire_rand(RclinkWire *w)
{
    uint64_t z = (w->rng += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* One draw against a rate per million; no draw for a rate of 0. */
static bool rclink_wire_hit(RclinkWire *w, uint32_t ppm)
{
    return ppm && rclink_wire_rand(w) % RCLINK_WIRE_PPM < ppm;
}

static RclinkWireFrame *rclink_wire_copy(const uint8_t *buf, size_t len,
                                         unsigned copies)
{
    RclinkWireFrame *f = g_malloc(sizeof(*f) + len);

    f->len = len;
    f->copies = copies;
    f->due_ns = 0;
    memcpy(f->data, buf, len);
    return f;
}

static void rclink_wire_out(RclinkCore *c, const uint8_t *buf, size_t len,
                            unsigned copies)
{
    unsigned i;

    for (i = 0; i < copies; i++) {
        if (c->nic) {
            qemu_send_packet(qemu_get_queue(c->nic), buf, len);
        }
    }
}

static void rclink_wire_delay_timer(void *opaque)
{
    RclinkCore *c = opaque;
    RclinkWire *w = &c->wire;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    RclinkWireFrame *f;

    while ((f = QSIMPLEQ_FIRST(&w->delayq)) && f->due_ns <= now) {
        QSIMPLEQ_REMOVE_HEAD(&w->delayq, next);
        rclink_wire_out(c, f->data, f->len, f->copies);
        g_free(f);
    }
    if (f) {
        timer_mod(&w->delay_timer, f->due_ns);
    }
}

/* The delay stage: frames leave delay_us later, in order. */
static void rclink_wire_emit(RclinkCore *c, const uint8_t *buf, size_t len,
                             unsigned copies, RclinkWireFrame *own)
{
    RclinkWire *w = &c->wire;
    uint32_t delay = RF_GET(RCLINK_SHIM_WIRE_FAULT_DELAY_DELAY_US,
                            rclink_get(c, RCLINK_SHIM_WIRE_FAULT_DELAY));
    RclinkWireFrame *f, *last;
    int64_t due;

    if (!delay && QSIMPLEQ_EMPTY(&w->delayq)) {
        rclink_wire_out(c, buf, len, copies);
        g_free(own);
        return;
    }
    due = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + (int64_t)delay * SCALE_US;
    last = QSIMPLEQ_LAST(&w->delayq, RclinkWireFrame, next);
    if (last && last->due_ns > due) {
        due = last->due_ns;             /* order kept */
    }
    f = own ? own : rclink_wire_copy(buf, len, copies);
    f->copies = copies;
    f->due_ns = due;
    trace_rclink_wire_delay(len, delay);
    QSIMPLEQ_INSERT_TAIL(&w->delayq, f, next);
    if (!last) {
        timer_mod(&w->delay_timer, due);
    }
}

static void rclink_wire_reorder_timer(void *opaque)
{
    RclinkCore *c = opaque;
    RclinkWireFrame *f = c->wire.held;

    if (f) {
        c->wire.held = NULL;
        rclink_wire_emit(c, f->data, f->len, f->copies, f);
    }
}

/*
 * A congested switch: an IPv4 frame (VLAN tagged or not) whose ECN field is
 * ECT(0) or ECT(1) leaves marked CE, its header checksum redone.  Returns
 * the marked copy, or NULL when the frame is not ECN capable.
 */
static uint8_t *rclink_wire_ecn_mark(RclinkCore *c, const uint8_t *buf,
                                     size_t len)
{
    size_t ip = 14, ihl;
    uint16_t type;
    uint8_t *m;

    if (len < ip + 20) {
        return NULL;
    }
    type = lduw_be_p(buf + 12);
    if (rclink_is_vlan(c, type) && len >= ip + 4 + 20) {
        type = lduw_be_p(buf + 16);
        ip += 4;
    }
    ihl = (buf[ip] & 0xf) * 4;
    if (type != 0x0800 || (buf[ip] >> 4) != 4 || ihl < 20 ||
        len < ip + ihl || !(buf[ip + 1] & 3) || (buf[ip + 1] & 3) == 3) {
        return NULL;
    }
    m = g_memdup2(buf, len);
    m[ip + 1] |= 3;
    stw_be_p(m + ip + 10, 0);
    stw_be_p(m + ip + 10, rclink_ip_csum(m + ip, ihl));
    return m;
}

void rclink_wire_send(RclinkCore *c, const uint8_t *buf, size_t len)
{
    RclinkWire *w = &c->wire;
    uint64_t r0 = rclink_get(c, RCLINK_SHIM_WIRE_FAULT_RATE0);
    uint64_t r1 = rclink_get(c, RCLINK_SHIM_WIRE_FAULT_RATE1);
    uint32_t loss = RF_GET(RCLINK_SHIM_WIRE_FAULT_RATE0_LOSS_PPM, r0);
    uint32_t corrupt = RF_GET(RCLINK_SHIM_WIRE_FAULT_RATE0_CORRUPT_PPM, r0);
    uint32_t dup = RF_GET(RCLINK_SHIM_WIRE_FAULT_RATE1_DUP_PPM, r1);
    uint32_t reorder = RF_GET(RCLINK_SHIM_WIRE_FAULT_RATE1_REORDER_PPM, r1);
    uint32_t ce = RF_GET(RCLINK_SHIM_WIRE_FAULT_ECN_CE_PPM,
                         rclink_get(c, RCLINK_SHIM_WIRE_FAULT_ECN));
    RclinkWireFrame *held;
    unsigned copies = 1;
    uint8_t *bad = NULL, *marked = NULL;

    rclink_count(c, RCLINK_SHIM_WIRE_TX_FRAMES);
    rclink_set(c, RCLINK_SHIM_WIRE_TX_LAST,
               RF_SET(RCLINK_SHIM_WIRE_TX_LAST_LEN, 0, MIN(len, 0xffff)) |
               (len >= 14 ? lduw_be_p(buf + 12) : 0));
    if (ce && (marked = rclink_wire_ecn_mark(c, buf, len))) {
        if (rclink_wire_hit(w, ce)) {
            buf = marked;
            rclink_count(c, RCLINK_SHIM_WIRE_ECN_MARKED);
            trace_rclink_wire_fault("marked CE", len);
        }
    }
    if (!loss && !corrupt && !dup && !reorder) {
        /* A perfect wire (the delay stage still applies). */
        goto emit;
    }
    if (rclink_wire_hit(w, loss)) {
        rclink_count(c, RCLINK_SHIM_WIRE_LOST);
        trace_rclink_wire_fault("lost", len);
        g_free(marked);
        return;
    }
    if (rclink_wire_hit(w, corrupt) && len > RCLINK_WIRE_CORRUPT_FROM) {
        uint64_t r = rclink_wire_rand(w);
        size_t at = RCLINK_WIRE_CORRUPT_FROM +
                    (r >> 3) % (len - RCLINK_WIRE_CORRUPT_FROM);

        if (lduw_be_p(buf + 12) == RCLINK_WIRE_MAC_CTRL_TYPE) {
            /*
             * A MAC control frame (Pause, PFC, a CBFC update) is the
             * partner MAC's own: its FCS check drops it before anything
             * parses it, so a damaged one never arrives.
             */
            rclink_count(c, RCLINK_SHIM_WIRE_CORRUPTED);
            trace_rclink_wire_fault("corrupted mac control: dropped by its FCS",
                                    len);
            g_free(marked);
            return;
        }
        bad = g_memdup2(buf, len);
        bad[at] ^= 1u << (r & 7);
        g_free(marked);
        marked = NULL;
        buf = bad;
        rclink_count(c, RCLINK_SHIM_WIRE_CORRUPTED);
        trace_rclink_wire_fault("corrupted", len);
    }
    if (rclink_wire_hit(w, dup)) {
        copies = 2;
        rclink_count(c, RCLINK_SHIM_WIRE_DUPLICATED);
        trace_rclink_wire_fault("duplicated", len);
    }
    if (rclink_wire_hit(w, reorder) && !w->held) {
        /* Held back: it leaves right after the next frame (or in 100 us). */
        w->held = rclink_wire_copy(buf, len, copies);
        timer_mod(&w->reorder_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  RCLINK_WIRE_REORDER_NS);
        rclink_count(c, RCLINK_SHIM_WIRE_REORDERED);
        trace_rclink_wire_fault("reordered", len);
        g_free(bad);
        g_free(marked);
        return;
    }
emit:
    rclink_wire_emit(c, buf, len, copies, NULL);
    g_free(bad);
    g_free(marked);
    held = w->held;
    if (held) {
        w->held = NULL;
        timer_del(&w->reorder_timer);
        rclink_wire_emit(c, held->data, held->len, held->copies, held);
    }
}

/*
 * SHIM_WIRE_QUEUE: the queue of a congested switch port in front of this
 * board, on the virtual clock.  It drains at rate_mbps; each frame adds its
 * bits; an ECT frame arriving while more than mark_bytes are queued comes
 * out marked CE (nothing is dropped).  Returns the marked copy, or NULL.
 */
uint8_t *rclink_wire_rx_queue(RclinkCore *c, const uint8_t *buf, size_t len)
{
    RclinkWire *w = &c->wire;
    uint64_t cfg = rclink_get(c, RCLINK_SHIM_WIRE_QUEUE);
    uint64_t rate = RF_GET(RCLINK_SHIM_WIRE_QUEUE_RATE_MBPS, cfg);
    uint64_t mark = RF_GET(RCLINK_SHIM_WIRE_QUEUE_MARK_BYTES, cfg) * 8000;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint64_t drained;
    uint8_t *m = NULL;

    if (!rate) {
        w->q_mbits = 0;
        return NULL;
    }
    /* 1 Mbit/s drains 1 milli-bit per ns */
    drained = now > w->q_ns ? (uint64_t)(now - w->q_ns) * rate : 0;
    w->q_mbits = drained >= w->q_mbits ? 0 : w->q_mbits - drained;
    w->q_ns = now;
    if (w->q_mbits > mark && (m = rclink_wire_ecn_mark(c, buf, len))) {
        rclink_count(c, RCLINK_SHIM_WIRE_QUEUE_MARKED);
        trace_rclink_wire_fault("queue marked CE", len);
    }
    w->q_mbits += (uint64_t)len * 8000;
    return m;
}

/*
 * SHIM_WIRE_INJECT (test hook): the frame at SHIM_WIRE_INJECT_ADDR arrives
 * from the wire, as the link partner would send it, so that a shared
 * vector can play the wire without a second board.
 */
void rclink_wire_inject(RclinkCore *c, uint64_t len)
{
    dma_addr_t addr = rclink_get(c, RCLINK_SHIM_WIRE_INJECT_ADDR);
    uint8_t *buf;

    if (len < RCLINK_WIRE_INJECT_MIN || len > RCLINK_WIRE_INJECT_MAX) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: SHIM_WIRE_INJECT length %"
                      PRIu64 " outside %u..%u, nothing delivered\n", len,
                      RCLINK_WIRE_INJECT_MIN, RCLINK_WIRE_INJECT_MAX);
        return;
    }
    buf = g_malloc(len);
    if (pci_dma_read(c->pci, addr, buf, len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: SHIM_WIRE_INJECT read of %"
                      PRIu64 " bytes at 0x%" PRIx64 " failed, nothing "
                      "delivered\n", len, (uint64_t)addr);
    } else {
        rclink_core_receive(c, buf, len);
    }
    g_free(buf);
}

void rclink_wire_reseed(RclinkCore *c)
{
    c->wire.rng = rclink_get(c, RCLINK_SHIM_WIRE_FAULT_SEED);
}

void rclink_wire_init(RclinkCore *c)
{
    RclinkWire *w = &c->wire;

    QSIMPLEQ_INIT(&w->delayq);
    w->held = NULL;
    timer_init_ns(&w->reorder_timer, QEMU_CLOCK_VIRTUAL,
                  rclink_wire_reorder_timer, c);
    timer_init_ns(&w->delay_timer, QEMU_CLOCK_VIRTUAL,
                  rclink_wire_delay_timer, c);
}

/*
 * Reset: the rates return to 0 with the registers and the generator
 * restarts from the seed's reset value.  Frames already on the wire (held
 * or delayed) still arrive.
 */
void rclink_wire_reset(RclinkCore *c)
{
    rclink_wire_reseed(c);
}

void rclink_wire_fini(RclinkCore *c)
{
    RclinkWire *w = &c->wire;
    RclinkWireFrame *f;

    timer_del(&w->reorder_timer);
    timer_del(&w->delay_timer);
    g_free(w->held);
    w->held = NULL;
    while ((f = QSIMPLEQ_FIRST(&w->delayq))) {
        QSIMPLEQ_REMOVE_HEAD(&w->delayq, next);
        g_free(f);
    }
}
