// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim for the Intel P-tile Avalon-ST hard IP for PCI Express
// (Documentation/hw/rtl.rst, "P-tile top").
//
// The ports of the tile's application side (512-bit Avalon-ST RX/TX with
// the header beside the data, the TX credit limits, the configuration
// output bus, INTx, FLR) and the board, RCLINK-Stream IP and MAC CSR
// ports of the core.  rclink_ptile_if turns the tile's streams into the
// vendor-neutral rclink_shim_tlp's (TX_OFF 0, RX_OFF 0) and decodes the
// configuration bus; MSI goes out as a memory write of the function's MSI
// address and data (the tile has no MSI request port), MSI-X is the
// shim's own (table and PBA in BAR2, messages as memory writes): the tile
// is configured with the MSI-X capability pointing at BAR2 and no table
// of its own.  The function's requester/completer ID is the bus and
// device number the tile reports (the tile does not fill it in).
`default_nettype none
`include "rclink_regs.vh"
module rclink_shim_ptile #(
    parameter NVEC = `RCLINK_MSIX_VECTORS,
    parameter QP_AW = 10,
    parameter OST_N = `RCLINK_PARAM_TYPE1_OST_N,
    parameter DMA_TIMEOUT = 4096,
    parameter TAGS = 32,
    parameter CPL_TIMEOUT = 24'd12500000,   // 50 ms at 250 MHz
    parameter MAX_RD = 512,                 // largest read request (bytes)
    parameter REG_TIMEOUT = 1024,           // cycles a register port may take
    parameter IP_RST_CYCLES = 1024,         // cycles SHIM_RESET holds the IP's reset
    parameter NCTX = 8,                     // contexts (rtl.rst "Contexts"); > 1: BAR4
    parameter RX_DEPTH = 128,               // beats of each RX FIFO of the adapter
    parameter HDR_W = 12,                   // header credit field of tx_cdts_limit
    parameter DATA_W = 16                   // data credit field of tx_cdts_limit
) (
    input  wire         coreclkout_hip,
    input  wire         reset_status,       // the tile's application reset
`include "rclink_ptile_ports.vh"
    // ---- INTx (PF0 in bit 0)
    output wire [7:0]   app_int,
    // ---- function level reset (PF0 in bit 0)
    input  wire [7:0]   flr_rcvd_pf,
    output wire [7:0]   flr_completed_pf,
    // ---- status of the PCIe side
    output wire [31:0]  cnt_bad_req,
    output wire [31:0]  cnt_cpl_unexp,
    output wire [31:0]  cnt_cpl_tmo,
    output wire [31:0]  cnt_rx_drop,        // RX beats past the tile's latency
    // ---- DMA burst port of the engine (rclink_tlp_req port 2)
`include "rclink_dma_ports.vh"
    // ---- the IP's TYPE3 AXI4 masters (the TYPE3 bridge, engine port 1)
`include "rclink_nonr_ports.vh"
`include "rclink_ip_ports.vh"
);
    wire clk = coreclkout_hip;
    reg  rst_q;
    always @(posedge clk)
        rst_q <= reset_status;

    wire         q_valid, q_ready, q_bad, c_valid, c_ready;
    wire [127:0] q_hdr, c_hdr;
    wire [2:0]   q_bar;
    wire [63:0]  q_data, c_data;
    wire         r_valid, r_ready, r_sop, r_last, p_valid, p_sop, p_last, p_err;
    wire [127:0] r_hdr, p_hdr;
    wire [511:0] r_data, p_data;
    wire [15:0]  r_keep;
    wire         r_sop2;
    wire [127:0] r_hdr2;
    wire [15:0]  function_id;
    wire         bm_en, msi_en, msix_en, msix_mask, intx_dis;
    wire [2:0]   mps, mrrs;
    wire         msi_valid, msi_ready, intx, tx_idle, r_cend;
    wire [4:0]   tx_held;

    rclink_ptile_if #(.RX_DEPTH(RX_DEPTH), .HDR_W(HDR_W), .DATA_W(DATA_W)) u_if (
        .clk(clk), .rst(rst_q),
