// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the SHIM and DMAQ windows of BAR0 (shim CSRs,
// self-test registers, event ring and queue engine registers).
//
// Offsets, reset values and the RW/RO/W1C/WO masks come from the
// generated register table (gen/rclink_regtab.vh), so reads return only
// defined bits and writes change only RW bits, as the contract says.
`default_nettype none
`include "rclink_regs.vh"
module rclink_csr #(
    parameter NVEC = `RCLINK_MSIX_VECTORS
) (
    input  wire        clk,
    input  wire        rst,
    // register bus from the BAR0 decoder (qword address, lane write mask)
    input  wire        wr,
    input  wire        rd,
    input  wire [15:0] addr,
    input  wire [63:0] wdata,
    input  wire [63:0] wmask,
    output reg  [63:0] rdata,
    // board inputs
    input  wire [63:0] board_serial,
    input  wire [47:0] board_mac,
    input  wire        carrier,
    // shim control
    output reg         soft_reset,         // SHIM_RESET: one cycle
    output reg         test_irq,           // SHIM_TEST_IRQ written
    output reg  [15:0] test_irq_vec,
    output reg         dmatest_start,
    output reg  [63:0] dmatest_ctrl,
    output reg  [63:0] dmatest_addr,
    input  wire [63:0] dmatest_status,
    // event ring
    output reg  [63:0] evt_base,
    output reg  [63:0] evt_ctrl,
    output reg         evt_en_set,
    output reg  [31:0] evt_cons,
    input  wire [31:0] evt_prod,
    input  wire [31:0] evt_drops,
    input  wire [31:0] reg_tmo_rc,         // SHIM_REG_TIMEOUT
    input  wire [31:0] reg_tmo_mac,
    output reg         evt_inj,
    output reg  [63:0] evt_inj_info,
    output reg         intr_inj,
    output reg  [63:0] intr_inj_val,
    output reg         link_up,
    output reg         link_chg,
    // queue engine
    output reg  [63:0] sq_base,
    output reg  [63:0] sq_cfg,
    output reg  [31:0] sq_prod,
    input  wire [31:0] sq_cons,
    output reg         sq_stop,
    output reg  [63:0] rq_base,
    output reg  [63:0] rq_cfg,
    output reg  [31:0] rq_prod,
    input  wire [31:0] rq_cons,
    output reg         rq_stop,
    output reg  [63:0] cq_base,
    output reg  [63:0] cq_cfg,
    input  wire [31:0] cq_prod,
    output reg  [31:0] cq_cons,
    output reg         cq_stop,
    input  wire [9:0]  ost_free,
    input  wire [63:0] cnt_bad_wqe,
    input  wire [63:0] cnt_tx_drop_qp_off,
    input  wire [63:0] cnt_rx_drop_malformed,
    input  wire [63:0] cnt_rx_drop_nobuf,
    // TYPE2
    output reg  [7:0]  t2_join,
    input  wire [63:0] cnt_t2_tx_pkts,
    input  wire [63:0] cnt_t2_tx_drop,
    input  wire [63:0] cnt_t2_rx_pkts,
    input  wire [63:0] cnt_t2_rx_drop_nogroup,
    input  wire [63:0] cnt_t2_rx_drop_nobuf,
    input  wire [63:0] cnt_t2_rx_drop_malformed,
    input  wire [63:0] cnt_t2_rx_lost,
    input  wire [63:0] cnt_t2_rx_drop_old,
    input  wire [9:0]  t2_ost_free,        // TYPE2 tokens held (rclink_sq)
    // the IP's status levels (registered here: DMAQ_DFX, DMAQ_T2_CRD)
    input  wire [1:0]  ip_idle,            // RCLINK_IDLE_O: [1] TX, [0] RX
    input  wire        ip_tx_wait_mac_crd, // TX_WAIT_MAC_CRD_O
    input  wire        ip_tx_mac_free,     // TX_MAC_FREE_O
    input  wire [15:0] ip_t2_crd,          // the multicast credit level
    input  wire [63:0] cnt_t3_dma_err,     // SHIM_T3_DMA_ERR
    input  wire [63:0] cnt_dma_bm_drop,    // SHIM_DMA_BM_DROP
    output reg  [31:0] t3_irq,             // SHIM_T3_IRQ {enable, vector}
    input  wire [31:0] t3_irq_cnt,         // SHIM_T3_IRQ.count
    // user contexts (rclink_ctx, NCTX > 1): its registers read from there
    input  wire        ctx_hit,
    input  wire [63:0] ctx_rdata,
    // the per-QP counters the shim counts (rclink_qpstat)
    output reg         stat_we,            // DMAQ_QP_STAT_SEL written
    output reg         stat_clear,         // ... with clear
    output wire [15:0] stat_sel,
    input  wire [63:0] qps_rx_pkts,
    input  wire [63:0] qps_rx_bytes,
    input  wire [63:0] qps_timeouts
);
`include "rclink_regtab.vh"

    localparam [63:0] SHIM_VERSION_VAL = `RCLINK_SHIM_VERSION_RSTVAL;
    localparam [63:0] CAP0 = `RCLINK_SHIM_CAP0_RSTVAL;
    localparam [63:0] CAP1 = `RCLINK_SHIM_CAP1_RSTVAL;
    localparam [63:0] CAP2 = `RCLINK_SHIM_CAP2_RSTVAL;
    // ip_counters 0: this shim sits beside the real IP and sees only its
    // ports, so the ip_internal counters (DMAQ_QPS_TX_PKTS, the IP's
    // receive drops, ...: shim.rst, "What a shim can count") read 0 and
    // mean "not counted"
    localparam [63:0] CAP3 = (`RCLINK_SHIM_CAP3_RSTVAL &
        ~(64'hff << `RCLINK_SHIM_CAP3_NUM_VECTORS_LSB) &
        ~(64'd1 << `RCLINK_SHIM_CAP3_IP_COUNTERS_LSB)) |
        (NVEC << `RCLINK_SHIM_CAP3_NUM_VECTORS_LSB);
    localparam [7:0] EVT_MAX_ORDER =
        CAP3[`RCLINK_SHIM_CAP3_EVT_RING_MAX_ORDER_MSB:`RCLINK_SHIM_CAP3_EVT_RING_MAX_ORDER_LSB];
    localparam [63:0] DMAQ_CAP_VAL = `RCLINK_DMAQ_CAP_RSTVAL;
    localparam [3:0] Q_MAX_ORDER =
        DMAQ_CAP_VAL[`RCLINK_DMAQ_CAP_MAX_ORDER_MSB:`RCLINK_DMAQ_CAP_MAX_ORDER_LSB];

    localparam [63:0] DFX_RST = `RCLINK_DMAQ_DFX_RSTVAL;
    localparam [63:0] T2_CRD_RST = `RCLINK_DMAQ_T2_CRD_RSTVAL;

    reg [63:0] scratch, echo, link_reg, inj_lo;
    // SHIM_CBFC_VC_CFG, _CTRL, _TIMING, _STATUS and the MAC side's
    // counters are rclink_mac's (ctx_hit)
    reg [15:0] stat_qpn;
    assign stat_sel = stat_qpn;
    // Without user contexts (NCTX 1: DMAQ_CTX_CAP.num 1, shim.rst
    // "Contexts") the two selectors are plain registers, every selected
    // register and owner entry reads 0 (selector 0 selects nothing, no
    // context >= 1 exists); with them rclink_ctx answers (ctx_hit)
    reg [15:0] ctx_sel, owner_sel;
    reg        settled;             // the first cycle after reset is quiet
    // DMAQ_DFX {tx_mac_free, tx_wait_mac_crd, tx_idle, rx_idle}: the IP's
    // levels, a cycle late
    reg [3:0]  dfx;
    reg [15:0] t2_crd;              // DMAQ_T2_CRD

    // ---- reads ----------------------------------------------------------
    reg [63:0] rv;
    always @* begin
        case (addr)
        `RCLINK_SHIM_ID:              rv = {32'd0, `RCLINK_MAGIC};
        `RCLINK_SHIM_VERSION:         rv = SHIM_VERSION_VAL;
        `RCLINK_SHIM_CAP0:            rv = CAP0;
        `RCLINK_SHIM_CAP1:            rv = CAP1;
        `RCLINK_SHIM_CAP2:            rv = CAP2;
        `RCLINK_SHIM_CAP3:            rv = CAP3;
        `RCLINK_SHIM_SERIAL:          rv = board_serial;
        `RCLINK_SHIM_SCRATCH:         rv = scratch;
        `RCLINK_SHIM_TEST_ECHO:       rv = ~echo;
        `RCLINK_SHIM_TEST_DMA_ADDR:   rv = dmatest_addr;
        `RCLINK_SHIM_TEST_DMA_CTRL:   rv = dmatest_ctrl;
        `RCLINK_SHIM_TEST_DMA_STATUS: rv = dmatest_status;
        `RCLINK_SHIM_EVT_BASE:        rv = evt_base;
        `RCLINK_SHIM_EVT_CTRL:        rv = evt_ctrl;
        `RCLINK_SHIM_EVT_PROD:        rv = {32'd0, evt_prod};
        `RCLINK_SHIM_EVT_CONS:        rv = {32'd0, evt_cons};
        `RCLINK_SHIM_EVT_DROPS:       rv = {32'd0, evt_drops};
        `RCLINK_SHIM_REG_TIMEOUT:     rv = {reg_tmo_mac, reg_tmo_rc};
        `RCLINK_SHIM_LINK:            rv = link_reg | {63'd0, link_up};
        `RCLINK_SHIM_MAC:             rv = {16'd0, board_mac};
        `RCLINK_SHIM_T3_DMA_ERR:      rv = cnt_t3_dma_err;
        `RCLINK_SHIM_DMA_BM_DROP:     rv = cnt_dma_bm_drop;
        `RCLINK_DMAQ_CAP:             rv = DMAQ_CAP_VAL;
        `RCLINK_DMAQ_SQ_BASE:         rv = sq_base;
        `RCLINK_DMAQ_SQ_CFG:          rv = sq_cfg;
        `RCLINK_DMAQ_SQ_PROD:         rv = {32'd0, sq_prod};
        `RCLINK_DMAQ_SQ_CONS:         rv = {32'd0, sq_cons};
        `RCLINK_DMAQ_RQ_BASE:         rv = rq_base;
        `RCLINK_DMAQ_RQ_CFG:          rv = rq_cfg;
        `RCLINK_DMAQ_RQ_PROD:         rv = {32'd0, rq_prod};
        `RCLINK_DMAQ_RQ_CONS:         rv = {32'd0, rq_cons};
        `RCLINK_DMAQ_CQ_BASE:         rv = cq_base;
        `RCLINK_DMAQ_CQ_CFG:          rv = cq_cfg;
        `RCLINK_DMAQ_CQ_PROD:         rv = {32'd0, cq_prod};
        `RCLINK_DMAQ_CQ_CONS:         rv = {32'd0, cq_cons};
        `RCLINK_DMAQ_T1_OST_FREE:     rv = {54'd0, ost_free};
        `RCLINK_DMAQ_QP_STAT_SEL:     rv = {48'd0, stat_qpn};
        `RCLINK_DMAQ_QPS_RX_PKTS:     rv = qps_rx_pkts;
        `RCLINK_DMAQ_QPS_RX_BYTES:    rv = qps_rx_bytes;
        `RCLINK_DMAQ_QPS_TIMEOUTS:    rv = qps_timeouts;
        `RCLINK_DMAQ_CTX_CAP:         rv = `RCLINK_DMAQ_CTX_CAP_RSTVAL;
        // (without user contexts nothing waits: the hold reads its reset value)
        `RCLINK_DMAQ_CTX_RX_HOLD:     rv = `RCLINK_DMAQ_CTX_RX_HOLD_RSTVAL;
        `RCLINK_DMAQ_CTX_SEL:         rv = {48'd0, ctx_sel};
        `RCLINK_DMAQ_QP_OWNER_SEL:    rv = {48'd0, owner_sel};
        `RCLINK_DMAQ_BAD_WQE:         rv = cnt_bad_wqe;
        `RCLINK_DMAQ_T1_TX_DROP_QP_OFF: rv = cnt_tx_drop_qp_off;
        `RCLINK_DMAQ_T1_RX_DROP_MALFORMED: rv = cnt_rx_drop_malformed;
        `RCLINK_DMAQ_T1_RX_DROP_NOBUF: rv = cnt_rx_drop_nobuf;
        `RCLINK_DMAQ_T2_JOIN:         rv = {56'd0, t2_join};
        `RCLINK_DMAQ_T2_TX_PKTS:      rv = cnt_t2_tx_pkts;
        `RCLINK_DMAQ_T2_TX_DROP:      rv = cnt_t2_tx_drop;
        `RCLINK_DMAQ_T2_RX_PKTS:      rv = cnt_t2_rx_pkts;
        `RCLINK_DMAQ_T2_RX_DROP_NOGROUP: rv = cnt_t2_rx_drop_nogroup;
        `RCLINK_DMAQ_T2_RX_DROP_NOBUF: rv = cnt_t2_rx_drop_nobuf;
        `RCLINK_DMAQ_T2_RX_DROP_MALFORMED: rv = cnt_t2_rx_drop_malformed;
        `RCLINK_DMAQ_T2_RX_LOST:      rv = cnt_t2_rx_lost;
        `RCLINK_DMAQ_T2_RX_DROP_OLD:  rv = cnt_t2_rx_drop_old;
        `RCLINK_DMAQ_DFX:             rv = {60'd0, dfx};
        `RCLINK_DMAQ_T2_OST_FREE:     rv = {54'd0, t2_ost_free};
        `RCLINK_DMAQ_T2_CRD:          rv = {48'd0, t2_crd};
        `RCLINK_SHIM_T3_IRQ:          rv = {t3_irq_cnt, t3_irq};
        default:                      rv = 64'd0;
        endcase
    end
    // the read data a cycle after the address (rv_q, rmask_q), as
    // rclink_ctx's and rclink_mr's (ctx_hit, ctx_rdata): BAR0 puts the
    // address out a cycle before its strobe (rclink_bar0)
    reg [63:0] rv_q, rmask_q;
    always @(posedge clk) begin
        rv_q <= rv;
        rmask_q <= rclink_reg_rwmask(addr) | rclink_reg_romask(addr) |
                   rclink_reg_w1cmask(addr);
    end
    always @*
        rdata = (ctx_hit ? ctx_rdata : rv_q) & rmask_q;

    // ---- writes ---------------------------------------------------------
    wire [63:0] n_evt_ctrl = rclink_reg_wmerge(`RCLINK_SHIM_EVT_CTRL, evt_ctrl, wdata, wmask);
    wire [4:0]  n_evt_order = n_evt_ctrl[`RCLINK_SHIM_EVT_CTRL_ORDER_MSB:`RCLINK_SHIM_EVT_CTRL_ORDER_LSB];
    wire        n_evt_bad = n_evt_ctrl[0] && (n_evt_order < 5'd4 || {3'd0, n_evt_order} > EVT_MAX_ORDER);
    wire        n_link_up = carrier && !link_reg[`RCLINK_SHIM_LINK_FORCE_DOWN_LSB];

    // queue configuration: enable with a bad order or base stays off; the
    // order cannot change while enabled; disabling stops the queue
    function [64:0] qcfg;              // {stop, new cfg}
        input [15:0] a;
        input [63:0] old;
        input [63:0] base;
        input [63:0] d;
        input [63:0] m;
        reg   [63:0] n;
        begin
            n = rclink_reg_wmerge(a, old, d, m);
            qcfg = {1'b0, n};
            if (n[8] && !old[8]) begin
                if (n[3:0] < 4'd4 || n[3:0] > Q_MAX_ORDER || base[11:0] != 12'd0)
                    qcfg = {1'b0, n & ~64'h100};
            end else if (n[8] && n[3:0] != old[3:0]) begin
                qcfg = {1'b0, n[63:4], old[3:0]};
            end else if (!n[8] && old[8]) begin
                qcfg = {1'b1, n};
            end
        end
    endfunction

    wire [64:0] n_sq = qcfg(`RCLINK_DMAQ_SQ_CFG, sq_cfg, sq_base, wdata, wmask);
    wire [64:0] n_rq = qcfg(`RCLINK_DMAQ_RQ_CFG, rq_cfg, rq_base, wdata, wmask);
    wire [64:0] n_cq = qcfg(`RCLINK_DMAQ_CQ_CFG, cq_cfg, cq_base, wdata, wmask);
    wire [31:0] sq_size = sq_cfg[8] ? (32'd1 << sq_cfg[3:0]) : 32'd0;
    wire [31:0] rq_size = rq_cfg[8] ? (32'd1 << rq_cfg[3:0]) : 32'd0;
    wire [63:0] n_sq_prod64 = rclink_reg_wmerge(`RCLINK_DMAQ_SQ_PROD, {32'd0, sq_prod}, wdata, wmask);
    wire [63:0] n_rq_prod64 = rclink_reg_wmerge(`RCLINK_DMAQ_RQ_PROD, {32'd0, rq_prod}, wdata, wmask);
    wire [63:0] n_cq_cons64 = rclink_reg_wmerge(`RCLINK_DMAQ_CQ_CONS, {32'd0, cq_cons}, wdata, wmask);
    wire [63:0] n_evt_cons64 = rclink_reg_wmerge(`RCLINK_SHIM_EVT_CONS, {32'd0, evt_cons}, wdata, wmask);
    wire [63:0] n_stat_sel64 = rclink_reg_wmerge(`RCLINK_DMAQ_QP_STAT_SEL, {48'd0, stat_qpn}, wdata, wmask);
    wire [63:0] n_ctx_sel64 = rclink_reg_wmerge(`RCLINK_DMAQ_CTX_SEL, {48'd0, ctx_sel}, wdata, wmask);
    wire [63:0] n_owner_sel64 = rclink_reg_wmerge(`RCLINK_DMAQ_QP_OWNER_SEL, {48'd0, owner_sel}, wdata, wmask);
    wire [63:0] n_t2_join64 = rclink_reg_wmerge(`RCLINK_DMAQ_T2_JOIN, {56'd0, t2_join}, wdata, wmask);
    wire [63:0] n_t3_irq64 = rclink_reg_wmerge(`RCLINK_SHIM_T3_IRQ, {32'd0, t3_irq}, wdata, wmask);
    wire [31:0] n_sq_prod = n_sq_prod64[31:0];
    wire [31:0] n_rq_prod = n_rq_prod64[31:0];
    wire [31:0] n_cq_cons = n_cq_cons64[31:0];

    always @(posedge clk) begin
        if (rst) begin
            soft_reset <= 1'b0;
            test_irq <= 1'b0;
            test_irq_vec <= 16'd0;
            dmatest_start <= 1'b0;
            dmatest_ctrl <= `RCLINK_SHIM_TEST_DMA_CTRL_RSTVAL;
            dmatest_addr <= `RCLINK_SHIM_TEST_DMA_ADDR_RSTVAL;
            evt_base <= `RCLINK_SHIM_EVT_BASE_RSTVAL;
            evt_ctrl <= `RCLINK_SHIM_EVT_CTRL_RSTVAL;
            t3_irq <= 32'd0;
            evt_en_set <= 1'b0;
            evt_cons <= 32'd0;
            evt_inj <= 1'b0;
            evt_inj_info <= 64'd0;
            intr_inj <= 1'b0;
            intr_inj_val <= 64'd0;
            link_up <= 1'b0;
            link_chg <= 1'b0;
            scratch <= `RCLINK_SHIM_SCRATCH_RSTVAL;
            echo <= ~`RCLINK_SHIM_TEST_ECHO_RSTVAL;
            link_reg <= `RCLINK_SHIM_LINK_RSTVAL;
            inj_lo <= 64'd0;
            stat_qpn <= 16'd0;
            stat_we <= 1'b0;
            stat_clear <= 1'b0;
            ctx_sel <= 16'd0;
            owner_sel <= 16'd0;
            t2_join <= 8'd0;
            settled <= 1'b0;
            dfx <= DFX_RST[3:0];
            t2_crd <= T2_CRD_RST[15:0];
            sq_base <= 64'd0;
            sq_cfg <= `RCLINK_DMAQ_SQ_CFG_RSTVAL;
            sq_prod <= 32'd0;
            sq_stop <= 1'b0;
            rq_base <= 64'd0;
            rq_cfg <= `RCLINK_DMAQ_RQ_CFG_RSTVAL;
            rq_prod <= 32'd0;
            rq_stop <= 1'b0;
            cq_base <= 64'd0;
            cq_cfg <= `RCLINK_DMAQ_CQ_CFG_RSTVAL;
            cq_cons <= 32'd0;
            cq_stop <= 1'b0;
        end else begin
            soft_reset <= 1'b0;
            test_irq <= 1'b0;
            dmatest_start <= 1'b0;
            stat_we <= 1'b0;
            stat_clear <= 1'b0;
            evt_en_set <= 1'b0;
            evt_inj <= 1'b0;
            intr_inj <= 1'b0;
            sq_stop <= 1'b0;
            rq_stop <= 1'b0;
            cq_stop <= 1'b0;
            // SHIM_LINK.up: a change makes a LINK record (not the first
            // value after reset)
            link_chg <= 1'b0;
            settled <= 1'b1;
            dfx <= {ip_tx_mac_free, ip_tx_wait_mac_crd, ip_idle};
            t2_crd <= ip_t2_crd;
            if (n_link_up != link_up) begin
                link_up <= n_link_up;
                link_chg <= settled;
            end
            if (sq_stop) sq_prod <= 32'd0;
            if (rq_stop) rq_prod <= 32'd0;
            if (cq_stop) cq_cons <= 32'd0;
            if (wr) begin
                case (addr)
                `RCLINK_SHIM_SCRATCH:
                    scratch <= rclink_reg_wmerge(addr, scratch, wdata, wmask);
                `RCLINK_SHIM_T3_IRQ:
                    t3_irq <= n_t3_irq64[31:0];
                `RCLINK_SHIM_TEST_ECHO:
                    echo <= rclink_reg_wmerge(addr, echo, wdata, wmask);
                `RCLINK_SHIM_TEST_IRQ: begin
                    if (wmask[15:0] != 16'd0) begin
                        test_irq <= 1'b1;
                        test_irq_vec <= wdata[15:0];
                    end
                end
                `RCLINK_SHIM_TEST_DMA_ADDR:
                    dmatest_addr <= rclink_reg_wmerge(addr, dmatest_addr, wdata, wmask);
                `RCLINK_SHIM_TEST_DMA_CTRL: begin
                    dmatest_ctrl <= rclink_reg_wmerge(addr, dmatest_ctrl, wdata, wmask);
                    if (wmask[25:24] != 2'd0 && wdata[25:24] != 2'd0)
                        dmatest_start <= 1'b1;
                end
                `RCLINK_SHIM_RESET:
                    if (wmask[0] && wdata[0])
                        soft_reset <= 1'b1;
                `RCLINK_SHIM_EVT_BASE:
                    evt_base <= rclink_reg_wmerge(addr, evt_base, wdata, wmask);
                `RCLINK_SHIM_EVT_CTRL: begin
                    evt_ctrl <= n_evt_bad ? (n_evt_ctrl & ~64'd1) : n_evt_ctrl;
                    if (!evt_ctrl[0] && n_evt_ctrl[0] && !n_evt_bad)
                        evt_en_set <= 1'b1;
                end
                `RCLINK_SHIM_EVT_CONS:
                    evt_cons <= n_evt_cons64[31:0];
                `RCLINK_SHIM_EVT_INJECT: begin
                    // 64 bits, or two 32-bit writes with the low half first
                    if (wmask == 64'h00000000ffffffff) begin
                        inj_lo <= {32'd0, wdata[31:0]};
                    end else begin
                        evt_inj <= 1'b1;
                        evt_inj_info <= (wmask == 64'hffffffffffffffff) ?
                                        wdata : (wdata | inj_lo);
                    end
                end
                `RCLINK_SHIM_INTR_INJECT: begin
                    intr_inj <= 1'b1;
                    intr_inj_val <= wdata & wmask;
                end
                `RCLINK_SHIM_LINK:
                    link_reg <= rclink_reg_wmerge(addr, link_reg, wdata, wmask);
                `RCLINK_DMAQ_SQ_BASE:
                    if (!sq_cfg[8]) sq_base <= rclink_reg_wmerge(addr, sq_base, wdata, wmask);
                `RCLINK_DMAQ_RQ_BASE:
                    if (!rq_cfg[8]) rq_base <= rclink_reg_wmerge(addr, rq_base, wdata, wmask);
                `RCLINK_DMAQ_CQ_BASE:
                    if (!cq_cfg[8]) cq_base <= rclink_reg_wmerge(addr, cq_base, wdata, wmask);
                `RCLINK_DMAQ_SQ_CFG: begin
                    sq_cfg <= n_sq[63:0];
                    sq_stop <= n_sq[64];
                end
                `RCLINK_DMAQ_RQ_CFG: begin
                    rq_cfg <= n_rq[63:0];
                    rq_stop <= n_rq[64];
                end
                `RCLINK_DMAQ_CQ_CFG: begin
                    cq_cfg <= n_cq[63:0];
                    cq_stop <= n_cq[64];
                end
                `RCLINK_DMAQ_SQ_PROD:
                    if (sq_size == 32'd0 || n_sq_prod - sq_cons <= sq_size)
                        sq_prod <= n_sq_prod;
                `RCLINK_DMAQ_RQ_PROD:
                    if (rq_size == 32'd0 || n_rq_prod - rq_cons <= rq_size)
                        rq_prod <= n_rq_prod;
                `RCLINK_DMAQ_CQ_CONS:
                    if (n_cq_cons - cq_cons <= cq_prod - cq_cons)
                        cq_cons <= n_cq_cons;
                `RCLINK_DMAQ_QP_STAT_SEL: begin
                    stat_qpn <= n_stat_sel64[15:0];
                    stat_we <= 1'b1;
                    stat_clear <= wdata[`RCLINK_DMAQ_QP_STAT_SEL_CLEAR_LSB] &&
                                  wmask[`RCLINK_DMAQ_QP_STAT_SEL_CLEAR_LSB];
                end
                `RCLINK_DMAQ_CTX_SEL:
                    ctx_sel <= n_ctx_sel64[15:0];
                `RCLINK_DMAQ_QP_OWNER_SEL:
                    owner_sel <= n_owner_sel64[15:0];
                `RCLINK_DMAQ_T2_JOIN:
                    t2_join <= n_t2_join64[7:0];
                default: ;
                endcase
            end
        end
    end
endmodule
`default_nettype wire
