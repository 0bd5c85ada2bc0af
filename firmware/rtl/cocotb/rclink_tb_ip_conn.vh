// SPDX-License-Identifier: GPL-2.0 OR MIT
// cocotb benches of the PCIe tops: the top's board, IP and MAC CSR ports
// connected to the stand-ins of rclink_tb_stand_in.vh and to the bench's
// RX_M ports (the last entry of the top's port list: the bench closes
// the instance after it).
        .board_serial(64'h0000000000005eed), .board_mac(48'h525400123456),
        .link_carrier(1'b1),
        .ip_rst_n(ip_rst_n),
        .ip_awvalid(awvalid), .ip_awready(awready && !axil_dead), .ip_awaddr(awaddr),
        .ip_wvalid(wvalid), .ip_wready(wready && !axil_dead), .ip_wdata(wdata), .ip_wstrb(wstrb),
        .ip_bvalid(bvalid && !axil_dead), .ip_bready(bready), .ip_bresp(bresp),
        .ip_arvalid(arvalid), .ip_arready(arready && !axil_dead), .ip_araddr(araddr),
        .ip_rvalid(rvalid && !axil_dead && !axil_mute_r), .ip_rready(rready),
        .ip_rdata(rdata), .ip_rresp(rresp),
        .ip_irq_vld(irq_vld || t3_irq || ipirq_vld),
        .ip_irq_info(ipirq_vld ? ipirq_info :
                     t3_irq ? ((64'd3 << `RCLINK_IRQ_INFO_TYPE_LSB) | 64'd1) : irq_info),
        .ip_rc_intr(rc_intr),
        .ip_recv_ack_vld(ack_vld), .ip_recv_ack_qpid(ack_qpid),
        .ip_recv_ack_rtt(ack_rtt), .ip_recv_num_acked(ack_num), .ip_recv_nak_flg(ack_nak),
        .ip_retry_tmo_vld(tmo_vld), .ip_retry_tmo_qpid(tmo_qpid),
        .ip_idle(ip_idle), .ip_tx_wait_mac_crd(ip_wait_crd),
        .ip_tx_mac_free(ip_mac_free), .ip_t2_crd(ip_t2_crd),
        .ip_set_type2_rate_vld(t2_rate_vld), .ip_set_type2_rate_dat(t2_rate_dat),
        .tx_s_vld(tx_vld), .tx_s_fs(tx_fs), .tx_s_fe(tx_fe), .tx_s_dat(tx_dat),
        .tx_s_keep(tx_keep), .tx_s_qpid(tx_qpid), .tx_s_fack(tx_fack),
        .tx_s_etype(tx_etype), .tx_s_t2_group(tx_group), .tx_s_crd(crd),
        .tx_s_crd_qpid(crd_qpid), .tx_s_crd_qpid_vld(crd_qpid_vld),
        .rx_m_vld(rx_m_vld), .rx_m_rdy(rx_m_rdy), .rx_m_fs(rx_m_fs), .rx_m_fe(rx_m_fe),
        .rx_m_dat(rx_m_dat), .rx_m_keep(rx_m_keep), .rx_m_qpid(rx_m_qpid),
        .rx_m_etype(rx_m_etype), .rx_m_len(rx_m_len), .rx_m_sa(rx_m_sa),
        .rx_m_psn(rx_m_psn), .rx_flow_stop(flow_stop),
`include "rclink_cemac_conn.vh"
        .mac_address(mac_address), .mac_read(mac_read), .mac_write(mac_write),
        .mac_writedata(mac_writedata), .mac_readdata(mac_readdata),
        .mac_readdatavalid(mac_readdatavalid), .mac_waitrequest(mac_dead)
