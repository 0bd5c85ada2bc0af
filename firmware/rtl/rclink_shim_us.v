// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim for the Xilinx UltraScale+ integrated block for PCI
// Express (Documentation/hw/rtl.rst, "UltraScale+ top").
//
// The ports of the hard IP's user side (PG213: 512-bit CQ/CC/RQ/RC
// AXI4-Stream, DWORD-aligned, no straddling but on RC (RC_TLPS: up to 4
// TLPs a beat, the block's RC straddle options), client tags; the
// configuration status and interrupt ports the shim needs) and the board,
// RCLINK-Stream IP and MAC CSR ports of the core.  rclink_us_if turns the
// descriptors into standard TLP headers for the vendor-neutral
// rclink_shim_tlp; the glue here maps the configuration state and sends
// MSI and INTx through the block's interrupt interface.  MSI-X is the
// shim's own (table and PBA in BAR2, messages as memory writes on RQ): the
// block is configured with MSI-X "external" (its capability points to
// BAR2, it holds no table).
`default_nettype none
`include "rclink_regs.vh"
module rclink_shim_us #(
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
    parameter RC_TLPS = 4,                  // TLPs a RC beat: 1, 2, 4 (the block's RC straddle)
    parameter RQ_TLPS = 2                   // TLPs a RQ beat: 1, 2 (the block's RQ straddle; rtl.rst)
) (
    input  wire         user_clk,
    input  wire         user_reset,
    input  wire         user_lnk_up,
    // ---- completer request (CQ) and completion (CC)
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
    // ---- requester request (RQ) and completion (RC)
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
    // ---- configuration status (physical function 0 in bits [3:0] / [0])
    input  wire [15:0]  cfg_function_status,
    input  wire [1:0]   cfg_max_payload,
    input  wire [2:0]   cfg_max_read_req,
    // ---- interrupts
    input  wire [3:0]   cfg_interrupt_msix_enable,
    input  wire [3:0]   cfg_interrupt_msix_mask,
    input  wire [3:0]   cfg_interrupt_msi_enable,
    output reg  [31:0]  cfg_interrupt_msi_int,
    input  wire         cfg_interrupt_msi_sent,
    input  wire         cfg_interrupt_msi_fail,
    output wire [3:0]   cfg_interrupt_int,
    output wire [3:0]   cfg_interrupt_pending,
    input  wire         cfg_interrupt_sent,
    // ---- function level reset (physical function 0 in bit 0)
    input  wire [3:0]   cfg_flr_in_process,
    output reg  [3:0]   cfg_flr_done,
    // ---- status of the PCIe side
    output wire [31:0]  cnt_bad_req,
    output wire [31:0]  cnt_cpl_unexp,
    output wire [31:0]  cnt_cpl_tmo,
    // ---- DMA burst port of the engine (rclink_tlp_req port 2)
`include "rclink_dma_ports.vh"
    // ---- the IP's TYPE3 AXI4 masters (the TYPE3 bridge, engine port 1)
`include "rclink_nonr_ports.vh"
`include "rclink_ip_ports.vh"
);
    reg rst_q;
    always @(posedge user_clk)
        rst_q <= user_reset;

    wire         q_valid, q_ready, q_bad, c_valid, c_ready;
    wire [127:0] q_hdr, c_hdr;
    wire [2:0]   q_bar;
    wire [63:0]  q_data, c_data;
    wire         r_valid, r_ready, r_sop, r_last, p_valid, p_sop, p_last, p_err;
    wire [2:0]   ps_valid, ps_last, ps_err, ps_took;
    wire [383:0] ps_hdr;
    wire [127:0] r_hdr, p_hdr;
    wire [511:0] r_data, p_data;
    wire [15:0]  r_keep;
    wire         r_sop2;
    wire [127:0] r_hdr2;

    rclink_us_if #(.RC_TLPS(RC_TLPS), .RQ_TLPS(RQ_TLPS)) u_if (
        .clk(user_clk), .rst(rst_q),
        .m_axis_cq_tdata(m_axis_cq_tdata), .m_axis_cq_tuser(m_axis_cq_tuser),
        .m_axis_cq_tlast(m_axis_cq_tlast), .m_axis_cq_tkeep(m_axis_cq_tkeep),
        .m_axis_cq_tvalid(m_axis_cq_tvalid), .m_axis_cq_tready(m_axis_cq_tready),
        .s_axis_cc_tdata(s_axis_cc_tdata), .s_axis_cc_tuser(s_axis_cc_tuser),
        .s_axis_cc_tlast(s_axis_cc_tlast), .s_axis_cc_tkeep(s_axis_cc_tkeep),
        .s_axis_cc_tvalid(s_axis_cc_tvalid), .s_axis_cc_tready(s_axis_cc_tready),
        .s_axis_rq_tdata(s_axis_rq_tdata), .s_axis_rq_tuser(s_axis_rq_tuser),
        .s_axis_rq_tlast(s_axis_rq_tlast), .s_axis_rq_tkeep(s_axis_rq_tkeep),
        .s_axis_rq_tvalid(s_axis_rq_tvalid), .s_axis_rq_tready(s_axis_rq_tready),
        .m_axis_rc_tdata(m_axis_rc_tdata), .m_axis_rc_tuser(m_axis_rc_tuser),
        .m_axis_rc_tlast(m_axis_rc_tlast), .m_axis_rc_tkeep(m_axis_rc_tkeep),
        .m_axis_rc_tvalid(m_axis_rc_tvalid), .m_axis_rc_tready(m_axis_rc_tready),
        .req_valid(q_valid), .req_ready(q_ready), .req_hdr(q_hdr),
        .req_bar(q_bar), .req_data(q_data), .req_bad(q_bad),
        .cpl_valid(c_valid), .cpl_ready(c_ready), .cpl_hdr(c_hdr),
        .cpl_data(c_data),
        .rq_valid(r_valid), .rq_ready(r_ready), .rq_sop(r_sop),
        .rq_last(r_last), .rq_hdr(r_hdr), .rq_data(r_data), .rq_keep(r_keep),
        .rq_sop2(r_sop2), .rq_hdr2(r_hdr2),
        .rc_valid(p_valid), .rc_sop(p_sop), .rc_last(p_last), .rc_hdr(p_hdr),
        .rc_data(p_data), .rc_err(p_err), .rcs_valid(ps_valid),
        .rcs_last(ps_last), .rcs_hdr(ps_hdr), .rcs_err(ps_err), .rcs_took(ps_took));

    // the hard IP takes non-posted requests as the shim frees them
    // (m_axis_cq_tready holds the rest back)
    assign pcie_cq_np_req = 2'b01;

    // ---- MSI: one cfg_interrupt_msi_int pulse, then sent or fail ----------
    wire msi_valid, msi_ready, intx;
    reg  msi_wait;
    assign msi_ready = msi_wait && (cfg_interrupt_msi_sent || cfg_interrupt_msi_fail);
    always @(posedge user_clk) begin
        if (rst_q) begin
            msi_wait <= 1'b0;
            cfg_interrupt_msi_int <= 32'd0;
        end else begin
            cfg_interrupt_msi_int <= 32'd0;
            if (msi_ready) begin
                msi_wait <= 1'b0;
            end else if (msi_valid && !msi_wait) begin
                msi_wait <= 1'b1;
                cfg_interrupt_msi_int <= 32'd1;
            end
        end
    end
    // ---- INTx A: a level
    assign cfg_interrupt_int = {3'd0, intx};
    assign cfg_interrupt_pending = {3'd0, intx};

    wire [NVEC-1:0] msix_pending;

    // ---- FLR: stop taking new requests, let the reads out complete (or
    // time out after CPL_TIMEOUT) and the TYPE3 bridge finish or answer
    // the IP's bursts it took (req_idle covers both), reset the
    // function's state (the core, its MSI-X table, the IP), then one
    // cfg_flr_done pulse.  The state
    // stays quiet until the block drops cfg_flr_in_process.
    localparam F_IDLE = 2'd0, F_DRAIN = 2'd1, F_RESET = 2'd2, F_WAIT = 2'd3;
    reg  [1:0] flr_st;
    reg        flr_rst;
    wire       req_idle;
    wire       flr_stop = flr_st == F_DRAIN;
    always @(posedge user_clk) begin
        if (rst_q) begin
            flr_st <= F_IDLE;
            flr_rst <= 1'b0;
            cfg_flr_done <= 4'd0;
        end else begin
            flr_rst <= 1'b0;
            cfg_flr_done <= 4'd0;
            case (flr_st)
            F_IDLE:
                if (cfg_flr_in_process[0])
                    flr_st <= F_DRAIN;
            F_DRAIN:
                if (req_idle) begin
                    flr_rst <= 1'b1;
                    flr_st <= F_RESET;
                end
            F_RESET: begin
                cfg_flr_done <= 4'd1;
                flr_st <= F_WAIT;
            end
            default:
                if (!cfg_flr_in_process[0])
                    flr_st <= F_IDLE;
            endcase
        end
    end

    rclink_shim_tlp #(.NVEC(NVEC), .QP_AW(QP_AW), .OST_N(OST_N),
                      .DMA_TIMEOUT(DMA_TIMEOUT), .TAGS(TAGS),
                      .CPL_TIMEOUT(CPL_TIMEOUT), .REG_TIMEOUT(REG_TIMEOUT),
                      .MAX_RD(MAX_RD), .TX_OFF(4), .RX_OFF(3),
                      .IP_RST_CYCLES(IP_RST_CYCLES), .NCTX(NCTX),
                      .RQ_STRADDLE(RQ_TLPS == 2)) u_tlp (
        .clk(user_clk), .rst_n(!user_reset && !flr_rst),
        .function_id(16'd0), .flr_stop(flr_stop), .req_idle(req_idle),
        .tx_drained(1'b1),          // the adapter holds no beat: the
                                    // beats go straight to RQ
        // (no queue in the adapter: no command end held)
        /* verilator lint_off PINCONNECTEMPTY */
        .rq_cend(),
        /* verilator lint_on PINCONNECTEMPTY */
        .tx_held(5'd0),
        .cfg_bus_master_en(cfg_function_status[2]),
        .cfg_msix_en(cfg_interrupt_msix_enable[0]),
        .cfg_msix_mask(cfg_interrupt_msix_mask[0]),
        .cfg_msi_en(cfg_interrupt_msi_enable[0]),
        .cfg_max_payload({1'b0, cfg_max_payload}),
        .cfg_max_read_req(cfg_max_read_req),
        .cq_valid(q_valid), .cq_ready(q_ready), .cq_hdr(q_hdr), .cq_bar(q_bar),
        .cq_data(q_data), .cq_bad(q_bad),
        .cc_valid(c_valid), .cc_ready(c_ready), .cc_hdr(c_hdr), .cc_data(c_data),
        .rq_valid(r_valid), .rq_ready(r_ready), .rq_sop(r_sop), .rq_last(r_last),
        .rq_hdr(r_hdr), .rq_data(r_data), .rq_keep(r_keep),
        .rq_sop2(r_sop2), .rq_hdr2(r_hdr2),
        .rc_valid(p_valid), .rc_sop(p_sop), .rc_last(p_last), .rc_hdr(p_hdr),
        .rc_data(p_data), .rc_err(p_err), .rcs_valid(ps_valid),
        .rcs_last(ps_last), .rcs_hdr(ps_hdr), .rcs_err(ps_err), .rcs_took(ps_took),
`include "rclink_dma_conn.vh"
`include "rclink_nonr_conn.vh"
        .msi_valid(msi_valid), .msi_ready(msi_ready), .intx(intx),
        .cnt_bad_req(cnt_bad_req), .cnt_cpl_unexp(cnt_cpl_unexp),
        .cnt_cpl_tmo(cnt_cpl_tmo), .msix_pending(msix_pending),
`include "rclink_ip_conn.vh"
    );
endmodule
`default_nettype wire
