/*
 * rclink board model: the RTL variant (property rtl=PATH).  PCI
 * configuration space, BAR2 MSI-X, MSI, INTx, PM, FLR and AER stay here;
 * every BAR0 access goes to a Verilated simulation of the shim's core
 * (firmware/rtl/cosim) in another process over the UNIX socket PATH, which
 * sends back read completions, DMA requests (done here with pci_dma_*, so
 * a vIOMMU still checks them) and interrupts.  The messages are those of
 * rclink_cosim.h.
 *
 * Order: the stream is handled in order, so a DMA write the simulator
 * sent before an interrupt is in guest memory before the interrupt is
 * raised.  While a BAR0 read waits for its completion the DMA requests
 * and interrupts that come first are served (the simulator may need a DMA
 * answer before it can complete the read).  The socket is non-blocking: a
 * send that finds it full takes in what the simulator sends meanwhile (a
 * simulator blocked sending DMA writes never waits for a QEMU blocked
 * sending it BAR0 writes); a bottom half handles those messages later.  A simulator that is missing,
 * goes away or does not answer a read within RCLINK_COSIM_TIMEOUT_MS is
 * dead: reads return all ones, writes are dropped, each logged as a guest
 * error, and the device never waits for it again.
 *
 * The bridge (rtl-bridge=on, simulator --ip-bridge): the shim's IP side
 * comes here too, to this device's model of the IP, MAC and wire, in
 * place of the simulator's stand-ins.  AXI4-Lite and MAC CSR requests are
 * register accesses of the model (reads answered at once: the simulator's
 * clock stands still meanwhile); a TX_S packet enters the model's IP as
 * its own engine's would (rclink_dmaq_bridge_tx); the IP's outputs come
 * back as messages: TX_S credits, IRQ_INFO records, RX_M packets (handed
 * over when FLOW_STOP allows, else refused as the model's engine would),
 * RC_INTR and the status levels.  The model's own shim stays idle.  An
 * IP_RESET (ip_rst_n fell) resets the model; what the model sent before
 * it carries the old epoch and is dropped by the simulator.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/sockets.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "system/dma.h"
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>
#include "rclink_cosim.h"
#include "rclink_cosim_dev.h"
#include "rclink_type1.h"
#include "trace.h"

#define RCLINK_COSIM_TIMEOUT_MS 10000
/*
 * RX_M packets the bridge hands to the shim before it has taken them: the
 * IP's receive buffer (16 packets of TYPE1_PKT_LEN)
 */
#define RCLINK_COSIM_RX_MAX 16
/*
 * A board's shim takes RX_M packets about as fast as the wire brings them;
 * the simulator, free-running in its own time, takes them far more slowly
 * than the model's wire (a burst arrives at one virtual instant).  So
 * with the buffer full the bridge waits (wall clock) for the simulator to
 * take one: at most RCLINK_COSIM_RX_WAIT_MS, and no longer than
 * RCLINK_COSIM_RX_QUIET_MS without a message (a simulator that holds
 * RX_M_RDY low goes quiet), and not past a message the model's receive
 * path cannot handle (the shim's own TX_S packets, sent meanwhile).  A
 * wait that ends without a packet taken is the simulator's slowness, not
 * the shim's refusal (the shim refuses with FLOW_STOP).  With
 * retransmission the model refuses the packet then (RNR or a counted
 * drop; the sender sends it again, paced to the simulator: taking them
 * all beyond the buffer made the model's RDMA requester time out, t1_rdma
 * with the RTL board as B).  An AFH_Lite TYPE1 packet, which nothing
 * sends again, still goes, beyond the buffer, up to RCLINK_COSIM_RX_LIMIT
 * (the IP's TYPE1 slots: a bound for a simulator that no longer takes
 * any), and so do the next ones without a wait until the simulator takes
 * one (a wait for each would stop the model while its peer's timers run).
 */
#define RCLINK_COSIM_RX_WAIT_MS 500
#define RCLINK_COSIM_RX_QUIET_MS 20
#define RCLINK_COSIM_RX_LIMIT 512
#define RCLINK_COSIM_CONNECT_MS 10000

