/*
 * rclink board model core: register file of the RCLINK-Stream IP (seed 000
 * register appendix), the PCIe shim CSRs (self-test, event ring, test hooks)
 * and the MAC flow-control CSRs (seed 003).  The behaviour follows
 * Documentation/hw/shim.rst; offsets, reset values and access types come
 * from the generated rclink_hw.h / rclink_regtab.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qemu/host-utils.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "rclink_core.h"
#include "trace.h"

#define RCLINK_DMA_TEST_MAX (16 * 1024 * 1024)
#define RCLINK_PATTERN_STEP 0x9e3779b9u

/* Bits of d the board does not have (property assumed-regs=off) */
static uint64_t rclink_absent_bits(RclinkCore *c,
                                   const struct rclink_regdesc *d)
{
    return c->assumed_regs ? 0 : d->assumed;
}

static int rclink_slot_of(RclinkCore *c, hwaddr off)
{
    return off < RCLINK_BAR0_SIZE ? c->map[off >> 2] : -1;
}

void rclink_core_init(RclinkCore *c, PCIDevice *pci)
{
    unsigned i, k;

    c->pci = pci;
    memset(c->map, 0xff, sizeof(c->map));
    c->nslots = 0;
    c->nqp_regs = 0;
    for (i = 0; i < RCLINK_REGTAB_LEN; i++) {
        const struct rclink_regdesc *d = &rclink_regtab[i];

        c->qp_index[i] = d->per_qp ? (int)c->nqp_regs++ : -1;
        for (k = 0; k < d->count; k++) {
            hwaddr off = d->offset + k * d->stride;
            unsigned s = c->nslots++;

            c->slot_reg[s] = i;
            c->map[off >> 2] = s;
            if (d->width == 64) {
                c->map[(off >> 2) + 1] = s;
            }
        }
    }
    c->qp_val = g_new0(uint64_t, (size_t)c->qp_num * c->nqp_regs);
    rclink_mac_init(c);
    rclink_cbfc_init(c);
    rclink_wire_init(c);
    rclink_t1_init(c);
}

void rclink_core_fini(RclinkCore *c)
{
    rclink_t1_fini(c);
    rclink_wire_fini(c);
    rclink_cbfc_fini(c);
    rclink_mac_fini(c);
    g_free(c->qp_val);
    c->qp_val = NULL;
}

/*
 * INTx (no MSI-X, no MSI) is asserted while the event ring or the TYPE1
 * completion queue holds entries the host has not consumed.
 */
void rclink_update_intx(RclinkCore *c)
{
    int level = 0;

    if (c->bridge) {
        return;                 /* the RTL shim's */
    }
    if (!msix_enabled(c->pci) && !msi_enabled(c->pci)) {
        if (rclink_get(c, RCLINK_SHIM_EVT_CTRL) & RCLINK_SHIM_EVT_CTRL_ENABLE) {
            uint32_t cons = rclink_get(c, RCLINK_SHIM_EVT_CONS);

            level = c->evt_prod != cons;
        }
        if (c->t1 && rclink_dmaq_cq_pending(c)) {
            level = 1;
        }
    }
    trace_rclink_intx(level);
    pci_set_irq(c->pci, level);
}

void rclink_irq_raise(RclinkCore *c, unsigned vector)
{
    if (c->bridge) {
        return;                 /* the RTL shim's */
    }
    if (msix_enabled(c->pci)) {
        if (vector >= c->num_vectors) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "rclink: interrupt on vector %u of %u\n",
                          vector, c->num_vectors);
            return;
        }
        trace_rclink_irq("msix", vector);
        msix_notify(c->pci, vector);
    } else if (msi_enabled(c->pci)) {
        trace_rclink_irq("msi", 0);
        msi_notify(c->pci, 0);
    } else {
        rclink_update_intx(c);
    }
}

/* ---- hostile-device mode (Documentation/hw/shim.rst) ---- */

