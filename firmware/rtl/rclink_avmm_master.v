// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: Avalon-MM master (32-bit, word addresses) to the
// LL 100G MAC CSRs (seed 003).  One transfer at a time; a read waits for
// readdatavalid (the MAC's reconfiguration interface is pipelined).
//
// A transfer the port does not finish within TIMEOUT cycles (waitrequest
// stuck, or readdatavalid never coming) is given up: the master drops
// read/write, completes the access (a read with all ones, a write
// dropped) and counts it in tmo_cnt (SHIM_REG_TIMEOUT.mac).  A read the
// port had accepted still owes its readdatavalid: the master remembers it
// (stale) and swallows that late word, so it never answers a later read.
`default_nettype none
module rclink_avmm_master #(
    parameter AW = 12,
    parameter TIMEOUT = 1024            // cycles; 4 us at 250 MHz
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          req,
    input  wire          req_write,
    input  wire [AW-1:0] req_addr,       // word address
    input  wire [31:0]   req_wdata,
    output reg           done,
    output reg  [31:0]   rdata,
    output reg  [31:0]   tmo_cnt,        // transfers that timed out
    output reg  [AW-1:0] address,
    output reg           read,
    output reg           write,
    output reg  [31:0]   writedata,
    input  wire [31:0]   readdata,
    input  wire          readdatavalid,
    input  wire          waitrequest
);
    localparam TW = $clog2(TIMEOUT + 1);
    reg          wait_rd;
    reg  [3:0]   stale;
    reg  [TW-1:0] tmo;
    wire         busy = read || write || wait_rd;
    wire         expired = busy && tmo >= TIMEOUT[TW-1:0];
    wire         rd_took = read && !waitrequest;
    always @(posedge clk) begin
        if (rst) begin
            done <= 1'b0;
            rdata <= 32'd0;
            tmo_cnt <= 32'd0;
            address <= {AW{1'b0}};
            read <= 1'b0;
            write <= 1'b0;
            writedata <= 32'd0;
            wait_rd <= 1'b0;
            stale <= 4'd0;
            tmo <= {TW{1'b0}};
        end else begin
            done <= 1'b0;
            tmo <= !busy ? {TW{1'b0}} : expired ? tmo : tmo + 1'b1;
            if (req) begin
                address <= req_addr;
                read <= !req_write;
                write <= req_write;
                writedata <= req_wdata;
            end
            if (write && !waitrequest) begin
                write <= 1'b0;
                done <= 1'b1;
            end else if (write && expired) begin
                write <= 1'b0;
                done <= 1'b1;
                tmo_cnt <= tmo_cnt + 32'd1;
            end
            if (rd_took) begin
                read <= 1'b0;
                wait_rd <= 1'b1;
            end
            // a late word of a read given up is swallowed first
            if (stale != 4'd0 && readdatavalid) begin
                stale <= stale - 4'd1;
            end else if ((wait_rd || rd_took) && readdatavalid) begin
                wait_rd <= 1'b0;
                done <= 1'b1;
                rdata <= readdata;
            end else if ((read || wait_rd) && expired) begin
                read <= 1'b0;
                wait_rd <= 1'b0;
                if ((wait_rd || rd_took) && stale != 4'hf)
                    stale <= stale + 4'd1;
                done <= 1'b1;
                rdata <= 32'hffffffff;
                tmo_cnt <= tmo_cnt + 32'd1;
            end
        end
    end
endmodule
`default_nettype wire
