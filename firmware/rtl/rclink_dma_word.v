// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the core's DMA words on the DMA engine's bursts.
//
// rclink_shim_top's requester interface moves one 64-bit word per request
// (8-byte aligned, contiguous byte enables) with in-order read responses.
// Each word becomes a burst of rclink_tlp_req: the bytes its enables
// cover (address of the first, length up to the last), a write with its
// one data beat at the word's lanes of the 64-byte line.  A read answers
// with the 64-bit lane its beat's keep falls in, the bytes outside the
// keep zero (the engine keeps the command order).  A write is taken with
// its command; its data beat follows from a register, so a core reset
// between the two leaves no command without its data.  be 0 moves the word's first byte (no user sends it).
`default_nettype none
module rclink_dma_word (
    input  wire         clk,
    input  wire         rst,
    // ---- the core's words
    input  wire         w_valid,
    output wire         w_ready,
    input  wire         w_write,
    input  wire [63:0]  w_addr,
    input  wire [63:0]  w_data,
    input  wire [7:0]   w_be,
    output reg          w_rsp_valid,
    output reg  [63:0]  w_rsp_data,
    output reg          w_rsp_err,
    // ---- bursts
    output wire         cmd_valid,
    input  wire         cmd_ready,
    output wire         cmd_write,
    output wire [63:0]  cmd_addr,
    output wire [12:0]  cmd_len,
    output wire         wd_valid,
    input  wire         wd_ready,
    output wire [511:0] wd_data,
    input  wire         rd_valid,
    input  wire [511:0] rd_data,
    input  wire [63:0]  rd_keep,
    input  wire         rd_err
);
    reg         sent;                   // a write's data beat is due
    reg [511:0] wbeat;

    reg [2:0] first, last;
    integer i;
    always @* begin
        first = 3'd0;
        last = 3'd0;
        for (i = 7; i >= 0; i = i - 1)
            if (w_be[i])
                first = i[2:0];
        for (i = 0; i < 8; i = i + 1)
            if (w_be[i])
                last = i[2:0];
    end

    assign cmd_valid = w_valid && !sent;
    assign cmd_write = w_write;
    assign cmd_addr  = {w_addr[63:3], first};
    assign cmd_len   = {9'd0, {1'b0, last} - {1'b0, first} + 4'd1};
    assign wd_valid  = sent;
    assign wd_data   = wbeat;
    assign w_ready   = cmd_valid && cmd_ready;

    reg [63:0] lane;
    reg [7:0]  lk;
    integer k, m;
    always @* begin
        lane = 64'd0;
        lk = 8'd0;
        for (k = 0; k < 8; k = k + 1)
            if (rd_keep[8 * k +: 8] != 8'd0) begin
                lane = rd_data[64 * k +: 64];
                lk = rd_keep[8 * k +: 8];
            end
        for (m = 0; m < 8; m = m + 1)
            if (!lk[m])
                lane[8 * m +: 8] = 8'd0;
    end

    always @(posedge clk) begin
        if (rst) begin
            sent <= 1'b0;
            wbeat <= 512'd0;
            w_rsp_valid <= 1'b0;
            w_rsp_data <= 64'd0;
            w_rsp_err <= 1'b0;
        end else begin
            if (cmd_valid && cmd_ready && w_write) begin
                sent <= 1'b1;
                wbeat <= {448'd0, w_data} << {w_addr[5:3], 6'd0};
            end
            if (wd_valid && wd_ready)
                sent <= 1'b0;
            w_rsp_valid <= rd_valid;
            if (rd_valid) begin
                w_rsp_data <= lane;
                w_rsp_err <= rd_err;
            end
        end
    end
endmodule
`default_nettype wire
