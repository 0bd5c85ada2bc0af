// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: connections of the ports of rclink_dma_ports.vh to
// the signals of the same names (each entry ends with a comma: include it
// before rclink_ip_conn.vh).
        .dma_cmd_valid(dma_cmd_valid), .dma_cmd_ready(dma_cmd_ready),
        .dma_cmd_write(dma_cmd_write), .dma_cmd_addr(dma_cmd_addr),
        .dma_cmd_len(dma_cmd_len), .dma_wd_valid(dma_wd_valid),
        .dma_wd_ready(dma_wd_ready), .dma_wd_data(dma_wd_data),
        .dma_rd_valid(dma_rd_valid), .dma_rd_data(dma_rd_data),
        .dma_rd_keep(dma_rd_keep), .dma_rd_last(dma_rd_last),
        .dma_rd_err(dma_rd_err),
