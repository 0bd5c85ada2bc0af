#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""PCI faults of board A of the wired pair (Documentation/driver.rst, "PCI
faults and resets"), each with TYPE1 messages in flight and a reader
blocked on A's /dev/rclinkN:

  flr              a function reset through sysfs (reset_prepare/reset_done)
  aer_correctable  a correctable error injected at the board (aer_inject):
                   nothing is torn down, the traffic goes on
  aer_nonfatal     an uncorrectable non-fatal error: error_detected,
                   slot_reset, resume
  aer_fatal        an uncorrectable fatal error: the same with a link reset
  all_ones         the board leaves the bus (the model's hostile "dead"
                   mode): the driver notices, takes it down, and a sysfs
                   reset brings it back; SKIP on a board without that
                   mode (a real board, the RTL: SHIM_ID still reads its
                   magic)
  devlink_reload   `devlink dev reload` (driver_reinit)
  system_sleep     suspend to idle and back (/sys/power/state "freeze"
                   with pm_test "platform": every device's suspend, late
                   and noirq steps, the board to D3hot, one second, the
                   way back); both boards go down and come back
  remove_rescan    the board removed through sysfs, then a rescan

Before the fault, board B's reader holds back (B answers RNR once 512 KiB
wait unread: debugfs t1_rx_queued_max), so A's messages stay in flight.  After it:

  * the blocked read on A ended with ENODEV (but for the correctable
    error, after which nothing changes);
  * no message is silently lost: B received messages 0..D-1 in order and
    byte-exact, and D plus the messages the driver says it flushed
    ("N TYPE1 message(s) in flight completed flushed") cover all written;
    when B went down too (system_sleep), what it had received but not
    yet read counts ("N received TYPE1 message(s) dropped unread") and
    its file ends with ENODEV;
  * the board is back at its PCI address and carries messages again;
  * A's TYPE3 netdev is the same one (Documentation/driver.rst, "Life
    cycle"): in its network namespace with the same ifindex, address, MTU
    (3000), ring sizes (rx 512, tx 128) and PFC priorities (3), the MAC's
    PFC enable register restored (with BAR0 access), carrier back and a
    ping to B answered; but for remove_rescan, which removes the device;
  * the kernel log has no splat.

RCLINK_PCI_FAULTS_CASES="flr ..." runs only the cases named (the others
skip): make check's RTL pair runs flr alone.

