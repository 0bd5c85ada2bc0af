// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: connections of the ports of rclink_ptile_ports.vh to
// the signals of the same names (each entry ends with a comma).
        .rx_st_data(rx_st_data), .rx_st_empty(rx_st_empty),
        .rx_st_sop(rx_st_sop), .rx_st_eop(rx_st_eop), .rx_st_valid(rx_st_valid),
        .rx_st_ready(rx_st_ready), .rx_st_hdr(rx_st_hdr),
        .rx_st_tlp_prfx(rx_st_tlp_prfx), .rx_st_bar_range(rx_st_bar_range),
        .rx_st_tlp_abort(rx_st_tlp_abort),
        .tx_st_data(tx_st_data), .tx_st_sop(tx_st_sop), .tx_st_eop(tx_st_eop),
        .tx_st_valid(tx_st_valid), .tx_st_ready(tx_st_ready),
        .tx_st_err(tx_st_err), .tx_st_hdr(tx_st_hdr),
        .tx_st_tlp_prfx(tx_st_tlp_prfx),
        .tx_cdts_limit(tx_cdts_limit), .tx_cdts_limit_tdm_idx(tx_cdts_limit_tdm_idx),
        .tl_cfg_func(tl_cfg_func), .tl_cfg_add(tl_cfg_add), .tl_cfg_ctl(tl_cfg_ctl),
