// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the MAC side (Documentation/hw/rtl.rst, "MAC side";
// Documentation/hw/shim.rst, "Wire link", "CBFC", "Where the board
// departs from the seeds").
//
// Sits on the RCLINK-Stream IP's MAC streams (seed 000, MAC TX interface
// CEMAC_TX and MAC RX interface CEMAC_RX, MAC_DW 1024) between the IP and
// the integrator's MAC adapter, which sees the same CEMAC shape (emac_*):
//
//   TX (IP -> MAC): every frame passed is counted (SHIM_WIRE_TX_FRAMES).
//     A TYPE3 frame that starts while SHIM_LINK.up is 0 is dropped
//     (SHIM_TX_DROP_LINK) and the MAC credits its beats took are given
//     back to the IP on MAC2TX_CREDIT_I: one credit is one beat of
//     TX2MAC_* (rtl.rst).  TYPE1/TYPE2 frames (Ethernet type 0x88b5 or
//     0x88b6, or the IP's receive keys of RX_CLASS_CFG, which the shim
//     follows from its own writes) always pass.
//   RX (MAC -> IP): every frame is counted (SHIM_WIRE_RX_FRAMES); a MAC
//     control frame (Ethernet type 0x8808) is taken off the stream: a
//     CBFC update frame (opcode 0x0102, at least 86 bytes, to the MAC's
//     RX_FC_DADDR, which the shim follows from its writes of the MAC
//     CSRs) is counted in SHIM_CBFC_UPD_RX, any other in
//     SHIM_MAC_CTRL_DROP.  RX2MAC_RDY_O back-pressures the MAC.
//   CBFC update frames received: the partner's epoch and totals; the
//     growth of its FREED (of this board's epoch) goes back to the IP on
//     MAC2TX_CBFC_VLD_I/NUM_I; a new epoch or a total gone back counts in
//     SHIM_CBFC_RESYNC.
//   CBFC receive totals: every frame that passes into the IP adds its
//     credits to its VC's total (its class as the IP's, its flow's VC of
//     AFH_CFG_EN; a TYPE1 frame's flow by its Traffic Class against
//     TRAFFIC_CLASS, followed likewise); FREED is that total less what
//     is held while the IP's TX_PFC_REQ_O has the VC's bit; the
//     partner's SENT recovers what was lost on the wire.
//   CBFC update frames sent: SENT counts the IP's frames of each loaded VC
//     (TX2MAC_CBFC_VCID_O); an 86-byte update frame goes between the IP's
//     frames at each SHIM_CBFC_CTRL write, update_us after credits were
//     freed, every sync_us while needed (SHIM_CBFC_TIMING), on a MAC
//     credit the shim keeps of its own (SHIM_CBFC_UPD_TX).
//   The IP's CBFC status: the flows of AFH_CFG_EN (followed from the
//     shim's writes, as RX_CLASS_CFG) against DFX_CBFC_CF_O and their
//     credit_uf_limit: SHIM_CBFC_STATUS.vc_on, SHIM_CBFC_TX_BLOCKED.
//   CBFC configuration: SHIM_CBFC_CTRL.load drives MAC2TX_CBFC_RST_I, one
//     VC a cycle with that VC's SHIM_CBFC_VC_CFG on the configuration
//     outputs; SHIM_CBFC_CTRL.reset drives MAC2TX_CBFC_RESET_I for a
//     cycle; DFX_CBFC_CF_O is DMAQ_DFX_CBFC_CF0/CF1.
//
// Frames on both streams: the first byte in [1023:1016]; the byte
// enables (first byte's in [127]) count on the FE beat only and are
// passed on unchanged.  One clock (the core's); every path is a register
// slice: TX two stages (no back-pressure: the IP sends on MAC credits),
// RX a skid buffer and an output register, so that RX2MAC_RDY_O reaches
// no more than the input stage's enables and the MAC sees a registered
// ready.
//
// Registers: the SHIM/DMAQ register bus of rclink_csr (the address a
// cycle before the strobe); hit and rdata answer a cycle after the
// address, as rclink_ctx's do.
`default_nettype none
`include "rclink_regs.vh"
module rclink_mac (
    input  wire        clk,
    input  wire        rst,
    input  wire        link_up,          // SHIM_LINK.up
    // ---- the shim's register requests to the IP (rclink_axil_master's
    //      req side): the writes of RX_CLASS_CFG are followed
    input  wire        rc_req,
    input  wire        rc_write,
    input  wire [13:0] rc_addr,
    input  wire [63:0] rc_wdata,
    input  wire [7:0]  rc_wstrb,
    input  wire        rc_done,
    input  wire        rc_err,
    // ---- the shim's MAC CSR requests (rclink_avmm_master's req side):
    //      the writes of RX_FC_DADDR and PHY_CONFIG are followed
    input  wire        mc_req,
    input  wire        mc_write,
    input  wire [11:0] mc_addr,          // word address
    input  wire [31:0] mc_wdata,
    input  wire        mc_done,
    // ---- the IP's MAC streams and CBFC ports, the MAC adapter's streams
`include "rclink_cemac_ports.vh"
    // ---- register bus (rclink_csr's)
    input  wire        wr,
    input  wire [15:0] addr,
    input  wire [63:0] wdata,
    input  wire [63:0] wmask,
    output reg         hit,
    output reg  [63:0] rdata
);
`include "rclink_regtab.vh"

    localparam DW = 1024;
    localparam BW = DW / 8;
    // byte i of a beat: [DW-1-8*i -: 8]
    localparam ET_HI = DW - 1 - 8 * 12;      // bytes 12..13: Ethernet type
    localparam OP_HI = DW - 1 - 8 * 14;      // bytes 14..15: opcode
    localparam ET_VLAN_HI = DW - 1 - 8 * 16; // bytes 16..17: after a tag
    localparam UPD_LAST = BW - 1 - 85;       // enable of byte 85 (86 bytes)

    // the credits back to the IP (MAC2TX_CBFC_VLD_I one-hot, _NUM_I)
    reg  [7:0]  cvld_q;
    reg  [14:0] cnum_q;
    assign mac2tx_cbfc_vld = {24'd0, cvld_q};
    assign mac2tx_cbfc_num = cnum_q;

    // the CBFC outputs' and the credits' registers
    reg  [31:0] cbfc_rst_q;
    reg  [15:0] limit_q;
    reg  [2:0]  size_q;
    reg  [9:0]  ovhd_q;
    reg         cbfc_reset_q, credit_q, credit_rst_q;
    assign mac2tx_cbfc_rst = cbfc_rst_q;
    assign cbfc_credit_limit = limit_q;
    assign cbfc_credit_size = size_q;
    assign cbfc_pkt_ovhd = ovhd_q;
    assign mac2tx_cbfc_reset = cbfc_reset_q;
    assign mac2tx_credit = credit_q;
    assign mac2tx_credit_rst = credit_rst_q;

    reg [63:0] cnt_tx_frames, cnt_tx_drop_link, cnt_rx_frames;
    reg [63:0] cnt_ctrl_drop, cnt_upd_rx, cnt_resync;

    // ================================================ TYPE1/TYPE2 or TYPE3
    // A frame is TYPE1/TYPE2 by the wire encoding's Ethernet types
    // (formats: ETH_TYPE1/ETH_TYPE2), by the IP's own receive keys
    // (RX_CLASS_CFG: mac_type1/mac_type2 when not 0, IPv4/UDP to
    // type1_udp_dport or type2_udp_port, a 20-byte IPv4 header: the
    // Standard format), at bytes 12.. or after one VLAN tag when
    // TX2MAC_VLAN_EN_O; everything else is TYPE3.  The keys are followed
    // from the shim's writes of RX_CLASS_CFG that the IP took (OKAY), and
    // back to their reset values with the IP's reset.
    localparam [63:0] CLS_RST = `RCLINK_RX_CLASS_CFG_RSTVAL;
    localparam [63:0] AFH_RST = `RCLINK_AFH_CFG_EN_RSTVAL;
    reg  [63:0] cls;                    // RX_CLASS_CFG as the IP holds it
    reg         cls_wr;                 // a write of it is out
    reg  [63:0] afh;                    // AFH_CFG_EN likewise (CBFC status)
    reg         afh_wr;
    localparam [63:0] VLC_RST = `RCLINK_VLAN_CTRL_RSTVAL;
    reg  [63:0] vlc;                    // VLAN_CTRL likewise (its TPID)
    reg         vlc_wr;
    localparam [63:0] TCL_RST = `RCLINK_TRAFFIC_CLASS_RSTVAL;
    reg  [63:0] tcl;                    // TRAFFIC_CLASS likewise (the
    reg         tcl_wr;                 // TYPE1 flows' TCs)
    reg  [63:0] cls_wd;
    reg  [7:0]  cls_ws;
    integer     bi;
    always @(posedge clk) begin
        if (rc_req) begin
            cls_wr <= rc_write && {2'b00, rc_addr} == `RCLINK_RX_CLASS_CFG;
            afh_wr <= rc_write && {2'b00, rc_addr} == `RCLINK_AFH_CFG_EN;
            vlc_wr <= rc_write && {2'b00, rc_addr} == `RCLINK_VLAN_CTRL;
            tcl_wr <= rc_write && {2'b00, rc_addr} == `RCLINK_TRAFFIC_CLASS;
            cls_wd <= rc_wdata;
            cls_ws <= rc_wstrb;
        end
        if (rst) begin
            cls <= CLS_RST;
            cls_wr <= 1'b0;
            afh <= AFH_RST;
            afh_wr <= 1'b0;
            vlc <= VLC_RST;
            vlc_wr <= 1'b0;
            tcl <= TCL_RST;
            tcl_wr <= 1'b0;
        end else if (rc_done && !rc_err) begin
            for (bi = 0; bi < 8; bi = bi + 1) begin
                if (cls_wr && cls_ws[bi])
                    cls[8 * bi +: 8] <= cls_wd[8 * bi +: 8];
                if (afh_wr && cls_ws[bi])
                    afh[8 * bi +: 8] <= cls_wd[8 * bi +: 8];
                if (vlc_wr && cls_ws[bi])
                    vlc[8 * bi +: 8] <= cls_wd[8 * bi +: 8];
                if (tcl_wr && cls_ws[bi])
                    tcl[8 * bi +: 8] <= cls_wd[8 * bi +: 8];
            end
        end
    end
    wire [15:0] udp1 = cls[`RCLINK_RX_CLASS_CFG_TYPE1_UDP_DPORT_MSB:`RCLINK_RX_CLASS_CFG_TYPE1_UDP_DPORT_LSB];
    wire [15:0] udp2 = cls[`RCLINK_RX_CLASS_CFG_TYPE2_UDP_PORT_MSB:`RCLINK_RX_CLASS_CFG_TYPE2_UDP_PORT_LSB];
    wire [15:0] et1 = cls[`RCLINK_RX_CLASS_CFG_MAC_TYPE1_MSB:`RCLINK_RX_CLASS_CFG_MAC_TYPE1_LSB];
    wire [15:0] et2 = cls[`RCLINK_RX_CLASS_CFG_MAC_TYPE2_MSB:`RCLINK_RX_CLASS_CFG_MAC_TYPE2_LSB];
    // the frame's Ethernet type at byte o (12, or 16 behind a tag), its
    // IPv4 protocol at o + 11 and UDP destination port at o + 24
    function t12_at;
        input [DW-1:0] d;
        input integer  o;
        input [15:0]   u1, u2, e1, e2;
        reg   [15:0]   et, dp;
        reg   [7:0]    pr;
        begin
            et = d[DW - 1 - 8 * o -: 16];
            pr = d[DW - 1 - 8 * (o + 11) -: 8];
            dp = d[DW - 1 - 8 * (o + 24) -: 16];
            t12_at = et == 16'h88b5 || et == 16'h88b6 ||
                     (e1 != 16'd0 && et == e1) || (e2 != 16'd0 && et == e2) ||
                     (et == 16'h0800 && pr == 8'd17 &&
                      (dp == u1 || (u2 != 16'd0 && dp == u2)));
        end
    endfunction
    wire in_t12 = t12_at(tx2mac_dat, 12, udp1, udp2, et1, et2) ||
                  (tx2mac_vlan && t12_at(tx2mac_dat, 16, udp1, udp2, et1, et2));

    // ================================================ RX_FC_DADDR
    // The destination a MAC control frame for this board has: the MAC's
    // RX_FC_DADDR, a static register of seed 003 (its written value
    // taken when PHY_CONFIG.soft_reset is released, 1 -> 0), followed
    // from the shim's own writes of the MAC CSRs (done: the MAC took
    // it, or the port timed out, SHIM_REG_TIMEOUT.mac); the reset value
    // with the board's reset.  The addresses of the update frames the
    // shim sends, TX_FC_DADDR and TX_FC_SADDR (static too), likewise.
    localparam [15:0] B_DA_LO = `RCLINK_RX_FC_DADDR_LO - `RCLINK_WIN_MAC_BASE;
    localparam [15:0] B_DA_HI = `RCLINK_RX_FC_DADDR_HI - `RCLINK_WIN_MAC_BASE;
    localparam [15:0] B_PHY = `RCLINK_PHY_CONFIG - `RCLINK_WIN_MAC_BASE;
    localparam [11:0] A_DA_LO = B_DA_LO[13:2], A_DA_HI = B_DA_HI[13:2];
    localparam [11:0] A_PHY = B_PHY[13:2];
    localparam [15:0] B_TD_LO = `RCLINK_TX_FC_DADDR_LO - `RCLINK_WIN_MAC_BASE;
    localparam [15:0] B_TD_HI = `RCLINK_TX_FC_DADDR_HI - `RCLINK_WIN_MAC_BASE;
    localparam [15:0] B_TS_LO = `RCLINK_TX_FC_SADDR_LO - `RCLINK_WIN_MAC_BASE;
    localparam [15:0] B_TS_HI = `RCLINK_TX_FC_SADDR_HI - `RCLINK_WIN_MAC_BASE;
    localparam [11:0] A_TD_LO = B_TD_LO[13:2], A_TD_HI = B_TD_HI[13:2];
    localparam [11:0] A_TS_LO = B_TS_LO[13:2], A_TS_HI = B_TS_HI[13:2];
    localparam [31:0] TD_HI_RST = `RCLINK_TX_FC_DADDR_HI_RSTVAL;
    localparam [31:0] TD_LO_RST = `RCLINK_TX_FC_DADDR_LO_RSTVAL;
    localparam [31:0] TS_HI_RST = `RCLINK_TX_FC_SADDR_HI_RSTVAL;
    localparam [31:0] TS_LO_RST = `RCLINK_TX_FC_SADDR_LO_RSTVAL;
    localparam [47:0] TD_RST = {TD_HI_RST[15:0], TD_LO_RST};
    localparam [47:0] TS_RST = {TS_HI_RST[15:0], TS_LO_RST};
    localparam [31:0] DA_HI_RST = `RCLINK_RX_FC_DADDR_HI_RSTVAL;
    localparam [31:0] DA_LO_RST = `RCLINK_RX_FC_DADDR_LO_RSTVAL;
    localparam [47:0] DA_RST = {DA_HI_RST[15:0], DA_LO_RST};
    reg  [47:0] da_wr, rx_da;           // written, in use
    reg  [47:0] td_wr, tx_da;           // TX_FC_DADDR written, in use
    reg  [47:0] ts_wr, tx_sa;           // TX_FC_SADDR written, in use
    // the write out: RX DA LO, HI, PHY, TX DA LO, HI, TX SA LO, HI
    reg  [6:0]  mc_sel;
    reg  [31:0] mc_wd;
    reg         soft_rst;               // PHY_CONFIG.soft_reset as written
    always @(posedge clk) begin
        if (mc_req) begin
            mc_sel <= {7{mc_write}} & {mc_addr == A_TS_HI, mc_addr == A_TS_LO,
                                        mc_addr == A_TD_HI, mc_addr == A_TD_LO,
                                        mc_addr == A_PHY, mc_addr == A_DA_HI,
                                        mc_addr == A_DA_LO};
            mc_wd <= mc_wdata;
        end
        if (rst) begin
            da_wr <= DA_RST;
            rx_da <= DA_RST;
            td_wr <= TD_RST;
            tx_da <= TD_RST;
            ts_wr <= TS_RST;
            tx_sa <= TS_RST;
            soft_rst <= 1'b0;
            mc_sel <= 7'd0;
        end else if (mc_done) begin
            if (mc_sel[0])
                da_wr[31:0] <= mc_wd;
            if (mc_sel[1])
                da_wr[47:32] <= mc_wd[15:0];
            if (mc_sel[3])
                td_wr[31:0] <= mc_wd;
            if (mc_sel[4])
                td_wr[47:32] <= mc_wd[15:0];
            if (mc_sel[5])
                ts_wr[31:0] <= mc_wd;
            if (mc_sel[6])
                ts_wr[47:32] <= mc_wd[15:0];
            if (mc_sel[2]) begin
                soft_rst <= mc_wd[`RCLINK_PHY_CONFIG_SOFT_RESET_LSB];
                if (soft_rst && !mc_wd[`RCLINK_PHY_CONFIG_SOFT_RESET_LSB]) begin
                    rx_da <= da_wr;
                    tx_da <= td_wr;
                    tx_sa <= ts_wr;
                end
            end
        end
    end

    // ================================================================ TX
    // stage 1: the IP's beat as it came; stage 2 (tx_o, emac_tx_vld): to
    // the MAC adapter.  The sidebands of a beat: FCS, ERR, the CBFC
    // VC channel, the header type, multicast (passed on as they are).
    localparam SBW = 1 + 1 + 8 + 2 + 1;
    reg [DW-1:0]  t1_dat;
    reg [BW-1:0]  t1_be;
    reg           t1_vld, t1_fs, t1_fe, t1_vlan, t1_link, t1_t12;
    reg [2:0]     t1_vcid;
    reg [SBW-1:0] t1_sb;
    reg [DW+BW+SBW+5:0] tx_o;
    reg           tx_o_vld;
    // the CBFC update frame (below: "CBFC update frames sent") goes out of
    // stage 2 in a cycle without a beat of the IP and outside its frames
    // (ins), on a MAC credit the shim keeps for it (have_cr)
    reg           upd_req, have_cr, tx_mid;
    reg [DW-1:0]  upd_dat;
    wire          ins = upd_req && have_cr && !t1_vld && !tx_mid;
    localparam [BW-1:0] UPD_BE = ~({BW{1'b1}} >> 86);
    // stage 1 also gets the bytes of a last beat: its enables are
    // contiguous from the top, so byte k-1 enabled and byte k not is k
    // bytes (a one-hot decode, then an OR per bit of the count)
    reg  [7:0]    in_n;
    integer       nk;
    always @* begin
        in_n = 8'd0;
        for (nk = 1; nk <= BW; nk = nk + 1)
            if (tx2mac_be[BW - nk] && (nk == BW || !tx2mac_be[BW - 1 - nk]))
                in_n = in_n | nk[7:0];
    end
    reg  [7:0]    t1_n;
    assign {emac_tx_dat, emac_tx_be, emac_tx_fs, emac_tx_fe, emac_tx_vlan,
            emac_tx_vcid, emac_tx_fcs, emac_tx_err, emac_tx_cbfc_vcid,
            emac_tx_hdr_type, emac_tx_mcast} = tx_o;
    assign emac_tx_vld = tx_o_vld;
    always @(posedge clk) begin
        {t1_dat, t1_be, t1_fs, t1_fe, t1_vlan, t1_vcid, t1_sb} <=
            {tx2mac_dat, tx2mac_be, tx2mac_fs, tx2mac_fe, tx2mac_vlan,
             tx2mac_vcid, tx2mac_fcs, tx2mac_err, tx2mac_cbfc_vcid,
             tx2mac_hdr_type, tx2mac_mcast};
        t1_link <= link_up;
        t1_t12 <= in_t12;
        t1_vld <= !rst && tx2mac_vld;
        t1_n <= in_n;
        if (ins)
            tx_o <= {upd_dat, UPD_BE, 1'b1, 1'b1, 1'b0, 3'd0,
                     1'b1, 1'b0, 8'd0, 2'd0, 1'b0};
        else
            tx_o <= {t1_dat, t1_be, t1_fs, t1_fe, t1_vlan, t1_vcid, t1_sb};
    end

    reg  tx_dropping;                   // inside a frame being dropped
    wire t1_drop = t1_fs ? (!t1_link && !t1_t12) : tx_dropping;
    // credits owed to the IP for the dropped beats (at most what the IP
    // holds: it cannot send a beat without one)
    reg [15:0] owed;
    reg        cr_q, cr_rst_q;
    // a credit the MAC returns while the shim has none goes to the shim
    // (its update beat took one)
    wire       take = cr_q && !have_cr;

    always @(posedge clk) begin
        cr_q <= emac_tx_credit;
        cr_rst_q <= emac_tx_credit_rst;
        if (rst) begin
            tx_o_vld <= 1'b0;
            tx_dropping <= 1'b0;
            owed <= 16'd0;
            credit_q <= 1'b0;
            credit_rst_q <= 1'b0;
            have_cr <= 1'b1;
            tx_mid <= 1'b0;
            cnt_tx_frames <= 64'd0;
            cnt_tx_drop_link <= 64'd0;
        end else begin
            tx_o_vld <= (t1_vld && !t1_drop) || ins;
            if (t1_vld)
                tx_mid <= !t1_fe;
            if (t1_vld && t1_fs)
                tx_dropping <= t1_drop && !t1_fe;
            else if (t1_vld && t1_fe)
                tx_dropping <= 1'b0;
            if ((t1_vld && t1_fs && !t1_drop) || ins)
                cnt_tx_frames <= cnt_tx_frames + 64'd1;
            if (t1_vld && t1_fs && t1_drop)
                cnt_tx_drop_link <= cnt_tx_drop_link + 64'd1;
            // the MAC's credits go on; a dropped beat's credit goes in a
            // cycle without one.  A credit reset of the MAC restores the
            // IP's initial credits: nothing is owed any more.
            credit_rst_q <= cr_rst_q;
            // The shim's own credit: one beat of the MAC adapter's buffer
            // beyond the IP's initial credits (rtl.rst), back with a
            // credit reset.
            credit_q <= !cr_rst_q && ((cr_q && !take) || owed != 16'd0);
            if (cr_rst_q)
                owed <= 16'd0;
            else
                owed <= owed + {15'd0, t1_vld && t1_drop} -
                        {15'd0, (!cr_q || take) && owed != 16'd0};
            if (cr_rst_q || take)
                have_cr <= 1'b1;
            else if (ins)
                have_cr <= 1'b0;
        end
    end

    // ================================================================ RX
    // input stage: a skid buffer (s: the stage, k: the skid), ready
    // registered towards the MAC; the classification of the first beat
    // is computed on the way in.  A beat: {data, enables, FCS error, FS,
    // FE, control frame, update frame}.  An update frame with the MAC's
    // FCS error flag (not 0 on any of its beats; the MAC knows it at the
    // last) is no update frame: in_upd has the flag of a one-beat
    // frame, rx_upd that of the beats after the first.
    localparam RW = DW + BW + 2 + 4;
    wire in_ctrl = emac_rx_fs && emac_rx_dat[ET_HI -: 16] == 16'h8808;
    wire in_upd = emac_rx_dat[OP_HI -: 16] == 16'h0102 &&
                  emac_rx_dat[DW-1 -: 48] == rx_da &&
                  (!emac_rx_fe || emac_rx_be[UPD_LAST]) &&
                  emac_rx_fcs_err == 2'd0;
    wire [RW-1:0] in_beat = {emac_rx_dat, emac_rx_be, emac_rx_fcs_err,
                             emac_rx_fs, emac_rx_fe, in_ctrl, in_upd};
    reg  [RW-1:0] s_beat, k_beat;
    reg           s_vld, k_vld;
    wire s_fs = s_beat[3], s_fe = s_beat[2], s_ctrl = s_beat[1];
    wire s_upd = s_beat[0];
    wire s_fcs_ok = s_beat[5:4] == 2'd0;
    assign emac_rx_rdy = !k_vld;
    wire in_fire = emac_rx_vld && !k_vld;

    reg  [RW-3:0] rx_o;                 // to the IP: the beat but its class
    reg           rx_o_vld;
    assign {mac2rx_dat, mac2rx_be, mac2rx_fcs_err, mac2rx_fs,
            mac2rx_fe} = rx_o;
    assign mac2rx_vld = rx_o_vld;

    reg  rx_dropping;                   // inside a control frame
    reg  rx_upd;                        // an update frame, no FCS error yet
    wire s_drop = s_fs ? s_ctrl : rx_dropping;
    // an update frame leaves the input stage once every frame before it
    // has passed into the IP and its credits are in the receive totals
    // (rx_busy: the count's stages, below), so that the partner's SENT
    // it carries is compared with all of them
    wire rx_busy;
    wire s_wait = s_fs && s_upd && (rx_o_vld || rx_busy);
    wire s_pop = s_vld && (s_drop ? !s_wait : !rx_o_vld || rx2mac_rdy);
    // a control frame ends: an update frame (taken, parsed: u_vld) or
    // not (dropped); counted at its last beat, where the MAC's FCS
    // error flag is
    wire s_upd_ok = s_fs ? s_upd : rx_upd && s_fcs_ok;
    wire s_ctrl_end = s_pop && s_fe && s_drop;

    always @(posedge clk) begin
        if (!s_vld || s_pop)
            s_beat <= k_vld ? k_beat : in_beat;
        else if (in_fire)
            k_beat <= in_beat;
        if (s_pop && !s_drop)
            rx_o <= s_beat[RW-1:2];
        if (rst) begin
            s_vld <= 1'b0;
            k_vld <= 1'b0;
            rx_o_vld <= 1'b0;
            rx_dropping <= 1'b0;
            cnt_rx_frames <= 64'd0;
            cnt_ctrl_drop <= 64'd0;
            cnt_upd_rx <= 64'd0;
        end else begin
            if (!s_vld || s_pop) begin
                s_vld <= k_vld || in_fire;
                k_vld <= 1'b0;
            end else if (in_fire) begin
                k_vld <= 1'b1;
            end
            if (s_pop && !s_drop)
                rx_o_vld <= 1'b1;
            else if (rx2mac_rdy)
                rx_o_vld <= 1'b0;
            if (s_pop && s_fs)
                rx_dropping <= s_ctrl && !s_fe;
            else if (s_pop && s_fe)
                rx_dropping <= 1'b0;
            if (s_pop)
                rx_upd <= s_upd_ok;
            if (s_pop && s_fs)
                cnt_rx_frames <= cnt_rx_frames + 64'd1;
            if (s_ctrl_end && s_upd_ok)
                cnt_upd_rx <= cnt_upd_rx + 64'd1;
            if (s_ctrl_end && !s_upd_ok)
                cnt_ctrl_drop <= cnt_ctrl_drop + 64'd1;
        end
    end

    // ================================================ CBFC configuration
    reg  [63:0] vc_cfg [0:7];           // SHIM_CBFC_VC_CFG[n]
    reg  [7:0]  loaded, ld_pend;
    reg  [111:0] cf;                    // DFX_CBFC_CF_O, a cycle late
    integer     vi;
    wire        a_cfg = {addr[15:6], 6'd0} == `RCLINK_SHIM_CBFC_VC_CFG;
    wire        a_blk = {addr[15:6], 6'd0} == `RCLINK_SHIM_CBFC_TX_BLOCKED;
    wire        ctrl_wr = wr && addr == `RCLINK_SHIM_CBFC_CTRL;
    wire [7:0]  ld_req = wdata[`RCLINK_SHIM_CBFC_CTRL_LOAD_MSB:`RCLINK_SHIM_CBFC_CTRL_LOAD_LSB] &
                         wmask[`RCLINK_SHIM_CBFC_CTRL_LOAD_MSB:`RCLINK_SHIM_CBFC_CTRL_LOAD_LSB];
    wire        rs_req = wdata[`RCLINK_SHIM_CBFC_CTRL_RESET_LSB] &&
                         wmask[`RCLINK_SHIM_CBFC_CTRL_RESET_LSB];
    // the VCs whose configuration is a size (credit_size 6 and 7 are not)
    reg  [7:0]  size_ok;
    always @* begin
        for (vi = 0; vi < 8; vi = vi + 1)
            size_ok[vi] = vc_cfg[vi][`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_MSB:`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_LSB] < 3'd6;
    end
    // the lowest VC waiting for its load (one-hot) and its configuration
    // (an AND-OR multiplexer: no encoder, no shifter on the way)
    reg  [7:0]  ld_one;
    reg  [63:0] ld_cfg;
    always @* begin
        ld_cfg = 64'd0;
        for (vi = 0; vi < 8; vi = vi + 1) begin
            ld_one[vi] = ld_pend[vi] && (ld_pend & ((8'd1 << vi) - 8'd1)) == 8'd0;
            ld_cfg = ld_cfg | (vc_cfg[vi] & {64{ld_one[vi]}});
        end
    end

    always @(posedge clk) begin
        cf <= dfx_cbfc_cf;
        if (rst) begin
            for (vi = 0; vi < 8; vi = vi + 1)
                vc_cfg[vi] <= `RCLINK_SHIM_CBFC_VC_CFG_RSTVAL;
            loaded <= 8'd0;
            ld_pend <= 8'd0;
            cbfc_rst_q <= 32'd0;
            cbfc_reset_q <= 1'b0;
            limit_q <= 16'd0;
            size_q <= 3'd0;
            ovhd_q <= 10'd0;
        end else begin
            if (wr && a_cfg)
                vc_cfg[addr[5:3]] <= rclink_reg_wmerge(addr, vc_cfg[addr[5:3]], wdata, wmask);
            // MAC2TX_CBFC_RST_I: one VC a cycle with its configuration
            cbfc_rst_q <= {24'd0, ld_one};
            if (ld_pend != 8'd0) begin
                limit_q <= ld_cfg[`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_LIMIT_MSB:`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_LIMIT_LSB];
                size_q <= ld_cfg[`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_MSB:`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_LSB];
                ovhd_q <= ld_cfg[`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_MSB:`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_LSB];
            end
            cbfc_reset_q <= ctrl_wr && rs_req;
            if (ctrl_wr) begin
                // a reset first (every VC unloaded), then the loads; a
                // VC whose credit_size is not a size is refused and
                // left unloaded (the model's rule)
                ld_pend <= ((rs_req ? 8'd0 : ld_pend) & ~ld_one) |
                           (ld_req & size_ok);
                loaded <= ((rs_req ? 8'd0 : loaded) & ~(ld_req & ~size_ok)) |
                          (ld_req & size_ok);
            end else begin
                ld_pend <= ld_pend & ~ld_one;
            end
        end
    end

    // ================================================ CBFC update frames received
    // (shim.rst "CBFC", "Credit return: the update frame").  The frame's
    // fields (all in its first beat) are taken as that leaves the input
    // stage and held; U1 is the cycle after its last beat left it without
    // an FCS error (one cycle after the first for the one-beat frame the
    // partner sends).  U2 compares them with the totals and updates
    // those (one frame's state is written before the next is compared:
    // no hazard);
    // the growth of the partner's FREED is the credits owed to the IP
    // (ret), handed out on MAC2TX_CBFC_VLD_I/NUM_I one VC at a time.
    // The receive totals (recv, this board's FREED) count the frames that
    // passed into the IP ("CBFC receive totals" below); the partner's
    // SENT, which counts every frame it sent before the update (the wire
    // keeps order, and the update waits for their count), becomes them:
    // more is what was lost on the wire (recovered), less a frame that
    // came after its recovery (a resync), as in the model.
    localparam U_HI = RW - 1 - 8 * 14;          // bytes 14..21 of s_beat
    reg         u_vld;
    reg  [7:0]  u_mask, u_based;
    reg  [15:0] u_epoch, u_pepoch;
    reg  [31:0] u_sent [0:7];
    reg  [31:0] u_fr [0:7];
    // this board's epoch (never 0, the next one at each reset) and what
    // it knows of the partner's
    reg  [15:0] epoch = 16'd1;
    reg  [15:0] peer_epoch;
    reg  [7:0]  based, peer_loaded, acked;
    reg  [31:0] seen [0:7];              // the partner's FREED, last seen
    reg  [31:0] recv [0:7];              // receive totals (= freed here)
    wire [7:0]  r3_oh;                   // a frame's credits into recv
    wire [15:0] r3_cr;
    reg  [31:0] held [0:7];              // recv less FREED (TX_PFC_REQ_O)
    reg  [31:0] frd [0:7];               // FREED: recv - held
    reg  [7:0]  pfc_q, pfc_qq;           // TX_PFC_REQ_O, sampled
    // a VC's bit fell: what it held is FREED (the frame counted in that
    // cycle goes to recv, not held)
    wire [7:0]  rel = pfc_qq & ~pfc_q;
    reg  [33:0] inc [0:7];               // U2 -> ret: FREED's growth
    reg  [31:0] sent [0:7];              // credits this board sent (SENT)
    reg  [31:0] ld_out [0:7];            // seen - sent: minus what is out
    always @* for (ui = 0; ui < 8; ui = ui + 1) ld_out[ui] = seen[ui] - sent[ui];
    reg  [4:0]  resync_n;                // (U4, from r_* of U3)
    reg  [7:0]  r_fr, r_sn;
    reg         r_ep;
    reg         u_freed;                 // U2 changed the totals (U4)
    reg  [7:0]  u_chg;                   // (U3)
    reg         u_new;
    // the epochs compared on the way into U1 (the partner's epoch as the
    // frame in U2 leaves it)
    reg         ep_new;
    reg  [7:0]  ours;
    wire [7:0]  umask = u_mask & loaded;
    wire [7:0]  based_e = ep_new ? 8'd0 : based;
    reg  [7:0]  neg_fr, neg_sn, chg;
    reg  [31:0] dfr [0:7];
    reg  [31:0] dsn [0:7];
    reg  [4:0]  nres;
    integer     ui;
    always @* begin
        nres = {4'd0, r_ep};
        for (ui = 0; ui < 8; ui = ui + 1) begin
            dfr[ui] = u_fr[ui] - seen[ui];
            dsn[ui] = u_sent[ui] - recv[ui];
            neg_fr[ui] = umask[ui] && ours[ui] && dfr[ui][31];
            neg_sn[ui] = umask[ui] && based_e[ui] && dsn[ui][31];
            chg[ui] = umask[ui] && (!based_e[ui] || u_sent[ui] != recv[ui]);
            nres = nres + {4'd0, r_fr[ui]} + {4'd0, r_sn[ui]};
        end
    end

    always @(posedge clk) begin
        u_vld <= !rst && s_ctrl_end && s_upd_ok;
        if (s_vld && s_fs) begin        // (an update frame's FS pops at once)
            {u_mask, u_based, u_epoch, u_pepoch} <= s_beat[U_HI - 16 -: 48];
            ep_new <= s_beat[U_HI - 32 -: 16] != (u_vld ? u_epoch : peer_epoch);
            ours <= s_beat[U_HI - 48 -: 16] == epoch ? s_beat[U_HI - 24 -: 8] : 8'd0;
            for (ui = 0; ui < 8; ui = ui + 1)
                {u_sent[ui], u_fr[ui]} <= s_beat[U_HI - 64 - 64 * ui -: 64];
        end
        for (ui = 0; ui < 8; ui = ui + 1)
            inc[ui] <= u_vld && umask[ui] && ours[ui] ?
                       {{2{dfr[ui][31]}}, dfr[ui]} : 34'd0;
        r_fr <= u_vld ? neg_fr : 8'd0;
        r_sn <= u_vld ? neg_sn : 8'd0;
        r_ep <= u_vld && ep_new && peer_epoch != 16'd0;
        resync_n <= nres;
        u_chg <= u_vld ? chg : 8'd0;
        u_new <= u_vld && ep_new;
        u_freed <= u_new || u_chg != 8'd0 || (r3_oh & ~pfc_qq) != 8'd0 ||
                   rel != 8'd0;
        if (rst) begin
            epoch <= epoch == 16'hffff ? 16'd1 : epoch + 16'd1;
            peer_epoch <= 16'd0;
            based <= 8'd0;
            peer_loaded <= 8'd0;
            acked <= 8'd0;
            pfc_q <= 8'd0;
            pfc_qq <= 8'd0;
            for (ui = 0; ui < 8; ui = ui + 1) begin
                seen[ui] <= 32'd0;
                recv[ui] <= 32'd0;
                held[ui] <= 32'd0;
            end
            cnt_resync <= 64'd0;
        end else begin
            if (u_vld) begin
                peer_loaded <= u_mask;
                acked <= ours & u_mask;
                peer_epoch <= u_epoch;
                based <= based_e | umask;
                for (ui = 0; ui < 8; ui = ui + 1) begin
                    if (umask[ui] && ours[ui])
                        seen[ui] <= u_fr[ui];
                end
            end
            // (a frame counted in U1 is one after the update: on top)
            for (ui = 0; ui < 8; ui = ui + 1)
                recv[ui] <= (u_vld && umask[ui] ? u_sent[ui] : recv[ui]) +
                            (r3_oh[ui] ? {16'd0, r3_cr} : 32'd0);
            // the IP's receive buffer back-pressures VC v (TX_PFC_REQ_O,
            // seed 000 "RX 方向反压"): the credits of its frames are held
            // out of FREED until the bit falls
            pfc_q <= tx_pfc_req;
            pfc_qq <= pfc_q;
            for (ui = 0; ui < 8; ui = ui + 1)
                if (rel[ui])
                    held[ui] <= 32'd0;
                else if (r3_oh[ui] && pfc_qq[ui])
                    held[ui] <= held[ui] + {16'd0, r3_cr};
            cnt_resync <= cnt_resync + {59'd0, resync_n};
        end
        for (ui = 0; ui < 8; ui = ui + 1)
            frd[ui] <= recv[ui] - held[ui];
    end

    // the credits owed to the IP: per VC the total owed (tot: FREED's
    // growth) and the total given (given); one VC every fourth cycle (0:
    // picked, 1: given, 2: avail settles, 3: its flags), at most 0x7fff
    // (NUM_I's width) a time; a negative avail (FREED went back) waits
    // for the partner's next returns.  A CBFC reset clears the IP's
    // credits: nothing is owed; a load sets the IP's credits to the limit,
    // less what is still out (sent, not freed): owed negative.  The
    // write's effect a cycle late (k_*), from registers.  A give decided
    // from the books before a clear (k_clr from two cycles before phase
    // 0 to phase 1: the books of phase 0 are two cycles old) is
    // cancelled: it is neither counted nor handed out, so the IP never
    // gets a pre-load amount after its MAC2TX_CBFC_RST_I; it comes again
    // from the new books in the VC's next turn.  Nor does a give from the
    // new books reach the IP before the VC's RST (ld_pend).
    reg  [1:0]  dr_ph;
    reg         dr_go;
    reg  [7:0]  dr_oh;                   // the VC's turn (one-hot)
    reg  [14:0] dr_num;
    reg  [39:0] tot [0:7];
    reg  [39:0] given [0:7];
    reg  [39:0] avail [0:7];
    reg  [39:0] ld_q [0:7];
    reg  [7:0]  av_pos, av_big, k_clr, k_set;
    reg  [7:0]  k_q1, k_q2, k_q3;        // k_clr of the last three cycles
    wire [7:0]  k_any = k_clr | k_q1 | k_q2 | k_q3;
    // (and a VC whose load waits for its RST: a write that loads several
    // VCs gives each later VC its RST a cycle later per VC before it)
    wire        dr_give = dr_go && (dr_oh & (k_any | ld_pend)) == 8'd0;
    reg  [14:0] av_low [0:7];            // avail's count, of the flags' cycle
    reg  [39:0] av_d [0:7];
    reg  [14:0] dr_low;
    reg         dr_pos, dr_big;
    always @* begin
        dr_low = 15'd0;
        dr_pos = 1'b0;
        dr_big = 1'b0;
        for (ui = 0; ui < 8; ui = ui + 1) begin
            av_d[ui] = tot[ui] - given[ui];
            dr_low = dr_low | (av_low[ui] & {15{dr_oh[ui]}});
            dr_pos = dr_pos | (av_pos[ui] & dr_oh[ui]);
            dr_big = dr_big | (av_big[ui] & dr_oh[ui]);
        end
    end
    always @(posedge clk) begin
        k_clr <= ctrl_wr ? (rs_req ? 8'hff : 8'd0) | (ld_req & size_ok) : 8'd0;
        k_set <= ctrl_wr ? ld_req & size_ok : 8'd0;
        k_q1 <= k_clr;
        k_q2 <= k_q1;
        k_q3 <= k_q2;
        for (ui = 0; ui < 8; ui = ui + 1) begin
            ld_q[ui] <= {{8{ld_out[ui][31]}}, ld_out[ui]};
            avail[ui] <= av_d[ui];
            // the flags and the count from the same avail: a total that
            // falls meanwhile never gives the low bits of a negative one
            av_pos[ui] <= !avail[ui][39] && avail[ui] != 40'd0;
            av_big[ui] <= !avail[ui][39] && avail[ui][38:15] != 24'd0;
            av_low[ui] <= avail[ui][14:0];
        end
        if (rst) begin
            dr_ph <= 2'd0;
            dr_go <= 1'b0;
            dr_oh <= 8'd1;
            cvld_q <= 8'd0;
            for (ui = 0; ui < 8; ui = ui + 1) begin
                tot[ui] <= 40'd0;
                given[ui] <= 40'd0;
            end
        end else begin
            dr_ph <= dr_ph + 2'd1;
            cvld_q <= 8'd0;
            if (dr_ph == 2'd0) begin
                dr_go <= dr_pos;
                dr_num <= dr_big ? 15'h7fff : dr_low;
            end
            if (dr_ph == 2'd1) begin
                dr_oh <= {dr_oh[6:0], dr_oh[7]};
                dr_go <= 1'b0;
                cvld_q <= dr_give ? dr_oh : 8'd0;
                cnum_q <= dr_num;
            end
            for (ui = 0; ui < 8; ui = ui + 1) begin
                // a load: ld_q was sampled before the frame in U1 that
                // cycle updated seen; that frame's growth (inc now)
                // comes on top, or it would be lost (one adder: its
                // first operand chosen, a reset adds nothing)
                tot[ui] <= (k_clr[ui] ? (k_set[ui] ? ld_q[ui] : 40'd0) : tot[ui]) +
                           (k_clr[ui] && !k_set[ui] ? 40'd0 :
                            {{6{inc[ui][33]}}, inc[ui]});
                if (k_clr[ui])
                    given[ui] <= 40'd0;
                else if (dr_ph == 2'd1 && dr_give && dr_oh[ui])
                    given[ui] <= given[ui] + {25'd0, dr_num};
            end
        end
    end

    // ================================================ CBFC update frames sent
    // SENT: every frame of the IP with its VC channel (TX2MAC_CBFC_VCID_O,
    // a bit per VC) on a loaded VC costs ceil((length + pkt_ovhd) /
    // credit_size) credits, at least one (shim.rst "CBFC", Sending), also
    // one the shim drops for the link (the IP has charged it: the partner
    // frees it as lost).  C0: its length at the last beat; C1: plus the
    // overhead; C2: rounded up; C3: the credits; then into SENT.
    reg  [15:0] c_acc, c_len;
    reg  [7:0]  c_vc;
    reg         c_go;
    reg  [63:0] c_cfg;
    wire [7:0]  c3_oh;
    wire [15:0] c3_cr;
    wire        c_busy;                 // (not needed: SENT waits for none)
    always @* begin
        c_cfg = 64'd0;
        for (ui = 0; ui < 8; ui = ui + 1)
            c_cfg = c_cfg | (vc_cfg[ui] & {64{c_vc[ui]}});
    end
    // C1-C3
    rclink_cbfc_cr u_c_cr (
        .clk(clk), .rst(rst),
        .in_oh(c_go ? c_vc : 8'd0), .in_len(c_len), .in_cfg(c_cfg),
        .out_oh(c3_oh), .out_cr(c3_cr), .busy(c_busy));
    always @(posedge clk) begin
        if (t1_vld)
            c_acc <= t1_fs ? 16'd128 : c_acc + 16'd128;
        c_go <= !rst && t1_vld && t1_fe && (t1_sb[10:3] & loaded) != 8'd0;
        c_vc <= t1_sb[10:3] & loaded;
        c_len <= (t1_fs ? 16'd0 : c_acc) + {8'd0, t1_n};
        if (rst) begin
            for (ui = 0; ui < 8; ui = ui + 1)
                sent[ui] <= 32'd0;
        end else begin
            for (ui = 0; ui < 8; ui = ui + 1)
                if (c3_oh[ui])
                    sent[ui] <= sent[ui] + {16'd0, c3_cr};
        end
    end

    // When: SHIM_CBFC_TIMING.update_us after credits were freed (u_freed;
    // merged), every sync_us while anything changed in the last three
    // periods (quiet) or the partner has not been heard since the reset or
    // has not based a VC both have loaded, and at each write of
    // SHIM_CBFC_CTRL; the model's timers in microseconds (US_CYC cycles).
    localparam US_CYC = 250;
    reg  [63:0] timing;
    reg  [7:0]  us_div;
    reg         us_tick;
    reg         ut_pend, st_run;
    reg  [7:0]  ut_cnt;
    reg  [15:0] st_cnt;
    reg  [1:0]  quiet;
    reg  [63:0] cnt_upd_tx;
    wire [7:0]  t_upd = timing[`RCLINK_SHIM_CBFC_TIMING_UPDATE_US_MSB:`RCLINK_SHIM_CBFC_TIMING_UPDATE_US_LSB];
    wire [15:0] t_sync = timing[`RCLINK_SHIM_CBFC_TIMING_SYNC_US_MSB:`RCLINK_SHIM_CBFC_TIMING_SYNC_US_LSB];
    wire        ut_fire = ut_pend && us_tick && ut_cnt == 8'd1;
    wire        st_fire = st_run && us_tick && st_cnt == 16'd1;
    wire        st_pending = peer_epoch == 16'd0 ||
                             (loaded & peer_loaded & ~acked) != 8'd0;
    wire        st_send = st_fire && (ut_pend || quiet != 2'd3 || st_pending);
    wire        fr_now = u_freed && t_upd == 8'd0;
    reg         ctrl_q;                  // SHIM_CBFC_CTRL written (loaded)
    wire        want = ctrl_q || ut_fire || st_send || fr_now;
    always @(posedge clk) begin
        us_tick <= us_div == US_CYC - 1;
        ctrl_q <= !rst && ctrl_wr;
        us_div <= us_div == US_CYC - 1 ? 8'd0 : us_div + 8'd1;
        if (rst) begin
            timing <= `RCLINK_SHIM_CBFC_TIMING_RSTVAL;
            us_div <= 8'd0;
            ut_pend <= 1'b0;
            st_run <= 1'b0;
            quiet <= 2'd0;
            upd_req <= 1'b0;
            cnt_upd_tx <= 64'd0;
        end else begin
            if (wr && addr == `RCLINK_SHIM_CBFC_TIMING)
                timing <= rclink_reg_wmerge(addr, timing, wdata, wmask);
            // the update timer: started by freed credits, stopped by any
            // update (the model's timer_del at each send)
            if (want)
                ut_pend <= 1'b0;
            else if (u_freed && !ut_pend) begin
                ut_pend <= 1'b1;
                ut_cnt <= t_upd;
            end else if (ut_pend && us_tick)
                ut_cnt <= ut_cnt - 8'd1;
            // the periodic timer: (re)armed by a write of the control or
            // timing register and at each period, while a VC is loaded
            if (ctrl_q || st_fire ||
                (wr && addr == `RCLINK_SHIM_CBFC_TIMING) || !st_run) begin
                st_run <= t_sync != 16'd0 && loaded != 8'd0;
                st_cnt <= t_sync;
            end else if (us_tick)
                st_cnt <= st_cnt - 16'd1;
            if (ctrl_q || u_freed || c3_oh != 8'd0)
                quiet <= 2'd0;
            else if (st_fire && !ut_pend && quiet != 2'd3)
                quiet <= quiet + 2'd1;
            // a request goes with the next gap; none without the link or
            // without a loaded VC
            if (!link_up || loaded == 8'd0)
                upd_req <= 1'b0;
            else if (want)
                upd_req <= 1'b1;
            else if (ins)
                upd_req <= 1'b0;
            if (ins)
                cnt_upd_tx <= cnt_upd_tx + 64'd1;
        end
    end

    // the frame (formats: CBFC): to TX_FC_DADDR, from TX_FC_SADDR, as the
    // MAC uses them (above, "RX_FC_DADDR")
    always @* begin
        upd_dat = {DW{1'b0}};
        upd_dat[DW-1 -: 176] = {tx_da, tx_sa, 16'h8808, 16'h0102, loaded,
                                based & loaded, epoch, peer_epoch};
        for (ui = 0; ui < 8; ui = ui + 1)
            upd_dat[DW - 1 - 8 * 22 - 64 * ui -: 64] =
                loaded[ui] ? {sent[ui], frd[ui]} : 64'd0;
    end

    // ================================================ the IP's CBFC status
    // (seed 000, 工作阶段 流控触发; shim.rst "CBFC", Sending): a flow under
    // CBFC (AFH_CFG_EN: stop_cbfc_en 0, its enable) is on while its VC is
    // loaded, software_ctrl_cbfc_vc_status has the VC and its credits
    // (DFX_CBFC_CF_O) are at least credit_uf_limit maximum frames of it
    // (uf 0: always).  SHIM_CBFC_STATUS.vc_on: the VCs of the flows on;
    // SHIM_CBFC_TX_BLOCKED[v]: the times VC v's bit went to 0.  A pipeline
    // per flow: P1 the frame plus overhead, P2 rounded up, P3 the credits
    // of a maximum frame, P4 times uf, P5 compared, P6 the VC's bit.
    localparam FMAX_T1 = `RCLINK_PARAM_TYPE1_PKT_LEN + 128;
    localparam FMAX_T2 = `RCLINK_PARAM_TYPE2_PKT_LEN + 128;
    localparam FMAX_T3 = 4096;          // the TX MD's largest frame
    function integer f_en;              // AFH_CFG_EN: flow f's enable
        input integer f;
        f_en = f < 5 ? 6 + f : f == 5 ? 33 : 11;
    endfunction
    function integer f_vc;              // and its VC field
        input integer f;
        f_vc = 12 + 3 * f;
    endfunction
    function [5:0] f_uf;
        input integer f;
        f_uf = f < 4 ? `RCLINK_AFH_CFG_EN_TYPE1_CREDIT_UF_LIMIT_CBFC_LSB :
               f == 4 ? `RCLINK_AFH_CFG_EN_ACK_CREDIT_UF_LIMIT_CBFC_LSB :
               f == 5 ? `RCLINK_AFH_CFG_EN_TYPE2_CREDIT_UF_LIMIT_CBFC_LSB :
                        `RCLINK_AFH_CFG_EN_TYPE3_CREDIT_UF_LIMIT_CBFC_LSB;
    endfunction
    function [12:0] f_max;
        input integer f;
        f_max = f < 4 ? FMAX_T1 : f == 4 ? 128 : f == 5 ? FMAX_T2 : FMAX_T3;
    endfunction
    reg  [6:0]  p1_act, p2_act, p3_act, p4_act, p5_on;
    // the flow's VC, carried along as its gate (p*_act): P5's VC is the
    // one p5_on was computed for
    reg  [2:0]  p1_vc [0:6];
    reg  [2:0]  p2_vc [0:6];
    reg  [2:0]  p3_vc [0:6];
    reg  [2:0]  p4_vc [0:6];
    reg  [2:0]  p5_vc [0:6];
    reg  [2:0]  p1_uf [0:6];              // (carried along too: P4's uf
    reg  [2:0]  p2_uf [0:6];              // is of p3_max's sample)
    reg  [2:0]  p3_uf [0:6];
    reg  [14:0] p1_b [0:6];
    reg  [2:0]  p1_sz [0:6];
    reg  [14:0] p2_r [0:6];
    reg  [2:0]  p2_sz [0:6];
    reg  [6:0]  p2_pos;
    reg  [12:0] p3_max [0:6];
    reg  [15:0] p4_need [0:6];
    reg  [7:0]  vc_on, vc_on_q;
    reg  [63:0] cnt_blocked [0:7];
    reg  [63:0] p_cfg [0:6];
    reg  [10:0] p_m1 [0:6];
    integer     pf, pv, qf;
    always @* begin
        for (qf = 0; qf < 7; qf = qf + 1) begin
            p_cfg[qf] = vc_cfg[afh[f_vc(qf) +: 3]];
            case (p1_sz[qf])
            3'd0: p_m1[qf] = 11'd31;
            3'd1: p_m1[qf] = 11'd63;
            3'd2: p_m1[qf] = 11'd127;
            3'd3: p_m1[qf] = 11'd255;
            3'd4: p_m1[qf] = 11'd1023;
            default: p_m1[qf] = 11'd2047;
            endcase
        end
    end
    wire [7:0]  sw_vc = afh[`RCLINK_AFH_CFG_EN_SOFTWARE_CTRL_CBFC_VC_STATUS_MSB:`RCLINK_AFH_CFG_EN_SOFTWARE_CTRL_CBFC_VC_STATUS_LSB];
    always @(posedge clk) begin
        for (pf = 0; pf < 7; pf = pf + 1) begin
            // P1
            p1_vc[pf] <= afh[f_vc(pf) +: 3];
            p2_vc[pf] <= p1_vc[pf];
            p3_vc[pf] <= p2_vc[pf];
            p4_vc[pf] <= p3_vc[pf];
            // (its gate from one sample of the registers, carried along:
            // a write changes a flow's status once)
            p1_act[pf] <= !afh[`RCLINK_AFH_CFG_EN_STOP_CBFC_EN_LSB] &&
                          afh[f_en(pf)] && sw_vc[afh[f_vc(pf) +: 3]] &&
                          loaded[afh[f_vc(pf) +: 3]];
            p2_act[pf] <= p1_act[pf];
            p3_act[pf] <= p2_act[pf];
            p4_act[pf] <= p3_act[pf];
            p1_uf[pf] <= afh[f_uf(pf) +: 3];
            p1_b[pf] <= {2'd0, f_max(pf)} +
                        {{5{p_cfg[pf][`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_MSB]}},
                         p_cfg[pf][`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_MSB:`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_LSB]};
            p1_sz[pf] <= p_cfg[pf][`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_MSB:`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_LSB];
            // P2
            p2_pos[pf] <= !p1_b[pf][14] && p1_b[pf] != 15'd0;
            p2_r[pf] <= p1_b[pf] + {4'd0, p_m1[pf]};
            p2_sz[pf] <= p1_sz[pf];
            p2_uf[pf] <= p1_uf[pf];
            // P3
            if (!p2_pos[pf])
                p3_max[pf] <= 13'd1;
            else case (p2_sz[pf])
                3'd0: p3_max[pf] <= {3'd0, p2_r[pf][14:5]};
                3'd1: p3_max[pf] <= {4'd0, p2_r[pf][14:6]};
                3'd2: p3_max[pf] <= {5'd0, p2_r[pf][14:7]};
                3'd3: p3_max[pf] <= {6'd0, p2_r[pf][14:8]};
                3'd4: p3_max[pf] <= {8'd0, p2_r[pf][14:10]};
                default: p3_max[pf] <= {9'd0, p2_r[pf][14:11]};
            endcase
            p3_uf[pf] <= p2_uf[pf];
            // P4
            p4_need[pf] <= (p3_uf[pf][0] ? {3'd0, p3_max[pf]} : 16'd0) +
                           (p3_uf[pf][1] ? {2'd0, p3_max[pf], 1'b0} : 16'd0) +
                           (p3_uf[pf][2] ? {1'd0, p3_max[pf], 2'b0} : 16'd0);
            // P5
            p5_vc[pf] <= p4_vc[pf];
            p5_on[pf] <= p4_act[pf] && cf[16 * pf +: 16] >= p4_need[pf];
        end
        // P6
        for (pv = 0; pv < 8; pv = pv + 1) begin
            vc_on[pv] <= 1'b0;
            for (pf = 0; pf < 7; pf = pf + 1)
                if (p5_on[pf] && p5_vc[pf] == pv[2:0])
                    vc_on[pv] <= 1'b1;
        end
        vc_on_q <= vc_on;
        if (rst) begin
            vc_on <= 8'd0;
            vc_on_q <= 8'd0;
            for (pv = 0; pv < 8; pv = pv + 1)
                cnt_blocked[pv] <= 64'd0;
        end else begin
            for (pv = 0; pv < 8; pv = pv + 1)
                if (vc_on_q[pv] && !vc_on[pv])
                    cnt_blocked[pv] <= cnt_blocked[pv] + 64'd1;
        end
    end

    // ================================================ CBFC receive totals
    // (the model's recv: rclink_cbfc_rx_enter).  Every frame that passes
    // into the IP (its last beat taken on MAC2RX_*, no FCS error flag)
    // adds its credits to its VC's receive total: the IP's class of it
    // (the model's rclink_classify: the Ethernet type at byte 12, or at
    // 16 behind one tag of 0x8100, 0x88a8 or VLAN_CTRL.tpid; IPv4 with
    // UDP to RX_CLASS_CFG's type1_udp_dport / type2_udp_port; else
    // mac_type1 / mac_type2 when not 0; else TYPE3), its flow's VC of
    // AFH_CFG_EN (flows under CBFC: stop_cbfc_en 0 and the flow's
    // enable; the VC loaded), ceil((length + pkt_ovhd) / credit_size), at
    // least one, as SENT.  A TYPE1 frame's flow (REQ bank 0-3, ACK/CNP)
    // is the one whose TRAFFIC_CLASS tc[7:2] its Traffic Class has (seed
    // 000: with CBFC on, tc[7:2] carries the VCID, configured alike on
    // every node; the ECN bits [1:0] may be marked on the way), its TC
    // where AFH_CFG_EN's format puts it: Standard the IPv4 ToS (byte 15,
    // 19 behind a tag), AFH_GEN1 with afh_gen1_tc_en MAC_SA[47:40] (byte
    // 6), AFH_GEN2_16b MAC_DA[47:40] (byte 0).  What the shim cannot
    // tell is not counted and comes back by the partner's SENT at its
    // next update (recovered): a TYPE1 frame whose TC no TYPE1 flow
    // under CBFC has, or several flows not all under CBFC on one VC;
    // every TYPE1 frame in AFH_Lite (its TC is the bank, of a REQ and
    // an ACK alike) or with no single format, in AFH_GEN1 without its TC
    // one without a tag (with one: its PCP is the VC);
    // an IPv4/UDP frame with IPv4 options.  The fields are in the first
    // beat: taken as it goes to the IP's register (q_*: the class's
    // keys, the TC of each place against each flow's), the class and
    // the TYPE1 flows of the TC at the last beat taken (A), then its VC
    // (R0), the overhead (R1), the rounding (R2), the credits (R3) into
    // recv.
    localparam ST_HI = RW - 1;                  // s_beat's first byte
    function [15:0] s16;                        // bytes o, o+1 of s_beat
        input [RW-1:0] b;
        input integer  o;
        s16 = b[ST_HI - 8 * o -: 16];
    endfunction
    function [7:0] s8;
        input [RW-1:0] b;
        input integer  o;
        s8 = b[ST_HI - 8 * o -: 8];
    endfunction
    function [3:0] s_ihl;                       // byte o's low half
        input [RW-1:0] b;
        input integer  o;
        s_ihl = b[ST_HI - 8 * o - 4 -: 4];
    endfunction
    function [5:0] s_tc;                        // byte o's [7:2]
        input [RW-1:0] b;
        input integer  o;
        s_tc = b[ST_HI - 8 * o -: 6];
    endfunction
    function [5:0] tc_f;                        // TYPE1 flow f's tc[7:2]
        input [63:0]  t;                        // (TRAFFIC_CLASS)
        input integer f;
        tc_f = t[8 * f + 2 +: 6];
    endfunction
    wire [15:0] rx_tpid = vlc[`RCLINK_VLAN_CTRL_TPID_MSB:`RCLINK_VLAN_CTRL_TPID_LSB];
    wire [15:0] rx_et = s16(s_beat, 12);
    wire        s_vlan = rx_et == 16'h8100 || rx_et == 16'h88a8 ||
                         (rx_tpid != 16'd0 && rx_et == rx_tpid);
    // the bytes of the beat going to the IP (its enables contiguous from
    // the top, as TX's)
    wire [BW-1:0] s_be = s_beat[RW-1-DW -: BW];
    reg  [7:0]  s_n;
    always @* begin
        s_n = 8'd0;
        for (nk = 1; nk <= BW; nk = nk + 1)
            if (s_be[BW - nk] && (nk == BW || !s_be[BW - 1 - nk]))
                s_n = s_n | nk[7:0];
    end
    // per position (0: type at 12, 1: at 16): IPv4, UDP with a 20-byte
    // header, UDP with options, the UDP port's and the types' matches
    reg         q_vlan;
    reg  [1:0]  q_ip, q_udp, q_opt, q_d1, q_d2, q_m1, q_m2;
    // a TYPE1 frame's Traffic Class against each TYPE1 flow's of
    // TRAFFIC_CLASS (tc[7:2]; the ECN bits [1:0] are left out): per
    // place, the IPv4 ToS (0: byte 15, 1: byte 19 behind a tag), MAC_SA
    // [47:40] (byte 6), MAC_DA[47:40] (byte 0)
    reg  [4:0]  q_tos [0:1];
    reg  [4:0]  q_tsa, q_tda;
    reg  [2:0]  q_pcp;                  // the tag's priority (byte 14)
    integer     qg;
    reg  [7:0]  rx_n;                   // bytes of the beat in rx_o
    integer     qp;
    always @(posedge clk) begin
        if (s_pop && !s_drop)
            rx_n <= s_n;
        if (s_pop && !s_drop && s_fs) begin
            q_vlan <= s_vlan;
            q_pcp <= s_beat[ST_HI - 8 * 14 -: 3];
            for (qp = 0; qp < 2; qp = qp + 1) begin
                q_ip[qp] <= s16(s_beat, 12 + 4 * qp) == 16'h0800;
                q_udp[qp] <= s8(s_beat, 23 + 4 * qp) == 8'd17 &&
                             s_ihl(s_beat, 14 + 4 * qp) == 4'd5;
                q_opt[qp] <= s8(s_beat, 23 + 4 * qp) == 8'd17 &&
                             s_ihl(s_beat, 14 + 4 * qp) > 4'd5;
                q_d1[qp] <= s16(s_beat, 36 + 4 * qp) == udp1;
                q_d2[qp] <= s16(s_beat, 36 + 4 * qp) == udp2;
                q_m1[qp] <= et1 != 16'd0 && s16(s_beat, 12 + 4 * qp) == et1;
                q_m2[qp] <= et2 != 16'd0 && s16(s_beat, 12 + 4 * qp) == et2;
                for (qg = 0; qg < 5; qg = qg + 1)
                    q_tos[qp][qg] <= s_tc(s_beat, 15 + 4 * qp) == tc_f(tcl, qg);
            end
            for (qg = 0; qg < 5; qg = qg + 1) begin
                q_tsa[qg] <= s_tc(s_beat, 6) == tc_f(tcl, qg);
                q_tda[qg] <= s_tc(s_beat, 0) == tc_f(tcl, qg);
            end
        end
    end
    // the VC of each class (one-hot, 0: none), from AFH_CFG_EN; TYPE1's
    // per flow (x1_oh[f]: the bank 0-3 or ACK/CNP flow f under CBFC,
    // every other TYPE1 flow with its tc[7:2] under CBFC on its VC too:
    // a frame of that TC is charged there whichever of them it is), in
    // two stages (the flows' TCs and VCs compared in pairs, then each
    // flow's VC)
    reg  [7:0]  x1_oh [0:4];
    reg  [7:0]  x2_oh, x3_oh;
    reg  [4:0]  x_on;
    reg  [2:0]  x_vc [0:4];
    reg  [9:0]  x_tq, x_tq_d;           // tc[7:2] of flows f, g equal
    reg  [9:0]  x_vq, x_vq_d;           // their VCs equal
    reg  [4:0]  x_bad;                  // a twin elsewhere or not on
    // where the TC is: {the tag's PCP, DA, SA, ToS}
    reg  [3:0]  x_fmt;
    integer     xf, xg;
    function integer x_pair;            // the pair f < g's bit
        input integer f, g;
        x_pair = f * (9 - f) / 2 + g - f - 1;
    endfunction
    always @* begin
        x_bad = 5'd0;
        for (xf = 0; xf < 5; xf = xf + 1)
            for (xg = xf + 1; xg < 5; xg = xg + 1) begin
                x_tq_d[x_pair(xf, xg)] = tc_f(tcl, xf) == tc_f(tcl, xg);
                x_vq_d[x_pair(xf, xg)] = afh[f_vc(xf) +: 3] ==
                                         afh[f_vc(xg) +: 3];
                x_bad[xf] = x_bad[xf] | (x_tq[x_pair(xf, xg)] &&
                            !(x_on[xg] && x_vq[x_pair(xf, xg)]));
                x_bad[xg] = x_bad[xg] | (x_tq[x_pair(xf, xg)] &&
                            !(x_on[xf] && x_vq[x_pair(xf, xg)]));
            end
    end
    // the header format (one of the four; AFH_GEN1 with its TC only
    // with afh_gen1_tc_en; AFH_Lite: its TC is the bank, for REQ and
    // ACK alike, so it tells no flow): none, no TYPE1 frame is counted
    wire [3:0]  x_fsel = {afh[`RCLINK_AFH_CFG_EN_AFH_LITE_EN_LSB],
                          afh[`RCLINK_AFH_CFG_EN_AFH_GEN2_16B_EN_LSB],
                          afh[`RCLINK_AFH_CFG_EN_AFH_GEN1_EN_LSB],
                          afh[`RCLINK_AFH_CFG_EN_STANDARD_EN_LSB]};
    wire        x_stop = afh[`RCLINK_AFH_CFG_EN_STOP_CBFC_EN_LSB];
    // A: the frame's class (one-hot {TYPE3, TYPE2, TYPE1}; 0: untold)
    wire        rx_take = rx_o_vld && rx2mac_rdy;
    wire        qv = q_vlan;
    wire        q_i = q_ip[qv], q_u = q_udp[qv];
    wire [2:0]  q_cls = q_i ? (q_u ? (q_d1[qv] ? 3'b001 : q_d2[qv] ? 3'b010 : 3'b100) :
                               q_opt[qv] ? 3'b000 : 3'b100) :
                        q_m1[qv] ? 3'b001 : q_m2[qv] ? 3'b010 : 3'b100;
    reg  [15:0] a_acc, a_len, r0_len;
    reg  [2:0]  a_cls;
    reg  [4:0]  a_tf;                   // the TYPE1 flows of its TC
    reg         a_pv;                   // AFH_GEN1 without TC: by the PCP
    reg  [2:0]  a_pcp;
    reg  [4:0]  x_pm;                   // the TYPE1 flows on the PCP's VC
    always @* begin
        for (xf = 0; xf < 5; xf = xf + 1)
            x_pm[xf] = x_on[xf] && x_vc[xf] == q_pcp;
    end
    reg         a_go;
    reg  [7:0]  r0_oh;
    reg  [63:0] r_cfg;
    wire        r_busy;
    // a TYPE1 frame's VC: its flow's (the flows its TC matches are all
    // on one VC, or none of them counts)
    reg  [7:0]  a_x1;
    always @* begin
        a_x1 = a_pv ? 8'd1 << a_pcp : 8'd0;
        for (xf = 0; xf < 5; xf = xf + 1)
            a_x1 = a_x1 | (x1_oh[xf] & {8{a_tf[xf]}});
    end
    assign rx_busy = a_go || r0_oh != 8'd0 || r_busy;
    always @* begin
        r_cfg = 64'd0;
        for (xf = 0; xf < 8; xf = xf + 1)
            r_cfg = r_cfg | (vc_cfg[xf] & {64{r0_oh[xf]}});
    end
    // R1-R3
    rclink_cbfc_cr u_r_cr (
        .clk(clk), .rst(rst),
        .in_oh(r0_oh), .in_len(r0_len), .in_cfg(r_cfg),
        .out_oh(r3_oh), .out_cr(r3_cr), .busy(r_busy));
    always @(posedge clk) begin
        x_tq <= x_tq_d;
        x_vq <= x_vq_d;
        for (xf = 0; xf < 5; xf = xf + 1) begin
            x_on[xf] <= !x_stop && afh[f_en(xf)];
            x_vc[xf] <= afh[f_vc(xf) +: 3];
            x1_oh[xf] <= x_on[xf] && !x_bad[xf] ? 8'd1 << x_vc[xf] : 8'd0;
        end
        x_fmt <= {x_fsel == 4'b0010 &&
                  !afh[`RCLINK_AFH_CFG_EN_AFH_GEN1_TC_EN_LSB],
                  x_fsel == 4'b0100, x_fsel == 4'b0010 &&
                  afh[`RCLINK_AFH_CFG_EN_AFH_GEN1_TC_EN_LSB],
                  x_fsel == 4'b0001};
        x2_oh <= !x_stop && afh[f_en(5)] ? 8'd1 << afh[f_vc(5) +: 3] : 8'd0;
        x3_oh <= !x_stop && afh[f_en(6)] ? 8'd1 << afh[f_vc(6) +: 3] : 8'd0;
        if (rx_take)
            a_acc <= mac2rx_fs ? 16'd128 : a_acc + 16'd128;
        a_go <= !rst && rx_take && mac2rx_fe && mac2rx_fcs_err == 2'd0;
        a_cls <= q_cls;
        a_tf <= {5{x_fmt[0] && q_i}} & q_tos[qv] |
                {5{x_fmt[1]}} & q_tsa | {5{x_fmt[2]}} & q_tda;
        // AFH_GEN1 without its TC: the tag's PCP is the VC (seed 000:
        // under CBFC such frames must carry a VLAN tag), counted where a
        // TYPE1 flow under CBFC is on that VC
        a_pv <= x_fmt[3] && qv && x_pm != 5'd0;
        a_pcp <= q_pcp;
        a_len <= (mac2rx_fs ? 16'd0 : a_acc) + {8'd0, rx_n};
        // R0
        r0_oh <= a_go ? ({8{a_cls[0]}} & a_x1 | {8{a_cls[1]}} & x2_oh |
                         {8{a_cls[2]}} & x3_oh) & loaded : 8'd0;
        r0_len <= a_len;
        if (rst) begin
            r0_oh <= 8'd0;
        end
    end

    // ================================================ register reads
    // SHIM_PFC_PAUSED: the priorities the partner has paused, as the MAC
    // tells the IP (RX_PFC_REQ_I: the LL 100G MAC's pause indication of
    // the priorities of its RX_PFC_ENABLE), registered once
    reg [7:0]  rx_pfc_q;
    always @(posedge clk)
        rx_pfc_q <= emac_rx_pfc;
    reg [63:0] rv;
    reg        mine;
    always @* begin
        mine = 1'b1;
        case (addr)
        `RCLINK_SHIM_WIRE_TX_FRAMES:  rv = cnt_tx_frames;
        `RCLINK_SHIM_WIRE_RX_FRAMES:  rv = cnt_rx_frames;
        `RCLINK_SHIM_TX_DROP_LINK:    rv = cnt_tx_drop_link;
        `RCLINK_SHIM_MAC_CTRL_DROP:   rv = cnt_ctrl_drop;
        `RCLINK_SHIM_CBFC_UPD_RX:     rv = cnt_upd_rx;
        `RCLINK_SHIM_CBFC_RESYNC:     rv = cnt_resync;
        `RCLINK_SHIM_CBFC_UPD_TX:     rv = cnt_upd_tx;
        `RCLINK_SHIM_CBFC_TIMING:     rv = timing;
        `RCLINK_SHIM_CBFC_STATUS:     rv = {48'd0, loaded, vc_on};
        `RCLINK_SHIM_PFC_PAUSED:      rv = {56'd0, rx_pfc_q};
        `RCLINK_DMAQ_DFX_CBFC_CF0:    rv = cf[63:0];
        `RCLINK_DMAQ_DFX_CBFC_CF1:    rv = {16'd0, cf[111:64]};
        default: begin
            rv = a_cfg ? vc_cfg[addr[5:3]] : cnt_blocked[addr[5:3]];
            mine = a_cfg || a_blk;
        end
        endcase
    end
    always @(posedge clk) begin
        hit <= mine;
        rdata <= rv;
    end
endmodule
`default_nettype wire

// (rclink_cbfc_cr serves only rclink_mac: in its file)
/* verilator lint_off DECLFILENAME */
// The credits of a frame under CBFC (Documentation/hw/shim.rst, "CBFC"):
// ceil((length + pkt_ovhd) / credit_size) of its VC's SHIM_CBFC_VC_CFG,
// at least one, in three register stages (S1 the overhead added, S2
// rounded up, S3 the shift), the VC (one-hot, 0: no frame) carried
// along: SENT's and the receive total's.
module rclink_cbfc_cr (
    input  wire        clk,
    input  wire        rst,
    input  wire [7:0]  in_oh,           // the frame's VC (0: none)
    input  wire [15:0] in_len,          // its bytes
    input  wire [63:0] in_cfg,          // its VC's SHIM_CBFC_VC_CFG
    output reg  [7:0]  out_oh,          // three cycles later
    output reg  [15:0] out_cr,
    output wire        busy             // a frame in S1 or S2
);
    reg  [7:0]  s1_oh, s2_oh;
    reg  [17:0] s1_b, s2_r;
    reg  [2:0]  s1_sz, s2_sz;
    reg         s2_pos;
    reg  [10:0] s1_m1;                  // credit_size - 1
    assign busy = s1_oh != 8'd0 || s2_oh != 8'd0;
    always @* begin
        case (s1_sz)
        3'd0: s1_m1 = 11'd31;
        3'd1: s1_m1 = 11'd63;
        3'd2: s1_m1 = 11'd127;
        3'd3: s1_m1 = 11'd255;
        3'd4: s1_m1 = 11'd1023;
        default: s1_m1 = 11'd2047;
        endcase
    end
    always @(posedge clk) begin
        // S1
        s1_oh <= in_oh;
        s1_b <= {2'd0, in_len} + {{8{in_cfg[`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_MSB]}},
                in_cfg[`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_MSB:`RCLINK_SHIM_CBFC_VC_CFG_PKT_OVHD_LSB]};
        s1_sz <= in_cfg[`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_MSB:`RCLINK_SHIM_CBFC_VC_CFG_CREDIT_SIZE_LSB];
        // S2
        s2_oh <= s1_oh;
        s2_pos <= !s1_b[17] && s1_b != 18'd0;
        s2_r <= s1_b + {7'd0, s1_m1};
        s2_sz <= s1_sz;
        // S3
        out_oh <= s2_oh;
        if (!s2_pos)
            out_cr <= 16'd1;
        else case (s2_sz)
            3'd0: out_cr <= {3'd0, s2_r[17:5]};
            3'd1: out_cr <= {4'd0, s2_r[17:6]};
            3'd2: out_cr <= {5'd0, s2_r[17:7]};
            3'd3: out_cr <= {6'd0, s2_r[17:8]};
            3'd4: out_cr <= {8'd0, s2_r[17:10]};
            default: out_cr <= {9'd0, s2_r[17:11]};
        endcase
        if (rst) begin
            s1_oh <= 8'd0;
            s2_oh <= 8'd0;
            out_oh <= 8'd0;
        end
    end
endmodule
/* verilator lint_on DECLFILENAME */