static void rclink_hostile_reseed(RclinkCore *c)
{
    uint64_t seed = rclink_get(c, RCLINK_SHIM_HOSTILE_SEED);

    c->hostile_rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t rclink_hostile_rand(RclinkCore *c)
{
    /* xorshift64* */
    c->hostile_rng ^= c->hostile_rng >> 12;
    c->hostile_rng ^= c->hostile_rng << 25;
    c->hostile_rng ^= c->hostile_rng >> 27;
    return c->hostile_rng * 0x2545f4914f6cdd1dULL;
}

bool rclink_hostile(RclinkCore *c, uint64_t kind)
{
    uint64_t ctrl = rclink_get(c, RCLINK_SHIM_HOSTILE_CTRL);
    uint32_t ppm = RF_GET(RCLINK_SHIM_HOSTILE_CTRL_PPM, ctrl);

    if (!(ctrl & kind) || !ppm ||
        rclink_hostile_rand(c) % 1000000 >= ppm) {
        return false;
    }
    rclink_count(c, RCLINK_SHIM_HOSTILE_COUNT);
    trace_rclink_hostile(kind);
    return true;
}

static bool rclink_dead(RclinkCore *c)
{
    return rclink_get(c, RCLINK_SHIM_HOSTILE_CTRL) &
           RCLINK_SHIM_HOSTILE_CTRL_DEAD;
}

/* ---- host memory (bus-master gate) ---- */

static bool rclink_dma_refused(RclinkCore *c)
{
    if (pci_get_word(c->pci->config + PCI_COMMAND) & PCI_COMMAND_MASTER) {
        return false;
    }
    rclink_count(c, RCLINK_SHIM_DMA_BM_DROP);
    return true;
}

MemTxResult rclink_dma_read(RclinkCore *c, dma_addr_t addr, void *buf,
                            dma_addr_t len)
{
    if (rclink_dma_refused(c)) {
        memset(buf, 0, len);
        return MEMTX_ERROR;
    }
    return pci_dma_read(c->pci, addr, buf, len);
}

MemTxResult rclink_dma_write(RclinkCore *c, dma_addr_t addr, const void *buf,
                             dma_addr_t len)
{
    if (rclink_dma_refused(c)) {
        return MEMTX_ERROR;
    }
    return pci_dma_write(c->pci, addr, buf, len);
}

static void rclink_event_write(RclinkCore *c, unsigned source, uint64_t info);

/*
 * An event record (Documentation/hw/shim.rst); in hostile mode maybe one
 * more, of random source and IRQ_INFO.
 */
void rclink_event(RclinkCore *c, unsigned source, uint64_t info)
{
    if (c->bridge) {
        /* the IP's output to the RTL shim, which writes the record */
        rclink_cosim_ip_event(c->bridge, source, info);
        return;
    }
    rclink_event_write(c, source, info);
    if (rclink_hostile(c, RCLINK_SHIM_HOSTILE_CTRL_EVT)) {
        uint64_t r = rclink_hostile_rand(c);

        rclink_event_write(c, r & 0xf, rclink_hostile_rand(c));
    }
}

/* Write one record into the host's event ring. */
static void rclink_event_write(RclinkCore *c, unsigned source, uint64_t info)
{
    uint64_t ctrl = rclink_get(c, RCLINK_SHIM_EVT_CTRL);
    unsigned order = RF_GET(RCLINK_SHIM_EVT_CTRL_ORDER, ctrl);
    uint32_t cons = rclink_get(c, RCLINK_SHIM_EVT_CONS);
    uint32_t size = 1u << order;
    uint64_t base, meta, le;
    hwaddr rec;

    if (!(ctrl & RCLINK_SHIM_EVT_CTRL_ENABLE)) {
        /* Nowhere to put it: counted, never silent. */
        c->evt_drops++;
        rclink_set(c, RCLINK_SHIM_EVT_DROPS, c->evt_drops);
        trace_rclink_event_drop(c->evt_prod, cons, c->evt_drops);
        return;
    }
    if ((uint32_t)(c->evt_prod - cons) >= size) {
        c->evt_drops++;
        rclink_set(c, RCLINK_SHIM_EVT_DROPS, c->evt_drops);
        trace_rclink_event_drop(c->evt_prod, cons, c->evt_drops);
        rclink_irq_raise(c, RF_GET(RCLINK_SHIM_EVT_CTRL_VECTOR, ctrl));
        return;
    }

    base = rclink_get(c, RCLINK_SHIM_EVT_BASE);
    rec = base + (hwaddr)(c->evt_prod & (size - 1)) * RCLINK_EVT_RECORD_BYTES;
    meta = RF_SET(RCLINK_EVT_META_SOURCE, 0, source);
    meta = RF_SET(RCLINK_EVT_META_SEQ, meta, c->evt_prod);
    if (!((c->evt_prod >> order) & 1)) {
        meta |= RCLINK_EVT_META_PHASE;
    }

    /* INFO first, then META with the phase bit that publishes the record. */
    le = cpu_to_le64(info);
    if (rclink_dma_write(c, rec, &le, sizeof(le)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "rclink: event ring write to 0x%" PRIx64 " failed\n",
                      (uint64_t)rec);
    }
    le = cpu_to_le64(meta);
    if (rclink_dma_write(c, rec + 8, &le, sizeof(le)) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "rclink: event ring write to 0x%" PRIx64 " failed\n",
                      (uint64_t)rec + 8);
    }
    trace_rclink_event(c->evt_prod, source, info);
    c->evt_prod++;
    rclink_set(c, RCLINK_SHIM_EVT_PROD, c->evt_prod);
    rclink_irq_raise(c, RF_GET(RCLINK_SHIM_EVT_CTRL_VECTOR, ctrl));
}

