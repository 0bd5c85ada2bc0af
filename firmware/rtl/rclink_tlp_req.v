// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the DMA engine at TLP level (vendor neutral).
//
// Burst commands (address, length 1..4096 bytes, read or write, an id)
// become memory read and write TLPs on a 512-bit request stream; the
// completions of the reads are reassembled and returned in command order
// on a 512-bit read data stream.  MSI-X messages of rclink_msix leave as
// one-DW memory writes on the same stream (Documentation/hw/rtl.rst,
// "DMA engine").
//
// Data streams are address aligned: byte i of a 64-byte beat is the host
// byte at (line address + i); a burst of address A and length N has one
// beat per 64-byte line it touches.  Write data beats are taken with
// wd_valid/wd_ready (bytes outside [A, A+N) are ignored); read data beats
// come with rd_valid (no back-pressure: the user takes one beat per
// cycle), rd_keep (the bytes of the burst), rd_last (last beat of the
// burst), rd_err (a bad completion or a completion timeout in that
// beat's read request) and rd_id (the command's id).
//
// The request stream carries standard TLP headers (first DW in
// hdr[127:96]) on the first beat (tx_sop) and the payload from DW lane
// TX_OFF of the first beat on (the lanes below are the adapter's, for its
// descriptor); tx_keep marks the DW lanes in use, descriptor lanes
// included.  Completions come the same way: header with the first beat
// (rx_sop), payload from DW lane RX_OFF of the first beat on.  Further
// completions may start in the beat after the one in lane 0 on (rx_*)
// ended, at DW lane 4, 8 or 12 (straddled TLPs: rxs_* slot 1, 2, 3, their
// header; payload from that lane + RX_OFF), in lane order; only the last
// of the beat may go on in the next beats.  Slots are taken in lane order
// while no bank of the reassembly buffer would be written twice in the
// cycle (rxs_took); the adapter gives the beat again with the others
// (rx_valid low, the taken slots' valid low).
//
// Reads: split at the MRRS (min of max_read_req and MAX_RD) boundaries,
// which are also 4 KiB boundaries; each request gets a tag 0..TAGS-1,
// given in order, and a region of MAX_RD/64 lines in the reassembly
// buffer (16 banks of 32 bits, one write address per bank, so a
// completion lands at its DW offset in one cycle per beat).  Completions
// may be split (at the RCB) and come in any order across tags; a request
// is complete when a completion carries all its remaining bytes (byte
// count) or has a status other than SC.  Regions are read out in tag
// order.  A completion with a status other than SC, poisoned (EP), or
// flagged by the adapter (rx_err: the hard IP's error code) makes its
// request's beats answer with rd_err.  A completion for a tag that is not
// waiting is dropped and counted (cnt_unexp).
//
// Completion timeout: the oldest read waits at most TIMEOUT cycles after
// it became the oldest (so at least TIMEOUT after it was sent); then it
// answers rd_err and is counted (cnt_tmo).  Its tag is not given again
// until its late final completion came (dropped) or another 1-2 TIMEOUT
// periods passed, so a late completion cannot be taken for a newer read.
//
// Writes: split at the MPS (max_payload) boundaries; the payload is
// realigned on the fly (one 512-bit register), so a write TLP of n DWs
// takes ceil((TX_OFF + n) / 16) beats.  STRADDLE 1 (an adapter whose
// hard IP takes two TLPs a beat, a second one from DW lane 8): a write
// TLP that is not its command's first may start at DW lane 8 of the beat
// whose lanes 0-7 end the TLP before it (tx_sop2, its header tx_hdr2;
// tx_sop, tx_last and tx_keep then tell the first TLP's start, end and
// lanes, lanes 8-15 are the second's), when the first's last beat needs
// no new input line (always so for a TLP ending at an MPS boundary), the
// second's first line is there (wd_valid) and the second is longer than
// that beat; it goes on in the next beats from DW lane 0 (tx_sop low).
// A 256-byte TLP then takes 4.5 beats, not 5 (TX_OFF 4).  Read requests,
// MSI-X messages and a command's first TLP start at lane 0 of a beat.
//
// Ordering: one command at a time, in order; an MSI-X message is taken
// only between commands, so it never passes the write TLPs of a command
// taken before it (posted writes stay in order in the hard IP and on the
// link).  A write's last beat that takes no write data (its last line
// came before) takes the next command in its cycle.
//
// flush (the core in reset, SHIM_RESET included): every read not yet
// answered is forgotten at once; the tags of those still waiting for a
// completion are held the same way as a timed-out one.  A read command
// being split stops; a write command being sent is finished.
// stop (an FLR draining): no command and no message is taken, a read
// command being split stops (the function is reset next), a write being
// sent is finished; idle says no read is waiting for its completion and
// nothing is left to send.  posted_idle says no write of a command taken
// is left to send (an MSI through the hard IP's interrupt port waits for
// it, as an MSI-X message does on the request stream).  wc_taken counts
// the write commands taken, wc_sent those whose last beat left on tx (in
// command order): a write taken when wc_taken was n has left once
// wc_sent reaches n, whatever came after it (posted_idle may stay low
// for as long as writes follow).
`default_nettype none
module rclink_tlp_req #(
    parameter TAGS = 32,                // 2..32
    parameter TIMEOUT = 24'd12500000,   // cycles (50 ms at 250 MHz)
    parameter MAX_RD = 512,             // largest read request (bytes, 2^n, 128..4096)
    parameter TX_OFF = 4,               // DW lanes of the adapter's request descriptor
    parameter RX_OFF = 3,               // DW lane of a completion's first payload DW
    parameter IDW = 1,                  // width of the command id
    parameter STRADDLE = 0              // 1: a write TLP may start at DW lane 8 (above)
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [15:0]  requester_id,
    input  wire [2:0]   max_payload,    // 0: 128 B .. 5: 4096 B
    input  wire [2:0]   max_read_req,   // 0: 128 B .. 5: 4096 B
    input  wire         flush,
    input  wire         stop,           // FLR: take no new command or message
    output wire         idle,           // no read waiting, nothing to send
    output wire         posted_idle,    // no write left to send
    output reg  [7:0]   wc_taken,       // write commands taken (mod 256)
    output reg  [7:0]   wc_sent,        // ... whose last beat left on tx (mod 256)
    // ---- burst commands
    input  wire         cmd_valid,
    output wire         cmd_ready,
    input  wire         cmd_write,
    input  wire [63:0]  cmd_addr,
    input  wire [12:0]  cmd_len,        // bytes, 1..4096
    input  wire [IDW-1:0] cmd_id,
    output wire         wr_busy,        // a write command takes wd beats
    // ---- write data (address aligned)
    input  wire         wd_valid,
    output wire         wd_ready,
    input  wire [511:0] wd_data,
    // ---- read data (address aligned, in command order)
    output reg          rd_valid,
    output wire [511:0] rd_data,
    output reg  [63:0]  rd_keep,
    output reg          rd_last,
    output reg          rd_err,
    output reg  [IDW-1:0] rd_id,
    // ---- MSI-X messages
    input  wire         msg_valid,
    output wire         msg_ready,
    input  wire [63:0]  msg_addr,
    input  wire [31:0]  msg_data,
    // ---- request TLPs to the adapter
    output reg          tx_valid,
    input  wire         tx_ready,
    output reg          tx_sop,
    output reg          tx_last,
    output reg  [127:0] tx_hdr,
    output reg  [511:0] tx_data,
    output reg  [15:0]  tx_keep,
    output reg          tx_sop2,        // a TLP starts at DW lane 8 (STRADDLE)
    output reg  [127:0] tx_hdr2,        // ... its header
    output reg          tx_cend,        // tx holds a write command's last beat
    // ---- completion TLPs from the adapter (always taken)
    input  wire         rx_valid,
    input  wire         rx_sop,
    input  wire         rx_last,
    input  wire [127:0] rx_hdr,
    input  wire [511:0] rx_data,
    input  wire         rx_err,
    // a second completion in the beat, from DW lane 8 on (its header; its
    // payload from lane 8 + RX_OFF): it starts after the slot 0 TLP ended
    input  wire [2:0]   rxs_valid,
    input  wire [2:0]   rxs_last,
    input  wire [383:0] rxs_hdr,
    input  wire [2:0]   rxs_err,
    output reg  [2:0]   rxs_took,       // the slots taken (the others: again)
    output reg  [31:0]  cnt_unexp,
    output reg  [31:0]  cnt_tmo
);
    localparam RL = MAX_RD / 64;                // lines per tag region
    localparam AW = $clog2(TAGS * RL);
    localparam [3:0] TXO = TX_OFF;
    localparam [3:0] RXO = RX_OFF;

    // ======================================================================
    // tag slots
    // ======================================================================
    reg [5:0]       iptr, hptr;     // next tag to give / oldest waiting
    reg [TAGS-1:0]  pend, done, err, zombie, aged, tlast;
    reg [5:0]       toff [0:TAGS-1];    // request address [5:0]
    reg [13:0]      t_end [0:TAGS-1];   // request address [5:0] + length
    reg [IDW-1:0]   tid  [0:TAGS-1];
    reg [23:0]      timer, sweep;

    wire [4:0] islot = iptr[4:0];
    wire [4:0] hslot = hptr[4:0];
    wire [5:0] nout  = iptr - hptr;
    wire       rd_ok = nout < TAGS && !zombie[islot] && !pend[islot];
    wire       load  = !tx_valid || tx_ready;

    // ======================================================================
    // command sequencer
    // ======================================================================
    localparam S_IDLE = 2'd0, S_RD = 2'd1, S_WR = 2'd2;
    reg [1:0]     st;
    reg [63:0]    ca;               // address of the next TLP
    reg [12:0]    crem;             // bytes left
    reg [IDW-1:0] cid;
    reg [511:0]   prev;             // the previous input line (realign)
    reg [6:0]     wk;               // output beat of the current write TLP
    reg [6:0]     wli;              // input lines taken for it
    reg           wpre;             // first line still to be preloaded
    reg           wb8;              // the TLP started at DW lane 8 (STRADDLE)

    // a write command's last beat that takes no more write data: the
    // next command is taken in its cycle (no cycle in S_IDLE between)
    wire   w_done;
    assign idle      = nout == 6'd0 && !tx_valid && st == S_IDLE;
    assign msg_ready = st == S_IDLE && load && !stop;
    assign cmd_ready = ((st == S_IDLE && load) || w_done) && !stop && !msg_valid;
    assign wr_busy   = st == S_WR;
    assign posted_idle = st != S_WR && !tx_valid;
    wire   take_msg  = msg_valid && msg_ready;
    wire   take_cmd  = cmd_valid && cmd_ready;

    // ---- the current TLP: length up to the next MPS / MRRS boundary
    // (the sizes and their masks registered from the configuration: a
    // change takes a cycle more, the TLP length logic starts at registers)
    wire [2:0]  mrrs_c = max_read_req > 3'd5 ? 3'd5 : max_read_req;
    wire [2:0]  mps_c  = max_payload > 3'd5 ? 3'd5 : max_payload;
    wire [12:0] mrrs_v = (13'd128 << mrrs_c) > MAX_RD ? MAX_RD : (13'd128 << mrrs_c);
    wire [12:0] mps_v  = 13'd128 << mps_c;
    reg  [12:0] mrrs_b, mps_b, mrrs_m, mps_m;
    always @(posedge clk) begin
        mrrs_b <= mrrs_v;
        mps_b <= mps_v;
        mrrs_m <= mrrs_v - 13'd1;
        mps_m <= mps_v - 13'd1;
    end
    wire [12:0] bsize  = st == S_WR ? mps_b : mrrs_b;
    wire [12:0] to_bd  = bsize - (ca[12:0] & (st == S_WR ? mps_m : mrrs_m));
    wire [12:0] tl     = crem < to_bd ? crem : to_bd;       // TLP bytes
    wire [13:0] tend   = {8'd0, ca[5:0]} + {1'b0, tl};      // end, rel. to line
    wire [13:0] tdw4   = {12'd0, ca[1:0]} + {1'b0, tl} + 14'd3;
    wire [10:0] tdw    = tdw4[12:2];                        // TLP DWs
    wire [13:0] tnl6   = tend + 14'd63;
    wire [7:0]  tnl    = tnl6[13:6];                        // input lines
    wire [3:0]  ts     = ca[5:2];
    wire [3:0]  tb0    = {wb8, 3'b000} + TXO;               // first payload lane
    wire [3:0]  tsh    = tb0 - ts;                          // lanes up (mod 16)
    wire [11:0] tnout  = ({8'd0, tb0} + {1'b0, tdw} + 12'd15) >> 4;
    wire [4:0]  tlastn = ({1'b0, tb0} + tdw[4:0]) & 5'h0f;  // lanes in last beat
    wire        tfin   = crem == tl;
    wire [1:0]  eb     = ca[1:0] + tl[1:0] - 2'd1;          // last byte in DW
    wire [3:0]  fbe0   = 4'hf << ca[1:0];
    wire [3:0]  lbe0   = 4'hf >> (2'd3 - eb);
    wire        one_dw = tdw == 11'd1;
    wire [3:0]  tfbe   = one_dw ? (fbe0 & lbe0) : fbe0;
    wire [3:0]  tlbe   = one_dw ? 4'd0 : lbe0;

    function [127:0] mem_hdr(input wr, input [63:0] a, input [9:0] len,
                             input [7:0] tag, input [3:0] lbe, input [3:0] fbe);
        reg four;
        begin
            four = a[63:32] != 32'd0;
            mem_hdr = {1'b0, wr, four, 5'b00000, 14'd0, len,
                       requester_id, tag, lbe, fbe,
                       four ? {a[63:32], a[31:2], 2'b00} : {a[31:2], 2'b00, 32'd0}};
        end
    endfunction

    // ---- write beats: window of 16 DWs from {cur, prev}
    wire         w_need = {1'b0, wli} < tnl;
    wire [511:0] w_cur  = w_need ? wd_data : 512'd0;
    wire [1023:0] w_win = {w_cur, prev} >> ({5'd16 - {1'b0, tsh}, 5'd0});
    wire         w_lastb = {5'd0, wk} == tnout - 12'd1;
    wire         w_beat = st == S_WR && !wpre && load && (!w_need || wd_valid);

    // ---- the next TLP of the command (from an MPS boundary: line
    // aligned, its first line is the next input line) at DW lane 8 of
    // this TLP's last beat (STRADDLE)
    wire [63:0]  n_a    = ca + {51'd0, tl};
    wire [12:0]  n_rem  = crem - tl;
    wire [12:0]  n_tl   = n_rem < mps_b ? n_rem : mps_b;
    wire [12:0]  n_dw4  = n_tl + 13'd3;
    wire [10:0]  n_dw   = n_dw4[12:2];
    wire [1:0]   n_eb   = n_tl[1:0] - 2'd1;
    wire [3:0]   n_lbe  = 4'hf >> (2'd3 - n_eb);
    wire         s_rdy  = STRADDLE != 0 && st == S_WR && !wpre && load &&
                          w_lastb && !tfin && !w_need &&
                          tlastn != 5'd0 && tlastn <= 5'd8 &&
                          n_dw > 11'd8 - {7'd0, TXO};   // not in that beat alone
    wire         strad  = s_rdy && wd_valid;
    wire [511:0] n_win  = wd_data << {TXO + 4'd8, 5'd0};
    assign wd_ready = st == S_WR && (wpre || (load && w_need) || s_rdy);
    assign w_done   = st == S_WR && !wpre && load && w_lastb && tfin && !w_need;
    wire   take_rd  = st == S_RD && load && rd_ok && !flush && !stop;
    wire   tlp_end  = take_rd || (w_beat && w_lastb);

    always @(posedge clk) begin
        if (rst) begin
            st <= S_IDLE;
            ca <= 64'd0;
            crem <= 13'd0;
            cid <= {IDW{1'b0}};
            wk <= 7'd0;
            wli <= 7'd0;
            wpre <= 1'b0;
            prev <= 512'd0;
            tx_valid <= 1'b0;
            tx_sop <= 1'b0;
            tx_last <= 1'b0;
            tx_hdr <= 128'd0;
            tx_data <= 512'd0;
            tx_keep <= 16'd0;
            tx_sop2 <= 1'b0;
            tx_hdr2 <= 128'd0;
            tx_cend <= 1'b0;
            wb8 <= 1'b0;
            wc_taken <= 8'd0;
            wc_sent <= 8'd0;
        end else begin
            if (tx_valid && tx_ready) begin
                tx_valid <= 1'b0;
                tx_cend <= 1'b0;
                tx_sop2 <= 1'b0;
                if (tx_cend)
                    wc_sent <= wc_sent + 8'd1;
            end
            if (take_cmd && cmd_write)
                wc_taken <= wc_taken + 8'd1;
            case (st)
            S_IDLE:
                if (take_msg) begin
                    tx_valid <= 1'b1;
                    tx_sop <= 1'b1;
                    tx_last <= 1'b1;
                    tx_hdr <= mem_hdr(1'b1, {msg_addr[63:2], 2'b00}, 10'd1,
                                      8'd0, 4'd0, 4'hf);
                    tx_data <= {480'd0, msg_data} << {TXO, 5'd0};
                    tx_keep <= 16'hffff >> (5'd15 - {1'b0, TXO});
                end
            S_RD:
                if (flush || stop) begin
                    st <= S_IDLE;
                end else if (take_rd) begin
                    tx_valid <= 1'b1;
                    tx_sop <= 1'b1;
                    tx_last <= 1'b1;
                    tx_hdr <= mem_hdr(1'b0, {ca[63:2], 2'b00}, tdw[9:0],
                                      {3'd0, islot}, tlbe, tfbe);
                    tx_data <= 512'd0;
                    tx_keep <= 16'hffff >> (5'd16 - {1'b0, TXO});
                end
            default: begin
                if (wpre && wd_valid) begin
                    prev <= wd_data;
                    wli <= 7'd1;
                    wpre <= 1'b0;
                end
                if (w_beat) begin
                    tx_valid <= 1'b1;
                    tx_sop <= wk == 7'd0;
                    tx_last <= w_lastb;
                    tx_hdr <= mem_hdr(1'b1, {ca[63:2], 2'b00}, tdw[9:0], 8'd0,
                                      tlbe, tfbe);
                    tx_data <= w_win[511:0];
                    tx_keep <= (w_lastb && tlastn != 5'd0) ?
                               (16'hffff >> (5'd16 - tlastn)) : 16'hffff;
                    tx_cend <= w_lastb && tfin;
                    prev <= w_cur;
                    wk <= wk + 7'd1;
                    if (w_need)
                        wli <= wli + 7'd1;
                    if (w_lastb) begin
                        wk <= 7'd0;
                        wli <= 7'd0;
                        wb8 <= 1'b0;
                    end
                    if (strad) begin
                        // the next TLP's descriptor lanes and first DWs in
                        // lanes 8-15 (its first line from lane 8 + TX_OFF)
                        tx_sop2 <= 1'b1;
                        tx_hdr2 <= mem_hdr(1'b1, n_a, n_dw[9:0], 8'd0, n_lbe, 4'hf);
                        tx_data <= {n_win[511:256], w_win[255:0]};
                        tx_keep <= {8'hff, 8'hff >> (5'd8 - tlastn)};
                        prev <= wd_data;
                        wk <= 7'd1;
                        wli <= 7'd1;
                        wb8 <= 1'b1;
                    end
                end
            end
            endcase
            if (tlp_end) begin
                ca <= ca + {51'd0, tl};
                crem <= crem - tl;
                if (tfin)
                    st <= S_IDLE;
            end
            if (take_cmd) begin
                // a command, in S_IDLE or in a write's last beat (w_done)
                ca <= cmd_addr;
                crem <= cmd_len == 13'd0 ? 13'd1 : cmd_len;
                cid <= cmd_id;
                st <= cmd_write ? S_WR : S_RD;
                wk <= 7'd0;
                wli <= 7'd0;
                wpre <= cmd_write && cmd_addr[5:2] > TXO;
                wb8 <= 1'b0;
            end
        end
    end

    // ======================================================================
    // completions
    // ======================================================================
    // the header of each slot: 0 the TLP in lane 0 on (rx_*), 1-3 one
    // starting at DW lane 4, 8, 12 of the beat (rxs_*, its first beat)
    wire [511:0] x_hdr = {rxs_hdr, rx_hdr};
    wire [3:0]   x_err = {rxs_err, rx_err};
    wire [3:0]   hw, hl, hf, hb;        // waiting, late, final, bad
    wire [19:0]  hs;                    // tag slot
    wire [47:0]  hq;                    // first bank / line (see below)
    wire [43:0]  hd;                    // DWs of payload
    genvar s;
    generate
        for (s = 0; s < 4; s = s + 1) begin : g_hdr
            wire [127:0] hh     = x_hdr[128 * s +: 128];
            wire [7:0]   tag    = hh[47:40];
            wire [2:0]   status = hh[79:77];
            wire [10:0]  dwl    = !hh[126] ? 11'd0 :          // Cpl: no data
                                  hh[105:96] == 10'd0 ? 11'd1024 : {1'b0, hh[105:96]};
            wire [12:0]  bc     = hh[75:64] == 12'd0 ? 13'd4096 : {1'b0, hh[75:64]};
            wire         in     = tag < TAGS;
            wire [4:0]   slot   = tag[4:0];
            // byte offset of the completion's first byte in the tag's region
            wire [13:0]  x      = t_end[slot] - {1'b0, bc};
            // DW index in the region of the beat's lane 0, + 16: lane l
            // goes to bank (q + l) mod 16, line (q + l) / 16 - 1
            localparam [11:0] SOFF = 4 * s;     // the slot's first lane
            wire [11:0]  q      = {1'b0, x[12:2]} + 12'd16 - {8'd0, RXO} - SOFF;
            wire [13:0]  fin4   = {12'd0, x[1:0]} + {1'b0, bc} + 14'd3;
            assign hw[s] = in && pend[slot] && !done[slot] && !zombie[slot];
            assign hl[s] = in && zombie[slot];
            assign hf[s] = status != 3'd0 || fin4[13:2] <= {1'b0, dwl};
            assign hb[s] = x_err[s] || status != 3'd0 || hh[110];
            assign hs[5 * s +: 5] = slot;
            assign hq[12 * s +: 12] = q;
            assign hd[11 * s +: 11] = dwl;
        end
    endgenerate

    // the TLP in progress (latched at its first beat)
    reg        r_wait, r_late, r_fin;
    reg [4:0]  r_slot;
    reg [3:0]  r_qm;
    reg [7:0]  r_qline;     // line of bank r_qm of the current beat, +1
    reg [11:0] r_lane;      // 16 * beat (DW index of the beat's lane 0)
    reg [10:0] r_dwl;

    wire        c_wait = rx_sop ? hw[0] : r_wait;
    wire        c_late = rx_sop ? hl[0] : r_late;
    wire        c_fin  = rx_sop ? hf[0] : r_fin;
    wire [4:0]  c_slot = rx_sop ? hs[4:0] : r_slot;
    wire [3:0]  c_qm   = rx_sop ? hq[3:0] : r_qm;
    wire [7:0]  c_ql   = rx_sop ? hq[11:4] : r_qline;
    wire [11:0] c_lane = rx_sop ? 12'd0 : r_lane;
    wire [10:0] c_dwl  = rx_sop ? hd[10:0] : r_dwl;
    wire        c_end  = rx_valid && rx_last;

    // per bank: write address and data of this beat, from one slot (slot
    // k >= 1 only from lane 4k + RX_OFF on); slots are taken in order
    // while the banks they write are free
    reg [AW-1:0] b_addr [0:15];
    reg [31:0]   b_data [0:15];
    reg [15:0]   b_we;
    reg [63:0]   we;                // the banks each slot writes
    reg [15:0]   used;
    integer b, k, j2;
    reg [3:0]  lane;
    reg [11:0] j;
    reg [7:0]  line;
    reg [15:0] line16;
    reg [4:0]  bslot;
    reg [3:0]  ln [1:3];            // lane and line of the bank, per slot
    reg [7:0]  li [1:3];
    always @* begin
        for (b = 0; b < 16; b = b + 1) begin
            lane = b[3:0] - c_qm;
            j = c_lane + {8'd0, lane} - {8'd0, RXO};
            line = c_ql - 8'd1 + (b[3:0] < c_qm ? 8'd1 : 8'd0);
            we[b] = rx_valid && c_wait &&
                    c_lane + {8'd0, lane} >= {8'd0, RXO} && j < {1'b0, c_dwl} &&
                    {24'd0, line} < RL;
            for (k = 1; k < 4; k = k + 1) begin
                ln[k] = b[3:0] - hq[12 * k +: 4];
                li[k] = hq[12 * k + 4 +: 8] - 8'd1 + (b[3:0] < hq[12 * k +: 4] ? 8'd1 : 8'd0);
                we[16 * k + b] = rxs_valid[k - 1] && hw[k] &&
                                 {8'd0, ln[k]} >= 12'd4 * k[11:0] + {8'd0, RXO} &&
                                 {8'd0, ln[k]} - 12'd4 * k[11:0] - {8'd0, RXO} < {1'b0, hd[11 * k +: 11]} &&
                                 {24'd0, li[k]} < RL;
            end
        end
        // slot k is taken when it writes no bank of slot 0 nor of a slot
        // before it, all of which are taken or not there: from the clashes
        // of each pair of slots at once, not slot after slot
        for (k = 1; k < 4; k = k + 1) begin
            rxs_took[k - 1] = rxs_valid[k - 1];
            for (j2 = 0; j2 < k; j2 = j2 + 1)
                if ((we[16 * j2 +: 16] & we[16 * k +: 16]) != 16'd0)
                    rxs_took[k - 1] = 1'b0;
            for (j2 = 1; j2 < k; j2 = j2 + 1)
                if (rxs_valid[j2 - 1] && !rxs_took[j2 - 1])
                    rxs_took[k - 1] = 1'b0;
        end
        used = we[15:0];
        for (k = 1; k < 4; k = k + 1)
            if (rxs_took[k - 1])
                used = used | we[16 * k +: 16];
        for (b = 0; b < 16; b = b + 1) begin
            b_we[b] = used[b];
            bslot = c_slot;
            lane = b[3:0] - c_qm;
            line = c_ql - 8'd1 + (b[3:0] < c_qm ? 8'd1 : 8'd0);
            for (k = 1; k < 4; k = k + 1)
                if (rxs_took[k - 1] && we[16 * k + b]) begin
                    bslot = hs[5 * k +: 5];
                    lane = b[3:0] - hq[12 * k +: 4];
                    line = hq[12 * k + 4 +: 8] - 8'd1 +
                           (b[3:0] < hq[12 * k +: 4] ? 8'd1 : 8'd0);
                end
            b_data[b] = rx_data[32 * lane +: 32];
            line16 = {8'd0, line};
            b_addr[b] = bslot * RL[AW-1:0] + line16[AW-1:0];
        end
    end
    // a completion for a tag that is not waiting (nor late), per slot
    wire [3:0] unexp = {rxs_took & ~hw[3:1] & ~hl[3:1],
                        rx_valid && rx_sop && !hw[0] && !hl[0]};

    // ======================================================================
    // reassembly buffer: 16 banks of 32 bits
    // ======================================================================
    reg [AW-1:0] rd_addr;
    genvar g;
    generate
        for (g = 0; g < 16; g = g + 1) begin : g_bank
            reg [31:0] mem [0:TAGS*RL-1];
            reg [31:0] q;
            always @(posedge clk) begin
                if (b_we[g])
                    mem[b_addr[g]] <= b_data[g];
                q <= mem[rd_addr];
            end
            assign rd_data[32 * g +: 32] = q;
        end
    endgenerate

    // ======================================================================
    // delivery in tag order
    // ======================================================================
    reg  [6:0]  dl;                 // line of the head region being read
    wire [13:0] d_end  = t_end[hslot];
    wire [13:0] d_nl6  = d_end + 14'd63;
    wire [7:0]  d_nl   = d_nl6[13:6];
    wire        d_go   = nout != 6'd0 && done[hslot] && !flush;
    wire        d_lastl = {1'b0, dl} == d_nl - 8'd1;
    wire        deliver = d_go && d_lastl;      // the head tag is finished
    wire [13:0] d_lo   = dl == 7'd0 ? {8'd0, toff[hslot]} : 14'd0;
    wire [13:0] d_hi   = d_end - {1'b0, dl, 6'd0};   // bytes up to the end
    wire [63:0] d_keep = ({64{1'b1}} << d_lo[5:0]) &
                         (d_hi >= 14'd64 ? {64{1'b1}} : ({64{1'b1}} >> (7'd64 - d_hi[6:0])));
    wire [15:0] dl16   = {9'd0, dl};
    always @* rd_addr = hslot * RL[AW-1:0] + dl16[AW-1:0];

    // ---- next state of the tag slots -----------------------------------------
    wire tmo   = nout != 6'd0 && !done[hslot] && timer >= TIMEOUT - 24'd1;
    wire tick  = sweep >= TIMEOUT - 24'd1;
    reg [TAGS-1:0] n_pend, n_done, n_err, n_zombie, n_aged;
    integer t;
    // the last slot taken in this beat
    wire [1:0] st_k = rxs_took[2] ? 2'd3 : rxs_took[1] ? 2'd2 : 2'd1;
    always @* begin
        n_pend = pend;
        n_done = done;
        n_err = err;
        n_zombie = zombie;
        if (take_rd) begin
            n_pend[islot] = 1'b1;
            n_done[islot] = 1'b0;
            n_err[islot] = 1'b0;
        end
        if (rx_valid && rx_sop && hw[0] && hb[0])
            n_err[hs[4:0]] = 1'b1;
        if (c_end && c_wait && c_fin && pend[c_slot] && !zombie[c_slot])
            n_done[c_slot] = 1'b1;
        if (c_end && c_late && c_fin)
            n_zombie[c_slot] = 1'b0;
        for (t = 1; t < 4; t = t + 1) begin
            if (rxs_took[t - 1] && hw[t] && hb[t])
                n_err[hs[5 * t +: 5]] = 1'b1;
            if (rxs_took[t - 1] && rxs_last[t - 1] && hw[t] && hf[t])
                n_done[hs[5 * t +: 5]] = 1'b1;
            if (rxs_took[t - 1] && rxs_last[t - 1] && hl[t] && hf[t])
                n_zombie[hs[5 * t +: 5]] = 1'b0;
        end
        // completion timeout of the oldest read
        if (tmo) begin
            n_done[hslot] = 1'b1;
            n_err[hslot] = 1'b1;
            n_zombie[hslot] = 1'b1;
        end
        // a timed-out tag is given again after 1-2 sweep periods
        if (tick)
            n_zombie = n_zombie & ~aged;
        n_aged = (tick ? n_zombie : aged) & n_zombie;
        if (deliver) begin
            n_pend[hslot] = 1'b0;
            n_done[hslot] = 1'b0;
        end
        // the core reset: forget every read, hold the tags still waiting
        if (flush) begin
            n_zombie = n_zombie | (n_pend & ~n_done);
            n_pend = {TAGS{1'b0}};
            n_done = {TAGS{1'b0}};
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            iptr <= 6'd0;
            hptr <= 6'd0;
            pend <= {TAGS{1'b0}};
            done <= {TAGS{1'b0}};
            err <= {TAGS{1'b0}};
            zombie <= {TAGS{1'b0}};
            aged <= {TAGS{1'b0}};
            tlast <= {TAGS{1'b0}};
            timer <= 24'd0;
            sweep <= 24'd0;
            dl <= 7'd0;
            rd_valid <= 1'b0;
            rd_keep <= 64'd0;
            rd_last <= 1'b0;
            rd_err <= 1'b0;
            rd_id <= {IDW{1'b0}};
            r_wait <= 1'b0;
            r_late <= 1'b0;
            r_fin <= 1'b0;
            r_slot <= 5'd0;
            r_qm <= 4'd0;
            r_qline <= 8'd0;
            r_lane <= 12'd0;
            r_dwl <= 11'd0;
            cnt_unexp <= 32'd0;
            cnt_tmo <= 32'd0;
        end else begin
            pend <= n_pend;
            done <= n_done;
            err <= n_err;
            zombie <= n_zombie;
            aged <= n_aged;

            if (take_rd) begin
                toff[islot] <= ca[5:0];
                t_end[islot] <= tend;
                tid[islot] <= cid;
                tlast[islot] <= tfin;
                iptr <= iptr + 6'd1;
            end

            // ---- completions
            if (rxs_took != 3'd0) begin
                // the last slot taken: the only one that may go on
                r_wait <= hw[st_k];
                r_late <= hl[st_k];
                r_fin <= hf[st_k];
                r_slot <= hs[5 * st_k +: 5];
                r_qm <= hq[12 * st_k +: 4];
                r_qline <= hq[12 * st_k + 4 +: 8] + 8'd1;
                r_lane <= 12'd16 - 12'd4 * {10'd0, st_k};
                r_dwl <= hd[11 * st_k +: 11];
            end else if (rx_valid) begin
                r_wait <= c_wait;
                r_late <= c_late;
                r_fin <= c_fin;
                r_slot <= c_slot;
                r_qm <= c_qm;
                r_qline <= c_ql + 8'd1;
                r_lane <= c_lane + 12'd16;
                r_dwl <= c_dwl;
            end
            cnt_unexp <= cnt_unexp + {31'd0, unexp[0]} + {31'd0, unexp[1]} +
                         {31'd0, unexp[2]} + {31'd0, unexp[3]};

            // ---- timers
            if (nout == 6'd0 || done[hslot] || tmo || flush)
                timer <= 24'd0;
            else
                timer <= timer + 24'd1;
            if (tmo)
                cnt_tmo <= cnt_tmo + 32'd1;
            sweep <= tick ? 24'd0 : sweep + 24'd1;

            // ---- read data in request order, one line a cycle
            rd_valid <= d_go;
            if (d_go) begin
                rd_keep <= d_keep;
                rd_last <= d_lastl && tlast[hslot];
                rd_err <= err[hslot];
                rd_id <= tid[hslot];
                dl <= dl + 7'd1;
            end
            if (deliver) begin
                dl <= 7'd0;
                hptr <= hptr + 6'd1;
            end
            if (flush) begin
                hptr <= iptr;
                dl <= 7'd0;
            end
        end
    end
endmodule
`default_nettype wire
