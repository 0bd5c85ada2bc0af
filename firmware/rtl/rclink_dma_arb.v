// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the DMA engine's burst arbiter (rclink_dma_barb),
// the word-level core's burst-to-word adapter (rclink_dma_b2w) and a
// writer's wait for its writes (rclink_wfence).
`default_nettype none
/* verilator lint_off DECLFILENAME */

// rclink PCIe shim: burst arbiter of the core's engines (send queue,
// completion queue, receive path, event ring, self-test, user contexts).
//
// N clients of the DMA engine's burst interface (rclink_tlp_req:
// commands of 1..4096 bytes, address-aligned 512-bit write beats after
// the command, read beats in command order without back-pressure) share
// one burst port.  One command is taken at a time, round robin; a write
// command keeps the port until its data beats have passed (the engine
// sends a command's write TLPs before it takes the next command, so a
// client that hands a completion on after its write command's last beat
// has it written after the data).  The owners of the reads in flight wait
// in a FIFO (FD deep), so several reads of one or more clients may be
// outstanding; their beats go back to the head's owner, which pops at
// the burst's last beat.  With bus mastering off nothing reaches the
// host: a write's beats are taken and dropped, a read answers (once no
// read of the engine is left) with its beats flagged err.  rst (the
// core's reset) forgets the reads in flight (the engine forgets them at
// the same reset); wrst resets the write part only, so that the data
// beats of a write command the engine took still reach it after a
// SHIM_RESET (the clients stream them from state that the same wrst
// keeps).
module rclink_dma_barb #(
    parameter N = 3,
    parameter OW = 2,               // clog2(N)
    parameter FD = 32               // reads in flight (a power of 2)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             wrst,
    input  wire             bus_master_en,
    input  wire             hold,           // take no command
    input  wire [N-1:0]     c_cmd_valid,
    output wire [N-1:0]     c_cmd_ready,
    input  wire [N-1:0]     c_cmd_write,
    input  wire [64*N-1:0]  c_cmd_addr,
    input  wire [13*N-1:0]  c_cmd_len,
    input  wire [N-1:0]     c_wd_valid,
    output wire [N-1:0]     c_wd_ready,
    input  wire [512*N-1:0] c_wd_data,
    output wire [N-1:0]     c_rd_valid,
    output wire [511:0]     c_rd_data,
    output wire [63:0]      c_rd_keep,
    output wire             c_rd_last,
    output wire             c_rd_err,
    output wire             m_cmd_valid,
    input  wire             m_cmd_ready,
    output wire             m_cmd_write,
    output wire [63:0]      m_cmd_addr,
    output wire [12:0]      m_cmd_len,
    output wire             m_wd_valid,
    input  wire             m_wd_ready,
    output wire [511:0]     m_wd_data,
    input  wire             m_rd_valid,
    input  wire [511:0]     m_rd_data,
    input  wire [63:0]      m_rd_keep,
    input  wire             m_rd_last,
    input  wire             m_rd_err,
    output wire             refused         // a command refused (bus mastering off)
);
    localparam FW = $clog2(FD);
    reg          wbusy, wfake;
    reg [OW-1:0] wown;
    reg [6:0]    wleft;
    reg [OW-1:0] last;
    reg [OW-1:0] fid [0:FD-1];
    reg [FW:0]   fwp, frp;
    wire [FW:0]  fcnt = fwp - frp;
    // a read answered here (bus mastering off)
    reg          fr_busy;
    reg [OW-1:0] fr_own;
    reg [6:0]    fr_left;
    reg [63:0]   fr_keep0, fr_keepn;

    // round robin pick, starting after the last command's client
    reg [OW-1:0] sel;
    reg          any;
    integer k;
    reg [OW:0] t;
    always @* begin
        sel = 0;
        any = 1'b0;
        for (k = N; k >= 1; k = k - 1) begin
            t = {1'b0, last} + k[OW:0];
            if (t >= N)
                t = t - N[OW:0];
            if (c_cmd_valid[t[OW-1:0]]) begin
                sel = t[OW-1:0];
                any = 1'b1;
            end
        end
    end
    wire        s_write = c_cmd_write[sel];
    wire [63:0] s_addr = c_cmd_addr[64*sel +: 64];
    wire [12:0] s_len = c_cmd_len[13*sel +: 13];
    wire [12:0] s_endo = {7'd0, s_addr[5:0]} + s_len - 13'd1;
    wire [6:0]  s_beats = s_endo[12:6] + 7'd1;
    wire        free = !wbusy && !fr_busy && any && !hold;
    wire        pass = bus_master_en;
    assign m_cmd_valid = free && pass && (s_write || fcnt < FD);
    assign m_cmd_write = s_write;
    assign m_cmd_addr = s_addr;
    assign m_cmd_len = s_len;
    wire take = pass ? (m_cmd_valid && m_cmd_ready) :
                       (free && (s_write || fcnt == 0));
    assign refused = take && !pass;
    assign m_wd_valid = wbusy && !wfake && c_wd_valid[wown];
    assign m_wd_data = c_wd_data[512*wown +: 512];
    wire wbeat = wbusy && c_wd_valid[wown] && (wfake || m_wd_ready);
    wire [OW-1:0] head = fid[frp[FW-1:0]];
    wire fr_beat = fr_busy;
    genvar g;
    generate
        for (g = 0; g < N; g = g + 1) begin : g_cli
            assign c_cmd_ready[g] = take && sel == g;
            assign c_wd_ready[g] = wbusy && wown == g && (wfake || m_wd_ready);
            assign c_rd_valid[g] = fr_beat ? (fr_own == g) :
                                   (m_rd_valid && fcnt != 0 && head == g);
        end
    endgenerate
    assign c_rd_data = fr_beat ? 512'd0 : m_rd_data;
    assign c_rd_keep = fr_beat ? ((fr_left == 7'd1) ? fr_keepn : fr_keep0) : m_rd_keep;
    assign c_rd_last = fr_beat ? fr_left == 7'd1 : m_rd_last;
    assign c_rd_err  = fr_beat ? 1'b1 : m_rd_err;

    wire [63:0] s_endk = ~64'd0 >> (6'd63 - s_endo[5:0]);
`ifdef RCLINK_TRACE
    always @(posedge clk) begin
        if (take)
            $display("%t barb: cmd c%0d w%0d a=%h n=%0d", $time, sel, s_write, s_addr, s_len);
        if (m_wd_valid && m_wd_ready)
            $display("%t barb: wd c%0d %h", $time, wown, m_wd_data[127:0]);
    end
