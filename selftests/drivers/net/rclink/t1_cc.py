#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The congestion-control loop on ECN/CNP (Documentation/congestion.rst)
between the boards of a pair.  A's QP 2 sends to B's QP 6 at 10gbit (5120
bytes per CC window) with the Traffic Class ECT(0); A's wire marks its
frames CE (SHIM_WIRE_FAULT_ECN, the model's congested switch), B answers
each with a CNP.

  cnp_monitor   `rclink monitor` prints a qp-cnp notification for A's QP
  loop_off      cc_algorithm none (the default): the CNPs are counted
                (qp show -s: ecn_rx on B, cnp_rx and cnp on A) and the QP's
                cc_speed stays its speed
  dcqcn_cut     after `devlink dev param set ... cc_algorithm dcqcn` and a
                reload of A: CNPs cut cc_speed below the speed, not below
                speed / 64, alpha rises; nothing is lost
  dcqcn_recover the marking off, traffic going on: NOCNP records raise
                cc_speed back to the speed, alpha falls
  retry_tmo     A's wire loses every frame: each expiry of the QP's retry
                timer is a RETRY_TMO record (RETRY_TMO_VLD_O/QPID_O): A's
                qp show -s retry_tmo rises, one qp-retry-tmo line of
                `rclink monitor` each, and the board's timeouts count them
                and the expiry that made the QP fatal
  Every message arrives, in order (but the one retry_tmo loses).  A gets
  cc_algorithm none back.
"""

import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

QA, QB = 2, 6
IP_A, IP_B = '10.199.0.1', '10.199.0.2'
ECT0 = 2
SIZE = 2000
WAIT = 60


class CcTest(t1.PairTest):
    QA, QB, IP_A, IP_B = QA, QB, IP_A, IP_B

    def __init__(self, ktap):
        super().__init__(ktap)
        self.algo_changed = False
        self.sent = self.got = 0
        self.low = None

    def setup(self):
        if not shutil.which('devlink'):
            raise rt.SkipTest('no devlink (iproute2)')
        super().setup()
        self.configure()

    def configure(self):
        self.set_ips()
        t1.tool(['dev', 'set', 'dev', self.a, 'tc', ECT0])
        self.add_qps('rate', '10gbit')
        self.sent = self.got = 0

    def dl(self, *args):
        p = subprocess.run(['devlink'] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True,
                           timeout=60, check=False)
        check(p.returncode == 0, 'devlink %s: %s' % (' '.join(args),
                                                     p.stdout.strip()))

    def set_algo(self, algo):
        """cc_algorithm of A, applied by a reload (which drops A's QPs and
        configuration: set up again)."""
        self.del_qps()
        h = 'pci/' + t1.bdf_of(self.a)
        self.dl('dev', 'param', 'set', h, 'name', 'cc_algorithm', 'value',
                algo, 'cmode', 'driverinit')
        self.algo_changed = algo != 'none'
        self.dl('dev', 'reload', h, 'action', 'driver_reinit')
        deadline = time.monotonic() + WAIT
        while True:
            try:
                t1.dev_show(self.a)
                break
            except t1.ToolError:
                check(time.monotonic() < deadline, '%s not back after the '
                      'reload' % self.a)
                time.sleep(0.2)
        self.configure()

    def restore(self):
        self.mark(0)
        self.loss(0)
        self.del_qps()
        if self.algo_changed:
            try:
                self.set_algo('none')
                self.del_qps()
            except (rt.TestFailed, t1.ToolError) as e:
                self.ktap.diag('restoring cc_algorithm: %s' % e)
        super().restore()

    def mark(self, ppm):
        if self.a:
            with rt.Bar0(t1.bdf_of(self.a)) as bar:
                bar.write('SHIM_WIRE_FAULT_ECN', ppm)

    def stats(self, dev, qpn):
        return {k: int(v) for k, v in
                t1.qp_show(dev, qpn, stats=True)['stats'].items()
                if isinstance(v, (int, str)) and str(v).isdigit()}

    def traffic(self, n):
        """n messages A->B, each checked on arrival."""
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            for _ in range(n):
                m = t1.pattern(QA, self.sent, SIZE)
                check(ca.send(m, WAIT) == len(m), 'short write')
                self.sent += 1
                got = cb.recv(WAIT)
                check(got == t1.pattern(QA, self.got, SIZE),
                      'message %d: %r' % (self.got,
                                          None if got is None else got[:12]))
                self.got += 1
            ca.drain()

    @staticmethod
    def monitor():
        """`rclink monitor` in the background; its output at terminate."""
        return subprocess.Popen([t1.tool_path(), 'monitor'],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                universal_newlines=True)

    def test_cnp_monitor(self):
        mon = self.monitor()
        try:
            time.sleep(0.5)
            self.mark(1000000)
            self.traffic(3)
            self.mark(0)
            time.sleep(0.5)
        finally:
            mon.terminate()
            out = mon.communicate(timeout=10)[0]
        want = 'qp-cnp dev %s qpn %d' % (self.a, QA)
        self.ktap.diag('monitor: %s' % ' | '.join(out.splitlines()[:3]))
        check(want in out, 'no "%s" from rclink monitor: %r'
              % (want, out[:300]))

    def loss(self, ppm):
        if self.a:
            with rt.Bar0(t1.bdf_of(self.a)) as bar:
                bar.write('SHIM_WIRE_FAULT_RATE0',
                          rt.fval('SHIM_WIRE_FAULT_RATE0', 'loss_ppm', ppm))

    def test_retry_tmo(self):
        a0 = self.stats(self.a, QA)
        mon = self.monitor()
        try:
            time.sleep(0.5)
            self.loss(1000000)
            with t1.Chan(self.a, QA) as ca:
                m = t1.pattern(QA, 0, SIZE)
                check(ca.send(m, WAIT) == len(m), 'short write')
                deadline = time.monotonic() + WAIT
                while self.stats(self.a, QA)['fatal'] == a0['fatal']:
                    check(time.monotonic() < deadline, 'QP %d not fatal '
                          'with every frame lost' % QA)
                    time.sleep(0.05)
            self.loss(0)
            time.sleep(0.5)
        finally:
            self.loss(0)
            mon.terminate()
            out = mon.communicate(timeout=10)[0]
        a1 = self.stats(self.a, QA)
        d = {k: a1[k] - a0[k] for k in ('retry_tmo', 'timeouts', 'fatal')}
        line = 'qp-retry-tmo dev %s qpn %d' % (self.a, QA)
        lines = out.splitlines().count(line)
        self.ktap.diag('peer unreachable: %s, %d "%s" lines' % (d, lines,
                                                               line))
        check(d['retry_tmo'] >= 1, 'no RETRY_TMO record: %s' % d)
        check(lines == d['retry_tmo'], '%d monitor lines for %d RETRY_TMO '
              'records: %r' % (lines, d['retry_tmo'], out[:300]))
        check(d['timeouts'] == d['retry_tmo'] + d['fatal'], 'the board '
              'counted %d timeouts: %d RETRY_TMO records and %d fatal'
              % (d['timeouts'], d['retry_tmo'], d['fatal']))
        self.configure()        # both ends of the pair set up again

    def test_loop_off(self):
        a0, b0 = self.stats(self.a, QA), self.stats(self.b, QB)
        self.mark(1000000)
        self.traffic(20)
        self.mark(0)
        time.sleep(0.2)
        a1, b1 = self.stats(self.a, QA), self.stats(self.b, QB)
        speed = int(t1.qp_show(self.a, QA)['speed'])
        d = {'A cnp': a1['cnp'] - a0['cnp']}
        hw_cnt = t1.counted(b1, 'ecn_rx') and t1.counted(a1, 'cnp_rx')
        if hw_cnt:
            d['B ecn_rx'] = b1['ecn_rx'] - b0['ecn_rx']
            d['A cnp_rx'] = a1['cnp_rx'] - a0['cnp_rx']
        self.ktap.diag('cc_algorithm none: %s, cc_speed %d of %d, cuts %d'
                       % (d, a1['cc_speed'], speed, a1['cc_cuts']))
        if hw_cnt:
            check(d['B ecn_rx'] >= 20 and d['A cnp_rx'] == d['B ecn_rx'] and
                  d['A cnp'] == d['A cnp_rx'], 'CNP counts %s' % d)
        else:
            t1.not_counted(self.ktap, 'B ecn_rx == A cnp_rx == A cnp',
                           ('ecn_rx', 'cnp_rx'))
            check(d['A cnp'] >= 20, 'CNP counts %s' % d)
        check(a1['cc_speed'] == speed and a1['cc_cuts'] == 0,
              'cc_speed %d (speed %d), %d cuts without the loop'
              % (a1['cc_speed'], speed, a1['cc_cuts']))

    def test_dcqcn_cut(self):
        self.set_algo('dcqcn')
        speed = int(t1.qp_show(self.a, QA)['speed'])
        self.mark(1000000)
        self.traffic(40)
        self.mark(0)
        time.sleep(0.2)
        st = self.stats(self.a, QA)
        self.ktap.diag('dcqcn under CNPs: cc_speed %d of %d, alpha %d, '
                       '%d cuts, %d CNPs' % (st['cc_speed'], speed,
                                             st['cc_alpha'], st['cc_cuts'],
                                             st['cnp']))
        check(st['cc_cuts'] > 0 and st['cc_speed'] < speed,
              'no cut: cc_speed %d of %d, %d cuts' % (st['cc_speed'], speed,
                                                      st['cc_cuts']))
        check(st['cc_speed'] >= max(speed >> 6, 1), 'cc_speed %d below '
              'speed / 64' % st['cc_speed'])
        self.low = st

    def test_dcqcn_recover(self):
        speed = int(t1.qp_show(self.a, QA)['speed'])
        deadline = time.monotonic() + WAIT
        while True:
            self.traffic(20)
            st = self.stats(self.a, QA)
            if st['cc_speed'] == speed:
                break
            check(time.monotonic() < deadline, 'cc_speed %d of %d after '
                  '%d s of traffic without CNPs (%d raises)'
                  % (st['cc_speed'], speed, WAIT, st['cc_raises']))
        self.ktap.diag('recovered: cc_speed %d, alpha %d, %d raises, %d '
                       'NOCNP records' % (st['cc_speed'], st['cc_alpha'],
                                          st['cc_raises'],
                                          st['nocnp_reports']))
        check(st['cc_raises'] > 0 and st['cc_alpha'] < self.low['cc_alpha'],
              'raises %d, alpha %d (was %d)' % (st['cc_raises'],
                                               st['cc_alpha'],
                                               self.low['cc_alpha']))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = CcTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('cnp_monitor', t.test_cnp_monitor),
                                 ('loop_off', t.test_loop_off),
                                 ('dcqcn_cut', t.test_dcqcn_cut),
                                 ('dcqcn_recover', t.test_dcqcn_recover),
                                 ('retry_tmo', t.test_retry_tmo)),
                  't1_cc')


if __name__ == '__main__':
    main()
