/*
 * rclink board model: the Pause/PFC flow control of the LL 100G MAC
 * (seed 003, 7.4 Pause/PFC Flow Controlレジスター; Documentation/hw/shim.rst,
 * "PFC").
 *
 * TX: a write of TX_FC_XOFF_REQ is the CSR request of the seed: in 1-bit
 * mode a queue's bit going 0 -> 1 requests XOFF and 1 -> 0 XON; in 2-bit
 * mode (TX_FC_REQ_MODE, the queue's csr_2bit bit) {req1, req0} = 10 is
 * XOFF and 01 XON.  The IP's TX_PFC_REQ_O (rclink_cbfc.c) is the signal
 * request: XOFF while held, repeated every TX_FC_HOLD_QUANTA.  Queues
 * without their TX_FC_ENABLE bit are ignored.
 * The MAC sends one frame for the queues that changed: PFC (802.1Qbb,
 * opcode 0x0101, the class-enable vector and eight quanta: TX_FC_QUANTA
 * for XOFF, 0 for XON) or, with TX_FC_SELECT.pfc 0, Pause (802.3x, opcode
 * 0x0001, queue 0's quanta), from TX_FC_SADDR to TX_FC_DADDR.
 *
 * RX: MAC control frames (Ethernet type 0x8808) never reach the IP.  A PFC
 * frame to RX_FC_DADDR pauses the priorities of its vector that
 * RX_PFC_ENABLE has for quanta x 512 bit times at 100 Gb/s (5.12 ns; 0
 * resumes); a Pause frame pauses every priority when TX_PAUSE_ENABLE says
 * so.  What is paused waits (the IP's RX_PFC_REQ_I): each flow of the IP
 * whose XON_THR_RDMA.rx_*_pfc_en is set, on the priority of its
 * AFH_CFG_EN.*_cbfc field (rclink_cbfc_tx_ok()).
 *
 * The registers seed 003 says do not change dynamically (RCLINK_STATIC_REGS:
 * addresses, quanta, hold quanta, Pause/PFC select, request mode, Pause
 * enable) take their written values at the release of a soft reset
 * through PHY_CONFIG.soft_reset (1 -> 0), and at a reset of the board;
 * until then the MAC keeps using the values it had (rclink_mac_get).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "rclink_core.h"
#include "trace.h"

#define MAC_CTRL_TYPE       0x8808
#define MAC_OP_PAUSE        0x0001
#define MAC_OP_PFC          0x0101
#define MAC_QUANTUM_PS      5120        /* 512 bit times at 100 Gb/s */
#define MAC_PRIOS           8

/* The offset of every instance of a static register, in mac_static order */
static hwaddr mac_static_off[RCLINK_MAC_STATIC_N];

static void rclink_mac_static_init(void)
{
    unsigned k = 0, i;

#define RCLINK_MAC_STATIC_OFF(off, n, stride)                  \
    for (i = 0; i < (n); i++) {                                 \
        mac_static_off[k++] = (off) + i * (stride);             \
    }
    RCLINK_STATIC_REGS(RCLINK_MAC_STATIC_OFF)
#undef RCLINK_MAC_STATIC_OFF
    assert(k == RCLINK_MAC_STATIC_N);
}

/* What the MAC uses of register off: a static one's value at the last reset */
uint64_t rclink_mac_get(RclinkCore *c, hwaddr off)
{
    unsigned k;

    for (k = 0; k < RCLINK_MAC_STATIC_N; k++) {
        if (mac_static_off[k] == off) {
            return c->mac_static[k];
        }
    }
    return rclink_get(c, off);
}

/* The soft reset releases: the static registers take their written values */
static void rclink_mac_static_apply(RclinkCore *c)
{
    unsigned k;

    for (k = 0; k < RCLINK_MAC_STATIC_N; k++) {
        c->mac_static[k] = rclink_get(c, mac_static_off[k]);
    }
}