Needs the pair on PCIe root ports for AER (selftests/vm/boards.sh faults;
make check runs it in a guest of its own), the aer_inject module for the
aer_* cases, BAR0 access for all_ones (boot
with iomem=relaxed), else those cases are skipped.  system_sleep needs
/sys/power/pm_test (CONFIG_PM_DEBUG) and, in a guest, virtio devices that
keep their state across sleep (run-guest.sh --sleep-safe, Linux 6.12 or
later): the guest's root is on virtio-9p, which cannot restore a reset
device.
"""

import errno
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position

QP = 11
IP = {'A': '10.197.0.1', 'B': '10.197.0.2'}
BIG = 65536
RX_QUEUED_MAX = 1 << 26         # the driver's default (rclink_dp.h)
RX_QUEUED_TEST = 1 << 19
FLUSHED_RE = re.compile(r'(\d+) TYPE1 message\(s\) in flight completed '
                        r'flushed')
UNREAD_RE = re.compile(r'(\d+) received TYPE1 message\(s\) dropped unread')
PM_CTRL_NO_SOFT_RESET = 0x0008
T3_MTU = 3000
T3_RINGS = (512, 128)           # rx, tx: both not the defaults
T3_PRIO = 3
HERE = os.path.dirname(os.path.abspath(__file__))

# AER status bits (PCI_ERR_*): a receiver error, a completion timeout
# (non-fatal by default) and a malformed TLP (fatal by default)
COR_RCVR = 0x00000001
UNC_COMP_TIME = 0x00004000
UNC_MALF_TLP = 0x00040000


class Pair:
    """Boards A and B by PCI address; names can change across a reset."""

    def __init__(self):
        a, b = t1.pick_pair()
        self.bdf = {'A': t1.bdf_of(a), 'B': t1.bdf_of(b)}
        self.saved = {s: t1.dev_show(self.name(s)) for s in 'AB'}

    def name(self, side, timeout=0.0):
        """The board name of a side, waiting up to timeout for it."""
        end = time.monotonic() + timeout
        while True:
            for n in t1.devices():
                try:
                    if t1.bdf_of(n) == self.bdf[side]:
                        return n
                except LookupError:
                    pass
            if time.monotonic() >= end:
                raise rt.TestFailed('no board at %s' % self.bdf[side])
            time.sleep(0.2)

    def qp_fresh(self, qpn=QP, ips=None):
        """QP qpn on both boards, configured anew (PSNs from the start),
        the boards with the addresses ips (default IP)."""
        ips = ips or IP
        for s in 'AB':
            t1.tool(['qp', 'del', 'dev', self.name(s), 'qpn', str(qpn)],
                    check=False)
        for s in 'AB':
            t1.tool(['dev', 'set', 'dev', self.name(s), 'ip', ips[s]])
        for s, o in (('A', 'B'), ('B', 'A')):
            mac = t1.dev_show(self.name(o))['mac']
            t1.tool(['qp', 'add', 'dev', self.name(s), 'qpn', str(qpn),
                     'dqpn', str(qpn), 'dip', ips[o], 'dmac', mac])

    def cleanup(self):
        for s in 'AB':
            try:
                n = self.name(s, 5)
            except rt.TestFailed:
                continue
            for q in (QP, QP + 1):
                t1.tool(['qp', 'del', 'dev', n, 'qpn', str(q)], check=False)
            args = t1.restore_args(self.saved[s], t1.dev_show(n))
            if args:
                t1.tool(['dev', 'set', 'dev', n] + args, check=False)


class NetKept:
    """A's TYPE3 netdev, set up in a namespace of its own before each fault
    and checked after it: the driver keeps it across every reset."""

    def __init__(self, pair):
        self.t3 = None
        self.why = None
        os.environ['RCLINK_T3_DEVS'] = '%s %s' % (pair.bdf['A'],
                                                   pair.bdf['B'])
        if not shutil.which('dcb'):
            self.why = 'no dcb (iproute2)'
            return
        try:
            self.t3 = rt.T3Pair().__enter__()
        except rt.SkipTest as e:
            self.why = str(e)

    def close(self):
        if self.t3:
            a = self.t3.a
            a.nsx(['dcb', 'pfc', 'set', 'dev', a.dev, 'prio-pfc', 'all:off'],
                  check_rc=False)
            self.t3.__exit__(None, None, None)
            self.t3 = None

    def setup(self, diag):
        """Settings other than the defaults; the state to compare with."""
        if not self.t3:
            return None
        a = self.t3.a
        a.set_mtu(T3_MTU)
        a.nsx(['ethtool', '-G', a.dev, 'rx', str(T3_RINGS[0]), 'tx',
               str(T3_RINGS[1])])
        a.dcb_pfc_set(['prio-pfc', '%d:on' % T3_PRIO], diag)
        st = self.state()
        rt.check(st['mtu'] == T3_MTU and st['rings'] == T3_RINGS and
                 st['pfc'] == [T3_PRIO], 'setting up A: %s' % st)
        return st

    def state(self):
        a = self.t3.a
        p = a.ip_cmd(['-j', 'addr', 'show', 'dev', a.dev], check_rc=False)
        rt.check(p.returncode == 0, "A's netdev %s is not in its namespace "
                 'any more: %s' % (a.dev, p.stdout.strip()))
        link = json.loads(p.stdout)[0]
        rings = a.rings()
        p = a.nsx(['dcb', '-j', 'pfc', 'show', 'dev', a.dev])
        prio = json.loads(p.stdout).get('prio_pfc', [])
        if isinstance(prio, dict):
            prio = [prio.get(str(n)) for n in range(8)]
        return {'ifindex': link['ifindex'], 'mtu': link['mtu'],
                'addr': sorted('%s/%s' % (x['local'], x['prefixlen'])
                               for x in link.get('addr_info', [])
                               if x.get('family') == 'inet'),
                'rings': (rings.get('rx'), rings.get('tx')),
                'pfc': [n for n, v in enumerate(prio) if v]}

    def check(self, ktap, before):
        if not self.t3:
            ktap.diag('netdev not checked: %s' % self.why)
            return
        now = self.state()
        rt.check(now == before, "A's netdev changed: %s, was %s"
                 % (now, before))
        a, b = self.t3.a, self.t3.b
        rt.check(a.wait_carrier(True) and b.wait_carrier(True),
                 'no carrier on A or B after the fault')
        try:
            bar = rt.Bar0(a.bdf)
        except (OSError, rt.SkipTest) as e:
            ktap.diag('PFC registers not checked: %s' % e)
        else:
            try:
                en = (bar.read('TX_FC_ENABLE'), bar.read('RX_PFC_ENABLE'))
            finally:
                bar.close()
            rt.check(en == (1 << T3_PRIO,) * 2, 'MAC PFC enables 0x%x 0x%x '
                     'after the fault, want 0x%x' % (en + (1 << T3_PRIO,)))
        sent, got, out = a.ping(count=3, size=T3_MTU - 28)
        rt.check(got == sent == 3, 'ping A -> B after the fault: %d/%d\n%s'
                 % (got, sent, out))
        ktap.diag('netdev %s kept: %s' % (a.dev, now))


class T1Kept:
    """The TYPE1 state of the boards across a fault: a recoverable reset
    keeps the board's name, its `dev set` configuration and its QPs, which
    come back fatal and must be re-armed with PSNs agreed with the peer;
    devlink reload (a re-initialisation) keeps the name only."""

    TTL = 77
    PSN = {'A': 500, 'B': 900}      # the PSNs each side sends from

    def __init__(self, pair, mode, both):
        self.pair, self.mode, self.both = pair, mode, both
        self.names = {}

    def setup(self):
        for s in 'AB':
            self.names[s] = self.pair.name(s)
        t1.tool(['dev', 'set', 'dev', self.names['A'], 'ttl',
                 str(self.TTL)])

    def state(self, side):
        q = [x for x in t1.qp_show(self.pair.name(side))
             if int(x['qpn']) == QP]
        return q[0]['state'] if q else None

    def check(self, ktap, cb):
        """cb: B's file, still bound to the QP when B was not reset."""
        if self.mode is None:
            return
        a = self.pair.name('A', 30)
        if self.mode != 'new':
            rt.check(a == self.names['A'], "A's board is %s after the "
                     'fault, was %s' % (a, self.names['A']))
        ttl = t1.dev_show(a)['ttl']
        if self.mode in ('forgotten', 'new'):
            rt.check(self.state('A') is None, 'qp %d on A after the %s '
                     'reset, want none' % (QP, self.mode))
            rt.check(ttl == self.pair.saved['A']['ttl'], 'ttl %s after '
                     'the reset, want the default %s'
                     % (ttl, self.pair.saved['A']['ttl']))
            ktap.diag('TYPE1 state %s: name %s, no QP, ttl %s'
                      % (self.mode, a, ttl))
            return
        rt.check(ttl == self.TTL, 'ttl %s after the reset, was %d'
                 % (ttl, self.TTL))
        fatal = ('A', 'B') if self.both else ('A',)
        for s in 'AB':
            st = self.state(s)
            rt.check(st == ('fatal' if s in fatal else 'ready'),
                     'qp %d on %s: state %s after the reset' % (QP, s, st))
        # re-arming needs both PSNs: the old ones mean nothing now
        rc, out = t1.tool(['qp', 'set', 'dev', a, 'qpn', str(QP), 'state',
                           'ready'], check=False)
        rt.check(rc != 0 and 'sq_psn' in out,
                 'state ready without PSNs after a reset: rc %d %s'
                 % (rc, out.strip()))
        for s, o in (('A', 'B'), ('B', 'A')):
            args = ['qp', 'set', 'dev', self.pair.name(s), 'qpn', str(QP),
                    'sq_psn', str(self.PSN[s]), 'rq_psn', str(self.PSN[o])]
            if s in fatal:
                args += ['state', 'ready']
            t1.tool(args)
        for s in 'AB':
            rt.check(self.state(s) == 'ready', 'qp %d on %s: %s after the '
                     're-arm' % (QP, s, self.state(s)))
        if self.both:
            cb = t1.Chan(self.pair.name('B'), QP)
        try:
            with t1.Chan(self.pair.name('A'), QP) as ca:
                for src, dst, tag in ((ca, cb, 'A -> B'),
                                      (cb, ca, 'B -> A')):
                    want = t1.pattern(QP, 7, 3000)
                    src.send(want)
                    got = dst.recv(10)
                    rt.check(got == want, 're-armed qp %d %s: %s' % (
                        QP, tag, 'missing' if got is None else 'differs'))
        finally:
            if self.both:
                cb.close()
        ktap.diag('TYPE1 state kept: %s, qp %d fatal, re-armed, ttl %s'
                  % (a, QP, ttl))


