#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Helpers for the rclink kselftests.

KTAP output, board discovery (vendor 0x1172 device 0x2404, or the BDFs in
$RCLINK_DEVS), loading rclink.ko ($RCLINK_KO, default
<repo>/build/$(uname -r)/rclink.ko, else modprobe), bind/unbind, the driver's
debugfs files, the kernel log, and BAR0 access through sysfs resource0 with
true 64-bit (RC/SHIM windows) and 32-bit (MAC window) loads and stores.

Run as a program it is the register tool of the shell tests:

  rclinktest.py inject BDF TYPE CODE [QPID] [COUNT]   SHIM_EVT_INJECT
  rclinktest.py intr BDF RC ST0 ST1                   SHIM_INTR_INJECT
  rclinktest.py read BDF REG [INDEX]                  print a register
  rclinktest.py write BDF REG VALUE [INDEX]           store a register
  rclinktest.py identity BDF                          magic, major, verdict
  rclinktest.py ping [-c N] [-s SIZE] [-M do|dont] [-i SEC] [-W SEC] [-q] IP
                       ICMP echo like iputils ping (same summary lines);
                       every reply's payload is checked byte for byte
  rclinktest.py tcp_sink IP PORT [SECONDS]            accept one connection,
                       read to EOF; prints {"bytes", "sha256", "seconds"}
  rclinktest.py tcp_source IP PORT SECONDS [BYTES]    send BYTES (0: until
                       SECONDS pass); prints {"bytes", "sha256", "seconds"}

