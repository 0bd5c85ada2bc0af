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
step "rmmod rclink"
rmmod rclink && echo "unloaded"
