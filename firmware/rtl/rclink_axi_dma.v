// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the TYPE3 bridge (vendor neutral).
//
// Two AXI4 slave ports for the RCLINK-Stream IP's TYPE3 masters (seed
// 000, NONR_MD_AXI: 256 bits, MD reads and write-backs; NONR_DATA_AXI:
// 512 bits, frame data), served from host memory through a burst port of
// the DMA engine (rclink_tlp_req).  The AXI addresses are host bus
// addresses: the IP takes them from the MD rings (TX_MDQ_BA / RX_MDQ_BA
// and the MDs' buffer addresses) the driver programmed
// (Documentation/hw/rtl.rst, "TYPE3 bridge").
//
// One AXI burst at a time is turned into engine commands; the four
// request channels (MD AR, MD AW, DATA AR, DATA AW) are served round
// robin, so neither master nor direction starves the other.  INCR bursts
// of any length and every size up to the port's width; narrow and
// unaligned transfers are handled by their byte strobes.
//
// Reads: a burst becomes one command per 4 KiB page it touches (a legal
// AXI burst touches one); it is taken only when the read buffer (LINES
// 64-byte lines) has room for all its lines, since the engine's read data
// has no back-pressure (the other channels are served meanwhile).  The engine returns the lines in command order;
// the R channels send them in the same order (one queue of JOBS bursts
// for both ports), each beat cut from its line by its address; a line
// with a DMA error (UR, CA, poisoned, completion timeout) answers SLVERR
// in every beat it carries.
//
// Writes: the W beats of a burst (up to WBUF at a time) are stored first;
// each run of contiguous strobed bytes (merged across beats, cut at 4 KiB
// pages) then becomes one write command with its lines.  B is sent only
// after the engine took the last line of the burst: every request of the
// engine after that (an event record, an MSI-X message, an MSI of the
// hard IP, which waits for the posted writes) follows the burst's write
// TLPs on the link, and posted writes are not reordered, so whatever the
// IP announces after B finds its data in host memory.
//
// A burst is refused whole with SLVERR (R: every beat, data zero; B) when
// bus mastering is off, its type is not INCR, its size exceeds the port,
// or it spans more than LINES lines; such bursts and those with a DMA
// error are counted in cnt_err (SHIM_T3_DMA_ERR).
//
// flush (the core in reset, SHIM_RESET included): the bursts in flight
// and the read side are forgotten, as the engine forgets its reads; no
// command is given meanwhile; a write command the engine has taken still
// gets its lines (the engine finishes a write it started), then the
// bridge idles.
//
// stop (an FLR draining, before the function reset): every burst already
// taken is finished or answered, none is forgotten, and no new one is
// taken (the IP, reset with the function, forgets what it has not handed
// over).  No command is given: a read burst's remaining commands are not
// requested; once the engine is idle (eng_idle: every line it will return
// has come) the beats without a line answer SLVERR with zero data.  A
// write burst's W beats are still taken; the runs not yet commanded are
// dropped and its B answers SLVERR; a write command the engine took gets
// its lines.  idle says that nothing taken is left; if the IP does not
// take its R beats, B or send its W beats within DRAIN_TMO cycles after
// the engine went idle, idle rises anyway (the reset that follows drops
// the rest).
`default_nettype none
module rclink_axi_dma #(
    parameter LINES = 128,          // read buffer, 64-byte lines (2^n)
    parameter JOBS = 32,            // read bursts waiting (2^n)
    parameter WBUF = 64,            // write beats stored at a time (2^n)
    parameter DRAIN_TMO = 4096      // cycles an FLR drain waits for the IP
) (
    input  wire         clk,
    input  wire         rst,
    input  wire         flush,          // the core's reset (SHIM_RESET)
    input  wire         bus_master_en,
    input  wire         stop,           // FLR: finish or answer, take nothing
    input  wire         eng_idle,       // the engine: no read out, nothing to send
    output wire         idle,           // nothing taken is left (or DRAIN_TMO)
    // ---- the IP's NONR_MD_AXI (256 bits) and NONR_DATA_AXI (512 bits)
`include "rclink_nonr_ports.vh"
    // ---- the engine's burst port
    output wire         cmd_valid,
    input  wire         cmd_ready,
    output wire         cmd_write,
    output wire [63:0]  cmd_addr,
    output wire [12:0]  cmd_len,
    output wire         wd_valid,
    input  wire         wd_ready,
    output wire [511:0] wd_data,
    input  wire         rd_valid,
    input  wire [511:0] rd_data,
    input  wire         rd_err,
    output reg  [63:0]  cnt_err         // bursts answered SLVERR
);
    localparam LW = $clog2(LINES);
    localparam JW = $clog2(JOBS);
    localparam WW = $clog2(WBUF);
    localparam [1:0] OKAY = 2'b00, SLVERR = 2'b10;

    // ======================================================================
    // request arbitration: 0 MD AR, 1 MD AW, 2 DATA AR, 3 DATA AW
    // ======================================================================
    localparam S_IDLE = 3'd0, S_RCMD = 3'd1, S_WRECV = 3'd2, S_WSCAN = 3'd3,
               S_WEXT = 3'd4, S_WCMD = 3'd5, S_WPUSH = 3'd6, S_B = 3'd7;
    reg [2:0]  st;
    reg [1:0]  rr;                  // last request channel served

    reg [JW:0] jcnt;                // read bursts queued
    reg [LW:0] resv;                // lines reserved for queued bursts

    // the candidate of each channel
    function [14:0] span;           // bytes of [addr, end of the burst)
        input [63:0] a;
        input [7:0]  len;
        input [2:0]  size;
        reg [14:0] cs, e;
        begin
            cs = {1'b0, a[13:0]} & ~((15'd1 << size) - 15'd1);
            e  = cs + ({7'd0, len} + 15'd1 << size);
            span = e - {1'b0, a[13:0]};
        end
    endfunction
    function [9:0] nlines;          // 64-byte lines of a span
        input [5:0]  lo;
        input [14:0] n;
        reg [15:0] t;
        begin
            t = {10'd0, lo} + {1'b0, n} + 16'd63;
            nlines = t[15:6];
        end
    endfunction

    wire [63:0] c_addr [0:3];
    wire [7:0]  c_len  [0:3];
    wire [2:0]  c_size [0:3];
    wire [1:0]  c_burst[0:3];
    wire [6:0]  c_id   [0:3];
    assign c_addr[0] = nonr_md_araddr;  assign c_len[0] = nonr_md_arlen;
    assign c_size[0] = nonr_md_arsize;  assign c_burst[0] = nonr_md_arburst;
    assign c_id[0] = nonr_md_arid;
    assign c_addr[1] = nonr_md_awaddr;  assign c_len[1] = nonr_md_awlen;
    assign c_size[1] = nonr_md_awsize;  assign c_burst[1] = nonr_md_awburst;
    assign c_id[1] = nonr_md_awid;
    assign c_addr[2] = nonr_data_araddr;  assign c_len[2] = nonr_data_arlen;
    assign c_size[2] = nonr_data_arsize;  assign c_burst[2] = nonr_data_arburst;
    assign c_id[2] = nonr_data_arid;
    assign c_addr[3] = nonr_data_awaddr;  assign c_len[3] = nonr_data_awlen;
    assign c_size[3] = nonr_data_awsize;  assign c_burst[3] = nonr_data_awburst;
    assign c_id[3] = nonr_data_awid;

    // per channel: what the burst spans, whether it is refused, and for a
    // read whether it has room (a place in the job queue and, unless
    // refused, all its lines in the read buffer); a read without room
    // does not stand in the way of the other channels
    reg  [14:0] c_span  [0:3];
    reg  [9:0]  c_lines [0:3];
    reg  [3:0]  c_bad, c_room;
    integer ch;
    always @* begin
        for (ch = 0; ch < 4; ch = ch + 1) begin
            c_span[ch] = span(c_addr[ch], c_len[ch], c_size[ch]);
            c_lines[ch] = nlines(c_addr[ch][5:0], c_span[ch]);
            c_bad[ch] = !bus_master_en || c_burst[ch] != 2'b01 ||
                        c_size[ch] > (ch >= 2 ? 3'd6 : 3'd5) ||
                        (ch % 2 == 0 && c_lines[ch] > LINES);
            c_room[ch] = ch % 2 == 1 || (jcnt < JOBS && (c_bad[ch] ||
                         {{(9 - LW){1'b0}}, resv} + c_lines[ch] <= LINES));
        end
    end

    reg [1:0] pick;
    reg       pick_ok;
    reg [3:0] creq;
    integer k;
    reg [1:0] t;
    always @* begin
        creq = {nonr_data_awvalid, nonr_data_arvalid, nonr_md_awvalid,
                nonr_md_arvalid} & c_room;
        pick = 2'd0;
        pick_ok = 1'b0;
        for (k = 4; k >= 1; k = k - 1) begin
            t = rr + k[1:0];
            if (creq[t]) begin
                pick = t;
                pick_ok = 1'b1;
            end
        end
    end

    wire        p_rd    = !pick[0];
    wire        p_dt    = pick[1];
    wire [63:0] p_addr  = c_addr[pick];
    wire [7:0]  p_len   = c_len[pick];
    wire [2:0]  p_size  = c_size[pick];
    wire [14:0] p_span  = c_span[pick];
    wire [9:0]  p_lines = c_lines[pick];
    wire        p_bad   = c_bad[pick];
    wire        take    = st == S_IDLE && pick_ok && !flush && !stop;
    assign nonr_md_arready = take && pick == 2'd0;
    assign nonr_md_awready = take && pick == 2'd1;
    assign nonr_data_arready = take && pick == 2'd2;
    assign nonr_data_awready = take && pick == 2'd3;

    // the burst being served
    reg         q_dt, q_bad, q_last;
    reg         q_drop;             // a flush came while lines were sent
    reg [6:0]   q_id;
    reg [2:0]   q_size;
    reg [63:0]  q_ca;               // next command address / next W beat address
    reg [63:0]  q_cs;               // write: size-aligned start of the burst
    reg [14:0]  q_rem;              // read: bytes left to request
    reg [7:0]   q_wb;               // write: beats taken

    // ======================================================================
    // read job queue and read buffer
    // ======================================================================
    // a job: {refused, DATA port, id, size, len, address [5:0]}; the beats
    // are followed relative to the burst's first line
    reg [25:0] jq [0:JOBS-1];
    reg [JW-1:0] jwp, jrp;
    wire [25:0] j_push = {p_bad, p_dt, c_id[pick], p_size, p_len, p_addr[5:0]};
    wire       j_in = take && p_rd;

    // the head job
    wire [25:0] jh     = jq[jrp];
    wire        jh_bad = jh[25];
    wire        jh_dt  = jh[24];
    wire [6:0]  jh_id  = jh[23:17];
    wire [2:0]  jh_size = jh[16:14];
    wire [7:0]  jh_len = jh[13:6];
    wire [5:0]  jh_a0  = jh[5:0];
    wire        jv     = jcnt != 0;

    // the FLR drain: dry once the engine has been idle for 3 cycles (its
    // last line is in lmem), then a head job's beat without a line
    // answers SLVERR (its command was not requested or was cut short)
    reg  [1:0]  dry_n;
    wire        dry = dry_n == 2'd3;
    reg  [$clog2(DRAIN_TMO):0] dr_t;
    wire        idle_now = st == S_IDLE && !jv;
    assign idle = idle_now || dr_t == DRAIN_TMO;
    always @(posedge clk) begin
        if (rst || flush || !stop || !eng_idle)
            dry_n <= 2'd0;
        else if (!dry)
            dry_n <= dry_n + 2'd1;
        if (rst || flush || !dry || idle_now)
            dr_t <= 0;
        else if (dr_t != DRAIN_TMO)
            dr_t <= dr_t + 1'b1;
    end

    // line FIFO, first word fall through: mem + output register
    reg [512:0]  lmem [0:LINES-1];
    reg [LW-1:0] lwp, lrp;
    reg [LW:0]   lcnt;              // lines in lmem
    reg [512:0]  lq;
    reg          lq_v;
    wire         l_pop;
    wire         l_ld = lcnt != 0 && (!lq_v || l_pop);
    always @(posedge clk) begin
        if (rd_valid)
            lmem[lwp] <= {rd_err, rd_data};
        if (l_ld)
            lq <= lmem[lrp];
    end

    // ---- R: one beat per cycle, cut from the head line
    reg  [7:0]  rb;                 // beat of the head job
    reg  [13:0] ra;                 // its address (low bits, relative)
    reg         reacc;              // an error seen in the head job
    wire [13:0] r_cur  = rb == 8'd0 ? {8'd0, jh_a0} : ra;
    wire [13:0] r_cs   = {8'd0, jh_a0} & ~((14'd1 << jh_size) - 14'd1);
    wire [13:0] r_nxt  = r_cs + ({6'd0, rb} + 14'd1 << jh_size);
    wire        r_lastb = rb == jh_len;
    wire        r_miss = dry && !jh_bad && !lq_v && lcnt == 0;
    wire        r_ok   = jv && (jh_bad || lq_v || r_miss);
    wire        r_err  = jh_bad || r_miss || lq[512];
    wire        r_fire = r_ok && (jh_dt ? nonr_data_rready : nonr_md_rready);
    assign l_pop = r_fire && !jh_bad && !r_miss && (r_lastb || r_nxt[13:6] != r_cur[13:6]);
    wire [511:0] r_line = (jh_bad || r_miss) ? 512'd0 : lq[511:0];

    assign nonr_md_rvalid = r_ok && !jh_dt;
    assign nonr_md_rid    = jh_id;
    assign nonr_md_rdata  = r_cur[5] ? r_line[511:256] : r_line[255:0];
    assign nonr_md_rresp  = r_err ? SLVERR : OKAY;
    assign nonr_md_rlast  = r_lastb;
    assign nonr_data_rvalid = r_ok && jh_dt;
    assign nonr_data_rid    = jh_id;
    assign nonr_data_rdata  = r_line;
    assign nonr_data_rresp  = r_err ? SLVERR : OKAY;
    assign nonr_data_rlast  = r_lastb;
    wire   r_done    = r_fire && r_lastb;
    wire   r_cnt     = r_done && (reacc || r_err);

    // ======================================================================
    // write beat buffer
    // ======================================================================
    reg [511:0]  wmem [0:WBUF-1];
    reg [63:0]   wst  [0:WBUF-1];   // strobes of each stored beat, in its line
    reg [WBUF-1:0] wadv;            // beat is in the line after the previous
    reg [WW:0]   wn;                // beats stored
    reg [57:0]   wline0;            // line of the first stored beat
    reg [57:0]   wprev;             // line of the last beat taken
    reg [WW-1:0] sk, rsk, wp;       // scan entry, run's first entry, push entry
    reg [6:0]    mclr;              // lanes of entry sk already done
    reg [57:0]   la;                // line of entry sk
    reg [63:0]   rs_addr;           // the run
    reg [12:0]   rlen;
    reg [6:0]    re;                // end lane of the run in entry sk

    // W beat taken now
    wire         w_fire = st == S_WRECV && (q_dt ? nonr_data_wvalid && nonr_data_wready
                                                 : nonr_md_wvalid && nonr_md_wready);
    wire [63:0]  w_a    = q_wb == 8'd0 ? q_ca : q_cs + ({56'd0, q_wb} << q_size);
    wire [5:0]   w_hi   = w_a[5:0] | ((6'd1 << q_size) - 6'd1);
    wire [63:0]  w_lanes = ({64{1'b1}} << w_a[5:0]) & ({64{1'b1}} >> (6'd63 - w_hi));
    wire [63:0]  w_strb = q_dt ? nonr_data_wstrb :
                          (w_a[5] ? {nonr_md_wstrb, 32'd0} : {32'd0, nonr_md_wstrb});
    wire [511:0] w_data = q_dt ? nonr_data_wdata : {nonr_md_wdata, nonr_md_wdata};
    wire         w_last = q_dt ? nonr_data_wlast : nonr_md_wlast;
    wire [WW:0]  wn1    = wn + 1'b1;
    assign nonr_md_wready = st == S_WRECV && !q_dt;
    assign nonr_data_wready = st == S_WRECV && q_dt;

    // scan: the first run of the remaining strobes of entry sk.  Lane
    // numbers come from one-hot vectors (enc64) made with carry chains
    // rather than from loops over the lanes, which would be 64 levels of
    // logic deep: s_one is the run's first lane (the lowest strobe),
    // adding it to s_m clears the run and carries into the lane after it
    // (s_eh; none when the run reaches lane 63); x_one is the lowest lane
    // without a strobe (the end of a run from lane 0, for the extension).
    wire [63:0] s_m    = wst[sk] & ({64{1'b1}} << mclr[5:0]) & {64{!mclr[6]}};
    wire [63:0] s_one  = s_m & (~s_m + 64'd1);
    wire [63:0] s_eh   = (s_m + s_one) & ~s_m;
    wire [63:0] x_w    = wst[sk];
    wire [63:0] x_one  = ~x_w & (x_w + 64'd1);
    // the lane of the one bit of H, 64 when there is none
    function [6:0] enc64;
        input [63:0] h;
        integer j, b;
        reg [63:0] m;
        begin
            enc64 = {!(|h), 6'd0};
            for (b = 0; b < 6; b = b + 1) begin
                for (j = 0; j < 64; j = j + 1)
                    m[j] = j[b];
                enc64[b] = |(h & m);
            end
        end
    endfunction
    wire [6:0]  s_s    = enc64(s_one);  // first lane of the run, 64: none
    wire [6:0]  s_e    = enc64(s_eh);   // lane after it, 64: to the end
    wire [6:0]  x_e    = enc64(x_one);  // first lane without a strobe
    wire [WW:0] sk1   = {1'b0, sk} + 1'b1;
    wire        s_end = sk1 == wn;              // sk is the last entry
    wire [57:0] la1   = la + 58'd1;
    wire        can_ext = !s_end && wadv[sk1[WW-1:0]] && la1[5:0] != 6'd0 &&
                          wst[sk1[WW-1:0]][0];
    wire [6:0]  c_e   = st == S_WEXT ? x_e : s_e;

    // push: entry wp, read a cycle ahead
    wire         p_fire = st == S_WPUSH && wd_ready;
    wire [WW-1:0] w_raddr = p_fire ? wp + 1'b1 : wp;
    reg  [511:0] wq;
    always @(posedge clk) begin
        if (w_fire)
            wmem[wn[WW-1:0]] <= w_data;
        wq <= wmem[w_raddr];
    end

    // ---- the engine's command port
    wire [12:0] r_room = 13'd4096 - {1'b0, q_ca[11:0]};
    wire [12:0] r_clen = q_rem < {2'b0, r_room} ? q_rem[12:0] : r_room;
    assign cmd_valid = (st == S_RCMD || st == S_WCMD) && !flush && !stop;
    assign cmd_write = st == S_WCMD;
    assign cmd_addr  = st == S_WCMD ? rs_addr : q_ca;
    assign cmd_len   = st == S_WCMD ? rlen : r_clen;
    assign wd_valid  = st == S_WPUSH;
    assign wd_data   = wq;
    wire   c_fire    = cmd_valid && cmd_ready;

    // ---- B
    assign nonr_md_bvalid = st == S_B && !q_dt;
    assign nonr_data_bvalid = st == S_B && q_dt;
    assign nonr_md_bid    = q_id;
    assign nonr_data_bid    = q_id;
    assign nonr_md_bresp  = q_bad ? SLVERR : OKAY;
    assign nonr_data_bresp  = q_bad ? SLVERR : OKAY;
    wire   b_fire    = st == S_B && (q_dt ? nonr_data_bready : nonr_md_bready);

    // ======================================================================
    // state
    // ======================================================================
    // the read side: the job queue, the lines, R, the counter; a flush
    // forgets them (the engine forgets its reads at the same time)
    always @(posedge clk) begin
        if (rst || flush) begin
            jcnt <= 0;
            resv <= 0;
            jwp <= 0;
            jrp <= 0;
            lwp <= 0;
            lrp <= 0;
            lcnt <= 0;
            lq_v <= 1'b0;
            rb <= 8'd0;
            ra <= 14'd0;
            reacc <= 1'b0;
            cnt_err <= 64'd0;
        end else begin
            // ---- read job queue and lines
            if (j_in) begin
                jq[jwp] <= j_push;
                jwp <= jwp + 1'b1;
            end
            if (rd_valid)
                lwp <= lwp + 1'b1;
            if (l_ld)
                lrp <= lrp + 1'b1;
            lcnt <= lcnt + {{LW{1'b0}}, rd_valid} - {{LW{1'b0}}, l_ld};
            if (l_ld)
                lq_v <= 1'b1;
            else if (l_pop)
                lq_v <= 1'b0;
            jcnt <= jcnt + {{JW{1'b0}}, j_in} - {{JW{1'b0}}, r_done};
            resv <= resv + ((j_in && !p_bad) ? p_lines[LW:0] : {(LW + 1){1'b0}})
                         - {{LW{1'b0}}, l_pop};
            if (r_fire) begin
                rb <= r_lastb ? 8'd0 : rb + 8'd1;
                ra <= r_nxt;
                reacc <= r_lastb ? 1'b0 : (reacc || r_err);
                if (r_lastb)
                    jrp <= jrp + 1'b1;
            end
            cnt_err <= cnt_err + (r_cnt ? 64'd1 : 64'd0)
                               + ((b_fire && q_bad) ? 64'd1 : 64'd0);
        end
    end

    // the burst being served; a flush ends it but for a write command the
    // engine has taken: its lines are still sent (the engine finishes a
    // write it started), then the bridge idles
    wire fl_hold = flush && st == S_WPUSH;
    always @(posedge clk) begin
        if (rst || (flush && !fl_hold)) begin
            q_drop <= 1'b0;
            st <= S_IDLE;
            rr <= 2'd0;
            q_dt <= 1'b0;
            q_bad <= 1'b0;
            q_last <= 1'b0;
            q_id <= 7'd0;
            q_size <= 3'd0;
            q_ca <= 64'd0;
            q_cs <= 64'd0;
            q_rem <= 15'd0;
            q_wb <= 8'd0;
            wn <= 0;
            wadv <= {WBUF{1'b0}};
            wline0 <= 58'd0;
            wprev <= 58'd0;
            sk <= 0;
            rsk <= 0;
            wp <= 0;
            mclr <= 7'd0;
            la <= 58'd0;
            rs_addr <= 64'd0;
            rlen <= 13'd0;
            re <= 7'd0;
        end else if (stop && (st == S_RCMD || st == S_WSCAN || st == S_WEXT ||
                              st == S_WCMD)) begin
            // the FLR drain: no more commands; a read's beats without a
            // line answer SLVERR (above), a write takes its remaining W
            // beats and answers SLVERR
            if (st == S_RCMD) begin
                st <= S_IDLE;
            end else begin
                q_bad <= 1'b1;
                wn <= 0;
                st <= q_last ? S_B : S_WRECV;
            end
        end else begin
            // ---- the burst being served
            case (st)
            S_IDLE:
                if (take) begin
                    rr <= pick;
                    q_dt <= p_dt;
                    q_id <= c_id[pick];
                    q_size <= p_size;
                    q_bad <= p_bad;
                    q_ca <= p_addr;
                    q_cs <= p_addr & ~((64'd1 << p_size) - 64'd1);
                    q_rem <= p_span;
                    q_wb <= 8'd0;
                    q_last <= 1'b0;
                    wn <= 0;
                    if (p_rd)
                        st <= p_bad ? S_IDLE : S_RCMD;
                    else
                        st <= S_WRECV;
                end
            S_RCMD:
                if (c_fire) begin
                    q_ca <= q_ca + {51'd0, r_clen};
                    q_rem <= q_rem - {2'd0, r_clen};
                    if ({2'd0, r_clen} == q_rem)
                        st <= S_IDLE;
                end
            S_WRECV:
                if (w_fire) begin
                    wst[wn[WW-1:0]] <= w_strb & w_lanes;
                    wadv[wn[WW-1:0]] <= wn != 0 && w_a[63:6] != wprev;
                    wprev <= w_a[63:6];
                    if (wn == 0)
                        wline0 <= w_a[63:6];
                    wn <= wn1;
                    q_wb <= q_wb + 8'd1;
                    if (w_last || wn1 == WBUF) begin
                        q_last <= w_last;
                        sk <= 0;
                        mclr <= 7'd0;
                        la <= wn == 0 ? w_a[63:6] : wline0;
                        st <= q_bad ? (w_last ? S_B : S_WRECV) : S_WSCAN;
                        if (q_bad)
                            wn <= 0;
                    end
                end
            S_WSCAN:
                if (s_s == 7'd64) begin
                    // nothing (left) in this entry
                    if (s_end) begin
                        wn <= 0;
                        st <= q_last ? S_B : S_WRECV;
                    end else begin
                        sk <= sk1[WW-1:0];
                        mclr <= 7'd0;
                        if (wadv[sk1[WW-1:0]])
                            la <= la1;
                    end
                end else begin
                    rs_addr <= {la, s_s[5:0]};
                    rsk <= sk;
                    rlen <= {6'd0, s_e - s_s};
                    re <= s_e;
                    if (s_e == 7'd64 && can_ext) begin
                        sk <= sk1[WW-1:0];
                        la <= la1;
                        st <= S_WEXT;
                    end else begin
                        wp <= sk;
                        st <= S_WCMD;
                    end
                end
            S_WEXT: begin
                rlen <= rlen + {6'd0, c_e};
                re <= c_e;
                if (c_e == 7'd64 && can_ext) begin
                    sk <= sk1[WW-1:0];
                    la <= la1;
                end else begin
                    wp <= rsk;
                    st <= S_WCMD;
                end
            end
            S_WCMD:
                if (c_fire)
                    st <= S_WPUSH;
            S_WPUSH: begin
                if (fl_hold)
                    q_drop <= 1'b1;
                if (p_fire) begin
                    wp <= wp + 1'b1;
                    if (wp == sk) begin
                        mclr <= re;
                        q_drop <= 1'b0;
                        st <= (q_drop || fl_hold) ? S_IDLE : S_WSCAN;
                    end
                end
            end
            default:    // S_B
                if (b_fire)
                    st <= S_IDLE;
            endcase
        end
    end
endmodule
`default_nettype wire
