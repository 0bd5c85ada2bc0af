// SPDX-License-Identifier: GPL-2.0
//
// rclink_qpstat: the per-QP counters a shim beside the IP can count from
// the IP's ports (firmware/regs/rclink.yaml, count_source "port";
// Documentation/hw/shim.rst, "What a shim can count"):
//
//   DMAQ_QPS_RX_PKTS    TYPE1 packets on RX_M (the IP accepted them in
//                       order), per TYPE1_2_RX_M_QPID_O
//   DMAQ_QPS_RX_BYTES   their TYPE1_W_RX_M_LEN_O
//   DMAQ_QPS_TIMEOUTS   RETRY_TMO_VLD_O, and IRQ_INFO TYPE1 code 2 (the
//                       expiry that reaches the retry threshold)
//
// The counters live in memories of QP_NUM entries, updated by read-modify-
// write pipelines (a synchronous read, then the write; the value written
// the cycle before is forwarded), one for the receive counters and one
// for the timeouts, so that an RX_M packet and a timeout in the same cycle
// are both counted.  DMAQ_QP_STAT_SEL selects the QP whose counters BAR0
// reads: they are kept in registers (sel_*), loaded through the pipelines
// when the selection is written and updated with every write to the
// selected QP; clear (DMAQ_QP_STAT_SEL.clear) zeroes the selected QP's
// counters.  A load or clear waits for a cycle without an event; until it
// is done `hold` keeps BAR0 waiting, so a read after the write sees the
// new QP's counters.  A reset (SHIM_RESET, FLR) zeroes every counter: the
// memories are swept one entry a cycle after it (QP_NUM cycles, while the
// IP still holds its own reset, so no event comes), and the selected
// QP's registers read 0 meanwhile, as every counter is; BAR0 does not
// wait for the sweep (the shim's registers answer during the IP's reset).
//
// The counters of events inside the IP (count_source ip_internal) are not
// here: they read 0 ("not counted", SHIM_CAP3.ip_counters 0).

