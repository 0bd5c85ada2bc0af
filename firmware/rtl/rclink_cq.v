// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: completion queue writer (Documentation/hw/shim.rst,
// "Completion queue").
//
// Two producers (send completions, receive completions) hand over CQE
// words 0 and 1; the writer waits for a free entry (the CQ is never
// overrun: a producer is held until the host advances DMAQ_CQ_CONS),
// writes words 0-2, then word 3 with SEQ and PHASE, advances
// DMAQ_CQ_PROD and, once no further CQE is waiting, raises the CQ vector.
// While a_hold is set (the receive path delivers a TYPE2 packet into the
// room it counted in free) producer a is not taken.
`default_nettype none
`include "rclink_regs.vh"
module rclink_cq (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] cq_base,
    input  wire [3:0]  cq_order,
    input  wire        cq_en,
    input  wire [15:0] cq_vector,
    input  wire        cq_stop,
    input  wire [31:0] cq_cons,
    output reg  [31:0] cq_prod,
    output wire        cq_pending,
    output wire [31:0] free,            // entries free, none being written
    input  wire        a_hold,
    input  wire        a_valid,
    output wire        a_ready,
    input  wire [63:0] a_w0,
    input  wire [63:0] a_w1,
    input  wire        b_valid,
    output wire        b_ready,
    input  wire [63:0] b_w0,
    input  wire [63:0] b_w1,
    output reg         raise,
    output wire [15:0] raise_vec,
    output wire        dma_lock,
    output reg         dma_valid,
    input  wire        dma_ready,
    output wire [63:0] dma_addr,
    output reg  [63:0] dma_data
);
    localparam S_IDLE = 1'b0, S_WR = 1'b1;
    reg        st;
    reg [1:0]  word;
    reg [63:0] w0, w1;
    reg        irq_pend;
    reg        turn;                    // round robin between a and b
    wire [31:0] size = 32'd1 << cq_order;
    wire        room = cq_en && (cq_prod - cq_cons) < size;
    wire        take_a = room && st == S_IDLE && a_valid && !a_hold && (!b_valid || !turn);
    wire        take_b = room && st == S_IDLE && b_valid && !take_a;
    wire [63:0] entry = cq_base + {32'd0, (cq_prod & (size - 32'd1))} * 64'd32;
    wire        phase = ((cq_prod >> cq_order) & 32'd1) == 32'd0;

    assign a_ready = take_a;
    assign b_ready = take_b;
    assign dma_lock = st == S_WR;
    assign dma_addr = entry + {59'd0, word, 3'd0};
    assign raise_vec = cq_vector;
    assign cq_pending = cq_en && cq_prod != cq_cons;
    assign free = !cq_en ? 32'd0 :
                  size - (cq_prod - cq_cons) - ((st == S_WR) ? 32'd1 : 32'd0);

    always @* begin
        case (word)
        2'd0: dma_data = w0;
        2'd1: dma_data = w1;
        2'd2: dma_data = 64'd0;
        default: dma_data = ({63'd0, phase} << `RCLINK_CQE_PHASE_LSB) |
                            ({32'd0, cq_prod} << `RCLINK_CQE_SEQ_LSB);
        endcase
    end

    always @(posedge clk) begin
        if (rst || cq_stop) begin
            st <= S_IDLE;
            word <= 2'd0;
            w0 <= 64'd0;
            w1 <= 64'd0;
            irq_pend <= 1'b0;
            turn <= 1'b0;
            cq_prod <= 32'd0;
            raise <= 1'b0;
            dma_valid <= 1'b0;
        end else begin
            raise <= 1'b0;
            case (st)
            S_IDLE: begin
                if (take_a || take_b) begin
                    w0 <= take_a ? a_w0 : b_w0;
                    w1 <= take_a ? a_w1 : b_w1;
                    turn <= take_a;
                    word <= 2'd0;
                    dma_valid <= 1'b1;
                    st <= S_WR;
                end else if (irq_pend && !a_valid && !b_valid) begin
                    irq_pend <= 1'b0;
                    raise <= 1'b1;
                end else if (irq_pend && !room) begin
                    // the ring is full: tell the host now
                    irq_pend <= 1'b0;
                    raise <= 1'b1;
                end
            end
            S_WR:
                if (dma_ready) begin
                    word <= word + 2'd1;
                    if (word == 2'd3) begin
                        dma_valid <= 1'b0;
                        st <= S_IDLE;
                        cq_prod <= cq_prod + 32'd1;
                        irq_pend <= 1'b1;
                    end
                end
            endcase
        end
    end
endmodule
`default_nettype wire
