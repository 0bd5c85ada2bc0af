// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: event ring writer (Documentation/hw/shim.rst,
// "Event ring").
//
// Sources: IRQ_VLD_O/IRQ_INFO_O of the IP (and SHIM_EVT_INJECT), new bits
// of the RC_INTR_O level, the TYPE3 causes the shim injects, the
// interrupt self-test, link changes, RECV_ACK, RETRY_TMO, the user
// contexts' CTX_CQ and CTX_ERR records (rclink_ctx) and the TYPE2
// records the
// shim makes in the IP's name (IRQ_INFO TYPE2 code 1, TX oversize; code
// 4 sub type 1, RX buffer overflow).  IP pulses enter a
// FIFO directly; the other sources wait in pending registers and enter
// when the IP pulse does not.  Each record (INFO, then META with the
// phase) is one 16-byte write burst of the DMA engine (one command, its
// beat with the record at the lanes of its address, from a register only
// wrst clears, as the CQ's); once the beat was taken and the write has
// left (wr_idle) the producer index advances and the ring's vector is
// raised, so the message never passes its record.  A full ring, a
// disabled ring, a full FIFO, and a RECV_ACK or RETRY_TMO record
// replaced in its pending register by the next one count in
// SHIM_EVT_DROPS.
`default_nettype none
`include "rclink_regs.vh"
module rclink_evt #(
    parameter FIFO_AW = 4
) (
    input  wire        clk,
    input  wire        rst,
    // configuration (SHIM_EVT_*)
    input  wire        ring_en,
    input  wire        ring_en_set,     // enable rising: prod returns to 0
    input  wire [4:0]  ring_order,
    input  wire [63:0] ring_base,
    input  wire [31:0] ring_cons,
    input  wire [15:0] ring_vector,
    output reg  [31:0] ring_prod,
    output reg  [31:0] ring_drops,
    output wire        ring_pending,    // records the host has not consumed
    // sources
    input  wire        ip_irq_vld,
    input  wire [63:0] ip_irq_info,
    input  wire        inj_vld,
    input  wire [63:0] inj_info,
    input  wire [15:0] rc_level,        // RC_INTR_O | injected bits
    input  wire        t3_vld,
    input  wire [63:0] t3_info,
    input  wire        st_vld,          // interrupt self-test without MSI-X
    input  wire [15:0] st_vector,
    input  wire        link_vld,
    input  wire        link_up,
    input  wire        ack_vld,         // RECV_ACK_VLD_O
    input  wire [63:0] ack_info,
    input  wire        tmo_vld,         // RETRY_TMO_VLD_O
    input  wire [63:0] tmo_info,
    input  wire        t2_tx_over,      // a TYPE2 chain over TYPE2_PKT_LEN
    input  wire        t2_rx_nobuf,     // a TYPE2 packet without room
    input  wire        ctx_vld,         // a user context's record (held)
    input  wire [7:0]  ctx_src,         // CTX_CQ or CTX_ERR
    input  wire [63:0] ctx_info,
    output wire        ctx_take,
    // interrupt
    output reg         raise,
    output wire [15:0] raise_vec,
    // DMA engine burst client (writes only)
    input  wire        wrst,            // the hard reset: the beat register
    input  wire        wr_idle,         // no write taken is left to send
    output wire        idle_want,       // waits for wr_idle (its write taken)
    output reg         dma_cmd_valid,
    input  wire        dma_cmd_ready,
    output wire [63:0] dma_cmd_addr,
    output wire [12:0] dma_cmd_len,
    output wire        dma_wd_valid,
    input  wire        dma_wd_ready,
    output wire [511:0] dma_wd_data
);
    localparam DEPTH = 1 << FIFO_AW;

    // ---- pending sources ------------------------------------------------
    reg [15:0] rc_prev;
    reg [15:0] rc_pend;
    reg        inj_p, t3_p, st_p, link_p, ack_p, t2o_p, t2n_p, tmo_p;
    localparam [63:0] T2_INFO = 64'd`RCLINK_IRQ_TYPE2 << `RCLINK_IRQ_INFO_TYPE_LSB;
    localparam [63:0] T2O_INFO = T2_INFO | 64'd`RCLINK_IRQ_TYPE2_TX_OVERSIZE;
    localparam [63:0] T2N_INFO = T2_INFO | 64'd`RCLINK_IRQ_TYPE2_RX_OVERFLOW |
                                 (64'd1 << `RCLINK_IRQ_INFO_T2_SUBTYPE_LSB);
    reg [63:0] inj_i, t3_i, ack_i, tmo_i;
    reg [15:0] st_i;
    reg        link_i;
    wire [15:0] rc_fresh = rc_level & ~rc_prev;

    // ---- FIFO ---------------------------------------------------------------
    reg [71:0]        mem [0:DEPTH-1];
    reg [FIFO_AW:0]   wp, rp;
    wire              full  = (wp - rp) == DEPTH;
    wire              empty = wp == rp;
    reg               push;
    reg  [71:0]       push_d;
    reg               pop;
    reg  [9:0]        take;       // which pending source is pushed

    always @* begin
        push = 1'b0;
        push_d = 72'd0;
        take = 10'd0;
        if (ip_irq_vld) begin
            push = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_IRQ_INFO, ip_irq_info};
        end else if (inj_p) begin
            push = 1'b1;
            take[0] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_IRQ_INFO, inj_i};
        end else if (t3_p) begin
            push = 1'b1;
            take[1] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_IRQ_INFO, t3_i};
        end else if (t2o_p) begin
            push = 1'b1;
            take[6] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_IRQ_INFO, T2O_INFO};
        end else if (t2n_p) begin
            push = 1'b1;
            take[7] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_IRQ_INFO, T2N_INFO};
        end else if (rc_pend != 16'd0) begin
            push = 1'b1;
            take[2] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_RC_INTR, 48'd0, rc_pend};
        end else if (st_p) begin
            push = 1'b1;
            take[3] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_SELFTEST, 48'd0, st_i};
        end else if (link_p) begin
            push = 1'b1;
            take[4] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_LINK, 63'd0, link_i};
        end else if (ack_p) begin
            push = 1'b1;
            take[5] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_RECV_ACK, ack_i};
        end else if (tmo_p) begin
            push = 1'b1;
            take[8] = 1'b1;
            push_d = {8'd`RCLINK_EVT_SRC_RETRY_TMO, tmo_i};
        end else if (ctx_vld) begin
            push = 1'b1;
            take[9] = 1'b1;
            push_d = {ctx_src, ctx_info};
        end
    end
    assign ctx_take = take[9];

    // ---- writer -------------------------------------------------------------
    localparam S_IDLE = 2'd0, S_WR = 2'd1, S_SENT = 2'd2;
    reg [1:0]  st;
    assign idle_want = st == S_SENT;
    reg [71:0] cur;
    wire [31:0] size = 32'd1 << ring_order;
    wire [31:0] used = ring_prod - ring_cons;
    wire [63:0] rec  = ring_base + {32'd0, (ring_prod & (size - 32'd1))} * 64'd16;
    wire        phase = ((ring_prod >> ring_order) & 32'd1) == 32'd0;
    wire [63:0] meta = ({63'd0, phase} << `RCLINK_EVT_META_PHASE_LSB) |
                       ({32'd0, ring_prod} << `RCLINK_EVT_META_SEQ_LSB) |
                       ({56'd0, cur[71:64]} << `RCLINK_EVT_META_SOURCE_LSB);

    // the record at its quad-word lanes: one beat, two when it crosses a
    // line (a ring base that is not 64-byte aligned: META alone in the
    // second beat's first quad word)
    wire [575:0] rline = {448'd0, meta, cur[63:0]} << {rec[5:3], 6'd0};
    reg         wpend, w2;
    reg [511:0] wbeat;
    reg [63:0]  wnext;
    assign dma_cmd_addr = {rec[63:3], 3'd0};
    assign dma_cmd_len = 13'd16;
    assign dma_wd_valid = wpend;
    assign dma_wd_data = wbeat;
    always @(posedge clk) begin
        if (wrst) begin
            wpend <= 1'b0;
            w2 <= 1'b0;
            wbeat <= 512'd0;
            wnext <= 64'd0;
        end else if (dma_cmd_valid && dma_cmd_ready) begin
            wpend <= 1'b1;
            w2 <= rec[5:3] == 3'd7;
            wbeat <= rline[511:0];
            wnext <= meta;
        end else if (wpend && dma_wd_ready) begin
            wpend <= w2;
            w2 <= 1'b0;
            wbeat <= {448'd0, wnext};
        end
    end
    assign raise_vec = ring_vector;
    assign ring_pending = ring_en && (ring_prod != ring_cons);

    always @* pop = (st == S_IDLE) && !empty;

    wire drop_ack  = ack_vld && ack_p && !take[5];
    wire drop_tmo  = tmo_vld && tmo_p && !take[8];
    wire drop_fifo = push && full;
    wire drop_ring = pop && (!ring_en || used >= size);

`ifdef RCLINK_TRACE
    always @(posedge clk)
        if (!rst && pop)
            $display("%t evt: src %0d info %h prod %0d cons %0d en %0d", $time,
                     mem[rp[FIFO_AW-1:0]][71:64], mem[rp[FIFO_AW-1:0]][63:0],
                     ring_prod, ring_cons, ring_en);
`endif

    always @(posedge clk) begin
        if (rst) begin
            rc_prev <= 16'd0;
            rc_pend <= 16'd0;
            {inj_p, t3_p, st_p, link_p, ack_p, t2o_p, t2n_p, tmo_p} <= 8'd0;
            inj_i <= 64'd0;
            t3_i <= 64'd0;
            ack_i <= 64'd0;
            tmo_i <= 64'd0;
            st_i <= 16'd0;
            link_i <= 1'b0;
            wp <= 0;
            rp <= 0;
            st <= S_IDLE;
            cur <= 72'd0;
            ring_prod <= 32'd0;
            ring_drops <= 32'd0;
            raise <= 1'b0;
            dma_cmd_valid <= 1'b0;
        end else begin
            raise <= 1'b0;
            rc_prev <= rc_level;
            // pending registers: taken ones clear, new ones set
            if (take[0]) inj_p <= 1'b0;
            if (take[1]) t3_p <= 1'b0;
            if (take[3]) st_p <= 1'b0;
            if (take[4]) link_p <= 1'b0;
            if (take[5]) ack_p <= 1'b0;
            if (take[6]) t2o_p <= 1'b0;
            if (take[7]) t2n_p <= 1'b0;
            if (take[8]) tmo_p <= 1'b0;
            if (t2_tx_over) t2o_p <= 1'b1;
            if (t2_rx_nobuf) t2n_p <= 1'b1;
            rc_pend <= (take[2] ? 16'd0 : rc_pend) | rc_fresh;
            if (inj_vld) begin inj_p <= 1'b1; inj_i <= inj_info; end
            if (t3_vld) begin t3_p <= 1'b1; t3_i <= t3_info; end
            if (st_vld) begin st_p <= 1'b1; st_i <= st_vector; end
            if (link_vld) begin link_p <= 1'b1; link_i <= link_up; end
            if (ack_vld) begin
                ack_p <= 1'b1;
                ack_i <= ack_info;
            end
            if (tmo_vld) begin
                tmo_p <= 1'b1;
                tmo_i <= tmo_info;
            end
            if (push) begin
                if (!full) begin
                    mem[wp[FIFO_AW-1:0]] <= push_d;
                    wp <= wp + 1'b1;
                end
            end
            ring_drops <= ring_drops + {31'd0, drop_ack} + {31'd0, drop_tmo} +
                          {31'd0, drop_fifo} + {31'd0, drop_ring};
            if (ring_en_set)
                ring_prod <= 32'd0;
            case (st)
            S_IDLE:
                if (pop) begin
                    cur <= mem[rp[FIFO_AW-1:0]];
                    rp <= rp + 1'b1;
                    if (!ring_en) begin
                        // nowhere to put it: counted below
                    end else if (used >= size) begin
                        raise <= 1'b1;
                    end else begin
                        st <= S_WR;
                        dma_cmd_valid <= 1'b1;
                    end
                end
            S_WR: begin
                if (dma_cmd_valid && dma_cmd_ready)
                    dma_cmd_valid <= 1'b0;
                if (wpend && !w2 && dma_wd_ready)
                    st <= S_SENT;
            end
            S_SENT:
                if (wr_idle) begin
                    st <= S_IDLE;
                    ring_prod <= ring_prod + 32'd1;
                    raise <= 1'b1;
                end
            default: st <= S_IDLE;
            endcase
        end
    end
endmodule
`default_nettype wire
