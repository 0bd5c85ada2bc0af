// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: DMA self-test (Documentation/hw/shim.rst, "DMA").
//
// FILL writes the pattern, CHECK reads and compares it: 32-bit word i is
// seed ^ (i * 0x9e3779b9).  The buffer moves in bursts of the DMA engine
// (rclink_tlp_req through rclink_dma_barb): commands cut at 4 KiB pages,
// address-aligned 512-bit beats, so DW lane d of a line holds word
// (line address + 4 d - addr) / 4; the products are kept as a running
// sum per line (lane d adds the constant d * 0x9e3779b9), so no
// multiplier, and each line's pattern is made a beat ahead into a
// register (one adder before it).  CHECK compares the DW lanes its read
// beats keep and counts the words that differ, the count added a cycle
// later; its reads go out back to back (the arbiter bounds those in
// flight).  FILL is done once its last beat was taken and
// the write has left (wr_idle), so a read of SHIM_TEST_DMA_STATUS that
// sees done follows the data.  The write beats come from state only wrst
// (the hard reset) clears, so a SHIM_RESET between a write command and
// its beats leaves the engine no command without its data.  The buffer
// address must be 8-byte aligned; len a non-zero multiple of 4.
`default_nettype none
module rclink_dmatest (
    input  wire        clk,
    input  wire        rst,
    input  wire        wrst,
    input  wire        start,          // SHIM_TEST_DMA_CTRL written with op != 0
    input  wire        bm_en,          // bus mastering enabled
    input  wire [1:0]  op,
    input  wire [23:0] len,
    input  wire [31:0] seed,
    input  wire [63:0] addr,
    output wire [63:0] status,         // SHIM_TEST_DMA_STATUS
    // DMA engine burst client
    input  wire        wr_idle,        // no write taken is left to send
    output wire        dma_cmd_valid,
    input  wire        dma_cmd_ready,
    output wire        dma_cmd_write,
    output wire [63:0] dma_cmd_addr,
    output wire [12:0] dma_cmd_len,
    output wire        dma_wd_valid,
    input  wire        dma_wd_ready,
    output wire [511:0] dma_wd_data,
    input  wire        dma_rd_valid,
    input  wire [511:0] dma_rd_data,
    input  wire [63:0] dma_rd_keep,
    input  wire        dma_rd_last,
    input  wire        dma_rd_err
);
    localparam [31:0] STEP = 32'h9e3779b9;
    localparam [31:0] LSTEP = STEP << 4;    // one line: 16 words
    reg        busy, done, ok, err;
    reg [31:0] bad;
    reg        is_fill;
    reg [63:0] ca;                 // next command's address
    reg [24:0] crem;               // bytes left to command
    reg [12:0] rout;               // read commands not yet answered
    reg        wtail;              // FILL: every command taken
    reg [31:0] s;
    reg [31:0] p_rd;               // word index * STEP of lane 0, next read beat
    reg [511:0] want;              // the pattern of the next read beat

    assign status = {bad, 28'd0, err, ok, done, busy};

    // the pattern of a line whose lane 0 is word (p + off) / STEP (off
    // a constant: one adder per lane)
    function [511:0] line_of;
        input [31:0] sd;
        input [31:0] p;
        input [31:0] off;
        integer d;
        begin
            for (d = 0; d < 16; d = d + 1)
                line_of[32 * d +: 32] = sd ^ (p + (off + STEP * d));
        end
    endfunction
    // -(k * STEP) for k = 0..15, a table
    function [31:0] neg_steps;
        input [3:0] k;
        integer j;
        begin
            neg_steps = 32'd0;
            for (j = 0; j < 16; j = j + 1)
                if (k == j[3:0])
                    neg_steps = 32'd0 - STEP * j;
        end
    endfunction
    function [4:0] ones16;
        input [15:0] v;
        integer d;
        begin
            ones16 = 5'd0;
            for (d = 0; d < 16; d = d + 1)
                ones16 = ones16 + {4'd0, v[d]};
        end
    endfunction

    // lane 0 of the buffer's first line is word -(addr[5:2])
    wire [31:0] p0 = neg_steps(addr[5:2]);

    // ---- commands: one per 4 KiB page of the buffer
    wire [12:0] room  = 13'd4096 - {1'b0, ca[11:0]};
    wire [12:0] clen  = crem < {12'd0, room} ? crem[12:0] : room;
    wire [12:0] cendo = {7'd0, ca[5:0]} + clen - 13'd1;
    wire [6:0]  cbeats = cendo[12:6] + 7'd1;
    assign dma_cmd_valid = busy && crem != 25'd0;
    assign dma_cmd_write = is_fill;
    assign dma_cmd_addr = ca;
    assign dma_cmd_len = clen;
    wire c_fire = dma_cmd_valid && dma_cmd_ready;

    // ---- FILL's beats (wrst): owed beats and the next one's pattern
    reg [6:0]  wleft;
    reg [31:0] p_wr;
    reg [511:0] wq;
    wire go = start && !busy && len != 24'd0 && len[1:0] == 2'd0 &&
              addr[2:0] == 3'd0 && bm_en && (op == 2'd1 || op == 2'd2);
    assign dma_wd_valid = wleft != 7'd0;
    assign dma_wd_data = wq;
    wire w_fire = dma_wd_valid && dma_wd_ready;
    always @(posedge clk) begin
        if (wrst) begin
            wleft <= 7'd0;
            p_wr <= 32'd0;
            wq <= 512'd0;
        end else begin
            if (go) begin
                p_wr <= p0;
                wq <= line_of(seed, p0, 32'd0);
            end else if (w_fire) begin
                p_wr <= p_wr + LSTEP;
                wq <= line_of(s, p_wr, LSTEP);
            end
            if (c_fire && is_fill)
                wleft <= cbeats;
            else if (w_fire)
                wleft <= wleft - 7'd1;
        end
    end

    // ---- CHECK's beats: the words that differ, counted a cycle later
    reg  [15:0]  diff;
    reg  [4:0]   pc;
    reg          pc_v, fin;
    integer k;
    always @* begin
        for (k = 0; k < 16; k = k + 1)
            diff[k] = dma_rd_keep[4 * k] &&
                      dma_rd_data[32 * k +: 32] != want[32 * k +: 32];
    end
    wire        r_fin = dma_rd_valid && dma_rd_last && rout == 13'd1 && crem == 25'd0;
    always @(posedge clk) begin
        pc <= ones16(diff);
        pc_v <= !rst && busy && !is_fill && dma_rd_valid;
        fin <= !rst && busy && !is_fill && r_fin;
    end

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
            done <= 1'b0;
            ok <= 1'b0;
            err <= 1'b0;
            bad <= 32'd0;
            is_fill <= 1'b0;
            ca <= 64'd0;
            crem <= 25'd0;
            rout <= 13'd0;
            wtail <= 1'b0;
            s <= 32'd0;
            p_rd <= 32'd0;
            want <= 512'd0;
        end else if (start && !busy) begin
            bad <= 32'd0;
            ok <= 1'b0;
            err <= 1'b0;
            if (!go) begin
                done <= 1'b1;
                err <= 1'b1;
            end else begin
                busy <= 1'b1;
                done <= 1'b0;
                is_fill <= op == 2'd1;
                ca <= addr;
                crem <= {1'b0, len};
                rout <= 13'd0;
                wtail <= 1'b0;
                s <= seed;
                p_rd <= p0;
                want <= line_of(seed, p0, 32'd0);
            end
        end else if (busy) begin
            if (c_fire) begin
                ca <= ca + {51'd0, clen};
                crem <= crem - {12'd0, clen};
            end
            if (is_fill) begin
                // the last command's beats taken, then the writes gone
                if (c_fire && crem == {12'd0, clen})
                    wtail <= 1'b1;
                if (wtail && wleft == 7'd0 && wr_idle) begin
                    busy <= 1'b0;
                    done <= 1'b1;
                end
            end else begin
                rout <= rout + {12'd0, c_fire} -
                        {12'd0, dma_rd_valid && dma_rd_last};
                if (dma_rd_valid) begin
                    p_rd <= p_rd + LSTEP;
                    want <= line_of(s, p_rd, LSTEP);
                    if (dma_rd_err)
                        err <= 1'b1;
                end
                if (pc_v)
                    bad <= bad + {27'd0, pc};
                if (fin) begin
                    busy <= 1'b0;
                    done <= 1'b1;
                    ok <= !err && bad == 32'd0 && pc == 5'd0;
                end
            end
        end
    end
endmodule
`default_nettype wire
