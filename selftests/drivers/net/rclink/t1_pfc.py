#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""PFC of the IP (seed 000, PFC / RX 方向反压; Documentation/hw/shim.rst
"PFC and Pause of the MAC", Documentation/flow-control.rst) between the
boards of a pair, in the default flow_control pfc, with `dcb pfc set ...
prio-pfc P:on` on both for P, the priority of the TYPE1 flows (dev show
vlan_pri):

  ip_enables    the driver gives the IP the priorities dcb enabled: the
                flows on P obey a pause of P (XON_THR_RDMA.rx_*_pfc_en),
                keep what the host has no room for and ask for XOFF of P
                (tx_*_pfc_en), with XON/XOFF thresholds; the MAC repeats a
                held XOFF before it runs out (TX_FC_HOLD_QUANTA below
                TX_FC_QUANTA) from the board's own address (TX_FC_SADDR);
                `prio-pfc all:off` clears it all
  incast        two QPs of A send into two QPs of B whose readers do not
                read: B's receive buffer of P fills past the XOFF
                threshold, B's MAC sends XOFF for P and repeats it (its
                SHIM_PFC_TX[P]), A receives them (SHIM_PFC_RX[P]) and
                stops; nothing is dropped for want of a buffer
                (rx_drop_nobuf); then B reads: every message arrives in
                order, B sends XON, A is no longer paused.  Data the
                buffer had no room for (an XOFF refresh late: pauses last
                at most 335 us, a TCG host can stall longer) is counted
                (SHIM_CBFC_RX_DROP) and retransmitted, not lost.
                Skipped where B does not see its receive buffer
                (SHIM_CBFC_RX_BUF, SHIM_CAP3.ip_counters 0).
  bank_tc       a bank's own Traffic Class in pfc mode: `bank 2 tc 0x2a`
                sets TRAFFIC_CLASS.type1_req_tc_bank2 only (dev show's
                banks, no VC: the VC fields hold the priority); `tc` sets
                every bank again
