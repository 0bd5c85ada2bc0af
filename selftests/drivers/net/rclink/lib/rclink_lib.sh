# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared helpers of the rclink shell selftests: KTAP output, board
# discovery ($RCLINK_DEVS or vendor 0x1172 device 0x2404), loading the
# module ($RCLINK_KO, default <repo>/build/$(uname -r)/rclink.ko, else
# modprobe) and unloading it at exit when this test loaded it, debugfs
# counters.  BAR0 access goes through lib/rclinktest.py (rcl_py).

RCL_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RCL_TESTDIR=$(dirname "$RCL_LIB")
RCL_TOP=$(cd "$RCL_TESTDIR/../../../.." && pwd)
RCL_PY=${RCL_PY:-/usr/bin/python3}
RCL_DRIVER_DIR=/sys/bus/pci/drivers/rclink
RCL_DBG=/sys/kernel/debug/rclink
RCL_TIMEOUT=${RCLINK_TEST_TIMEOUT:-5}

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# ---- KTAP ---------------------------------------------------------------
ktap_num=0
ktap_npass=0
ktap_nfail=0
ktap_nskip=0
ktap_planned=""

ktap_header() { echo "TAP version 13"; }
ktap_plan() { ktap_planned=$1; echo "1..$1"; }
ktap_diag() {
	local l
	while IFS= read -r l; do
		echo "# $l"
	done <<<"$*"
}
ktap_ok() {
	ktap_num=$((ktap_num + 1))
	ktap_npass=$((ktap_npass + 1))
	echo "ok $ktap_num $1"
}
ktap_fail() { # name [diagnostic]
	[ $# -gt 1 ] && [ -n "$2" ] && ktap_diag "$2"
	ktap_num=$((ktap_num + 1))
	ktap_nfail=$((ktap_nfail + 1))
	echo "not ok $ktap_num $1"
}
ktap_skip() { # name reason
	ktap_num=$((ktap_num + 1))
	ktap_nskip=$((ktap_nskip + 1))
	echo "ok $ktap_num $1 # SKIP $2"
}
ktap_result() { # name status(0 = pass) [diagnostic]
	if [ "$2" -eq 0 ]; then
		ktap_ok "$1"
	else
		ktap_fail "$1" "${3:-}"
	fi
}
ktap_skip_all() {
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}
ktap_finish() {
	local rc=$KSFT_PASS
	if [ -n "$ktap_planned" ] && [ "$ktap_num" -ne "$ktap_planned" ]; then
		ktap_diag "planned $ktap_planned tests but ran $ktap_num"
		rc=$KSFT_FAIL
	fi
	ktap_diag "Totals: pass:$ktap_npass fail:$ktap_nfail skip:$ktap_nskip"
	if [ "$ktap_nfail" -gt 0 ]; then
		rc=$KSFT_FAIL
	elif [ "$rc" -eq "$KSFT_PASS" ] && [ "$ktap_nskip" -gt 0 ] &&
		[ "$ktap_npass" -eq 0 ]; then
		rc=$KSFT_SKIP
	fi
	exit "$rc"
}

# ---- boards -------------------------------------------------------------
# Every rclink board, one BDF a line.
rcl_devices() {
	local d
	if [ -n "${RCLINK_DEVS:-}" ]; then
		for d in $RCLINK_DEVS; do
			case $d in
			*:*:*) echo "$d" ;;
			*) echo "0000:$d" ;;
			esac
		done
		return
	fi
	for d in /sys/bus/pci/devices/*; do
		[ -r "$d/vendor" ] || continue
		if [ "$(cat "$d/vendor")" = 0x1172 ] &&
			[ "$(cat "$d/device")" = 0x2404 ]; then
			basename "$d"
		fi
	done
}

# Driver bound to a BDF (empty when none).
rcl_driver() {
	local l=/sys/bus/pci/devices/$1/driver
	[ -L "$l" ] && basename "$(readlink "$l")"
	return 0
}

# Boards bound to rclink, one a line.
rcl_bound() {
	local d
	for d in $(rcl_devices); do
		[ "$(rcl_driver "$d")" = rclink ] && echo "$d"
	done
	return 0
}

# Number of devices bound to the driver, whatever $RCLINK_DEVS says.
rcl_driver_count() {
	local n=0 d
	for d in "$RCL_DRIVER_DIR"/[0-9a-f]*:*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	echo "$n"
}

rcl_unbind() { echo "$1" >"$RCL_DRIVER_DIR/unbind"; }
rcl_bind() { echo "$1" >"$RCL_DRIVER_DIR/bind"; }

# ---- module -------------------------------------------------------------
rcl_loaded_here=0

rcl_module_loaded() { [ -d /sys/module/rclink ] && [ -d "$RCL_DRIVER_DIR" ]; }

rcl_ko() {
	echo "${RCLINK_KO:-$RCL_TOP/build/$(uname -r)/rclink.ko}"
}

# Load the module (no-op when loaded).  Returns 4 when there is none.
rcl_module_load() {
	local ko
	ko=$(rcl_ko)
	rcl_module_loaded && return 0
	if [ -f "$ko" ]; then
		insmod "$ko" || return 1
	else
		modprobe rclink 2>/dev/null || return "$KSFT_SKIP"
	fi
	return 0
}

rcl_module_unload() { rmmod rclink; }

# Load the driver for the test; unload it at exit if it was not loaded.
rcl_module_setup() {
	local rc
	rcl_module_loaded && return 0
	rcl_module_load
	rc=$?
	case $rc in
	0) rcl_loaded_here=1 ;;
	"$KSFT_SKIP") ktap_skip_all "no $(rcl_ko) (set RCLINK_KO) and modprobe rclink failed" ;;
	*)
		ktap_plan 1
		ktap_fail module_load "insmod $(rcl_ko) failed"
		ktap_finish
		;;
	esac
	trap rcl_module_cleanup EXIT
}

rcl_module_cleanup() {
	if [ "$rcl_loaded_here" = 1 ] && rcl_module_loaded; then
		rcl_module_unload || echo "# rmmod rclink failed"
	fi
}

# ---- debugfs ------------------------------------------------------------
rcl_debugfs_setup() {
	if ! grep -q ' /sys/kernel/debug debugfs ' /proc/mounts; then
		mount -t debugfs debugfs /sys/kernel/debug ||
			ktap_skip_all "debugfs not available"
	fi
}

# Counter NAME of board BDF (empty when missing).
rcl_counter() { # bdf name
	awk -v n="$2" '$1 == n { print $2 }' "$RCL_DBG/$1/events" 2>/dev/null
}

# Wait until counter NAME of BDF reaches VALUE; 0 when it did.
rcl_wait_counter() { # bdf name value [timeout]
	local end v
	end=$((SECONDS + ${4:-$RCL_TIMEOUT}))
	while :; do
		v=$(rcl_counter "$1" "$2")
		[ -n "$v" ] && [ "$v" -ge "$3" ] && return 0
		[ "$SECONDS" -gt "$end" ] && return 1
		sleep 0.05
	done
}

rcl_irq_mode() { cat "$RCL_DBG/$1/irq_mode" 2>/dev/null; }

# 0 when the board's self-test file shows register, irq and dma ok.
rcl_selftest_ok() {
	local got
	got=$(sort "$RCL_DBG/$1/selftest" 2>/dev/null | tr '\n' ',')
	[ "$got" = "dma ok,irq ok,register ok," ]
}

# Inject an IRQ_INFO word: bdf type code [qpid [count]].  Exit 4 = cannot
# map BAR0 while bound (CONFIG_IO_STRICT_DEVMEM without iomem=relaxed).
rcl_inject() { "$RCL_PY" "$RCL_LIB/rclinktest.py" inject "$@"; }

rcl_py() { "$RCL_PY" "$RCL_LIB/rclinktest.py" "$@"; }

# ---- kernel log ---------------------------------------------------------
rcl_kmsg_mark() { # tag -> prints the marker
	local m
	m="rclink-selftest: $1 $$.$RANDOM"
	echo "$m" >/dev/kmsg
	echo "$m"
}

# Kernel log after the last occurrence of the marker.
rcl_kmsg_since() {
	dmesg | awk -v m="$1" 'index($0, m) { buf = ""; found = 1; next }
		found { buf = buf $0 "\n" } END { printf "%s", buf }'
}

# Kernel splats in the log text on stdin.
rcl_splats() {
	grep -E 'BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|Call Trace|unreferenced object|refcount_t:|blocked for more than' || true
}

# Interrupt lines of the driver in /proc/interrupts.
rcl_irq_lines() {
	grep -c -E 'rclink' /proc/interrupts || true
}

rcl_debugfs_dirs() {
	local n=0 d
	for d in "$RCL_DBG"/*; do
		[ -d "$d" ] && n=$((n + 1))
	done
	echo "$n"
}

# ---- TYPE3 Ethernet netdev (the t3_*.sh tests) ---------------------------
# Two wired boards (carrier up when their netdev is up), each netdev in a
# network namespace of its own with an IPv4 address: side A is
# $RCL_NS_A/$RCL_IF_A/$RCL_IP_A (board $RCL_BDF_A), side B likewise.
# rcl_t3_setup does it all (and the module/debugfs setup); the EXIT trap
# puts the devices back (MTU, rings, admin state, init namespace) and
# deletes the namespaces.  $RCLINK_T3_DEVS="BDF_A BDF_B" picks the boards.
RCL_NS_A=rclA$$
RCL_NS_B=rclB$$
RCL_IP_A=10.199.0.1
RCL_IP_B=10.199.0.2
# shellcheck disable=SC2034 # used by the tests
RCL_T3_MTU_MIN=68
# shellcheck disable=SC2034
RCL_T3_MTU_MAX=4078
RCL_BDF_A="" RCL_BDF_B="" RCL_IF_A="" RCL_IF_B=""
declare -A rcl_t3_saved=()

# Netdev of a board in this namespace (empty when none).
rcl_netdev() {
	local n
	for n in "/sys/bus/pci/devices/$1/net/"*; do
		[ -e "$n" ] && basename "$n" && return 0
	done
	return 0
}

# Side A or B -> netns, interface, ip, peer ip, bdf.
rcl_ns() { if [ "$1" = A ]; then echo "$RCL_NS_A"; else echo "$RCL_NS_B"; fi; }
rcl_if() { if [ "$1" = A ]; then echo "$RCL_IF_A"; else echo "$RCL_IF_B"; fi; }
rcl_ip() { if [ "$1" = A ]; then echo "$RCL_IP_A"; else echo "$RCL_IP_B"; fi; }
rcl_peer_ip() { if [ "$1" = A ]; then echo "$RCL_IP_B"; else echo "$RCL_IP_A"; fi; }
rcl_bdf() { if [ "$1" = A ]; then echo "$RCL_BDF_A"; else echo "$RCL_BDF_B"; fi; }

# Run a command in the namespace of side A or B.
rcl_nsx() { # side cmd...
	local ns
	ns=$(rcl_ns "$1")
	shift
	ip netns exec "$ns" "$@"
}

# Field of the interface of a side from `ip -j -d link` ("" when missing):
# operstate, mtu, carrier (1/0 from the sysfs file).
rcl_link_field() { # side field
	local ns dev
	ns=$(rcl_ns "$1")
	dev=$(rcl_if "$1")
	if [ "$2" = carrier ]; then
		ip netns exec "$ns" cat "/sys/class/net/$dev/carrier" 2>/dev/null ||
			echo 0
		return 0
	fi
	ip -n "$ns" -j -d link show dev "$dev" 2>/dev/null |
		"$RCL_PY" -c 'import json, sys
d = json.load(sys.stdin)
print(d[0].get(sys.argv[1], "") if d else "")' "$2"
}

# Wait for the carrier of a side to become VALUE (1/0); 0 when it did.
rcl_wait_carrier() { # side value [timeout]
	local end
	end=$((SECONDS + ${3:-$RCL_TIMEOUT}))
	while [ "$(rcl_link_field "$1" carrier)" != "$2" ]; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.05
	done
	return 0
}

# Carrier of a netdev in this namespace after bringing it up (1/0).
rcl_probe_carrier() { # dev
	local end
	end=$((SECONDS + 3))
	while [ "$SECONDS" -le "$end" ]; do
		[ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ] &&
			echo 1 && return 0
		sleep 0.1
	done
	echo 0
}

# Current RX and TX ring sizes of a netdev ("RX TX"), from ethtool -g.
rcl_rings() { # [netns-exec prefix...] dev
	"$@" 2>/dev/null | awk '/^Current hardware settings/ { c = 1 }
		c && $1 == "RX:" { rx = $2 } c && $1 == "TX:" { tx = $2 }
		END { print rx, tx }'
}

rcl_t3_picked=()
rcl_t3_pick() {
	local b dev up cands=()
	rcl_t3_picked=()
	if [ -n "${RCLINK_T3_DEVS:-}" ]; then
		for b in $RCLINK_T3_DEVS; do
			case $b in *:*:*) ;; *) b=0000:$b ;; esac
			cands+=("$b")
		done
	else
		read -r -a cands < <(rcl_bound | tr '\n' ' ')
	fi
	for b in "${cands[@]}"; do
		[ ${#rcl_t3_picked[@]} -ge 2 ] && break
		dev=$(rcl_netdev "$b")
		[ -n "$dev" ] || continue
		up=$(ip -j link show dev "$dev" | grep -c '"UP"' || true)
		ip link set dev "$dev" up 2>/dev/null || continue
		if [ "$(rcl_probe_carrier "$dev")" = 1 ]; then
			rcl_t3_picked+=("$b")
			rcl_t3_saved[up_$b]=$up
		elif [ "$up" = 0 ]; then
			ip link set dev "$dev" down
		fi
	done
}

rcl_t3_setup() {
	local side ns dev bdf
	ktap_header
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
	[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
	command -v ip >/dev/null || ktap_skip_all "no ip (iproute2)"
	rcl_debugfs_setup
	rcl_module_setup
	trap rcl_t3_cleanup EXIT
	[ -n "$(rcl_bound)" ] || ktap_skip_all "no board bound to rclink"
	local any=""
	for bdf in $(rcl_bound); do
		[ -n "$(rcl_netdev "$bdf")" ] && any=1
	done
	[ -n "$any" ] || ktap_skip_all "no rclink board has a netdev (TYPE3 not in this driver)"
	rcl_t3_pick
	set -- "${rcl_t3_picked[@]}"
	if [ $# -lt 2 ]; then
		for bdf in "$@"; do
			[ "${rcl_t3_saved[up_$bdf]}" = 1 ] ||
				ip link set dev "$(rcl_netdev "$bdf")" down
		done
		ktap_skip_all "fewer than two rclink boards with carrier (need a wired pair)"
	fi
	RCL_BDF_A=$1 RCL_BDF_B=$2
	RCL_IF_A=$(rcl_netdev "$1") RCL_IF_B=$(rcl_netdev "$2")
	for side in A B; do
		ns=$(rcl_ns $side)
		dev=$(rcl_if $side)
		bdf=$(rcl_bdf $side)
		rcl_t3_saved[mtu_$side]=$(cat "/sys/class/net/$dev/mtu")
		rcl_t3_saved[rings_$side]=$(rcl_rings ethtool -g "$dev")
		ip netns add "$ns" || ktap_skip_all "cannot create netns $ns"
		rcl_t3_saved[ns_$side]=1
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1
		ip -n "$ns" link set lo up
		rcl_t3_side_into_ns $side ||
			ktap_skip_all "cannot move $dev into a namespace"
	done
	for side in A B; do
		rcl_wait_carrier $side 1 ||
			ktap_diag "warning: no carrier on $(rcl_if $side) after setup"
	done
	ktap_diag "A: $RCL_BDF_A $RCL_IF_A $RCL_IP_A (netns $RCL_NS_A)"
	ktap_diag "B: $RCL_BDF_B $RCL_IF_B $RCL_IP_B (netns $RCL_NS_B)"
}

# Move the netdev of a side ($RCL_IF_x, in the init namespace) into the
# side's namespace, give it its address and bring it up.
rcl_t3_side_into_ns() { # side
	local ns dev
	ns=$(rcl_ns "$1")
	dev=$(rcl_if "$1")
	ip link set dev "$dev" down
	ip link set dev "$dev" netns "$ns" || return 1
	ip -n "$ns" addr add "$(rcl_ip "$1")/24" dev "$dev"
	ip -n "$ns" link set dev "$dev" up
}

# Put a side's device back into the init namespace as it was found.
rcl_t3_restore_side() { # side
	local side=$1 ns dev bdf rings
	ns=$(rcl_ns "$side")
	dev=$(rcl_if "$side")
	bdf=$(rcl_bdf "$side")
	[ -n "$dev" ] || return 0
	if ip -n "$ns" link show dev "$dev" >/dev/null 2>&1; then
		ip -n "$ns" link set dev "$dev" down
		ip -n "$ns" addr flush dev "$dev"
		ip -n "$ns" link set dev "$dev" netns 1
	fi
	ip netns del "$ns" 2>/dev/null
	# The device may have been renamed or recreated (module reload).
	dev=$(rcl_netdev "$bdf")
	[ -n "$dev" ] || return 0
	ip link set dev "$dev" down 2>/dev/null
	ip link set dev "$dev" mtu "${rcl_t3_saved[mtu_$side]}" 2>/dev/null
	rings=${rcl_t3_saved[rings_$side]:-}
	if [ -n "${rings// /}" ] && [ "$(rcl_rings ethtool -g "$dev")" != "$rings" ]; then
		# shellcheck disable=SC2086 # "RX TX"
		set -- $rings
		ethtool -G "$dev" rx "$1" tx "$2" 2>/dev/null ||
			echo "# restoring rings of $dev failed"
	fi
	[ "${rcl_t3_saved[up_$bdf]:-0}" = 1 ] && ip link set dev "$dev" up
	return 0
}

# A test's own cleanup, run first by rcl_t3_cleanup (a function name).
rcl_t3_cleanup_hook=""
rcl_t3_cleanup() {
	local side
	[ -n "$rcl_t3_cleanup_hook" ] && "$rcl_t3_cleanup_hook"
	rcl_stream_stop
	for side in A B; do
		[ -n "${rcl_t3_saved[ns_$side]:-}" ] && rcl_t3_restore_side "$side"
	done
	rcl_module_cleanup
}

# Set the MTU of both sides; the first error message on stdout.
rcl_t3_mtu() { # mtu
	local side out
	for side in A B; do
		out=$(ip -n "$(rcl_ns $side)" link set dev "$(rcl_if $side)" \
			mtu "$1" 2>&1) || { echo "$out"; return 1; }
	done
	return 0
}

# ping from a side to the other: side [ping options...].  iputils ping when
# installed (it has -M), else the python one of rclinktest.py (same options
# and summary lines).  Output on stdout, exit status of ping.
rcl_ping() { # side [-c N] [-s SIZE] [-M do] [-i SEC] [-W SEC] [-q] ...
	local side=$1 peer
	shift
	peer=$(rcl_peer_ip "$side")
	if [ -n "${RCL_IPUTILS_PING:-}" ]; then
		ip netns exec "$(rcl_ns "$side")" ping -n "$@" "$peer"
	else
		ip netns exec "$(rcl_ns "$side")" "$RCL_PY" "$RCL_LIB/rclinktest.py" ping "$@" "$peer"
	fi
}
if ping -V 2>/dev/null | grep -q iputils; then
	RCL_IPUTILS_PING=1
fi

# Received count of a ping summary on stdin.
rcl_ping_received() {
	sed -n 's/.* \([0-9]*\) \(packets \)\{0,1\}received.*/\1/p' | tail -n 1
}

