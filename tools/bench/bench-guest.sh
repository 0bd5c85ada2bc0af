#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench` (run by tools/bench/run-bench.sh inside a
# run-guest.sh guest).  Numbers only: nothing here passes or fails on
# performance.  Four parts, one table each, all into
# $RCLINK_RESULTS/bench.txt (Documentation/performance.rst explains them):
#
# 1. TCP and ping per NIC pair wired back to back -- the rclink boards'
#    TYPE3 netdevs, two e1000e, two virtio-net -- one NIC in each of two
#    network namespaces: TCP throughput A -> B for $BENCH_SECONDS (10) s
#    (iperf3, else the python sender/receiver of the selftests' lib), and
#    the average RTT of $BENCH_PINGS (100) pings 10 ms apart.
# 2. Messages of 64 B, 1 KiB and 4 KiB ($BENCH_SIZES) A -> B:
#      rclink TYPE1 through write/read and through the mmap'd rings
#        (rclink-bench; batch 32), QP 1 of each board;
#      rdma_rxe RC SEND over the rclink TYPE3 netdevs (perftest ib_send_bw
#        with a post list of 32 and completion events; ib_send_lat, which
#        busy-polls: no instruction count);
#      UDP over the virtio-net pair (sockperf throughput / ping-pong);
#    throughput (rclink: $BENCH_MSGS messages, 20000; rxe and UDP: a
#    $BENCH_WINDOW s window of a steady run), round-trip latency
#    ($BENCH_RTTS round trips, 1000; sockperf: $BENCH_UDP_SECS s; median, p99)
#    and guest instructions per message (the rclink-insn TCG plugin, when
#    run-bench.sh loaded it: $RCLINK_INSN_LOG).
# 3. Ratios: ring vs read/write, rclink ring vs rxe and vs UDP, and the
#    goal "<= 300 instructions/message on the ring path at batch 32, >= 10x
#    fewer than rxe and UDP".
# 4. QP_NUM QPs (up to 1024) created and bound at once on both boards:
#    time and kernel memory per QP.
# 5. TYPE2 multicast messages/s beside TYPE1's, and the rate control: the
#    bit rate a QP limited to $BENCH_RATES achieves against the configured
#    one.
# 6. One-sided RDMA WRITE and READ of $BENCH_RDMA_SIZES (64, 4 KiB, 64 KiB)
#    bytes: rclink between two contexts (rclink-bench write/read, 64 in
#    flight, A sleeping on a CQ event while its window is full; one at a
#    time for the latency, busy-polled: post to completion) beside rdma_rxe's ib_write_bw / ib_read_bw (post lists
#    of 32) and ib_write_lat / ib_read_lat over the rclink netdevs: ops/s,
#    MB/s, latency, instructions per operation (rxe: its whole client run,
#    connection setup included, over its iterations).
# With BENCH_PROFILE=1 (run-bench.sh: the plugin's profile, in
# $RCLINK_INSN_PROFILE) also the kernel functions of the ring path's
# (BENCH_PROFILE_PATH=uctx: the contexts' path's)
# instructions per message.
#
# Instructions per message: rclink-bench brackets its message loop with
# the markers, so its count is the loop's.  perftest and sockperf are
# counted in their steady state: a window of $BENCH_WINDOW (2) s in the
# middle of a run, divided by the messages a counter saw in it (rxe1's
# rdma_recvs, the namespaces' UDP InDatagrams).  Every count is all the
# guest executed in the window: both vCPUs, user and kernel, both ends of
# the transfer, interrupts.
#
# Exit status: 0, or 1 when a part could not be measured.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
lib=$top/selftests/drivers/net/rclink/lib/rclinktest.py
tool=${RCLINK_TOOL:-$top/build/tools/rclink}
rb=${RCLINK_BENCH:-$top/build/tools/rclink-bench}
secs=${BENCH_SECONDS:-10}
pings=${BENCH_PINGS:-100}
sizes=${BENCH_SIZES:-64 1024 4096}
msgs=${BENCH_MSGS:-20000}
rtts=${BENCH_RTTS:-1000}
udp_secs=${BENCH_UDP_SECS:-8}
res=${RCLINK_RESULTS:-/tmp}
rsizes=${BENCH_RDMA_SIZES:-64 4096 65536}
rops=${BENCH_RDMA_OPS:-2048}
out=$res/bench.txt
kinds="rclink e1000e virtio_net"
tmp=$(mktemp -d)
export RCLINK_INSN_LOG=${RCLINK_INSN_LOG:-}
[ -n "$RCLINK_INSN_LOG" ] && [ ! -e "$RCLINK_INSN_LOG" ] && RCLINK_INSN_LOG=""

log() { echo "bench: $*" >&2; }

# Drivers: the NIC modules (virtio_net may be built in) and rclink.ko.
modprobe e1000e 2>/dev/null
modprobe virtio_net 2>/dev/null
if [ ! -d /sys/module/rclink ]; then
	ko=${RCLINK_KO:-$top/build/$(uname -r)/rclink.ko}
	insmod "$ko" || log "insmod $ko failed"
fi
sleep 2

