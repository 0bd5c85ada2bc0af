// SPDX-License-Identifier: GPL-2.0 OR MIT
// cocotb top of the P-tile shim (the tests of test_rclink_us.py and its
// siblings with RCLINK_PCIE=ptile): rclink_shim_ptile with its tile ports
// brought out for cocotbext-pcie's P-tile device model, and the same
// stand-ins as the UltraScale+ bench (rclink_tb_stand_in.vh).  user_clk
// and user_reset name the tile's coreclkout_hip and reset_status, so the
// tests find the clock and reset of either bench under one name.  The
// model advertises DLLP-sized credit limits (8-bit header, 12-bit data
// fields): HDR_W and DATA_W follow it.  RX_DEPTH 64 (the smallest the
// tile's ready latency allows) makes rx_st_ready fall often, so that the
// tests run the adapter's RX back-pressure.
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_ptile_tb #(
    parameter CPL_TIMEOUT = 24'd4000,
    parameter MAX_RD = 512,
    parameter NCTX = 8,             // user contexts' control plane, BAR4
    // the IP's TX_S tokens (TYPE1 outstanding packets) the shim counts on:
    // rtl.sh builds the bench again with fewer for the vectors that ask
    // for them (sim_ost_n)
    parameter OST_N = `RCLINK_PARAM_TYPE1_OST_N
) (
    input  wire         coreclkout_hip,
    input  wire         reset_status,
`include "rclink_ptile_ports.vh"
    output wire [7:0]   app_int,
    input  wire [7:0]   flr_rcvd_pf,
    output wire [7:0]   flr_completed_pf,
`include "rclink_tb_ports.vh"
);
    wire user_clk = coreclkout_hip;
    wire user_reset = reset_status;
`include "rclink_tb_stand_in.vh"

    rclink_shim_ptile #(.DMA_TIMEOUT(2000), .CPL_TIMEOUT(CPL_TIMEOUT),
                        .MAX_RD(MAX_RD), .NCTX(NCTX), .OST_N(OST_N),
                        .HDR_W(8), .DATA_W(12), .RX_DEPTH(64)) dut (
        .coreclkout_hip(coreclkout_hip), .reset_status(dut_reset),
`include "rclink_ptile_conn.vh"
        .app_int(app_int),
        .flr_rcvd_pf(flr_rcvd_pf), .flr_completed_pf(flr_completed_pf),
        .cnt_bad_req(cnt_bad_req), .cnt_cpl_unexp(cnt_cpl_unexp),
        .cnt_cpl_tmo(cnt_cpl_tmo), .cnt_rx_drop(),
`include "rclink_dma_conn.vh"
`include "rclink_nonr_conn.vh"
`include "rclink_tb_ip_conn.vh"
    );
endmodule
`default_nettype wire