static void rclink_cosim_dead(RclinkCosim *c, const char *why)
{
    if (c->fd < 0) {
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "rclink: RTL simulator %s: %s; BAR0 reads "
                  "return all ones from now on\n", c->path, why);
    error_report("rclink: RTL simulator %s: %s", c->path, why);
    qemu_set_fd_handler(c->fd, NULL, NULL, NULL);
    close(c->fd);
    c->fd = -1;
    c->read_pending = false;
    if (c->intx) {
        pci_set_irq(c->pdev, 0);
        c->intx = false;
    }
}

/* Take in what the socket holds (as much as fits); false when it is gone. */
static bool rclink_cosim_take(RclinkCosim *c)
{
    ssize_t n;

    if (c->inoff) {
        memmove(c->inbuf, c->inbuf + c->inoff, c->inlen - c->inoff);
        c->inlen -= c->inoff;
        c->inoff = 0;
    }
    if (c->inlen == sizeof(c->inbuf)) {
        return true;
    }
    do {
        n = recv(c->fd, c->inbuf + c->inlen, sizeof(c->inbuf) - c->inlen,
                 MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return true;
    }
    if (n <= 0) {
        rclink_cosim_dead(c, n < 0 ? strerror(errno) : "gone");
        return false;
    }
    c->inlen += n;
    return true;
}

static bool rclink_cosim_send_ep(RclinkCosim *c, uint32_t type, uint32_t be,
                                 uint64_t addr, uint64_t data, uint64_t ep)
{
    struct rclink_cosim_msg m = {
        .type = type, .be = be, .addr = addr, .data = data, .rsvd = ep,
    };
    const uint8_t *p = (const uint8_t *)&m;
    size_t left = sizeof(m);

    if (c->fd < 0) {
        return false;
    }
    while (left) {
        ssize_t n = send(c->fd, p, left, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = { .fd = c->fd, .events = POLLOUT | POLLIN };

            if (poll(&pfd, 1, RCLINK_COSIM_TIMEOUT_MS) <= 0) {
                rclink_cosim_dead(c, "not taking messages");
                return false;
            }
            /* the simulator may wait for room to send us something */
            if ((pfd.revents & POLLIN) && !rclink_cosim_take(c)) {
                return false;
            }
            if (c->inlen - c->inoff >= sizeof(struct rclink_cosim_msg)) {
                qemu_bh_schedule(c->bh);
            }
            continue;
        }
        if (n <= 0) {
            rclink_cosim_dead(c, n < 0 ? strerror(errno) : "gone");
            return false;
        }
        p += n;
        left -= n;
    }
    return true;
}

static bool rclink_cosim_send(RclinkCosim *c, uint32_t type, uint32_t be,
                              uint64_t addr, uint64_t data)
{
    return rclink_cosim_send_ep(c, type, be, addr, data, 0);
}

/* A message of the IP (the bridge): of the current IP epoch */
static void rclink_cosim_send_ip(RclinkCosim *c, uint32_t type, uint32_t be,
                                 uint64_t addr, uint64_t data)
{
    rclink_cosim_send_ep(c, type, be, addr, data, c->epoch);
}

/* ------------------------------------------------ the bridge: IP outputs */

void rclink_cosim_ip_levels(RclinkCosim *c)
{
    RclinkCore *core = c->core;
    uint64_t dfx, v[3];

    if (!core || c->fd < 0) {
        return;
    }
    dfx = rclink_get(core, RCLINK_DMAQ_DFX);
    v[0] = rclink_get(core, RCLINK_INTR_STATUS) & 0xffff;
    v[1] = (dfx & RCLINK_DMAQ_DFX_RX_IDLE ? 1 : 0) |
           (dfx & RCLINK_DMAQ_DFX_TX_IDLE ? 2 : 0) |
           (dfx & RCLINK_DMAQ_DFX_TX_WAIT_MAC_CRD ? 4 : 0) |
           (dfx & RCLINK_DMAQ_DFX_TX_MAC_FREE ? 8 : 0) |
           (core->carrier ? 16 : 0);
    v[2] = core->t1 ? core->t1->t2.crd : RCLINK_PARAM_TYPE2_CRD_RST_NUM_DEFAULT;
    if (c->levels_sent && !memcmp(v, c->levels, sizeof(v))) {
        return;
    }
    memcpy(c->levels, v, sizeof(v));
    c->levels_sent = true;
    rclink_cosim_send_ip(c, RCLINK_COSIM_IP_LEVELS, v[0], v[1], v[2]);
}

void rclink_cosim_ip_credit(RclinkCosim *c, unsigned crd, uint32_t qpid,
                            bool qpid_vld)
{
    trace_rclink_cosim_ip_credit(crd, qpid, qpid_vld);
    rclink_cosim_send_ip(c, RCLINK_COSIM_IP_CRD, crd, qpid, qpid_vld);
    rclink_cosim_ip_levels(c);
}

/*
 * An event of the model's IP: IRQ_INFO goes to the shim's IRQ_VLD_O /
 * IRQ_INFO_O, RC_INTR is the INTR_STATUS level (RC_INTR_O).  RECV_ACK,
 * RETRY_TMO, the CC events and the link are not bridged: the RTL board's
 * shim does not see them (Documentation/testing.rst).
 */
void rclink_cosim_ip_event(RclinkCosim *c, unsigned source, uint64_t info)
{
    trace_rclink_cosim_ip_event(source, info);
    if (source == RCLINK_EVT_SRC_IRQ_INFO) {
        rclink_cosim_send_ip(c, RCLINK_COSIM_IP_IRQ, 0, 0, info);
    }
    rclink_cosim_ip_levels(c);
}

/*
 * Wait for the simulator to take an RX_M packet (rx_pending one lower, or
 * below the buffer) while the model is inside its receive path: only the
 * messages that do not enter the model's IP are handled here (DMA, interrupts,
 * RX_TAKEN, FLOW_STOP); the first other one ends the wait and stays in
 * order for the bottom half, as does the drain the room would start.
 */
static void rclink_cosim_handle(RclinkCosim *c,
                                const struct rclink_cosim_msg *m);

static void rclink_cosim_rx_wait(RclinkCosim *c)
{
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    int64_t end = now + RCLINK_COSIM_RX_WAIT_MS;
    int64_t quiet = now + RCLINK_COSIM_RX_QUIET_MS;
    unsigned pending = c->rx_pending;

    trace_rclink_cosim_rx_wait(c->rx_pending);
    /* until one is taken (the buffer has room again, or less overflow) */
    while (c->fd >= 0 && c->rx_pending >= RCLINK_COSIM_RX_MAX &&
           c->rx_pending >= pending) {
        struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
        struct rclink_cosim_msg m;
        int r;

        if (c->inlen - c->inoff >= sizeof(m)) {
            memcpy(&m, c->inbuf + c->inoff, sizeof(m));
            if (m.type == RCLINK_COSIM_RX_TAKEN) {
                c->rx_pending--;
                c->rx_slow = false;
                c->drain_due = true;
            } else if (m.type == RCLINK_COSIM_FLOW_STOP) {
                c->flow_stop = m.be;
                c->drain_due = true;
            } else if (m.type >= RCLINK_COSIM_IP_WRITE ||
                       m.type == RCLINK_COSIM_MMIO_CPL) {
                break;
            } else {
                rclink_cosim_handle(c, &m);
            }
            c->inoff += sizeof(m);
            continue;
        }
        now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
        r = poll(&pfd, 1, MAX(0, MIN(end, quiet) - now));
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0 || !rclink_cosim_take(c)) {
            break;
        }
        quiet = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                RCLINK_COSIM_RX_QUIET_MS;
    }
    if (c->rx_pending >= RCLINK_COSIM_RX_MAX && c->rx_pending >= pending) {
        c->rx_slow = true;
    }
    trace_rclink_cosim_rx_waited(c->rx_pending,
                                 qemu_clock_get_ms(QEMU_CLOCK_REALTIME) -
                                 (end - RCLINK_COSIM_RX_WAIT_MS));
    if (c->bh && (c->drain_due ||
                  c->inlen - c->inoff >= sizeof(struct rclink_cosim_msg))) {
        qemu_bh_schedule(c->bh);
    }
}

