#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shim RTL's checks (Documentation/hw/rtl.rst):
#   rtl.sh lint    verilator --lint-only -Wall of the synthesizable RTL
#   rtl.sh sim     Icarus Verilog: every shared vector (firmware/vectors)
#                  on the testbench (shim + IP stand-in + host stand-in);
#                  first the vecset part
#   rtl.sh sim-short   the same for the vectors the short cocotb run
#                  (RCLINK_COCOTB_SHORT=1) leaves out (cocotb_long)
#   rtl.sh vecset  cocotb/vecset.py --check alone (the vectors the cocotb
#                  benches replay, the reasons of the others, rtl.rst)
#   rtl.sh synth   yosys synth_xilinx for UltraScale+ (family xcup) of the
#                  UltraScale+ top: no latches, no multiple or missing
#                  drivers (check -assert), the resources (LUT, FF, LUT
#                  RAM, block RAM, DSP, CARRY8) and the deepest paths in
#                  LUT levels (synth/report.py), one "rtl-synth: xcup"
#                  line; resources.txt
#   rtl.sh synth-ptile   the same checks on the P-tile top, generic
#                  yosys (no vendor library): resources-ptile.txt
#   rtl.sh synth-generic the UltraScale+ top, generic: resources-generic.txt
#   rtl.sh synth:MODULE  synth_xilinx of one block alone (e.g.
#                  synth:rclink_sq; its ports count as path ends), to
#                  measure a block's LUT levels before and after a change:
#                  synth-MODULE.txt
#   rtl.sh cocotb  cocotb on Icarus: the UltraScale+ top (rclink_shim_us)
#                  under cocotbext-pcie's root complex and hard IP model
#                  (firmware/rtl/cocotb: test_rclink_us, test_rclink_dma
#                  on the DMA engine's burst port, test_rclink_t3 on the
#                  TYPE3 bridge, test_rclink_q on the queue engines'
#                  bursts, test_rclink_mac on the MAC side's streams);
#                  then the same tests on the P-tile top
#                  (rclink_shim_ptile, cocotbext-pcie's P-tile model,
#                  RCLINK_PCIE=ptile); RCLINK_COCOTB_SHORT=1 for the
#                  short run of make check (a short set on the P-tile);
#                  RCLINK_RC_TLPS=2 or 1 runs the UltraScale+ one with two
#                  TLPs a RC beat or straddling off (default 4),
#                  RCLINK_RQ_TLPS=1 with RQ straddling off (default 2).  A
#                  vector that wants fewer TX_S tokens (sim_ost_n) runs
#                  alone on the bench built again with that OST_N
#                  (cocotb-ost4 and so on beside cocotb).
#                  Needs the virtual environment of .ci/deps.sh (skipped
#                  without it)
#   rtl.sh cocotb-us, cocotb-ptile   one of the two benches alone
#   rtl.sh bench   not a test: the DMA engine's read and write throughput
#                  (4 KiB bursts), the send queue's and the receive path's
#                  message rates (64 B and 4 KiB messages) in the cocotb
#                  environment, at the 250 MHz cycle time (simulated
#                  cycles); the lines "rtl-bench: dma ...", "rtl-bench:
#                  sq ..." and "rtl-bench: rx ...", the queues' also
#                  with every host read answered RCLINK_BENCH_LAT us
#                  late (default 1: "... at 1 us read latency ..."),
#                  then the queues' on the P-tile top ("rtl-bench:
#                  ptile ...")
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
      rclink_tlp_req.v rclink_axi_dma.v rclink_msix.v
      rclink_shim_tlp.v rclink_us_if.v rclink_shim_us.v rclink_ctx.v rclink_qpstat.v
      rclink_mr.v rclink_ptile_if.v rclink_shim_ptile.v rclink_mac.v)
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
	local top st=0 w
	: >"$out/lint.log"
	# the word-level core alone, and the UltraScale+ and P-tile tops
	# around it; each also with user contexts (NCTX 8: rclink_ctx, the
	# doorbell BAR)
	# (the P-tile's RX_OFF 0 makes a lane comparison of the engine
	# constant: -Wno-UNSIGNED there)
	for top in rclink_shim_top rclink_shim_us rclink_shim_ptile; do
		w=()
		[ "$top" = rclink_shim_ptile ] && w=(-Wno-UNSIGNED)
		for g in -GNCTX=1 -GNCTX=8; do
			verilator --lint-only -Wall -Wno-UNUSEDSIGNAL -Wno-UNUSEDPARAM \
				"${w[@]}" "$g" -Igen -I. --top-module "$top" "${srcs[@]}" \
				>>"$out/lint.log" 2>&1 || st=1
		done
	done
	result rtl_lint $st "$out/lint.log"
}