/* PHY_CONFIG written (old: what it held) */
void rclink_mac_phy_config(RclinkCore *c, uint64_t old, uint64_t val)
{
    if ((old & ~val) & RCLINK_PHY_CONFIG_SOFT_RESET) {
        trace_rclink_mac_soft_reset();
        rclink_mac_static_apply(c);
    }
}

uint64_t rclink_mac_addr(RclinkCore *c, hwaddr hi, hwaddr lo)
{
    return ((rclink_mac_get(c, hi) & 0xffff) << 32) |
           (rclink_mac_get(c, lo) & 0xffffffffULL);
}

static void rclink_mac_send_fc(RclinkCore *c, uint8_t xoff, uint8_t xon)
{
    bool pfc = rclink_mac_get(c, RCLINK_TX_FC_SELECT) &
               RCLINK_TX_FC_SELECT_PFC;
    uint8_t f[60] = { 0 };
    unsigned q;

    rclink_put_mac(f, rclink_mac_addr(c, RCLINK_TX_FC_DADDR_HI,
                                      RCLINK_TX_FC_DADDR_LO));
    rclink_put_mac(f + 6, rclink_mac_addr(c, RCLINK_TX_FC_SADDR_HI,
                                          RCLINK_TX_FC_SADDR_LO));
    stw_be_p(f + 12, MAC_CTRL_TYPE);
    if (!pfc) {
        if (!((xoff | xon) & 1)) {
            return;
        }
        stw_be_p(f + 14, MAC_OP_PAUSE);
        stw_be_p(f + 16, (xoff & 1) ?
                 RF_GET(RCLINK_TX_FC_QUANTA_QUANTA,
                        rclink_mac_get(c, RCLINK_TX_FC_QUANTA(0))) : 0);
        rclink_count(c, RCLINK_SHIM_PFC_TX(0));
    } else {
        stw_be_p(f + 14, MAC_OP_PFC);
        stw_be_p(f + 16, xoff | xon);
        for (q = 0; q < MAC_PRIOS; q++) {
            if ((xoff >> q) & 1) {
                stw_be_p(f + 18 + 2 * q,
                         RF_GET(RCLINK_TX_FC_QUANTA_QUANTA,
                                rclink_mac_get(c, RCLINK_TX_FC_QUANTA(q))));
            }
            if (((xoff | xon) >> q) & 1) {
                rclink_count(c, RCLINK_SHIM_PFC_TX(q));
            }
        }
    }
    trace_rclink_mac_fc_tx(pfc, xoff, xon);
    rclink_wire_send(c, f, sizeof(f));
}

/* TX_FC_XOFF_REQ written: old and new value */
void rclink_mac_fc_req(RclinkCore *c, uint64_t old, uint64_t val)
{
    uint64_t mode = rclink_mac_get(c, RCLINK_TX_FC_REQ_MODE);
    uint8_t en = RF_GET(RCLINK_TX_FC_ENABLE_ENABLE,
                        rclink_get(c, RCLINK_TX_FC_ENABLE));
    uint8_t two = (mode & RCLINK_TX_FC_REQ_MODE_MODE_2BIT) ?
                  RF_GET(RCLINK_TX_FC_REQ_MODE_CSR_2BIT, mode) : 0;
    uint8_t r0 = RF_GET(RCLINK_TX_FC_XOFF_REQ_REQ0, val);
    uint8_t r1 = RF_GET(RCLINK_TX_FC_XOFF_REQ_REQ1, val);
    uint8_t o0 = RF_GET(RCLINK_TX_FC_XOFF_REQ_REQ0, old);
    uint8_t o1 = RF_GET(RCLINK_TX_FC_XOFF_REQ_REQ1, old);
    uint8_t xoff, xon;

    /* 1-bit: 0 -> 1 XOFF, 1 -> 0 XON */
    xoff = ~two & r0 & ~o0;
    xon = ~two & ~r0 & o0;
    /* 2-bit: {req1, req0} 10 XOFF, 01 XON, on a change */
    xoff |= two & r1 & ~r0 & ((r0 ^ o0) | (r1 ^ o1));
    xon |= two & ~r1 & r0 & ((r0 ^ o0) | (r1 ^ o1));
    xoff &= en;
    xon &= en;
    if (xoff | xon) {
        rclink_mac_send_fc(c, xoff, xon);
    }
}

