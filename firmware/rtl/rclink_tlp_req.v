// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: requester at TLP level (vendor neutral).
//
// Turns the core's DMA word requests (rclink_shim_top dma_req_*: one
// 64-bit word, 8-byte aligned, byte enables) into memory read and write
// TLP headers (standard 3/4-DW header, first DW in hdr[127:96], payload
// DW0 in data[31:0]) and the completions of the reads back into the
// core's in-order responses (dma_rsp_*).  MSI-X messages of rclink_msix
// leave as one-DW memory writes through the same output register, so a
// message is never seen before a DMA write that was taken before it (the
// core raises a vector only after its writes were taken; posted writes
// stay in order in the hard IP and on the link).
//
// Reads carry tags 0..TAGS-1 (5 bits: no extended tags needed), given in
// order; up to TAGS reads are outstanding.  Completions may come in any
// order: each lands in its tag's slot and the slots are answered in
// request order.  A completion with a status other than SC, poisoned
// (EP), or that the adapter flags (rx_err: the hard IP's error code) makes
// its word answer with err.  A completion for a tag that is not waiting
// is dropped and counted (cnt_unexp).
//
// Completion timeout: the oldest read waits at most TIMEOUT cycles after
// it became the oldest (so at least TIMEOUT after it was sent); then it
// answers err and is counted (cnt_tmo).  Its tag is not given again until
// its late completion came (dropped) or another 1-2 TIMEOUT periods
// passed, so a late completion cannot be taken for a newer read.
//
// flush (the core in reset, SHIM_RESET included): every read not yet
// answered is forgotten at once (the core starts with none outstanding);
// the tags of those still waiting for their completion are held the same
// way as a timed-out one, so their late completions reach no new read.
// stop (an FLR draining): no DMA word and no message is taken; idle says
// no read is waiting for its completion and nothing is left to send.
// An 8-byte aligned read of at most 8 bytes never crosses a read
// completion boundary, so each read has exactly one completion.
`default_nettype none
module rclink_tlp_req #(
    parameter TAGS = 32,                // 2..32
    parameter TIMEOUT = 24'd12500000    // cycles (50 ms at 250 MHz)
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [15:0]  requester_id,
    input  wire         flush,
    input  wire         stop,           // FLR: take no new request or message
    output wire         idle,           // no read waiting, nothing to send
    // the core's DMA words
    input  wire         dma_req_valid,
    output wire         dma_req_ready,
    input  wire         dma_req_write,
    input  wire [63:0]  dma_req_addr,
    input  wire [63:0]  dma_req_data,
    input  wire [7:0]   dma_req_be,
    output reg          dma_rsp_valid,
    output reg  [63:0]  dma_rsp_data,
    output reg          dma_rsp_err,
    // MSI-X messages
    input  wire         msg_valid,
    output wire         msg_ready,
    input  wire [63:0]  msg_addr,
    input  wire [31:0]  msg_data,
    // request TLPs to the adapter
    output reg          tx_valid,
    input  wire         tx_ready,
    output reg  [127:0] tx_hdr,
    output reg  [63:0]  tx_data,
    // completion TLPs from the adapter (always taken)
    input  wire         rx_valid,
    input  wire [127:0] rx_hdr,
    input  wire [63:0]  rx_data,
    input  wire         rx_err,
    output reg  [31:0]  cnt_unexp,
    output reg  [31:0]  cnt_tmo
);
    reg [5:0]       iptr, hptr;     // next tag to give / oldest waiting
    reg [TAGS-1:0]  pend, done, err, hi, zombie, aged;
    reg [63:0]      slot_data [0:TAGS-1];
    reg [23:0]      timer, sweep;

    wire [4:0] islot = iptr[4:0];
    wire [4:0] hslot = hptr[4:0];
    wire [5:0] nout  = iptr - hptr;
    wire       rd_ok = nout < TAGS && !zombie[islot] && !pend[islot];
    wire       load  = (!tx_valid || tx_ready) && !stop;

    assign idle          = nout == 6'd0 && !tx_valid;
    assign msg_ready     = load;
    assign dma_req_ready = load && !msg_valid && (dma_req_write || rd_ok);
    wire   take_dma      = dma_req_valid && dma_req_ready;
    wire   take_rd       = take_dma && !dma_req_write;

    // ---- request header -------------------------------------------------------
    function [127:0] mem_hdr(input wr, input [63:0] a, input [9:0] len,
                             input [7:0] tag, input [3:0] lbe, input [3:0] fbe);
        reg four;
        begin
            four = a[63:32] != 32'd0;
            mem_hdr = {1'b0, wr, four, 5'b00000, 14'd0, len,
                       requester_id, tag, lbe, fbe,
                       four ? {a[63:32], a[31:2], 2'b00} : {a[31:2], 2'b00, 32'd0}};
        end
    endfunction

    wire        hi_only = dma_req_be[3:0] == 4'd0 && dma_req_be[7:4] != 4'd0;
    wire        one_dw  = dma_req_be[7:4] == 4'd0 || hi_only;
    wire [63:0] dma_a   = {dma_req_addr[63:3], hi_only, 2'b00};
    wire [3:0]  dma_fbe = hi_only ? dma_req_be[7:4] : dma_req_be[3:0];
    wire [3:0]  dma_lbe = one_dw ? 4'd0 : dma_req_be[7:4];

    // ---- completion header ------------------------------------------------------
    wire [7:0] ctag    = rx_hdr[47:40];
    wire [2:0] cstatus = rx_hdr[79:77];
    wire       cep     = rx_hdr[110];
    wire       cbad    = rx_err || cstatus != 3'd0 || cep;
    wire       cin     = ctag < TAGS;
    wire [4:0] cslot   = ctag[4:0];
    wire       cwait   = cin && pend[cslot] && !done[cslot] && !zombie[cslot];
    wire       clate   = cin && zombie[cslot];

    // ---- next state of the tag slots -----------------------------------------
    wire tmo   = nout != 6'd0 && !done[hslot] && timer >= TIMEOUT - 24'd1;
    wire tick  = sweep >= TIMEOUT - 24'd1;
    wire deliver = nout != 6'd0 && done[hslot] && !flush;
    reg [TAGS-1:0] n_pend, n_done, n_err, n_zombie, n_aged;
    always @* begin
        n_pend = pend;
        n_done = done;
        n_err = err;
        n_zombie = zombie;
        if (take_rd) begin
            n_pend[islot] = 1'b1;
            n_done[islot] = 1'b0;
        end
        if (rx_valid && cwait) begin
            n_done[cslot] = 1'b1;
            n_err[cslot] = cbad;
        end
        if (rx_valid && clate)
            n_zombie[cslot] = 1'b0;
        // completion timeout of the oldest read
        if (tmo) begin
            n_done[hslot] = 1'b1;
            n_err[hslot] = 1'b1;
            n_zombie[hslot] = 1'b1;
        end
        // a timed-out tag is given again after 1-2 sweep periods
        if (tick)
            n_zombie = n_zombie & ~aged;
        n_aged = (tick ? n_zombie : aged) & n_zombie;
        // answers in request order
        if (deliver) begin
            n_pend[hslot] = 1'b0;
            n_done[hslot] = 1'b0;
        end
        // the core reset: forget every read, hold the tags still waiting
        if (flush) begin
            n_zombie = n_zombie | (n_pend & ~n_done);
            n_pend = {TAGS{1'b0}};
            n_done = {TAGS{1'b0}};
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            iptr <= 6'd0;
            hptr <= 6'd0;
            pend <= {TAGS{1'b0}};
            done <= {TAGS{1'b0}};
            err <= {TAGS{1'b0}};
            hi <= {TAGS{1'b0}};
            zombie <= {TAGS{1'b0}};
            aged <= {TAGS{1'b0}};
            timer <= 24'd0;
            sweep <= 24'd0;
            tx_valid <= 1'b0;
            tx_hdr <= 128'd0;
            tx_data <= 64'd0;
            dma_rsp_valid <= 1'b0;
            dma_rsp_data <= 64'd0;
            dma_rsp_err <= 1'b0;
            cnt_unexp <= 32'd0;
            cnt_tmo <= 32'd0;
        end else begin
            pend <= n_pend;
            done <= n_done;
            err <= n_err;
            zombie <= n_zombie;
            aged <= n_aged;

            // ---- output register: an MSI-X message first, else a DMA word
            if (tx_valid && tx_ready)
                tx_valid <= 1'b0;
            if (load && msg_valid) begin
                tx_valid <= 1'b1;
                tx_hdr <= mem_hdr(1'b1, {msg_addr[63:2], 2'b00}, 10'd1, 8'd0,
                                  4'd0, 4'hf);
                tx_data <= {32'd0, msg_data};
            end else if (take_dma) begin
                tx_valid <= 1'b1;
                tx_hdr <= mem_hdr(dma_req_write, dma_a, one_dw ? 10'd1 : 10'd2,
                                  dma_req_write ? 8'd0 : {3'd0, islot},
                                  dma_lbe, dma_fbe);
                tx_data <= hi_only ? {32'd0, dma_req_data[63:32]} : dma_req_data;
            end
            if (take_rd) begin
                hi[islot] <= hi_only;
                iptr <= iptr + 6'd1;
            end

            // ---- completions
            if (rx_valid && cwait)
                slot_data[cslot] <= hi[cslot] ? {rx_data[31:0], 32'd0} : rx_data;
            if (rx_valid && !cwait && !clate)
                cnt_unexp <= cnt_unexp + 32'd1;

            // ---- timers
            if (nout == 6'd0 || done[hslot] || tmo || flush)
                timer <= 24'd0;
            else
                timer <= timer + 24'd1;
            if (tmo)
                cnt_tmo <= cnt_tmo + 32'd1;
            sweep <= tick ? 24'd0 : sweep + 24'd1;

            // ---- answers in request order
            dma_rsp_valid <= deliver;
            if (deliver) begin
                dma_rsp_data <= slot_data[hslot];
                dma_rsp_err <= err[hslot];
                hptr <= hptr + 6'd1;
            end
            if (flush)
                hptr <= iptr;
        end
    end
endmodule
`default_nettype wire
