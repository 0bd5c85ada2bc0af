// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: TYPE1 receive reassembly (Documentation/hw/shim.rst,
// "Receive queue").
//
// Packets arrive on RX_M in beats of 512 bits (first byte in [511:504],
// RX_M_KEEP contiguous from the top: only a packet's last beat partial,
// the shim's reading of seed 000, which states it for TX_S) into a
// packet queue of four lines (below); the first 8 bytes are the sender's
// segment header.  Per QP the engine keeps a
// context in a RAM of QP_NUM entries: message open, its length and
// offset, the buffer being filled (RQ index, address, size, fill).  A
// message's first byte starts a fresh buffer; a full buffer completes
// (RECV CQE) and the next RQE is taken; the message's end completes its
// buffer with LAST.  An RQE with a size outside 64..65536 completes
// unused with BAD_WQE, an unreadable one unused with DMA_ERR (IDX its
// own, LEN 0; the next RQE takes the data, as the model's; writes are
// posted: a failed one is the root complex's to report, shim.rst).  A
// segment header out of order drops
// the packet (DMAQ_T1_RX_DROP_MALFORMED) and flushes the QP's open
// message (its buffer completes LAST, FLUSHED).
//
// DMA goes through the engine's burst interface: an RQE (both words) is
// one 16-byte read (context 0's next ones read ahead, up to a line a
// read, while a packet's data is staged), a TYPE2 dry run reads each RQE's size word; the payload
// bytes bound for one buffer are taken from the queue up to a line a cycle
// into a ring of 512-bit staging lines at their host lanes and go out as
// one write burst (up to 31 whole lines and a partial one) when the buffer
// is full, the packet's data ends or the burst is full; the engine goes on
// filling the lines after a burst while it streams, and the next burst's
// command may wait while one streams (a ring of 64 lines: a push waits
// while 62 are in use).  A CQE moves into a stage on its way to the CQ,
// where it waits until the bursts issued before it (one streaming, one
// whose command waits) have left, the engine going on meanwhile: the
// engine keeps command order, so the CQE (and the MSI-X that announces
// it) is never visible before the data.  The burst's beats
// stream from the staging memory under wrst (the hard reset) only, so a
// SHIM_RESET or an RQ disable after the command was taken leaves no
// command without its data.
//
// Disabling the RQ (rq_stop) takes effect once the engine waits for
// something from outside (an RX_M beat, a posted RQE, room in a full or
// disabled CQ) or is idle, not in the middle of a read, while a command
// waits for the port or while a CQE waits for its data's burst.  Only a
// SEND of context 0 stops in its middle (waiting for a beat, its staged
// bytes written first, or for an RQE; an RDMA or TYPE2 packet goes on to
// its end): its QP's context is written back first, so the sweep completes
// its open message FLUSHED with what it holds; a full buffer of context 0
// completes only once the next RQE is posted, so a stop while none is
// completes it LAST, FLUSHED (the model's, which stops between packets,
// does the same).  A CQE waiting for room in a full or disabled CQ at the
// stop is dropped: the engine's and the one in the CQE stage (below), so
// up to two of context 0 (the CQ writer keeps a third, rclink_cq).
//
// Nothing of context 0 is dropped for want of space: RX_M_RDY stays low
// (once the queue holds the packet's first 256 bytes, or all of a shorter
// one and the next packet's first beat) while no RQE is posted or the CQ
// is full, and FLOW_STOP is raised while
// fewer than two RQEs are posted, so the IP answers RNR.  (A user
// context's packet is taken or refused at once, below.)
//
// TYPE2 (RX_M_ETYPE 3, the group on RX_M_QPID) never waits for the host:
// a packet of a group DMAQ_T2_JOIN does not hold is consumed and counted
// (DMAQ_T2_RX_DROP_NOGROUP), so is one whose segment header is not ONLY
// for the whole packet (DMAQ_T2_RX_DROP_MALFORMED).  Otherwise the RQEs
// it needs are read ahead (a dry run, as the model's) while the packet
// waits in the queue: without enough posted buffers or CQ room for its CQEs it
// is consumed and counted (DMAQ_T2_RX_DROP_NOBUF), else it is written into
// the buffers (RECV_MCAST CQEs, QPN = the group; DMAQ_T2_RX_PKTS) while
// the CQ takes no send completion (cq_hold), so the room stays.  TYPE2
// keeps no context: each packet is a whole message.
//
// Before the room is looked at, the packet's sender is followed as in the
// model: per group T2_SRCS senders, told apart by RX_M_SA (the low 10 bits
// of the source MAC), each with the PSN it expects next (RX_M_PSN, the
// RH's).  A PSN ahead adds the gap to DMAQ_T2_RX_LOST, a PSN behind drops
// the packet (DMAQ_T2_RX_DROP_OLD); a new sender takes a free entry or
// replaces the group's entries in turn.  A group joined (its DMAQ_T2_JOIN
// bit rising) starts its senders afresh.  The table is searched one entry
// a cycle while the packet waits in the queue.
//
// User contexts (NCTX > 1, rclink_ctx; shim.rst "Contexts"): a packet of
// a QP (group) whose owner is a user context goes to that context's RQ and
// CQ.  It never waits: a dry run (the TYPE2 one, from the QP's open buffer
// on) reads its RQEs ahead while the packet waits in the queue, and without a
// running context, enough RQEs or CQ room the packet is taken from RX_M
// and dropped (DMAQ_CTX_RX_NOBUF; TYPE2 also DMAQ_T2_RX_DROP_NOBUF and its
// IRQ_INFO record).  RQE addresses are offsets into the context's area:
// checked when the RQE is taken (a size outside 64..65536 completes
// BAD_WQE, cause BAD_RQE; outside the area BAD_ADDR, cause BAD_ADDR; an
// unreadable RQE fails the context, cause DMA), translated chunk by chunk
// (a staged burst ends at a chunk's end).  The context RAM keeps the
// context a message is received for; a change of the QP's owner
// (own_chg) completes that message FLUSHED there, as does disabling
// context 0's RQ for context 0's messages only, and a user context that
// stops running (u_runs falls: stop, disable, error) for its messages: a
// scan of every QP (about 4 cycles a QP) that the context's stop waits
// for (u_flushing).
//
// RDMA responder (rtl.rst, "RDMA responder"): a TYPE1 packet whose
// segment header has an RDMA KIND brings its RDMA header in the next two
// beats.  WRITE and READ_REQ are checked against the registration table
// (rclink_mr: key, generation, owner, running, qp_only, right, bounds);
// a WRITE's data goes into the owner's area through the staging (no RQE,
// no CQE); a READ's data is read in bursts (to a 4 KiB page's end at most)
// into a packet memory
// and sent as READ_RESP packets by the send engine (dp_*); WRITE_RESP and
// refusals are queued for it (rsp_*).  A WRITE_RESP or READ_RESP that
// arrives here goes to the send engine's requests (wresp_*, rresp_*); one
// that matches none is late (DMAQ_RDMA_RX_LATE).  A READ_RESP's data the
// engine takes goes to the READ's local side through the staging (a bus
// address, or the QP's user context's area), and its last one, once
// written, completes the READ (rdone_valid).
// An IMM after a WRITE takes the owner's RQE and writes a RECV_IMM CQE
// (context 0: dropped, DMAQ_RDMA_RX_IMM_DROP).
`default_nettype none
`include "rclink_regs.vh"
module rclink_rx #(
    parameter QP_AW = 10,
    parameter QP_NUM = `RCLINK_PARAM_QP_NUM,
    parameter MAX_MSG = `RCLINK_DMAQ_CAP_RSTVAL & 64'hffffff,
    parameter T2_PKT_LEN = `RCLINK_PARAM_TYPE2_PKT_LEN,
    parameter UW = 1,                   // context number width (rclink_ctx)
    parameter NCTX = 1                  // contexts (rclink_ctx)
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] rq_base,
    input  wire [3:0]  rq_order,
    input  wire        rq_en,
    input  wire        rq_stop,
    input  wire        cq_en,
    input  wire [31:0] rq_prod,
    output reg  [31:0] rq_cons,
    output reg  [63:0] cnt_malformed,
    output reg  [63:0] cnt_nobuf,
    // TYPE2
    input  wire [7:0]  t2_join,         // DMAQ_T2_JOIN
    input  wire [31:0] cq_free,         // CQ entries free (none being written)
    output wire        cq_hold,         // the CQ takes no send completion
    output reg  [63:0] cnt_t2_pkts,
    output reg  [63:0] cnt_t2_nogroup,
    output reg  [63:0] cnt_t2_nobuf,
    output reg  [63:0] cnt_t2_malformed,
    output reg  [63:0] cnt_t2_lost,     // DMAQ_T2_RX_LOST
    output reg  [63:0] cnt_t2_old,      // DMAQ_T2_RX_DROP_OLD
    output reg         t2_nobuf,        // a TYPE2 packet dropped for want of room
    // RX_M
    input  wire        rx_vld,
    output wire        rx_rdy,
    input  wire        rx_fs,
    input  wire        rx_fe,
    input  wire [511:0] rx_dat,
    input  wire [63:0] rx_keep,
    input  wire [QP_AW-1:0] rx_qpid,
    input  wire [1:0]  rx_etype,        // 0 TYPE1, 3 TYPE2
    input  wire [12:0] rx_len,          // TYPE1_W_RX_M_LEN_O: payload bytes
    input  wire [9:0]  rx_sa,           // TYPE1_2_RX_M_SA_O (TYPE2 sender)
    input  wire [11:0] rx_psn,          // the RH's PSN (TYPE2)
    output wire [QP_AW-1:0] rx_pqpid,   // the queued packet's QP (its owners' lookup)
    output wire [3:0]  flow_stop,
    // user contexts (rclink_ctx): the owners of the RX_M packet's QP and
    // group, the view of the packet's context u_ctx
    input  wire [UW-1:0] own_qp,
    input  wire [UW-1:0] own_grp,
    input  wire        own_chg,         // the owner of QP own_chg_qpn changed
    input  wire [QP_AW-1:0] own_chg_qpn,
    input  wire [NCTX-1:0] u_runs,      // the running contexts
    output wire [NCTX-1:0] u_flushing,  // their open receives are being flushed
    output reg  [UW-1:0] u_ctx,
    output wire        u_busy,          // a packet of u_ctx is being received
    input  wire        u_run,
    input  wire [63:0] u_rq_base,
    input  wire [3:0]  u_rq_order,
    input  wire [31:0] u_rq_prod,
    input  wire [31:0] u_rq_cons,
    input  wire [31:0] u_room,          // CQEs it may still take
    input  wire        u_room_ok,       // u_room != 0
    input  wire [63:0] u_area,          // the area's size
    output wire [63:0] u_off,           // area offset -> bus address
    input  wire [63:0] u_bus,
    input  wire        u_cstart,        // u_off is at a chunk's start
    input  wire        u_bus_ok,        // u_bus is u_off's (pages: read)
    output reg         u_take,          // its RQ consumer advances
    output reg         u_nobuf,         // a packet refused (DMAQ_CTX_RX_NOBUF)
    output reg         u_fail,          // the context's error
    output reg  [7:0]  u_cause,
    output reg  [63:0] u_info,
    input  wire [31:0] u_hold_us,       // DMAQ_CTX_RX_HOLD.usec
    input  wire        us_tick,         // a microsecond
    // RDMA responder (rclink_mr): the entry a request's key names (from
    // registers, a cycle after mr_idx: the key is taken in S_RH0, checked
    // in S_RCHK), the entry being written, the responder's counters
    output wire [15:0] mr_idx,
    input  wire        mr_ok,
    input  wire [63:0] mr_base,
    input  wire [31:0] mr_len,
    input  wire [63:0] mr_ctrl,
    output reg         mr_use,              // (entry mr_tidx: a request's, or a READ's local key's)
    output reg         mr_pg,               // u_off is into the entry's pages
    output wire [15:0] mr_tidx,             // ... that entry's
    input  wire        resp_silent,         // DMAQ_RDMA_CFG.resp_silent
    output reg         c_rx_write,          // DMAQ_RDMA_RX_* pulses
    output reg         c_bad_key,
    output reg         c_access,
    output reg         c_bounds,
    output reg         c_silent,
    output reg         c_late,
    // a response for the send engine's requests: its QP, TAG and STATUS
    // (wresp_*); a WRITE_RESP (wresp_valid; wresp_hit: a WRITE waits for
    // it), a READ_RESP (rresp_*; rresp_hit: a READ waits for it, rresp_ok:
    // its data goes to rresp_base, a bus address or the QP's user
    // context's area offset, of the message offset rp_off, rresp_room
    // bytes to its piece's end), the READ's last data written (rdone_valid)
    output wire        wresp_valid,
    output wire [QP_AW-1:0] wresp_qpn,
    output wire [15:0] wresp_tag,
    output wire [7:0]  wresp_st,
    input  wire        wresp_hit,
    output wire        rresp_valid,
    output wire [31:0] rresp_off,
    output wire [31:0] rresp_mlen,
    output wire [31:0] rresp_dlen,
    output wire        rresp_ends,
    input  wire        rresp_hit,
    input  wire        rresp_ok,
    input  wire [63:0] rresp_base,
    input  wire        rresp_pg,            // ... an offset of rresp_idx's pages
    input  wire [15:0] rresp_idx,
    input  wire        rresp_lk,            // ... through a local key (its entry busy)
    input  wire [31:0] rresp_room,       // bytes of rresp_base's piece from there
    output wire [31:0] rp_off,           // the READ's message offset being written
    output reg         rdone_valid,
    output reg         rr_busy,          // a READ_RESP's data taken is being written
    output wire        rx_held,          // a packet waits on RX_M: its hold time runs
    output reg         c_imm_drop,
    // responses the send engine sends on the request's QP
    output wire        rsp_valid,
    input  wire        rsp_take,
    output wire [QP_AW-1:0] rsp_qpn,
    output wire [2:0]  rsp_kind,
    output wire [15:0] rsp_tag,
    output wire [7:0]  rsp_status,
    // a READ_RESP packet with data, built here (dp_bytes, in rows of 512
    // bits read through dp_raddr, a cycle later on dp_rdata)
    output reg         dp_valid,
    input  wire        dp_take,
    output reg  [QP_AW-1:0] dp_qpn,
    output reg  [10:0] dp_bytes,
    input  wire [4:0]  dp_raddr,
    output reg  [511:0] dp_rdata,
    input  wire        dp_done,
    output reg         c_rx_read,
    // DMA engine burst client
    input  wire        wrst,
    input  wire        wr_idle,         // no write taken is left to send
    output wire        idle_want,       // waits for wr_idle (its bursts out)
    output reg         dma_cmd_valid,
    input  wire        dma_cmd_ready,
    output reg         dma_cmd_write,
    output reg  [63:0] dma_cmd_addr,
    output reg  [12:0] dma_cmd_len,
    output wire        dma_wd_valid,
    input  wire        dma_wd_ready,
    output wire [511:0] dma_wd_data,
    input  wire        dma_rd_valid,
    input  wire [511:0] dma_rd_data,
    input  wire        dma_rd_err,
    // receive completions
    output wire        cqe_valid,       // (once the last burst's beats left)
    input  wire        cqe_ready,
    output reg  [63:0] cqe_w0,
    output reg  [63:0] cqe_w1,
    output reg  [63:0] cqe_w2,          // RECV_IMM: the immediate, else 0
    output reg  [UW-1:0] cqe_ctx        // the context whose CQ takes it
);
    localparam [7:0] ST_OK = `RCLINK_CQE_ST_OK, ST_FLUSHED = `RCLINK_CQE_ST_FLUSHED,
                     ST_BAD_WQE = `RCLINK_CQE_ST_BAD_WQE, ST_DMA_ERR = `RCLINK_CQE_ST_DMA_ERR;
    // context: {open, buf, first, idx[31:0], addr[63:0], size[16:0],
    //           fill[16:0], msg_len[31:0], msg_off[31:0]}
    //           own[UW-1:0]}: own is the context the message is for
    localparam CW = 3 + 32 + 64 + 17 + 17 + 32 + 32 + UW;
    reg [CW-1:0] ctx_mem [0:QP_NUM-1];
    reg [CW-1:0] ctx_q;
    reg          ctx_we;
    reg [QP_AW-1:0] ctx_wa;
    reg [CW-1:0] ctx_wd;
    reg [QP_AW-1:0] ctx_ra;

    always @(posedge clk) begin
        if (ctx_we)
            ctx_mem[ctx_wa] <= ctx_wd;
        ctx_q <= ctx_mem[ctx_ra];
    end

    // working copy
    reg        c_open, c_buf, c_first;
    reg [31:0] c_idx;
    reg [63:0] c_addr;
    reg [16:0] c_size, c_fill;
    reg [31:0] c_mlen, c_moff;
    reg [UW-1:0] c_own;
    wire [CW-1:0] c_pack = {c_open, c_buf, c_first, c_idx, c_addr, c_size,
                            c_fill, c_mlen, c_moff, c_own};

    localparam S_CLR = 6'd0, S_IDLE = 6'd1, S_HDR = 6'd2, S_CTX = 6'd3,
               S_CHK = 6'd4, S_DROP = 6'd5, S_BEAT = 6'd6, S_CHUNK = 6'd7,
               S_RQE0 = 6'd8, S_CQE = 6'd11,
               S_END = 6'd12, S_WAIT = 6'd13,
               S_SW1 = 6'd15, S_SW2 = 6'd16, S_SW3 = 6'd17, S_SW4 = 6'd18,
               S_T2CHK = 6'd19, S_T2RQE = 6'd20, S_T2RQW = 6'd21,
               S_T2SRC = 6'd24, S_T2PSN = 6'd25, S_T2NB = 6'd26,
               S_UCHK = 6'd27, S_OF1 = 6'd28, S_OF2 = 6'd29, S_OF3 = 6'd30,
               S_OF4 = 6'd31, S_UHOLD = 6'd32, S_RH0 = 6'd33, S_RH1 = 6'd34,
               S_RCHK = 6'd35, S_RP0 = 6'd36, S_RP1 = 6'd37, S_RP2 = 6'd38,
               S_RP4 = 6'd40, S_RP5 = 6'd41, S_RPE = 6'd42,
               S_RQ0 = 6'd43, S_IHOLD = 6'd44, S_IRQE = 6'd45;
    // staging memory: SL lines of 512 bits, the bytes at their host lanes
    // (a ring: a burst of up to 32 lines, 31 whole, streams out while the
    // next fills)
    localparam SL = 64;
    localparam T2_DATA_MAX = T2_PKT_LEN - `RCLINK_SEG_BYTES;
    reg [5:0]  st, ret;
    reg        sweep_flush;   // RQ disabled: open messages complete FLUSHED
    reg [QP_AW-1:0] qpn;
    reg [QP_AW:0]   clr;
    reg [1:0]  pos;
    reg [31:0] soff, smlen, dlen, left;
    reg        pk_held;       // the engine has the queue's packet (iq_rel lets go)
    reg        c_byp;         // S_CTX: the context is the one in the registers
    reg        msg_dead;      // DMA error: the rest of the message is dropped
    reg        t2;            // the packet is TYPE2 (qpn is its group)
    reg [31:0] t2_k;          // dry run: RQEs looked at
    reg [31:0] t2_need;       //          bytes still without a buffer
    reg [31:0] t2_cqes;       //          CQEs the packet will make
    // TYPE2 senders: entry {group, i} = {sa, next psn}, its used bit
    localparam T2_SRCS = 16;
    localparam T2_SE = 8 * T2_SRCS;
    localparam [3:0] T2_LAST = 4'd15;
    integer gi;
    reg [21:0] t2s_mem [0:T2_SE-1];
    reg [T2_SE-1:0] t2s_used;
    reg        t2s_we;
    reg [6:0]  t2s_wa;
    reg [21:0] t2s_wd;
    reg [31:0] t2s_victim;    // 4 bits a group: the entry replaced next
    reg [7:0]  t2_join_q;
    reg [9:0]  h_sa;          // the packet's sender and PSN
    reg [11:0] h_psn;
    reg [3:0]  t2_i;          // search: the entry looked at
    reg        t2_free;       //         a free entry seen, t2_fi
    reg [3:0]  t2_fi;
    wire [6:0]  t2_ea = {qpn[2:0], t2_i};
    wire [21:0] t2_e = t2s_mem[t2_ea];
    wire        t2_hit = t2s_used[t2_ea] && t2_e[21:12] == h_sa;
    wire [11:0] t2_d = h_psn - t2_e[11:0];    // PSN ahead of the expected
    wire [3:0]  t2_vi = t2s_victim[4 * qpn[2:0] +: 4];
    wire [3:0]  t2_new = t2_free ? t2_fi : (!t2s_used[t2_ea] ? t2_i : t2_vi);
    always @(posedge clk)
        if (t2s_we)
            t2s_mem[t2s_wa] <= t2s_wd;

    // the RQ of the packet's context: context 0's or a user context's
    wire        u = u_ctx != {UW{1'b0}};
    // translated: a user context's area, a registration's pages (the
    // request's key's entry, or a READ's local key's)
    wire        xl = u || mr_pg;
    reg [15:0]  rr_idx;
    assign mr_tidx = rr_busy ? rr_idx : mr_idx;
    wire [63:0] m_base = u ? u_rq_base : rq_base;
    wire [31:0] m_prod = u ? u_rq_prod : rq_prod;
    wire [31:0] m_cons = u ? u_rq_cons : rq_cons;
    wire [31:0] rq_size = 32'd1 << (u ? u_rq_order : rq_order);
    wire [31:0] posted = m_prod - m_cons;
    wire [63:0] rqe_addr = m_base + {32'd0, (m_cons & (rq_size - 32'd1))} * 64'd16;
    wire [31:0] m_cq_free = u ? u_room : cq_free;
    // owner changes to handle: a message open for the old owner ends
    // (none without user contexts: NCTX 1 keeps no bitmap)
    reg  [QP_NUM-1:0] ofl_r;
    wire [QP_NUM-1:0] ofl = (NCTX > 1) ? ofl_r : {QP_NUM{1'b0}};
    reg  [QP_AW-1:0]  ofi;
    wire        ofl_any = ofl != {QP_NUM{1'b0}};
    // contexts that stopped: a scan of every QP flushes their messages
    reg  [NCTX-1:0] run_q, sfl, sc_mask;
    reg         sc_on, of_hit;
    wire [NCTX-1:0] run_fell = run_q & ~u_runs;
    wire [NCTX-1:0] u_fl_scan = run_fell | sfl | (sc_on ? sc_mask : {NCTX{1'b0}});

    // a user context's TYPE1 packet without room waits (DMAQ_CTX_RX_HOLD)
    reg        held;          // it waits: its time runs (hold_left)
    reg [31:0] hold_left;     // microseconds left
    reg [31:0] h_prod, h_room;    // the room its last dry run saw
    reg        h_ochg;        // its QP changed owner meanwhile
    // FLOW_STOP: context 0's (fewer than two RQEs), on every bank while a
    // user context's packet waits
    wire [31:0] k_posted = rq_prod - rq_cons;
    assign flow_stop = (!held && rq_en && k_posted >= 32'd2) ? 4'd0 : 4'hf;
    assign rx_held = held;
    // ---- RDMA responder ---------------------------------------------------------
    // A TYPE1 packet whose segment header has an RDMA KIND: the RDMA
    // header follows (16 bytes), then a WRITE's data, which goes into
    // the owner context's area through the staging below, with no RQE and
    // no CQE.  Per QP: {open, failed, done, tag} of the WRITE being
    // received (cleared by the reset sweep).
    localparam [2:0] K_WRITE = `RCLINK_SEG_KIND_WRITE, K_READ_REQ = `RCLINK_SEG_KIND_READ_REQ,
                     K_READ_RESP = `RCLINK_SEG_KIND_READ_RESP,
                     K_WRITE_RESP = `RCLINK_SEG_KIND_WRITE_RESP, K_IMM = `RCLINK_SEG_KIND_IMM;
    localparam [7:0] ST_REM_KEY = `RCLINK_CQE_ST_REM_KEY,
                     ST_REM_ACCESS = `RCLINK_CQE_ST_REM_ACCESS,
                     ST_REM_BOUNDS = `RCLINK_CQE_ST_REM_BOUNDS,
                     ST_BAD_ADDR = `RCLINK_CQE_ST_BAD_ADDR;
    localparam RDMA_HDR = `RCLINK_SEG_BYTES + `RCLINK_RDMAH_BYTES;
    reg        rd;            // the packet is of an RDMA kind
    reg [2:0]  h_kind;
    reg [12:0] plen;          // its payload bytes (RX_M_LEN)
    reg [31:0] rkey;
    reg [15:0] rtag;
    reg [7:0]  rstat;      // RDMAH.STATUS (a response's)
    reg [63:0] raddr;
    assign wresp_valid = st == S_RCHK && h_kind == K_WRITE_RESP;
    assign rresp_valid = st == S_RCHK && h_kind == K_READ_RESP;
    assign rresp_off = soff;
    assign rresp_mlen = smlen;
    assign rresp_dlen = left;
    assign wresp_qpn = qpn;
    assign wresp_tag = rtag;
    assign wresp_st = rstat;
    reg [18:0] rs_mem [0:QP_NUM-1];
    wire [18:0] rs_q = rs_mem[qpn];
    reg         rs_we;        // one write port (written a cycle later)
    reg [QP_AW-1:0] rs_wa;
    reg [18:0]  rs_wd;
    always @(posedge clk)
        if (rs_we)
            rs_mem[rs_wa] <= rs_wd;
    task rs_put;
        input [QP_AW-1:0] a;
        input [18:0]      d;
        begin
            rs_we <= 1'b1;
            rs_wa <= a;
            rs_wd <= d;
        end
    endtask
    wire       rs_open = rs_q[18], rs_failed = rs_q[17], rs_done = rs_q[16];
    wire [15:0] rs_tag = rs_q[15:0];
    assign mr_idx = rkey[`RCLINK_MR_KEY_INDEX_MSB:`RCLINK_MR_KEY_INDEX_LSB];
    wire [7:0]  m_gen = mr_ctrl[`RCLINK_DMAQ_MR_CTRL_GEN_MSB:`RCLINK_DMAQ_MR_CTRL_GEN_LSB];
    wire [15:0] m_ctx = mr_ctrl[`RCLINK_DMAQ_MR_CTRL_CTX_MSB:`RCLINK_DMAQ_MR_CTRL_CTX_LSB];
    wire [15:0] m_qpn = mr_ctrl[`RCLINK_DMAQ_MR_CTRL_QPN_MSB:`RCLINK_DMAQ_MR_CTRL_QPN_LSB];
    wire        m_pages = mr_ctrl[`RCLINK_DMAQ_MR_CTRL_PAGES_LSB];
    wire        r_write = h_kind == K_WRITE;
    wire        r_start = pos == `RCLINK_SEG_ONLY || pos == `RCLINK_SEG_FIRST;
    // the responder's checks (shim.rst, "Responder"), in the model's order
    wire        r_big = {32'd0, smlen} > MAX_MSG;
    wire        r_key_bad = !mr_ok || !mr_ctrl[`RCLINK_DMAQ_MR_CTRL_VALID_LSB] ||
                            m_gen != rkey[`RCLINK_MR_KEY_GEN_MSB:`RCLINK_MR_KEY_GEN_LSB] ||
                            m_ctx != {{(16-UW){1'b0}}, u_ctx} || (u && !u_run) ||
                            (mr_ctrl[`RCLINK_DMAQ_MR_CTRL_QP_ONLY_LSB] &&
                             m_qpn != {{(16-QP_AW){1'b0}}, qpn});
    wire        r_acc_bad = !(r_write ? mr_ctrl[`RCLINK_DMAQ_MR_CTRL_REMOTE_WRITE_LSB]
                                      : mr_ctrl[`RCLINK_DMAQ_MR_CTRL_REMOTE_READ_LSB]);
    wire        r_bnd_bad = raddr > {32'd0, mr_len} ||
                            {32'd0, smlen} > {32'd0, mr_len} - raddr ||
                            (!m_pages && (mr_base > u_area ||
                                          {32'd0, mr_len} > u_area - mr_base));
    wire [7:0]  r_st = r_big ? ST_REM_BOUNDS : r_key_bad ? ST_REM_KEY :
                       r_acc_bad ? ST_REM_ACCESS : r_bnd_bad ? ST_REM_BOUNDS : ST_OK;
    wire [31:0] r_dleft = smlen - soff;
    wire [31:0] r_pdata = {19'd0, plen} - RDMA_HDR;
    wire [31:0] r_dlen = (r_pdata < r_dleft) ? r_pdata : r_dleft;
    // the response queue (RQN entries): a request waits on RX_M while it
    // is full
    localparam RQN = 4;
    reg [QP_AW+26:0] rq_mem [0:RQN-1];
    reg [1:0]  rq_wp, rq_rp;
    reg [2:0]  rq_n;
    wire       rq_full = rq_n == RQN[2:0];
    reg        rq_push;
    reg [QP_AW+26:0] rq_wd;
    assign rsp_valid = rq_n != 3'd0;
    assign {rsp_qpn, rsp_kind, rsp_tag, rsp_status} = rq_mem[rq_rp];
    always @(posedge clk) begin
        if (rst) begin
            rq_wp <= 2'd0;
            rq_rp <= 2'd0;
            rq_n <= 3'd0;
        end else begin
            if (rq_push) begin
                rq_mem[rq_wp] <= rq_wd;
                rq_wp <= rq_wp + 2'd1;
            end
            if (rsp_valid && rsp_take)
                rq_rp <= rq_rp + 2'd1;
            rq_n <= rq_n + {2'd0, rq_push} - {2'd0, rsp_valid && rsp_take};
        end
    end
    // a READ served: its data read in bursts (a packet's bytes up to the
    // end of a 4 KiB page, so never across an area chunk or a
    // registration's page), each beat packed as it comes behind the two
    // headers into the packet memory, one READ_RESP packet at a time
    localparam [31:0] PKT_DATA = `RCLINK_RDMAH_PKT_DATA;
    reg [511:0] pk_mem [0:20];
    reg         pk_we;
    reg [4:0]   pk_wa;
    reg [511:0] pk_wd;
    always @(posedge clk) begin
        if (pk_we)
            pk_mem[pk_wa] <= pk_wd;
        dp_rdata <= pk_mem[dp_raddr];
    end
    reg [31:0]  rd_left;      // bytes of the READ not yet read
    reg [31:0]  rd_off;       // ... read
    reg [31:0]  rp_left;      // bytes of this packet not yet read
    reg [12:0]  rp_cl;        // bytes of the burst in flight still to come
    reg         rp_bad;       // a beat of it failed, or the owner stopped
    reg [1023:0] racc;        // packed bytes not yet in a row
    reg [6:0]   racc_n;
    wire [31:0] rp_page = 32'd4096 - {20'd0, c_addr[11:0]};
    wire [31:0] rp_take = (rp_left < rp_page) ? rp_left : rp_page;
    // a beat: the bytes of its line from c_addr on, up to the burst's end
    wire [6:0]  rp_line = 7'd64 - {1'b0, c_addr[5:0]};
    wire [6:0]  rp_n = ({6'd0, rp_line} < rp_cl) ? rp_line : rp_cl[6:0];
    wire [31:0] rp_pkt = (rd_left < PKT_DATA) ? rd_left : PKT_DATA;
    wire [511:0] rp_bytes = (dma_rd_data >> {c_addr[5:0], 3'b000}) &
                            ((rp_n[6]) ? ~512'd0 : ~(~512'd0 << {rp_n[5:0], 3'b000}));
    wire [1023:0] rp_acc = racc | ({512'd0, rp_bytes} << {racc_n, 3'b000});
    wire [6:0]  rp_accn = racc_n + rp_n;
    wire        rp_fail = rp_bad || dma_rd_err || (u && !u_run);
    wire [63:0] rp_seg = ({62'd0, (rd_off == 32'd0) ?
                                  ((rd_left == rp_pkt) ? 2'd`RCLINK_SEG_ONLY : 2'd`RCLINK_SEG_FIRST) :
                                  ((rd_left == rp_pkt) ? 2'd`RCLINK_SEG_LAST : 2'd`RCLINK_SEG_MIDDLE)}
                          << `RCLINK_SEG_POS_LSB) |
                         ({61'd0, K_READ_RESP} << `RCLINK_SEG_KIND_LSB) |
                         ({32'd0, rd_off} << `RCLINK_SEG_OFFSET_LSB) |
                         ({32'd0, smlen} << `RCLINK_SEG_MSG_LEN_LSB);
    wire [63:0] r_rh_ok = {48'd0, rtag} << `RCLINK_RDMAH_TAG_LSB;
    task refused;             // a request refused: its cause's counter
        begin
            c_bounds <= r_st == ST_REM_BOUNDS;
            c_bad_key <= r_st == ST_REM_KEY;
            c_access <= r_st == ST_REM_ACCESS;
        end
    endtask
    task respond;             // queue a response of the shim
        input [2:0] k;
        input [7:0] status;
        begin
            rq_push <= 1'b1;
            rq_wd <= {qpn, k, rtag, status};
        end
    endtask

    // ---- staging of a write burst -------------------------------------------
    reg [511:0] sm [0:SL-1];
    reg [511:0] ln;             // the line being filled
    reg [5:0]   s_li;           // its index
    reg [5:0]   s_base;         // the burst's first line
    reg [63:0]  s_addr;         // host address of the first staged byte
    reg [12:0]  s_n;            // bytes staged
    reg         sm_we;
    reg [5:0]   sm_wa;
    reg [511:0] sm_wd;
    reg [511:0] sm_q;
    // the streamer (under wrst): beats of the burst the engine took
    reg         w_go;
    // a CQE goes to the CQ once the beats of the burst before it left (the
    // data it announces is written first)
    reg         cqe_v;
    reg  [63:0] e_w0, e_w1, e_w2;
    reg  [UW-1:0] e_ctx;
    // the last burst has not left yet: its command waits, or its beats
    wire        w_busy = w_go || (dma_cmd_valid && dma_cmd_write);
    reg  [5:0]  w_lines;        // the lines of the burst whose command waits
    reg [5:0]   w_ptr;          // (at rest: the next burst's first line)
    reg [5:0]   w_left;
    wire        w_fire = w_go && dma_wd_ready;
    wire [5:0]  sm_ra = w_fire ? w_ptr + 6'd1 : w_ptr;
    wire        w_take = dma_cmd_valid && dma_cmd_ready && dma_cmd_write;
    wire        w_end = w_fire && w_left == 6'd1;   // a burst's last beat left
    // bursts not yet out: one streaming, one whose command waits
    wire [1:0]  w_out = {1'b0, w_go} + {1'b0, dma_cmd_valid && dma_cmd_write};
    // where it will rest (a burst streaming, or taken in this cycle)
    wire [5:0]  w_next = w_go ? w_ptr + w_left : w_take ? w_ptr + w_lines : w_ptr;
    wire [5:0]  s_lines = s_li - s_base;
    assign dma_wd_valid = w_go;
    assign dma_wd_data = sm_q;
    always @(posedge clk) begin
        if (sm_we)
            sm[sm_wa] <= sm_wd;
        sm_q <= sm[sm_ra];
    end
    always @(posedge clk) begin
        if (wrst) begin
            w_go <= 1'b0;
            w_ptr <= 6'd0;
            w_left <= 6'd0;
        end else if (w_take) begin
            w_go <= 1'b1;
            w_left <= w_lines;
        end else if (w_fire) begin
            w_ptr <= w_ptr + 6'd1;
            w_left <= w_left - 6'd1;
            if (w_left == 6'd1)
                w_go <= 1'b0;
        end
    end
    // the RQE or size word a read answers with
    wire [63:0] rd_w0 = dma_rd_data[64 * dma_cmd_addr[5:3] +: 64];
    wire [2:0]  rd_l1 = dma_cmd_addr[5:3] + 3'd1;
    wire [63:0] rd_w1 = dma_rd_data[64 * rd_l1 +: 64];
    assign cq_hold = t2 && !u && st != S_IDLE && st != S_HDR;
    assign u_busy = u && st != S_IDLE && st != S_CLR;
    wire [3:0] kind = t2 ? 4'd`RCLINK_CQE_KIND_RECV_MCAST : 4'd`RCLINK_CQE_KIND_RECV;
    // the dry run reads whole RQEs: {address, size}
    wire [63:0] t2_rqe_addr = m_base + {32'd0, ((m_cons + t2_k) & (rq_size - 32'd1))} * 64'd16;
    wire [31:0] t2_take = (t2_need < rd_w1[31:0]) ? t2_need : rd_w1[31:0];
    wire        rqe_bad_size = rd_w1[31:0] < 32'd64 || rd_w1[31:0] > 32'd65536;
    wire        rqe_bad_addr = u && !(rd_w0 <= u_area && {32'd0, rd_w1[31:0]} <= u_area - rd_w0);
    wire        t2_grp_ok = {{(32-QP_AW){1'b0}}, qpn} < `RCLINK_AFH_T2_GROUPS && t2_join[qpn[2:0]];
    wire        t2_seg_ok = pos == `RCLINK_SEG_ONLY && soff == 32'd0 && smlen == dlen &&
                            dlen != 32'd0 && dlen <= T2_DATA_MAX;

    // ---- RX_M: the packet queue ----------------------------------------------
    // RX_M beats are DW = 512 bits (seed 000): the first byte in [511:504],
    // RX_M_KEEP contiguous from the top, only a packet's last beat partial.
    // The engine takes a packet's bytes from a ring of four lines (a beat
    // each, as it came: byte p of the packet in line p / 64 mod 4 at lane
    // p mod 64) read at a registered head: 8 a cycle for its headers, up to
    // a buffer line's room a cycle for its data (the realignment to host
    // lanes); a pop only moves the head.  Once done with the packet the
    // engine lets go of it (iq_rel); what is left of it then, queued or
    // still to come, is consumed here, as are beats outside a packet.  One
    // packet at a time; once its last beat entered, the next beat waits in
    // nb_* (the next packet's first, so that its header is there in the
    // cycle after iq_rel) and enters with iq_rel.
    // RX_M_RDY comes from registers only: a line free (so a beat a cycle
    // whatever the head's lane), or nb_* free.
    reg [511:0]  iq_l [0:3];      // the lines
    reg [2:0]    iq_t;            // beats entered (mod 8)
    reg [8:0]    iq_h;            // the head: the packet's next byte (mod 512)
    reg [8:0]    iq_n;            // bytes queued (0 to 256)
    reg          iq_pkt;          // a packet is queued (its first beat entered)
    reg          iq_end;          // ... and its last beat
    reg          iq_skip;         // the rest of a packet let go, or a stray, is consumed
    reg [QP_AW-1:0] iq_qpid;      // its RX_M sidebands, from its first beat
    reg [1:0]    iq_etype;
    reg [12:0]   iq_len;
    reg [9:0]    iq_sa;
    reg [11:0]   iq_psn;
    wire [2:0]   iq_used = iq_t - iq_h[8:6];      // lines holding queued bytes
    // the beat after the packet's last (RX_M's sidebands with it)
    reg          nb_v, nb_fs, nb_fe;
    reg [511:0]  nb_b;
    reg [6:0]    nb_kn;
    reg [QP_AW-1:0] nb_qpid;
    reg [1:0]    nb_etype;
    reg [12:0]   nb_len;
    reg [9:0]    nb_sa;
    reg [11:0]   nb_psn;
    wire         iq_full = iq_pkt && iq_end && !iq_skip;  // the packet's beats all in
    assign rx_rdy = iq_skip || !iq_pkt || (!iq_end && iq_used != 3'd4) || (iq_end && !nb_v);
    assign rx_pqpid = iq_qpid;
    // the 64 bytes from the head on, the next in [7:0] (past iq_n: stale)
    wire [1:0]    iq_hl = iq_h[7:6];
    wire [1:0]    iq_hl1 = iq_h[7:6] + 2'd1;
    wire [1023:0] iq_2 = {iq_l[iq_hl1], iq_l[iq_hl]};
    wire [511:0]  iq_w = iq_2[{1'b0, iq_h[5:0], 3'b000} +: 512];
    wire         q_done = iq_end && iq_n == 9'd0;    // every byte taken
    // 8 bytes for a header (fewer only at the packet's end)
    wire         v_vld = iq_pkt && (iq_n >= 9'd8 || iq_end);
    wire         v_fe = iq_end && iq_n <= 9'd8;     // ... they are its last
    wire [6:0]   v_n = (iq_n >= 9'd8) ? 7'd8 : {3'd0, iq_n[3:0]};

    // checks of the segment header against the QP's context
    wire p_start = pos == `RCLINK_SEG_ONLY || pos == `RCLINK_SEG_FIRST;
    wire p_ends  = pos == `RCLINK_SEG_ONLY || pos == `RCLINK_SEG_LAST;
    assign rresp_ends = p_ends;
    // a READ_RESP's data goes piece by piece (a context-0 READ's chain):
    // the send engine looks up the local side of its next byte
    reg  [31:0] c_rq;
    assign rp_off = c_rq;
    wire [31:0] rr_sz = (rresp_room < left) ? rresp_room : left;
    // a WRITE's last packet is answered once every write TLP of its data
    // has left the engine (wr_idle, after its last burst's beats were
    // taken), as the CQ's index and an MSI-X wait for theirs: the
    // requester's completion never comes before the data is posted
    wire w_rsp_wait = rd && p_ends && s_n == 13'd0 && (!wr_idle || w_busy);
    assign idle_want = st == S_END && rd && p_ends && s_n == 13'd0 && !w_busy;
    wire p_bad_start = soff != 32'd0 || {32'd0, smlen} > MAX_MSG ||
                       (pos == `RCLINK_SEG_ONLY ? smlen != dlen : smlen <= dlen);
    wire p_bad_cont = soff != c_moff || smlen != c_mlen ||
                      (p_ends ? soff + dlen != smlen : soff + dlen >= smlen);
    wire p_flush = p_start ? c_open : (c_open && p_bad_cont);
    wire p_drop  = p_start ? p_bad_start : (!c_open || p_bad_cont);
    wire p_cont  = !p_start && c_open && !p_bad_cont;      // the message goes on
    // the open buffer's room (a message going on), for the dry run
    wire [31:0] u_sp = (!p_start && c_buf) ? {15'd0, c_size - c_fill} : 32'd0;
    // what the dry run looks for: bytes without a buffer, CQEs
    wire [31:0] u_need = (dlen > u_sp) ? dlen - u_sp : 32'd0;
    wire [31:0] u_cqes = {31'd0, p_flush && c_buf} + {31'd0, p_ends} +
                         {31'd0, !p_start && c_buf && dlen > u_sp};

    function [6:0] keep_n;
        input [63:0] k;
        integer b;
        begin
            keep_n = 7'd0;
            for (b = 0; b < 64; b = b + 1)
                keep_n = keep_n + {6'd0, k[b]};
        end
    endfunction

    wire [63:0] seg = iq_w[63:0] & ~(~64'd0 << {v_n[3:0], 3'b000});
    // a packet's segment header: its first 8 bytes (the head is at 0 while
    // a header is taken: nothing of the packet was taken before), from the
    // queue's first line without the head's funnel
    wire [63:0] hseg = iq_l[0][63:0] & ~(~64'd0 << {v_n[3:0], 3'b000});
    // a LAST or ONLY packet padded to the TX_S minimum (SEG.PKT_MIN): its
    // data is MSG_LEN - OFFSET bytes, the rest of its beats is padding
    wire [1:0]  h_pos = hseg[`RCLINK_SEG_POS_MSB:`RCLINK_SEG_POS_LSB];
    wire [31:0] h_off = {8'd0, hseg[`RCLINK_SEG_OFFSET_MSB:`RCLINK_SEG_OFFSET_LSB]};
    wire [31:0] h_mlen = hseg[`RCLINK_SEG_MSG_LEN_MSB:`RCLINK_SEG_MSG_LEN_LSB];
    wire        h_pad = (h_pos == `RCLINK_SEG_ONLY || h_pos == `RCLINK_SEG_LAST) &&
                        {19'd0, iq_len} == `RCLINK_SEG_PKT_MIN && h_off <= h_mlen &&
                        h_mlen - h_off < {19'd0, iq_len} - 32'd8;
    wire [31:0] h_dlen = h_pad ? h_mlen - h_off : {19'd0, iq_len} - 32'd8;
    // chunk: the packet's bytes at the queue's head that go into one
    // 64-byte line of the buffer (at most 64, the data left, the line's
    // and the buffer's room)
    wire [63:0] dst = c_addr + {47'd0, c_fill};
    assign u_off = dst;
    wire [6:0]  l_room = 7'd64 - {1'b0, dst[5:0]};
    wire [16:0] b_room = c_size - c_fill;
    wire [6:0]  qa0 = (iq_n > 9'd64) ? 7'd64 : iq_n[6:0];
    wire [6:0]  qa = ({25'd0, qa0} < left) ? qa0 : left[6:0];
    wire [6:0]  n1 = (qa < l_room) ? qa : l_room;
    wire [6:0]  chunk = ({10'd0, n1} < b_room) ? n1 : b_room[6:0];
    wire [511:0] chunk_m = chunk[6] ? ~512'd0 : ~(~512'd0 << {chunk[5:0], 3'b000});
    wire [511:0] chunk_d = (iq_w & chunk_m) << {dst[5:0], 3'b000};
    wire        s_full = s_lines == 6'd31;    // the burst's 32nd line in use
    // the ring's lines from the streaming burst's on (a burst streaming,
    // the next one's command waiting, the lines being filled): a push
    // waits while 62 are in use, so a line is never written before it left
    wire        s_ring_full = s_li - w_ptr >= 6'd62;
    // S_CHUNK's choices: the staged bytes go out first, a buffer is needed
    // (its RQE, a full one's CQE), or the chunk goes into the line
    // (the staged bytes go out at a 256-byte boundary, where an MPS of
    // 128 or 256 bytes cuts TLPs anyway, s_cut, once no burst is on its
    // way or the burst nears its size limit: the bytes of the packets of
    // one message go on in bursts across the packets, e_fast)
    wire s_cut = dst[7:0] == 8'd0 && (s_lines >= 6'd28 || !w_busy);
    wire ck_flush = s_n != 13'd0 && (!c_buf || c_fill == c_size || s_full || s_cut ||
                                     (xl && u_cstart));
    wire ck_nobuf = !c_buf || c_fill == c_size;
    wire ck_push = qa != 7'd0 && !msg_dead && !ck_flush && !ck_nobuf &&
                   !(s_n == 13'd0 && xl && !u_bus_ok) && !s_ring_full;

    task cqe;                 // completion of the current buffer
        input [7:0] status;
        input       last;
        begin
            e_w0 <= ({60'd0, kind} << `RCLINK_CQE_KIND_LSB) |
                      ({56'd0, status} << `RCLINK_CQE_STATUS_LSB) |
                      ({63'd0, c_first} << `RCLINK_CQE_FIRST_LSB) |
                      ({63'd0, last} << `RCLINK_CQE_LAST_LSB) |
                      ({{(64-QP_AW){1'b0}}, qpn} << `RCLINK_CQE_QPN_LSB) |
                      ({47'd0, c_fill} << `RCLINK_CQE_LEN_LSB);
            e_w1 <= {c_mlen, c_idx};
            cqe_v <= 1'b1;
            e_ctx <= c_own;
        end
    endtask
    task ucqe;                // an RQE completed unused
        input [7:0] status;
        begin
            e_w0 <= ({60'd0, kind} << `RCLINK_CQE_KIND_LSB) |
                      ({56'd0, status} << `RCLINK_CQE_STATUS_LSB) |
                      ({{(64-QP_AW){1'b0}}, qpn} << `RCLINK_CQE_QPN_LSB);
            e_w1 <= {c_mlen, m_cons};
            cqe_v <= 1'b1;
            e_ctx <= u_ctx;
        end
    endtask
    task rqe_take;            // an RQE read (or read ahead): its buffer
        input [63:0] w0;
        input [31:0] w1;
        input        err;
        reg          bad_size, bad_addr;
        begin
            bad_size = w1 < 32'd64 || w1 > 32'd65536;
            bad_addr = u && !(w0 <= u_area && {32'd0, w1} <= u_area - w0);
            if (u)
                u_take <= 1'b1;
            else
                rq_cons <= rq_cons + 32'd1;
            c_idx <= m_cons;
            c_fill <= 17'd0;
            c_first <= c_moff == 32'd0;
            c_addr <= w0;
            c_size <= w1[16:0];
            if (u && (err || bad_size || bad_addr)) begin
                // a user context's bad RQE completes unused and
                // puts it in error; the rest of the packet is lost
                ucqe(err ? ST_DMA_ERR : bad_size ? ST_BAD_WQE :
                     `RCLINK_CQE_ST_BAD_ADDR);
                ufail(err ? `RCLINK_CTX_EVT_CAUSE_DMA :
                      bad_size ? `RCLINK_CTX_EVT_CAUSE_BAD_RQE :
                      `RCLINK_CTX_EVT_CAUSE_BAD_ADDR,
                      err ? dma_cmd_addr : {32'd0, m_cons});
                c_open <= 1'b0;
                msg_dead <= 1'b1;
                ret <= S_CHUNK;
                st <= S_CQE;
            end else if (err || bad_size) begin
                // completed unused (LEN 0, its own IDX); the data goes
                // into the next one
                e_w0 <= ({60'd0, kind} << `RCLINK_CQE_KIND_LSB) |
                          ({56'd0, err ? ST_DMA_ERR : ST_BAD_WQE} << `RCLINK_CQE_STATUS_LSB) |
                          ({{(64-QP_AW){1'b0}}, qpn} << `RCLINK_CQE_QPN_LSB);
                e_w1 <= {c_mlen, rq_cons};
                cqe_v <= 1'b1;
                e_ctx <= {UW{1'b0}};
                ret <= S_CHUNK;
                st <= S_CQE;
            end else begin
                c_buf <= 1'b1;
                st <= S_CHUNK;
            end
        end
    endtask
    // the staged bytes' write burst: its command, once the port is free
    // and the burst before has streamed; the engine goes on at once, the
    // next bytes filling the lines after the burst's (every pushed line,
    // a partial one too, is in the memory a cycle after its push, before
    // a command can be taken)
    task flush;
        begin
            if (!dma_cmd_valid) begin
                dma_cmd_valid <= 1'b1;
                dma_cmd_write <= 1'b1;
                dma_cmd_addr <= s_addr;
                dma_cmd_len <= s_n;
                w_lines <= s_lines + ((dst[5:0] != 6'd0) ? 6'd1 : 6'd0);
                ln <= 512'd0;
                s_li <= s_li + ((dst[5:0] != 6'd0) ? 6'd1 : 6'd0);
                s_base <= s_li + ((dst[5:0] != 6'd0) ? 6'd1 : 6'd0);
                s_n <= 13'd0;
            end
        end
    endtask
    task hdr_take;            // the segment header at the queue's head
        begin
            qpn <= iq_qpid;
            pos <= hseg[`RCLINK_SEG_POS_MSB:`RCLINK_SEG_POS_LSB];
            soff <= {8'd0, hseg[`RCLINK_SEG_OFFSET_MSB:`RCLINK_SEG_OFFSET_LSB]};
            smlen <= hseg[`RCLINK_SEG_MSG_LEN_MSB:`RCLINK_SEG_MSG_LEN_LSB];
            dlen <= h_dlen;
            t2 <= iq_etype == 2'd3;
            u_ctx <= (iq_etype == 2'd3) ? own_grp : own_qp;
            h_sa <= iq_sa;
            h_psn <= iq_psn;
            h_kind <= hseg[`RCLINK_SEG_KIND_MSB:`RCLINK_SEG_KIND_LSB];
            rd <= iq_etype != 2'd3 &&
                  hseg[`RCLINK_SEG_KIND_MSB:`RCLINK_SEG_KIND_LSB] != 3'd0;
            plen <= iq_len;
        end
    endtask
    task ctx_back;            // the packet's QP context back into the RAM
        begin
            ctx_we <= !t2 && !rd;
            ctx_wa <= qpn;
            ctx_wd <= c_pack;
            mr_use <= 1'b0;
            mr_pg <= 1'b0;
        end
    endtask
    task ufail;               // the packet's user context goes into error
        input [7:0]  cause;
        input [63:0] info;
        begin
            u_fail <= 1'b1;
            u_cause <= cause;
            u_info <= info;
        end
    endtask

`ifdef RCLINK_TRACE
    reg [5:0] st_q;
    always @(posedge clk) begin
        st_q <= st;
        if (st == S_CHUNK && ck_push)
            $display("%t rx: push dst %h chunk %0d bytes %h", $time, dst, chunk, iq_w & chunk_m);
        if (sm_we)
            $display("%t rx: sm[%0d] <= %h", $time, sm_wa, sm_wd[127:0]);
        if (pf_issue)
            $display("%t rx: read ahead %0d (%0d) at %h", $time, pf_ni, pf_cnt, pf_ra);
        if (pf_fill)
            $display("%t rx: read ahead %0d (%0d): %h", $time, pf_fi, pf_fc, dma_rd_data);
        if (pf_take)
            $display("%t rx: RQE %0d taken from the read ahead: %h %h", $time, rq_cons, pf_w0[pf_hd], pf_w1[pf_hd]);
        if (st != st_q && st != S_CLR && st < S_SW1)
            $display("%t rx: state %0d -> %0d qpn %0d left %0d fill %0d", $time, st_q, st, qpn, left, c_fill);
    end
`endif

    // the RQ disable waits for a point where the engine waits for input
    reg  stop_pend;
    wire at_rest = st == S_IDLE || st == S_CLR ||
                   (st >= S_SW1 && st <= S_SW4) ||
                   (!u && !(st == S_CQE && ret == S_OF4) && (
                   // (in a packet's middle: a SEND of context 0 only, its
                   // staged bytes written first; an RDMA or TYPE2 packet
                   // goes on to its end)
                   (st == S_CHUNK && !rd && !t2 && qa == 7'd0 && left != 32'd0 &&
                    !q_done && s_n == 13'd0) ||
                   (st == S_CHUNK && !rd && !t2 && qa != 7'd0 && !msg_dead && ck_nobuf &&
                    s_n == 13'd0 && !(posted != 32'd0 && posted <= rq_size)) ||
                   ((st == S_CQE || st == S_WAIT) && (cqe_v || cqo_v) &&
                    (!cq_en || cq_free == 32'd0))));
    // (not while a command waits: a burst's, or a read ahead's)
    // (nor while a CQE waits for the burst of the data it announces)
    wire stop_now = (rq_stop || stop_pend) && at_rest && !dma_cmd_valid &&
                    !(cqe_v && w_busy) && !(cqo_v && cqo_wait != 2'd0);
    always @(posedge clk) begin
        if (rst || stop_now)
            stop_pend <= 1'b0;
        else if (rq_stop)
            stop_pend <= 1'b1;
    end
    // ---- the CQE on its way to the CQ -------------------------------------------
    // The engine's CQE (cqe_v, e_*) moves into this stage at once while it
    // is free (or freed in the cycle), so the engine goes on with the next
    // packet while the CQE waits for the bursts before it: cqo_wait counts
    // those not yet out when it came (one streaming, one whose command
    // waits) down as their last beats leave; the CQ is offered the CQE
    // (and an MSI-X may announce it) only then.  The engine goes on past
    // a CQE of context 0's RECV only (cq_done, below); a TYPE2 packet,
    // whose dry run counts the CQ's room, waits in S_IDLE (at rest) while
    // the stage holds one, so the room counted is the CQ's own.  A stop
    // drops a CQE of context 0 that waits for room in a full or disabled CQ
    // (as the engine's own CQE then); a reset drops it.
    reg         cqo_v;
    reg  [1:0]  cqo_wait;
    wire        cqo_out = cqe_valid && cqe_ready;
    wire        cqo_in = cqe_v && !stop_now && (!cqo_v || cqo_out);
    // The engine waits for its CQE to reach the stage only when the CQE is
    // context 0's RECV: a user context's, counted by rclink_ctx only once
    // it holds it, and a TYPE2 one (the room its dry run counted, cq_hold)
    // are waited for until the CQ took them, as before the stage.
    wire        e_slow = e_ctx != {UW{1'b0}} || t2;
    wire        cq_done = e_slow ? !cqe_v && !cqo_v : !cqe_v || cqo_in;
    // S_WAIT may take the next packet's header at once: it is queued and
    // S_IDLE would do nothing else first (no scan, no owner change, no
    // stop), and the packet ending is not a user context's (whose send
    // engine may start that context only while u_busy is low: a cycle in
    // S_IDLE between its packets, as before), nor an RDMA packet's (S_IDLE
    // ends a READ's serving, rr_busy)
    // the queued packet may be taken (S_IDLE's last branch; TYPE2 is taken
    // even with the RQ off, a user context's packet too; TYPE2 waits while
    // a CQE is on its way: its dry run counts the CQ's room)
    wire pk_take = iq_pkt && (rq_en || iq_etype == 2'd3 || own_qp != {UW{1'b0}}) &&
                   !((cqo_v || cqo_in) && iq_etype == 2'd3);
    wire nx_pkt = !pk_held && !u && !rd && !(sfl != {NCTX{1'b0}} && !sc_on) && !ofl_any &&
                  pk_take && !stop_pend && !rq_stop;
    // ... and without S_HDR and S_CTX: a SEND of context 0 on the QP of
    // the packet ending, a SEND of context 0 too, whose context is the one
    // in the registers: its header is taken (S_HDR's work) in S_WAIT's
    // last cycle, S_CHK next
    wire nx_fast = nx_pkt && v_vld && iq_etype != 2'd3 && iq_qpid == qpn &&
                   hseg[`RCLINK_SEG_KIND_MSB:`RCLINK_SEG_KIND_LSB] == 3'd0 &&
                   own_qp == {UW{1'b0}} && !t2;
    // ... or already in S_END (then no S_WAIT): a context-0 SEND let go of
    // its packet with its last data byte (ck_last), so the next packet's
    // first beat (nb_*) is in the queue in S_END; when S_END sends no CQE
    // and leaves the context as it is (a FIRST or MIDDLE packet) and no
    // CQE is on its way (cq_done).  The packet's staged bytes then stay:
    // the next packet's data, when S_CHK finds that it goes on with the
    // message (p_cont), follows them in the same burst; otherwise S_CHK
    // issues their burst first
    wire e_fast = !p_ends && cq_done && nx_fast;
    // ... and S_CHK's check at once when the packet goes on with the
    // message (p_cont from its header; S_CHUNK next)
    // (OFFSET + data bytes against MSG_LEN: a padded LAST packet's data
    // ends at MSG_LEN by h_dlen's definition, otherwise at h_end)
    wire [31:0] h_end = h_off + {19'd0, iq_len} - 32'd8;
    wire e_cont = c_open && h_off == c_moff && h_mlen == c_mlen &&
                  ((h_pos == `RCLINK_SEG_MIDDLE && h_end < h_mlen) ||
                   (h_pos == `RCLINK_SEG_LAST && (h_pad || h_end == h_mlen)));
    wire h_fast = (st == S_WAIT && cq_done && nx_fast) || (st == S_END && e_fast);
    assign cqe_valid = cqo_v && cqo_wait == 2'd0;
    // (a user context's stop waits for its CQE on its way too)
    localparam [NCTX-1:0] CTX0 = 1;
    wire [NCTX-1:0] cqo_bit = cqo_v ? (CTX0 << cqe_ctx) : {NCTX{1'b0}};
    assign u_flushing = u_fl_scan | (cqo_bit & ~CTX0);
    always @(posedge clk) begin
        if (rst) begin
            cqo_v <= 1'b0;
            cqo_wait <= 2'd0;
            cqe_w0 <= 64'd0;
            cqe_w1 <= 64'd0;
            cqe_w2 <= 64'd0;
            cqe_ctx <= {UW{1'b0}};
        end else if (cqo_in) begin
            cqo_v <= 1'b1;
            cqo_wait <= w_out - {1'b0, w_end};
            cqe_w0 <= e_w0;
            cqe_w1 <= e_w1;
            cqe_w2 <= e_w2;
            cqe_ctx <= e_ctx;
        end else begin
            if (cqo_out || (stop_now && cqo_v && cqe_ctx == {UW{1'b0}} &&
                            (!cq_en || cq_free == 32'd0)))
                cqo_v <= 1'b0;
            if (cqo_v && cqo_wait != 2'd0 && w_end)
                cqo_wait <= cqo_wait - 2'd1;
        end
    end
    // the queue's bytes the engine takes this cycle; the packet let go
    wire [6:0] iq_pop = (st == S_CHUNK) ? ((qa != 7'd0 && msg_dead) ? qa :
                                           ck_push ? chunk : 7'd0) :
                        (((st == S_HDR || st == S_RH0 || st == S_RH1) && v_vld) ||
                         h_fast) ? v_n : 7'd0;
    // (a SEND of context 0 lets go of its packet with its last data byte:
    // the next packet enters while the engine ends this one)
    wire       ck_last = st == S_CHUNK && ck_push && {25'd0, chunk} == left &&
                         !rd && !t2 && !u;
    wire       iq_rel = pk_held && (stop_now || st == S_DROP || st == S_RQ0 || ck_last ||
                                    st == S_WAIT);
    wire       iq_take = rx_vld && rx_rdy;
    wire [6:0] iq_kn = keep_n(rx_keep);
    reg  [511:0] iq_b;            // the beat's bytes, the first in [7:0]
    integer ib;
    always @(*)
        for (ib = 0; ib < 64; ib = ib + 1)
            iq_b[8*ib +: 8] = rx_keep[63-ib] ? rx_dat[511-8*ib -: 8] : 8'd0;
    // ---- context 0's next RQEs, read ahead -------------------------------------
    // Up to PFD of context 0's posted RQEs from RQ_CONS on are read ahead,
    // up to PFR reads in flight, each of the RQEs of one 64-byte line (at
    // most four: none past the posted ones, the ring's end or PFD), so
    // that a host whose memory answers a microsecond late still keeps the
    // engine in buffers (PFD RQEs a round trip: 32 a microsecond).  A read
    // is issued while the engine is in a state that issues no command of
    // its own and waits for no read (a packet's header and context
    // states, S_WAIT, a push of data); a buffer needed then takes the head
    // one without a read (rqe_take, as from S_RQE0).  The engine's own
    // reads wait while a read ahead is in flight (the answers come in
    // command order, one line each: pf_q keeps each read's count).  An
    // RQE of a read of several that failed is read again alone when taken
    // (pf_r: S_RQE0, whose answer replaces the entry), so that only an RQE
    // that cannot be read itself completes DMA_ERR, as in the model.
    // Disabling the RQ (stop_now), RQ_PROD moved back below what was read
    // (pf_drop: the host may rewrite what it took back) or a reset forget
    // them (the answers of reads still in flight are dropped).
    localparam PFD = 32;
    localparam PFR = 8;
    reg  [63:0]  pf_w0 [0:PFD-1];
    reg  [31:0]  pf_w1 [0:PFD-1];
    reg  [PFD-1:0] pf_e;          // ... an unreadable one
    reg  [PFD-1:0] pf_r;          // ... of a failed read of several: read again
    reg  [2:0]   pf_q [0:PFR-1];  // the RQEs of each read in flight
    reg  [2:0]   pf_qw, pf_qr;
    reg  [4:0]   pf_hd;           // the entry of RQ_CONS
    reg  [5:0]   pf_n;            // entries read
    reg  [5:0]   pf_nf;           // entries of the reads in flight
    reg  [3:0]   pf_fly;          // reads in flight (the next entries)
    reg  [3:0]   pf_stale;        // reads in flight from before a stop
    wire         pf_busy = pf_fly != 4'd0 || pf_stale != 4'd0;
    wire [5:0]   pf_have = pf_n + pf_nf;
    wire [31:0]  pf_posted = rq_prod - rq_cons;
    wire [31:0]  pf_size = 32'd1 << rq_order;
    wire [31:0]  pf_ni = rq_cons + {26'd0, pf_have};      // the next to read
    wire [31:0]  pf_nr = pf_ni & (pf_size - 32'd1);
    wire [63:0]  pf_addr = rq_base + {32'd0, pf_nr} * 64'd16;
    // how many the read takes: up to the line's end, the last posted and
    // the ring's end; it waits for that much room (a read of the rest of
    // a line, not one RQE a read as RQEs are taken).  Address, count and
    // whether one is posted are registered (timing) from the cycle
    // before: an RQE taken or an answer leaves them as they are (the
    // next to read stays RQ_CONS + read + in flight), a read issued, an
    // RQE read by S_RQE0 or a stop makes them stale for a cycle
    // (pf_fresh), a doorbell at worst reads fewer for a cycle
    wire [31:0]  pf_c1 = 32'd4 - {30'd0, pf_addr[5:4]};
    wire [31:0]  pf_c2 = pf_posted - {26'd0, pf_have};
    wire [31:0]  pf_c3 = pf_size - pf_nr;
    wire [31:0]  pf_c12 = pf_c1 < pf_c2 ? pf_c1 : pf_c2;
    reg  [2:0]   pf_cnt;
    reg  [63:0]  pf_ra;
    reg          pf_more, pf_fresh, pf_drop;
    wire         pf_room = {3'd0, pf_cnt} <= PFD - pf_have;
    // the entries an answer fills: RQ_CONS + pf_n on
    wire [31:0]  pf_fi = rq_cons + {26'd0, pf_n};
    wire [63:0]  pf_fa = rq_base + {32'd0, pf_fi & (pf_size - 32'd1)} * 64'd16;
    wire [1:0]   pf_fl = pf_fa[5:4];                       // its lane
    wire [4:0]   pf_wi = pf_hd + pf_n[4:0];                // its slot
    wire [2:0]   pf_fc = pf_q[pf_qr];
    // (not S_CHK issuing the staged bytes of the packet before)
    wire         pf_st = st == S_IDLE || st == S_HDR || st == S_CTX ||
                         (st == S_CHK && (s_n == 13'd0 || p_cont)) ||
                         st == S_WAIT || (st == S_CHUNK && ck_push);
    wire         pf_issue = pf_st && !stop_now && !stop_pend && !rq_stop && rq_en &&
                            !dma_cmd_valid && pf_stale == 4'd0 && pf_room &&
                            pf_fly < PFR && pf_more && pf_fresh;
    wire         pf_use = !u && pf_n != 6'd0 && !pf_r[pf_hd];
    wire         pf_take = st == S_CHUNK && !stop_now && qa != 7'd0 && !msg_dead &&
                           !ck_flush && ck_nobuf && !rr_busy && !c_buf && pf_use &&
                           posted != 32'd0 && posted <= rq_size;
    // S_RQE0's answer for an entry to read again takes its place
    wire         pf_pop = pf_take || (st == S_RQE0 && dma_rd_valid && !u && pf_n != 6'd0);
    wire         pf_ans = dma_rd_valid && pf_busy;
    wire         pf_fill = pf_ans && pf_stale == 4'd0;
    wire [3:0]   pf_fly1 = pf_fly + {3'd0, pf_issue} - {3'd0, pf_fill};
    wire [3:0]   pf_stale1 = pf_stale - {3'd0, pf_ans && pf_stale != 4'd0};
    // an answer's entries: slot pf_wi + j (mod PFD), lane pf_fl + j
    wire [4:0]   pf_ws [0:3];
    wire [1:0]   pf_wl [0:3];
    genvar pg;
    generate
        for (pg = 0; pg < 4; pg = pg + 1) begin : g_pf
            assign pf_ws[pg] = pf_wi + pg;
            assign pf_wl[pg] = pf_fl + pg;
        end
    endgenerate
    integer pj;
    always @(posedge clk) begin
        pf_cnt <= pf_c12 < pf_c3 ? pf_c12[2:0] : pf_c3[2:0];
        pf_ra <= pf_addr;
        pf_more <= {26'd0, pf_have} < pf_posted && pf_posted <= pf_size;
        pf_fresh <= !rst && rq_en && !pf_issue && !stop_now && !pf_drop &&
                    !(st == S_RQE0 && dma_rd_valid);
        // (RQ_PROD written back to RQ_CONS in the cycle an RQE is taken
        // leaves it behind RQ_CONS: posted wraps past the ring's size)
        pf_drop <= !rst && rq_en && !stop_now && pf_have != 6'd0 &&
                   (pf_posted > pf_size || {26'd0, pf_have} > pf_posted);
        for (pj = 0; pj < 4; pj = pj + 1)
            if (pf_fill && pj < pf_fc) begin
                pf_w0[pf_ws[pj]] <= dma_rd_data[{pf_wl[pj], 7'd0} +: 64];
                pf_w1[pf_ws[pj]] <= dma_rd_data[{pf_wl[pj], 7'd64} +: 32];
            end
        if (pf_issue)
            pf_q[pf_qw] <= pf_cnt;
        if (rst) begin
            pf_e <= {PFD{1'b0}};
            pf_r <= {PFD{1'b0}};
            pf_hd <= 5'd0;
            pf_n <= 6'd0;
            pf_nf <= 6'd0;
            pf_fly <= 4'd0;
            pf_stale <= 4'd0;
            pf_qw <= 3'd0;
            pf_qr <= 3'd0;
        end else if (stop_now || pf_drop) begin
            pf_n <= 6'd0;
            pf_nf <= 6'd0;
            pf_fly <= 4'd0;
            pf_qw <= 3'd0;
            pf_qr <= 3'd0;
            pf_stale <= pf_stale1 + pf_fly1;
        end else begin
            for (pj = 0; pj < 4; pj = pj + 1)
                if (pf_fill && pj < pf_fc) begin
                    pf_e[pf_ws[pj]] <= dma_rd_err;
                    pf_r[pf_ws[pj]] <= dma_rd_err && pf_fc != 3'd1;
                end
            pf_n <= pf_n + (pf_fill ? {3'd0, pf_fc} : 6'd0) - {5'd0, pf_pop};
            pf_nf <= pf_nf + (pf_issue ? {3'd0, pf_cnt} : 6'd0) -
                     (pf_fill ? {3'd0, pf_fc} : 6'd0);
            if (pf_issue)
                pf_qw <= pf_qw + 3'd1;
            if (pf_fill)
                pf_qr <= pf_qr + 3'd1;
            if (pf_pop)
                pf_hd <= pf_hd + 5'd1;
            pf_fly <= pf_fly1;
            pf_stale <= pf_stale1;
        end
    end

    // the beat a release takes in: the one waiting, or one entering then
    wire         n_v  = nb_v || (iq_take && iq_full);
    wire         n_fs = nb_v ? nb_fs : rx_fs;
    wire         n_fe = nb_v ? nb_fe : rx_fe;
    // a beat outside a packet (no RX_M_FS where a packet must start): the
    // run of such beats up to its RX_M_FE is let go and counted once in
    // DMAQ_T1_RX_DROP_MALFORMED (the beat cannot tell its stream)
    reg          iq_stray;
    always @(posedge clk)
        iq_stray <= !rst && (iq_rel ? n_v && !n_fs :
                             !iq_pkt && !iq_skip && iq_take && !rx_fs);
    always @(posedge clk) begin
        if (iq_take && !iq_full && !(rst || iq_rel))
            iq_l[(iq_skip || !iq_pkt) ? 2'd0 : iq_t[1:0]] <= iq_b;
        if (iq_take && iq_full && !(rst || iq_rel)) begin
            nb_b <= iq_b;
            nb_kn <= iq_kn;
            nb_fs <= rx_fs;
            nb_fe <= rx_fe;
            nb_qpid <= rx_qpid;
            nb_etype <= rx_etype;
            nb_len <= rx_len;
            nb_sa <= rx_sa;
            nb_psn <= rx_psn;
        end
        if (rst || iq_rel)
            nb_v <= 1'b0;
        else if (iq_take && iq_full)
            nb_v <= 1'b1;
        if (rst || iq_rel) begin
            iq_t <= 3'd0;
            iq_h <= 9'd0;
            iq_n <= 9'd0;
            iq_pkt <= 1'b0;
            iq_end <= 1'b0;
            iq_skip <= !rst && !iq_end && !(iq_take && rx_fe);
            if (!rst && n_v) begin
                // (the packet's beats were all in: iq_skip low so far)
                iq_skip <= !n_fs && !n_fe;      // (a beat outside a packet)
                if (n_fs) begin
                    iq_l[0] <= nb_v ? nb_b : iq_b;
                    iq_pkt <= 1'b1;
                    iq_end <= n_fe;
                    iq_t <= 3'd1;
                    iq_n <= {2'd0, nb_v ? nb_kn : iq_kn};
                    iq_qpid <= nb_v ? nb_qpid : rx_qpid;
                    iq_etype <= nb_v ? nb_etype : rx_etype;
                    iq_len <= nb_v ? nb_len : rx_len;
                    iq_sa <= nb_v ? nb_sa : rx_sa;
                    iq_psn <= nb_v ? nb_psn : rx_psn;
                end
            end
        end else if (iq_skip || !iq_pkt) begin
            if (iq_take && !iq_skip && rx_fs) begin
                iq_pkt <= 1'b1;
                iq_end <= rx_fe;
                iq_t <= 3'd1;
                iq_h <= 9'd0;
                iq_n <= {2'd0, iq_kn};
                iq_qpid <= rx_qpid;
                iq_etype <= rx_etype;
                iq_len <= rx_len;
                iq_sa <= rx_sa;
                iq_psn <= rx_psn;
            end else if (iq_take) begin
                iq_skip <= !rx_fe;    // (a beat outside a packet)
            end
        end else begin
            // (a beat after the last waits in nb_*)
            iq_h <= iq_h + {2'd0, iq_pop};
            iq_n <= iq_n - {2'd0, iq_pop} + ((iq_take && !iq_end) ? {2'd0, iq_kn} : 9'd0);
            if (iq_take && !iq_end) begin
                iq_t <= iq_t + 3'd1;
                iq_end <= rx_fe;
            end
        end
        if (rst) begin
            iq_qpid <= {QP_AW{1'b0}};
            iq_etype <= 2'd0;
            iq_len <= 13'd0;
            iq_sa <= 10'd0;
            iq_psn <= 12'd0;
        end
    end

    always @(posedge clk) begin
        ctx_we <= 1'b0;
        sm_we <= 1'b0;
        if (iq_stray)       // (the states below count theirs with it)
            cnt_malformed <= cnt_malformed + 64'd1;
        if (rst || stop_now) begin
            st <= S_CLR;
            clr <= 0;
            sweep_flush <= !rst;
            pk_held <= 1'b0;
            c_byp <= 1'b0;
            ret <= S_IDLE;
            rq_cons <= 32'd0;
            if (rst) begin
                cnt_malformed <= 64'd0;
                cnt_nobuf <= 64'd0;
                cnt_t2_pkts <= 64'd0;
                cnt_t2_nogroup <= 64'd0;
                cnt_t2_nobuf <= 64'd0;
                cnt_t2_malformed <= 64'd0;
                cnt_t2_lost <= 64'd0;
                cnt_t2_old <= 64'd0;
                t2s_used <= {T2_SE{1'b0}};
                t2s_victim <= 32'd0;
            end
            t2_nobuf <= 1'b0;
            t2s_we <= 1'b0;
            t2s_wa <= 7'd0;
            t2s_wd <= 22'd0;
            h_sa <= 10'd0;
            h_psn <= 12'd0;
            t2_i <= 4'd0;
            t2_free <= 1'b0;
            t2_fi <= 4'd0;
            t2 <= 1'b0;
            t2_k <= 32'd0;
            t2_need <= 32'd0;
            t2_cqes <= 32'd0;
            dma_cmd_valid <= 1'b0;
            dma_cmd_write <= 1'b0;
            dma_cmd_addr <= 64'd0;
            dma_cmd_len <= 13'd0;
            ln <= 512'd0;
            sm_wa <= 6'd0;
            sm_wd <= 512'd0;
            // (the next burst after one still streaming)
            s_li <= wrst ? 6'd0 : w_next;
            s_base <= wrst ? 6'd0 : w_next;
            s_addr <= 64'd0;
            w_lines <= 6'd0;
            s_n <= 13'd0;
            cqe_v <= 1'b0;
            e_w0 <= 64'd0;
            e_w1 <= 64'd0;
            e_w2 <= 64'd0;
            e_ctx <= {UW{1'b0}};
            u_ctx <= {UW{1'b0}};
            c_own <= {UW{1'b0}};
            u_take <= 1'b0;
            u_nobuf <= 1'b0;
            u_fail <= 1'b0;
            u_cause <= 8'd0;
            u_info <= 64'd0;
            ctx_ra <= 0;
            // a packet of context 0 stopped in its middle (waiting for an
            // RX_M beat, an RQE, the CQ): its QP's context as it is now goes
            // back to the RAM first, for the sweep
            ctx_we <= !rst && !u && !t2 && !rd &&
                      (st == S_CHUNK || st == S_WAIT ||
                       (st == S_CQE && ret != S_SW4 && ret != S_OF4));
            ctx_wa <= qpn;
            ctx_wd <= c_pack;
            {c_open, c_buf, c_first} <= 3'd0;
            c_idx <= 32'd0;
            c_addr <= 64'd0;
            c_size <= 17'd0;
            c_fill <= 17'd0;
            c_mlen <= 32'd0;
            c_moff <= 32'd0;
            qpn <= 0;
            pos <= 2'd0;
            soff <= 32'd0;
            smlen <= 32'd0;
            dlen <= 32'd0;
            left <= 32'd0;
            msg_dead <= 1'b0;
            held <= 1'b0;
            hold_left <= 32'd0;
            h_prod <= 32'd0;
            h_room <= 32'd0;
            rd <= 1'b0;
            h_kind <= 3'd0;
            plen <= 13'd0;
            rkey <= 32'd0;
            rtag <= 16'd0;
            rstat <= 8'd0;
            raddr <= 64'd0;
            rq_push <= 1'b0;
            rq_wd <= {(QP_AW+27){1'b0}};
            rs_we <= 1'b0;
            rs_wa <= {QP_AW{1'b0}};
            rs_wd <= 19'd0;
            mr_use <= 1'b0;
            mr_pg <= 1'b0;
            rr_idx <= 16'd0;
            dp_valid <= 1'b0;
            dp_qpn <= {QP_AW{1'b0}};
            dp_bytes <= 11'd0;
            pk_we <= 1'b0;
            pk_wa <= 5'd0;
            pk_wd <= 512'd0;
            rd_left <= 32'd0;
            rd_off <= 32'd0;
            rp_left <= 32'd0;
            rp_cl <= 13'd0;
            rp_bad <= 1'b0;
            racc <= 1024'd0;
            racc_n <= 7'd0;
            c_rx_read <= 1'b0;
            rdone_valid <= 1'b0;
            rr_busy <= 1'b0;
            {c_rx_write, c_bad_key, c_access, c_bounds, c_silent, c_late, c_imm_drop} <= 7'd0;
        end else begin
            if (st == S_IDLE)
                rr_busy <= 1'b0;
            rs_we <= 1'b0;
            rq_push <= 1'b0;
            rdone_valid <= 1'b0;
            {c_rx_write, c_bad_key, c_access, c_bounds, c_silent, c_late, c_imm_drop} <= 7'd0;
            pk_we <= 1'b0;
            if (pk_we)
                pk_wa <= pk_wa + 5'd1;
            c_rx_read <= 1'b0;
            if (dp_valid && dp_take)
                dp_valid <= 1'b0;
            t2_nobuf <= 1'b0;
            t2s_we <= 1'b0;
            u_take <= 1'b0;
            u_nobuf <= 1'b0;
            u_fail <= 1'b0;
            if (cqo_in) begin
                cqe_v <= 1'b0;
                e_w2 <= 64'd0;
            end
            if (dma_cmd_valid && dma_cmd_ready)
                dma_cmd_valid <= 1'b0;
            if (held && us_tick && hold_left != 32'd0)
                hold_left <= hold_left - 32'd1;
            if (pf_issue) begin     // (no state below issues one then)
                dma_cmd_valid <= 1'b1;
                dma_cmd_write <= 1'b0;
                dma_cmd_addr <= pf_ra;
                dma_cmd_len <= {6'd0, pf_cnt, 4'd0};
            end
            case (st)
            S_CLR:                   // every context closed
                if (!sweep_flush) begin
                    ctx_we <= 1'b1;
                    ctx_wa <= clr[QP_AW-1:0];
                    ctx_wd <= {CW{1'b0}};
                    rs_put(clr[QP_AW-1:0], 19'd0);
                    clr <= clr + 1'b1;
                    if (clr == QP_NUM - 1)
                        st <= S_IDLE;
                end else begin
                    ctx_ra <= clr[QP_AW-1:0];
                    st <= S_SW1;
                end
            // the RQ was disabled: a QP's open buffer completes FLUSHED
            // (when the CQ runs), then its context is cleared
            S_SW1: st <= S_SW2;
            S_SW2: begin
                {c_open, c_buf, c_first, c_idx, c_addr, c_size, c_fill, c_mlen,
                 c_moff, c_own} <= ctx_q;
                qpn <= clr[QP_AW-1:0];
                st <= S_SW3;
            end
            S_SW3:
                if (c_open && c_buf && cq_en && c_own == {UW{1'b0}}) begin
                    cqe(ST_FLUSHED, 1'b1);
                    ret <= S_SW4;
                    st <= S_CQE;
                end else begin
                    st <= S_SW4;
                end
            S_SW4: begin
                // a user context's message stays
                ctx_we <= c_own == {UW{1'b0}};
                ctx_wa <= clr[QP_AW-1:0];
                ctx_wd <= {CW{1'b0}};
                clr <= clr + 1'b1;
                if (clr == QP_NUM - 1) begin
                    sweep_flush <= 1'b0;
                    st <= S_IDLE;
                end else begin
                    st <= S_CLR;
                end
            end
            S_IDLE:
                if (cqe_v) begin
                    // the last completion is still on its way
                end else if (sfl != {NCTX{1'b0}} && !sc_on) begin
                    // contexts stopped: their open messages end (a scan)
                    u_ctx <= {UW{1'b0}};
                    sc_on <= 1'b1;
                    sc_mask <= sfl;
                    ofi <= {QP_AW{1'b0}};
                    ctx_ra <= {QP_AW{1'b0}};
                    st <= S_OF1;
                end else if (ofl_any) begin
                    // an owner changed: the QP's open message, if any,
                    // completes FLUSHED for the old owner (one a cycle)
                    u_ctx <= {UW{1'b0}};
                    if (ofl[ofi]) begin
                        ctx_ra <= ofi;
                        st <= S_OF1;
                    end else begin
                        ofi <= ofi + 1'b1;
                    end
                end else if (pk_take) begin
                    // (TYPE2 waits here, at rest, for a CQE of context 0
                    // on its way; cqe_v is low in this branch, so cqo_in)
                    // TYPE2 is taken even with the RQ off (and dropped),
                    // a user context's packet too (it never waits)
                    ctx_ra <= iq_qpid;
                    pk_held <= 1'b1;
                    c_byp <= 1'b0;
                    st <= S_HDR;
                end
            S_OF1: st <= S_OF2;
            S_OF2: begin
                {c_open, c_buf, c_first, c_idx, c_addr, c_size, c_fill, c_mlen,
                 c_moff, c_own} <= ctx_q;
                qpn <= ofi;
                t2 <= 1'b0;
                st <= S_OF3;
            end
            S_OF3: begin            // its owner changed, or it stopped
                of_hit <= c_open && (ofl[ofi] || (sc_on && sc_mask[c_own]));
                if (c_open && c_buf && (ofl[ofi] || (sc_on && sc_mask[c_own]))) begin
                    cqe(ST_FLUSHED, 1'b1);
                    ret <= S_OF4;
                    st <= S_CQE;
                end else begin
                    st <= S_OF4;
                end
            end
            S_OF4: begin
                ctx_we <= of_hit;
                ctx_wa <= ofi;
                ctx_wd <= {CW{1'b0}};
                st <= S_IDLE;
                if (sc_on && {{(32-QP_AW){1'b0}}, ofi} == QP_NUM - 1) begin
                    sc_on <= 1'b0;
                end else if (sc_on) begin
                    ofi <= ofi + 1'b1;
                    ctx_ra <= ofi + 1'b1;
                    st <= S_OF1;
                end
            end
            S_HDR:                  // the segment header (taken)
                if (v_vld) begin
                    hdr_take;
                    st <= S_CTX;
                end
            S_CTX: begin            // the context is read
                if (!c_byp)
                    {c_open, c_buf, c_first, c_idx, c_addr, c_size, c_fill, c_mlen,
                     c_moff, c_own} <= ctx_q;
                c_byp <= 1'b0;
                st <= u ? S_UCHK : S_CHK;
                if (rd) begin
                    msg_dead <= 1'b0;
                    if (q_done || h_kind > K_IMM || soff > smlen ||
                        {19'd0, plen} < RDMA_HDR) begin
                        cnt_malformed <= cnt_malformed + 64'd1 + {63'd0, iq_stray};
                        st <= S_DROP;
                    end else begin
                        st <= S_RH0;
                    end
                end
                if (t2) begin       // TYPE2: no context, a fresh message
                    {c_open, c_buf, c_first} <= 3'd0;
                    c_fill <= 17'd0;
                    c_mlen <= smlen;
                    c_moff <= 32'd0;
                    c_own <= u_ctx;
                    st <= S_T2CHK;
                end
            end
            // ---- RDMA: the RDMA header, the checks ------------------------------
            S_RH0:
                if (v_vld) begin
                    rkey <= seg[31:0];
                    rtag <= seg[47:32];
                    rstat <= seg[`RCLINK_RDMAH_STATUS_MSB:`RCLINK_RDMAH_STATUS_LSB];
                    st <= S_RH1;
                    if (v_fe) begin
                        cnt_malformed <= cnt_malformed + 64'd1 + {63'd0, iq_stray};
                        st <= S_DROP;
                    end
                end
            S_RH1:
                if (v_vld) begin
                    raddr <= seg;
                    left <= r_dlen;
                    st <= S_RCHK;
                end
            S_RCHK:                 // rkey, raddr, the entry and the QP's state
                if (h_kind == K_READ_RESP && rresp_ok) begin
                    // a READ's data: into its local side (a bus address,
                    // or the area of the QP's user context, through the
                    // staging as a WRITE's), its last one completes it
                    c_open <= 1'b1;
                    c_buf <= 1'b1;
                    // (its first piece is looked up at its first byte,
                    // from registers: an empty buffer here)
                    c_addr <= 64'd0;
                    c_size <= 17'd0;
                    c_fill <= 17'd0;
                    c_rq <= soff;
                    rr_busy <= 1'b1;
                    mr_pg <= rresp_pg;
                    mr_use <= rresp_lk;
                    rr_idx <= rresp_idx;
                    st <= S_BEAT;
                end else if (h_kind == K_READ_RESP || h_kind == K_WRITE_RESP) begin
                    // a response decides the send engine's WRITE or READ
                    // of its QP and TAG (wresp_*, rresp_*: a refusal, or
                    // a READ_RESP that does not fit, DMA_ERR); one that
                    // matches no request waiting is late
                    c_late <= !(h_kind == K_WRITE_RESP ? wresp_hit : rresp_hit);
                    st <= S_DROP;
                end else if (h_kind == K_IMM) begin
                    // a WRITE's immediate: an RQE and a RECV_IMM CQE of
                    // the owner (context 0 takes none: counted); after a
                    // refused WRITE, or none, it is dropped
                    if (rs_done && rs_tag == rtag && u) begin
                        st <= S_IHOLD;
                    end else begin
                        if (rs_done && rs_tag == rtag) begin
                            c_imm_drop <= 1'b1;
                            rs_put(qpn, {3'b000, rs_tag});
                        end
                        st <= S_DROP;
                    end
                end else if (resp_silent) begin
                    c_silent <= 1'b1;
                    st <= S_DROP;
                end else if (h_kind == K_READ_REQ) begin
                    if (r_st != ST_OK && !rq_full) begin
                        // READ refused: one READ_RESP with the cause
                        refused;
                        respond(K_READ_RESP, r_st);
                        st <= S_DROP;
                    end else if (r_st == ST_OK) begin
                        // served once the request packet is taken whole
                        c_addr <= mr_base + raddr;
                        c_fill <= 17'd0;
                        rd_left <= smlen;
                        rd_off <= 32'd0;
                        mr_use <= 1'b1;
                        mr_pg <= m_pages;
                        st <= S_RQ0;
                    end
                end else if (!r_start && !(rs_open && rs_tag == rtag)) begin
                    // a WRITE packet outside a WRITE
                    cnt_malformed <= cnt_malformed + 64'd1 + {63'd0, iq_stray};
                    st <= S_DROP;
                end else if ((r_start || !rs_failed) && r_st != ST_OK) begin
                    if (!rq_full) begin
                        refused;
                        respond(K_WRITE_RESP, r_st);
                        rs_put(qpn, {!p_ends, 2'b10, rtag});
                        st <= S_DROP;
                    end
                end else if (!r_start && rs_failed) begin
                    // the rest of a refused WRITE
                    if (p_ends)
                        rs_put(qpn, {3'b010, rtag});
                    st <= S_DROP;
                end else if (!(p_ends && rq_full)) begin
                    // into the owner's area: the registration's offset
                    rs_put(qpn, {!p_ends, 2'b00, rtag});
                    c_open <= 1'b1;
                    c_buf <= 1'b1;
                    c_addr <= mr_base + raddr + {32'd0, soff};
                    c_size <= left[16:0];
                    c_fill <= 17'd0;
                    mr_use <= 1'b1;
                    mr_pg <= m_pages;
                    st <= S_BEAT;
                end
            // ---- a WRITE's immediate: the owner's next RQE, its CQE --------------
            // Without a posted RQE or CQ room it waits on RX_M as a SEND's
            // packet does (S_UHOLD): DMAQ_CTX_RX_HOLD, then dropped
            // (DMAQ_CTX_RX_NOBUF, the context in error RX_NOBUF).
            S_IHOLD:
                if (!u_run || h_ochg || (held && hold_left == 32'd0) ||
                    (!held && u_hold_us == 32'd0 && !(posted != 32'd0 &&
                     posted <= rq_size && u_room_ok))) begin
                    u_nobuf <= 1'b1;
                    if (u_run && !h_ochg)
                        ufail(`RCLINK_CTX_EVT_CAUSE_RX_NOBUF, {{(64-QP_AW){1'b0}}, qpn});
                    held <= 1'b0;
                    rs_put(qpn, {3'b000, rs_tag});
                    st <= S_DROP;
                end else if (posted != 32'd0 && posted <= rq_size && u_room_ok) begin
                    // (once the port is free: a burst's command, a read ahead)
                    if (!pf_busy && !dma_cmd_valid) begin
                        held <= 1'b0;
                        dma_cmd_valid <= 1'b1;
                        dma_cmd_write <= 1'b0;
                        dma_cmd_addr <= rqe_addr;
                        dma_cmd_len <= 13'd16;
                        st <= S_IRQE;
                    end
                end else if (!held) begin
                    held <= 1'b1;
                    hold_left <= u_hold_us;
                end
            S_IRQE:                 // the RQE (its buffer is not touched)
                if (dma_rd_valid) begin
                    u_take <= 1'b1;
                    rs_put(qpn, {3'b000, rs_tag});
                    e_w0 <= ({60'd0, 4'd`RCLINK_CQE_KIND_RECV_IMM} << `RCLINK_CQE_KIND_LSB) |
                              ({56'd0, dma_rd_err ? ST_DMA_ERR : rqe_bad_size ? ST_BAD_WQE :
                                       rqe_bad_addr ? ST_BAD_ADDR : ST_OK}
                               << `RCLINK_CQE_STATUS_LSB) |
                              (64'd1 << `RCLINK_CQE_FIRST_LSB) | (64'd1 << `RCLINK_CQE_LAST_LSB) |
                              ({{(64-QP_AW){1'b0}}, qpn} << `RCLINK_CQE_QPN_LSB);
                    e_w1 <= {smlen, m_cons};
                    e_w2 <= {32'd0, rkey};
                    cqe_v <= 1'b1;
                    e_ctx <= u_ctx;
                    if (dma_rd_err || rqe_bad_size || rqe_bad_addr)
                        ufail(dma_rd_err ? `RCLINK_CTX_EVT_CAUSE_DMA :
                              rqe_bad_size ? `RCLINK_CTX_EVT_CAUSE_BAD_RQE :
                              `RCLINK_CTX_EVT_CAUSE_BAD_ADDR,
                              dma_rd_err ? dma_cmd_addr : {32'd0, m_cons});
                    ret <= S_DROP;
                    st <= S_CQE;
                end
            // ---- a READ served: its READ_RESP packets -----------------------------
            S_RQ0: begin            // the rest of the request packet is let go
                    pk_held <= 1'b0;
                    st <= S_RP0;
                end
            S_RP0: begin            // a packet: the headers, then its data
                racc <= {832'd0, 64'd0, r_rh_ok, rp_seg};
                racc_n <= 7'd24;
                rp_left <= rp_pkt;
                pk_wa <= 5'd0;
                dp_bytes <= rp_pkt[10:0] + 11'd24;
                st <= S_RP1;
            end
            S_RP1:                  // a burst: up to the page's end
                if (rp_left == 32'd0) begin
                    st <= S_RP4;    // (a READ of 0 bytes: no read)
                end else if (u_bus_ok && !pf_busy && !dma_cmd_valid) begin
                    dma_cmd_valid <= 1'b1;
                    dma_cmd_write <= 1'b0;
                    dma_cmd_addr <= u_bus;
                    dma_cmd_len <= rp_take[12:0];
                    rp_cl <= rp_take[12:0];
                    rp_bad <= 1'b0;
                    st <= S_RP2;
                end
            S_RP2:                  // its beats, one a cycle: packed, a full
                if (dma_rd_valid) begin     // row to the packet memory
                    if (rp_accn[6]) begin
                        pk_we <= 1'b1;
                        pk_wd <= rp_acc[511:0];
                        racc <= rp_acc >> 512;
                        racc_n <= rp_accn - 7'd64;
                    end else begin
                        racc <= rp_acc;
                        racc_n <= rp_accn;
                    end
                    c_addr <= c_addr + {57'd0, rp_n};
                    rp_cl <= rp_cl - {6'd0, rp_n};
                    rp_left <= rp_left - {25'd0, rp_n};
                    rd_left <= rd_left - {25'd0, rp_n};
                    rd_off <= rd_off + {25'd0, rp_n};
                    rp_bad <= rp_fail;
                    // the burst's last beat (a failed one's beats all
                    // taken first)
                    if (rp_cl == {6'd0, rp_n})
                        st <= rp_fail ? S_RPE : (rp_left != {25'd0, rp_n}) ? S_RP1 : S_RP4;
                end
            S_RP4: begin            // the last row; the packet goes
                if (racc_n != 7'd0 && !pk_we) begin
                    pk_we <= 1'b1;
                    pk_wd <= racc[511:0];
                    racc_n <= 7'd0;
                end else if (!pk_we) begin
                    dp_valid <= 1'b1;
                    dp_qpn <= qpn;
                    st <= S_RP5;
                end
            end
            S_RP5:                  // sent (its rows read): the next one
                if (dp_done) begin
                    if (rd_left != 32'd0) begin
                        st <= S_RP0;
                    end else begin
                        c_rx_read <= 1'b1;
                        st <= S_WAIT;
                    end
                end
            S_RPE:                  // the data could not be read: DMA_ERR
                if (!rq_full) begin
                    respond(K_READ_RESP, ST_DMA_ERR);
                    st <= S_WAIT;
                end
            // ---- a user context's TYPE1 packet: room, or it waits ---------------
            S_UCHK: begin
                msg_dead <= 1'b0;
                left <= dlen;
                t2_k <= 32'd0;
                h_prod <= u_rq_prod;
                h_room <= u_room;
                if (!u_run) begin
                    // not running: dropped at once
                    u_nobuf <= 1'b1;
                    held <= 1'b0;
                    st <= S_DROP;
                end else if (p_flush && c_buf && !u_room_ok) begin
                    st <= S_UHOLD;   // no room for the flushed buffer's CQE
                end else if (p_drop) begin
                    st <= S_CHK;     // malformed: flushed and counted there
                end else begin
                    // the dry run from the open buffer's room on
                    t2_need <= u_need;
                    t2_cqes <= u_cqes;
                    st <= S_T2RQE;
                end
            end
            // The IP has taken (and acknowledged) the packet: it waits on
            // RX_M, FLOW_STOP on every bank, until its context's room
            // changes (the dry run again) or DMAQ_CTX_RX_HOLD runs out.
            // Dropped then, or when the context stops running or the QP
            // changes owner (DMAQ_CTX_RX_NOBUF); a context still running
            // goes into error (RX_NOBUF, the QPN).
            S_UHOLD:
                if (!u_run || h_ochg || (held ? hold_left == 32'd0 : u_hold_us == 32'd0)) begin
                    u_nobuf <= 1'b1;
                    if (u_run && !h_ochg)
                        ufail(`RCLINK_CTX_EVT_CAUSE_RX_NOBUF, {{(64-QP_AW){1'b0}}, qpn});
                    held <= 1'b0;
                    st <= S_DROP;
                end else begin
                    if (!held) begin
                        held <= 1'b1;
                        hold_left <= u_hold_us;
                    end
                    if (u_rq_prod != h_prod || u_room != h_room)
                        st <= S_UCHK;
                end
            // ---- TYPE2: group, segment header, then the dry run ----------------
            S_T2CHK: begin
                msg_dead <= 1'b0;
                left <= dlen;
                t2_k <= 32'd0;
                t2_need <= dlen;
                t2_cqes <= 32'd1;
                t2_i <= 4'd0;
                t2_free <= 1'b0;
                st <= S_DROP;
                if (!t2_grp_ok)
                    cnt_t2_nogroup <= cnt_t2_nogroup + 64'd1;
                else if (!t2_seg_ok)
                    cnt_t2_malformed <= cnt_t2_malformed + 64'd1;
                else
                    st <= S_T2SRC;
            end
            S_T2SRC:                // the sender's entry, one a cycle
                if (t2_hit) begin
                    st <= S_T2PSN;
                end else if (t2_i == T2_LAST) begin
                    // a new sender: a free entry, else the group's next
                    t2s_we <= 1'b1;
                    t2s_wa <= {qpn[2:0], t2_new};
                    t2s_wd <= {h_sa, h_psn + 12'd1};
                    t2s_used[{qpn[2:0], t2_new}] <= 1'b1;
                    if (!t2_free && t2s_used[t2_ea])
                        t2s_victim[4 * qpn[2:0] +: 4] <= t2_vi + 4'd1;
                    st <= S_T2NB;
                end else begin
                    if (!t2_free && !t2s_used[t2_ea]) begin
                        t2_free <= 1'b1;
                        t2_fi <= t2_i;
                    end
                    t2_i <= t2_i + 4'd1;
                end
            S_T2PSN:                // ahead: a gap; behind: old
                if (t2_d[11]) begin
                    cnt_t2_old <= cnt_t2_old + 64'd1;
                    st <= S_DROP;
                end else begin
                    cnt_t2_lost <= cnt_t2_lost + {52'd0, t2_d};
                    t2s_we <= 1'b1;
                    t2s_wa <= t2_ea;
                    t2s_wd <= {h_sa, h_psn + 12'd1};
                    st <= S_T2NB;
                end
            S_T2NB:                 // the room: RQ and CQ on, RQEs posted
                if ((u ? !u_run : (!rq_en || !cq_en)) || posted == 32'd0 ||
                    posted > rq_size) begin
                    cnt_t2_nobuf <= cnt_t2_nobuf + 64'd1;
                    t2_nobuf <= 1'b1;
                    u_nobuf <= u;
                    st <= S_DROP;
                end else begin
                    st <= S_T2RQE;
                end
            S_T2RQE:                // (TYPE2, and a user context's TYPE1)
                if (t2_need == 32'd0 && m_cq_free >= t2_cqes) begin
                    if (!t2) begin
                        st <= S_CHK;
                    end else begin
                        c_open <= 1'b1;
                        cnt_t2_pkts <= cnt_t2_pkts + 64'd1;
                        st <= S_CHUNK;
                    end
                end else if (t2_need == 32'd0 || t2_k == posted) begin
                    // no room: TYPE2 dropped, a user context's TYPE1 waits
                    if (t2) begin
                        cnt_t2_nobuf <= cnt_t2_nobuf + 64'd1;
                        t2_nobuf <= 1'b1;
                        u_nobuf <= u;
                        st <= S_DROP;
                    end else begin
                        st <= S_UHOLD;
                    end
                end else if (!pf_busy && !dma_cmd_valid) begin
                    dma_cmd_valid <= 1'b1;
                    dma_cmd_write <= 1'b0;
                    dma_cmd_addr <= t2_rqe_addr;
                    dma_cmd_len <= 13'd16;
                    st <= S_T2RQW;
                end
            S_T2RQW:                // RQE t2_k: its address and size
                if (dma_rd_valid) begin
                    t2_k <= t2_k + 32'd1;
                    if (u && dma_rd_err) begin
                        // a user context's unreadable RQE: its error, the
                        // packet goes (as the model's dry run)
                        ufail(`RCLINK_CTX_EVT_CAUSE_DMA, dma_cmd_addr);
                        st <= S_DROP;
                    end else if (u && (rqe_bad_size || rqe_bad_addr)) begin
                        // taken, it completes unused and the context's
                        // error ends the packet there
                        t2_cqes <= t2_cqes + 32'd1 - {31'd0, t2 || p_ends};
                        t2_need <= 32'd0;
                        st <= S_T2RQE;
                    end else if (dma_rd_err || rqe_bad_size) begin
                        t2_cqes <= t2_cqes + 32'd1;      // completed unused
                    end else begin
                        t2_need <= t2_need - t2_take;
                        if (t2_need != t2_take)
                            t2_cqes <= t2_cqes + 32'd1;  // a full buffer
                    end
                    st <= S_T2RQE;
                end
            S_CHK: if (s_n != 13'd0 && !p_cont) begin
                // the packet before's staged bytes (S_END left them for
                // this packet, e_fast) go out first: it does not go on
                // with their message
                flush;
            end else begin
                held <= 1'b0;
                msg_dead <= 1'b0;
                left <= dlen;
                if (!p_drop && p_start)
                    c_own <= u_ctx;
                if (p_flush && c_buf) begin
                    cqe(ST_FLUSHED, 1'b1);
                    c_buf <= 1'b0;
                    c_open <= 1'b0;
                    st <= S_CQE;
                    ret <= p_drop ? S_DROP : S_CHUNK;
                end else begin
                    if (p_flush)
                        c_open <= 1'b0;
                    st <= p_drop ? S_DROP : S_CHUNK;
                end
                if (p_drop)
                    cnt_malformed <= cnt_malformed + 64'd1 + {63'd0, iq_stray};
                if (!p_drop && p_start) begin
                    c_open <= 1'b1;
                    c_buf <= 1'b0;
                    c_mlen <= smlen;
                    c_moff <= 32'd0;
                end
            end
            S_DROP: begin           // the rest of the packet is let go
                held <= 1'b0;
                pk_held <= 1'b0;
                ctx_back;         // (mr_*: a WRITE's padding after its data)
                st <= S_IDLE;
            end
            S_BEAT:                 // (an RDMA packet: its side's lookups settle)
                st <= S_CHUNK;
            S_CHUNK:
                if (qa == 7'd0) begin
                    if (left == 32'd0 || q_done)
                        st <= S_END;
                    else if (s_n != 13'd0 && (rq_stop || stop_pend))
                        flush;      // (the RQ stops while a beat is awaited)
                    // else the packet's next beat is awaited
                end else if (msg_dead) begin
                    left <= left - {25'd0, qa};
                end else if (ck_flush) begin
                    // (a user context's staged bytes end at a chunk's end)
                    // the staged bytes go out before the buffer completes
                    flush;
                end else if (ck_nobuf) begin
                    if (rr_busy) begin
                        // a READ's piece is full (or none yet): the one of
                        // the next byte (the staged bytes went out above)
                        c_addr <= rresp_base;
                        c_size <= rr_sz[16:0];
                        c_fill <= 17'd0;
                    end else if (c_buf && (u || (posted != 32'd0 && posted <= rq_size))) begin
                        // a full buffer of context 0 completes once the
                        // next one is posted (as the model's: a stop
                        // meanwhile completes it LAST, FLUSHED)
                        cqe(ST_OK, 1'b0);
                        c_buf <= 1'b0;
                        ret <= S_CHUNK;
                        st <= S_CQE;
                    end else if (!c_buf && posted != 32'd0 && posted <= rq_size) begin
                        if (pf_use) begin
                            rqe_take(pf_w0[pf_hd], pf_w1[pf_hd], pf_e[pf_hd]);
                        end else if (!pf_busy && !dma_cmd_valid) begin
                            dma_cmd_valid <= 1'b1;
                            dma_cmd_write <= 1'b0;
                            dma_cmd_addr <= rqe_addr;
                            dma_cmd_len <= 13'd16;
                            st <= S_RQE0;
                        end
                    end else if (u) begin
                        // the RQEs the dry run saw are gone (RQ_PROD moved
                        // back: the context is in error): the rest goes
                        msg_dead <= 1'b1;
                        c_open <= 1'b0;
                    end
                    // else no buffer is posted: wait (RX_M_RDY low, FLOW_STOP)
                end else if (s_n == 13'd0 && xl && !u_bus_ok) begin
                    // (the page of the staging's start is being looked up)
                end else if (s_ring_full) begin
                    // (the staging ring's lines wait for their bursts)
                end else begin
                    // into the line being staged; a full line to the memory
                    if (s_n == 13'd0)
                        s_addr <= xl ? u_bus : dst;
                    s_n <= s_n + {6'd0, chunk};
                    c_fill <= c_fill + {10'd0, chunk};
                    c_moff <= c_moff + {25'd0, chunk};
                    c_rq <= c_rq + {25'd0, chunk};
                    left <= left - {25'd0, chunk};
                    if ({25'd0, chunk} == left)
                        st <= S_END;      // the packet's data is staged
                    if (ck_last)
                        pk_held <= 1'b0;
                    // (a line partly filled is written too: a burst can
                    // take it at once)
                    sm_we <= 1'b1;
                    sm_wa <= s_li;
                    sm_wd <= ln | chunk_d;
                    if (chunk == l_room) begin
                        ln <= 512'd0;
                        s_li <= s_li + 6'd1;
                    end else begin
                        ln <= ln | chunk_d;
                    end
                end
            S_RQE0:
                if (dma_rd_valid)
                    rqe_take(rd_w0, rd_w1[31:0], dma_rd_err);
            S_CQE:
                if (cq_done)
                    st <= ret;
            S_END: begin
                if (w_rsp_wait) begin
                    // the WRITE's response waits for its data to leave
                end else if (s_n != 13'd0 && (rd || dma_cmd_valid) && !e_fast) begin
                    // the packet's staged bytes go out first (a SEND's
                    // command goes out below, with the packet's end)
                    flush;
                end else if (rd && w_busy) begin
                    // the burst of its data is still leaving
                end else if (rd) begin
                    // a WRITE's packet written: its last answers OK; a
                    // READ_RESP's: its last completes the READ
                    if (p_ends && h_kind == K_READ_RESP) begin
                        rdone_valid <= 1'b1;
                    end else if (p_ends) begin
                        c_rx_write <= 1'b1;
                        respond(K_WRITE_RESP, ST_OK);
                        rs_put(qpn, {3'b001, rtag});
                    end
                    st <= S_WAIT;
                end else begin
                    // the burst's command (the port is free) and the CQE
                    // in the same cycle: the CQE reaches the stage a cycle
                    // later and counts the burst
                    if (s_n != 13'd0 && !e_fast)
                        flush;
                    if (p_ends && c_open && !msg_dead) begin
                        if (c_buf) begin
                            cqe(ST_OK, 1'b1);
                            c_buf <= 1'b0;
                        end
                        c_open <= 1'b0;
                    end
                    st <= S_WAIT;
                    if (e_fast) begin
                        // S_WAIT's work, and the next packet's header; the
                        // staged bytes stay (no burst: S_CHK decides)
                        ctx_back;
                        hdr_take;
                        pk_held <= 1'b1;
                        st <= S_CHK;
                        if (e_cont) begin
                            // (S_CHK's work for a packet going on)
                            held <= 1'b0;
                            msg_dead <= 1'b0;
                            left <= h_dlen;
                            st <= S_CHUNK;
                        end
                    end
                end
                // (more bytes than RX_M_LEN said, padding: S_WAIT lets go
                // of them with the packet, its CQE kept)
            end
            S_WAIT: begin
                pk_held <= 1'b0;      // (the next packet may come meanwhile)
                if (cq_done) begin
                    ctx_back;
                    st <= S_IDLE;
                    if (nx_fast) begin
                        // the next packet's header at once, its context
                        // the one in the registers
                        hdr_take;
                        pk_held <= 1'b1;
                        st <= S_CHK;
                    end else if (nx_pkt) begin
                        // the next packet is queued and S_IDLE has nothing
                        // else to do: its header at once (the context just
                        // written is the one in the registers, for S_CTX:
                        // the RAM gives it a cycle later)
                        ctx_ra <= iq_qpid;
                        pk_held <= 1'b1;
                        c_byp <= !t2 && !rd && iq_qpid == qpn;
                        st <= S_HDR;
                    end
                end
            end
            default: st <= S_IDLE;
            endcase
        end
        // owner changes: the scan of S_IDLE takes them one by one; stopped
        // contexts: a whole scan
        run_q <= rst ? {NCTX{1'b0}} : u_runs;
        if (rst) begin
            sfl <= {NCTX{1'b0}};
            sc_mask <= {NCTX{1'b0}};
            sc_on <= 1'b0;
            of_hit <= 1'b0;
        end else begin
            if (st == S_IDLE && !stop_now && !cqe_v && sfl != {NCTX{1'b0}} && !sc_on)
                sfl <= run_fell;
            else
                sfl <= sfl | run_fell;
        end
        // the waiting packet's QP changed owner: it is dropped
        if (rst || !held)
            h_ochg <= 1'b0;
        else if (own_chg && own_chg_qpn == qpn)
            h_ochg <= 1'b1;
        if (rst) begin
            ofl_r <= {QP_NUM{1'b0}};
            ofi <= {QP_AW{1'b0}};
        end else begin
            if (st == S_OF4 && !stop_now)
                ofl_r[ofi] <= 1'b0;
            if (own_chg)
                ofl_r[own_chg_qpn] <= 1'b1;
        end
        // a group joined now: its senders start afresh
        if (!rst)
            for (gi = 0; gi < 8; gi = gi + 1)
                if (t2_join[gi] && !t2_join_q[gi])
                    t2s_used[T2_SRCS * gi +: T2_SRCS] <= {T2_SRCS{1'b0}};
    end
    always @(posedge clk)
        t2_join_q <= rst ? 8'd0 : t2_join;
endmodule
`default_nettype wire
