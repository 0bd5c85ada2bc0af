/*
 * rclink co-simulation: the messages between the QEMU device (rtl=PATH,
 * rclink_cosim.c) and the Verilated shim core (firmware/rtl/cosim) over a
 * UNIX stream socket.  Every message is one struct rclink_cosim_msg, host
 * byte order (both ends run on one machine).  The stream is ordered in
 * both directions: a DMA write sent before an interrupt message is done by
 * QEMU before the interrupt is raised (PCIe producer/consumer order).
 *
 * QEMU -> simulator
 *   MMIO_WRITE  addr (BAR0 offset, 8-byte aligned), be, data (lane aligned)
 *   MMIO_READ   addr, be; answered by exactly one MMIO_CPL
 *   DMA_RSP     data, be = 1 for an unsuccessful read: the answer to the
 *               oldest DMA_READ not yet answered
 *   CFG         be: bit 0 bus master enable, 1 MSI-X enable, 2 MSI enable
 *   RESET       the hard IP's reset (FLR, bus reset, D3hot -> D0): rst_n
 *               low for a few cycles
 * simulator -> QEMU
 *   HELLO       first message: data = RCLINK_COSIM_MAGIC
 *   MMIO_CPL    data: the completion of the oldest MMIO_READ
 *   DMA_WRITE   addr (8-byte aligned), be, data
 *   DMA_READ    addr, be; answered by one DMA_RSP, in order
 *   MSIX        be = vector
 *   MSI         (no operands)
 *   INTX        be = the level of INTx pin A
 *
 * SPDX-License-Identifier: GPL-2.0-or-later OR MIT
 */
#ifndef RCLINK_COSIM_H
#define RCLINK_COSIM_H

#include <stdint.h>

#define RCLINK_COSIM_MAGIC 0x72636c6b636f7331ULL  /* "rclkcos1" */

enum rclink_cosim_type {
    RCLINK_COSIM_MMIO_WRITE = 1,
    RCLINK_COSIM_MMIO_READ = 2,
    RCLINK_COSIM_DMA_RSP = 3,
    RCLINK_COSIM_CFG = 4,
    RCLINK_COSIM_RESET = 5,
    RCLINK_COSIM_HELLO = 0x80,
    RCLINK_COSIM_MMIO_CPL = 0x81,
    RCLINK_COSIM_DMA_WRITE = 0x82,
    RCLINK_COSIM_DMA_READ = 0x83,
    RCLINK_COSIM_MSIX = 0x84,
    RCLINK_COSIM_MSI = 0x85,
    RCLINK_COSIM_INTX = 0x86,
};

#define RCLINK_COSIM_CFG_BME  1u
#define RCLINK_COSIM_CFG_MSIX 2u
#define RCLINK_COSIM_CFG_MSI  4u

struct rclink_cosim_msg {
    uint32_t type;
    uint32_t be;
    uint64_t addr;
    uint64_t data;
    uint64_t rsvd;
};

#endif
