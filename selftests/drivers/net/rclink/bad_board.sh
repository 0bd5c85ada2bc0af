#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boards the driver must refuse: a wrong SHIM_ID magic ("unknown board") and
# a shim major version it does not know ("unsupported shim version").  Each
# such board is not bound, has no debugfs dir or devlink instance, and a
# new bind attempt fails with the clear message in the kernel log.  The
# boards are recognised by reading their identity registers; SKIP when
# there are none (a real board).

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

ktap_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
rcl_debugfs_setup
rcl_module_setup

bad=()
want=()
for b in $(rcl_devices); do
	[ -z "$(rcl_driver "$b")" ] || continue
	id=$(rcl_py identity "$b" 2>&1) || {
		ktap_diag "$b: cannot read identity: $id"
		continue
	}
	case $id in
	*verdict=bad_magic*)
		bad+=("$b")
		want+=("unknown board")
		;;
	*verdict=bad_major*)
		bad+=("$b")
		want+=("unsupported shim version")
		;;
	*)
		ktap_diag "$b: not bound but not a bad board: not this test's case"
		;;
	esac
	ktap_diag "$b: $id"
done
[ ${#bad[@]} -gt 0 ] || ktap_skip_all "no board with a wrong magic or shim version"

ktap_plan $((2 * ${#bad[@]}))
for i in "${!bad[@]}"; do
	b=${bad[$i]}
	msg=${want[$i]}
	errs=""
	[ -z "$(rcl_driver "$b")" ] || errs+="bound to $(rcl_driver "$b"); "
	[ -e "$RCL_DBG/$b" ] && errs+="has debugfs dir $RCL_DBG/$b; "
	if command -v devlink >/dev/null &&
		devlink dev 2>/dev/null | grep -q "pci/$b"; then
		errs+="has a devlink instance; "
	fi
	ktap_result "$b.not_bound" "$([ -z "$errs" ]; echo $?)" "$errs"

	mark=$(rcl_kmsg_mark "bad_board $b")
	errs=""
	if rcl_bind "$b" 2>/dev/null; then
		errs+="bind succeeded; "
		rcl_unbind "$b"
	fi
	log=$(rcl_kmsg_since "$mark")
	if ! grep -F "$b" <<<"$log" | grep -qF "$msg"; then
		errs+="no kernel log line with '$b' and '$msg'; log after bind:
$log"
	fi
	splat=$(rcl_splats <<<"$log")
	[ -n "$splat" ] && errs+="kernel splat: $splat"
	ktap_result "$b.refused_with_message" "$([ -z "$errs" ]; echo $?)" "$errs"
done
ktap_finish
