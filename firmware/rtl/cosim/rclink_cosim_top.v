// SPDX-License-Identifier: GPL-2.0 OR MIT
// Co-simulation top (Documentation/testing.rst, "RTL boards"): the shim's
// vendor-neutral core (rclink_shim_top) with the testbench's IP stand-in
// (tb/rclink_ip_model.v) and the MAC CSR stand-in (tb/rclink_mac_model.v)
// behind it, one board.  The
// host side (configuration state, BAR0 requests and completions, DMA words,
// MSI-X / MSI / INTx) is left as ports for the C++ harness
// (rclink_cosim.cpp), which forwards them to the QEMU device over a socket.
// RX_M is idle: nothing is received yet.
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_cosim_top (
    input  wire        clk,
    input  wire        rst_n,
    output wire        core_rst,
    input  wire        cfg_bus_master_en,
    input  wire        cfg_msix_en,
    input  wire        cfg_msi_en,
    input  wire        tgt_req_valid,
    output wire        tgt_req_ready,
    input  wire        tgt_req_write,
    input  wire [15:0] tgt_req_addr,
    input  wire [7:0]  tgt_req_be,
    input  wire [63:0] tgt_req_data,
    output wire        tgt_cpl_valid,
    output wire [63:0] tgt_cpl_data,
    output wire        dma_req_valid,
    input  wire        dma_req_ready,
    output wire        dma_req_write,
    output wire [63:0] dma_req_addr,
    output wire [63:0] dma_req_data,
    output wire [7:0]  dma_req_be,
    input  wire        dma_rsp_valid,
    input  wire [63:0] dma_rsp_data,
    input  wire        dma_rsp_err,
    output wire        msix_valid,
    output wire [15:0] msix_vector,
    output wire        msi_valid,
    output wire        intx,
    input  wire [63:0] board_serial,
    input  wire [47:0] board_mac
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
    wire [63:0] tx_dat;
    wire [7:0]  tx_keep;
    wire [1:0]  tx_etype;
    wire [2:0]  tx_group;
    wire [QP_AW-1:0] tx_qpid, crd_qpid;
    wire [3:0]  crd;
    wire        crd_qpid_vld;
    wire [1:0]  ip_idle;
    wire        ip_wait_crd, ip_mac_free, t2_rate_vld;
    wire [15:0] ip_t2_crd;
    wire [21:0] t2_rate_dat;
    wire        rx_rdy;
    wire [3:0]  flow_stop;
    wire [11:0] mac_address;
    wire        mac_read, mac_write;
    wire [31:0] mac_writedata;
    wire [31:0] mac_readdata;
    wire        mac_readdatavalid;

    rclink_shim_top dut (
        .clk(clk), .rst_n(rst_n), .core_rst(core_rst),
        .cfg_bus_master_en(cfg_bus_master_en), .cfg_msix_en(cfg_msix_en),
        .cfg_msi_en(cfg_msi_en),
        .tgt_req_valid(tgt_req_valid), .tgt_req_ready(tgt_req_ready),
        .tgt_req_write(tgt_req_write), .tgt_req_addr(tgt_req_addr),
        .tgt_req_be(tgt_req_be), .tgt_req_data(tgt_req_data),
        .tgt_req_tag(10'd0), .tgt_cpl_valid(tgt_cpl_valid),
        .tgt_cpl_ready(1'b1), .tgt_cpl_data(tgt_cpl_data), .tgt_cpl_tag(),
        .dma_req_valid(dma_req_valid), .dma_req_ready(dma_req_ready),
        .dma_req_write(dma_req_write), .dma_req_addr(dma_req_addr),
        .dma_req_data(dma_req_data), .dma_req_be(dma_req_be),
        .dma_rsp_valid(dma_rsp_valid), .dma_rsp_data(dma_rsp_data),
        .dma_rsp_err(dma_rsp_err),
        .msix_valid(msix_valid), .msix_vector(msix_vector), .msix_ready(1'b1),
        .msi_valid(msi_valid), .msi_ready(1'b1), .intx(intx),
        .board_serial(board_serial), .board_mac(board_mac),
        .link_carrier(1'b1),
        .ip_rst_n(ip_rst_n),
        .ip_awvalid(awvalid), .ip_awready(awready), .ip_awaddr(awaddr),
        .ip_wvalid(wvalid), .ip_wready(wready), .ip_wdata(wdata), .ip_wstrb(wstrb),
        .ip_bvalid(bvalid), .ip_bready(bready), .ip_bresp(bresp),
        .ip_arvalid(arvalid), .ip_arready(arready), .ip_araddr(araddr),
        .ip_rvalid(rvalid), .ip_rready(rready), .ip_rdata(rdata), .ip_rresp(rresp),
        .ip_irq_vld(irq_vld), .ip_irq_info(irq_info), .ip_rc_intr(rc_intr),
        .ip_recv_ack_vld(1'b0), .ip_recv_ack_qpid({QP_AW{1'b0}}),
        .ip_recv_ack_rtt(32'd0), .ip_recv_num_acked(10'd0), .ip_recv_nak_flg(1'b0),
        .ip_retry_tmo_vld(1'b0), .ip_retry_tmo_qpid({QP_AW{1'b0}}),
        .tx_s_vld(tx_vld), .tx_s_fs(tx_fs), .tx_s_fe(tx_fe), .tx_s_dat(tx_dat),
        .tx_s_keep(tx_keep), .tx_s_qpid(tx_qpid), .tx_s_fack(tx_fack),
        .tx_s_etype(tx_etype), .tx_s_t2_group(tx_group), .tx_s_crd(crd),
        .tx_s_crd_qpid(crd_qpid), .tx_s_crd_qpid_vld(crd_qpid_vld),
        .ip_idle(ip_idle), .ip_tx_wait_mac_crd(ip_wait_crd),
        .ip_tx_mac_free(ip_mac_free), .ip_t2_crd(ip_t2_crd),
        .ip_set_type2_rate_vld(t2_rate_vld), .ip_set_type2_rate_dat(t2_rate_dat),
        .rx_m_vld(1'b0), .rx_m_rdy(rx_rdy), .rx_m_fs(1'b0), .rx_m_fe(1'b0),
        .rx_m_dat(64'd0), .rx_m_keep(8'd0), .rx_m_qpid({QP_AW{1'b0}}),
        .rx_m_etype(2'd0), .rx_m_len(13'd0), .rx_flow_stop(flow_stop),
        .mac_address(mac_address), .mac_read(mac_read), .mac_write(mac_write),
        .mac_writedata(mac_writedata), .mac_readdata(mac_readdata),
        .mac_readdatavalid(mac_readdatavalid), .mac_waitrequest(1'b0));

    // the packet capture of the stand-in is not read here: keep it small;
    // every QP's registers (QP_NUM), as the IP has them
    rclink_ip_model #(.QP_AW(QP_AW), .MAXPKT(4), .NQP(1024)) ip (
        .clk(clk), .rst_n(ip_rst_n),
        .awvalid(awvalid), .awready(awready), .awaddr(awaddr),
        .wvalid(wvalid), .wready(wready), .wdata(wdata), .wstrb(wstrb),
        .bvalid(bvalid), .bready(bready), .bresp(bresp),
        .arvalid(arvalid), .arready(arready), .araddr(araddr),
        .rvalid(rvalid), .rready(rready), .rdata(rdata), .rresp(rresp),
        .irq_vld(irq_vld), .irq_info(irq_info), .rc_intr(rc_intr),
        .tx_vld(tx_vld), .tx_fs(tx_fs), .tx_fe(tx_fe), .tx_dat(tx_dat),
        .tx_keep(tx_keep), .tx_qpid(tx_qpid), .tx_fack(tx_fack),
        .tx_etype(tx_etype), .tx_group(tx_group),
        .crd(crd), .crd_qpid(crd_qpid), .crd_qpid_vld(crd_qpid_vld),
        .idle(ip_idle), .wait_mac_crd(ip_wait_crd), .mac_free_o(ip_mac_free),
        .t2_crd_o(ip_t2_crd), .t2_rate_vld(t2_rate_vld), .t2_rate_dat(t2_rate_dat));

    // ---- MAC CSR stand-in (tb/rclink_mac_model.v) --------------------
    rclink_mac_model mac (
        .clk(clk), .rst_n(ip_rst_n), .dead(1'b0),
        .address(mac_address), .read(mac_read), .write(mac_write),
        .writedata(mac_writedata), .readdata(mac_readdata),
        .readdatavalid(mac_readdatavalid));
endmodule
`default_nettype wire
