// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: completer at TLP level (vendor neutral).
//
// Takes memory requests as PCIe TLP headers (the standard 3/4-DW header,
// first DW in hdr[127:96]) with the BAR that the hard IP matched and up to
// two DWs of payload, and answers them as completion TLP headers (with up
// to two DWs of data; the adapter sends zeros for the DWs after them).  A
// vendor adapter (rclink_us_if.v for the Xilinx UltraScale+ block) turns
// its descriptors into these headers and back.
//
//   BAR0  the shim's register file (rclink_shim_top's tgt_req/tgt_cpl)
//   BAR2  the MSI-X table and PBA (rclink_msix)
//   BAR4  the user contexts' doorbell pages (DB_BAR 1, rclink_shim_top's
//         db_*): a write is passed on at once, a read of up to 16 DWs
//         (a wide load of the page) completes with zeros.
//         Every memory write of BAR4 reaches the core, which checks the
//         size and counts what it refuses (DMAQ_CTX_DB_DROP): one that is
//         not 1 or 2 DWs inside a quad word comes with byte enables 0
//
// A memory read or write of 1 or 2 DWs inside one aligned quad word, with
// any byte enables, goes to its BAR as one quad-word access with byte
// enables; a read completes with the DWs it asked for, the byte count and
// lower address the byte enables give (PCIe 2.2.9).  Anything else is
// refused and counted in bad_req: a non-posted request (a read larger
// than a quad word, IO, atomics, locked reads, a request to another BAR or
// one the adapter marked bad) completes with Unsupported Request, a
// posted one (a larger write other than to BAR4, a message) is dropped.
// One request at a time: the next is taken when the previous one is done
// (reads after their completion left, BAR0 writes WR_GAP cycles after the
// core took them, so that a write has taken effect before the next
// request reaches the core: SHIM_RESET resets the core a few cycles after
// it took the write, and would swallow a request taken meanwhile, such as
// the read the driver flushes the reset with).  So BAR0 and BAR4 writes
// take effect in the order they came: a doorbell never passes the BAR0
// write before it (posted writes do not pass each other; one behind an
// enable that is still reading the area table counts for the context,
// rclink_ctx).  Nothing waits for a posted write's outcome: there is none.
`default_nettype none
module rclink_tlp_cpl #(
    parameter WR_GAP = 8,
    parameter DB_BAR = 0            // 1: BAR4 is the doorbell BAR
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [15:0]  completer_id,
    // requests (standard header; data DW0 in [31:0])
    input  wire         req_valid,
    output wire         req_ready,
    input  wire [127:0] req_hdr,
    input  wire [2:0]   req_bar,
    input  wire [63:0]  req_data,
    input  wire         req_bad,        // payload longer than 2 DWs
    // completions
    output reg          cpl_valid,
    input  wire         cpl_ready,
    output reg  [127:0] cpl_hdr,
    output reg  [63:0]  cpl_data,
    output reg  [31:0]  bad_req,
    // BAR0: rclink_shim_top
    output reg          t_valid,
    input  wire         t_ready,
    output reg          t_write,
    output reg  [15:0]  t_addr,
    output reg  [7:0]   t_be,
    output reg  [63:0]  t_data,
    input  wire         t_cpl_valid,
    output wire         t_cpl_ready,
    input  wire [63:0]  t_cpl_data,
    // BAR2: MSI-X table and PBA (a read answers in the same cycle)
    output wire         x_wr,
    output wire         x_rd,
    output wire [11:0]  x_addr,
    output wire [7:0]   x_be,
    output wire [63:0]  x_wdata,
    input  wire [63:0]  x_rdata,
    // BAR4: doorbell writes (byte offset in the BAR, quad word)
    output wire         d_wr,
    output wire [23:0]  d_addr,
    output wire [7:0]   d_be,
    output wire [63:0]  d_data
);
    localparam [2:0] S_IDLE = 3'd0, S_BAR0 = 3'd1, S_WAIT = 3'd2, S_CPL = 3'd3,
                     S_GAP = 3'd4;
    localparam [2:0] CPL_SC = 3'b000, CPL_UR = 3'b001;

    reg [2:0] st;
    reg [3:0] gap;

    // ---- decode of the request header ---------------------------------------
    wire [2:0]  fmt  = req_hdr[127:125];
    wire [4:0]  typ  = req_hdr[124:120];
    wire [9:0]  len  = req_hdr[105:96];
    wire [3:0]  lbe  = req_hdr[71:68];
    wire [3:0]  fbe  = req_hdr[67:64];
    wire [31:0] alo  = fmt[0] ? req_hdr[31:0] : req_hdr[63:32];
    wire is_mem  = typ == 5'b00000;
    wire is_wr   = is_mem && fmt[1];
    wire is_rd   = is_mem && !fmt[1];
    // non-posted: memory, locked and IO reads, IO writes, atomics
    wire np      = is_rd || typ == 5'b00001 || typ == 5'b00010 ||
                   typ[4:2] == 3'b011;
    // one or two DWs inside one quad word
    wire fits    = !req_bad && (len == 10'd1 || (len == 10'd2 && !alo[2]));
    wire bar0    = req_bar == 3'd0;
    wire bar2    = req_bar == 3'd2;
    wire bar4    = DB_BAR != 0 && req_bar == 3'd4;
    // a read of the doorbell BAR returns zeros, up to 16 DWs (64 bytes: the
    // widest load a CPU makes), the DWs after the second left to the adapter
    wire db_rd   = bar4 && is_rd && !req_bad && len != 10'd0 && len <= 10'd16;
    wire good    = (is_rd || is_wr) && (fits || db_rd) && (bar0 || bar2 || bar4);
    wire db_w    = bar4 && is_wr;   // a doorbell write, of any size
    wire [7:0]  qbe  = (len == 10'd2) ? {lbe, fbe} :
                       alo[2] ? {fbe, 4'd0} : {4'd0, fbe};
    wire [63:0] qdat = (len == 10'd1 && alo[2]) ? {req_data[31:0], 32'd0} : req_data;

    // byte count and lower address of a read (PCIe 2.2.9, 2.3.1.1)
    function [1:0] lsb4(input [3:0] b);
        lsb4 = b[0] ? 2'd0 : b[1] ? 2'd1 : b[2] ? 2'd2 : 2'd3;
    endfunction
    function [1:0] msb4(input [3:0] b);
        msb4 = b[3] ? 2'd3 : b[2] ? 2'd2 : b[1] ? 2'd1 : 2'd0;
    endfunction
    wire [3:0] bc1 = (fbe == 4'd0) ? 4'd1 :
                     {2'd0, msb4(fbe)} - {2'd0, lsb4(fbe)} + 4'd1;
    // two DWs or more: 4 bytes a DW, less those before the first enabled
    // byte of the first DW and after the last enabled byte of the last
    wire [11:0] bcn = {len, 2'b00} - {10'd0, lsb4(fbe)} - 12'd3 + {10'd0, msb4(lbe)};
    wire [11:0] bcount = (len == 10'd1) ? {8'd0, bc1} : bcn;
    wire [6:0]  laddr  = {alo[6:2], (fbe == 4'd0) ? 2'd0 : lsb4(fbe)};

    // the request's fields kept for its completion
    reg [15:0] rid;
    reg [7:0]  tag;
    reg [2:0]  tc;
    reg [2:0]  attr;
    reg [9:0]  rlen;
    reg        hi;               // 1 DW read of the upper half
    reg [11:0] rbc;
    reg [6:0]  rla;

    assign req_ready = st == S_IDLE && !cpl_valid;
    assign t_cpl_ready = st == S_WAIT;
    wire take = req_valid && req_ready;

    assign x_wr    = take && good && bar2 && is_wr;
    assign x_rd    = take && good && bar2 && is_rd;
    assign x_addr  = {alo[11:3], 3'd0};
    assign x_be    = qbe;
    assign x_wdata = qdat;
    assign d_wr    = take && db_w;
    assign d_addr  = {alo[23:3], 3'd0};
    assign d_be    = good ? qbe : 8'd0;
    assign d_data  = qdat;

    // completion header: fmt/type CplD (or Cpl without data), TC, attr,
    // length; completer, status, byte count; requester, tag, lower address
    function [127:0] cpl_header(input [2:0] status, input [9:0] dws,
                                input [11:0] bc, input [6:0] la);
        cpl_header = {dws != 10'd0 ? 3'b010 : 3'b000, 5'b01010, 1'b0, tc,
                      1'b0, attr[2], 1'b0, 1'b0, 1'b0, 1'b0, attr[1:0],
                      2'b00, dws,
                      completer_id, status, 1'b0, bc,
                      rid, tag, 1'b0, la,
                      32'd0};
    endfunction

    always @(posedge clk) begin
        if (rst) begin
            st <= S_IDLE;
            gap <= 4'd0;
            cpl_valid <= 1'b0;
            cpl_hdr <= 128'd0;
            cpl_data <= 64'd0;
            bad_req <= 32'd0;
            t_valid <= 1'b0;
            t_write <= 1'b0;
            t_addr <= 16'd0;
            t_be <= 8'd0;
            t_data <= 64'd0;
            rid <= 16'd0;
            tag <= 8'd0;
            tc <= 3'd0;
            attr <= 3'd0;
            rlen <= 10'd0;
            hi <= 1'b0;
            rbc <= 12'd0;
            rla <= 7'd0;
        end else begin
            if (cpl_valid && cpl_ready)
                cpl_valid <= 1'b0;
            case (st)
            S_IDLE: if (take) begin
                rid <= req_hdr[95:80];
                tag <= req_hdr[79:72];
                tc <= req_hdr[118:116];
                attr <= {req_hdr[114], req_hdr[109:108]};
                rlen <= len;
                hi <= len == 10'd1 && alo[2];
                rbc <= bcount;
                rla <= laddr;
                // (a doorbell write of a size the core refuses went to the
                // core with d_be 0: it counts it)
                if (!good && !db_w) begin
                    bad_req <= bad_req + 32'd1;
                    if (np) begin
                        // UR: no data, byte count of the request
                        cpl_valid <= 1'b1;
                        cpl_hdr <= {3'b000, 5'b01010, 1'b0, req_hdr[118:116],
                                    1'b0, req_hdr[114], 4'd0, req_hdr[109:108],
                                    2'b00, 10'd0,
                                    completer_id, CPL_UR, 1'b0, bcount,
                                    req_hdr[95:80], req_hdr[79:72], 1'b0, laddr,
                                    32'd0};
                        cpl_data <= 64'd0;
                    end
                end else if (bar0) begin
                    t_valid <= 1'b1;
                    t_write <= is_wr;
                    t_addr <= {alo[15:3], 3'd0};
                    t_be <= qbe;
                    t_data <= qdat;
                    st <= S_BAR0;
                end else if (is_rd && bar4) begin
                    // doorbell BAR: reads return 0
                    cpl_data <= 64'd0;
                    st <= S_CPL;
                end else if (is_rd) begin
                    // BAR2 read: the table answers now
                    cpl_data <= (len == 10'd1 && alo[2]) ? {32'd0, x_rdata[63:32]} : x_rdata;
                    st <= S_CPL;
                end
            end
            S_BAR0: if (t_ready) begin
                t_valid <= 1'b0;
                gap <= WR_GAP[3:0];
                st <= t_write ? S_GAP : S_WAIT;
            end
            S_GAP: begin
                gap <= gap - 4'd1;
                if (gap <= 4'd1)
                    st <= S_IDLE;
            end
            S_WAIT: if (t_cpl_valid) begin
                cpl_data <= hi ? {32'd0, t_cpl_data[63:32]} : t_cpl_data;
                st <= S_CPL;
            end
            S_CPL: begin
                cpl_valid <= 1'b1;
                cpl_hdr <= cpl_header(CPL_SC, rlen, rbc, rla);
                st <= S_IDLE;
            end
            default: st <= S_IDLE;
            endcase
        end
    end
endmodule
`default_nettype wire
