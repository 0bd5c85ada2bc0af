/*
 * rclink board model: the TYPE3 (raw Ethernet) memory descriptor rings of
 * the RCLINK-Stream IP (seed 000, TYPE3 收发流程), as the contract in
 * Documentation/hw/shim.rst ("TYPE3 rings") has them.
 *
 * TX runs synchronously when the host writes TX_MD_HEAD_PTR (or enables
 * the path): every MD from tail to head is one frame (SF = LF = 1), read
 * from host memory and sent on the wire.  RX runs when a TYPE3 frame
 * arrives: the frame is spread over the MDs from tail on, or dropped and
 * counted; the model never holds a frame back.  Faults set DMA_INTR_ST1
 * bits; those the seed has "需要软复位" halt their path until the soft reset
 * (*_reset 1 -> 0), the bus errors (bits 2-4, "只上报中断") only drop
 * their frame and the path goes on.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "net/eth.h"
#include "rclink_core.h"
#include "trace.h"

/* The last TX MD that carried only one of SF / LF. */
enum {
    RCLINK_T3_PARTIAL_NONE,
    RCLINK_T3_PARTIAL_SOP,
    RCLINK_T3_PARTIAL_EOP,
};

/* The registers and bits of one direction. */
typedef struct RclinkT3Dir {
    unsigned idx;
    const char *name;
    hwaddr head, tail, ba, size;
    uint64_t head_mask, size_mask;
    uint64_t en, reset;                /* NONR_DMA_CTRL */
    uint64_t tail_up_cfg;              /* TAIL_UP_CFG field */
    uint64_t int_mask;                 /* DMA_INT_MASK bit */
    uint64_t st0_tail_up;              /* DMA_INTR_ST0 bit */
} RclinkT3Dir;

static const RclinkT3Dir rclink_t3_dirs[2] = {
    [RCLINK_T3_TX] = {
        .idx = RCLINK_T3_TX,
        .name = "TX",
        .head = RCLINK_TX_MD_HEAD_PTR,
        .tail = RCLINK_TX_MD_TAIL_PTR,
        .ba = RCLINK_TX_MDQ_BA,
        .size = RCLINK_TX_MDQ_SIZE,
        .head_mask = RCLINK_TX_MD_HEAD_PTR_HEAD,
        .size_mask = RCLINK_TX_MDQ_SIZE_SIZE,
        .en = RCLINK_NONR_DMA_CTRL_TX_EN,
        .reset = RCLINK_NONR_DMA_CTRL_TX_RESET,
        .tail_up_cfg = RCLINK_TAIL_UP_CFG_TX_TAIL_UP,
        .int_mask = RCLINK_DMA_INT_MASK_TX_TAIL_UP,
        .st0_tail_up = RCLINK_DMA_INTR_ST0_TX_TAIL_UP,
    },
    [RCLINK_T3_RX] = {
        .idx = RCLINK_T3_RX,
        .name = "RX",
        .head = RCLINK_RX_MD_HEAD_PTR,
        .tail = RCLINK_RX_MD_TAIL_PTR,
        .ba = RCLINK_RX_MDQ_BA,
        .size = RCLINK_RX_MDQ_SIZE,
        .head_mask = RCLINK_RX_MD_HEAD_PTR_HEAD,
        .size_mask = RCLINK_RX_MDQ_SIZE_SIZE,
        .en = RCLINK_NONR_DMA_CTRL_RX_EN,
        .reset = RCLINK_NONR_DMA_CTRL_RX_RESET,
        .tail_up_cfg = RCLINK_TAIL_UP_CFG_RX_TAIL_UP,
        .int_mask = RCLINK_DMA_INT_MASK_RX_TAIL_UP,
        .st0_tail_up = RCLINK_DMA_INTR_ST0_RX_TAIL_UP,
    },
};

#define T3_TX (&rclink_t3_dirs[RCLINK_T3_TX])
#define T3_RX (&rclink_t3_dirs[RCLINK_T3_RX])

