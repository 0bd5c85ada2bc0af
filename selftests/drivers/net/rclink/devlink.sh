#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# devlink on one board (Documentation/driver.rst, "devlink"):
#
#   * `devlink dev info`: driver, serial, every version the board reports,
#     each equal to its register (SHIM_SERIAL, SHIM_ID, SHIM_VERSION,
#     TX/RX_FC_REVISION_ID);
#   * the driverinit params with their defaults; bad values refused with
#     the driver's extack message;
#     new values applied by `devlink dev reload` (ethtool -g, debugfs t1
#     ring sizes, the event ring size in the log, header_format gen2,
#     the netdev kept: same name and ifindex,
#     cc_algorithm dcqcn's NOCNP period of 256 us and flow_control cbfc in
#     `rclink dev show`),
#     the defaults back with a second reload;
#   * the health reporters type3, type1 and events: a TYPE1 retry timeout
#     injected for a free QP is reported by "type1" (diagnose, dump,
#     recovered); with a 16-record event ring and the event vector masked in
#     the MSI-X table, 40 injected events overflow the ring and "events"
#     reports the 24 drops (diagnose, dump), once.
#
# Needs devlink (iproute2) and BAR0/MSI-X table access while bound
# (iomem=relaxed) for the health part, else those cases SKIP.  Leaves the
# params, the reporters' dumps and the board's TYPE1 configuration as it
# found them; the netdev is kept across the reloads.

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

ktap_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
command -v devlink >/dev/null || ktap_skip_all "no devlink tool (iproute2)"
[ -n "$(rcl_devices)" ] || ktap_skip_all "no rclink board"
rcl_debugfs_setup
rcl_module_setup

bdf=""
for b in $(rcl_bound); do
	if [ "$(rcl_irq_mode "$b" | cut -d" " -f1)" = msix ]; then
		bdf=$b
		break
	fi
done
[ -n "$bdf" ] || ktap_skip_all "no board bound to rclink with MSI-X"
dl=pci/$bdf
cdev=""
for c in /sys/class/rclink/rclink*; do
	[ -e "$c/device" ] || continue
	if [ "$(basename "$(readlink -f "$c/device")")" = "$bdf" ]; then
		cdev=$(basename "$c")
	fi
done
tmp=$(mktemp -d)

# The TYPE1 configuration and QPs, kept by the driver: they must not exist
# (a reload drops them) and the configuration must come back.
t1_before=""
if [ -x "$RCL_TOOL" ] && [ -n "$cdev" ]; then
	[ -z "$(rcl_t1_qpns "$cdev")" ] || ktap_skip_all "$cdev has QPs"
	rcl_tool -j dev show dev "$cdev" >"$tmp/t1.json" 2>/dev/null &&
		t1_before=1
fi
# One device's part of a devlink JSON dump: section device
# (iproute2 6.1 wants a name or reporter after the device, so dump all)
dl_json() {
	"$RCL_PY" -S -c '
import json, sys
print(json.dumps(json.load(sys.stdin)[sys.argv[1]].get(sys.argv[2]),
                 sort_keys=True))' "$1" "$2"
}
params_all() { devlink -j dev param show | dl_json param "$dl"; }
params_before=$(params_all)

PARAMS="event_eq_size type1_sq_size type1_rq_size type1_cq_size type3_tx_ring_size type3_rx_ring_size header_format cc_algorithm cc_ai_div cc_fast_steps cc_g_shift flow_control ctx_rx_hold_us rdma_timeout_us"
declare -A DEFAULT=([event_eq_size]=256 [type1_sq_size]=4096
	[type1_rq_size]=512 [type1_cq_size]=2048 [type3_tx_ring_size]=256
	[type3_rx_ring_size]=256 [header_format]=std [cc_algorithm]=none
	[cc_ai_div]=32 [cc_fast_steps]=5 [cc_g_shift]=4 [flow_control]=pfc
	[ctx_rx_hold_us]=500 [rdma_timeout_us]=100000)

