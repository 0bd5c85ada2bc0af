#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A board whose TYPE2_PKT_LEN (SHIM_CAP1.type2_pkt_len) leaves no room for
a TYPE2 message: at most the 8 bytes of the segment header (the model's
type2-pkt-len=4, in the board set of make check).  The largest TYPE2
message is TYPE2_PKT_LEN - 8, which must not wrap around:

  log            the probe says "TYPE2_PKT_LEN N leaves no room for a
                 message" for the board, as a warning, not an error
  bind_refused   binding /dev/rclinkN to a TYPE2 group fails with
                 EOPNOTSUPP (before, the bind succeeded and any write of
                 any length was taken, for a packet the board refuses)
  type1_binds    TYPE1 is not affected: a QP of the board binds

Every other board has a TYPE2_PKT_LEN above 8 (t2_mcast.py covers them).
Which boards are short is read from BAR0, not from the driver.
"""

import errno
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413
import rclink_t1 as t1  # noqa: E402  pylint: disable=C0413

SEG_BYTES = 8
BIND_MCAST = 1
MSG = 'leaves no room for a message'


def pkt_len(bdf):
    with rt.Bar0(bdf) as bar:
        return bar.rfield('SHIM_CAP1', 'type2_pkt_len')


def name_of(bdf):
    for n in t1.devices():
        if t1.bdf_of(n) == bdf:
            return n
    raise rt.TestFailed('no rclink dev with PCI address %s' % bdf)


def test_log(bdf, plen):
    recs = [(lvl, t) for lvl, _, t in rt.kmsg_records() if bdf in t]
    hits = [(lvl, t) for lvl, t in recs if MSG in t]
    check(hits, 'no "%s" line for %s' % (MSG, bdf))
    check(all(lvl == 4 for lvl, _ in hits) and
          all('TYPE2_PKT_LEN %d ' % plen in t for _, t in hits),
          'log: %s' % hits)


def test_bind_refused(bdf):
    with t1.Chan(name_of(bdf)) as c:
        for g in (0, 7):
            try:
                c.bind(g, BIND_MCAST)
            except OSError as e:
                check(e.errno == errno.EOPNOTSUPP, 'group %d: %s'
                      % (g, os.strerror(e.errno)))
                continue
            n = None
            try:
                n = c.write(b'x' * 100)
            except OSError as e:
                n = os.strerror(e.errno)
            c.unbind()
            raise rt.TestFailed('group %d bound; a write of 100 bytes: %s'
                                % (g, n))


def test_type1_binds(bdf):
    name = name_of(bdf)
    qpn = 4
    if t1.qpns(name):
        raise rt.SkipTest('%s has QPs configured: in use' % name)
    mac = t1.dev_show(name)['mac']
    t1.tool(['qp', 'add', 'dev', name, 'qpn', qpn, 'dqpn', qpn, 'dip',
             '10.198.0.2', 'dmac', mac])
    try:
        with t1.Chan(name, qpn) as c:
            check(c.info()['qpn'] == qpn, 'info: %s' % c.info())
    finally:
        t1.tool(['qp', 'del', 'dev', name, 'qpn', qpn], check=False)


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    short = {}
    for bdf in rt.bound_devices():
        plen = pkt_len(bdf)
        if plen <= SEG_BYTES:
            short[bdf] = plen
    if not short:
        mod.__exit__(None, None, None)
        ktap.skip_all('no board with TYPE2_PKT_LEN <= %d (the model\'s '
                      'type2-pkt-len)' % SEG_BYTES)
    mark = rt.kmsg_mark('t2_pkt_len')
    ktap.plan(3 * len(short) + 1)
    for bdf, plen in sorted(short.items()):
        ktap.diag('%s: TYPE2_PKT_LEN %d' % (bdf, plen))
        ktap.run('%s.log' % bdf, test_log, bdf, plen)
        ktap.run('%s.bind_refused' % bdf, test_bind_refused, bdf)
        ktap.run('%s.type1_binds' % bdf, test_type1_binds, bdf)
    bad = rt.kmsg_problems(rt.kmsg_since(mark), bdfs=list(short))
    ktap.result('kernel_log_clean', not bad, '\n'.join(bad))
    mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