# ethtool -S of a side as "name value" lines.
rcl_ethtool_stats() { # side
	rcl_nsx "$1" ethtool -S "$(rcl_if "$1")" |
		awk -F: 'NR > 1 { gsub(/^ +/, "", $1); gsub(/ /, "", $2); print $1, $2 }'
}

# One stat of ethtool -S of a side (empty when missing).
rcl_ethtool_stat() { # side name
	rcl_ethtool_stats "$1" | awk -v n="$2" '$1 == n { print $2 }'
}

# rtnl stats64 of a side: "rx_packets rx_bytes tx_packets tx_bytes
# rx_dropped tx_dropped rx_errors tx_errors".
rcl_link_stats() { # side
	ip -n "$(rcl_ns "$1")" -j -s link show dev "$(rcl_if "$1")" |
		"$RCL_PY" -c 'import json, sys
s = json.load(sys.stdin)[0]["stats64"]
r, t = s["rx"], s["tx"]
print(r["packets"], r["bytes"], t["packets"], t["bytes"], r["dropped"],
      t["dropped"], r["errors"], t["errors"])'
}

# Background TCP stream from side A to side B (python sockets), until
# rcl_stream_stop.  Sets rcl_stream_pids.
rcl_stream_pids=""
rcl_stream_start() { # seconds
	local p
	# ip netns exec execs python: $! is the python process.
	ip netns exec "$RCL_NS_B" "$RCL_PY" "$RCL_LIB/rclinktest.py" tcp_sink \
		"$RCL_IP_B" 5201 "${1:-60}" >/dev/null 2>&1 &
	p=$!
	sleep 1
	ip netns exec "$RCL_NS_A" "$RCL_PY" "$RCL_LIB/rclinktest.py" tcp_source \
		"$RCL_IP_B" 5201 "${1:-60}" >/dev/null 2>&1 &
	rcl_stream_pids="$p $!"
}
rcl_stream_stop() {
	local p
	for p in $rcl_stream_pids; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in $rcl_stream_pids; do
		wait "$p" 2>/dev/null
	done
	rcl_stream_pids=""
}