# Netdevs of a driver, in the order of their devices' sysfs paths.
netdevs_of() { # driver
	local n d
	for n in /sys/class/net/*; do
		d=$(readlink -f "$n/device/driver" 2>/dev/null) || continue
		[ "$(basename "$d")" = "$1" ] || continue
		echo "$(readlink -f "$n/device") $(basename "$n")"
	done | sort | awk '{ print $2 }'
}

carrier_after_up() { # dev
	local i
	ip link set dev "$1" up 2>/dev/null || return 1
	for ((i = 0; i < 50; i++)); do
		[ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	return 1
}

# The first two netdevs of a driver with carrier: "devA devB" or nothing.
pair_of() { # driver
	local d pair=()
	for d in $(netdevs_of "$1"); do
		[ ${#pair[@]} -ge 2 ] && break
		carrier_after_up "$d" && pair+=("$d")
	done
	[ ${#pair[@]} -eq 2 ] && echo "${pair[*]}"
}

# Value of KEY in a line of key=value pairs ("-" when missing).
kv() { # line key
	local w
	for w in $1; do
		case $w in "$2="*) echo "${w#*=}"; return ;; esac
	done
	echo -
}

# python3 -S arithmetic on the arguments; "-" when any is not a number.
calc() { # expression-with-{0},{1}... args...
	"$py" -S -c 'import sys
try:
    a = [float(x) for x in sys.argv[2:]]
    v = eval(sys.argv[1].format(*a))
    print(("%.2f" % v) if abs(v) < 100 else ("%.0f" % v))
except (ValueError, ZeroDivisionError, IndexError):
    print("-")' "$@"
}

rc=0

# ---- 1. TCP and ping per pair ---------------------------------------------
# Measure one pair; prints "MBps rtt_ms" (or "- -").
bench_pair() { # kind idx devA devB
	local kind=$1 i=$2 da=$3 db=$4 nsa=bA$2 nsb=bB$2
	local ipa=10.77.$i.1 ipb=10.77.$i.2 res mbps rtt sink
	ip netns add "$nsa"
	ip netns add "$nsb"
	ip link set dev "$da" netns "$nsa"
	ip link set dev "$db" netns "$nsb"
	ip -n "$nsa" addr add "$ipa/24" dev "$da"
	ip -n "$nsb" addr add "$ipb/24" dev "$db"
	ip -n "$nsa" link set lo up
	ip -n "$nsb" link set lo up
	ip -n "$nsa" link set dev "$da" up
	ip -n "$nsb" link set dev "$db" up
	sleep 2
	ip netns exec "$nsa" "$py" "$lib" ping -c 3 -i 0.3 -W 2 -q "$ipb" >/dev/null 2>&1
	if command -v iperf3 >/dev/null; then
		ip netns exec "$nsb" iperf3 -s -1 -B "$ipb" >/dev/null 2>&1 &
		sink=$!
		sleep 1
		res=$(ip netns exec "$nsa" iperf3 -c "$ipb" -t "$secs" -J 2>/dev/null |
			"$py" -c 'import json, sys
print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8e6))' 2>/dev/null)
		wait "$sink" 2>/dev/null
		mbps=${res:--}
	else
		ip netns exec "$nsb" "$py" "$lib" tcp_sink "$ipb" 5400 $((secs + 60)) >"$tmp/sink.$i" 2>&1 &
		sink=$!
		sleep 1
		ip netns exec "$nsa" timeout $((secs + 60)) "$py" "$lib" tcp_source "$ipb" 5400 "$secs" >/dev/null 2>&1
		wait "$sink" 2>/dev/null
		mbps=$("$py" -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print("%.2f" % (d["bytes"] / max(d["seconds"], 1e-9) / 1e6))' "$tmp/sink.$i" 2>/dev/null)
		[ -n "$mbps" ] || log "$kind: tcp: $(cat "$tmp/sink.$i")"
		mbps=${mbps:--}
	fi
	rtt=$(ip netns exec "$nsa" "$py" "$lib" ping -c "$pings" -i 0.01 -W 1 -q "$ipb" 2>&1 |
		sed -n 's|^rtt min/avg/max/mdev = [0-9.]*/\([0-9.]*\)/.*|\1|p')
	# the devices return to this namespace
	ip netns del "$nsa"
	ip netns del "$nsb"
	echo "$mbps ${rtt:--}"
}

