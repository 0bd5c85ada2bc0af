// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: user contexts (Documentation/hw/shim.rst, "Contexts";
// Documentation/hw/rtl.rst, "Contexts").
//
// NCTX contexts, context 0 being the kernel's queues of rclink_csr.  This
// block holds:
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
//   (hold); stop (and an error) lets the send engine flush what it has of
//   the context, writes the record a last time once nothing is in flight
//   and then clears active; disable forgets indices and error;
//   the doorbell pages (BAR4, page n at n << 16): SQ_PROD, RQ_PROD, CQ_CONS
//   with the DOORBELL checks, CQ_ARM (one shot, an event at once when CQEs
//   from the armed index on are written); a write of another size than 32
//   or 64 bits (byte enables 0x0f or 0xff), of the reserved rest of a page
//   or of a page of no user context is dropped and counted
//   (DMAQ_CTX_DB_DROP);
//   the send engine's side (rclink_sq serves one context at a time): the
//   round robin choice of the next running context with a WQE posted and
//   room in its CQ for one more message than it has in flight, the SQ of
//   the context served, its area size and the translation of its area
//   offsets through the memory (chunk by chunk), the SQ consumer indexes,
//   NOT_OWNER counts and the engine's errors (BAD_WQE, BAD_ADDR, DMA);
//   the CQ writer of user contexts (the send engine's CQEs, 4 words, word
//   3 last) with the armed CQ's event after DMAQ_CTX_MOD.count CQEs or
//   usec microseconds (ticks of US_CYCLES cycles) after the first;
//   errors: running ends, cause and info, the record gets ERROR and CAUSE,
//   then one CTX_ERR event record;
//   the burst client of the DMA engine (rclink_dma_barb: a doorbell record
//   is one 16-byte write, a CQE one 32-byte write, each a command and one
//   data beat; the area table is read a line at a time, up to 8 words a
//   burst) and the CTX_CQ / CTX_ERR event source of rclink_evt.  A write
//   is done once its beat is taken and the engine has sent it (wr_idle),
//   as rclink_cq's: a CQ producer index (DMAQ_CTX_CQ_IDX), an armed CQ's
//   event and a stop's active = 0 never show before the write they
//   announce has left.  The data beat comes from a register that only
//   wrst clears, so a core reset between a command and its beat leaves
//   no command without its data.
//
// DMAQ_QP_OWNER.flushed: set for a QP whose packets a stop left
// unacknowledged (the send engine's fl_v), cleared by a write of the entry.
//
// The receive path's side (rclink_rx receives one packet at a time): the
// owners of the RX_M packet's QP and group, the packet context's RQ, CQ
// room (less the send engine's messages in flight), area and translation,
// its RQ consumer (in the doorbell record), DMAQ_CTX_RX_NOBUF, the
// receive path's errors (BAD_RQE, BAD_ADDR, DMA) and its CQEs (the writer
// takes the send engine's first; one for a context no longer active, or
// without room, is dropped).  An owner change is reported (own_chg) so
// that the receive path ends the old owner's open message.
//
// DMAQ_CTX_OST: used is the sum of the send engine's slots of the context
// (ost_out, ost_ctx); a context at max is not picked and its packet is
// not cut (q_ost_ok).
//
// A stop leaves the IP's slots of unacknowledged packets taken: the
// kernel releases them (free_buf_set) for each QP it finds flushed
// (shim.rst "Contexts", Stop).  A user context whose chain the send
// engine found unfinished at its SQ_PROD (u_park) is parked: not picked
// until a doorbell moves its SQ_PROD, so it holds only itself.  The board
// tops and the co-simulation's top have NCTX = 8 by default.  A posted
// write (CQE, doorbell record, receive buffer) has no outcome the shim
// could see: a bus error of one puts no context in error (rtl.rst
// "Contexts").
`default_nettype none
`include "rclink_regs.vh"
module rclink_ctx #(
    parameter NCTX = 8,             // 2..65535 (1: the core leaves this out)
    parameter CW = 3,               // clog2(NCTX)
    parameter QP_AW = 10,
    parameter QP_NUM = `RCLINK_PARAM_QP_NUM,
    parameter MAXCH = 16,           // DMAQ_CTX_CAP.max_chunks (translation memory)
    parameter MW = 4,               // clog2(MAXCH)
    parameter FL_N = 4,             // the send engine's message slots
    parameter US_CYCLES = 250       // clock cycles a microsecond (MOD.usec)
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
    output reg  [31:0] rx_hold,         // DMAQ_CTX_RX_HOLD.usec (rclink_rx)
    output wire        us_tick,         // a microsecond (US_CYCLES cycles)
    output reg         tm_run,          // a moderation timer runs
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
    // the receive path (rclink_rx): owners of the RX_M packet's QP and
    // group (rx_qpn), owner changes, the packet's context r_ctx
    input  wire [QP_AW-1:0] rx_qpn,
    output wire [CW-1:0] rx_own_qp,
    output wire [CW-1:0] rx_own_grp,
    output reg         own_chg,
    output reg  [QP_AW-1:0] own_chg_qpn,
    input  wire [CW-1:0] r_ctx,
    input  wire        r_busy,
    input  wire [NCTX-1:0] r_flushing,  // their open receives are being flushed
    output wire        r_run,
    output wire [63:0] r_rq_base,
    output wire [3:0]  r_rq_order,
    output wire [31:0] r_rq_prod,
    output wire [31:0] r_rq_cons,
    output wire [31:0] r_room,
    output wire        r_room_ok,       // r_room != 0
    output wire [63:0] r_area,
    input  wire [63:0] r_off,
    output wire [63:0] r_bus,
    output wire        r_cstart,
    input  wire        r_take,
    input  wire        r_nobuf,
    input  wire        r_fail,
    input  wire [7:0]  r_cause,
    input  wire [63:0] r_info,
    input  wire        rcqe_valid,
    input  wire [CW-1:0] rcqe_ctx,
    input  wire [63:0] rcqe_w0,
    input  wire [63:0] rcqe_w1,
    input  wire [63:0] rcqe_w2,         // word 2 (RECV_IMM: the immediate)
    output wire        rcqe_ready,
    // the send engine (rclink_sq): the context it serves (q_ctx) and that
    // one's ring, area and translation; the next user context to serve
    input  wire [CW-1:0] q_ctx,
    input  wire        q_busy,
    output wire [63:0] q_base,
    output wire [3:0]  q_order,
    output wire        q_run,
    output wire [31:0] q_prod,
    output wire [63:0] q_area,
    output wire [NCTX-1:0] runs,
    input  wire [63:0] tr_off,
    output wire [63:0] tr_bus,
    output wire [31:0] tr_rem,
    output reg         u_any,
    output reg  [CW-1:0] u_pick,
    output wire [31:0] u_pick_cons,
    input  wire        u_take,
    input  wire        u_park,          // q_ctx's chain reaches its SQ_PROD before its end
    input  wire        u_cons_we,
    input  wire [31:0] u_cons,
    input  wire [CW-1:0] x_ctx,
    input  wire        x_new,
    input  wire        quiet_done,      // a message of quiet_ctx done with no CQE
    input  wire [CW-1:0] quiet_ctx,
    input  wire        x_not_owner,
    input  wire        x_fail,
    input  wire [7:0]  x_cause,
    input  wire [63:0] x_info,
    input  wire [FL_N*10-1:0] ost_out,  // the send engine's slots: packets in the IP
    input  wire [FL_N*CW-1:0] ost_ctx,  // ... and their contexts
    output wire        q_ost_ok,        // q_ctx's share of the IP's slots has room
    input  wire [FL_N-1:0] fl_v,        // a stop flushed packets of these QPs
    input  wire [FL_N*QP_AW-1:0] fl_qpn,
    // the send engine's completions of user contexts, into their CQs
    input  wire        cqe_valid,
    input  wire [CW-1:0] cqe_ctx,
    input  wire [63:0] cqe_w0,
    input  wire [63:0] cqe_w1,
    output wire        cqe_ready,
    // event source (rclink_evt): held until taken
    output reg         ev_valid,
    output reg  [7:0]  ev_src,
    output reg  [63:0] ev_info,
    input  wire        ev_take,
    // DMA engine burst client (doorbell records, CQEs, the area table)
    input  wire        wrst,            // the hard reset: the write beat's register
    input  wire        wr_idle,         // no write taken is left to send
    output wire        idle_want,       // waits for wr_idle (its write taken)
    output reg         dma_cmd_valid,
    input  wire        dma_cmd_ready,
    output wire        dma_cmd_write,
    output wire [63:0] dma_cmd_addr,
    output wire [12:0] dma_cmd_len,
    output wire        dma_wd_valid,
    input  wire        dma_wd_ready,
    output wire [511:0] dma_wd_data,
    input  wire        dma_rd_valid,
    input  wire [511:0] dma_rd_data,
    input  wire        dma_rd_last,
    input  wire        dma_rd_err
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
    reg [63:0] n_db_drop;           // DMAQ_CTX_DB_DROP
    reg [NCTX-1:0] en, run, act, err, armed;
    reg [NCTX-1:0] rec_p;           // the doorbell record is to be written
    reg [NCTX-1:0] rec_ev;          // ... and then the CTX_ERR event posted
    reg [NCTX-1:0] ev_err_p, ev_cq_p;
    reg [NCTX-1:0] ld_p;            // enabled: the area table is to be read
    reg [NCTX-1:0] rec_first;       // a record BAR0 waits for (enable, disable)
    // the translation memory: chunk i of context c at {c, i}
    reg [63:0] tmem [0:NCTX*MAXCH-1];
    // the send side's indexes: the SQ consumer (the engine's own while it
    // serves the context: u_cons), the CQ producer, the armed index, the
    // consumer in the doorbell record, the messages whose CQE is to come
    reg [31:0] sqc_m   [0:NCTX-1];
    reg [31:0] cq_prod [0:NCTX-1];
    reg [31:0] cq_free [0:NCTX-1];      // free entries (below, "the CQs' free entries")
    reg [31:0] arm_idx [0:NCTX-1];
    reg [31:0] rec_sq  [0:NCTX-1];
    reg [5:0]  held    [0:NCTX-1];
    reg [63:0] n_not_owner [0:NCTX-1];
    reg [NCTX-1:0] stop_p;          // stopping: the last record once nothing is in flight
    reg [CW-1:0]   rr;              // the user context served last
    // parked: the send engine found the context's chain unfinished at its
    // SQ_PROD; not picked again until a doorbell moves SQ_PROD
    reg [NCTX-1:0] park;
    // DMAQ_CTX_MOD.usec: a microsecond tick, a timer per context (its
    // microseconds left, 0: off) started by the first CQE after the arm
    reg [15:0]     us_pre;
    assign         us_tick = us_pre == US_CYCLES[15:0] - 16'd1;
    localparam [63:0] HOLD_RST = `RCLINK_DMAQ_CTX_RX_HOLD_RSTVAL;
    reg [16:0]     tm_left [0:NCTX-1];
    integer        tr_i;
    always @* begin
        tm_run = 1'b0;
        for (tr_i = 1; tr_i < NCTX; tr_i = tr_i + 1)
            if (tm_left[tr_i] != 17'd0)
                tm_run = 1'b1;
    end
    // the receive side: RQ consumer, the record's copy, refused packets
    reg [31:0] rq_cons [0:NCTX-1];
    reg [31:0] rec_rq  [0:NCTX-1];
    reg [63:0] n_nobuf [0:NCTX-1];

    // the record writer and table reader's state (below)
    // W_W: a record's command and beat, W_C: a CQE's, W_SENT: either
    // waits for the engine to have sent it; W_RD: a table line's read
    // command, W_RSP: its beat, W_WALK: its words one a cycle
    localparam W_IDLE = 3'd0, W_W = 3'd1, W_C = 3'd2, W_SENT = 3'd3,
               W_RD = 3'd4, W_RSP = 3'd5, W_WALK = 3'd6;
    reg [2:0]    w_st;
    reg          w_cqe;             // W_SENT: the write is a CQE
    reg          wpend;             // the write's beat is due (wrst only)
    reg [511:0]  wbeat;
    reg [511:0]  l_line;            // a table line read
    reg          l_err;             // ... answered with an error
    reg [CW-1:0] w_c;
    reg          w_fin;             // the record is the last one of a stop
    reg          w_rx;              // the CQE is the receive path's
    reg [63:0]   w_c1;              // CQE word 1
    reg [63:0]   w_c2;              // ... word 2
    // the CQEs handed over (the send engine's cb_*, the receive path's
    // rb_*) wait in registers for the writer, so that no producer's valid
    // and context reach the writer's decisions in the cycle they are
    // handed over; a receive CQE held counts against its CQ's room
    reg          cb_v, rb_v;
    reg [CW-1:0] cb_ctx, rb_ctx;
    reg [63:0]   cb_w0, cb_w1, rb_w0, rb_w1, rb_w2;
    reg [15:0] ctx_sel, owner_sel;
    wire       sel_ok = ctx_sel != 16'd0 && ctx_sel < N16;
    wire [CW-1:0] s = ctx_sel[CW-1:0];

    // ---- owner tables -------------------------------------------------------
    reg [CW-1:0]     qown [0:QP_NUM-1];
    reg [QP_NUM-1:0] qown_v;            // entry written since reset
    reg [QP_NUM-1:0] qflushed;          // DMAQ_QP_OWNER.flushed
    reg [CW-1:0]     town [0:7];
    wire             osel_ok = owner_sel < QP_NUM;
    // a context's SQ consumer index, the engine's while it serves it
    wire [31:0]      s_cons = (u_cons_we && q_ctx == s) ? u_cons : sqc_m[s];
    wire [QP_AW-1:0] oq = owner_sel[QP_AW-1:0];
    wire [15:0]      own_sel_ctx = (osel_ok && qown_v[oq]) ? {{(16-CW){1'b0}}, qown[oq]} : 16'd0;
    assign own_qp_ctx  = qown_v[own_qpn] ? {{(16-CW){1'b0}}, qown[own_qpn]} : 16'd0;
    assign own_grp_ctx = {{(16-CW){1'b0}}, town[own_grp]};
    assign rx_own_qp   = qown_v[rx_qpn] ? qown[rx_qpn] : {CW{1'b0}};
    assign rx_own_grp  = town[rx_qpn[2:0]];
    wire a_t2own = {addr[15:6], 6'd0} == T2_OWN0;

    // ---- DMAQ_CTX_OST: the slots a context's packets hold in the IP --------
    // (a wire per context, so that the readers see every change; the
    // slots' counts added as a tree, pairs of pairs, not one after another)
    localparam      OT = 1 << $clog2(FL_N);     // FL_N rounded up to a power of 2
    wire [15:0]     o_used [0:NCTX-1];
    wire [NCTX-1:0] o_room;
    genvar          og;
    generate
        for (og = 0; og < NCTX; og = og + 1) begin : g_ost
            reg [15:0] t [1:2*OT-1];    // node j sums nodes 2j and 2j+1
            integer k;
            always @* begin
                for (k = 0; k < OT; k = k + 1)
                    t[OT + k] = (k < FL_N && ost_ctx[CW*(k % FL_N) +: CW] == og[CW-1:0]) ?
                                {6'd0, ost_out[10*(k % FL_N) +: 10]} : 16'd0;
                for (k = OT - 1; k >= 1; k = k - 1)
                    t[k] = t[2*k] + t[2*k+1];
            end
            assign o_used[og] = t[1];
            assign o_room[og] = ost_max[og] == 16'd0 || t[1] < ost_max[og];
        end
    endgenerate
    assign q_ost_ok = q_ctx == {CW{1'b0}} || o_room[q_ctx];

    // ---- reads --------------------------------------------------------------
    function [31:0] qsize(input [3:0] o);
        qsize = 32'd1 << o;
    endfunction

    // the read multiplexer of the register addressed; its value (rdata,
    // hit) is registered: BAR0 puts the address out a cycle before its
    // strobe (rclink_bar0), so the strobe's cycle sees the register
    reg [63:0] rv;
    reg        rhit;
    always @* begin
        rhit = 1'b1;
        rv = 64'd0;
        case (addr)
        `RCLINK_DMAQ_CTX_CAP:       rv = CAP;
        `RCLINK_DMAQ_CTX_SEL:       rv = {48'd0, ctx_sel};
        `RCLINK_DMAQ_QP_OWNER_SEL:  rv = {48'd0, owner_sel};
        `RCLINK_DMAQ_CTX_RX_HOLD:   rv = {32'd0, rx_hold};
        `RCLINK_DMAQ_QP_OWNER:
            rv = {47'd0, osel_ok && qflushed[oq], own_sel_ctx};
        `RCLINK_DMAQ_CTX_CTRL:      if (sel_ok) rv = {63'd0, en[s]};
        `RCLINK_DMAQ_CTX_STATUS:
            if (sel_ok)
                rv = {48'd0, err[s] ? cause[s] : 8'd0, 4'd0,
                      armed[s], err[s], act[s], run[s]};
        `RCLINK_DMAQ_CTX_ERR_INFO:  if (sel_ok && err[s]) rv = einfo[s];
        `RCLINK_DMAQ_CTX_SQ_BASE:   if (sel_ok) rv = sq_base[s];
        `RCLINK_DMAQ_CTX_RQ_BASE:   if (sel_ok) rv = rq_base[s];
        `RCLINK_DMAQ_CTX_CQ_BASE:   if (sel_ok) rv = cq_base[s];
        `RCLINK_DMAQ_CTX_QCFG:      if (sel_ok) rv = qcfg[s];
        `RCLINK_DMAQ_CTX_DBREC:     if (sel_ok) rv = dbrec[s];
        `RCLINK_DMAQ_CTX_AREA_TBL:  if (sel_ok) rv = tbl[s];
        `RCLINK_DMAQ_CTX_AREA_CFG:  if (sel_ok) rv = acfg[s];
        `RCLINK_DMAQ_CTX_MOD:       if (sel_ok) rv = mod[s];
        `RCLINK_DMAQ_CTX_SQ_IDX:    if (sel_ok && en[s]) rv = {s_cons, sq_prod[s]};
        `RCLINK_DMAQ_CTX_RQ_IDX:    if (sel_ok && en[s]) rv = {rq_cons[s], rq_prod[s]};
        `RCLINK_DMAQ_CTX_CQ_IDX:    if (sel_ok && en[s]) rv = {cq_cons[s], cq_prod[s]};
        `RCLINK_DMAQ_CTX_RX_NOBUF:  if (sel_ok) rv = n_nobuf[s];
        `RCLINK_DMAQ_CTX_NOT_OWNER: if (sel_ok) rv = n_not_owner[s];
        `RCLINK_DMAQ_CTX_EVENTS:    if (sel_ok) rv = n_events[s];
        `RCLINK_DMAQ_CTX_OST:       if (sel_ok) rv = {32'd0, o_used[s], ost_max[s]};
        `RCLINK_DMAQ_CTX_DB_DROP:   rv = n_db_drop;
        default: begin
            rhit = a_t2own;
            if (a_t2own)
                rv = {{(64-CW){1'b0}}, town[addr[5:3]]};
        end
        endcase
    end

    always @(posedge clk) begin
        rdata <= rv;
        hit <= rhit;
    end

    // ---- register writes ------------------------------------------------------
    wire [63:0] n_sel64  = rclink_reg_wmerge(`RCLINK_DMAQ_CTX_SEL, {48'd0, ctx_sel}, wdata, wmask);
    wire [63:0] n_osel64 = rclink_reg_wmerge(`RCLINK_DMAQ_QP_OWNER_SEL, {48'd0, owner_sel}, wdata, wmask);
    wire [63:0] n_hold64 = rclink_reg_wmerge(`RCLINK_DMAQ_CTX_RX_HOLD, {32'd0, rx_hold}, wdata, wmask);
    wire [63:0] n_own64  = rclink_reg_wmerge(`RCLINK_DMAQ_QP_OWNER, {48'd0, own_sel_ctx}, wdata, wmask);
    wire [63:0] n_town64 = rclink_reg_wmerge(addr, {{(64-CW){1'b0}}, town[addr[5:3]]}, wdata, wmask);
    wire [63:0] n_ctrl   = rclink_reg_wmerge(`RCLINK_DMAQ_CTX_CTRL, {63'd0, en[s]}, wdata, wmask) |
                           (wdata & wmask & (64'd1 << `RCLINK_DMAQ_CTX_CTRL_STOP_LSB));
    // the value a write gives the selected register (reads as 0 otherwise;
    // rdata: the register read at the address of the cycle before)
    wire [63:0] n_reg    = rclink_reg_wmerge(addr, rdata, wdata, wmask);
    wire        cfg_reg  = addr == `RCLINK_DMAQ_CTX_SQ_BASE || addr == `RCLINK_DMAQ_CTX_RQ_BASE ||
                           addr == `RCLINK_DMAQ_CTX_CQ_BASE || addr == `RCLINK_DMAQ_CTX_QCFG ||
                           addr == `RCLINK_DMAQ_CTX_DBREC || addr == `RCLINK_DMAQ_CTX_AREA_TBL ||
                           addr == `RCLINK_DMAQ_CTX_AREA_CFG;

    // the configuration check of enable: {bad, info} of the selected
    // context, registered (c_bad, c_info): its configuration changes only
    // by BAR0 writes, and a write is at least two cycles after the one
    // before it (rclink_bar0)
    reg        c_bad, c_bad_n;
    reg [63:0] c_info, c_info_n;
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
        c_bad_n = 1'b0;
        c_info_n = 64'd0;
        for (ci = 2; ci >= 0; ci = ci - 1) begin
            // the first offender counts: walk backwards, the last one wins
            if (c_b[ci][11:0] != 12'd0) begin
                c_bad_n = 1'b1;
                c_info_n = c_b[ci];
            end
            if (c_o[ci] < 4'd4 || c_o[ci] > Q_MAX_ORDER) begin
                c_bad_n = 1'b1;
                c_info_n = {60'd0, c_o[ci]};
            end
        end
        if (!c_bad_n && dbrec[s][5:0] != 6'd0) begin
            c_bad_n = 1'b1;
            c_info_n = dbrec[s];
        end else if (!c_bad_n && (acfg[s][19:0] == 20'd0 || acfg[s][19:0] > MAX_CHUNKS ||
                                  acfg[s][29:24] < CH_MIN || acfg[s][29:24] > CH_MAX)) begin
            c_bad_n = 1'b1;
            c_info_n = acfg[s];
        end else if (!c_bad_n && tbl[s][11:0] != 12'd0) begin
            c_bad_n = 1'b1;
            c_info_n = tbl[s];
        end
    end

    always @(posedge clk) begin
        c_bad <= c_bad_n;
        c_info <= c_info_n;
    end

    // ---- doorbells ------------------------------------------------------------
    // a doorbell write is taken a cycle after it comes (db_*_q), so that
    // its checks start from registers (BAR0 is at least that cycle behind:
    // it puts a register's address out a cycle before its strobe)
    reg            db_wr_q;
    reg [CW+15:0]  db_addr_q;
    reg [7:0]      db_be_q;
    reg [31:0]     db_v_q;
    always @(posedge clk) begin
        db_wr_q <= !rst && db_wr;
        db_addr_q <= db_addr;
        db_be_q <= db_be;
        db_v_q <= db_data[31:0];
    end
    wire [CW-1:0] d = db_addr_q[CW+15:16];
    wire [15:0]   d_off = db_addr_q[15:0];
    wire [31:0]   d_v = db_v_q;
    // a context whose table is being read (enable) takes its doorbells too
    wire          w_tbl = w_st == W_RD || w_st == W_RSP || w_st == W_WALK;
    wire          d_load = ld_p[d] || (w_tbl && w_c == d);
    // the contract's doorbell writes: 32 or 64 bits at a register of a user
    // context's page (the model refuses the same, shim.rst "Doorbell page")
    wire          d_fmt = (db_be_q == 8'h0f || db_be_q == 8'hff) && d != {CW{1'b0}} &&
                          {{(16-CW){1'b0}}, d} < N16 && d_off <= `RCLINK_DB_OFF_CQ_ARM;
    wire          d_drop = db_wr_q && !d_fmt;
    wire          d_ok = db_wr_q && d_fmt && (run[d] || d_load);
    wire [31:0]   d_sqsz = qsize(qcfg[d][`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_LSB]);
    wire [31:0]   d_rqsz = qsize(qcfg[d][`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_LSB]);
    wire [31:0]   d_cqsz = qsize(qcfg[d][`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB]);
    wire [31:0]   d_cons = (u_cons_we && q_ctx == d) ? u_cons : sqc_m[d];
    reg           d_bad;
    always @* begin
        d_bad = 1'b0;
        case (d_off)
        `RCLINK_DB_OFF_SQ_PROD: d_bad = d_v - d_cons > d_sqsz;
        `RCLINK_DB_OFF_RQ_PROD: d_bad = d_v - rq_cons[d] > d_rqsz;
        `RCLINK_DB_OFF_CQ_CONS: d_bad = d_v - cq_cons[d] > cq_prod[d] - cq_cons[d];
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
    wire [63:0]  l_mask = ~({64{1'b1}} << l_sh);     // (1 << l_sh) - 1, no carry
    // ... registered for the walk (W_WALK, two cycles after w_c is set;
    // the area configuration does not change while the context is enabled)
    reg [19:0]   l_nq;
    reg [63:0]   l_maskq;
    always @(posedge clk) begin
        l_nq <= l_n;
        l_maskq <= l_mask;
    end
    wire [63:0]  l_word = l_line[64 * l_i[2:0] +: 64];
    // a table read: the words from l_i to the end of its line or of the
    // table (the table is 4 KiB aligned, l_i at a line's start)
    wire [19:0]  l_left = l_n - {{(19-MW){1'b0}}, l_i};
    wire [3:0]   l_words = (l_left > 20'd8) ? 4'd8 : l_left[3:0];
    assign dma_cmd_write = w_st != W_RD;
    assign dma_cmd_addr = w_st == W_RD ? w_addr + {{(60-MW){1'b0}}, l_i, 3'd0} : w_addr;
    assign dma_cmd_len = w_st == W_RD ? {6'd0, l_words, 3'd0} :
                         w_st == W_C ? 13'd32 : 13'd16;
    assign dma_wd_valid = wpend;
    assign dma_wd_data = wbeat;
    // the write's bytes (a record at a 64-byte aligned address, a CQE at
    // a 32-byte aligned one) at their lanes of the line
    wire [255:0] w_bytes = w_st == W_C ? {w_d1, w_c2, w_c1, w_d0} : {128'd0, w_d1, w_d0};
    always @(posedge clk) begin
        if (wrst) begin
            wpend <= 1'b0;
            wbeat <= 512'd0;
        end else if (dma_cmd_valid && dma_cmd_ready && dma_cmd_write) begin
            wpend <= 1'b1;
            wbeat <= {256'd0, w_bytes} << {w_addr[5:4], 7'd0};
        end else if (wpend && dma_wd_ready) begin
            wpend <= 1'b0;
        end
    end

    // ---- the areas' sizes in bytes, from registers -------------------------------
    // (area_sz[i] follows acfg[i] a cycle later: acfg is written only
    // while the context is disabled, and it runs only after the enable
    // has read its area table, so a running context's size is always
    // acfg's; the engines' area checks start at a register, rtl.rst "LUT
    // levels")
    reg [63:0] area_sz [0:NCTX-1];
    integer    ai;
    always @(posedge clk)
        for (ai = 0; ai < NCTX; ai = ai + 1)
            area_sz[ai] <= {44'd0, acfg[ai][19:0]} << acfg[ai][29:24];

    // ---- the send engine's side ----------------------------------------------
    wire [5:0]  q_sh = acfg[q_ctx][29:24];
    wire [63:0] q_cmask = ~({64{1'b1}} << q_sh);     // (1 << q_sh) - 1
    wire [63:0] q_ci = tr_off >> q_sh;
    wire [63:0] q_crem = (64'd1 << q_sh) - (tr_off & q_cmask);
    assign q_base = sq_base[q_ctx];
    assign q_order = qcfg[q_ctx][`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_SQ_ORDER_LSB];
    assign q_run = run[q_ctx];
    assign q_prod = sq_prod[q_ctx];
    assign q_area = area_sz[q_ctx];
    assign runs = run;
    // an area offset of q_ctx through its chunk table (the engine checked
    // the piece against the area when it read the WQE)
    assign tr_bus = tmem[{q_ctx, q_ci[MW-1:0]}] + (tr_off & q_cmask);
    assign tr_rem = q_crem[31:0];

    // ---- the receive path's side --------------------------------------------
    wire [5:0]  r_sh = acfg[r_ctx][29:24];
    wire [63:0] r_cmask = ~({64{1'b1}} << r_sh);     // (1 << r_sh) - 1
    wire [63:0] r_ci = r_off >> r_sh;
    assign r_bus = tmem[{r_ctx, r_ci[MW-1:0]}] + (r_off & r_cmask);
    assign r_cstart = (r_off & r_cmask) == 64'd0;
    assign r_run = run[r_ctx];
    assign r_rq_base = rq_base[r_ctx];
    assign r_rq_order = qcfg[r_ctx][`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_RQ_ORDER_LSB];
    assign r_rq_prod = rq_prod[r_ctx];
    assign r_rq_cons = rq_cons[r_ctx];
    assign r_area = area_sz[r_ctx];
    // CQ room: free entries less the send engine's messages in flight (and
    // one it may be reading) and a receive CQE being written
    wire        w_cq = w_st == W_C || (w_st == W_SENT && w_cqe);
    wire [31:0] r_free = cq_free[r_ctx];
    wire [31:0] r_rsv = {26'd0, held[r_ctx]} +
                        ((x_new && x_ctx == r_ctx) ? 32'd1 : 32'd0) +
                        ((q_busy && q_ctx == r_ctx) ? 32'd1 : 32'd0) +
                        ((w_cq && w_rx && w_c == r_ctx) ? 32'd1 : 32'd0) +
                        ((rb_v && rb_ctx == r_ctx) ? 32'd1 : 32'd0);
    assign r_room = (r_free > r_rsv) ? r_free - r_rsv : 32'd0;
    // (r_room != 0 without the subtraction)
    assign r_room_ok = r_free > r_rsv;

    // per context: ready to be served (running, a WQE posted, room in its
    // CQ for one more message than it has in flight), in flight (the
    // stop waits), a record to write first (its SQ consumer moved)
    reg [NCTX-1:0] rdy, bsy, dirty;
    reg [NCTX-1:0] kfull;               // no room for a receive CQE
    reg [31:0]     t_cons, t_room;
    integer        ui;
    always @* begin
        rdy = {NCTX{1'b0}};
        bsy = {NCTX{1'b0}};
        dirty = {NCTX{1'b0}};
        kfull = {NCTX{1'b0}};
        for (ui = 1; ui < NCTX; ui = ui + 1) begin
            t_cons = (u_cons_we && q_ctx == ui[CW-1:0]) ? u_cons : sqc_m[ui];
            t_room = cq_free[ui];
            kfull[ui] = t_room <= {26'd0, held[ui]};
            // (a receive CQE being written takes its entry; a packet being
            // received holds the room it counted)
            rdy[ui] = run[ui] && !park[ui] && t_cons != sq_prod[ui] && o_room[ui] &&
                      !(r_busy && r_ctx == ui[CW-1:0]) &&
                      t_room > {26'd0, held[ui]} + ((x_new && x_ctx == ui[CW-1:0]) ? 32'd1 : 32'd0) +
                               ((w_cq && w_rx && w_c == ui[CW-1:0]) ? 32'd1 : 32'd0) +
                               ((rb_v && rb_ctx == ui[CW-1:0]) ? 32'd1 : 32'd0);
            bsy[ui] = held[ui] != 6'd0 || (x_new && x_ctx == ui[CW-1:0]) ||
                      (q_busy && q_ctx == ui[CW-1:0]) ||
                      (r_busy && r_ctx == ui[CW-1:0]) || r_flushing[ui] ||
                      (rcqe_valid && rcqe_ctx == ui[CW-1:0]) ||
                      (rb_v && rb_ctx == ui[CW-1:0]) ||
                      (w_cq && w_c == ui[CW-1:0]);
            dirty[ui] = rec_sq[ui] != t_cons || rec_rq[ui] != rq_cons[ui];
        end
    end
    // round robin from the one after the last served: one-hot (u_oh, a
    // ready context with no ready one between rr and it), then the index
    // and the consumer index picked as an OR of the one-hot's terms
    function integer u_pos(input integer x, input integer r);
        // x's turn after r (0: the next one); contexts 1..NCTX-1
        u_pos = (x > r) ? x - r - 1 : x + NCTX - 2 - r;
    endfunction
    reg [NCTX-1:0] u_oh;
    reg [31:0]     u_pc;
    integer        uk, uj;
    always @* begin
        u_oh = {NCTX{1'b0}};
        for (uj = 1; uj < NCTX; uj = uj + 1) begin
            u_oh[uj] = rdy[uj];
            for (uk = 1; uk < NCTX; uk = uk + 1)
                if (uk != uj && rdy[uk] &&
                    u_pos(uk, {{(32-CW){1'b0}}, rr}) < u_pos(uj, {{(32-CW){1'b0}}, rr}))
                    u_oh[uj] = 1'b0;
        end
        u_any = u_oh != {NCTX{1'b0}};
        u_pick = {CW{1'b0}};
        u_pc = 32'd0;
        for (uj = 1; uj < NCTX; uj = uj + 1)
            if (u_oh[uj]) begin
                u_pick = u_pick | uj[CW-1:0];
                u_pc = u_pc | ((u_cons_we && q_ctx == uj[CW-1:0]) ? u_cons : sqc_m[uj]);
            end
    end
    assign u_pick_cons = u_pc;

    // the writer's next job: a record before a CQE of a context whose
    // consumer moved, the record of a stop (or enable), the CQE, a record
    // of a running context whose consumer moved
    wire [CW-1:0] d_pick;
    wire          d_any;
    assign {d_any, d_pick} = lowest(dirty & run);
    // the CQE: the send engine's first, else the receive path's (dropped
    // for a context no longer active or without room for it)
    wire [CW-1:0] k_ctx = cb_v ? cb_ctx : rb_ctx;
    wire [31:0]   c_size = qsize(qcfg[k_ctx][`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB]);
    wire [31:0]   c_prod = cq_prod[k_ctx];
    wire          k_drop = !cb_v && rb_v && (!act[rb_ctx] || kfull[rb_ctx]);
    wire          k_valid = cb_v || (rb_v && !k_drop);
    // the record before the CQE does not wait for the room check (k_live:
    // a CQE of an active context; one dropped for room may follow a record)
    wire          k_live = cb_v || (rb_v && act[rb_ctx]);
    wire          c_rec = k_live && dirty[k_ctx];
    wire          w_rec = c_rec || r_any || (!k_live && d_any);
    wire [CW-1:0] rec_c = c_rec ? k_ctx : r_any ? r_pick : d_pick;
    wire [31:0]   rec_cons = (u_cons_we && q_ctx == rec_c) ? u_cons : sqc_m[rec_c];
    assign cqe_ready = !cb_v;
    assign rcqe_ready = !rb_v;
    wire          cb_take = w_st == W_IDLE && !l_any && cb_v && !c_rec && !r_any;
    wire          rb_take = w_st == W_IDLE && !l_any && !cb_v && rb_v &&
                            (k_drop || (!c_rec && !r_any));
    wire [63:0]   c_w3 = ({63'd0, (c_prod & c_size) == 32'd0} << `RCLINK_CQE_PHASE_LSB) |
                         ({32'd0, c_prod} << `RCLINK_CQE_SEQ_LSB);
    // a CQE written: the armed CQ's event once DMAQ_CTX_MOD.count CQEs
    // from the armed index are there
    wire [31:0]   w_p1 = cq_prod[w_c] + 32'd1;
    wire [15:0]   w_cnt = mod[w_c][`RCLINK_DMAQ_CTX_MOD_COUNT_MSB:`RCLINK_DMAQ_CTX_MOD_COUNT_LSB];
    wire [31:0]   w_need = (w_cnt == 16'd0) ? 32'd1 : {16'd0, w_cnt};
    wire [15:0]   w_usec = mod[w_c][`RCLINK_DMAQ_CTX_MOD_USEC_MSB:`RCLINK_DMAQ_CTX_MOD_USEC_LSB];
    // a write sent: the record's or CQE's completion below
    wire          w_done = w_st == W_SENT && wr_idle;
    assign idle_want = w_st == W_SENT;
    wire          w_cqe_done = w_done && w_cqe;

    // ---- the CQs' free entries, from registers ----------------------------------
    // cq_free[i] is qsize(CQ order) - (cq_prod[i] - cq_cons[i]) of this
    // cycle, computed a cycle ahead from the values those take at the
    // clock edge: the writer's CQE, an enable's and a disable's clears,
    // the CQ_CONS doorbell, a QCFG write, in the order the clocked block
    // below writes them (a later one wins); the room checks (the receive
    // path's r_room, r_room_ok, the round robin's) start at a register
    reg [31:0] cf_p [0:NCTX-1];
    reg [31:0] cf_c [0:NCTX-1];
    reg [3:0]  cf_o [0:NCTX-1];
    integer    cf;
    always @* begin
        for (cf = 0; cf < NCTX; cf = cf + 1) begin
            cf_p[cf] = cq_prod[cf];
            cf_c[cf] = cq_cons[cf];
            cf_o[cf] = qcfg[cf][`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB];
            if (rst) begin
                cf_p[cf] = 32'd0;
                cf_c[cf] = 32'd0;
                cf_o[cf] = 4'd0;
            end else begin
                if (w_st == W_SENT && w_done && w_cqe && w_c == cf[CW-1:0])
                    cf_p[cf] = w_p1;
                if (wr && addr == `RCLINK_DMAQ_CTX_CTRL && sel_ok && s == cf[CW-1:0]) begin
                    if (n_ctrl[0] && !en[s]) begin
                        cf_p[cf] = 32'd0;
                        cf_c[cf] = 32'd0;
                    end else if (!n_ctrl[0] && en[s]) begin
                        cf_c[cf] = 32'd0;
                    end
                end
                if (wr && addr == `RCLINK_DMAQ_CTX_QCFG && sel_ok && !en[s] && s == cf[CW-1:0])
                    cf_o[cf] = n_reg[`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB];
                if (d_ok && !d_bad && d_off == `RCLINK_DB_OFF_CQ_CONS && d == cf[CW-1:0])
                    cf_c[cf] = d_v;
            end
        end
    end
    always @(posedge clk)
        for (cf = 0; cf < NCTX; cf = cf + 1)
            cq_free[cf] <= qsize(cf_o[cf]) - (cf_p[cf] - cf_c[cf]);
`ifndef SYNTHESIS
`ifndef VERILATOR
    // synthesis translate_off
    // In simulation (the vectors, the cocotb benches) the mirror above is
    // checked against the expression it stands for in every cycle: a
    // write of cq_prod, cq_cons or QCFG added below without its twin
    // above stops the simulation.
    integer cfk;
    always @(posedge clk)
        if (!rst)
            for (cfk = 0; cfk < NCTX; cfk = cfk + 1)
                if (cq_free[cfk] !== qsize(qcfg[cfk][`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB]) -
                                    (cq_prod[cfk] - cq_cons[cfk])) begin
                    $display("ERROR rclink_ctx: cq_free[%0d] %0d, want %0d", cfk,
                             cq_free[cfk], qsize(qcfg[cfk][`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_MSB:`RCLINK_DMAQ_CTX_QCFG_CQ_ORDER_LSB]) -
                                           (cq_prod[cfk] - cq_cons[cfk]));
                    $finish;
                end
    // synthesis translate_on
`endif
`endif

    assign hold = ld_p != {NCTX{1'b0}} || w_tbl ||
                  rec_first != {NCTX{1'b0}};

    // ---- events ---------------------------------------------------------------
    wire [CW-1:0] e_pick;
    wire          e_any;
    assign {e_any, e_pick} = lowest(ev_err_p | ev_cq_p);
    wire          e_err = ev_err_p[e_pick];

    // the data path's error (send engine, receive path): the context stops,
    // then the record and the event
    task fail;
        input [CW-1:0] c;
        input [7:0]    why;
        input [63:0]   info;
        begin
            if (en[c] && !err[c] && run[c]) begin
                run[c] <= 1'b0;
                armed[c] <= 1'b0;
                err[c] <= 1'b1;
                cause[c] <= why;
                einfo[c] <= info;
                stop_p[c] <= 1'b1;
                rec_ev[c] <= 1'b1;
            end
        end
    endtask

    integer i;
    always @(posedge clk) begin
        if (rst) begin
            ctx_sel <= 16'd0;
            owner_sel <= 16'd0;
            rx_hold <= HOLD_RST[31:0];
            n_db_drop <= 64'd0;
            qown_v <= {QP_NUM{1'b0}};
            qflushed <= {QP_NUM{1'b0}};
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
                sqc_m[i] <= 32'd0;
                cq_prod[i] <= 32'd0;
                arm_idx[i] <= 32'd0;
                rec_sq[i] <= 32'd0;
                held[i] <= 6'd0;
                n_not_owner[i] <= 64'd0;
                rq_cons[i] <= 32'd0;
                rec_rq[i] <= 32'd0;
                n_nobuf[i] <= 64'd0;
            end
            own_chg <= 1'b0;
            own_chg_qpn <= {QP_AW{1'b0}};
            w_rx <= 1'b0;
            stop_p <= {NCTX{1'b0}};
            rr <= NCTX[CW-1:0] - 1'b1;
            park <= {NCTX{1'b0}};
            us_pre <= 16'd0;
            for (i = 0; i < NCTX; i = i + 1)
                tm_left[i] <= 17'd0;
            w_fin <= 1'b0;
            w_c1 <= 64'd0;
            w_c2 <= 64'd0;
            cb_v <= 1'b0;
            rb_v <= 1'b0;
            cb_ctx <= {CW{1'b0}};
            rb_ctx <= {CW{1'b0}};
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
            dma_cmd_valid <= 1'b0;
            w_cqe <= 1'b0;
            l_line <= 512'd0;
            l_err <= 1'b0;
            ev_valid <= 1'b0;
            ev_src <= 8'd0;
            ev_info <= 64'd0;
        end else begin
            own_chg <= 1'b0;
            // the CQEs handed over, until the writer takes them
            if (cqe_valid && !cb_v) begin
                cb_v <= 1'b1;
                cb_ctx <= cqe_ctx;
                cb_w0 <= cqe_w0;
                cb_w1 <= cqe_w1;
            end else if (cb_take) begin
                cb_v <= 1'b0;
            end
            if (rcqe_valid && !rb_v) begin
                rb_v <= 1'b1;
                rb_ctx <= rcqe_ctx;
                rb_w0 <= rcqe_w0;
                rb_w1 <= rcqe_w1;
                rb_w2 <= rcqe_w2;
            end else if (rb_take) begin
                rb_v <= 1'b0;
            end
            // a parked context waits for its SQ_PROD to move (the doorbell
            // below, which wins over a park of the same cycle: the engine
            // saw the old value); a context not running forgets it
            if (u_park)
                park[q_ctx] <= 1'b1;
            for (i = 1; i < NCTX; i = i + 1)
                if (!run[i])
                    park[i] <= 1'b0;
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
                    dma_cmd_valid <= 1'b1;
                    w_st <= W_RD;
                end else if (w_rec) begin
                    w_c <= rec_c;
                    w_addr <= dbrec[rec_c];
                    w_d0 <= {rq_cons[rec_c], rec_cons};
                    rec_rq[rec_c] <= rq_cons[rec_c];
                    w_d1 <= {48'd0, err[rec_c] ? cause[rec_c] : 8'd0, 7'd0, err[rec_c]};
                    rec_sq[rec_c] <= rec_cons;
                    w_fin <= !c_rec && r_any;
                    if (!c_rec && r_any)
                        rec_p[r_pick] <= 1'b0;
                    w_cqe <= 1'b0;
                    dma_cmd_valid <= 1'b1;
                    w_st <= W_W;
                end else if (k_valid) begin
                    // a CQE: words 0-2 and word 3 (SEQ, PHASE) in one write
                    w_c <= k_ctx;
                    w_rx <= !cb_v;
                    w_addr <= cq_base[k_ctx] + {27'd0, c_prod & (c_size - 32'd1), 5'd0};
                    w_d0 <= cb_v ? cb_w0 : rb_w0;
                    w_c1 <= cb_v ? cb_w1 : rb_w1;
                    w_c2 <= cb_v ? 64'd0 : rb_w2;
                    w_d1 <= c_w3;
                    w_cqe <= 1'b1;
                    dma_cmd_valid <= 1'b1;
                    w_st <= W_C;
                end
            W_W, W_C: begin
                if (dma_cmd_valid && dma_cmd_ready)
                    dma_cmd_valid <= 1'b0;
                if (wpend && dma_wd_ready)
                    w_st <= W_SENT;
            end
            W_SENT:
                // the engine has sent the write: it is done
                if (w_done) begin
                    w_st <= W_IDLE;
                    if (!w_cqe && w_fin) begin
                        rec_first[w_c] <= 1'b0;
                        // written a last time: nothing more is read or written
                        if (!run[w_c] && !rec_p[w_c] && !stop_p[w_c])
                            act[w_c] <= 1'b0;
                        if (rec_ev[w_c]) begin
                            rec_ev[w_c] <= 1'b0;
                            ev_err_p[w_c] <= 1'b1;
                        end
                    end
                    if (w_cqe) begin
                        cq_prod[w_c] <= w_p1;
                        if (armed[w_c] && w_p1 - arm_idx[w_c] >= w_need) begin
                            armed[w_c] <= 1'b0;
                            ev_cq_p[w_c] <= 1'b1;
                        end else if (armed[w_c] && w_usec != 16'd0 && tm_left[w_c] == 17'd0) begin
                            // the timer: usec after this CQE (one more tick,
                            // since the tick's phase is not this CQE's)
                            tm_left[w_c] <= {1'b0, w_usec} + 17'd1;
                        end
                    end
                end
            W_RD:
                if (dma_cmd_ready) begin
                    dma_cmd_valid <= 1'b0;
                    l_err <= 1'b0;
                    w_st <= W_RSP;
                end
            W_RSP:
                // the line's beat (one: the read does not cross a line)
                if (dma_rd_valid) begin
                    l_line <= dma_rd_data;
                    l_err <= l_err || dma_rd_err;
                    if (dma_rd_last)
                        w_st <= W_WALK;
                end
            W_WALK:
                if (l_err || (l_word & l_maskq) != 64'd0) begin
                    // unreadable table (its address), a chunk not
                    // aligned to its size (its index): CONFIG
                    err[w_c] <= 1'b1;
                    cause[w_c] <= C_CONFIG;
                    einfo[w_c] <= l_err ? tbl[w_c] : {{(63-MW){1'b0}}, l_i};
                    act[w_c] <= 1'b0;
                    w_st <= W_IDLE;
                end else begin
                    tmem[{w_c, l_i[MW-1:0]}] <= l_word;
                    if ({{(19-MW){1'b0}}, l_i} + 20'd1 == l_nq) begin
                        // the context runs
                        run[w_c] <= en[w_c];
                        act[w_c] <= en[w_c];
                        rec_p[w_c] <= en[w_c];
                        rec_first[w_c] <= en[w_c];
                        w_st <= W_IDLE;
                    end else begin
                        l_i <= l_i + 1'b1;
                        if (l_i[2:0] == 3'd7) begin
                            // the next line
                            dma_cmd_valid <= 1'b1;
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
                    {cq_prod[e_pick], 16'd0, {(16-CW){1'b0}}, e_pick};
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
                `RCLINK_DMAQ_CTX_RX_HOLD:  rx_hold <= n_hold64[31:0];
                `RCLINK_DMAQ_QP_OWNER: begin
                    // a QP >= QP_NUM selects nothing, an owner >= NCTX is
                    // not written; any write clears flushed
                    if (osel_ok && n_own64[15:0] < N16) begin
                        qown[oq] <= n_own64[CW-1:0];
                        qown_v[oq] <= 1'b1;
                        // a new owner: the old one's open receive ends
                        own_chg <= n_own64[15:0] != own_sel_ctx;
                        own_chg_qpn <= oq;
                    end
                    if (osel_ok)
                        qflushed[oq] <= 1'b0;
                end
                `RCLINK_DMAQ_CTX_CTRL:
                    if (sel_ok) begin
                        if (n_ctrl[`RCLINK_DMAQ_CTX_CTRL_STOP_LSB] && run[s]) begin
                            // stop: the last record, then active clears
                            run[s] <= 1'b0;
                            armed[s] <= 1'b0;
                            stop_p[s] <= 1'b1;
                        end
                        if (n_ctrl[0] && !en[s]) begin
                            en[s] <= 1'b1;
                            sq_prod[s] <= 32'd0;
                            rq_prod[s] <= 32'd0;
                            cq_cons[s] <= 32'd0;
                            sqc_m[s] <= 32'd0;
                            cq_prod[s] <= 32'd0;
                            rec_sq[s] <= 32'd0;
                            rq_cons[s] <= 32'd0;
                            rec_rq[s] <= 32'd0;
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
                                stop_p[s] <= 1'b1;
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
            if (d_drop)
                n_db_drop <= n_db_drop + 64'd1;
            if (d_ok) begin
                if (d_bad) begin
                    run[d] <= 1'b0;
                    armed[d] <= 1'b0;
                    err[d] <= 1'b1;
                    cause[d] <= C_DOORBELL;
                    einfo[d] <= {32'd0, d_v};
                    stop_p[d] <= 1'b1;
                    rec_ev[d] <= 1'b1;
                end else begin
                    case (d_off)
                    `RCLINK_DB_OFF_SQ_PROD: begin
                        sq_prod[d] <= d_v;
                        if (d_v != sq_prod[d])
                            park[d] <= 1'b0;
                    end
                    `RCLINK_DB_OFF_RQ_PROD: rq_prod[d] <= d_v;
                    `RCLINK_DB_OFF_CQ_CONS: cq_cons[d] <= d_v;
                    `RCLINK_DB_OFF_CQ_ARM:
                        // one shot; CQEs from d_v on already written: the
                        // event at once
                        if (cq_prod[d] - d_v - 32'd1 < d_cqsz) begin
                            armed[d] <= 1'b0;
                            ev_cq_p[d] <= 1'b1;
                        end else begin
                            armed[d] <= 1'b1;
                            arm_idx[d] <= d_v;
                        end
                    default: ;
                    endcase
                end
            end

            // ---- the moderation timers: the event when one runs out
            us_pre <= us_tick ? 16'd0 : us_pre + 16'd1;
            for (i = 1; i < NCTX; i = i + 1)
                if (!armed[i] || (d_ok && !d_bad && d_off == `RCLINK_DB_OFF_CQ_ARM &&
                                  d == i[CW-1:0])) begin
                    // disarmed, or armed anew: no timer
                    tm_left[i] <= 17'd0;
                end else if (us_tick && tm_left[i] != 17'd0) begin
                    tm_left[i] <= tm_left[i] - 17'd1;
                    if (tm_left[i] == 17'd1) begin
                        armed[i] <= 1'b0;
                        ev_cq_p[i] <= 1'b1;
                    end
                end

            // ---- the send engine's reports
            if (u_cons_we && q_ctx != {CW{1'b0}})
                sqc_m[q_ctx] <= u_cons;
            if (u_take)
                rr <= u_pick;
            for (i = 1; i < NCTX; i = i + 1)
                held[i] <= held[i] + ((x_new && x_ctx == i[CW-1:0]) ? 6'd1 : 6'd0) -
                           ((w_cqe_done && !w_rx && w_c == i[CW-1:0]) ? 6'd1 : 6'd0) -
                           ((quiet_done && quiet_ctx == i[CW-1:0]) ? 6'd1 : 6'd0);
            // the receive path's reports
            if (r_take)
                rq_cons[r_ctx] <= rq_cons[r_ctx] + 32'd1;
            if (r_nobuf)
                n_nobuf[r_ctx] <= n_nobuf[r_ctx] + 64'd1;
            if (r_fail)
                fail(r_ctx, r_cause, r_info);
            if (x_not_owner && x_ctx != {CW{1'b0}})
                n_not_owner[x_ctx] <= n_not_owner[x_ctx] + 64'd1;
            if (x_fail)
                fail(x_ctx, x_cause, x_info);
            // a stop flushed unacknowledged packets of a QP: the PSN
            // sequence has a hole (DMAQ_QP_OWNER.flushed)
            for (i = 0; i < FL_N; i = i + 1)
                if (fl_v[i])
                    qflushed[fl_qpn[QP_AW*i +: QP_AW]] <= 1'b1;
            // a stopping context: the last record once nothing is in flight
            for (i = 1; i < NCTX; i = i + 1)
                if (stop_p[i] && !bsy[i]) begin
                    stop_p[i] <= 1'b0;
                    rec_p[i] <= 1'b1;
                end
        end
    end
endmodule
`default_nettype wire