# ---- TYPE1 (the t1_*.sh tests) -------------------------------------------
# The `rclink` tool ($RCLINK_TOOL, default <repo>/build/tools/rclink) and
# two boards: $RCLINK_T1_DEVS="rclinkA rclinkB", else the first two boards
# `rclink dev show` lists.  rcl_t1_setup checks the preconditions (skip
# without them), loads the module, remembers each board's configuration
# and QPs and gives the boards the IPv4 addresses $RCL_T1_IP_A/_B; the EXIT
# trap deletes the QPs the test added, switches the wire fault injection
# off (when the test used it) and restores the configuration.
RCL_TOOL=${RCLINK_TOOL:-$RCL_TOP/build/tools/rclink}
# installed (the rclink-tools package): the tool in PATH
if [ -z "${RCLINK_TOOL:-}" ] && [ ! -x "$RCL_TOOL" ] && command -v rclink >/dev/null; then
	RCL_TOOL=$(command -v rclink)
fi
RCL_T1_PY=$RCL_LIB/rclink_t1.py
RCL_T1_A="" RCL_T1_B=""
RCL_T1_IP_A=10.198.0.1
RCL_T1_IP_B=10.198.0.2
RCL_T1_MAC_A="" RCL_T1_MAC_B=""
RCL_T1_QP_NUM=""
RCL_T1_TMP=""
rcl_t1_wire_used=0

