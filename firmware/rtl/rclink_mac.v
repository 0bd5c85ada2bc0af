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
//     CSRs) is counted in SHIM_CBFC_UPD_RX (its totals are not parsed
//     yet), any other in SHIM_MAC_CTRL_DROP.  RX2MAC_RDY_O
//     back-pressures the MAC.
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

    assign mac2tx_cbfc_vld = 32'd0;
    assign mac2tx_cbfc_num = 15'd0;

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
    reg [63:0] cnt_ctrl_drop, cnt_upd_rx;

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
    reg  [63:0] cls;                    // RX_CLASS_CFG as the IP holds it
    reg         cls_wr;                 // a write of it is out
    reg  [63:0] cls_wd;
    reg  [7:0]  cls_ws;
    integer     bi;
    always @(posedge clk) begin
        if (rc_req) begin
            cls_wr <= rc_write && {2'b00, rc_addr} == `RCLINK_RX_CLASS_CFG;
            cls_wd <= rc_wdata;
            cls_ws <= rc_wstrb;
        end
        if (rst) begin
            cls <= CLS_RST;
            cls_wr <= 1'b0;
        end else if (rc_done && cls_wr && !rc_err) begin
            for (bi = 0; bi < 8; bi = bi + 1)
                if (cls_ws[bi])
                    cls[8 * bi +: 8] <= cls_wd[8 * bi +: 8];
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
    // with the board's reset.
    localparam [15:0] B_DA_LO = `RCLINK_RX_FC_DADDR_LO - `RCLINK_WIN_MAC_BASE;
    localparam [15:0] B_DA_HI = `RCLINK_RX_FC_DADDR_HI - `RCLINK_WIN_MAC_BASE;
    localparam [15:0] B_PHY = `RCLINK_PHY_CONFIG - `RCLINK_WIN_MAC_BASE;
    localparam [11:0] A_DA_LO = B_DA_LO[13:2], A_DA_HI = B_DA_HI[13:2];
    localparam [11:0] A_PHY = B_PHY[13:2];
    localparam [31:0] DA_HI_RST = `RCLINK_RX_FC_DADDR_HI_RSTVAL;
    localparam [31:0] DA_LO_RST = `RCLINK_RX_FC_DADDR_LO_RSTVAL;
    localparam [47:0] DA_RST = {DA_HI_RST[15:0], DA_LO_RST};
    reg  [47:0] da_wr, rx_da;           // written, in use
    reg  [2:0]  mc_sel;                 // the write out: DA LO, DA HI, PHY
    reg  [31:0] mc_wd;
    reg         soft_rst;               // PHY_CONFIG.soft_reset as written
    always @(posedge clk) begin
        if (mc_req) begin
            mc_sel <= {3{mc_write}} & {mc_addr == A_PHY, mc_addr == A_DA_HI,
                                        mc_addr == A_DA_LO};
            mc_wd <= mc_wdata;
        end
        if (rst) begin
            da_wr <= DA_RST;
            rx_da <= DA_RST;
            soft_rst <= 1'b0;
            mc_sel <= 3'd0;
        end else if (mc_done) begin
            if (mc_sel[0])
                da_wr[31:0] <= mc_wd;
            if (mc_sel[1])
                da_wr[47:32] <= mc_wd[15:0];
            if (mc_sel[2]) begin
                soft_rst <= mc_wd[`RCLINK_PHY_CONFIG_SOFT_RESET_LSB];
                if (soft_rst && !mc_wd[`RCLINK_PHY_CONFIG_SOFT_RESET_LSB])
                    rx_da <= da_wr;
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
        tx_o <= {t1_dat, t1_be, t1_fs, t1_fe, t1_vlan, t1_vcid, t1_sb};
    end

    reg  tx_dropping;                   // inside a frame being dropped
    wire t1_drop = t1_fs ? (!t1_link && !t1_t12) : tx_dropping;
    // credits owed to the IP for the dropped beats (at most what the IP
    // holds: it cannot send a beat without one)
    reg [15:0] owed;
    reg        cr_q, cr_rst_q;

    always @(posedge clk) begin
        cr_q <= emac_tx_credit;
        cr_rst_q <= emac_tx_credit_rst;
        if (rst) begin
            tx_o_vld <= 1'b0;
            tx_dropping <= 1'b0;
            owed <= 16'd0;
            credit_q <= 1'b0;
            credit_rst_q <= 1'b0;
            cnt_tx_frames <= 64'd0;
            cnt_tx_drop_link <= 64'd0;
        end else begin
            tx_o_vld <= t1_vld && !t1_drop;
            if (t1_vld && t1_fs)
                tx_dropping <= t1_drop && !t1_fe;
            else if (t1_vld && t1_fe)
                tx_dropping <= 1'b0;
            if (t1_vld && t1_fs && !t1_drop)
                cnt_tx_frames <= cnt_tx_frames + 64'd1;
            if (t1_vld && t1_fs && t1_drop)
                cnt_tx_drop_link <= cnt_tx_drop_link + 64'd1;
            // the MAC's credits go on; a dropped beat's credit goes in a
            // cycle without one.  A credit reset of the MAC restores the
            // IP's initial credits: nothing is owed any more.
            credit_rst_q <= cr_rst_q;
            credit_q <= !cr_rst_q && (cr_q || owed != 16'd0);
            if (cr_rst_q)
                owed <= 16'd0;
            else
                owed <= owed + {15'd0, t1_vld && t1_drop} -
                        {15'd0, !cr_q && owed != 16'd0};
        end
    end

    // ================================================================ RX
    // input stage: a skid buffer (s: the stage, k: the skid), ready
    // registered towards the MAC; the classification of the first beat
    // is computed on the way in.  A beat: {data, enables, FCS error, FS,
    // FE, control frame, update frame}.
    localparam RW = DW + BW + 2 + 4;
    wire in_ctrl = emac_rx_fs && emac_rx_dat[ET_HI -: 16] == 16'h8808;
    wire in_upd = emac_rx_dat[OP_HI -: 16] == 16'h0102 &&
                  emac_rx_dat[DW-1 -: 48] == rx_da &&
                  (!emac_rx_fe || emac_rx_be[UPD_LAST]);
    wire [RW-1:0] in_beat = {emac_rx_dat, emac_rx_be, emac_rx_fcs_err,
                             emac_rx_fs, emac_rx_fe, in_ctrl, in_upd};
    reg  [RW-1:0] s_beat, k_beat;
    reg           s_vld, k_vld;
    wire s_fs = s_beat[3], s_fe = s_beat[2], s_ctrl = s_beat[1];
    wire s_upd = s_beat[0];
    assign emac_rx_rdy = !k_vld;
    wire in_fire = emac_rx_vld && !k_vld;

    reg  [RW-3:0] rx_o;                 // to the IP: the beat but its class
    reg           rx_o_vld;
    assign {mac2rx_dat, mac2rx_be, mac2rx_fcs_err, mac2rx_fs,
            mac2rx_fe} = rx_o;
    assign mac2rx_vld = rx_o_vld;

    reg  rx_dropping;                   // inside a control frame
    wire s_drop = s_fs ? s_ctrl : rx_dropping;
    wire s_pop = s_vld && (s_drop || !rx_o_vld || rx2mac_rdy);

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
            if (s_pop && s_fs)
                cnt_rx_frames <= cnt_rx_frames + 64'd1;
            if (s_pop && s_fs && s_ctrl && s_upd)
                cnt_upd_rx <= cnt_upd_rx + 64'd1;
            if (s_pop && s_fs && s_ctrl && !s_upd)
                cnt_ctrl_drop <= cnt_ctrl_drop + 64'd1;
        end
    end

    // ================================================ CBFC configuration
    reg  [63:0] vc_cfg [0:7];           // SHIM_CBFC_VC_CFG[n]
    reg  [7:0]  loaded, ld_pend;
    reg  [111:0] cf;                    // DFX_CBFC_CF_O, a cycle late
    integer     vi;
    wire        a_cfg = {addr[15:6], 6'd0} == `RCLINK_SHIM_CBFC_VC_CFG;
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

    // ================================================ register reads
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
        // vc_on needs the flows' credit_uf_limit (a later step): 0
        `RCLINK_SHIM_CBFC_STATUS:     rv = {48'd0, loaded, 8'd0};
        `RCLINK_DMAQ_DFX_CBFC_CF0:    rv = cf[63:0];
        `RCLINK_DMAQ_DFX_CBFC_CF1:    rv = {16'd0, cf[111:64]};
        default: begin
            rv = vc_cfg[addr[5:3]];
            mine = a_cfg;
        end
        endcase
    end
    always @(posedge clk) begin
        hit <= mine;
        rdata <= rv;
    end
endmodule
`default_nettype wire