def traffic_ok(pair, count=5):
    """count messages A -> B on a fresh QP, byte-exact."""
    pair.qp_fresh()
    with t1.Chan(pair.name('B'), QP) as cb, t1.Chan(pair.name('A'), QP) as ca:
        for i in range(count):
            ca.send(t1.pattern(QP, 1000 + i, 100 + 999 * i))
        ca.drain()
        for i in range(count):
            m = cb.recv(10)
            want = t1.pattern(QP, 1000 + i, 100 + 999 * i)
            rt.check(m == want, 'after the fault: message %d %s' %
                     (i, 'missing' if m is None else 'differs'))


def fill_in_flight(ca, timeout=60):
    """Write 64 KiB messages from A until they stop being acknowledged (B
    holds what it may queue and answers RNR): returns the count written."""
    ca.set_nonblock(True)
    n = 0
    stalled = time.monotonic()
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            ca.write(t1.pattern(QP, n, BIG))
            n += 1
            stalled = time.monotonic()
        except BlockingIOError:
            if time.monotonic() - stalled > 2.0:
                return n
            ca.poll(0x4, 0.1)       # POLLOUT
    raise rt.TestFailed('A kept sending for %d s: B never held back' % timeout)


class Reader(threading.Thread):
    """A read blocked on a file; ends with the errno it got (0: data)."""

    def __init__(self, chan):
        super().__init__(daemon=True)
        self.chan = chan
        self.err = None

    def run(self):
        try:
            self.chan.read()
            self.err = 0
        except OSError as e:
            self.err = e.errno


