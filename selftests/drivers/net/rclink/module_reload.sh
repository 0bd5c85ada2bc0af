#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rmmod / insmod rclink $RCLINK_RELOAD_CYCLES (5) times: the module unloads
# without leaving its debugfs root, driver dir or interrupt lines, and every
# board that was bound comes back bound with its self-test passed.  The
# module ends loaded or not as it was found.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

CYCLES=${RCLINK_RELOAD_CYCLES:-5}

ktap_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
rcl_debugfs_setup
rcl_module_setup

boards=$(rcl_bound | tr '\n' ' ')
[ -n "$boards" ] || ktap_skip_all "no board bound to rclink"
ktap_diag "boards: $boards"
mark=$(rcl_kmsg_mark module_reload)

ktap_plan $((CYCLES + 1))
for ((i = 1; i <= CYCLES; i++)); do
	errs=""
	if ! out=$(rcl_module_unload 2>&1); then
		errs+="rmmod: $out; "
	else
		[ -e "$RCL_DBG" ] && errs+="$RCL_DBG left after rmmod; "
		[ -e "$RCL_DRIVER_DIR" ] && errs+="$RCL_DRIVER_DIR left after rmmod; "
		n=$(rcl_irq_lines)
		[ "$n" -eq 0 ] || errs+="$n rclink interrupt lines after rmmod; "
		if ! out=$(rcl_module_load 2>&1); then
			errs+="load: $out; "
		fi
	fi
	if rcl_module_loaded; then
		now=$(rcl_bound | tr '\n' ' ')
		[ "$now" = "$boards" ] || errs+="bound: '$now', was '$boards'; "
		for b in $boards; do
			rcl_selftest_ok "$b" || errs+="$b selftest: $(tr '\n' ' ' <"$RCL_DBG/$b/selftest" 2>&1); "
		done
	fi
	ktap_result "reload_$i" "$([ -z "$errs" ]; echo $?)" "$errs"
	rcl_module_loaded || break
done
while [ "$ktap_num" -lt "$CYCLES" ]; do
	ktap_skip "reload_$((ktap_num + 1))" "module not loaded any more"
done

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