# each vector is replayed by the cocotb benches or says why not, and
# rtl.rst's lists are cocotb/vecset.py's
vecset() {
	local st=0
	/usr/bin/python3 cocotb/vecset.py --check >"$out/vecset.log" 2>&1 || st=1
	result rtl_vecset $st "$out/vecset.log"
}

sim() { # [short]: only the vectors the short cocotb run leaves out
	local v name st ost vvp why
	vecset
	local iv_flags=(-g2005 -Wall -Wno-timescale
		-Wno-sensitivity-entire-array -Igen -Itb -I. -I"$out")
	rm -f "$out"/rclink_tb*.vvp
	# the testbench's wires of the IP's TYPE3 masters: the port list of
	# rclink_nonr_ports.vh as declarations
	sed -E '/^[[:space:]]*(input|output)[[:space:]]/{
		s/^([[:space:]]*)(input|output)[[:space:]]+wire/\1wire/
		s/,([[:space:]]*(\/\/.*)?)$/;\1/
	}' rclink_nonr_ports.vh >"$out/rclink_nonr_wires.vh"
	if ! iverilog "${iv_flags[@]}" -s rclink_tb -o "$out/rclink_tb.vvp" \
		tb/rclink_tb.v tb/rclink_ip_model.v tb/rclink_t3_model.v tb/rclink_mac_model.v "${srcs[@]}" \
		>"$out/iverilog.log" 2>&1 || grep -q 'error' "$out/iverilog.log"; then
		result rtl_sim_build 1 "$out/iverilog.log"
		return
	fi
	for v in "$top"/firmware/vectors/*.json; do
		name=$(basename "$v" .json)
		st=1
		# make check's short run: the vectors of more than 10 s on
		# the cocotb bench (cocotb_long), which its short set leaves out
		if [ "${1:-}" = short ] && [ -z "$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get("cocotb_long", ""))' "$v")" ]; then
			continue
		fi
		# a vector of a function the RTL does not have yet (model_only)
		# or of the wire's ops, which this bench (its MAC side tied
		# off) cannot play (tb_skip; the cocotb benches replay it)
		why=$(/usr/bin/python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
print(v.get("model_only", "") or v.get("tb_skip", ""))' "$v")
		if [ -n "$why" ]; then
			n=$((n + 1))
			echo "ok $n rtl_sim_$name # SKIP $why"
			continue
		fi
		# a vector may want fewer TX_S_CRD_O tokens (sim_ost_n)
		ost=$(/usr/bin/python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get("sim_ost_n", ""))' "$v")
		vvp=$out/rclink_tb.vvp
		if [ -n "$ost" ]; then
			vvp=$out/rclink_tb_ost$ost.vvp
			[ -f "$vvp" ] || iverilog "${iv_flags[@]}" -s rclink_tb -Prclink_tb.OST_N="$ost" \
				-o "$vvp" tb/rclink_tb.v tb/rclink_ip_model.v tb/rclink_t3_model.v tb/rclink_mac_model.v \
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

synth_top() { # TOP SCRIPT NAME: yosys with SCRIPT on TOP, then report.py
	local st=1 top=$1 ys=$2 name=$3 t0=$SECONDS
	if yosys -q -l "$out/$name.log" \
		-p "read_verilog -Igen -I. ${srcs[*]}; hierarchy -check -top $top; script $ys; write_json $out/$name.json" \
		>/dev/null 2>&1 &&
		/usr/bin/python3 synth/report.py "$out/$name.json" \
		>"$out/$name.txt" 2>&1; then
		st=0
	fi
	echo "$name: $((SECONDS - t0)) s" >>"$out/$name.txt"
	[ -f "$out/$name.txt" ] && sed 's/^/# /' "$out/$name.txt"
	grep -h '^rtl-synth:' "$out/$name.txt" 2>/dev/null
	result "rtl_$name" $st "$out/$name.log"
}

# the UltraScale+ top mapped to the family's cells: resources.txt
synth() {
	synth_top rclink_shim_us synth/xilinx.ys resources
}

# the P-tile top, generic: resources-ptile.txt
synth_ptile() {
	synth_top rclink_shim_ptile synth/synth.ys resources-ptile
}

# the UltraScale+ top, generic (the counts of the earlier reports)
synth_generic() {
	synth_top rclink_shim_us synth/synth.ys resources-generic
}

# the P-tile bench's short set (RCLINK_COCOTB_SHORT=1): probe and
# registers, self-test, MSI-X and the event ring, MSI as a memory write,
# the doorbell BAR, a user context's TYPE1 send and receive, the TX
# credit check and the tile's own credits, the RX back-pressure and the
# request FIFO's wrap, INTx, TX packing, the TYPE3 write ordering before
# its message, every RX FIFO beat once and in order (the block RAM banks'
# read-ahead)
ptile_short=test_probe_registers,test_dma_selftest,test_msix,test_msi,test_ctx_doorbell_bar,test_q_ctx_user,test_ptile_credits,test_ptile_credits_tile_own,test_ptile_rx_backpressure,test_ptile_rx_wrap,test_ptile_intx,test_ptile_tx_packing,test_t3_write_before_irq,test_ptile_rx_fifo_order

cocotb() {
	cocotb_top us
	[ -n "${RCLINK_BENCH:-}" ] || cocotb_top ptile
}

cocotb_top() { # us|ptile: the UltraScale+ or the P-tile bench
	local venv=${RCLINK_CACHE:-$HOME/.cache/rclink}/cocotb-venv
	local d=$out/cocotb tb=rclink_us_tb pfx=rtl_cocotb_ tests=${TESTCASE:-}
	# the UltraScale+ shim and the model: RCLINK_RC_TLPS a RC beat
	local par=(-Prclink_us_tb.RC_TLPS="${RCLINK_RC_TLPS:-4}"
		-Prclink_us_tb.RQ_TLPS="${RCLINK_RQ_TLPS:-2}")
	local line ost t main names
	local -a osts=()
	if [ "$1" = ptile ]; then
		par=()
		d=$out/cocotb-ptile
		tb=rclink_ptile_tb
		pfx=rtl_cocotb_ptile_
		[ "${RCLINK_COCOTB_SHORT:-0}" != 0 ] && tests=$ptile_short
	fi
	if [ ! -x "$venv/bin/cocotb-config" ]; then
		n=$((n + 1))
		echo "ok $n ${pfx%_} # SKIP no cocotb virtual environment (make deps)"
		return
	fi
	# the vectors that want fewer TX_S tokens (their sim_ost_n) run on the
	# bench built again with that OST_N (the shim's), alone; the bench of
	# the contract's TYPE1_OST_N leaves them out
	case ,${RCLINK_COCOTB_MODULE:-test_rclink_us}, in
	*,test_rclink_us,*)
		while read -r line; do
			osts+=("$line")
		done < <(/usr/bin/python3 cocotb/vecset.py --ost) ;;
	esac
	main=,$tests,
	for line in "${osts[@]}"; do
		for t in ${line#* }; do
			main=${main//,test_vector_$t,/,}
		done
	done
	main=${main#,}
	main=${main%,}
	[ -z "$tests" ] || [ -n "$main" ] &&
		cocotb_run "$d" "$tb" "$pfx" "$main" "$1" "${par[@]}"
	for line in "${osts[@]}"; do
		ost=${line%% *}
		names=
		for t in ${line#* }; do
			case ,$tests, in
			,,|*,test_vector_$t,*) names=${names:+$names,}test_vector_$t ;;
			esac
		done
		[ -z "$names" ] ||
			cocotb_run "$d-ost$ost" "$tb" "$pfx" "$names" "$1" "${par[@]}" \
				-P"$tb.OST_N=$ost"
	done
}

cocotb_run() { # DIR TB PREFIX TESTS us|ptile IVERILOG_PARAMS...: build, run
	local venv=${RCLINK_CACHE:-$HOME/.cache/rclink}/cocotb-venv
	local d=$1 tb=$2 pfx=$3 tests=$4 pcie=$5
	shift 5
	local par=("$@")
	rm -rf "$d" && mkdir -p "$d"
	if ! iverilog -g2005 -Wall -Wno-timescale -Wno-sensitivity-entire-array \
		-Igen -Itb -Icocotb -I. -s "$tb" -o "$d/sim.vvp" "${par[@]}" \
		"cocotb/$tb.v" tb/rclink_ip_model.v tb/rclink_mac_model.v "${srcs[@]}" \
		>"$d/iverilog.log" 2>&1 || grep -q 'error' "$d/iverilog.log"; then
		result "${pfx}build" 1 "$d/iverilog.log"
		return
	fi
	(
		cd "$d" || exit 1
		MODULE=${RCLINK_COCOTB_MODULE:-test_rclink_us,test_rclink_dma,test_rclink_t3,test_rclink_q,test_rclink_mac} \
		TESTCASE=$tests RCLINK_PCIE=$pcie RCLINK_RC_TLPS=${RCLINK_RC_TLPS:-4} RCLINK_RQ_TLPS=${RCLINK_RQ_TLPS:-2} \
		RCLINK_BENCH_OUT=$d/bench.txt TOPLEVEL=$tb TOPLEVEL_LANG=verilog \
		PYTHONPATH=$here/cocotb RCLINK_HW_PY=$top/selftests/drivers/net/rclink \
		RCLINK_VECTORS=$top/firmware/vectors \
		PYGPI_PYTHON_BIN=$venv/bin/python COCOTB_RESULTS_FILE=$d/results.xml \
		LIBPYTHON_LOC=$("$venv/bin/cocotb-config" --libpython) \
		COCOTB_ANSI_OUTPUT=0 COCOTB_RESOLVE_X=ZEROS PYTHONDONTWRITEBYTECODE=1 PATH=$venv/bin:$PATH \
			vvp -M "$("$venv/bin/cocotb-config" --lib-dir)" \
			-m "$("$venv/bin/cocotb-config" --lib-name vpi icarus)" \
			sim.vvp >"$d/sim.log" 2>&1
	)
	# one KTAP line per test of results.xml; a failed test's part of the
	# log (its traceback) in NAME.fail
	local line
	while read -r line; do
		case $line in
		PASS\ *) result "$pfx${line#PASS }" 0 /dev/null ;;
		SKIP\ *) n=$((n + 1)); echo "ok $n $pfx${line#SKIP } # SKIP" ;;
		FAIL\ *) result "$pfx${line#FAIL }" 1 "$d/${line#FAIL }.fail" ;;
		esac
	done < <(/usr/bin/python3 - "$d" <<-'EOF'
		import os
		import re
		import sys
		import xml.etree.ElementTree as ET
		d = sys.argv[1]
		try:
		    cases = list(ET.parse(d + "/results.xml").getroot().iter("testcase"))
		except (OSError, ET.ParseError):
		    cases = None
		log = open(d + "/sim.log", errors="replace").read() if os.path.exists(d + "/sim.log") else ""
		parts = re.split(r"\n(?=.*cocotb.regression +running )", log)
		if not cases:
		    open(d + "/run.fail", "w").write("\n".join(log.splitlines()[-40:]) + "\n")
		    print("FAIL run")
		    sys.exit(0)
		for c in cases:
		    name = c.get("name")
		    bad = c.find("failure") is not None or c.find("error") is not None
		    if c.find("skipped") is not None:
		        print("SKIP " + name)
		        continue
		    if bad:
		        own = [p for p in parts if re.search(r"running %s\b" % name, p)]
		        lines = (own[0] if own else log).splitlines()
		        open("%s/%s.fail" % (d, name), "w").write("\n".join(lines[-30:]) + "\n")
		    print(("FAIL " if bad else "PASS ") + name)
		EOF
	)
	grep -E 'TESTS=' "$d/sim.log" | sed 's/^[ *]*/# /'
}