declare -A tput=() lat=()
i=0
for kind in $kinds; do
	i=$((i + 1))
	read -r -a pair <<<"$(pair_of "$kind")"
	if [ ${#pair[@]} -lt 2 ]; then
		log "$kind: fewer than two netdevs with carrier"
		tput[$kind]=- lat[$kind]=-
		rc=1
		continue
	fi
	log "$kind: ${pair[*]}"
	read -r t l <<<"$(bench_pair "$kind" "$i" "${pair[@]}")"
	tput[$kind]=$t lat[$kind]=$l
	[ "$t" != - ] && [ "$l" != - ] || rc=1
done
sleep 1

# ---- 2. messages -----------------------------------------------------------
# Results per "path:size": m_rate (msg/s), m_mbps, m_insn, m_kinsn
# (throughput), l_med, l_p99 (round trip, us), l_insn (latency run).
declare -A m_rate=() m_mbps=() m_insn=() m_kinsn=() m_irq=() l_med=() l_p99=() l_insn=()
declare -A note=() tag=()
# 6.: per "kind_op:size" (rc_write, rc_read, rxe_write, rxe_read)
declare -A x_rate=() x_mbps=() x_insn=() x_irq=() x_lat=()
paths="rw ring uctx rxe udp"

# Instructions per message of a tool that runs on its own (perftest,
# sockperf) in its steady state: once the message counter moves, a window
# of $win s under `rclink-bench mark -t` (a sleep between the markers, no
# process started in the window), the counter read before
# and after it.  window PID COUNTER_FN -> "insns kinsns messages alive
# seconds" (alive: 1 when the tool still ran at the end of the window).
win=${BENCH_WINDOW:-2}
window() {
	local pid=$1 fn=$2 c0 c1 i alive=1 o t0 t1
	c0=$("$fn")
	for ((i = 0; i < 150; i++)); do
		sleep 0.2
		[ "$("$fn")" != "$c0" ] && break
		kill -0 "$pid" 2>/dev/null || break
	done
	sleep 0.5
	c0=$("$fn")
	t0=$(date +%s.%N)
	"$rb" mark -o "$tmp/mw" -t "$win"
	t1=$(date +%s.%N)
	c1=$("$fn")
	kill -0 "$pid" 2>/dev/null || alive=0
	o=$(cat "$tmp/mw" 2>/dev/null)
	echo "$(kv "$o" insns) $(kv "$o" kinsns) $((c1 - c0)) $alive $(calc '{1} - {0}' "$t0" "$t1")"
}

# -- rclink TYPE1: QP 1 on both boards, through the tool
t1_a="" t1_b=""
read -r t1_a t1_b < <("$tool" dev show 2>/dev/null | awk '$1 == "dev" { printf "%s ", $2 } END { print "" }')
t1_qpn=1
t1_ok=""
if [ -z "$t1_b" ]; then
	log "rclink TYPE1: fewer than two boards (rclink dev show)"
	rc=1
else
	mac_a=$("$tool" -j dev show dev "$t1_a" | "$py" -S -c 'import json, sys; print(json.load(sys.stdin)[0]["mac"])')
	mac_b=$("$tool" -j dev show dev "$t1_b" | "$py" -S -c 'import json, sys; print(json.load(sys.stdin)[0]["mac"])')
	if "$tool" dev set dev "$t1_a" ip 10.198.0.1 &&
		"$tool" dev set dev "$t1_b" ip 10.198.0.2 &&
		"$tool" qp add dev "$t1_a" qpn "$t1_qpn" dqpn "$t1_qpn" dip 10.198.0.2 dmac "$mac_b" &&
		"$tool" qp add dev "$t1_b" qpn "$t1_qpn" dqpn "$t1_qpn" dip 10.198.0.1 dmac "$mac_a"; then
		t1_ok=1
	else
		log "rclink TYPE1: setting up QP $t1_qpn failed"
		rc=1
	fi
fi
ring_msg=""
if [ -n "$t1_ok" ]; then
	log "rclink TYPE1: $t1_a <-> $t1_b, QP $t1_qpn"
	for s in $sizes; do
		for p in rw ring uctx; do
			o=$("$rb" tput -p "$p" -s "$s" -n "$msgs" -b 32 -W 256 \
				"$t1_a" "$t1_qpn" "$t1_b" "$t1_qpn" 2>"$tmp/err")
			r=$?
			if [ "$r" = 3 ] && [ "$p" = uctx ]; then
				note[uctx]="uctx path: $o"
				log "$o"
				continue
			fi
			if [ "$r" = 3 ]; then
				ring_msg=$o
				log "$o"
				continue
			fi
			[ "$r" = 0 ] || { log "rclink $p tput $s: $(cat "$tmp/err")"; rc=1; }
			m_rate[$p:$s]=$(kv "$o" msg_per_s)
			m_mbps[$p:$s]=$(kv "$o" MBps)
			m_insn[$p:$s]=$(kv "$o" insn_per_msg)
			m_kinsn[$p:$s]=$(kv "$o" kinsn_per_msg)
			m_irq[$p:$s]=$(kv "$o" irq_per_msg)
			tag[$p:$s]=$(kv "$o" tag)
			log "$o"
			o=$("$rb" lat -p "$p" -s "$s" -n "$rtts" -W 20 \
				"$t1_a" "$t1_qpn" "$t1_b" "$t1_qpn" 2>"$tmp/err")
			r=$?
			[ "$r" = 3 ] && continue
			[ "$r" = 0 ] || { log "rclink $p lat $s: $(cat "$tmp/err")"; rc=1; }
			l_med[$p:$s]=$(kv "$o" rtt_med_us)
			l_p99[$p:$s]=$(kv "$o" rtt_p99_us)
			l_insn[$p:$s]=$(kv "$o" insn_per_msg)
			log "$o"
		done
	done
	# 6. one-sided WRITE and READ between two contexts of the QP
	for s in $rsizes; do
		for op in write read; do
			o=$("$rb" "$op" -s "$s" -n "$rops" -w 64 \
				"$t1_a" "$t1_qpn" "$t1_b" "$t1_qpn" 2>"$tmp/err")
			r=$?
			if [ "$r" = 3 ]; then
				note[rdma]="rclink WRITE/READ: $o"
				break 2
			fi
			[ "$r" = 0 ] || { log "rclink $op $s: $(cat "$tmp/err")"; rc=1; continue; }
			log "$o"
			x_rate[rc_$op:$s]=$(kv "$o" op_per_s)
			x_mbps[rc_$op:$s]=$(kv "$o" MBps)
			x_insn[rc_$op:$s]=$(kv "$o" insn_per_msg)
			x_irq[rc_$op:$s]=$(kv "$o" irq_b_per_op)
			o=$("$rb" "$op" -l -s "$s" -n 200 \
				"$t1_a" "$t1_qpn" "$t1_b" "$t1_qpn" 2>"$tmp/err")
			r=$?
			[ "$r" = 0 ] || { log "rclink $op -l $s: $(cat "$tmp/err")"; rc=1; continue; }
			log "$o"
			x_lat[rc_$op:$s]=$(kv "$o" med_us)
		done
	done
	"$tool" qp del dev "$t1_a" qpn "$t1_qpn"
	"$tool" qp del dev "$t1_b" qpn "$t1_qpn"
fi
[ -n "$ring_msg" ] && note[ring]="ring path: not supported by this driver"

# -- 5. TYPE2 messages A -> B (group 0, B joined) beside TYPE1, and the rate
# control: a QP limited to $BENCH_RATES, $BENCH_RATE_MSGS messages of 1000
# bytes, in a 65.536 us CC window (length_thr rounds up to whole bytes per
# window: the longest window keeps that under 0.1 %)
declare -A t2_rate=() t2_lost=() t2_insn=() r_bps=() r_speed=()
rates=${BENCH_RATES:-10mbit 50mbit}
rate_msgs=${BENCH_RATE_MSGS:-2000}
if [ -n "$t1_ok" ]; then
	"$tool" mcast set dev "$t1_b" group 0 join on
	for s in 64 1024; do
		o=$("$rb" tput -m -p rw -s "$s" -n "$msgs" "$t1_a" 0 "$t1_b" 0 \
			2>"$tmp/err") || { log "TYPE2 tput $s: $(cat "$tmp/err")"; rc=1; }
		t2_rate[$s]=$(kv "$o" msg_per_s)
		t2_lost[$s]=$(kv "$o" lost)
		t2_insn[$s]=$(kv "$o" insn_per_msg)
		log "TYPE2: $o"
	done
	"$tool" mcast set dev "$t1_b" group 0 join off
	if "$tool" dev set dev "$t1_a" cc_window 65536; then
		for r in $rates; do
			if ! "$tool" qp add dev "$t1_a" qpn "$t1_qpn" dqpn "$t1_qpn" dip 10.198.0.2 dmac "$mac_b" rate "$r" ||
				! "$tool" qp add dev "$t1_b" qpn "$t1_qpn" dqpn "$t1_qpn" dip 10.198.0.1 dmac "$mac_a"; then
				log "rate $r: QP setup failed"
				rc=1
				continue
			fi
			r_speed[$r]=$("$tool" -j qp show dev "$t1_a" qpn "$t1_qpn" |
				"$py" -S -c 'import json, sys; print(json.load(sys.stdin)[0]["speed"])')
			o=$("$rb" tput -p rw -s 1000 -n "$rate_msgs" "$t1_a" "$t1_qpn" \
				"$t1_b" "$t1_qpn" 2>"$tmp/err") || { log "rate $r: $(cat "$tmp/err")"; rc=1; }
			r_bps[$r]=$(kv "$o" tx_s_bps)
			log "rate $r (speed ${r_speed[$r]}): $o"
			"$tool" qp del dev "$t1_a" qpn "$t1_qpn"
			"$tool" qp del dev "$t1_b" qpn "$t1_qpn"
		done
		"$tool" dev set dev "$t1_a" cc_window 4096
	fi
fi

# -- 4. QP_NUM QPs at once (while the boards have no other QP)
qps_line=""
if [ -n "$t1_ok" ]; then
	log "rclink: QP_NUM QPs on $t1_a and $t1_b"
	qps_line=$("$rb" qps -n "${BENCH_QPS:-1024}" "$t1_a" "$t1_b" 2>"$tmp/err") ||
		{ log "qps: $(cat "$tmp/err")"; rc=1; }
fi

# -- rdma_rxe over the rclink TYPE3 netdevs.  rxe (6.12) works in the
# initial namespace only, so both netdevs stay here with /32 addresses and
# policy routing sends the traffic between them over the wire: locally
# generated packets to the peer's address take a table with a route out of
# the own netdev; the local table comes after those rules; accept_local
# lets a board receive a packet from an address of this machine.  RoCE v2
# is UDP port 4791, which the board's classifier (RX_CLASS_CFG
# type1_udp_dport, reset value 4791) steers to TYPE1: for this part the
# TYPE1 port is moved to 0 (no traffic uses it) on both boards, and
# restored after.
rxe_a=10.78.0.1 rxe_b=10.78.0.2
read -r -a rpair <<<"$(pair_of rclink)"
rxe_ok=""
class_saved=()
bdf_of() { basename "$(readlink -f "/sys/class/net/$1/device")"; }
rxe_setup() {
	local da=${rpair[0]} db=${rpair[1]} d bdf v
	modprobe rdma_rxe 2>"$tmp/err" || { note[rxe]="modprobe rdma_rxe: $(cat "$tmp/err")"; return 1; }
	command -v ib_send_bw >/dev/null || { note[rxe]="no perftest (ib_send_bw)"; return 1; }
	for d in "$da" "$db"; do
		bdf=$(bdf_of "$d")
		v=$("$py" "$lib" read "$bdf" RX_CLASS_CFG 2>"$tmp/err") ||
			{ note[rxe]="reading RX_CLASS_CFG of $bdf: $(cat "$tmp/err")"; return 1; }
		class_saved+=("$bdf" "$v")
		"$py" "$lib" write "$bdf" RX_CLASS_CFG $((v & ~0xffff)) 2>"$tmp/err" ||
			{ note[rxe]="writing RX_CLASS_CFG of $bdf: $(cat "$tmp/err")"; return 1; }
	done
	ip addr add "$rxe_a/32" dev "$da"
	ip addr add "$rxe_b/32" dev "$db"
	for d in all default "$da" "$db"; do
		sysctl -qw "net.ipv4.conf.$d.rp_filter=0" "net.ipv4.conf.$d.accept_local=1"
	done
	ip rule add pref 10 iif lo to "$rxe_b" lookup 100
	ip route add "$rxe_b" dev "$da" src "$rxe_a" table 100
	ip rule add pref 11 iif lo to "$rxe_a" lookup 101
	ip route add "$rxe_a" dev "$db" src "$rxe_b" table 101
	ip rule add pref 1000 lookup local
	ip rule del pref 0 lookup local
	ip neigh replace "$rxe_b" lladdr "$(cat "/sys/class/net/$db/address")" dev "$da" nud permanent
	ip neigh replace "$rxe_a" lladdr "$(cat "/sys/class/net/$da/address")" dev "$db" nud permanent
	if ! rdma link add rxe0 type rxe netdev "$da" 2>"$tmp/err" ||
		! rdma link add rxe1 type rxe netdev "$db" 2>>"$tmp/err"; then
		note[rxe]="rdma link add: $(cat "$tmp/err")"
		return 1
	fi
	sleep 1
	gid_a=$(gid_index rxe0 "$rxe_a")
	gid_b=$(gid_index rxe1 "$rxe_b")
	if [ -z "$gid_a" ] || [ -z "$gid_b" ]; then
		note[rxe]="no RoCE v2 GID for $rxe_a/$rxe_b"
		return 1
	fi
	return 0
}
rxe_cleanup() {
	local i
	rdma link delete rxe0 2>/dev/null
	rdma link delete rxe1 2>/dev/null
	ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref 1000 lookup local 2>/dev/null
	ip rule del pref 10 2>/dev/null
	ip rule del pref 11 2>/dev/null
	ip route flush table 100 2>/dev/null
	ip route flush table 101 2>/dev/null
	ip addr del "$rxe_a/32" dev "${rpair[0]}" 2>/dev/null
	ip addr del "$rxe_b/32" dev "${rpair[1]}" 2>/dev/null
	for ((i = 0; i + 1 < ${#class_saved[@]}; i += 2)); do
		"$py" "$lib" write "${class_saved[i]}" RX_CLASS_CFG "${class_saved[i + 1]}"
	done
}
# GID table index of the IPv4-mapped GID of an address.
gid_index() { # ibdev ipv4
	local g want oct
	IFS=. read -r -a oct <<<"$2"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "${oct[@]}")
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		[ "$(cat "$g" 2>/dev/null)" = "$want" ] && basename "$g" && return
	done
}
# rxe1's counter of received SENDs.
# shellcheck disable=SC2317 # called through window()
rxe_recvs() { cat /sys/class/infiniband/rxe1/ports/1/hw_counters/rdma_recvs 2>/dev/null || echo 0; }
# One perftest run: server on rxe1, client on rxe0 in the background
# (perf_pid); perf_end waits for both.  perf TOOL ARGS...
perf_pid=""
perf_srv=""
perf() {
	local t=$1
	shift
	"$t" -d rxe1 -x "$gid_b" -F "$@" >"$tmp/srv.out" 2>&1 &
	perf_srv=$!
	sleep 1
	timeout 300 "$t" -d rxe0 -x "$gid_a" -F "$@" "$rxe_b" >"$tmp/cl.out" 2>&1 &
	perf_pid=$!
}
perf_end() { # -> status of the client
	local r
	wait "$perf_pid"
	r=$?
	# the server ends with the test; it may wait for a client that failed
	for _ in 1 2 3 4 5; do kill -0 "$perf_srv" 2>/dev/null || break; sleep 1; done
	kill "$perf_srv" 2>/dev/null
	wait "$perf_srv" 2>/dev/null
	return "$r"
}
if [ ${#rpair[@]} -lt 2 ]; then
	note[rxe]="fewer than two rclink netdevs with carrier"
elif rxe_setup; then
	rxe_ok=1
fi
if [ -n "$rxe_ok" ]; then
	log "rxe: rxe0 on ${rpair[0]} ($rxe_a, GID $gid_a), rxe1 on ${rpair[1]} ($rxe_b, GID $gid_b)"
	# post lists of 32 (iterations a multiple of 32), completion events;
	# a run long enough for the window, stopped after it: the rate is
	# the window's
	for s in $sizes; do
		perf ib_send_bw -e -l 32 -s "$s" -n 8388608
		read -r wi wk wm walive wsecs <<<"$(window "$perf_pid" rxe_recvs)"
		kill "$perf_pid" 2>/dev/null
		perf_end
		if [ "$walive" = 1 ] && [ "$wm" -gt 0 ]; then
			m_rate[rxe:$s]=$(calc '{0} / {1}' "$wm" "$wsecs")
			m_mbps[rxe:$s]=$(calc '{0} * {2} / {1} / 1e6' "$wm" "$wsecs" "$s")
			m_insn[rxe:$s]=$(calc '{0} / {1}' "$wi" "$wm")
			m_kinsn[rxe:$s]=$(calc '{0} / {1}' "$wk" "$wm")
			log "rxe $s B: window $wsecs s: $wi instructions ($wk kernel), $wm messages (rdma_recvs of rxe1)"
		else
			log "rxe ib_send_bw $s: no messages in the window: $(tail -n 3 "$tmp/cl.out" | tr '\n' ' ')"
			note[rxe]="ib_send_bw failed: see run.log"
			rc=1
		fi
		# ib_send_lat busy-polls (with -e it stalls on rxe): no count
		perf ib_send_lat -s "$s" -n "$rtts"
		if perf_end; then
			# "#bytes #iter t_min t_max t_typical t_avg t_stdev 99% 99.9%"
			# (one-way times: half the round trip)
			read -r _ _ _ _ typ _ _ p99 _ < <(awk -v s="$s" '$1 == s && NF >= 8' "$tmp/cl.out" | tail -n 1)
			l_med[rxe:$s]=$(calc '{0} * 2' "${typ:--}")
			l_p99[rxe:$s]=$(calc '{0} * 2' "${p99:--}")
			l_insn[rxe:$s]=poll
		else
			log "rxe ib_send_lat $s: $(tail -n 3 "$tmp/cl.out" | tr '\n' ' ')"
			rc=1
		fi
	done
	# 6. rxe's RDMA WRITE and READ (perftest), counted over the whole client
	for s in $rsizes; do
		for op in write read; do
			"ib_${op}_bw" -d rxe1 -x "$gid_b" -F -l 32 -s "$s" -n "$rops" >"$tmp/srv.out" 2>&1 &
			perf_srv=$!
			sleep 1
			"$rb" mark -o "$tmp/mw" -- timeout 300 "ib_${op}_bw" -d rxe0 -x "$gid_a" -F -l 32 \
				-s "$s" -n "$rops" "$rxe_b" >"$tmp/cl.out" 2>&1 &
			perf_pid=$!
			if perf_end; then
				# "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
				read -r _ _ _ avg mpps < <(awk -v s="$s" '$1 == s && NF >= 5' "$tmp/cl.out" | tail -n 1)
				x_mbps[rxe_$op:$s]=${avg:--}
				x_rate[rxe_$op:$s]=$(calc '{0} * 1e6' "${mpps:--}")
				x_insn[rxe_$op:$s]=$(calc '{0} / {1}' "$(kv "$(cat "$tmp/mw" 2>/dev/null)" insns)" "$rops")
			else
				log "rxe ib_${op}_bw $s: $(tail -n 3 "$tmp/cl.out" | tr '\n' ' ')"
				rc=1
			fi
			perf "ib_${op}_lat" -s "$s" -n 200
			if perf_end; then
				read -r _ _ _ _ typ _ < <(awk -v s="$s" '$1 == s && NF >= 8' "$tmp/cl.out" | tail -n 1)
				# write_lat is a ping-pong of WRITEs: half a round trip
				if [ "$op" = write ]; then
					x_lat[rxe_$op:$s]=$(calc '{0} * 2' "${typ:--}")
				else
					x_lat[rxe_$op:$s]=${typ:--}
				fi
			else
				log "rxe ib_${op}_lat $s: $(tail -n 3 "$tmp/cl.out" | tr '\n' ' ')"
				rc=1
			fi
		done
	done
fi
[ ${#class_saved[@]} -gt 0 ] && rxe_cleanup
[ -n "${note[rxe]:-}" ] && log "rxe: ${note[rxe]}"
[ -z "$rxe_ok" ] && rc=1

# -- UDP over virtio-net (sockperf), one NIC per namespace
read -r -a vpair <<<"$(pair_of virtio_net)"
udp_a=10.79.0.1 udp_b=10.79.0.2
# UDP datagrams delivered in a namespace, and in both.
# shellcheck disable=SC2016,SC2317 # an awk program; called indirectly
udp_in() { ip netns exec "$1" awk '/^Udp: [0-9]/ { print $2 }' /proc/net/snmp; }
# shellcheck disable=SC2317 # called through window()
udp_in_b() { udp_in bUB; }
# shellcheck disable=SC2317
udp_in_ab() { echo $(($(udp_in bUA) + $(udp_in bUB))); }
if ! command -v sockperf >/dev/null; then
	note[udp]="no sockperf"
elif [ ${#vpair[@]} -lt 2 ]; then
	note[udp]="fewer than two virtio-net netdevs with carrier"
else
	ip netns add bUA
	ip netns add bUB
	ip link set dev "${vpair[0]}" netns bUA
	ip link set dev "${vpair[1]}" netns bUB
	ip -n bUA addr add "$udp_a/24" dev "${vpair[0]}"
	ip -n bUB addr add "$udp_b/24" dev "${vpair[1]}"
	for n in bUA bUB; do ip -n "$n" link set lo up; done
	ip -n bUA link set dev "${vpair[0]}" up
	ip -n bUB link set dev "${vpair[1]}" up
	sleep 2
	ip netns exec bUA "$py" "$lib" ping -c 3 -i 0.3 -W 2 -q "$udp_b" >/dev/null 2>&1
	ip netns exec bUB sockperf server -i "$udp_b" -p 11111 >"$tmp/sps.out" 2>&1 &
	sps=$!
	sleep 2
	log "udp: sockperf over ${vpair[*]}"
	for s in $sizes; do
		# throughput: messages = datagrams delivered to the server in the
		# window; the run is stopped after it
		ip netns exec bUA sockperf throughput -i "$udp_b" -p 11111 -m "$s" \
			-t 600 >"$tmp/c.out" 2>&1 &
		cl=$!
		read -r wi wk wm walive wsecs <<<"$(window "$cl" udp_in_b)"
		kill -INT "$cl" 2>/dev/null
		wait "$cl"
		m_rate[udp:$s]=$(calc '{0} / {1}' "$wm" "$wsecs")
		m_mbps[udp:$s]=$(calc '{0} * {2} / {1} / 1e6' "$wm" "$wsecs" "$s")
		m_insn[udp:$s]=$(calc '{0} / {1}' "$wi" "$wm")
		m_kinsn[udp:$s]=$(calc '{0} / {1}' "$wk" "$wm")
		read -r ns nsec < <(sed -n 's/.*Total of \([0-9]*\) messages sent in \([0-9.]*\) sec.*/\1 \2/p' "$tmp/c.out")
		log "udp $s B: window $wsecs s: $wi instructions ($wk kernel), $wm datagrams delivered; sender: $ns in $nsec s"
		[ "$walive" = 1 ] || note[udp]="UDP: the $s B run ended inside the counting window"
		# ping-pong: full round trips; messages = datagrams delivered
		# in both namespaces
		ip netns exec bUA sockperf ping-pong -i "$udp_b" -p 11111 -m "$s" \
			-t "$udp_secs" --full-rtt >"$tmp/c.out" 2>&1 &
		cl=$!
		read -r wi _ wm walive _ <<<"$(window "$cl" udp_in_ab)"
		wait "$cl"
		[ "$walive" = 1 ] || note[udp]="UDP: the $s B ping-pong ended inside the counting window (raise BENCH_UDP_SECS)"
		l_med[udp:$s]=$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' "$tmp/c.out")
		l_p99[udp:$s]=$(sed -n 's/.*percentile 99.000 = *\([0-9.]*\).*/\1/p' "$tmp/c.out")
		l_insn[udp:$s]=$(calc '{0} / {1}' "$wi" "$wm")
	done
	kill "$sps" 2>/dev/null
	wait "$sps" 2>/dev/null
	ip netns del bUA
	ip netns del bUB
fi
[ -n "${note[udp]:-}" ] && log "udp: ${note[udp]}"

# ---- kernel profile of the ring path (BENCH_PROFILE=1) -------------------
# The plugin's per-block counts of the first size's ring throughput
# window, summed per kernel function (/proc/kallsyms): where the kernel's
# instructions per message go.
profile_txt=""
s0=${sizes%% *}
pp=${BENCH_PROFILE_PATH:-ring}
if [ -n "${RCLINK_INSN_PROFILE:-}" ] && [ -s "$RCLINK_INSN_PROFILE" ] &&
	[ "${tag[$pp:$s0]:--}" != - ]; then
	profile_txt=$("$py" -S - "$RCLINK_INSN_PROFILE" "${tag[$pp:$s0]}" "$msgs" <<'EOF_PY'
import bisect, sys
path, tag, msgs = sys.argv[1], int(sys.argv[2], 16), float(sys.argv[3])
syms = []
with open('/proc/kallsyms') as f:
    for line in f:
        w = line.split()
        if len(w) >= 3 and w[1] in 'tTwW':
            name = w[2] + (' ' + w[3] if len(w) > 3 else '')
            syms.append((int(w[0], 16), name))
syms.sort()
addrs = [a for a, _ in syms]
per = {}
total = 0
with open(path) as f:
    for line in f:
        t, va, n = line.split()
        if int(t, 16) != tag:
            continue
        va, n = int(va, 16), int(n)
        i = bisect.bisect_right(addrs, va) - 1
        name = syms[i][1] if i >= 0 and addrs[i] else '?'
        per[name] = per.get(name, 0) + n
        total += n
if not total or not addrs[-1]:
    print('   no profile (no kernel addresses in /proc/kallsyms?)')
    sys.exit(0)
print('   %-48s %10s %6s' % ('kernel function', 'insn/msg', '%'))
for name, n in sorted(per.items(), key=lambda x: -x[1])[:25]:
    print('   %-48s %10.0f %6.1f' % (name[:48], n / msgs, 100.0 * n / total))
print('   %-48s %10.0f %6.1f' % ('(all kernel)', total / msgs, 100.0))
EOF_PY
)
fi

# ---- tables -----------------------------------------------------------------
ratio() { calc '{0} / {1}' "$1" "$2"; }
name_of() {
	case $1 in
	rw) echo "rclink write/read" ;;
	ring) echo "rclink ring b32" ;;
	uctx) echo "rclink uctx b32" ;;
	rxe) echo "rxe RC SEND l32" ;;
	udp) echo "UDP virtio-net" ;;
	esac
}
v() { echo "${1:--}"; }
insn_mode="guest instructions per message from the rclink-insn TCG plugin"
[ -n "$RCLINK_INSN_LOG" ] || insn_mode="no instruction counts (plugin not loaded)"
tcp_tool=python
command -v iperf3 >/dev/null && tcp_tool=iperf3
{
	echo "rclink benchmark: kernel $(uname -r), TCG guest, $(nproc) vCPUs"
	echo
	echo "1. TCP $secs s ($tcp_tool) and $pings pings at 10 ms per NIC pair"
	printf '%-12s %14s %14s\n' pair "TCP MB/s" "RTT avg ms"
	for kind in $kinds; do
		printf '%-12s %14s %14s\n' "$kind" "${tput[$kind]}" "${lat[$kind]}"
	done
	for other in e1000e virtio_net; do
		printf 'rclink/%-10s throughput %s  latency %s\n' "$other" \
			"$(ratio "${tput[rclink]}" "${tput[$other]}")" \
			"$(ratio "${lat[rclink]}" "${lat[$other]}")"
	done
	echo
	echo "2. Messages A -> B.  Throughput: rclink $msgs messages a run; rxe and UDP: the messages"
	echo "   delivered in a $win s window of a steady run.  Latency: $rtts round trips (UDP: $udp_secs s of ping-pong);"
	echo "   $insn_mode"
	echo "   (all the guest executed: both vCPUs, both ends, kernel and user; kernel = the kernel's part;"
	echo "   irq/msg: interrupts of the boards per message)"
	printf '%-18s %6s %10s %9s %10s %10s %8s | %10s %10s %10s\n' path size "msg/s" "MB/s" "insn/msg" "kernel" \
		"irq/msg" "RTT med us" "RTT p99 us" "insn/msg"
	for s in $sizes; do
		for p in $paths; do
			printf '%-18s %6s %10s %9s %10s %10s %8s | %10s %10s %10s\n' "$(name_of "$p")" "$s" \
				"$(v "${m_rate[$p:$s]:-}")" "$(v "${m_mbps[$p:$s]:-}")" \
				"$(v "${m_insn[$p:$s]:-}")" "$(v "${m_kinsn[$p:$s]:-}")" \
				"$(v "${m_irq[$p:$s]:-}")" \
				"$(v "${l_med[$p:$s]:-}")" "$(v "${l_p99[$p:$s]:-}")" \
				"$(v "${l_insn[$p:$s]:-}")"
		done
	done
	for p in $paths; do
		[ -n "${note[$p]:-}" ] && echo "note: ${note[$p]}"
	done
	echo
	echo "3. Ratios (throughput run)"
	printf '%6s %16s %16s %16s %16s\n' size "ring/rw msg/s" "rw/ring insn" "rxe/ring insn" "udp/ring insn"
	for s in $sizes; do
		printf '%6s %16s %16s %16s %16s\n' "$s" \
			"$(ratio "$(v "${m_rate[ring:$s]:-}")" "$(v "${m_rate[rw:$s]:-}")")" \
			"$(ratio "$(v "${m_insn[rw:$s]:-}")" "$(v "${m_insn[ring:$s]:-}")")" \
			"$(ratio "$(v "${m_insn[rxe:$s]:-}")" "$(v "${m_insn[ring:$s]:-}")")" \
			"$(ratio "$(v "${m_insn[udp:$s]:-}")" "$(v "${m_insn[ring:$s]:-}")")"
	done
	ri=$(v "${m_insn[ring:$s0]:-}")
	g1=$(calc '{0} <= 300' "$ri")
	g2=$(calc '{0} >= 10 * {1}' "$(v "${m_insn[rxe:$s0]:-}")" "$ri")
	g3=$(calc '{0} >= 10 * {1}' "$(v "${m_insn[udp:$s0]:-}")" "$ri")
	verdict() { case $1 in 1.00) echo met ;; 0.00) echo "not met" ;; *) echo "not measured" ;; esac; }
	echo "goal, $s0 B: ring <= 300 insn/msg at batch 32: $(verdict "$g1") ($ri);" \
		"10x fewer than rxe: $(verdict "$g2"); 10x fewer than UDP: $(verdict "$g3")"
	# the kernel-bypass contexts (issue 24): one CQ event per 128 messages
	ui=$(v "${m_insn[uctx:$s0]:-}")
	echo "fastpath: $ui guest instructions per $s0 B message"
	g4=$(calc '{0} <= 200' "$ui")
	g5=$(calc '{0} >= 50 * {1}' "$(v "${m_insn[rxe:$s0]:-}")" "$ui")
	g6=$(calc '{0} >= 50 * {1}' "$(v "${m_insn[udp:$s0]:-}")" "$ui")
	echo "goal, $s0 B: uctx <= 200 insn/msg at batch 32: $(verdict "$g4") ($ui);" \
		"50x fewer than rxe: $(verdict "$g5"); 50x fewer than UDP: $(verdict "$g6")"
	if [ -n "$profile_txt" ]; then
		echo
		echo "3b. Kernel profile of the $(name_of "$pp") path, $s0 B (plugin profile; per message)"
		echo "$profile_txt"
	fi
	echo
	echo "5. TYPE2 (multicast, group 0) messages A -> B, $msgs a run, through write/read"
	printf '%6s %10s %8s %10s %12s\n' size "msg/s" lost "insn/msg" "TYPE1 rw"
	for s in 64 1024; do
		printf '%6s %10s %8s %10s %12s\n' "$s" "$(v "${t2_rate[$s]:-}")" \
			"$(v "${t2_lost[$s]:-}")" "$(v "${t2_insn[$s]:-}")" \
			"$(v "${m_rate[rw:$s]:-}")"
	done
	echo "   rate control: $rate_msgs messages of 1000 B (1008 B counted per packet) on a QP with a rate,"
	echo "   CC window 65.536 us; achieved = the counted bytes over the run's time"
	echo "   (exact: speed bytes per window; deviations in %, goal within 1 % over 100 windows and more)"
	printf '%10s %8s %14s %14s %12s %12s\n' rate speed "exact bit/s" "achieved" "vs rate %" "vs exact %"
	for r in $rates; do
		ex=$(calc '{0} * 8 / 65.536e-6' "$(v "${r_speed[$r]:-}")")
		rbits=$(calc "$(echo "$r" | sed 's/mbit/e6/;s/gbit/e9/;s/kbit/e3/')")
		printf '%10s %8s %14s %14s %12s %12s\n' "$r" "$(v "${r_speed[$r]:-}")" "$ex" \
			"$(v "${r_bps[$r]:-}")" \
			"$(calc '100 * ({0} / {1} - 1)' "$(v "${r_bps[$r]:-}")" "$rbits")" \
			"$(calc '100 * ({0} / {1} - 1)' "$(v "${r_bps[$r]:-}")" "$ex")"
	done
	echo
	echo "6. One-sided RDMA WRITE and READ, $rops operations a run: rclink between two contexts (64 in"
	echo "   flight, A sleeps on a CQ event while its window is full), rxe ib_write_bw/ib_read_bw (post lists of 32); latency: rclink one at"
	echo "   a time, post to completion; rxe ib_write_lat x 2 (it reports half its ping-pong), ib_read_lat;"
	echo "   insn/op: rclink the loop's (both boards' CPUs), rxe the whole client run"
	echo "   (connection setup included); B irq/op: interrupts of the responder's board per operation"
	printf '%-14s %6s %10s %9s %10s %8s %10s\n' kind size "op/s" "MB/s" "insn/op" "B irq/op" "lat us"
	for s in $rsizes; do
		for k in rc_write rxe_write rc_read rxe_read; do
			printf '%-14s %6s %10s %9s %10s %8s %10s\n' "${k/rc_/rclink }" "$s" \
				"$(v "${x_rate[$k:$s]:-}")" "$(v "${x_mbps[$k:$s]:-}")" \
				"$(v "${x_insn[$k:$s]:-}")" "$(v "${x_irq[$k:$s]:-}")" \
				"$(v "${x_lat[$k:$s]:-}")"
		done
	done
	[ -n "${note[rdma]:-}" ] && echo "note: ${note[rdma]}"
	echo
	echo "4. QPs created and bound at once (both boards; memory per QP = delta / QPs)"
	if [ -n "$qps_line" ]; then
		echo "   QP_NUM $(kv "$qps_line" qp_num_a) / $(kv "$qps_line" qp_num_b);" \
			"$(kv "$qps_line" qps_per_board) QPs per board, $(kv "$qps_line" qps) in all, each bound to a file"
		echo "   add $(kv "$qps_line" add_secs) s + bind $(kv "$qps_line" bind_secs) s:" \
			"$(kv "$qps_line" add_bind_us_per_qp) us per QP; unbind + delete all: $(kv "$qps_line" unbind_del_secs) s"
		echo "   kernel memory (Slab+KernelStack+PageTables+VmallocUsed+Percpu): +$(kv "$qps_line" kernel_kb) kB," \
			"$(kv "$qps_line" kernel_b_per_qp) B per QP (the open files included);" \
			"MemAvailable: -$(kv "$qps_line" memavail_kb) kB, $(kv "$qps_line" memavail_b_per_qp) B per QP;" \
			"after deleting: $(kv "$qps_line" kernel_kb_after_del) kB above the start"
	else
		echo "   not measured"
	fi
} | tee "$out"
rm -rf "$tmp"
exit "$rc"