/* Held signal XOFFs are sent again every TX_FC_HOLD_QUANTA (the least) */
static void rclink_mac_hold_arm(RclinkCore *c)
{
    uint8_t held = c->cbfc.pfc_req &
                   RF_GET(RCLINK_TX_FC_ENABLE_ENABLE,
                          rclink_get(c, RCLINK_TX_FC_ENABLE));
    uint32_t min = 0;
    unsigned q;

    for (q = 0; q < MAC_PRIOS; q++) {
        uint32_t h = RF_GET(RCLINK_TX_FC_HOLD_QUANTA_QUANTA,
                            rclink_mac_get(c, RCLINK_TX_FC_HOLD_QUANTA(q)));

        if ((held >> q & 1) && h && (!min || h < min)) {
            min = h;
        }
    }
    if (!min) {
        timer_del(&c->hold_timer);
    } else if (!timer_pending(&c->hold_timer)) {
        timer_mod(&c->hold_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)min * MAC_QUANTUM_PS / 1000);
    }
}

static void rclink_mac_hold_timer(void *opaque)
{
    RclinkCore *c = opaque;
    uint8_t held = c->cbfc.pfc_req &
                   RF_GET(RCLINK_TX_FC_ENABLE_ENABLE,
                          rclink_get(c, RCLINK_TX_FC_ENABLE));

    if (held) {
        rclink_mac_send_fc(c, held, 0);
    }
    rclink_mac_hold_arm(c);
}

/*
 * The IP's TX_PFC_REQ_O changed (the signal request of seed 003): XOFF for
 * the priorities newly requested, XON for those released, of the queues
 * TX_FC_ENABLE has; a held XOFF is repeated every TX_FC_HOLD_QUANTA.
 */
void rclink_mac_signal_req(RclinkCore *c, uint8_t old, uint8_t req)
{
    uint8_t en = RF_GET(RCLINK_TX_FC_ENABLE_ENABLE,
                        rclink_get(c, RCLINK_TX_FC_ENABLE));
    uint8_t xoff = req & ~old & en, xon = old & ~req & en;

    if (xoff | xon) {
        rclink_mac_send_fc(c, xoff, xon);
    }
    timer_del(&c->hold_timer);
    c->cbfc.pfc_req = req;
    rclink_mac_hold_arm(c);
}

/*
 * The priorities paused now (SHIM_PFC_PAUSED).  A pause ends when the
 * pause timer runs for its end, not when the clock passed it: after a
 * stall of the host the partner's refresh, due earlier, runs first and
 * extends the pause, as it would have on time.
 */
uint8_t rclink_mac_paused(RclinkCore *c)
{
    return c->pfc_paused;
}

/*
 * What resumes goes now; the timer runs again at the first end of a pause
 * still on (only that pause ends then: another that is overdue too waits
 * for its own turn, after any refresh due before it).
 */
static void rclink_mac_pfc_kick(RclinkCore *c)
{
    int64_t end = 0;
    unsigned q;

    rclink_t3_tx_head_write(c);
    rclink_t1_kick(c);
    for (q = 0; q < MAC_PRIOS; q++) {
        if ((c->pfc_paused >> q & 1) && (!end || c->pfc_until[q] < end)) {
            end = c->pfc_until[q];
        }
    }
    if (end) {
        c->pfc_deadline = end;
        timer_mod(&c->pfc_timer, end);
    } else {
        timer_del(&c->pfc_timer);
    }
}

