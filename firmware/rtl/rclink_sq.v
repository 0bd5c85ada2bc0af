// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: send queue engine (Documentation/hw/shim.rst, "Send
// queue"), after the request state machine of seed 004:
//
//   IDLE        the SQ holds a WQE, a TX_S_CRD_O token is held and a
//               message slot is free: read the WQE chain and check it
//               (CHECK).  A bad chain (opcode, length 0 or above
//               65536, QPN >= QP_NUM, QPN changing, total above max_msg,
//               chain longer than the ring) completes BAD_WQE and is
//               counted; an unreadable WQE completes DMA_ERR.
//   SEND        (the only request type, opcode SEND) read the message's
//               WQEs again one by one, DMAQ_SQ_CONS advancing past each.
//   WRITE_HEAD  take the next of the packet buffer's NB banks for the
//               packet, with its segment header (POS FIRST/MIDDLE/LAST/
//               ONLY, OFFSET, MSG_LEN) as its first 8 bytes.
//   WRITE_DATA  issue the reads of the packet's data (at most
//               TYPE1_PKT_LEN - 8 bytes) and go on with the next packet
//               (WRITE_HEAD) or message (IDLE) without waiting for them:
//               the packer fills the banks as the beats come, and the
//               emission sends each packed bank in turn, once a token is
//               held, on TX_S in one burst (FS..FE, FACK on the message's
//               last packet), padded with zero bytes to the IP's TX_S
//               minimum of SEG.PKT_MIN (64) bytes, taking the token.  A
//               read that fails ends the message with a DMA_ERR
//               completion when the emission reaches its packet (the
//               packets already submitted stay, the rest is not sent, the
//               rest of the chain is skipped); one that takes more than
//               TIMEOUT cycles fails the packets not yet packed the same
//               way, and late answers are dropped.
//   DONE        the message is submitted when its last packet takes its
//               token.
//
// DMA goes through the engine's burst interface.  WQEs are read a
// 256-byte block at a time (up to 16 WQEs, none past DMAQ_SQ_PROD or the
// ring's end) into a cache that CHECK and SEND use, so that a message of
// one WQE costs one read or none.  A packet's payload is one read command
// per piece (a WQE's part of the packet), issued back to back so that
// several reads are outstanding; the address-aligned 512-bit beats are
// packed behind the segment header into the packet buffer (512-bit rows)
// as they come, and the emission sends the rows as 512-bit TX_S beats
// (the seed IP's DW: the first byte in [511:504], tkeep contiguous from
// the top, the last beat partial).  A beat flagged err (a bad or timed-out
// completion, or bus mastering off) ends the message with DMA_ERR once
// the packet's reads have all answered.
//
// A message completes (one SEND CQE) when the credits of all its packets
// have returned: OK when each came back with TX_S_CRD_QPID_VLD_O (the
// peer acknowledged it), FLUSHED when one came back without (dropped by
// the IP for a disabled QP; counted in DMAQ_T1_TX_DROP_QP_OFF).  Messages
// of one QP complete in order.  MSGS messages may be in flight.
//
// TYPE2 (opcode MCAST, QPN = the group 0..7): the chain is one packet
// (segment header ONLY) of at most T2_PKT_LEN bytes, sent on TX_S with
// TX_S_ETYPE_I = 3 and the group on TX_S_TYPE2_GROUP_INDEX_I once a
// TYPE2 token (TX_S_CRD_O[3], T2_OST_N of them) is held.  It completes
// (SEND_MCAST CQE) when the IP gives its token back, that is when the
// packet has left the IP's TYPE2 buffer (Documentation/hw/shim.rst,
// TYPE2): nothing acknowledges TYPE2, the buffer is all the IP tells.
// Leaving TX_S the message frees its slot and waits in a queue of
// T2_OST_N completions (so up to T2_OST_N TYPE2 messages are in the IP
// while MSGS others are sent); the tokens come back in order, each
// completing the oldest: OK, or FLUSHED when the link is down by then (the
// IP dropped it).  A group >= 8 completes BAD_WQE; a chain
// over T2_PKT_LEN - 8 bytes completes BAD_WQE and counts in
// DMAQ_T2_TX_DROP (t2_oversize pulses); with the link down the message
// completes FLUSHED, counted in DMAQ_T2_TX_DROP.  TYPE2 messages are
// ordered among themselves, not with the TYPE1 QP of the same number.
//
// User contexts (NCTX > 1, rclink_ctx; shim.rst "Contexts"): the engine
// serves one context's SQ at a time (q_ctx): context 0's first, else the
// user context rclink_ctx picks (round robin among the running ones with
// a WQE posted and room in their CQ).  A user context's WQE addresses are
// offsets into its area: CHECK completes a piece outside it BAD_ADDR (after
// the other checks), and every payload read goes through the translation
// port, cut at chunk ends.  Every context, 0 too, is held to the owner
// tables (NOT_OWNER).  A user context's BAD_WQE, BAD_ADDR or DMA_ERR
// message puts it in error (x_fail: the SQ index of the chain, or the bus
// address of the failed read, kept for the PA_N payload reads in flight).
// Each message slot keeps its context; its CQE goes to that context's CQ
// (cqe_ctx), and a context-0 CQE waiting for room does not hold the
// others'.  When a user context stops, its messages in flight complete
// FLUSHED and a chain being checked is dropped unread.  The packets each
// slot holds in the IP (ost_out) and its context (ost_ctx) give
// rclink_ctx the contexts' shares of the slots (DMAQ_CTX_OST.used); a
// user context's packet is cut only while its share has room (q_ost_ok).
// A message being cut waits for that room holding the engine (the model's
// engine goes on with the other contexts meanwhile); a context at its
// share is not picked for a new message.  A user context's chain whose
// end is not posted yet (its last WQE read has MORE and the next is at
// its SQ_PROD) is dropped in CHECK, before anything is sent: the engine
// goes on with the other contexts and rclink_ctx parks the context
// (u_park) until its SQ_PROD moves, then the chain is read again from its
// first WQE.  Context 0's chain waits in CHECK (the kernel's queue).
//
// The RDMA responder's packets (rclink_rx; rtl.rst, "RDMA responder"):
// a response of one beat (rsp_*) or a READ_RESP with data streamed from
// the receive engine's packet memory (dp_*) is sent between the banks'
// packets with a token of its own; a credit of its QP goes back to it.
//
// The RDMA requester's WRITE (rtl.rst, "RDMA requester"; shim.rst,
// "Requester"): a chain of WRITE WQEs (context 0: pieces; a user context:
// one, an area offset or with LKEY_EN an offset in its own registration,
// rclink_mr's lq_* port), a REMOTE WQE (RKEY, remote address) and perhaps
// an IMM WQE, checked in CHECK as the model does (BAD_WQE; BAD_ADDR for a
// local side outside the area or the registration).  It is cut as a SEND
// is, with the RDMA header (KEY, the QP's next TAG, ADDR) after the
// segment header (KIND WRITE) and at most RDMAH.PKT_DATA bytes a packet;
// with immediate data an IMM packet (no data) follows, written straight
// into its bank once the banks before it are packed.  The message's last
// packet asks for its acknowledgement (FACK).  Its slot stays taken until
// the WRITE_RESP of its QP and TAG comes (rclink_rx, wresp_*: the CQE has
// its status) or, once every packet is acknowledged, DMAQ_RDMA_CFG.timeout_us
// microseconds pass (REM_TIMEOUT); a response that comes later matches
// nothing (rclink_rx counts it late).
//
// A READ (context 0: a chain of up to RD_PIECES READ WQEs, each a piece
// of host memory; a user context: one, its area offset or local key
// offset; then the REMOTE WQE) sends one READ_REQ packet (no data, like
// the IMM packet).  The slot keeps the pieces (bus address, end offset in
// the message).  rclink_rx hands each READ_RESP to the engine (rresp_*):
// one of a READ waiting, with its next offset and fitting its length (and
// with a local key, the entry still the key's and holding the packet's
// range: rclink_mr's lr_* port, looked up for each packet), is
// written by rclink_rx to the READ's local side and restarts the timeout;
// while its data is written (rr_busy; rr_cur the READ's slot, taken with
// the packet) rresp_base and rresp_room give the bus address (or area
// offset) of the message offset rp_off and the bytes left in its piece,
// from registers (rclink_rx asks at the packet's first byte and when a
// piece is full inside it).  A refusal,
// or one that does not fit, completes the READ with its status (DMA_ERR);
// the last one completes it once its data is written (rdone_valid).  A
// context-0 READ of more pieces is BAD_WQE; DMAQ_MR_CAP.max_len is what
// the driver's chains of 64 KiB chunks fit in (RD_PIECES - 1 chunks).
`default_nettype none
`include "rclink_regs.vh"
module rclink_sq #(
    parameter QP_AW = 10,
    parameter QP_NUM = `RCLINK_PARAM_QP_NUM,
    parameter OST_N = `RCLINK_PARAM_TYPE1_OST_N,
    parameter PKT_LEN = `RCLINK_PARAM_TYPE1_PKT_LEN,
    parameter T2_OST_N = `RCLINK_PARAM_TYPE2_OST_N,
    parameter T2_PKT_LEN = `RCLINK_PARAM_TYPE2_PKT_LEN,
    parameter MAX_MSG = `RCLINK_DMAQ_CAP_RSTVAL & 64'hffffff,
    parameter TIMEOUT = 4096,
    parameter MSGS = 8,             // message slots (2, 4, 8 or 16)
    parameter NCTX = 1,             // contexts (rclink_ctx: 1..NCTX-1 user ones)
    parameter CW = 1,               // max(1, clog2(NCTX))
    parameter US_CYCLES = 250,      // clock cycles a microsecond (the RDMA timeout)
    parameter RD_PIECES = 17        // pieces of a context-0 READ (1 MiB in 64 KiB chunks, unaligned)
) (
    input  wire        clk,
    input  wire        rst,
    input  wire [63:0] sq_base,
    input  wire [3:0]  sq_order,
    input  wire        sq_en,
    input  wire        sq_stop,
    input  wire [31:0] sq_prod,
    output wire [31:0] sq_cons,
    output reg  [9:0]  ost_free,
    output wire [9:0]  t2_ost_free,      // TYPE2 tokens held (DMAQ_T2_OST_FREE)
    output reg  [63:0] cnt_bad_wqe,
    output reg  [63:0] cnt_drop_qp_off,
    output reg  [63:0] cnt_t2_tx_pkts,
    output reg  [63:0] cnt_t2_tx_drop,
    output reg         t2_oversize,      // a TYPE2 chain over T2_PKT_LEN
    input  wire        link_up,
    // the owner tables (rclink_ctx): the message's QP (group) and whether
    // another context than 0 owns it (then it completes NOT_OWNER)
    output wire [15:0] own_q,
    output wire        own_t2,
    input  wire        own_other,
    // user contexts (rclink_ctx, NCTX > 1): the context the engine serves
    // (q_ctx) and its ring, area and translation
    output reg  [CW-1:0] q_ctx,
    output wire        q_busy,           // working for q_ctx
    input  wire        u_any,            // a user context's SQ holds a WQE
    input  wire [CW-1:0] u_pick,         // ... the next of them (round robin)
    input  wire [31:0] u_pick_cons,      // ... and its consumer index
    output wire        u_take,           // the engine takes u_pick now
    output wire        u_park,           // q_ctx's chain is unfinished at its SQ_PROD
    input  wire [63:0] u_base,           // q_ctx's SQ
    input  wire [3:0]  u_order,
    input  wire        u_run,
    input  wire [31:0] u_prod,
    input  wire [63:0] u_area,           // q_ctx's area size in bytes
    input  wire [NCTX-1:0] u_runs,       // running contexts
    output wire [63:0] tr_off,           // an area offset of q_ctx ...
    input  wire [63:0] tr_bus,           // ... its bus address
    input  wire [31:0] tr_rem,           // ... and the bytes to its chunk's end
    output wire        u_cons_we,        // u_cons is q_ctx's consumer index
    output wire [31:0] u_cons,
    output reg  [CW-1:0] x_ctx,          // the context of the pulses below
    output reg         x_new,            // a message takes a slot (a CQE to come)
    output reg         x_not_owner,      // ... completes NOT_OWNER
    output reg         x_fail,           // ... puts the context in error
    output reg  [7:0]  x_cause,
    output reg  [63:0] x_info,
    input  wire        k_room,           // context 0's CQ takes a CQE
    output reg  [MSGS-1:0] fl_v,         // a stop flushed the slot's unacknowledged
    output reg  [MSGS*QP_AW-1:0] fl_qpn, // packets of this QP (DMAQ_QP_OWNER.flushed)
    output wire [MSGS*10-1:0] ost_out,   // the slot's TYPE1 packets in the IP
    output wire [MSGS*CW-1:0] ost_ctx,   // ... and its context
    input  wire        q_ost_ok,         // q_ctx's share of the IP's slots has room
    output wire [CW-1:0] cqe_ctx,        // the CQE's context
    // DMA engine burst client (reads only)
    output reg         dma_cmd_valid,
    input  wire        dma_cmd_ready,
    output reg  [63:0] dma_cmd_addr,
    output reg  [12:0] dma_cmd_len,
    input  wire        dma_rd_valid,
    input  wire [511:0] dma_rd_data,
    input  wire [63:0] dma_rd_keep,
    input  wire        dma_rd_last,
    input  wire        dma_rd_err,
    // TX_S (512-bit; the first byte of the packet in [511:504])
    output reg         tx_vld,
    output reg         tx_fs,
    output reg         tx_fe,
    output reg  [511:0] tx_dat,
    output reg  [63:0] tx_keep,
    output reg  [QP_AW-1:0] tx_qpid,
    output reg         tx_fack,
    output reg  [1:0]  tx_etype,         // 0 TYPE1, 3 TYPE2
    output reg  [2:0]  tx_group,         // TX_S_TYPE2_GROUP_INDEX_I
    input  wire        crd,              // TX_S_CRD_O[0]
    input  wire        crd_t2,           // TX_S_CRD_O[3]
    input  wire [QP_AW-1:0] crd_qpid,
    input  wire        crd_qpid_vld,
    // the RDMA responder's responses (rclink_rx): one packet each, sent
    // between the banks' packets with a token of their own
    input  wire        rsp_valid,
    output wire        rsp_take,
    input  wire [QP_AW-1:0] rsp_qpn,
    input  wire [2:0]  rsp_kind,
    input  wire [15:0] rsp_tag,
    input  wire [7:0]  rsp_status,
    // a READ_RESP packet with data (rclink_rx builds it): dp_bytes in
    // rows read through dp_raddr, a cycle later on dp_rdata
    input  wire        dp_valid,
    output wire        dp_take,
    input  wire [QP_AW-1:0] dp_qpn,
    input  wire [10:0] dp_bytes,
    output wire [4:0]  dp_raddr,
    input  wire [511:0] dp_rdata,
    output reg         dp_done,
    // the requester's WRITE: DMAQ_RDMA_CFG.timeout_us, a WRITE_RESP that
    // came in (rclink_rx; wresp_hit: a WRITE waits for it, else it is
    // late), the local key's entry (rclink_mr) and the counters' pulses
    input  wire [31:0] rdma_tmo_us,
    output wire        rdma_wait,        // a WRITE or READ waits: its timeout runs
    input  wire        wresp_valid,
    input  wire [QP_AW-1:0] wresp_qpn,
    input  wire [15:0] wresp_tag,
    input  wire [7:0]  wresp_st,
    output wire        wresp_hit,
    output wire [15:0] lq_idx,
    input  wire        lq_ok,
    input  wire [63:0] lq_base,
    input  wire [31:0] lq_len,
    input  wire [63:0] lq_ctrl,
    // the entry of a READ's local key, looked up again for each READ_RESP
    // packet (lr_idx: the READ's entry)
    output wire [15:0] lr_idx,
    input  wire        lr_ok,
    input  wire [63:0] lr_base,
    input  wire [31:0] lr_len,
    input  wire [63:0] lr_ctrl,
    // a local key of a pages registration (rclink_mr): the WRITE's source
    // reads translated through its table (pq_on: tr_off of entry pq_idx;
    // pq_ok once pq_bus is its bus address)
    output wire        pq_on,
    output wire        pq_use,          // a message of entry pq_idx's runs
    output wire [15:0] pq_idx,
    input  wire        pq_ok,
    input  wire [63:0] pq_bus,
    output reg         c_tx_write,
    output reg         c_rem_err,
    output reg         c_timeout,
    // the requester's READ: a READ_RESP that came in (rclink_rx; its QP,
    // TAG and STATUS on wresp_*): rresp_hit, a READ waits for it;
    // rresp_ok, its data goes to the READ's local side: rresp_base (a bus
    // address, or a user context's area offset) of rp_off, the message
    // offset being written; rdone_valid, the READ's last data is written
    // (QP and TAG on wresp_*)
    input  wire        rresp_valid,
    input  wire [31:0] rresp_off,
    input  wire [31:0] rresp_mlen,
    input  wire [31:0] rresp_dlen,
    input  wire        rresp_ends,
    output wire        rresp_hit,
    output wire        rresp_ok,
    output wire [63:0] rresp_base,
    output wire        rresp_pg,        // ... an offset of entry rresp_idx's pages
    output wire [15:0] rresp_idx,
    output wire        rresp_lk,        // ... a local key's entry (busy meanwhile)
    output wire [31:0] rresp_room,      // bytes of rresp_base's piece from there
    input  wire [31:0] rp_off,          // the message offset looked up (rr_busy)
    input  wire        rdone_valid,
    input  wire        rr_busy,         // rclink_rx writes data of the READ of wresp_*
    output reg         c_tx_read,
    // send completions
    output wire        quiet_done,       // a QUIET SEND of quiet_ctx done OK: no CQE
    output wire [CW-1:0] quiet_ctx,
    output wire        cqe_valid,
    input  wire        cqe_ready,
    output wire [63:0] cqe_w0,
    output wire [63:0] cqe_w1
);
    localparam SEG = `RCLINK_SEG_BYTES;
    localparam DATA_MAX = PKT_LEN - SEG;           // 1336
    localparam T2_DATA_MAX = T2_PKT_LEN - SEG;     // 1336
    localparam PB_LEN = (T2_PKT_LEN > PKT_LEN) ? T2_PKT_LEN : PKT_LEN;
    localparam PB_ROWS = (PB_LEN + 63) / 64;       // 21 rows of 512 bits
    localparam integer PB_LAST_I = PB_ROWS - 1;
    localparam [4:0] PB_LAST = PB_LAST_I[4:0];
    localparam [5:0] SEG6 = SEG;
    localparam SLW = (MSGS <= 2) ? 1 : (MSGS <= 4) ? 2 : (MSGS <= 8) ? 3 : 4;
    localparam [15:0] T2_GROUPS = `RCLINK_AFH_T2_GROUPS;
    localparam [7:0] ST_OK = `RCLINK_CQE_ST_OK, ST_FLUSHED = `RCLINK_CQE_ST_FLUSHED,
                     ST_BAD_WQE = `RCLINK_CQE_ST_BAD_WQE, ST_DMA_ERR = `RCLINK_CQE_ST_DMA_ERR,
                     ST_NOT_OWNER = `RCLINK_CQE_ST_NOT_OWNER,
                     ST_BAD_ADDR = `RCLINK_CQE_ST_BAD_ADDR,
                     ST_REM_KEY = `RCLINK_CQE_ST_REM_KEY,
                     ST_REM_BOUNDS = `RCLINK_CQE_ST_REM_BOUNDS,
                     ST_REM_TIMEOUT = `RCLINK_CQE_ST_REM_TIMEOUT;

    // the states of seed 004 (IDLE, SEND, WRITE_HEAD, WRITE_DATA, DONE),
    // with the WQE checks before SEND and the error completion
    localparam S_IDLE            = 4'd0,
               S_CHECK           = 4'd1,    // check the next WQE of the chain
               S_FILL            = 4'd2,    // read a block of WQEs
               S_CHECK_END       = 4'd3,    // the message takes a slot
               S_SEND            = 4'd4,    // take the next WQE (both words)
               S_FILL_WAIT       = 4'd5,
               S_WRITE_HEAD      = 4'd6,    // token, segment header
               S_WRITE_DATA      = 4'd7,    // payload reads of the packet
               S_ERROR           = 4'd12,   // DMA_ERR completion
               S_DRAIN           = 4'd13;   // a late read answer
    reg [3:0] st;
    reg       was_busy;          // st left S_IDLE or came back the last cycle

    // ---- the ring served: context 0's or q_ctx's --------------------------------------
    wire        uq = q_ctx != {CW{1'b0}};
    reg  [31:0] x_cons;          // the ring's consumer index
    reg  [31:0] k_cons;          // context 0's while a user context is served
    wire [63:0] r_base  = uq ? u_base : sq_base;
    wire [3:0]  r_order = uq ? u_order : sq_order;
    wire        r_en    = uq ? u_run : sq_en;
    wire [31:0] r_prod  = uq ? u_prod : sq_prod;
    assign sq_cons = uq ? k_cons : x_cons;
    assign u_cons = x_cons;
    assign q_busy = st != S_IDLE || was_busy;
    assign u_cons_we = uq && q_busy;

    // ---- message slots -------------------------------------------------------
    reg [MSGS-1:0] m_v, m_all;
    reg [MSGS-1:0] m_t2;         // a TYPE2 message: m_qpn is its group
    reg [CW-1:0]   m_ctx   [0:MSGS-1];
    reg [15:0]     m_qpn   [0:MSGS-1];
    reg [31:0]     m_len   [0:MSGS-1];
    reg [31:0]     m_idx   [0:MSGS-1];
    reg [7:0]      m_st    [0:MSGS-1];
    reg [9:0]      m_out   [0:MSGS-1];
    reg [7:0]      m_age   [0:MSGS-1];
    reg [7:0]      age_next;
    genvar         og;
    generate
        for (og = 0; og < MSGS; og = og + 1) begin : g_ost
            assign ost_out[10*og +: 10] = (m_v[og] && !m_t2[og]) ? m_out[og] : 10'd0;
            assign ost_ctx[CW*og +: CW] = m_ctx[og];
        end
    endgenerate

    // ---- current message ---------------------------------------------------------
    reg [31:0] c_first;          // SQ index of the chain's first WQE
    reg [31:0] c_n;              // WQEs of the chain read in CHECK
    reg [15:0] c_qpn;
    reg [31:0] c_total;
    reg        c_fack;
    reg        c_quiet;                 // a SEND with QUIET on its first WQE
    reg [MSGS-1:0] m_quiet;
    reg [7:0]  c_status;
    reg        c_bad;
    reg        c_t2;             // opcode MCAST
    reg        c_over;           // TYPE2 chain over T2_PKT_LEN (its first fault)
    reg        c_oob;            // a user context's address outside its area (first fault)
    reg [63:0] c_einfo;          // the bus address of a failed read
    // an RDMA WRITE (shim.rst, "RDMA WRITE and READ", "Requester"): its
    // local WQEs, the REMOTE WQE (c_rph: read), perhaps an IMM WQE
    reg        c_rdma;           // the chain's first WQE is a WRITE or READ
    reg        c_rd;             // ... a READ
    reg        c_rph;            // the REMOTE WQE was read
    reg [31:0] c_rkey;
    reg [63:0] c_raddr;
    reg        c_has_imm;
    reg [31:0] c_imm;
    reg        c_imm_sent;       // the IMM packet is taken
    reg [63:0] c_addr0;          // the first local WQE's ADDR
    reg        c_lkey;           // the local side is a registration ...
    reg [63:0] c_lbase;          // ... starting at this area offset
    reg        c_lpg;            // ... of host pages (entry c_lidx)
    reg [15:0] c_lidx;
    reg [7:0]  c_lgen;
    // the slots' WRITEs: their TAG, the response (m_resp, its status
    // m_rs), the timeout armed (m_tw) and its microseconds left
    reg [MSGS-1:0] m_rk, m_resp, m_tw;
    reg [MSGS-1:0] m_rd;         // a READ: its local side, the next offset due
    reg [63:0]     m_loc   [0:MSGS-1];
    reg [MSGS-1:0] m_lpg;        // ... an offset of host pages, entry m_lidx
    reg [15:0]     m_lidx  [0:MSGS-1];
    reg [MSGS-1:0] m_lk;         // ... through a local key of generation m_lgen
    reg [7:0]      m_lgen  [0:MSGS-1];
    reg [31:0]     m_roff  [0:MSGS-1];
    // a context-0 READ's pieces: slot s's piece j at s * RD_PIECES + j, its
    // bus address and the message offset where it ends
    reg [63:0]     m_pa    [0:MSGS*RD_PIECES-1];
    reg [31:0]     m_pe    [0:MSGS*RD_PIECES-1];
    reg [SLW-1:0]  rr_cur;       // the READ whose packet rclink_rx writes (rr_busy)
    reg [15:0]     m_tag   [0:MSGS-1];
    reg [7:0]      m_rs    [0:MSGS-1];
    reg [31:0]     m_tl    [0:MSGS-1];
    // the next TAG of each QP (0 until the QP's first WRITE: t_v)
    reg [15:0]     t_mem   [0:QP_NUM-1];
    reg [QP_NUM-1:0] t_v;
    wire [15:0]    t_cur = t_v[c_qpn[QP_AW-1:0]] ? t_mem[c_qpn[QP_AW-1:0]] : 16'd0;
    reg [15:0]     us_pre;
    wire           us_tick = us_pre == US_CYCLES[15:0] - 16'd1;
    wire [31:0]    tmo_us = (rdma_tmo_us == 32'd0) ? 32'd100000 : rdma_tmo_us;
    reg [9:0]  t2_free;          // TYPE2 tokens held
    assign own_q = c_qpn;
    assign own_t2 = c_t2;
    assign t2_ost_free = t2_free;
    // TYPE2 messages in the IP: [q_rp, q_tp) have their token back (status
    // known), [q_tp, q_wp) wait for it; q_skip tokens of messages the SQ
    // disable completed already
    localparam T2Q = 16;
    reg [2:0]  q_grp [0:T2Q-1];
    reg [31:0] q_len [0:T2Q-1];
    reg [31:0] q_idx [0:T2Q-1];
    reg [7:0]  q_st  [0:T2Q-1];
    reg [CW-1:0] q_cx [0:T2Q-1];
    reg [4:0]  q_wp, q_tp, q_rp;
    reg [9:0]  q_skip;
    wire [4:0] q_n = q_wp - q_rp;
    wire [4:0] q_nw = q_wp - q_tp;             // waiting for their token
    wire       q_rdy = q_rp != q_tp;
    // the head goes on unless it waits for room in context 0's CQ
    wire       q_go = q_rdy && (q_cx[q_rp[3:0]] != {CW{1'b0}} || k_room);
    // the entries waiting for their token
    reg [T2Q-1:0] q_wait;
    reg [3:0]     q_o;
    integer       qi;
    always @* begin
        for (qi = 0; qi < T2Q; qi = qi + 1) begin
            q_o = qi[3:0] - q_tp[3:0];
            q_wait[qi] = {1'b0, q_o} < q_nw;
        end
    end
    // a token that completes (or is skipped) this cycle
    wire       q_tok = crd_t2 && (q_skip != 10'd0 || q_nw != 5'd0);
    reg [SLW-1:0] c_slot;
    reg [31:0] c_off;            // message bytes packed so far
    reg [63:0] p_addr;           // current piece
    reg [31:0] p_rem;
    reg [31:0] k_rem;            // bytes of this packet still to request
    reg [15:0] tmo;
    wire       tmo_hit = tmo >= TIMEOUT;
    reg [5:0]  nrd;              // read commands not fully answered
    reg [SLW-1:0] last_slot;        // slot of the last packet submitted
    // WQE cache: SQ indices [wl_lo, wl_lo + wl_n) of a 256-byte block of
    // the ring (four 64-byte lines, 16 WQEs)
    reg [2047:0] wl;
    reg [31:0]  wl_lo;
    reg [4:0]   wl_n;
    reg [1:0]   f_line;          // the line of the fill's next beat
    reg         f_err;           // a beat of the fill came with err
    reg         f_chk;           // the fill is CHECK's (else SEND's)
    reg [31:0]  f_x;
    reg [4:0]   f_n;

    // ---- packet buffer: NB banks, the byte packer, the emission -----------------------
    // The engine takes the banks in turn, one a packet, with the packet's
    // descriptor (d_*), and issues its payload reads; the packer fills the
    // banks from the payload beats as they come (each read is tagged with
    // whether it is its packet's last), and the emission sends the packed
    // banks in the same order, so that the reads of the next packets are
    // in flight while one is sent.  Even banks are in pbuf0, odd ones in
    // pbuf1: a packet's last row and the next packet's first one may be
    // written in the same cycle.
    localparam NBW = 3;             // eight banks (four: 91 % of the link at 4 KiB, rtl.rst)
    localparam NB = 1 << NBW;
    localparam [NBW:0] B1 = 1;
    reg [511:0] pbuf0 [0:NB*16-1];
    reg [511:0] pbuf1 [0:NB*16-1];
    reg [NBW:0] fb;              // the next bank the engine takes (wrap bit on top)
    reg [NBW:0] pkb;             // the bank being packed
    reg [NBW:0] eh;              // the next bank to send
    reg         pk_open;         // the packer has begun bank pkb
    reg [4:0]   pb_w;            // its rows written
    reg [511:0] acc;             // bytes not yet in a row (acc_n of them)
    reg [5:0]   acc_n;
    reg         fl_p;            // a packet's last row, written the next cycle
    reg [NBW-1:0] fl_b;
    reg [4:0]   fl_r;
    reg [511:0] fl_d;
    reg         dr;              // a read timed out: beats are dropped until none is due
    reg [191:0] d_hdr    [0:NB-1];    // SEG (and RDMAH: an RDMA packet's)
    reg [5:0]   d_hn     [0:NB-1];    // ... its bytes (8 or 24)
    reg [SLW-1:0] d_slot [0:NB-1];
    reg [15:0]  d_qpn    [0:NB-1];
    reg [31:0]  d_total  [0:NB-1];
    reg [31:0]  d_idx    [0:NB-1];
    reg [CW-1:0] d_ctx   [0:NB-1];
    reg [10:0]  d_pbytes [0:NB-1];
    reg [63:0]  d_einfo  [0:NB-1];
    reg [NB-1:0] d_t2, d_fack, d_mlast, d_err, d_rdy, d_kill;
    wire [NBW:0] b_used = fb - eh;             // banks taken and not sent yet
    wire [NBW:0] b_pk = fb - pkb;              // ... not packed yet
    reg [MSGS-1:0] m_fail;       // a packet of the message failed: no more are sent
    reg [4:0]   e_ptr;           // emission: next row (TX_S beat) to read
    reg [4:0]   e_beats;         // beats on TX_S (at least SEG.PKT_MIN bytes)
    reg [6:0]   e_lastb;         // bytes in the last beat (1..64)
    reg [10:0]  e_pbytes;        // the packet's own bytes (the rest: padding)
    reg [511:0] e_q_mask;        // the bytes of e_row that are the packet's
    reg         e_fack;
    reg         e_t2;
    reg [NBW-1:0] e_bank;        // the packet being sent: its bank, slot,
    reg [SLW-1:0] e_slot;          // QP (group), message length, index,
    reg [15:0]  e_qpn;           // context, and whether it is the message's
    reg [31:0]  e_total;         // last packet (the message is then all
    reg [31:0]  e_idx;           // submitted)
    reg [CW-1:0] e_ctx;
    reg         e_mlast;
    reg         e_run;
    reg         e_first;
    reg [511:0] e_row;
    reg         e_q_v, e_q_last, e_q_first;
    wire        e_pend = e_run || e_q_v;       // a packet is being sent
    wire        b_free = ({1'b0, b_used} + {{(NBW+1){1'b0}}, e_pend}) < NB;
    wire        pipe_empty = b_used == {(NBW+1){1'b0}} && !e_pend;
    // the slots with a packet in a bank or being sent (b_occ: the banks
    // in [eh, fb), a bit each, set when fb passes the bank and cleared when
    // eh does, not from the pointers' difference)
    reg [NB-1:0]   b_occ;
    reg [MSGS-1:0] s_pend;
    integer        sb;
    always @* begin
        s_pend = {MSGS{1'b0}};
        for (sb = 0; sb < NB; sb = sb + 1)
            if (b_occ[sb])
                s_pend[d_slot[sb]] = 1'b1;
        if (e_pend)
            s_pend[e_slot] = 1'b1;
    end

    wire [31:0] size = 32'd1 << r_order;
    // the WQE CHECK looks at (xc) or SEND takes (x_cons), in the cache?
    wire [31:0] xc = c_first + c_n;
    wire [31:0] x_look = (st == S_SEND || (st == S_FILL && !f_chk)) ? x_cons : xc;
    wire [31:0] xm = x_look & (size - 32'd1);
    wire [31:0] x_rel = x_look - wl_lo;
    wire        hit = x_rel < {27'd0, wl_n};
    wire [63:0] cw0 = wl[128 * xm[3:0] +: 64];
    wire [63:0] cw1 = wl[128 * xm[3:0] + 64 +: 64];
    // a fill: the line of x_look, from it up to the line's, the ring's or
    // the posted WQEs' end
    wire [31:0] f_a = 32'd16 - {28'd0, xm[3:0]};
    wire [31:0] f_b = r_prod - x_look;
    wire [31:0] f_c = size - xm;
    wire [31:0] f_ab = (f_a < f_b) ? f_a : f_b;
    wire [4:0]  f_cnt0 = (f_ab < f_c) ? f_ab[4:0] : f_c[4:0];
    // at least the WQE asked for (DMAQ_SQ_PROD moved back by the host)
    wire [4:0]  f_cnt = (f_cnt0 == 5'd0) ? 5'd1 : f_cnt0;

    // the slots of user contexts that stopped (not the one being cut)
    reg [MSGS-1:0] u_flush;
    integer uf;
    always @* begin
        for (uf = 0; uf < MSGS; uf = uf + 1)
            u_flush[uf] = m_v[uf] && m_ctx[uf] != {CW{1'b0}} && !u_runs[m_ctx[uf]] &&
                          !(st != S_IDLE && c_slot == uf[SLW-1:0]) && !s_pend[uf];
        // ... those with packets not acknowledged yet (once: m_out clears)
        for (uf = 0; uf < MSGS; uf = uf + 1) begin
            fl_v[uf] = u_flush[uf] && !m_t2[uf] && m_out[uf] != 10'd0;
            fl_qpn[QP_AW*uf +: QP_AW] = m_qpn[uf][QP_AW-1:0];
        end
    end

    // free slot
    reg [SLW-1:0] free_slot;
    reg       have_free;
    integer i, j, f, g, h;
    always @* begin
        free_slot = {SLW{1'b0}};
        have_free = 1'b0;
        for (f = MSGS - 1; f >= 0; f = f - 1)
            if (!m_v[f]) begin
                free_slot = f[SLW-1:0];
                have_free = 1'b1;
            end
    end

    // the lowest slot of a set
    function [SLW-1:0] first_slot(input [MSGS-1:0] v);
        integer fs;
        begin
            first_slot = {SLW{1'b0}};
            for (fs = MSGS - 1; fs >= 0; fs = fs - 1)
                if (v[fs])
                    first_slot = fs[SLW-1:0];
        end
    endfunction

    // oldest slot of the credit's QP still waiting for credits: each
    // candidate against every other at once (ages compared in pairs, a
    // tie to the lower slot), not a chain of compares through the slots
    reg [MSGS-1:0] crd_m, crd_win;
    integer   ca;
    always @* begin
        for (g = 0; g < MSGS; g = g + 1)
            crd_m[g] = m_v[g] && !m_t2[g] && m_out[g] != 10'd0 &&
                       m_qpn[g] == {{(16-QP_AW){1'b0}}, crd_qpid};
        for (g = 0; g < MSGS; g = g + 1) begin
            crd_win[g] = crd_m[g];
            for (ca = 0; ca < MSGS; ca = ca + 1)
                if (ca < g && crd_m[ca] && !($signed(m_age[g] - m_age[ca]) < 0))
                    crd_win[g] = 1'b0;
                else if (ca > g && crd_m[ca] && $signed(m_age[ca] - m_age[g]) < 0)
                    crd_win[g] = 1'b0;
        end
    end
    wire [SLW-1:0] crd_slot = first_slot(crd_win);
    wire      crd_hit = crd_m != {MSGS{1'b0}};

    // a WRITE whose packets are all acknowledged waits for its response
    // (or its timeout) unless it failed or was flushed
    reg [MSGS-1:0] m_wait, m_acked;
    integer wi;
    always @* begin
        for (wi = 0; wi < MSGS; wi = wi + 1) begin
            m_acked[wi] = m_v[wi] && m_rk[wi] && m_all[wi] && m_out[wi] == 10'd0 &&
                          !s_pend[wi] && m_st[wi] == ST_OK;
            m_wait[wi] = m_acked[wi] && !m_resp[wi];
        end
    end
    assign rdma_wait = m_wait != {MSGS{1'b0}};
    // the WRITE a WRITE_RESP is for: its QP's, with its TAG, not answered
    // and not timed out; the READ a READ_RESP (or its last data written)
    // is for: its QP's, with its TAG, not answered, neither failed,
    // flushed nor timed out (the lowest such slot of each); the packet's
    // data is taken when it is the READ's next (the model's checks;
    // otherwise the READ completes DMA_ERR)
    // The QP and TAG compare is registered: rclink_rx's wresp_qpn and
    // wresp_tag hold the packet's a cycle before wresp_valid or
    // rresp_valid (the TAG is taken in S_RH0, the check is in S_RCHK after
    // S_RH1) and until rdone_valid; a slot taken (m_v) since the compare
    // does not match (its request is not sent yet)
    reg [MSGS-1:0] resp_m, wr_m, rr_m, qt_eq;
    integer   wk, wf;
    always @(posedge clk)
        for (wk = 0; wk < MSGS; wk = wk + 1)
            qt_eq[wk] <= m_v[wk] && m_qpn[wk] == {{(16-QP_AW){1'b0}}, wresp_qpn} &&
                         m_tag[wk] == wresp_tag;
    always @* begin
        for (wk = 0; wk < MSGS; wk = wk + 1) begin
            resp_m[wk] = m_v[wk] && !m_resp[wk] && qt_eq[wk];
            wr_m[wk] = resp_m[wk] && m_rk[wk] && !m_rd[wk] && m_st[wk] != ST_REM_TIMEOUT;
            rr_m[wk] = resp_m[wk] && m_rd[wk] && m_st[wk] == ST_OK;
        end
    end
    wire [SLW-1:0] wr_slot = first_slot(wr_m);
    wire      wr_hit = wr_m != {MSGS{1'b0}};
    assign wresp_hit = wresp_valid && wr_hit;
    wire [SLW-1:0] rr_slot = first_slot(rr_m);
    wire      rr_hit = rr_m != {MSGS{1'b0}};
    // (each slot's length and next offset compared at once, then the
    // READ's bit picked: no mux of 32-bit values before the compares)
    reg [MSGS-1:0] rr_fm;
    always @*
        for (wf = 0; wf < MSGS; wf = wf + 1)
            rr_fm[wf] = rresp_mlen == m_len[wf] && rresp_off == m_roff[wf];
    wire      rr_fit = rr_fm[rr_slot] && rresp_off <= rresp_mlen && rresp_dlen <= rresp_mlen - rresp_off &&
                       (!rresp_ends || rresp_off + rresp_dlen == rresp_mlen);
    // a READ through a local key: each packet with data checks the key
    // again (the model's rule, shim.rst "Requester"): the entry valid (its
    // table not being read), of the key's generation and the READ's
    // context, and [ADDR + OFFSET, + its data) inside it; otherwise the
    // READ ends DMA_ERR and nothing of the packet is written.  Once taken,
    // the entry reads busy until the packet's data has left (rclink_rx).
    wire [SLW-1:0] lr_s = rr_busy ? rr_cur : rr_slot;
    assign lr_idx = m_lidx[lr_s];
    wire [63:0]    lr_at = m_loc[rr_slot] + {32'd0, rresp_off};
    wire      rr_lk_ok = !m_lk[rr_slot] || rresp_dlen == 32'd0 ||
                         (lr_ok && lr_ctrl[`RCLINK_DMAQ_MR_CTRL_VALID_LSB] &&
                          lr_ctrl[`RCLINK_DMAQ_MR_CTRL_GEN_MSB:`RCLINK_DMAQ_MR_CTRL_GEN_LSB] ==
                          m_lgen[rr_slot] &&
                          lr_ctrl[`RCLINK_DMAQ_MR_CTRL_CTX_MSB:`RCLINK_DMAQ_MR_CTRL_CTX_LSB] ==
                          {{(16-CW){1'b0}}, m_ctx[rr_slot]} &&
                          lr_at <= {32'd0, lr_len} && rresp_dlen <= lr_len - lr_at[31:0]);
    assign rresp_hit = rresp_valid && rr_hit;
    assign rresp_ok = rresp_hit && wresp_st == ST_OK && rr_fit && rr_lk_ok;
    // the local side of a message offset of the READ: a user context's
    // area offset (or a registration's offset, from the entry's BASE as it
    // is now), or the piece of context 0's chain holding it (the first
    // whose end is past it) and the bytes left there.  Registered (a
    // pipeline stage before rclink_rx's c_addr): rresp_base and
    // rresp_room are those of rr_cur and rp_off a cycle before (lr_base
    // two: rclink_mr's lr_* are registered too); rclink_rx asks at least a
    // cycle after either moved (rr_cur and rp_off's start in S_RCHK, its
    // first byte in S_CHUNK after S_BEAT; a piece full inside the packet
    // after the write burst of the bytes staged), the entry's lr_idx is
    // the READ's from S_RH1 on
    // The pieces of rr_slot's READ are copied into a row of registers
    // (rw_pa, rw_pe) when a READ_RESP is checked, so they are rr_cur's
    // while rr_busy: the lookup compares the row, not the slots' pieces
    // after a select by rr_cur.
    wire [SLW-1:0] lk_s = rr_cur;
    wire [31:0]    lk_q = rp_off;
    reg [63:0]     lk_bus;
    reg [31:0]     lk_room;
    reg [RD_PIECES-1:0] lk_lt, lk_first;
    reg            lk_any;
    reg [63:0]     lk_pa;
    reg [31:0]     lk_pe, lk_beg;
    reg [RD_PIECES*64-1:0] rw_pa;
    reg [RD_PIECES*32-1:0] rw_pe;
    integer        pj;
    // (loaded at every READ_RESP checked: rr_busy starts with one taken;
    // the slot's pieces picked by the one-hot rr_oh, AND-OR)
    reg [MSGS-1:0] rr_oh;
    reg [RD_PIECES*64-1:0] rw_pa_n;
    reg [RD_PIECES*32-1:0] rw_pe_n;
    reg            rr_lower;
    integer        ps;
    always @* begin
        rr_lower = 1'b0;
        for (ps = 0; ps < MSGS; ps = ps + 1) begin
            rr_oh[ps] = rr_m[ps] && !rr_lower;
            rr_lower = rr_lower || rr_m[ps];
        end
        rw_pa_n = {RD_PIECES*64{1'b0}};
        rw_pe_n = {RD_PIECES*32{1'b0}};
        for (ps = 0; ps < MSGS; ps = ps + 1)
            for (pj = 0; pj < RD_PIECES; pj = pj + 1) begin
                rw_pa_n[pj*64 +: 64] = rw_pa_n[pj*64 +: 64] |
                                       (m_pa[ps * RD_PIECES + pj] & {64{rr_oh[ps]}});
                rw_pe_n[pj*32 +: 32] = rw_pe_n[pj*32 +: 32] |
                                       (m_pe[ps * RD_PIECES + pj] & {32{rr_oh[ps]}});
            end
    end
    always @(posedge clk)
        if (rresp_valid) begin
            rw_pa <= rw_pa_n;
            rw_pe <= rw_pe_n;
        end
    always @* begin
        // the pieces whose end is past the offset and the first of them
        // (one-hot, from an OR of the pieces below: those past the
        // chain's are not written), so that the selects below are
        // AND-OR, not a chain of muxes
        lk_any = 1'b0;
        for (pj = 0; pj < RD_PIECES; pj = pj + 1) begin
            lk_lt[pj] = lk_q < rw_pe[pj*32 +: 32];
            lk_first[pj] = lk_lt[pj] && !lk_any;
            lk_any = lk_any || lk_lt[pj];
        end
        lk_pa = 64'd0;
        lk_pe = 32'd0;
        lk_beg = 32'd0;
        for (pj = 0; pj < RD_PIECES; pj = pj + 1) begin
            lk_pa = lk_pa | (rw_pa[pj*64 +: 64] & {64{lk_first[pj]}});
            lk_pe = lk_pe | (rw_pe[pj*32 +: 32] & {32{lk_first[pj]}});
            if (pj > 0)
                lk_beg = lk_beg | (rw_pe[(pj-1)*32 +: 32] & {32{lk_first[pj]}});
        end
    end
    always @(posedge clk) begin
        if (m_ctx[lk_s] != {CW{1'b0}}) begin
            lk_bus <= m_loc[lk_s] + (m_lk[lk_s] ? lr_base : 64'd0) + {32'd0, lk_q};
            lk_room <= 32'hffffffff;
        end else begin
            // (an offset past every piece: none, 0 bytes)
            lk_bus <= lk_any ? lk_pa + {32'd0, lk_q - lk_beg} : 64'd0;
            lk_room <= lk_any ? lk_pe - lk_q : 32'd0;
        end
    end
    assign rresp_base = lk_bus;
    assign rresp_room = lk_room;
    assign rresp_pg = m_lpg[rr_slot];
    assign rresp_idx = m_lidx[rr_slot];
    assign rresp_lk = m_lk[rr_slot];

    // a finished slot with no older slot of its QP (the lowest of them)
    reg [MSGS-1:0] done_m;
    reg       older;
    always @* begin
        for (h = 0; h < MSGS; h = h + 1) begin
            older = 1'b0;
            for (j = 0; j < MSGS; j = j + 1)
                if (j != h && m_v[j] && m_qpn[j] == m_qpn[h] && m_t2[j] == m_t2[h] &&
                    $signed(m_age[j] - m_age[h]) < 0)
                    older = 1'b1;
            done_m[h] = m_v[h] && m_all[h] && m_out[h] == 10'd0 && !older && !m_wait[h] &&
                        !(rr_busy && rr_cur == h[SLW-1:0]) &&
                        !s_pend[h] && !(st != S_IDLE && c_slot == h[SLW-1:0]) &&
                        (m_ctx[h] != {CW{1'b0}} || k_room);
        end
    end
    wire [SLW-1:0] done_slot = first_slot(done_m);
    wire      done_hit = done_m != {MSGS{1'b0}};
    // a QUIET SEND done OK frees its slot with no CQE (any other status
    // is written); the TYPE2 queue's head first (it left before what the
    // slots hold)
    wire done_quiet = done_hit && m_quiet[done_slot] && m_st[done_slot] == ST_OK;
    assign quiet_done = done_quiet;
    assign quiet_ctx = m_ctx[done_slot];
    assign cqe_valid = q_go || (done_hit && !done_quiet);
    assign cqe_ctx = q_go ? q_cx[q_rp[3:0]] : m_ctx[done_slot];
    wire [3:0] done_kind = m_t2[done_slot] ? 4'd`RCLINK_CQE_KIND_SEND_MCAST :
                           m_rd[done_slot] ? 4'd`RCLINK_CQE_KIND_READ :
                           m_rk[done_slot] ? 4'd`RCLINK_CQE_KIND_WRITE :
                                             4'd`RCLINK_CQE_KIND_SEND;
    // a WRITE's status: its own (failed, flushed, timed out) or its
    // response's
    wire [7:0] done_st = (m_rk[done_slot] && m_st[done_slot] == ST_OK) ? m_rs[done_slot] :
                                                                          m_st[done_slot];
    wire [3:0]  q_h = q_rp[3:0];
    wire [3:0]  o_kind = q_go ? 4'd`RCLINK_CQE_KIND_SEND_MCAST : done_kind;
    wire [7:0]  o_st = q_go ? q_st[q_h] : done_st;
    wire [15:0] o_qpn = q_go ? {13'd0, q_grp[q_h]} : m_qpn[done_slot];
    wire [31:0] o_len = q_go ? q_len[q_h] : m_len[done_slot];
    wire [31:0] o_idx = q_go ? q_idx[q_h] : m_idx[done_slot];
    assign cqe_w0 = ({60'd0, o_kind} << `RCLINK_CQE_KIND_LSB) |
                    ({56'd0, o_st} << `RCLINK_CQE_STATUS_LSB) |
                    ({48'd0, o_qpn} << `RCLINK_CQE_QPN_LSB) |
                    ({32'd0, o_len} << `RCLINK_CQE_LEN_LSB);
    assign cqe_w1 = {32'd0, o_idx};

    // ---- responses of the RDMA responder ------------------------------------------
    // A response is one packet: the segment header (ONLY, its KIND,
    // MSG_LEN 0) and the RDMA header (TAG, STATUS; KEY and ADDR 0), padded
    // to SEG.PKT_MIN.  It is sent when no bank's packet is being sent and
    // a token is held, and RO of them may hold tokens at once; each
    // remembers its QP, so that a credit of that QP goes back to it
    // (credits of one QP return in order; one taken early for a
    // message's packet is its message's later) and a credit without QPID
    // after a response (the IP dropped it: QP disabled) too.
    localparam RO = 4;
    reg [RO-1:0]    ro_v;
    reg [QP_AW-1:0] ro_q [0:RO-1];
    reg [1:0]       ro_last;         // the entry of the last response sent
    reg             last_resp;       // the last packet submitted was a response
    reg             r_q_v;           // a response beat for TX_S
    reg [511:0]     r_q_dat;
    reg [QP_AW-1:0] r_q_qpn;
    reg [1:0]       ro_fi, ro_ci;    // a free entry; the credit's entry
    reg             ro_fok, ro_cok;
    integer         ri;
    always @* begin
        ro_fi = 2'd0;
        ro_fok = 1'b0;
        ro_ci = 2'd0;
        ro_cok = 1'b0;
        for (ri = RO - 1; ri >= 0; ri = ri - 1) begin
            if (!ro_v[ri]) begin
                ro_fi = ri[1:0];
                ro_fok = 1'b1;
            end
            if (ro_v[ri] && crd_qpid_vld && ro_q[ri] == crd_qpid) begin
                ro_ci = ri[1:0];
                ro_cok = 1'b1;
            end
        end
        if (!crd_qpid_vld && last_resp && ro_v[ro_last]) begin
            ro_ci = ro_last;
            ro_cok = 1'b1;
        end
    end
    wire r_crd = crd && ro_cok;
    // a data packet being streamed from rclink_rx's packet memory
    reg         p_run, p_q_v, p_q_first, p_q_last;
    reg [4:0]   p_ptr, p_beats;
    reg [6:0]   p_lastb;
    reg [QP_AW-1:0] p_qpn;
    wire        p_busy = p_run || p_q_v;
    wire        r_go = rsp_valid && !e_pend && !p_busy && tok_ok && ro_fok;
    wire        p_go = dp_valid && !r_go && !e_pend && !p_busy && tok_ok && ro_fok;
    wire [10:0] p_bytes = (dp_bytes < 11'd64) ? 11'd64 : dp_bytes;
    assign rsp_take = r_go;
    assign dp_take = p_go;
    assign dp_raddr = p_ptr;
    wire [63:0] r_seg = ({62'd0, 2'd`RCLINK_SEG_ONLY} << `RCLINK_SEG_POS_LSB) |
                        ({61'd0, rsp_kind} << `RCLINK_SEG_KIND_LSB);
    wire [63:0] r_rh0 = ({48'd0, rsp_tag} << `RCLINK_RDMAH_TAG_LSB) |
                        ({56'd0, rsp_status} << `RCLINK_RDMAH_STATUS_LSB);

    // a returning credit: the oldest message of its QP, or (no QPID: the
    // IP dropped the packet at submission) the last packet's message;
    // not a response's
    wire [SLW-1:0] dec_slot = crd_qpid_vld ? crd_slot : last_slot;
    wire       dec_ok = crd && !r_crd && (crd_qpid_vld ? crd_hit :
                                (m_v[last_slot] && m_out[last_slot] != 10'd0));

    // WQE word 0 checks
    wire [3:0]  w_op  = cw0[`RCLINK_WQE_OPCODE_MSB:`RCLINK_WQE_OPCODE_LSB];
    wire [31:0] w_len = cw0[`RCLINK_WQE_LEN_MSB:`RCLINK_WQE_LEN_LSB];
    wire [15:0] w_qpn = cw0[`RCLINK_WQE_QPN_MSB:`RCLINK_WQE_QPN_LSB];
    wire        w_more = cw0[`RCLINK_WQE_MORE_LSB];
    wire        w_fack = cw0[`RCLINK_WQE_FACK_LSB];
    wire        w_quiet = cw0[`RCLINK_WQE_QUIET_LSB];
    wire [32:0] w_total = {1'b0, c_total} + {1'b0, w_len};
    // the chain's opcode is its first WQE's (SEND or MCAST); the checks in
    // the model's order, so that oversize counts only as the first fault
    wire        w_t2 = (c_n == 32'd0) ? (w_op == `RCLINK_WQE_OP_MCAST) : c_t2;
    wire        w_bad_op = (c_n == 32'd0) ?
                           (w_op != `RCLINK_WQE_OP_SEND && w_op != `RCLINK_WQE_OP_MCAST) :
                           (w_op != (c_t2 ? `RCLINK_WQE_OP_MCAST : `RCLINK_WQE_OP_SEND));
    wire        w_bad_len = w_len == 32'd0 || w_len > `RCLINK_WQE_MAX_PIECE;
    wire        w_bad_grp = w_t2 && w_qpn >= T2_GROUPS;
    wire        w_over = w_t2 && w_total > T2_DATA_MAX;
    wire        w_bad = w_bad_op || w_bad_len || w_bad_grp || w_over || w_qpn >= QP_NUM ||
                        (c_n != 32'd0 && w_qpn != c_qpn) || {31'd0, w_total} > MAX_MSG;
    // a user context's piece must lie in its area (ADDR an offset there)
    wire        w_oob = uq && (cw1 > u_area || {32'd0, w_len} > u_area - cw1);
    // a WRITE (shim.rst, "Work requests"): its local WQEs (one in a user
    // context, a chain of pieces on context 0), the REMOTE WQE, perhaps
    // an IMM WQE; the checks of the model's, BAD_ADDR for a local side
    // outside the area or the local key's registration (at the REMOTE WQE)
    wire        w_rdop = (c_n == 32'd0) ? (w_op == `RCLINK_WQE_OP_READ) : c_rd;
    wire        w_rdma = (c_n == 32'd0) ? (w_op == `RCLINK_WQE_OP_WRITE || w_rdop) : c_rdma;
    wire [3:0]  w_lop = w_rdop ? `RCLINK_WQE_OP_READ : `RCLINK_WQE_OP_WRITE;
    wire        w_local = w_rdma && (c_n == 32'd0 || (!c_rph && w_op == w_lop));
    // (a READ of context 0 takes up to RD_PIECES pieces: the slot keeps them)
    wire        w_lbad = (uq && c_n != 32'd0) || (w_rdop && c_n >= RD_PIECES) || w_len == 32'd0 ||
                         (!uq && w_len > `RCLINK_WQE_MAX_PIECE) || {31'd0, w_total} > MAX_MSG ||
                         w_qpn >= QP_NUM || (c_n != 32'd0 && w_qpn != c_qpn);
    wire        w_lkey_en = cw0[`RCLINK_WQE_LKEY_EN_LSB];
    wire [23:0] w_lkey = cw0[`RCLINK_WQE_LKEY_MSB:`RCLINK_WQE_LKEY_LSB];
    assign lq_idx = w_lkey[`RCLINK_MR_KEY_INDEX_MSB:`RCLINK_MR_KEY_INDEX_LSB];
    wire        w_lk_ok = lq_ok && lq_ctrl[`RCLINK_DMAQ_MR_CTRL_VALID_LSB] &&
                          lq_ctrl[`RCLINK_DMAQ_MR_CTRL_GEN_MSB:`RCLINK_DMAQ_MR_CTRL_GEN_LSB] ==
                          w_lkey[`RCLINK_MR_KEY_GEN_MSB:`RCLINK_MR_KEY_GEN_LSB] &&
                          lq_ctrl[`RCLINK_DMAQ_MR_CTRL_CTX_MSB:`RCLINK_DMAQ_MR_CTRL_CTX_LSB] ==
                          {{(16-CW){1'b0}}, q_ctx} &&
                          (lq_ctrl[`RCLINK_DMAQ_MR_CTRL_PAGES_LSB] ||
                           (lq_base <= u_area && {32'd0, lq_len} <= u_area - lq_base)) &&
                          c_addr0 <= {32'd0, lq_len} && c_total <= lq_len - c_addr0[31:0];
    wire        w_oob_r = uq && (c_addr0 > u_area || {32'd0, c_total} > u_area - c_addr0);

    // packer input: the kept bytes of a payload beat (contiguous)
    reg [5:0] k_fo;
    reg [6:0] k_n;
    integer kb;
    always @* begin
        k_fo = 6'd0;
        k_n = 7'd0;
        for (kb = 63; kb >= 0; kb = kb - 1)
            if (dma_rd_keep[kb])
                k_fo = kb[5:0];
        for (kb = 0; kb < 64; kb = kb + 1)
            k_n = k_n + {6'd0, dma_rd_keep[kb]};
    end
    wire [511:0]  r_bytes = dma_rd_data >> {k_fo, 3'b000};
    wire [511:0]  r_mask = k_n[6] ? ~512'd0 : ~(~512'd0 << {k_n[5:0], 3'b000});
    // a register stage: the beat, its kept bytes moved to byte 0 and their
    // count go to the packer (and a fill) a cycle after they come, as from
    // a DMA engine a cycle slower (no ready: nothing is held back)
    reg           rd_v, rd_last, rd_err;
    reg [511:0]   rd_data, rd_bytes;
    reg [6:0]     rd_n;
    always @(posedge clk) begin
        rd_v <= !rst && dma_rd_valid;
        rd_last <= dma_rd_last;
        rd_err <= dma_rd_err;
        rd_data <= dma_rd_data;
        rd_bytes <= r_bytes & r_mask;
        rd_n <= k_n;
    end
    // the packer's bytes so far: the bank's segment header when it has
    // not begun
    wire [NBW-1:0] pkx = pkb[NBW-1:0];
    wire [511:0]  a_acc = pk_open ? acc : {320'd0, d_hdr[pkx]};
    wire [5:0]    a_n = pk_open ? acc_n : d_hn[pkx];
    wire [4:0]    a_w = pk_open ? pb_w : 5'd0;
    wire [1023:0] acc_in = {512'd0, a_acc} | ({512'd0, rd_bytes} << {a_n, 3'b000});
    wire [6:0]    acc_in_n = {1'b0, a_n} + rd_n;
    // the reads in flight, in order: a fill (WQE line) or a payload read,
    // and whether it is its packet's last
    localparam KQ = 32;
    reg [1:0]     kq [0:KQ-1];
    reg [4:0]     kq_w, kq_r;
    wire          k_fill = kq[kq_r][1];
    wire          k_plast = kq[kq_r][0];
    reg           f_plast;           // the command offered is its packet's last read
    // a payload beat (a fill's beat goes to S_FILL_WAIT)
    wire          pack = rd_v && !k_fill && !dr;
    wire          fill_beat = rd_v && k_fill;
    wire          pk_done = pack && rd_last && k_plast;

    // the next read of the packet: the rest of the piece or of the packet
    wire [31:0] nx_len0 = (p_rem < k_rem) ? p_rem : k_rem;
    // a user context's read stops at its chunk's end (tr_rem >= 1)
    // (host pages: at the page's end)
    wire [31:0] pg_rem = 32'd4096 - {20'd0, p_addr[11:0]};
    wire [31:0] nx_len = (c_lpg && pg_rem < nx_len0) ? pg_rem :
                         (!c_lpg && uq && tr_rem < nx_len0) ? tr_rem : nx_len0;
    assign tr_off = p_addr;
    assign pq_on = c_lpg && st == S_WRITE_DATA;
    assign pq_use = c_lpg && st != S_IDLE;
    assign pq_idx = c_lidx;
    // the bus addresses of the payload reads in flight (at most PA_N), for
    // a failed one's DMAQ_CTX_ERR_INFO
    localparam PA_N = 16;
    reg [63:0] pa_q [0:PA_N-1];
    reg [3:0]  pa_wp, pa_rp;
    reg        f_cmd;            // the last command is a fill (not payload)

    // POS of the packet starting at c_off with k bytes
    function [1:0] pos_of;
        input [31:0] off;
        input [31:0] k;
        input [31:0] total;
        begin
            if (off == 32'd0)
                pos_of = (k == total) ? `RCLINK_SEG_ONLY : `RCLINK_SEG_FIRST;
            else
                pos_of = (off + k == total) ? `RCLINK_SEG_LAST : `RCLINK_SEG_MIDDLE;
        end
    endfunction
    wire [31:0] rest = c_total - c_off;
    wire [31:0] d_max = c_t2 ? T2_DATA_MAX : c_rdma ? `RCLINK_RDMAH_PKT_DATA : DATA_MAX;
    wire [31:0] h_len = c_rd ? 32'd0 : (rest < d_max) ? rest : d_max;
    // a WRITE's packets carry the RDMA header (KEY, TAG, ADDR) after the
    // segment header (KIND WRITE); with immediate data one IMM packet
    // (ONLY, OFFSET 0, KEY the immediate) follows its data
    // (a READ is one READ_REQ packet: ONLY, no data, MSG_LEN its length)
    wire        h_imm = c_rdma && !c_rd && c_has_imm && c_off == c_total;
    wire        h_nod = h_imm || c_rd;          // a packet without data
    wire [1:0]  h_pos = h_nod ? `RCLINK_SEG_ONLY : pos_of(c_off, h_len, c_total);
    wire [2:0]  h_kind = !c_rdma ? `RCLINK_SEG_KIND_SEND :
                         h_imm ? `RCLINK_SEG_KIND_IMM :
                         c_rd ? `RCLINK_SEG_KIND_READ_REQ : `RCLINK_SEG_KIND_WRITE;
    wire [63:0] seg_hdr = ({62'd0, h_pos} << `RCLINK_SEG_POS_LSB) |
                          ({61'd0, h_kind} << `RCLINK_SEG_KIND_LSB) |
                          ({32'd0, h_nod ? 32'd0 : c_off} << `RCLINK_SEG_OFFSET_LSB) |
                          ({32'd0, c_total} << `RCLINK_SEG_MSG_LEN_LSB);
    wire [63:0] rdmah0 = ({32'd0, h_imm ? c_imm : c_rkey} << `RCLINK_RDMAH_KEY_LSB) |
                         ({48'd0, m_tag[c_slot]} << `RCLINK_RDMAH_TAG_LSB);
    wire [191:0] h_hdr = c_rdma ? {c_raddr, rdmah0, seg_hdr} : {128'd0, seg_hdr};
    wire [5:0]  h_hn = c_rdma ? SEG6 + 6'd`RCLINK_RDMAH_BYTES : SEG6;
    // the message's last packet (the IMM after a WRITE's data)
    wire        h_mlast = h_nod || (c_off + h_len == c_total && !(c_rdma && c_has_imm));
    // the IMM and READ_REQ packets have no data: the bank is written here
    // (the header row) once every bank before it is packed
    wire        h_take = b_free && !dr && (!h_nod || (pkb == fb && !pk_open && !fl_p && !pack));
    wire        hw_en = st == S_WRITE_HEAD && r_en && !m_fail[c_slot] && h_nod && h_take;

    // byte swap: host order (first byte in [7:0]) to TX_S order ([511:504])
    function [511:0] bswap;
        input [511:0] v;
        integer b;
        begin
            for (b = 0; b < 64; b = b + 1)
                bswap[8*b +: 8] = v[8*(63-b) +: 8];
        end
    endfunction

    // the beats of the next packet to send, at least the TX_S minimum
    localparam [10:0] PKT_MIN = `RCLINK_SEG_PKT_MIN;
    wire [NBW-1:0] ehx = eh[NBW-1:0];
    wire [10:0] pk_bytes = d_pbytes[ehx];
    wire [10:0] t_bytes = (pk_bytes < PKT_MIN) ? PKT_MIN : pk_bytes;
    wire [4:0]  d_beats = t_bytes[10:6] + ((t_bytes[5:0] != 6'd0) ? 5'd1 : 5'd0);
    wire [6:0]  d_lastb = (t_bytes[5:0] != 6'd0) ? {1'b0, t_bytes[5:0]} : 7'd64;
    // the emission: the packet's bytes left from the row it reads
    wire [10:0] e_left = e_pbytes - {e_ptr, 6'd0};

    wire submit = e_q_v && e_q_first;          // a packet takes its token
    // the next message: context 0's SQ first, then a user context's
    wire can_start = tok_ok && have_free && !dr;
    wire k_has = sq_en && sq_prod != sq_cons;
    // (the packets in the banks are all q_ctx's: another context's message
    // starts once they are sent)
    wire k_go = k_has && can_start && (!uq || pipe_empty);
    wire u_go = !k_has && u_any && can_start && (u_pick == q_ctx || pipe_empty);
    assign u_take = st == S_IDLE && u_go;
    // CHECK reached SQ_PROD in the middle of a user context's chain
    assign u_park = st == S_CHECK && uq && u_run && c_n != size && xc == r_prod;
    wire [31:0] n_cons = k_go ? sq_cons : u_pick_cons;
    wire [CW-1:0] n_ctx = k_go ? {CW{1'b0}} : u_pick;
    wire tok_ok = ost_free != 10'd0;
    // the next packet's kind; TYPE2 also wants room in its completion queue
    wire tok_cur = d_t2[ehx] ? (t2_free != 10'd0 && {27'd0, q_n} < T2Q) : (tok_ok && q_ost_ok);
    // the engine's own reports (x_*) this cycle: the emission's error waits
    wire fe_x = st == S_CHECK_END || st == S_ERROR;

    // row writes: the packer's (a full row, or a packet's last one when no
    // full row is written with it) and a packet's last row a cycle later
    reg         pk_w;
    reg [511:0] w0_d, w1_d;
    reg [NBW+3:0] w0_a, w1_a;
    reg         w0_en, w1_en;
    always @* begin
        pk_w = pack && a_w <= PB_LAST && (acc_in_n[6] || (pk_done && acc_in_n != 7'd0));
        w0_en = 1'b0;
        w1_en = 1'b0;
        w0_a = {pkx[NBW-1:1], a_w};
        w1_a = {pkx[NBW-1:1], a_w};
        w0_d = acc_in[511:0];
        w1_d = acc_in[511:0];
        if (pk_w) begin
            if (pkx[0])
                w1_en = 1'b1;
            else
                w0_en = 1'b1;
        end
        if (hw_en) begin
            if (fb[0]) begin
                w1_en = 1'b1;
                w1_a = {fb[NBW-1:1], 5'd0};
                w1_d = {320'd0, h_hdr};
            end else begin
                w0_en = 1'b1;
                w0_a = {fb[NBW-1:1], 5'd0};
                w0_d = {320'd0, h_hdr};
            end
        end
        if (fl_p) begin
            if (fl_b[0]) begin
                w1_en = 1'b1;
                w1_a = {fl_b[NBW-1:1], fl_r};
                w1_d = fl_d;
            end else begin
                w0_en = 1'b1;
                w0_a = {fl_b[NBW-1:1], fl_r};
                w0_d = fl_d;
            end
        end
    end
    // the QPs' next TAGs: a WRITE sent takes one
    always @(posedge clk)
        if (!rst && st == S_CHECK_END && c_rdma && c_status == ST_OK && !c_bad && !own_other)
            t_mem[c_qpn[QP_AW-1:0]] <= t_cur + 16'd1;
    always @(posedge clk) begin
        if (w0_en)
            pbuf0[w0_a] <= w0_d;
        if (w1_en)
            pbuf1[w1_a] <= w1_d;
        e_row <= e_bank[0] ? pbuf1[{e_bank[NBW-1:1], e_ptr}] : pbuf0[{e_bank[NBW-1:1], e_ptr}];
    end

    always @(posedge clk) begin
        if (rst) begin
            st <= S_IDLE;
            m_v <= {MSGS{1'b0}};
            m_all <= {MSGS{1'b0}};
            m_quiet <= {MSGS{1'b0}};
            m_t2 <= {MSGS{1'b0}};
            for (i = 0; i < MSGS; i = i + 1) begin
                m_qpn[i] <= 16'd0;
                m_len[i] <= 32'd0;
                m_idx[i] <= 32'd0;
                m_st[i] <= 8'd0;
                m_out[i] <= 10'd0;
                m_age[i] <= 8'd0;
                m_ctx[i] <= {CW{1'b0}};
                m_tag[i] <= 16'd0;
                m_loc[i] <= 64'd0;
                m_lidx[i] <= 16'd0;
                m_lgen[i] <= 8'd0;
                m_roff[i] <= 32'd0;
                m_rs[i] <= 8'd0;
                m_tl[i] <= 32'd0;
            end
            age_next <= 8'd0;
            m_rk <= {MSGS{1'b0}};
            m_lpg <= {MSGS{1'b0}};
            m_lk <= {MSGS{1'b0}};
            m_rd <= {MSGS{1'b0}};
            m_resp <= {MSGS{1'b0}};
            c_tx_read <= 1'b0;
            c_rd <= 1'b0;
            m_tw <= {MSGS{1'b0}};
            t_v <= {QP_NUM{1'b0}};
            us_pre <= 16'd0;
            c_tx_write <= 1'b0;
            c_rem_err <= 1'b0;
            c_timeout <= 1'b0;
            c_rdma <= 1'b0;
            c_rph <= 1'b0;
            c_rkey <= 32'd0;
            c_raddr <= 64'd0;
            c_has_imm <= 1'b0;
            c_imm <= 32'd0;
            c_imm_sent <= 1'b0;
            c_addr0 <= 64'd0;
            c_lkey <= 1'b0;
            c_lbase <= 64'd0;
            c_lpg <= 1'b0;
            c_lidx <= 16'd0;
            c_lgen <= 8'd0;
            x_cons <= 32'd0;
            k_cons <= 32'd0;
            q_ctx <= {CW{1'b0}};
            was_busy <= 1'b0;
            x_ctx <= {CW{1'b0}};
            x_new <= 1'b0;
            x_not_owner <= 1'b0;
            x_fail <= 1'b0;
            x_cause <= 8'd0;
            x_info <= 64'd0;
            c_oob <= 1'b0;
            c_einfo <= 64'd0;
            pa_wp <= 4'd0;
            pa_rp <= 4'd0;
            f_cmd <= 1'b0;
            f_plast <= 1'b0;
            kq_w <= 5'd0;
            kq_r <= 5'd0;
            fb <= {(NBW+1){1'b0}};
            b_occ <= {NB{1'b0}};
            pkb <= {(NBW+1){1'b0}};
            eh <= {(NBW+1){1'b0}};
            pk_open <= 1'b0;
            fl_p <= 1'b0;
            fl_b <= {NBW{1'b0}};
            fl_r <= 5'd0;
            fl_d <= 512'd0;
            dr <= 1'b0;
            d_t2 <= {NB{1'b0}};
            d_fack <= {NB{1'b0}};
            d_mlast <= {NB{1'b0}};
            d_err <= {NB{1'b0}};
            d_rdy <= {NB{1'b0}};
            d_kill <= {NB{1'b0}};
            m_fail <= {MSGS{1'b0}};
            ost_free <= OST_N;
            ro_v <= {RO{1'b0}};
            ro_last <= 2'd0;
            last_resp <= 1'b0;
            r_q_v <= 1'b0;
            r_q_dat <= 512'd0;
            r_q_qpn <= {QP_AW{1'b0}};
            p_run <= 1'b0;
            p_q_v <= 1'b0;
            p_q_first <= 1'b0;
            p_q_last <= 1'b0;
            p_ptr <= 5'd0;
            p_beats <= 5'd0;
            p_lastb <= 7'd0;
            p_qpn <= {QP_AW{1'b0}};
            dp_done <= 1'b0;
            cnt_bad_wqe <= 64'd0;
            rr_cur <= {SLW{1'b0}};
            cnt_drop_qp_off <= 64'd0;
            cnt_t2_tx_pkts <= 64'd0;
            cnt_t2_tx_drop <= 64'd0;
            t2_oversize <= 1'b0;
            t2_free <= T2_OST_N;
            q_wp <= 5'd0;
            q_tp <= 5'd0;
            q_rp <= 5'd0;
            q_skip <= 10'd0;
            for (i = 0; i < T2Q; i = i + 1) begin
                q_grp[i] <= 3'd0;
                q_len[i] <= 32'd0;
                q_idx[i] <= 32'd0;
                q_st[i] <= 8'd0;
                q_cx[i] <= {CW{1'b0}};
            end
            dma_cmd_valid <= 1'b0;
            dma_cmd_addr <= 64'd0;
            dma_cmd_len <= 13'd0;
            tx_vld <= 1'b0;
            tx_fs <= 1'b0;
            tx_fe <= 1'b0;
            tx_dat <= 512'd0;
            tx_keep <= 64'd0;
            tx_qpid <= {QP_AW{1'b0}};
            tx_fack <= 1'b0;
            tx_etype <= 2'd0;
            tx_group <= 3'd0;
            c_first <= 32'd0;
            c_n <= 32'd0;
            c_qpn <= 16'd0;
            c_total <= 32'd0;
            c_fack <= 1'b0;
            c_quiet <= 1'b0;
            c_status <= 8'd0;
            c_bad <= 1'b0;
            c_t2 <= 1'b0;
            c_over <= 1'b0;
            c_slot <= {SLW{1'b0}};
            c_off <= 32'd0;
            p_addr <= 64'd0;
            p_rem <= 32'd0;
            k_rem <= 32'd0;
            tmo <= 16'd0;
            nrd <= 6'd0;
            last_slot <= {SLW{1'b0}};
            wl <= 2048'd0;
            wl_lo <= 32'd0;
            wl_n <= 5'd0;
            f_line <= 2'd0;
            f_err <= 1'b0;
            f_chk <= 1'b0;
            f_x <= 32'd0;
            f_n <= 5'd0;
            pb_w <= 5'd0;
            acc <= 512'd0;
            acc_n <= 6'd0;
            e_ptr <= 5'd0;
            e_beats <= 5'd0;
            e_lastb <= 7'd0;
            e_pbytes <= 11'd0;
            e_q_mask <= 512'd0;
            e_fack <= 1'b0;
            e_t2 <= 1'b0;
            e_bank <= {NBW{1'b0}};
            e_slot <= {SLW{1'b0}};
            e_qpn <= 16'd0;
            e_total <= 32'd0;
            e_idx <= 32'd0;
            e_ctx <= {CW{1'b0}};
            e_mlast <= 1'b0;
            e_run <= 1'b0;
            e_first <= 1'b0;
            e_q_v <= 1'b0;
            e_q_last <= 1'b0;
            e_q_first <= 1'b0;
        end else begin
            x_new <= 1'b0;
            x_not_owner <= 1'b0;
            x_fail <= 1'b0;
            was_busy <= st != S_IDLE;
            // ---- WRITEs waiting for their response ---------------------------------
            // the timeout (DMAQ_RDMA_CFG.timeout_us) counts from the
            // acknowledgement of the last packet; a WRITE_RESP decides
            // the WRITE (its status) before or after that
            us_pre <= us_tick ? 16'd0 : us_pre + 16'd1;
            c_tx_write <= 1'b0;
            c_tx_read <= 1'b0;
            c_rem_err <= 1'b0;
            c_timeout <= 1'b0;
            for (i = 0; i < MSGS; i = i + 1)
                if (m_wait[i]) begin
                    if (!m_tw[i]) begin
                        m_tw[i] <= 1'b1;
                        m_tl[i] <= tmo_us;
                    end else if (us_tick && !(rr_busy && rr_hit && rr_slot == i[SLW-1:0])) begin
                        // (not while a packet of its data is written:
                        // nothing is written after the timeout)
                        if (m_tl[i] <= 32'd1)
                            m_st[i] <= ST_REM_TIMEOUT;
                        else
                            m_tl[i] <= m_tl[i] - 32'd1;
                    end
                end
            if (wresp_valid && wr_hit) begin
                m_resp[wr_slot] <= 1'b1;
                m_rs[wr_slot] <= wresp_st;
            end
            // a READ_RESP: a refusal or one that does not fit decides the
            // READ; one taken moves its offset and restarts its timeout
            // (a long READ behind other traffic is not cut short); its
            // last data written completes it
            if (rresp_hit) begin
                if (!rresp_ok) begin
                    m_resp[rr_slot] <= 1'b1;
                    m_rs[rr_slot] <= (wresp_st != ST_OK) ? wresp_st : ST_DMA_ERR;
                end else begin
                    m_roff[rr_slot] <= rresp_off + rresp_dlen;
                    m_tw[rr_slot] <= 1'b0;
                    rr_cur <= rr_slot;
                end
            end
            if (rdone_valid && rr_hit) begin
                m_resp[rr_slot] <= 1'b1;
                m_rs[rr_slot] <= ST_OK;
            end
            // a WRITE's CQE: the causes the responder sent (DMAQ_RDMA_REM_ERR),
            // the timeout (DMAQ_RDMA_TIMEOUT)
            if (cqe_valid && cqe_ready && !q_go && m_rk[done_slot]) begin
                if ((done_st >= ST_REM_KEY && done_st <= ST_REM_BOUNDS) ||
                    (done_st == ST_DMA_ERR && m_resp[done_slot]))
                    c_rem_err <= 1'b1;
                if (done_st == ST_REM_TIMEOUT)
                    c_timeout <= 1'b1;
            end
            // ---- tokens and credits ------------------------------------------------
            ost_free <= ost_free + (crd ? 10'd1 : 10'd0) - ((submit && !e_t2) ? 10'd1 : 10'd0)
                                 - ((r_go || p_go) ? 10'd1 : 10'd0);
            // responses: sent, and their credits back
            r_q_v <= r_go;
            if (r_go) begin
                r_q_dat <= bswap({320'd0, 64'd0, r_rh0, r_seg});
                r_q_qpn <= rsp_qpn;
                ro_q[ro_fi] <= rsp_qpn;
                ro_last <= ro_fi;
                last_resp <= 1'b1;
            end
            if (p_go) begin
                ro_q[ro_fi] <= dp_qpn;
                ro_last <= ro_fi;
                last_resp <= 1'b1;
                p_run <= 1'b1;
                p_ptr <= 5'd0;
                p_qpn <= dp_qpn;
                p_beats <= p_bytes[10:6] + ((p_bytes[5:0] != 6'd0) ? 5'd1 : 5'd0);
                p_lastb <= (p_bytes[5:0] != 6'd0) ? {1'b0, p_bytes[5:0]} : 7'd64;
            end
            p_q_v <= p_run;
            p_q_first <= p_run && p_ptr == 5'd0;
            p_q_last <= p_run && p_ptr + 5'd1 == p_beats;
            if (p_run) begin
                p_ptr <= p_ptr + 5'd1;
                if (p_ptr + 5'd1 == p_beats)
                    p_run <= 1'b0;
            end
            dp_done <= p_q_v && p_q_last;
            if (r_crd)
                ro_v[ro_ci] <= 1'b0;
            if (r_go || p_go)
                ro_v[ro_fi] <= 1'b1;
            t2_free <= t2_free + (crd_t2 ? 10'd1 : 10'd0) - ((submit && e_t2) ? 10'd1 : 10'd0);
            if (submit && e_t2)
                cnt_t2_tx_pkts <= cnt_t2_tx_pkts + 64'd1;
            t2_oversize <= 1'b0;
            if (crd && !crd_qpid_vld) begin
                cnt_drop_qp_off <= cnt_drop_qp_off + 64'd1;
                if (dec_ok && m_st[last_slot] < ST_FLUSHED)
                    m_st[last_slot] <= ST_FLUSHED;
            end
            for (i = 0; i < MSGS; i = i + 1)
                if ((sq_stop && m_ctx[i] == {CW{1'b0}}) || u_flush[i])
                    m_out[i] <= 10'd0;
                else
                    m_out[i] <= m_out[i] + ((submit && !e_t2 && e_slot == i[SLW-1:0]) ? 10'd1 : 10'd0)
                                         - ((dec_ok && dec_slot == i[SLW-1:0]) ? 10'd1 : 10'd0);
            if ((cqe_valid && cqe_ready && !q_go) || done_quiet)
                m_v[done_slot] <= 1'b0;
            // ---- the TYPE2 completion queue ------------------------------------------
            if (submit && e_t2) begin
                q_grp[q_wp[3:0]] <= e_qpn[2:0];
                q_len[q_wp[3:0]] <= e_total;
                q_idx[q_wp[3:0]] <= e_idx;
                q_st[q_wp[3:0]] <= ST_OK;
                q_cx[q_wp[3:0]] <= e_ctx;
                q_wp <= q_wp + 5'd1;
            end
            // the message's last packet submitted: TYPE2 goes on to the
            // completion queue (the slot is free), TYPE1 waits for credits
            if (submit && e_mlast) begin
                if (e_t2)
                    m_v[e_slot] <= 1'b0;
                else
                    m_all[e_slot] <= 1'b1;
            end
            if (crd_t2) begin
                if (q_skip != 10'd0) begin
                    q_skip <= q_skip - 10'd1;
                end else if (q_tp != q_wp) begin
                    q_st[q_tp[3:0]] <= link_up ? ST_OK : ST_FLUSHED;
                    q_tp <= q_tp + 5'd1;
                end
            end
            if (cqe_valid && cqe_ready && q_go)
                q_rp <= q_rp + 5'd1;

            // ---- emission (registered read of the packet buffer) -------------------------
            // (a response's beat, or a data packet's, or a bank's: never
            // two in one cycle)
            tx_vld <= e_q_v || r_q_v || p_q_v;
            tx_fs <= e_q_first || r_q_v || (p_q_v && p_q_first);
            tx_fe <= e_q_last || r_q_v || (p_q_v && p_q_last);
            tx_dat <= r_q_v ? r_q_dat : p_q_v ? bswap(dp_rdata) :
                      bswap(e_row & e_q_mask);  // padding: zero bytes
            tx_keep <= (p_q_v && p_q_last) ? ~(~64'd0 >> p_lastb) :
                       (e_q_last && !r_q_v && !p_q_v) ? ~(~64'd0 >> e_lastb) : ~64'd0;
            tx_fack <= e_q_last && e_fack && !r_q_v && !p_q_v;
            tx_qpid <= r_q_v ? r_q_qpn : p_q_v ? p_qpn : e_t2 ? {QP_AW{1'b0}} : e_qpn[QP_AW-1:0];
            tx_etype <= (e_t2 && !r_q_v && !p_q_v) ? 2'd3 : 2'd0;
            tx_group <= (e_t2 && !r_q_v && !p_q_v) ? e_qpn[2:0] : 3'd0;
            e_q_v <= e_run;
            e_q_mask <= ({e_ptr, 6'd0} >= e_pbytes) ? 512'd0 :
                        (e_left < 11'd64) ? ~(~512'd0 << {e_left[5:0], 3'b000}) : ~512'd0;
            e_q_first <= e_run && e_first;
            e_q_last <= e_run && e_ptr + 5'd1 == e_beats;
            if (e_run) begin
                e_first <= 1'b0;
                e_ptr <= e_ptr + 5'd1;
                if (e_ptr + 5'd1 == e_beats)
                    e_run <= 1'b0;
            end

            // ---- DMA handshake, reads in flight, the packer ----------------------------
            if (dma_cmd_valid && dma_cmd_ready)
                dma_cmd_valid <= 1'b0;
            nrd <= nrd + ((dma_cmd_valid && dma_cmd_ready) ? 6'd1 : 6'd0)
                       - ((rd_v && rd_last) ? 6'd1 : 6'd0);
            if (rd_v || nrd == 6'd0)
                tmo <= 16'd0;
            else
                tmo <= tmo + 16'd1;
            if (dma_cmd_valid && dma_cmd_ready) begin
                kq[kq_w] <= {f_cmd, f_plast};
                kq_w <= kq_w + 5'd1;
            end
            if (rd_v && rd_last)
                kq_r <= kq_r + 5'd1;
            if (dma_cmd_valid && dma_cmd_ready && !f_cmd) begin
                pa_q[pa_wp] <= dma_cmd_addr;
                pa_wp <= pa_wp + 4'd1;
            end
            if (pack && rd_last)
                pa_rp <= pa_rp + 4'd1;
            // the packer: bank pkb, its last row a cycle later when a full
            // one is written with the packet's last beat
            fl_p <= 1'b0;
            if (fl_p)
                d_rdy[fl_b] <= 1'b1;
            if (pack) begin
                if (rd_err && !d_err[pkx])
                    d_einfo[pkx] <= pa_q[pa_rp];
                if (rd_err)
                    d_err[pkx] <= 1'b1;
                if (pk_done) begin
                    pk_open <= 1'b0;
                    pkb <= pkb + B1;
                    if (acc_in_n[6] && acc_in_n[5:0] != 6'd0) begin
                        fl_p <= 1'b1;
                        fl_b <= pkx;
                        fl_r <= a_w + 5'd1;
                        fl_d <= acc_in[1023:512];
                    end else begin
                        d_rdy[pkx] <= 1'b1;
                    end
                end else begin
                    pk_open <= 1'b1;
                    if (acc_in_n[6]) begin
                        pb_w <= a_w + 5'd1;
                        acc <= acc_in[1023:512];
                    end else begin
                        pb_w <= a_w;
                        acc <= acc_in[511:0];
                    end
                    acc_n <= acc_in_n[5:0];
                end
            end
            // a read timed out: the packets not yet packed fail (DMA_ERR),
            // the late beats are dropped (S_DRAIN ends that)
            if (tmo_hit && !dr) begin
                dr <= 1'b1;
                for (i = 0; i < NB; i = i + 1)
                    if (i[NBW-1:0] - pkx < b_pk[NBW-1:0] || b_pk[NBW]) begin
                        d_rdy[i] <= 1'b1;
                        d_err[i] <= 1'b1;
                        d_einfo[i] <= pa_q[pa_rp];
                    end
            end
            // SQ disabled: context 0's packets in the banks are not sent
            if (sq_stop)
                for (i = 0; i < NB; i = i + 1)
                    if (d_ctx[i] == {CW{1'b0}})
                        d_kill[i] <= 1'b1;

            // ---- the emission: the next bank once packed -------------------------------
            if (eh != fb && d_rdy[ehx] && !e_pend && !r_go && !p_go && !p_busy) begin
                if (d_kill[ehx] || m_fail[d_slot[ehx]] ||
                    (d_ctx[ehx] != {CW{1'b0}} && !u_runs[d_ctx[ehx]])) begin
                    // not sent: its message is flushed or failed already
                    d_rdy[ehx] <= 1'b0;
                    b_occ[ehx] <= 1'b0;
                    eh <= eh + B1;
                end else if (d_err[ehx]) begin
                    // a payload read failed: the message completes DMA_ERR,
                    // its further packets are not sent (a user context
                    // goes into error: DMA, the bus address)
                    if (!fe_x) begin
                        m_all[d_slot[ehx]] <= 1'b1;
                        m_st[d_slot[ehx]] <= ST_DMA_ERR;
                        m_fail[d_slot[ehx]] <= 1'b1;
                        x_ctx <= d_ctx[ehx];
                        x_fail <= d_ctx[ehx] != {CW{1'b0}};
                        x_cause <= 8'd`RCLINK_CTX_EVT_CAUSE_DMA;
                        x_info <= d_einfo[ehx];
                        d_rdy[ehx] <= 1'b0;
                        b_occ[ehx] <= 1'b0;
                        eh <= eh + B1;
                    end
                end else if (tok_cur) begin
                    // start the burst: the packet's beats (the last one
                    // partial), padded with zero bytes to the IP's TX_S
                    // minimum
                    e_bank <= ehx;
                    e_slot <= d_slot[ehx];
                    e_qpn <= d_qpn[ehx];
                    e_total <= d_total[ehx];
                    e_idx <= d_idx[ehx];
                    e_ctx <= d_ctx[ehx];
                    e_mlast <= d_mlast[ehx];
                    e_pbytes <= pk_bytes;
                    e_beats <= d_beats;
                    e_lastb <= d_lastb;
                    e_ptr <= 5'd0;
                    e_run <= 1'b1;
                    e_first <= 1'b1;
                    e_fack <= d_fack[ehx];
                    e_t2 <= d_t2[ehx];
                    if (!d_t2[ehx]) begin
                        last_slot <= d_slot[ehx];
                        last_resp <= 1'b0;
                    end
                    d_rdy[ehx] <= 1'b0;
                    b_occ[ehx] <= 1'b0;
                    eh <= eh + B1;
                end
            end
            if (!r_en)
                wl_n <= 5'd0;

            case (st)
            S_IDLE:
                if (k_go || u_go) begin
                    // context 0 first, then the user contexts round robin
                    c_first <= n_cons;
                    x_cons <= n_cons;
                    if (!uq && u_go)
                        k_cons <= x_cons;
                    q_ctx <= n_ctx;
                    if (n_ctx != q_ctx)
                        wl_n <= 5'd0;
                    c_oob <= 1'b0;
                    c_n <= 32'd0;
                    c_total <= 32'd0;
                    c_fack <= 1'b0;
                    c_quiet <= 1'b0;
                    c_status <= ST_OK;
                    c_bad <= 1'b0;
                    c_t2 <= 1'b0;
                    c_over <= 1'b0;
                    c_slot <= free_slot;
                    st <= S_CHECK;
                end
            // ---- CHECK: read word 0 of each WQE of the chain -------------------------
            S_CHECK:
                if (uq && !u_run) begin
                    // the user context stopped: the chain is not read
                    st <= S_IDLE;
                end else if (c_n == size) begin
                    c_bad <= 1'b1;
                    st <= S_CHECK_END;
                end else if (xc != r_prod && !hit) begin
                    f_chk <= 1'b1;
                    st <= S_FILL;
                end else if (xc != r_prod) begin
                    // word 0 of the WQE, from the cache
                    c_n <= c_n + 32'd1;
                    if (c_n == 32'd0) begin
                        c_qpn <= w_qpn;
                        c_t2 <= w_t2;
                        c_quiet <= w_quiet && !w_t2 && !w_rdma;
                        c_rdma <= w_rdma;
                        c_rd <= w_rdop;
                        c_rph <= 1'b0;
                        c_has_imm <= 1'b0;
                        c_imm <= 32'd0;
                        c_addr0 <= cw1;
                        c_lkey <= 1'b0;
                        c_lbase <= 64'd0;
                        c_lpg <= 1'b0;
                    end
                    if (w_rdma) begin
                        if (w_local) begin
                            // a local WQE: without MORE it has no REMOTE WQE
                            c_total <= w_total[31:0];
                            if (w_rdop && c_n < RD_PIECES) begin
                                // a READ's piece: the slot keeps it
                                m_pa[c_slot * RD_PIECES + c_n] <= cw1;
                                m_pe[c_slot * RD_PIECES + c_n] <= w_total[31:0];
                            end
                            if (w_lbad || !w_more)
                                c_bad <= 1'b1;
                            st <= w_more ? S_CHECK : S_CHECK_END;
                        end else if (!c_rph) begin
                            c_rph <= 1'b1;
                            c_rkey <= cw0[`RCLINK_WQE_RKEY_MSB:`RCLINK_WQE_RKEY_LSB];
                            c_raddr <= cw1;
                            if (w_op != `RCLINK_WQE_OP_REMOTE) begin
                                c_bad <= 1'b1;
                                st <= S_CHECK_END;
                            end else begin
                                if (w_lkey_en) begin
                                    // a local key: a user context's own
                                    // registration (context 0: BAD_WQE)
                                    c_lkey <= 1'b1;
                                    c_lbase <= lq_base;
                                    c_lpg <= lq_ctrl[`RCLINK_DMAQ_MR_CTRL_PAGES_LSB];
                                    c_lidx <= lq_idx;
                                    c_lgen <= w_lkey[`RCLINK_MR_KEY_GEN_MSB:`RCLINK_MR_KEY_GEN_LSB];
                                    if (!uq || !w_lk_ok)
                                        c_bad <= 1'b1;
                                    if (uq && !w_lk_ok && !c_bad)
                                        c_oob <= 1'b1;
                                end else if (w_oob_r) begin
                                    c_bad <= 1'b1;
                                    if (!c_bad)
                                        c_oob <= 1'b1;
                                end
                                // (a READ with immediate data: BAD_WQE,
                                // the IMM WQE read as the model does)
                                c_has_imm <= w_more;
                                if (w_more && c_rd)
                                    c_bad <= 1'b1;
                                st <= w_more ? S_CHECK : S_CHECK_END;
                            end
                        end else begin
                            // the IMM WQE, the chain's last
                            c_imm <= cw1[31:0];
                            if (w_op != `RCLINK_WQE_OP_IMM || w_more)
                                c_bad <= 1'b1;
                            st <= S_CHECK_END;
                        end
                    end else begin
                        if (!c_bad && !w_bad_op && !w_bad_len && !w_bad_grp && w_over)
                            c_over <= 1'b1;
                        c_total <= w_total[31:0];
                        c_fack <= c_fack | w_fack;
                        if (!c_bad && !w_bad && w_oob)
                            c_oob <= 1'b1;
                        if (w_bad || w_oob)
                            c_bad <= 1'b1;
                        st <= w_more ? S_CHECK : S_CHECK_END;
                    end
                end else if (!r_en || uq) begin
                    // SQ disabled, or a user context's chain not posted to
                    // its end: dropped (nothing is sent yet); the context
                    // is parked (u_park) and read again from its first
                    // WQE once its SQ_PROD moves.  Context 0's waits.
                    st <= S_IDLE;
                end
            // ---- a block of WQEs into the cache ---------------------------------------------
            S_FILL:
                // behind the payload reads in flight (their beats first)
                if (!dma_cmd_valid && !dr) begin
                    dma_cmd_valid <= 1'b1;
                    dma_cmd_addr <= r_base + {32'd0, xm} * 64'd16;
                    dma_cmd_len <= {4'd0, f_cnt, 4'd0};
                    f_line <= xm[3:2];
                    f_err <= 1'b0;
                    f_cmd <= 1'b1;
                    f_x <= x_look;
                    f_n <= f_cnt;
                    wl_n <= 5'd0;
                    st <= S_FILL_WAIT;
                end
            S_FILL_WAIT:
                if (fill_beat) begin
                    // one beat a line; the block once its last beat came
                    wl[512 * f_line +: 512] <= rd_data;
                    f_line <= f_line + 2'd1;
                    if (rd_err)
                        f_err <= 1'b1;
                    if (!rd_last) begin
                        // more lines to come
                    end else if (rd_err || f_err) begin
                        c_status <= ST_DMA_ERR;
                        c_einfo <= dma_cmd_addr;
                        if (f_chk) begin
                            c_n <= c_n + 32'd1;
                            st <= S_CHECK_END;
                        end else begin
                            st <= S_ERROR;
                        end
                    end else begin
                        wl_lo <= f_x;
                        wl_n <= f_n;
                        st <= f_chk ? S_CHECK : S_SEND;
                    end
                end else if (tmo_hit) begin
                    if (f_chk)
                        c_n <= c_n + 32'd1;
                    c_status <= ST_DMA_ERR;
                    c_einfo <= dma_cmd_addr;
                    st <= S_ERROR;
                end
            S_CHECK_END: begin
                // the message takes its slot; a bad one is finished already
                m_v[c_slot] <= 1'b1;
                m_t2[c_slot] <= c_t2;
                m_quiet[c_slot] <= c_quiet;
                m_ctx[c_slot] <= q_ctx;
                m_qpn[c_slot] <= c_qpn;
                m_len[c_slot] <= c_total;
                m_idx[c_slot] <= c_first + c_n - 32'd1;
                m_age[c_slot] <= age_next;
                age_next <= age_next + 8'd1;
                m_fail[c_slot] <= 1'b0;
                m_rk[c_slot] <= c_rdma;
                m_rd[c_slot] <= c_rd;
                // (a local key's: ADDR, its entry's BASE added per packet)
                m_loc[c_slot] <= c_lkey ? c_addr0 : c_addr0 + c_lbase;
                m_lpg[c_slot] <= c_lpg;
                m_lidx[c_slot] <= c_lidx;
                m_lk[c_slot] <= c_lkey;
                m_lgen[c_slot] <= c_lgen;
                m_roff[c_slot] <= 32'd0;
                m_resp[c_slot] <= 1'b0;
                m_tw[c_slot] <= 1'b0;
                c_imm_sent <= 1'b0;
                c_off <= 32'd0;
                x_ctx <= q_ctx;
                x_new <= uq;
                if (c_over) begin
                    cnt_t2_tx_drop <= cnt_t2_tx_drop + 64'd1;
                    t2_oversize <= 1'b1;
                end
                if (c_status != ST_OK || c_bad) begin
                    m_all[c_slot] <= 1'b1;
                    m_st[c_slot] <= c_status != ST_OK ? c_status : ST_BAD_WQE;
                    if (c_status == ST_OK)
                        cnt_bad_wqe <= cnt_bad_wqe + 64'd1;
                    // a user context goes into error: an unreadable WQE
                    // (DMA, its address), a bad one (BAD_WQE or BAD_ADDR,
                    // the SQ index of the chain)
                    x_fail <= uq;
                    x_cause <= c_status != ST_OK ? 8'd`RCLINK_CTX_EVT_CAUSE_DMA :
                               c_oob ? 8'd`RCLINK_CTX_EVT_CAUSE_BAD_ADDR :
                                       8'd`RCLINK_CTX_EVT_CAUSE_BAD_WQE;
                    x_info <= c_status != ST_OK ? c_einfo : {32'd0, c_first};
                    if (c_oob)
                        m_st[c_slot] <= ST_BAD_ADDR;
                    x_cons <= c_first + c_n;
                    st <= S_IDLE;
                end else if (own_other) begin
                    // isolation: the QP (group) is a user context's; not
                    // sent, and the queue goes on
                    m_all[c_slot] <= 1'b1;
                    m_st[c_slot] <= ST_NOT_OWNER;
                    x_not_owner <= 1'b1;
                    x_cons <= c_first + c_n;
                    st <= S_IDLE;
                end else if (c_t2 && !link_up) begin
                    // TYPE2 cannot send: FLUSHED at once, as the model
                    m_all[c_slot] <= 1'b1;
                    m_st[c_slot] <= ST_FLUSHED;
                    cnt_t2_tx_drop <= cnt_t2_tx_drop + 64'd1;
                    x_cons <= c_first + c_n;
                    st <= S_IDLE;
                end else begin
                    m_all[c_slot] <= 1'b0;
                    m_st[c_slot] <= ST_OK;
                    p_rem <= 32'd0;
                    st <= S_WRITE_HEAD;
                    if (c_rdma) begin
                        // a WRITE or READ is sent: the QP's next TAG
                        m_tag[c_slot] <= t_cur;
                        t_v[c_qpn[QP_AW-1:0]] <= 1'b1;
                        c_tx_write <= !c_rd;
                        c_tx_read <= c_rd;
                    end
                end
            end
            // ---- SEND / WRITE_HEAD --------------------------------------------------------
            S_WRITE_HEAD:
                if (!r_en) begin
                    m_all[c_slot] <= 1'b1;
                    m_st[c_slot] <= ST_FLUSHED;
                    st <= S_IDLE;
                end else if (m_fail[c_slot]) begin
                    // a packet of the message failed (DMA_ERR): the rest
                    // of its chain is skipped
                    x_cons <= c_first + c_n;
                    st <= S_IDLE;
                end else if (h_take) begin
                    // the next bank: the packet's descriptor, its segment
                    // header the packet's first 8 bytes (and a WRITE's
                    // RDMA header the next 16)
                    d_hdr[fb[NBW-1:0]] <= h_hdr;
                    d_hn[fb[NBW-1:0]] <= h_hn;
                    d_slot[fb[NBW-1:0]] <= c_slot;
                    d_qpn[fb[NBW-1:0]] <= c_qpn;
                    d_total[fb[NBW-1:0]] <= c_total;
                    d_idx[fb[NBW-1:0]] <= m_idx[c_slot];
                    d_ctx[fb[NBW-1:0]] <= q_ctx;
                    d_pbytes[fb[NBW-1:0]] <= h_len[10:0] + {5'd0, h_hn};
                    d_t2[fb[NBW-1:0]] <= c_t2;
                    // a WRITE's last packet asks for its acknowledgement
                    d_fack[fb[NBW-1:0]] <= c_rdma ? h_mlast :
                                           c_fack && !c_t2 && (c_off + h_len == c_total);
                    d_mlast[fb[NBW-1:0]] <= h_mlast;
                    d_err[fb[NBW-1:0]] <= 1'b0;
                    d_rdy[fb[NBW-1:0]] <= h_nod;
                    d_kill[fb[NBW-1:0]] <= 1'b0;
                    b_occ[fb[NBW-1:0]] <= 1'b1;
                    fb <= fb + B1;
                    k_rem <= h_len;
                    c_off <= c_off + h_len;
                    if (h_nod) begin
                        // written (hw_en): packed already; past the
                        // chain's REMOTE (and IMM) WQE
                        pkb <= pkb + B1;
                        c_imm_sent <= 1'b1;
                        x_cons <= c_first + c_n;
                        st <= S_IDLE;
                    end else begin
                        st <= (p_rem == 32'd0) ? S_SEND : S_WRITE_DATA;
                    end
                end
            // the next WQE of the chain (both words), from the cache
            S_SEND:
                if (hit) begin
                    p_rem <= w_len;
                    // (a local key: an offset in its registration)
                    p_addr <= cw1 + c_lbase;
                    x_cons <= x_cons + 32'd1;
                    st <= S_WRITE_DATA;
                end else begin
                    f_chk <= 1'b0;
                    st <= S_FILL;
                end
            // ---- WRITE_DATA: payload reads into the packet's bank -----------------------
            // one read per piece, back to back; the packer takes the beats,
            // the engine goes on with the next packet or message
            S_WRITE_DATA:
                if (dma_cmd_valid) begin
                    // the last command is not taken yet
                end else if (k_rem == 32'd0) begin
                    // a WRITE's data all read: past its REMOTE (and IMM)
                    // WQE; its IMM packet next
                    if (c_rdma && c_off == c_total)
                        x_cons <= c_first + c_n;
                    st <= (c_off == c_total && !(c_rdma && c_has_imm && !c_imm_sent)) ?
                          S_IDLE : S_WRITE_HEAD;
                end else if (p_rem == 32'd0) begin
                    st <= S_SEND;
                end else if (nrd < PA_N && !dr && (!c_lpg || pq_ok)) begin
                    dma_cmd_valid <= 1'b1;
                    dma_cmd_addr <= c_lpg ? pq_bus : uq ? tr_bus : p_addr;
                    dma_cmd_len <= nx_len[12:0];
                    f_cmd <= 1'b0;
                    f_plast <= k_rem == nx_len;
                    p_addr <= p_addr + {32'd0, nx_len};
                    p_rem <= p_rem - nx_len;
                    k_rem <= k_rem - nx_len;
                end
            // ---- timeout or bus error: DMA_ERR completion -----------------------------------------
            S_ERROR: if (!e_pend) begin
                // the message completes DMA_ERR now (once its packet being
                // sent is submitted); the rest of its chain is skipped
                if (!m_v[c_slot]) begin
                    m_v[c_slot] <= 1'b1;
                    m_t2[c_slot] <= c_t2;
                    m_quiet[c_slot] <= 1'b0;
                    m_qpn[c_slot] <= c_qpn;
                    m_len[c_slot] <= c_total;
                    m_idx[c_slot] <= c_first + c_n - 32'd1;
                    m_age[c_slot] <= age_next;
                    age_next <= age_next + 8'd1;
                    m_ctx[c_slot] <= q_ctx;
                    m_rk[c_slot] <= c_rdma;
                    m_rd[c_slot] <= c_rd;
                    m_resp[c_slot] <= 1'b0;
                    m_tw[c_slot] <= 1'b0;
                    x_new <= uq;
                end
                m_all[c_slot] <= 1'b1;
                m_st[c_slot] <= ST_DMA_ERR;
                m_fail[c_slot] <= 1'b1;
                // a user context goes into error (DMA, the bus address)
                x_ctx <= q_ctx;
                x_fail <= uq;
                x_cause <= 8'd`RCLINK_CTX_EVT_CAUSE_DMA;
                x_info <= c_einfo;
                x_cons <= c_first + c_n;
                st <= S_DRAIN;
            end
            S_DRAIN:
                // late answers to reads that timed out are dropped here
                if (nrd == 6'd0 && !dma_cmd_valid && !fl_p)
                    st <= S_IDLE;
            default: st <= S_IDLE;
            endcase
            // a payload read timed out while a packet's reads are issued:
            // the message completes DMA_ERR (the bus address of the oldest
            // read in flight)
            if (tmo_hit && !dr && (st == S_SEND || st == S_WRITE_DATA ||
                                   (st == S_FILL && !f_chk))) begin
                c_status <= ST_DMA_ERR;
                c_einfo <= pa_q[pa_rp];
                st <= S_ERROR;
            end
            // every read answered after a stop, an error or a timeout: the
            // banks not packed (their reads cut short) are not sent
            if ((st == S_DRAIN || dr) && nrd == 6'd0 && !dma_cmd_valid && !fl_p) begin
                dr <= 1'b0;
                pk_open <= 1'b0;
                pkb <= fb;
                pa_rp <= pa_wp;
                for (i = 0; i < NB; i = i + 1)
                    if (i[NBW-1:0] - pkx < b_pk[NBW-1:0] || b_pk[NBW]) begin
                        d_rdy[i] <= 1'b1;
                        d_kill[i] <= 1'b1;
                    end
            end
            // SQ disabled: the message being cut and every message in
            // flight complete FLUSHED now (credits that come back later
            // only return their tokens); indices back to 0
            if (sq_stop) begin
                // (context 0's: a user context's message being cut goes on)
                if (uq) begin
                    k_cons <= 32'd0;
                end else begin
                    x_cons <= 32'd0;
                    wl_n <= 5'd0;
                    st <= S_DRAIN;
                end
                // the TYPE2 messages in the IP too; their tokens, when
                // they come, only return
                for (i = 0; i < T2Q; i = i + 1)
                    if (q_wait[i])
                        q_st[i] <= ST_FLUSHED;
                q_tp <= q_wp;
                q_skip <= q_skip + {5'd0, q_nw} - (q_tok ? 10'd1 : 10'd0);
                for (i = 0; i < MSGS; i = i + 1)
                    if (m_v[i] && m_ctx[i] == {CW{1'b0}}) begin
                        m_all[i] <= 1'b1;
                        if (m_st[i] == ST_OK)
                            m_st[i] <= ST_FLUSHED;
                    end
            end
            // a user context stopped: its messages in flight complete
            // FLUSHED now (the one being cut when the engine gets to it)
            for (i = 0; i < MSGS; i = i + 1)
                if (u_flush[i]) begin
                    m_all[i] <= 1'b1;
                    if (m_st[i] == ST_OK)
                        m_st[i] <= ST_FLUSHED;
                end
        end
    end
endmodule
`default_nettype wire