Exit 4 (skip) when BAR0 cannot be mapped while the driver holds it (a kernel
with CONFIG_IO_STRICT_DEVMEM needs the boot option iomem=relaxed).
"""

import errno
import hashlib
import json
import mmap
import os
import re
import select
import socket
import struct
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDIR = os.path.dirname(HERE)
TOP = os.path.abspath(os.path.join(TESTDIR, '..', '..', '..', '..'))
sys.dont_write_bytecode = True
if TESTDIR not in sys.path:
    sys.path.insert(0, TESTDIR)
import rclink_hw as hw  # noqa: E402  pylint: disable=wrong-import-position

KSFT_PASS = 0
KSFT_FAIL = 1
KSFT_SKIP = 4

DRIVER = 'rclink'
PCI_DEVICES = '/sys/bus/pci/devices'
DRIVER_DIR = '/sys/bus/pci/drivers/' + DRIVER
DEBUGFS = '/sys/kernel/debug'
DBG_DIR = DEBUGFS + '/' + DRIVER
MASK64 = (1 << 64) - 1
# Longest wait for something the driver does asynchronously (seconds).
TIMEOUT = float(os.environ.get('RCLINK_TEST_TIMEOUT', '5'))

SELFTEST_LINES = ('register ok', 'irq ok', 'dma ok')
IRQ_TYPE_PREFIX = {'TYPE1': 't1_', 'TYPE2': 't2_', 'TYPE3': 't3_'}
# Kernel log lines that always mean trouble, whoever printed them.
SPLAT_RE = re.compile(r'(BUG:|WARNING:|Oops|general protection|KASAN|UBSAN|'
                      r'kernel BUG|Call Trace|unreferenced object|'
                      r'list_add corruption|list_del corruption|'
                      r'refcount_t:|INFO: task .* blocked)')


class SkipTest(Exception):
    """A precondition of one test (or of the whole program) is missing."""


class TestFailed(Exception):
    """A check failed; the message says what."""


# ---------------------------------------------------------------- KTAP ----

class Ktap:
    """KTAP v1 printer with kselftest exit codes."""

    def __init__(self):
        self.num = 0
        self.npass = 0
        self.nfail = 0
        self.nskip = 0
        self.planned = None
        self._out('TAP version 13')

    @staticmethod
    def _out(line):
        print(line, flush=True)

    def diag(self, msg):
        for line in str(msg).splitlines() or ['']:
            self._out('# ' + line)

    def plan(self, n):
        self.planned = n
        self._out('1..%d' % n)

    def ok(self, name, diag=None):
        if diag:
            self.diag(diag)
        self.num += 1
        self.npass += 1
        self._out('ok %d %s' % (self.num, name))

    def fail(self, name, diag=None):
        if diag:
            self.diag(diag)
        self.num += 1
        self.nfail += 1
        self._out('not ok %d %s' % (self.num, name))

    def skip(self, name, reason):
        self.num += 1
        self.nskip += 1
        self._out('ok %d %s # SKIP %s' % (self.num, name, reason))

    def result(self, name, good, diag=None):
        if good:
            self.ok(name, diag)
        else:
            self.fail(name, diag)

    def run(self, name, func, *args, **kwargs):
        """Run one test: returning passes, SkipTest skips, anything else
        (TestFailed, AssertionError, an unexpected exception) fails."""
        try:
            ret = func(*args, **kwargs)
        except SkipTest as e:
            self.skip(name, str(e))
            return None
        except (TestFailed, AssertionError) as e:
            self.fail(name, str(e))
            return None
        except Exception:  # pylint: disable=broad-except
            self.fail(name, traceback.format_exc())
            return None
        self.ok(name)
        return ret

    def skip_all(self, reason):
        self._out('1..0 # SKIP %s' % reason)
        sys.exit(KSFT_SKIP)

    def exit_code(self):
        if self.nfail:
            return KSFT_FAIL
        if self.planned is not None and self.num != self.planned:
            return KSFT_FAIL
        if self.nskip and not self.npass:
            return KSFT_SKIP
        return KSFT_PASS

    def finish(self):
        if self.planned is not None and self.num != self.planned:
            self.diag('planned %d tests but ran %d' % (self.planned, self.num))
        self.diag('Totals: pass:%d fail:%d skip:%d'
                  % (self.npass, self.nfail, self.nskip))
        sys.exit(self.exit_code())


def check(cond, msg):
    if not cond:
        raise TestFailed(msg)


# --------------------------------------------------------------- sysfs ----

def sysfs_read(path):
    with open(path, encoding='ascii', errors='replace') as f:
        return f.read().strip()


def sysfs_write(path, value):
    with open(path, 'w', encoding='ascii') as f:
        f.write(str(value))


def pci_path(bdf, name=''):
    return os.path.join(PCI_DEVICES, bdf, name)


# Registers of the contract the shim RTL does not have (they read 0 there,
# writes are ignored): the model's test hooks and the RDMA requester's
# counters, Documentation/hw/rtl.rst, "Not in the RTL".  Name prefixes.
RTL_ABSENT = ('SHIM_WIRE_FAULT_', 'SHIM_HOSTILE_', 'SHIM_CC_TEST',
              'SHIM_WIRE_QUEUE', 'SHIM_EVT_INJECT_SRC', 'DMAQ_RDMA_TX_',
              'DMAQ_RDMA_REM_ERR', 'DMAQ_RDMA_TIMEOUT', 'SHIM_WIRE_INJECT',
              'SHIM_WIRE_TX_LAST')


def is_rtl(bdf):
    """Whether the board is an RTL board (co-simulation, boards.sh rtl):
    $RCLINK_RTL_DEVS lists their PCI addresses, or says "all"."""
    devs = os.environ.get('RCLINK_RTL_DEVS', '').split()
    return 'all' in devs or bdf in devs


def rtl_absent(name):
    """Whether register name is one the RTL does not have."""
    return name.startswith(RTL_ABSENT)


def is_rclink_id(bdf):
    try:
        return (int(sysfs_read(pci_path(bdf, 'vendor')), 16) == hw.VENDOR_ID
                and int(sysfs_read(pci_path(bdf, 'device')), 16)
                == hw.DEVICE_ID)
    except (OSError, ValueError):
        return False


def all_devices():
    """Every rclink board: $RCLINK_DEVS, or a scan of the PCI bus."""
    env = os.environ.get('RCLINK_DEVS', '').split()
    if env:
        return [d if d.count(':') == 2 else '0000:' + d for d in env]
    try:
        names = sorted(os.listdir(PCI_DEVICES))
    except OSError:
        return []
    return [d for d in names if is_rclink_id(d)]


def driver_of(bdf):
    link = pci_path(bdf, 'driver')
    if not os.path.islink(link):
        return None
    return os.path.basename(os.readlink(link))


def bound_devices():
    return [d for d in all_devices() if driver_of(d) == DRIVER]


def driver_devices():
    """Every device bound to the driver, whatever $RCLINK_DEVS says."""
    try:
        names = os.listdir(DRIVER_DIR)
    except OSError:
        return []
    return sorted(n for n in names
                  if re.match(r'^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$',
                              n))


def unbind(bdf):
    sysfs_write(os.path.join(DRIVER_DIR, 'unbind'), bdf)
    check(driver_of(bdf) is None, '%s still bound after unbind' % bdf)


def bind(bdf):
    """Bind bdf to rclink; OSError when the probe refuses it."""
    sysfs_write(os.path.join(DRIVER_DIR, 'bind'), bdf)
    check(driver_of(bdf) == DRIVER, '%s not bound after bind' % bdf)


def wire_pcap():
    """The live capture of the pair's wire: $RCLINK_WIRE_PCAP, else the
    QEMU pair's $RCLINK_RESULTS/wire.pcap; '' when there is none.  For the
    latter the capture switch wire.pcap.capture is created: the relay
    (selftests/vm/wirecap.py) keeps only frames that pass while it exists,
    and run_all.sh removes it after each test."""
    p = os.environ.get('RCLINK_WIRE_PCAP')
    if p:
        return p if os.path.isfile(p) else ''
    res = os.environ.get('RCLINK_RESULTS')
    p = os.path.join(res, 'wire.pcap') if res else ''
    if not p or not os.path.isfile(p):
        return ''
    with open(p + '.capture', 'w', encoding='ascii'):
        pass
    return p


def qemu_guest():
    """True when running in a QEMU VM (where the board is the model)."""
    try:
        return sysfs_read('/sys/class/dmi/id/sys_vendor') == 'QEMU'
    except OSError:
        return False


# -------------------------------------------------------------- module ----

def run(cmd, check_rc=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, check=False)
    if check_rc and p.returncode:
        raise TestFailed('%s: exit %d: %s' % (' '.join(cmd), p.returncode,
                                               p.stdout.strip()))
    return p


def module_loaded():
    return os.path.isdir('/sys/module/' + DRIVER + '/sections') or \
        os.path.isdir(DRIVER_DIR)


def ko_path():
    env = os.environ.get('RCLINK_KO')
    if env:
        return env
    return os.path.join(TOP, 'build', os.uname().release, DRIVER + '.ko')


def load_module():
    """Load the driver unless loaded; True when this call loaded it.
    SkipTest when there is no module to load."""
    if module_loaded():
        return False
    ko = ko_path()
    if os.path.exists(ko):
        run(['insmod', ko])
    else:
        p = run(['modprobe', DRIVER], check_rc=False)
        if p.returncode:
            raise SkipTest('no %s (set RCLINK_KO) and modprobe %s failed'
                           % (ko, DRIVER))
    return True


def unload_module():
    run(['rmmod', DRIVER])


class Module:
    """Context: the driver is loaded inside; unloaded at the end only when
    it was loaded here."""

    def __init__(self):
        self.loaded_here = False

    def __enter__(self):
        self.loaded_here = load_module()
        return self

    def __exit__(self, *exc):
        if self.loaded_here and module_loaded():
            unload_module()
        return False


# ------------------------------------------------------------- debugfs ----

def start(ktap):
    """The common prologue of a test program: root, a board, debugfs and
    the module loaded (a Module to __exit__ at the end).  Skips the whole
    program when a precondition is missing, fails it when the module does
    not load."""
    if os.geteuid() != 0:
        ktap.skip_all('must run as root')
    if not all_devices():
        ktap.skip_all('no rclink board')
    ensure_debugfs()
    try:
        return Module().__enter__()
    except SkipTest as e:
        ktap.skip_all(str(e))
    except TestFailed as e:
        ktap.plan(1)
        ktap.fail('module_load', str(e))
        ktap.finish()
    return None


def setup_or_skip(ktap, mod, t):
    """t.setup() for a test object with setup() and restore(): a missing
    or busy board (LookupError, SkipTest) skips the program."""
    try:
        t.setup()
    except (LookupError, SkipTest) as e:
        t.restore()
        mod.__exit__(None, None, None)
        ktap.skip_all(str(e))
    except Exception:  # pylint: disable=broad-except
        t.restore()
        mod.__exit__(None, None, None)
        raise


def run_object(ktap, mod, t, tests, tag):
    """Run tests ((name, function) pairs) of test object t (set up), then
    restore it, check the kernel log and finish: one KTAP result each plus
    kernel_log_clean."""
    mark = kmsg_mark(tag)
    ktap.plan(len(tests) + 1)
    try:
        for name, fn in tests:
            ktap.run(name, fn)
    finally:
        t.restore()
        bad = kmsg_problems(kmsg_since(mark), errors=False)
        ktap.result('kernel_log_clean', not bad, '\n'.join(bad))
        mod.__exit__(None, None, None)
    ktap.finish()


def ensure_debugfs():
    if not os.path.ismount(DEBUGFS):
        run(['mount', '-t', 'debugfs', 'debugfs', DEBUGFS])


def dbg_path(bdf, name=''):
    return os.path.join(DBG_DIR, bdf, name)


def events(bdf):
    """The driver's event counters of bdf: {name: value}."""
    cnt = {}
    with open(dbg_path(bdf, 'events'), encoding='ascii') as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                cnt[parts[0]] = int(parts[1], 0)
    return cnt