/* Out of reset (*_reset = 1) and enabled. */
static bool rclink_t3_active(const RclinkT3Dir *d, uint64_t ctrl)
{
    return (ctrl & d->en) && (ctrl & d->reset);
}

/*
 * The ring size, or 0 if the ring cannot be used: its size is 0 or its
 * base is not 64-byte aligned.  With log, a bad ring is a guest error.
 */
static uint32_t rclink_t3_ring_size(RclinkCore *c, const RclinkT3Dir *d,
                                    bool log)
{
    uint32_t size = RF_GET(d->size_mask, rclink_get(c, d->size));
    uint64_t ba = rclink_get(c, d->ba);

    if (!size) {
        if (log) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: TYPE3 %s enabled with "
                          "a ring size of 0: the path does nothing\n",
                          d->name);
        }
        return 0;
    }
    if (ba & (RCLINK_MD_BYTES * 4 - 1)) {
        if (log) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: TYPE3 %s MD ring base "
                          "0x%" PRIx64 " not 64-byte aligned: the path does "
                          "nothing\n", d->name, ba);
        }
        return 0;
    }
    return size;
}

/* The tail register (always inside the ring: see the soft reset). */
static uint32_t rclink_t3_tail(RclinkCore *c, const RclinkT3Dir *d,
                               uint32_t size)
{
    uint32_t tail = rclink_get(c, d->tail);

    return tail < size ? tail : 0;
}

/* Soft reset of one direction: entering reset (*_reset 1 -> 0). */
static void rclink_t3_soft_reset(RclinkCore *c, const RclinkT3Dir *d)
{
    trace_rclink_t3_soft_reset(d->name);
    rclink_set(c, d->head, 0);
    rclink_set(c, d->tail, 0);
    c->t3.halted[d->idx] = false;
    if (d->idx == RCLINK_T3_TX) {
        c->t3.tx_partial = RCLINK_T3_PARTIAL_NONE;
    }
}

void rclink_t3_reset(RclinkCore *c)
{
    c->t3.halted[RCLINK_T3_TX] = false;
    c->t3.halted[RCLINK_T3_RX] = false;
    c->t3.tx_partial = RCLINK_T3_PARTIAL_NONE;
}

/* The faults the seed only reports: AXI bus errors of MD and data */
#define T3_ST1_REPORT_ONLY (RCLINK_DMA_INTR_ST1_MD_AXI_WR_RESP_ERR | \
                            RCLINK_DMA_INTR_ST1_MD_AXI_RD_RESP_ERR | \
                            RCLINK_DMA_INTR_ST1_DATA_AXI_RESP_ERR)

/*
 * A fault: its DMA_INTR_ST1 bit; the path halts until the soft reset,
 * but for a bus error, which only costs its frame.
 */
static uint64_t rclink_t3_fault(RclinkCore *c, const RclinkT3Dir *d,
                                uint64_t st1, const char *what, uint32_t md)
{
    bool halt = !(st1 & T3_ST1_REPORT_ONLY);

    if (halt) {
        c->t3.halted[d->idx] = true;
    } else {
        /* a failed DMA: the IP's AXI access answered SLVERR on the board */
        rclink_count(c, RCLINK_SHIM_T3_DMA_ERR);
    }
    trace_rclink_t3_fault(d->name, what, md);
    qemu_log_mask(LOG_GUEST_ERROR, "rclink: TYPE3 %s fault %s at MD %u: %s\n",
                  d->name, what, md, halt ?
                  "the path halts until a soft reset" :
                  "the frame is dropped, the path goes on");
    return st1;
}

/*
 * Store the new tail; the ST0 tail-up bit if the direction's TAIL_UP_CFG
 * value lies in (old, new] modulo the ring size and DMA_INT_MASK enables
 * the direction.
 */