`endif

    always @(posedge clk) begin
        if (wrst) begin
            wbusy <= 1'b0;
            wfake <= 1'b0;
            wown <= 0;
            wleft <= 7'd0;
        end else begin
            if (take && s_write) begin
                wbusy <= 1'b1;
                wfake <= !pass;
                wown <= sel;
                wleft <= s_beats;
            end
            if (wbeat) begin
                wleft <= wleft - 7'd1;
                if (wleft == 7'd1)
                    wbusy <= 1'b0;
            end
        end
        if (rst) begin
            last <= 0;
            fwp <= 0;
            frp <= 0;
            fr_busy <= 1'b0;
            fr_own <= 0;
            fr_left <= 7'd0;
            fr_keep0 <= 64'd0;
            fr_keepn <= 64'd0;
        end else begin
            if (take)
                last <= sel;
            if (take && !s_write && pass) begin
                fid[fwp[FW-1:0]] <= sel;
                fwp <= fwp + 1'b1;
            end
            if (m_rd_valid && m_rd_last && fcnt != 0 && !fr_beat)
                frp <= frp + 1'b1;
            if (take && !s_write && !pass) begin
                fr_busy <= 1'b1;
                fr_own <= sel;
                fr_left <= s_beats;
                fr_keep0 <= (~64'd0 << s_addr[5:0]) &
                            ((s_beats == 7'd1) ? s_endk : ~64'd0);
                fr_keepn <= s_endk;
            end
            if (fr_beat) begin
                fr_left <= fr_left - 7'd1;
                fr_keep0 <= ~64'd0;
                if (fr_left == 7'd1)
                    fr_busy <= 1'b0;
            end
        end
    end
endmodule

// rclink PCIe shim: bursts on the word-level requester interface.
//
// The word-level core (rclink_shim_top with BURST 0, as the testbench
// and the co-simulation use it) has no burst engine: this adapter turns
// each burst command into 64-bit word requests on the core's dma_req
// interface, one burst at a time.  A write takes each 512-bit beat
// and writes the words of the burst in it (byte enables for the burst's
// bytes); a read requests all its words back to back (the answers come in
// order) and answers one beat per line (rd_keep the burst's bytes, rd_err
// when a word of it failed).
module rclink_dma_b2w (
    input  wire         clk,
    input  wire         rst,
    input  wire         cmd_valid,
    output wire         cmd_ready,
    input  wire         cmd_write,
    input  wire [63:0]  cmd_addr,
    input  wire [12:0]  cmd_len,
    input  wire         wd_valid,
    output wire         wd_ready,
    input  wire [511:0] wd_data,
    output reg          rd_valid,
    output reg  [511:0] rd_data,
    output reg  [63:0]  rd_keep,
    output reg          rd_last,
    output reg          rd_err,
    output wire         w_lock,
    output wire         w_valid,
    input  wire         w_ready,
    output wire         w_write,
    output wire [63:0]  w_addr,
    output wire [63:0]  w_data,
    output wire [7:0]   w_be,
    input  wire         w_rsp_valid,
    input  wire [63:0]  w_rsp_data,
    input  wire         w_rsp_err
);
    localparam S_IDLE = 2'd0, S_WBEAT = 2'd1, S_WWORD = 2'd2, S_READ = 2'd3;
    reg [1:0]   st;
    reg [63:0]  a, e;               // next byte, end of the burst
    reg [63:0]  ia;                 // a read: the next word to request
    reg [511:0] line;
    reg [63:0]  kacc;
    reg         lerr;
    wire [63:0] wa = {a[63:3], 3'b000};
    wire [63:0] an = wa + 64'd8;
    wire        fin = an >= e;
    wire [63:0] rem = e - wa;
    wire [3:0]  hi = (rem < 64'd8) ? rem[3:0] : 4'd8;
    wire [8:0]  bm = ((9'd1 << hi) - 9'd1) & ~((9'd1 << a[2:0]) - 9'd1);

    assign cmd_ready = st == S_IDLE;
    assign wd_ready = st == S_WBEAT;
    assign w_lock = st != S_IDLE;
    assign w_valid = st == S_WWORD || (st == S_READ && ia < e);
    assign w_write = st == S_WWORD;
    assign w_addr = st == S_READ ? ia : wa;
    assign w_data = line[64 * a[5:3] +: 64];
    assign w_be = bm[7:0];

`ifdef RCLINK_TRACE
    always @(posedge clk)
        if (w_valid && w_ready)
            $display("%t b2w: w%0d a=%h d=%h be=%h", $time, w_write, w_addr, w_data, w_be);