static void rclink_test_irq(RclinkCore *c, unsigned vector)
{
    if (msix_enabled(c->pci)) {
        rclink_irq_raise(c, vector);
    } else {
        rclink_event(c, RCLINK_EVT_SRC_SELFTEST, vector);
    }
}

static uint32_t rclink_pattern(uint32_t seed, uint32_t i)
{
    return seed ^ (i * RCLINK_PATTERN_STEP);
}

static void rclink_dma_test(RclinkCore *c, uint64_t ctrl)
{
    uint32_t len = RF_GET(RCLINK_SHIM_TEST_DMA_CTRL_LEN, ctrl);
    unsigned op = RF_GET(RCLINK_SHIM_TEST_DMA_CTRL_OP, ctrl);
    uint32_t seed = RF_GET(RCLINK_SHIM_TEST_DMA_CTRL_SEED, ctrl);
    dma_addr_t addr = rclink_get(c, RCLINK_SHIM_TEST_DMA_ADDR);
    uint64_t st = RCLINK_SHIM_TEST_DMA_STATUS_DONE;
    uint32_t *buf, i, bad = 0;
    MemTxResult r;

    if (!len || (len & 3) || len > RCLINK_DMA_TEST_MAX ||
        (op != 1 && op != 2)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "rclink: DMA self-test op %u len %u invalid\n", op, len);
        c->dma_status = st | RCLINK_SHIM_TEST_DMA_STATUS_ERR;
        rclink_set(c, RCLINK_SHIM_TEST_DMA_STATUS, c->dma_status);
        return;
    }
    buf = g_malloc(len);
    if (op == 1) {
        for (i = 0; i < len / 4; i++) {
            buf[i] = cpu_to_le32(rclink_pattern(seed, i));
        }
        r = pci_dma_write(c->pci, addr, buf, len);
    } else {
        r = pci_dma_read(c->pci, addr, buf, len);
        for (i = 0; i < len / 4; i++) {
            bad += le32_to_cpu(buf[i]) != rclink_pattern(seed, i);
        }
        if (r == MEMTX_OK && !bad) {
            st |= RCLINK_SHIM_TEST_DMA_STATUS_OK;
        }
        st = RF_SET(RCLINK_SHIM_TEST_DMA_STATUS_BAD_WORDS, st, bad);
    }
    if (r != MEMTX_OK) {
        st |= RCLINK_SHIM_TEST_DMA_STATUS_ERR;
    }
    g_free(buf);
    trace_rclink_selftest_dma(op, len, !!(st & RCLINK_SHIM_TEST_DMA_STATUS_OK),
                              bad);
    c->dma_status = st;
    rclink_set(c, RCLINK_SHIM_TEST_DMA_STATUS, st);
}

static uint64_t rclink_md_tails(RclinkCore *c)
{
    uint64_t info = 0;

    info = RF_SET(RCLINK_IRQ_INFO_T3_TX_TAIL, info,
                  rclink_get(c, RCLINK_TX_MD_TAIL_PTR));
    info = RF_SET(RCLINK_IRQ_INFO_T3_RX_TAIL, info,
                  rclink_get(c, RCLINK_RX_MD_TAIL_PTR));
    return info;
}

/*
 * An IRQ_INFO TYPE3 of the IP: a record in the event ring, or under MSI-X
 * with SHIM_T3_IRQ.enable the TYPE3 vector alone (counted in its count).
 * Bridged, the IP's output goes to the RTL shim, which decides.
 */
static void rclink_t3_irq(RclinkCore *c, uint64_t info)
{
    uint64_t cfg = rclink_get(c, RCLINK_SHIM_T3_IRQ);
    unsigned vector = RF_GET(RCLINK_SHIM_T3_IRQ_VECTOR, cfg);
    uint32_t n;

    if (c->bridge || !(cfg & RCLINK_SHIM_T3_IRQ_ENABLE) ||
        !msix_enabled(c->pci)) {
        rclink_event(c, RCLINK_EVT_SRC_IRQ_INFO, info);
        return;
    }
    n = RF_GET(RCLINK_SHIM_T3_IRQ_COUNT, cfg) + 1;
    rclink_set(c, RCLINK_SHIM_T3_IRQ,
               RF_SET(RCLINK_SHIM_T3_IRQ_COUNT, cfg, n));
    trace_rclink_t3_irq(vector, info);
    rclink_irq_raise(c, vector);
}

/*
 * Level causes raised by the IP (or by the test hook): new INTR_STATUS bits
 * make an RC_INTR record, new DMA_INTR_ST0/ST1 bits an IRQ_INFO TYPE3 code 1
 * with the current MD tails (any ST1 bit also sets ST0.abnormal).
 */