`include "rclink_ptile_conn.vh"
        .function_id(function_id), .cfg_bus_master_en(bm_en),
        .cfg_max_payload(mps), .cfg_max_read_req(mrrs),
        .cfg_msi_en(msi_en), .cfg_msix_en(msix_en), .cfg_msix_mask(msix_mask),
        .cfg_intx_disable(intx_dis),
        .msi_valid(msi_valid), .msi_ready(msi_ready),
        .req_valid(q_valid), .req_ready(q_ready), .req_hdr(q_hdr),
        .req_bar(q_bar), .req_data(q_data), .req_bad(q_bad),
        .cpl_valid(c_valid), .cpl_ready(c_ready), .cpl_hdr(c_hdr),
        .cpl_data(c_data),
        .rq_valid(r_valid), .rq_ready(r_ready), .rq_sop(r_sop),
        .rq_last(r_last), .rq_hdr(r_hdr), .rq_data(r_data), .rq_keep(r_keep),
        .rq_sop2(r_sop2), .rq_hdr2(r_hdr2),
        .rc_valid(p_valid), .rc_sop(p_sop), .rc_last(p_last), .rc_hdr(p_hdr),
        .rc_data(p_data), .rc_err(p_err), .cnt_rx_drop(cnt_rx_drop),
        .rq_cend(r_cend), .tx_held(tx_held), .tx_idle(tx_idle));

    // ---- INTx A: a level, unless the function's command register
    // disables it
    assign app_int = {7'd0, intx && !intx_dis};

    wire [NVEC-1:0] msix_pending;

    // ---- FLR: flr_rcvd_pf[0] rising starts it (a pulse or a level held
    // until flr_completed_pf alike); stop taking new requests, let
    // the reads out complete (or time out after CPL_TIMEOUT) and the
    // TYPE3 bridge finish or answer the IP's bursts it took (req_idle
    // covers both) and the adapter hand the TLPs it holds to the tile
    // (tx_idle), reset the function's state (the core, its MSI-X table,
    // the IP), then one flr_completed_pf[0] pulse.
    reg  [1:0] flr_st;
    reg        flr_rst;
    reg        flr_done;
    reg        flr_in;                  // flr_rcvd_pf[0] a cycle ago
    assign flr_completed_pf = {7'd0, flr_done};
    wire       req_idle;
    wire       flr_stop = flr_st == 2'd1;
    always @(posedge clk) begin
        if (rst_q) begin
            flr_st <= 2'd0;
            flr_rst <= 1'b0;
            flr_done <= 1'b0;
            flr_in <= 1'b0;
        end else begin
            flr_in <= flr_rcvd_pf[0];
            flr_rst <= 1'b0;
            flr_done <= 1'b0;
            case (flr_st)
            2'd0:
                if (flr_rcvd_pf[0] && !flr_in)
                    flr_st <= 2'd1;
            2'd1:
                if (req_idle && tx_idle) begin
                    flr_rst <= 1'b1;
                    flr_st <= 2'd2;
                end
            default: begin
                flr_done <= 1'b1;
                flr_st <= 2'd0;
            end
            endcase
        end
    end

    wire [2:0] rcs_took_nc;             // (no straddled completions)
    rclink_shim_tlp #(.NVEC(NVEC), .QP_AW(QP_AW), .OST_N(OST_N),
                      .DMA_TIMEOUT(DMA_TIMEOUT), .TAGS(TAGS),
                      .CPL_TIMEOUT(CPL_TIMEOUT), .REG_TIMEOUT(REG_TIMEOUT),
                      .MAX_RD(MAX_RD), .TX_OFF(0), .RX_OFF(0),
                      .IP_RST_CYCLES(IP_RST_CYCLES), .NCTX(NCTX)) u_tlp (
        .clk(clk), .rst_n(!reset_status && !flr_rst),
        .function_id(function_id), .flr_stop(flr_stop), .req_idle(req_idle),
        .tx_drained(tx_idle),       // the adapter's TX queue empty
        // exact write counts: less the command ends the TX queue holds
        .rq_cend(r_cend), .tx_held(tx_held),
        .cfg_bus_master_en(bm_en),
        .cfg_msix_en(msix_en), .cfg_msix_mask(msix_mask),
        .cfg_msi_en(msi_en),
        .cfg_max_payload(mps), .cfg_max_read_req(mrrs),
        .cq_valid(q_valid), .cq_ready(q_ready), .cq_hdr(q_hdr), .cq_bar(q_bar),
        .cq_data(q_data), .cq_bad(q_bad),
        .cc_valid(c_valid), .cc_ready(c_ready), .cc_hdr(c_hdr), .cc_data(c_data),
        .rq_valid(r_valid), .rq_ready(r_ready), .rq_sop(r_sop), .rq_last(r_last),
        .rq_hdr(r_hdr), .rq_data(r_data), .rq_keep(r_keep),
        .rq_sop2(r_sop2), .rq_hdr2(r_hdr2),
        .rc_valid(p_valid), .rc_sop(p_sop), .rc_last(p_last), .rc_hdr(p_hdr),
        .rc_data(p_data), .rc_err(p_err),
        // one completion a beat (no straddled slots)
        .rcs_valid(3'd0), .rcs_last(3'd0), .rcs_hdr(384'd0), .rcs_err(3'd0),
        .rcs_took(rcs_took_nc),
`include "rclink_dma_conn.vh"
`include "rclink_nonr_conn.vh"
        .msi_valid(msi_valid), .msi_ready(msi_ready), .intx(intx),
        .cnt_bad_req(cnt_bad_req), .cnt_cpl_unexp(cnt_cpl_unexp),
        .cnt_cpl_tmo(cnt_cpl_tmo), .msix_pending(msix_pending),
`include "rclink_ip_conn.vh"
    );
endmodule
`default_nettype wire
