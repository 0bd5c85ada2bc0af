#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Board A's life cycle under load (Documentation/driver.rst, "Life cycle";
Documentation/testing.rst, "Stress").

For $RCLINK_STRESS_SECONDS (default 180) one thread takes board A of the
wired pair through its recoverable resets in turn, each 0.5 to 2 s after
the TYPE1 writer has configured its QPs again (so that messages are in
flight):

  flr             a function reset through sysfs
  devlink_reload  `devlink dev reload` (driver_reinit)
  aer_nonfatal    an uncorrectable non-fatal error (aer_inject)
  rebind          unbind and bind the driver (the netdev is re-created: it
                  goes back into its namespace with its address)
  system_sleep    suspend to idle and back (pm_test platform; both boards)

while other threads keep working on both boards:

  t1      TYPE1 messages A -> B (12 B to 64 KiB, numbered); after a reset
          of A the writer waits for A, configures the QPs again, goes on
  t1rx    B's reader: messages in increasing order, each intact
  t2      TYPE2 messages A -> B on a group B joined, each intact when it
          arrives (TYPE2 is unreliable: loss is allowed)
  t3      pings from A's netdev to B's (namespaces)
  config  rclink dev/qp/mcast show, ethtool -S/-g/-G, dcb pfc show/set,
          devlink dev info and health diagnose on A (errors while A is down
          are expected and only counted)

