// SPDX-License-Identifier: GPL-2.0 OR MIT
// Behavioural stand-in for the RCLINK-Stream IP in the shim testbench
// (not synthesizable, not a model of the transport): the AXI4-Lite
// register file with the contract's reset values and RW/RO/W1C masks
// (per-QP registers for QPs 0..NQP-1 behind QP_ID_SET), RC_INTR_O =
// INTR_STATUS, IRQ pulses on request, and TX_S with TX_S_CRD_O tokens:
// every packet is captured; a packet of a QP with qp_en returns its
// credit with TX_S_CRD_QPID_VLD_O after a while (the peer acknowledged
// it; "hold" keeps those credits until "release"), a packet of a
// disabled QP is dropped at once: IRQ_INFO TYPE1 code 4, INTR_STATUS
// t1_tx_qp_disabled, its credit without QPID.  A TYPE2 packet
// (TX_S_ETYPE_I 3, its group on TX_S_TYPE2_GROUP_INDEX_I) is captured too
// and returns its token on TX_S_CRD_O[3] after a while ("hold2" keeps
// those until "release2").  The status levels: RCLINK_IDLE_O TX idle
// while it holds no packet (no credit or TYPE2 token to return, no TX_S
// packet half taken), RX always idle (the testbench drives RX_M itself,
// after a look at the shim's FLOW_STOP as the IP's: rnr_en below);
// TX_MAC_FREE_O 1, TX_WAIT_MAC_CRD_O 0 and the multicast credit level
// 2048 (TYPE2_CRD_RST_NUM) after reset, which the testbench may change
// (mac_free, wait_crd, t2_crd).  SET_TYPE2_RATE_*: the last rate and the
// number of updates (t2_rate, t2_rate_n).
// TYPE3: the registers of the MD rings as the IP keeps them (a soft
// reset, NONR_DMA_CTRL *_reset 1 -> 0, zeroes head and tail and pulses
// t3_srst; *_MDQ_BA/SIZE writes while the path is out of reset are
// ignored); the ring engine itself is tb/rclink_t3_model.v, which reads
// the registers on t3_* and gives its results with t3_set: new tails,
// DMA_INTR_ST0/ST1 bits (an ST1 bit sets ST0.abnormal; newly set bits
// raise IRQ_INFO TYPE3 code 1 with both tails) and ST0 bits latched
// without an interrupt (tx_md_empty).  Without the engine (t3_set low)
// nothing of this moves.
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_ip_model #(
    parameter NQP = 8,
    parameter QP_AW = 10,
    parameter MAXPKT = 256
) (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        awvalid,
    output reg         awready,
    input  wire [13:0] awaddr,
    input  wire        wvalid,
    output reg         wready,
    input  wire [63:0] wdata,
    input  wire [7:0]  wstrb,
    output reg         bvalid,
    input  wire        bready,
    output wire [1:0]  bresp,
    input  wire        arvalid,
    output reg         arready,
    input  wire [13:0] araddr,
    output reg         rvalid,
    input  wire        rready,
    output reg  [63:0] rdata,
    output wire [1:0]  rresp,
    output reg         irq_vld,
    output reg  [63:0] irq_info,
    output wire [15:0] rc_intr,
    input  wire        tx_vld,
    input  wire        tx_fs,
    input  wire        tx_fe,
    input  wire [511:0] tx_dat,           // TX_S: 512-bit, first byte in [511:504]
    input  wire [63:0] tx_keep,
    input  wire [QP_AW-1:0] tx_qpid,
    input  wire        tx_fack,
    input  wire [1:0]  tx_etype,
    input  wire [2:0]  tx_group,
    output reg  [3:0]  crd,
    output reg  [QP_AW-1:0] crd_qpid,
    output reg         crd_qpid_vld,
    output wire [1:0]  idle,             // RCLINK_IDLE_O
    output wire        wait_mac_crd,     // TX_WAIT_MAC_CRD_O
    output wire        mac_free_o,       // TX_MAC_FREE_O
    output wire [15:0] t2_crd_o,         // the multicast credit level
    input  wire        t2_rate_vld,      // SET_TYPE2_RATE_VLD_I
    input  wire [21:0] t2_rate_dat,      // SET_TYPE2_RATE_DAT_I
    // TYPE3 ring engine (tb/rclink_t3_model.v)
    output wire [63:0] t3_ctrl,          // NONR_DMA_CTRL
    output wire [63:0] t3_tx_head,       // TX_MD_HEAD_PTR
    output wire [63:0] t3_rx_head,       // RX_MD_HEAD_PTR
    output wire [63:0] t3_tx_tail,       // TX_MD_TAIL_PTR
    output wire [63:0] t3_rx_tail,       // RX_MD_TAIL_PTR
    output wire [63:0] t3_tx_ba,         // TX_MDQ_BA
    output wire [63:0] t3_rx_ba,         // RX_MDQ_BA
    output wire [63:0] t3_tx_size,       // TX_MDQ_SIZE
    output wire [63:0] t3_rx_size,       // RX_MDQ_SIZE
    output wire [63:0] t3_tail_up_cfg,   // TAIL_UP_CFG
    output wire [63:0] t3_int_mask,      // DMA_INT_MASK
    output reg  [1:0]  t3_srst,          // soft reset: [0] TX, [1] RX
    input  wire        t3_set,           // the engine's results, one cycle
    input  wire [1:0]  t3_set_tail,      // [0] TX, [1] RX tail given
    input  wire [11:0] t3_new_tx_tail,
    input  wire [11:0] t3_new_rx_tail,
    input  wire [4:0]  t3_st0,           // DMA_INTR_ST0 bits raised
    input  wire [10:0] t3_st1,           // DMA_INTR_ST1 bits raised
    input  wire [4:0]  t3_st0_latch      // DMA_INTR_ST0 bits latched only
);
`include "rclink_regtab.vh"

    reg [63:0] regs [0:2047];
    reg [63:0] qregs [0:NQP*32-1];
    integer i;

    assign bresp = 2'd0;
    assign rresp = 2'd0;
    assign rc_intr = regs[`RCLINK_INTR_STATUS >> 3][15:0];
    assign t3_ctrl = regs[`RCLINK_NONR_DMA_CTRL >> 3];
    assign t3_tx_head = regs[`RCLINK_TX_MD_HEAD_PTR >> 3];
    assign t3_rx_head = regs[`RCLINK_RX_MD_HEAD_PTR >> 3];
    assign t3_tx_tail = regs[`RCLINK_TX_MD_TAIL_PTR >> 3];
    assign t3_rx_tail = regs[`RCLINK_RX_MD_TAIL_PTR >> 3];
    assign t3_tx_ba = regs[`RCLINK_TX_MDQ_BA >> 3];
    assign t3_rx_ba = regs[`RCLINK_RX_MDQ_BA >> 3];
    assign t3_tx_size = regs[`RCLINK_TX_MDQ_SIZE >> 3];
    assign t3_rx_size = regs[`RCLINK_RX_MDQ_SIZE >> 3];
    // FLOW_STOP (TYPE1_FLOW_STOP_I, the shim's level per bank): the
    // benches look at it before they put a TYPE1 request on RX_M, as the
    // IP does before it takes one.  A bank whose FLOW_STOP reaches the IP
    // (XON_THR_RDMA.flow_stop_en) and may answer it
    // (AFH_CFG_EN.type1_flow_stop_send_rnr_en) answers RNR (fs_rnr
    // counts them); otherwise the request is dropped (fs_drops).
    wire [3:0] rnr_en =
        regs[`RCLINK_XON_THR_RDMA >> 3][`RCLINK_XON_THR_RDMA_FLOW_STOP_EN_MSB:`RCLINK_XON_THR_RDMA_FLOW_STOP_EN_LSB] &
        regs[`RCLINK_AFH_CFG_EN >> 3][`RCLINK_AFH_CFG_EN_TYPE1_FLOW_STOP_SEND_RNR_EN_MSB:`RCLINK_AFH_CFG_EN_TYPE1_FLOW_STOP_SEND_RNR_EN_LSB];
    integer    fs_rnr = 0;       // TYPE1 requests answered RNR under FLOW_STOP
    integer    fs_drops = 0;     // ... dropped under FLOW_STOP (no RNR)
    assign t3_tail_up_cfg = regs[`RCLINK_TAIL_UP_CFG >> 3];
    assign t3_int_mask = regs[`RCLINK_DMA_INT_MASK >> 3];

    // ---- register file -----------------------------------------------------
    function [63:0] lanes;
        input [7:0] s;
        integer b;
        begin
            for (b = 0; b < 8; b = b + 1)
                lanes[8*b +: 8] = {8{s[b]}};
        end
    endfunction

    wire [63:0] qp_sel = regs[`RCLINK_QP_ID_SET >> 3];

    task reg_write(input [15:0] a, input [63:0] d, input [7:0] s);
        reg [63:0] old, rw, n;
        reg [2:0] kind;
        begin
            kind = rclink_reg_kind(a);
            if (kind[0]) begin
                if (kind[2]) begin
                    old = (qp_sel < NQP) ? qregs[qp_sel * 32 + ((a - 16'h2000) >> 3)] : 64'd0;
                end else begin
                    old = regs[a >> 3];
                end
                rw = rclink_reg_rwmask(a) & lanes(s);
                n = (old & ~rw) | (d & rw);
                n = n & ~(d & rclink_reg_w1cmask(a) & lanes(s));
                if (a == `RCLINK_QP_CONTROL_STATUS)
                    n[`RCLINK_QP_CONTROL_STATUS_FREE_BUF_SET_LSB] = 1'b0;
                // TYPE3: the rings' base and size are static while their
                // path is out of reset; entering reset zeroes head and tail
                if (((a == `RCLINK_TX_MDQ_BA || a == `RCLINK_TX_MDQ_SIZE) &&
                     t3_ctrl[`RCLINK_NONR_DMA_CTRL_TX_RESET_LSB]) ||
                    ((a == `RCLINK_RX_MDQ_BA || a == `RCLINK_RX_MDQ_SIZE) &&
                     t3_ctrl[`RCLINK_NONR_DMA_CTRL_RX_RESET_LSB]))
                    n = old;
                if (a == `RCLINK_NONR_DMA_CTRL) begin
                    if (old[`RCLINK_NONR_DMA_CTRL_TX_RESET_LSB] &&
                        !n[`RCLINK_NONR_DMA_CTRL_TX_RESET_LSB]) begin
                        regs[`RCLINK_TX_MD_HEAD_PTR >> 3] = 64'd0;
                        regs[`RCLINK_TX_MD_TAIL_PTR >> 3] = 64'd0;
                        t3_srst[0] <= 1'b1;
                    end
                    if (old[`RCLINK_NONR_DMA_CTRL_RX_RESET_LSB] &&
                        !n[`RCLINK_NONR_DMA_CTRL_RX_RESET_LSB]) begin
                        regs[`RCLINK_RX_MD_HEAD_PTR >> 3] = 64'd0;
                        regs[`RCLINK_RX_MD_TAIL_PTR >> 3] = 64'd0;
                        t3_srst[1] <= 1'b1;
                    end
                end
                if (kind[2]) begin
                    if (qp_sel < NQP)
                        qregs[qp_sel * 32 + ((a - 16'h2000) >> 3)] = n;
                end else begin
                    regs[a >> 3] = n;
                end
            end
        end
    endtask

    function [63:0] reg_read(input [15:0] a);
        reg [2:0] kind;
        reg [63:0] v;
        begin
            kind = rclink_reg_kind(a);
            v = 64'd0;
            if (kind[0]) begin
                if (kind[2])
                    v = (qp_sel < NQP) ? qregs[qp_sel * 32 + ((a - 16'h2000) >> 3)] : 64'd0;
                else
                    v = regs[a >> 3];
            end
            reg_read = v & (rclink_reg_rwmask(a) | rclink_reg_romask(a) |
                            rclink_reg_w1cmask(a));
        end
    endfunction

    function qp_enabled(input [QP_AW-1:0] q);
        begin
            qp_enabled = (q < NQP) ?
                qregs[q * 32 + ((`RCLINK_QP_CONTROL_STATUS - 16'h2000) >> 3)][0] : 1'b0;
        end
    endfunction

    // ---- TX_S capture and credits ----------------------------------------------
    reg [7:0]  pkt [0:MAXPKT*2048-1];
    integer    pkt_len [0:MAXPKT-1];
    reg [QP_AW-1:0] pkt_qpid [0:MAXPKT-1];
    reg        pkt_fack [0:MAXPKT-1];
    reg        pkt_fs_err [0:MAXPKT-1];
    reg [1:0]  pkt_etype [0:MAXPKT-1];
    reg [2:0]  pkt_group [0:MAXPKT-1];
    integer    npkts;            // packets captured
    integer    runts;            // TX_S packets below the IP's 64-byte minimum
    integer    cur;              // bytes of the packet being captured
    reg        in_pkt;

    // credits waiting: time, qpid, with qpid
    integer    c_time [0:1023];
    reg [QP_AW-1:0] c_qp [0:1023];
    reg        c_ok [0:1023];
    integer    c_wr, c_rd;
    integer    now;
    reg        hold;             // acknowledged credits wait for release
    integer    held;             // credits released so far while holding
    reg        drop_irq;
    // TYPE2 tokens waiting: time
    integer    t2_time [0:1023];
    integer    t2_wr, t2_rd;
    reg        hold2;            // TYPE2 tokens wait for release2
    reg [QP_AW-1:0] drop_qp;
    // status levels
    reg        tx_idle;
    reg        mac_free;
    reg        wait_crd;
    reg [15:0] t2_crd;
    reg [21:0] t2_rate;
    integer    t2_rate_n;
    reg        t3_irq;           // an IRQ_INFO TYPE3 waits for IRQ_VLD_O
    reg [63:0] st_old;

    assign idle = {tx_idle, 1'b1};
    assign wait_mac_crd = wait_crd;
    assign mac_free_o = mac_free;
    assign t2_crd_o = t2_crd;

    task set_status(input [15:0] a, input [63:0] bits);
        begin
            regs[a >> 3] = regs[a >> 3] | bits;
        end
    endtask

    initial begin
        npkts = 0;
        runts = 0;
        hold = 1'b0;
        held = 0;
        hold2 = 1'b0;
        tx_idle = 1'b1;
        mac_free = 1'b1;
        wait_crd = 1'b0;
        t2_crd = `RCLINK_PARAM_TYPE2_CRD_RST_NUM;
        t2_rate = 22'd0;
        t2_rate_n = 0;
    end

    always @(posedge clk)
        if (t2_rate_vld) begin
            t2_rate = t2_rate_dat;
            t2_rate_n = t2_rate_n + 1;
        end

    // the register arrays are set on the first cycle of a reset only (the
    // shim holds the reset for IP_RST_CYCLES: once is enough, and fast)
    reg in_rst = 1'b0;
    always @(posedge clk) begin
        if (!rst_n) begin
            if (!in_rst) begin
                for (i = 0; i < 2048; i = i + 1)
                    regs[i] = rclink_reg_rstval(i * 8);
                for (i = 0; i < NQP * 32; i = i + 1)
                    qregs[i] = 64'd0;
            end
            in_rst = 1'b1;
            awready <= 1'b0;
            wready <= 1'b0;
            bvalid <= 1'b0;
            arready <= 1'b0;
            rvalid <= 1'b0;
            rdata <= 64'd0;
            irq_vld <= 1'b0;
            irq_info <= 64'd0;
            t3_irq = 1'b0;
            t3_srst <= 2'd0;
            crd <= 4'd0;
            crd_qpid <= 0;
            crd_qpid_vld <= 1'b0;
            c_wr = 0;
            c_rd = 0;
            t2_wr = 0;
            t2_rd = 0;
            now = 0;
            in_pkt = 1'b0;
            cur = 0;
            drop_irq = 1'b0;
            tx_idle = 1'b1;
            mac_free = 1'b1;
            wait_crd = 1'b0;
            t2_crd = `RCLINK_PARAM_TYPE2_CRD_RST_NUM;
        end else begin
            in_rst = 1'b0;
            now = now + 1;
            t3_srst <= 2'd0;
            // AXI4-Lite: a write when AW and W are both there, B next cycle
            awready <= 1'b0;
            wready <= 1'b0;
            arready <= 1'b0;
            if (awvalid && wvalid && !awready && !bvalid) begin
                awready <= 1'b1;
                wready <= 1'b1;
                reg_write({2'b00, awaddr}, wdata, wstrb);
                bvalid <= 1'b1;
            end
            if (bvalid && bready)
                bvalid <= 1'b0;
            if (arvalid && !arready && !rvalid) begin
                arready <= 1'b1;
                rdata <= reg_read({2'b00, araddr});
                rvalid <= 1'b1;
            end
            if (rvalid && rready)
                rvalid <= 1'b0;

            // a dropped packet's status bit follows its IRQ by a cycle
            irq_vld <= 1'b0;
            // the TYPE3 engine's results
            if (t3_set) begin
                if (t3_set_tail[0])
                    regs[`RCLINK_TX_MD_TAIL_PTR >> 3] = {52'd0, t3_new_tx_tail};
                if (t3_set_tail[1])
                    regs[`RCLINK_RX_MD_TAIL_PTR >> 3] = {52'd0, t3_new_rx_tail};
                st_old = regs[`RCLINK_DMA_INTR_ST0 >> 3];
                regs[`RCLINK_DMA_INTR_ST0 >> 3] = st_old | {59'd0, t3_st0_latch};
                if ((t3_st0 | t3_st1) != 0) begin
                    if (((t3_st0 | ((t3_st1 != 11'd0) ?
                          5'd1 << `RCLINK_DMA_INTR_ST0_ABNORMAL_LSB : 5'd0)) &
                         ~st_old[4:0]) != 5'd0 ||
                        (t3_st1 & ~regs[`RCLINK_DMA_INTR_ST1 >> 3][10:0]) != 11'd0)
                        t3_irq = 1'b1;
                    regs[`RCLINK_DMA_INTR_ST0 >> 3] = regs[`RCLINK_DMA_INTR_ST0 >> 3] |
                        {59'd0, t3_st0} |
                        ((t3_st1 != 11'd0) ? 64'd1 << `RCLINK_DMA_INTR_ST0_ABNORMAL_LSB : 64'd0);
                    regs[`RCLINK_DMA_INTR_ST1 >> 3] = regs[`RCLINK_DMA_INTR_ST1 >> 3] |
                        {53'd0, t3_st1};
                end
            end
            if (drop_irq) begin
                set_status(`RCLINK_INTR_STATUS, 64'd1 << `RCLINK_INTR_STATUS_T1_TX_QP_DISABLED_LSB);
                drop_irq = 1'b0;
            end

            // TX_S
            if (tx_vld) begin
                if (tx_fs) begin
                    in_pkt = 1'b1;
                    cur = 0;
                    pkt_qpid[npkts] = tx_qpid;
                    pkt_etype[npkts] = tx_etype;
                    pkt_group[npkts] = tx_group;
                    pkt_fs_err[npkts] = 1'b0;
                end else if (!in_pkt) begin
                    pkt_fs_err[npkts] = 1'b1;
                end
                for (i = 63; i >= 0; i = i - 1)
                    if (tx_keep[i]) begin
                        pkt[npkts * 2048 + cur] = tx_dat[8*i +: 8];
                        cur = cur + 1;
                    end
                if (tx_fe) begin
                    pkt_len[npkts] = cur;
                    // seed 000, TX_S_DAT_I: at least 64 bytes
                    if (cur < `RCLINK_SEG_PKT_MIN) begin
                        runts = runts + 1;
                        $display("ip: TX_S packet of %0d bytes, below the minimum", cur);
                    end
                    pkt_fack[npkts] = tx_fack;
                    in_pkt = 1'b0;
                    if (pkt_etype[npkts] == 2'd3) begin
                        t2_time[t2_wr % 1024] = now + 30;
                        t2_wr = t2_wr + 1;
                    end else if (qp_enabled(pkt_qpid[npkts])) begin
                        c_time[c_wr % 1024] = now + 20;
                        c_ok[c_wr % 1024] = 1'b1;
                    end else begin
                        c_time[c_wr % 1024] = now + 3;
                        c_ok[c_wr % 1024] = 1'b0;
                        irq_vld <= 1'b1;
                        irq_info <= (64'd`RCLINK_IRQ_TYPE1 << `RCLINK_IRQ_INFO_TYPE_LSB) |
                                    ({{(64-QP_AW){1'b0}}, pkt_qpid[npkts]} << `RCLINK_IRQ_INFO_T1_QPID_LSB) |
                                    64'd`RCLINK_IRQ_TYPE1_TX_QP_DISABLED;
                        drop_irq = 1'b1;
                    end
                    if (pkt_etype[npkts] != 2'd3) begin
                        c_qp[c_wr % 1024] = pkt_qpid[npkts];
                        c_wr = c_wr + 1;
                    end
                    npkts = npkts + 1;
                end
            end

            // (after a TX_S drop's IRQ of this cycle)
            if (t3_irq && !drop_irq) begin
                irq_vld <= 1'b1;
                irq_info <= (64'd`RCLINK_IRQ_TYPE3 << `RCLINK_IRQ_INFO_TYPE_LSB) |
                            ({52'd0, regs[`RCLINK_TX_MD_TAIL_PTR >> 3][11:0]} <<
                             `RCLINK_IRQ_INFO_T3_TX_TAIL_LSB) |
                            ({52'd0, regs[`RCLINK_RX_MD_TAIL_PTR >> 3][11:0]} <<
                             `RCLINK_IRQ_INFO_T3_RX_TAIL_LSB) |
                            64'd`RCLINK_IRQ_TYPE3_NONR;
                t3_irq = 1'b0;
            end
            // one credit a cycle, in order
            crd <= 4'd0;
            crd_qpid_vld <= 1'b0;
            if (c_rd != c_wr && now >= c_time[c_rd % 1024] &&
                (!c_ok[c_rd % 1024] || !hold || held > 0)) begin
                crd <= 4'd1;
                crd_qpid <= c_qp[c_rd % 1024];
                crd_qpid_vld <= c_ok[c_rd % 1024];
                if (c_ok[c_rd % 1024] && hold)
                    held = held - 1;
                c_rd = c_rd + 1;
            end
            // TYPE2 tokens: one a cycle, in order
            if (t2_rd != t2_wr && now >= t2_time[t2_rd % 1024] && !hold2) begin
                crd[3] <= 1'b1;
                t2_rd = t2_rd + 1;
            end
            tx_idle = c_rd == c_wr && t2_rd == t2_wr && !in_pkt;
        end
    end
endmodule
`default_nettype wire