def drain_b(cb, written):
    """Read what B got: messages 0..D-1 in order, byte-exact; returns D."""
    cb.set_nonblock(False)
    d = 0
    while True:
        m = cb.recv(3, BIG + 16)
        if m is None:
            return d
        rt.check(d < written, 'B got a message more than written')
        rt.check(m == t1.pattern(QP, d, BIG),
                 'B: message %d wrong (%d bytes, header %r)'
                 % (d, len(m), m[:12]))
        d += 1


def flushed_since(marker, bdf, regex=FLUSHED_RE):
    n = 0
    for _, _, text in rt.kmsg_since(marker):
        m = regex.search(text)
        if m and bdf in text:
            n += int(m.group(1))
    return n


def pm_no_soft_reset(bdf):
    """PMCSR No_Soft_Reset of a PCI function (False without a PM cap)."""
    with open(rt.pci_path(bdf) + 'config', 'rb') as f:
        cfg = f.read(256)
    pos = cfg[0x34] & ~3 if len(cfg) > 0x34 and cfg[6] & 0x10 else 0
    seen = 0
    while pos and seen < 48:
        if cfg[pos] == 0x01:
            return bool(struct.unpack_from('<H', cfg, pos + 4)[0] &
                        PM_CTRL_NO_SOFT_RESET)
        pos = cfg[pos + 1] & ~3
        seen += 1
    return False