rcl_tool() { "$RCL_TOOL" "$@"; }
rcl_t1py() { "$RCL_PY" "$RCL_T1_PY" "$@"; }

# KEY... of the JSON on stdin, one value a line (an array: its first
# element; a key missing at the top is looked up in "stats"; booleans as
# on/off).  python -S: it starts faster, which counts under TCG.
rcl_json_get() {
	"$RCL_PY" -S -c '
import json, sys
o = json.load(sys.stdin)
if isinstance(o, list):
    o = o[0] if o else {}
for k in sys.argv[1:]:
    v = o[k] if k in o else o.get("stats", {})[k]
    print(("on" if v else "off") if isinstance(v, bool) else v)' "$@"
}

# QP numbers configured on a board, sorted, on one line.
rcl_t1_qpns() { # dev
	local out
	out=$(rcl_tool -j qp show dev "$1") || return 1
	grep -o '"qpn": *[0-9]*' <<<"$out" | grep -o '[0-9]*$' | sort -n |
		tr '\n' ' ' | sed 's/ $//'
	echo
}

# 0 when the board has the QP.
rcl_t1_has_qp() { rcl_tool qp show dev "$1" qpn "$2" >/dev/null 2>&1; }

# 1 when the board at bdf counts the events inside the IP that no IP port
# reports (SHIM_CAP3.ip_counters), else 0: the driver then leaves those
# counters out of `rclink -s qp/dev show` (Documentation/hw/shim.rst,
# "What a shim can count")
rcl_ip_counters() { # bdf
	"$RCL_PY" -S -c 'import sys
sys.path.insert(0, sys.argv[1])
import rclinktest as rt
with rt.Bar0(sys.argv[2]) as bar:
    print(bar.rfield("SHIM_CAP3", "ip_counters"))' "$RCL_LIB" "$1"
}