static uint64_t rclink_t3_tail_moved(RclinkCore *c, const RclinkT3Dir *d,
                                     uint32_t old, uint32_t new,
                                     uint32_t size)
{
    uint32_t cfg = RF_GET(d->tail_up_cfg, rclink_get(c, RCLINK_TAIL_UP_CFG));
    uint32_t moved = (new + size - old) % size;
    uint32_t dist;

    rclink_set(c, d->tail, new);
    if (!moved || cfg >= size ||
        !(rclink_get(c, RCLINK_DMA_INT_MASK) & d->int_mask)) {
        return 0;
    }
    dist = (cfg + size - old) % size;
    if (!dist || dist > moved) {
        return 0;
    }
    trace_rclink_t3_tail_up(d->name, old, new, cfg);
    return d->st0_tail_up;
}

/* ---------------------------------------------------------------- TX */

static void rclink_t3_tx_send(RclinkCore *c, uint8_t *buf, uint32_t len,
                              uint32_t md)
{
    if (!c->link_up) {
        /* The MD completes; the frame goes nowhere. */
        rclink_count(c, RCLINK_SHIM_TX_DROP_LINK);
        trace_rclink_t3_tx_drop("link down", md, len);
        return;
    }
    if (len < ETH_ZLEN) {
        /* Like a MAC: the wire sees at least a minimum Ethernet frame. */
        memset(buf + len, 0, ETH_ZLEN - len);
        len = ETH_ZLEN;
    }
    trace_rclink_t3_tx_frame(md, len);
    rclink_cbfc_tx_sent(c, RCLINK_CBFC_FLOW_TYPE3, len);
    rclink_wire_send(c, buf, len);
}

/*
 * One TX MD; a DMA_INTR_ST1 bit if it faults (it is then not consumed, but
 * for a bus error: its frame is not sent and the MD is consumed).
 */
static uint64_t rclink_t3_tx_md(RclinkCore *c, uint32_t md)
{
    const RclinkT3Dir *d = T3_TX;
    dma_addr_t mda = rclink_get(c, d->ba) + (dma_addr_t)md * RCLINK_MD_BYTES;
    uint8_t buf[RCLINK_MD_TX_MAX_FRAME];
    uint64_t w[2], ctrl, addr;
    uint32_t len;
    bool sf, lf;

    if (pci_dma_read(c->pci, mda, w, sizeof(w)) != MEMTX_OK) {
        return rclink_t3_fault(c, d, RCLINK_DMA_INTR_ST1_MD_AXI_RD_RESP_ERR,
                               "md_axi_rd_resp_err", md);
    }
    ctrl = le64_to_cpu(w[0]);
    addr = le64_to_cpu(w[1]);
    sf = ctrl & RCLINK_MD_CTRL_SF;
    lf = ctrl & RCLINK_MD_CTRL_LF;
    len = RF_GET(RCLINK_MD_CTRL_DATA_SIZE, ctrl);

    if (!(sf && lf)) {
        /* A frame must fit one MD: anything else is skipped ... */
        if (sf && c->t3.tx_partial == RCLINK_T3_PARTIAL_SOP) {
            /* ... but two SOPs (or two EOPs) in a row are a fault. */
            return rclink_t3_fault(c, d, RCLINK_DMA_INTR_ST1_TX_TWO_SOP,
                                   "tx_two_sop", md);
        }
        if (lf && c->t3.tx_partial == RCLINK_T3_PARTIAL_EOP) {
            return rclink_t3_fault(c, d, RCLINK_DMA_INTR_ST1_TX_TWO_EOP,
                                   "tx_two_eop", md);
        }
        if (sf) {
            c->t3.tx_partial = RCLINK_T3_PARTIAL_SOP;
        } else if (lf) {
            c->t3.tx_partial = RCLINK_T3_PARTIAL_EOP;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: TYPE3 TX MD %u has SF %d "
                      "LF %d, not both: skipped\n", md, sf, lf);
        trace_rclink_t3_tx_skip(md, ctrl);
        return 0;
    }
    c->t3.tx_partial = RCLINK_T3_PARTIAL_NONE;
    if (!len) {
        return rclink_t3_fault(c, d, RCLINK_DMA_INTR_ST1_TX_MD_SIZE_ZERO,
                               "tx_md_size_zero", md);
    }
    if (len > RCLINK_MD_TX_MAX_FRAME) {
        return rclink_t3_fault(c, d, RCLINK_DMA_INTR_ST1_TX_OVERSIZE,
                               "tx_oversize", md);
    }
    if (pci_dma_read(c->pci, addr, buf, len) != MEMTX_OK) {
        return rclink_t3_fault(c, d, RCLINK_DMA_INTR_ST1_DATA_AXI_RESP_ERR,
                               "data_axi_resp_err", md);
    }
    rclink_t3_tx_send(c, buf, len, md);
    return 0;
}

