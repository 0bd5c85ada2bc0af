#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every board on one wire that floods (a QEMU hub: `selftests/vm/boards.sh
# hub`, 8 boards by default; on hardware, boards on one switch), TYPE3 and
# TYPE1 across all of them:
#
#   * TYPE3: each board's netdev in a namespace of its own with
#     10.199.0.<n>/24; every board pings every other board (N * (N - 1)
#     pairs) and learns every neighbour;
#   * TYPE1: every pair of boards, board i's QP 16 + 4j paired with board
#     j's QP 16 + 4i (one bank); three messages (1, 4096, 70000 bytes) each
#     way on every pair, eight pairs at a time, checked byte for byte; the
#     QP counters match (3 sent, 3 received on each QP; nothing flushed).
#
# Skips with fewer than three boards with carrier.  Leaves the netdevs
# down in the initial namespace as found, the TYPE1 configuration
# restored and no QP of its own.  TYPE2 across the boards is t2_hub.py.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

QPBASE=16
NSPFX=rclhub
ktap_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
command -v ip >/dev/null || ktap_skip_all "no ip (iproute2)"
rcl_debugfs_setup
rcl_module_setup

bdfs=() ifs=() ups=() cdevs=()
tmp=$(mktemp -d)
nsdone=0
qps=()		# "cdev qpn" added by this test

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local i q args
	for q in "${qps[@]}"; do
		# shellcheck disable=SC2086 # "dev qpn"
		set -- $q
		rcl_tool qp del dev "$1" qpn "$2" >/dev/null 2>&1
	done
	for ((i = 0; i < ${#cdevs[@]}; i++)); do
		[ -s "$tmp/dev$i.json" ] || continue
		args=$(rcl_t1py restore-args "$tmp/dev$i.json" "${cdevs[i]}" 2>/dev/null)
		# shellcheck disable=SC2086 # a list of arguments
		[ -z "$args" ] || rcl_tool dev set dev "${cdevs[i]}" $args >/dev/null 2>&1 ||
			echo "# restoring ${cdevs[i]} failed"
	done
	for ((i = 0; i < nsdone; i++)); do
		ip -n "$NSPFX$i" link set dev "${ifs[i]}" down 2>/dev/null
		ip -n "$NSPFX$i" addr flush dev "${ifs[i]}" 2>/dev/null
		ip -n "$NSPFX$i" link set dev "${ifs[i]}" netns 1 2>/dev/null
		ip netns del "$NSPFX$i" 2>/dev/null
	done
	for ((i = 0; i < ${#ifs[@]}; i++)); do
		[ "${ups[i]}" = 1 ] || ip link set dev "${ifs[i]}" down 2>/dev/null
	done
	rm -rf "$tmp"
	rcl_module_cleanup
}
trap cleanup EXIT

# The boards with carrier, in PCI order
for b in $(rcl_bound); do
	dev=$(rcl_netdev "$b")
	[ -n "$dev" ] || continue
	up=$(ip -j link show dev "$dev" | grep -c '"UP"' || true)
	ip link set dev "$dev" up 2>/dev/null || continue
	if [ "$(rcl_probe_carrier "$dev")" = 1 ]; then
		bdfs+=("$b")
		ifs+=("$dev")
		ups+=("$up")
	elif [ "$up" = 0 ]; then
		ip link set dev "$dev" down
	fi
done
N=${#bdfs[@]}
[ "$N" -ge 3 ] || ktap_skip_all "$N board(s) with carrier: need three or more on one wire (selftests/vm/boards.sh hub)"
ktap_plan 5
ktap_diag "$N boards: ${bdfs[*]}"

# 1: TYPE3 set up, one namespace per board
errs=""
for ((i = 0; i < N; i++)); do
	ns=$NSPFX$i
	ip netns add "$ns" || { errs+="netns $ns; "; break; }
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
	ip -n "$ns" link set lo up
	ip link set dev "${ifs[i]}" down
	ip link set dev "${ifs[i]}" netns "$ns" || { errs+="moving ${ifs[i]}; "; break; }
	nsdone=$((i + 1))
	ip -n "$ns" addr add "10.199.0.$((i + 1))/24" dev "${ifs[i]}"
	ip -n "$ns" link set dev "${ifs[i]}" up
done
for ((i = 0; i < nsdone; i++)); do
	end=$((SECONDS + 5))
	until [ "$(ip netns exec "$NSPFX$i" cat "/sys/class/net/${ifs[i]}/carrier" 2>/dev/null)" = 1 ]; do
		[ "$SECONDS" -gt "$end" ] && errs+="no carrier on ${ifs[i]}; " && break
		sleep 0.1
	done
done
ktap_result t3_setup "$([ -z "$errs" ]; echo $?)" "$errs"

# 2: every board pings every other (one source at a time, its pings at once)
errs=""
npairs=0
for ((i = 0; i < nsdone; i++)); do
	pids=()
	for ((j = 0; j < nsdone; j++)); do
		[ "$i" = "$j" ] && continue
		ip netns exec "$NSPFX$i" ping -q -c 2 -i 0.2 -W 5 "10.199.0.$((j + 1))" \
			>"$tmp/ping.$i.$j" 2>&1 &
		pids+=("$!:$j")
	done
	for p in "${pids[@]}"; do
		if wait "${p%%:*}"; then
			npairs=$((npairs + 1))
		else
			errs+="board $i -> ${p#*:}: $(grep -h 'packet loss' "$tmp/ping.$i.${p#*:}"); "
		fi
	done
done
ktap_diag "TYPE3: $npairs of $((N * (N - 1))) ordered pairs answered"
[ "$npairs" -eq $((N * (N - 1))) ] || [ -n "$errs" ] || errs="only $npairs pairs"
ktap_result t3_all_pairs "$([ -z "$errs" ]; echo $?)" "$errs"

# 3: every board knows every other's MAC (ARP through the flooding wire)
errs=""
for ((i = 0; i < nsdone; i++)); do
	n=$(ip -n "$NSPFX$i" neigh show dev "${ifs[i]}" | grep -c lladdr || true)
	[ "$n" -eq $((N - 1)) ] || errs+="board $i has $n neighbours; "
done
ktap_result t3_neighbours "$([ -z "$errs" ]; echo $?)" "$errs"

# 4, 5: TYPE1 in a ring
if [ ! -x "$RCL_TOOL" ]; then
	ktap_skip t1_all_pairs "no rclink tool ($RCL_TOOL)"
	ktap_skip t1_counters "no rclink tool ($RCL_TOOL)"
	ktap_finish
fi
for ((i = 0; i < N; i++)); do
	cdevs[i]=""
	for c in /sys/class/rclink/rclink*; do
		[ "$(basename "$(readlink -f "$c/device")")" = "${bdfs[i]}" ] &&
			cdevs[i]=$(basename "$c")
	done
done
errs=""
macs=()
for ((i = 0; i < N; i++)); do
	c=${cdevs[i]}
	[ -n "$c" ] || { errs+="no /dev/rclinkN for ${bdfs[i]}; "; continue; }
	[ -z "$(rcl_t1_qpns "$c")" ] || ktap_skip_all "$c has QPs"
	rcl_tool -j dev show dev "$c" >"$tmp/dev$i.json"
	rcl_tool dev set dev "$c" ip "10.198.1.$((i + 1))" || errs+="dev set $c ip; "
	macs[i]=$(rcl_json_get mac <"$tmp/dev$i.json")
done
SIZES=1,4096,70000
# every pair i < j: board i's QP QPBASE + 4j with board j's QP QPBASE + 4i
# (a multiple of 4 apart: the same bank for every TYPE1_VC_NUM)
pairs=()
for ((i = 0; i < N; i++)); do
	for ((j = i + 1; j < N; j++)); do
		[ -z "$errs" ] || break 2
		a=${cdevs[i]} b=${cdevs[j]}
		out=$(rcl_tool qp add dev "$a" qpn $((QPBASE + 4 * j)) \
			dqpn $((QPBASE + 4 * i)) dip "10.198.1.$((j + 1))" \
			dmac "${macs[j]}" 2>&1) || errs+="qp add $a: $out; "
		qps+=("$a $((QPBASE + 4 * j))")
		out=$(rcl_tool qp add dev "$b" qpn $((QPBASE + 4 * i)) \
			dqpn $((QPBASE + 4 * j)) dip "10.198.1.$((i + 1))" \
			dmac "${macs[i]}" 2>&1) || errs+="qp add $b: $out; "
		qps+=("$b $((QPBASE + 4 * i))")
		pairs+=("$i $j")
	done
done
# The pairs in batches of BATCH at once: each side of a pair sends its
# messages and reads and checks the other's on one bound file.
BATCH=8
nok=0
for ((k = 0; k < ${#pairs[@]}; k += BATCH)); do
	[ -z "$errs" ] || break
	pids=()
	for p in "${pairs[@]:k:BATCH}"; do
		read -r i j <<<"$p"
		qa=$((QPBASE + 4 * j)) qb=$((QPBASE + 4 * i))
		rcl_t1py chan "${cdevs[i]}" $qa xfer $SIZES 0 $qb 100 60 \
			>"$tmp/x$i.$j" 2>&1 &
		pids+=("$!:x$i.$j")
		rcl_t1py chan "${cdevs[j]}" $qb xfer $SIZES 100 $qa 0 60 \
			>"$tmp/x$j.$i" 2>&1 &
		pids+=("$!:x$j.$i")
	done
	for p in "${pids[@]}"; do
		if wait "${p%%:*}"; then
			nok=$((nok + 1))
		else
			errs+="${p#*:}: $(tr '\n' ' ' <"$tmp/${p#*:}"); "
		fi
	done
done
ktap_diag "TYPE1: $nok of $((N * (N - 1))) directions (every pair, both ways) carried 3 messages ($SIZES bytes)"
[ "$nok" -eq $((N * (N - 1))) ] || [ -n "$errs" ] ||
	errs="only $nok directions"
ktap_result t1_all_pairs "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
for q in "${qps[@]}"; do
	# shellcheck disable=SC2086 # "dev qpn"
	set -- $q
	read -r tx rx txf rxf < <(rcl_tool -j -s qp show dev "$1" qpn "$2" |
		rcl_json_get tx_msgs rx_msgs tx_flushed rx_flushed | tr '\n' ' ')
	[ "$tx $rx $txf $rxf" = "3 3 0 0" ] ||
		errs+="$1 qp $2: tx_msgs $tx rx_msgs $rx tx_flushed $txf rx_flushed $rxf; "
done
ktap_result t1_counters "$([ -z "$errs" ]; echo $?)" "$errs"
ktap_finish