# The driverinit value of a param
param_get() {
	devlink -j dev param show "$dl" name "$1" | "$RCL_PY" -S -c '
import json, sys
o = json.load(sys.stdin)["param"]
for p in list(o.values())[0]:
    for v in p["values"]:
        if v["cmode"] == "driverinit":
            print(v["value"])'
}
param_set() { devlink dev param set "$dl" name "$1" value "$2" cmode driverinit; }
reload() { devlink dev reload "$dl" action driver_reinit; }
netdev() {
	local n
	for n in /sys/bus/pci/devices/"$bdf"/net/*; do
		[ -e "$n" ] && basename "$n" && return
	done
}

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local p changed=0
	"$RCL_PY" "$RCL_LIB/rclink_msix.py" "$bdf" 0 unmask >/dev/null 2>&1
	for p in $PARAMS; do
		if [ "$(param_get "$p")" != "${DEFAULT[$p]}" ]; then
			param_set "$p" "${DEFAULT[$p]}"
			changed=1
		fi
	done
	[ "$changed" = 1 ] && reload >/dev/null 2>&1
	for r in type1 events type3; do
		devlink health dump clear "$dl" reporter "$r" 2>/dev/null
	done
	if [ -n "$t1_before" ]; then
		args=$(rcl_t1py restore-args "$tmp/t1.json" "$cdev" 2>/dev/null)
		# shellcheck disable=SC2086 # a list of arguments
		[ -z "$args" ] || rcl_tool dev set dev "$cdev" $args >/dev/null 2>&1
	fi
	rm -rf "$tmp"
	rcl_module_cleanup
}
trap cleanup EXIT

ktap_plan 8
mark=$(rcl_kmsg_mark devlink)

# 1: dev info against the registers
info=$(devlink -j dev info "$dl")
if ! errs=$("$RCL_PY" -S - "$info" "$bdf" "$RCL_LIB" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[3])
import rclinktest as rt
o = list(json.loads(sys.argv[1])["info"].values())[0]
errs = []
with rt.Bar0(sys.argv[2]) as bar:
    ver = bar.read('SHIM_VERSION')
    want = {
        'driver': 'rclink',
        'serial_number': '%016x' % bar.read('SHIM_SERIAL'),
        ('fixed', 'board.id'): '1172:2404',
        ('fixed', 'asic.id'): '0x%08x' % (bar.read('SHIM_ID') & 0xffffffff),
        ('fixed', 'asic.rev'): '%x.%x' % ((ver >> 40) & 0xff,
                                          (ver >> 32) & 0xff),
        ('fixed', 'mac.tx_fc.rev'): '0x%08x' % bar.read('TX_FC_REVISION_ID'),
        ('fixed', 'mac.rx_fc.rev'): '0x%08x' % bar.read('RX_FC_REVISION_ID'),
        ('running', 'fw'): '%d.%d' % ((ver >> 16) & 0xffff, ver & 0xffff),
    }
for k, v in want.items():
    got = o.get(k) if isinstance(k, str) else o.get('versions', {}).get(
        k[0], {}).get(k[1])
    if got != v:
        errs.append('%s: %r, want %r' % ('.'.join(k) if isinstance(k, tuple)
                                          else k, got, v))
if 'board.subsys' not in o.get('versions', {}).get('fixed', {}):
    errs.append('no fixed board.subsys')
print('; '.join(errs))
EOF
); then
	errs="reading the registers failed: $errs"
fi
ktap_diag "$(devlink dev info "$dl")"
ktap_result dev_info "$([ -z "$errs" ]; echo $?)" "$errs"

# 2: params and their defaults
errs=""
for p in $PARAMS; do
	v=$(param_get "$p")
	[ "$v" = "${DEFAULT[$p]}" ] || errs+="$p: '$v', want ${DEFAULT[$p]}; "
done
ktap_result params_default "$([ -z "$errs" ]; echo $?)" "$errs"

# 3: bad values: refused, with the driver's message, nothing changed
errs=""
for pv in event_eq_size:100 event_eq_size:8 type1_sq_size:8 \
	type1_cq_size:3000 type3_tx_ring_size:32 type3_rx_ring_size:4096 \
	header_format:gen3 cc_algorithm:cubic \
	cc_ai_div:0 cc_ai_div:1025 cc_fast_steps:65 cc_g_shift:0 cc_g_shift:11 \
	flow_control:xon rdma_timeout_us:0; do
	p=${pv%%:*} v=${pv#*:}
	case $p in
	header_format) msg="header format" ;;
	cc_algorithm) msg="congestion control algorithm" ;;
	flow_control) msg="flow control: pfc or cbfc" ;;
	cc_* | rdma_timeout_us) msg="$p: must be" ;;
	*) msg="power of two" ;;
	esac
	if out=$(param_set "$p" "$v" 2>&1); then
		errs+="$p $v accepted; "
	elif ! grep -q "$msg" <<<"$out"; then
		errs+="$p $v: no extack message: $out; "
	fi
	[ "$(param_get "$p")" = "${DEFAULT[$p]}" ] || errs+="$p changed to $(param_get "$p"); "
done
ktap_result params_invalid "$([ -z "$errs" ]; echo $?)" "$errs"

# 4: reload applies new values
errs=""
declare -A NEW=([event_eq_size]=32 [type1_sq_size]=1024 [type1_rq_size]=128
	[type1_cq_size]=256 [type3_tx_ring_size]=128 [type3_rx_ring_size]=512
	[header_format]=gen2 [cc_algorithm]=dcqcn [cc_ai_div]=16
	[cc_fast_steps]=3 [cc_g_shift]=5 [flow_control]=cbfc
	[ctx_rx_hold_us]=2000 [rdma_timeout_us]=250000)
for p in $PARAMS; do
	param_set "$p" "${NEW[$p]}" || errs+="setting $p failed; "
done
nd_before=$(netdev)
idx_before=$(cat "/sys/class/net/$nd_before/ifindex" 2>/dev/null)
kmark=$(rcl_kmsg_mark devlink-reload)
out=$(reload 2>&1) || errs+="reload: $out; "
nd=$(netdev)
if [ -z "$nd" ]; then
	errs+="no netdev after the reload; "
else
	idx=$(cat "/sys/class/net/$nd/ifindex" 2>/dev/null)
	[ "$nd $idx" = "$nd_before $idx_before" ] ||
		errs+="netdev $nd ifindex $idx after the reload, was $nd_before $idx_before; "
	rings=$(ethtool -g "$nd" | awk '/^Current/ { c = 1 } c && /^RX:/ { rx = $2 } c && /^TX:/ { tx = $2 } END { print rx, tx }')
	[ "$rings" = "512 128" ] || errs+="ethtool -g $nd: rx tx $rings, want 512 128; "
fi
t1=$RCL_DBG/$bdf/t1
if [ -r "$t1" ]; then
	got=$(awk '$1 ~ /^(sq|rq|cq)_size$/ { printf "%s=%s ", $1, $2 }' "$t1")
	[ "$got" = "sq_size=1024 rq_size=128 cq_size=256 " ] || errs+="debugfs t1: $got; "
fi
rcl_kmsg_since "$kmark" | grep -q "event ring of 32 records" ||
	errs+="no 'event ring of 32 records' in the log; "
if [ -n "$cdev" ] && [ -x "$RCL_TOOL" ]; then
	f=$(rcl_tool -j dev show dev "$cdev" | rcl_json_get format)
	[ "$f" = gen2 ] || errs+="$cdev format '$f' after the reload, want gen2; "
	# the CC loop runs on NOCNP records: on with it, 256 us
	f=$(rcl_tool -j dev show dev "$cdev" | rcl_json_get nocnp_us)
	[ "$f" = 256 ] || errs+="$cdev nocnp_us '$f' with dcqcn, want 256; "
	f=$(rcl_tool -j dev show dev "$cdev" | rcl_json_get flow_control)
	[ "$f" = cbfc ] || errs+="$cdev flow_control '$f' after the reload, want cbfc; "
fi
# the board's registers, where BAR0 can be read (iomem=relaxed) and the
# board has a registration table
if v=$(rcl_py read "$bdf" DMAQ_MR_CAP 2>/dev/null) && [ $((v & 0xffff)) -ne 0 ]; then
	v=$(rcl_py read "$bdf" DMAQ_RDMA_CFG)
	[ $((v & 0xffffffff)) -eq 250000 ] ||
		errs+="DMAQ_RDMA_CFG $v after the reload, want timeout_us 250000; "
	v=$(rcl_py read "$bdf" DMAQ_CTX_RX_HOLD)
	[ $((v & 0xffffffff)) -eq 2000 ] ||
		errs+="DMAQ_CTX_RX_HOLD $v after the reload, want 2000; "
fi
ktap_result reload_applies "$([ -z "$errs" ]; echo $?)" "$errs"

# 5: the defaults back
errs=""
for p in $PARAMS; do
	param_set "$p" "${DEFAULT[$p]}" || errs+="setting $p failed; "
done
out=$(reload 2>&1) || errs+="reload: $out; "
nd=$(netdev)
rings=$(ethtool -g "$nd" 2>/dev/null | awk '/^Current/ { c = 1 } c && /^RX:/ { rx = $2 } c && /^TX:/ { tx = $2 } END { print rx, tx }')
[ "$rings" = "256 256" ] || errs+="ethtool -g $nd: rx tx $rings; "
[ "$(params_all)" = "$params_before" ] ||
	errs+="devlink dev param show differs from before the test; "
rcl_selftest_ok "$bdf" || errs+="self-test not ok after the reloads; "
ktap_result reload_defaults "$([ -z "$errs" ]; echo $?)" "$errs"

# 6: the reporters
errs=""
hs=$(devlink -j health show | dl_json health "$dl")
for r in type3 type1 events; do
	grep -q "\"reporter\": *\"$r\"" <<<"$hs" || errs+="no reporter $r; "
	devlink health diagnose "$dl" reporter "$r" >/dev/null ||
		errs+="diagnose $r failed; "
done
ktap_diag "$(devlink health show | grep -A2 "$dl")"
ktap_result health_reporters "$([ -z "$errs" ]; echo $?)" "$errs"

# reporter field from `devlink -j health show`
rep_field() { # reporter key
	devlink -j health show "$dl" reporter "$1" | "$RCL_PY" -S -c '
import json, sys
o = json.load(sys.stdin)["health"]
print(list(o.values())[0][0][sys.argv[1]])' "$2"
}

# 7: "type1": a retry timeout of a free QP
QP=7
out=$(rcl_inject "$bdf" 0 0 0 0 2>&1)
if [ $? -eq 4 ]; then
	ktap_skip health_type1 "BAR0 not mappable while bound: $out"
	ktap_skip health_events "BAR0 not mappable while bound: $out"
	ktap_finish
fi
errs=""
e0=$(rep_field type1 error)
r0=$(rep_field type1 recover)
f0=$(rcl_counter "$bdf" qp_fatal)
rcl_inject "$bdf" 1 2 "$QP" || errs+="inject failed; "
rcl_wait_counter "$bdf" qp_fatal $((f0 + 1)) || errs+="qp_fatal did not move; "
end=$((SECONDS + 5))
while [ "$(rep_field type1 error)" -le "$e0" ] && [ "$SECONDS" -le "$end" ]; do
	sleep 0.1
done
[ "$(rep_field type1 error)" -eq $((e0 + 1)) ] || errs+="error count $(rep_field type1 error), want $((e0 + 1)); "
[ "$(rep_field type1 recover)" -eq $((r0 + 1)) ] || errs+="recover count $(rep_field type1 recover), want $((r0 + 1)); "
[ "$(rep_field type1 state)" = healthy ] || errs+="state $(rep_field type1 state); "
d=$(devlink -j health diagnose "$dl" reporter type1)
grep -q "\"last_qpn\": *$QP\b" <<<"$d" || errs+="diagnose: $d; "
d=$(devlink -j health dump show "$dl" reporter type1)
grep -q "\"qpn\": *$QP\b" <<<"$d" || errs+="dump: $d; "
ktap_diag "$(devlink health diagnose "$dl" reporter type1)"
ktap_result health_type1 "$([ -z "$errs" ]; echo $?)" "$errs"

# 8: "events": a 16-record ring overflows while its vector is masked
errs=""
if ! out=$("$RCL_PY" "$RCL_LIB/rclink_msix.py" "$bdf" 0 show 2>&1); then
	ktap_skip health_events "MSI-X table not mappable: $out"
	ktap_finish
fi
param_set event_eq_size 16 && reload >/dev/null || errs+="event_eq_size 16 + reload failed; "
e0=$(rep_field events error)
"$RCL_PY" "$RCL_LIB/rclink_msix.py" "$bdf" 0 mask >/dev/null || errs+="masking vector 0 failed; "
u0=$(rcl_counter "$bdf" unknown)
rcl_inject "$bdf" 0 1 0 40 || errs+="inject failed; "
"$RCL_PY" "$RCL_LIB/rclink_msix.py" "$bdf" 0 unmask >/dev/null || errs+="unmasking vector 0 failed; "
rcl_wait_counter "$bdf" unknown $((u0 + 16)) || errs+="16 records not handled; "
end=$((SECONDS + 5))
while [ "$(rep_field events error)" -le "$e0" ] && [ "$SECONDS" -le "$end" ]; do
	sleep 0.1
done
[ "$(rep_field events error)" -eq $((e0 + 1)) ] || errs+="error count $(rep_field events error), want $((e0 + 1)); "
[ "$(rep_field events state)" = healthy ] || errs+="state $(rep_field events state); "
d=$(devlink -j health diagnose "$dl" reporter events)
grep -q '"dropped": *24\b' <<<"$d" || errs+="diagnose: $d; "
# the board's event counters are there (not in ethtool -S): "unknown"
# as debugfs counts it, TYPE1 and RC_INTR ones, none of the netdev's
got=$("$RCL_PY" -c '
import json, sys
d = json.load(sys.stdin)
c = next(iter(d.values()))["counters"] if "counters" not in d else d["counters"]
print(c.get("unknown", "none"), sum(k.startswith("t1_") for k in c),
      sum(k.startswith("rc_intr_") for k in c),
      sum(k.startswith(("nonr_", "t3_", "link_")) for k in c))' <<<"$d" 2>&1)
read -r cu nt1 nrc nnet <<<"$got"
[ "$cu" = "$(rcl_counter "$bdf" unknown)" ] ||
	errs+="diagnose counters: unknown $cu, debugfs $(rcl_counter "$bdf" unknown) ($got); "
[ "${nt1:-0}" -gt 0 ] && [ "${nrc:-0}" -gt 0 ] || errs+="diagnose counters: $nt1 t1_, $nrc rc_intr_; "
[ "${nnet:-1}" -eq 0 ] || errs+="diagnose counters: $nnet of the netdev's; "
d=$(devlink -j health dump show "$dl" reporter events)
grep -q '"new_drops": *24\b' <<<"$d" || errs+="dump: $d; "
ktap_diag "$(devlink health diagnose "$dl" reporter events)"
# a second drain of a full ring without new drops reports nothing
rcl_inject "$bdf" 0 1 0 16 >/dev/null
sleep 0.5
[ "$(rep_field events error)" -eq $((e0 + 1)) ] || errs+="reported again without new drops; "
param_set event_eq_size 256 && reload >/dev/null || errs+="event_eq_size 256 + reload failed; "
ktap_result health_events "$([ -z "$errs" ]; echo $?)" "$errs"

splats=$(rcl_kmsg_since "$mark" | rcl_splats)
[ -z "$splats" ] || ktap_diag "kernel log: $splats"
ktap_finish