/*
 * An RX_M packet: refused (dry run) while the shim's FLOW_STOP is up (a
 * TYPE1 one), or while RCLINK_COSIM_RX_MAX packets (an AFH_Lite TYPE1
 * one: RCLINK_COSIM_RX_LIMIT) wait for the shim; with the IP's receive
 * buffer full the bridge first waits for the shim to take one (above).  etype is RX_END's be:
 * RX_M_ETYPE_O, for TYPE2 with TYPE1_2_RX_M_SA_O and the RH's PSN above it.
 */
bool rclink_cosim_ip_rx(RclinkCosim *c, uint32_t qpid, unsigned etype,
                        const uint8_t *pl, size_t len, bool dry_run)
{
    size_t o;

    if (dry_run) {
        /* an AFH_Lite TYPE1 packet refused is lost: it has no retry */
        bool over = (etype & 3) != 3 &&
                    rclink_t1_format(c->core) == RCLINK_T1_FMT_LITE;

        if (c->rx_pending >= RCLINK_COSIM_RX_MAX && !(over && c->rx_slow)) {
            rclink_cosim_rx_wait(c);
        }
        return c->rx_pending < (over ? RCLINK_COSIM_RX_LIMIT :
                                RCLINK_COSIM_RX_MAX) &&
               ((etype & 3) == 3 || !(c->flow_stop & BIT(qpid & 3)));
    }
    c->rx_pending++;
    trace_rclink_cosim_ip_rx(qpid, etype & 3, len);
    for (o = 0; o < len; o += 8) {
        uint8_t b[8] = { 0 };
        size_t k = MIN(len - o, 8);

        memcpy(b, pl + o, k);
        rclink_cosim_send_ip(c, RCLINK_COSIM_RX_DATA, k, 0, ldq_le_p(b));
    }
    rclink_cosim_send_ip(c, RCLINK_COSIM_RX_END, etype, qpid, len);
    return true;
}

