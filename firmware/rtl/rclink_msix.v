// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: MSI-X table and PBA in fabric (vendor neutral).
//
// BAR2 (4 KiB, as the QEMU model's exclusive MSI-X BAR): the table at
// offset 0 (NVEC entries of 16 bytes: message address low/high, message
// data, vector control), the PBA at 0x800.  32- and 64-bit accesses with
// any byte enables; the PBA and everything outside the table and the PBA
// read as zero (writes ignored).  A vector's mask bit is 1 after reset.
//
// The core's MSI-X requests (rclink_irq: vector N) set vector N's pending
// bit.  A pending vector that is not masked, with MSI-X enabled, the
// function mask clear and bus mastering on, is sent as a message (the
// entry's address and data) to rclink_tlp_req, lowest vector first, and
// its pending bit clears when the message was taken.  So a request of a
// masked vector (or under the function mask) stays pending in the PBA
// and is sent when the vector (or the function) is unmasked.
`default_nettype none
module rclink_msix #(
    parameter NVEC = 4                   // 1..64
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        msix_en,          // MSI-X enable of the capability
    input  wire        fn_mask,          // function mask of the capability
    input  wire        bm_en,            // bus master enable
    // BAR2 accesses (byte offset, quad-word aligned)
    input  wire        wr,
    input  wire        rd,
    input  wire [11:0] addr,
    input  wire [7:0]  be,
    input  wire [63:0] wdata,
    output reg  [63:0] rdata,
    // vector requests of the core
    input  wire        req_valid,
    output wire        req_ready,
    input  wire [15:0] req_vector,
    // messages
    output reg         msg_valid,
    input  wire        msg_ready,
    output reg  [63:0] msg_addr,
    output reg  [31:0] msg_data,
    output wire [NVEC-1:0] pending
);
    localparam [11:0] PBA = 12'h800;

    reg [63:0]     t_addr [0:NVEC-1];
    reg [31:0]     t_data [0:NVEC-1];
    reg [NVEC-1:0] t_mask;
    reg [NVEC-1:0] pend;
    reg [NVEC-1:0] busy;               // the vector whose message is out

    assign pending = pend;
    assign req_ready = 1'b1;

    wire [63:0] lanes = {{8{be[7]}}, {8{be[6]}}, {8{be[5]}}, {8{be[4]}},
                         {8{be[3]}}, {8{be[2]}}, {8{be[1]}}, {8{be[0]}}};
    wire        in_tab = addr < NVEC * 16;
    wire [5:0]  ent = addr[9:4];       // entry of a table access
    wire        qw1 = addr[3];         // data and vector control

    integer i;
    always @* begin
        rdata = 64'd0;
        if (addr == PBA)
            rdata = {{(64 - NVEC){1'b0}}, pend};
        for (i = 0; i < NVEC; i = i + 1)
            if (in_tab && ent == i[5:0])
                rdata = qw1 ? {31'd0, t_mask[i], t_data[i]} : t_addr[i];
    end

    // the lowest vector ready to send
    reg [5:0]  sel;
    reg        have;
    reg [63:0] sel_addr;
    reg [31:0] sel_data;
    wire [NVEC-1:0] ready_v = pend & ~t_mask;
    always @* begin
        sel = 6'd0;
        have = 1'b0;
        sel_addr = 64'd0;
        sel_data = 32'd0;
        for (i = NVEC - 1; i >= 0; i = i - 1)
            if (ready_v[i]) begin
                sel = i[5:0];
                have = 1'b1;
                sel_addr = t_addr[i];
                sel_data = t_data[i];
            end
    end
    wire can_send = msix_en && !fn_mask && bm_en;

    always @(posedge clk) begin
        if (rst) begin
            t_mask <= {NVEC{1'b1}};
            pend <= {NVEC{1'b0}};
            busy <= {NVEC{1'b0}};
            msg_valid <= 1'b0;
            msg_addr <= 64'd0;
            msg_data <= 32'd0;
            for (i = 0; i < NVEC; i = i + 1) begin
                t_addr[i] <= 64'd0;
                t_data[i] <= 32'd0;
            end
        end else begin
            if (wr && in_tab)
                for (i = 0; i < NVEC; i = i + 1)
                    if (ent == i[5:0]) begin
                        if (qw1) begin
                            t_data[i] <= (t_data[i] & ~lanes[31:0]) | (wdata[31:0] & lanes[31:0]);
                            if (be[4])
                                t_mask[i] <= wdata[32];
                        end else begin
                            t_addr[i] <= (t_addr[i] & ~lanes) | (wdata & lanes);
                        end
                    end
            if (msg_valid && msg_ready) begin
                msg_valid <= 1'b0;
                busy <= {NVEC{1'b0}};
            end else if (!msg_valid && have && can_send) begin
                msg_valid <= 1'b1;
                msg_addr <= sel_addr;
                msg_data <= sel_data;
                busy <= {{(NVEC - 1){1'b0}}, 1'b1} << sel;
            end
            // a message taken clears its pending bit; a new request sets it
            for (i = 0; i < NVEC; i = i + 1)
                if ((req_valid && req_vector == i[15:0]) ||
                    (pend[i] && !(msg_valid && msg_ready && busy[i])))
                    pend[i] <= 1'b1;
                else
                    pend[i] <= 1'b0;
        end
    end
endmodule
`default_nettype wire
