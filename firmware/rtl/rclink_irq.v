// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: interrupt delivery (MSI-X, else MSI, else INTx).
//
// Raise requests name an MSI-X vector.  With MSI-X enabled each vector
// has a pending bit; pending vectors go to the hard IP's MSI-X request
// port lowest first (several raises of one vector before it is sent
// make one message, as a masked MSI-X vector would).  A vector at or
// above NVEC is ignored.  With MSI (one vector) every raise makes one
// pending MSI.  Otherwise INTx follows intx_level (event ring or
// completion queue not empty).
`default_nettype none
module rclink_irq #(
    parameter NVEC = 4,
    parameter NSRC = 3
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            msix_en,
    input  wire            msi_en,
    input  wire [NSRC-1:0] raise,
    input  wire [16*NSRC-1:0] raise_vec,
    input  wire            intx_level,
    output reg             msix_valid,
    output reg  [15:0]     msix_vector,
    input  wire            msix_ready,
    output reg             msi_valid,
    input  wire            msi_ready,
    output wire            intx
);
    reg [NVEC-1:0] pend;
    reg [NVEC-1:0] set;
    reg            any;
    integer i, v, u;

    always @* begin
        set = {NVEC{1'b0}};
        any = 1'b0;
        v = 0;
        for (i = 0; i < NSRC; i = i + 1) begin
            if (raise[i]) begin
                any = 1'b1;
                for (v = 0; v < NVEC; v = v + 1)
                    if (raise_vec[16*i +: 16] == v[15:0])
                        set[v] = 1'b1;
            end
        end
    end

    reg [15:0] first;
    reg        have;
    always @* begin
        first = 16'd0;
        have = 1'b0;
        for (u = NVEC - 1; u >= 0; u = u - 1)
            if (pend[u]) begin
                first = u[15:0];
                have = 1'b1;
            end
    end

    always @(posedge clk) begin
        if (rst) begin
            pend <= {NVEC{1'b0}};
            msix_valid <= 1'b0;
            msix_vector <= 16'd0;
            msi_valid <= 1'b0;
        end else begin
            if (msix_en) begin
                if (msix_valid && msix_ready) begin
                    msix_valid <= 1'b0;
                    pend <= pend | set;
                end else if (!msix_valid && have) begin
                    msix_valid <= 1'b1;
                    msix_vector <= first;
                    pend <= (pend & ~({{NVEC-1{1'b0}}, 1'b1} << first)) | set;
                end else begin
                    pend <= pend | set;
                end
            end else begin
                pend <= {NVEC{1'b0}};
                if (!msix_valid || msix_ready)
                    msix_valid <= 1'b0;
            end
            if (msi_en && !msix_en) begin
                if (msi_valid && msi_ready)
                    msi_valid <= any;
                else if (any)
                    msi_valid <= 1'b1;
            end else if (!msi_valid || msi_ready) begin
                msi_valid <= 1'b0;
            end
        end
    end

    assign intx = !msix_en && !msi_en && intx_level;
endmodule
`default_nettype wire
