// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the MAC side's ports of rclink_shim_top (rclink_mac;
// rtl.rst, "MAC side"): the RCLINK-Stream IP's CEMAC_TX / CEMAC_RX and
// CBFC ports (seed 000, MAC_DW 1024, the first byte in [1023:1016]) and
// the same CEMAC shape towards the integrator's MAC adapter (emac_*).
// Included in the core's port list, in rclink_ip_ports.vh (the TLP and
// vendor tops) and in the cocotb benches' port lists; every entry ends
// with a comma.
    // ---- RCLINK-Stream IP: CEMAC_TX
    input  wire [1023:0] tx2mac_dat,        // TX2MAC_DATA_O
    input  wire [127:0] tx2mac_be,          // TX2MAC_DATA_BE_O
    input  wire        tx2mac_vld,          // TX2MAC_VLD_O
    input  wire        tx2mac_fs,           // TX2MAC_FS_O
    input  wire        tx2mac_fe,           // TX2MAC_FE_O
    input  wire [2:0]  tx2mac_vcid,         // TX2MAC_VCID_O
    input  wire        tx2mac_fcs,          // TX2MAC_FCS_O
    input  wire        tx2mac_err,          // TX2MAC_ERR_O
    input  wire [7:0]  tx2mac_cbfc_vcid,    // TX2MAC_CBFC_VCID_O (VC_CH_N 8)
    input  wire [1:0]  tx2mac_hdr_type,     // TX2MAC_MAC_HDR_TYPE_O
    input  wire        tx2mac_mcast,        // TX2MAC_MULTICAST_EN_O
    input  wire        tx2mac_vlan,         // TX2MAC_VLAN_EN_O
    output wire        mac2tx_credit,       // MAC2TX_CREDIT_I (one beat)
    output wire        mac2tx_credit_rst,   // MAC2TX_CREDIT_RST_I
    // ---- RCLINK-Stream IP: CBFC (the MAC's side of it)
    output wire [31:0] mac2tx_cbfc_rst,     // MAC2TX_CBFC_RST_I
    output wire [15:0] cbfc_credit_limit,   // CREDIT_LIMIT
    output wire [2:0]  cbfc_credit_size,    // CREDIT_SIZE (0 32 B .. 5 2048 B)
    output wire [9:0]  cbfc_pkt_ovhd,       // PKT_OVHD_LEN (signed)
    output wire        mac2tx_cbfc_reset,   // MAC2TX_CBFC_RESET_I
    output wire [31:0] mac2tx_cbfc_vld,     // MAC2TX_CBFC_VLD_I
    output wire [14:0] mac2tx_cbfc_num,     // MAC2TX_CBFC_NUM_I
    input  wire [111:0] dfx_cbfc_cf,        // DFX_CBFC_CF_O
    input  wire [7:0]  tx_pfc_req,          // TX_PFC_REQ_O (a bit per VC)
    // ---- RCLINK-Stream IP: CEMAC_RX
    output wire [1023:0] mac2rx_dat,        // MAC2RX_DATA_I
    output wire [127:0] mac2rx_be,          // MAC2RX_DATA_BE_I
    output wire        mac2rx_vld,          // MAC2RX_VLD_I
    output wire        mac2rx_fs,           // MAC2RX_FS_I
    output wire        mac2rx_fe,           // MAC2RX_FE_I
    output wire [1:0]  mac2rx_fcs_err,      // MAC2RX_FCS_ERR_I
    input  wire        rx2mac_rdy,          // RX2MAC_RDY_O
    // ---- the MAC adapter (the integrator's, to the LL 100G MAC)
    output wire [1023:0] emac_tx_dat,
    output wire [127:0] emac_tx_be,
    output wire        emac_tx_vld,
    output wire        emac_tx_fs,
    output wire        emac_tx_fe,
    output wire [2:0]  emac_tx_vcid,
    output wire        emac_tx_fcs,
    output wire        emac_tx_err,
    output wire [7:0]  emac_tx_cbfc_vcid,
    output wire [1:0]  emac_tx_hdr_type,
    output wire        emac_tx_mcast,
    output wire        emac_tx_vlan,
    input  wire        emac_tx_credit,      // a beat left the MAC's buffer
    input  wire        emac_tx_credit_rst,
    input  wire [1023:0] emac_rx_dat,
    input  wire [127:0] emac_rx_be,
    input  wire        emac_rx_vld,
    output wire        emac_rx_rdy,
    input  wire        emac_rx_fs,
    input  wire        emac_rx_fe,
    input  wire [1:0]  emac_rx_fcs_err,
    input  wire [7:0]  emac_rx_pfc,         // the MAC's RX pause per priority
                                            // (what drives RX_PFC_REQ_I)
