// SPDX-License-Identifier: GPL-2.0 OR MIT
// cocotb benches of the PCIe tops: the ports the tests drive or watch
// besides the hard IP model's (the last entries of the bench's port
// list, after its PCIe ports).
    // the DMA engine's burst port (test_rclink_dma drives it)
`include "rclink_dma_ports.vh"
    // the IP's TYPE3 masters (test_rclink_t3 plays them with cocotbext-axi)
`include "rclink_nonr_ports.vh"
    // the IP's RX_M (test_rclink_q drives it)
    input  wire         rx_m_vld,
    output wire         rx_m_rdy,
    input  wire         rx_m_fs,
    input  wire         rx_m_fe,
    input  wire [511:0] rx_m_dat,
    input  wire [63:0]  rx_m_keep,
    input  wire [9:0]   rx_m_qpid,
    input  wire [1:0]   rx_m_etype,
    input  wire [12:0]  rx_m_len,
    input  wire [9:0]   rx_m_sa,
    input  wire [11:0]  rx_m_psn,
    // the IP's and the MAC adapter's MAC streams (test_rclink_mac plays both)
`include "rclink_cemac_ports.vh"
    output wire [31:0]  cnt_bad_req,
    output wire [31:0]  cnt_cpl_unexp,
    output wire [31:0]  cnt_cpl_tmo
