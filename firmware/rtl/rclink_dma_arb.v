// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: DMA arbiter.
//
// N clients share the host memory (requester) interface.  A client raises
// lock while it wants the bus; the arbiter grants one client at a time
// (round robin) and keeps it until the client drops lock with no read
// outstanding.  The owner's word requests pass through; read responses
// (in order, one per read request) go back to the owner.  With bus
// mastering off nothing reaches the host: writes are dropped and reads
// answer at once with err (Documentation/hw/rtl.rst, "Host interface").
`default_nettype none
module rclink_dma_arb #(
    parameter N = 4,
    parameter OW = 2            // clog2(N)
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            bus_master_en,
    // clients (flattened, client i in slice i)
    input  wire [N-1:0]    c_lock,
    input  wire [N-1:0]    c_req_valid,
    output wire [N-1:0]    c_req_ready,
    input  wire [N-1:0]    c_req_write,
    input  wire [64*N-1:0] c_req_addr,
    input  wire [64*N-1:0] c_req_data,
    input  wire [8*N-1:0]  c_req_be,
    output wire [N-1:0]    c_rsp_valid,
    output wire [63:0]     c_rsp_data,
    output wire            c_rsp_err,
    // host memory interface
    output wire            m_req_valid,
    input  wire            m_req_ready,
    output wire            m_req_write,
    output wire [63:0]     m_req_addr,
    output wire [63:0]     m_req_data,
    output wire [7:0]      m_req_be,
    input  wire            m_rsp_valid,
    input  wire [63:0]     m_rsp_data,
    input  wire            m_rsp_err
);
    reg          busy;
    reg [OW-1:0] owner;
    reg [OW-1:0] last;
    reg [9:0]    outstanding;
    reg          fake_rsp;       // a read answered with err (bus master off)

    wire          o_valid = busy && c_req_valid[owner];
    wire          o_write = c_req_write[owner];
    wire          pass    = bus_master_en;
    wire          o_ready = busy && (pass ? m_req_ready : 1'b1);
    wire          rd_issue = o_valid && o_ready && !o_write;
    wire          rd_done  = (m_rsp_valid && busy) || fake_rsp;

    assign m_req_valid = o_valid && pass;
    assign m_req_write = o_write;
    assign m_req_addr  = c_req_addr[64*owner +: 64];
    assign m_req_data  = c_req_data[64*owner +: 64];
    assign m_req_be    = c_req_be[8*owner +: 8];

    genvar g;
    generate
        for (g = 0; g < N; g = g + 1) begin : g_cli
            assign c_req_ready[g] = o_ready && (owner == g);
            assign c_rsp_valid[g] = rd_done && busy && (owner == g);
        end
    endgenerate
    assign c_rsp_data = fake_rsp ? 64'd0 : m_rsp_data;
    assign c_rsp_err  = fake_rsp ? 1'b1 : m_rsp_err;

    // round robin pick among lock requests, starting after the last owner
    reg [OW-1:0] pick;
    reg          pick_ok;
    integer k;
    reg [OW:0] t;
    always @* begin
        pick = 0;
        pick_ok = 1'b0;
        for (k = N; k >= 1; k = k - 1) begin
            t = {1'b0, last} + k[OW:0];
            if (t >= N)
                t = t - N[OW:0];
            if (c_lock[t[OW-1:0]]) begin
                pick = t[OW-1:0];
                pick_ok = 1'b1;
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            busy <= 1'b0;
            owner <= 0;
            last <= 0;
            outstanding <= 0;
            fake_rsp <= 1'b0;
        end else begin
            fake_rsp <= rd_issue && !pass;
            outstanding <= outstanding + (rd_issue ? 10'd1 : 10'd0)
                           - (rd_done ? 10'd1 : 10'd0);
            if (!busy) begin
                if (pick_ok) begin
                    busy <= 1'b1;
                    owner <= pick;
                end
            end else if (!c_lock[owner] && !c_req_valid[owner] &&
                         outstanding == 0 && !rd_issue && !fake_rsp) begin
                busy <= 1'b0;
                last <= owner;
            end
        end
    end
endmodule
`default_nettype wire
