#!/bin/bash
# Runs inside the demo guest: load the driver on the board pair and show
# what a user sees.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ko=${RCLINK_KO:-$top/build/$(uname -r)/rclink.ko}

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "lspci: the boards"
lspci -nn -d 1172:2404 2>/dev/null || ls /sys/bus/pci/devices
step "insmod $ko"
insmod "$ko" || exit 1
sleep 1
dmesg | grep -i rclink
for d in /sys/bus/pci/drivers/rclink/0000:*; do
	bdf=$(basename "$d")
	step "devlink dev info pci/$bdf"
	devlink dev info "pci/$bdf"
	step "self-test and interrupt mode of $bdf"
	cat "/sys/kernel/debug/rclink/$bdf/selftest"
	cat "/sys/kernel/debug/rclink/$bdf/irq_mode"
done
bdf=$(find /sys/bus/pci/drivers/rclink/ -maxdepth 1 -name '0000:*' \
	-printf '%f\n' | sort | head -n 1)
step "inject IRQ_INFO TYPE1 code 1 (TX oversize) for QP 7 on $bdf"
python3 - "$bdf" <<'PY'
import mmap, os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "selftests/drivers/net/rclink"))
import rclink_hw as hw
fd = os.open("/sys/bus/pci/devices/%s/resource0" % sys.argv[1], os.O_RDWR | os.O_SYNC)
mm = mmap.mmap(fd, hw.BAR0_SIZE)
info = (hw.IRQ_TYPES["TYPE1"][0] << 31) | (7 << 5) | 1
# one 64-bit store (a slice assignment may split it into two)
memoryview(mm).cast("Q")[hw.reg("SHIM_EVT_INJECT") // 8] = info
PY
sleep 1
grep -E '^(irq_total|evt_records|t1_tx_oversize) ' "/sys/kernel/debug/rclink/$bdf/events"
dmesg | tail -n 2
mapfile -t bdfs < <(find /sys/bus/pci/drivers/rclink/ -maxdepth 1 \
	-name '0000:*' -printf '%f\n' | sort | head -n 2)
if [ "${#bdfs[@]}" -eq 2 ]; then
	if0=$(ls "/sys/bus/pci/devices/${bdfs[0]}/net")
	if1=$(ls "/sys/bus/pci/devices/${bdfs[1]}/net")
	step "TYPE3: $if0 (namespace a, 10.199.0.1) <-> $if1 (namespace b, 10.199.0.2)"
	ip netns add a && ip netns add b
	ip link set "$if0" netns a && ip link set "$if1" netns b
	ip -n a addr add 10.199.0.1/24 dev "$if0" && ip -n a link set "$if0" up
	ip -n b addr add 10.199.0.2/24 dev "$if1" && ip -n b link set "$if1" up
	sleep 1
	ip -n a -br link show "$if0"
	ip netns exec a ping -c 3 -i 0.2 10.199.0.2
	ip -n a link set "$if0" mtu 4078 && ip -n b link set "$if1" mtu 4078
	step "ping at MTU 4078 (frames span two RX MDs)"
	ip netns exec b ping -c 2 -M "do" -s 4050 10.199.0.1
	step "ethtool -i / -g and ip -s link"
	ip netns exec a ethtool -i "$if0"
	ip netns exec a ethtool -g "$if0"
	ip -n a -s link show "$if0"
	ip netns exec a ethtool -S "$if0" | grep -E 'nonr_st1|link_' | head -n 6
	ip -n a link set "$if0" netns 1 && ip -n b link set "$if1" netns 1
	ip netns del a && ip netns del b
fi
# TYPE1: one QP pair set up with the netlink tool, a few messages from
# /dev/rclink0 to /dev/rclink1 with the rclink-msg example (make tools).
tool=${RCLINK_TOOL:-$top/build/tools/rclink}
msg=${RCLINK_MSG:-$top/build/tools/rclink-msg}
if [ ! -x "$tool" ] || [ ! -x "$msg" ]; then
	step "TYPE1: skipped (no $tool or $msg: make tools)"
elif [ "${#bdfs[@]}" -eq 2 ]; then
	mapfile -t t1 < <("$tool" -j dev show | python3 -c '
import json, sys
for d in json.load(sys.stdin)[:2]:
    print(d["dev"], d["mac"])')
	read -r d0 mac0 <<<"${t1[0]}"
	read -r d1 mac1 <<<"${t1[1]}"
	step "TYPE1: rclink dev show"
	"$tool" dev show
	step "TYPE1: $d0 (10.198.0.1) QP 1 <-> $d1 (10.198.0.2) QP 1"
	"$tool" dev set dev "$d0" ip 10.198.0.1
	"$tool" dev set dev "$d1" ip 10.198.0.2
	"$tool" qp add dev "$d0" qpn 1 dqpn 1 dip 10.198.0.2 dmac "$mac1"
	"$tool" qp add dev "$d1" qpn 1 dqpn 1 dip 10.198.0.1 dmac "$mac0"
	"$tool" qp show
	step "TYPE1: rclink-msg send $d0 1 ... | rclink-msg recv $d1 1"
	"$msg" recv "$d1" 1 4 10 &
	rpid=$!
	sleep 0.5
	big=$(printf 'rclink %.0s' $(seq 1 700))	# 4900 bytes: 4 packets
	"$msg" send "$d0" 1 "hello from $d0" "TYPE1: reliable, in order, exactly once" \
		"$big" "bye"
	wait "$rpid"
	step "rclink -s qp show"
	"$tool" -s qp show
	ring=${RCLINK_RING:-$top/build/tools/rclink-ring}
	if [ -x "$ring" ]; then
		step "TYPE1 through the mmap'd rings: rclink-ring, 20000 x 64 B, 32 per call"
		"$ring" recv "$d1" 1 20000 10 &
		rpid=$!
		sleep 0.5
		"$ring" send "$d0" 1 20000 64 32
		wait "$rpid"
	fi
	"$tool" qp del dev "$d0" qpn 1
	"$tool" qp del dev "$d1" qpn 1
fi
step "rmmod rclink"
rmmod rclink && echo "unloaded"