# PCI address of a board (rclinkN).
rcl_t1_bdf() {
	local l=/sys/class/rclink/$1/device
	if [ -e "$l" ]; then
		basename "$(readlink -f "$l")"
	else
		rcl_t1py bdf "$1"
	fi
}

# A field of `rclink -j -s qp show dev DEV qpn Q` (stats keys too).
rcl_t1_qp_field() { # dev qpn key
	rcl_tool -j -s qp show dev "$1" qpn "$2" 2>/dev/null | rcl_json_get "$3"
}

# A field of `rclink -j dev show dev DEV`.
rcl_t1_dev_field() { # dev key
	rcl_tool -j dev show dev "$1" 2>/dev/null | rcl_json_get "$2"
}

# The live capture of the pair's wire, or nothing: $RCLINK_WIRE_PCAP, else
# $RCLINK_RESULTS/wire.pcap with its capture switch turned on (see
# rclinktest.wire_pcap()).
rcl_wire_pcap() {
	local p=${RCLINK_WIRE_PCAP:-}
	if [ -z "$p" ] && [ -n "${RCLINK_RESULTS:-}" ]; then
		p=$RCLINK_RESULTS/wire.pcap
		[ -f "$p" ] && : >"$p.capture"
	fi
	[ -n "$p" ] && [ -f "$p" ] && echo "$p"
	return 0
}

