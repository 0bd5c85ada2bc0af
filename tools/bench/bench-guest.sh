#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench` (run by tools/bench/run-bench.sh inside a
# run-guest.sh guest): for each NIC pair wired back to back -- the rclink
# boards' TYPE3 netdevs, two e1000e, two virtio-net -- put one NIC in each
# of two network namespaces and measure
#   * TCP throughput A -> B for $BENCH_SECONDS (10) s: iperf3 when
#     installed, else the python socket sender/receiver of the selftests'
#     lib (rclinktest.py tcp_source / tcp_sink);
#   * ping latency: average RTT of $BENCH_PINGS (100) pings 10 ms apart.
# Prints a table and the ratios rclink/e1000e and rclink/virtio, also into
# $RCLINK_RESULTS/bench.txt.  Numbers only: nothing here passes or fails
# on performance.  Exit status: 0, or 1 when a pair could not be measured.

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
py=/usr/bin/python3
lib=$top/selftests/drivers/net/rclink/lib/rclinktest.py
secs=${BENCH_SECONDS:-10}
pings=${BENCH_PINGS:-100}
out=${RCLINK_RESULTS:-/tmp}/bench.txt
kinds="rclink e1000e virtio_net"

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
		ip netns exec "$nsb" "$py" "$lib" tcp_sink "$ipb" 5400 $((secs + 60)) >"/tmp/bench_sink.$i" 2>&1 &
		sink=$!
		sleep 1
		ip netns exec "$nsa" timeout $((secs + 60)) "$py" "$lib" tcp_source "$ipb" 5400 "$secs" >/dev/null 2>&1
		wait "$sink" 2>/dev/null
		mbps=$("$py" -c 'import json, sys
d = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print("%.2f" % (d["bytes"] / max(d["seconds"], 1e-9) / 1e6))' "/tmp/bench_sink.$i" 2>/dev/null)
		[ -n "$mbps" ] || log "$kind: tcp: $(cat "/tmp/bench_sink.$i")"
		rm -f "/tmp/bench_sink.$i"
		mbps=${mbps:--}
	fi
	rtt=$(ip netns exec "$nsa" "$py" "$lib" ping -c "$pings" -i 0.01 -W 1 -q "$ipb" 2>&1 |
		sed -n 's|^rtt min/avg/max/mdev = [0-9.]*/\([0-9.]*\)/.*|\1|p')
	ip netns del "$nsa"
	ip netns del "$nsb"
	echo "$mbps ${rtt:--}"
}

declare -A tput=() lat=()
rc=0
i=0
for kind in $kinds; do
	i=$((i + 1))
	pair=()
	for d in $(netdevs_of "$kind"); do
		[ ${#pair[@]} -ge 2 ] && break
		carrier_after_up "$d" && pair+=("$d")
	done
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

ratio() { # a b
	"$py" -c 'import sys
try:
    print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))
except (ValueError, ZeroDivisionError):
    print("-")' "$1" "$2"
}

tool=python
command -v iperf3 >/dev/null && tool=iperf3
{
	echo "rclink benchmark: kernel $(uname -r), TCG guest, TCP $secs s ($tool), $pings pings at 10 ms"
	printf '%-12s %14s %14s\n' pair "TCP MB/s" "RTT avg ms"
	for kind in $kinds; do
		printf '%-12s %14s %14s\n' "$kind" "${tput[$kind]}" "${lat[$kind]}"
	done
	for other in e1000e virtio_net; do
		printf 'rclink/%-10s throughput %s  latency %s\n' "$other" \
			"$(ratio "${tput[rclink]}" "${tput[$other]}")" \
			"$(ratio "${lat[rclink]}" "${lat[$other]}")"
	done
} | tee "$out"
exit "$rc"
