// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: completion queue writer (Documentation/hw/shim.rst,
// "Completion queue").
//
// Two producers (send completions, receive completions) hand over CQE
// words 0 and 1; the writer waits for a free entry (the CQ is never
// overrun: a producer is held until the host advances DMAQ_CQ_CONS),
// writes the 32-byte entry (words 0-2, word 3 with SEQ and PHASE) as one
// burst of the DMA engine (one command, one data beat at the entry's
// lanes), advances DMAQ_CQ_PROD once the beat is taken and the write
// has left (wr_idle: no write of a command taken is left to send, so a
// read of DMAQ_CQ_PROD never sees the entry before it is written) and, once no
// further CQE is waiting, raises the CQ vector.  The engine sends the
// command's write before it takes the next command or MSI-X message, and
// a producer hands its CQE over only after its own data writes were
// taken: the entry is never visible before the data it announces, the
// vector never before the entry.  The data beat comes from a register
// that only wrst (the hard reset) clears, so a CQ disable or SHIM_RESET
// between the command and its beat leaves no command without its data.
// While a_hold is set (the receive path delivers a TYPE2 packet into the
// room it counted in free) producer a is not taken.  A CQE handed over
// waits in a register of its producer (av, bv), as it would wait at the
// port: so no producer's valid reaches the writer's decisions in the
// cycle it is handed over.  It stays there until the engine takes its
// write command, so a CQ stop before that (the command withdrawn) keeps
// it for the CQ's next run.
// The writer sees DMAQ_CQ_CONS and DMAQ_CQ_CFG's enable and order a cycle
// after their registers (cons_d, en_d, order_d; as if the host's write
// arrived a cycle later), so the room of the next cycle is known in this
// one: k_room (free != 0) comes from a register (nz_r, one_r: the next
// cycle's free before an entry taken now), corrected by the entry taken
// in the cycle since (took_r): the same decision as free != 0, with no
// path from the configuration registers through the subtraction to the
// send engine (rtl.rst, "LUT levels").
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
    output wire        k_room,          // free != 0, from registers
    output wire        en,              // cq_en as the writer sees it
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
    input  wire        wrst,
    input  wire        wr_idle,         // no write taken is left to send
    output wire        idle_want,       // waits for wr_idle (its write taken)
    // DMA engine burst client (writes only)
    output reg         dma_cmd_valid,
    input  wire        dma_cmd_ready,
    output wire [63:0] dma_cmd_addr,
    output wire [12:0] dma_cmd_len,
    output wire        dma_wd_valid,
    input  wire        dma_wd_ready,
    output wire [511:0] dma_wd_data
);
    localparam S_IDLE = 2'd0, S_WR = 2'd1, S_SENT = 2'd2;
    reg [1:0]  st;
    reg [63:0] w0, w1;
    reg        wpend;                   // the entry's beat is due
    reg [511:0] wbeat;
    reg        irq_pend;
    reg        turn;                    // round robin between a and b
    reg        av, bv;                  // a CQE of a (b) handed over
    reg [63:0] a0, a1, b0, b1;          // ... its words
    reg [31:0] cons_d;
    reg [3:0]  order_d;
    reg        en_d;
    wire [31:0] size = 32'd1 << order_d;
    wire        room = en_d && (cq_prod - cons_d) < size;
    wire        take_a = room && st == S_IDLE && av && !a_hold && (!bv || !turn);
    wire        take_b = room && st == S_IDLE && bv && !take_a;
    wire [63:0] entry = cq_base + {32'd0, (cq_prod & (size - 32'd1))} * 64'd32;
    wire        phase = ((cq_prod >> order_d) & 32'd1) == 32'd0;

    assign a_ready = !av;
    assign idle_want = st == S_SENT;
    assign b_ready = !bv;
    assign dma_cmd_addr = entry;
    assign dma_cmd_len = 13'd32;
    assign dma_wd_valid = wpend;
    assign dma_wd_data = wbeat;
    wire [63:0] w3 = ({63'd0, phase} << `RCLINK_CQE_PHASE_LSB) |
                     ({32'd0, cq_prod} << `RCLINK_CQE_SEQ_LSB);
    wire [255:0] ent = {w3, 64'd0, w1, w0};
    assign raise_vec = cq_vector;
    assign cq_pending = en_d && cq_prod != cons_d;
    assign free = !en_d ? 32'd0 :
                  size - (cq_prod - cons_d) - ((st != S_IDLE) ? 32'd1 : 32'd0);
    assign en = en_d;

    // the next cycle's view and free: a stop (or reset) leaves cq_prod 0
    // and the writer idle; S_SENT's cq_prod + 1 ends the entry being
    // written, so only an entry taken now (took_r) changes free
    wire        n_stop = rst || cq_stop;
    wire        n_en = !rst && cq_en;
    wire [31:0] n_cons = n_stop ? 32'd0 : cq_cons;
    wire [31:0] n_prod = n_stop ? 32'd0 : cq_prod;
    wire        n_busy = !n_stop && (st == S_WR || st == S_SENT);
    wire [31:0] n_free = (32'd1 << cq_order) - (n_prod - n_cons) -
                         (n_busy ? 32'd1 : 32'd0);
    reg         en_r, nz_r, one_r, took_r;
    assign k_room = en_r && (took_r ? !one_r : nz_r);
    always @(posedge clk) begin
        en_d <= n_en;
        order_d <= cq_order;
        cons_d <= n_cons;
        en_r <= n_en;
        nz_r <= n_free != 32'd0;
        one_r <= n_free == 32'd1;
        took_r <= !n_stop && (take_a || take_b);
    end

    always @(posedge clk) begin
        if (wrst) begin
            wpend <= 1'b0;
            wbeat <= 512'd0;
        end else begin
            if (dma_cmd_valid && dma_cmd_ready) begin
                wpend <= 1'b1;
                wbeat <= entry[5] ? {ent, 256'd0} : {256'd0, ent};
            end else if (wpend && dma_wd_ready) begin
                wpend <= 1'b0;
            end
        end
    end

    // the CQEs handed over (a disable leaves them waiting, as at the port):
    // a CQE is let go when the engine takes its write command (turn: the
    // producer taken), not when the writer takes it, so a stop that
    // cancels the take or withdraws the command before the engine took it
    // leaves the CQE, to be written once the CQ runs again
    wire        cmd_take = st == S_WR && dma_cmd_valid && dma_cmd_ready;
    always @(posedge clk) begin
        if (rst) begin
            av <= 1'b0;
            bv <= 1'b0;
        end else begin
            if (a_valid && !av) begin
                av <= 1'b1;
                a0 <= a_w0;
                a1 <= a_w1;
            end else if (cmd_take && turn) begin
                av <= 1'b0;
            end
            if (b_valid && !bv) begin
                bv <= 1'b1;
                b0 <= b_w0;
                b1 <= b_w1;
            end else if (cmd_take && !turn) begin
                bv <= 1'b0;
            end
        end
    end

    always @(posedge clk) begin
        if (rst || cq_stop) begin
            st <= S_IDLE;
            w0 <= 64'd0;
            w1 <= 64'd0;
            irq_pend <= 1'b0;
            turn <= 1'b0;
            cq_prod <= 32'd0;
            raise <= 1'b0;
            dma_cmd_valid <= 1'b0;
        end else begin
            raise <= 1'b0;
            case (st)
            S_IDLE: begin
                if (take_a || take_b) begin
                    w0 <= take_a ? a0 : b0;
                    w1 <= take_a ? a1 : b1;
                    turn <= take_a;
                    dma_cmd_valid <= 1'b1;
                    st <= S_WR;
                end else if (irq_pend && !av && !bv && !a_valid && !b_valid) begin
                    irq_pend <= 1'b0;
                    raise <= 1'b1;
                end else if (irq_pend && !room) begin
                    // the ring is full: tell the host now
                    irq_pend <= 1'b0;
                    raise <= 1'b1;
                end
            end
            S_WR: begin
                if (dma_cmd_valid && dma_cmd_ready)
                    dma_cmd_valid <= 1'b0;
                if (wpend && dma_wd_ready)
                    st <= S_SENT;
            end
            S_SENT:
                if (wr_idle) begin
                    st <= S_IDLE;
                    cq_prod <= cq_prod + 32'd1;
                    irq_pend <= 1'b1;
                end
            default: st <= S_IDLE;
            endcase
        end
    end
endmodule
`default_nettype wire
