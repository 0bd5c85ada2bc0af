#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shim RTL's checks (Documentation/hw/rtl.rst):
#   rtl.sh lint    verilator --lint-only -Wall of the synthesizable RTL
#   rtl.sh sim     Icarus Verilog: every shared vector (firmware/vectors)
#                  on the testbench (shim + IP stand-in + host stand-in)
#   rtl.sh synth   yosys generic synthesis: no latches, no multiple or
#                  missing drivers (check -assert), resource counts
# Output goes to $RCLINK_BUILD/rtl (default build/rtl); each part prints
# KTAP lines ("ok N name" / "not ok N name").  Exit status 1 on a failure.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${RCLINK_BUILD:-$top/build}/rtl
case $out in /*) ;; *) out=$top/$out ;; esac
mkdir -p "$out"
cd "$here" || exit 1

srcs=(rclink_bar0.v rclink_axil_master.v rclink_avmm_master.v rclink_csr.v
      rclink_evt.v rclink_irq.v rclink_dmatest.v rclink_dma_arb.v rclink_sq.v
      rclink_cq.v rclink_rx.v rclink_shim_top.v rclink_tlp_cpl.v
      rclink_tlp_req.v rclink_msix.v rclink_shim_tlp.v rclink_us_if.v
      rclink_shim_us.v)
n=0
rc=0

result() { # NAME STATUS LOG
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		echo "ok $n $1"
	else
		[ -f "$3" ] && sed 's/^/# /' "$3" | tail -n 40
		echo "not ok $n $1"
		rc=1
	fi
}

lint() {
	local top st=0
	: >"$out/lint.log"
	# the word-level core alone, and the UltraScale+ top around it
	for top in rclink_shim_top rclink_shim_us; do
		verilator --lint-only -Wall -Wno-UNUSEDSIGNAL -Wno-UNUSEDPARAM \
			-Igen -I. --top-module "$top" "${srcs[@]}" \
			>>"$out/lint.log" 2>&1 || st=1
	done
	result rtl_lint $st "$out/lint.log"
}

sim() {
	local v name st ost vvp
	local iv_flags=(-g2005 -Wall -Wno-timescale
		-Wno-sensitivity-entire-array -Igen -Itb -I.)
	rm -f "$out"/rclink_tb*.vvp
	if ! iverilog "${iv_flags[@]}" -s rclink_tb -o "$out/rclink_tb.vvp" \
		tb/rclink_tb.v tb/rclink_ip_model.v "${srcs[@]}" \
		>"$out/iverilog.log" 2>&1 || grep -q 'error' "$out/iverilog.log"; then
		result rtl_sim_build 1 "$out/iverilog.log"
		return
	fi
	for v in "$top"/firmware/vectors/*.json; do
		name=$(basename "$v" .json)
		st=1
		# a vector may want fewer TX_S_CRD_O tokens (sim_ost_n)
		ost=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get("sim_ost_n", ""))' "$v")
		vvp=$out/rclink_tb.vvp
		if [ -n "$ost" ]; then
			vvp=$out/rclink_tb_ost$ost.vvp
			[ -f "$vvp" ] || iverilog "${iv_flags[@]}" -s rclink_tb -Prclink_tb.OST_N="$ost" \
				-o "$vvp" tb/rclink_tb.v tb/rclink_ip_model.v \
				"${srcs[@]}" >>"$out/iverilog.log" 2>&1
		fi
		if /usr/bin/python3 tb/vec2tb.py "$v" "$out/$name.hex" \
			>"$out/$name.log" 2>&1 &&
			vvp -n "$vvp" +cmds="$out/$name.hex" \
			+name="$name" >>"$out/$name.log" 2>&1 &&
			grep -q "^RESULT $name PASS" "$out/$name.log"; then
			st=0
		fi
		grep '^RESULT' "$out/$name.log" | sed 's/^/# /'
		result "rtl_sim_$name" $st "$out/$name.log"
	done
}

synth() {
	local st=1
	if yosys -q -l "$out/synth.log" \
		-p "script synth/synth.ys; write_json $out/netlist.json" \
		>/dev/null 2>&1 &&
		/usr/bin/python3 synth/report.py "$out/netlist.json" \
		>"$out/resources.txt" 2>&1; then
		st=0
	fi
	[ -f "$out/resources.txt" ] && sed 's/^/# /' "$out/resources.txt"
	result rtl_synth $st "$out/synth.log"
}

for part in "${@:-lint sim synth}"; do
	for p in $part; do
		case $p in
		lint) lint ;;
		sim) sim ;;
		synth) synth ;;
		*) echo "usage: $0 [lint] [sim] [synth]" >&2; exit 2 ;;
		esac
	done
done
exit $rc
