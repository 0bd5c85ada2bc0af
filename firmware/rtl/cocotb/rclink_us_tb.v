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
    parameter RC_TLPS = 4           // the model's RC straddling (test_rclink_us.py)
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
    // the DMA engine's burst port (test_rclink_dma drives it)
`include "rclink_dma_ports.vh"
    // the IP's TYPE3 masters (test_rclink_t3 plays them with cocotbext-axi)
`include "rclink_nonr_ports.vh"
    // the IP's RX_M (test_rclink_q drives it)
    input  wire         rx_m_vld,
    output wire         rx_m_rdy,
    input  wire         rx_m_fs,
    input  wire         rx_m_fe,
    input  wire [63:0]  rx_m_dat,
    input  wire [7:0]   rx_m_keep,
    input  wire [9:0]   rx_m_qpid,
    input  wire [1:0]   rx_m_etype,
    input  wire [12:0]  rx_m_len,
    input  wire [9:0]   rx_m_sa,
    input  wire [11:0]  rx_m_psn,
    output wire [31:0]  cnt_bad_req,
    output wire [31:0]  cnt_cpl_unexp,
    output wire [31:0]  cnt_cpl_tmo
);
    localparam QP_AW = 10;

    wire        ip_rst_n;
    wire        awvalid, awready, wvalid, wready, bvalid, bready;
    wire        arvalid, arready, rvalid, rready;
    wire [13:0] awaddr, araddr;
    wire [63:0] wdata, rdata;
    wire [7:0]  wstrb;
    wire [1:0]  bresp, rresp;
    wire        irq_vld;
    wire [63:0] irq_info;
    wire [15:0] rc_intr;
    wire        tx_vld, tx_fs, tx_fe, tx_fack;
    wire [511:0] tx_dat;
    wire [63:0] tx_keep;
    wire [1:0]  tx_etype;
    wire [2:0]  tx_group;
    wire [QP_AW-1:0] tx_qpid, crd_qpid;
    wire [3:0]  crd;
    wire        crd_qpid_vld;
    wire [1:0]  ip_idle;
    wire        ip_wait_crd, ip_mac_free, t2_rate_vld;
    wire [15:0] ip_t2_crd;
    wire [21:0] t2_rate_dat;
    wire [3:0]  flow_stop;
    wire [11:0] mac_address;
    wire        mac_read, mac_write;
    wire [31:0] mac_writedata;
    wire [31:0] mac_readdata;
    wire        mac_readdatavalid;
    // test hooks (set by the cocotb tests): a dead AXI4-Lite port of the
    // IP (no handshake at all), one that takes AR but holds R back, a dead
    // MAC CSR port (waitrequest stuck)
    reg         axil_dead = 1'b0;
    reg         axil_mute_r = 1'b0;
    reg         mac_dead = 1'b0;
    // the IP's TYPE3 interrupt as the IP raises it after the B of a write
    // of its data master (test_t3_write_before_irq): IRQ_VLD_O the cycle
    // after the handshake, IRQ_INFO_O TYPE3 code 1
    reg         t3_irq_on_b = 1'b0;
    reg         t3_irq = 1'b0;
    always @(posedge user_clk)
        t3_irq <= t3_irq_on_b && nonr_data_bvalid && nonr_data_bready;

    // ---- MAC CSR stand-in (tb/rclink_mac_model.v) --------------------
    rclink_mac_model mac (
        .clk(user_clk), .rst_n(ip_rst_n), .dead(mac_dead),
        .address(mac_address), .read(mac_read), .write(mac_write),
        .writedata(mac_writedata), .readdata(mac_readdata),
        .readdatavalid(mac_readdatavalid));

    // the hard IP holds user_reset from configuration on; the model raises
    // it only after two clocks: a power-on reset covers those
    reg [3:0] por = 4'hf;
    always @(posedge user_clk)
        por <= {por[2:0], 1'b0};
    wire dut_reset = user_reset || por[3];

    rclink_shim_us #(.DMA_TIMEOUT(2000), .CPL_TIMEOUT(CPL_TIMEOUT),
                     .MAX_RD(MAX_RD), .NCTX(NCTX), .RC_TLPS(RC_TLPS)) dut (
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
        .board_serial(64'h0000000000005eed), .board_mac(48'h525400123456),
        .link_carrier(1'b1),
        .ip_rst_n(ip_rst_n),
        .ip_awvalid(awvalid), .ip_awready(awready && !axil_dead), .ip_awaddr(awaddr),
        .ip_wvalid(wvalid), .ip_wready(wready && !axil_dead), .ip_wdata(wdata), .ip_wstrb(wstrb),
        .ip_bvalid(bvalid && !axil_dead), .ip_bready(bready), .ip_bresp(bresp),
        .ip_arvalid(arvalid), .ip_arready(arready && !axil_dead), .ip_araddr(araddr),
        .ip_rvalid(rvalid && !axil_dead && !axil_mute_r), .ip_rready(rready),
        .ip_rdata(rdata), .ip_rresp(rresp),
        .ip_irq_vld(irq_vld || t3_irq),
        .ip_irq_info(t3_irq ? ((64'd3 << `RCLINK_IRQ_INFO_TYPE_LSB) | 64'd1) : irq_info),
        .ip_rc_intr(rc_intr),
        .ip_recv_ack_vld(1'b0), .ip_recv_ack_qpid({QP_AW{1'b0}}),
        .ip_recv_ack_rtt(32'd0), .ip_recv_num_acked(10'd0), .ip_recv_nak_flg(1'b0),
        .ip_retry_tmo_vld(1'b0), .ip_retry_tmo_qpid({QP_AW{1'b0}}),
        .ip_idle(ip_idle), .ip_tx_wait_mac_crd(ip_wait_crd),
        .ip_tx_mac_free(ip_mac_free), .ip_t2_crd(ip_t2_crd),
        .ip_set_type2_rate_vld(t2_rate_vld), .ip_set_type2_rate_dat(t2_rate_dat),
        .tx_s_vld(tx_vld), .tx_s_fs(tx_fs), .tx_s_fe(tx_fe), .tx_s_dat(tx_dat),
        .tx_s_keep(tx_keep), .tx_s_qpid(tx_qpid), .tx_s_fack(tx_fack),
        .tx_s_etype(tx_etype), .tx_s_t2_group(tx_group), .tx_s_crd(crd),
        .tx_s_crd_qpid(crd_qpid), .tx_s_crd_qpid_vld(crd_qpid_vld),
        .rx_m_vld(rx_m_vld), .rx_m_rdy(rx_m_rdy), .rx_m_fs(rx_m_fs), .rx_m_fe(rx_m_fe),
        .rx_m_dat(rx_m_dat), .rx_m_keep(rx_m_keep), .rx_m_qpid(rx_m_qpid),
        .rx_m_etype(rx_m_etype), .rx_m_len(rx_m_len), .rx_m_sa(rx_m_sa),
        .rx_m_psn(rx_m_psn), .rx_flow_stop(flow_stop),
        .mac_address(mac_address), .mac_read(mac_read), .mac_write(mac_write),
        .mac_writedata(mac_writedata), .mac_readdata(mac_readdata),
        .mac_readdatavalid(mac_readdatavalid), .mac_waitrequest(mac_dead));

    rclink_ip_model #(.QP_AW(QP_AW)) ip (
        .clk(user_clk), .rst_n(ip_rst_n),
        .awvalid(awvalid && !axil_dead), .awready(awready), .awaddr(awaddr),
        .wvalid(wvalid && !axil_dead), .wready(wready), .wdata(wdata), .wstrb(wstrb),
        .bvalid(bvalid), .bready(bready && !axil_dead), .bresp(bresp),
        .arvalid(arvalid && !axil_dead), .arready(arready), .araddr(araddr),
        .rvalid(rvalid), .rready(rready && !axil_dead && !axil_mute_r),
        .rdata(rdata), .rresp(rresp),
        .irq_vld(irq_vld), .irq_info(irq_info), .rc_intr(rc_intr),
        .tx_vld(tx_vld), .tx_fs(tx_fs), .tx_fe(tx_fe), .tx_dat(tx_dat),
        .tx_keep(tx_keep), .tx_qpid(tx_qpid), .tx_fack(tx_fack),
        .tx_etype(tx_etype), .tx_group(tx_group),
        .crd(crd), .crd_qpid(crd_qpid), .crd_qpid_vld(crd_qpid_vld),
        .idle(ip_idle), .wait_mac_crd(ip_wait_crd), .mac_free_o(ip_mac_free),
        .t2_crd_o(ip_t2_crd), .t2_rate_vld(t2_rate_vld), .t2_rate_dat(t2_rate_dat));
endmodule
`default_nettype wire
