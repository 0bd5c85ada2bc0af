// SPDX-License-Identifier: GPL-2.0 OR MIT
// Behavioural stand-in for the MAC's CSR port (Avalon-MM, word addresses of
// seed 003) in the shim's testbenches and the co-simulation: every MAC
// window register with the contract's reset value and RW/RO masks, a read
// answered the next cycle (no waitrequest).  The array is set on a reset's
// first cycle (ip_rst_n is held low for IP_RST_CYCLES: once is enough).
// dead: the port ignores reads and writes (a broken MAC, for the register
// port timeout tests).
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_mac_model (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        dead,
    input  wire [11:0] address,
    input  wire        read,
    input  wire        write,
    input  wire [31:0] writedata,
    output reg  [31:0] readdata,
    output reg         readdatavalid
);
`include "rclink_regtab.vh"

    reg [31:0] macregs [0:4095];
    integer mi;
    reg in_rst = 1'b0;
    always @(posedge clk) begin
        readdatavalid <= 1'b0;
        if (!rst_n) begin
            if (!in_rst)
                for (mi = 0; mi < 4096; mi = mi + 1)
                    macregs[mi] = rclink_reg_rstval(16'h8000 + mi * 4);
            in_rst = 1'b1;
        end else begin
            in_rst = 1'b0;
            if (write && !dead)
                macregs[address] = (macregs[address] &
                    ~rclink_reg_rwmask(16'h8000 + address * 4)) |
                    (writedata & rclink_reg_rwmask(16'h8000 + address * 4));
            if (read && !dead) begin
                readdata <= macregs[address] &
                    (rclink_reg_rwmask(16'h8000 + address * 4) |
                     rclink_reg_romask(16'h8000 + address * 4));
                readdatavalid <= 1'b1;
            end
        end
    end
endmodule
`default_nettype wire
