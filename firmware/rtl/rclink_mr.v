// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the registration table of RDMA WRITE and READ and the
// DMAQ_RDMA_* registers (Documentation/hw/shim.rst, "RDMA WRITE and
// READ"; Documentation/hw/rtl.rst, "RDMA responder").
//
// NMR entries (DMAQ_MR_CAP.num) in registers, selected by DMAQ_MR_SEL; an
// index >= NMR selects nothing (reads 0, writes dropped).  BASE, LEN and
// TBL are written only while the entry is not valid.  Writing CTRL sets
// the entry as written (busy is the shim's); valid stays 0 with LEN 0 and
// for context 0 without pages and qp_only (it has no area).  DMAQ_MR_CAP
// .max_len is MAX_LEN, the largest WRITE or READ the send engine takes
// (the top's: DMAQ_CAP.max_msg, which a context-0 READ's pieces cover in
// the driver's 64 KiB chunks), so the driver posts its rings' WRITEs and
// READs.
//
// Pages (DMAQ_MR_CAP.max_pages PT_PAGES): valid written 1 with pages
// checks BASE < 4096, ceil((BASE + LEN) / 4096) <= PT_PAGES and TBL 4 KiB
// aligned (else not valid at once), then copies the table into pt_mem
// (NMR x PT_PAGES page addresses >> 12, a row of 8 a beat; block RAM)
// through a burst read port, at most 4 KiB a command, one table at a
// time.  Meanwhile CTRL reads valid and busy and the lookups read the
// entry not valid; a beat with err or a page not 4 KiB aligned clears
// valid at the end (a CTRL write of the entry meanwhile wins).  The
// responder translates an offset of its entry's pages (tr_*): the row of
// tr_off's page is read every cycle, tr_ok once it is tr_off's.
//
// The responder (rclink_rx) looks an entry up by a key's INDEX
// (lk_*, combinational) and says which entry it is writing (use_*): that
// entry reads busy meanwhile, so that the kernel, having invalidated it,
// waits for the packet being written before the memory goes.
//
// The send engine (rclink_sq, the requester's WRITE) looks up the entry a
// local key names (lq_*, combinational); a third port (lr_*) the entry of
// a READ's local key when a READ_RESP packet of it comes in, so that each
// packet checks the key again (an entry invalidated meanwhile takes no
// byte of it).
//
// The counters count the responder's and the requester's pulses.
// Everything resets with the core (SHIM_RESET forgets the table).
`default_nettype none
`include "rclink_regs.vh"
module rclink_mr #(
    parameter NMR = 16,
    parameter [31:0] MAX_LEN = 0,       // DMAQ_MR_CAP.max_len
    parameter PT_PAGES = 1024           // pages of a table (a power of 2, 8 .. 32768)
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
    // lookup of a READ's local key (the send engine, per READ_RESP packet)
    input  wire [15:0] lr_idx,
    output wire        lr_ok,
    output wire [63:0] lr_base,
    output wire [31:0] lr_len,
    output wire [63:0] lr_ctrl,
    // the entry the responder is writing into (or a READ_RESP's data,
    // through a local key)
    input  wire        use_on,
    input  wire [15:0] use_idx,
    // translation of an offset of entry lk_idx's pages (BASE + the offset
    // into the registration) into its bus address: tr_ok once the table
    // row of tr_off's page was read (a cycle after tr_off and lk_idx
    // settle)
    input  wire        tr_on,
    input  wire [15:0] tr_idx,
    input  wire [63:0] tr_off,
    output wire        tr_ok,
    output wire [63:0] tr_bus,
    // the same for the send engine (a local key's pages), served when the
    // responder's translation does not wait
    input  wire        tq_on,
    input  wire        tq_use,            // the send engine uses entry tq_idx
    input  wire [15:0] tq_idx,
    input  wire [63:0] tq_off,
    output wire        tq_ok,
    output wire [63:0] tq_bus,
    // the table copy: reads of the engine's burst port
    output reg         t_cmd_valid,
    input  wire        t_cmd_ready,
    output reg  [63:0] t_cmd_addr,
    output reg  [12:0] t_cmd_len,
    input  wire        t_rd_valid,
    input  wire [511:0] t_rd_data,
    input  wire        t_rd_last,
    input  wire        t_rd_err,
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
    // max_len the requester's limit, max_pages PT_PAGES
    localparam [63:0] CAP = {PT_PAGES[15:0], MAX_LEN, NMR[15:0]};
    localparam PW = $clog2(PT_PAGES);   // a page's index in its table
    localparam RWD = PW - 3;            // a row (8 pages) of a table
    localparam PB = 52;                 // a page's bus address >> 12

    reg [63:0] base [0:NMR-1];
    reg [31:0] len  [0:NMR-1];
    reg [63:0] ctrl [0:NMR-1];
    reg [63:0] tbl  [0:NMR-1];
    reg [15:0] sel;
    // the table copy: one at a time
    localparam C_IDLE = 2'd0, C_CMD = 2'd1, C_DATA = 2'd2;
    reg [1:0]    cst;
    reg          cp_on;         // entry cp_idx's table is being read
    reg [MW-1:0] cp_idx;
    reg          cp_bad;        // a beat failed, a page not aligned
    reg          cp_abort;      // CTRL of the entry written meanwhile
    reg [31:0]   cp_left;       // bytes of the table not asked for yet
    reg [PW:0]   cp_n;          // pages in the table
    reg [RWD-1:0] cp_row;       // the row the next beat fills
    // the tables: NMR x PT_PAGES page addresses, 8 a row (a beat)
    reg [8*PB-1:0] pt_mem [0:NMR*(PT_PAGES/8)-1];
    reg          pt_we;
    reg [MW+RWD-1:0] pt_wa;
    reg [8*PB-1:0] pt_wd;
    reg [8*PB-1:0] pt_q;
    reg [MW+PW-1:0] pt_tag;     // the entry and page pt_q was read for
    reg          pt_v;
    reg [63:0] cfg;
    reg [63:0] n_wr, n_rd, n_key, n_acc, n_bnd, n_sil, n_late, n_imm;
    reg [63:0] n_txw, n_txr, n_rem, n_tmo;
    integer i;

    wire        s_ok = {16'd0, sel} < NMR;
    wire [MW-1:0] si = sel[MW-1:0];
    wire        s_valid = s_ok && ctrl[si][0];
    // busy: the responder's entry, a table being read, a local key's entry
    // of a message being sent or of a READ's data being written
    wire        s_busy = s_ok && ((use_on && use_idx == sel) || (cp_on && cp_idx == si) ||
                                  (tq_use && tq_idx == sel) || (tr_on && tr_idx == sel));

    assign timeout_us = cfg[31:0];
    assign resp_silent = cfg[32];
    assign lk_ok = {16'd0, lk_idx} < NMR;
    assign lk_base = lk_ok ? base[lk_idx[MW-1:0]] : 64'd0;
    assign lk_len = lk_ok ? len[lk_idx[MW-1:0]] : 32'd0;
    // an entry whose table is being read is not valid to its users yet
    wire        lk_cp = cp_on && cp_idx == lk_idx[MW-1:0];
    wire        lq_cp = cp_on && cp_idx == lq_idx[MW-1:0];
    assign lk_ctrl = lk_ok ? ctrl[lk_idx[MW-1:0]] & ~{63'd0, lk_cp} : 64'd0;
    assign lq_ok = {16'd0, lq_idx} < NMR;
    assign lq_base = lq_ok ? base[lq_idx[MW-1:0]] : 64'd0;
    assign lq_len = lq_ok ? len[lq_idx[MW-1:0]] : 32'd0;
    assign lq_ctrl = lq_ok ? ctrl[lq_idx[MW-1:0]] & ~{63'd0, lq_cp} : 64'd0;
    wire        lr_cp = cp_on && cp_idx == lr_idx[MW-1:0];
    assign lr_ok = {16'd0, lr_idx} < NMR;
    assign lr_base = lr_ok ? base[lr_idx[MW-1:0]] : 64'd0;
    assign lr_len = lr_ok ? len[lr_idx[MW-1:0]] : 32'd0;
    assign lr_ctrl = lr_ok ? ctrl[lr_idx[MW-1:0]] & ~{63'd0, lr_cp} : 64'd0;

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

    // CTRL as written: valid only with a length, for a user context or
    // with pages and qp_only
    wire [63:0] w_ctrl = rclink_reg_wmerge(`RCLINK_DMAQ_MR_CTRL, s_ok ? ctrl[si] : 64'd0,
                                           wdata, wmask) & CTRL_KEEP;
    wire        w_refuse = (w_ctrl[`RCLINK_DMAQ_MR_CTRL_CTX_MSB:`RCLINK_DMAQ_MR_CTRL_CTX_LSB] == 16'd0 &&
                            !(w_ctrl[`RCLINK_DMAQ_MR_CTRL_PAGES_LSB] &&
                              w_ctrl[`RCLINK_DMAQ_MR_CTRL_QP_ONLY_LSB])) ||
                           len[si] == 32'd0;
    wire [63:0] n_cfg = rclink_reg_wmerge(`RCLINK_DMAQ_RDMA_CFG, cfg, wdata, wmask);
    wire [63:0] n_sel = rclink_reg_wmerge(`RCLINK_DMAQ_MR_SEL, {48'd0, sel}, wdata, wmask);
    wire [63:0] n_base = rclink_reg_wmerge(`RCLINK_DMAQ_MR_BASE, s_ok ? base[si] : 64'd0, wdata, wmask);
    wire [63:0] n_len = rclink_reg_wmerge(`RCLINK_DMAQ_MR_LEN, s_ok ? {32'd0, len[si]} : 64'd0, wdata, wmask);
    // a pages registration made valid: its table's checks
    wire [63:0] w_npg = (base[si] + {32'd0, len[si]} + 64'd4095) >> 12;
    wire        w_pages = w_ctrl[0] && w_ctrl[`RCLINK_DMAQ_MR_CTRL_PAGES_LSB] && !w_refuse;
    wire        w_tbad = base[si] >= 64'd4096 || w_npg > PT_PAGES ||
                         tbl[si][11:0] != 12'd0 || cp_on;
    wire [63:0] n_tbl = rclink_reg_wmerge(`RCLINK_DMAQ_MR_TBL, s_ok ? tbl[si] : 64'd0, wdata, wmask);

    // translation: the row of a page, read every cycle for the responder
    // (tr_*) unless it has its row and the send engine (tq_*) wants one; a
    // row written meanwhile is read again
    wire [MW+PW-1:0] tr_tag = {tr_idx[MW-1:0], tr_off[12 +: PW]};
    wire [MW+PW-1:0] tq_tag = {tq_idx[MW-1:0], tq_off[12 +: PW]};
    assign tr_ok = pt_v && pt_tag == tr_tag;
    assign tq_ok = pt_v && pt_tag == tq_tag;
    wire [PB-1:0] pt_word = pt_q[PB * pt_tag[2:0] +: PB];
    assign tr_bus = {pt_word, tr_off[11:0]};
    assign tq_bus = {pt_word, tq_off[11:0]};
    wire [MW+PW-1:0] rd_tag = (tq_on && !(tr_on && !tr_ok)) ? tq_tag : tr_tag;
    always @(posedge clk) begin
        if (pt_we)
            pt_mem[pt_wa] <= pt_wd;
        pt_q <= pt_mem[rd_tag[MW+PW-1:3]];
    end

    // a beat of the table: its pages (the words beyond the table are not
    // looked at), one of them not 4 KiB aligned
    reg [8*PB-1:0] b_pages;
    reg            b_bad;
    integer j;
    always @* begin
        b_bad = 1'b0;
        for (j = 0; j < 8; j = j + 1) begin
            b_pages[PB*j +: PB] = t_rd_data[64*j+12 +: PB];
            if ({1'b0, cp_row, j[2:0]} < cp_n && t_rd_data[64*j +: 12] != 12'd0)
                b_bad = 1'b1;
        end
    end

    wire ctrl_wr = wr && addr == `RCLINK_DMAQ_MR_CTRL && s_ok;
    wire cp_start = ctrl_wr && w_pages && !w_tbad;
    wire cp_end = cst == C_DATA && t_rd_valid && t_rd_last &&
                  (cp_left == 32'd0 || cp_bad || t_rd_err || b_bad);
    wire cp_fail = cp_end && (cp_bad || t_rd_err || b_bad) && !cp_abort;
    always @(posedge clk) begin
        pt_we <= 1'b0;
        pt_tag <= rd_tag;
        pt_v <= !rst && !pt_we;
        if (rst) begin
            cst <= C_IDLE;
            cp_on <= 1'b0;
            cp_idx <= {MW{1'b0}};
            cp_bad <= 1'b0;
            cp_abort <= 1'b0;
            cp_left <= 32'd0;
            cp_n <= {(PW+1){1'b0}};
            cp_row <= {RWD{1'b0}};
            t_cmd_valid <= 1'b0;
            t_cmd_addr <= 64'd0;
            t_cmd_len <= 13'd0;
            pt_wa <= {(MW+RWD){1'b0}};
            pt_wd <= {(8*PB){1'b0}};
        end else begin
            case (cst)
            C_CMD: begin            // a burst of at most 4 KiB
                t_cmd_valid <= 1'b1;
                t_cmd_len <= (cp_left < 32'd4096) ? cp_left[12:0] : 13'd4096;
                if (t_cmd_valid && t_cmd_ready) begin
                    t_cmd_valid <= 1'b0;
                    t_cmd_addr <= t_cmd_addr + {51'd0, t_cmd_len};
                    cp_left <= cp_left - {19'd0, t_cmd_len};
                    cst <= C_DATA;
                end
            end
            C_DATA:
                if (t_rd_valid) begin
                    pt_we <= 1'b1;
                    pt_wa <= {cp_idx, cp_row};
                    pt_wd <= b_pages;
                    cp_row <= cp_row + 1'b1;
                    if (t_rd_err || b_bad)
                        cp_bad <= 1'b1;
                    if (t_rd_last)
                        cst <= C_CMD;
                end
            default: ;
            endcase
            if (cp_end) begin
                cp_on <= 1'b0;
                cst <= C_IDLE;
            end
            if (ctrl_wr && cp_on && cp_idx == si)
                cp_abort <= 1'b1;
            if (cp_start) begin
                cp_on <= 1'b1;
                cp_idx <= si;
                cp_bad <= 1'b0;
                cp_abort <= 1'b0;
                cp_left <= {w_npg[28:0], 3'b000};
                cp_n <= w_npg[PW:0];
                cp_row <= {RWD{1'b0}};
                t_cmd_addr <= tbl[si];
                cst <= C_CMD;
            end
        end
    end

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
            // the copy's end: a bad table leaves the entry not valid (a
            // write of its CTRL now wins)
            if (cp_fail)
                ctrl[cp_idx] <= ctrl[cp_idx] & ~64'd1;
            if (wr) begin
                case (addr)
                `RCLINK_DMAQ_MR_SEL:  sel <= n_sel[15:0];
                `RCLINK_DMAQ_RDMA_CFG: cfg <= n_cfg;
                `RCLINK_DMAQ_MR_BASE: if (s_ok && !s_valid) base[si] <= n_base;
                `RCLINK_DMAQ_MR_LEN:  if (s_ok && !s_valid) len[si] <= n_len[31:0];
                `RCLINK_DMAQ_MR_TBL:  if (s_ok && !s_valid) tbl[si] <= n_tbl;
                `RCLINK_DMAQ_MR_CTRL:
                    if (s_ok)
                        ctrl[si] <= (w_refuse || (w_pages && w_tbad)) ? w_ctrl & ~64'd1 : w_ctrl;
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
