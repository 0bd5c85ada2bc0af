#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interrupt fallback: a board without MSI-X runs on MSI, one without MSI on
# INTx.  For each mode that some bound board is in, its probe self-test
# (which raised an interrupt in that mode) passed, and events injected
# after probe are delivered and counted: one, then a burst (for INTx the
# line must deassert and reassert correctly).  SKIP when no board is in
# MSI or INTx mode (a real board with MSI-X).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

BURST=8
# IRQ_INFO TYPE2 code 1: counter t2_tx_oversize
EV_TYPE=2
EV_CODE=1
EV_CNT=t2_tx_oversize

ktap_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
rcl_debugfs_setup
rcl_module_setup

declare -A board=()
for b in $(rcl_bound); do
	case $(rcl_irq_mode "$b") in
	"msi 1") [ -n "${board[msi]:-}" ] || board[msi]=$b ;;
	"intx 1") [ -n "${board[intx]:-}" ] || board[intx]=$b ;;
	esac
done
[ ${#board[@]} -gt 0 ] || ktap_skip_all "no board in MSI or INTx mode"

# Inject COUNT events into BDF and wait for the counter to move by COUNT.
check_events() { # bdf count
	local b=$1 n=$2 before after rc
	before=$(rcl_counter "$b" "$EV_CNT")
	[ -n "$before" ] || { echo "no counter $EV_CNT"; return 1; }
	rcl_inject "$b" "$EV_TYPE" "$EV_CODE" 0 "$n" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || return "$rc"
	rcl_wait_counter "$b" "$EV_CNT" $((before + n))
	sleep 0.2
	after=$(rcl_counter "$b" "$EV_CNT")
	if [ "$after" -ne $((before + n)) ]; then
		echo "$EV_CNT $before -> $after after $n event(s)" \
			"(evt_dropped $(rcl_counter "$b" evt_dropped))"
		return 1
	fi
	return 0
}

ktap_plan 6
for mode in msi intx; do
	b=${board[$mode]:-}
	if [ -z "$b" ]; then
		for t in selftest event burst; do
			ktap_skip "$mode.$t" "no board in $mode mode"
		done
		continue
	fi
	ktap_diag "$mode: board $b"
	rcl_selftest_ok "$b"
	ktap_result "$mode.selftest" $? "$(cat "$RCL_DBG/$b/selftest" 2>&1)"
	for t in event burst; do
		n=1
		[ "$t" = burst ] && n=$BURST
		out=$(check_events "$b" "$n")
		rc=$?
		if [ "$rc" -eq "$KSFT_SKIP" ]; then
			ktap_skip "$mode.$t" "${out#SKIP: }"
		else
			ktap_result "$mode.$t" "$rc" "$out"
		fi
	done
done
ktap_finish