void rclink_raise_causes(RclinkCore *c, uint64_t rc, uint64_t st0,
                         uint64_t st1)
{
    uint64_t old, fresh;

    if (rc) {
        old = rclink_get(c, RCLINK_INTR_STATUS);
        fresh = rc & ~old;
        rclink_set(c, RCLINK_INTR_STATUS, old | rc);
        if (fresh) {
            rclink_event(c, RCLINK_EVT_SRC_RC_INTR, fresh);
        }
    }
    if (st0 || st1) {
        uint64_t old1 = rclink_get(c, RCLINK_DMA_INTR_ST1);

        if (st1) {
            st0 |= RCLINK_DMA_INTR_ST0_ABNORMAL;
        }
        old = rclink_get(c, RCLINK_DMA_INTR_ST0);
        rclink_set(c, RCLINK_DMA_INTR_ST0, old | st0);
        rclink_set(c, RCLINK_DMA_INTR_ST1, old1 | st1);
        if ((st0 & ~old) || (st1 & ~old1)) {
            uint64_t info = rclink_md_tails(c);

            info = RF_SET(RCLINK_IRQ_INFO_TYPE, info, RCLINK_IRQ_TYPE3);
            info = RF_SET(RCLINK_IRQ_INFO_CODE, info, RCLINK_IRQ_TYPE3_NONR);
            rclink_t3_irq(c, info);
        }
    }
}

/* DMA_INTR_ST0 bits the IP latches without an interrupt (tx_md_empty). */
void rclink_latch_st0(RclinkCore *c, uint64_t st0)
{
    *rclink_reg_ptr(c, RCLINK_DMA_INTR_ST0) |= st0;
}

static uint64_t rclink_mac_value(RclinkCore *c)
{
    uint64_t v = 0;
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(c->mac); i++) {
        v = (v << 8) | c->mac[i];
    }
    return v;
}

/*
 * SHIM_LINK.up = the wire's carrier and not force_down; a change writes a
 * LINK event record (unless quiet: at reset the event ring is off anyway).
 */
static void rclink_link_update(RclinkCore *c, bool quiet)
{
    uint64_t v = rclink_get(c, RCLINK_SHIM_LINK);
    bool force_down = v & RCLINK_SHIM_LINK_FORCE_DOWN;
    bool up = c->carrier && !force_down;

    rclink_set(c, RCLINK_SHIM_LINK, RF_SET(RCLINK_SHIM_LINK_UP, v, up));
    if (up == c->link_up) {
        return;
    }
    c->link_up = up;
    trace_rclink_link_state(c->carrier, force_down, up);
    /* Up: TYPE1 slots and responses waiting for the link go now; down:
     * the TYPE2 packets waiting in the IP are flushed. */
    rclink_t1_kick(c);
    if (!quiet) {
        rclink_event(c, RCLINK_EVT_SRC_LINK, up);
    }
}

/* The wire fault injector's counters: never reset. */
static const hwaddr rclink_wire_counters[] = {
    RCLINK_SHIM_WIRE_LOST, RCLINK_SHIM_WIRE_CORRUPTED,
    RCLINK_SHIM_WIRE_REORDERED, RCLINK_SHIM_WIRE_DUPLICATED,
};

