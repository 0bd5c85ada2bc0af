// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: AXI4-Lite master (64-bit data) to the RCLINK-Stream
// register file.  One transaction at a time: a write issues AW and W
// together and waits for B; a read issues AR and waits for R.  A
// response other than OKAY is reported in err (reads return 0 then).
`default_nettype none
module rclink_axil_master #(
    parameter AW = 14
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
    reg wait_b, wait_r;
    assign bready = wait_b;
    assign rready = wait_r;

    always @(posedge clk) begin
        if (rst) begin
            done <= 1'b0;
            rdata <= 64'd0;
            err <= 1'b0;
            awvalid <= 1'b0;
            awaddr <= {AW{1'b0}};
            wvalid <= 1'b0;
            wdata <= 64'd0;
            wstrb <= 8'd0;
            arvalid <= 1'b0;
            araddr <= {AW{1'b0}};
            wait_b <= 1'b0;
            wait_r <= 1'b0;
        end else begin
            done <= 1'b0;
            if (req) begin
                if (req_write) begin
                    awvalid <= 1'b1;
                    awaddr <= req_addr;
                    wvalid <= 1'b1;
                    wdata <= req_wdata;
                    wstrb <= req_wstrb;
                    wait_b <= 1'b1;
                end else begin
                    arvalid <= 1'b1;
                    araddr <= req_addr;
                    wait_r <= 1'b1;
                end
            end
            if (awvalid && awready) awvalid <= 1'b0;
            if (wvalid && wready) wvalid <= 1'b0;
            if (arvalid && arready) arvalid <= 1'b0;
            if (wait_b && bvalid) begin
                wait_b <= 1'b0;
                done <= 1'b1;
                err <= bresp != 2'd0;
                rdata <= 64'd0;
            end
            if (wait_r && rvalid) begin
                wait_r <= 1'b0;
                done <= 1'b1;
                err <= rresp != 2'd0;
                rdata <= rresp == 2'd0 ? axi_rdata : 64'd0;
            end
        end
    end
endmodule
`default_nettype wire