Then:

  faults_ran       every fault ran (the ones this machine cannot do are
                   skipped and named: aer_inject, pm_test)
  t1_accounted     every TYPE1 message written is delivered to B in order
                   and intact, or counted: flushed by a teardown on A ("N
                   TYPE1 message(s) in flight completed flushed") or dropped
                   unread on B (the teardown of B in a sleep, or the QP's
                   deletion before it was configured again)
  t2_intact        no TYPE2 message arrived damaged; some arrived
  netdev_kept      A's netdev kept its ifindex through every fault but the
                   rebinds, its address and MTU through all
  traffic_after    TYPE1, TYPE2 and TYPE3 work once the faults stop
  kernel_log_clean no warning, BUG, lockdep report or hung task

Needs the board set of pci_faults.py (RCLINK_BOARDS=faults: root ports for
AER, a sleep-safe guest); `make stress` runs it.
"""

import errno
import json
import os
import random
import select
import shutil
import struct
import sys
import threading
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
sys.path.insert(0, HERE)
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
import pci_faults as pf  # noqa: E402  pylint: disable=wrong-import-position

QP = 21
GROUP = 4
IP = {'A': '10.196.0.1', 'B': '10.196.0.2'}
MAX_MSG = 65536
SECONDS = int(os.environ.get('RCLINK_STRESS_SECONDS', '180'))
BIND_MCAST = 1
T3_MTU = 2000


class Stop(Exception):
    pass


class Stress:
    def __init__(self, ktap):
        self.ktap = ktap
        self.pair = pf.Pair()
        self.bdf = self.pair.bdf
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.ready = threading.Event()      # A's QPs configured
        self.epoch = 0                      # configurations so far
        self.problems = []
        self.written = 0
        self.delivered = 0
        self.t2_sent = self.t2_got = self.t2_bad = 0
        self.t3_sent = self.t3_got = 0
        self.config_ok = self.config_err = 0
        self.faults = {}
        self.skipped = {}
        self.t3 = None
        self.ifindex = None
        self.rebinds = 0

    # -- helpers -----------------------------------------------------------
    def problem(self, msg):
        with self.lock:
            self.problems.append(msg)
        self.ktap.diag('problem: %s' % msg)

    def name(self, side, timeout=60):
        return self.pair.name(side, timeout)

    def configure(self):
        """A's and B's TYPE1 configuration and QP pair anew, B joined to
        the TYPE2 group (A lost all of it in the reset)."""
        self.pair.qp_fresh(QP, IP)
        t1.tool(['mcast', 'set', 'dev', self.name('B'), 'group', str(GROUP),
                 'join', 'on'])

    def wait_up(self):
        """Until both boards are back and configured (or the end)."""
        while not self.stop.is_set():
            try:
                self.name('A', 5)
                self.name('B', 5)
                self.configure()
                return True
            except (rt.TestFailed, t1.ToolError, OSError, KeyError):
                time.sleep(0.5)
        return False

    # -- TYPE1 -------------------------------------------------------------
    def t1_writer(self):
        seq = 0
        rnd = random.Random(1)
        while not self.stop.is_set():
            self.ready.clear()
            if not self.wait_up():
                return
            self.epoch += 1
            self.ready.set()
            try:
                ch = t1.Chan(self.name('A', 5), QP)
            except (OSError, rt.TestFailed):
                continue
            try:
                while not self.stop.is_set():
                    size = rnd.choice((12, 100, 1000, 4096, 20000, MAX_MSG))
                    try:
                        ch.send(t1.pattern(QP, seq, size), timeout=2.0)
                    except BlockingIOError:
                        continue
                    with self.lock:
                        self.written += 1
                    seq += 1
            except OSError as e:
                if e.errno not in (errno.ENODEV, errno.ENOTCONN, errno.EIO,
                                   errno.ENOENT, errno.EPIPE):
                    self.problem('A write: %s' % e)
            finally:
                ch.close()

    def t1_reader(self):
        last = -1
        while not self.stop.is_set():
            self.ready.wait(1)
            if not self.ready.is_set():
                continue
            epoch = self.epoch
            try:
                ch = t1.Chan(self.name('B', 5), QP)
            except (OSError, rt.TestFailed):
                time.sleep(0.3)
                continue
            try:
                while True:
                    m = ch.recv(1.0, MAX_MSG + 16)
                    if m is None:
                        # a file bound to the QP before it was made anew
                        if self.stop.is_set() or epoch != self.epoch:
                            break
                        continue
                    seq, qpn, size = struct.unpack('<III', m[:12])
                    if qpn != QP or m != t1.pattern(QP, seq, size):
                        self.problem('B: a damaged message (%d bytes, '
                                     'header %r)' % (len(m), m[:12]))
                    elif seq <= last:
                        self.problem('B: message %d after %d' % (seq, last))
                    last = max(last, seq)
                    with self.lock:
                        self.delivered += 1
            except OSError as e:
                if e.errno not in (errno.ENODEV, errno.ENOTCONN, errno.EIO,
                                   errno.ENOENT, errno.EPIPE):
                    self.problem('B read: %s' % e)
            finally:
                ch.close()

    # -- TYPE2 -------------------------------------------------------------
    def t2_sender(self):
        seq = 0
        while not self.stop.is_set():
            if not self.ready.wait(1):
                continue
            ca = cb = None
            try:
                ca = t1.Chan(self.name('A', 5))
                ca.bind(GROUP, BIND_MCAST)
                cb = t1.Chan(self.name('B', 5))
                cb.bind(GROUP, BIND_MCAST)
            except (OSError, rt.TestFailed):
                for c in (ca, cb):
                    if c:
                        c.close()
                time.sleep(0.5)
                continue
            try:
                while not self.stop.is_set() and self.ready.is_set():
                    m = t1.pattern(GROUP, seq, 12 + seq % 100)
                    seq += 1
                    ca.send(m, timeout=1.0)
                    with self.lock:
                        self.t2_sent += 1
                    while cb.poll(select.POLLIN, 0.02) & select.POLLIN:
                        got = cb.read()
                        s, g, size = struct.unpack('<III', got[:12])
                        with self.lock:
                            if g != GROUP or got != t1.pattern(GROUP, s,
                                                               size):
                                self.t2_bad += 1
                            else:
                                self.t2_got += 1
            except OSError:
                pass            # a reset: both files end
            finally:
                ca.close()
                cb.close()

    # -- TYPE3 -------------------------------------------------------------
    def t3_pinger(self):
        while not self.stop.is_set():
            if not self.t3:
                return
            sent, got, _ = self.t3.a.ping(count=1, timeout=0.5)
            with self.lock:
                self.t3_sent += sent
                self.t3_got += got
            time.sleep(0.1)

    # -- configuration -----------------------------------------------------
    def config(self):
        rnd = random.Random(2)
        a = self.t3.a if self.t3 else None
        cmds = [lambda: t1.tool(['-s', 'dev', 'show', 'dev',
                                 self.name('A', 1)]),
                lambda: t1.tool(['-s', 'qp', 'show', 'dev',
                                 self.name('A', 1)]),
                lambda: t1.tool(['-s', 'mcast', 'show', 'dev',
                                 self.name('A', 1)]),
                lambda: rt.run(['devlink', 'dev', 'info', 'pci/' +
                                self.bdf['A']]),
                lambda: rt.run(['devlink', 'health', 'diagnose', 'pci/' +
                                self.bdf['A'], 'reporter', 'type3'])]
        if a:
            cmds += [lambda: a.nsx(['ethtool', '-S', a.dev]),
                     lambda: a.nsx(['ethtool', '-g', a.dev]),
                     lambda: a.nsx(['ethtool', '-G', a.dev, 'rx',
                                    rnd.choice(('256', '512')), 'tx',
                                    rnd.choice(('128', '256'))]),
                     lambda: a.nsx(['dcb', 'pfc', 'show', 'dev', a.dev]),
                     lambda: a.nsx(['dcb', 'pfc', 'set', 'dev', a.dev,
                                    'prio-pfc', rnd.choice(('3:on',
                                                            '3:off'))])]
        while not self.stop.is_set():
            try:
                rnd.choice(cmds)()
                ok = True
            except (rt.TestFailed, t1.ToolError, OSError):
                ok = False
            with self.lock:
                if ok:
                    self.config_ok += 1
                else:
                    self.config_err += 1
            time.sleep(0.05)

    # -- the faults --------------------------------------------------------
    def rebind(self, bdf):
        rt.unbind(bdf)
        rt.bind(bdf)
        self.rebinds += 1
        if not self.t3:
            return
        a = self.t3.a
        dev = None
        end = time.monotonic() + 30
        while not dev and time.monotonic() < end:
            dev = rt.netdev_of(bdf)
            time.sleep(0.2)
        rt.check(dev is not None, 'no netdev after the rebind')
        rt.run(['ip', 'link', 'set', 'dev', dev, 'netns', a.ns])
        a.dev = dev
        a.ip_cmd(['link', 'set', 'dev', dev, 'mtu', str(T3_MTU)])
        a.ip_cmd(['addr', 'add', a.ip + '/24', 'dev', dev])
        a.ip_cmd(['link', 'set', 'dev', dev, 'up'])
        self.ifindex = self.link()['ifindex']

    def fault_list(self):
        pci = rt.pci_path(self.bdf['A'])
        faults = [('flr', lambda b: pf.sysfs(pci + 'reset', '1'), None),
                  ('devlink_reload',
                   lambda b: rt.run(['devlink', 'dev', 'reload', 'pci/' + b,
                                     'action', 'driver_reinit']),
                   None if shutil.which('devlink') else 'no devlink'),
                  ('aer_nonfatal',
                   lambda b: pf.aer_inject(b, uncor=pf.UNC_COMP_TIME), None),
                  ('rebind', self.rebind, None),
                  ('system_sleep', pf.system_sleep, pf.sleep_precondition())]
        return faults

    def fault_thread(self):
        rnd = random.Random(3)
        faults = self.fault_list()
        end = time.monotonic() + SECONDS
        i = 0
        fault_epoch = 0
        while time.monotonic() < end:
            name, func, why = faults[i % len(faults)]
            i += 1
            if why:
                self.skipped[name] = why
                continue
            # into traffic: once the writer has configured the QPs again
            wait = time.monotonic() + 30
            while self.epoch <= fault_epoch and time.monotonic() < wait:
                time.sleep(0.1)
            time.sleep(rnd.uniform(0.5, 2.0))
            fault_epoch = self.epoch
            try:
                func(self.bdf['A'])
            except rt.SkipTest as e:
                self.skipped[name] = str(e)
                continue
            except (rt.TestFailed, OSError) as e:
                self.problem('%s: %s' % (name, e))
            self.faults[name] = self.faults.get(name, 0) + 1
            try:
                self.name('A', 60)
            except rt.TestFailed as e:
                self.problem('%s: %s' % (name, e))
                break
            if self.t3:
                self.t3.a.wait_carrier(True, 10)
                try:
                    now = self.link()
                except (rt.TestFailed, IndexError, ValueError) as e:
                    self.problem('%s: A netdev: %s' % (name, e))
                    continue
                if now['ifindex'] != self.ifindex or now['mtu'] != T3_MTU:
                    self.problem('%s: A netdev ifindex %s mtu %s, was %s %s'
                                 % (name, now['ifindex'], now['mtu'],
                                    self.ifindex, T3_MTU))

    def link(self):
        a = self.t3.a
        p = a.ip_cmd(['-j', 'addr', 'show', 'dev', a.dev])
        return json.loads(p.stdout)[0]

    # -- the run -----------------------------------------------------------
    def run(self):
        marker = rt.kmsg_mark('stress start')
        unread0 = rt.events(self.bdf['B']).get('t1_rx_unread_dropped', 0)
        net = pf.NetKept(self.pair)
        self.t3 = net.t3
        if self.t3:
            self.t3.a.set_mtu(T3_MTU)
            self.ifindex = self.link()['ifindex']
        else:
            self.ktap.diag('no TYPE3: %s' % net.why)
        threads = [threading.Thread(target=f, daemon=True, name=n)
                   for n, f in (('t1', self.t1_writer),
                                ('t1rx', self.t1_reader),
                                ('t2', self.t2_sender),
                                ('t3', self.t3_pinger),
                                ('config', self.config))]
        try:
            for t in threads:
                t.start()
            self.fault_thread()
        finally:
            self.stop.set()
            for t in threads:
                t.join(30)
        self.ktap.diag('faults %s; skipped %s' % (self.faults, self.skipped))
        self.ktap.diag('TYPE1 written %d delivered %d; TYPE2 sent %d got %d '
                       'damaged %d; TYPE3 pings %d/%d; config ok %d failed %d'
                       % (self.written, self.delivered, self.t2_sent,
                          self.t2_got, self.t2_bad, self.t3_got,
                          self.t3_sent, self.config_ok, self.config_err))
        self.results(marker, unread0, net)

    def results(self, marker, unread0, net):
        ktap = self.ktap

        def faults_ran():
            missing = [n for n, _, _ in self.fault_list()
                       if n not in self.faults and n not in self.skipped]
            rt.check(not missing, 'never ran: %s' % missing)
            rt.check(not self.problems, '\n'.join(self.problems[:10]))
            if self.skipped:
                ktap.diag('skipped: %s' % self.skipped)
        ktap.run('faults_ran', faults_ran)

        def t1_accounted():
            flushed = pf.flushed_since(marker, self.bdf['A'])
            unread = pf.flushed_since(marker, self.bdf['B'], pf.UNREAD_RE)
            dropped = rt.events(self.bdf['B']).get('t1_rx_unread_dropped',
                                                   0) - unread0
            ktap.diag('TYPE1: %d written, %d delivered, %d flushed on A, '
                      '%d dropped unread by B in teardowns, %d by QP '
                      'deletions or teardowns (t1_rx_unread_dropped)'
                      % (self.written, self.delivered, flushed, unread,
                         dropped))
            rt.check(self.written > 0 and self.delivered > 0,
                     'no TYPE1 traffic')
            rt.check(self.delivered <= self.written, 'more delivered than '
                     'written')
            rt.check(self.delivered + flushed + max(unread, dropped) >=
                     self.written, '%d written: %d delivered, %d flushed, '
                     '%d dropped unread: messages lost silently'
                     % (self.written, self.delivered, flushed,
                        max(unread, dropped)))
        ktap.run('t1_accounted', t1_accounted)

        def t2_intact():
            rt.check(self.t2_bad == 0, '%d damaged TYPE2 messages'
                     % self.t2_bad)
            rt.check(self.t2_got > 0, 'no TYPE2 message arrived')
        ktap.run('t2_intact', t2_intact)

        def netdev_kept():
            if not self.t3:
                raise rt.SkipTest(net.why)
            now = self.link()
            addrs = [x['local'] for x in now.get('addr_info', [])]
            rt.check(now['ifindex'] == self.ifindex and
                     now['mtu'] == T3_MTU and self.t3.a.ip in addrs,
                     'A netdev: %s' % now)
        ktap.run('netdev_kept', netdev_kept)

        def traffic_after():
            self.stop.clear()
            self.wait_up()
            self.stop.set()
            with t1.Chan(self.name('B'), QP) as cb, \
                    t1.Chan(self.name('A'), QP) as ca:
                for i in range(5):
                    ca.send(t1.pattern(QP, i, 5000))
                for i in range(5):
                    m = cb.recv(10, MAX_MSG)
                    rt.check(m == t1.pattern(QP, i, 5000),
                             'TYPE1 after the stress: message %d %s'
                             % (i, 'missing' if m is None else 'differs'))
            if self.t3:
                sent, got, out = self.t3.a.ping(count=3)
                rt.check(got == sent == 3, 'ping after the stress: %d/%d\n%s'
                         % (got, sent, out))
        ktap.run('traffic_after', traffic_after)

        def kernel_log_clean():
            bad = rt.kmsg_problems(rt.kmsg_since(marker), errors=False)
            rt.check(not bad, '\n'.join(bad[:10]))
        ktap.run('kernel_log_clean', kernel_log_clean)

    def cleanup(self, net_close=True):
        for s in 'AB':
            try:
                n = self.name(s, 10)
            except rt.TestFailed:
                continue
            t1.tool(['qp', 'del', 'dev', n, 'qpn', str(QP)], check=False)
            if s == 'B':
                t1.tool(['mcast', 'set', 'dev', n, 'group', str(GROUP),
                         'join', 'off'], check=False)
        if net_close and self.t3:
            a = self.t3.a
            a.nsx(['dcb', 'pfc', 'set', 'dev', a.dev, 'prio-pfc', 'all:off'],
                  check_rc=False)
            self.t3.__exit__(None, None, None)
        self.pair.cleanup()


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    try:
        st = Stress(ktap)
    except (LookupError, t1.ToolError) as e:
        ktap.skip_all(str(e))
    ktap.diag('A %s, B %s, %d s' % (st.bdf['A'], st.bdf['B'], SECONDS))
    ktap.plan(6)
    try:
        st.run()
    finally:
        st.cleanup()
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
