#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Two senders into one receiver through a congested port, with the DCQCN
loop (Documentation/congestion.rst): boards 1 and 2 of a hub
(`RCLINK_BOARDS=hub selftests/vm/run-tests.sh t1_cc_fair.py`, make
check's hub guest) each send 16 KiB messages to board 0 on a QP with
ECT(0) and cc_window 65536 ns; in front of board 0 the model's switch
port (SHIM_WIRE_QUEUE) drains at a set rate and marks CE above
MARK_BYTES.  Both senders run cc_algorithm dcqcn.  Each case sends for
SECONDS (RCLINK_CC_FAIR_SECONDS) as fast as the loops let them: the port
marks, both loops cut (cc_cuts), no packet is sent twice (retx_pkts 0),
every message arrives in order; the figures (rates, cuts, raises) go to
the output (make bench runs it for 20 s per case).

  bursts     QPs of 1gbit into a 200 Mbit/s port.  Under TCG the message
             path carries about 6 Mbit/s per sender: the marks come from
             bursts (a 16 KiB message leaves at the QP's rate); in the
             second half the senders are within a factor of two.
  saturated  QPs of 50mbit into a 4 Mbit/s port, less than either sender
             moves: the loops settle around the port's rate; in the
             second half the two deliver together between half and twice
             the port's rate, within SAT_FAIR of each other.

Skips with fewer than three boards with a link, or without devlink.
Gives the senders cc_algorithm none back.
"""

import os
import shutil
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

PORT_MBPS = 200
SAT_MBPS = 4                  # below what each sender moves under TCG
SAT_RATE = '50mbit'           # the loop's floor: speed / 64 = 0.8 Mbit/s
SAT_FAIR = 1.6
CC_WINDOW = 65536             # ns: rates in steps of 122 kbit/s
MARK_BYTES = 16384
SECONDS = float(os.environ.get('RCLINK_CC_FAIR_SECONDS', '8'))
SIZE = 16384
ECT0 = 2
QPS = (4, 8)                  # sender i's QP and the receiver's for it


class FairTest:
    def __init__(self, ktap):
        self.ktap = ktap
        self.r = None
        self.s = []
        self.saved = {}
        self.added = []
        self.reloaded = []

    def setup(self):
        if not shutil.which('devlink'):
            raise rt.SkipTest('no devlink (iproute2)')
        devs = sorted(t1.devices(), key=lambda n: int(n[len('rclink'):]))
        up = []
        for d in devs:
            with rt.Bar0(t1.bdf_of(d)) as bar:
                if bar.rfield('SHIM_LINK', 'up'):
                    up.append(d)
        if len(up) < 3:
            raise rt.SkipTest('%d boards with a link, need 3' % len(up))
        self.r, self.s = up[0], up[1:3]
        for d in [self.r] + self.s:
            self.saved[d] = t1.dev_show(d)
            if t1.qpns(d):
                raise rt.SkipTest('%s has QPs configured: in use' % d)
        for d in self.s:
            self.algo(d, 'dcqcn')
        for i, d in enumerate([self.r] + self.s):
            t1.tool(['dev', 'set', 'dev', d, 'ip', '10.200.0.%d' % (i + 1)] +
                    (['tc', ECT0, 'cc_window', CC_WINDOW]
                     if d in self.s else []))
        mr = t1.dev_show(self.r)['mac']
        for i, d in enumerate(self.s):
            q = QPS[i]
            t1.tool(['qp', 'add', 'dev', d, 'qpn', q, 'dqpn', q, 'dip',
                     '10.200.0.1', 'dmac', mr, 'rate', '1gbit'])
            self.added.append((d, q))
            t1.tool(['qp', 'add', 'dev', self.r, 'qpn', q, 'dqpn', q, 'dip',
                     '10.200.0.%d' % (i + 2), 'dmac',
                     t1.dev_show(d)['mac']])
            self.added.append((self.r, q))

    def algo(self, d, name):
        h = 'pci/' + t1.bdf_of(d)
        for args in (['dev', 'param', 'set', h, 'name', 'cc_algorithm',
                      'value', name, 'cmode', 'driverinit'],
                     ['dev', 'reload', h, 'action', 'driver_reinit']):
            p = subprocess.run(['devlink'] + args, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=60,
                               check=False)
            check(p.returncode == 0, 'devlink %s: %s' % (' '.join(args),
                                                         p.stdout.strip()))
        if name != 'none':
            self.reloaded.append(d)
        deadline = time.monotonic() + 60
        while True:
            try:
                t1.dev_show(d)
                return
            except t1.ToolError:
                check(time.monotonic() < deadline, '%s not back' % d)
                time.sleep(0.2)

    def restore(self):
        if self.r:
            with rt.Bar0(t1.bdf_of(self.r)) as bar:
                bar.write('SHIM_WIRE_QUEUE', 0)
        for d, q in reversed(self.added):
            t1.tool(['qp', 'del', 'dev', d, 'qpn', q], check=False)
        for d in self.reloaded:
            try:
                self.algo(d, 'none')
            except rt.TestFailed as e:
                self.ktap.diag('cc_algorithm back to none on %s: %s' % (d, e))
        for d, saved in self.saved.items():
            args = t1.restore_args(saved, t1.dev_show(d))
            if args:
                t1.tool(['dev', 'set', 'dev', d] + args, check=False)

    def port(self, mbps):
        with rt.Bar0(t1.bdf_of(self.r)) as bar:
            bar.write('SHIM_WIRE_QUEUE',
                      rt.fval('SHIM_WIRE_QUEUE', 'rate_mbps', mbps) |
                      rt.fval('SHIM_WIRE_QUEUE', 'mark_bytes', MARK_BYTES))
            return bar.read('SHIM_WIRE_QUEUE_MARKED')

    def stats(self):
        return [{k: int(v) for k, v in
                 t1.qp_show(d, QPS[i], stats=True)['stats'].items()
                 if str(v).isdigit()} for i, d in enumerate(self.s)]

    def run(self, mbps, rate):
        """Both senders for SECONDS at QP rate `rate` into a port of mbps:
        bytes delivered per sender in the second half, the senders' stats
        deltas, the frames marked."""
        for i, d in enumerate(self.s):
            t1.tool(['qp', 'set', 'dev', d, 'qpn', QPS[i], 'rate', rate])
        marked0 = self.port(mbps)
        st0 = self.stats()
        stop = threading.Event()
        got = [[] for _ in self.s]       # (time, bytes) per message
        errs = []
        seq = [0, 0]

        def send(i):
            try:
                with t1.Chan(self.s[i], QPS[i]) as c:
                    while not stop.is_set():
                        c.send(t1.pattern(QPS[i], seq[i], SIZE), 60)
                        seq[i] += 1
                    c.drain()
            except OSError as e:
                errs.append('sender %d: %s' % (i, e))

        def recv(i, c, k):
            while True:
                m = c.recv(5)
                if m is None:
                    if stop.is_set():
                        return
                    continue
                if m != t1.pattern(QPS[i], k, SIZE):
                    errs.append('receiver: QP %d message %d wrong'
                                % (QPS[i], k))
                    return
                got[i].append((time.monotonic(), len(m)))
                k += 1

        rcv = [t1.Chan(self.r, q) for q in QPS]
        try:
            t0 = time.monotonic()
            th = [threading.Thread(target=recv, args=(i, rcv[i], seq[i]))
                  for i in range(2)]
            th += [threading.Thread(target=send, args=(i,)) for i in range(2)]
            for t in th:
                t.start()
            time.sleep(SECONDS)
            stop.set()
            for t in th:
                t.join(180)
        finally:
            for c in rcv:
                c.close()
        check(not errs, '; '.join(errs))
        half = t0 + SECONDS / 2
        late = [sum(n for t, n in g if half <= t <= t0 + SECONDS)
                for g in got]
        st = [{k: v - a.get(k, 0) for k, v in b.items()}
              for a, b in zip(st0, self.stats())]
        now = self.stats()
        marked = self.port(mbps) - marked0
        speed = int(t1.qp_show(self.s[0], QPS[0])['speed'])
        for i in range(2):
            self.ktap.diag('sender %d: %d messages, %.2f Mbit/s in the '
                           'second half; cc_speed %d of %d, %d cuts, %d '
                           'raises, alpha %d, retx %d'
                           % (i, len(got[i]),
                              late[i] * 8 / (SECONDS / 2) / 1e6,
                              now[i]['cc_speed'], speed, st[i]['cc_cuts'],
                              st[i]['cc_raises'], now[i]['cc_alpha'],
                              st[i].get('retx_pkts', -1)))
        self.ktap.diag('port %d Mbit/s: %d frames marked CE' % (mbps,
                                                                marked))
        check(marked > 0, 'the port never marked: the senders did not '
              'exceed %d Mbit/s' % mbps)
        check(all(x['cc_cuts'] > 0 for x in st), 'a sender never cut: '
              '%s' % [x['cc_cuts'] for x in st])
        if all(t1.counted(x, 'retx_pkts') for x in st):
            check(all(x['retx_pkts'] == 0 for x in st), 'retransmissions: '
                  '%s' % [x['retx_pkts'] for x in st])
        else:
            t1.not_counted(self.ktap, 'no retransmission', ('retx_pkts',))
        return late

    def test_bursts(self):
        late = self.run(PORT_MBPS, '1gbit')
        check(min(late) > 0 and max(late) <= 2 * min(late), 'unfair: %s '
              'bytes in the second half' % late)

    def test_saturated(self):
        late = self.run(SAT_MBPS, SAT_RATE)
        mbit = [n * 8 / (SECONDS / 2) / 1e6 for n in late]
        self.ktap.diag('second half: %.2f + %.2f Mbit/s into a port of %d'
                       % (mbit[0], mbit[1], SAT_MBPS))
        check(min(mbit) > 0 and max(mbit) <= SAT_FAIR * min(mbit),
              'unfair: %.2f and %.2f Mbit/s' % tuple(mbit))
        check(SAT_MBPS / 2 <= sum(mbit) <= SAT_MBPS * 2,
              'the loops did not settle near the port rate: %.2f Mbit/s in '
              'all' % sum(mbit))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = FairTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('bursts', t.test_bursts),
                                 ('saturated', t.test_saturated)),
                  't1_cc_fair')


if __name__ == '__main__':
    main()