# Wire fault injection / link hook of a board: rclink_wire.py DEV ARGS.
rcl_wire() {
	rcl_t1_wire_used=1
	"$RCL_PY" "$RCL_LIB/rclink_wire.py" "$@"
}

rcl_t1_setup() {
	local out side
	ktap_header
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
	[ -x "$RCL_TOOL" ] || ktap_skip_all "no rclink tool $RCL_TOOL (make tools, or set RCLINK_TOOL)"
	[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
	rcl_debugfs_setup
	rcl_module_setup
	trap rcl_t1_cleanup EXIT
	out=$(rcl_t1py devs)
	case $? in
	0) read -r RCL_T1_A RCL_T1_B <<<"$out" ;;
	4) ktap_skip_all "$out" ;;
	*) rcl_t1_setup_fail "cannot list the boards: $out" ;;
	esac
	RCL_T1_TMP=$(mktemp -d)
	local dev err=""
	for side in A B; do
		dev=$(rcl_t1_name $side)
		rcl_tool -j dev show dev "$dev" >"$RCL_T1_TMP/dev_$side.json" \
			2>"$RCL_T1_TMP/err" ||
			err+="rclink -j dev show dev $dev: $(cat "$RCL_T1_TMP/err"); "
		rcl_t1_qpns "$dev" >"$RCL_T1_TMP/qpns_$side.tmp" 2>"$RCL_T1_TMP/err" &&
			mv "$RCL_T1_TMP/qpns_$side.tmp" "$RCL_T1_TMP/qpns_$side" ||
			err+="rclink -j qp show dev $dev: $(cat "$RCL_T1_TMP/err"); "
	done
	[ -z "$err" ] || rcl_t1_setup_fail "$err"
	for side in A B; do
		[ -z "$(tr -d ' \n' <"$RCL_T1_TMP/qpns_$side")" ] ||
			ktap_skip_all "$(rcl_t1_name $side) has QPs configured ($(cat "$RCL_T1_TMP/qpns_$side")): in use"
	done
	read -r RCL_T1_MAC_A RCL_T1_QP_NUM < <(rcl_json_get mac qp_num <"$RCL_T1_TMP/dev_A.json" | tr '\n' ' ')
	RCL_T1_MAC_B=$(rcl_json_get mac <"$RCL_T1_TMP/dev_B.json")
	for side in A B; do
		dev=$(rcl_t1_name $side)
		if [ "$side" = A ]; then out=$RCL_T1_IP_A; else out=$RCL_T1_IP_B; fi
		out=$(rcl_tool dev set dev "$dev" ip "$out" 2>&1) ||
			rcl_t1_setup_fail "rclink dev set dev $dev ip ...: $out"
	done
	ktap_diag "A: $RCL_T1_A $(rcl_t1_bdf "$RCL_T1_A" 2>&1) $RCL_T1_IP_A $RCL_T1_MAC_A"
	ktap_diag "B: $RCL_T1_B $(rcl_t1_bdf "$RCL_T1_B" 2>&1) $RCL_T1_IP_B $RCL_T1_MAC_B"
	ktap_diag "tool: $RCL_TOOL, qp_num $RCL_T1_QP_NUM"
}