`default_nettype none
module rclink_qpstat #(
    parameter QP_AW = 10
) (
    input  wire             clk,
    input  wire             rst,
    // events
    input  wire             rx_pkt,         // a TYPE1 packet's first beat on RX_M
    input  wire [QP_AW-1:0] rx_qpn,
    input  wire [12:0]      rx_len,
    input  wire             tmo,            // a retry timer expiry (RETRY_TMO)
    input  wire [QP_AW-1:0] tmo_qpn,
    input  wire             tmo2,           // the one at the threshold (IRQ_INFO)
    input  wire [QP_AW-1:0] tmo2_qpn,
    // DMAQ_QP_STAT_SEL
    input  wire             sel_we,         // written: load the QP's counters
    input  wire             sel_clear,      // ... with clear set: zero them
    input  wire [QP_AW-1:0] sel_qpn,        // the selection (as written)
    output reg  [63:0]      sel_rx_pkts,
    output reg  [63:0]      sel_rx_bytes,
    output reg  [63:0]      sel_timeouts,
    output wire             hold
);
    localparam QP_NUM = 1 << QP_AW;
    localparam [1:0] OP_NONE = 2'd0, OP_INC = 2'd1, OP_LOAD = 2'd2, OP_CLEAR = 2'd3;

    reg [63:0] m_pkts  [0:QP_NUM-1];
    reg [63:0] m_bytes [0:QP_NUM-1];
    reg [63:0] m_tmo   [0:QP_NUM-1];

    reg [QP_AW-1:0] cur;                    // the selected QP
    reg             t2p;                    // tmo2 came with tmo: next cycle
    reg [QP_AW-1:0] t2p_q;
    reg             sw;                     // the sweep after a reset
    reg [QP_AW-1:0] sw_q;
    reg             ld_rx, ld_tm;           // a load waits for its pipeline
    reg             clr_rx, clr_tm;         // a clear waits for its pipeline

    // ---- stage A: what enters each pipeline this cycle
    wire [1:0] a_op_rx = rx_pkt ? OP_INC : clr_rx ? OP_CLEAR : ld_rx ? OP_LOAD : OP_NONE;
    // the timeouts: RETRY_TMO first, a threshold expiry of the same cycle
    // (IRQ_INFO) the next (a third in that cycle would be lost: the IP
    // reports an expiry on one of the two)
    wire       t_ev = tmo || t2p || tmo2;
    wire [QP_AW-1:0] t_q = tmo ? tmo_qpn : t2p ? t2p_q : tmo2_qpn;
    wire [1:0] a_op_tm = t_ev ? OP_INC : clr_tm ? OP_CLEAR : ld_tm ? OP_LOAD : OP_NONE;
    wire [QP_AW-1:0] a_q_rx = rx_pkt ? rx_qpn : cur;
    wire [QP_AW-1:0] a_q_tm = t_ev ? t_q : cur;

    // ---- stage B registers: the op, its QP, the memories' words read
    reg [1:0]       b_op_rx, b_op_tm;
    reg [QP_AW-1:0] b_q_rx, b_q_tm;
    reg [12:0]      b_len;
    reg [63:0]      b_pkts, b_bytes, b_tmo;
    // the write of the previous cycle (forwarded: the read missed it)
    reg             w_v_rx, w_v_tm;
    reg [QP_AW-1:0] w_q_rx, w_q_tm;
    reg [63:0]      w_pkts, w_bytes, w_tmo;

    wire            f_rx = w_v_rx && w_q_rx == b_q_rx;
    wire            f_tm = w_v_tm && w_q_tm == b_q_tm;
    wire [63:0]     o_pkts = f_rx ? w_pkts : b_pkts;
    wire [63:0]     o_bytes = f_rx ? w_bytes : b_bytes;
    wire [63:0]     o_tmo = f_tm ? w_tmo : b_tmo;
    // stage B's results
    wire [63:0]     n_pkts = b_op_rx == OP_CLEAR ? 64'd0 : o_pkts + 64'd1;
    wire [63:0]     n_bytes = b_op_rx == OP_CLEAR ? 64'd0 : o_bytes + {51'd0, b_len};
    wire [63:0]     n_tmo = b_op_tm == OP_CLEAR ? 64'd0 : o_tmo + 64'd1;
    wire            wr_rx = b_op_rx == OP_INC || b_op_rx == OP_CLEAR;
    wire            wr_tm = b_op_tm == OP_INC || b_op_tm == OP_CLEAR;

    assign hold = ld_rx || ld_tm || clr_rx || clr_tm ||
                  b_op_rx[1] || b_op_tm[1];

    always @(posedge clk) begin
        // stage A: the synchronous reads
        b_pkts <= m_pkts[a_q_rx];
        b_bytes <= m_bytes[a_q_rx];
        b_tmo <= m_tmo[a_q_tm];
        // stage B: the writes (the sweep's zeros after a reset)
        if (sw) begin
            m_pkts[sw_q] <= 64'd0;
            m_bytes[sw_q] <= 64'd0;
            m_tmo[sw_q] <= 64'd0;
        end else begin
            if (wr_rx) begin
                m_pkts[b_q_rx] <= n_pkts;
                m_bytes[b_q_rx] <= n_bytes;
            end
            if (wr_tm)
                m_tmo[b_q_tm] <= n_tmo;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            sw <= 1'b1;
            sw_q <= {QP_AW{1'b0}};
            t2p <= 1'b0;
            t2p_q <= {QP_AW{1'b0}};
            cur <= {QP_AW{1'b0}};
            ld_rx <= 1'b0;
            ld_tm <= 1'b0;
            clr_rx <= 1'b0;
            clr_tm <= 1'b0;
            b_op_rx <= OP_NONE;
            b_op_tm <= OP_NONE;
            b_q_rx <= {QP_AW{1'b0}};
            b_q_tm <= {QP_AW{1'b0}};
            b_len <= 13'd0;
            w_v_rx <= 1'b0;
            w_v_tm <= 1'b0;
            w_q_rx <= {QP_AW{1'b0}};
            w_q_tm <= {QP_AW{1'b0}};
            w_pkts <= 64'd0;
            w_bytes <= 64'd0;
            w_tmo <= 64'd0;
            sel_rx_pkts <= 64'd0;
            sel_rx_bytes <= 64'd0;
            sel_timeouts <= 64'd0;
        end else if (sw) begin
            // no event counts while the memories are swept (the IP is
            // held in reset longer); a selection waits for the end
            sw_q <= sw_q + 1'b1;
            if (&sw_q)
                sw <= 1'b0;
            b_op_rx <= OP_NONE;
            b_op_tm <= OP_NONE;
            w_v_rx <= 1'b0;
            w_v_tm <= 1'b0;
        end else begin
            // the ops taken into stage A leave their queues
            if (!rx_pkt) begin
                if (clr_rx)
                    clr_rx <= 1'b0;
                else if (ld_rx)
                    ld_rx <= 1'b0;
            end
            // a threshold expiry behind a RETRY_TMO (or behind the one
            // waiting) waits a cycle
            t2p <= tmo2 && (tmo || t2p);
            t2p_q <= tmo2_qpn;
            if (!t_ev) begin
                if (clr_tm)
                    clr_tm <= 1'b0;
                else if (ld_tm)
                    ld_tm <= 1'b0;
            end
            b_op_rx <= a_op_rx;
            b_op_tm <= a_op_tm;
            b_q_rx <= a_q_rx;
            b_q_tm <= a_q_tm;
            b_len <= rx_len;
            // stage B: the value written, for the next cycle's forwarding
            w_v_rx <= wr_rx;
            w_v_tm <= wr_tm;
            w_q_rx <= b_q_rx;
            w_q_tm <= b_q_tm;
            w_pkts <= n_pkts;
            w_bytes <= n_bytes;
            w_tmo <= n_tmo;
            // the selected QP's registers follow its memory words
            if ((wr_rx || b_op_rx == OP_LOAD) && b_q_rx == cur) begin
                sel_rx_pkts <= b_op_rx == OP_LOAD ? o_pkts : n_pkts;
                sel_rx_bytes <= b_op_rx == OP_LOAD ? o_bytes : n_bytes;
            end
            if ((wr_tm || b_op_tm == OP_LOAD) && b_q_tm == cur)
                sel_timeouts <= b_op_tm == OP_LOAD ? o_tmo : n_tmo;
        end
        // a new selection (after the above: its ops are queued anew;
        // during the sweep every counter is 0, as the registers are)
        if (!rst && sel_we) begin
            cur <= sel_qpn;
            ld_rx <= !sw;
            ld_tm <= !sw;
            clr_rx <= sel_clear && !sw;
            clr_tm <= sel_clear && !sw;
        end
    end
endmodule
