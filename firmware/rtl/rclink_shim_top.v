// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: top level (Documentation/hw/rtl.rst).
//
// Joins the PCIe hard IP (completer requests for BAR0, requester word
// interface for DMA, MSI-X/MSI/INTx requests) to the RCLINK-Stream IP
// (AXI4-Lite registers, IRQ_VLD_O/IRQ_INFO_O, RC_INTR_O, RECV_ACK, TX_S
// with TX_S_CRD_O tokens, RX_M, the status levels RCLINK_IDLE_O /
// TX_WAIT_MAC_CRD_O / TX_MAC_FREE_O, SET_TYPE2_RATE_*) and to the MAC's
// CSR port.  One clock;
// rst_n is the hard IP's reset (app reset), SHIM_RESET adds a one-cycle
// soft reset of the shim; either holds ip_rst_n low for IP_RST_CYCLES,
// and BAR0 accesses to the RC and MAC windows wait meanwhile.  core_rst
// is the shim's own reset (for the requester's flush).
//
// The queue engines (send queue, receive path, completion queue), the
// event ring writer, the DMA self-test and the user contexts (doorbell
// records, CQEs, area tables) move their data in bursts
// (rclink_dma_barb): with BURST 1 on the q_* port, which the TLP top
// connects to a port of the DMA engine (rclink_tlp_req; the dma_req
// interface is then unused); with BURST 0 (the testbench, the
// co-simulation) through rclink_dma_b2w as words on the dma_req/dma_rsp
// interface.
`default_nettype none
`include "rclink_regs.vh"
module rclink_shim_top #(
    parameter NVEC = `RCLINK_MSIX_VECTORS,
    parameter QP_AW = 10,
    parameter OST_N = `RCLINK_PARAM_TYPE1_OST_N,
    parameter DMA_TIMEOUT = 4096,           // cycles a payload read may take
    parameter REG_TIMEOUT = 1024,           // cycles a register port may take
    parameter IP_RST_CYCLES = 1024,         // cycles ip_rst_n is held low
    parameter BURST = 0,                    // 1: the queue engines on q_*
    parameter US_CYCLES = 250,              // clock cycles a microsecond
    // contexts, context 0 included (DMAQ_CTX_CAP.num; rtl.rst "Contexts"):
    // 1, no user contexts and no doorbell BAR (the board tops set 8)
    parameter NCTX = 1,
    // entries of the registration table of RDMA WRITE and READ
    // (DMAQ_MR_CAP.num; with user contexts only)
    parameter NMR = 16,
    // pages of a registration's page table (DMAQ_MR_CAP.max_pages; a
    // power of 2, 8 .. 32768): NMR x PT_PAGES page addresses in block RAM
    parameter PT_PAGES = 1024
) (
    input  wire        clk,
    input  wire        rst_n,
    output wire        core_rst,
    // ---- PCIe hard IP: configuration state
    input  wire        cfg_bus_master_en,
    input  wire        cfg_msix_en,
    input  wire        cfg_msi_en,
    // ---- PCIe hard IP: BAR0 completer requests and read completions
    input  wire        tgt_req_valid,
    output wire        tgt_req_ready,
    input  wire        tgt_req_write,
    input  wire [15:0] tgt_req_addr,
    input  wire [7:0]  tgt_req_be,
    input  wire [63:0] tgt_req_data,
    input  wire [9:0]  tgt_req_tag,
    output wire        tgt_cpl_valid,
    input  wire        tgt_cpl_ready,
    output wire [63:0] tgt_cpl_data,
    output wire [9:0]  tgt_cpl_tag,
    // ---- PCIe hard IP: doorbell BAR (BAR4, NCTX > 1) writes: the byte
    //      offset in the BAR (quad word), byte enables, lane-aligned data
    input  wire        db_wr,
    input  wire [23:0] db_addr,
    input  wire [7:0]  db_be,
    input  wire [63:0] db_data,
    // ---- PCIe hard IP: DMA requester (64-bit words, in-order responses;
    //      BURST 0 only)
    output wire        dma_req_valid,
    input  wire        dma_req_ready,
    output wire        dma_req_write,
    output wire [63:0] dma_req_addr,
    output wire [63:0] dma_req_data,
    output wire [7:0]  dma_req_be,
    input  wire        dma_rsp_valid,
    input  wire [63:0] dma_rsp_data,
    input  wire        dma_rsp_err,
    // ---- DMA engine: the queue engines' bursts (BURST 1; see
    //      rclink_dma_ports.vh for the protocol)
    output wire         q_cmd_valid,
    input  wire         q_cmd_ready,
    output wire         q_cmd_write,
    output wire [63:0]  q_cmd_addr,
    output wire [12:0]  q_cmd_len,
    output wire         q_wd_valid,
    input  wire         q_wd_ready,
    output wire [511:0] q_wd_data,
    input  wire         q_rd_valid,
    input  wire [511:0] q_rd_data,
    input  wire [63:0]  q_rd_keep,
    input  wire         q_rd_last,
    input  wire         q_rd_err,
    input  wire         q_wr_idle,          // no write taken is left to send
    input  wire [7:0]   q_wc_taken,         // write commands the engine took (mod 256)
    input  wire [7:0]   q_wc_sent,          // ... that reached the hard IP, with q_wr_direct
    input  wire         q_wr_direct,        // q_wc_sent is exact (no adapter queue)
    // ---- PCIe hard IP: interrupts
    output wire        msix_valid,
    output wire [15:0] msix_vector,
    input  wire        msix_ready,
    output wire        msi_valid,
    input  wire        msi_ready,
    output wire        intx,
    // ---- counters of the TLP level, read through the CSRs
    input  wire [63:0] cnt_t3_dma_err,      // SHIM_T3_DMA_ERR (rclink_axi_dma)
    input  wire        dma_bm_drop,         // a burst another bus-master gate
                                            // refused (SHIM_DMA_BM_DROP)
    // ---- board
    input  wire [63:0] board_serial,
    input  wire [47:0] board_mac,
    input  wire        link_carrier,
    // ---- a timer of the core runs with nothing else moving: a WRITE or
    // READ waits for its response (DMAQ_RDMA_CFG.timeout_us), a user
    // context's packet waits on RX_M (DMAQ_CTX_RX_HOLD), a CQ's
    // moderation timer (DMAQ_CTX_MOD.usec); for a simulation harness that
    // stops its clock while nothing happens (rtl.rst, Co-simulation)
    output wire        timers_run,
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
);
    // ---- reset: the hard IP's, or SHIM_RESET (one cycle) --------------------
    // The shim takes one cycle of reset; the IP's reset is held for
    // IP_RST_CYCLES (rtl.rst: Clocks and resets), during which BAR0
    // accesses to the RC and MAC windows wait (ip_hold).
    localparam HW = $clog2(IP_RST_CYCLES + 1);
    localparam SCW = (NCTX > 1) ? $clog2(NCTX) : 1;    // context number width
    wire soft_reset;
    reg  rst_q, srst_q;
    reg  [HW-1:0] ip_hold_n;
    wire rst = rst_q || srst_q;
    // the write data of a burst the engine took still reaches it after a
    // SHIM_RESET (BURST 1: the engine is not reset with the core)
    wire wrst = BURST != 0 ? rst_q : rst;
    always @(posedge clk) begin
        rst_q <= !rst_n;
        srst_q <= soft_reset;
        if (rst)
            ip_hold_n <= IP_RST_CYCLES[HW-1:0] - 1'b1;
        else if (ip_hold_n != {HW{1'b0}})
            ip_hold_n <= ip_hold_n - 1'b1;
    end
    wire ip_hold = rst || ip_hold_n != {HW{1'b0}};
    wire ctx_hold;                  // rclink_ctx reads an area table: BAR0 waits
    wire ctx_tm_run, rdma_wait, rx_held;    // timers that run (timers_run)
    assign timers_run = ctx_tm_run || rdma_wait || rx_held;
    assign ip_rst_n = !ip_hold;
    assign core_rst = rst;

    // ---- BAR0 -------------------------------------------------------------
    wire        csr_wr, csr_rd;
    wire [15:0] csr_addr;
    wire [63:0] csr_wdata, csr_wmask, csr_rdata;
    wire        rc_req, rc_write, rc_done;
    wire [13:0] rc_addr;
    wire [63:0] rc_wdata, rc_rdata;
    wire [7:0]  rc_wstrb;
    wire        rc_err;
    wire        mreq, mwrite, mdone;
    wire [11:0] maddr;
    wire [31:0] mwdata, mrdata;
    wire        intr_inj;
    wire [63:0] intr_inj_val;
    wire        t2_oversize, t2_nobuf;     // TYPE2 records of the shim
    wire [15:0] rc_level;
    wire        t3_vld;
    wire [63:0] t3_info;
    wire [31:0] bad_access;
    wire [31:0] reg_tmo_rc, reg_tmo_mac;

    rclink_bar0 u_bar0 (
        .clk(clk), .rst(rst),
        .req_valid(tgt_req_valid), .req_ready(tgt_req_ready),
        .req_write(tgt_req_write), .req_addr(tgt_req_addr),
        .req_be(tgt_req_be), .req_data(tgt_req_data), .req_tag(tgt_req_tag),
        .cpl_valid(tgt_cpl_valid), .cpl_ready(tgt_cpl_ready),
        .cpl_data(tgt_cpl_data), .cpl_tag(tgt_cpl_tag),
        .bad_access(bad_access), .ip_hold(ip_hold), .csr_hold(ctx_hold || qps_hold),
        .csr_wr(csr_wr), .csr_rd(csr_rd), .csr_addr(csr_addr),
        .csr_wdata(csr_wdata), .csr_wmask(csr_wmask), .csr_rdata(csr_rdata),
        .rc_req(rc_req), .rc_write(rc_write), .rc_addr(rc_addr),
        .rc_wdata(rc_wdata), .rc_wstrb(rc_wstrb), .rc_done(rc_done),
        .rc_rdata(rc_rdata),
        .mac_req(mreq), .mac_write(mwrite), .mac_addr(maddr),
        .mac_wdata(mwdata), .mac_done(mdone), .mac_rdata(mrdata),
        // the IP's INTR_STATUS.t2_tx_oversize, which the shim sets: the IP
        // never sees the oversize chain
        .intr_inj(intr_inj || t2_oversize),
        .intr_inj_val(intr_inj_val | (t2_oversize ?
            (64'd1 << `RCLINK_INTR_STATUS_T2_TX_OVERSIZE_LSB) : 64'd0)),
        .ip_rc_intr(ip_rc_intr), .rc_level(rc_level),
        .t3_vld(t3_vld), .t3_info(t3_info),
        .t2_rate_vld(ip_set_type2_rate_vld), .t2_rate_dat(ip_set_type2_rate_dat));

    rclink_axil_master #(.AW(14), .TIMEOUT(REG_TIMEOUT)) u_axil (
        .clk(clk), .rst(rst), .tmo_cnt(reg_tmo_rc),
        .req(rc_req), .req_write(rc_write), .req_addr(rc_addr),
        .req_wdata(rc_wdata), .req_wstrb(rc_wstrb),
        .done(rc_done), .rdata(rc_rdata), .err(rc_err),
        .awvalid(ip_awvalid), .awready(ip_awready), .awaddr(ip_awaddr),
        .wvalid(ip_wvalid), .wready(ip_wready), .wdata(ip_wdata),
        .wstrb(ip_wstrb), .bvalid(ip_bvalid), .bready(ip_bready),
        .bresp(ip_bresp), .arvalid(ip_arvalid), .arready(ip_arready),
        .araddr(ip_araddr), .rvalid(ip_rvalid), .rready(ip_rready),
        .axi_rdata(ip_rdata), .rresp(ip_rresp));

    rclink_avmm_master #(.AW(12), .TIMEOUT(REG_TIMEOUT)) u_mac (
        .clk(clk), .rst(rst), .tmo_cnt(reg_tmo_mac),
        .req(mreq), .req_write(mwrite), .req_addr(maddr), .req_wdata(mwdata),
        .done(mdone), .rdata(mrdata),
        .address(mac_address), .read(mac_read), .write(mac_write),
        .writedata(mac_writedata), .readdata(mac_readdata),
        .readdatavalid(mac_readdatavalid), .waitrequest(mac_waitrequest));

    // ---- shim registers -----------------------------------------------------
    wire        test_irq;
    wire [15:0] test_irq_vec;
    wire        dmatest_start;
    wire [63:0] dmatest_ctrl, dmatest_addr, dmatest_status;
    wire [63:0] evt_base, evt_ctrl;
    wire        evt_en_set;
    wire [31:0] evt_cons, evt_prod, evt_drops;
    wire        evt_inj;
    wire [63:0] evt_inj_info;
    wire        link_up, link_chg;
    wire [63:0] sq_base, sq_cfg, rq_base, rq_cfg, cq_base, cq_cfg;
    wire [31:0] sq_prod, sq_cons, rq_prod, rq_cons, cq_prod, cq_cons;
    wire        sq_stop, rq_stop, cq_stop;
    wire [9:0]  ost_free, t2_ost_free;
    wire [63:0] cnt_bad_wqe, cnt_tx_drop_qp_off, cnt_rx_malformed, cnt_rx_nobuf;
    wire [7:0]  t2_join;
    wire [63:0] cnt_t2_tx_pkts, cnt_t2_tx_drop, cnt_t2_rx_pkts;
    wire [63:0] cnt_t2_nogroup, cnt_t2_nobuf, cnt_t2_malformed;
    wire [63:0] cnt_t2_lost, cnt_t2_old;

    wire [31:0] t3irq_cfg;              // SHIM_T3_IRQ {enable, vector}
    reg  [31:0] t3irq_cnt;              // SHIM_T3_IRQ.count
    reg  [63:0] cnt_bm_drop;            // SHIM_DMA_BM_DROP (the bus-master gates)
    // the registration table's read (rclink_mr), registered as rclink_ctx's
    // and rclink_csr's own: BAR0 puts the address out a cycle before its
    // strobe (rclink_bar0)
    reg         mr_hit_q;
    reg  [63:0] mr_rdata_q;
    wire        mac_hit;                // the MAC side's (rclink_mac)
    wire [63:0] mac_rdata;
    rclink_csr #(.NVEC(NVEC)) u_csr (
        .clk(clk), .rst(rst),
        .wr(csr_wr), .rd(csr_rd), .addr(csr_addr), .wdata(csr_wdata),
        .wmask(csr_wmask), .rdata(csr_rdata),
        .board_serial(board_serial), .board_mac(board_mac),
        .carrier(link_carrier),
        .soft_reset(soft_reset), .test_irq(test_irq),
        .test_irq_vec(test_irq_vec), .dmatest_start(dmatest_start),
        .dmatest_ctrl(dmatest_ctrl), .dmatest_addr(dmatest_addr),
        .dmatest_status(dmatest_status),
        .evt_base(evt_base), .evt_ctrl(evt_ctrl), .evt_en_set(evt_en_set),
        .evt_cons(evt_cons), .evt_prod(evt_prod), .evt_drops(evt_drops),
        .reg_tmo_rc(reg_tmo_rc), .reg_tmo_mac(reg_tmo_mac),
        .evt_inj(evt_inj), .evt_inj_info(evt_inj_info),
        .intr_inj(intr_inj), .intr_inj_val(intr_inj_val),
        .link_up(link_up), .link_chg(link_chg),
        .sq_base(sq_base), .sq_cfg(sq_cfg), .sq_prod(sq_prod),
        .sq_cons(sq_cons), .sq_stop(sq_stop),
        .rq_base(rq_base), .rq_cfg(rq_cfg), .rq_prod(rq_prod),
        .rq_cons(rq_cons), .rq_stop(rq_stop),
        .cq_base(cq_base), .cq_cfg(cq_cfg), .cq_prod(cq_prod),
        .cq_cons(cq_cons), .cq_stop(cq_stop),
        .ost_free(ost_free), .cnt_bad_wqe(cnt_bad_wqe),
        .cnt_tx_drop_qp_off(cnt_tx_drop_qp_off),
        .cnt_rx_drop_malformed(cnt_rx_malformed),
        .cnt_rx_drop_nobuf(cnt_rx_nobuf),
        .t2_join(t2_join), .cnt_t2_tx_pkts(cnt_t2_tx_pkts),
        .cnt_t2_tx_drop(cnt_t2_tx_drop), .cnt_t2_rx_pkts(cnt_t2_rx_pkts),
        .cnt_t2_rx_drop_nogroup(cnt_t2_nogroup),
        .cnt_t2_rx_drop_nobuf(cnt_t2_nobuf),
        .cnt_t2_rx_drop_malformed(cnt_t2_malformed),
        .cnt_t2_rx_lost(cnt_t2_lost), .cnt_t2_rx_drop_old(cnt_t2_old),
        .t2_ost_free(t2_ost_free),
        .ip_idle(ip_idle), .ip_tx_wait_mac_crd(ip_tx_wait_mac_crd),
        .ip_tx_mac_free(ip_tx_mac_free), .ip_t2_crd(ip_t2_crd),
        .cnt_t3_dma_err(cnt_t3_dma_err), .cnt_dma_bm_drop(cnt_bm_drop),
        .t3_irq(t3irq_cfg), .t3_irq_cnt(t3irq_cnt),
        .ctx_hit(ctx_hit || mr_hit_q || mac_hit),
        .ctx_rdata(mac_hit ? mac_rdata : mr_hit_q ? mr_rdata_q : ctx_rdata),
        .stat_we(stat_we), .stat_clear(stat_clear), .stat_sel(stat_sel),
        .qps_rx_pkts(qps_rx_pkts), .qps_rx_bytes(qps_rx_bytes),
        .qps_timeouts(qps_timeouts));

    // ---- the MAC side (rclink_mac): the IP's MAC streams to the MAC
    // adapter, the link-down drop of TYPE3, MAC control frames off RX,
    // the IP's CBFC configuration; its registers read as rclink_ctx's
    rclink_mac u_macside (
        .clk(clk), .rst(rst), .link_up(link_up),
        .rc_req(rc_req), .rc_write(rc_write), .rc_addr(rc_addr),
        .rc_wdata(rc_wdata), .rc_wstrb(rc_wstrb), .rc_done(rc_done),
        .rc_err(rc_err),
        .mc_req(mreq), .mc_write(mwrite), .mc_addr(maddr),
        .mc_wdata(mwdata), .mc_done(mdone),
`include "rclink_cemac_conn.vh"
        .wr(csr_wr), .addr(csr_addr), .wdata(csr_wdata), .wmask(csr_wmask),
        .hit(mac_hit), .rdata(mac_rdata));

    // ---- the per-QP counters the shim counts from the IP's ports
    wire        stat_we, stat_clear, qps_hold;
    wire [15:0] stat_sel;
    wire [63:0] qps_rx_pkts, qps_rx_bytes, qps_timeouts;
    wire        ip_irq_tmo = ip_irq_vld &&
                             ip_irq_info[`RCLINK_IRQ_INFO_TYPE_MSB:`RCLINK_IRQ_INFO_TYPE_LSB] ==
                             2'd`RCLINK_IRQ_TYPE1 &&
                             ip_irq_info[`RCLINK_IRQ_INFO_CODE_MSB:`RCLINK_IRQ_INFO_CODE_LSB] ==
                             5'd`RCLINK_IRQ_TYPE1_RETRY_TIMEOUT;
    rclink_qpstat #(.QP_AW(QP_AW)) u_qpstat (
        .clk(clk), .rst(rst),
        .rx_pkt(rx_m_vld && rx_m_rdy && rx_m_fs && rx_m_etype == 2'd0),
        .rx_qpn(rx_m_qpid), .rx_len(rx_m_len),
        .tmo(ip_retry_tmo_vld), .tmo_qpn(ip_retry_tmo_qpid),
        .tmo2(ip_irq_tmo),
        .tmo2_qpn(ip_irq_info[`RCLINK_IRQ_INFO_T1_QPID_LSB +: QP_AW]),
        .sel_we(stat_we), .sel_clear(stat_clear), .sel_qpn(stat_sel[QP_AW-1:0]),
        .sel_rx_pkts(qps_rx_pkts), .sel_rx_bytes(qps_rx_bytes),
        .sel_timeouts(qps_timeouts), .hold(qps_hold));

    // ---- the engine's bursts (rclink_dma_barb): 0 send queue, 1 completion
    // queue, 2 receive path, 3 event ring, 4 self-test, 5 user contexts, 6
    // the registration table's page tables (reads)
    wire [6:0]    b_cmd_valid, b_cmd_ready, b_cmd_write, b_wd_valid, b_wd_ready;
    wire [6:0]    b_rd_valid;
    wire [447:0]  b_cmd_addr;
    wire [90:0]   b_cmd_len;
    wire [3583:0] b_wd_data;
    wire [511:0]  b_rd_data;
    wire [63:0]   b_rd_keep;
    wire          b_rd_last, b_rd_err;
    wire          m_wr_idle;            // the port has no write left to send
    wire          b_refused;            // a burst refused (bus mastering off)

    // ---- TYPE3 on a vector of its own (SHIM_T3_IRQ, MSI-X only): an
    // IRQ_INFO TYPE3 of the IP or of SHIM_INTR_INJECT raises the vector and
    // writes no record; it follows the IP's write-backs on the request
    // stream as a record's interrupt would
    wire        t3irq_on = t3irq_cfg[`RCLINK_SHIM_T3_IRQ_ENABLE_LSB] && cfg_msix_en;
    wire        ip_irq_t3 = ip_irq_info[`RCLINK_IRQ_INFO_TYPE_MSB:`RCLINK_IRQ_INFO_TYPE_LSB] ==
                            2'd`RCLINK_IRQ_TYPE3;
    wire        t3irq_ip = t3irq_on && ip_irq_vld && ip_irq_t3;
    wire        t3irq_raise = t3irq_ip || (t3irq_on && t3_vld);
    always @(posedge clk)
        if (rst)
            t3irq_cnt <= 32'd0;
        else if (t3irq_raise)
            t3irq_cnt <= t3irq_cnt + 32'd1;

    // ---- event ring -----------------------------------------------------------
    wire        evt_raise, evt_pending;
    wire [15:0] evt_vec;
    wire [63:0] ack_info =
        ({32'd0, ip_recv_ack_rtt} << `RCLINK_RECV_ACK_RTT_LSB) |
        ({{(64-QP_AW){1'b0}}, ip_recv_ack_qpid} << `RCLINK_RECV_ACK_QPID_LSB) |
        ({54'd0, ip_recv_num_acked} << `RCLINK_RECV_ACK_NUM_ACKED_LSB) |
        ({63'd0, ip_recv_nak_flg} << `RCLINK_RECV_ACK_NAK_LSB);
    wire [63:0] tmo_info =
        {{(64-QP_AW){1'b0}}, ip_retry_tmo_qpid} << `RCLINK_CC_INFO_QPID_LSB;

    wire          cq_iw, evt_iw, ctx_iw, rx_iw;     // writers waiting for wr_idle
    // ... and when each may go on.  With the DMA engine's write counts
    // exact (q_wr_direct: the adapter has no queue of its own), a writer
    // waits only for the writes taken up to its first cycle of waiting
    // (its own among them): q_wc_sent reaching q_wc_taken as it was then,
    // whatever writes follow.  Otherwise (the word-level port, an
    // adapter with a queue) for m_wr_idle, the arbiter holding new
    // commands back meanwhile (below).
    wire          wc_exact = BURST != 0 && q_wr_direct;
    wire          cq_wr_idle, evt_wr_idle, ctx_wr_idle, rx_wr_idle;
    rclink_wfence u_fn_cq (.clk(clk), .rst(rst), .exact(wc_exact), .want(cq_iw),
        .taken(q_wc_taken), .sent(q_wc_sent), .idle(m_wr_idle), .done(cq_wr_idle));
    rclink_wfence u_fn_evt (.clk(clk), .rst(rst), .exact(wc_exact), .want(evt_iw),
        .taken(q_wc_taken), .sent(q_wc_sent), .idle(m_wr_idle), .done(evt_wr_idle));
    rclink_wfence u_fn_ctx (.clk(clk), .rst(rst), .exact(wc_exact), .want(ctx_iw),
        .taken(q_wc_taken), .sent(q_wc_sent), .idle(m_wr_idle), .done(ctx_wr_idle));
    rclink_wfence u_fn_rx (.clk(clk), .rst(rst), .exact(wc_exact), .want(rx_iw),
        .taken(q_wc_taken), .sent(q_wc_sent), .idle(m_wr_idle), .done(rx_wr_idle));
    rclink_evt u_evt (
        .clk(clk), .rst(rst),
        .ring_en(evt_ctrl[`RCLINK_SHIM_EVT_CTRL_ENABLE_LSB]),
        .ring_en_set(evt_en_set),
        .ring_order(evt_ctrl[`RCLINK_SHIM_EVT_CTRL_ORDER_MSB:`RCLINK_SHIM_EVT_CTRL_ORDER_LSB]),
        .ring_base(evt_base), .ring_cons(evt_cons),
        .ring_vector(evt_ctrl[`RCLINK_SHIM_EVT_CTRL_VECTOR_MSB:`RCLINK_SHIM_EVT_CTRL_VECTOR_LSB]),
        .ring_prod(evt_prod), .ring_drops(evt_drops),
        .ring_pending(evt_pending),
        .ip_irq_vld(ip_irq_vld && !t3irq_ip), .ip_irq_info(ip_irq_info),
        .inj_vld(evt_inj), .inj_info(evt_inj_info),
        .rc_level(rc_level), .t3_vld(t3_vld && !t3irq_on), .t3_info(t3_info),
        .st_vld(test_irq && !cfg_msix_en), .st_vector(test_irq_vec),
        .link_vld(link_chg), .link_up(link_up),
        .ack_vld(ip_recv_ack_vld), .ack_info(ack_info),
        .tmo_vld(ip_retry_tmo_vld), .tmo_info(tmo_info),
        .t2_tx_over(t2_oversize), .t2_rx_nobuf(t2_nobuf),
        .ctx_vld(ctx_ev_valid), .ctx_src(ctx_ev_src), .ctx_info(ctx_ev_info),
        .ctx_take(ctx_ev_take),
        .raise(evt_raise), .raise_vec(evt_vec),
        .wrst(wrst), .wr_idle(evt_wr_idle), .idle_want(evt_iw),
        .dma_cmd_valid(b_cmd_valid[3]), .dma_cmd_ready(b_cmd_ready[3]),
        .dma_cmd_addr(b_cmd_addr[192 +: 64]), .dma_cmd_len(b_cmd_len[39 +: 13]),
        .dma_wd_valid(b_wd_valid[3]), .dma_wd_ready(b_wd_ready[3]),
        .dma_wd_data(b_wd_data[1536 +: 512]));
    assign b_cmd_write[3] = 1'b1;

    // ---- DMA self-test ----------------------------------------------------------
    rclink_dmatest u_dmatest (
        .clk(clk), .rst(rst), .wrst(wrst), .start(dmatest_start),
        .bm_en(cfg_bus_master_en),
        .op(dmatest_ctrl[`RCLINK_SHIM_TEST_DMA_CTRL_OP_MSB:`RCLINK_SHIM_TEST_DMA_CTRL_OP_LSB]),
        .len(dmatest_ctrl[`RCLINK_SHIM_TEST_DMA_CTRL_LEN_MSB:`RCLINK_SHIM_TEST_DMA_CTRL_LEN_LSB]),
        .seed(dmatest_ctrl[`RCLINK_SHIM_TEST_DMA_CTRL_SEED_MSB:`RCLINK_SHIM_TEST_DMA_CTRL_SEED_LSB]),
        .addr(dmatest_addr), .status(dmatest_status), .wr_idle(m_wr_idle),
        .dma_cmd_valid(b_cmd_valid[4]), .dma_cmd_ready(b_cmd_ready[4]),
        .dma_cmd_write(b_cmd_write[4]), .dma_cmd_addr(b_cmd_addr[256 +: 64]),
        .dma_cmd_len(b_cmd_len[52 +: 13]),
        .dma_wd_valid(b_wd_valid[4]), .dma_wd_ready(b_wd_ready[4]),
        .dma_wd_data(b_wd_data[2048 +: 512]),
        .dma_rd_valid(b_rd_valid[4]), .dma_rd_data(b_rd_data),
        .dma_rd_keep(b_rd_keep), .dma_rd_last(b_rd_last), .dma_rd_err(b_rd_err));

    // ---- user contexts (rtl.rst "Contexts") ---------------------------------
    wire        ctx_hit;
    wire [63:0] ctx_rdata;
    wire        ctx_ev_valid, ctx_ev_take;
    wire [7:0]  ctx_ev_src;
    wire [63:0] ctx_ev_info;
    wire [15:0] own_qp_ctx, own_grp_ctx;
    wire [QP_AW-1:0] own_qpn;
    wire [2:0]  own_grp;
    // the send engine's message: every context, 0 too, is held to the
    // owner tables
    wire [15:0] sq_own_q;
    wire        sq_own_t2;
    wire [SCW-1:0] sq_ctx;
    assign own_qpn = sq_own_q[QP_AW-1:0];
    assign own_grp = sq_own_q[2:0];
    wire        sq_own_other = (sq_own_t2 ? own_grp_ctx : own_qp_ctx) !=
                               {{(16-SCW){1'b0}}, sq_ctx};
    // the send engine and the user contexts (rclink_ctx)
    wire        sq_busy, u_any, u_take, u_park, u_cons_we, u_run;
    wire [SCW-1:0] u_pick, x_ctx, cqe_s_ctx;
    wire [31:0] u_pick_cons, u_prod, u_cons, tr_rem;
    wire [63:0] u_base, u_area, tr_off, tr_bus, x_info;
    wire [3:0]  u_order;
    wire [NCTX-1:0] u_runs;
    wire        x_new, x_not_owner, x_fail;
    wire        quiet_done;
    wire [SCW-1:0] quiet_ctx;
    wire [7:0]  x_cause;
    wire        cqe_u_ready;
    localparam SQ_MSGS = 8;             // the send engine's message slots
    // the requester's largest WRITE or READ (DMAQ_MR_CAP.max_len): a
    // context-0 READ keeps RD_PIECES pieces, which hold DMAQ_CAP.max_msg
    // in the driver's chains of 64 KiB chunks (its first one may start
    // inside a chunk: one piece more than the chunks the length fills)
    localparam [63:0] RD_CAP = `RCLINK_DMAQ_CAP_RSTVAL;
    localparam [31:0] RD_MAX_MSG = {8'd0, RD_CAP[23:0]};
    localparam RD_PIECES = 17;
    localparam [31:0] RD_FIT = (RD_PIECES - 1) * `RCLINK_WQE_MAX_PIECE;
    localparam [31:0] RD_MAX_LEN = (RD_FIT < RD_MAX_MSG) ? RD_FIT : RD_MAX_MSG;
    wire [SQ_MSGS-1:0] fl_v;
    wire [SQ_MSGS*QP_AW-1:0] fl_qpn;
    wire [SQ_MSGS*10-1:0] ost_out;      // the send engine's slots: packets in the IP
    wire [SQ_MSGS*SCW-1:0] ost_ctx;
    wire        q_ost_ok;
    // the receive path and the user contexts
    wire [SCW-1:0] rx_own_qp, rx_own_grp, r_ctx, rcqe_ctx;
    wire [QP_AW-1:0] rx_pqpid;          // the RX_M packet queued in rclink_rx
    wire        own_chg, r_busy, r_run, r_cstart, r_take, r_nobuf, r_fail;
    wire [NCTX-1:0] r_flushing;
    wire [QP_AW-1:0] own_chg_qpn;
    wire [63:0] r_rq_base, r_area, r_off, r_bus, r_info;
    wire [3:0]  r_rq_order;
    wire [31:0] r_rq_prod, r_rq_cons, r_room;
    wire        r_room_ok;
    wire [7:0]  r_cause;
    wire [31:0] r_hold_us;
    wire        r_us_tick;
    wire        cqe_r_valid, cqe_r_ready, cqe_rk_ready, cqe_ru_ready;
    wire [63:0] cqe_r_w0, cqe_r_w1, cqe_r_w2;
    assign cqe_r_ready = (rcqe_ctx == {SCW{1'b0}}) ? cqe_rk_ready : cqe_ru_ready;
    generate
        if (NCTX > 1) begin : g_ctx
            rclink_ctx #(.NCTX(NCTX), .CW(SCW), .QP_AW(QP_AW), .US_CYCLES(US_CYCLES),
                        .FL_N(SQ_MSGS)) u_ctx (
                .clk(clk), .rst(rst),
                .wr(csr_wr), .addr(csr_addr), .wdata(csr_wdata),
                .wmask(csr_wmask), .rdata(ctx_rdata), .hit(ctx_hit),
                .db_wr(db_wr), .db_addr(db_addr[SCW+15:0]), .db_be(db_be),
                .db_data(db_data),
                .own_qpn(own_qpn), .own_qp_ctx(own_qp_ctx),
                .own_grp(own_grp), .own_grp_ctx(own_grp_ctx),
                .ev_valid(ctx_ev_valid), .ev_src(ctx_ev_src),
                .ev_info(ctx_ev_info), .ev_take(ctx_ev_take),
                .q_ctx(sq_ctx), .q_busy(sq_busy), .q_base(u_base),
                .q_order(u_order), .q_run(u_run), .q_prod(u_prod),
                .q_area(u_area), .runs(u_runs), .tr_off(tr_off),
                .tr_bus(tr_bus), .tr_rem(tr_rem), .u_any(u_any),
                .u_pick(u_pick), .u_pick_cons(u_pick_cons), .u_take(u_take),
                .u_park(u_park), .u_cons_we(u_cons_we), .u_cons(u_cons), .x_ctx(x_ctx),
                .x_new(x_new), .x_not_owner(x_not_owner), .x_fail(x_fail),
                .x_cause(x_cause), .x_info(x_info),
                .quiet_done(quiet_done), .quiet_ctx(quiet_ctx),
                .fl_v(fl_v), .fl_qpn(fl_qpn),
                .ost_out(ost_out), .ost_ctx(ost_ctx), .q_ost_ok(q_ost_ok),
                .cqe_valid(cqe_s_valid && cqe_s_ctx != {SCW{1'b0}}),
                .cqe_ctx(cqe_s_ctx), .cqe_w0(cqe_s_w0), .cqe_w1(cqe_s_w1),
                .cqe_ready(cqe_u_ready),
                .rx_qpn(rx_pqpid), .rx_own_qp(rx_own_qp), .rx_own_grp(rx_own_grp),
                .own_chg(own_chg), .own_chg_qpn(own_chg_qpn),
                .r_ctx(r_ctx), .r_busy(r_busy), .r_flushing(r_flushing), .r_run(r_run),
                .r_rq_base(r_rq_base), .r_rq_order(r_rq_order),
                .r_rq_prod(r_rq_prod), .r_rq_cons(r_rq_cons), .r_room(r_room), .r_room_ok(r_room_ok),
                .r_area(r_area), .r_off(r_off), .r_bus(r_bus), .r_cstart(r_cstart),
                .r_take(r_take), .r_nobuf(r_nobuf), .r_fail(r_fail),
                .r_cause(r_cause), .r_info(r_info),
                .rcqe_valid(cqe_r_valid && rcqe_ctx != {SCW{1'b0}}),
                .rcqe_ctx(rcqe_ctx), .rcqe_w0(cqe_r_w0), .rcqe_w1(cqe_r_w1), .rcqe_w2(cqe_r_w2),
                .rcqe_ready(cqe_ru_ready),
                .hold(ctx_hold),
                .rx_hold(r_hold_us), .us_tick(r_us_tick), .tm_run(ctx_tm_run),
                .wrst(wrst), .wr_idle(ctx_wr_idle), .idle_want(ctx_iw),
                .dma_cmd_valid(b_cmd_valid[5]), .dma_cmd_ready(b_cmd_ready[5]),
                .dma_cmd_write(b_cmd_write[5]), .dma_cmd_addr(b_cmd_addr[320 +: 64]),
                .dma_cmd_len(b_cmd_len[65 +: 13]),
                .dma_wd_valid(b_wd_valid[5]), .dma_wd_ready(b_wd_ready[5]),
                .dma_wd_data(b_wd_data[2560 +: 512]),
                .dma_rd_valid(b_rd_valid[5]), .dma_rd_data(b_rd_data),
                .dma_rd_last(b_rd_last), .dma_rd_err(b_rd_err));
        end else begin : g_noctx
            assign ctx_hit = 1'b0;
            assign ctx_rdata = 64'd0;
            assign ctx_ev_valid = 1'b0;
            assign ctx_ev_src = 8'd0;
            assign ctx_ev_info = 64'd0;
            assign own_qp_ctx = 16'd0;
            assign own_grp_ctx = 16'd0;
            assign ctx_hold = 1'b0;
            assign ctx_iw = 1'b0;
            assign ctx_tm_run = 1'b0;
            assign u_base = 64'd0;
            assign u_order = 4'd0;
            assign u_run = 1'b0;
            assign u_prod = 32'd0;
            assign u_area = 64'd0;
            assign u_runs = {NCTX{1'b0}};
            assign tr_bus = 64'd0;
            assign tr_rem = 32'd0;
            assign u_any = 1'b0;
            assign u_pick = {SCW{1'b0}};
            assign u_pick_cons = 32'd0;
            assign cqe_u_ready = 1'b0;
            assign q_ost_ok = 1'b1;
            assign rx_own_qp = {SCW{1'b0}};
            assign rx_own_grp = {SCW{1'b0}};
            assign own_chg = 1'b0;
            assign own_chg_qpn = {QP_AW{1'b0}};
            assign r_run = 1'b0;
            assign r_rq_base = 64'd0;
            assign r_rq_order = 4'd0;
            assign r_rq_prod = 32'd0;
            assign r_rq_cons = 32'd0;
            assign r_room = 32'd0;
            assign r_room_ok = 1'b0;
            assign r_area = 64'd0;
            assign r_bus = 64'd0;
            assign r_cstart = 1'b0;
            assign cqe_ru_ready = 1'b0;
            assign r_hold_us = 32'd0;
            assign r_us_tick = 1'b0;
            assign b_cmd_valid[5] = 1'b0;
            assign b_cmd_write[5] = 1'b0;
            assign b_cmd_addr[320 +: 64] = 64'd0;
            assign b_cmd_len[65 +: 13] = 13'd0;
            assign b_wd_valid[5] = 1'b0;
            assign b_wd_data[2560 +: 512] = 512'd0;
        end
    endgenerate

    // ---- the bursts (rclink_dma_barb, declared above)
    wire          m_cmd_valid, m_cmd_ready, m_cmd_write, m_wd_valid, m_wd_ready;
    wire [63:0]   m_cmd_addr;
    wire [12:0]   m_cmd_len;
    wire [511:0]  m_wd_data;
    wire          m_rd_valid, m_rd_last, m_rd_err;
    wire [511:0]  m_rd_data;
    wire [63:0]   m_rd_keep;

    // a writer that waits for m_wr_idle (its entry's write taken: the CQ,
    // the event ring, a user context's CQ, a WRITE's response; without
    // exact write counts, above) holds new commands back, so that a stream
    // of writes (the receive path's bursts) cannot keep the engine busy
    // and starve it: the engine drains what it took and goes on once the
    // writer went on
    rclink_dma_barb #(.N(7), .OW(3)) u_barb (
        .clk(clk), .rst(rst), .wrst(wrst), .bus_master_en(cfg_bus_master_en),
        .hold((cq_iw || evt_iw || ctx_iw || rx_iw) && !wc_exact),
        .c_cmd_valid(b_cmd_valid), .c_cmd_ready(b_cmd_ready),
        .c_cmd_write(b_cmd_write), .c_cmd_addr(b_cmd_addr), .c_cmd_len(b_cmd_len),
        .c_wd_valid(b_wd_valid), .c_wd_ready(b_wd_ready), .c_wd_data(b_wd_data),
        .c_rd_valid(b_rd_valid), .c_rd_data(b_rd_data), .c_rd_keep(b_rd_keep),
        .c_rd_last(b_rd_last), .c_rd_err(b_rd_err),
        .m_cmd_valid(m_cmd_valid), .m_cmd_ready(m_cmd_ready),
        .m_cmd_write(m_cmd_write), .m_cmd_addr(m_cmd_addr), .m_cmd_len(m_cmd_len),
        .m_wd_valid(m_wd_valid), .m_wd_ready(m_wd_ready), .m_wd_data(m_wd_data),
        .m_rd_valid(m_rd_valid), .m_rd_data(m_rd_data), .m_rd_keep(m_rd_keep),
        .m_rd_last(m_rd_last), .m_rd_err(m_rd_err), .refused(b_refused));

    // SHIM_DMA_BM_DROP: the bursts the bus-master gates refused (this
    // one's and, through dma_bm_drop, the engine's free port's)
    always @(posedge clk)
        if (rst)
            cnt_bm_drop <= 64'd0;
        else
            cnt_bm_drop <= cnt_bm_drop + {63'd0, b_refused} + {63'd0, dma_bm_drop};

    generate
        if (BURST != 0) begin : g_burst
            assign q_cmd_valid = m_cmd_valid;
            assign m_cmd_ready = q_cmd_ready;
            assign q_cmd_write = m_cmd_write;
            assign q_cmd_addr = m_cmd_addr;
            assign q_cmd_len = m_cmd_len;
            assign q_wd_valid = m_wd_valid;
            assign m_wd_ready = q_wd_ready;
            assign q_wd_data = m_wd_data;
            assign m_rd_valid = q_rd_valid;
            assign m_rd_data = q_rd_data;
            assign m_rd_keep = q_rd_keep;
            assign m_rd_last = q_rd_last;
            assign m_rd_err = q_rd_err;
            assign m_wr_idle = q_wr_idle && !m_wd_valid;
            assign dma_req_valid = 1'b0;
            assign dma_req_write = 1'b0;
            assign dma_req_addr = 64'd0;
            assign dma_req_data = 64'd0;
            assign dma_req_be = 8'd0;
        end else begin : g_words
            // the bursts as words (bus mastering is gated in u_barb: with
            // it off no command gets here)
            wire b2w_lock;
            rclink_dma_b2w u_b2w (
                .clk(clk), .rst(rst),
                .cmd_valid(m_cmd_valid), .cmd_ready(m_cmd_ready),
                .cmd_write(m_cmd_write), .cmd_addr(m_cmd_addr), .cmd_len(m_cmd_len),
                .wd_valid(m_wd_valid), .wd_ready(m_wd_ready), .wd_data(m_wd_data),
                .rd_valid(m_rd_valid), .rd_data(m_rd_data), .rd_keep(m_rd_keep),
                .rd_last(m_rd_last), .rd_err(m_rd_err),
                .w_lock(b2w_lock), .w_valid(dma_req_valid), .w_ready(dma_req_ready),
                .w_write(dma_req_write), .w_addr(dma_req_addr),
                .w_data(dma_req_data), .w_be(dma_req_be),
                .w_rsp_valid(dma_rsp_valid), .w_rsp_data(dma_rsp_data),
                .w_rsp_err(dma_rsp_err));
            assign m_wr_idle = m_cmd_ready;
            assign q_cmd_valid = 1'b0;
            assign q_cmd_write = 1'b0;
            assign q_cmd_addr = 64'd0;
            assign q_cmd_len = 13'd0;
            assign q_wd_valid = 1'b0;
            assign q_wd_data = 512'd0;
        end
    endgenerate

    // ---- queue engine: send queue (seed 004 request state machine) ------------
    wire        cqe_s_valid, cqe_s_ready;
    wire [63:0] cqe_s_w0, cqe_s_w1;
    // a send completion goes to its context's CQ
    wire        cqe_k_ready;
    wire [31:0] cq_free;
    wire        cq_kroom, cq_on;
    wire        cq_hold;
    assign cqe_s_ready = (cqe_s_ctx == {SCW{1'b0}}) ? cqe_k_ready : cqe_u_ready;

    // the RDMA responder's responses (rclink_rx), sent by the send engine
    wire        rsp_valid, rsp_take;
    wire [QP_AW-1:0] rsp_qpn;
    wire [2:0]  rsp_kind;
    wire [15:0] rsp_tag;
    wire [7:0]  rsp_status;
    wire        dp_valid, dp_take, dp_done;
    wire [QP_AW-1:0] dp_qpn;
    wire [10:0] dp_bytes;
    wire [4:0]  dp_raddr;
    wire [511:0] dp_rdata;
    // the requester's WRITE (rclink_sq) and the WRITE_RESPs rclink_rx
    // passes it; the local key's entry (rclink_mr)
    wire        wresp_valid, wresp_hit, lq_ok, rq_txw, rq_txr, rq_rem, rq_tmo;
    wire        rresp_valid, rresp_ends, rresp_hit, rresp_ok, rdone_valid, rr_busy;
    wire [31:0] rresp_off, rresp_mlen, rresp_dlen;
    wire [63:0] rresp_base, pq_bus;
    wire [31:0] rresp_room, rp_off;
    wire        rresp_pg, pq_on, pq_use, pq_ok;
    wire [15:0] rresp_idx, pq_idx, lr_idx;
    wire        rresp_lk, lr_ok;
    wire [63:0] lr_base, lr_ctrl;
    wire [31:0] lr_len;
    wire [QP_AW-1:0] wresp_qpn;
    wire [15:0] wresp_tag, lq_idx;
    wire [7:0]  wresp_st;
    wire [63:0] lq_base, lq_ctrl;
    wire [31:0] lq_len;
    wire [31:0] rdma_tmo_us;
    rclink_sq #(.QP_AW(QP_AW), .OST_N(OST_N), .TIMEOUT(DMA_TIMEOUT), .NCTX(NCTX),
                .CW(SCW), .MSGS(SQ_MSGS), .US_CYCLES(US_CYCLES),
                .RD_PIECES(RD_PIECES)) u_sq (
        .clk(clk), .rst(rst),
        .sq_base(sq_base), .sq_order(sq_cfg[3:0]), .sq_en(sq_cfg[8]),
        .sq_stop(sq_stop), .sq_prod(sq_prod), .sq_cons(sq_cons),
        .ost_free(ost_free), .t2_ost_free(t2_ost_free), .cnt_bad_wqe(cnt_bad_wqe),
        .cnt_drop_qp_off(cnt_tx_drop_qp_off),
        .cnt_t2_tx_pkts(cnt_t2_tx_pkts), .cnt_t2_tx_drop(cnt_t2_tx_drop),
        .t2_oversize(t2_oversize), .link_up(link_up),
        .own_q(sq_own_q), .own_t2(sq_own_t2), .own_other(sq_own_other),
        .q_ctx(sq_ctx), .q_busy(sq_busy), .u_any(u_any), .u_pick(u_pick),
        .u_pick_cons(u_pick_cons), .u_take(u_take), .u_park(u_park), .u_base(u_base),
        .u_order(u_order), .u_run(u_run), .u_prod(u_prod), .u_area(u_area),
        .u_runs(u_runs), .tr_off(tr_off), .tr_bus(tr_bus), .tr_rem(tr_rem),
        .u_cons_we(u_cons_we), .u_cons(u_cons), .x_ctx(x_ctx), .x_new(x_new),
        .x_not_owner(x_not_owner), .x_fail(x_fail), .x_cause(x_cause),
        .x_info(x_info), .k_room(cq_kroom), .cqe_ctx(cqe_s_ctx),
        .quiet_done(quiet_done), .quiet_ctx(quiet_ctx),
        .fl_v(fl_v), .fl_qpn(fl_qpn),
        .ost_out(ost_out), .ost_ctx(ost_ctx), .q_ost_ok(q_ost_ok),
        .dma_cmd_valid(b_cmd_valid[0]), .dma_cmd_ready(b_cmd_ready[0]),
        .dma_cmd_addr(b_cmd_addr[0 +: 64]), .dma_cmd_len(b_cmd_len[0 +: 13]),
        .dma_rd_valid(b_rd_valid[0]), .dma_rd_data(b_rd_data),
        .dma_rd_keep(b_rd_keep), .dma_rd_last(b_rd_last), .dma_rd_err(b_rd_err),
        .tx_vld(tx_s_vld), .tx_fs(tx_s_fs), .tx_fe(tx_s_fe),
        .tx_dat(tx_s_dat), .tx_keep(tx_s_keep), .tx_qpid(tx_s_qpid),
        .tx_fack(tx_s_fack), .tx_etype(tx_s_etype), .tx_group(tx_s_t2_group),
        .crd(tx_s_crd[0]), .crd_t2(tx_s_crd[3]), .crd_qpid(tx_s_crd_qpid),
        .crd_qpid_vld(tx_s_crd_qpid_vld),
        .rsp_valid(rsp_valid), .rsp_take(rsp_take), .rsp_qpn(rsp_qpn),
        .rsp_kind(rsp_kind), .rsp_tag(rsp_tag), .rsp_status(rsp_status),
        .dp_valid(dp_valid), .dp_take(dp_take), .dp_qpn(dp_qpn), .dp_bytes(dp_bytes),
        .dp_raddr(dp_raddr), .dp_rdata(dp_rdata), .dp_done(dp_done),
        .rdma_tmo_us(rdma_tmo_us), .rdma_wait(rdma_wait), .wresp_valid(wresp_valid), .wresp_qpn(wresp_qpn),
        .wresp_tag(wresp_tag), .wresp_st(wresp_st), .wresp_hit(wresp_hit),
        .lq_idx(lq_idx), .lq_ok(lq_ok), .lq_base(lq_base), .lq_len(lq_len),
        .lq_ctrl(lq_ctrl), .lr_idx(lr_idx), .lr_ok(lr_ok), .lr_base(lr_base),
        .lr_len(lr_len), .lr_ctrl(lr_ctrl), .pq_on(pq_on), .pq_use(pq_use), .pq_idx(pq_idx), .pq_ok(pq_ok), .pq_bus(pq_bus),
        .c_tx_write(rq_txw), .c_rem_err(rq_rem), .c_timeout(rq_tmo),
        .rresp_valid(rresp_valid), .rresp_off(rresp_off), .rresp_mlen(rresp_mlen),
        .rresp_dlen(rresp_dlen), .rresp_ends(rresp_ends), .rresp_hit(rresp_hit),
        .rresp_ok(rresp_ok), .rresp_base(rresp_base), .rresp_room(rresp_room),
        .rp_off(rp_off), .rresp_pg(rresp_pg), .rresp_idx(rresp_idx), .rresp_lk(rresp_lk),
        .rdone_valid(rdone_valid),
        .rr_busy(rr_busy), .c_tx_read(rq_txr),
        .cqe_valid(cqe_s_valid), .cqe_ready(cqe_s_ready),
        .cqe_w0(cqe_s_w0), .cqe_w1(cqe_s_w1));
    assign b_cmd_write[0] = 1'b0;
    assign b_wd_valid[0] = 1'b0;
    assign b_wd_data[0 +: 512] = 512'd0;

    // ---- the registration table of RDMA WRITE and READ (rtl.rst, "RDMA
    // responder"): with user contexts only (their areas are what it
    // registers); without them DMAQ_MR_CAP reads 0
    wire        mr_hit, mr_ok, mr_use, mr_pg, pt_ok, rdma_silent;
    wire [63:0] mr_rdata, mr_base, mr_ctrl, pt_bus;
    wire [15:0] mr_tidx;
    wire [31:0] mr_len;
    wire [15:0] mr_idx;
    wire        rc_wr, rc_rd, rc_bkey, rc_acc, rc_bnd, rc_sil, rc_late, rc_imm;
    generate
        if (NCTX > 1) begin : g_mr
            rclink_mr #(.NMR(NMR), .MAX_LEN(RD_MAX_LEN), .PT_PAGES(PT_PAGES)) u_mr (
                .clk(clk), .rst(rst),
                .wr(csr_wr), .addr(csr_addr), .wdata(csr_wdata), .wmask(csr_wmask),
                .rdata(mr_rdata), .hit(mr_hit),
                .timeout_us(rdma_tmo_us), .resp_silent(rdma_silent),
                .lk_idx(mr_idx), .lk_ok(mr_ok), .lk_base(mr_base), .lk_len(mr_len),
                .lk_ctrl(mr_ctrl), .use_on(mr_use), .use_idx(mr_tidx),
                .tr_on(mr_pg), .tr_idx(mr_tidx), .tr_off(r_off), .tr_ok(pt_ok),
                .tr_bus(pt_bus), .tq_on(pq_on), .tq_use(pq_use), .tq_idx(pq_idx), .tq_off(tr_off),
                .tq_ok(pq_ok), .tq_bus(pq_bus),
                .t_cmd_valid(b_cmd_valid[6]), .t_cmd_ready(b_cmd_ready[6]),
                .t_cmd_addr(b_cmd_addr[384 +: 64]), .t_cmd_len(b_cmd_len[78 +: 13]),
                .t_rd_valid(b_rd_valid[6]), .t_rd_data(b_rd_data),
                .t_rd_last(b_rd_last), .t_rd_err(b_rd_err),
                .c_rx_write(rc_wr), .c_rx_read(rc_rd), .c_bad_key(rc_bkey),
                .c_access(rc_acc), .c_bounds(rc_bnd), .c_silent(rc_sil),
                .c_late(rc_late), .c_imm_drop(rc_imm),
                .lq_idx(lq_idx), .lq_ok(lq_ok), .lq_base(lq_base), .lq_len(lq_len),
                .lq_ctrl(lq_ctrl), .lr_idx(lr_idx), .lr_ok(lr_ok), .lr_base(lr_base),
                .lr_len(lr_len), .lr_ctrl(lr_ctrl), .c_tx_write(rq_txw), .c_tx_read(rq_txr),
                .c_rem_err(rq_rem), .c_timeout(rq_tmo));
        end else begin : g_nomr
            assign mr_hit = 1'b0;
            assign mr_rdata = 64'd0;
            assign rdma_tmo_us = 32'd0;
            assign rdma_silent = 1'b0;
            assign mr_ok = 1'b0;
            assign pt_ok = 1'b0;
            assign pt_bus = 64'd0;
            assign pq_ok = 1'b0;
            assign pq_bus = 64'd0;
            assign b_cmd_valid[6] = 1'b0;
            assign b_cmd_addr[384 +: 64] = 64'd0;
            assign b_cmd_len[78 +: 13] = 13'd0;
            assign mr_base = 64'd0;
            assign mr_len = 32'd0;
            assign mr_ctrl = 64'd0;
            assign lq_ok = 1'b0;
            assign lq_base = 64'd0;
            assign lq_len = 32'd0;
            assign lq_ctrl = 64'd0;
            assign lr_ok = 1'b0;
            assign lr_base = 64'd0;
            assign lr_len = 32'd0;
            assign lr_ctrl = 64'd0;
        end
    endgenerate
    always @(posedge clk) begin
        mr_hit_q <= mr_hit;
        mr_rdata_q <= mr_rdata;
    end

    // ---- queue engine: receive path ---------------------------------------------
    rclink_rx #(.QP_AW(QP_AW), .UW(SCW), .NCTX(NCTX)) u_rx (
        .clk(clk), .rst(rst),
        .rq_base(rq_base), .rq_order(rq_cfg[3:0]), .rq_en(rq_cfg[8]),
        .rq_stop(rq_stop), .cq_en(cq_on), .rq_prod(rq_prod), .rq_cons(rq_cons),
        .cnt_malformed(cnt_rx_malformed), .cnt_nobuf(cnt_rx_nobuf),
        .t2_join(t2_join), .cq_free(cq_free), .cq_hold(cq_hold),
        .cnt_t2_pkts(cnt_t2_rx_pkts), .cnt_t2_nogroup(cnt_t2_nogroup),
        .cnt_t2_nobuf(cnt_t2_nobuf), .cnt_t2_malformed(cnt_t2_malformed),
        .cnt_t2_lost(cnt_t2_lost), .cnt_t2_old(cnt_t2_old),
        .t2_nobuf(t2_nobuf),
        .rx_vld(rx_m_vld), .rx_rdy(rx_m_rdy), .rx_fs(rx_m_fs), .rx_fe(rx_m_fe),
        .rx_dat(rx_m_dat), .rx_keep(rx_m_keep), .rx_qpid(rx_m_qpid),
        .rx_etype(rx_m_etype), .rx_len(rx_m_len), .rx_sa(rx_m_sa),
        .rx_psn(rx_m_psn), .rx_pqpid(rx_pqpid), .flow_stop(rx_flow_stop),
        .own_qp(rx_own_qp), .own_grp(rx_own_grp), .own_chg(own_chg),
        .own_chg_qpn(own_chg_qpn), .u_runs(u_runs), .u_flushing(r_flushing),
        .u_ctx(r_ctx), .u_busy(r_busy),
        .u_run(r_run), .u_rq_base(r_rq_base), .u_rq_order(r_rq_order),
        .u_rq_prod(r_rq_prod), .u_rq_cons(r_rq_cons), .u_room(r_room), .u_room_ok(r_room_ok),
        .u_area(r_area), .u_off(r_off), .u_bus(mr_pg ? pt_bus : r_bus),
        .u_cstart(mr_pg ? r_off[11:0] == 12'd0 : r_cstart), .u_bus_ok(!mr_pg || pt_ok),
        .u_take(r_take), .u_nobuf(r_nobuf), .u_fail(r_fail), .u_cause(r_cause),
        .u_info(r_info), .u_hold_us(r_hold_us), .us_tick(r_us_tick),
        .mr_idx(mr_idx), .mr_ok(mr_ok), .mr_base(mr_base), .mr_len(mr_len),
        .mr_ctrl(mr_ctrl), .mr_use(mr_use), .mr_pg(mr_pg), .mr_tidx(mr_tidx),
        .resp_silent(rdma_silent),
        .c_rx_write(rc_wr), .c_bad_key(rc_bkey), .c_access(rc_acc),
        .c_bounds(rc_bnd), .c_silent(rc_sil), .c_late(rc_late), .c_imm_drop(rc_imm),
        .wresp_valid(wresp_valid), .wresp_qpn(wresp_qpn), .wresp_tag(wresp_tag),
        .wresp_st(wresp_st), .wresp_hit(wresp_hit),
        .rresp_valid(rresp_valid), .rresp_off(rresp_off), .rresp_mlen(rresp_mlen),
        .rresp_dlen(rresp_dlen), .rresp_ends(rresp_ends), .rresp_hit(rresp_hit),
        .rresp_ok(rresp_ok), .rresp_base(rresp_base), .rresp_room(rresp_room),
        .rp_off(rp_off), .rresp_pg(rresp_pg), .rresp_idx(rresp_idx), .rresp_lk(rresp_lk),
        .rdone_valid(rdone_valid),
        .rr_busy(rr_busy), .rx_held(rx_held),
        .rsp_valid(rsp_valid), .rsp_take(rsp_take), .rsp_qpn(rsp_qpn),
        .rsp_kind(rsp_kind), .rsp_tag(rsp_tag), .rsp_status(rsp_status),
        .dp_valid(dp_valid), .dp_take(dp_take), .dp_qpn(dp_qpn), .dp_bytes(dp_bytes),
        .dp_raddr(dp_raddr), .dp_rdata(dp_rdata), .dp_done(dp_done),
        .c_rx_read(rc_rd),
        .wrst(wrst), .wr_idle(rx_wr_idle), .idle_want(rx_iw),
        .dma_cmd_valid(b_cmd_valid[2]), .dma_cmd_ready(b_cmd_ready[2]),
        .dma_cmd_write(b_cmd_write[2]), .dma_cmd_addr(b_cmd_addr[128 +: 64]),
        .dma_cmd_len(b_cmd_len[26 +: 13]),
        .dma_wd_valid(b_wd_valid[2]), .dma_wd_ready(b_wd_ready[2]),
        .dma_wd_data(b_wd_data[1024 +: 512]),
        .dma_rd_valid(b_rd_valid[2]), .dma_rd_data(b_rd_data), .dma_rd_err(b_rd_err),
        .cqe_valid(cqe_r_valid), .cqe_ready(cqe_r_ready),
        .cqe_w0(cqe_r_w0), .cqe_w1(cqe_r_w1), .cqe_w2(cqe_r_w2), .cqe_ctx(rcqe_ctx));

    // ---- completion queue ---------------------------------------------------------
    wire        cq_raise, cq_pending;
    wire [15:0] cq_vec;
    rclink_cq u_cq (
        .clk(clk), .rst(rst),
        .cq_base(cq_base), .cq_order(cq_cfg[3:0]), .cq_en(cq_cfg[8]),
        .cq_vector({12'd0, cq_cfg[`RCLINK_DMAQ_CQ_CFG_VECTOR_MSB:`RCLINK_DMAQ_CQ_CFG_VECTOR_LSB]}),
        .cq_stop(cq_stop), .cq_cons(cq_cons), .cq_prod(cq_prod),
        .cq_pending(cq_pending), .free(cq_free), .k_room(cq_kroom), .en(cq_on),
        .a_hold(cq_hold),
        .a_valid(cqe_s_valid && cqe_s_ctx == {SCW{1'b0}}), .a_ready(cqe_k_ready),
        .a_w0(cqe_s_w0), .a_w1(cqe_s_w1),
        .b_valid(cqe_r_valid && rcqe_ctx == {SCW{1'b0}}), .b_ready(cqe_rk_ready),
        .b_w0(cqe_r_w0), .b_w1(cqe_r_w1),
        .raise(cq_raise), .raise_vec(cq_vec),
        .wrst(wrst), .wr_idle(cq_wr_idle), .idle_want(cq_iw),
        .dma_cmd_valid(b_cmd_valid[1]), .dma_cmd_ready(b_cmd_ready[1]),
        .dma_cmd_addr(b_cmd_addr[64 +: 64]), .dma_cmd_len(b_cmd_len[13 +: 13]),
        .dma_wd_valid(b_wd_valid[1]), .dma_wd_ready(b_wd_ready[1]),
        .dma_wd_data(b_wd_data[512 +: 512]));
    assign b_cmd_write[1] = 1'b1;
    // the page tables are read only
    assign b_cmd_write[6] = 1'b0;
    assign b_wd_valid[6] = 1'b0;
    assign b_wd_data[3072 +: 512] = 512'd0;

    // ---- interrupts ---------------------------------------------------------------
    rclink_irq #(.NVEC(NVEC), .NSRC(4)) u_irq (
        .clk(clk), .rst(rst), .msix_en(cfg_msix_en), .msi_en(cfg_msi_en),
        .raise({t3irq_raise, cq_raise, test_irq && cfg_msix_en, evt_raise}),
        .raise_vec({t3irq_cfg[`RCLINK_SHIM_T3_IRQ_VECTOR_MSB:`RCLINK_SHIM_T3_IRQ_VECTOR_LSB],
                    cq_vec, test_irq_vec, evt_vec}),
        .intx_level(evt_pending || cq_pending),
        .msix_valid(msix_valid), .msix_vector(msix_vector),
        .msix_ready(msix_ready), .msi_valid(msi_valid), .msi_ready(msi_ready),
        .intx(intx));
endmodule
`default_nettype wire