def sleep_precondition():
    """Why this machine cannot sleep and wake for the test, or None."""
    if not os.path.exists('/sys/power/pm_test'):
        return 'no /sys/power/pm_test (CONFIG_PM_DEBUG)'
    with open('/sys/power/state', encoding='ascii') as f:
        if 'freeze' not in f.read().split():
            return 'no suspend to idle in /sys/power/state'
    rel = tuple(int(x) for x in re.findall(r'\d+', os.uname().release)[:2])
    for bdf in sorted(os.listdir('/sys/bus/pci/devices')):
        drv = rt.pci_path(bdf) + 'driver'
        if not os.path.exists(drv) or \
                os.path.basename(os.readlink(drv)) != 'virtio-pci':
            continue
        if rel < (6, 12) or not pm_no_soft_reset(bdf):
            return ('virtio device %s would be reset by the sleep (the '
                    "guest's 9p root cannot take that): a guest of "
                    'run-guest.sh --sleep-safe on Linux 6.12 or later' % bdf)
    return None


def system_sleep(_bdf):
    """Suspend to idle with pm_test platform: every device suspends down
    to noirq, one second passes, everything resumes."""
    delay = '/sys/module/suspend/parameters/pm_test_delay'
    if os.path.exists(delay):
        sysfs(delay, '1')
    sysfs('/sys/power/pm_test', 'platform')
    try:
        sysfs('/sys/power/state', 'freeze')
    finally:
        sysfs('/sys/power/pm_test', 'none')


def pci_stat(bdf, name):
    with open(rt.dbg_path(bdf, 'pci'), encoding='ascii') as f:
        for line in f:
            k, v = line.split()
            if k == name:
                return int(v)
    raise rt.TestFailed('debugfs pci of %s has no %s' % (bdf, name))


def sysfs(path, value):
    with open(path, 'w', encoding='ascii') as f:
        f.write(value)


def aer_inject(bdf, uncor=0, cor=0):
    """Inject through /dev/aer_inject (the aer_inject module)."""
    if not os.path.exists('/dev/aer_inject'):
        r = subprocess.run(['modprobe', 'aer_inject'], capture_output=True,
                           text=True, check=False)
        if r.returncode or not os.path.exists('/dev/aer_inject'):
            raise rt.SkipTest('no aer_inject: %s' % r.stderr.strip())
    dom, bus, devfn = bdf.split(':')
    dev, fn = devfn.split('.')
    rec = struct.pack('<BBBxIIIIIII', int(bus, 16), int(dev, 16), int(fn),
                      uncor, cor, 0, 0, 0, 0, int(dom, 16))
    fd = os.open('/dev/aer_inject', os.O_WRONLY)
    try:
        os.write(fd, rec)
    except OSError as e:
        raise rt.SkipTest('aer_inject refuses %s: %s' % (bdf, e)) from e
    finally:
        os.close(fd)


def hostile(bdf, *args):
    r = subprocess.run([sys.executable, os.path.join(HERE, 'lib',
                                                     'rclink_hostile.py'),
                        bdf] + list(args),
                       capture_output=True, text=True, check=False)
    if r.returncode == rt.KSFT_SKIP:
        why = r.stderr.strip()
        raise rt.SkipTest(why[6:] if why.startswith('SKIP: ') else why)
    rt.check(r.returncode == 0, 'rclink_hostile.py %s: %s'
             % (' '.join(args), r.stderr.strip()))