/* ------------------------------------------------- the bridge: IP inputs */

/* An AXI4-Lite write: each run of strobed bytes, as a register access. */
static void rclink_cosim_ip_write(RclinkCosim *c, uint64_t addr, uint8_t be,
                                  uint64_t data)
{
    unsigned i = 0, j;

    addr &= (RCLINK_WIN_RC_SIZE - 1) & ~7ULL;
    while (i < 8) {
        if (!(be & BIT(i))) {
            i++;
            continue;
        }
        for (j = i; j < 8 && (be & BIT(j)); j++) {
        }
        rclink_core_write(c->core, addr + i,
                          j - i == 8 ? data : extract64(data, i * 8,
                                                        (j - i) * 8),
                          j - i);
        i = j;
    }
}

static void rclink_cosim_ip_msg(RclinkCosim *c,
                                const struct rclink_cosim_msg *m)
{
    RclinkCore *core = c->core;
    uint64_t v;

    switch (m->type) {
    case RCLINK_COSIM_IP_WRITE:
        rclink_cosim_ip_write(c, m->addr, m->be, m->data);
        break;
    case RCLINK_COSIM_IP_READ:
        v = rclink_core_read(core, m->addr & (RCLINK_WIN_RC_SIZE - 8), 8);
        rclink_cosim_send_ip(c, RCLINK_COSIM_IP_RDATA, 0, m->addr, v);
        break;
    case RCLINK_COSIM_MAC_WRITE:
        rclink_core_write(core, RCLINK_WIN_MAC_BASE +
                          (m->addr & 0xfff) * 4, (uint32_t)m->data, 4);
        break;
    case RCLINK_COSIM_MAC_READ:
        v = rclink_core_read(core, RCLINK_WIN_MAC_BASE +
                             (m->addr & 0xfff) * 4, 4);
        rclink_cosim_send_ip(c, RCLINK_COSIM_IP_RDATA, 0, m->addr, v);
        break;
    case RCLINK_COSIM_TX_DATA:
        if (m->be > 8 || c->txlen + m->be > sizeof(c->txbuf)) {
            c->tx_bad = true;
            break;
        }
        stq_le_p(c->txbuf + c->txlen, m->data);
        c->txlen += m->be;
        break;
    case RCLINK_COSIM_TX_END:
        if (c->tx_bad || m->data != c->txlen) {
            qemu_log_mask(LOG_GUEST_ERROR, "rclink: RTL TX_S packet of %zu "
                          "bytes (announced %" PRIu64 "): dropped\n",
                          c->txlen, m->data);
            rclink_cosim_ip_credit(c, (m->be >> 1 & 3) == 3 ? BIT(3) : BIT(0),
                                   m->addr, false);
        } else {
            trace_rclink_cosim_ip_tx(m->addr, m->be, c->txlen);
            rclink_dmaq_bridge_tx(core, m->addr, m->be, c->txbuf, c->txlen);
        }
        c->txlen = 0;
        c->tx_bad = false;
        break;
    case RCLINK_COSIM_IP_RESET:
        c->epoch++;
        c->rx_pending = 0;
        c->rx_slow = false;
        c->drain_due = false;
        c->levels_sent = false;
        c->txlen = 0;
        c->tx_bad = false;
        rclink_core_reset(core);
        break;
    case RCLINK_COSIM_FLOW_STOP:
        c->flow_stop = m->be;
        rclink_cbfc_rx_drain(core);
        break;
    case RCLINK_COSIM_RX_TAKEN:
        if (c->rx_pending) {
            c->rx_pending--;
        }
        c->rx_slow = false;
        /* room again: what waits in the model's buffers may go now */
        rclink_cbfc_rx_drain(core);
        break;
    }
    rclink_cosim_ip_levels(c);
}

