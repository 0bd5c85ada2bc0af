// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: AXI4-Lite master (64-bit data) to the RCLINK-Stream
// register file.  One transaction at a time: a write issues AW and W
// together and waits for B; a read issues AR and waits for R.  A
// response other than OKAY is reported in err (reads return 0 then).
//
// A port that does not finish a transaction within TIMEOUT cycles (a dead
// or hung IP) must not hang BAR0: the master withdraws AW/W/AR, completes
// the access (a read with all ones, a write dropped), sets err and counts
// it in tmo_cnt (SHIM_REG_TIMEOUT.rc).  An address or data beat the port
// had taken is still owed a response: the master remembers it (stale_b,
// stale_r) and swallows that late B or R when it comes, so it is never
// taken for the answer to a later access.
`default_nettype none
module rclink_axil_master #(
    parameter AW = 14,
    parameter TIMEOUT = 1024            // cycles; 4 us at 250 MHz
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          req,            // one-cycle start
    input  wire          req_write,
    input  wire [AW-1:0] req_addr,
    input  wire [63:0]   req_wdata,
    input  wire [7:0]    req_wstrb,
    output reg           done,           // one cycle
    output reg  [63:0]   rdata,
    output reg           err,
    output reg  [31:0]   tmo_cnt,        // transactions that timed out
    // AXI4-Lite
    output reg           awvalid,
    input  wire          awready,
    output reg  [AW-1:0] awaddr,
    output reg           wvalid,
    input  wire          wready,
    output reg  [63:0]   wdata,
    output reg  [7:0]    wstrb,
    input  wire          bvalid,
    output wire          bready,
    input  wire [1:0]    bresp,
    output reg           arvalid,
    input  wire          arready,
    output reg  [AW-1:0] araddr,
    input  wire          rvalid,
    output wire          rready,
    input  wire [63:0]   axi_rdata,
    input  wire [1:0]    rresp
);
    localparam TW = $clog2(TIMEOUT + 1);
    reg          wait_b, wait_r;
    reg          aw_took, w_took;       // the port took AW / W of this write
    reg  [3:0]   stale_b, stale_r;      // responses owed for timed-out accesses
    reg  [TW-1:0] tmo;
    wire         busy = wait_b || wait_r;
    wire         expired = busy && tmo >= TIMEOUT[TW-1:0];
    // a late response is swallowed first (responses come in order)
    wire         b_stale = stale_b != 4'd0;
    wire         r_stale = stale_r != 4'd0;
    assign bready = wait_b || b_stale;
    assign rready = wait_r || r_stale;

    always @(posedge clk) begin
        if (rst) begin
            done <= 1'b0;
            rdata <= 64'd0;
            err <= 1'b0;
            tmo_cnt <= 32'd0;
            awvalid <= 1'b0;
            awaddr <= {AW{1'b0}};
            wvalid <= 1'b0;
            wdata <= 64'd0;
            wstrb <= 8'd0;
            arvalid <= 1'b0;
            araddr <= {AW{1'b0}};
            wait_b <= 1'b0;
            wait_r <= 1'b0;
            aw_took <= 1'b0;
            w_took <= 1'b0;
            stale_b <= 4'd0;
            stale_r <= 4'd0;
            tmo <= {TW{1'b0}};
        end else begin
            done <= 1'b0;
            tmo <= !busy ? {TW{1'b0}} : expired ? tmo : tmo + 1'b1;
            if (req) begin
                if (req_write) begin
                    awvalid <= 1'b1;
                    awaddr <= req_addr;
                    wvalid <= 1'b1;
                    wdata <= req_wdata;
                    wstrb <= req_wstrb;
                    wait_b <= 1'b1;
                    aw_took <= 1'b0;
                    w_took <= 1'b0;
                end else begin
                    arvalid <= 1'b1;
                    araddr <= req_addr;
                    wait_r <= 1'b1;
                end
            end
            if (awvalid && awready) begin
                awvalid <= 1'b0;
                aw_took <= 1'b1;
            end
            if (wvalid && wready) begin
                wvalid <= 1'b0;
                w_took <= 1'b1;
            end
            if (arvalid && arready) arvalid <= 1'b0;
            if (b_stale && bvalid)
                stale_b <= stale_b - 4'd1;
            else if (wait_b && bvalid) begin
                wait_b <= 1'b0;
                done <= 1'b1;
                err <= bresp != 2'd0;
                rdata <= 64'd0;
            end else if (wait_b && expired) begin
                // withdrawn before the port took both beats: no B is owed
                // (a port that took only one of them sees a lone beat)
                wait_b <= 1'b0;
                awvalid <= 1'b0;
                wvalid <= 1'b0;
                if ((aw_took || (awvalid && awready)) && (w_took || (wvalid && wready)) &&
                    stale_b != 4'hf)
                    stale_b <= stale_b + 4'd1;
                done <= 1'b1;
                err <= 1'b1;
                rdata <= 64'd0;
                tmo_cnt <= tmo_cnt + 32'd1;
            end
            if (r_stale && rvalid)
                stale_r <= stale_r - 4'd1;
            else if (wait_r && rvalid) begin
                wait_r <= 1'b0;
                done <= 1'b1;
                err <= rresp != 2'd0;
                rdata <= rresp == 2'd0 ? axi_rdata : 64'd0;
            end else if (wait_r && expired) begin
                wait_r <= 1'b0;
                arvalid <= 1'b0;
                if (!(arvalid && !arready) && stale_r != 4'hf)
                    stale_r <= stale_r + 4'd1;
                done <= 1'b1;
                err <= 1'b1;
                rdata <= {64{1'b1}};
                tmo_cnt <= tmo_cnt + 32'd1;
            end
        end
    end
endmodule
`default_nettype wire
