#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interface down/up and module unload under traffic: with a TCP stream
# from A to B running, `ip link set down/up` of each side
# $RCLINK_UPDOWN_CYCLES (5) times, every command finishing in time and the
# carrier coming back; traffic flows afterwards.  Then rmmod rclink while
# the stream runs: it finishes in time and the netdevs are gone; the module
# is loaded again, every board comes back with its netdev, and the pair
# pings again.  No WARN/BUG/leak in the kernel log.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

CYCLES=${RCLINK_UPDOWN_CYCLES:-5}
CMD_TIMEOUT=20

rcl_t3_setup
mark=$(rcl_kmsg_mark t3_updown)

# Kernel log trouble beyond rcl_splats: netdev refcount leaks, tx timeouts.
log_problems() {
	rcl_kmsg_since "$mark" | grep -E 'unregister_netdevice: waiting|NETDEV WATCHDOG|transmit queue .* timed out|leak' || true
	rcl_kmsg_since "$mark" | rcl_splats
}

# Both ways, 3 pings: at least 2 replies each.
ping_ok() {
	local side got errs=""
	for side in A B; do
		got=$(rcl_ping $side -c 3 -i 0.3 -W 2 -q 2>&1 | rcl_ping_received)
		[ "${got:-0}" -ge 2 ] || errs+="$side: ${got:-0}/3 replies; "
	done
	echo "$errs"
	[ -z "$errs" ]
}

ktap_plan $((2 * CYCLES + 5))

rcl_stream_start 600
sleep 2
for ((i = 1; i <= CYCLES; i++)); do
	for side in A B; do
		errs=""
		ns=$(rcl_ns $side)
		dev=$(rcl_if $side)
		timeout "$CMD_TIMEOUT" ip -n "$ns" link set dev "$dev" down ||
			errs+="link set down failed or hung; "
		sleep 0.3
		timeout "$CMD_TIMEOUT" ip -n "$ns" link set dev "$dev" up ||
			errs+="link set up failed or hung; "
		rcl_wait_carrier $side 1 || errs+="no carrier after up; "
		sleep 0.5
		ktap_result "updown_${side}_$i" "$([ -z "$errs" ]; echo $?)" "$errs"
	done
done
out=$(ping_ok)
ktap_result traffic_after_updown $? "$out"

# rmmod under traffic (the stream is still running: restart it if the
# down/up cycles broke it).
alive=0
for p in $rcl_stream_pids; do
	kill -0 "$p" 2>/dev/null && alive=$((alive + 1))
done
if [ "$alive" -lt 2 ]; then
	ktap_diag "stream ended during the down/up cycles ($alive alive): restarting"
	rcl_stream_stop
	rcl_stream_start 600
fi
sleep 2
boards=$(rcl_bound | tr '\n' ' ')
errs=""
t0=$SECONDS
if ! out=$(timeout "$((CMD_TIMEOUT * 3))" rmmod rclink 2>&1); then
	errs+="rmmod under traffic failed or hung after $((SECONDS - t0)) s: $out; "
else
	ktap_diag "rmmod took $((SECONDS - t0)) s"
	for side in A B; do
		ip -n "$(rcl_ns $side)" link show dev "$(rcl_if $side)" >/dev/null 2>&1 &&
			errs+="$(rcl_if $side) still in $(rcl_ns $side) after rmmod; "
	done
	[ -e "$RCL_DRIVER_DIR" ] && errs+="$RCL_DRIVER_DIR left; "
fi
ktap_result rmmod_under_traffic "$([ -z "$errs" ]; echo $?)" "$errs"
rcl_stream_stop

errs=""
if ! rcl_module_loaded; then
	out=$(rcl_module_load 2>&1) || errs+="reload: $out; "
fi
if rcl_module_loaded; then
	now=$(rcl_bound | tr '\n' ' ')
	[ "$now" = "$boards" ] || errs+="bound '$now', was '$boards'; "
	for b in $boards; do
		[ -n "$(rcl_netdev "$b")" ] || errs+="$b: no netdev after reload; "
	done
fi
ktap_result reload_netdevs "$([ -z "$errs" ]; echo $?)" "$errs"

# The new netdevs back into the namespaces: traffic again.
errs=""
for side in A B; do
	dev=$(rcl_netdev "$(rcl_bdf $side)")
	if [ -z "$dev" ]; then
		errs+="$side: no netdev; "
		continue
	fi
	if [ $side = A ]; then RCL_IF_A=$dev; else RCL_IF_B=$dev; fi
	rcl_t3_side_into_ns $side || errs+="$side: cannot move $dev into its netns; "
done
if [ -z "$errs" ]; then
	for side in A B; do
		rcl_wait_carrier $side 1 || errs+="$side: no carrier; "
	done
	rcl_ping A -c 1 -W 2 -q >/dev/null 2>&1
	out=$(ping_ok) || errs+="$out"
fi
ktap_result traffic_after_reload "$([ -z "$errs" ]; echo $?)" "$errs"

bad=$(log_problems)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