static void rclink_cosim_dma_write(RclinkCosim *c, uint64_t addr, uint8_t be,
                                   uint64_t data)
{
    uint8_t buf[8];
    unsigned i = 0, j;

    stq_le_p(buf, data);
    trace_rclink_cosim_dma_write(addr, be, data);
    /* each run of enabled bytes */
    while (i < 8) {
        if (!(be & BIT(i))) {
            i++;
            continue;
        }
        for (j = i; j < 8 && (be & BIT(j)); j++) {
        }
        pci_dma_write(c->pdev, addr + i, buf + i, j - i);
        i = j;
    }
}

static void rclink_cosim_dma_read(RclinkCosim *c, uint64_t addr, uint8_t be)
{
    uint8_t buf[8] = { 0 };
    MemTxResult r;

    r = pci_dma_read(c->pdev, addr, buf, sizeof(buf));
    trace_rclink_cosim_dma_read(addr, be, ldq_le_p(buf), r);
    rclink_cosim_send(c, RCLINK_COSIM_DMA_RSP, r != MEMTX_OK, addr,
                      ldq_le_p(buf));
}

/* One message of the simulator. */
static void rclink_cosim_handle(RclinkCosim *c,
                                const struct rclink_cosim_msg *m)
{
    switch (m->type) {
    case RCLINK_COSIM_HELLO:
        if (m->data != RCLINK_COSIM_MAGIC) {
            rclink_cosim_dead(c, "wrong greeting");
        }
        break;
    case RCLINK_COSIM_MMIO_CPL:
        if (!c->read_pending) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "rclink: RTL completion without a read\n");
            break;
        }
        c->read_pending = false;
        c->cpl_ready = true;
        c->cpl = m->data;
        break;
    case RCLINK_COSIM_DMA_WRITE:
        rclink_cosim_dma_write(c, m->addr, m->be, m->data);
        break;
    case RCLINK_COSIM_DMA_READ:
        rclink_cosim_dma_read(c, m->addr, m->be);
        break;
    case RCLINK_COSIM_MSIX:
        trace_rclink_irq("msix (rtl)", m->be);
        if (msix_enabled(c->pdev) && m->be < c->num_vectors) {
            msix_notify(c->pdev, m->be);
        }
        break;
    case RCLINK_COSIM_MSI:
        trace_rclink_irq("msi (rtl)", 0);
        if (msi_enabled(c->pdev)) {
            msi_notify(c->pdev, 0);
        }
        break;
    case RCLINK_COSIM_INTX:
        trace_rclink_intx(m->be & 1);
        c->intx = m->be & 1;
        pci_set_irq(c->pdev, c->intx);
        break;
    case RCLINK_COSIM_IP_WRITE ... RCLINK_COSIM_RX_TAKEN:
        if (!c->core) {
            rclink_cosim_dead(c, "a bridge message, but rtl-bridge is off");
            break;
        }
        rclink_cosim_ip_msg(c, m);
        break;
    default:
        rclink_cosim_dead(c, "unknown message");
        break;
    }
}