/* Process the TX MDs from tail to head, if the path runs. */
static void rclink_t3_tx_run(RclinkCore *c)
{
    const RclinkT3Dir *d = T3_TX;
    uint64_t st0 = 0, st1 = 0;
    uint32_t size, head, tail, old;

    if (!rclink_t3_active(d, rclink_get(c, RCLINK_NONR_DMA_CTRL))) {
        /* Kept; processed once the path is enabled and out of reset. */
        return;
    }
    if (c->t3.halted[d->idx]) {
        trace_rclink_t3_halted(d->name);
        return;
    }
    size = rclink_t3_ring_size(c, d, true);
    if (!size) {
        return;
    }
    head = RF_GET(d->head_mask, rclink_get(c, d->head));
    if (head >= size) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: TX_MD_HEAD_PTR %u outside "
                      "the ring of %u MDs: ignored\n", head, size);
        return;
    }
    old = tail = rclink_t3_tail(c, d, size);
    while (tail != head) {
        if (!rclink_cbfc_tx_ok(c, RCLINK_CBFC_FLOW_TYPE3)) {
            /* CBFC credits or the peer's PFC: the frames wait in the ring */
            break;
        }
        uint64_t st = rclink_t3_tx_md(c, tail);

        st1 |= st;
        if (st & ~T3_ST1_REPORT_ONLY) {
            break;              /* halted at this MD */
        }
        tail = (tail + 1) % size;
    }
    if (tail != old) {
        st0 = rclink_t3_tail_moved(c, d, old, tail, size);
        if (tail == head) {
            /* Drained: latched, raises nothing. */
            rclink_latch_st0(c, RCLINK_DMA_INTR_ST0_TX_MD_EMPTY);
        }
    }
    if (st0 || st1) {
        rclink_raise_causes(c, 0, st0, st1);
    }
}

void rclink_t3_tx_head_write(RclinkCore *c)
{
    rclink_t3_tx_run(c);
}

/* ---------------------------------------------------------------- RX */

static void rclink_t3_rx_drop(RclinkCore *c, hwaddr counter, const char *why,
                              size_t len)
{
    rclink_count(c, counter);
    trace_rclink_rx_drop(why, len);
}

/* An RX fault: the frame is dropped and the path halts. */
static void rclink_t3_rx_fault(RclinkCore *c, uint64_t st1, const char *what,
                               uint32_t md, size_t len)
{
    rclink_t3_fault(c, T3_RX, st1, what, md);
    rclink_t3_rx_drop(c, RCLINK_SHIM_RX_DROP_ERR, what, len);
    rclink_raise_causes(c, 0, 0, st1);
}

