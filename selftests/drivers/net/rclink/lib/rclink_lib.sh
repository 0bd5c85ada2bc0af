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
