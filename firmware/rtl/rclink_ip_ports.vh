// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the board, RCLINK-Stream IP, MAC side and MAC CSR ports of
// rclink_shim_top, included in the port lists of the vendor-neutral TLP
// top (rclink_shim_tlp.v) and of the vendor tops (rclink_shim_us.v), which
// pass them through unchanged.  Needs the parameter QP_AW.
    // ---- board
    input  wire [63:0] board_serial,
    input  wire [47:0] board_mac,
    input  wire        link_carrier,
    // ---- RCLINK-Stream IP: reset and AXI4-Lite register file
    output wire        ip_rst_n,
    output wire        ip_awvalid,
    input  wire        ip_awready,
    output wire [13:0] ip_awaddr,
    output wire        ip_wvalid,
    input  wire        ip_wready,
    output wire [63:0] ip_wdata,
    output wire [7:0]  ip_wstrb,
    input  wire        ip_bvalid,
    output wire        ip_bready,
    input  wire [1:0]  ip_bresp,
    output wire        ip_arvalid,
    input  wire        ip_arready,
    output wire [13:0] ip_araddr,
    input  wire        ip_rvalid,
    output wire        ip_rready,
    input  wire [63:0] ip_rdata,
    input  wire [1:0]  ip_rresp,
    // ---- RCLINK-Stream IP: interrupts
    input  wire        ip_irq_vld,          // IRQ_VLD_O
    input  wire [63:0] ip_irq_info,         // IRQ_INFO_O
    input  wire [15:0] ip_rc_intr,          // RC_INTR_O
    input  wire        ip_recv_ack_vld,     // RECV_ACK_VLD_O
    input  wire [QP_AW-1:0] ip_recv_ack_qpid,
    input  wire [31:0] ip_recv_ack_rtt,
    input  wire [9:0]  ip_recv_num_acked,
    input  wire        ip_recv_nak_flg,
    input  wire        ip_retry_tmo_vld,    // RETRY_TMO_VLD_O
    input  wire [QP_AW-1:0] ip_retry_tmo_qpid,  // RETRY_TMO_QPID_O
    // ---- RCLINK-Stream IP: status levels (DMAQ_DFX, DMAQ_T2_CRD)
    input  wire [1:0]  ip_idle,             // RCLINK_IDLE_O ([1] TX, [0] RX)
    input  wire        ip_tx_wait_mac_crd,  // TX_WAIT_MAC_CRD_O
    input  wire        ip_tx_mac_free,      // TX_MAC_FREE_O
    input  wire [15:0] ip_t2_crd,           // multicast credit level (2048
                                            // when the IP does not show it)
    // ---- RCLINK-Stream IP: TYPE2 rate (TYPE2_SPEED)
    output wire        ip_set_type2_rate_vld,   // SET_TYPE2_RATE_VLD_I
    output wire [21:0] ip_set_type2_rate_dat,   // SET_TYPE2_RATE_DAT_I
    // ---- RCLINK-Stream IP: TX_S (512-bit, first byte in [511:504], tkeep
    // contiguous from the top)
    output wire        tx_s_vld,
    output wire        tx_s_fs,
    output wire        tx_s_fe,
    output wire [511:0] tx_s_dat,
    output wire [63:0] tx_s_keep,
    output wire [QP_AW-1:0] tx_s_qpid,
    output wire        tx_s_fack,
    output wire [1:0]  tx_s_etype,          // 0 TYPE1, 3 TYPE2
    output wire [2:0]  tx_s_t2_group,       // TX_S_TYPE2_GROUP_INDEX_I
    input  wire [3:0]  tx_s_crd,            // TX_S_CRD_O ([0] TYPE1, [3] TYPE2)
    input  wire [QP_AW-1:0] tx_s_crd_qpid,
    input  wire        tx_s_crd_qpid_vld,
    // ---- RCLINK-Stream IP: RX_M TYPE1/TYPE2 (DW 512, first byte in [511:504],
    //      keep contiguous from the top; TYPE2: ETYPE 3, the group on QPID)
    input  wire        rx_m_vld,
    output wire        rx_m_rdy,
    input  wire        rx_m_fs,
    input  wire        rx_m_fe,
    input  wire [511:0] rx_m_dat,
    input  wire [63:0] rx_m_keep,
    input  wire [QP_AW-1:0] rx_m_qpid,
    input  wire [1:0]  rx_m_etype,
    input  wire [12:0] rx_m_len,            // TYPE1_W_RX_M_LEN_O
    input  wire [9:0]  rx_m_sa,             // TYPE1_2_RX_M_SA_O (TYPE2 sender)
    input  wire [11:0] rx_m_psn,            // the RH's PSN (TYPE2; rtl.rst)
    output wire [3:0]  rx_flow_stop,        // FLOW_STOP (per TYPE1 bank)
`include "rclink_cemac_ports.vh"
    // ---- MAC CSRs (Avalon-MM, word addresses of seed 003)
    output wire [11:0] mac_address,
    output wire        mac_read,
    output wire        mac_write,
    output wire [31:0] mac_writedata,
    input  wire [31:0] mac_readdata,
    input  wire        mac_readdatavalid,
    input  wire        mac_waitrequest