void rclink_core_reset(RclinkCore *c)
{
    uint64_t keep[ARRAY_SIZE(rclink_wire_counters)];
    unsigned s;
    uint64_t v;

    trace_rclink_reset();
    for (s = 0; s < ARRAY_SIZE(keep); s++) {
        keep[s] = rclink_get(c, rclink_wire_counters[s]);
    }
    for (s = 0; s < c->nslots; s++) {
        const struct rclink_regdesc *d = &rclink_regtab[c->slot_reg[s]];

        c->slot_val[s] = d->reset & ~rclink_absent_bits(c, d);
    }
    for (s = 0; s < ARRAY_SIZE(keep); s++) {
        rclink_set(c, rclink_wire_counters[s], keep[s]);
    }
    memset(c->qp_val, 0, sizeof(uint64_t) * c->qp_num * c->nqp_regs);

    rclink_set(c, RCLINK_SHIM_ID, c->magic);
    v = rclink_get(c, RCLINK_SHIM_VERSION);
    rclink_set(c, RCLINK_SHIM_VERSION,
               RF_SET(RCLINK_SHIM_VERSION_MAJOR, v, c->shim_major));
    v = rclink_get(c, RCLINK_SHIM_CAP0);
    rclink_set(c, RCLINK_SHIM_CAP0, RF_SET(RCLINK_SHIM_CAP0_QP_NUM, v,
                                           c->qp_num));
    v = rclink_get(c, RCLINK_SHIM_CAP1);
    rclink_set(c, RCLINK_SHIM_CAP1, RF_SET(RCLINK_SHIM_CAP1_TYPE2_PKT_LEN, v,
                                           c->t2_pkt_len));
    v = rclink_get(c, RCLINK_SHIM_CAP3);
    v = RF_SET(RCLINK_SHIM_CAP3_NUM_VECTORS, v, c->num_vectors);
    rclink_set(c, RCLINK_SHIM_CAP3, RF_SET(RCLINK_SHIM_CAP3_IP_COUNTERS, v,
                                           c->ip_counters));
    /* ECHO holds the last value written; reads return its inverse. */
    rclink_set(c, RCLINK_SHIM_TEST_ECHO, ~RCLINK_SHIM_TEST_ECHO_RSTVAL);
    rclink_set(c, RCLINK_SHIM_SERIAL, c->serial);
    rclink_set(c, RCLINK_SHIM_MAC, rclink_mac_value(c));
    rclink_t3_reset(c);
    rclink_mac_reset(c);
    rclink_cbfc_reset(c);
    rclink_wire_reset(c);
    rclink_t1_reset(c);
    rclink_link_update(c, true);
    c->evt_prod = 0;
    c->evt_drops = 0;
    c->dma_status = 0;
    c->inject_lo = 0;
    rclink_hostile_reseed(c);
    if (c->bridge) {
        rclink_cosim_ip_levels(c->bridge);
    } else {
        pci_set_irq(c->pci, 0);
    }
}

void rclink_core_set_link(RclinkCore *c, bool carrier)
{
    c->carrier = carrier;
    rclink_link_update(c, false);
}

/*
 * The RX classifier (seed 000, 接收报文识别):
 *
 *   IPv4 + UDP: destination port type1_udp_dport -> TYPE1,
 *               type2_udp_port -> TYPE2, else TYPE3;
 *   other IPv4: TYPE3;
 *   else Ethernet type mac_type1 -> TYPE1, mac_type2 -> TYPE2 (each only
 *   when non-zero), else TYPE3.
 *
 * The Ethernet type is the one after a VLAN tag (TPID 0x8100, 0x88a8 or
 * VLAN_CTRL.tpid), as the IP's parser sees it.  A frame too short for the
 * headers it claims is TYPE3.
 */
static unsigned rclink_classify(RclinkCore *c, const uint8_t *buf, size_t len)
{
    uint64_t cfg = rclink_get(c, RCLINK_RX_CLASS_CFG);
    uint16_t mt1 = RF_GET(RCLINK_RX_CLASS_CFG_MAC_TYPE1, cfg);
    uint16_t mt2 = RF_GET(RCLINK_RX_CLASS_CFG_MAC_TYPE2, cfg);
    uint16_t tpid = RF_GET(RCLINK_VLAN_CTRL_TPID,
                           rclink_get(c, RCLINK_VLAN_CTRL));
    uint16_t type, dport;
    size_t ihl, l3 = 14;

    if (len < 14) {
        return RCLINK_CLASS_TYPE3;
    }
    type = lduw_be_p(buf + 12);
    if ((type == 0x8100 || type == 0x88a8 || (tpid && type == tpid)) &&
        len >= 18) {
        type = lduw_be_p(buf + 16);
        l3 = 18;
    }
    if (type == 0x0800) {
        if (len < l3 + 20 || buf[l3 + 9] != 17) {
            return RCLINK_CLASS_TYPE3;
        }
        ihl = (buf[l3] & 0xf) * 4;
        if (ihl < 20 || len < l3 + ihl + 4) {
            return RCLINK_CLASS_TYPE3;
        }
        dport = lduw_be_p(buf + l3 + ihl + 2);
        if (dport == RF_GET(RCLINK_RX_CLASS_CFG_TYPE1_UDP_DPORT, cfg)) {
            return RCLINK_CLASS_TYPE1;
        }
        if (dport == RF_GET(RCLINK_RX_CLASS_CFG_TYPE2_UDP_PORT, cfg)) {
            return RCLINK_CLASS_TYPE2;
        }
        return RCLINK_CLASS_TYPE3;
    }
    if (mt1 && type == mt1) {
        return RCLINK_CLASS_TYPE1;
    }
    if (mt2 && type == mt2) {
        return RCLINK_CLASS_TYPE2;
    }
    return RCLINK_CLASS_TYPE3;
}

