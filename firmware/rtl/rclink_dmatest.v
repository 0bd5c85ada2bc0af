// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: DMA self-test (Documentation/hw/shim.rst, "DMA").
//
// FILL writes the pattern, CHECK reads and compares it: 32-bit word i is
// seed ^ (i * 0x9e3779b9), two words per 64-bit bus word (word 2k in bits
// 31:0).  The product is kept as a running sum, so no multiplier.  The
// buffer address must be 8-byte aligned; len a non-zero multiple of 4.
`default_nettype none
module rclink_dmatest (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,          // SHIM_TEST_DMA_CTRL written with op != 0
    input  wire        bm_en,          // bus mastering enabled
    input  wire [1:0]  op,
    input  wire [23:0] len,
    input  wire [31:0] seed,
    input  wire [63:0] addr,
    output wire [63:0] status,         // SHIM_TEST_DMA_STATUS
    // DMA client
    output wire        dma_lock,
    output reg         dma_valid,
    input  wire        dma_ready,
    output wire        dma_write,
    output wire [63:0] dma_addr,
    output wire [63:0] dma_data,
    output wire [7:0]  dma_be,
    input  wire        rsp_valid,
    input  wire [63:0] rsp_data,
    input  wire        rsp_err
);
    localparam [31:0] STEP = 32'h9e3779b9;
    reg        busy, done, ok, err;
    reg [31:0] bad;
    reg        is_fill;
    reg [63:0] a;
    reg [21:0] n_req, n_rsp;       // 64-bit words issued / answered
    reg [21:0] nwords;             // 64-bit words in the buffer
    reg        odd;                // len is 4 mod 8: last word half
    reg [31:0] s;
    reg [31:0] p_req, p_rsp;       // i * STEP of the next request / response

    assign status = {bad, 28'd0, err, ok, done, busy};
    assign dma_lock = busy;
    assign dma_write = is_fill;
    assign dma_addr = a;
    wire [31:0] w0 = s ^ p_req;
    wire [31:0] w1 = s ^ (p_req + STEP);
    wire last_req = n_req + 22'd1 == nwords;
    assign dma_data = {w1, w0};
    assign dma_be = (last_req && odd) ? 8'h0f : 8'hff;

    wire [31:0] e0 = s ^ p_rsp;
    wire [31:0] e1 = s ^ (p_rsp + STEP);
    wire last_rsp = n_rsp + 22'd1 == nwords;
    wire [1:0] diff = {(!(last_rsp && odd)) && (rsp_data[63:32] != e1),
                       rsp_data[31:0] != e0};

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
            done <= 1'b0;
            ok <= 1'b0;
            err <= 1'b0;
            bad <= 32'd0;
            is_fill <= 1'b0;
            a <= 64'd0;
            n_req <= 22'd0;
            n_rsp <= 22'd0;
            nwords <= 22'd0;
            odd <= 1'b0;
            s <= 32'd0;
            p_req <= 32'd0;
            p_rsp <= 32'd0;
            dma_valid <= 1'b0;
        end else if (start && !busy) begin
            bad <= 32'd0;
            ok <= 1'b0;
            err <= 1'b0;
            if (len == 24'd0 || len[1:0] != 2'd0 || addr[2:0] != 3'd0 || !bm_en ||
                (op != 2'd1 && op != 2'd2)) begin
                done <= 1'b1;
                err <= 1'b1;
            end else begin
                busy <= 1'b1;
                done <= 1'b0;
                is_fill <= op == 2'd1;
                a <= addr;
                s <= seed;
                n_req <= 22'd0;
                n_rsp <= 22'd0;
                nwords <= (len[23:3] + {20'd0, len[2]});
                odd <= len[2];
                p_req <= 32'd0;
                p_rsp <= 32'd0;
                dma_valid <= 1'b1;
            end
        end else if (busy) begin
            if (dma_valid && dma_ready) begin
                a <= a + 64'd8;
                n_req <= n_req + 22'd1;
                p_req <= p_req + STEP + STEP;
                if (last_req)
                    dma_valid <= 1'b0;
                if (last_req && is_fill) begin
                    busy <= 1'b0;
                    done <= 1'b1;
                end
            end
            if (rsp_valid && !is_fill) begin
                n_rsp <= n_rsp + 22'd1;
                p_rsp <= p_rsp + STEP + STEP;
                if (rsp_err)
                    err <= 1'b1;
                bad <= bad + {31'd0, diff[0]} + {31'd0, diff[1]};
                if (last_rsp) begin
                    busy <= 1'b0;
                    done <= 1'b1;
                    ok <= !err && !rsp_err && bad == 32'd0 && diff == 2'd0;
                end
            end
        end
    end
endmodule
`default_nettype wire
