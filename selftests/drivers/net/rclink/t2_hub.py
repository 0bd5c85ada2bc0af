#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE2 multicast with three or more boards on one wire that floods (a
QEMU hub: `RCLINK_BOARDS=hub selftests/vm/run-tests.sh t2_hub.py`, make
check-hub; on hardware, boards on one switch):

  members      board 0 sends N messages to group 2; every other board but
               the last has joined it and reads all N, in order, intact;
               the last has not: it reads nothing and counts N frames in
               t2_rx_drop_nogroup
  two_senders  board 1 sends too: each member gets both senders' messages,
               each sender's in its order, and a sender not its own
  loss         20 % loss on board 0's wire: on every member what arrived
               plus its t2_rx_lost is N, exactly

Skips with fewer than three boards with a link (SHIM_LINK.up).  Leaves the groups as found.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
import rclink_wire as rw  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

BIND_MCAST = 1
G = 2
N = 20


class HubTest:
    def __init__(self, ktap):
        self.ktap = ktap
        self.devs = []
        self.saved = {}
        self.chans = {}

    def setup(self):
        self.devs = []
        for d in sorted(t1.devices(), key=lambda d: int(d[6:])):
            with rt.Bar0(t1.bdf_of(d)) as bar:
                if bar.rfield('SHIM_LINK', 'up'):
                    self.devs.append(d)
        if len(self.devs) < 3:
            raise rt.SkipTest('%d boards with a link: three or more on one '
                              'wire needed' % len(self.devs))
        for d in self.devs:
            grp = t1.tool_json(['mcast', 'show', 'dev', d, 'group', G])[0]
            self.saved[d] = grp['join'] in (True, 'on', 1)
            on = d != self.devs[-1]
            t1.tool(['mcast', 'set', 'dev', d, 'group', G, 'join',
                     'on' if on else 'off'])
            ch = t1.Chan(d)
            ch.bind(G, BIND_MCAST)
            self.chans[d] = ch
        self.ktap.diag('%d boards; members %s, not %s'
                       % (len(self.devs), ' '.join(self.devs[:-1]),
                          self.devs[-1]))

    def restore(self):
        for ch in self.chans.values():
            ch.close()
        for d, on in self.saved.items():
            t1.tool(['mcast', 'set', 'dev', d, 'group', G, 'join',
                     'on' if on else 'off'], check=False)
        if self.devs:
            with rw.Wire(self.devs[0]) as w:
                w.off()

    @staticmethod
    def t2(d):
        st = t1.dev_show(d, stats=True)['stats']
        return {k: int(v) for k, v in st.items() if k.startswith('t2_')}

    def receive_all(self, d, want, marker=None):
        """Messages d reads until it has len(want) (or the marker)."""
        got = []
        while len(got) < len(want) or marker:
            m = self.chans[d].recv(10)
            if m is None:
                break
            if m == marker:
                break
            got.append(m)
        return got

    def send(self, d, msgs):
        ch = self.chans[d]
        for m in msgs:
            check(ch.send(m) == len(m), 'short write')
        ch.drain()

    def test_members(self):
        src, last = self.devs[0], self.devs[-1]
        msgs = [t1.pattern(G, k, 64 + 37 * k) for k in range(N)]
        before = {d: self.t2(d) for d in self.devs}
        self.send(src, msgs)
        for d in self.devs[1:-1]:
            got = self.receive_all(d, msgs)
            check(got == msgs, '%s: %d of %d messages, %s' % (
                d, len(got), N, 'in order' if got == msgs[:len(got)]
                else 'out of order or damaged'))
        check(self.chans[last].recv(1.0) is None,
              '%s received without joining' % last)
        d = self.t2(last)
        check(d['t2_rx_drop_nogroup'] - before[last]['t2_rx_drop_nogroup']
              == N, '%s: t2_rx_drop_nogroup +%d, want %d' % (
                  last, d['t2_rx_drop_nogroup'] -
                  before[last]['t2_rx_drop_nogroup'], N))
        check(self.chans[src].recv(0.5) is None, '%s read its own message'
              % src)

    def test_two_senders(self):
        s0, s1 = self.devs[0], self.devs[1]
        m0 = [b'A%03d' % k + bytes(50) for k in range(N)]
        m1 = [b'B%03d' % k + bytes(90) for k in range(N)]
        self.send(s0, m0)
        self.send(s1, m1)
        for d in self.devs[:-1]:
            want_n = (N if d != s0 else 0) + (N if d != s1 else 0)
            got = []
            while len(got) < want_n:
                m = self.chans[d].recv(10)
                if m is None:
                    break
                got.append(m)
            a = [m for m in got if m[:1] == b'A']
            b = [m for m in got if m[:1] == b'B']
            check(a == (m0 if d != s0 else []) and
                  b == (m1 if d != s1 else []),
                  '%s: %d from %s, %d from %s (want %d, %d, each in order)'
                  % (d, len(a), s0, len(b), s1, N if d != s0 else 0,
                     N if d != s1 else 0))
            check(self.chans[d].recv(0.3) is None, '%s: a message too many'
                  % d)

    def test_loss(self):
        src = self.devs[0]
        before = {d: self.t2(d) for d in self.devs}
        msgs = [t1.pattern(G, k, 300) for k in range(N * 3)]
        with rw.Wire(src) as w:
            w.seed(11)
            w.set(loss=200000)
            self.send(src, msgs)
            w.set(loss=0)
        self.send(src, [b'marker'])
        for d in self.devs[1:-1]:
            got = self.receive_all(d, msgs, marker=b'marker')
            lost = self.t2(d)['t2_rx_lost'] - before[d]['t2_rx_lost']
            self.ktap.diag('%s: %d arrived, %d counted lost' % (d, len(got),
                                                                lost))
            check(all(m in msgs for m in got) and
                  got == sorted(got, key=msgs.index), '%s: damaged or out '
                  'of order' % d)
            check(len(got) + lost == len(msgs), '%s: %d arrived + %d lost != '
                  '%d sent' % (d, len(got), lost, len(msgs)))
            check(len(got) < len(msgs), '%s: nothing lost at 20%% loss' % d)


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = HubTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('members', t.test_members),
                   ('two_senders', t.test_two_senders),
                   ('loss', t.test_loss)), 't2_hub')


if __name__ == '__main__':
    main()
