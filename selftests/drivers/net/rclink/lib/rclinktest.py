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
  rclinktest.py identity BDF                          magic, major, verdict

Exit 4 (skip) when BAR0 cannot be mapped while the driver holds it (a kernel
with CONFIG_IO_STRICT_DEVMEM needs the boot option iomem=relaxed).
"""

import errno
import json
import mmap
import os
import re
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
        self.d = memoryview(self.mm).cast('I')

    def close(self):
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


# ----------------------------------------------------------------- CLI ----

def _cli(argv):
    usage = __doc__.split('Run as a program')[1]
    if len(argv) < 3:
        sys.stderr.write('usage:' + usage)
        return 2
    cmd, bdf, args = argv[1], argv[2], argv[3:]
    try:
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
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(_cli(sys.argv))
