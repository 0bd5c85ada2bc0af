#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TYPE1 control plane through the `rclink` tool (Documentation/uapi/
# rclink-tool.rst) on two boards A and B: the board configuration (dev
# show/set, JSON; the MAC address and the VLAN tag, checked on the wire
# capture when there is one), QP pairs set up on both sides (qp
# add/set/show/del, JSON checked field by field, statistics, messages
# with VLAN tags), every invalid input refused
# with a clear message and a nonzero exit, admin operations refused
# without CAP_NET_ADMIN (EPERM) while show and monitor work.  Each board
# keeps its configuration and no QP is left behind.
#
# Environment: RCLINK_TOOL (the tool), RCLINK_T1_DEVS="rclinkA rclinkB".

lib_dir=$(dirname "$0")/lib
# shellcheck source=lib/rclink_lib.sh
source "$lib_dir/rclink_lib.sh"

rcl_t1_setup
mark=$(rcl_kmsg_mark t1_qp)
A=$RCL_T1_A
B=$RCL_T1_B
QPNUM=$RCL_T1_QP_NUM
EPSN_W=$(rcl_json_get epsn_w <"$RCL_T1_TMP/dev_A.json")
PSN_END=$((1 << ${EPSN_W:-12}))
SPEED_MAX=$(((1 << 22) - 1))
LAST=$((QPNUM - 1))

ktap_plan 41

