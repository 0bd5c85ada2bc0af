#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""What a peer can make the receiving driver allocate (Documentation/
driver.rst, "Receive limits"): a message's FIRST segment carries its
MSG_LEN, and the driver allocates that much to reassemble it.  The messages
being reassembled on a board are bounded (debugfs t1_rx_partial_max, 16 MiB
by default); a FIRST beyond the bound drops its message, counted.

  partial_budget  with B's bound at 4096 bytes: A's 4000-byte message
                  arrives; an 8000-byte one is refused by B (debugfs t1
                  rx_drop_partial +1, the QP's rx_flushed +1), nothing
                  arrives; a 100-byte one after it arrives (the QP goes on);
                  with the bound back at its default the 8000-byte message
                  arrives; B's rx_partial_bytes is 0 when idle
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

DEFAULT_MAX = 16 << 20


class LimitTest(t1.PairTest):
    QA, QB = 31, 47
    IP_A, IP_B = '10.198.0.1', '10.198.0.2'

    def setup(self):
        super().setup()
        self.bdf_b = t1.bdf_of(self.b)
        self.add_qps()

    def dbg_t1(self):
        with open(rt.dbg_path(self.bdf_b, 't1'), encoding='ascii') as f:
            return {k: int(v) for k, _, v in
                    (line.strip().partition(' ') for line in f)
                    if v.lstrip('-').isdigit()}

    def set_max(self, n):
        rt.sysfs_write(rt.dbg_path(self.bdf_b, 't1_rx_partial_max'), n)

    def qp_flushed(self):
        return int(t1.qp_show(self.b, self.QB, stats=True)['stats']
                   ['rx_flushed'])

    def restore(self):
        try:
            self.set_max(DEFAULT_MAX)
        except OSError:
            pass
        super().restore()

    def test_partial_budget(self):
        d0 = self.dbg_t1()
        check(d0.get('rx_partial_max') == DEFAULT_MAX,
              'rx_partial_max %s, want %d by default'
              % (d0.get('rx_partial_max'), DEFAULT_MAX))
        f0 = self.qp_flushed()
        self.set_max(4096)
        with t1.Chan(self.b, self.QB) as cb, t1.Chan(self.a, self.QA) as ca:
            for seq, size, arrives in ((0, 4000, True), (1, 8000, False),
                                       (2, 100, True)):
                ca.send(t1.pattern(self.QA, seq, size))
                ca.drain()
                m = cb.recv(2.0 if arrives else 1.0)
                if arrives:
                    check(m == t1.pattern(self.QA, seq, size),
                          'message %d (%d bytes) %s' % (
                              seq, size, 'missing' if m is None
                              else 'differs'))
                else:
                    check(m is None, 'the %d-byte message arrived over a '
                          'bound of 4096' % size)
            d1 = self.dbg_t1()
            check(d1['rx_drop_partial'] - d0['rx_drop_partial'] == 1,
                  'rx_drop_partial %+d, want +1'
                  % (d1['rx_drop_partial'] - d0['rx_drop_partial']))
            check(self.qp_flushed() - f0 == 1, "the QP's rx_flushed %+d, "
                  'want +1' % (self.qp_flushed() - f0))
            self.set_max(DEFAULT_MAX)
            ca.send(t1.pattern(self.QA, 3, 8000))
            ca.drain()
            m = cb.recv(2.0)
            check(m == t1.pattern(self.QA, 3, 8000), 'the 8000-byte message '
                  'with the default bound: %s'
                  % ('missing' if m is None else 'differs'))
        d2 = self.dbg_t1()
        check(d2['rx_partial_bytes'] == 0, 'rx_partial_bytes %d when idle'
              % d2['rx_partial_bytes'])
        self.ktap.diag('B: rx_drop_partial %d, rx_partial_bytes %d'
                       % (d2['rx_drop_partial'], d2['rx_partial_bytes']))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = LimitTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('partial_budget', t.test_partial_budget),),
                  't1_rx_limits')


if __name__ == '__main__':
    main()
