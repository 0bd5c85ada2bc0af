// SPDX-License-Identifier: GPL-2.0 OR MIT
// rclink PCIe shim: the vendor-neutral TLP interface of rclink_shim_tlp
// as a hard-IP adapter presents it (rclink_us_if, rclink_ptile_if;
// Documentation/hw/rtl.rst): requests and completions of the completer,
// DMA requests and completion beats of the requester.  Every entry ends
// with a comma.
    output wire         req_valid,
    input  wire         req_ready,
    output wire [127:0] req_hdr,
    output wire [2:0]   req_bar,
    output wire [63:0]  req_data,
    output wire         req_bad,
    input  wire         cpl_valid,
    output wire         cpl_ready,
    input  wire [127:0] cpl_hdr,
    input  wire [63:0]  cpl_data,
    input  wire         rq_valid,
    output wire         rq_ready,
    input  wire         rq_sop,
    input  wire         rq_last,
    input  wire [127:0] rq_hdr,
    input  wire [511:0] rq_data,
    input  wire [15:0]  rq_keep,
    input  wire         rq_sop2,        // a second TLP from DW lane 8 (straddled)
    input  wire [127:0] rq_hdr2,
    output wire         rc_valid,
    output wire         rc_sop,
    output wire         rc_last,
    output wire [127:0] rc_hdr,
    output wire [511:0] rc_data,
    output wire         rc_err,