# The tool is there but fails: that is a failure, not a skip.
rcl_t1_setup_fail() {
	ktap_plan 1
	ktap_fail t1_setup "$*"
	ktap_finish
}

# The TYPE1 name (rclinkN) of the board at a PCI address: a module load
# may probe the boards in another order than the last one did.
rcl_t1_dev_at() { # bdf
	local l
	for l in /sys/class/rclink/*; do
		[ -e "$l/device" ] || continue
		if [ "$(basename "$(readlink -f "$l/device")")" = "$1" ]; then
			basename "$l"
			return 0
		fi
	done
	echo "no rclink device at $1" >&2
	return 1
}

rcl_t1_name() { if [ "$1" = A ]; then echo "$RCL_T1_A"; else echo "$RCL_T1_B"; fi; }

# Delete every QP of a board that was not there at setup; prints them.
rcl_t1_del_new_qps() { # side
	local dev q
	dev=$(rcl_t1_name "$1")
	# Without the list of the QPs found at setup, touch nothing.
	[ -f "$RCL_T1_TMP/qpns_$1" ] || return 0
	for q in $(rcl_t1_qpns "$dev" 2>/dev/null); do
		grep -qw "$q" "$RCL_T1_TMP/qpns_$1" 2>/dev/null && continue
		rcl_tool qp del dev "$dev" qpn "$q" >/dev/null 2>&1 ||
			echo "# cannot delete QP $q of $dev"
		echo "$q"
	done
}

# Run the kselftest_harness program $1 (a path) on the pair picked by
# rcl_t1_setup, with the boards in the environment; its KTAP is the test's
# output.  A QP it leaves behind or a kernel splat fails it.  Exits with
# its status.  Arguments after $2 (the name for the kernel log mark) go to
# the program.
rcl_t1_run_prog() { # bin name [args...]
	local bin=$1 name=$2 mark rc leaked="" side q bad
	shift 2
	export RCLINK_TOOL=$RCL_TOOL
	export RCLINK_T1_A=$RCL_T1_A RCLINK_T1_B=$RCL_T1_B
	export RCLINK_T1_IP_A=$RCL_T1_IP_A RCLINK_T1_IP_B=$RCL_T1_IP_B
	export RCLINK_T1_MAC_A=$RCL_T1_MAC_A RCLINK_T1_MAC_B=$RCL_T1_MAC_B
	export RCLINK_T1_QP_NUM=$RCL_T1_QP_NUM
	mark=$(rcl_kmsg_mark "$name")

	# The program prints its own KTAP header.
	"$bin" "$@" 2>&1 | sed -u '/^TAP version/d'
	rc=${PIPESTATUS[0]}

	for side in A B; do
		q=$(rcl_t1_del_new_qps "$side" | tr '\n' ' ')
		[ -z "$q" ] || leaked+="$(rcl_t1_name $side): $q"
	done
	if [ -n "$leaked" ]; then
		ktap_diag "QPs left behind by $bin (deleted now): $leaked"
		[ "$rc" -eq 0 ] && rc=1
	fi
	bad=$(rcl_kmsg_since "$mark" | rcl_splats)
	if [ -n "$bad" ]; then
		ktap_diag "kernel log: $bad"
		if [ "$rc" -eq 0 ] || [ "$rc" -eq 4 ]; then
			rc=1
		fi
	fi
	exit "$rc"
}

# A test's own cleanup, run first by rcl_t1_cleanup (a function name).
rcl_t1_cleanup_hook=""
rcl_t1_cleanup() {
	local side dev args
	[ -n "$rcl_t1_cleanup_hook" ] && "$rcl_t1_cleanup_hook"
	if [ -n "$RCL_T1_TMP" ]; then
		for side in A B; do
			dev=$(rcl_t1_name "$side")
			[ -n "$dev" ] || continue
			if [ "$rcl_t1_wire_used" = 1 ]; then
				"$RCL_PY" "$RCL_LIB/rclink_wire.py" "$dev" off >/dev/null 2>&1
			fi
			rcl_t1_del_new_qps "$side" >/dev/null
			args=$(rcl_t1py restore-args "$RCL_T1_TMP/dev_$side.json" "$dev" 2>/dev/null)
			if [ -n "$args" ]; then
				# shellcheck disable=SC2086 # a list of arguments
				rcl_tool dev set dev "$dev" $args >/dev/null 2>&1 ||
					echo "# restoring $dev ($args) failed"
			fi
		done
		rm -rf "$RCL_T1_TMP"
	fi
	rcl_module_cleanup
}