/* A frame from the wire. */
void rclink_core_receive(RclinkCore *c, const uint8_t *buf, size_t len)
{
    uint8_t *marked;
    unsigned cls;

    if (!c->link_up) {
        /* A link that is down receives nothing. */
        trace_rclink_rx_link_down(len);
        return;
    }
    rclink_count(c, RCLINK_SHIM_WIRE_RX_FRAMES);
    if (len >= 14 && lduw_be_p(buf + 12) == 0x8808) {
        /* a MAC control frame: the MAC's own (Pause/PFC) */
        rclink_mac_ctrl_receive(c, buf, len);
        return;
    }
    marked = rclink_wire_rx_queue(c, buf, len);
    if (marked) {
        buf = marked;
    }
    cls = rclink_classify(c, buf, len);
    trace_rclink_rx_frame(len, cls);
    if (cls == RCLINK_CLASS_TYPE1) {
        rclink_t1_receive(c, buf, len);
    } else if (cls == RCLINK_CLASS_TYPE2) {
        rclink_t2_receive(c, buf, len);
    } else {
        rclink_t3_receive(c, buf, len);
    }
    /* CBFC: the frame waits in its VC's buffer or its credits are freed */
    rclink_cbfc_rx_done(c);
    g_free(marked);
}

static bool rclink_access_ok(const struct rclink_regdesc *d, hwaddr addr,
                             unsigned size)
{
    if (d->width == 32) {
        return size == 4 && !(addr & 3);
    }
    return (size == 8 && !(addr & 7)) || (size == 4 && !(addr & 3));
}

static const struct rclink_regdesc *rclink_lookup(RclinkCore *c, hwaddr addr,
                                                  unsigned size, int *slot,
                                                  const char *what)
{
    const struct rclink_regdesc *d;
    int s = rclink_slot_of(c, addr);

    if (s < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: %s of unassigned BAR0 "
                      "offset 0x%" PRIx64 "\n", what, (uint64_t)addr);
        return NULL;
    }
    d = &rclink_regtab[c->slot_reg[s]];
    if (!rclink_access_ok(d, addr, size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: %u-byte %s of %s at 0x%"
                      PRIx64 " (a %u-bit register)\n", size, what, d->name,
                      (uint64_t)addr, d->width);
        return NULL;
    }
    *slot = s;
    return d;
}

/* Storage of the per-QP register d of the selected QP, or NULL. */
static uint64_t *rclink_qp_ptr(RclinkCore *c, const struct rclink_regdesc *d,
                               const char *what)
{
    uint64_t qp = rclink_get(c, RCLINK_QP_ID_SET);

    if (qp >= c->qp_num) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: %s of %s with QP_ID_SET %"
                      PRIu64 " >= QP_NUM %u\n", what, d->name, qp, c->qp_num);
        return NULL;
    }
    return &c->qp_val[qp * c->nqp_regs + c->qp_index[d - rclink_regtab]];
}

uint64_t rclink_core_read(RclinkCore *c, hwaddr addr, unsigned size)
{
    const struct rclink_regdesc *d;
    uint64_t v = 0, *p;
    hwaddr elem;
    int s;

    if (rclink_dead(c)) {
        /* off the bus: what a host reads from a vanished device */
        v = size == 8 ? ~0ULL : UINT32_MAX;
        trace_rclink_mmio_read(addr, size, v);
        return v;
    }
    d = rclink_lookup(c, addr, size, &s, "read");
    if (d) {
        /* the element read, not its array's first (SHIM_CBFC_RX_BUF(n)) */
        elem = QEMU_ALIGN_DOWN(addr, d->width / 8);
        p = d->per_qp ? rclink_qp_ptr(c, d, "read") : &c->slot_val[s];
        if (p && d->offset == RCLINK_TX_CC_BYTE_CNT_MEM) {
            rclink_t1_cc_read(c, rclink_get(c, RCLINK_QP_ID_SET));
        }
        if (p) {
            v = *p;
            if (d->offset == RCLINK_SHIM_TEST_ECHO) {
                v = ~v;
            } else if (d->offset == RCLINK_SHIM_PFC_PAUSED) {
                v = rclink_mac_paused(c);
            } else if (rclink_cbfc_read(c, elem, &v)) {
                /* the CBFC state */
            } else if (d->offset >= RCLINK_WIN_DMAQ_BASE &&
                       d->offset < RCLINK_WIN_DMAQ_BASE +
                       RCLINK_WIN_DMAQ_SIZE) {
                v = rclink_dmaq_read(c, d, elem, v);
            }
            if (!c->ip_counters && RCLINK_IS_IP_INTERNAL_COUNTER(elem)) {
                /* a shim beside the real IP does not see these events */
                v = 0;
            }
            v &= d->rw | d->ro | d->w1c;
            if ((rclink_get(c, RCLINK_SHIM_HOSTILE_CTRL) &
                 RCLINK_SHIM_HOSTILE_CTRL_BUSY)) {
                /* a busy bit that never clears */
                if (d->offset == RCLINK_XON_THR_RDMA) {
                    v |= RCLINK_XON_THR_RDMA_TYPE1_FREE_BUSY;
                } else if (d->offset == RCLINK_QP_CONTROL_STATUS) {
                    v |= RCLINK_QP_CONTROL_STATUS_FREE_BUF_SET;
                }
            }
            if (d->width == 64 && size == 4) {
                v = (addr & 4) ? v >> 32 : (uint32_t)v;
            }
        }
    }
    trace_rclink_mmio_read(addr, size, v);
    return v;
}

