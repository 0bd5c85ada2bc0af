// SPDX-License-Identifier: GPL-2.0 OR MIT
// cocotb top of the UltraScale+ shim (test_rclink_us.py): rclink_shim_us
// with its PCIe ports brought out for cocotbext-pcie's UltraScale+ device
// model, the IP stand-in (tb/rclink_ip_model.v) on the IP ports and the
// MAC CSR stand-in of tb/rclink_tb.v (the contract's reset values and
// masks); RX_M is driven by the tests (test_rclink_q plays the IP's
// receive side; the others hold rx_m_vld low).  Short timeouts: the completion timeout of the
// requester is CPL_TIMEOUT cycles.
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_us_tb #(
    parameter CPL_TIMEOUT = 24'd4000,
    parameter MAX_RD = 512,
    parameter NCTX = 8,             // user contexts' control plane, BAR4
    parameter RC_TLPS = 4,          // the model's RC straddling (test_rclink_us.py)
    parameter RQ_TLPS = 2,          // the model's RQ straddling
    // the IP's TX_S tokens (TYPE1 outstanding packets) the shim counts on:
    // rtl.sh builds the bench again with fewer for the vectors that ask
    // for them (sim_ost_n)
    parameter OST_N = `RCLINK_PARAM_TYPE1_OST_N
) (
    input  wire         user_clk,
    input  wire         user_reset,
    input  wire         user_lnk_up,
    input  wire [511:0] m_axis_cq_tdata,
    input  wire [182:0] m_axis_cq_tuser,
    input  wire         m_axis_cq_tlast,
    input  wire [15:0]  m_axis_cq_tkeep,
    input  wire         m_axis_cq_tvalid,
    output wire         m_axis_cq_tready,
    output wire [1:0]   pcie_cq_np_req,
    input  wire [5:0]   pcie_cq_np_req_count,
    output wire [511:0] s_axis_cc_tdata,
    output wire [80:0]  s_axis_cc_tuser,
    output wire         s_axis_cc_tlast,
    output wire [15:0]  s_axis_cc_tkeep,
    output wire         s_axis_cc_tvalid,
    input  wire         s_axis_cc_tready,
    output wire [511:0] s_axis_rq_tdata,
    output wire [136:0] s_axis_rq_tuser,
    output wire         s_axis_rq_tlast,
    output wire [15:0]  s_axis_rq_tkeep,
    output wire         s_axis_rq_tvalid,
    input  wire         s_axis_rq_tready,
    input  wire [511:0] m_axis_rc_tdata,
    input  wire [160:0] m_axis_rc_tuser,
    input  wire         m_axis_rc_tlast,
    input  wire [15:0]  m_axis_rc_tkeep,
    input  wire         m_axis_rc_tvalid,
    output wire         m_axis_rc_tready,
    input  wire [15:0]  cfg_function_status,
    input  wire [1:0]   cfg_max_payload,
    input  wire [2:0]   cfg_max_read_req,
    input  wire [3:0]   cfg_interrupt_msix_enable,
    input  wire [3:0]   cfg_interrupt_msix_mask,
    input  wire [3:0]   cfg_interrupt_msi_enable,
    output wire [31:0]  cfg_interrupt_msi_int,
    input  wire         cfg_interrupt_msi_sent,
    input  wire         cfg_interrupt_msi_fail,
    output wire [3:0]   cfg_interrupt_int,
    output wire [3:0]   cfg_interrupt_pending,
    input  wire         cfg_interrupt_sent,
    input  wire [3:0]   cfg_flr_in_process,
    output wire [3:0]   cfg_flr_done,
`include "rclink_tb_ports.vh"
);
`include "rclink_tb_stand_in.vh"

    rclink_shim_us #(.DMA_TIMEOUT(2000), .CPL_TIMEOUT(CPL_TIMEOUT),
                     .MAX_RD(MAX_RD), .NCTX(NCTX), .RC_TLPS(RC_TLPS), .RQ_TLPS(RQ_TLPS),
                     .OST_N(OST_N)) dut (
        .user_clk(user_clk), .user_reset(dut_reset), .user_lnk_up(user_lnk_up),
        .m_axis_cq_tdata(m_axis_cq_tdata), .m_axis_cq_tuser(m_axis_cq_tuser),
        .m_axis_cq_tlast(m_axis_cq_tlast), .m_axis_cq_tkeep(m_axis_cq_tkeep),
        .m_axis_cq_tvalid(m_axis_cq_tvalid), .m_axis_cq_tready(m_axis_cq_tready),
        .pcie_cq_np_req(pcie_cq_np_req), .pcie_cq_np_req_count(pcie_cq_np_req_count),
        .s_axis_cc_tdata(s_axis_cc_tdata), .s_axis_cc_tuser(s_axis_cc_tuser),
        .s_axis_cc_tlast(s_axis_cc_tlast), .s_axis_cc_tkeep(s_axis_cc_tkeep),
        .s_axis_cc_tvalid(s_axis_cc_tvalid), .s_axis_cc_tready(s_axis_cc_tready),
        .s_axis_rq_tdata(s_axis_rq_tdata), .s_axis_rq_tuser(s_axis_rq_tuser),
        .s_axis_rq_tlast(s_axis_rq_tlast), .s_axis_rq_tkeep(s_axis_rq_tkeep),
        .s_axis_rq_tvalid(s_axis_rq_tvalid), .s_axis_rq_tready(s_axis_rq_tready),
        .m_axis_rc_tdata(m_axis_rc_tdata), .m_axis_rc_tuser(m_axis_rc_tuser),
        .m_axis_rc_tlast(m_axis_rc_tlast), .m_axis_rc_tkeep(m_axis_rc_tkeep),
        .m_axis_rc_tvalid(m_axis_rc_tvalid), .m_axis_rc_tready(m_axis_rc_tready),
        .cfg_function_status(cfg_function_status),
        .cfg_max_payload(cfg_max_payload), .cfg_max_read_req(cfg_max_read_req),
        .cfg_interrupt_msix_enable(cfg_interrupt_msix_enable),
        .cfg_interrupt_msix_mask(cfg_interrupt_msix_mask),
        .cfg_interrupt_msi_enable(cfg_interrupt_msi_enable),
        .cfg_interrupt_msi_int(cfg_interrupt_msi_int),
        .cfg_interrupt_msi_sent(cfg_interrupt_msi_sent),
        .cfg_interrupt_msi_fail(cfg_interrupt_msi_fail),
        .cfg_interrupt_int(cfg_interrupt_int),
        .cfg_interrupt_pending(cfg_interrupt_pending),
        .cfg_interrupt_sent(cfg_interrupt_sent),
        .cfg_flr_in_process(cfg_flr_in_process), .cfg_flr_done(cfg_flr_done),
        .cnt_bad_req(cnt_bad_req), .cnt_cpl_unexp(cnt_cpl_unexp),
        .cnt_cpl_tmo(cnt_cpl_tmo),
`include "rclink_dma_conn.vh"
`include "rclink_nonr_conn.vh"
`include "rclink_tb_ip_conn.vh"
    );
endmodule
`default_nettype wire