def case(pair, ktap, name, fault, recover=None, teardown=True,
         both=False, precondition=None, net=None, kept='kept'):
    """One fault of A (both: of A and B) with messages in flight; net: A's
    netdev must survive it; kept: what becomes of the TYPE1 state (T1Kept:
    'kept', 'forgotten', 'new', or None when nothing is reset)."""
    def body():
        only = os.environ.get('RCLINK_PCI_FAULTS_CASES', '').split()
        if only and name not in only:
            raise rt.SkipTest('not in RCLINK_PCI_FAULTS_CASES')
        why = precondition() if precondition else None
        if why:
            raise rt.SkipTest(why)
        net_before = net.setup(ktap.diag) if net else None
        bdf = pair.bdf['A']
        pair.qp_fresh()
        t1k = T1Kept(pair, kept if teardown else None, both)
        t1k.setup()
        sysfs(rt.dbg_path(pair.bdf['B'], 't1_rx_queued_max'),
              str(RX_QUEUED_TEST))
        cb = t1.Chan(pair.name('B'), QP)
        ca = t1.Chan(pair.name('A'), QP)
        reader = None
        try:
            written = fill_in_flight(ca)
            info = ca.info()
            ktap.diag('%s: %d messages written, %d in flight' %
                      (name, written, info['tx_inflight']))
            rt.check(info['tx_inflight'] > 0, 'nothing in flight')
            reader = Reader(t1.Chan(pair.name('A')))
            # the reader's own file, bound to a QP nobody sends on
            t1.tool(['qp', 'add', 'dev', pair.name('A'), 'qpn',
                     str(QP + 1), 'dqpn', str(QP + 1), 'dip', IP['B'],
                     'dmac', t1.dev_show(pair.name('B'))['mac']])
            reader.chan.bind(QP + 1)
            reader.start()
            time.sleep(0.3)
            rt.check(reader.is_alive(), 'the read did not block')
            marker = rt.kmsg_mark('pci_faults ' + name)
            fault(bdf)
            if recover:
                recover(bdf)
            reader.join(20)
            if teardown:
                rt.check(not reader.is_alive(), 'the read on A still '
                         'blocks 20 s after the fault')
                rt.check(reader.err == errno.ENODEV,
                         'the blocked read ended with %s, want ENODEV'
                         % (errno.errorcode.get(reader.err, reader.err)))
            else:
                rt.check(reader.is_alive(), 'the read ended (%s) though '
                         'nothing was torn down' % reader.err)
                reader.chan.unbind()
                reader.join(5)
            pair.name('A', 30)
            flushed = flushed_since(marker, bdf)
            unread = 0
            if both:
                pair.name('B', 30)
                try:
                    cb.set_nonblock(True)
                    cb.read()
                    raise rt.TestFailed('B read a message after it went '
                                        'down')
                except OSError as e:
                    rt.check(e.errno == errno.ENODEV, "B's file: %s, want "
                             'ENODEV' % errno.errorcode.get(e.errno, e))
                delivered = 0
                unread = flushed_since(marker, pair.bdf['B'], UNREAD_RE)
                rt.check(unread > 0, 'B held messages unread, but no '
                         '"dropped unread" count in the kernel log')
            else:
                delivered = drain_b(cb, written)
            ktap.diag('%s: %d written, %d delivered to B, %d flushed, '
                      '%d dropped unread by B'
                      % (name, written, delivered, flushed, unread))
            if teardown:
                rt.check(delivered + flushed + unread >= written,
                         '%d written, but only %d delivered, %d flushed '
                         'and %d dropped unread'
                         % (written, delivered, flushed, unread))
            else:
                rt.check(delivered == written and not flushed,
                         '%d written, %d delivered, %d flushed: want all '
                         'delivered' % (written, delivered, flushed))
            if net:
                net.check(ktap, net_before)
            t1k.check(ktap, cb)
            bad = rt.kmsg_problems(rt.kmsg_since(marker), errors=False)
            rt.check(not bad, 'kernel log: %s' % ' | '.join(bad[:5]))
        finally:
            ca.close()
            cb.close()
            sysfs(rt.dbg_path(pair.bdf['B'], 't1_rx_queued_max'),
                  str(RX_QUEUED_MAX))
            if reader:
                if reader.is_alive():
                    # a skipped or failed fault: unbinding ends the read
                    try:
                        reader.chan.unbind()
                    except OSError:
                        pass        # the board went away: the read ended
                    reader.join(5)
                reader.chan.close()
            # the reader's QP goes on every path: the next case adds it
            try:
                t1.tool(['qp', 'del', 'dev', pair.name('A', 30), 'qpn',
                         str(QP + 1)], check=False)
            except rt.TestFailed:
                pass                # no board A: the case has failed
        traffic_ok(pair)
    ktap.run(name, body)


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    try:
        pair = Pair()
    except (LookupError, t1.ToolError) as e:
        ktap.skip_all(str(e))
    pci = rt.pci_path(pair.bdf['A'])
    ktap.diag('A %s, B %s' % (pair.bdf['A'], pair.bdf['B']))
    ktap.plan(8)
    net = NetKept(pair)
    try:
        case(pair, ktap, 'flr', lambda b: sysfs(pci + 'reset', '1'),
             net=net)
        case(pair, ktap, 'aer_correctable',
             lambda b: aer_inject(b, cor=COR_RCVR), teardown=False, net=net)
        case(pair, ktap, 'aer_nonfatal',
             lambda b: aer_inject(b, uncor=UNC_COMP_TIME), net=net)
        case(pair, ktap, 'aer_fatal',
             lambda b: aer_inject(b, uncor=UNC_MALF_TLP), net=net)

        def dead(b):
            # the name first: once the driver sees the board gone (its own
            # periodic reads may be first, on a slow kernel) it has none
            name = pair.name('A')
            hostile(b, 'dead')
            # the next register read tells the driver
            t1.tool(['dev', 'show', 'dev', name], check=False)
        case(pair, ktap, 'all_ones', dead,
             recover=lambda b: (time.sleep(1), sysfs(pci + 'reset', '1')),
             net=net)

        def reload(b):
            if not shutil.which('devlink'):
                raise rt.SkipTest('no devlink (iproute2)')
            rt.run(['devlink', 'dev', 'reload', 'pci/' + b, 'action',
                    'driver_reinit'])
        case(pair, ktap, 'devlink_reload', reload, net=net,
             kept='forgotten')

        def sleep_checked(b):
            before = {s: (pci_stat(pair.bdf[s], 'suspends'),
                          pci_stat(pair.bdf[s], 'sleep_resumes'))
                      for s in 'AB'}
            system_sleep(b)
            for s in 'AB':
                pair.name(s, 30)
                now = (pci_stat(pair.bdf[s], 'suspends'),
                       pci_stat(pair.bdf[s], 'sleep_resumes'))
                rt.check(now == (before[s][0] + 1, before[s][1] + 1),
                         '%s: suspends/sleep_resumes %s, were %s'
                         % (s, now, before[s]))
        case(pair, ktap, 'system_sleep', sleep_checked, both=True,
             precondition=sleep_precondition, net=net)
        # last: the device and its netdev go
        case(pair, ktap, 'remove_rescan',
             lambda b: sysfs(pci + 'remove', '1'),
             recover=lambda b: sysfs('/sys/bus/pci/rescan', '1'),
             kept='new')

    finally:
        net.close()
        pair.cleanup()
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
