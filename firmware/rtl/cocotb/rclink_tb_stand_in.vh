// SPDX-License-Identifier: GPL-2.0 OR MIT
// cocotb benches of the PCIe tops (rclink_us_tb.v, rclink_ptile_tb.v):
// the stand-ins on the core's IP side, included in the bench's body after
// user_clk and user_reset exist.  The IP stand-in (tb/rclink_ip_model.v)
// on the IP ports, the MAC CSR stand-in of tb/rclink_tb.v (the contract's
// reset values and masks), the tests' hooks and a power-on reset
// (dut_reset, for the top's reset input).  rclink_tb_ip_conn.vh connects
// the top's board and IP ports to them.
    localparam QP_AW = 10;

    wire        ip_rst_n;
    wire        awvalid, awready, wvalid, wready, bvalid, bready;
    wire        arvalid, arready, rvalid, rready;
    wire [13:0] awaddr, araddr;
    wire [63:0] wdata, rdata;
    wire [7:0]  wstrb;
    wire [1:0]  bresp, rresp;
    wire        irq_vld;
    wire [63:0] irq_info;
    wire [15:0] rc_intr;
    wire        tx_vld, tx_fs, tx_fe, tx_fack;
    wire [511:0] tx_dat;
    wire [63:0] tx_keep;
    wire [1:0]  tx_etype;
    wire [2:0]  tx_group;
    wire [QP_AW-1:0] tx_qpid, crd_qpid;
    wire [3:0]  crd;
    wire        crd_qpid_vld;
    wire [1:0]  ip_idle;
    wire        ip_wait_crd, ip_mac_free, t2_rate_vld;
    wire [15:0] ip_t2_crd;
    wire [21:0] t2_rate_dat;
    wire [3:0]  flow_stop;
    wire [11:0] mac_address;
    wire        mac_read, mac_write;
    wire [31:0] mac_writedata;
    wire [31:0] mac_readdata;
    wire        mac_readdatavalid;
    // test hooks (set by the cocotb tests): a dead AXI4-Lite port of the
    // IP (no handshake at all), one that takes AR but holds R back, a dead
    // MAC CSR port (waitrequest stuck)
    reg         axil_dead = 1'b0;
    reg         axil_mute_r = 1'b0;
    reg         mac_dead = 1'b0;
    // the IP's TYPE3 interrupt as the IP raises it after the B of a write
    // of its data master (test_t3_write_before_irq): IRQ_VLD_O the cycle
    // after the handshake, IRQ_INFO_O TYPE3 code 1
    // the IP's IRQ, RECV_ACK and RETRY_TMO ports as a shared vector's
    // stand-in ops drive them (test_rclink_us.py, Stand: sim ipirq, ack,
    // tmo), one cycle each
    reg         ipirq_vld = 1'b0;
    reg  [63:0] ipirq_info = 64'd0;
    reg         ack_vld = 1'b0, ack_nak = 1'b0;
    reg  [QP_AW-1:0] ack_qpid = {QP_AW{1'b0}};
    reg  [31:0] ack_rtt = 32'd0;
    reg  [9:0]  ack_num = 10'd0;
    reg         tmo_vld = 1'b0;
    reg  [QP_AW-1:0] tmo_qpid = {QP_AW{1'b0}};
    // the TYPE3 ring engine's results to the IP stand-in, one cycle each
    // (t3_twin.py, the twin of tb/rclink_t3_model.v, drives them when a
    // shared vector plays TYPE3; low otherwise: nothing of the rings moves)
    reg         t3e_set = 1'b0;
    reg  [1:0]  t3e_set_tail = 2'd0;
    reg  [11:0] t3e_new_tx_tail = 12'd0, t3e_new_rx_tail = 12'd0;
    reg  [4:0]  t3e_st0 = 5'd0, t3e_st0_latch = 5'd0;
    reg  [10:0] t3e_st1 = 11'd0;
    reg         t3_irq_on_b = 1'b0;
    reg         t3_irq = 1'b0;
    always @(posedge user_clk)
        t3_irq <= t3_irq_on_b && nonr_data_bvalid && nonr_data_bready;

    // ---- MAC CSR stand-in (tb/rclink_mac_model.v) --------------------
    rclink_mac_model mac (
        .clk(user_clk), .rst_n(ip_rst_n), .dead(mac_dead),
        .address(mac_address), .read(mac_read), .write(mac_write),
        .writedata(mac_writedata), .readdata(mac_readdata),
        .readdatavalid(mac_readdatavalid));

    // the hard IP holds user_reset from configuration on; the model raises
    // it only after two clocks: a power-on reset covers those
    reg [3:0] por = 4'hf;
    always @(posedge user_clk)
        por <= {por[2:0], 1'b0};
    wire dut_reset = user_reset || por[3];

    rclink_ip_model #(.QP_AW(QP_AW)) ip (
        .clk(user_clk), .rst_n(ip_rst_n),
        .awvalid(awvalid && !axil_dead), .awready(awready), .awaddr(awaddr),
        .wvalid(wvalid && !axil_dead), .wready(wready), .wdata(wdata), .wstrb(wstrb),
        .bvalid(bvalid), .bready(bready && !axil_dead), .bresp(bresp),
        .arvalid(arvalid && !axil_dead), .arready(arready), .araddr(araddr),
        .rvalid(rvalid), .rready(rready && !axil_dead && !axil_mute_r),
        .rdata(rdata), .rresp(rresp),
        .irq_vld(irq_vld), .irq_info(irq_info), .rc_intr(rc_intr),
        .tx_vld(tx_vld), .tx_fs(tx_fs), .tx_fe(tx_fe), .tx_dat(tx_dat),
        .tx_keep(tx_keep), .tx_qpid(tx_qpid), .tx_fack(tx_fack),
        .tx_etype(tx_etype), .tx_group(tx_group),
        .crd(crd), .crd_qpid(crd_qpid), .crd_qpid_vld(crd_qpid_vld),
        .idle(ip_idle), .wait_mac_crd(ip_wait_crd), .mac_free_o(ip_mac_free),
        .t2_crd_o(ip_t2_crd), .t2_rate_vld(t2_rate_vld), .t2_rate_dat(t2_rate_dat),
        // the TYPE3 engine: t3_twin.py on the NONR masters
        .t3_set(t3e_set), .t3_set_tail(t3e_set_tail),
        .t3_new_tx_tail(t3e_new_tx_tail), .t3_new_rx_tail(t3e_new_rx_tail),
        .t3_st0(t3e_st0), .t3_st1(t3e_st1), .t3_st0_latch(t3e_st0_latch));
