// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the registration table of RDMA WRITE and READ and the
// DMAQ_RDMA_* registers (Documentation/hw/shim.rst, "RDMA WRITE and
// READ"; Documentation/hw/rtl.rst, "RDMA responder").
//
// NMR entries (DMAQ_MR_CAP.num) in registers, selected by DMAQ_MR_SEL; an
// index >= NMR selects nothing (reads 0, writes dropped).  BASE, LEN and
// TBL are written only while the entry is not valid.  Writing CTRL sets
// the entry as written (busy is the shim's); valid stays 0 with LEN 0,
// for context 0 (it has no area: its entries need page tables), and with
// pages: this table holds area registrations only (DMAQ_MR_CAP.max_pages
// 0, so the driver registers no host pages here).  DMAQ_MR_CAP.max_len
// is MAX_LEN, the largest WRITE or READ the send engine takes (the top's:
// DMAQ_CAP.max_msg, which a context-0 READ's pieces cover in the driver's
// 64 KiB chunks), so the driver posts its rings' WRITEs and READs.
//
// The responder (rclink_rx) looks an entry up by a key's INDEX
// (lk_*, combinational) and says which entry it is writing (use_*): that
// entry reads busy meanwhile, so that the kernel, having invalidated it,
// waits for the packet being written before the memory goes.
//
// The send engine (rclink_sq, the requester's WRITE) looks up the entry a
// local key names (lq_*, combinational).
//
// The counters count the responder's and the requester's pulses.
// Everything resets with the core (SHIM_RESET forgets the table).
`default_nettype none
`include "rclink_regs.vh"
module rclink_mr #(
    parameter NMR = 16,
    parameter [31:0] MAX_LEN = 0    // DMAQ_MR_CAP.max_len
) (
    input  wire        clk,
    input  wire        rst,
    // BAR0 (the DMAQ window's MR and RDMA registers answer here: hit)
    input  wire        wr,
    input  wire [15:0] addr,
    input  wire [63:0] wdata,
    input  wire [63:0] wmask,
    output reg  [63:0] rdata,
    output reg         hit,
    // DMAQ_RDMA_CFG
    output wire [31:0] timeout_us,
    output wire        resp_silent,
    // lookup of the entry a key names
    input  wire [15:0] lk_idx,
    output wire        lk_ok,             // the index is inside the table
    output wire [63:0] lk_base,
    output wire [31:0] lk_len,
    output wire [63:0] lk_ctrl,
    // lookup of the entry a local key names (the send engine)
    input  wire [15:0] lq_idx,
    output wire        lq_ok,
    output wire [63:0] lq_base,
    output wire [31:0] lq_len,
    output wire [63:0] lq_ctrl,
    // the entry the responder is writing into
    input  wire        use_on,
    input  wire [15:0] use_idx,
    // responder counters
    input  wire        c_rx_write,
    input  wire        c_rx_read,
    input  wire        c_bad_key,
    input  wire        c_access,
    input  wire        c_bounds,
    input  wire        c_silent,
    input  wire        c_late,
    input  wire        c_imm_drop,
    // requester counters
    input  wire        c_tx_write,
    input  wire        c_tx_read,
    input  wire        c_rem_err,
    input  wire        c_timeout
);
`include "rclink_regtab.vh"

    localparam MW = (NMR > 1) ? $clog2(NMR) : 1;
    localparam [63:0] CTRL_KEEP = ~(64'd1 << `RCLINK_DMAQ_MR_CTRL_BUSY_LSB);
    // max_len the requester's limit, max_pages 0
    localparam [63:0] CAP = {16'd0, MAX_LEN, NMR[15:0]};

    reg [63:0] base [0:NMR-1];
    reg [31:0] len  [0:NMR-1];
    reg [63:0] ctrl [0:NMR-1];
    reg [63:0] tbl  [0:NMR-1];
    reg [15:0] sel;
    reg [63:0] cfg;
    reg [63:0] n_wr, n_rd, n_key, n_acc, n_bnd, n_sil, n_late, n_imm;
    reg [63:0] n_txw, n_txr, n_rem, n_tmo;
    integer i;

    wire        s_ok = {16'd0, sel} < NMR;
    wire [MW-1:0] si = sel[MW-1:0];
    wire        s_valid = s_ok && ctrl[si][0];
    wire        s_busy = s_ok && use_on && use_idx == sel;

    assign timeout_us = cfg[31:0];
    assign resp_silent = cfg[32];
    assign lk_ok = {16'd0, lk_idx} < NMR;
    assign lk_base = lk_ok ? base[lk_idx[MW-1:0]] : 64'd0;
    assign lk_len = lk_ok ? len[lk_idx[MW-1:0]] : 32'd0;
    assign lk_ctrl = lk_ok ? ctrl[lk_idx[MW-1:0]] : 64'd0;
    assign lq_ok = {16'd0, lq_idx} < NMR;
    assign lq_base = lq_ok ? base[lq_idx[MW-1:0]] : 64'd0;
    assign lq_len = lq_ok ? len[lq_idx[MW-1:0]] : 32'd0;
    assign lq_ctrl = lq_ok ? ctrl[lq_idx[MW-1:0]] : 64'd0;

    always @* begin
        hit = 1'b1;
        case (addr)
        `RCLINK_DMAQ_MR_CAP:          rdata = CAP;
        `RCLINK_DMAQ_MR_SEL:          rdata = {48'd0, sel};
        `RCLINK_DMAQ_MR_BASE:         rdata = s_ok ? base[si] : 64'd0;
        `RCLINK_DMAQ_MR_LEN:          rdata = s_ok ? {32'd0, len[si]} : 64'd0;
        `RCLINK_DMAQ_MR_CTRL:         rdata = s_ok ? (ctrl[si] | ({63'd0, s_busy} <<
                                              `RCLINK_DMAQ_MR_CTRL_BUSY_LSB)) : 64'd0;
        `RCLINK_DMAQ_MR_TBL:          rdata = s_ok ? tbl[si] : 64'd0;
        `RCLINK_DMAQ_RDMA_CFG:        rdata = cfg;
        `RCLINK_DMAQ_RDMA_RX_WRITE:   rdata = n_wr;
        `RCLINK_DMAQ_RDMA_RX_READ:    rdata = n_rd;
        `RCLINK_DMAQ_RDMA_RX_BAD_KEY: rdata = n_key;
        `RCLINK_DMAQ_RDMA_RX_ACCESS:  rdata = n_acc;
        `RCLINK_DMAQ_RDMA_RX_BOUNDS:  rdata = n_bnd;
        `RCLINK_DMAQ_RDMA_RX_SILENT:  rdata = n_sil;
        `RCLINK_DMAQ_RDMA_RX_LATE:    rdata = n_late;
        `RCLINK_DMAQ_RDMA_RX_IMM_DROP: rdata = n_imm;
        `RCLINK_DMAQ_RDMA_TX_WRITE:   rdata = n_txw;
        `RCLINK_DMAQ_RDMA_REM_ERR:    rdata = n_rem;
        `RCLINK_DMAQ_RDMA_TIMEOUT:    rdata = n_tmo;
        `RCLINK_DMAQ_RDMA_TX_READ:    rdata = n_txr;
        default: begin
            rdata = 64'd0;
            hit = 1'b0;
        end
        endcase
    end

    // CTRL as written: valid only for an area registration of a user
    // context with a length
    wire [63:0] w_ctrl = rclink_reg_wmerge(`RCLINK_DMAQ_MR_CTRL, s_ok ? ctrl[si] : 64'd0,
                                           wdata, wmask) & CTRL_KEEP;
    wire        w_refuse = w_ctrl[`RCLINK_DMAQ_MR_CTRL_PAGES_LSB] ||
                           w_ctrl[`RCLINK_DMAQ_MR_CTRL_CTX_MSB:`RCLINK_DMAQ_MR_CTRL_CTX_LSB] == 16'd0 ||
                           len[si] == 32'd0;
    wire [63:0] n_cfg = rclink_reg_wmerge(`RCLINK_DMAQ_RDMA_CFG, cfg, wdata, wmask);
    wire [63:0] n_sel = rclink_reg_wmerge(`RCLINK_DMAQ_MR_SEL, {48'd0, sel}, wdata, wmask);
    wire [63:0] n_base = rclink_reg_wmerge(`RCLINK_DMAQ_MR_BASE, s_ok ? base[si] : 64'd0, wdata, wmask);
    wire [63:0] n_len = rclink_reg_wmerge(`RCLINK_DMAQ_MR_LEN, s_ok ? {32'd0, len[si]} : 64'd0, wdata, wmask);
    wire [63:0] n_tbl = rclink_reg_wmerge(`RCLINK_DMAQ_MR_TBL, s_ok ? tbl[si] : 64'd0, wdata, wmask);

    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < NMR; i = i + 1) begin
                base[i] <= 64'd0;
                len[i] <= 32'd0;
                ctrl[i] <= 64'd0;
                tbl[i] <= 64'd0;
            end
            sel <= 16'd0;
            cfg <= 64'd0;
            n_wr <= 64'd0;
            n_rd <= 64'd0;
            n_key <= 64'd0;
            n_acc <= 64'd0;
            n_bnd <= 64'd0;
            n_sil <= 64'd0;
            n_late <= 64'd0;
            n_imm <= 64'd0;
            n_txw <= 64'd0;
            n_txr <= 64'd0;
            n_rem <= 64'd0;
            n_tmo <= 64'd0;
        end else begin
            if (wr) begin
                case (addr)
                `RCLINK_DMAQ_MR_SEL:  sel <= n_sel[15:0];
                `RCLINK_DMAQ_RDMA_CFG: cfg <= n_cfg;
                `RCLINK_DMAQ_MR_BASE: if (s_ok && !s_valid) base[si] <= n_base;
                `RCLINK_DMAQ_MR_LEN:  if (s_ok && !s_valid) len[si] <= n_len[31:0];
                `RCLINK_DMAQ_MR_TBL:  if (s_ok && !s_valid) tbl[si] <= n_tbl;
                `RCLINK_DMAQ_MR_CTRL:
                    if (s_ok)
                        ctrl[si] <= w_refuse ? w_ctrl & ~64'd1 : w_ctrl;
                default: ;
                endcase
            end
            n_wr <= n_wr + {63'd0, c_rx_write};
            n_rd <= n_rd + {63'd0, c_rx_read};
            n_key <= n_key + {63'd0, c_bad_key};
            n_acc <= n_acc + {63'd0, c_access};
            n_bnd <= n_bnd + {63'd0, c_bounds};
            n_sil <= n_sil + {63'd0, c_silent};
            n_late <= n_late + {63'd0, c_late};
            n_imm <= n_imm + {63'd0, c_imm_drop};
            n_txw <= n_txw + {63'd0, c_tx_write};
            n_txr <= n_txr + {63'd0, c_tx_read};
            n_rem <= n_rem + {63'd0, c_rem_err};
            n_tmo <= n_tmo + {63'd0, c_timeout};
        end
    end
endmodule
`default_nettype wire
