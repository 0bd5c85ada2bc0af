// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: BAR0 decoder.
//
// One memory request at a time from the hard IP's completer side.  The
// window and the generated register table decide where it goes:
//   RC   0x0000-0x3fff  AXI4-Lite to the IP's register file (64-bit)
//   SHIM 0x4000-0x4fff  and DMAQ 0x5000-0x7fff: rclink_csr (64-bit)
//   MAC  0x8000-0xbfff  Avalon-MM to the MAC CSRs (32-bit only)
// An offset that holds no register, a byte enable that is not a whole
// 64-bit register or one of its 32-bit halves, or a 64-bit access to the
// MAC window is ignored: writes are dropped, reads complete with 0, and
// bad_access counts it.
//
// The shim's test hooks for the IP's level causes live here too:
// SHIM_INTR_INJECT sets bits that read as part of INTR_STATUS,
// DMA_INTR_ST0 and DMA_INTR_ST1 (cleared by the same W1C writes that go
// to the IP), and newly injected TYPE3 causes make an IRQ_INFO TYPE3
// code 1 record carrying the MD tails read from the IP.
//
// TYPE2_SPEED (RC window) is the IP's SET_TYPE2_RATE_* port, not a
// register of its file: a write goes to the IP as any RC write and also
// sets the shim's copy, which drives SET_TYPE2_RATE_DAT_I, with a
// SET_TYPE2_RATE_VLD_I pulse; reads return the copy.
`default_nettype none
`include "rclink_regs.vh"
module rclink_bar0 (
    input  wire        clk,
    input  wire        rst,
    // completer requests (qword address, byte enables, lane aligned data)
    input  wire        req_valid,
    output wire        req_ready,
    input  wire        req_write,
    input  wire [15:0] req_addr,
    input  wire [7:0]  req_be,
    input  wire [63:0] req_data,
    input  wire [9:0]  req_tag,
    output reg         cpl_valid,
    input  wire        cpl_ready,
    output reg  [63:0] cpl_data,
    output reg  [9:0]  cpl_tag,
    output reg  [31:0] bad_access,
    input  wire        ip_hold,        // the IP (and MAC CSRs) in reset: wait
    input  wire        csr_hold,       // a user context reads its area table: wait
    // shim registers
    output reg         csr_wr,
    output reg         csr_rd,
    output reg  [15:0] csr_addr,
    output reg  [63:0] csr_wdata,
    output reg  [63:0] csr_wmask,
    input  wire [63:0] csr_rdata,
    // IP register file (through rclink_axil_master)
    output reg         rc_req,
    output reg         rc_write,
    output reg  [13:0] rc_addr,
    output reg  [63:0] rc_wdata,
    output reg  [7:0]  rc_wstrb,
    input  wire        rc_done,
    input  wire [63:0] rc_rdata,
    // MAC CSRs (through rclink_avmm_master)
    output reg         mac_req,
    output reg         mac_write,
    output reg  [11:0] mac_addr,
    output reg  [31:0] mac_wdata,
    input  wire        mac_done,
    input  wire [31:0] mac_rdata,
    // level cause test hooks
    input  wire        intr_inj,
    input  wire [63:0] intr_inj_val,
    input  wire [15:0] ip_rc_intr,
    output wire [15:0] rc_level,
    output reg         t3_vld,
    output reg  [63:0] t3_info,
    // TYPE2 rate (SET_TYPE2_RATE_VLD_I, SET_TYPE2_RATE_DAT_I)
    output reg         t2_rate_vld,
    output reg  [21:0] t2_rate_dat
);
`include "rclink_regtab.vh"

    // S_CSRA: the register's address is out a cycle before the strobe
    // (S_CSR), so that the register blocks answer from registered read
    // data (their read multiplexers take a cycle of their own)
    localparam S_IDLE = 3'd0, S_CSR = 3'd1, S_RC = 3'd2, S_MAC = 3'd3,
               S_CSRA = 3'd4, S_T3TX = 3'd5, S_T3RX = 3'd6;
    localparam [15:0] TX_TAIL16 = `RCLINK_TX_MD_TAIL_PTR, RX_TAIL16 = `RCLINK_RX_MD_TAIL_PTR;
    localparam [13:0] TX_TAIL = TX_TAIL16[13:0], RX_TAIL = RX_TAIL16[13:0];
    reg [2:0]  st;
    reg        w;
    reg [15:0] a;
    reg [7:0]  be;
    reg [63:0] d;
    reg [12:0] tx_tail;

    reg [15:0] rc_inj;
    reg [4:0]  st0_inj;
    reg [10:0] st1_inj;
    reg        t3_pend;

    wire win_port;
    assign req_ready = (st == S_IDLE) && !cpl_valid && !(ip_hold && win_port) &&
                       !csr_hold;
    assign rc_level = ip_rc_intr | rc_inj;

    wire [63:0] lanes = {{8{req_be[7]}}, {8{req_be[6]}}, {8{req_be[5]}},
                         {8{req_be[4]}}, {8{req_be[3]}}, {8{req_be[2]}},
                         {8{req_be[1]}}, {8{req_be[0]}}};
    wire ok64 = req_be == 8'hff || req_be == 8'h0f || req_be == 8'hf0;
    wire ok32 = req_be == 8'h0f || req_be == 8'hf0;
    wire [15:0] qoff = {req_addr[15:3], 3'b000};
    wire [15:0] moff = {req_addr[15:3], req_be == 8'hf0, 2'b00};
    wire [2:0]  kq = rclink_reg_kind(qoff);
    wire [2:0]  km = rclink_reg_kind(moff);
    wire win_rc   = req_addr < `RCLINK_WIN_SHIM_BASE;
    wire win_csr  = req_addr >= `RCLINK_WIN_SHIM_BASE && req_addr < `RCLINK_WIN_MAC_BASE;
    wire win_mac  = req_addr >= `RCLINK_WIN_MAC_BASE &&
                    {1'b0, req_addr} < {1'b0, `RCLINK_WIN_MAC_BASE} + `RCLINK_WIN_MAC_SIZE;
    assign win_port = win_rc || win_mac;
    wire go_rc  = win_rc && ok64 && kq[0] && kq[1];
    wire go_csr = win_csr && ok64 && kq[0] && kq[1];
    wire go_mac = win_mac && ok32 && km[0] && !km[1];

    // overlay of the injected causes on the IP's status registers
    wire [63:0] ovl = (a == `RCLINK_INTR_STATUS) ? {48'd0, rc_inj} :
                      (a == `RCLINK_DMA_INTR_ST0) ? {59'd0, st0_inj} :
                      (a == `RCLINK_DMA_INTR_ST1) ? {53'd0, st1_inj} : 64'd0;
    wire [63:0] inj_st1 = intr_inj_val >> `RCLINK_SHIM_INTR_INJECT_NONR_ST1_LSB;
    wire [63:0] inj_st0 = intr_inj_val >> `RCLINK_SHIM_INTR_INJECT_NONR_ST0_LSB;
    wire [4:0]  n_st0 = inj_st0[4:0] |
                        ((inj_st1[10:0] != 11'd0) ? 5'd1 << `RCLINK_DMA_INTR_ST0_ABNORMAL_LSB : 5'd0);
    wire        t3_fresh = intr_inj && (((n_st0 & ~st0_inj) != 5'd0) ||
                                        ((inj_st1[10:0] & ~st1_inj) != 11'd0));

    always @(posedge clk) begin
        if (rst) begin
            st <= S_IDLE;
            w <= 1'b0;
            a <= 16'd0;
            be <= 8'd0;
            d <= 64'd0;
            cpl_valid <= 1'b0;
            cpl_data <= 64'd0;
            cpl_tag <= 10'd0;
            bad_access <= 32'd0;
            csr_wr <= 1'b0;
            csr_rd <= 1'b0;
            csr_addr <= 16'd0;
            csr_wdata <= 64'd0;
            csr_wmask <= 64'd0;
            rc_req <= 1'b0;
            rc_write <= 1'b0;
            rc_addr <= 14'd0;
            rc_wdata <= 64'd0;
            rc_wstrb <= 8'd0;
            mac_req <= 1'b0;
            mac_write <= 1'b0;
            mac_addr <= 12'd0;
            mac_wdata <= 32'd0;
            rc_inj <= 16'd0;
            st0_inj <= 5'd0;
            st1_inj <= 11'd0;
            t3_pend <= 1'b0;
            t3_vld <= 1'b0;
            t3_info <= 64'd0;
            tx_tail <= 13'd0;
            t2_rate_vld <= 1'b0;
            t2_rate_dat <= 22'd0;
        end else begin
            csr_wr <= 1'b0;
            csr_rd <= 1'b0;
            rc_req <= 1'b0;
            mac_req <= 1'b0;
            t3_vld <= 1'b0;
            t2_rate_vld <= 1'b0;
            if (cpl_valid && cpl_ready)
                cpl_valid <= 1'b0;
            if (intr_inj) begin
                rc_inj <= rc_inj | intr_inj_val[15:0];
                st0_inj <= st0_inj | n_st0;
                st1_inj <= st1_inj | inj_st1[10:0];
                if (t3_fresh)
                    t3_pend <= 1'b1;
            end
            case (st)
            S_IDLE:
                if (req_valid && req_ready) begin
                    w <= req_write;
                    a <= go_mac ? moff : qoff;
                    be <= req_be;
                    d <= req_data;
                    cpl_tag <= req_tag;
                    if (go_csr) begin
                        st <= S_CSRA;
                        csr_addr <= qoff;
                        csr_wdata <= req_data;
                        csr_wmask <= lanes;
                    end else if (go_rc) begin
                        st <= S_RC;
                        rc_req <= 1'b1;
                        rc_write <= req_write;
                        rc_addr <= qoff[13:0];
                        rc_wdata <= req_data;
                        rc_wstrb <= req_be;
                        // the TYPE2 rate: length_thr is in the low half
                        if (req_write && qoff == `RCLINK_TYPE2_SPEED && req_be[0]) begin
                            t2_rate_dat <= req_data[21:0];
                            t2_rate_vld <= 1'b1;
                        end
                    end else if (go_mac) begin
                        st <= S_MAC;
                        mac_req <= 1'b1;
                        mac_write <= req_write;
                        mac_addr <= moff[13:2];
                        mac_wdata <= req_be == 8'hf0 ? req_data[63:32] : req_data[31:0];
                    end else begin
                        bad_access <= bad_access + 32'd1;
                        if (!req_write) begin
                            cpl_data <= 64'd0;
                            cpl_valid <= 1'b1;
                        end
                    end
                end else if (t3_pend && !cpl_valid && !ip_hold) begin
                    t3_pend <= 1'b0;
                    st <= S_T3TX;
                    rc_req <= 1'b1;
                    rc_write <= 1'b0;
                    rc_addr <= TX_TAIL;
                end
            S_CSRA: begin
                csr_wr <= w;
                csr_rd <= !w;
                st <= S_CSR;
            end
            S_CSR: begin
                if (!w) begin
                    cpl_data <= csr_rdata;
                    cpl_valid <= 1'b1;
                end
                st <= S_IDLE;
            end
            S_RC:
                if (rc_done) begin
                    if (!w) begin
                        cpl_data <= (a == `RCLINK_TYPE2_SPEED) ?
                            {42'd0, t2_rate_dat} :
                            // the register's bits only, as the IP's read
                            (rc_rdata | (ovl & rclink_reg_w1cmask(a)));
                        cpl_valid <= 1'b1;
                    end else begin
                        // W1C writes clear the injected bits as well
                        if (a == `RCLINK_INTR_STATUS)
                            rc_inj <= rc_inj & ~(d[15:0] & {{8{be[1]}}, {8{be[0]}}});
                        if (a == `RCLINK_DMA_INTR_ST0)
                            st0_inj <= st0_inj & ~(d[4:0] & {5{be[0]}});
                        if (a == `RCLINK_DMA_INTR_ST1)
                            st1_inj <= st1_inj & ~(d[10:0] & {{3{be[1]}}, {8{be[0]}}});
                    end
                    st <= S_IDLE;
                end
            S_MAC:
                if (mac_done) begin
                    if (!w) begin
                        cpl_data <= be == 8'hf0 ? {mac_rdata, 32'd0} : {32'd0, mac_rdata};
                        cpl_valid <= 1'b1;
                    end
                    st <= S_IDLE;
                end
            S_T3TX:
                if (rc_done) begin
                    tx_tail <= rc_rdata[12:0];
                    st <= S_T3RX;
                    rc_req <= 1'b1;
                    rc_write <= 1'b0;
                    rc_addr <= RX_TAIL;
                end
            S_T3RX:
                if (rc_done) begin
                    t3_vld <= 1'b1;
                    t3_info <= ({62'd0, 2'd`RCLINK_IRQ_TYPE3} << `RCLINK_IRQ_INFO_TYPE_LSB) |
                               ({51'd0, tx_tail} << `RCLINK_IRQ_INFO_T3_TX_TAIL_LSB) |
                               ({51'd0, rc_rdata[12:0]} << `RCLINK_IRQ_INFO_T3_RX_TAIL_LSB) |
                               64'd`RCLINK_IRQ_TYPE3_NONR;
                    st <= S_IDLE;
                end
            default: st <= S_IDLE;
            endcase
        end
    end
endmodule
`default_nettype wire
