// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the P-tile's Avalon-ST streams, TX credit limits and
// configuration output bus (Documentation/hw/rtl.rst, "P-tile top"), in
// the port lists of rclink_shim_ptile and of its cocotb bench.  Every
// entry ends with a comma.
    // ---- RX (tile -> user)
    input  wire [511:0] rx_st_data,
    input  wire [5:0]   rx_st_empty,
    input  wire [1:0]   rx_st_sop,
    input  wire [1:0]   rx_st_eop,
    input  wire [1:0]   rx_st_valid,
    output wire         rx_st_ready,
    input  wire [255:0] rx_st_hdr,
    input  wire [63:0]  rx_st_tlp_prfx,
    input  wire [5:0]   rx_st_bar_range,
    input  wire [1:0]   rx_st_tlp_abort,
    // ---- TX (user -> tile)
    output wire [511:0] tx_st_data,
    output wire [1:0]   tx_st_sop,
    output wire [1:0]   tx_st_eop,
    output wire [1:0]   tx_st_valid,
    input  wire         tx_st_ready,
    output wire [1:0]   tx_st_err,
    output wire [255:0] tx_st_hdr,
    output wire [63:0]  tx_st_tlp_prfx,
    // ---- TX flow control
    input  wire [15:0]  tx_cdts_limit,
    input  wire [2:0]   tx_cdts_limit_tdm_idx,
    // ---- configuration output
    input  wire [2:0]   tl_cfg_func,
    input  wire [4:0]   tl_cfg_add,
    input  wire [15:0]  tl_cfg_ctl,