"""

import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413
import t1_cbfc as tc  # noqa: E402  pylint: disable=wrong-import-position

FLOWS_RDMA = ('type1_req_bank0', 'type1_req_bank1', 'type1_req_bank2',
              'type1_req_bank3')
N = 60


def dcb_pfc(nd, arg):
    p = subprocess.run(['dcb', 'pfc', 'set', 'dev', nd, 'prio-pfc', arg],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=30, check=False)
    check(p.returncode == 0, 'dcb pfc set dev %s prio-pfc %s: %s'
          % (nd, arg, p.stdout.strip()))


class PfcTest(tc.CbfcTest):
    """CbfcTest's pair and QPs, left in flow_control pfc."""

    def __init__(self, ktap):
        super().__init__(ktap)
        self.nd = {}
        self.prio = 0

    def setup(self):
        if not shutil.which('dcb') or not shutil.which('devlink'):
            raise rt.SkipTest('no dcb or devlink (iproute2)')
        a, b = t1.pick_pair()
        for d in (a, b):
            if t1.qpns(d):
                raise LookupError('%s has QPs configured: in use' % d)
            if t1.devlink_param(d, 'flow_control') != 'pfc':
                raise rt.SkipTest('%s is not in flow_control pfc' % d)
        rq = t1.devlink_param(b, 'type1_rq_size')
        self.changed = [(b, [('type1_rq_size', rq)])]
        self.reload(b, [('type1_rq_size', tc.RQ_SMALL)])
        t1.PairTest.setup(self)
        for d in (self.a, self.b):
            self.bar[d] = rt.Bar0(t1.bdf_of(d))
            self.nd[d] = rt.netdev_of(t1.bdf_of(d))
            if not self.nd[d]:
                raise rt.SkipTest('%s has no netdev in this namespace' % d)
        self.prio = int(t1.dev_show(self.a).get('vlan_pri', 0))
        for d in (self.a, self.b):
            dcb_pfc(self.nd[d], '%d:on' % self.prio)
        self.add_qps()
        self.add_second()

    def restore(self):
        for nd in self.nd.values():
            subprocess.run(['dcb', 'pfc', 'set', 'dev', nd, 'prio-pfc',
                            'all:off'], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30, check=False)
        super().restore()

    def xon(self, dev):
        return tc.fields('XON_THR_RDMA', self.reg(dev, 'XON_THR_RDMA'))

    def test_ip_enables(self):
        for d in (self.a, self.b):
            x = self.xon(d)
            en = {k: v for k, v in x.items() if k.endswith('_pfc_en')}
            want = ['%s_%s_pfc_en' % (side, f) for side in ('rx', 'tx')
                    for f in FLOWS_RDMA]
            self.ktap.diag('%s: %s, xon %d xoff %d' % (d, sorted(
                k for k, v in en.items() if v), x['xon_thr_rdma'],
                x['xoff_thr_rdma']))
            check(all(en[k] for k in want), '%s: PFC enables %s' % (d, en))
            check(0 < x['xon_thr_rdma'] < x['xoff_thr_rdma'],
                  '%s: thresholds xon %d xoff %d' % (d, x['xon_thr_rdma'],
                                                      x['xoff_thr_rdma']))
            hold = self.reg(d, 'TX_FC_HOLD_QUANTA', self.prio)
            quanta = self.reg(d, 'TX_FC_QUANTA', self.prio)
            check(0 < hold < quanta, '%s: hold quanta %d, quanta %d'
                  % (d, hold, quanta))
            mac = self.reg(d, 'SHIM_MAC') & (1 << 48) - 1
            sa = (self.reg(d, 'TX_FC_SADDR_HI') << 32 |
                  self.reg(d, 'TX_FC_SADDR_LO'))
            check(sa == mac, '%s: TX_FC_SADDR %012x, SHIM_MAC %012x'
                  % (d, sa, mac))
        dcb_pfc(self.nd[self.a], 'all:off')
        x = self.xon(self.a)
        left = [k for k, v in x.items() if k.endswith('_pfc_en') and v]
        dcb_pfc(self.nd[self.a], '%d:on' % self.prio)
        check(not left, 'after all:off: %s' % left)

    def test_incast(self):
        if not self.b_buf():
            raise rt.SkipTest('%s does not see its receive buffer '
                              '(SHIM_CAP3.ip_counters 0): this case '
                              'watches SHIM_CBFC_RX_BUF' % self.b)
        p = self.prio
        tx0 = self.reg(self.b, 'SHIM_PFC_TX', p)
        rx0 = self.reg(self.a, 'SHIM_PFC_RX', p)
        drop0 = self.dev_stat(self.b, 'rx_drop_nobuf')
        vdrop0 = self.reg(self.b, 'SHIM_CBFC_RX_DROP', p)
        xoff = self.xon(self.b)['xoff_thr_rdma']
        self.set_queued_max(self.b, 0)
        sent = {tc.QA: 0, tc.QA2: 0}
        try:
            with t1.Chan(self.a, tc.QA, nonblock=True) as ca, \
                    t1.Chan(self.a, tc.QA2, nonblock=True) as ca2, \
                    t1.Chan(self.b, tc.QB) as cb, \
                    t1.Chan(self.b, tc.QB2) as cb2:
                for i in range(N):
                    for q, ch in ((tc.QA, ca), (tc.QA2, ca2)):
                        try:
                            ch.write(t1.pattern(q, i, tc.SIZE))
                            sent[q] += 1
                        except BlockingIOError:
                            pass
                tc.wait_for('B holding %d words' % xoff,
                            lambda: self.reg(self.b, 'SHIM_CBFC_RX_BUF',
                                             p) >= xoff)
                tc.wait_for('XOFF repeated',
                            lambda: self.reg(self.b, 'SHIM_PFC_TX', p) -
                            tx0 >= 3)
                held = self.reg(self.b, 'SHIM_CBFC_RX_BUF', p)
                xoffs = self.reg(self.b, 'SHIM_PFC_TX', p) - tx0
                got = self.reg(self.a, 'SHIM_PFC_RX', p) - rx0
                self.ktap.diag('stalled: %s written, B holds %d words '
                               '(XOFF at %d), B sent %d PFC frames, A got %d'
                               % (sent, held, xoff, xoffs, got))
                check(got >= 1, 'A received no XOFF')
                self.restore_queued_max(self.b)
                for q, ch in ((tc.QA, cb), (tc.QA2, cb2)):
                    for i in range(sent[q]):
                        m = ch.recv(tc.WAIT)
                        check(m == t1.pattern(q, i, tc.SIZE),
                              'QP %d message %d of %d: %r'
                              % (q, i, sent[q], None if m is None else m[:12]))
                ca.drain()
                ca2.drain()
        finally:
            self.restore_queued_max(self.b)
        tc.wait_for('A no longer paused',
                    lambda: not self.reg(self.a, 'SHIM_PFC_PAUSED') >> p & 1)
        drop = self.dev_stat(self.b, 'rx_drop_nobuf') - drop0
        vdrop = self.reg(self.b, 'SHIM_CBFC_RX_DROP', p) - vdrop0
        retx = [self.retx(self.a, q) for q in (tc.QA, tc.QA2)]
        self.ktap.diag('after: B holds %d, rx_drop_nobuf +%d, buffer full '
                       '+%d, retransmitted %s' %
                       (self.reg(self.b, 'SHIM_CBFC_RX_BUF', p), drop, vdrop,
                        retx))
        check(drop == 0, '%d frames dropped for want of a buffer' % drop)
        check(self.reg(self.b, 'SHIM_CBFC_RX_BUF', p) == 0,
              'B still holds data')

    def test_bank_tc(self):
        d = self.a
        tc0 = int(t1.dev_show(d)['tc'])
        other = 0x2a if tc0 != 0x2a else 0x2b
        t1.tool(['dev', 'set', 'dev', d, 'bank', '2', 'tc', str(other)])
        try:
            got = {n: v[0] for n, v in self.bank_regs(d).items()}
            shown = self.banks(d)
            self.ktap.diag('banks: TRAFFIC_CLASS %s, dev show %s'
                           % (got, shown))
            want = {0: tc0, 1: tc0, 2: other, 3: tc0}
            check(got == want, 'TRAFFIC_CLASS banks %s, want %s'
                  % (got, want))
            check(shown == {n: (v, None) for n, v in want.items()},
                  'dev show banks %s' % shown)
            pri = {n: v[1] for n, v in self.bank_regs(d).items()}
            check(set(pri.values()) == {self.prio},
                  'the banks\' priorities %s, want %d' % (pri, self.prio))
        finally:
            t1.tool(['dev', 'set', 'dev', d, 'tc', str(tc0)], check=False)
        got = {n: v[0] for n, v in self.bank_regs(d).items()}
        check(set(got.values()) == {tc0}, 'tc %d: banks %s' % (tc0, got))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = PfcTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('ip_enables', t.test_ip_enables),
                                 ('incast', t.test_incast),
                                 ('bank_tc', t.test_bank_tc)), 't1_pfc')


if __name__ == '__main__':
    main()