static void rclink_side_effects(RclinkCore *c, const struct rclink_regdesc *d,
                                uint64_t *p, uint64_t old, uint64_t wval,
                                uint64_t wmask, hwaddr addr)
{
    if (d->per_qp) {
        rclink_t1_qp_write(c, d->offset, rclink_get(c, RCLINK_QP_ID_SET),
                           old, *p);
        return;
    }
    if (d->offset >= RCLINK_WIN_DMAQ_BASE &&
        d->offset < RCLINK_WIN_DMAQ_BASE + RCLINK_WIN_DMAQ_SIZE) {
        rclink_dmaq_write(c, d, QEMU_ALIGN_DOWN(addr, d->width / 8), p, old,
                          wval);
        return;
    }
    switch (d->offset) {
    case RCLINK_SHIM_RESET:
        if (wval & RCLINK_SHIM_RESET_RESET) {
            rclink_core_reset(c);
        }
        break;
    case RCLINK_SHIM_TEST_IRQ:
        if (wmask & RCLINK_SHIM_TEST_IRQ_VECTOR) {
            rclink_test_irq(c, RF_GET(RCLINK_SHIM_TEST_IRQ_VECTOR, wval));
        }
        break;
    case RCLINK_SHIM_TEST_DMA_CTRL:
        if ((wmask & RCLINK_SHIM_TEST_DMA_CTRL_OP) &&
            RF_GET(RCLINK_SHIM_TEST_DMA_CTRL_OP, wval)) {
            rclink_dma_test(c, *p);
        }
        break;
    case RCLINK_SHIM_EVT_CTRL: {
        unsigned order = RF_GET(RCLINK_SHIM_EVT_CTRL_ORDER, *p);
        unsigned max = RF_GET(RCLINK_SHIM_CAP3_EVT_RING_MAX_ORDER,
                              rclink_get(c, RCLINK_SHIM_CAP3));

        if ((*p & RCLINK_SHIM_EVT_CTRL_ENABLE) && (order < 4 || order > max)) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: event ring order %u "
                          "outside 4..%u, ring left disabled\n", order, max);
            *p &= ~RCLINK_SHIM_EVT_CTRL_ENABLE;
        }
        if (!(old & RCLINK_SHIM_EVT_CTRL_ENABLE) &&
            (*p & RCLINK_SHIM_EVT_CTRL_ENABLE)) {
            c->evt_prod = 0;
            rclink_set(c, RCLINK_SHIM_EVT_PROD, 0);
        }
        rclink_update_intx(c);
        break;
    }
    case RCLINK_SHIM_EVT_CONS:
        rclink_update_intx(c);
        break;
    case RCLINK_SHIM_EVT_INJECT: {
        /* A 64-bit write, or two 32-bit writes with the low half first. */
        unsigned src = RF_GET(RCLINK_SHIM_EVT_INJECT_SRC_SOURCE,
                              rclink_get(c, RCLINK_SHIM_EVT_INJECT_SRC));

        src = src ?: RCLINK_EVT_SRC_IRQ_INFO;
        if (wmask == UINT32_MAX) {
            c->inject_lo = (uint32_t)wval;
        } else if (wmask == ~0ULL) {
            rclink_event(c, src, wval);
        } else {
            rclink_event(c, src, wval | c->inject_lo);
        }
        break;
    }
    case RCLINK_SHIM_INTR_INJECT:
        rclink_raise_causes(c,
                            RF_GET(RCLINK_SHIM_INTR_INJECT_RC_INTR, wval),
                            RF_GET(RCLINK_SHIM_INTR_INJECT_NONR_ST0, wval),
                            RF_GET(RCLINK_SHIM_INTR_INJECT_NONR_ST1, wval));
        break;
    case RCLINK_SHIM_LINK:
        rclink_link_update(c, false);
        break;
    case RCLINK_NONR_DMA_CTRL:
        rclink_t3_ctrl_write(c, old, *p);
        break;
    case RCLINK_TX_MDQ_BA:
    case RCLINK_RX_MDQ_BA:
    case RCLINK_TX_MDQ_SIZE:
    case RCLINK_RX_MDQ_SIZE:
        rclink_t3_mdq_write(c, d, p, old);
        break;
    case RCLINK_TX_MD_HEAD_PTR:
        rclink_t3_tx_head_write(c);
        break;
    case RCLINK_RX_MD_HEAD_PTR:
        rclink_t3_rx_head_write(c);
        break;
    case RCLINK_SHIM_WIRE_FAULT_SEED:
        rclink_wire_reseed(c);
        break;
    case RCLINK_SHIM_WIRE_INJECT:
        if (wmask & RCLINK_SHIM_WIRE_INJECT_LEN) {
            rclink_wire_inject(c, RF_GET(RCLINK_SHIM_WIRE_INJECT_LEN, wval));
        }
        break;
    case RCLINK_SHIM_HOSTILE_SEED:
        rclink_hostile_reseed(c);
        break;
    case RCLINK_SHIM_HOSTILE_CTRL:
        if ((*p & RCLINK_SHIM_HOSTILE_CTRL_DEAD) &&
            !(old & RCLINK_SHIM_HOSTILE_CTRL_DEAD)) {
            /* gone: no DMA, no interrupt any more until a PCI reset */
            uint64_t ctrl = *p, seed = rclink_get(c, RCLINK_SHIM_HOSTILE_SEED);

            rclink_core_reset(c);
            rclink_set(c, RCLINK_SHIM_HOSTILE_SEED, seed);
            rclink_set(c, RCLINK_SHIM_HOSTILE_CTRL, ctrl);
        }
        break;
    case RCLINK_SHIM_CC_TEST:
        rclink_t1_cc_test(c, wval, old);
        break;
    case RCLINK_TX_FC_XOFF_REQ:
        rclink_mac_fc_req(c, old, *p);
        break;
    case RCLINK_PHY_CONFIG:
        rclink_mac_phy_config(c, old, *p);
        break;
    case RCLINK_SHIM_CBFC_CTRL:
        rclink_cbfc_ctrl(c, wval);
        break;
    case RCLINK_SHIM_CBFC_TIMING:
        rclink_cbfc_cfg_changed(c);
        break;
    case RCLINK_AFH_CFG_EN:
        /*
         * No format at all is the reset value (and what the driver's
         * probe of the assumed fields writes back): an error only while
         * TYPE1 is enabled.  Several formats always are.
         */
        if (rclink_t1_format(c) == RCLINK_T1_FMT_NONE &&
            (ctpop64(*p & (RCLINK_AFH_CFG_EN_STANDARD_EN |
                           RCLINK_AFH_CFG_EN_AFH_GEN1_EN |
                           RCLINK_AFH_CFG_EN_AFH_GEN2_16B_EN |
                           RCLINK_AFH_CFG_EN_AFH_LITE_EN)) > 1 ||
             (rclink_get(c, RCLINK_RDMA_EN) & RCLINK_RDMA_EN_TYPE1_EN))) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: AFH_CFG_EN 0x%" PRIx64
                          ": not exactly one header format, TYPE1 stops\n",
                          *p);
        }
        rclink_cbfc_cfg_changed(c);
        /* fall through */
    case RCLINK_RDMA_EN:
        /* TYPE1 may run now: pending work goes. */
        rclink_t1_kick(c);
        break;
    default:
        break;
    }
}