void rclink_t3_receive(RclinkCore *c, const uint8_t *buf, size_t len)
{
    const RclinkT3Dir *d = T3_RX;
    uint64_t (*mds)[2] = c->t3.rx_md;
    dma_addr_t ba = rclink_get(c, d->ba);
    uint32_t size, head, tail, avail, n, i, chunk, md;
    size_t got, off;
    uint64_t st0;

    rclink_cbfc_rx_enter(c, RCLINK_CBFC_FLOW_TYPE3, len);
    if (rclink_cbfc_rx_defer(c, RCLINK_CBFC_T3, 0, buf, len, true) !=
        RCLINK_CBFC_DIRECT) {
        return;                 /* behind the frames waiting in its VC */
    }
    if (!rclink_t3_active(d, rclink_get(c, RCLINK_NONR_DMA_CTRL)) ||
        c->t3.halted[d->idx]) {
        rclink_t3_rx_drop(c, RCLINK_SHIM_RX_DROP_OFF, "rx off", len);
        return;
    }
    size = rclink_t3_ring_size(c, d, false);
    head = RF_GET(d->head_mask, rclink_get(c, d->head));
    if (!size || head >= size) {
        /* Reported when configured: a path that cannot run is off. */
        rclink_t3_rx_drop(c, RCLINK_SHIM_RX_DROP_OFF, "rx ring unusable", len);
        return;
    }
    tail = rclink_t3_tail(c, d, size);
    if (len > RCLINK_MD_RX_OVERSIZE) {
        rclink_t3_rx_fault(c, RCLINK_DMA_INTR_ST1_RX_OVERSIZE, "rx_oversize",
                           tail, len);
        return;
    }

    /* The MDs the frame needs, all posted, before anything is written. */
    avail = (head + size - tail) % size;
    if (rclink_get(c, RCLINK_SHIM_CC_TEST) & RCLINK_SHIM_CC_TEST_T3_RX_HOLD) {
        avail = 0;              /* test hook: the host posted nothing */
    }
    for (n = 0, got = 0; got < len || !n; n++) {
        dma_addr_t mda;

        if (n == avail) {
            if (rclink_cbfc_rx_defer(c, RCLINK_CBFC_T3, 0, buf, len, false) !=
                RCLINK_CBFC_DIRECT) {
                /* CBFC: waits in the VC's buffer for MDs */
                rclink_raise_causes(c, 0, RCLINK_DMA_INTR_ST0_RX_MD_EMPTY, 0);
                return;
            }
            rclink_t3_rx_drop(c, RCLINK_SHIM_RX_DROP_NOMD, "no rx md", len);
            rclink_raise_causes(c, 0, RCLINK_DMA_INTR_ST0_RX_MD_EMPTY, 0);
            return;
        }
        md = (tail + n) % size;
        mda = ba + (dma_addr_t)md * RCLINK_MD_BYTES;
        if (pci_dma_read(c->pci, mda, mds[n], sizeof(mds[n])) != MEMTX_OK) {
            rclink_t3_rx_fault(c, RCLINK_DMA_INTR_ST1_MD_AXI_RD_RESP_ERR,
                               "md_axi_rd_resp_err", md, len);
            return;
        }
        mds[n][0] = le64_to_cpu(mds[n][0]);
        mds[n][1] = le64_to_cpu(mds[n][1]);
        chunk = RF_GET(RCLINK_MD_CTRL_BUF_SIZE, mds[n][0]);
        if (!chunk) {
            rclink_t3_rx_fault(c, RCLINK_DMA_INTR_ST1_RX_MD_SIZE_ZERO,
                               "rx_md_size_zero", md, len);
            return;
        }
        got += chunk;
    }

    /* The data, then word 0 of each MD (one 8-byte write each). */
    for (i = 0, off = 0; i < n; i++) {
        chunk = MIN(RF_GET(RCLINK_MD_CTRL_BUF_SIZE, mds[i][0]), len - off);
        if (chunk &&
            pci_dma_write(c->pci, mds[i][1], buf + off, chunk) != MEMTX_OK) {
            rclink_t3_rx_fault(c, RCLINK_DMA_INTR_ST1_DATA_AXI_RESP_ERR,
                               "data_axi_resp_err", (tail + i) % size, len);
            return;
        }
        off += chunk;
    }
    for (i = 0, off = 0; i < n; i++) {
        uint64_t w0 = mds[i][0] & RCLINK_MD_CTRL_BUF_SIZE;

        chunk = MIN(RF_GET(RCLINK_MD_CTRL_BUF_SIZE, w0), len - off);
        off += chunk;
        w0 = RF_SET(RCLINK_MD_CTRL_DATA_SIZE, w0, chunk);
        if (rclink_hostile(c, RCLINK_SHIM_HOSTILE_CTRL_MD)) {
            /* more data than the buffer holds */
            w0 = RF_SET(RCLINK_MD_CTRL_DATA_SIZE, w0,
                        RF_GET(RCLINK_MD_CTRL_BUF_SIZE, w0) + 1 +
                        rclink_hostile_rand(c) % 64);
        }
        if (!i) {
            w0 |= RCLINK_MD_CTRL_SF;
        }
        if (i == n - 1) {
            w0 |= RCLINK_MD_CTRL_LF;
        }
        md = (tail + i) % size;
        w0 = cpu_to_le64(w0);
        if (pci_dma_write(c->pci, ba + (dma_addr_t)md * RCLINK_MD_BYTES,
                          &w0, sizeof(w0)) != MEMTX_OK) {
            rclink_t3_rx_fault(c, RCLINK_DMA_INTR_ST1_MD_AXI_WR_RESP_ERR,
                               "md_axi_wr_resp_err", md, len);
            return;
        }
    }
    trace_rclink_t3_rx_frame(tail, n, len);
    st0 = rclink_t3_tail_moved(c, d, tail, (tail + n) % size, size);
    if (st0) {
        rclink_raise_causes(c, 0, st0, 0);
    }
}

