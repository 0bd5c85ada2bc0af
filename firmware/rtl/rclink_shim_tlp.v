// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the vendor-neutral TLP-level top (Documentation/hw/rtl.rst).
//
// The word-level core (rclink_shim_top) with the completer
// (rclink_tlp_cpl: BAR0 to the core, BAR2 to the MSI-X table), the DMA
// engine (rclink_tlp_req: bursts as memory read/write TLPs split at
// MRRS/MPS, 32 tags, completions reassembled in order, completion
// timeout, MSI-X messages on the same stream) and the MSI-X table and
// PBA (rclink_msix).  The engine has four burst ports: port 0 is
// unused (tied off), port 1 the TYPE3 bridge (rclink_axi_dma: the IP's NONR_MD_AXI and
// NONR_DATA_AXI masters), port 2 (dma_*) is free for another burst user
// (tie dma_cmd_valid and dma_wd_valid low when unused; with bus mastering
// off its commands are answered here, rclink_dma_barb), port 3 the core's
// queue engines (send queue, receive path, completion queue, event ring,
// self-test, user contexts: the core's q_* port, BURST 1); one command at a time, round robin.  Its PCIe side: the completer's streams of standard TLP
// headers (first DW in [127:96]) with up to two DWs of payload (a
// completion of more DWs, a doorbell BAR read, has zeros after them); the
// requester's 512-bit streams with the header beside the first beat
// (payload from DW lane TX_OFF / RX_OFF of the first beat, the lanes
// below for the adapter's descriptor); the configuration state of the
// function.  A vendor adapter (rclink_us_if for the
// UltraScale+ block) turns these into its hard IP's descriptors; nothing
// here depends on the vendor.
`default_nettype none
`include "rclink_regs.vh"
module rclink_shim_tlp #(
    parameter NVEC = `RCLINK_MSIX_VECTORS,
    parameter QP_AW = 10,
    parameter OST_N = `RCLINK_PARAM_TYPE1_OST_N,
    parameter DMA_TIMEOUT = 4096,           // cycles a payload read may take
    parameter TAGS = 32,                    // reads outstanding (tags)
    parameter CPL_TIMEOUT = 24'd12500000,    // completion timeout (cycles)
    parameter MAX_RD = 512,                 // largest read request (bytes)
    parameter TX_OFF = 4,                   // DW lanes of the adapter's RQ descriptor
    parameter RX_OFF = 3,                   // first payload DW lane of a completion
    parameter REG_TIMEOUT = 1024,           // cycles a register port may take
    parameter IP_RST_CYCLES = 1024,         // cycles SHIM_RESET holds the IP's reset
    parameter NCTX = 8,                     // contexts (rtl.rst "Contexts"); > 1: BAR4
    parameter RQ_STRADDLE = 0               // 1: a write TLP may start at DW lane 8 (rq_sop2)
) (
    input  wire         clk,
    input  wire         rst_n,
    // ---- configuration state of the function
    input  wire [15:0]  function_id,        // bus/device/function
    input  wire         cfg_bus_master_en,
    input  wire         cfg_msix_en,
    input  wire         cfg_msix_mask,      // MSI-X function mask
    input  wire         cfg_msi_en,
    input  wire [2:0]   cfg_max_payload,    // 0: 128 B .. 5: 4096 B
    input  wire [2:0]   cfg_max_read_req,   // 0: 128 B .. 5: 4096 B
    // ---- completer: requests in, completions out
    input  wire         cq_valid,
    output wire         cq_ready,
    input  wire [127:0] cq_hdr,
    input  wire [2:0]   cq_bar,
    input  wire [63:0]  cq_data,
    input  wire         cq_bad,
    output wire         cc_valid,
    input  wire         cc_ready,
    output wire [127:0] cc_hdr,
    output wire [63:0]  cc_data,
    // ---- requester: requests out, completions in
    output wire         rq_valid,
    input  wire         rq_ready,
    output wire         rq_sop,
    output wire         rq_last,
    output wire [127:0] rq_hdr,
    output wire [511:0] rq_data,
    output wire [15:0]  rq_keep,
    output wire         rq_sop2,
    output wire [127:0] rq_hdr2,
    input  wire         rc_valid,
    input  wire         rc_sop,
    input  wire         rc_last,
    input  wire [127:0] rc_hdr,
    input  wire [511:0] rc_data,
    input  wire         rc_err,
    input  wire [2:0]   rcs_valid,      // completions from DW lane 4, 8, 12
    input  wire [2:0]   rcs_last,
    input  wire [383:0] rcs_hdr,
    input  wire [2:0]   rcs_err,
    output wire [2:0]   rcs_took,       // taken (the others: the beat again)
    // ---- DMA burst port (rclink_tlp_req port 2)
`include "rclink_dma_ports.vh"
    // ---- the IP's TYPE3 AXI4 masters (rclink_tlp_req port 1)
`include "rclink_nonr_ports.vh"
    // ---- MSI (one vector) and INTx of the hard IP
    output wire         msi_valid,
    input  wire         msi_ready,
    output wire         intx,
    // ---- status of the PCIe side
    output wire [31:0]  cnt_bad_req,        // requests refused (UR or dropped)
    output wire [31:0]  cnt_cpl_unexp,      // completions for no waiting tag
    output wire [31:0]  cnt_cpl_tmo,        // completion timeouts
    input  wire         flr_stop,           // FLR drain: no new request
    // the adapter holds no TLP it took from rq_* (1 for an adapter that
    // hands them straight to the hard IP): with posted_idle, the writes
    // taken have reached the hard IP
    input  wire         tx_drained,
    // an adapter with a queue of its own: rq_cend marks the beat that ends
    // a write command (counted in the engine's sent count when the
    // adapter takes it), tx_held the command ends the adapter still holds
    // (the writes taken have reached the hard IP when the sent count less
    // tx_held reaches their taken count: the counts are exact on both
    // tops); 0 for an adapter without
    output wire         rq_cend,
    input  wire [4:0]   tx_held,
    output wire         req_idle,           // no read outstanding, no TYPE3 burst left
    output wire [NVEC-1:0] msix_pending,
`include "rclink_ip_ports.vh"
);
    reg rst_q;
    always @(posedge clk)
        rst_q <= !rst_n;

    // ---- completer --------------------------------------------------------
    wire        core_rst;
    wire        t_valid, t_ready, t_write, t_cpl_valid, t_cpl_ready;
    wire [15:0] t_addr;
    wire [7:0]  t_be;
    wire [63:0] t_data, t_cpl_data;
    wire        x_wr, x_rd;
    wire [11:0] x_addr;
    wire [7:0]  x_be;
    wire [63:0] x_wdata, x_rdata;
    wire [9:0]  t_cpl_tag;

    wire        db_wr;
    wire [23:0] db_addr;
    wire [7:0]  db_be;
    wire [63:0] db_data;
    rclink_tlp_cpl #(.DB_BAR(NCTX > 1)) u_cpl (
        .clk(clk), .rst(rst_q), .completer_id(function_id),
        .req_valid(cq_valid), .req_ready(cq_ready), .req_hdr(cq_hdr),
        .req_bar(cq_bar), .req_data(cq_data), .req_bad(cq_bad),
        .cpl_valid(cc_valid), .cpl_ready(cc_ready), .cpl_hdr(cc_hdr),
        .cpl_data(cc_data), .bad_req(cnt_bad_req),
        .t_valid(t_valid), .t_ready(t_ready), .t_write(t_write),
        .t_addr(t_addr), .t_be(t_be), .t_data(t_data),
        .t_cpl_valid(t_cpl_valid), .t_cpl_ready(t_cpl_ready),
        .t_cpl_data(t_cpl_data),
        .x_wr(x_wr), .x_rd(x_rd), .x_addr(x_addr), .x_be(x_be),
        .x_wdata(x_wdata), .x_rdata(x_rdata),
        .d_wr(db_wr), .d_addr(db_addr), .d_be(db_be), .d_data(db_data));

    // ---- requester --------------------------------------------------------
    wire        d_valid, d_write;           // the core's word requester: unused
    wire [63:0] d_addr, d_data;
    wire [7:0]  d_be;
    wire        m_valid, m_ready;
    wire [63:0] m_addr;
    wire [31:0] m_data;
    // port 0: unused
    wire         w_cmd_valid = 1'b0, w_cmd_write = 1'b0, w_wd_valid = 1'b0;
    wire [63:0]  w_cmd_addr = 64'd0;
    wire [12:0]  w_cmd_len = 13'd0;
    wire [511:0] w_wd_data = 512'd0;
    // the engine
    wire         e_cmd_valid, e_cmd_ready, e_cmd_write, e_wd_valid, e_wd_ready;
    wire         e_wr_busy, e_rd_valid, e_rd_last, e_rd_err, e_posted_idle;
    wire [7:0]   e_wc_taken, e_wc_sent, e_wc_out;
    assign e_wc_out = e_wc_sent - {3'd0, tx_held};
    wire [63:0]  e_cmd_addr;
    wire [12:0]  e_cmd_len;
    wire [1:0]   e_cmd_id, e_rd_id;
    wire [511:0] e_wd_data, e_rd_data;
    wire [63:0]  e_rd_keep;

    // port 1: the TYPE3 bridge (the IP's NONR_MD_AXI and NONR_DATA_AXI)
    wire         b_cmd_valid, b_cmd_ready, b_cmd_write, b_wd_valid, b_wd_ready;
    wire [63:0]  b_cmd_addr;
    wire [12:0]  b_cmd_len;
    wire [511:0] b_wd_data;
    wire [63:0]  cnt_t3_dma_err;
    wire         e_idle, t3_idle;
    // the FLR drain ends when the engine is idle and the bridge has
    // finished or answered every burst of the IP it took
    assign req_idle = e_idle && t3_idle;

    rclink_axi_dma u_t3 (
        .clk(clk), .rst(rst_q), .flush(core_rst),
        .bus_master_en(cfg_bus_master_en),
        .stop(flr_stop), .eng_idle(e_idle), .idle(t3_idle),
`include "rclink_nonr_conn.vh"
        .cmd_valid(b_cmd_valid), .cmd_ready(b_cmd_ready),
        .cmd_write(b_cmd_write), .cmd_addr(b_cmd_addr), .cmd_len(b_cmd_len),
        .wd_valid(b_wd_valid), .wd_ready(b_wd_ready), .wd_data(b_wd_data),
        .rd_valid(e_rd_valid && e_rd_id == 2'd1), .rd_data(e_rd_data),
        .rd_err(e_rd_err), .cnt_err(cnt_t3_dma_err));

    // port 3: the core's queue engines
    wire         q_cmd_valid, q_cmd_ready, q_cmd_write, q_wd_valid, q_wd_ready;
    wire [63:0]  q_cmd_addr;
    wire [12:0]  q_cmd_len;
    wire [511:0] q_wd_data;

    // port 2: dma_*, through the bus-mastering gate of the queue engines'
    // arbiter (one client): with cfg_bus_master_en off no command reaches
    // the engine, a write's beats are taken and dropped, a read answers
    // its beats with err (as ports 0, 1 and 3 do)
    wire         p_cmd_valid, p_cmd_ready, p_cmd_write, p_wd_valid, p_wd_ready;
    wire [63:0]  p_cmd_addr;
    wire [12:0]  p_cmd_len;
    wire [511:0] p_wd_data;
    wire         p_refused;         // counted in SHIM_DMA_BM_DROP (the core)
    rclink_dma_barb #(.N(1), .OW(1)) u_p2 (
        .clk(clk), .rst(core_rst), .wrst(rst_q),
        .bus_master_en(cfg_bus_master_en), .hold(1'b0),
        .c_cmd_valid(dma_cmd_valid), .c_cmd_ready(dma_cmd_ready),
        .c_cmd_write(dma_cmd_write), .c_cmd_addr(dma_cmd_addr),
        .c_cmd_len(dma_cmd_len),
        .c_wd_valid(dma_wd_valid), .c_wd_ready(dma_wd_ready),
        .c_wd_data(dma_wd_data),
        .c_rd_valid(dma_rd_valid), .c_rd_data(dma_rd_data),
        .c_rd_keep(dma_rd_keep), .c_rd_last(dma_rd_last), .c_rd_err(dma_rd_err),
        .m_cmd_valid(p_cmd_valid), .m_cmd_ready(p_cmd_ready),
        .m_cmd_write(p_cmd_write), .m_cmd_addr(p_cmd_addr), .m_cmd_len(p_cmd_len),
        .m_wd_valid(p_wd_valid), .m_wd_ready(p_wd_ready), .m_wd_data(p_wd_data),
        .m_rd_valid(e_rd_valid && e_rd_id == 2'd2), .m_rd_data(e_rd_data),
        .m_rd_keep(e_rd_keep), .m_rd_last(e_rd_last), .m_rd_err(e_rd_err),
        .refused(p_refused));

    // four ports (0 unused, 1 the TYPE3 bridge, 2 dma_*, 3 the
    // queue engines), one command at a time, round robin; write data from
    // the port whose write command is running
    wire [3:0] creq = {q_cmd_valid, p_cmd_valid, b_cmd_valid, w_cmd_valid};
    reg  [1:0] lastp, wsel, sel;
    reg  [2:0] rr;
    integer pi;
    always @* begin
        sel = lastp;
        for (pi = 4; pi >= 1; pi = pi - 1) begin
            rr = {1'b0, lastp} + pi[2:0];
            if (creq[rr[1:0]])
                sel = rr[1:0];
        end
    end
    assign e_cmd_valid   = |creq;
    assign e_cmd_write   = sel == 2'd3 ? q_cmd_write : sel == 2'd2 ? p_cmd_write :
                           sel == 2'd1 ? b_cmd_write : w_cmd_write;
    assign e_cmd_addr    = sel == 2'd3 ? q_cmd_addr : sel == 2'd2 ? p_cmd_addr :
                           sel == 2'd1 ? b_cmd_addr : w_cmd_addr;
    assign e_cmd_len     = sel == 2'd3 ? q_cmd_len : sel == 2'd2 ? p_cmd_len :
                           sel == 2'd1 ? b_cmd_len : w_cmd_len;
    assign e_cmd_id      = sel;
    assign b_cmd_ready   = e_cmd_ready && sel == 2'd1;
    assign p_cmd_ready   = e_cmd_ready && sel == 2'd2;
    assign q_cmd_ready   = e_cmd_ready && sel == 2'd3;
    assign e_wd_valid    = e_wr_busy && (wsel == 2'd3 ? q_wd_valid :
                                         wsel == 2'd2 ? p_wd_valid :
                                         wsel == 2'd1 ? b_wd_valid : w_wd_valid);
    assign e_wd_data     = wsel == 2'd3 ? q_wd_data : wsel == 2'd2 ? p_wd_data :
                           wsel == 2'd1 ? b_wd_data : w_wd_data;
    assign b_wd_ready    = e_wr_busy && wsel == 2'd1 && e_wd_ready;
    assign p_wd_ready    = e_wr_busy && wsel == 2'd2 && e_wd_ready;
    assign q_wd_ready    = e_wr_busy && wsel == 2'd3 && e_wd_ready;
    always @(posedge clk) begin
        if (rst_q) begin
            lastp <= 2'd0;
            wsel <= 2'd0;
        end else if (e_cmd_valid && e_cmd_ready) begin
            lastp <= sel;
            wsel <= sel;
        end
    end

    rclink_tlp_req #(.TAGS(TAGS), .TIMEOUT(CPL_TIMEOUT), .MAX_RD(MAX_RD),
                     .TX_OFF(TX_OFF), .RX_OFF(RX_OFF), .IDW(2),
                     .STRADDLE(RQ_STRADDLE)) u_req (
        .clk(clk), .rst(rst_q), .requester_id(function_id),
        .max_payload(cfg_max_payload), .max_read_req(cfg_max_read_req),
        .flush(core_rst),       // the core's reset, SHIM_RESET included
        .stop(flr_stop), .idle(e_idle), .posted_idle(e_posted_idle),
        .wc_taken(e_wc_taken), .wc_sent(e_wc_sent),
        .cmd_valid(e_cmd_valid), .cmd_ready(e_cmd_ready),
        .cmd_write(e_cmd_write), .cmd_addr(e_cmd_addr), .cmd_len(e_cmd_len),
        .cmd_id(e_cmd_id), .wr_busy(e_wr_busy),
        .wd_valid(e_wd_valid), .wd_ready(e_wd_ready), .wd_data(e_wd_data),
        .rd_valid(e_rd_valid), .rd_data(e_rd_data), .rd_keep(e_rd_keep),
        .rd_last(e_rd_last), .rd_err(e_rd_err), .rd_id(e_rd_id),
        .msg_valid(m_valid), .msg_ready(m_ready), .msg_addr(m_addr),
        .msg_data(m_data),
        .tx_valid(rq_valid), .tx_ready(rq_ready), .tx_sop(rq_sop),
        .tx_last(rq_last), .tx_hdr(rq_hdr), .tx_data(rq_data),
        .tx_keep(rq_keep), .tx_sop2(rq_sop2), .tx_hdr2(rq_hdr2),
        .tx_cend(rq_cend),
        .rx_valid(rc_valid), .rx_sop(rc_sop), .rx_last(rc_last),
        .rx_hdr(rc_hdr), .rx_data(rc_data), .rx_err(rc_err),
        .rxs_valid(rcs_valid), .rxs_last(rcs_last), .rxs_hdr(rcs_hdr),
        .rxs_err(rcs_err), .rxs_took(rcs_took),
        .cnt_unexp(cnt_cpl_unexp), .cnt_tmo(cnt_cpl_tmo));

    // ---- MSI-X table and PBA ----------------------------------------------
    wire        v_valid, v_ready;
    wire [15:0] v_vector;

    rclink_msix #(.NVEC(NVEC)) u_msix (
        .clk(clk), .rst(rst_q), .msix_en(cfg_msix_en), .fn_mask(cfg_msix_mask),
        .bm_en(cfg_bus_master_en),
        .wr(x_wr), .rd(x_rd), .addr(x_addr), .be(x_be), .wdata(x_wdata),
        .rdata(x_rdata),
        .req_valid(v_valid), .req_ready(v_ready), .req_vector(v_vector),
        .msg_valid(m_valid), .msg_ready(m_ready), .msg_addr(m_addr),
        .msg_data(m_data), .pending(msix_pending));

    // an MSI leaves through the hard IP's interrupt port, not the request
    // stream, and a WRITE_RESP through the IP's TX_S: each waits until the
    // writes taken before it have reached the hard IP: with the engine's
    // write counts exact (less tx_held), the writes taken up to its first
    // cycle of waiting (rclink_wfence; the core's writers have their own;
    // posted_left, q_wr_idle: the self-test's wait)
    wire posted_left = e_posted_idle && tx_drained;
    wire c_msi_valid, msi_done;
    rclink_wfence u_fn_msi (.clk(clk), .rst(rst_q), .exact(1'b1),
        .want(c_msi_valid), .taken(e_wc_taken), .sent(e_wc_out),
        .idle(posted_left), .done(msi_done));
    assign msi_valid = c_msi_valid && msi_done;

    // ---- the word-level core --------------------------------------------------
    wire timers_run;            // for a simulation harness only (rtl.rst)
    rclink_shim_top #(.NVEC(NVEC), .QP_AW(QP_AW), .OST_N(OST_N),
                      .DMA_TIMEOUT(DMA_TIMEOUT), .REG_TIMEOUT(REG_TIMEOUT),
                      .IP_RST_CYCLES(IP_RST_CYCLES), .BURST(1), .NCTX(NCTX)) u_core (
        .clk(clk), .rst_n(rst_n), .core_rst(core_rst),
        .cfg_bus_master_en(cfg_bus_master_en), .cfg_msix_en(cfg_msix_en),
        .cfg_msi_en(cfg_msi_en),
        .tgt_req_valid(t_valid), .tgt_req_ready(t_ready),
        .tgt_req_write(t_write), .tgt_req_addr(t_addr), .tgt_req_be(t_be),
        .tgt_req_data(t_data), .tgt_req_tag(10'd0),
        .tgt_cpl_valid(t_cpl_valid), .tgt_cpl_ready(t_cpl_ready),
        .tgt_cpl_data(t_cpl_data), .tgt_cpl_tag(t_cpl_tag),
        .db_wr(db_wr), .db_addr(db_addr), .db_be(db_be), .db_data(db_data),
        // the word requester is BURST 0's: unused here
        .dma_req_valid(d_valid), .dma_req_ready(1'b0),
        .dma_req_write(d_write), .dma_req_addr(d_addr),
        .dma_req_data(d_data), .dma_req_be(d_be),
        .dma_rsp_valid(1'b0), .dma_rsp_data(64'd0), .dma_rsp_err(1'b0),
        .q_cmd_valid(q_cmd_valid), .q_cmd_ready(q_cmd_ready),
        .q_cmd_write(q_cmd_write), .q_cmd_addr(q_cmd_addr), .q_cmd_len(q_cmd_len),
        .q_wd_valid(q_wd_valid), .q_wd_ready(q_wd_ready), .q_wd_data(q_wd_data),
        .q_rd_valid(e_rd_valid && e_rd_id == 2'd3), .q_rd_data(e_rd_data),
        .q_rd_keep(e_rd_keep), .q_rd_last(e_rd_last), .q_rd_err(e_rd_err),
        .q_wr_idle(posted_left),
        .q_wc_taken(e_wc_taken), .q_wc_sent(e_wc_out), .q_wr_direct(1'b1),
        .msix_valid(v_valid), .msix_vector(v_vector), .msix_ready(v_ready),
        .msi_valid(c_msi_valid), .msi_ready(msi_ready), .intx(intx),
        .cnt_t3_dma_err(cnt_t3_dma_err), .dma_bm_drop(p_refused),
        .timers_run(timers_run),
`include "rclink_ip_conn.vh"
    );
endmodule
`default_nettype wire