# Check fields of the tool's JSON on stdin (one object, or an array of
# one): key=value... (numbers compared as numbers, strings
# case-insensitively, booleans as on/off/true/false/1/0; "*": present; a
# key is found wherever it is, "stats" included).  Prints what differs.
# Plain bash: a python start costs a second under TCG.
json_norm() {
	local v=${1,,}
	v=${v#\"}
	v=${v%\"}
	case $v in
	true | on | yes) echo 1 ;;
	false | off | no) echo 0 ;;
	*) if [[ $v =~ ^[0-9]+$ ]]; then echo $((10#$v)); else echo "$v"; fi ;;
	esac
}
json_check() {
	local json kv k want got bad=""
	json=$(cat)
	case $json in
	"{"* | "["*) ;;
	*) echo "not JSON: $json"; return 1 ;;
	esac
	for kv in "$@"; do
		k=${kv%%=*}
		want=${kv#*=}
		got=$(grep -oE "\"$k\": *(\"[^\"]*\"|[^,}]*)" <<<"$json" | head -n 1)
		if [ -z "$got" ]; then
			bad+="no key $k; "
			continue
		fi
		got=${got#*:}
		got=${got# }
		[ "$want" = "*" ] && continue
		if [ "$(json_norm "$got")" != "$(json_norm "$want")" ]; then
			bad+="$k=$got, want $want; "
		fi
	done
	echo "$bad"
	[ -z "$bad" ]
}

# Run the tool; on failure print the command and its output.
t() {
	local out
	if ! out=$(rcl_tool "$@" 2>&1); then
		echo "rclink $*: exit $?: $out"
		return 1
	fi
	return 0
}

has_qp() { rcl_t1_has_qp "$@"; }

# -- the boards ---------------------------------------------------------------
DEV_KEYS="qp_num=* pkt_len=* ost=* epsn_w=* max_msg=* mac=* ip=* ttl=* ip_id=*
tc=* ack_tc=* format=standard retry_timer=* retry_cnt=* rnr_retry_cnt=*
ack_timestamp=* icrc=* vlan=* vlan_pri=*"
errs=""
all=$(rcl_tool -j dev show 2>&1) || errs+="rclink -j dev show: $all; "
for d in "$A" "$B"; do
	# shellcheck disable=SC2086 # a list of key=value
	out=$(rcl_tool -j dev show dev "$d" 2>&1 | json_check $DEV_KEYS) ||
		errs+="$d: $out; "
	grep -q "\"$d\"" <<<"$all" || errs+="rclink -j dev show does not list $d; "
done
n=$("$RCL_PY" -S -c 'import json, sys; print(len(json.load(sys.stdin)))' <<<"$all" 2>&1)
[ "$n" -ge 2 ] 2>/dev/null || errs+="rclink -j dev show: $n boards; "
ktap_result dev_show_json "$([ -z "$errs" ]; echo $?)" "$errs"
ktap_diag "$A: $(rcl_tool -j dev show dev "$A" 2>&1)"

errs=""
out=$(rcl_tool -j -p dev show dev "$A" 2>&1)
"$RCL_PY" -S -c 'import json, sys; json.load(sys.stdin)' <<<"$out" 2>/dev/null ||
	errs+="-j -p output is not JSON: $out; "
[ "$(wc -l <<<"$out")" -gt 3 ] || errs+="-j -p output is not pretty-printed: $out; "
out=$(rcl_tool dev show 2>&1) || errs+="rclink dev show: $out; "
for d in "$A" "$B"; do
	grep -qw "$d" <<<"$out" || errs+="rclink dev show does not name $d; "
done
ktap_result dev_show_text "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
out=$(rcl_tool -j dev show dev "$A" | json_check ip="$RCL_T1_IP_A") || errs+="$A: $out; "
out=$(rcl_tool -j dev show dev "$B" | json_check ip="$RCL_T1_IP_B") || errs+="$B: $out; "
mac_a=$(rcl_t1_dev_field "$A" mac)
mac_b=$(rcl_t1_dev_field "$B" mac)
[ "${mac_a,,}" != "${mac_b,,}" ] || errs+="both boards have MAC $mac_a; "
[[ "$mac_a" =~ ^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$ ]] || errs+="MAC '$mac_a'; "
ktap_result dev_set_ip "$([ -z "$errs" ]; echo $?)" "$errs"

# Every settable field round trips (restored right after, but the IP).
errs=""
out=$(t dev set dev "$A" ttl 17 ip_id 4660 tc 32 ack_tc 64 retry_timer 1000 \
	retry_cnt 5 rnr_retry_cnt 6 ack_timestamp on icrc off) || errs+="$out; "
out=$(rcl_tool -j dev show dev "$A" | json_check ttl=17 ip_id=4660 tc=32 \
	ack_tc=64 retry_timer=1000 retry_cnt=5 rnr_retry_cnt=6 ack_timestamp=1 \
	icrc=0 ip="$RCL_T1_IP_A") || errs+="$out; "
out=$(t dev set dev "$A" format standard) || errs+="$out; "
args=$(rcl_t1py restore-args "$RCL_T1_TMP/dev_A.json" "$A" ip)
# shellcheck disable=SC2086 # a list of arguments
if [ -n "$args" ]; then
	out=$(t dev set dev "$A" $args) || errs+="restoring: $out; "
fi
args=$(rcl_t1py restore-args "$RCL_T1_TMP/dev_A.json" "$A" ip)
[ -z "$args" ] || errs+="$A differs from its saved configuration after restoring: $args; "
ktap_result dev_set_fields "$([ -z "$errs" ]; echo $?)" "$errs"

# MAC address and VLAN tag: set, shown (JSON and text), restored.
MAC_X=02:52:43:aa:bb:01
errs=""
out=$(t dev set dev "$A" mac "$MAC_X" vlan 100 vlan_pri 5) || errs+="$out; "
out=$(rcl_tool -j dev show dev "$A" | json_check mac="$MAC_X" vlan=100 \
	vlan_pri=5 ip="$RCL_T1_IP_A") || errs+="$out; "
out=$(rcl_tool dev show dev "$A" 2>&1)
grep -qE "(^| )vlan 100 vlan_pri 5( |$)" <<<"$out" || errs+="text: no 'vlan 100 vlan_pri 5': $out; "
out=$(t dev set dev "$A" mac "$RCL_T1_MAC_A" vlan off vlan_pri 0) || errs+="$out; "
out=$(rcl_tool -j dev show dev "$A" | json_check mac="$RCL_T1_MAC_A" vlan=0 \
	vlan_pri=0) || errs+="$out; "
out=$(rcl_tool dev show dev "$A" 2>&1)
grep -qE "(^| )vlan off( |$)" <<<"$out" || errs+="text: no 'vlan off': $out; "
args=$(rcl_t1py restore-args "$RCL_T1_TMP/dev_A.json" "$A" ip)
[ -z "$args" ] || errs+="$A differs from its saved configuration: $args; "
ktap_result dev_set_mac_vlan "$([ -z "$errs" ]; echo $?)" "$errs"

# -- QP pairs -----------------------------------------------------------------
# A 1 <-> B 1 with the defaults; A 6 <-> B 2 (same bank) with every field;
# A LAST <-> B LAST at the largest QP number and PSN.
errs=""
t qp add dev "$A" qpn 1 dqpn 1 dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B" >/dev/null ||
	errs+="$(t qp add dev "$A" qpn 1 dqpn 1 dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B"); "
t qp add dev "$B" qpn 1 dqpn 1 dip "$RCL_T1_IP_A" dmac "$RCL_T1_MAC_A" >/dev/null ||
	errs+="$(t qp add dev "$B" qpn 1 dqpn 1 dip "$RCL_T1_IP_A" dmac "$RCL_T1_MAC_A"); "
A6="qp add dev $A qpn 6 dqpn 2 dip $RCL_T1_IP_B dmac $RCL_T1_MAC_B sport 50000 pkey 90 rx_pkey 165 sq_psn 100 rq_psn 200 speed 1000"
B2="qp add dev $B qpn 2 dqpn 6 dip $RCL_T1_IP_A dmac $RCL_T1_MAC_A sport 50001 pkey 165 rx_pkey 90 sq_psn 200 rq_psn 100 speed 2000"
# shellcheck disable=SC2086 # a command line
out=$(t $A6) || errs+="$out; "
# shellcheck disable=SC2086
out=$(t $B2) || errs+="$out; "
out=$(t qp add dev "$A" qpn "$LAST" dqpn "$LAST" dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B" \
	sq_psn $((PSN_END - 1)) rq_psn $((PSN_END - 1)) speed "$SPEED_MAX") || errs+="$out; "
out=$(t qp add dev "$B" qpn "$LAST" dqpn "$LAST" dip "$RCL_T1_IP_A" dmac "$RCL_T1_MAC_A" \
	sq_psn $((PSN_END - 1)) rq_psn $((PSN_END - 1))) || errs+="$out; "
ktap_result qp_add "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
out=$(rcl_tool -j qp show dev "$A" qpn 1 | json_check dev="$A" qpn=1 dqpn=1 \
	dip="$RCL_T1_IP_B" dmac="$RCL_T1_MAC_B" sport=49153 pkey=0 rx_pkey=0 \
	speed="$SPEED_MAX" state=ready bound=0 sq_psn=0 rq_psn=0) || errs+="$A qpn 1: $out; "
out=$(rcl_tool -j qp show dev "$A" qpn 6 | json_check dev="$A" qpn=6 dqpn=2 \
	dip="$RCL_T1_IP_B" dmac="$RCL_T1_MAC_B" sport=50000 pkey=90 rx_pkey=165 \
	speed=1000 state=ready bound=0 sq_psn=100 rq_psn=200) || errs+="$A qpn 6: $out; "
out=$(rcl_tool -j qp show dev "$B" qpn 2 | json_check dev="$B" qpn=2 dqpn=6 \
	dip="$RCL_T1_IP_A" dmac="$RCL_T1_MAC_A" sport=50001 pkey=165 rx_pkey=90 \
	speed=2000 state=ready bound=0 sq_psn=200 rq_psn=100) || errs+="$B qpn 2: $out; "
out=$(rcl_tool -j qp show dev "$A" qpn "$LAST" | json_check qpn="$LAST" \
	sport=$((49152 + LAST)) sq_psn=$((PSN_END - 1)) rq_psn=$((PSN_END - 1)) \
	speed="$SPEED_MAX" state=ready) || errs+="$A qpn $LAST: $out; "
ktap_result qp_show_json "$([ -z "$errs" ]; echo $?)" "$errs"
ktap_diag "$(rcl_tool -j qp show dev "$A" qpn 6 2>&1)"

STATS="tx_msgs tx_bytes tx_flushed rx_msgs rx_bytes rx_flushed fatal rx_pkts
rx_pkt_bytes timeouts rtt_samples"
# the board's counters of events inside the IP: absent on a board that does
# not count them (SHIM_CAP3.ip_counters 0), those assertions skipped there
IP_STATS="tx_pkts tx_pkt_bytes retx_pkts nak_rx nak_tx rnr_rx rnr_tx rx_dup
rx_oos ack_tx ack_rx"
errs=""
counts_a=1
for d in "$A" "$B"; do
	kv=""
	counts=$(rcl_ip_counters "$(rcl_t1_bdf "$d")" 2>&1)
	[ "$d" = "$A" ] && counts_a=$counts
	for k in $STATS; do
		kv+=" $k=0"
	done
	if [ "$counts" = 1 ]; then
		for k in $IP_STATS; do
			kv+=" $k=0"
		done
	else
		ktap_diag "SKIP assertion $d ${IP_STATS//$'\n'/ } = 0: the board does not count them"
	fi
	kv+=" rtt_last_us=* rtt_min_us=* rtt_max_us=*"
	# shellcheck disable=SC2086 # a list of key=value
	out=$(rcl_tool -j -s qp show dev "$d" qpn 1 | json_check $kv) || errs+="$d qpn 1: $out; "
done
out=$(rcl_tool -s qp show dev "$A" qpn 1 2>&1) || errs+="rclink -s qp show: $out; "
if [ "$counts_a" = 1 ]; then
	grep -q retx_pkts <<<"$out" || errs+="rclink -s qp show prints no retx_pkts: $out; "
else
	ktap_diag "SKIP assertion: $A does not count retx_pkts"
fi
ktap_result qp_show_stats "$([ -z "$errs" ]; echo $?)" "$errs"

# Dumps: per board and of every board.
errs=""
got=$(rcl_t1_qpns "$A" 2>&1)
[ "$got" = "1 6 $LAST" ] || errs+="$A has QPs '$got', want '1 6 $LAST'; "
got=$(rcl_t1_qpns "$B" 2>&1)
[ "$got" = "1 2 $LAST" ] || errs+="$B has QPs '$got', want '1 2 $LAST'; "
got=$(rcl_tool -j qp show 2>&1 | "$RCL_PY" -S -c '
import json, sys
print(" ".join(sorted("%s/%s" % (q["dev"], q["qpn"]) for q in json.load(sys.stdin))))' 2>&1)
for x in "$A/1" "$A/6" "$A/$LAST" "$B/1" "$B/2" "$B/$LAST"; do
	grep -qw "$x" <<<"$got" || errs+="rclink -j qp show (all boards) lacks $x: $got; "
done
out=$(rcl_tool qp show dev "$A" 2>&1) || errs+="rclink qp show dev $A: $out; "
ktap_result qp_show_dump "$([ -z "$errs" ]; echo $?)" "$errs"
ktap_diag "$out"

# qp set: fields change, the QP stays ready.
errs=""
out=$(t qp set dev "$A" qpn 6 dqpn 10 sport 50100 pkey 7 rx_pkey 8 speed 3000 \
	sq_psn 300 rq_psn 400 dip 10.198.0.9 dmac 02:00:00:00:00:09) || errs+="$out; "
out=$(rcl_tool -j qp show dev "$A" qpn 6 | json_check dqpn=10 sport=50100 \
	pkey=7 rx_pkey=8 speed=3000 sq_psn=300 rq_psn=400 dip=10.198.0.9 \
	dmac=02:00:00:00:00:09 state=ready) || errs+="$out; "
out=$(t qp set dev "$A" qpn 6 dqpn 2 dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B") || errs+="$out; "
out=$(rcl_tool -j qp show dev "$A" qpn 6 | json_check dqpn=2 sport=50100 \
	dip="$RCL_T1_IP_B" state=ready) || errs+="$out; "
ktap_result qp_set "$([ -z "$errs" ]; echo $?)" "$errs"

# VLAN on both boards (VID 100; priority 3 on A, 5 on B): A 1 -> B 1
# carries messages byte-exact; on the wire capture (when there is one)
# every TYPE1 frame of the two boards carries the tag: A's REQs PCP 3,
# B's ACKs PCP 5, VID 100, CFI 0.
vlan_wire_check() { # pcap offset mac_a mac_b
	"$RCL_PY" - "$@" <<'EOF'
import os, struct, sys, time
sys.dont_write_bytecode = True
sys.path.insert(0, os.environ['T1_DIR'])
from t1_wire import pcap_records
path, off, ma, mb = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
mac = {bytes.fromhex(ma.replace(':', '')): ('A', 3),
       bytes.fromhex(mb.replace(':', '')): ('B', 5)}
def scan():
    n, bad = {'A': 0, 'B': 0}, []
    for i, (_, d) in enumerate(pcap_records(path, off)[0]):
        if d[6:12] not in mac or len(d) < 46:
            continue
        side, pri = mac[d[6:12]]
        l2 = 14
        etype = struct.unpack('!H', d[12:14])[0]
        tci = None
        if etype == 0x8100:
            tci = struct.unpack('!H', d[14:16])[0]
            etype = struct.unpack('!H', d[16:18])[0]
            l2 = 18
        if etype != 0x0800 or d[l2 + 9] != 17:
            continue
        ihl = (d[l2] & 15) * 4
        if struct.unpack('!H', d[l2 + ihl + 2:l2 + ihl + 4])[0] != 4791:
            continue
        if tci is None:
            bad.append('frame %d from %s: no 802.1Q tag' % (i, side))
        elif (tci & 0xfff, tci >> 13, (tci >> 12) & 1) != (100, pri, 0):
            bad.append('frame %d from %s: VID %d PCP %d CFI %d, want 100 %d 0'
                       % (i, side, tci & 0xfff, tci >> 13, (tci >> 12) & 1, pri))
        else:
            n[side] += 1
    return n, bad
end, last = time.monotonic() + 10, None
while True:
    time.sleep(1)
    n, bad = scan()
    if (n == last and n['A'] and n['B']) or time.monotonic() > end:
        break
    last = n
if not n['A'] or not n['B']:
    bad.append('tagged TYPE1 frames: %d from A, %d from B' % (n['A'], n['B']))
print('; '.join(bad[:5]) if bad else 'tagged: %d from A, %d from B' % (n['A'], n['B']))
sys.exit(1 if bad else 0)
EOF
}
errs=""
pcap=$(rcl_wire_pcap)
out=$(t dev set dev "$A" vlan 100 vlan_pri 3) || errs+="$out; "
out=$(t dev set dev "$B" vlan 100 vlan_pri 5) || errs+="$out; "
out=$(rcl_tool -j dev show dev "$B" | json_check vlan=100 vlan_pri=5) || errs+="$B: $out; "
off=0
[ -z "$pcap" ] || off=$(stat -c %s "$pcap")
SIZES=1,109,1337,5000
rcl_t1py chan "$B" 1 recv 4 $SIZES 0 20 >"$RCL_T1_TMP/recv" 2>&1 &
rpid=$!
sleep 0.3
out=$(rcl_t1py chan "$A" 1 send $SIZES 0 2>&1) || errs+="send: $out; "
wait $rpid || errs+="receive: $(cat "$RCL_T1_TMP/recv"); "
if [ -n "$pcap" ]; then
	out=$(T1_DIR=$(dirname "$0") vlan_wire_check "$pcap" "$off" "$RCL_T1_MAC_A" "$RCL_T1_MAC_B" 2>&1) ||
		errs+="wire: $out; "
	ktap_diag "wire: $out"
else
	ktap_diag "no wire capture (\$RCLINK_RESULTS/wire.pcap): the tag is not checked"
fi
for side in A B; do
	d=$(rcl_t1_name $side)
	out=$(t dev set dev "$d" vlan "$(rcl_json_get vlan <"$RCL_T1_TMP/dev_$side.json" | sed 's/^0$/off/')" \
		vlan_pri "$(rcl_json_get vlan_pri <"$RCL_T1_TMP/dev_$side.json")") || errs+="restoring: $out; "
done
ktap_result vlan_traffic "$([ -z "$errs" ]; echo $?)" "$errs"

# -- refused input --------------------------------------------------------------
# refuse REGEX ARGS...: the tool run with ARGS must exit 1 or 2 with a
# message matching REGEX (case-insensitive); else 1 and $refuse_err says
# what happened.
refuse_err=""
refuse() {
	local re=$1 out rc
	shift
	refuse_err=""
	out=$(rcl_tool "$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		refuse_err="rclink $*: accepted (exit 0): $out"
	elif [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
		refuse_err="rclink $*: exit $rc (want 1 or 2): $out"
	elif [ -z "$out" ]; then
		refuse_err="rclink $*: exit $rc without a message"
	elif ! grep -qiE -- "$re" <<<"$out"; then
		refuse_err="rclink $*: exit $rc, message '$out' does not match /$re/"
	else
		ktap_diag "rclink $*: exit $rc: $out"
		return 0
	fi
	return 1
}

# refuse_add NAME REGEX QPN ARGS...: qp add refused, and no QP QPN after.
refuse_add() {
	local name=$1 re=$2 q=$3
	shift 3
	if ! refuse "$re" qp add dev "$A" qpn "$q" "$@"; then
		# accepted: do not leave the QP behind
		has_qp "$A" "$q" && rcl_tool qp del dev "$A" qpn "$q" >/dev/null 2>&1
		ktap_fail "$name" "$refuse_err"
	elif has_qp "$A" "$q"; then
		ktap_fail "$name" "QP $q exists after the refused add"
	else
		ktap_ok "$name"
	fi
}

# refuse_keep NAME REGEX CHECK ARGS...: refused, and qp show of A's QP 6
# still passes json_check CHECK (key=value words).
refuse_keep() {
	local name=$1 re=$2 chk=$3 out
	shift 3
	if ! refuse "$re" "$@"; then
		ktap_fail "$name" "$refuse_err"
		return
	fi
	# shellcheck disable=SC2086 # a list of key=value
	out=$(rcl_tool -j qp show dev "$A" qpn 6 | json_check $chk)
	ktap_result "$name" "$?" "$out"
}

refuse_plain() { # NAME REGEX ARGS...
	local name=$1
	shift
	refuse "$@"
	ktap_result "$name" "$?" "$refuse_err"
}

PEER=(dip "$RCL_T1_IP_B" dmac "$RCL_T1_MAC_B")
QPRE='qpn|qp number|qp_num|range|too (big|large)|invalid'
refuse_add refused_qpn_qp_num "$QPRE" "$QPNUM" dqpn 0 "${PEER[@]}"
# dqpn is the peer's QP: bounded by RH.DEST_QP (13 bits), not by QP_NUM
refuse_add refused_dqpn_wide "$QPRE|dqpn" 4 dqpn 8192 "${PEER[@]}"
refuse_add refused_bank 'bank' 5 dqpn 6 "${PEER[@]}"
refuse_add refused_sq_psn 'psn' 9 dqpn 9 sq_psn "$PSN_END" "${PEER[@]}"
refuse_add refused_rq_psn 'psn' 9 dqpn 9 rq_psn "$PSN_END" "${PEER[@]}"
refuse_add refused_speed_0 'speed' 9 dqpn 9 speed 0 "${PEER[@]}"
refuse_add refused_speed_wide 'speed' 9 dqpn 9 speed $((SPEED_MAX + 1)) "${PEER[@]}"
refuse_add refused_bad_dmac 'mac' 9 dqpn 9 dip "$RCL_T1_IP_B" dmac 02:52:43:00:00
refuse_add refused_bad_dmac_hex 'mac' 9 dqpn 9 dip "$RCL_T1_IP_B" dmac 02:52:43:00:00:zz
refuse_add refused_bad_dip 'ip|address' 9 dqpn 9 dip 10.198.0 dmac "$RCL_T1_MAC_B"
refuse_add refused_bad_dip_octet 'ip|address' 9 dqpn 9 dip 10.198.0.300 dmac "$RCL_T1_MAC_B"
refuse_add refused_no_dmac 'dmac|mac|missing|required|usage' 9 dqpn 9 dip "$RCL_T1_IP_B"

# refused changes leave the QP as it was
refuse_keep refused_add_twice 'exist' "sport=50100 dqpn=2 state=ready" \
	qp add dev "$A" qpn 6 dqpn 2 "${PEER[@]}" sport 1234
refuse_keep refused_set_bank 'bank' "dqpn=2 state=ready" qp set dev "$A" qpn 6 dqpn 3
refuse_keep refused_set_psn 'psn' "sq_psn=300 state=ready" \
	qp set dev "$A" qpn 6 sq_psn "$PSN_END"
NOENT='no such|not found|does not exist|exist|unknown'
refuse_plain refused_set_missing "$NOENT" qp set dev "$A" qpn 9 speed 5
refuse_plain refused_del_missing "$NOENT" qp del dev "$A" qpn 9
refuse_plain refused_show_missing "$NOENT" qp show dev "$A" qpn 9
refuse_plain refused_unknown_dev 'rclink99|no such|not found|unknown|device' \
	qp add dev rclink99 qpn 1 dqpn 1 "${PEER[@]}"

# gen3 is no format at all (t1_formats.py runs the formats)
errs=""
refuse 'unknown value' dev set dev "$A" format gen3 || errs+="$refuse_err; "
out=$(rcl_tool -j dev show dev "$A" | json_check format=standard) || errs+="$out; "
ktap_result refused_format "$([ -z "$errs" ]; echo $?)" "$errs"

errs=""
refuse 'ip|address' dev set dev "$A" ip 10.198.0.256 || errs+="$refuse_err; "
out=$(rcl_tool -j dev show dev "$A" | json_check ip="$RCL_T1_IP_A") || errs+="$out; "
ktap_result refused_dev_bad_ip "$([ -z "$errs" ]; echo $?)" "$errs"

# Refused by the family's policy (generated from the spec's checks): the
# tool names the attribute with its own word and gives the valid range.
errs=""
refuse 'ttl: .*\(1\.\.255\)' dev set dev "$A" ttl 0 || errs+="$refuse_err; "
refuse 'retry_timer: .*\(1\.\.8191\)' dev set dev "$A" retry_timer 8192 ||
	errs+="$refuse_err; "
refuse 'retry_cnt: .*\(1\.\.15\)' dev set dev "$A" retry_cnt 0 || errs+="$refuse_err; "
refuse 'nocnp: .*\(0\.\.256\)' dev set dev "$A" nocnp 257 || errs+="$refuse_err; "
refuse 'cbfc_uf type2: .*\(1\.\.7\)' dev set dev "$A" cbfc_uf type2 0 ||
	errs+="$refuse_err; "
refuse 'bank: .*\(0\.\.3\)' dev set dev "$A" bank 4 tc 0 || errs+="$refuse_err; "
refuse 'speed: .*\(1\.\.4194303\)' qp set dev "$A" qpn 6 speed 4194304 ||
	errs+="$refuse_err; "
refuse 'group: .*\(0\.\.7\)' mcast show dev "$A" group 8 || errs+="$refuse_err; "
out=$(rcl_tool -j dev show dev "$A" | json_check ttl="$(rcl_json_get ttl <"$RCL_T1_TMP/dev_A.json")" \
	retry_timer="$(rcl_json_get retry_timer <"$RCL_T1_TMP/dev_A.json")") || errs+="$out; "
ktap_result refused_policy_ranges "$([ -z "$errs" ]; echo $?)" "$errs"

# Refused by the kernel (extack), the board unchanged.
errs=""
refuse 'vlan' dev set dev "$A" vlan 4095 || errs+="$refuse_err; "
refuse 'vlan' dev set dev "$A" vlan 65535 || errs+="$refuse_err; "
refuse 'vlan_pri' dev set dev "$A" vlan_pri 8 || errs+="$refuse_err; "
refuse 'mac.*unicast' dev set dev "$A" mac 01:00:5e:00:00:01 || errs+="$refuse_err; "
refuse 'mac.*unicast' dev set dev "$A" mac ff:ff:ff:ff:ff:ff || errs+="$refuse_err; "
refuse 'mac.*unicast' dev set dev "$A" mac 00:00:00:00:00:00 || errs+="$refuse_err; "
refuse 'mac' dev set dev "$A" mac 02:52:43:00:00 || errs+="$refuse_err; "
refuse 'vlan' dev set dev "$A" vlan on || errs+="$refuse_err; "
out=$(rcl_tool -j dev show dev "$A" | json_check mac="$RCL_T1_MAC_A" \
	vlan="$(rcl_json_get vlan <"$RCL_T1_TMP/dev_A.json")" \
	vlan_pri="$(rcl_json_get vlan_pri <"$RCL_T1_TMP/dev_A.json")") || errs+="$out; "
ktap_result refused_dev_vlan_mac "$([ -z "$errs" ]; echo $?)" "$errs"

# ECN/CNP settings: set, shown back, refused out of range, restored
errs=""
out=$(rcl_tool dev set dev "$A" cnp_merge on cnp_window 50 nocnp 128 2>&1) || errs+="$out; "
out=$(rcl_tool -j dev show dev "$A" | json_check cnp_merge=true cnp_window_us=50 \
	nocnp_us=128) || errs+="$out; "
refuse 'nocnp' dev set dev "$A" nocnp 257 || errs+="$refuse_err; "
refuse 'nocnp|number' dev set dev "$A" nocnp -1 || errs+="$refuse_err; "
refuse 'cnp_window' dev set dev "$A" cnp_window 65536 || errs+="$refuse_err; "
refuse 'cnp_merge|on|off' dev set dev "$A" cnp_merge maybe || errs+="$refuse_err; "
out=$(rcl_tool -j dev show dev "$A" | json_check cnp_merge=true cnp_window_us=50 \
	nocnp_us=128) || errs+="$out; "
out=$(rcl_tool dev set dev "$A" cnp_merge off cnp_window 0 nocnp off 2>&1) || errs+="$out; "
out=$(rcl_tool -j dev show dev "$A" | json_check cnp_merge=false cnp_window_us=0 \
	nocnp_us=0) || errs+="$out; "
ktap_result dev_cnp_settings "$([ -z "$errs" ]; echo $?)" "$errs"

# -- privileges -----------------------------------------------------------------
# As nobody without capabilities (a copy of the tool nobody can run).
errs=""
if ! command -v setpriv >/dev/null; then
	ktap_skip unprivileged_admin_eperm "no setpriv"
	ktap_skip unprivileged_show "no setpriv"
	ktap_skip unprivileged_monitor_eperm "no setpriv"
else
	cp "$RCL_TOOL" "$RCL_T1_TMP/rclink" && chmod 755 "$RCL_T1_TMP" "$RCL_T1_TMP/rclink"
	nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			"$RCL_T1_TMP/rclink" "$@"
	}
	for cmd in "qp add dev $A qpn 9 dqpn 9 dip $RCL_T1_IP_B dmac $RCL_T1_MAC_B" \
		"qp set dev $A qpn 6 speed 5" "qp set dev $A qpn 6 state ready" \
		"qp del dev $A qpn 6" "dev set dev $A ttl 9"; do
		# shellcheck disable=SC2086 # a command line
		out=$(nobody $cmd 2>&1)
		rc=$?
		if [ "$rc" -eq 0 ]; then
			errs+="unprivileged rclink $cmd: accepted; "
		elif ! grep -qiE 'not permitted|EPERM|permission' <<<"$out"; then
			errs+="unprivileged rclink $cmd: exit $rc '$out', want EPERM; "
		fi
	done
	has_qp "$A" 9 && errs+="QP 9 exists after the unprivileged add; "
	has_qp "$A" 6 || errs+="QP 6 gone after the unprivileged del; "
	out=$(rcl_tool -j qp show dev "$A" qpn 6 | json_check speed=3000) || errs+="$out; "
	out=$(rcl_tool -j dev show dev "$A" | json_check ttl="$(rcl_json_get ttl <"$RCL_T1_TMP/dev_A.json")") ||
		errs+="$out; "
	ktap_result unprivileged_admin_eperm "$([ -z "$errs" ]; echo $?)" "$errs"

	errs=""
	out=$(nobody -j qp show dev "$A" qpn 6 2>&1 | json_check qpn=6) || errs+="qp show: $out; "
	out=$(nobody -j dev show dev "$A" 2>&1 | json_check qp_num="$QPNUM") || errs+="dev show: $out; "
	ktap_result unprivileged_show "$([ -z "$errs" ]; echo $?)" "$errs"

	# the events group (every QP's events) is the administrator's:
	# joining it without CAP_NET_ADMIN fails at once
	errs=""
	timeout 5 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$RCL_T1_TMP/rclink" monitor >"$RCL_T1_TMP/mon.out" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] || errs+="unprivileged monitor: exit $rc (want 1): $(cat "$RCL_T1_TMP/mon.out"); "
	grep -qiE 'not permitted|EPERM|permission' "$RCL_T1_TMP/mon.out" ||
		errs+="unprivileged monitor: '$(cat "$RCL_T1_TMP/mon.out")', want EPERM; "
	ktap_result unprivileged_monitor_eperm "$([ -z "$errs" ]; echo $?)" "$errs"
fi

# -- teardown -------------------------------------------------------------------
errs=""
for q in 1 6 "$LAST"; do
	out=$(t qp del dev "$A" qpn "$q") || errs+="$out; "
done
for q in 1 2 "$LAST"; do
	out=$(t qp del dev "$B" qpn "$q") || errs+="$out; "
done
for d in "$A" "$B"; do
	got=$(rcl_t1_qpns "$d" 2>&1)
	[ -z "$got" ] || errs+="$d still has QPs $got; "
	out=$(rcl_tool -j qp show dev "$d" 2>&1)
	[ "$(tr -d ' \n' <<<"$out")" = "[]" ] || errs+="rclink -j qp show dev $d: '$out', want []; "
done
ktap_result qp_del "$([ -z "$errs" ]; echo $?)" "$errs"
refuse_plain qp_del_twice "$NOENT" qp del dev "$A" qpn 1

bad=$(rcl_kmsg_since "$mark" | rcl_splats)
ktap_result kernel_log_clean "$([ -z "$bad" ]; echo $?)" "$bad"
ktap_finish
