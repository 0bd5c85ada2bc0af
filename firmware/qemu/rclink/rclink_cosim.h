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
 *   DB_WRITE    addr (BAR4 offset, 8-byte aligned), be, data (lane
 *               aligned): a doorbell write, in order with MMIO_WRITEs
 *               (posted writes keep their order)
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
 * The bridge (simulator --ip-bridge, device rtl-bridge=on): the shim's IP
 * side goes to the QEMU model's IP and wire instead of the stand-ins.
 * Messages to the simulator that belong to the IP carry in rsvd the IP
 * epoch they answer (the count of IP_RESETs seen): the simulator drops
 * those of an IP that has been reset since.
 * simulator -> QEMU
 *   IP_WRITE    addr (RC window offset), be = WSTRB, data: AXI4-Lite write
 *   IP_READ     addr: AXI4-Lite read, answered by one IP_RDATA
 *   MAC_WRITE   addr (Avalon word address), data
 *   MAC_READ    addr, answered by one IP_RDATA
 *   TX_DATA     be = bytes (1..8), data: the next bytes of a TX_S packet,
 *               first byte in bits 7:0
 *   TX_END      addr = TX_S_QPID_I, be = FACK | ETYPE << 1 | GROUP << 3,
 *               data = length: the packet is whole
 *   IP_RESET    ip_rst_n fell: the IP and the MAC reset, epoch + 1
 *   FLOW_STOP   be = the shim's FLOW_STOP bits
 *   RX_TAKEN    the shim took the last beat of an RX_M packet
 * QEMU -> simulator
 *   IP_RDATA    data: the answer to the oldest IP_READ / MAC_READ
 *   IP_CRD      be = TX_S_CRD_O, addr = TX_S_CRD_QPID_O, data =
 *               TX_S_CRD_QPID_VLD_O: one cycle of the credit port
 *   IP_IRQ      data = IRQ_INFO_O: one cycle of IRQ_VLD_O
 *   IP_LEVELS   be = RC_INTR_O, addr = RCLINK_IDLE_O | TX_WAIT_MAC_CRD_O
 *               << 2 | TX_MAC_FREE_O << 3 | the wire's carrier << 4,
 *               data = the multicast credit level
 *   RX_DATA     be = bytes (1..8), data: the next bytes of an RX_M packet
 *   RX_END      addr = RX_M_QPID_O, be = RX_M_ETYPE_O | RX_M_SA_O << 2 |
 *               the RH's PSN << 12 (TYPE2), data = length
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
    RCLINK_COSIM_DB_WRITE = 6,
    RCLINK_COSIM_IP_RDATA = 0x10,
    RCLINK_COSIM_IP_CRD = 0x11,
    RCLINK_COSIM_IP_IRQ = 0x12,
    RCLINK_COSIM_IP_LEVELS = 0x13,
    RCLINK_COSIM_RX_DATA = 0x14,
    RCLINK_COSIM_RX_END = 0x15,
    RCLINK_COSIM_HELLO = 0x80,
    RCLINK_COSIM_MMIO_CPL = 0x81,
    RCLINK_COSIM_DMA_WRITE = 0x82,
    RCLINK_COSIM_DMA_READ = 0x83,
    RCLINK_COSIM_MSIX = 0x84,
    RCLINK_COSIM_MSI = 0x85,
    RCLINK_COSIM_INTX = 0x86,
    RCLINK_COSIM_IP_WRITE = 0x90,
    RCLINK_COSIM_IP_READ = 0x91,
    RCLINK_COSIM_MAC_WRITE = 0x92,
    RCLINK_COSIM_MAC_READ = 0x93,
    RCLINK_COSIM_TX_DATA = 0x94,
    RCLINK_COSIM_TX_END = 0x95,
    RCLINK_COSIM_IP_RESET = 0x96,
    RCLINK_COSIM_FLOW_STOP = 0x97,
    RCLINK_COSIM_RX_TAKEN = 0x98,
};

/*
 * The contexts of the simulated shim (its NCTX, DMAQ_CTX_CAP.num): BAR4
 * has as many doorbell pages (build.sh passes this to the top)
 */
#define RCLINK_COSIM_NCTX 8

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