void rclink_core_write(RclinkCore *c, hwaddr addr, uint64_t val,
                       unsigned size)
{
    const struct rclink_regdesc *d;
    uint64_t wmask = ~0ULL, wval = val, rw, old, *p;
    int s;

    trace_rclink_mmio_write(addr, size, val);
    if (rclink_dead(c)) {
        return;
    }
    d = rclink_lookup(c, addr, size, &s, "write");
    if (!d) {
        return;
    }
    if (d->width == 32) {
        wmask = UINT32_MAX;
        wval &= wmask;
    } else if (size == 4) {
        unsigned shift = (addr & 4) ? 32 : 0;

        wmask = (uint64_t)UINT32_MAX << shift;
        wval = (val & UINT32_MAX) << shift;
    }
    p = d->per_qp ? rclink_qp_ptr(c, d, "write") : &c->slot_val[s];
    if (!p) {
        return;
    }
    old = *p;
    rw = d->rw & wmask & ~rclink_absent_bits(c, d);
    if (wval & wmask & rclink_absent_bits(c, d)) {
        trace_rclink_absent_write(d->name,
                                  wval & wmask & rclink_absent_bits(c, d));
    }
    *p = (old & ~rw) | (wval & rw);
    *p &= ~(wval & d->w1c & wmask);
    if (d->ro & wval & wmask & ~old) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: write to read-only bits "
                      "0x%" PRIx64 " of %s ignored\n",
                      d->ro & wval & wmask & ~old, d->name);
    }
    rclink_side_effects(c, d, p, old, wval, wmask, addr);
}
