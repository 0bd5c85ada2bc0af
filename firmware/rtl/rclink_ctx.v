// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: user contexts, control plane (Documentation/hw/shim.rst,
// "Contexts"; Documentation/hw/rtl.rst, "Contexts").
//
// NCTX contexts, context 0 being the kernel's queues of rclink_csr.  This
// block holds what the contract asks of a context besides its data path:
//
//   DMAQ_CTX_CAP (num = NCTX), DMAQ_CTX_SEL and the selected register file
//   (configuration written while disabled, MOD and OST at any time, 32-bit
//   halves merge with the selected context's register);
//   the owner tables DMAQ_QP_OWNER (QP_NUM entries, reset to 0 by a valid
//   bitmap, so the table itself is a plain memory) and DMAQ_T2_OWNER, with
//   lookup ports for the send engine;
//   the lifecycle: enable checks the configuration (CONFIG, without an
//   event), resets the indices, reads the area table into the translation
//   memory (CONFIG for an unreadable table or a misaligned chunk), writes
//   the doorbell record and runs the context, BAR0 waiting meanwhile
//   (hold); stop writes the record a last time and then clears active;
//   disable forgets indices and error;
//   the doorbell pages (BAR4, page n at n << 16): SQ_PROD, RQ_PROD, CQ_CONS
//   with the DOORBELL checks, CQ_ARM (one shot, an event at once when CQEs
//   from the armed index on are written);
//   errors: running ends, cause and info, the record gets ERROR and CAUSE,
//   then one CTX_ERR event record;
//   the doorbell record writer and table reader (a word client of
//   rclink_dma_arb) and the CTX_CQ / CTX_ERR event source of rclink_evt.
//
// The data path of user contexts (their WQEs, RQEs and CQEs, the
// translation of area offsets through the memory) is not in the RTL yet:
// the consumer and CQ producer indexes stay 0, so the shim's tops keep
// NCTX = 1 (no user contexts, no doorbell BAR) until it is (rtl.rst).
`default_nettype none
`include "rclink_regs.vh"
module rclink_ctx #(
    parameter NCTX = 8,             // 2..65535 (1: the tops leave this out)
    parameter CW = 3,               // clog2(NCTX)
    parameter QP_AW = 10,
    parameter QP_NUM = `RCLINK_PARAM_QP_NUM,
    parameter MAXCH = 16,           // DMAQ_CTX_CAP.max_chunks (translation memory)
    parameter MW = 4                // clog2(MAXCH)
) (
    input  wire        clk,
    input  wire        rst,
    // register bus (rclink_csr's: qword address, lane write mask)
    input  wire        wr,
    input  wire [15:0] addr,
    input  wire [63:0] wdata,
    input  wire [63:0] wmask,
    output reg  [63:0] rdata,
    output reg         hit,             // addr is one of this block's
    output wire        hold,            // an area table is being read: BAR0 waits
    // doorbell BAR writes (byte offset in the BAR, quad-word aligned)
    input  wire        db_wr,
    input  wire [CW+15:0] db_addr,
    input  wire [7:0]  db_be,
    input  wire [63:0] db_data,
    // owner lookups of the send engine
    input  wire [QP_AW-1:0] own_qpn,
    output wire [15:0] own_qp_ctx,
    input  wire [2:0]  own_grp,
    output wire [15:0] own_grp_ctx,
    // event source (rclink_evt): held until taken
    output reg         ev_valid,
    output reg  [7:0]  ev_src,
    output reg  [63:0] ev_info,
    input  wire        ev_take,
    // DMA word client (doorbell record writes)
    output wire        dma_lock,
    output reg         dma_valid,
    input  wire        dma_ready,
    output wire        dma_write,
    output wire [63:0] dma_addr,
    output wire [63:0] dma_data,
    input  wire        dma_rsp_valid,
    input  wire [63:0] dma_rsp_data,
    input  wire        dma_rsp_err
);
`include "rclink_regtab.vh"

    localparam [15:0] N16 = NCTX[15:0];
    localparam [63:0] CAP_RST = `RCLINK_DMAQ_CTX_CAP_RSTVAL;
    localparam [63:0] CAP = {CAP_RST[63:48], MAXCH[15:0], CAP_RST[31:16], NCTX[15:0]};
    localparam [5:0]  CH_MIN = CAP_RST[`RCLINK_DMAQ_CTX_CAP_CHUNK_MIN_LSB +: 6];
    localparam [5:0]  CH_MAX = CAP_RST[`RCLINK_DMAQ_CTX_CAP_CHUNK_MAX_LSB +: 6];
    localparam [19:0] MAX_CHUNKS = MAXCH[19:0];
    localparam [63:0] DMAQ_CAP_VAL = `RCLINK_DMAQ_CAP_RSTVAL;
    localparam [3:0]  Q_MAX_ORDER =
        DMAQ_CAP_VAL[`RCLINK_DMAQ_CAP_MAX_ORDER_MSB:`RCLINK_DMAQ_CAP_MAX_ORDER_LSB];
    localparam [7:0]  C_DOORBELL = `RCLINK_CTX_EVT_CAUSE_DOORBELL,
                      C_CONFIG = `RCLINK_CTX_EVT_CAUSE_CONFIG;
    localparam [15:0] T2_OWN0 = `RCLINK_DMAQ_T2_OWNER;

    // ---- per-context state (index 0 unused: the kernel's queues) --------
    reg [63:0] sq_base [0:NCTX-1];
    reg [63:0] rq_base [0:NCTX-1];
    reg [63:0] cq_base [0:NCTX-1];
    reg [63:0] qcfg    [0:NCTX-1];
    reg [63:0] dbrec   [0:NCTX-1];
    reg [63:0] tbl     [0:NCTX-1];
    reg [63:0] acfg    [0:NCTX-1];
    reg [63:0] mod     [0:NCTX-1];
    reg [15:0] ost_max [0:NCTX-1];
    reg [63:0] einfo   [0:NCTX-1];
    reg [7:0]  cause   [0:NCTX-1];
    reg [31:0] sq_prod [0:NCTX-1];
    reg [31:0] rq_prod [0:NCTX-1];
    reg [31:0] cq_cons [0:NCTX-1];
    reg [63:0] n_events [0:NCTX-1];
    reg [NCTX-1:0] en, run, act, err, armed;
    reg [NCTX-1:0] rec_p;           // the doorbell record is to be written
    reg [NCTX-1:0] rec_ev;          // ... and then the CTX_ERR event posted
    reg [NCTX-1:0] ev_err_p, ev_cq_p;
    reg [NCTX-1:0] ld_p;            // enabled: the area table is to be read
    reg [NCTX-1:0] rec_first;       // a record BAR0 waits for (enable, disable)
    // the translation memory: chunk i of context c at {c, i} (for the data
    // path, which is not in the RTL yet)
    reg [63:0] tmem [0:NCTX*MAXCH-1];
    // the data path's indexes (not in the RTL yet: rtl.rst)
    wire [31:0] sq_cons = 32'd0, rq_cons = 32'd0, cq_prod = 32'd0;

    // the record writer and table reader's state (below)
    localparam W_IDLE = 3'd0, W_W0 = 3'd1, W_W1 = 3'd2, W_RD = 3'd3, W_RSP = 3'd4;
    reg [2:0]    w_st;
    reg [CW-1:0] w_c;
    reg [15:0] ctx_sel, owner_sel;
    wire       sel_ok = ctx_sel != 16'd0 && ctx_sel < N16;
    wire [CW-1:0] s = ctx_sel[CW-1:0];

    // ---- owner tables -------------------------------------------------------
    reg [CW-1:0]     qown [0:QP_NUM-1];
    reg [QP_NUM-1:0] qown_v;            // entry written since reset
    reg [CW-1:0]     town [0:7];
    wire             osel_ok = owner_sel < QP_NUM;
    wire [QP_AW-1:0] oq = owner_sel[QP_AW-1:0];
    wire [15:0]      own_sel_ctx = (osel_ok && qown_v[oq]) ? {{(16-CW){1'b0}}, qown[oq]} : 16'd0;
    assign own_qp_ctx  = qown_v[own_qpn] ? {{(16-CW){1'b0}}, qown[own_qpn]} : 16'd0;
    assign own_grp_ctx = {{(16-CW){1'b0}}, town[own_grp]};
    wire a_t2own = {addr[15:6], 6'd0} == T2_OWN0;

    // ---- reads --------------------------------------------------------------
    function [31:0] qsize(input [3:0] o);
        qsize = 32'd1 << o;
    endfunction

    always @* begin
        hit = 1'b1;
        rdata = 64'd0;
        case (addr)
        `RCLINK_DMAQ_CTX_CAP:       rdata = CAP;
        `RCLINK_DMAQ_CTX_SEL:       rdata = {48'd0, ctx_sel};
        `RCLINK_DMAQ_QP_OWNER_SEL:  rdata = {48'd0, owner_sel};
        `RCLINK_DMAQ_QP_OWNER:      rdata = {48'd0, own_sel_ctx};
        `RCLINK_DMAQ_CTX_CTRL:      if (sel_ok) rdata = {63'd0, en[s]};
        `RCLINK_DMAQ_CTX_STATUS:
            if (sel_ok)
                rdata = {48'd0, err[s] ? cause[s] : 8'd0, 4'd0,
                         armed[s], err[s], act[s], run[s]};
        `RCLINK_DMAQ_CTX_ERR_INFO:  if (sel_ok && err[s]) rdata = einfo[s];
        `RCLINK_DMAQ_CTX_SQ_BASE:   if (sel_ok) rdata = sq_base[s];
        `RCLINK_DMAQ_CTX_RQ_BASE:   if (sel_ok) rdata = rq_base[s];
        `RCLINK_DMAQ_CTX_CQ_BASE:   if (sel_ok) rdata = cq_base[s];
        `RCLINK_DMAQ_CTX_QCFG:      if (sel_ok) rdata = qcfg[s];
        `RCLINK_DMAQ_CTX_DBREC:     if (sel_ok) rdata = dbrec[s];
        `RCLINK_DMAQ_CTX_AREA_TBL:  if (sel_ok) rdata = tbl[s];
        `RCLINK_DMAQ_CTX_AREA_CFG:  if (sel_ok) rdata = acfg[s];
        `RCLINK_DMAQ_CTX_MOD:       if (sel_ok) rdata = mod[s];
        `RCLINK_DMAQ_CTX_SQ_IDX:    if (sel_ok) rdata = {sq_cons, sq_prod[s]};
        `RCLINK_DMAQ_CTX_RQ_IDX:    if (sel_ok) rdata = {rq_cons, rq_prod[s]};
        `RCLINK_DMAQ_CTX_CQ_IDX:    if (sel_ok) rdata = {cq_cons[s], cq_prod};
        `RCLINK_DMAQ_CTX_RX_NOBUF:  rdata = 64'd0;
        `RCLINK_DMAQ_CTX_NOT_OWNER: rdata = 64'd0;
        `RCLINK_DMAQ_CTX_EVENTS:    if (sel_ok) rdata = n_events[s];
        `RCLINK_DMAQ_CTX_OST:       if (sel_ok) rdata = {48'd0, ost_max[s]};
        default: begin
            hit = a_t2own;
            if (a_t2own)
                rdata = {{(64-CW){1'b0}}, town[addr[5:3]]};
        end
        endcase
    end

    // ---- register writes ------------------------------------------------------
    wire [63:0] n_sel64  = rclink_reg_wmerge(`RCLINK_DMAQ_CTX_SEL, {48'd0, ctx_sel}, wdata, wmask);
    wire [63:0] n_osel64 = rclink_reg_wmerge(`RCLINK_DMAQ_QP_OWNER_SEL, {48'd0, owner_sel}, wdata, wmask);
    wire [63:0] n_own64  = rclink_reg_wmerge(`RCLINK_DMAQ_QP_OWNER, {48'd0, own_sel_ctx}, wdata, wmask);
    wire [63:0] n_town64 = rclink_reg_wmerge(addr, {{(64-CW){1'b0}}, town[addr[5:3]]}, wdata, wmask);
    wire [63:0] n_ctrl   = rclink_reg_wmerge(`RCLINK_DMAQ_CTX_CTRL, {63'd0, en[s]}, wdata, wmask) |
                           (wdata & wmask & (64'd1 << `RCLINK_DMAQ_CTX_CTRL_STOP_LSB));
    // the value a write gives the selected register (reads as 0 otherwise)
    wire [63:0] n_reg    = rclink_reg_wmerge(addr, rdata, wdata, wmask);
    wire        cfg_reg  = addr == `RCLINK_DMAQ_CTX_SQ_BASE || addr == `RCLINK_DMAQ_CTX_RQ_BASE ||
                           addr == `RCLINK_DMAQ_CTX_CQ_BASE || addr == `RCLINK_DMAQ_CTX_QCFG ||
                           addr == `RCLINK_DMAQ_CTX_DBREC || addr == `RCLINK_DMAQ_CTX_AREA_TBL ||
                           addr == `RCLINK_DMAQ_CTX_AREA_CFG;

    // the configuration check of enable: {bad, info}
    reg        c_bad;
    reg [63:0] c_info;
    reg [3:0]  c_o [0:2];
    reg [63:0] c_b [0:2];
    integer    ci;
    always @* begin
        c_o[0] = qcfg[s][`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_LSB];
        c_o[1] = qcfg[s][`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_LSB];
        c_o[2] = qcfg[s][`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB];
        c_b[0] = sq_base[s];
        c_b[1] = rq_base[s];
        c_b[2] = cq_base[s];
        c_bad = 1'b0;
        c_info = 64'd0;
        for (ci = 2; ci >= 0; ci = ci - 1) begin
            // the first offender counts: walk backwards, the last one wins
            if (c_b[ci][11:0] != 12'd0) begin
                c_bad = 1'b1;
                c_info = c_b[ci];
            end
            if (c_o[ci] < 4'd4 || c_o[ci] > Q_MAX_ORDER) begin
                c_bad = 1'b1;
                c_info = {60'd0, c_o[ci]};
            end
        end
        if (!c_bad && dbrec[s][5:0] != 6'd0) begin
            c_bad = 1'b1;
            c_info = dbrec[s];
        end else if (!c_bad && (acfg[s][19:0] == 20'd0 || acfg[s][19:0] > MAX_CHUNKS ||
                                acfg[s][29:24] < CH_MIN || acfg[s][29:24] > CH_MAX)) begin
            c_bad = 1'b1;
            c_info = acfg[s];
        end else if (!c_bad && tbl[s][11:0] != 12'd0) begin
            c_bad = 1'b1;
            c_info = tbl[s];
        end
    end

    // ---- doorbells ------------------------------------------------------------
    wire [CW-1:0] d = db_addr[CW+15:16];
    wire [15:0]   d_off = db_addr[15:0];
    wire [31:0]   d_v = db_data[31:0];
    // a context whose table is being read (enable) takes its doorbells too
    wire          d_load = ld_p[d] || ((w_st == W_RD || w_st == W_RSP) && w_c == d);
    wire          d_ok = db_wr && db_be[3:0] != 4'd0 && d != {CW{1'b0}} &&
                         {{(16-CW){1'b0}}, d} < N16 && (run[d] || d_load);
    wire [31:0]   d_sqsz = qsize(qcfg[d][`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_LSB]);
    wire [31:0]   d_rqsz = qsize(qcfg[d][`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_LSB]);
    wire [31:0]   d_cqsz = qsize(qcfg[d][`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB]);
    reg           d_bad;
    always @* begin
        d_bad = 1'b0;
        case (d_off)
        `RCLINK_DB_OFF_SQ_PROD: d_bad = d_v - sq_cons > d_sqsz;
        `RCLINK_DB_OFF_RQ_PROD: d_bad = d_v - rq_cons > d_rqsz;
        `RCLINK_DB_OFF_CQ_CONS: d_bad = d_v - cq_cons[d] > cq_prod - cq_cons[d];
        default:                d_bad = 1'b0;
        endcase
    end

    // ---- doorbell record writer -----------------------------------------------
    // the lowest user context (1..NCTX-1) whose bit is set in m: {any, index}
    function [CW:0] lowest(input [NCTX-1:0] m);
        integer k;
        begin
            lowest = {(CW+1){1'b0}};
            for (k = NCTX - 1; k >= 1; k = k - 1)
                if (m[k])
                    lowest = {1'b1, k[CW-1:0]};
        end
    endfunction
    wire [CW-1:0] r_pick, l_pick;
    wire          r_any, l_any;
    assign {r_any, r_pick} = lowest(rec_p);
    // ... and the area table's reader (enable), which shares the client
    assign {l_any, l_pick} = lowest(ld_p);
    reg [63:0]   w_addr, w_d0, w_d1;
    reg [MW:0]   l_i;                // table words read
    wire [19:0]  l_n = acfg[w_c][19:0];
    wire [5:0]   l_sh = acfg[w_c][29:24];
    wire [63:0]  l_mask = (64'd1 << l_sh) - 64'd1;
    assign dma_lock = w_st != W_IDLE;
    assign dma_write = w_st == W_W0 || w_st == W_W1;
    assign dma_addr = w_st == W_W1 ? w_addr + 64'd8 :
                      (w_st == W_RD || w_st == W_RSP) ? w_addr + {{(60-MW){1'b0}}, l_i, 3'd0} :
                      w_addr;
    assign dma_data = w_st == W_W1 ? w_d1 : w_d0;
    assign hold = ld_p != {NCTX{1'b0}} || w_st == W_RD || w_st == W_RSP ||
                  rec_first != {NCTX{1'b0}};

    // ---- events ---------------------------------------------------------------
    wire [CW-1:0] e_pick;
    wire          e_any;
    assign {e_any, e_pick} = lowest(ev_err_p | ev_cq_p);
    wire          e_err = ev_err_p[e_pick];

    integer i;
    always @(posedge clk) begin
        if (rst) begin
            ctx_sel <= 16'd0;
            owner_sel <= 16'd0;
            qown_v <= {QP_NUM{1'b0}};
            for (i = 0; i < 8; i = i + 1)
                town[i] <= {CW{1'b0}};
            for (i = 0; i < NCTX; i = i + 1) begin
                sq_base[i] <= 64'd0;
                rq_base[i] <= 64'd0;
                cq_base[i] <= 64'd0;
                qcfg[i] <= 64'd0;
                dbrec[i] <= 64'd0;
                tbl[i] <= 64'd0;
                acfg[i] <= 64'd0;
                mod[i] <= 64'd0;
                ost_max[i] <= 16'd0;
                einfo[i] <= 64'd0;
                cause[i] <= 8'd0;
                sq_prod[i] <= 32'd0;
                rq_prod[i] <= 32'd0;
                cq_cons[i] <= 32'd0;
                n_events[i] <= 64'd0;
            end
            en <= {NCTX{1'b0}};
            run <= {NCTX{1'b0}};
            act <= {NCTX{1'b0}};
            err <= {NCTX{1'b0}};
            armed <= {NCTX{1'b0}};
            rec_p <= {NCTX{1'b0}};
            rec_ev <= {NCTX{1'b0}};
            ev_err_p <= {NCTX{1'b0}};
            ev_cq_p <= {NCTX{1'b0}};
            w_st <= W_IDLE;
            w_c <= {CW{1'b0}};
            w_addr <= 64'd0;
            w_d0 <= 64'd0;
            w_d1 <= 64'd0;
            l_i <= {(MW+1){1'b0}};
            ld_p <= {NCTX{1'b0}};
            rec_first <= {NCTX{1'b0}};
            dma_valid <= 1'b0;
            ev_valid <= 1'b0;
            ev_src <= 8'd0;
            ev_info <= 64'd0;
        end else begin
            // the record writer and the event source first: a request
            // of the same cycle below wins over their clearing
            // ---- the doorbell record: {SQ_CONS, RQ_CONS}, {ERROR, CAUSE}
            case (w_st)
            W_IDLE:
                if (l_any) begin
                    // enable: read the area table into the translation memory
                    w_c <= l_pick;
                    w_addr <= tbl[l_pick];
                    l_i <= {(MW+1){1'b0}};
                    ld_p[l_pick] <= 1'b0;
                    dma_valid <= 1'b1;
                    w_st <= W_RD;
                end else if (r_any) begin
                    w_c <= r_pick;
                    w_addr <= dbrec[r_pick];
                    w_d0 <= {rq_cons, sq_cons};
                    w_d1 <= {48'd0, err[r_pick] ? cause[r_pick] : 8'd0, 7'd0, err[r_pick]};
                    rec_p[r_pick] <= 1'b0;
                    dma_valid <= 1'b1;
                    w_st <= W_W0;
                end
            W_W0:
                if (dma_ready) w_st <= W_W1;
            W_W1:
                if (dma_ready) begin
                    dma_valid <= 1'b0;
                    w_st <= W_IDLE;
                    rec_first[w_c] <= 1'b0;
                    // written a last time: nothing more is read or written
                    if (!run[w_c] && !rec_p[w_c])
                        act[w_c] <= 1'b0;
                    if (rec_ev[w_c]) begin
                        rec_ev[w_c] <= 1'b0;
                        ev_err_p[w_c] <= 1'b1;
                    end
                end
            W_RD:
                if (dma_ready) begin
                    dma_valid <= 1'b0;
                    w_st <= W_RSP;
                end
            W_RSP:
                if (dma_rsp_valid) begin
                    if (dma_rsp_err || (dma_rsp_data & l_mask) != 64'd0) begin
                        // unreadable table (its address), a chunk not
                        // aligned to its size (its index): CONFIG
                        err[w_c] <= 1'b1;
                        cause[w_c] <= C_CONFIG;
                        einfo[w_c] <= dma_rsp_err ? tbl[w_c] : {{(63-MW){1'b0}}, l_i};
                        act[w_c] <= 1'b0;
                        w_st <= W_IDLE;
                    end else begin
                        tmem[{w_c, l_i[MW-1:0]}] <= dma_rsp_data;
                        if ({{(19-MW){1'b0}}, l_i} + 20'd1 == l_n) begin
                            // the context runs
                            run[w_c] <= en[w_c];
                            act[w_c] <= en[w_c];
                            rec_p[w_c] <= en[w_c];
                            rec_first[w_c] <= en[w_c];
                            w_st <= W_IDLE;
                        end else begin
                            l_i <= l_i + 1'b1;
                            dma_valid <= 1'b1;
                            w_st <= W_RD;
                        end
                    end
                end
            default: w_st <= W_IDLE;
            endcase

            // ---- events to the ring: one at a time, held until taken
            if (ev_valid) begin
                if (ev_take)
                    ev_valid <= 1'b0;
            end else if (e_any) begin
                ev_valid <= 1'b1;
                ev_src <= e_err ? 8'd`RCLINK_EVT_SRC_CTX_ERR : 8'd`RCLINK_EVT_SRC_CTX_CQ;
                ev_info <= e_err ?
                    {40'd0, cause[e_pick], {(16-CW){1'b0}}, e_pick} :
                    {cq_prod, 16'd0, {(16-CW){1'b0}}, e_pick};
                if (e_err) begin
                    ev_err_p[e_pick] <= 1'b0;
                end else begin
                    ev_cq_p[e_pick] <= 1'b0;
                    n_events[e_pick] <= n_events[e_pick] + 64'd1;
                end
            end
            // ---- BAR0 writes
            if (wr) begin
                case (addr)
                `RCLINK_DMAQ_CTX_SEL:      ctx_sel <= n_sel64[15:0];
                `RCLINK_DMAQ_QP_OWNER_SEL: owner_sel <= n_osel64[15:0];
                `RCLINK_DMAQ_QP_OWNER:
                    // a QP >= QP_NUM selects nothing, an owner >= NCTX is
                    // not written
                    if (osel_ok && n_own64[15:0] < N16) begin
                        qown[oq] <= n_own64[CW-1:0];
                        qown_v[oq] <= 1'b1;
                    end
                `RCLINK_DMAQ_CTX_CTRL:
                    if (sel_ok) begin
                        if (n_ctrl[`RCLINK_DMAQ_CTX_CTRL_STOP_LSB] && run[s]) begin
                            // stop: the last record, then active clears
                            run[s] <= 1'b0;
                            armed[s] <= 1'b0;
                            rec_p[s] <= 1'b1;
                        end
                        if (n_ctrl[0] && !en[s]) begin
                            en[s] <= 1'b1;
                            sq_prod[s] <= 32'd0;
                            rq_prod[s] <= 32'd0;
                            cq_cons[s] <= 32'd0;
                            armed[s] <= 1'b0;
                            if (c_bad) begin
                                err[s] <= 1'b1;
                                cause[s] <= C_CONFIG;
                                einfo[s] <= c_info;
                            end else begin
                                // the table first (BAR0 waits: hold), then
                                // the record, then it runs
                                act[s] <= 1'b1;
                                err[s] <= 1'b0;
                                cause[s] <= 8'd0;
                                einfo[s] <= 64'd0;
                                ld_p[s] <= 1'b1;
                                rec_ev[s] <= 1'b0;
                            end
                        end else if (!n_ctrl[0] && en[s]) begin
                            // disable: stop (the last record if it ran),
                            // then forget indices and error
                            en[s] <= 1'b0;
                            run[s] <= 1'b0;
                            err[s] <= 1'b0;
                            armed[s] <= 1'b0;
                            cause[s] <= 8'd0;
                            einfo[s] <= 64'd0;
                            sq_prod[s] <= 32'd0;
                            rq_prod[s] <= 32'd0;
                            cq_cons[s] <= 32'd0;
                            rec_ev[s] <= 1'b0;
                            ev_err_p[s] <= 1'b0;
                            if (run[s]) begin
                                // BAR0 waits for the last record, so that
                                // the next read sees the context stopped
                                rec_p[s] <= 1'b1;
                                rec_first[s] <= 1'b1;
                            end
                        end
                    end
                `RCLINK_DMAQ_CTX_MOD: if (sel_ok) mod[s] <= n_reg;
                `RCLINK_DMAQ_CTX_OST: if (sel_ok) ost_max[s] <= n_reg[15:0];
                default: begin
                    if (a_t2own && n_town64[15:0] < N16)
                        town[addr[5:3]] <= n_town64[CW-1:0];
                    // configuration: only while disabled
                    if (cfg_reg && sel_ok && !en[s]) begin
                        case (addr)
                        `RCLINK_DMAQ_CTX_SQ_BASE:  sq_base[s] <= n_reg;
                        `RCLINK_DMAQ_CTX_RQ_BASE:  rq_base[s] <= n_reg;
                        `RCLINK_DMAQ_CTX_CQ_BASE:  cq_base[s] <= n_reg;
                        `RCLINK_DMAQ_CTX_QCFG:     qcfg[s] <= n_reg;
                        `RCLINK_DMAQ_CTX_DBREC:    dbrec[s] <= n_reg;
                        `RCLINK_DMAQ_CTX_AREA_TBL: tbl[s] <= n_reg;
                        default:                   acfg[s] <= n_reg;
                        endcase
                    end
                end
                endcase
            end

            // ---- doorbells (BAR4)
            if (d_ok) begin
                if (d_bad) begin
                    run[d] <= 1'b0;
                    armed[d] <= 1'b0;
                    err[d] <= 1'b1;
                    cause[d] <= C_DOORBELL;
                    einfo[d] <= {32'd0, d_v};
                    rec_p[d] <= 1'b1;
                    rec_ev[d] <= 1'b1;
                end else begin
                    case (d_off)
                    `RCLINK_DB_OFF_SQ_PROD: sq_prod[d] <= d_v;
                    `RCLINK_DB_OFF_RQ_PROD: rq_prod[d] <= d_v;
                    `RCLINK_DB_OFF_CQ_CONS: cq_cons[d] <= d_v;
                    `RCLINK_DB_OFF_CQ_ARM:
                        // one shot; CQEs from d_v on already written: the
                        // event at once
                        if (cq_prod - d_v - 32'd1 < d_cqsz) begin
                            armed[d] <= 1'b0;
                            ev_cq_p[d] <= 1'b1;
                        end else begin
                            armed[d] <= 1'b1;
                        end
                    default: ;
                    endcase
                end
            end

        end
    end
endmodule
`default_nettype wire
