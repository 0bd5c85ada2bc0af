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
#include "trace.h"

#define RCLINK_COSIM_TIMEOUT_MS 10000
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

static bool rclink_cosim_send(RclinkCosim *c, uint32_t type, uint32_t be,
                              uint64_t addr, uint64_t data)
{
    struct rclink_cosim_msg m = {
        .type = type, .be = be, .addr = addr, .data = data,
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
    default:
        rclink_cosim_dead(c, "unknown message");
        break;
    }
}

/*
 * Handle what the socket holds; with wait_cpl, until the completion of the
 * pending read came (then true, its data in c->cpl).  Without it, never
 * blocks.
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
    rclink_cosim_pump(opaque, false);
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
    if (c->fd < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "rclink: BAR0 write at 0x%"
                      HWADDR_PRIx ": no RTL simulator, dropped\n", addr);
        return;
    }
    rclink_cosim_send(c, RCLINK_COSIM_MMIO_WRITE, be, addr & ~7ULL,
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
                       unsigned num_vectors)
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