def irq_mode(bdf):
    """('msix', N), ('msi', 1) or ('intx', 1)."""
    parts = sysfs_read(dbg_path(bdf, 'irq_mode')).split()
    return parts[0], int(parts[1])


def selftest_lines(bdf):
    with open(dbg_path(bdf, 'selftest'), encoding='ascii') as f:
        return [line.strip() for line in f if line.strip()]


def check_selftest(bdf):
    lines = selftest_lines(bdf)
    check(sorted(lines) == sorted(SELFTEST_LINES),
          '%s selftest: %r, want %r' % (bdf, lines, list(SELFTEST_LINES)))


def delta(before, after):
    return {k: after.get(k, 0) - before.get(k, 0)
            for k in set(before) | set(after)
            if after.get(k, 0) != before.get(k, 0)}


def wait_events(bdf, before, expect, allowed=(), timeout=None, settle=0.2):
    """Wait until every counter of expect grew by at least its value, then
    check that each grew by exactly that, and that no counter outside expect
    and allowed changed.  Returns (problems, delta)."""
    timeout = TIMEOUT if timeout is None else timeout
    deadline = time.monotonic() + timeout
    while True:
        now = events(bdf)
        if all(now.get(k, 0) - before.get(k, 0) >= v
               for k, v in expect.items()):
            break
        if time.monotonic() > deadline:
            break
        time.sleep(0.01)
    time.sleep(settle)
    now = events(bdf)
    d = delta(before, now)
    problems = []
    for k, v in sorted(expect.items()):
        if k not in now:
            problems.append('counter %s missing from events' % k)
        elif d.get(k, 0) != v:
            problems.append('%s %+d, want %+d' % (k, d.get(k, 0), v))
    for k in sorted(d):
        if k not in expect and k not in allowed:
            problems.append('%s changed %+d' % (k, d[k]))
    return problems, d


def fmt_delta(d):
    return ' '.join('%s%+d' % (k, v) for k, v in sorted(d.items())) or 'none'


# ---------------------------------------------------------- kernel log ----

def kmsg_records():
    """Kernel log as [(level, seq, text)], read from /dev/kmsg."""
    recs = []
    fd = os.open('/dev/kmsg', os.O_RDONLY | os.O_NONBLOCK)
    try:
        while True:
            try:
                buf = os.read(fd, 8192)
            except OSError as e:
                if e.errno == errno.EPIPE:   # overwritten records: skip
                    continue
                if e.errno == errno.EAGAIN:
                    break
                raise
            if not buf:
                break
            head, _, text = buf.decode('utf-8', 'replace').partition(';')
            fields = head.split(',')
            text = text.split('\n', 1)[0]
            recs.append((int(fields[0]) & 7, int(fields[1]), text))
    finally:
        os.close(fd)
    return recs


def kmsg_mark(tag):
    """Write a marker into the kernel log; returns it for kmsg_since()."""
    marker = 'rclink-selftest: %s %d.%06d' % (tag, os.getpid(),
                                              int(time.time() * 1e6) % 10**6)
    with open('/dev/kmsg', 'w', encoding='ascii') as f:
        f.write(marker + '\n')
    return marker


