#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the co-simulation process rclink-cosim (Documentation/testing.rst,
# "RTL boards"): Verilator's C++ model of rclink_cosim_top.v (the shim's
# vendor-neutral core, the testbench's IP stand-in, a MAC CSR stand-in)
# and its harness rclink_cosim.cpp.  Prints the binary's path as the last
# line of stdout (progress goes to stderr).
#
# Cached under ${RCLINK_CACHE:-$HOME/.cache/rclink}/cosim/<key>/, <key> a
# SHA-256 of every input (the RTL, the IP stand-in, the generated headers,
# this directory, the message header of the QEMU side, Verilator's
# version); the three newest keys are kept.  A build runs one compile job
# unless RCLINK_JOBS says otherwise.  RCLINK_COSIM_REBUILD=1 ignores the
# cached binary.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rtl=$(cd "$here/.." && pwd)
top=$(cd "$rtl/../.." && pwd)
cache=${RCLINK_CACHE:-$HOME/.cache/rclink}/cosim
verilator=${VERILATOR:-verilator}
proto=$top/firmware/qemu/rclink/rclink_cosim.h

srcs=(rclink_bar0.v rclink_axil_master.v rclink_avmm_master.v rclink_csr.v
      rclink_evt.v rclink_irq.v rclink_dmatest.v rclink_dma_arb.v rclink_sq.v
      rclink_cq.v rclink_rx.v rclink_shim_top.v rclink_ctx.v rclink_qpstat.v rclink_mr.v
      rclink_mac.v)
inputs=("${srcs[@]/#/$rtl/}" "$rtl/tb/rclink_ip_model.v" "$rtl/tb/rclink_mac_model.v"
	"$rtl"/gen/*.vh
	"$here"/*.v "$here"/*.cpp "$here/build.sh" "$proto")

key=$({
	"$verilator" --version
	for f in "${inputs[@]}"; do
		printf '%s\n' "${f#"$top"/}"
		sha256sum <"$f"
	done
} | sha256sum | cut -c1-16)
bin=$cache/$key/rclink-cosim
if [ -x "$bin" ] && [ "${RCLINK_COSIM_REBUILD:-0}" != 1 ]; then
	echo "$bin"
	exit 0
fi

# the simulated shim's contexts: as many as the device's BAR4 has pages
nctx=$(sed -n 's/^#define RCLINK_COSIM_NCTX \([0-9][0-9]*\).*/\1/p' "$proto")
if [ -z "$nctx" ]; then
	echo "cosim: no RCLINK_COSIM_NCTX in $proto" >&2
	exit 1
fi

mkdir -p "$cache"
obj=$cache/$key.obj
rm -rf "$obj" "${cache:?}/$key"
mkdir -p "$obj"
echo "cosim: building rclink-cosim ($key), one job; log in $cache/build.log" >&2
if ! "$verilator" --cc --exe --build -j "${RCLINK_JOBS:-1}" \
	-Wno-fatal -Wno-WIDTH -Wno-BLKSEQ -Wno-UNUSEDSIGNAL -Wno-UNUSEDPARAM \
	-Wno-MULTIDRIVEN -Wno-INITIALDLY -Wno-UNOPTFLAT \
	-O3 -CFLAGS "-O1 -I$top/firmware/qemu/rclink" \
	-I"$rtl/gen" -I"$rtl" -I"$rtl/tb" \
	-GNCTX="$nctx" --top-module rclink_cosim_top --Mdir "$obj" -o rclink-cosim \
	"$here/rclink_cosim_top.v" "$rtl/tb/rclink_ip_model.v" \
	"$rtl/tb/rclink_mac_model.v" \
	"${srcs[@]/#/$rtl/}" "$here/rclink_cosim.cpp" \
	>"$cache/build.log" 2>&1; then
	tail -n 30 "$cache/build.log" >&2
	echo "cosim: build failed" >&2
	exit 1
fi
mkdir -p "$cache/$key"
mv "$obj/rclink-cosim" "$bin"
rm -rf "$obj"
# keep the three newest builds
find "$cache" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' |
	sort -rn | tail -n +4 | cut -d' ' -f2- | xargs -r rm -rf
echo "$bin"