bench() {
	local d=$out/cocotb
	RCLINK_COCOTB_MODULE=test_rclink_dma,test_rclink_q \
		TESTCASE=test_dma_bench,test_q_bench,test_rx_bench RCLINK_BENCH=1 cocotb
	# the queue benches on the P-tile top too ("rtl-bench: ptile ...")
	RCLINK_COCOTB_MODULE=test_rclink_q TESTCASE=test_q_bench,test_rx_bench \
		RCLINK_BENCH=1 cocotb_top ptile
	[ -f "$d/bench.txt" ] && cat "$d/bench.txt"
	[ -f "$d-ptile/bench.txt" ] && cat "$d-ptile/bench.txt"
}

for part in "${@:-lint sim synth}"; do
	for p in $part; do
		case $p in
		lint) lint ;;
		sim) sim ;;
		sim-short) sim short ;;
		vecset) vecset ;;
		synth) synth ;;
		synth-ptile) synth_ptile ;;
		synth-generic) synth_generic ;;
		synth:?*) synth_top "${p#synth:}" synth/xilinx.ys "synth-${p#synth:}" ;;
		cocotb) cocotb ;;
		cocotb-us) cocotb_top us ;;
		cocotb-ptile) cocotb_top ptile ;;
		bench) bench ;;
		*) echo "usage: $0 [lint] [sim] [sim-short] [vecset] [synth] [synth-ptile] [synth-generic] [synth:MODULE] [cocotb] [cocotb-us] [cocotb-ptile] [bench]" >&2; exit 2 ;;
		esac
	done
done
exit $rc
