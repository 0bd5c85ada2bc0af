// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: adapter to the Intel P-tile Avalon-ST hard IP for
// PCI Express, 512-bit interface (two 256-bit segments), one physical
// function (PF0).
//
// The tile's Avalon-ST streams carry the standard TLP header beside the
// data (rx_st_hdr / tx_st_hdr, one 128-bit header per segment, first DW
// in [127:96]), so this adapter has no descriptors to translate; its work
// is the tile's framing, flow control and configuration outputs:
//   RX  rx_st_* -> req_* / rc_*
//       A TLP starts on either segment and two may share a beat.  A
//       realigner pairs each TLP's segments into 512-bit beats whose
//       payload starts at DW lane 0 (the core's RX_OFF 0): at most two
//       beats come out of one tile beat.  Requests (first beat only: the
//       header, BAR and first two payload DWs; a request of more than one
//       beat is marked bad and the core refuses it) and completions go to
//       two FIFOs of RX_DEPTH beats (each two RAM banks, even and odd
//       places, with a registered read), so a completer that holds a
//       request back never holds the DMA engine's completions.  rx_st_ready is
//       held low while either FIFO has fewer than 2 * (RX_LAT + 2) free
//       places: the tile may go on sending RX_LAT cycles after it fell.
//       A beat that finds its FIFO full all the same (a tile sending past
//       its latency) is dropped and counted (cnt_rx_drop), never written
//       over another.  rx_st_tlp_abort and the prefix are not used.
//   TX  cpl_* / rq_* / the MSI message -> tx_st_*
//       A TLP starts on segment 0 of a beat; a TLP of one segment (up to
//       8 DWs of data) goes into segment 1 of the beat before it instead
//       when that beat, still waiting in the output FIFO, ends a TLP in
//       segment 0 (the tile takes a second TLP a beat only so).  The
//       core's completions (up to 16 DWs, cpl_data's two DWs then zeros), the
//       requester's TLPs (payload from DW lane 0, the core's TX_OFF 0,
//       multi-beat writes kept whole) and the MSI message (a memory write
//       of the function's MSI data to its MSI address, after the writes
//       taken before it) are chosen at TLP boundaries, completions first.
//       A TLP starts only if the link partner has the credits for it
//       (tx_cdts_limit, time-multiplexed: header credits HDR_W bits, data
//       credits DATA_W bits; a type whose limit has been 0 since reset is
//       infinite: the tile reports 0 until flow control is initialised,
//       and a finite limit, once there, is finite until reset).  The
//       credits counted are at most the partner's initial allocation: the
//       tile's own TLPs (its configuration completions) take credits the
//       adapter does not see, and the limit runs ahead by them.
//       tx_st_ready has a ready latency of 3 cycles: a beat leaves a
//       small FIFO only in a cycle the tile allows.
//   tl_cfg_* -> the function's configuration state (bus master enable,
//       MPS, MRRS, bus/device number, MSI and MSI-X enable, MSI-X
//       function mask, MSI address and data, INTx disable), PF0 only.
`default_nettype none
module rclink_ptile_if #(
    parameter RX_DEPTH = 128,           // beats of each RX FIFO (power of 2)
    parameter RX_LAT = 27,              // rx_st_ready latency of the tile
    parameter HDR_W = 12,               // header credit field of tx_cdts_limit
    parameter DATA_W = 16               // data credit field of tx_cdts_limit
) (
    input  wire         clk,
    input  wire         rst,
    // ---- RX (tile -> user)
    input  wire [511:0] rx_st_data,
    input  wire [5:0]   rx_st_empty,
    input  wire [1:0]   rx_st_sop,
    input  wire [1:0]   rx_st_eop,
    input  wire [1:0]   rx_st_valid,
    output reg          rx_st_ready,
    input  wire [255:0] rx_st_hdr,
    input  wire [63:0]  rx_st_tlp_prfx,
    input  wire [5:0]   rx_st_bar_range,
    input  wire [1:0]   rx_st_tlp_abort,
    // ---- TX (user -> tile)
    output reg  [511:0] tx_st_data,
    output reg  [1:0]   tx_st_sop,
    output reg  [1:0]   tx_st_eop,
    output reg  [1:0]   tx_st_valid,
    input  wire         tx_st_ready,
    output wire [1:0]   tx_st_err,
    output reg  [255:0] tx_st_hdr,
    output wire [63:0]  tx_st_tlp_prfx,
    // ---- TX credit limits
    input  wire [15:0]  tx_cdts_limit,
    input  wire [2:0]   tx_cdts_limit_tdm_idx,
    // ---- configuration output (time-multiplexed)
    input  wire [2:0]   tl_cfg_func,
    input  wire [4:0]   tl_cfg_add,
    input  wire [15:0]  tl_cfg_ctl,
    // ---- the function's configuration state
    output reg  [15:0]  function_id,
    output reg          cfg_bus_master_en,
    output reg  [2:0]   cfg_max_payload,
    output reg  [2:0]   cfg_max_read_req,
    output reg          cfg_msi_en,
    output reg          cfg_msix_en,
    output reg          cfg_msix_mask,
    output reg          cfg_intx_disable,
    // ---- MSI: one message (memory write) per msi_valid/msi_ready
    input  wire         msi_valid,
    output wire         msi_ready,
    // ---- TLP-level side (rclink_shim_tlp, TX_OFF 0, RX_OFF 0)
`include "rclink_tlp_ports.vh"
    // ---- beats dropped: the tile sent past its ready latency
    output reg  [31:0]  cnt_rx_drop,
    // ---- every TLP taken has gone to the tile (the FLR drain)
    // the beat taken on rq_* ends a write command (rclink_tlp_req
    // tx_cend); tx_held: such ends in the output FIFO or its register, not
    // yet presented to the tile (rclink_shim_tlp's exact write count)
    input  wire         rq_cend,
    output reg  [4:0]   tx_held,
    output wire         tx_idle
);
    localparam AW = $clog2(RX_DEPTH);
    localparam CW = 1 + 1 + 128 + 512;          // completion beat: sop last hdr data
    localparam RW = 128 + 3 + 64 + 1;           // request: hdr bar data bad

    // ======================================================================
    // configuration (PF0)
    // ======================================================================
    reg [63:0] msi_addr;
    reg [31:0] msi_data;
    reg        msi_ext;
    always @(posedge clk) begin
        if (rst) begin
            function_id <= 16'd0;
            cfg_bus_master_en <= 1'b0;
            cfg_max_payload <= 3'd0;
            cfg_max_read_req <= 3'd0;
            cfg_msi_en <= 1'b0;
            cfg_msix_en <= 1'b0;
            cfg_msix_mask <= 1'b0;
            cfg_intx_disable <= 1'b0;
            msi_addr <= 64'd0;
            msi_data <= 32'd0;
            msi_ext <= 1'b0;
        end else if (tl_cfg_func == 3'd0) begin
            case (tl_cfg_add)
            5'h00: begin
                cfg_bus_master_en <= tl_cfg_ctl[7];
                cfg_max_read_req <= tl_cfg_ctl[5:3];
                cfg_max_payload <= tl_cfg_ctl[2:0];
            end
            5'h01: function_id <= {tl_cfg_ctl[7:0], tl_cfg_ctl[12:8], 3'd0};
            5'h02: cfg_intx_disable <= tl_cfg_ctl[13];
            5'h06: msi_addr[15:0] <= tl_cfg_ctl;
            5'h07: msi_addr[31:16] <= tl_cfg_ctl;
            5'h08: msi_addr[47:32] <= tl_cfg_ctl;
            5'h09: msi_addr[63:48] <= tl_cfg_ctl;
            5'h0c: begin
                msi_ext <= tl_cfg_ctl[7];
                cfg_msix_mask <= tl_cfg_ctl[6];
                cfg_msix_en <= tl_cfg_ctl[5];
                cfg_msi_en <= tl_cfg_ctl[0];
            end
            5'h0d: msi_data[15:0] <= tl_cfg_ctl;
            5'h1d: msi_data[31:16] <= tl_cfg_ctl;
            default: ;
            endcase
        end
    end

    // ======================================================================
    // RX: segments -> 512-bit beats from DW lane 0
    // ======================================================================
    reg         pend;                   // a TLP's first half beat, waiting
    reg         pend_sop;
    reg [127:0] pend_hdr;
    reg [255:0] pend_data;
    reg [2:0]   pend_bar;
    reg         cur_cpl;                // the TLP in progress is a completion
    reg         cur_req_first;          // ... a request, its first beat not out

    // the beats of this tile beat (at most two of each kind)
    reg         n_pend, n_pend_sop, n_cpl, n_req_first;
    reg [127:0] n_pend_hdr;
    reg [255:0] n_pend_data;
    reg [2:0]   n_pend_bar;
    reg [1:0]   c_n, r_n;
    reg [CW-1:0] c_it0, c_it1;
    reg [RW-1:0] r_it0, r_it1;
    reg         s_sop, s_eop, s_out, o_sop, o_cpl;
    reg [127:0] s_hdr, o_hdr;
    reg [255:0] s_data;
    reg [511:0] o_data;
    reg [2:0]   s_bar, o_bar;
    reg [CW-1:0] c_it;
    reg [RW-1:0] r_it;
    integer s;
    always @* begin
        n_pend = pend;
        n_pend_sop = pend_sop;
        n_pend_hdr = pend_hdr;
        n_pend_data = pend_data;
        n_pend_bar = pend_bar;
        n_cpl = cur_cpl;
        n_req_first = cur_req_first;
        c_n = 2'd0;
        r_n = 2'd0;
        c_it0 = {CW{1'b0}};
        c_it1 = {CW{1'b0}};
        r_it0 = {RW{1'b0}};
        r_it1 = {RW{1'b0}};
        for (s = 0; s < 2; s = s + 1) begin
            s_sop  = rx_st_sop[s];
            s_eop  = rx_st_eop[s];
            s_hdr  = rx_st_hdr[128*s +: 128];
            s_data = rx_st_data[256*s +: 256];
            s_bar  = rx_st_bar_range[3*s +: 3];
            s_out  = 1'b0;
            o_sop  = 1'b0;
            o_hdr  = 128'd0;
            o_data = 512'd0;
            o_bar  = 3'd0;
            // valid whatever rx_st_ready: the tile may send RX_LAT
            // cycles after it fell
            if (rx_st_valid[s]) begin
                if (s_sop) begin
                    // a completion: type 01010 (Cpl, CplD, CplLk, CplDLk)
                    n_cpl = s_hdr[124:120] == 5'b01010;
                    n_req_first = s_hdr[124:120] != 5'b01010;
                end
                if (n_pend) begin
                    s_out  = 1'b1;
                    o_sop  = n_pend_sop;
                    o_hdr  = n_pend_hdr;
                    o_data = {s_data, n_pend_data};
                    o_bar  = n_pend_bar;
                    n_pend = 1'b0;
                end else if (s_eop) begin
                    s_out  = 1'b1;
                    o_sop  = s_sop;
                    o_hdr  = s_hdr;
                    o_data = {256'd0, s_data};
                    o_bar  = s_bar;
                end else begin
                    n_pend = 1'b1;
                    n_pend_sop = s_sop;
                    n_pend_hdr = s_hdr;
                    n_pend_data = s_data;
                    n_pend_bar = s_bar;
                end
            end
            o_cpl = n_cpl;
            c_it = {o_sop, s_eop, o_hdr, o_data};
            r_it = {o_hdr, o_bar, o_data[63:0], !s_eop};
            if (s_out && o_cpl) begin
                if (c_n == 2'd0)
                    c_it0 = c_it;
                else
                    c_it1 = c_it;
                c_n = c_n + 2'd1;
            end
            if (s_out && !o_cpl && n_req_first) begin
                // a request's first beat; the rest of a long one is dropped
                n_req_first = 1'b0;
                if (r_n == 2'd0)
                    r_it0 = r_it;
                else
                    r_it1 = r_it;
                r_n = r_n + 2'd1;
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            pend <= 1'b0;
            pend_sop <= 1'b0;
            pend_hdr <= 128'd0;
            pend_data <= 256'd0;
            pend_bar <= 3'd0;
            cur_cpl <= 1'b0;
            cur_req_first <= 1'b0;
        end else begin
            pend <= n_pend;
            pend_sop <= n_pend_sop;
            pend_hdr <= n_pend_hdr;
            pend_data <= n_pend_data;
            pend_bar <= n_pend_bar;
            cur_cpl <= n_cpl;
            cur_req_first <= n_req_first;
        end
    end

    // ---- the two RX FIFOs (two writes, one read a cycle) ------------------
    // Each FIFO is two RAM banks of RX_DEPTH / 2 beats: bank 0 holds the
    // even places, bank 1 the odd ones.  A tile beat's two beats of one
    // kind go to consecutive places, so each bank takes at most one write
    // a cycle.  The read is synchronous: every cycle the banks read the
    // place of the next cycle's head (rp + pop), so that the head is in
    // its bank's read register the cycle it is the head
    // (the completion FIFO may pop every cycle).  A place written at the
    // same edge it is read (a FIFO that was empty, or held one beat being
    // taken) reads the old contents: the written beat is kept in a
    // register for that cycle instead (bypass).  The read registers and the
    // bypass hold copies only: a place is free once rp has passed it, so
    // the fill level (wp - rp) and with it rx_st_ready and the drops count
    // every beat not yet taken by the core, and a head held by req_ready
    // is read again from its place every cycle.
    wire [AW:0]  cf_cnt, rf_cnt;
    wire [CW-1:0] cf_head;
    wire [RW-1:0] rf_head;
    wire         cf_pop = cf_cnt != 0;          // the core takes every beat
    wire         rf_pop = rf_cnt != 0 && req_ready;
    localparam [AW:0] RX_ROOM = RX_DEPTH - 2 * (RX_LAT + 2);
    localparam [AW+1:0] RX_FULL = RX_DEPTH;
    wire c_fit = {1'b0, cf_cnt} + {{AW{1'b0}}, c_n} <= RX_FULL;
    wire r_fit = {1'b0, rf_cnt} + {{AW{1'b0}}, r_n} <= RX_FULL;
    rclink_ptile_rxq #(.W(CW), .AW(AW)) u_cf (
        .clk(clk), .rst(rst), .fit(c_fit), .n(c_n), .it0(c_it0),
        .it1(c_it1), .pop(cf_pop), .cnt(cf_cnt), .head(cf_head));
    rclink_ptile_rxq #(.W(RW), .AW(AW)) u_rf (
        .clk(clk), .rst(rst), .fit(r_fit), .n(r_n), .it0(r_it0),
        .it1(r_it1), .pop(rf_pop), .cnt(rf_cnt), .head(rf_head));

    always @(posedge clk) begin
        if (rst) begin
            rx_st_ready <= 1'b0;
            cnt_rx_drop <= 32'd0;
        end else begin
            // a full FIFO drops what does not fit, counted (the tile sent
            // more than its latency allows); never overwrites
            cnt_rx_drop <= cnt_rx_drop + {30'd0, c_fit ? 2'd0 : c_n}
                                       + {30'd0, r_fit ? 2'd0 : r_n};
            rx_st_ready <= cf_cnt < RX_ROOM && rf_cnt < RX_ROOM;
        end
    end

    assign rc_valid = cf_pop;
    assign rc_sop   = cf_head[CW-1];
    assign rc_last  = cf_head[CW-2];
    assign rc_hdr   = cf_head[639:512];
    assign rc_data  = cf_head[511:0];
    assign rc_err   = 1'b0;             // the core checks status and EP
    assign req_valid = rf_cnt != 0;
    assign req_hdr   = rf_head[RW-1:68];
    assign req_bar   = rf_head[67:65];
    assign req_data  = rf_head[64:1];
    assign req_bad   = rf_head[0];

    // ======================================================================
    // TX credits: the tile's limits, what was sent
    // ======================================================================
    // types: 0 PH, 1 NPH, 2 CPLH (header credits), 4 PD, 5 NPD, 6 CPLD
    // The tile sends TLPs of its own (its completions of configuration
    // requests, its messages) on the same credits: the link partner frees
    // them too, so the limit runs ahead of what this adapter counts by
    // what the tile sent.  A type's credits here are limit - used, at most
    // the partner's initial allocation (the first limit other than 0, cap):
    // when limit - used is more, used follows the limit (limit - cap), so
    // that the difference never grows past the field's half and reads as
    // "no credits" (the tile itself holds a TLP of the application that
    // finds the partner's buffer taken by the tile's own: tx_st_ready).
    reg [127:0] lim, used, cap;         // 16 bits a type
    reg [7:0]  seen, fin;
    localparam [16:0] HMASK17 = (17'd1 << HDR_W) - 17'd1;
    localparam [16:0] DMASK17 = (17'd1 << DATA_W) - 17'd1;
    localparam [15:0] HMASK = HMASK17[15:0];
    localparam [15:0] DMASK = DMASK17[15:0];
    wire [15:0] cdts = tx_cdts_limit & (tx_cdts_limit_tdm_idx[2] ? DMASK : HMASK);
    always @(posedge clk) begin
        if (rst) begin
            seen <= 8'd0;
            fin <= 8'd0;
            lim <= 128'd0;
            cap <= 128'd0;
        end else begin
            lim[16*tx_cdts_limit_tdm_idx +: 16] <= cdts;
            seen[tx_cdts_limit_tdm_idx] <= 1'b1;
            if (cdts != 16'd0 && !fin[tx_cdts_limit_tdm_idx]) begin
                fin[tx_cdts_limit_tdm_idx] <= 1'b1;
                cap[16*tx_cdts_limit_tdm_idx +: 16] <= cdts;
            end
        end
    end

    // a type's credits: limit - used (mod 2^W), at most cap; over: used
    // is to follow the limit
    reg [127:0] avail;
    reg [7:0]   over;
    reg [15:0]  cr_d;
    integer ct;
    always @* begin
        for (ct = 0; ct < 8; ct = ct + 1) begin
            cr_d = (lim[16*ct +: 16] - used[16*ct +: 16]) & (ct >= 4 ? DMASK : HMASK);
            over[ct] = cr_d > cap[16*ct +: 16];
            avail[16*ct +: 16] = over[ct] ? cap[16*ct +: 16] : cr_d;
        end
    end

    // enough credits of type ty for n (every input an argument: a
    // continuous assignment of it follows them all)
    function has_cr(input [2:0] ty, input [15:0] n, input [127:0] av,
                    input [7:0] sn, input [7:0] fn);
        begin
            has_cr = sn[ty] && (!fn[ty] || av[16*ty +: 16] >= n);
        end
    endfunction

    // ======================================================================
    // TX: choose a TLP, one beat a cycle into the output FIFO
    // ======================================================================
    // The output FIFO holds tile beats as two segment halves (valid, sop,
    // eop, header, 256 data bits each), so that a TLP of one segment can
    // be written into segment 1 of the beat before it (packing).
    localparam OD = 8;                  // output FIFO beats
    localparam SW = 1 + 1 + 1 + 128 + 256;
    reg [SW-1:0] of_s0 [0:OD-1];
    reg [SW-1:0] of_s1 [0:OD-1];
    reg [3:0]    of_wp, of_rp;
    wire [3:0]   of_cnt = of_wp - of_rp;
    wire         of_room = of_cnt < OD;
    wire [2:0]   of_tail = of_wp[2:0] - 3'd1;
    reg          tail_open;             // the last beat written ends a TLP in
                                        // segment 0: segment 1 is free
    reg [1:0]    of_ce [0:OD-1];        // write command ends in the beat
    reg [1:0]    out_ce;                // ... of the beat in tx_st_*

    reg  rq_busy;                       // in a multi-beat request TLP
    wire [9:0] cc_dws = cpl_hdr[105:96];
    wire [9:0] rq_dws = rq_hdr[105:96];
    wire       rq_wr  = rq_hdr[126];
    // credits of a TLP's data: 4 DWs each
    wire [15:0] cc_dcr = ({6'd0, cc_dws} + 16'd3) >> 2;
    wire [15:0] rq_dcr = ({5'd0, rq_dws == 10'd0, rq_dws} + 16'd3) >> 2;
    wire cc_ok  = has_cr(3'd2, 16'd1, avail, seen, fin) &&
                  has_cr(3'd6, cc_dcr, avail, seen, fin);
    wire msi_ok = has_cr(3'd0, 16'd1, avail, seen, fin) &&
                  has_cr(3'd4, 16'd1, avail, seen, fin);
    wire rq_ok  = rq_wr ? has_cr(3'd0, 16'd1, avail, seen, fin) &&
                          has_cr(3'd4, rq_dcr, avail, seen, fin)
                        : has_cr(3'd1, 16'd1, avail, seen, fin);
    wire go_cc  = !rq_busy && of_room && cpl_valid && cc_ok;
    wire go_msi = !rq_busy && of_room && !go_cc && msi_valid && msi_ok;
    wire go_rq  = of_room && rq_valid &&
                  (rq_busy || (!cpl_valid && !msi_valid && rq_ok));
    assign cpl_ready = go_cc;
    assign msi_ready = go_msi;
    assign rq_ready  = go_rq;
    // the credits a TLP taken in this cycle uses, by type
    wire rq_p  = go_rq && rq_sop && rq_wr;
    wire rq_np = go_rq && rq_sop && !rq_wr;
    wire [127:0] dec = {16'd0,
                        go_cc ? cc_dcr : 16'd0,                   // CPLD
                        16'd0,                                    // NPD
                        go_msi ? 16'd1 : rq_p ? rq_dcr : 16'd0,   // PD
                        16'd0,
                        {15'd0, go_cc},                           // CPLH
                        {15'd0, rq_np},                           // NPH
                        {15'd0, go_msi || rq_p}};                 // PH
    integer ut;

    wire msi_four = msi_addr[63:32] != 32'd0;
    wire [127:0] msi_hdr = {1'b0, 1'b1, msi_four, 5'b00000, 14'd0, 10'd1,
                            function_id, 8'd0, 4'd0, 4'hf,
                            msi_four ? {msi_addr[63:32], msi_addr[31:2], 2'b00}
                                     : {msi_addr[31:2], 2'b00, 32'd0}};
    wire [31:0] msi_dw = msi_ext ? msi_data : {16'd0, msi_data[15:0]};

    // a beat: its segments' valid, sop, eop; one TLP from segment 0
    reg [1:0]   b_sop, b_eop, b_val;
    reg [127:0] b_hdr;
    reg [511:0] b_data;
    always @* begin
        if (go_cc) begin
            b_sop = 2'b01;
            b_eop = cc_dws > 10'd8 ? 2'b10 : 2'b01;
            b_val = cc_dws > 10'd8 ? 2'b11 : 2'b01;
            b_hdr = cpl_hdr;
            b_data = {448'd0, cpl_data};
        end else if (go_msi) begin
            b_sop = 2'b01;
            b_eop = 2'b01;
            b_val = 2'b01;
            b_hdr = msi_hdr;
            b_data = {480'd0, msi_dw};
        end else begin
            b_sop = {1'b0, rq_sop};
            b_eop = rq_last ? (rq_keep[8] ? 2'b10 : 2'b01) : 2'b00;
            b_val = {rq_keep[8], 1'b1};
            b_hdr = rq_hdr;
            b_data = rq_data;
        end
    end
    wire b_go  = go_cc || go_msi || go_rq;
    // a whole TLP in segment 0 alone
    wire b_one = b_sop == 2'b01 && b_eop == 2'b01 && b_val == 2'b01;
    // packing: it goes into segment 1 of the last beat written, if that
    // beat ends a TLP in segment 0 and does not leave in this cycle
    wire of_go;
    wire b_pack = b_go && b_one && tail_open && of_cnt != 4'd0 &&
                  !(of_cnt == 4'd1 && of_go);

    always @(posedge clk) begin
        if (rst) begin
            rq_busy <= 1'b0;
            of_wp <= 4'd0;
            tail_open <= 1'b0;
            used <= 128'd0;
        end else begin
            if (b_pack) begin
                of_s1[of_tail] <= {3'b111, b_hdr, b_data[255:0]};
                of_ce[of_tail] <= of_ce[of_tail] + {1'b0, go_rq && rq_cend};
                tail_open <= 1'b0;
            end else if (b_go) begin
                of_ce[of_wp[2:0]] <= {1'b0, go_rq && rq_cend};
                of_s0[of_wp[2:0]] <= {b_val[0], b_sop[0], b_eop[0], b_hdr,
                                      b_data[255:0]};
                of_s1[of_wp[2:0]] <= {b_val[1], b_sop[1], b_eop[1], 128'd0,
                                      b_data[511:256]};
                of_wp <= of_wp + 4'd1;
                tail_open <= b_val == 2'b01 && b_eop[0];
            end
            if (go_rq)
                rq_busy <= !rq_last;
            for (ut = 0; ut < 8; ut = ut + 1)
                used[16*ut +: 16] <= (over[ut] ? lim[16*ut +: 16] - cap[16*ut +: 16]
                                                : used[16*ut +: 16])
                                     + dec[16*ut +: 16];
        end
    end

    // ---- the tile's ready latency: a beat goes out only in a cycle whose
    // tx_st_ready, three cycles before, was high (two register stages and
    // the output register)
    reg rdy1, rdy2;
    wire [SW-1:0] of_h0 = of_s0[of_rp[2:0]];
    wire [SW-1:0] of_h1 = of_s1[of_rp[2:0]];
    assign of_go = rdy2 && of_cnt != 4'd0;
    always @(posedge clk) begin
        if (rst) begin
            rdy1 <= 1'b0;
            rdy2 <= 1'b0;
            of_rp <= 4'd0;
            tx_st_valid <= 2'b00;
            tx_st_sop <= 2'b00;
            tx_st_eop <= 2'b00;
            tx_st_hdr <= 256'd0;
            tx_st_data <= 512'd0;
            out_ce <= 2'd0;
            tx_held <= 5'd0;
        end else begin
            // counted while in the FIFO and in tx_st_*: a write is out
            // once its beat was presented to the tile
            out_ce <= of_go ? of_ce[of_rp[2:0]] : 2'd0;
            tx_held <= tx_held + {4'd0, go_rq && rq_cend} - {3'd0, out_ce};
            rdy1 <= tx_st_ready;
            rdy2 <= rdy1;
            tx_st_valid <= of_go ? {of_h1[SW-1], of_h0[SW-1]} : 2'b00;
            tx_st_sop <= of_go ? {of_h1[SW-2], of_h0[SW-2]} : 2'b00;
            tx_st_eop <= of_go ? {of_h1[SW-3], of_h0[SW-3]} : 2'b00;
            tx_st_hdr <= {of_h1[383:256], of_h0[383:256]};
            tx_st_data <= {of_h1[255:0], of_h0[255:0]};
            if (of_go)
                of_rp <= of_rp + 4'd1;
        end
    end
    assign tx_idle = of_cnt == 4'd0 && !rq_busy && tx_st_valid == 2'b00;
    assign tx_st_err = 2'b00;
    assign tx_st_tlp_prfx = 64'd0;
endmodule
`default_nettype wire

// One RX FIFO of rclink_ptile_if (its comment "the two RX FIFOs"): two
// RAM banks of 2^(AW-1) beats (even and odd places), n (0-2) beats
// written a cycle at consecutive places when fit, a registered read of
// the next head with a bypass for a place written at the edge it is read;
// cnt is every beat not yet popped.
/* verilator lint_off DECLFILENAME */
module rclink_ptile_rxq #(
    parameter W = 8,                    // a beat's bits
    parameter AW = 7                    // log2 of the places
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          fit,           // the beats of this cycle fit
    input  wire [1:0]    n,             // beats this cycle (0, 1, 2)
    input  wire [W-1:0]  it0,           // the first, at wp
    input  wire [W-1:0]  it1,           // the second, at wp + 1
    input  wire          pop,           // the head is taken
    output wire [AW:0]   cnt,
    output wire [W-1:0]  head
);
    localparam BW = AW - 1;             // a bank's index bits
    localparam BD = 1 << BW;            // a bank's places
    reg  [AW:0]   wp, rp;
    assign cnt = wp - rp;
    // the places written: wp (the first beat) in bank wp[0], wp + 1 (the
    // second) in the other bank.  Index expressions are wires of their
    // own width (an index of wp[AW-1:1] + 1 may be evaluated wider in one
    // tool and point past the end instead of at place 0)
    wire [BW-1:0] wi0 = wp[AW-1:1];                     // place wp
    wire [BW-1:0] wi1 = wp[AW-1:1] + {{(BW-1){1'b0}}, wp[0]};  // wp + 1
    // bank b: written by the first beat if wp[0] == b, else by the second
    wire          we0 = fit && (wp[0] ? n == 2'd2 : n != 2'd0);
    wire          we1 = fit && (wp[0] ? n != 2'd0 : n == 2'd2);
    wire [BW-1:0] wa0 = wp[0] ? wi1 : wi0;
    wire [BW-1:0] wa1 = wp[0] ? wi0 : wi1;
    wire [W-1:0]  wd0 = wp[0] ? it1 : it0;
    wire [W-1:0]  wd1 = wp[0] ? it0 : it1;
    // the place read: the next head, rp + pop, in bank (rp + pop)[0] (the
    // other bank reads the same index, unused)
    wire [AW:0]   nrp = rp + {{AW{1'b0}}, pop};
    wire [BW-1:0] ra = nrp[AW-1:1];
    (* ram_style = "block" *) reg [W-1:0] mem0 [0:BD-1];
    (* ram_style = "block" *) reg [W-1:0] mem1 [0:BD-1];
    reg  [W-1:0]  q0, q1, bd;           // the banks' read registers, bypass
    reg           bv;
    // the banks: one write and one registered read each, no reset (RAM)
    always @(posedge clk) begin
        if (we0)
            mem0[wa0] <= wd0;
        q0 <= mem0[ra];
    end
    always @(posedge clk) begin
        if (we1)
            mem1[wa1] <= wd1;
        q1 <= mem1[ra];
    end
    // the next head's place written and read at one edge: its beat, for
    // the cycle after (the next read of the place finds it in the bank).
    // The next head is at most wp (rp + pop <= wp), so the place can only
    // be wp, the first beat's.
    wire          byp = fit && n != 2'd0 && nrp == wp;
    always @(posedge clk) begin
        bd <= it0;
        if (rst) begin
            wp <= 0;
            rp <= 0;
            bv <= 1'b0;
        end else begin
            if (fit)
                wp <= wp + {{(AW-1){1'b0}}, n};
            bv <= byp;
            rp <= nrp;
        end
    end
    // the head: place rp, read from bank rp[0] or bypassed
    assign head = bv ? bd : rp[0] ? q1 : q0;
endmodule
/* verilator lint_on DECLFILENAME */
