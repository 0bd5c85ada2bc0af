// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: adapter to the Xilinx UltraScale+ integrated block
// for PCI Express (PG213), 512-bit AXI4-Stream interfaces, DWORD-aligned,
// client tags, straddling off on CQ and CC; on RC as the block's option
// (RC_TLPS 2: two TLPs a beat, or off; 4: the four-TLP option, or either
// of the others; 1: straddling off); on RQ as RQ_TLPS says (2: the
// block's RQ straddle option, two TLPs a beat, the core's DMA engine
// packing them; 1: off).  The parameters must match the block's
// configuration.
//
// Descriptor <-> standard TLP header only (in the manner of Corundum's
// pcie_us_if split): the TLP-level core (rclink_shim_tlp) does the rest.
//   CQ -> req_*  the completer request descriptor (address, DW count,
//                request type, requester ID, tag, BAR, TC, attributes;
//                first/last BE from tuser) as a request header, the first
//                two payload DWs as data.  A request of more than one
//                beat, or with discontinue set, is marked bad (the core
//                refuses it) and its further beats are dropped.
//   cpl_* -> CC  the completion header as a completer completion
//                descriptor (3 DWs) and its data: cpl_data's 2 DWs, zeros
//                after them up to the header's DW count (a doorbell BAR
//                read of up to 16 DWs), in one beat, or two past 13 DWs;
//                the hard IP fills in its bus number (completer ID
//                enable 0).
//   rq_* -> RQ   memory read/write headers as requester request
//                descriptors in DW lanes 0-3 of a TLP's first beat (the
//                core leaves them free: TX_OFF 4), the payload after them
//                as the core placed it; multi-beat writes; the core's tag
//                (client tags), requester ID filled in by the hard IP.
//                Straddled (RQ_TLPS 2): a write TLP the core starts at DW
//                lane 8 (rq_sop2, rq_hdr2) gets its descriptor in lanes
//                8-11, is_sop/is_eop tell both TLPs of the beat.
//   RC -> rc_*   the requester completion descriptor (DW lanes 0-2 of the
//                first beat, payload from lane 3: the core's RX_OFF 3) as
//                a completion header with rc_sop, every beat's data as it
//                came; rc_err is the block's error code (poisoned, bad
//                status, length, mismatch, timeout, ...) or discontinue.
//                Straddled: a completion starting at DW lane 4, 8 or 12
//                of a beat comes as rcs_* beside the one in lane 0 on
//                (from is_sop/is_eop of tuser).
`default_nettype none
module rclink_us_if #(
    parameter RC_TLPS = 2,              // TLPs a RC beat: 1, or 2 / 4 (the block's RC straddle options)
    parameter RQ_TLPS = 2               // TLPs a RQ beat: 1, or 2 (the block's RQ straddle option)
) (
    input  wire         clk,
    input  wire         rst,
    // ---- CQ (hard IP -> user)
    input  wire [511:0] m_axis_cq_tdata,
    input  wire [182:0] m_axis_cq_tuser,
    input  wire         m_axis_cq_tlast,
    input  wire [15:0]  m_axis_cq_tkeep,
    input  wire         m_axis_cq_tvalid,
    output wire         m_axis_cq_tready,
    // ---- CC (user -> hard IP)
    output wire [511:0] s_axis_cc_tdata,
    output wire [80:0]  s_axis_cc_tuser,
    output wire         s_axis_cc_tlast,
    output wire [15:0]  s_axis_cc_tkeep,
    output wire         s_axis_cc_tvalid,
    input  wire         s_axis_cc_tready,
    // ---- RQ (user -> hard IP)
    output wire [511:0] s_axis_rq_tdata,
    output wire [136:0] s_axis_rq_tuser,
    output wire         s_axis_rq_tlast,
    output wire [15:0]  s_axis_rq_tkeep,
    output wire         s_axis_rq_tvalid,
    input  wire         s_axis_rq_tready,
    // ---- RC (hard IP -> user)
    input  wire [511:0] m_axis_rc_tdata,
    input  wire [160:0] m_axis_rc_tuser,
    input  wire         m_axis_rc_tlast,
    input  wire [15:0]  m_axis_rc_tkeep,
    input  wire         m_axis_rc_tvalid,
    output wire         m_axis_rc_tready,
    // ---- TLP-level side (rclink_shim_tlp)
`include "rclink_tlp_ports.vh"
    output wire [2:0]   rcs_valid,      // completions from DW lane 4, 8, 12 (straddled)
    output wire [2:0]   rcs_last,
    output wire [383:0] rcs_hdr,
    output wire [2:0]   rcs_err,
    input  wire [2:0]   rcs_took        // the core took these (and slot 0)
);
    // ======================================================================
    // CQ: completer request descriptor -> request header
    // ======================================================================
    reg cq_drain;                       // dropping the rest of a long request
    wire [511:0] cq = m_axis_cq_tdata;
    wire [63:0]  cq_addr = {cq[63:2], 2'b00};
    wire [10:0]  cq_dws  = cq[74:64];
    wire [3:0]   cq_type = cq[78:75];
    wire [2:0]   cq_tc   = cq[123:121];
    wire [2:0]   cq_attr = cq[126:124];
    wire         cq_four = cq_addr[63:32] != 32'd0;
    reg  [7:0]   cq_ft;                 // fmt and type of the request
    always @* begin
        case (cq_type)
        4'b0000: cq_ft = {2'b00, cq_four, 5'b00000};    // memory read
        4'b0001: cq_ft = {2'b01, cq_four, 5'b00000};    // memory write
        4'b0010: cq_ft = {3'b000, 5'b00010};            // IO read
        4'b0011: cq_ft = {3'b010, 5'b00010};            // IO write
        4'b0100: cq_ft = {2'b01, cq_four, 5'b01100};    // fetch and add
        4'b0101: cq_ft = {2'b01, cq_four, 5'b01101};    // swap
        4'b0110: cq_ft = {2'b01, cq_four, 5'b01110};    // compare and swap
        4'b0111: cq_ft = {2'b00, cq_four, 5'b00001};    // locked read
        default: cq_ft = {3'b001, 5'b10000};            // message (posted)
        endcase
    end
    wire cq_first = m_axis_cq_tvalid && !cq_drain;
    assign req_valid = cq_first;
    assign m_axis_cq_tready = cq_drain || req_ready;
    assign req_hdr = {cq_ft, 1'b0, cq_tc, 1'b0, cq_attr[2], 4'd0, cq_attr[1:0],
                      cq[1:0], cq_dws[9:0],
                      cq[95:80], cq[103:96], m_axis_cq_tuser[11:8],
                      m_axis_cq_tuser[3:0],
                      cq_four ? {cq_addr[63:32], cq_addr[31:0]} :
                                {cq_addr[31:0], 32'd0}};
    assign req_bar  = cq[114:112];
    assign req_data = cq[191:128];
    assign req_bad  = !m_axis_cq_tlast || m_axis_cq_tuser[96] || cq_dws[10];

    always @(posedge clk) begin
        if (rst)
            cq_drain <= 1'b0;
        else if (m_axis_cq_tvalid && m_axis_cq_tready)
            cq_drain <= !m_axis_cq_tlast;
    end

    // ======================================================================
    // CC: completion header -> completer completion descriptor
    // ======================================================================
    wire [9:0]  cc_dws = cpl_hdr[105:96];
    wire [11:0] cc_bc  = cpl_hdr[75:64];
    wire [95:0] cc_desc = {
        1'b0, cpl_hdr[114], cpl_hdr[109:108], cpl_hdr[118:116],  // attr, TC
        1'b0, cpl_hdr[95:80],                   // completer ID (IP's bus)
        cpl_hdr[47:40],                         // tag
        cpl_hdr[63:48], 1'b0, cpl_hdr[110],     // requester ID, poisoned
        cpl_hdr[79:77], 1'b0, cc_dws,           // status, DW count
        2'b00, 1'b0, cc_bc == 12'd0, cc_bc,     // byte count (0: 4096)
        6'd0, 2'b00, 1'b0, cpl_hdr[38:32]};     // AT, lower address
    // The data: cpl_data's two DWs, zeros after them (a doorbell BAR read
    // of up to 16 DWs): 13 DWs fit beside the descriptor, the rest go in
    // a second beat
    reg        cc_more;                 // sending the second beat
    wire       cc_two  = cc_dws > 10'd13;
    wire [4:0] cc_n1   = cc_dws[4:0] - 5'd13;
    wire       cc_eop  = cc_more || !cc_two;
    wire [3:0] cc_last = cc_more ? cc_n1[3:0] - 4'd1 : 4'd2 + cc_dws[3:0];
    assign s_axis_cc_tdata  = cc_more ? 512'd0 : {352'd0, cpl_data, cc_desc};
    assign s_axis_cc_tkeep  = cc_more ? (16'd1 << cc_n1) - 16'd1 :
                              cc_two ? 16'hffff : 16'hffff >> (5'd13 - cc_dws[4:0]);
    assign s_axis_cc_tlast  = cc_eop;
    // is_sop[0] on the first beat, is_sop0_ptr 0, is_eop[0] and
    // is_eop0_ptr on the last, no discontinue, no parity
    assign s_axis_cc_tuser  = {64'd0, 1'b0, 4'd0, cc_eop ? cc_last : 4'd0,
                               1'b0, cc_eop, 2'b00, 2'b00, 1'b0, !cc_more};
    assign s_axis_cc_tvalid = cpl_valid;
    assign cpl_ready = s_axis_cc_tready && cc_eop;

    always @(posedge clk) begin
        if (rst)
            cc_more <= 1'b0;
        else if (cpl_valid && s_axis_cc_tready)
            cc_more <= cc_two && !cc_more;
    end

    // ======================================================================
    // RQ: request header -> requester request descriptor
    // ======================================================================
    // a memory read/write request header as a requester request descriptor
    function [127:0] rq_descr(input [127:0] h);
        reg [63:0] a;
        begin
            a = h[125] ? {h[63:32], h[31:2], 2'b00} : {32'd0, h[63:34], 2'b00};
            rq_descr = {
                1'b0, h[114], h[109:108], h[118:116],   // attr, TC
                1'b0, 16'd0, h[79:72],                  // requester ID enable 0, tag
                h[95:80], h[110],                       // ID, EP
                h[126] ? 4'b0001 : 4'b0000,             // MWr : MRd
                h[105:96] == 10'd0, h[105:96],          // DW count
                a[63:2], h[107:106]};                   // address, AT
        end
    endfunction
    wire [127:0] rq_desc = rq_descr(rq_hdr);
    // last DW lane of the TLP ending in the beat (is_eop0_ptr): below a
    // second TLP's start at lane 8 (rq_sop2, RQ_TLPS 2)
    reg [3:0] rq_eptr;
    integer i;
    always @* begin
        rq_eptr = 4'd0;
        for (i = 0; i < 16; i = i + 1)
            if (rq_keep[i] && (!rq_sop2 || i < 8))
                rq_eptr = i[3:0];
    end
    wire [511:0] rq_beat = rq_sop ? {rq_data[511:128], rq_desc} : rq_data;
    generate
    if (RQ_TLPS == 1) begin : g_rq1
        assign s_axis_rq_tdata  = rq_beat;
        assign s_axis_rq_tkeep  = rq_keep;
        assign s_axis_rq_tlast  = rq_last;
        // first/last BE (slot 0), is_sop[0], is_eop[0] with its pointer; no
        // discontinue, TPH, sequence numbers or parity
        assign s_axis_rq_tuser  = {101'd0, 4'd0, rq_eptr, 1'b0, rq_last, 2'b00,
                                   2'b00, 1'b0, rq_sop, 4'd0, 4'd0, rq_hdr[71:68],
                                   4'd0, rq_hdr[67:64]};
        assign s_axis_rq_tvalid = rq_valid;
        assign rq_ready = s_axis_rq_tready;
    end else begin : g_rq2
        // The block's RQ straddle option: a TLP may start at DW lane 8 of
        // a beat whose lanes 0-7 end the one before.  The core packs such
        // beats itself (rclink_tlp_req STRADDLE: rq_sop2, rq_hdr2, the
        // second TLP never ends in that beat); here its descriptor goes to
        // lanes 8-11 and the beat's starts and end to is_sop/is_eop:
        // is_sop[0] the first start (lane 0, or lane 8 when only the
        // second starts), is_sop[1] lane 8 beside one at lane 0; is_eop[0]
        // the TLP ending in the beat (at most one), its last DW the
        // highest lane in use below the second's start.  tlast: the beat
        // ends a TLP and none goes on into the next beat.
        wire [127:0] rq2_desc = rq_descr(rq_hdr2);
        wire [7:0] be1 = {rq_hdr[71:68], rq_hdr[67:64]};
        wire [7:0] be2 = {rq_hdr2[71:68], rq_hdr2[67:64]};
        wire [1:0] sop = {rq_sop && rq_sop2, rq_sop || rq_sop2};
        wire [1:0] sp0 = rq_sop ? 2'd0 : 2'd2;
        wire [3:0] fbe0 = rq_sop ? be1[3:0] : be2[3:0];
        wire [3:0] lbe0 = rq_sop ? be1[7:4] : be2[7:4];
        wire [3:0] fbe1 = rq_sop && rq_sop2 ? be2[3:0] : 4'd0;
        wire [3:0] lbe1 = rq_sop && rq_sop2 ? be2[7:4] : 4'd0;
        assign s_axis_rq_tdata  = rq_sop2 ? {rq_beat[511:384], rq2_desc, rq_beat[255:0]} :
                                            rq_beat;
        assign s_axis_rq_tkeep  = rq_keep;
        assign s_axis_rq_tlast  = rq_last && !rq_sop2;
        assign s_axis_rq_tuser  = {101'd0, 4'd0, rq_last ? rq_eptr : 4'd0,
                                   1'b0, rq_last, 2'd2, sp0, sop, 4'd0,
                                   lbe1, lbe0, fbe1, fbe0};
        assign s_axis_rq_tvalid = rq_valid;
        assign rq_ready = s_axis_rq_tready;
    end
    endgenerate

    // ======================================================================
    // RC: requester completion descriptor -> completion header
    // ======================================================================
    // Slot 0 is the TLP in DW lane 0 on (continued from the previous beat
    // or starting at lane 0), slot k one starting at DW lane 4k (is_sop
    // pointer k: straddling; 2 only with two TLPs a beat).  The TLPs of a
    // beat end in order (is_eop): the continued one first, then those
    // starting, in is_sop order.  A beat the core does not take whole
    // (rcs_took) is held and given again without the slots it took.
    function [127:0] rc_header(input [95:0] d);
        begin
            rc_header = {d[42:32] != 11'd0 ? 3'b010 : 3'b000, 5'b01010,
                         1'b0, d[91:89], 1'b0, d[94], 3'd0, d[46],
                         d[93:92], 2'b00, d[41:32],
                         d[87:72], d[45:43], 1'b0, d[27:16],
                         d[63:48], d[71:64], 1'b0, d[6:0],
                         32'd0};
        end
    endfunction
    //
    // A register slice in front (two beats, a skid buffer): the block's
    // m_axis_rc_tready comes from a flip-flop, the beat the core sees
    // (rb_*) from flip-flops; one cycle of latency, no bubble.
    reg         rb_v, rs_v;             // the beat / the skid beat held
    reg [511:0] rb_d, rs_d;
    reg [32:0]  rb_u, rs_u;             // tuser[96:64]: is_sop/eop, discontinue
    reg [3:0]   rb_sv;                  // sv of rb_u (below), decoded on loading
    wire        rb_take;                // the core took all of the beat
    // the slot positions where a TLP starts (DW lane 0, 4, 8, 12) from
    // tuser[96:64]'s is_sop and is_sop pointers
    function [3:0] rc_starts(input [32:0] u);
        integer fi, fp;
        begin
            rc_starts = 4'd0;
            for (fi = 0; fi < 4; fi = fi + 1)
                for (fp = 0; fp < 4; fp = fp + 1)
                    if (u[fi] && u[4 + 2 * fi +: 2] == fp[1:0] &&
                        (fp == 0 || RC_TLPS == 4 || (RC_TLPS == 2 && fp == 2)))
                        rc_starts[fp] = 1'b1;
        end
    endfunction
    assign m_axis_rc_tready = !rs_v;
    always @(posedge clk) begin
        if (rst) begin
            rb_v <= 1'b0;
            rs_v <= 1'b0;
        end else if (rb_take || !rb_v) begin
            rb_v <= rs_v || m_axis_rc_tvalid;
            rs_v <= 1'b0;
        end else if (m_axis_rc_tvalid && !rs_v) begin
            rs_v <= 1'b1;
        end
    end
    always @(posedge clk) begin
        if (rb_take || !rb_v) begin
            rb_d <= rs_v ? rs_d : m_axis_rc_tdata;
            rb_u <= rs_v ? rs_u : m_axis_rc_tuser[96:64];
            rb_sv <= rc_starts(rs_v ? rs_u : m_axis_rc_tuser[96:64]);
        end
        if (!rs_v) begin
            rs_d <= m_axis_rc_tdata;
            rs_u <= m_axis_rc_tuser[96:64];
        end
    end

    reg rc_more;                        // in a completion after its first beat
    reg [3:0] rc_gone;                  // slots of a held beat already taken
    wire [511:0] rc = rb_d;
    wire [3:0] rc_isop = rb_u[3:0];
    wire [7:0] rc_sptr = rb_u[11:4];
    wire [3:0] rc_ieop = rb_u[15:12];
    wire rc_disc = rb_u[32];
    // per slot position: a TLP starts there (sv), and it ends in this
    // beat (sl)
    wire [4:0] rc_eop5 = {1'b0, rc_ieop};
    wire [3:0] sv = rb_sv;
    reg [3:0] sl;
    reg [2:0] nt, ne;                   // TLPs in the beat, TLPs ending
    integer si, sp;
    always @* begin
        sl = 4'd0;
        nt = {2'd0, rc_more};
        ne = 3'd0;
        for (si = 0; si < 4; si = si + 1) begin
            ne = ne + {2'd0, rc_ieop[si]};
            nt = nt + {2'd0, rc_isop[si]};
            for (sp = 0; sp < 4; sp = sp + 1)
                if (rc_isop[si] && rc_sptr[2 * si +: 2] == sp[1:0] &&
                    (sp == 0 || RC_TLPS == 4 || (RC_TLPS == 2 && sp == 2))) begin
                    // its place among the TLPs of the beat
                    sl[sp] = rc_eop5[si + (rc_more ? 1 : 0)];
                end
        end
    end
    wire s0 = rc_more || sv[0];
    assign rc_valid = rb_v && s0 && !rc_gone[0];
    assign rc_sop   = !rc_more;
    assign rc_last  = rc_ieop[0];
    assign rc_hdr   = rc_header(rc[95:0]);
    assign rc_data  = rc;
    assign rc_err   = rc[15:12] != 4'd0 || rc_disc;
    assign rcs_valid = {3{rb_v}} & sv[3:1] & ~rc_gone[3:1];
    assign rcs_last  = sl[3:1];
    assign rcs_hdr   = {rc_header(rc[479:384]), rc_header(rc[351:256]),
                        rc_header(rc[223:128])};
    assign rcs_err   = {rc[399:396] != 4'd0 || rc_disc, rc[271:268] != 4'd0 || rc_disc,
                        rc[143:140] != 4'd0 || rc_disc};
    assign rb_take = rb_v && (rcs_valid & ~rcs_took) == 3'd0;

    always @(posedge clk) begin
        if (rst) begin
            rc_more <= 1'b0;
            rc_gone <= 4'd0;
        end else if (rb_v) begin
            if (rb_take) begin
                rc_gone <= 4'd0;
                rc_more <= nt > ne;
            end else begin
                rc_gone <= rc_gone | {rcs_took, rc_valid};
            end
        end
    end
endmodule
`default_nettype wire
