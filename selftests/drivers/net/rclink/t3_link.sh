#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Carrier follows SHIM_LINK.up: the test hook SHIM_LINK.force_down (BAR0)
# on board A takes its link down -> within 2 s carrier off and operstate
# not UP, ping fails both ways; force_down = 0 -> carrier on within 2 s,
# ping works again.  $RCLINK_LINK_CYCLES (3) times.  force_down is cleared
# at exit whatever happens.  Needs BAR0 mapped while bound (iomem=relaxed).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

CYCLES=${RCLINK_LINK_CYCLES:-3}
LINK_TIMEOUT=2
FORCE_DOWN=0x100

rcl_t3_setup
mark=$(rcl_kmsg_mark t3_link)

force_down() { # 0/1 -> exit status of the register write (4: cannot map)
	local v=0
	[ "$1" = 1 ] && v=$FORCE_DOWN
	rcl_py write "$RCL_BDF_A" SHIM_LINK "$v"
}
# shellcheck disable=SC2317 # called through rcl_t3_cleanup_hook
link_cleanup() { force_down 0 >/dev/null 2>&1; }
rcl_t3_cleanup_hook=link_cleanup

# Wait up to LINK_TIMEOUT s (from now, after the register write returned)
# for carrier VALUE of side A; prints the milliseconds waited.
wait_carrier_ms() { # value
	local t0 now
	t0=$(date +%s%N)
	while :; do
		now=$(date +%s%N)
		if [ "$(rcl_link_field A carrier)" = "$1" ]; then
			echo $(((now - t0) / 1000000))
			return 0
		fi
		if [ $((now - t0)) -gt $((LINK_TIMEOUT * 1000000000)) ]; then
			echo $(((now - t0) / 1000000))
			return 1
		fi
		sleep 0.02
	done
}

# Wait (2 s) until operstate of side A is UP (up) or anything else (down).
wait_operstate() { # up|down
	local end op
	end=$((SECONDS + 2))
	while :; do
		op=$(rcl_link_field A operstate)
		if [ "$1" = up ]; then
			[ "$op" = UP ] && return 0
		else
			[ "$op" != UP ] && return 0
		fi
		[ "$SECONDS" -gt "$end" ] && return 1
		sleep 0.1
	done
}

# Replies of a 2-packet ping from a side.
replies() { # side
	rcl_ping "$1" -c 2 -i 0.3 -W 1 -q 2>&1 | rcl_ping_received
}

ktap_plan $((1 + 2 * CYCLES + 1))

errs=""
for side in A B; do
	got=$(replies $side)
	[ "${got:-0}" -gt 0 ] || errs+="$side: no reply with the link up; "
done
ktap_result baseline_ping "$([ -z "$errs" ]; echo $?)" "$errs"

out=$(force_down 0 2>&1)
rc=$?
if [ "$rc" -ne 0 ]; then
	for ((i = 1; i <= CYCLES; i++)); do
		if [ "$rc" -eq "$KSFT_SKIP" ]; then
			ktap_skip "down_$i" "${out#SKIP: }"
			ktap_skip "up_$i" "${out#SKIP: }"
		else
			ktap_fail "down_$i" "SHIM_LINK write: $out"
			ktap_fail "up_$i"
		fi
	done
else
	for ((i = 1; i <= CYCLES; i++)); do
		errs=""
		force_down 1 || errs+="writing force_down failed; "
		if ms=$(wait_carrier_ms 0); then
			ktap_diag "cycle $i: carrier off $ms ms after the write"
		else
			errs+="carrier still on $ms ms after force_down; "
		fi
		# operstate follows through linkwatch (up to a second later).
		wait_operstate down || errs+="operstate $(rcl_link_field A operstate) with the link down; "
		up=$(rcl_py read "$RCL_BDF_A" SHIM_LINK 2>&1)
		[ "$((up & 1))" = 0 ] || errs+="SHIM_LINK $up after force_down; "
		for side in A B; do
			got=$(replies $side)
			[ "${got:-0}" -eq 0 ] || errs+="$side: $got replies with the link down; "
		done
		ktap_result "down_$i" "$([ -z "$errs" ]; echo $?)" "$errs"

		errs=""
		force_down 0 || errs+="clearing force_down failed; "
		if ms=$(wait_carrier_ms 1); then
			ktap_diag "cycle $i: carrier on $ms ms after the write"
		else
			errs+="carrier still off $ms ms after force_down = 0; "
		fi
		wait_operstate up || errs+="operstate $(rcl_link_field A operstate) with the link up; "
		for side in A B; do
			got=$(replies $side)
			[ "${got:-0}" -gt 0 ] || errs+="$side: no reply after the link came back; "
		done
		ktap_result "up_$i" "$([ -z "$errs" ]; echo $?)" "$errs"
	done
fi

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
