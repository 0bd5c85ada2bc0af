#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE1 arbitration (seed 000, TYPE1 发送仲裁, Bank 轮转机制) on the wire of
the pair: QPs 4 (bank 0) and 5 (bank 1) of board A each get 6 messages
while A's link is held down (SHIM_LINK.force_down), so that all 12 packets
wait for the grant; then the link comes up and the order of the REQs on
the wire ($RCLINK_RESULTS/wire.pcap, or $RCLINK_WIRE_PCAP) is checked:

  fifo       bank_rr off: entry order, QP 4's six then QP 5's six
  bank_rr    bank_rr on: the banks take turns, 4 5 4 5 ...; a bank alone
             (QP 4 only) still sends everything (the mask does not apply)

Every message arrives intact at B either way.

  dfx        the IP's DFX levels in `rclink -s dev show` (DMAQ_DFX,
             DMAQ_T1_OST_FREE): with the 12 packets held, t1_ost_free is
             12 below TYPE1_OST_N and tx_idle 0; once all are acknowledged,
             t1_ost_free is back at TYPE1_OST_N and tx_idle 1; rx_idle and
             tx_mac_free 1, tx_wait_mac_crd 0 throughout (the model's wire
             takes a frame at once)
"""

import os
import struct
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
sys.path.insert(0, HERE)
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
import rclink_wire as rw  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413
import t1_wire as tw  # noqa: E402  pylint: disable=wrong-import-position

Q0, Q1 = 4, 5
IP_A, IP_B = '10.196.0.1', '10.196.0.2'
SPORT = {Q0: 51004, Q1: 51005}
N = 6


class ArbTest:
    def __init__(self, ktap, pcap):
        self.ktap = ktap
        self.pcap = pcap
        self.a = self.b = None
        self.saved = {}
        self.added = []
        self.dfx = []               # (t1_ost_free, tx_idle, ...) samples

    def setup(self):
        self.a, self.b = t1.pick_pair()
        for d in (self.a, self.b):
            self.saved[d] = t1.dev_show(d)
            if t1.qpns(d):
                raise rt.SkipTest('%s has QPs configured: in use' % d)
        t1.tool(['dev', 'set', 'dev', self.a, 'ip', IP_A])
        t1.tool(['dev', 'set', 'dev', self.b, 'ip', IP_B])
        ma, mb = (t1.dev_show(d)['mac'] for d in (self.a, self.b))
        for q in (Q0, Q1):
            t1.tool(['qp', 'add', 'dev', self.a, 'qpn', q, 'dqpn', q, 'dip',
                     IP_B, 'dmac', mb, 'sport', SPORT[q]])
            self.added.append((self.a, q))
            t1.tool(['qp', 'add', 'dev', self.b, 'qpn', q, 'dqpn', q, 'dip',
                     IP_A, 'dmac', ma])
            self.added.append((self.b, q))

    def restore(self):
        if self.a:
            with rw.Wire(self.a) as w:
                w.off()
        for d, q in reversed(self.added):
            t1.tool(['qp', 'del', 'dev', d, 'qpn', q], check=False)
        for d, saved in self.saved.items():
            args = t1.restore_args(saved, t1.dev_show(d))
            if args:
                t1.tool(['dev', 'set', 'dev', d] + args, check=False)

    def order(self, qps, rr):
        """The QPs of A's first transmissions, in wire order, when each of
        qps gets N messages while the link is down."""
        t1.tool(['dev', 'set', 'dev', self.a, 'bank_rr', 'on' if rr else
                 'off'])
        size0 = os.path.getsize(self.pcap)
        msgs = {q: [t1.pattern(q, k, 100 + k) for k in range(N)]
                for q in qps}
        send = {q: t1.Chan(self.a, q) for q in qps}
        recv = {q: t1.Chan(self.b, q) for q in qps}
        try:
            with rw.Wire(self.a) as w:
                check(w.link(False), 'link down')
                for q in qps:
                    for m in msgs[q]:
                        check(send[q].send(m) == len(m), 'short write')
                time.sleep(0.5)         # the engine cuts them into slots
                self.dfx_sample()
                check(w.link(True), 'the link did not come back')
            for q in qps:
                for k, m in enumerate(msgs[q]):
                    got = recv[q].recv(10)
                    check(got == m, 'QP %d message %d: %r' % (
                        q, k, None if got is None else len(got)))
                send[q].drain()
            self.dfx_sample()
        finally:
            for ch in list(send.values()) + list(recv.values()):
                ch.close()
        seen, seq = set(), []
        for _ in range(20):
            recs, _ = tw.pcap_records(self.pcap, size0)
            seen, seq = set(), []
            for _, d in recs:
                q = self.req_qp(d)
                if q is None:
                    continue
                psn = struct.unpack('>Q', d[42:50])[0] >> 13 & 0xfff
                if (q, psn) not in seen:
                    seen.add((q, psn))
                    seq.append(q)
            if len(seq) >= N * len(qps):
                break
            time.sleep(0.5)
        self.ktap.diag('bank_rr %s: %s' % ('on' if rr else 'off',
                                           ' '.join(map(str, seq))))
        return seq

    def dfx_sample(self):
        st = t1.dev_show(self.a, stats=True)
        st = dict(st, **st.get('stats', {}))
        self.dfx.append({k: st.get(k) for k in (
            'ost', 't1_ost_free', 'tx_idle', 'rx_idle', 'tx_wait_mac_crd',
            'tx_mac_free')})

    @staticmethod
    def req_qp(d):
        """The source QP of a Standard REQ of A (by its UDP source port)."""
        if len(d) < 50 or d[12:14] != b'\x08\x00' or d[23] != 17:
            return None
        sport, dport = struct.unpack('>HH', d[34:38])
        if dport != tw.UDP_PORT or sport not in SPORT.values():
            return None
        if struct.unpack('>Q', d[42:50])[0] >> 62 != 0:
            return None                 # an ACK
        return sport - 51000

    def test_fifo(self):
        seq = self.order((Q0, Q1), False)
        check(seq == [Q0] * N + [Q1] * N, 'bank_rr off: %s, want QP %d six '
              'times then QP %d six times' % (seq, Q0, Q1))

    def test_bank_rr(self):
        seq = self.order((Q0, Q1), True)
        check(seq == [Q0, Q1] * N, 'bank_rr on: %s, want %d and %d taking '
              'turns' % (seq, Q0, Q1))
        seq = self.order((Q0,), True)
        check(seq == [Q0] * N, 'bank_rr on, one bank: %s' % seq)

    def test_dfx(self):
        self.dfx = []
        self.order((Q0, Q1), False)
        check(len(self.dfx) == 2, 'DFX samples: %s' % self.dfx)
        held, done = self.dfx
        self.ktap.diag('held: %s' % held)
        self.ktap.diag('done: %s' % done)
        ost = held['ost']
        check(isinstance(ost, int) and ost > 2 * N, 'ost %r' % ost)
        for name, d in (('held', held), ('done', done)):
            for k, want in (('rx_idle', 1), ('tx_mac_free', 1),
                            ('tx_wait_mac_crd', 0)):
                check(d[k] == want, '%s: %s %r, want %d' % (name, k, d[k],
                                                             want))
        check(held['t1_ost_free'] == ost - 2 * N and held['tx_idle'] == 0,
              'link held down with %d packets: t1_ost_free %r tx_idle %r, '
              'want %d and 0' % (2 * N, held['t1_ost_free'], held['tx_idle'],
                                 ost - 2 * N))
        check(done['t1_ost_free'] == ost and done['tx_idle'] == 1,
              'all acknowledged: t1_ost_free %r tx_idle %r, want %d and 1'
              % (done['t1_ost_free'], done['tx_idle'], ost))


def main():
    ktap = rt.Ktap()
    mod, t = tw.start_pair_test(ktap, ArbTest)
    rt.run_object(ktap, mod, t, (('fifo', t.test_fifo),
                   ('bank_rr', t.test_bank_rr), ('dfx', t.test_dfx)),
                  't1_arb')


if __name__ == '__main__':
    main()
