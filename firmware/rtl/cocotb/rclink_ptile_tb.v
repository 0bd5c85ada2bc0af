// SPDX-License-Identifier: GPL-2.0 OR MIT
// cocotb top of the P-tile shim (the tests of test_rclink_us.py and its
// siblings with RCLINK_PCIE=ptile): rclink_shim_ptile with its tile ports
// brought out for cocotbext-pcie's P-tile device model, and the same
// stand-ins as the UltraScale+ bench (rclink_tb_stand_in.vh).  user_clk
// and user_reset name the tile's coreclkout_hip and reset_status, so the
// tests find the clock and reset of either bench under one name.  The
// model advertises DLLP-sized credit limits (8-bit header, 12-bit data
// fields): HDR_W and DATA_W follow it.
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_ptile_tb #(
    parameter CPL_TIMEOUT = 24'd4000,
    parameter MAX_RD = 512,
    parameter NCTX = 8              // user contexts' control plane, BAR4
) (
    input  wire         coreclkout_hip,
    input  wire         reset_status,
    input  wire [511:0] rx_st_data,
    input  wire [5:0]   rx_st_empty,
    input  wire [1:0]   rx_st_sop,
    input  wire [1:0]   rx_st_eop,
    input  wire [1:0]   rx_st_valid,
    output wire         rx_st_ready,
    input  wire [255:0] rx_st_hdr,
    input  wire [63:0]  rx_st_tlp_prfx,
    input  wire [5:0]   rx_st_bar_range,
    input  wire [1:0]   rx_st_tlp_abort,
    output wire [511:0] tx_st_data,
    output wire [1:0]   tx_st_sop,
    output wire [1:0]   tx_st_eop,
    output wire [1:0]   tx_st_valid,
    input  wire         tx_st_ready,
    output wire [1:0]   tx_st_err,
    output wire [255:0] tx_st_hdr,
    output wire [63:0]  tx_st_tlp_prfx,
    input  wire [15:0]  tx_cdts_limit,
    input  wire [2:0]   tx_cdts_limit_tdm_idx,
    input  wire [2:0]   tl_cfg_func,
    input  wire [4:0]   tl_cfg_add,
    input  wire [15:0]  tl_cfg_ctl,
    output wire [7:0]   app_int,
    input  wire [7:0]   flr_rcvd_pf,
    output wire [7:0]   flr_completed_pf,
`include "rclink_tb_ports.vh"
);
    wire user_clk = coreclkout_hip;
    wire user_reset = reset_status;
`include "rclink_tb_stand_in.vh"

    rclink_shim_ptile #(.DMA_TIMEOUT(2000), .CPL_TIMEOUT(CPL_TIMEOUT),
                        .MAX_RD(MAX_RD), .NCTX(NCTX),
                        .HDR_W(8), .DATA_W(12)) dut (
        .coreclkout_hip(coreclkout_hip), .reset_status(dut_reset),
        .rx_st_data(rx_st_data), .rx_st_empty(rx_st_empty),
        .rx_st_sop(rx_st_sop), .rx_st_eop(rx_st_eop), .rx_st_valid(rx_st_valid),
        .rx_st_ready(rx_st_ready), .rx_st_hdr(rx_st_hdr),
        .rx_st_tlp_prfx(rx_st_tlp_prfx), .rx_st_bar_range(rx_st_bar_range),
        .rx_st_tlp_abort(rx_st_tlp_abort),
        .tx_st_data(tx_st_data), .tx_st_sop(tx_st_sop), .tx_st_eop(tx_st_eop),
        .tx_st_valid(tx_st_valid), .tx_st_ready(tx_st_ready),
        .tx_st_err(tx_st_err), .tx_st_hdr(tx_st_hdr),
        .tx_st_tlp_prfx(tx_st_tlp_prfx),
        .tx_cdts_limit(tx_cdts_limit), .tx_cdts_limit_tdm_idx(tx_cdts_limit_tdm_idx),
        .tl_cfg_func(tl_cfg_func), .tl_cfg_add(tl_cfg_add), .tl_cfg_ctl(tl_cfg_ctl),
        .app_int(app_int),
        .flr_rcvd_pf(flr_rcvd_pf), .flr_completed_pf(flr_completed_pf),
        .cnt_bad_req(cnt_bad_req), .cnt_cpl_unexp(cnt_cpl_unexp),
        .cnt_cpl_tmo(cnt_cpl_tmo),
`include "rclink_dma_conn.vh"
`include "rclink_nonr_conn.vh"
`include "rclink_tb_ip_conn.vh"
    );
endmodule
`default_nettype wire
