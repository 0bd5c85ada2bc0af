// SPDX-License-Identifier: GPL-2.0 OR MIT
// Testbench of the rclink shim: the shim, the IP stand-in
// (rclink_ip_model) with its TYPE3 engine (rclink_t3_model: the MD rings
// through the IP's NONR_MD_AXI / NONR_DATA_AXI masters, its MAC side
// looped to the commands), the shim's TYPE3 bridge (rclink_axi_dma) on a
// burst port of the host stand-in, a host memory / PCIe stand-in (word
// requests, in order read responses after a latency, bus errors outside
// its memory, MSI-X/MSI capture), a MAC CSR stand-in, and an interpreter
// of the command file vec2tb.py makes from a shared test vector.
//
//   vvp rclink_tb.vvp +cmds=FILE.hex +name=NAME
//
// Prints one line per failed check and "RESULT <name> PASS|FAIL ...".
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_tb #(
    parameter OST_N = `RCLINK_PARAM_TYPE1_OST_N,    // iverilog -P to shrink
    parameter NCTX = 8                              // user contexts' control plane
);
    localparam QP_AW = 10;
    localparam [63:0] HBASE = 64'h10000000;
    localparam HWORDS = 32768;              // 256 KiB of host memory
    localparam NCMD = 16384;

    reg clk = 1'b0;
    always #2 clk = !clk;
    reg rst_n = 1'b0;

    // a timer of the core runs (a simulation harness keeps the clock going)
    wire timers_run;

    // ---- configuration state of the hard IP ------------------------------------
    reg cfg_bm = 1'b1, cfg_msix = 1'b0, cfg_msi = 1'b0;

    // ---- BAR0 requests -------------------------------------------------------------
    reg         t_valid = 1'b0;
    wire        t_ready;
    reg         t_write = 1'b0;
    reg  [15:0] t_addr = 16'd0;
    reg  [7:0]  t_be = 8'd0;
    reg  [63:0] t_data = 64'd0;
    reg  [9:0]  t_tag = 10'd0;
    // ---- doorbell BAR writes --------------------------------------------------
    reg         db_wr = 1'b0;
    reg  [23:0] db_addr = 24'd0;
    reg  [7:0]  db_be = 8'd0;
    reg  [63:0] db_data = 64'd0;
    wire        c_valid;
    wire [63:0] c_data;
    wire [9:0]  c_tag;

    // ---- DMA ------------------------------------------------------------------------------
    wire        d_valid, d_write;
    reg         d_ready = 1'b1;
    wire [63:0] d_addr, d_data;
    wire [7:0]  d_be;
    reg         r_valid = 1'b0;
    reg  [63:0] r_data = 64'd0;
    reg         r_err = 1'b0;

    // ---- interrupts -------------------------------------------------------------------
    wire        msix_valid, msi_valid, intx;
    wire [15:0] msix_vector;

    // ---- IP ----------------------------------------------------------------------------------
    wire        ip_rst_n;
    wire        awvalid, awready, wvalid, wready, bvalid, bready, arvalid, arready, rvalid, rready;
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
    reg         rx_vld = 1'b0, rx_fs = 1'b0, rx_fe = 1'b0;
    reg  [511:0] rx_dat = 512'd0;
    reg  [63:0] rx_keep = 64'd0;
    reg  [QP_AW-1:0] rx_qpid = 0;
    reg  [1:0]  rx_etype = 2'd0;
    reg  [12:0] rx_len = 13'd0;
    reg  [9:0]  rx_sa = 10'd0;
    reg  [11:0] rx_psn = 12'd0;
    wire        rx_rdy;
    wire [3:0]  flow_stop;
    reg         ip_irq_vld_tb = 1'b0;
    reg  [63:0] ip_irq_info_tb = 64'd0;
    reg         ack_vld = 1'b0, ack_nak = 1'b0;
    reg  [QP_AW-1:0] ack_qpid = 0;
    reg  [31:0] ack_rtt = 32'd0;
    reg  [9:0]  ack_num = 10'd0;
    reg         tmo_vld = 1'b0;
    reg  [QP_AW-1:0] tmo_qpid = 0;

    // ---- MAC ------------------------------------------------------------------------------------
    wire [11:0] mac_address;
    wire        mac_read, mac_write;
    wire [31:0] mac_writedata;
    wire [31:0] mac_readdata;
    wire        mac_readdatavalid;

    // ---- TYPE3: the IP's engine, its masters, the shim's bridge -----------
    wire        core_rst;
    wire [63:0] t3_ctrl, t3_tx_head, t3_rx_head, t3_tx_tail, t3_rx_tail;
    wire [63:0] t3_tx_ba, t3_rx_ba, t3_tx_size, t3_rx_size, t3_tail_up_cfg, t3_int_mask;
    wire [1:0]  t3_srst, t3_set_tail;
    wire        t3_set;
    wire [11:0] t3_new_tx_tail, t3_new_rx_tail;
    wire [4:0]  t3_st0, t3_st0_latch;
    wire [10:0] t3_st1;
    // NONR_MD_AXI / NONR_DATA_AXI (rtl.sh makes the declarations from
    // rclink_nonr_ports.vh)
`include "rclink_nonr_wires.vh"
    // the bridge's burst port, served by the host stand-in below
    wire        b_cmd_valid, b_cmd_write, b_wd_valid;
    wire [63:0] b_cmd_addr;
    wire [12:0] b_cmd_len;
    wire [511:0] b_wd_data;
    reg         b_rd_valid = 1'b0, b_rd_err = 1'b0;
    reg  [511:0] b_rd_data = 512'd0;
    reg         b_wr = 1'b0;             // taking a write command's lines
    wire        b_idle;
    wire [63:0] cnt_t3_dma_err;

    rclink_shim_top #(.DMA_TIMEOUT(2000), .OST_N(OST_N), .NCTX(NCTX)) dut (
        .clk(clk), .rst_n(rst_n), .core_rst(core_rst),
        .cfg_bus_master_en(cfg_bm), .cfg_msix_en(cfg_msix), .cfg_msi_en(cfg_msi),
        .cnt_t3_dma_err(cnt_t3_dma_err), .dma_bm_drop(1'b0),
        // BURST 0: the queue engines' burst port is not used
        .q_cmd_valid(), .q_cmd_ready(1'b0), .q_cmd_write(), .q_cmd_addr(),
        .q_cmd_len(), .q_wd_valid(), .q_wd_ready(1'b0), .q_wd_data(),
        .q_rd_valid(1'b0), .q_rd_data(512'd0), .q_rd_keep(64'd0),
        .q_rd_last(1'b0), .q_rd_err(1'b0), .q_wr_idle(1'b1),
        .q_wc_taken(8'd0), .q_wc_sent(8'd0), .q_wr_direct(1'b0),
        .tgt_req_valid(t_valid), .tgt_req_ready(t_ready), .tgt_req_write(t_write),
        .tgt_req_addr(t_addr), .tgt_req_be(t_be), .tgt_req_data(t_data),
        .tgt_req_tag(t_tag), .tgt_cpl_valid(c_valid), .tgt_cpl_ready(1'b1),
        .tgt_cpl_data(c_data), .tgt_cpl_tag(c_tag),
        .db_wr(db_wr), .db_addr(db_addr), .db_be(db_be), .db_data(db_data),
        .dma_req_valid(d_valid), .dma_req_ready(d_ready), .dma_req_write(d_write),
        .dma_req_addr(d_addr), .dma_req_data(d_data), .dma_req_be(d_be),
        .dma_rsp_valid(r_valid), .dma_rsp_data(r_data), .dma_rsp_err(r_err),
        .msix_valid(msix_valid), .msix_vector(msix_vector), .msix_ready(1'b1),
        .msi_valid(msi_valid), .msi_ready(1'b1), .intx(intx),
        .board_serial(64'h0000000000005eed), .board_mac(48'h525400123456),
        .link_carrier(1'b1), .timers_run(timers_run),
        .ip_rst_n(ip_rst_n),
        .ip_awvalid(awvalid), .ip_awready(awready), .ip_awaddr(awaddr),
        .ip_wvalid(wvalid), .ip_wready(wready), .ip_wdata(wdata), .ip_wstrb(wstrb),
        .ip_bvalid(bvalid), .ip_bready(bready), .ip_bresp(bresp),
        .ip_arvalid(arvalid), .ip_arready(arready), .ip_araddr(araddr),
        .ip_rvalid(rvalid), .ip_rready(rready), .ip_rdata(rdata), .ip_rresp(rresp),
        .ip_irq_vld(irq_vld || ip_irq_vld_tb),
        .ip_irq_info(ip_irq_vld_tb ? ip_irq_info_tb : irq_info),
        .ip_rc_intr(rc_intr),
        .ip_recv_ack_vld(ack_vld), .ip_recv_ack_qpid(ack_qpid),
        .ip_recv_ack_rtt(ack_rtt), .ip_recv_num_acked(ack_num), .ip_recv_nak_flg(ack_nak),
        .ip_retry_tmo_vld(tmo_vld), .ip_retry_tmo_qpid(tmo_qpid),
        .tx_s_vld(tx_vld), .tx_s_fs(tx_fs), .tx_s_fe(tx_fe), .tx_s_dat(tx_dat),
        .tx_s_keep(tx_keep), .tx_s_qpid(tx_qpid), .tx_s_fack(tx_fack),
        .tx_s_etype(tx_etype), .tx_s_t2_group(tx_group), .tx_s_crd(crd), .tx_s_crd_qpid(crd_qpid),
        .tx_s_crd_qpid_vld(crd_qpid_vld),
        .ip_idle(ip_idle), .ip_tx_wait_mac_crd(ip_wait_crd),
        .ip_tx_mac_free(ip_mac_free), .ip_t2_crd(ip_t2_crd),
        .ip_set_type2_rate_vld(t2_rate_vld), .ip_set_type2_rate_dat(t2_rate_dat),
        .rx_m_vld(rx_vld), .rx_m_rdy(rx_rdy), .rx_m_fs(rx_fs), .rx_m_fe(rx_fe),
        .rx_m_dat(rx_dat), .rx_m_keep(rx_keep), .rx_m_qpid(rx_qpid),
        .rx_m_etype(rx_etype), .rx_m_len(rx_len), .rx_m_sa(rx_sa),
`include "rclink_cemac_tie.vh"
        .rx_m_psn(rx_psn), .rx_flow_stop(flow_stop),
        .mac_address(mac_address), .mac_read(mac_read), .mac_write(mac_write),
        .mac_writedata(mac_writedata), .mac_readdata(mac_readdata),
        .mac_readdatavalid(mac_readdatavalid), .mac_waitrequest(1'b0));

    rclink_ip_model #(.QP_AW(QP_AW)) ip (
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
        .t2_crd_o(ip_t2_crd), .t2_rate_vld(t2_rate_vld), .t2_rate_dat(t2_rate_dat),
        .t3_ctrl(t3_ctrl), .t3_tx_head(t3_tx_head), .t3_rx_head(t3_rx_head),
        .t3_tx_tail(t3_tx_tail), .t3_rx_tail(t3_rx_tail),
        .t3_tx_ba(t3_tx_ba), .t3_rx_ba(t3_rx_ba), .t3_tx_size(t3_tx_size),
        .t3_rx_size(t3_rx_size), .t3_tail_up_cfg(t3_tail_up_cfg),
        .t3_int_mask(t3_int_mask), .t3_srst(t3_srst), .t3_set(t3_set),
        .t3_set_tail(t3_set_tail), .t3_new_tx_tail(t3_new_tx_tail),
        .t3_new_rx_tail(t3_new_rx_tail), .t3_st0(t3_st0), .t3_st1(t3_st1),
        .t3_st0_latch(t3_st0_latch));

    rclink_t3_model t3 (
        .clk(clk), .rst_n(ip_rst_n),
        .t3_ctrl(t3_ctrl), .t3_tx_head(t3_tx_head), .t3_rx_head(t3_rx_head),
        .t3_tx_tail(t3_tx_tail), .t3_rx_tail(t3_rx_tail),
        .t3_tx_ba(t3_tx_ba), .t3_rx_ba(t3_rx_ba), .t3_tx_size(t3_tx_size),
        .t3_rx_size(t3_rx_size), .t3_tail_up_cfg(t3_tail_up_cfg),
        .t3_int_mask(t3_int_mask), .t3_srst(t3_srst), .t3_set(t3_set),
        .t3_set_tail(t3_set_tail), .t3_new_tx_tail(t3_new_tx_tail),
        .t3_new_rx_tail(t3_new_rx_tail), .t3_st0(t3_st0), .t3_st1(t3_st1),
        .t3_st0_latch(t3_st0_latch),
        .md_awvalid(nonr_md_awvalid), .md_awready(nonr_md_awready),
        .md_awaddr(nonr_md_awaddr), .md_awlen(nonr_md_awlen),
        .md_awsize(nonr_md_awsize), .md_awburst(nonr_md_awburst),
        .md_awid(nonr_md_awid), .md_wvalid(nonr_md_wvalid),
        .md_wready(nonr_md_wready), .md_wdata(nonr_md_wdata),
        .md_wstrb(nonr_md_wstrb), .md_wlast(nonr_md_wlast),
        .md_bvalid(nonr_md_bvalid), .md_bready(nonr_md_bready),
        .md_bresp(nonr_md_bresp), .md_arvalid(nonr_md_arvalid),
        .md_arready(nonr_md_arready), .md_araddr(nonr_md_araddr),
        .md_arlen(nonr_md_arlen), .md_arsize(nonr_md_arsize),
        .md_arburst(nonr_md_arburst), .md_arid(nonr_md_arid),
        .md_rvalid(nonr_md_rvalid), .md_rready(nonr_md_rready),
        .md_rdata(nonr_md_rdata), .md_rresp(nonr_md_rresp),
        .dt_awvalid(nonr_data_awvalid), .dt_awready(nonr_data_awready),
        .dt_awaddr(nonr_data_awaddr), .dt_awlen(nonr_data_awlen),
        .dt_awsize(nonr_data_awsize), .dt_awburst(nonr_data_awburst),
        .dt_awid(nonr_data_awid), .dt_wvalid(nonr_data_wvalid),
        .dt_wready(nonr_data_wready), .dt_wdata(nonr_data_wdata),
        .dt_wstrb(nonr_data_wstrb), .dt_wlast(nonr_data_wlast),
        .dt_bvalid(nonr_data_bvalid), .dt_bready(nonr_data_bready),
        .dt_bresp(nonr_data_bresp), .dt_arvalid(nonr_data_arvalid),
        .dt_arready(nonr_data_arready), .dt_araddr(nonr_data_araddr),
        .dt_arlen(nonr_data_arlen), .dt_arsize(nonr_data_arsize),
        .dt_arburst(nonr_data_arburst), .dt_arid(nonr_data_arid),
        .dt_rvalid(nonr_data_rvalid), .dt_rready(nonr_data_rready),
        .dt_rdata(nonr_data_rdata), .dt_rresp(nonr_data_rresp),
        .dt_rlast(nonr_data_rlast));

    rclink_axi_dma u_t3 (
        .clk(clk), .rst(!rst_n), .flush(core_rst),
        .bus_master_en(cfg_bm), .stop(1'b0), .eng_idle(b_idle), .idle(),
`include "rclink_nonr_conn.vh"
        .cmd_valid(b_cmd_valid), .cmd_ready(!b_wr),
        .cmd_write(b_cmd_write), .cmd_addr(b_cmd_addr), .cmd_len(b_cmd_len),
        .wd_valid(b_wd_valid), .wd_ready(b_wr), .wd_data(b_wd_data),
        .rd_valid(b_rd_valid), .rd_data(b_rd_data),
        .rd_err(b_rd_err), .cnt_err(cnt_t3_dma_err));

    // ---- MAC CSR stand-in (tb/rclink_mac_model.v) --------------------
    rclink_mac_model mac (
        .clk(clk), .rst_n(ip_rst_n), .dead(1'b0),
        .address(mac_address), .read(mac_read), .write(mac_write),
        .writedata(mac_writedata), .readdata(mac_readdata),
        .readdatavalid(mac_readdatavalid));

    // ---- host memory and PCIe requester stand-in ------------------------------------------
    reg [63:0] hmem [0:HWORDS-1];
    integer lat = 3;
    integer wst = 0, wcnt = 0;        // cycles the requester stalls after a write
    reg [63:0] slow = 64'd0;          // latency only for this page (0: all)
    integer now = 0;
    integer q_wr = 0, q_rd = 0;
    integer q_t [0:255];
    reg [63:0] q_d [0:255];
    reg        q_e [0:255];
    reg [15:0] lfsr = 16'hace1;
    integer msix_n = 0, msix_r = 0, msi_n = 0;
    reg [15:0] msix_log [0:1023];

    function in_mem(input [63:0] a);
        in_mem = a >= HBASE && a < HBASE + HWORDS * 8;
    endfunction
    function [63:0] lanes(input [7:0] s);
        integer b;
        begin
            for (b = 0; b < 8; b = b + 1)
                lanes[8*b +: 8] = {8{s[b]}};
        end
    endfunction

    always @(posedge clk) begin
        now = now + 1;
        lfsr <= {lfsr[14:0], lfsr[15] ^ lfsr[13] ^ lfsr[12] ^ lfsr[10]};
        // some back-pressure; with wst, none taken for wst cycles after
        // each write (write TLPs that leave late)
        if (d_valid && d_ready && d_write && wst != 0)
            wcnt = wst;
        else if (wcnt != 0)
            wcnt = wcnt - 1;
        d_ready <= (lfsr[3] | lfsr[7]) && wcnt == 0;
        if (d_valid && d_ready) begin
            if (d_write) begin
                if (in_mem(d_addr))
                    hmem[(d_addr - HBASE) >> 3] = (hmem[(d_addr - HBASE) >> 3] & ~lanes(d_be)) |
                                                  (d_data & lanes(d_be));
            end else begin
                q_t[q_wr % 256] = now + ((slow == 64'd0 || (d_addr >= slow &&
                                          d_addr < slow + 4096)) ? lat : 3);
                q_e[q_wr % 256] = !in_mem(d_addr);
                q_d[q_wr % 256] = in_mem(d_addr) ? hmem[(d_addr - HBASE) >> 3] : 64'd0;
                q_wr = q_wr + 1;
            end
        end
        r_valid <= 1'b0;
        if (q_rd != q_wr && now >= q_t[q_rd % 256]) begin
            r_valid <= 1'b1;
            r_data <= q_d[q_rd % 256];
            r_err <= q_e[q_rd % 256];
            q_rd = q_rd + 1;
        end
        if (msix_valid) begin
            msix_log[msix_n % 1024] = msix_vector;
            msix_n = msix_n + 1;
        end
        if (msi_valid)
            msi_n = msi_n + 1;
    end

    // the bridge's burst port: address-aligned 64-byte lines of host
    // memory (rclink_tlp_req's protocol), a read's lines after a latency,
    // err for a line outside the memory
    integer bq_wr = 0, bq_rd = 0, bw_n = 0, bw_i = 0, bl, bk, bj;
    reg [63:0] bwd;
    integer bq_t [0:255];
    reg [511:0] bq_d [0:255];
    reg        bq_e [0:255];
    reg [63:0] bw_a0 = 64'd0, bw_a1 = 64'd0, bw_line = 64'd0, bla;
    assign b_idle = bq_wr == bq_rd && !b_wr;
    always @(posedge clk) begin
        if (b_cmd_valid && !b_wr) begin
            bla = b_cmd_addr & ~64'd63;
            bl = (b_cmd_addr[5:0] + b_cmd_len + 63) / 64;
            if (b_cmd_write) begin
                b_wr <= 1'b1;
                bw_n = bl;
                bw_i = 0;
                bw_a0 = b_cmd_addr;
                bw_a1 = b_cmd_addr + b_cmd_len;
                bw_line = bla;
            end else begin
                for (bk = 0; bk < bl; bk = bk + 1) begin
                    bq_t[bq_wr % 256] = now + 8;
                    bq_e[bq_wr % 256] = !in_mem(bla + 64 * bk);
                    for (bj = 0; bj < 8; bj = bj + 1)
                        bq_d[bq_wr % 256][64 * bj +: 64] = in_mem(bla + 64 * bk) ?
                            hmem[(bla + 64 * bk - HBASE) / 8 + bj] : 64'd0;
                    bq_wr = bq_wr + 1;
                end
            end
        end
        if (b_wd_valid && b_wr) begin
            for (bk = 0; bk < 64; bk = bk + 1)
                if (bw_line + bk >= bw_a0 && bw_line + bk < bw_a1 &&
                    in_mem(bw_line + bk)) begin
                    bwd = hmem[(bw_line + bk - HBASE) >> 3];
                    bwd[8 * ((bw_line + bk) & 7) +: 8] = b_wd_data[8 * bk +: 8];
                    hmem[(bw_line + bk - HBASE) >> 3] = bwd;
                end
            bw_line = bw_line + 64;
            bw_i = bw_i + 1;
            if (bw_i == bw_n)
                b_wr <= 1'b0;
        end
        b_rd_valid <= 1'b0;
        if (bq_rd != bq_wr && now >= bq_t[bq_rd % 256]) begin
            b_rd_valid <= 1'b1;
            b_rd_data <= bq_d[bq_rd % 256];
            b_rd_err <= bq_e[bq_rd % 256];
            bq_rd = bq_rd + 1;
        end
    end

    // ---- command interpreter ------------------------------------------------------------
    reg [255:0] cmds [0:NCMD-1];
    reg [255:0] c;
    reg [7:0]   op;
    reg [63:0]  a, b, m, v;
    integer     pc, fails, checks, k, tx_seen, n, t, t3_seen;
    reg [8*64-1:0] name;
    reg [8*256-1:0] file;

    task fail(input [8*80-1:0] what);
        begin
            fails = fails + 1;
            $display("FAIL %0s: command %0d: %0s a=%h b=%h c=%h got=%h", name, pc, what, a, b, m, v);
        end
    endtask

    task mmio_w(input [15:0] addr, input [63:0] data, input [7:0] be);
        begin
            @(negedge clk);
            t_valid = 1'b1; t_write = 1'b1; t_addr = addr; t_be = be; t_data = data;
            @(posedge clk);
            while (!t_ready) @(posedge clk);
            @(negedge clk);
            t_valid = 1'b0;
            // let a posted write take effect before the next request
            repeat (4) @(posedge clk);
        end
    endtask

    task db_w(input [23:0] addr, input [63:0] data, input [7:0] be);
        begin
            @(negedge clk);
            db_wr = 1'b1; db_addr = addr; db_be = be; db_data = data;
            @(negedge clk);
            db_wr = 1'b0;
            repeat (4) @(posedge clk);
        end
    endtask

    task mmio_r(input [15:0] addr, input [7:0] be, output [63:0] data);
        begin
            @(negedge clk);
            t_valid = 1'b1; t_write = 1'b0; t_addr = addr; t_be = be;
            t_tag = t_tag + 10'd1;
            @(posedge clk);
            while (!t_ready) @(posedge clk);
            @(negedge clk);
            t_valid = 1'b0;
            while (!c_valid) @(posedge clk);
            data = c_data;
            if (c_tag != t_tag) begin
                v = {54'd0, c_tag};
                fail("completion tag");
            end
            @(negedge clk);
        end
    endtask

    // the packet data of a TX_S capture against host memory
    task check_tx;
        integer i2, base2, dlen2;
        reg [63:0] seg2;
        reg [7:0] hb;
        reg [63:0] w2;
        begin
            while (ip.npkts <= tx_seen && t < 20000) begin
                @(posedge clk);
                t = t + 1;
            end
            if (ip.npkts <= tx_seen) begin
                v = 0;
                fail("no TX_S packet");
            end else begin
                base2 = tx_seen * 2048;
                seg2 = 64'd0;
                for (i2 = 0; i2 < 8; i2 = i2 + 1)
                    seg2[8*i2 +: 8] = ip.pkt[base2 + i2];
                dlen2 = b[63:32];
                v = seg2;
                if (seg2 != a) fail("TX_S segment header");
                v = ip.pkt_len[tx_seen];
                // at least the IP's TX_S minimum: zero padding after the data
                if (ip.pkt_len[tx_seen] != ((dlen2 + 8 < `RCLINK_SEG_PKT_MIN) ?
                                            `RCLINK_SEG_PKT_MIN : dlen2 + 8))
                    fail("TX_S packet length");
                for (i2 = dlen2 + 8; i2 < ip.pkt_len[tx_seen]; i2 = i2 + 1)
                    if (ip.pkt[base2 + i2] != 8'd0) begin
                        v = i2;
                        fail("TX_S padding byte not zero");
                        i2 = ip.pkt_len[tx_seen];
                    end
                v = {54'd0, ip.pkt_qpid[tx_seen]};
                if (ip.pkt_qpid[tx_seen] != b[QP_AW-1:0]) fail("TX_S_QPID");
                v = {63'd0, ip.pkt_fack[tx_seen]};
                if (ip.pkt_fack[tx_seen] != b[16]) fail("TX_S_FACK");
                v = {62'd0, ip.pkt_etype[tx_seen]};
                if (ip.pkt_etype[tx_seen] != b[21:20]) fail("TX_S_ETYPE");
                v = {61'd0, ip.pkt_group[tx_seen]};
                if (ip.pkt_etype[tx_seen] == 2'd3 && ip.pkt_group[tx_seen] != b[26:24])
                    fail("TX_S_TYPE2_GROUP_INDEX");
                v = {63'd0, ip.pkt_fs_err[tx_seen]};
                if (ip.pkt_fs_err[tx_seen]) fail("TX_S beats outside FS..FE");
                for (i2 = 0; i2 < dlen2; i2 = i2 + 1) begin
                    w2 = hmem[(m + i2 - HBASE) >> 3];
                    hb = w2[8*((m + i2) & 7) +: 8];
                    if (ip.pkt[base2 + 8 + i2] != hb) begin
                        v = i2;
                        fail("TX_S payload byte");
                        i2 = dlen2;
                    end
                end
                tx_seen = tx_seen + 1;
            end
        end
    endtask

    // a packet on RX_M: segment header sr_a, data from host memory at sr_m
    // (the command's a, b, c and m, copied: the sender may run in the
    // background while the commands go on)
    reg [63:0] sr_a, sr_b, sr_m;
    reg [255:0] sr_c;
    reg        sr_req = 1'b0;
    task send_rx;
        integer i2, nb, dl, j2, pl, nn, tt;
        reg [7:0] hb;
        reg [63:0] w2;
        reg [511:0] beat;
        integer k2;
        begin
            dl = sr_b[63:32];
            // sr_b[28]: padded with zero bytes to the TX_S minimum
            pl = (sr_b[28] && 8 + dl < `RCLINK_SEG_PKT_MIN) ? `RCLINK_SEG_PKT_MIN : 8 + dl;
            nb = (pl + 63) / 64;        // RX_M beats of 64 bytes
            // A TYPE1 request meets FLOW_STOP of its bank (QPID bits 1:0)
            // before the IP takes it: under it the IP answers RNR (or drops
            // the request, ip.rnr_en) and nothing comes on RX_M.  The vector
            // says which it expects: sr_b[30] RNR, sr_b[31] dropped.
            @(negedge clk);
            if (sr_b[21:20] == 2'd0 && flow_stop[sr_b[1:0]]) begin
                v = {60'd0, flow_stop};
                if (ip.rnr_en[sr_b[1:0]]) begin
                    ip.fs_rnr = ip.fs_rnr + 1;
                    if (!sr_b[30]) fail("TYPE1 request under FLOW_STOP: answered RNR");
                end else begin
                    ip.fs_drops = ip.fs_drops + 1;
                    if (!sr_b[31]) fail("TYPE1 request under FLOW_STOP: dropped");
                end
                nb = 0;
            end else if (sr_b[31:30] != 2'd0) begin
                v = {60'd0, flow_stop};
                fail("FLOW_STOP low: the request was taken, not refused");
                nb = 0;
            end
            for (i2 = 0; i2 < nb; i2 = i2 + 1) begin
                beat = 512'd0;
                for (j2 = 0; j2 < 64; j2 = j2 + 1) begin
                    k2 = 64 * i2 + j2;      // the packet's byte
                    if (k2 < 8) begin
                        hb = sr_a[8*k2 +: 8];
                    end else if (k2 - 8 < dl) begin
                        w2 = hmem[(sr_m + k2 - 8 - HBASE) >> 3];
                        hb = w2[8*((sr_m + k2 - 8) & 7) +: 8];
                    end else begin
                        hb = 8'd0;
                    end
                    beat[8*(63-j2) +: 8] = hb;
                end
                @(negedge clk);
                rx_vld = 1'b1;
                rx_fs = i2 == 0;
                rx_fe = i2 == nb - 1;
                rx_dat = beat;
                rx_qpid = sr_b[QP_AW-1:0];
                rx_etype = sr_b[21:20];
                rx_len = pl[12:0];
                rx_psn = sr_c[63:52];
                rx_sa = sr_c[51:42];
                nn = (i2 == nb - 1) ? (pl - 64 * i2) : 64;
                rx_keep = ~({64{1'b1}} >> nn);
                @(posedge clk);
                tt = 0;
                while (!rx_rdy && tt < 20000) begin
                    @(posedge clk);
                    tt = tt + 1;
                end
                if (!rx_rdy) begin
                    v = i2;
                    fail("RX_M not ready");
                    i2 = nb;
                end
            end
            @(negedge clk);
            rx_vld = 1'b0;
            rx_fs = 1'b0;
            rx_fe = 1'b0;
            rx_etype = 2'd0;
            // the op ends when the shim is done with the packet (its RX_M
            // queue let go of it, and the engine ended it: a SEND lets go
            // with its last data byte, S_END follows), as when RX_M took
            // beats one by one: what a vector reads next sees the packet
            // handled
            tt = 0;
            while (nb != 0 && (dut.u_rx.iq_pkt || dut.u_rx.st == 6'd12) &&
                   tt < 20000) begin
                @(posedge clk);
                tt = tt + 1;
            end
            if (nb != 0 && (dut.u_rx.iq_pkt || dut.u_rx.st == 6'd12))
                fail("RX_M packet not handled");
        end
    endtask
    // the sender: one packet at a time
    always @(posedge clk)
        if (sr_req) begin
            send_rx;
            sr_req = 1'b0;
        end

    initial begin
        if (!$value$plusargs("cmds=%s", file)) begin
            $display("usage: +cmds=FILE +name=NAME");
            $finish;
        end
        if (!$value$plusargs("name=%s", name))
            name = "vectors";
        for (k = 0; k < NCMD; k = k + 1)
            cmds[k] = 256'd0;
        for (k = 0; k < HWORDS; k = k + 1)
            hmem[k] = 64'd0;
        $readmemh(file, cmds);
        fails = 0;
        checks = 0;
        tx_seen = 0;
        t3_seen = 0;
        repeat (5) @(posedge clk);
        rst_n = 1'b1;
        // the receive path clears its per-QP contexts after reset
        repeat (1100) @(posedge clk);
        pc = 0;
        c = cmds[0];
        while (c[7:0] != 8'd0 && pc < NCMD) begin
            op = c[7:0];
            a = c[127:64];
            b = c[191:128];
            m = c[255:192];
            v = 64'd0;
            case (op)
            8'd1: mmio_w(a[15:0], b, c[15:8]);
            8'd2: begin
                mmio_r(a[15:0], c[15:8], v);
                checks = checks + 1;
                if ((v & m) != b) fail("MMIO read");
            end
            8'd3: begin
                t = 0;
                mmio_r(a[15:0], 8'hff, v);
                while ((v & m) != b && t < 200) begin
                    repeat (50) @(posedge clk);
                    mmio_r(a[15:0], 8'hff, v);
                    t = t + 1;
                end
                checks = checks + 1;
                if ((v & m) != b) fail("poll");
            end
            8'd4: begin
                if (in_mem(a))
                    hmem[(a - HBASE) >> 3] = (hmem[(a - HBASE) >> 3] & ~m) | (b & m);
            end
            8'd5: begin
                v = in_mem(a) ? hmem[(a - HBASE) >> 3] : 64'hdead;
                checks = checks + 1;
                if ((v & m) != b) fail("host memory");
            end
            8'd6: begin
                @(negedge clk);
                ip_irq_vld_tb = 1'b1;
                ip_irq_info_tb = a;
                @(negedge clk);
                ip_irq_vld_tb = 1'b0;
            end
            8'd7: begin
                cfg_bm = a[0];
                cfg_msix = a[1];
                cfg_msi = a[2];
                repeat (2) @(posedge clk);
            end
            8'd8: begin
                t = 0;
                while (msix_r >= msix_n && t < 2000) begin
                    @(posedge clk);
                    t = t + 1;
                end
                checks = checks + 1;
                v = (msix_r < msix_n) ? {48'd0, msix_log[msix_r % 1024]} : 64'hffff;
                if (msix_r < msix_n)
                    msix_r = msix_r + 1;
                if (v != a) fail("MSI-X vector");
            end
            8'd9: begin
                repeat (200) @(posedge clk);
                checks = checks + 1;
                v = msix_n - msix_r;
                if (msix_r != msix_n) fail("unexpected MSI-X");
            end
            8'd10: begin
                // 0 acknowledge, 1 hold the acknowledged credits,
                // 2 release the held ones (and whatever comes until 1);
                // 3 hold the TYPE2 tokens, 4 return them again
                if (a == 0) ip.hold = 1'b0;
                if (a == 1) begin
                    ip.hold = 1'b1;
                    ip.held = 0;
                end
                if (a == 2) ip.held = 1000000;
                if (a == 3) ip.hold2 = 1'b1;
                if (a == 4) ip.hold2 = 1'b0;
            end
            8'd11: begin
                t = 0;
                checks = checks + 1;
                check_tx;
            end
            8'd12: begin
                lat = a;
                slow = b;
            end
            8'd13: begin
                // b[29]: in the background (a packet that waits on RX_M
                // while the commands go on); the next one waits for it
                checks = checks + 1;
                while (sr_req) @(posedge clk);
                sr_a = a;
                sr_b = b;
                sr_c = c;
                sr_m = m;
                sr_req = 1'b1;
                if (!b[29])
                    while (sr_req) @(posedge clk);
            end
            8'd14: begin
                repeat (200) @(posedge clk);
                checks = checks + 1;
                v = ip.npkts - tx_seen;
                if (ip.npkts != tx_seen) fail("unexpected TX_S packet");
                v = ip.runts;
                if (ip.runts != 0) fail("TX_S packet below the 64-byte minimum");
            end
            8'd15: begin
                repeat (20) @(posedge clk);
                checks = checks + 1;
                v = {63'd0, intx};
                if (intx != a[0]) fail("INTx level");
            end
            8'd16: repeat (a) @(posedge clk);
            8'd17: ip.set_status(a[15:0], b);
            8'd19: begin               // RECV_ACK_* of the IP for one cycle
                @(negedge clk);
                ack_vld = 1'b1;
                ack_qpid = a[QP_AW-1:0];
                ack_num = a[25:16];
                ack_nak = a[26];
                ack_rtt = b[31:0];
                @(negedge clk);
                ack_vld = 1'b0;
            end
            8'd20: begin               // the IP's status levels
                ip.mac_free = a[0];
                ip.wait_crd = b[0];
                ip.t2_crd = m[15:0];
            end
            8'd22: begin               // RETRY_TMO_* of the IP for one cycle
                @(negedge clk);
                tmo_vld = 1'b1;
                tmo_qpid = a[QP_AW-1:0];
                @(negedge clk);
                tmo_vld = 1'b0;
            end
            8'd21: begin               // SET_TYPE2_RATE_*: last rate, updates
                checks = checks + 1;
                v = {42'd0, ip.t2_rate};
                if (ip.t2_rate != a[21:0]) fail("SET_TYPE2_RATE_DAT_I");
                v = ip.t2_rate_n;
                if (ip.t2_rate_n != b) fail("SET_TYPE2_RATE_VLD_I pulses");
            end
            8'd23: db_w(a[23:0], b, c[15:8]);
            8'd25: begin               // the requester's stall after each write
                wst = a;
                wcnt = 0;
            end
            8'd24: begin               // read until the value is at least b
                t = 0;
                mmio_r(a[15:0], 8'hff, v);
                while (v < b && t < 200) begin
                    repeat (50) @(posedge clk);
                    mmio_r(a[15:0], 8'hff, v);
                    t = t + 1;
                end
                checks = checks + 1;
                if (v < b) fail("rge");
            end
            8'd18: begin
                checks = checks + 1;
                for (k = 0; k < m; k = k + 1) begin
                    v = hmem[(a + k - HBASE) >> 3] >> (8 * ((a + k) & 7));
                    t = hmem[(b + k - HBASE) >> 3] >> (8 * ((b + k) & 7));
                    if (v[7:0] != t[7:0]) begin
                        v = k;
                        fail("host memory bytes differ");
                        k = m;
                    end
                end
            end
            8'd26: begin               // the next TYPE3 frame on the wire
                t = 0;
                checks = checks + 1;
                while (t3.ntx <= t3_seen && t < 20000) begin
                    @(posedge clk);
                    t = t + 1;
                end
                if (t3.ntx <= t3_seen) begin
                    v = 0;
                    fail("no TYPE3 frame");
                end else begin
                    // the bytes at a, zeros up to the 60 bytes of a
                    // minimum Ethernet frame
                    v = t3.txf_len[t3_seen % 64];
                    if (v != ((b < 60) ? 60 : b)) fail("TYPE3 frame length");
                    for (k = 0; k < v && k < 4096; k = k + 1) begin
                        n = (k < b) ? hmem[(a + k - HBASE) >> 3] >> (8 * ((a + k) & 7)) : 0;
                        if (t3.txf[(t3_seen % 64) * 4096 + k] != n[7:0]) begin
                            v = k;
                            fail("TYPE3 frame byte");
                            k = 4096;
                        end
                    end
                    t3_seen = t3_seen + 1;
                end
            end
            8'd27: begin               // a frame from the wire to TYPE3 RX
                for (k = 0; k < b; k = k + 1) begin
                    n = hmem[(a + k - HBASE) >> 3] >> (8 * ((a + k) & 7));
                    t3.rxf[k] = n[7:0];
                end
                t3.rx_len = b;
                t3.rx_req = 1'b1;
                t = 0;
                while (t3.rx_req && t < 100000) begin
                    @(posedge clk);
                    t = t + 1;
                end
                checks = checks + 1;
                v = t;
                if (t3.rx_req) fail("TYPE3 RX frame not taken");
            end
            8'd28: begin               // the IP's own TYPE3 RX drops
                checks = checks + 1;
                v = t3.drop_off;
                if (t3.drop_off != a) fail("TYPE3 RX dropped off");
                v = t3.drop_nomd;
                if (t3.drop_nomd != b) fail("TYPE3 RX dropped without MDs");
                v = t3.drop_err;
                if (t3.drop_err != m) fail("TYPE3 RX dropped on a fault");
            end
            8'd29: begin               // no further TYPE3 frame
                repeat (500) @(posedge clk);
                checks = checks + 1;
                v = t3.ntx - t3_seen;
                if (t3.ntx != t3_seen) fail("unexpected TYPE3 frame");
            end
            8'd30: begin               // the core's timers_run level
                checks = checks + 1;
                v = {63'd0, timers_run};
                if (timers_run != a[0]) fail("timers_run");
            end
            default: fail("unknown command");
            endcase
            pc = pc + 1;
            c = cmds[pc];
        end
        $display("RESULT %0s %0s: %0d commands, %0d checks, %0d failed, %0d TX_S packets, %0d MSI-X",
                 name, fails == 0 ? "PASS" : "FAIL", pc, checks, fails, ip.npkts, msix_n);
        $finish;
    end

    initial begin
        #400000000;
        $display("RESULT %0s FAIL: timeout at command %0d", name, pc);
        $finish;
    end
endmodule
`default_nettype wire
