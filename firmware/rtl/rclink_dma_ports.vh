// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the DMA engine's free burst port (rclink_tlp_req port 2,
// Documentation/hw/rtl.rst "DMA engine"), included in the port lists of
// the vendor-neutral TLP top (rclink_shim_tlp.v), of the vendor tops
// (rclink_shim_us.v), which pass it through, and of the cocotb bench.
// Every entry ends with a comma: include it before rclink_ip_ports.vh.
    input  wire         dma_cmd_valid,
    output wire         dma_cmd_ready,
    input  wire         dma_cmd_write,
    input  wire [63:0]  dma_cmd_addr,
    input  wire [12:0]  dma_cmd_len,       // bytes, 1..4096
    input  wire         dma_wd_valid,
    output wire         dma_wd_ready,
    input  wire [511:0] dma_wd_data,       // address aligned
    output wire         dma_rd_valid,      // no back-pressure
    output wire [511:0] dma_rd_data,
    output wire [63:0]  dma_rd_keep,
    output wire         dma_rd_last,
    output wire         dma_rd_err,