static void rclink_mac_pfc_timer(void *opaque)
{
    RclinkCore *c = opaque;
    unsigned q;

    for (q = 0; q < MAC_PRIOS; q++) {
        if (c->pfc_until[q] <= c->pfc_deadline) {
            c->pfc_paused &= ~(1u << q);
        }
    }
    rclink_mac_pfc_kick(c);
}

/* Priority q paused for t quanta from now; 0 (XON) ends its pause. */
static void rclink_mac_pause_set(RclinkCore *c, unsigned q, int64_t now,
                                 uint16_t t)
{
    c->pfc_until[q] = now + (int64_t)t * MAC_QUANTUM_PS / 1000;
    if (t) {
        c->pfc_paused |= 1u << q;
    } else {
        c->pfc_paused &= ~(1u << q);
    }
}

/* A MAC control frame from the wire (Ethernet type 0x8808). */
void rclink_mac_ctrl_receive(RclinkCore *c, const uint8_t *buf, size_t len)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint8_t en = RF_GET(RCLINK_RX_PFC_ENABLE_ENABLE,
                        rclink_get(c, RCLINK_RX_PFC_ENABLE));
    uint64_t da = ldq_be_p(buf) >> 16;
    uint16_t op, cev;
    unsigned q;

    if (len < 60 || da != rclink_mac_addr(c, RCLINK_RX_FC_DADDR_HI,
                                          RCLINK_RX_FC_DADDR_LO)) {
        rclink_count(c, RCLINK_SHIM_MAC_CTRL_DROP);
        trace_rclink_rx_drop("mac control: length or address", len);
        return;
    }
    op = lduw_be_p(buf + 14);
    if (op == RCLINK_CBFC_OP_UPDATE) {
        rclink_cbfc_update_rx(c, buf, len);
        return;
    }
    if (op == MAC_OP_PAUSE) {
        uint16_t t = lduw_be_p(buf + 16);

        rclink_count(c, RCLINK_SHIM_PFC_RX(0));
        cev = 0xff;
        /* TX Pause Enable: whether a Pause frame stops the sending */
        for (q = 0; q < MAC_PRIOS &&
             (rclink_mac_get(c, RCLINK_TX_PAUSE_ENABLE) &
              RCLINK_TX_PAUSE_ENABLE_ENABLE); q++) {
            rclink_mac_pause_set(c, q, now, t);
        }
    } else if (op == MAC_OP_PFC) {
        cev = lduw_be_p(buf + 16) & 0xff;
        for (q = 0; q < MAC_PRIOS; q++) {
            if (!((cev >> q) & 1)) {
                continue;
            }
            rclink_count(c, RCLINK_SHIM_PFC_RX(q));
            if ((en >> q) & 1) {
                rclink_mac_pause_set(c, q, now,
                                     lduw_be_p(buf + 18 + 2 * q));
            }
        }
    } else {
        rclink_count(c, RCLINK_SHIM_MAC_CTRL_DROP);
        trace_rclink_rx_drop("mac control: opcode", len);
        return;
    }
    trace_rclink_mac_fc_rx(op, cev, rclink_mac_paused(c));
    /* what resumes now goes now; what stays waits */
    rclink_mac_pfc_kick(c);
}

void rclink_mac_init(RclinkCore *c)
{
    timer_init_ns(&c->pfc_timer, QEMU_CLOCK_VIRTUAL, rclink_mac_pfc_timer, c);
    timer_init_ns(&c->hold_timer, QEMU_CLOCK_VIRTUAL, rclink_mac_hold_timer,
                  c);
    rclink_mac_static_init();
}

void rclink_mac_reset(RclinkCore *c)
{
    rclink_mac_static_apply(c);
    timer_del(&c->hold_timer);
    timer_del(&c->pfc_timer);
    memset(c->pfc_until, 0, sizeof(c->pfc_until));
    c->pfc_paused = 0;
    c->pfc_deadline = 0;
}

void rclink_mac_fini(RclinkCore *c)
{
    timer_del(&c->hold_timer);
    timer_del(&c->pfc_timer);
}