void rclink_t3_rx_head_write(RclinkCore *c)
{
    const RclinkT3Dir *d = T3_RX;
    uint32_t size, head;

    if (!rclink_t3_active(d, rclink_get(c, RCLINK_NONR_DMA_CTRL))) {
        return;
    }
    size = RF_GET(d->size_mask, rclink_get(c, d->size));
    head = RF_GET(d->head_mask, rclink_get(c, d->head));
    if (size && head >= size) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: RX_MD_HEAD_PTR %u outside "
                      "the ring of %u MDs: no frame is received\n",
                      head, size);
        return;
    }
    /* room for the frames waiting in the CBFC receive buffer */
    rclink_cbfc_rx_drain(c);
}

/* ---------------------------------------------------------------- setup */

void rclink_t3_ctrl_write(RclinkCore *c, uint64_t old, uint64_t val)
{
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(rclink_t3_dirs); i++) {
        const RclinkT3Dir *d = &rclink_t3_dirs[i];

        if ((old & d->reset) && !(val & d->reset)) {
            rclink_t3_soft_reset(c, d);
        }
    }
    if (rclink_t3_active(T3_RX, val) && !rclink_t3_active(T3_RX, old)) {
        rclink_t3_ring_size(c, T3_RX, true);
    }
    if (rclink_t3_active(T3_TX, val) && !rclink_t3_active(T3_TX, old)) {
        /* MDs posted while the path was off go now. */
        rclink_t3_tx_run(c);
    }
}

/* *_MDQ_BA / *_MDQ_SIZE are static while their path is out of reset. */
void rclink_t3_mdq_write(RclinkCore *c, const struct rclink_regdesc *r,
                         uint64_t *p, uint64_t old)
{
    const RclinkT3Dir *d = (r->offset == RCLINK_TX_MDQ_BA ||
                            r->offset == RCLINK_TX_MDQ_SIZE) ? T3_TX : T3_RX;

    if (rclink_get(c, RCLINK_NONR_DMA_CTRL) & d->reset) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: %s written while the TYPE3 "
                      "%s path is out of reset: ignored\n", r->name, d->name);
        *p = old;
    }
}