/*
 * Handle what the socket holds; with wait_cpl, until the completion of the
 * pending read came (then true, its data in c->cpl).  Without it, never
 * blocks.  The messages taken in behind the completion are handled by the
 * bottom half: the socket may have nothing more to wake the fd handler
 * (an idle simulator waits for QEMU), and left in the buffer they would
 * wait for the next BAR0 read (a DMA write, an MSI-X message, an RX_M
 * packet taken: the driver would wait for an interrupt that never comes,
 * the IP's receive buffer would stay full).
 */
static bool rclink_cosim_pump(RclinkCosim *c, bool wait_cpl)
{
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                       RCLINK_COSIM_TIMEOUT_MS;

    while (c->fd >= 0) {
        size_t had;

        /* whole messages first */
        while (c->inlen - c->inoff >= sizeof(struct rclink_cosim_msg)) {
            struct rclink_cosim_msg m;

            memcpy(&m, c->inbuf + c->inoff, sizeof(m));
            c->inoff += sizeof(m);
            rclink_cosim_handle(c, &m);
            if (c->fd < 0) {
                return false;
            }
            if (wait_cpl && c->cpl_ready) {
                c->cpl_ready = false;
                if (c->inlen - c->inoff >= sizeof(struct rclink_cosim_msg)) {
                    qemu_bh_schedule(c->bh);
                }
                return true;
            }
        }
        if (wait_cpl) {
            struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
            int64_t left = deadline - qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
            int r = left > 0 ? poll(&pfd, 1, left) : 0;

            if (r < 0 && errno == EINTR) {
                continue;
            }
            if (r <= 0) {
                rclink_cosim_dead(c, "no read completion");
                return false;
            }
        }
        had = c->inlen - c->inoff;
        if (!rclink_cosim_take(c)) {
            return false;
        }
        if (!wait_cpl && c->inlen - c->inoff == had) {
            return false;
        }
    }
    return false;
}

static void rclink_cosim_readable(void *opaque)
{
    RclinkCosim *c = opaque;

    if (c->drain_due && c->core) {
        /* room that came while the bridge waited in the receive path */
        c->drain_due = false;
        rclink_cbfc_rx_drain(c->core);
        rclink_cosim_ip_levels(c);
    }
    rclink_cosim_pump(c, false);
}

/*
 * The bridge: the test hooks of the model's wire and IP that the RTL does
 * not have (Documentation/hw/rtl.rst, "Not in the RTL"): the wire fault
 * injector, its counters and queue, SHIM_CC_TEST.  The wire is the
 * model's, so are they: BAR0 accesses to them go to the model directly.
 * So do reads of the per-QP counters DMAQ_QPS_*, which the RTL leaves to
 * the IP's DFX counters: the model's IP has them (their selector
 * DMAQ_QP_STAT_SEL is written to both).
 */