def kmsg_since(marker):
    """Records after the last occurrence of marker (all if not found)."""
    recs = kmsg_records()
    for i in range(len(recs) - 1, -1, -1):
        if marker in recs[i][2]:
            return recs[i + 1:]
    return recs


def kmsg_problems(recs, bdfs=(), exclude=(), errors=True):
    """Kernel splats, and (with errors) error-level lines about the boards
    bdfs or other rclink lines that name none of the exclude boards."""
    bad = []
    for level, _, text in recs:
        if any(x in text for x in exclude):
            continue
        if SPLAT_RE.search(text):
            bad.append(text)
        elif errors and level <= 3 and (any(b in text for b in bdfs) or
                                        DRIVER in text):
            bad.append(text)
    return bad


# --------------------------------------------------------------- BAR0 -----

class DoorbellBar:
    """The doorbell BAR of the contexts (Documentation/hw/shim.rst,
    "Contexts"), mapped through sysfs resourceN: 64-bit stores, and
    stores of other sizes (write()) for the refused ones."""

    def __init__(self, bdf, bar):
        cap = bar.r64(hw.reg('DMAQ_CTX_CAP'))
        self.shift = (cap >> hw.field('DMAQ_CTX_CAP', 'db_shift')[1]) & 0xff
        num = cap & 0xffff
        if num < 2:
            raise SkipTest('the board has no user contexts')
        n = (cap >> hw.field('DMAQ_CTX_CAP', 'db_bar')[1]) & 0xf
        path = pci_path(bdf, 'resource%d' % n)
        self.fd = os.open(path, os.O_RDWR | os.O_SYNC)
        size = os.fstat(self.fd).st_size
        self.mm = mmap.mmap(self.fd, size, mmap.MAP_SHARED,
                            mmap.PROT_READ | mmap.PROT_WRITE)
        self.q = memoryview(self.mm).cast('Q')
        self.views = {1: memoryview(self.mm).cast('B'),
                      2: memoryview(self.mm).cast('H'),
                      4: memoryview(self.mm).cast('I'), 8: self.q}

    def w64(self, ctx, off, val):
        self.q[((ctx << self.shift) + off) >> 3] = val

    def write(self, off, size, val):
        """One store of size bytes (1, 2, 4, 8) at byte offset off of the
        BAR (naturally aligned)."""
        self.views[size][off // size] = val

    def ring(self, ctx, reg, val):
        """Doorbell reg (SQ_PROD, RQ_PROD, CQ_CONS, CQ_ARM) of ctx."""
        self.w64(ctx, hw.FORMATS['DB'][2]['OFF_' + reg], val & 0xffffffff)

    def close(self):
        for v in self.views.values():
            v.release()
        self.mm.close()
        os.close(self.fd)


class Bar0:
    """BAR0 of one board through sysfs resource0.

    Accesses go through memoryview casts of the mapping: one item is one
    load or store of that width (a bytes slice would be a memcpy, which
    may touch the register twice).  With enable=True the device's memory
    decode is switched on through sysfs 'enable' when off, and back off at
    close()."""

    def __init__(self, bdf, enable=False):
        self.bdf = bdf
        self.enabled_here = False
        self.mm = None
        self.fd = -1
        if enable and sysfs_read(pci_path(bdf, 'enable')) == '0':
            sysfs_write(pci_path(bdf, 'enable'), 1)
            self.enabled_here = True
        try:
            self.fd = os.open(pci_path(bdf, 'resource0'),
                              os.O_RDWR | os.O_SYNC)
            self.mm = mmap.mmap(self.fd, hw.BAR0_SIZE, mmap.MAP_SHARED,
                                mmap.PROT_READ | mmap.PROT_WRITE)
        except OSError as e:
            self.close()
            if driver_of(bdf) and e.errno in (errno.EINVAL, errno.EPERM,
                                              errno.EBUSY):
                raise SkipTest('cannot map BAR0 of %s while %s holds it (%s);'
                               ' boot with iomem=relaxed'
                               % (bdf, driver_of(bdf), e.strerror)) from e
            raise
        self.q = memoryview(self.mm).cast('Q')
        self.views = {1: memoryview(self.mm).cast('B'),
                      2: memoryview(self.mm).cast('H'),
                      4: memoryview(self.mm).cast('I'), 8: self.q}
        self.d = memoryview(self.mm).cast('I')

    def close(self):
        for mv in getattr(self, 'views', {}).values():
            mv.release()
        self.views = {}
        for attr in ('q', 'd'):
            mv = getattr(self, attr, None)
            if mv is not None:
                mv.release()
                setattr(self, attr, None)
        if self.mm is not None:
            self.mm.close()
            self.mm = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.enabled_here:
            sysfs_write(pci_path(self.bdf, 'enable'), 0)
            self.enabled_here = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def r64(self, off):
        assert off % 8 == 0 and 0 <= off < hw.BAR0_SIZE, hex(off)
        return self.q[off >> 3]

    def w64(self, off, val):
        assert off % 8 == 0 and 0 <= off < hw.BAR0_SIZE, hex(off)
        self.q[off >> 3] = val & MASK64

    def r32(self, off):
        assert off % 4 == 0 and 0 <= off < hw.BAR0_SIZE, hex(off)
        return self.d[off >> 2]

    def w32(self, off, val):
        assert off % 4 == 0 and 0 <= off < hw.BAR0_SIZE, hex(off)
        self.d[off >> 2] = val & 0xffffffff

    def read(self, name, index=0):
        off = hw.reg(name, index)
        return self.r64(off) if hw.REGS[name][1] == 64 else self.r32(off)

    def write(self, name, val, index=0):
        off = hw.reg(name, index)
        if hw.REGS[name][1] == 64:
            self.w64(off, val)
        else:
            self.w32(off, val)

    def rfield(self, name, fname):
        mask, shift = hw.field(name, fname)
        return (self.read(name) & mask) >> shift

    def inject_irq(self, info):
        self.w64(hw.reg('SHIM_EVT_INJECT'), info)

    def inject_intr(self, rc=0, st0=0, st1=0):
        self.w64(hw.reg('SHIM_INTR_INJECT'), intr_inject_value(rc, st0, st1))


def fval(name, fname, value):
    """value placed into field fname of register name."""
    mask, shift = hw.field(name, fname)
    return (value << shift) & mask


def irq_info(type_, code, qpid=0):
    """An IRQ_INFO word (Documentation/hw/registers.rst, IRQ_INFO_O)."""
    def put(fname, v):
        hi, lo = hw.IRQ_INFO_FIELDS[fname]
        return (v & ((1 << (hi - lo + 1)) - 1)) << lo
    return put('TYPE', type_) | put('CODE', code) | put('T1_QPID', qpid)


def intr_inject_value(rc=0, st0=0, st1=0):
    return (fval('SHIM_INTR_INJECT', 'rc_intr', rc) |
            fval('SHIM_INTR_INJECT', 'nonr_st0', st0) |
            fval('SHIM_INTR_INJECT', 'nonr_st1', st1))


def read_identity(bdf):
    """(magic, shim major) of a board; maps BAR0 (enabling decode)."""
    with Bar0(bdf, enable=True) as bar:
        magic = bar.rfield('SHIM_ID', 'magic')
        major = bar.rfield('SHIM_VERSION', 'major')
    return magic, major


def devlink_info(bdf):
    p = run(['devlink', '-j', 'dev', 'info', 'pci/' + bdf], check_rc=False)
    if p.returncode:
        raise TestFailed('devlink dev info pci/%s: %s'
                         % (bdf, p.stdout.strip()))
    return json.loads(p.stdout)['info']['pci/' + bdf]


# ------------------------------------------------------- ping and TCP ----

IP_MTU_DISCOVER = getattr(socket, 'IP_MTU_DISCOVER', 10)
PMTUDISC = {'dont': 0, 'want': 1, 'do': 2}


def _icmp_csum(data):
    if len(data) % 2:
        data += b'\0'
    total = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def _icmp_payload(size, seq):
    """Payload of echo request seq: a pattern that differs per sequence."""
    pat = bytes((seq * 7 + i * 13) & 0xff for i in range(256))
    return (pat * (size // 256 + 1))[:size]


def socket_in_netns(netns, *args):
    """socket.socket(*args) created in the named network namespace
    (/run/netns/NAME, as ip netns add makes it); it stays there."""
    if not netns:
        return socket.socket(*args)
    import ctypes  # pylint: disable=import-outside-toplevel
    libc = ctypes.CDLL(None, use_errno=True)
    clone_newnet = 0x40000000
    orig = os.open('/proc/self/ns/net', os.O_RDONLY)
    target = os.open('/run/netns/' + netns, os.O_RDONLY)
    try:
        if libc.setns(target, clone_newnet):
            err = ctypes.get_errno()
            raise OSError(err, 'setns %s: %s' % (netns, os.strerror(err)))
        try:
            return socket.socket(*args)
        finally:
            if libc.setns(orig, clone_newnet):
                raise OSError(ctypes.get_errno(), 'setns back failed')
    finally:
        os.close(orig)
        os.close(target)


def ping(dst, count=1, size=56, pmtudisc='do', interval=1.0, timeout=2.0,
         quiet=False, out=None, netns=None, deadline=None):
    """Send count ICMP echo requests of size payload bytes to dst, waiting
    up to timeout for each reply (and no longer than deadline seconds in
    all, iputils' -w); every reply's payload must equal the
    request's.  Prints iputils style lines through out (default: stdout).
    netns: the network namespace to ping from (default: this one).
    Returns (transmitted, received, corrupted, errors, rtts_ms)."""
    out = out or (lambda line: print(line, flush=True))
    sock = socket_in_netns(netns, socket.AF_INET, socket.SOCK_RAW,
                           socket.IPPROTO_ICMP)
    sock.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, PMTUDISC[pmtudisc])
    ident = os.getpid() & 0xffff
    sent = received = corrupted = errors = 0
    rtts = []
    t_start = time.monotonic()
    if not quiet:
        out('PING %s (%s) %d(%d) bytes of data.' % (dst, dst, size,
                                                    size + 28))
    try:
        for seq in range(1, count + 1):
            t0 = time.monotonic()
            payload = _icmp_payload(size, seq)
            hdr = struct.pack('!BBHHH', 8, 0, 0, ident, seq & 0xffff)
            csum = _icmp_csum(hdr + payload)
            pkt = struct.pack('!BBHHH', 8, 0, csum, ident, seq & 0xffff) \
                + payload
            sent += 1
            try:
                sock.sendto(pkt, (dst, 0))
            except OSError as e:
                errors += 1
                out('ping: local error: %s' % e.strerror)
                time.sleep(max(0, interval - (time.monotonic() - t0)))
                continue
            until = t0 + timeout
            if deadline is not None:
                until = min(until, t_start + deadline)
            while True:
                left = until - time.monotonic()
                if left <= 0:
                    break
                r, _, _ = select.select([sock], [], [], left)
                if not r:
                    break
                buf = sock.recv(65536)
                ihl = (buf[0] & 0xf) * 4
                icmp = buf[ihl:]
                if len(icmp) < 8:
                    continue
                typ, _, _, rid, rseq = struct.unpack('!BBHHH', icmp[:8])
                if typ != 0 or rid != ident or rseq != seq & 0xffff:
                    continue
                rtt = (time.monotonic() - t0) * 1000
                if icmp[8:] != payload:
                    corrupted += 1
                    out('%d bytes from %s: icmp_seq=%d wrong data'
                        % (len(icmp), dst, seq))
                    break
                received += 1
                rtts.append(rtt)
                if not quiet:
                    out('%d bytes from %s: icmp_seq=%d ttl=%d time=%.3f ms'
                        % (len(icmp), dst, seq, buf[8], rtt))
                break
            rest = interval - (time.monotonic() - t0)
            if rest > 0 and seq < count:
                time.sleep(rest)
    finally:
        sock.close()
    elapsed = (time.monotonic() - t_start) * 1000
    out('')
    out('--- %s ping statistics ---' % dst)
    loss = 100 * (sent - received) // sent if sent else 0
    extra = ''
    if corrupted:
        extra += ', %d corrupted' % corrupted
    if errors:
        extra += ', +%d errors' % errors
    out('%d packets transmitted, %d received%s, %d%% packet loss, time %dms'
        % (sent, received, extra, loss, elapsed))
    if rtts:
        avg = sum(rtts) / len(rtts)
        mdev = (sum((r - avg) ** 2 for r in rtts) / len(rtts)) ** 0.5
        out('rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms'
            % (min(rtts), avg, max(rtts), mdev))
    return sent, received, corrupted, errors, rtts


def _ping_cli(args):
    opts = {'count': 1, 'size': 56, 'pmtudisc': 'do', 'interval': 1.0,
            'timeout': 2.0, 'quiet': False}
    keys = {'-c': ('count', int), '-s': ('size', int),
            '-M': ('pmtudisc', str), '-i': ('interval', float),
            '-W': ('timeout', float), '-w': ('deadline', float)}
    dst = None
    i = 0
    while i < len(args):
        a = args[i]
        if a in keys:
            name, conv = keys[a]
            opts[name] = conv(args[i + 1])
            i += 2
        elif a == '-q':
            opts['quiet'] = True
            i += 1
        elif a == '-n':
            i += 1
        else:
            dst = a
            i += 1
    if dst is None:
        raise ValueError('ping: no destination')
    _, received, corrupted, errors, _ = ping(dst, **opts)
    if errors and not received:
        return 2
    return 0 if received and not corrupted else 1


def _stream_block(i, block):
    k = (i * 7919) % len(block)
    return block[k:] + block[:k]


def tcp_source(host, port, seconds, nbytes=0, connect_timeout=10):
    """Send nbytes (0: for seconds) to host:port; returns the summary."""
    end = time.monotonic() + connect_timeout
    while True:
        try:
            sock = socket.create_connection((host, port), timeout=5)
            break
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.2)
    sock.settimeout(max(seconds, 30))
    block = bytes(random_block(1 << 20))
    digest = hashlib.sha256()
    sent = 0
    t0 = time.monotonic()
    i = 0
    while True:
        if nbytes:
            if sent >= nbytes:
                break
        elif time.monotonic() - t0 >= seconds:
            break
        chunk = _stream_block(i, block)
        if nbytes:
            chunk = chunk[:nbytes - sent]
        sock.sendall(chunk)
        digest.update(chunk)
        sent += len(chunk)
        i += 1
    sock.shutdown(socket.SHUT_WR)
    # Wait for the receiver to close: everything was delivered.
    while sock.recv(4096):
        pass
    sock.close()
    return {'bytes': sent, 'sha256': digest.hexdigest(),
            'seconds': time.monotonic() - t0}


def tcp_sink(host, port, seconds=600):
    """Accept one connection on host:port, read until EOF (or seconds);
    returns the summary."""
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((host, port))
    lsock.listen(1)
    lsock.settimeout(seconds)
    sock, _ = lsock.accept()
    lsock.close()
    sock.settimeout(seconds)
    digest = hashlib.sha256()
    got = 0
    t0 = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        buf = sock.recv(1 << 18)
        if not buf:
            break
        if t0 is None:
            t0 = time.monotonic()
        digest.update(buf)
        got += len(buf)
    sock.close()
    return {'bytes': got, 'sha256': digest.hexdigest(),
            'seconds': time.monotonic() - (t0 or time.monotonic())}


def random_block(n, seed=0x52434c4b):
    """n pseudo-random bytes, the same every time."""
    import random  # pylint: disable=import-outside-toplevel
    rnd = random.Random(seed)
    return rnd.getrandbits(8 * n).to_bytes(n, 'little')


# ------------------------------------------------ TYPE3 netdev pair -------

T3_MTU_MIN = 68
T3_MTU_MAX = 4078
T3_IP = ('10.199.0.1', '10.199.0.2')


def netdev_of(bdf):
    """The netdev of a board in this namespace, or None."""
    try:
        names = sorted(os.listdir(pci_path(bdf, 'net')))
    except OSError:
        return None
    return names[0] if names else None


def ethtool_rings(dev, netns=None):
    """{'rx': n, 'tx': n, 'rx_max': n, 'tx_max': n} from ethtool -g."""
    cmd = (['ip', 'netns', 'exec', netns] if netns else []) + \
        ['ethtool', '-g', dev]
    p = run(cmd, check_rc=False)
    res = {}
    part = None
    for line in p.stdout.splitlines():
        if line.startswith('Pre-set maximums'):
            part = '_max'
        elif line.startswith('Current hardware'):
            part = ''
        elif part is not None:
            m = re.match(r'^(RX|TX):\s+(\d+)', line)
            if m:
                res[m.group(1).lower() + part] = int(m.group(2))
    return res


class Side:
    """One end of the pair: a board's netdev in its own namespace."""

    def __init__(self, name, bdf, dev, ip, peer_ip):
        self.name = name
        self.bdf = bdf
        self.dev = dev
        self.ip = ip
        self.peer_ip = peer_ip
        self.ns = 'rcl%s%d' % (name, os.getpid())
        self.saved = {}

    def nsx(self, cmd, check_rc=True):
        return run(['ip', 'netns', 'exec', self.ns] + list(cmd), check_rc)

    def dcb_pfc_set(self, words, diag=None):
        """`dcb pfc set dev DEV WORDS...` in the namespace.

        dcb takes a netlink reply as its own only when the reply carries
        the sequence number of its request.  Once in many runs the first
        set after boot failed with "Protocol error" (EPROTO from that
        check, before any reply was parsed) while the kernel log stayed
        clean; the driver never answers EPROTO.  That failure is retried
        once and reported through diag, every other failure counts."""
        cmd = ['dcb', 'pfc', 'set', 'dev', self.dev] + list(words)
        p = self.nsx(cmd, check_rc=False)
        if p.returncode and 'Protocol error' in p.stdout:
            if diag:
                diag('%s: %s; retried' % (' '.join(cmd), p.stdout.strip()))
            p = self.nsx(cmd, check_rc=False)
        if p.returncode:
            raise TestFailed('%s: exit %d: %s' % (' '.join(cmd), p.returncode,
                                                   p.stdout.strip()))
        return p

    def ip_cmd(self, args, check_rc=True):
        return run(['ip', '-n', self.ns] + list(args), check_rc)

    def link(self):
        p = self.ip_cmd(['-j', '-s', '-s', '-d', 'link', 'show', 'dev',
                         self.dev])
        return json.loads(p.stdout)[0]

    def stats64(self):
        return self.link()['stats64']

    def carrier(self):
        p = self.nsx(['cat', '/sys/class/net/%s/carrier' % self.dev],
                     check_rc=False)
        return p.stdout.strip() == '1'

    def wait_carrier(self, up=True, timeout=None):
        deadline = time.monotonic() + (TIMEOUT if timeout is None
                                       else timeout)
        while self.carrier() != up:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True

    def ethtool_stats(self):
        p = self.nsx(['ethtool', '-S', self.dev])
        st = {}
        for line in p.stdout.splitlines()[1:]:
            name, _, val = line.partition(':')
            try:
                st[name.strip()] = int(val.strip())
            except ValueError:
                pass
        return st

    def rings(self):
        return ethtool_rings(self.dev, self.ns)

    def set_mtu(self, mtu, check_rc=True):
        return self.ip_cmd(['link', 'set', 'dev', self.dev, 'mtu', str(mtu)],
                           check_rc)

    def ping(self, count=1, size=56, interval=0.2, timeout=2.0):
        """(transmitted, received, output) of a ping (DF set) to the peer,
        from this process (the socket is made in the side's namespace)."""
        lines = []
        try:
            sent, got, _, _, _ = ping(self.peer_ip, count, size, 'do',
                                      interval, timeout, True, lines.append,
                                      self.ns)
        except OSError as e:
            return 0, 0, 'ping: %s' % e
        return sent, got, '\n'.join(lines)

    def spawn(self, cmd):
        """Popen of cmd in the namespace (stdout piped, text)."""
        return subprocess.Popen(['ip', 'netns', 'exec', self.ns] + list(cmd),
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                universal_newlines=True)


class T3Pair:
    """Context: two wired boards' netdevs, each in a namespace of its own
    with an IPv4 address (10.199.0.1/24 and .2).  At the end the devices
    go back to the init namespace with their MTU, rings and admin state.
    SkipTest when there is no such pair.  $RCLINK_T3_DEVS="A B" picks the
    boards."""

    def __init__(self):
        self.a = self.b = None
        self.sides = []

    @staticmethod
    def _candidates():
        env = os.environ.get('RCLINK_T3_DEVS', '').split()
        if env:
            return [d if d.count(':') == 2 else '0000:' + d for d in env]
        return bound_devices()

    @staticmethod
    def _carrier_after_up(dev):
        run(['ip', 'link', 'set', 'dev', dev, 'up'])
        end = time.monotonic() + 3
        while time.monotonic() < end:
            try:
                if sysfs_read('/sys/class/net/%s/carrier' % dev) == '1':
                    return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    def __enter__(self):
        cands = [(b, netdev_of(b)) for b in self._candidates()]
        cands = [(b, d) for b, d in cands if d]
        if not cands:
            raise SkipTest('no rclink board has a netdev (TYPE3 not in this'
                           ' driver)')
        picked = []
        for bdf, dev in cands:
            if len(picked) == 2:
                break
            was_up = 'UP' in json.loads(run(['ip', '-j', 'link', 'show', 'dev',
                                             dev]).stdout)[0]['flags']
            if self._carrier_after_up(dev):
                picked.append((bdf, dev, was_up))
            elif not was_up:
                run(['ip', 'link', 'set', 'dev', dev, 'down'])
        if len(picked) < 2:
            for bdf, dev, was_up in picked:
                if not was_up:
                    run(['ip', 'link', 'set', 'dev', dev, 'down'])
            raise SkipTest('fewer than two rclink boards with carrier (need '
                           'a wired pair)')
        self.a = Side('A', picked[0][0], picked[0][1], T3_IP[0], T3_IP[1])
        self.b = Side('B', picked[1][0], picked[1][1], T3_IP[1], T3_IP[0])
        try:
            for side, (_, dev, was_up) in zip((self.a, self.b), picked):
                side.saved = {'up': was_up,
                              'mtu': int(sysfs_read('/sys/class/net/%s/mtu'
                                                    % dev)),
                              'rings': ethtool_rings(dev)}
                run(['ip', 'netns', 'add', side.ns])
                self.sides.append(side)
                side.nsx(['sysctl', '-qw', 'net.ipv6.conf.all.disable_ipv6=1',
                          'net.ipv6.conf.default.disable_ipv6=1'],
                         check_rc=False)
                side.ip_cmd(['link', 'set', 'lo', 'up'])
                run(['ip', 'link', 'set', 'dev', dev, 'down'])
                run(['ip', 'link', 'set', 'dev', dev, 'netns', side.ns])
                side.ip_cmd(['addr', 'add', side.ip + '/24', 'dev', dev])
                side.ip_cmd(['link', 'set', 'dev', dev, 'up'])
            for side in self.sides:
                side.wait_carrier(True)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def restore(self, side):
        """Put a side's device back, as found (also after a reload)."""
        if side.ip_cmd(['link', 'show', 'dev', side.dev],
                       check_rc=False).returncode == 0:
            side.ip_cmd(['link', 'set', 'dev', side.dev, 'down'], False)
            side.ip_cmd(['addr', 'flush', 'dev', side.dev], False)
            side.ip_cmd(['link', 'set', 'dev', side.dev, 'netns', '1'], False)
        run(['ip', 'netns', 'del', side.ns], check_rc=False)
        dev = netdev_of(side.bdf)
        if not dev:
            return
        run(['ip', 'link', 'set', 'dev', dev, 'down'], check_rc=False)
        run(['ip', 'link', 'set', 'dev', dev, 'mtu', str(side.saved['mtu'])],
            check_rc=False)
        want = side.saved.get('rings') or {}
        now = ethtool_rings(dev)
        if want.get('rx') and (now.get('rx'), now.get('tx')) != \
                (want.get('rx'), want.get('tx')):
            run(['ethtool', '-G', dev, 'rx', str(want['rx']), 'tx',
                 str(want['tx'])], check_rc=False)
        if side.saved.get('up'):
            run(['ip', 'link', 'set', 'dev', dev, 'up'], check_rc=False)

    def __exit__(self, *exc):
        for side in self.sides:
            self.restore(side)
        self.sides = []
        return False


def devlink_health(bdf, reporter='type3'):
    """The reporter's entry of devlink -j health show, or None."""
    p = run(['devlink', '-j', 'health', 'show', 'pci/' + bdf, 'reporter',
             reporter], check_rc=False)
    if p.returncode:
        return None
    data = json.loads(p.stdout).get('health', {})
    for entries in data.values():
        for e in entries:
            if e.get('reporter', e.get('name')) == reporter:
                return e
    return None


# ----------------------------------------------------------------- CLI ----

def _cli(argv):
    usage = __doc__.split('Run as a program')[1]
    if len(argv) < 3:
        sys.stderr.write('usage:' + usage)
        return 2
    cmd, bdf, args = argv[1], argv[2], argv[3:]
    try:
        if cmd == 'ping':
            return _ping_cli(argv[2:])
        if cmd in ('tcp_sink', 'tcp_source'):
            host, port = argv[2], int(argv[3])
            secs = float(argv[4]) if len(argv) > 4 else 600
            if cmd == 'tcp_sink':
                res = tcp_sink(host, port, secs)
            else:
                nbytes = int(argv[5]) if len(argv) > 5 else 0
                res = tcp_source(host, port, secs, nbytes)
            print(json.dumps(res), flush=True)
            return 0
        if cmd == 'inject':
            t, c = int(args[0], 0), int(args[1], 0)
            q = int(args[2], 0) if len(args) > 2 else 0
            n = int(args[3], 0) if len(args) > 3 else 1
            with Bar0(bdf) as bar:
                for _ in range(n):
                    bar.inject_irq(irq_info(t, c, q))
        elif cmd == 'intr':
            rc, st0, st1 = (int(a, 0) for a in args[:3])
            with Bar0(bdf) as bar:
                bar.inject_intr(rc, st0, st1)
        elif cmd == 'read':
            idx = int(args[1], 0) if len(args) > 1 else 0
            with Bar0(bdf) as bar:
                print('0x%x' % bar.read(args[0], idx))
        elif cmd == 'write':
            idx = int(args[2], 0) if len(args) > 2 else 0
            with Bar0(bdf) as bar:
                bar.write(args[0], int(args[1], 0), idx)
                bar.read('SHIM_ID')     # flush the posted write
        elif cmd == 'identity':
            magic, major = read_identity(bdf)
            if magic != hw.MAGIC:
                verdict = 'bad_magic'
            elif major != hw.SHIM_VERSION_MAJOR:
                verdict = 'bad_major'
            else:
                verdict = 'good'
            print('magic=0x%08x major=%d verdict=%s' % (magic, major, verdict))
        else:
            sys.stderr.write('unknown command %s\nusage:%s' % (cmd, usage))
            return 2
    except SkipTest as e:
        sys.stderr.write('SKIP: %s\n' % e)
        return KSFT_SKIP
    except (OSError, TestFailed, ValueError, IndexError, KeyError) as e:
        sys.stderr.write('%s: %s\n' % (cmd, e))
        return 2 if cmd == 'ping' else 1
    return 0


if __name__ == '__main__':
    sys.exit(_cli(sys.argv))
