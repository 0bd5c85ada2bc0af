// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: Avalon-MM master (32-bit, word addresses) to the
// LL 100G MAC CSRs (seed 003).  One transfer at a time; a read waits for
// readdatavalid (the MAC's reconfiguration interface is pipelined).
`default_nettype none
module rclink_avmm_master #(
    parameter AW = 12
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          req,
    input  wire          req_write,
    input  wire [AW-1:0] req_addr,       // word address
    input  wire [31:0]   req_wdata,
    output reg           done,
    output reg  [31:0]   rdata,
    output reg  [AW-1:0] address,
    output reg           read,
    output reg           write,
    output reg  [31:0]   writedata,
    input  wire [31:0]   readdata,
    input  wire          readdatavalid,
    input  wire          waitrequest
);
    reg wait_rd;
    always @(posedge clk) begin
        if (rst) begin
            done <= 1'b0;
            rdata <= 32'd0;
            address <= {AW{1'b0}};
            read <= 1'b0;
            write <= 1'b0;
            writedata <= 32'd0;
            wait_rd <= 1'b0;
        end else begin
            done <= 1'b0;
            if (req) begin
                address <= req_addr;
                read <= !req_write;
                write <= req_write;
                writedata <= req_wdata;
            end
            if (write && !waitrequest) begin
                write <= 1'b0;
                done <= 1'b1;
            end
            if (read && !waitrequest) begin
                read <= 1'b0;
                wait_rd <= 1'b1;
            end
            if ((wait_rd || (read && !waitrequest)) && readdatavalid) begin
                wait_rd <= 1'b0;
                done <= 1'b1;
                rdata <= readdata;
            end
        end
    end
endmodule
`default_nettype wire