static bool rclink_cosim_model_reg(RclinkCosim *c, hwaddr addr, bool read)
{
    addr &= ~7ULL;
    return c->core &&
           ((addr >= RCLINK_SHIM_WIRE_FAULT_SEED &&
             addr < RCLINK_SHIM_HOSTILE_SEED) ||
            (addr >= RCLINK_SHIM_CC_TEST &&
             addr <= RCLINK_SHIM_WIRE_QUEUE_MARKED) ||
            (read && ((addr >= RCLINK_DMAQ_QPS_TX_PKTS &&
                       addr <= RCLINK_DMAQ_QPS_ACK_RX) ||
                      addr == RCLINK_DMAQ_QPS_ECN_RX ||
                      addr == RCLINK_DMAQ_QPS_CNP_RX)));
}

uint64_t rclink_cosim_read(RclinkCosim *c, hwaddr addr, unsigned size)
{
    unsigned sh = (addr & 7) * 8;
    uint8_t be = MAKE_64BIT_MASK(0, size) << (addr & 7);
    uint64_t v = ~0ULL;

    if ((addr & 7) + size > 8) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: BAR0 read of %u bytes at "
                      "0x%" HWADDR_PRIx " crosses a quad word\n", size, addr);
        return MAKE_64BIT_MASK(0, size * 8);
    }
    if (rclink_cosim_model_reg(c, addr, true)) {
        return rclink_core_read(c->core, addr, size);
    }
    c->read_pending = true;
    c->cpl_ready = false;
    if (c->fd >= 0 && rclink_cosim_send(c, RCLINK_COSIM_MMIO_READ, be,
                                        addr & ~7ULL, 0) &&
        rclink_cosim_pump(c, true)) {
        v = c->cpl;
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: BAR0 read at 0x%" HWADDR_PRIx
                      ": no RTL simulator, all ones\n", addr);
        v = ~0ULL;
    }
    c->read_pending = false;
    v = size == 8 ? v : (v >> sh) & MAKE_64BIT_MASK(0, size * 8);
    trace_rclink_mmio_read(addr, size, v);
    return v;
}

void rclink_cosim_write(RclinkCosim *c, hwaddr addr, uint64_t val,
                        unsigned size)
{
    uint8_t be = MAKE_64BIT_MASK(0, size) << (addr & 7);

    trace_rclink_mmio_write(addr, size, val);
    if ((addr & 7) + size > 8) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: BAR0 write of %u bytes at "
                      "0x%" HWADDR_PRIx " crosses a quad word\n", size, addr);
        return;
    }
    if (rclink_cosim_model_reg(c, addr, false)) {
        rclink_core_write(c->core, addr, val, size);
        rclink_cosim_ip_levels(c);  /* SHIM_CC_TEST.t2_crd_hold */
        return;
    }
    if (c->core && (addr & ~7ULL) == RCLINK_DMAQ_QP_STAT_SEL) {
        /* DMAQ_QP_STAT_SEL selects the model's QP counters too */
        rclink_core_write(c->core, addr, val, size);
    }
    if (c->fd < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: BAR0 write at 0x%"
                      HWADDR_PRIx ": no RTL simulator, dropped\n", addr);
        if (c->core && (addr & ~7ULL) == RCLINK_SHIM_LINK) {
            rclink_core_write(c->core, addr, val, size);
        }
        return;
    }
    rclink_cosim_send(c, RCLINK_COSIM_MMIO_WRITE, be, addr & ~7ULL,
                      size == 8 ? val : val << ((addr & 7) * 8));
    if (c->core && (addr & ~7ULL) == RCLINK_SHIM_LINK) {
        /*
         * SHIM_LINK.force_down takes the RTL shim's link down and, on a
         * board, the MAC's (the shim drives it): here the model's wire,
         * which stops sending, and the model's IP flushes what it holds.
         * The shim knows first, as on a board: a read of SHIM_LINK after
         * the write, before the model takes it, so that the TYPE2 tokens
         * the flush returns find the shim's link down (their messages
         * complete FLUSHED, not OK).
         */
        rclink_cosim_read(c, RCLINK_SHIM_LINK, 8);
        rclink_core_write(c->core, addr, val, size);
    }
}

