// SPDX-License-Identifier: GPL-2.0 OR MIT
// Co-simulation top (Documentation/testing.rst, "RTL boards"): the shim's
// vendor-neutral core (rclink_shim_top, NCTX user contexts whose doorbell
// writes come on db_*) with the testbench's IP stand-in
// (tb/rclink_ip_model.v) and the MAC CSR stand-in (tb/rclink_mac_model.v)
// behind it, one board.  The
// host side (configuration state, BAR0 requests and completions, DMA words,
// MSI-X / MSI / INTx) is left as ports for the C++ harness
// (rclink_cosim.cpp), which forwards them to the QEMU device over a socket.
// With ip_ext low the stand-ins serve the IP side and RX_M is idle (one
// board, nothing received).  With ip_ext high (the bridge) the IP side is
// left as ports too: the harness forwards TX_S packets, AXI4-Lite and MAC
// CSR requests to the QEMU model's IP and wire, and drives the IP's
// answers (TX_S credits, RX_M packets, IRQ_VLD/IRQ_INFO, RC_INTR, the
// status levels) from that model's messages.
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_cosim_top #(
    // user contexts (DMAQ_CTX_CAP.num); build.sh sets it from the message
    // header's RCLINK_COSIM_NCTX, the doorbell pages of the device's BAR4
    parameter NCTX = 8
) (
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
    // a BAR4 (doorbell) write, one cycle, in order with the BAR0 writes
    input  wire        db_wr,
    input  wire [23:0] db_addr,
    input  wire [7:0]  db_be,
    input  wire [63:0] db_data,
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
    input  wire [47:0] board_mac,
    // ---- the bridge to the QEMU model's IP (ip_ext high)
    input  wire        ip_ext,
    input  wire        x_carrier,       // the model's wire: its carrier
    output wire        x_ip_rst_n,
    output wire        x_awvalid,
    output wire [13:0] x_awaddr,
    output wire [63:0] x_wdata,
    output wire [7:0]  x_wstrb,
    input  wire        x_bvalid,
    output wire        x_arvalid,
    output wire [13:0] x_araddr,
    input  wire        x_rvalid,
    input  wire [63:0] x_rdata,
    output wire [11:0] x_mac_address,
    output wire        x_mac_read,
    output wire        x_mac_write,
    output wire [31:0] x_mac_writedata,
    input  wire [31:0] x_mac_readdata,
    input  wire        x_mac_readdatavalid,
    input  wire        x_irq_vld,
    input  wire [63:0] x_irq_info,
    input  wire [15:0] x_rc_intr,
    output wire        x_tx_vld,
    output wire        x_tx_fs,
    output wire        x_tx_fe,
    output wire [511:0] x_tx_dat,
    output wire [63:0] x_tx_keep,
    output wire [9:0]  x_tx_qpid,
    output wire        x_tx_fack,
    output wire [1:0]  x_tx_etype,
    output wire [2:0]  x_tx_group,
    input  wire [3:0]  x_crd,
    input  wire [9:0]  x_crd_qpid,
    input  wire        x_crd_qpid_vld,
    input  wire [1:0]  x_idle,
    input  wire        x_wait_crd,
    input  wire        x_mac_free,
    input  wire [15:0] x_t2_crd,
    input  wire        x_rx_vld,
    output wire        x_rx_rdy,
    input  wire        x_rx_fs,
    input  wire        x_rx_fe,
    input  wire [511:0] x_rx_dat,
    input  wire [63:0] x_rx_keep,
    input  wire [9:0]  x_rx_qpid,
    input  wire [1:0]  x_rx_etype,
    input  wire [12:0] x_rx_len,
    input  wire [9:0]  x_rx_sa,
    input  wire [11:0] x_rx_psn,
    output wire [3:0]  x_flow_stop,
    // a timer of the core runs (rclink_shim_top): the harness keeps the
    // clock going meanwhile
    output wire        timers_run
);
    localparam QP_AW = 10;

    wire        ip_rst_n;
    wire        awvalid, wvalid, bready;
    wire        arvalid, rready;
    wire [13:0] awaddr, araddr;
    wire [63:0] wdata;
    wire [7:0]  wstrb;
    wire        tx_vld, tx_fs, tx_fe, tx_fack;
    wire [511:0] tx_dat;
    wire [63:0] tx_keep;
    wire [1:0]  tx_etype;
    wire [2:0]  tx_group;
    wire [QP_AW-1:0] tx_qpid;
    wire        t2_rate_vld;
    wire [21:0] t2_rate_dat;
    wire        rx_rdy;
    wire [3:0]  flow_stop;
    wire [11:0] mac_address;
    wire        mac_read, mac_write;
    wire [31:0] mac_writedata;
    // the stand-ins' answers
    wire        s_awready, s_wready, s_bvalid, s_arready, s_rvalid;
    wire [63:0] s_rdata;
    wire [1:0]  s_bresp, s_rresp;
    wire        s_irq_vld;
    wire [63:0] s_irq_info;
    wire [15:0] s_rc_intr;
    wire [QP_AW-1:0] s_crd_qpid;
    wire [3:0]  s_crd;
    wire        s_crd_qpid_vld;
    wire [1:0]  s_idle;
    wire        s_wait_crd, s_mac_free;
    wire [15:0] s_t2_crd;
    wire [31:0] s_mac_readdata;
    wire        s_mac_readdatavalid;

    // ---- the IP side: the stand-ins, or the harness (ip_ext) -------------
    // The harness takes an AXI4-Lite request whole in the cycle it is
    // offered (AW and W together) and answers a read later on x_rvalid.
    reg         x_rpend;
    always @(posedge clk)
        if (!ip_rst_n || !ip_ext)
            x_rpend <= 1'b0;
        else if (arvalid && !x_rpend)
            x_rpend <= 1'b1;
        else if (x_rvalid)
            x_rpend <= 1'b0;
    reg         x_bpend;
    always @(posedge clk)
        if (!ip_rst_n || !ip_ext)
            x_bpend <= 1'b0;
        else if (awvalid && wvalid && !x_bpend)
            x_bpend <= 1'b1;
        else if (bready)
            x_bpend <= 1'b0;
    reg  [63:0] x_rdata_q;
    reg         x_rvalid_q;
    always @(posedge clk)
        if (!ip_rst_n || !ip_ext) begin
            x_rvalid_q <= 1'b0;
        end else if (x_rvalid) begin
            x_rvalid_q <= 1'b1;
            x_rdata_q <= x_rdata;
        end else if (rready) begin
            x_rvalid_q <= 1'b0;
        end
    wire        awready = ip_ext ? (awvalid && wvalid && !x_bpend) : s_awready;
    wire        wready = ip_ext ? (awvalid && wvalid && !x_bpend) : s_wready;
    wire        bvalid = ip_ext ? x_bpend : s_bvalid;
    wire [1:0]  bresp = ip_ext ? 2'd0 : s_bresp;
    wire        arready = ip_ext ? (arvalid && !x_rpend) : s_arready;
    wire        rvalid = ip_ext ? x_rvalid_q : s_rvalid;
    wire [63:0] rdata = ip_ext ? x_rdata_q : s_rdata;
    wire [1:0]  rresp = ip_ext ? 2'd0 : s_rresp;
    wire        irq_vld = ip_ext ? x_irq_vld : s_irq_vld;
    wire [63:0] irq_info = ip_ext ? x_irq_info : s_irq_info;
    wire [15:0] rc_intr = ip_ext ? x_rc_intr : s_rc_intr;
    wire [3:0]  crd = ip_ext ? x_crd : s_crd;
    wire [QP_AW-1:0] crd_qpid = ip_ext ? x_crd_qpid : s_crd_qpid;
    wire        crd_qpid_vld = ip_ext ? x_crd_qpid_vld : s_crd_qpid_vld;
    wire [1:0]  ip_idle = ip_ext ? x_idle : s_idle;
    wire        ip_wait_crd = ip_ext ? x_wait_crd : s_wait_crd;
    wire        ip_mac_free = ip_ext ? x_mac_free : s_mac_free;
    wire [15:0] ip_t2_crd = ip_ext ? x_t2_crd : s_t2_crd;
    wire [31:0] mac_readdata = ip_ext ? x_mac_readdata : s_mac_readdata;
    wire        mac_readdatavalid = ip_ext ? x_mac_readdatavalid : s_mac_readdatavalid;

    assign x_ip_rst_n = ip_rst_n;
    assign x_awvalid = awvalid && wvalid && !x_bpend;
    assign x_awaddr = awaddr;
    assign x_wdata = wdata;
    assign x_wstrb = wstrb;
    assign x_arvalid = arvalid && !x_rpend;
    assign x_araddr = araddr;
    assign x_mac_address = mac_address;
    assign x_mac_read = mac_read;
    assign x_mac_write = mac_write;
    assign x_mac_writedata = mac_writedata;
    assign x_tx_vld = tx_vld;
    assign x_tx_fs = tx_fs;
    assign x_tx_fe = tx_fe;
    assign x_tx_dat = tx_dat;
    assign x_tx_keep = tx_keep;
    assign x_tx_qpid = tx_qpid;
    assign x_tx_fack = tx_fack;
    assign x_tx_etype = tx_etype;
    assign x_tx_group = tx_group;
    assign x_rx_rdy = rx_rdy;
    assign x_flow_stop = flow_stop;

    rclink_shim_top #(.NCTX(NCTX)) dut (
        .clk(clk), .rst_n(rst_n), .core_rst(core_rst),
        .cfg_bus_master_en(cfg_bus_master_en), .cfg_msix_en(cfg_msix_en),
        .cfg_msi_en(cfg_msi_en),
        .tgt_req_valid(tgt_req_valid), .tgt_req_ready(tgt_req_ready),
        .tgt_req_write(tgt_req_write), .tgt_req_addr(tgt_req_addr),
        .tgt_req_be(tgt_req_be), .tgt_req_data(tgt_req_data),
        .tgt_req_tag(10'd0), .tgt_cpl_valid(tgt_cpl_valid),
        .tgt_cpl_ready(1'b1), .tgt_cpl_data(tgt_cpl_data), .tgt_cpl_tag(),
        .db_wr(db_wr), .db_addr(db_addr), .db_be(db_be), .db_data(db_data),
        .dma_req_valid(dma_req_valid), .dma_req_ready(dma_req_ready),
        .dma_req_write(dma_req_write), .dma_req_addr(dma_req_addr),
        .dma_req_data(dma_req_data), .dma_req_be(dma_req_be),
        .dma_rsp_valid(dma_rsp_valid), .dma_rsp_data(dma_rsp_data),
        .dma_rsp_err(dma_rsp_err),
        .msix_valid(msix_valid), .msix_vector(msix_vector), .msix_ready(1'b1),
        .msi_valid(msi_valid), .msi_ready(1'b1), .intx(intx), .dma_bm_drop(1'b0),
        // no TYPE3 bridge here (the IP stand-in has no ring engine, the
        // QEMU model's IP no NONR masters on this side): SHIM_T3_DMA_ERR 0
        .cnt_t3_dma_err(64'd0),
        // BURST 0: the queue engines' burst port is not used
        .q_cmd_valid(), .q_cmd_ready(1'b0), .q_cmd_write(), .q_cmd_addr(),
        .q_cmd_len(), .q_wd_valid(), .q_wd_ready(1'b0), .q_wd_data(),
        .q_rd_valid(1'b0), .q_rd_data(512'd0), .q_rd_keep(64'd0),
        .q_rd_last(1'b0), .q_rd_err(1'b0), .q_wr_idle(1'b1),
        .q_wc_taken(8'd0), .q_wc_sent(8'd0), .q_wr_direct(1'b0),
        .board_serial(board_serial), .board_mac(board_mac),
        .link_carrier(ip_ext ? x_carrier : 1'b1), .timers_run(timers_run),
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
        .rx_m_vld(ip_ext && x_rx_vld), .rx_m_rdy(rx_rdy),
        .rx_m_fs(x_rx_fs), .rx_m_fe(x_rx_fe),
        .rx_m_dat(x_rx_dat), .rx_m_keep(x_rx_keep), .rx_m_qpid(x_rx_qpid),
        .rx_m_etype(x_rx_etype), .rx_m_len(x_rx_len), .rx_m_sa(x_rx_sa),
`include "rclink_cemac_tie.vh"
        .rx_m_psn(x_rx_psn), .rx_flow_stop(flow_stop),
        .mac_address(mac_address), .mac_read(mac_read), .mac_write(mac_write),
        .mac_writedata(mac_writedata), .mac_readdata(mac_readdata),
        .mac_readdatavalid(mac_readdatavalid), .mac_waitrequest(1'b0));

    // the packet capture of the stand-in is not read here: keep it small;
    // every QP's registers (QP_NUM), as the IP has them
    rclink_ip_model #(.QP_AW(QP_AW), .MAXPKT(4), .NQP(1024)) ip (
        .clk(clk), .rst_n(ip_rst_n),
        .awvalid(awvalid && !ip_ext), .awready(s_awready), .awaddr(awaddr),
        .wvalid(wvalid && !ip_ext), .wready(s_wready), .wdata(wdata), .wstrb(wstrb),
        .bvalid(s_bvalid), .bready(bready), .bresp(s_bresp),
        .arvalid(arvalid && !ip_ext), .arready(s_arready), .araddr(araddr),
        .rvalid(s_rvalid), .rready(rready), .rdata(s_rdata), .rresp(s_rresp),
        .irq_vld(s_irq_vld), .irq_info(s_irq_info), .rc_intr(s_rc_intr),
        .tx_vld(tx_vld && !ip_ext), .tx_fs(tx_fs), .tx_fe(tx_fe), .tx_dat(tx_dat),
        .tx_keep(tx_keep), .tx_qpid(tx_qpid), .tx_fack(tx_fack),
        .tx_etype(tx_etype), .tx_group(tx_group),
        .crd(s_crd), .crd_qpid(s_crd_qpid), .crd_qpid_vld(s_crd_qpid_vld),
        .idle(s_idle), .wait_mac_crd(s_wait_crd), .mac_free_o(s_mac_free),
        .t2_crd_o(s_t2_crd), .t2_rate_vld(t2_rate_vld), .t2_rate_dat(t2_rate_dat),
        // the TYPE3 engine (tb/rclink_t3_model.v) is not here
        .t3_set(1'b0), .t3_set_tail(2'd0), .t3_new_tx_tail(12'd0),
        .t3_new_rx_tail(12'd0), .t3_st0(5'd0), .t3_st1(11'd0),
        .t3_st0_latch(5'd0));

    // ---- MAC CSR stand-in (tb/rclink_mac_model.v) --------------------
    rclink_mac_model mac (
        .clk(clk), .rst_n(ip_rst_n), .dead(1'b0),
        .address(mac_address), .read(mac_read && !ip_ext),
        .write(mac_write && !ip_ext),
        .writedata(mac_writedata), .readdata(s_mac_readdata),
        .readdatavalid(s_mac_readdatavalid));
endmodule
`default_nettype wire
