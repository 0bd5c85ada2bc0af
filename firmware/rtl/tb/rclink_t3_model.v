// SPDX-License-Identifier: GPL-2.0 OR MIT
// Behavioural stand-in for the TYPE3 engine of the RCLINK-Stream IP in the
// shim's word-level testbench (not synthesizable): the MD rings of
// Documentation/hw/shim.rst ("TYPE3 rings", seed 000 TYPE3 收发流程) as
// the QEMU model's rclink_type3.c runs them, through the IP's two AXI4
// masters (seed 000, 硬件接口):
//   NONR_MD_AXI (256 bits): an MD is read with ARLEN 0, ARSIZE 4 (16
//     bytes); word 0 is written back with AWLEN 0, AWSIZE 4 and WSTRB
//     0x3f << 16 (odd MD of the beat) or 0x3f (even MD): DATA_SIZE, SF,
//     LF and the error bits, BUF_SIZE is not written;
//   NONR_DATA_AXI (512 bits, SIZE 6): a TX frame is read in bursts of at
//     most 4 beats, an RX frame written in bursts of at most 8, neither
//     across a 4 KiB boundary; the first beat starts at the buffer's
//     address (unaligned: its strobes or its lanes say which bytes).
// One transfer at a time (the IP has up to 128 out; the shim's bridge
// serves one burst at a time anyway).  A burst answered other than OKAY
// ends the frame's transfer (the model counts one failed DMA per frame).
//
// The MAC side is looped to the testbench: every TX frame the engine sends
// (padded with zeros to 60 bytes, as a MAC does) is kept in txf (ntx
// frames); the testbench puts a received frame in rxf / rx_len and raises
// rx_req, the engine lowers it when the frame is stored or dropped.  The
// drops the IP knows only itself are counted here: drop_off, drop_nomd,
// drop_err (SHIM_RX_DROP_OFF / NOMD / ERR of the model).
//
// The registers stay in the IP stand-in (tb/rclink_ip_model.v): this
// engine reads them on t3_* and gives its results with t3_set.
`timescale 1ns/1ps
`default_nettype none
`include "rclink_regs.vh"
module rclink_t3_model #(
    parameter MAXTX = 64            // TX frames kept
) (
    input  wire         clk,
    input  wire         rst_n,
    // ---- the IP's registers (tb/rclink_ip_model.v)
    input  wire [63:0]  t3_ctrl,
    input  wire [63:0]  t3_tx_head,
    input  wire [63:0]  t3_rx_head,
    input  wire [63:0]  t3_tx_tail,
    input  wire [63:0]  t3_rx_tail,
    input  wire [63:0]  t3_tx_ba,
    input  wire [63:0]  t3_rx_ba,
    input  wire [63:0]  t3_tx_size,
    input  wire [63:0]  t3_rx_size,
    input  wire [63:0]  t3_tail_up_cfg,
    input  wire [63:0]  t3_int_mask,
    input  wire [1:0]   t3_srst,
    output reg          t3_set,
    output reg  [1:0]   t3_set_tail,
    output reg  [11:0]  t3_new_tx_tail,
    output reg  [11:0]  t3_new_rx_tail,
    output reg  [4:0]   t3_st0,
    output reg  [10:0]  t3_st1,
    output reg  [4:0]   t3_st0_latch,
    // ---- NONR_MD_AXI (master)
    output reg          md_awvalid,
    input  wire         md_awready,
    output reg  [63:0]  md_awaddr,
    output wire [7:0]   md_awlen,
    output wire [2:0]   md_awsize,
    output wire [1:0]   md_awburst,
    output reg  [6:0]   md_awid,
    output reg          md_wvalid,
    input  wire         md_wready,
    output reg  [255:0] md_wdata,
    output reg  [31:0]  md_wstrb,
    output wire         md_wlast,
    input  wire         md_bvalid,
    output reg          md_bready,
    input  wire [1:0]   md_bresp,
    output reg          md_arvalid,
    input  wire         md_arready,
    output reg  [63:0]  md_araddr,
    output wire [7:0]   md_arlen,
    output wire [2:0]   md_arsize,
    output wire [1:0]   md_arburst,
    output reg  [6:0]   md_arid,
    input  wire         md_rvalid,
    output reg          md_rready,
    input  wire [255:0] md_rdata,
    input  wire [1:0]   md_rresp,
    // ---- NONR_DATA_AXI (master)
    output reg          dt_awvalid,
    input  wire         dt_awready,
    output reg  [63:0]  dt_awaddr,
    output reg  [7:0]   dt_awlen,
    output wire [2:0]   dt_awsize,
    output wire [1:0]   dt_awburst,
    output reg  [6:0]   dt_awid,
    output reg          dt_wvalid,
    input  wire         dt_wready,
    output reg  [511:0] dt_wdata,
    output reg  [63:0]  dt_wstrb,
    output reg          dt_wlast,
    input  wire         dt_bvalid,
    output reg          dt_bready,
    input  wire [1:0]   dt_bresp,
    output reg          dt_arvalid,
    input  wire         dt_arready,
    output reg  [63:0]  dt_araddr,
    output reg  [7:0]   dt_arlen,
    output wire [2:0]   dt_arsize,
    output wire [1:0]   dt_arburst,
    output reg  [6:0]   dt_arid,
    input  wire         dt_rvalid,
    output reg          dt_rready,
    input  wire [511:0] dt_rdata,
    input  wire [1:0]   dt_rresp,
    input  wire         dt_rlast
);
    // MD word 0 (shim.rst, "Memory descriptors")
    localparam MD_SF = 20, MD_LF = 21;
    localparam TX_MAX = 4096, RX_OVERSIZE = 8096, ETH_ZLEN = 60;
    // DMA_INTR_ST1 bits that only report (the bus errors)
    localparam [10:0] REPORT_ONLY =
        (11'd1 << `RCLINK_DMA_INTR_ST1_MD_AXI_WR_RESP_ERR_LSB) |
        (11'd1 << `RCLINK_DMA_INTR_ST1_MD_AXI_RD_RESP_ERR_LSB) |
        (11'd1 << `RCLINK_DMA_INTR_ST1_DATA_AXI_RESP_ERR_LSB);
    localparam P_NONE = 2'd0, P_SOP = 2'd1, P_EOP = 2'd2;

    assign md_awlen = 8'd0;
    assign md_awsize = 3'd4;
    assign md_awburst = 2'd1;
    assign md_wlast = 1'b1;
    assign md_arlen = 8'd0;
    assign md_arsize = 3'd4;
    assign md_arburst = 2'd1;
    assign dt_awsize = 3'd6;
    assign dt_awburst = 2'd1;
    assign dt_arsize = 3'd6;
    assign dt_arburst = 2'd1;

    // ---- the MAC side
    reg [7:0]  txf [0:MAXTX*4096-1];
    integer    txf_len [0:MAXTX-1];
    integer    ntx;
    reg [7:0]  rxf [0:16383];
    integer    rx_len;
    reg        rx_req;
    integer    drop_off, drop_nomd, drop_err, nrx;

    reg [7:0]  fbuf [0:65535];      // the TX frame being read
    reg        halted_tx, halted_rx;
    reg [1:0]  partial;
    integer    srst_n [0:1];        // soft resets seen, per direction
    integer    srst_done [0:1];     // those the engine has applied
    reg        a_hs, w_hs;

    initial begin
        ntx = 0;
        nrx = 0;
        rx_req = 1'b0;
        rx_len = 0;
        drop_off = 0;
        drop_nomd = 0;
        drop_err = 0;
        srst_n[0] = 0;
        srst_n[1] = 0;
        srst_done[0] = 0;
        srst_done[1] = 0;
        halted_tx = 1'b0;
        halted_rx = 1'b0;
        partial = P_NONE;
        t3_set = 1'b0;
        t3_set_tail = 2'd0;
        t3_new_tx_tail = 12'd0;
        t3_new_rx_tail = 12'd0;
        t3_st0 = 5'd0;
        t3_st1 = 11'd0;
        t3_st0_latch = 5'd0;
        md_awvalid = 1'b0; md_awaddr = 64'd0; md_awid = 7'd0;
        md_wvalid = 1'b0; md_wdata = 256'd0; md_wstrb = 32'd0; md_bready = 1'b0;
        md_arvalid = 1'b0; md_araddr = 64'd0; md_arid = 7'd0; md_rready = 1'b0;
        dt_awvalid = 1'b0; dt_awaddr = 64'd0; dt_awlen = 8'd0; dt_awid = 7'd0;
        dt_wvalid = 1'b0; dt_wdata = 512'd0; dt_wstrb = 64'd0; dt_wlast = 1'b0;
        dt_bready = 1'b0;
        dt_arvalid = 1'b0; dt_araddr = 64'd0; dt_arlen = 8'd0; dt_arid = 7'd0;
        dt_rready = 1'b0;
    end

    // a soft reset (or the IP's reset) may come while a frame moves
    always @(posedge clk) begin
        if (!rst_n || t3_srst[0])
            srst_n[0] = srst_n[0] + 1;
        if (!rst_n || t3_srst[1])
            srst_n[1] = srst_n[1] + 1;
    end

    // ---- AXI transfers (driven on the falling edge, sampled before the
    //      rising one, so that the handshake is that rising edge)
    task md_read(input [63:0] a, output [127:0] md, output err);
        begin
            @(negedge clk);
            md_arvalid = 1'b1;
            md_araddr = a;
            md_arid = md_arid + 7'd1;
            #1;
            while (!md_arready) begin
                @(negedge clk);
                #1;
            end
            @(negedge clk);
            md_arvalid = 1'b0;
            md_rready = 1'b1;
            #1;
            while (!md_rvalid) begin
                @(negedge clk);
                #1;
            end
            md = md_rdata[128 * a[4] +: 128];
            err = md_rresp != 2'd0;
            @(negedge clk);
            md_rready = 1'b0;
        end
    endtask

    // word 0 of the MD at a: the low 6 bytes (WSTRB 0x3f of its half)
    task md_write(input [63:0] a, input [63:0] w0, output err);
        begin
            @(negedge clk);
            md_awvalid = 1'b1;
            md_awaddr = a;
            md_awid = md_awid + 7'd1;
            md_wvalid = 1'b1;
            md_wdata = {4{w0}};
            md_wstrb = a[4] ? 32'h003f_0000 : 32'h0000_003f;
            while (md_awvalid || md_wvalid) begin
                #1;
                a_hs = md_awvalid && md_awready;
                w_hs = md_wvalid && md_wready;
                @(negedge clk);         // past the rising edge of the handshakes
                if (a_hs) md_awvalid = 1'b0;
                if (w_hs) md_wvalid = 1'b0;
            end
            md_bready = 1'b1;
            #1;
            while (!md_bvalid) begin
                @(negedge clk);
                #1;
            end
            err = md_bresp != 2'd0;
            @(negedge clk);
            md_bready = 1'b0;
        end
    endtask

    // n bytes between host address a and a frame buffer, in bursts of at
    // most 4 beats (read: into fbuf[0..n-1]) or 8 (write: from rxf[o..]),
    // none across 4 KiB; err: a burst was answered other than OKAY
    task data_move(input wr, input [63:0] a, input integer o, input integer n,
                   output err);
        reg [63:0] cur, line;
        integer off, lines, b, k, take, skip, tob;
        begin
            err = 1'b0;
            off = 0;
            cur = a;
            while (off < n && !err) begin
                line = cur & ~64'd63;
                lines = (4096 - (line & 64'hfff)) / 64;
                if (lines > (wr ? 8 : 4)) lines = wr ? 8 : 4;
                skip = cur - line;
                take = lines * 64 - skip;
                if (take > n - off) take = n - off;
                lines = (skip + take + 63) / 64;
                // the address
                @(negedge clk);
                if (wr) begin
                    dt_awvalid = 1'b1;
                    dt_awaddr = cur;
                    dt_awlen = lines - 1;
                    dt_awid = dt_awid + 7'd1;
                end else begin
                    dt_arvalid = 1'b1;
                    dt_araddr = cur;
                    dt_arlen = lines - 1;
                    dt_arid = dt_arid + 7'd1;
                end
                #1;
                while (wr ? !dt_awready : !dt_arready) begin
                    @(negedge clk);
                    #1;
                end
                @(negedge clk);
                dt_awvalid = 1'b0;
                dt_arvalid = 1'b0;
                // the beats: W out or R in
                dt_rready = !wr;
                for (b = 0; b < lines; b = b + 1) begin
                    if (wr) begin
                        dt_wvalid = 1'b1;
                        dt_wlast = b == lines - 1;
                        dt_wdata = 512'd0;
                        dt_wstrb = 64'd0;
                        for (k = 0; k < 64; k = k + 1) begin
                            tob = b * 64 + k - skip;
                            if (tob >= 0 && tob < take) begin
                                dt_wdata[8 * k +: 8] = rxf[o + off + tob];
                                dt_wstrb[k] = 1'b1;
                            end
                        end
                    end
                    #1;
                    while (wr ? !dt_wready : !dt_rvalid) begin
                        @(negedge clk);
                        #1;
                    end
                    if (!wr) begin
                        if (dt_rresp != 2'd0)
                            err = 1'b1;
                        for (k = 0; k < 64; k = k + 1) begin
                            tob = b * 64 + k - skip;
                            if (tob >= 0 && tob < take)
                                fbuf[off + tob] = dt_rdata[8 * k +: 8];
                        end
                    end
                    @(negedge clk);
                end
                dt_rready = 1'b0;
                dt_wvalid = 1'b0;
                dt_wlast = 1'b0;
                // a write's response
                if (wr) begin
                    dt_bready = 1'b1;
                    #1;
                    while (!dt_bvalid) begin
                        @(negedge clk);
                        #1;
                    end
                    if (dt_bresp != 2'd0)
                        err = 1'b1;
                    @(negedge clk);
                    dt_bready = 1'b0;
                end
                off = off + take;
                cur = cur + take;
            end
        end
    endtask

    // the results to the register file, one cycle
    task give(input [1:0] which, input [11:0] ttx, input [11:0] trx,
              input [4:0] st0, input [10:0] st1, input [4:0] latch);
        begin
            @(negedge clk);
            t3_set = 1'b1;
            t3_set_tail = which;
            t3_new_tx_tail = ttx;
            t3_new_rx_tail = trx;
            t3_st0 = st0;
            t3_st1 = st1;
            t3_st0_latch = latch;
            @(negedge clk);
            t3_set = 1'b0;
            t3_set_tail = 2'd0;
            t3_st0 = 5'd0;
            t3_st1 = 11'd0;
            t3_st0_latch = 5'd0;
        end
    endtask

    // the ST0 tail-up bit if TAIL_UP_CFG's value lies in (old, new]
    function [4:0] tail_up(input rx, input integer old, input integer nw,
                           input integer size);
        integer cfg, moved, dist;
        reg en;
        begin
            cfg = rx ? t3_tail_up_cfg[`RCLINK_TAIL_UP_CFG_RX_TAIL_UP_MSB:`RCLINK_TAIL_UP_CFG_RX_TAIL_UP_LSB]
                     : t3_tail_up_cfg[`RCLINK_TAIL_UP_CFG_TX_TAIL_UP_MSB:`RCLINK_TAIL_UP_CFG_TX_TAIL_UP_LSB];
            en = rx ? t3_int_mask[`RCLINK_DMA_INT_MASK_RX_TAIL_UP_LSB]
                    : t3_int_mask[`RCLINK_DMA_INT_MASK_TX_TAIL_UP_LSB];
            moved = (nw + size - old) % size;
            dist = (cfg + size - old) % size;
            tail_up = 5'd0;
            if (moved != 0 && cfg < size && en && dist != 0 && dist <= moved)
                tail_up = 5'd1 << (rx ? `RCLINK_DMA_INTR_ST0_RX_TAIL_UP_LSB
                                      : `RCLINK_DMA_INTR_ST0_TX_TAIL_UP_LSB);
        end
    endfunction

    function active(input rx);
        active = rx ? (t3_ctrl[`RCLINK_NONR_DMA_CTRL_RX_EN_LSB] &&
                       t3_ctrl[`RCLINK_NONR_DMA_CTRL_RX_RESET_LSB])
                    : (t3_ctrl[`RCLINK_NONR_DMA_CTRL_TX_EN_LSB] &&
                       t3_ctrl[`RCLINK_NONR_DMA_CTRL_TX_RESET_LSB]);
    endfunction

    // the ring size, 0 when the ring cannot be used (size 0, base not
    // 64-byte aligned)
    function integer ring_size(input rx);
        reg [63:0] ba;
        begin
            ba = rx ? t3_rx_ba : t3_tx_ba;
            ring_size = rx ? t3_rx_size[11:0] : t3_tx_size[11:0];
            if (ba[5:0] != 6'd0)
                ring_size = 0;
        end
    endfunction

    // ---- TX: one MD; the ST1 bit of its fault (0: sent or skipped)
    task tx_md(input integer md, output [10:0] st);
        reg [127:0] d;
        reg err, sf, lf;
        integer len, i;
        begin
            st = 11'd0;
            md_read(t3_tx_ba + md * 16, d, err);
            sf = d[MD_SF];
            lf = d[MD_LF];
            len = d[19:4];
            if (err) begin
                st = 11'd1 << `RCLINK_DMA_INTR_ST1_MD_AXI_RD_RESP_ERR_LSB;
            end else if (!(sf && lf)) begin
                // a frame must fit one MD: anything else is skipped, but
                // two SOPs or two EOPs in a row are a fault
                if (sf && partial == P_SOP)
                    st = 11'd1 << `RCLINK_DMA_INTR_ST1_TX_TWO_SOP_LSB;
                else if (lf && partial == P_EOP)
                    st = 11'd1 << `RCLINK_DMA_INTR_ST1_TX_TWO_EOP_LSB;
                else if (sf)
                    partial = P_SOP;
                else if (lf)
                    partial = P_EOP;
            end else begin
                partial = P_NONE;
                if (len == 0) begin
                    st = 11'd1 << `RCLINK_DMA_INTR_ST1_TX_MD_SIZE_ZERO_LSB;
                end else if (len > TX_MAX) begin
                    st = 11'd1 << `RCLINK_DMA_INTR_ST1_TX_OVERSIZE_LSB;
                end else begin
                    data_move(1'b0, d[127:64], 0, len, err);
                    if (err) begin
                        st = 11'd1 << `RCLINK_DMA_INTR_ST1_DATA_AXI_RESP_ERR_LSB;
                    end else begin
                        // to the MAC: at least a minimum Ethernet frame
                        for (i = 0; i < len || i < ETH_ZLEN; i = i + 1)
                            txf[(ntx % MAXTX) * 4096 + i] = i < len ? fbuf[i] : 8'd0;
                        txf_len[ntx % MAXTX] = len < ETH_ZLEN ? ETH_ZLEN : len;
                        ntx = ntx + 1;
                    end
                end
            end
            if (st != 11'd0)
                $display("t3: TX fault at MD %0d: DMA_INTR_ST1 %h", md, st);
        end
    endtask

    // ---- TX: the MDs from tail to head
    task tx_run;
        integer size, head, tail, old;
        reg [10:0] st, st1;
        reg [4:0] st0, latch;
        begin
            size = ring_size(1'b0);
            head = t3_tx_head[11:0];
            tail = t3_tx_tail[11:0];
            if (tail >= size) tail = 0;
            old = tail;
            st1 = 11'd0;
            st0 = 5'd0;
            latch = 5'd0;
            while (tail != head && !halted_tx) begin
                tx_md(tail, st);
                st1 = st1 | st;
                if ((st & ~REPORT_ONLY) != 11'd0)
                    halted_tx = 1'b1;     // at this MD, until a soft reset
                else
                    tail = (tail + 1) % size;
            end
            if (tail != old) begin
                st0 = tail_up(1'b0, old, tail, size);
                if (tail == head)
                    latch = 5'd1 << `RCLINK_DMA_INTR_ST0_TX_MD_EMPTY_LSB;
            end
            give({1'b0, tail != old}, tail, 12'd0, st0, st1, latch);
        end
    endtask

    // ---- RX: one frame from the MAC side
    task rx_fault(input [10:0] st1, input halt);
        begin
            if (halt)
                halted_rx = 1'b1;
            drop_err = drop_err + 1;
            $display("t3: RX fault: DMA_INTR_ST1 %h", st1);
            give(2'd0, 12'd0, 12'd0, 5'd0, st1, 5'd0);
        end
    endtask

    reg [63:0] rxmd0 [0:4095];
    reg [63:0] rxmd1 [0:4095];
    task rx_frame;
        integer size, head, tail, avail, n, got, off, chunk, i, md;
        reg [127:0] d;
        reg err, done;
        reg [63:0] w0;
        begin
            size = ring_size(1'b1);
            head = t3_rx_head[11:0];
            tail = t3_rx_tail[11:0];
            if (tail >= size) tail = 0;
            done = 1'b0;
            if (!active(1'b1) || halted_rx || size == 0 || head >= size) begin
                drop_off = drop_off + 1;
                done = 1'b1;
            end else if (rx_len > RX_OVERSIZE) begin
                rx_fault(11'd1 << `RCLINK_DMA_INTR_ST1_RX_OVERSIZE_LSB, 1'b1);
                done = 1'b1;
            end
            // the MDs the frame needs, all posted, before anything is written
            avail = (head + size - tail) % size;
            n = 0;
            got = 0;
            while (!done && (got < rx_len || n == 0)) begin
                if (n == avail) begin
                    drop_nomd = drop_nomd + 1;
                    give(2'd0, 12'd0, 12'd0,
                         5'd1 << `RCLINK_DMA_INTR_ST0_RX_MD_EMPTY_LSB, 11'd0, 5'd0);
                    done = 1'b1;
                end else begin
                    md = (tail + n) % size;
                    md_read(t3_rx_ba + md * 16, d, err);
                    rxmd0[n] = d[63:0];
                    rxmd1[n] = d[127:64];
                    if (err) begin
                        rx_fault(11'd1 << `RCLINK_DMA_INTR_ST1_MD_AXI_RD_RESP_ERR_LSB, 1'b0);
                        done = 1'b1;
                    end else if (d[63:48] == 16'd0) begin
                        rx_fault(11'd1 << `RCLINK_DMA_INTR_ST1_RX_MD_SIZE_ZERO_LSB, 1'b1);
                        done = 1'b1;
                    end else begin
                        got = got + d[63:48];
                        n = n + 1;
                    end
                end
            end
            // the data, then word 0 of each MD
            off = 0;
            for (i = 0; i < n && !done; i = i + 1) begin
                chunk = rxmd0[i][63:48];
                if (chunk > rx_len - off) chunk = rx_len - off;
                if (chunk != 0) begin
                    data_move(1'b1, rxmd1[i], off, chunk, err);
                    if (err) begin
                        rx_fault(11'd1 << `RCLINK_DMA_INTR_ST1_DATA_AXI_RESP_ERR_LSB, 1'b0);
                        done = 1'b1;
                    end
                end
                off = off + chunk;
            end
            off = 0;
            for (i = 0; i < n && !done; i = i + 1) begin
                chunk = rxmd0[i][63:48];
                if (chunk > rx_len - off) chunk = rx_len - off;
                off = off + chunk;
                w0 = {rxmd0[i][63:48], 48'd0};
                w0[19:4] = chunk;
                w0[MD_SF] = i == 0;
                w0[MD_LF] = i == n - 1;
                md_write(t3_rx_ba + ((tail + i) % size) * 16, w0, err);
                if (err) begin
                    rx_fault(11'd1 << `RCLINK_DMA_INTR_ST1_MD_AXI_WR_RESP_ERR_LSB, 1'b0);
                    done = 1'b1;
                end
            end
            if (!done) begin
                nrx = nrx + 1;
                give(2'b10, 12'd0, (tail + n) % size,
                     tail_up(1'b1, tail, (tail + n) % size, size), 11'd0, 5'd0);
            end
        end
    endtask

    // ---- the engine: a received frame first, else the TX ring
    initial begin
        forever begin
            @(negedge clk);
            if (srst_done[0] != srst_n[0]) begin
                halted_tx = 1'b0;
                partial = P_NONE;
                srst_done[0] = srst_n[0];
            end
            if (srst_done[1] != srst_n[1]) begin
                halted_rx = 1'b0;
                srst_done[1] = srst_n[1];
            end
            if (rst_n && rx_req) begin
                rx_frame;
                rx_req = 1'b0;
            end else if (rst_n && active(1'b0) && !halted_tx &&
                         ring_size(1'b0) != 0 &&
                         t3_tx_head[11:0] < ring_size(1'b0) &&
                         t3_tx_head[11:0] != t3_tx_tail[11:0]) begin
                tx_run;
            end
        end
    end
endmodule
`default_nettype wire