/*
 * A BAR4 (doorbell) write: to the simulator's doorbell port, in the same
 * stream as the BAR0 writes, so that posted writes keep their order.
 */
void rclink_cosim_db_write(RclinkCosim *c, hwaddr addr, uint64_t val,
                           unsigned size)
{
    uint8_t be = MAKE_64BIT_MASK(0, size) << (addr & 7);

    trace_rclink_cosim_db_write(addr, size, val);
    if ((addr & 7) + size > 8) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: doorbell write of %u bytes "
                      "at 0x%" HWADDR_PRIx " crosses a quad word\n", size,
                      addr);
        return;
    }
    if (c->fd < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: doorbell write at 0x%"
                      HWADDR_PRIx ": no RTL simulator, dropped\n", addr);
        return;
    }
    rclink_cosim_send(c, RCLINK_COSIM_DB_WRITE, be, addr & ~7ULL,
                      size == 8 ? val : val << ((addr & 7) * 8));
}

/* The configuration state the core sees, after a config space write. */
void rclink_cosim_config(RclinkCosim *c)
{
    uint32_t cfg = 0;

    if (pci_get_word(c->pdev->config + PCI_COMMAND) & PCI_COMMAND_MASTER) {
        cfg |= RCLINK_COSIM_CFG_BME;
    }
    if (msix_enabled(c->pdev)) {
        cfg |= RCLINK_COSIM_CFG_MSIX;
    }
    if (msi_enabled(c->pdev)) {
        cfg |= RCLINK_COSIM_CFG_MSI;
    }
    if (cfg != c->cfg) {
        c->cfg = cfg;
        rclink_cosim_send(c, RCLINK_COSIM_CFG, cfg, 0, 0);
    }
}

void rclink_cosim_reset(RclinkCosim *c)
{
    trace_rclink_reset();
    rclink_cosim_send(c, RCLINK_COSIM_RESET, 0, 0, 0);
    c->cfg = ~0u;
    rclink_cosim_config(c);
    if (c->intx) {
        c->intx = false;
        pci_set_irq(c->pdev, 0);
    }
}

void rclink_cosim_init(RclinkCosim *c, PCIDevice *pdev, const char *path,
                       unsigned num_vectors, RclinkCore *core)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int64_t deadline = qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                       RCLINK_COSIM_CONNECT_MS;
    int fd;

    c->pdev = pdev;
    c->path = path;
    c->num_vectors = num_vectors;
    c->fd = -1;
    c->inoff = 0;
    c->inlen = 0;
    c->cfg = ~0u;
    c->core = core;
    c->epoch = 0;
    c->flow_stop = 0xf;
    c->rx_pending = 0;
    c->rx_slow = false;
    c->drain_due = false;
    c->levels_sent = false;
    c->txlen = 0;
    c->tx_bad = false;
    c->bh = qemu_bh_new(rclink_cosim_readable, c);
    if (strlen(path) >= sizeof(sa.sun_path)) {
        error_report("rclink: rtl=%s: path too long", path);
        return;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0) {
        error_report("rclink: rtl=%s: socket: %s", path, strerror(errno));
        return;
    }
    /* the simulator may still be starting */
    while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        if (qemu_clock_get_ms(QEMU_CLOCK_REALTIME) > deadline) {
            error_report("rclink: rtl=%s: %s; BAR0 reads will return all "
                         "ones", path, strerror(errno));
            close(fd);
            return;
        }
        g_usleep(50 * 1000);
    }
    qemu_socket_set_nonblock(fd);
    c->fd = fd;
    qemu_set_fd_handler(fd, rclink_cosim_readable, NULL, c);
    rclink_cosim_config(c);
    rclink_cosim_ip_levels(c);
}

void rclink_cosim_fini(RclinkCosim *c)
{
    if (c->bh) {
        qemu_bh_delete(c->bh);
        c->bh = NULL;
    }
    if (c->fd >= 0) {
        qemu_set_fd_handler(c->fd, NULL, NULL, NULL);
        close(c->fd);
        c->fd = -1;
    }
}
