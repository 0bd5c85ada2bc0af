#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unbind/bind one good board $RCLINK_REBIND_CYCLES (100) times.  While
# unbound nothing of it is left (debugfs dir, devlink instance, interrupt
# lines); afterwards it passes its self-test, counts an injected event,
# nothing leaked (kmemleak when the kernel has it, else unreclaimable slab
# within a tolerance) and the kernel log is clean.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

CYCLES=${RCLINK_REBIND_CYCLES:-100}
WARMUP=3
# Unreclaimable slab growth allowed over all cycles (KiB)
SLAB_TOLERANCE_KB=${RCLINK_SLAB_TOLERANCE_KB:-1024}
KMEMLEAK=/sys/kernel/debug/kmemleak

ktap_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
rcl_debugfs_setup
rcl_module_setup

bdf=${RCLINK_REBIND_DEV:-$(rcl_bound | head -n 1)}
[ -n "$bdf" ] || ktap_skip_all "no board bound to rclink"
[ "$(rcl_driver "$bdf")" = rclink ] || ktap_skip_all "$bdf is not bound to rclink"
mode=$(rcl_irq_mode "$bdf")
ktap_diag "board $bdf, irq $mode, $CYCLES cycles"

# In case the test dies halfway: the board ends bound.
# shellcheck disable=SC2317 # called by the EXIT trap
restore() {
	[ "$(rcl_driver "$bdf")" = rclink ] || rcl_bind "$bdf" 2>/dev/null
	rcl_module_cleanup
}
trap restore EXIT

ktap_plan 7
mark=$(rcl_kmsg_mark rebind)
irq0=$(rcl_irq_lines)
unreclaim() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }

cycle() { # -> 0, or prints what went wrong
	rcl_unbind "$bdf" || { echo "unbind failed"; return 1; }
	[ -z "$(rcl_driver "$bdf")" ] || { echo "still bound after unbind"; return 1; }
	rcl_bind "$bdf" || { echo "bind failed"; return 1; }
	[ "$(rcl_driver "$bdf")" = rclink ] || { echo "not bound after bind"; return 1; }
	return 0
}

# 1: what an unbound board leaves behind
rcl_unbind "$bdf"
errs=""
[ -e "$RCL_DBG/$bdf" ] && errs+="debugfs dir $RCL_DBG/$bdf still there; "
if command -v devlink >/dev/null && devlink dev 2>/dev/null | grep -q "pci/$bdf"; then
	errs+="devlink instance pci/$bdf still there; "
fi
irq_unbound=$(rcl_irq_lines)
if [ "$irq0" -gt 0 ] && [ "$irq_unbound" -ge "$irq0" ]; then
	errs+="rclink interrupt lines $irq0 before, $irq_unbound while unbound; "
fi
[ -e "/sys/bus/pci/devices/$bdf/msi_irqs" ] &&
	[ -n "$(ls "/sys/bus/pci/devices/$bdf/msi_irqs" 2>/dev/null)" ] &&
	errs+="MSI vectors still allocated; "
rcl_bind "$bdf"
ktap_result unbound_leaves_nothing "$([ -z "$errs" ]; echo $?)" "$errs"

# 2: the cycles (a warm-up first so that one-time allocations settle)
for ((i = 0; i < WARMUP; i++)); do
	cycle >/dev/null
done
if [ -w "$KMEMLEAK" ]; then
	echo scan >"$KMEMLEAK"
	echo clear >"$KMEMLEAK"
fi
sync
echo 2 2>/dev/null >/proc/sys/vm/drop_caches
slab0=$(unreclaim)
err=""
for ((i = 1; i <= CYCLES; i++)); do
	if ! msg=$(cycle); then
		err="cycle $i: $msg"
		break
	fi
done
ktap_result "unbind_bind_x$CYCLES" "$([ -z "$err" ]; echo $?)" "$err"
[ "$(rcl_driver "$bdf")" = rclink ] || rcl_bind "$bdf" 2>/dev/null

# 3: the board works
rcl_selftest_ok "$bdf"
ktap_result selftest_after "$?" "selftest: $(cat "$RCL_DBG/$bdf/selftest" 2>&1)"

before=$(rcl_counter "$bdf" t1_tx_oversize)
out=$(rcl_inject "$bdf" 1 1 3 2>&1)
rc=$?
if [ "$rc" -eq "$KSFT_SKIP" ]; then
	ktap_skip event_after "${out#SKIP: }"
elif [ "$rc" -ne 0 ] || [ -z "$before" ]; then
	ktap_fail event_after "inject: $out; counter t1_tx_oversize '$before'"
else
	rcl_wait_counter "$bdf" t1_tx_oversize $((before + 1))
	ktap_result event_after "$?" \
		"t1_tx_oversize $before -> $(rcl_counter "$bdf" t1_tx_oversize)"
fi

# 4: nothing stale
errs=""
irq1=$(rcl_irq_lines)
[ "$irq1" -eq "$irq0" ] || errs+="rclink interrupt lines: $irq0 before, $irq1 after; "
ndirs=$(rcl_debugfs_dirs)
nbound=$(rcl_driver_count)
[ "$ndirs" -eq "$nbound" ] || errs+="$ndirs debugfs dirs for $nbound bound boards; "
now=$(rcl_irq_mode "$bdf")
[ "$now" = "$mode" ] || errs+="irq mode '$now', was '$mode'; "
ktap_result nothing_stale "$([ -z "$errs" ]; echo $?)" "$errs"

# 5: no leak
if [ -w "$KMEMLEAK" ]; then
	sleep 6
	echo scan >"$KMEMLEAK"
	sleep 1
	echo scan >"$KMEMLEAK"
	leaks=$(grep -c 'unreferenced object' "$KMEMLEAK")
	rl=$(grep -B2 -A20 'unreferenced object' "$KMEMLEAK" | grep -c rclink)
	if [ "$rl" -gt 0 ]; then
		ktap_fail no_leak "kmemleak: $leaks unreferenced objects, rclink in $rl backtrace lines
$(head -n 60 "$KMEMLEAK")"
	else
		ktap_ok no_leak
		[ "$leaks" -gt 0 ] && ktap_diag "kmemleak: $leaks objects, none rclink"
	fi
else
	sync
	echo 2 2>/dev/null >/proc/sys/vm/drop_caches
	slab1=$(unreclaim)
	grow=$((slab1 - slab0))
	ktap_result no_leak "$([ "$grow" -le "$SLAB_TOLERANCE_KB" ]; echo $?)" \
		"SUnreclaim ${slab0} kB -> ${slab1} kB over $CYCLES cycles (tolerance ${SLAB_TOLERANCE_KB} kB)"
	ktap_diag "no kmemleak: SUnreclaim ${slab0} kB -> ${slab1} kB (${grow} kB)"
fi

# 6: kernel log
bad=$(rcl_kmsg_since "$mark" | { grep -E 'rclink|BUG|WARNING|Oops' || true; } |
	grep -iE 'error|fail|BUG|WARNING|Oops|leak|Call Trace' || true)
bad+=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"

ktap_finish