`endif
    always @(posedge clk) begin
        if (rst) begin
            st <= S_IDLE;
            a <= 64'd0;
            e <= 64'd0;
            ia <= 64'd0;
            line <= 512'd0;
            kacc <= 64'd0;
            lerr <= 1'b0;
            rd_valid <= 1'b0;
            rd_data <= 512'd0;
            rd_keep <= 64'd0;
            rd_last <= 1'b0;
            rd_err <= 1'b0;
        end else begin
            rd_valid <= 1'b0;
            case (st)
            S_IDLE:
                if (cmd_valid) begin
                    a <= cmd_addr;
                    ia <= {cmd_addr[63:3], 3'b000};
                    e <= cmd_addr + {51'd0, cmd_len};
                    line <= 512'd0;
                    kacc <= 64'd0;
                    lerr <= 1'b0;
                    st <= cmd_write ? S_WBEAT : S_READ;
                end
            S_WBEAT:
                if (wd_valid) begin
                    line <= wd_data;
                    st <= S_WWORD;
                end
            S_WWORD:
                if (w_ready) begin
                    a <= an;
                    st <= fin ? S_IDLE : (an[5:0] == 6'd0) ? S_WBEAT : S_WWORD;
                end
            S_READ: begin
                if (w_valid && w_ready)
                    ia <= ia + 64'd8;
                if (w_rsp_valid) begin
                    a <= an;
                    if (fin || an[5:0] == 6'd0) begin
                        rd_valid <= 1'b1;
                        rd_data <= line | ({448'd0, w_rsp_data} << {a[5:3], 6'd0});
                        rd_keep <= kacc | ({56'd0, bm[7:0]} << {a[5:3], 3'd0});
                        rd_last <= fin;
                        rd_err <= lerr || w_rsp_err;
                        line <= 512'd0;
                        kacc <= 64'd0;
                        lerr <= 1'b0;
                    end else begin
                        line <= line | ({448'd0, w_rsp_data} << {a[5:3], 6'd0});
                        kacc <= kacc | ({56'd0, bm[7:0]} << {a[5:3], 3'd0});
                        lerr <= lerr || w_rsp_err;
                    end
                    if (fin)
                        st <= S_IDLE;
                end
            end
            default: st <= S_IDLE;
            endcase
        end
    end
endmodule
// rclink PCIe shim: a writer's wait for its writes (rclink_wfence).
//
// A writer that announces data it wrote (the CQ's producer index, the
// event ring's, a user context's CQ, a WRITE's response) waits until its
// writes reached the hard IP.  want: it waits (its own write command was
// taken by the engine).  With exact counts (the engine's write commands
// taken and sent, mod 256, and an adapter without a queue of its own),
// done once every write taken up to want's first cycle was sent, however
// many are taken after it; otherwise done with idle (no write left
// anywhere), for which the arbiter holds new commands back meanwhile.
module rclink_wfence (
    input  wire       clk,
    input  wire       rst,
    input  wire       exact,
    input  wire       want,
    input  wire [7:0] taken,
    input  wire [7:0] sent,
    input  wire       idle,
    output wire       done
);
    reg       armed;                // want's first cycle is past
    reg [7:0] tgt;                  // taken then
    wire [7:0] t = armed ? tgt : taken;
    wire [7:0] d = sent - t;        // (at most a few behind: one command at a time)
    assign done = exact ? !d[7] : idle;
    always @(posedge clk) begin
        armed <= !rst && want;
        if (want && !armed)
            tgt <= taken;
    end
endmodule

/* verilator lint_on DECLFILENAME */
`default_nettype wire

