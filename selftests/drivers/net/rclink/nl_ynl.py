#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The generic netlink family through the kernel's own YNL client: the
spec (Documentation/netlink/specs/rclink.yaml), validated against YNL's
schema, drives the family with no code of this project in between, and
what it sees agrees with the rclink tool.  On the pair A, B.

  spec_loads      YnlFamily loads the spec (schema validation included)
                  and resolves the family in the running kernel; the
                  operations use the attribute sets dev, qp and mcast
  dev_dump        dev-get dump: the boards the tool lists, with the same
                  qp-num and mac, index N for rclinkN
  dev_handle      dev-get by the handle pci/BUS_ADDRESS names the same
                  board (dev-handle in the reply), and so does the tool's
                  `dev show dev pci/...`; an unknown handle: ENODEV
  qp_lifecycle    qp-new on A and B (QP 12, peers of each other), qp-get
                  agrees with `rclink qp show`, qp-set speed and state
                  ready, qp-del: gone for the tool too
  policy_refused  dev-set ttl 0 and retry-timer 8192: refused by the
                  generated policy (EINVAL/ERANGE) with the attribute
                  named and the policy's range in the extended ack; the
                  board keeps its values
  mcast_dump      mcast-get: the eight TYPE2 groups of A, as the tool
  mr_get          mr-get: the dump lists what `rclink mr show` lists (no
                  registrations when no process holds one), mr-get of a
                  key no registration has: ENOENT (EOPNOTSUPP on a board
                  without a registration table)
  ctx_get         ctx-get: the dump lists the contexts `rclink ctx show`
                  lists, ctx-get of a number no context has: ENOENT
                  (EOPNOTSUPP on a board without user contexts)

Environment: RCLINK_YNL, the directory of YNL's cli.py and lib/ (default
build/linux-ksft/tools/net/ynl of the tree, the kernel's tools that make
extracts); the program skips without it or without the spec.
"""

import errno
import ipaddress
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..'))
sys.path.insert(0, os.path.join(HERE, 'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

SPEC = os.path.join(TOP, 'Documentation', 'netlink', 'specs', 'rclink.yaml')
YNL = os.environ.get('RCLINK_YNL',
                     os.path.join(TOP, 'build', 'linux-ksft', 'tools', 'net',
                                  'ynl'))
SCHEMA = os.path.join(YNL, '..', '..', '..', 'Documentation', 'netlink',
                      'genetlink-legacy.yaml')
QPN = 12


def ip_of(v):
    """An ipv4 attribute as YNL decodes it (an int or a string)."""
    return str(ipaddress.ip_address(v))


class YnlTest(t1.PairTest):
    QA = QB = QPN
    IP_A, IP_B = '10.196.0.1', '10.196.0.2'

    def __init__(self, ktap):
        super().__init__(ktap)
        self.ynl = None
        self.err = None

    def setup(self):
        if not os.path.exists(SPEC):
            raise rt.SkipTest('no spec at %s' % SPEC)
        if not os.path.exists(os.path.join(YNL, 'lib', 'ynl.py')):
            raise rt.SkipTest('no YNL at %s (RCLINK_YNL)' % YNL)
        super().setup()
        sys.path.insert(0, YNL)
        try:
            from lib import YnlFamily, NlError  # pylint: disable=C0415
        except ImportError as e:
            raise rt.SkipTest('YNL does not import: %s' % e) from e
        self.err = NlError
        self.ynl = YnlFamily(SPEC, os.path.normpath(SCHEMA))

    def test_spec_loads(self):
        check(self.ynl is not None, 'no family')
        check(os.path.exists(SCHEMA), 'no schema at %s' % SCHEMA)
        sets = {op.name: op.attr_set.name
                for op in self.ynl.msgs.values()
                if getattr(op, 'attr_set', None)}
        want = {'dev-get': 'dev', 'dev-set': 'dev', 'qp-new': 'qp',
                'qp-get': 'qp', 'mcast-get': 'mcast', 'mcast-set': 'mcast',
                'mr-get': 'mr', 'ctx-get': 'ctx'}
        bad = {k: sets.get(k) for k in want if sets.get(k) != want[k]}
        check(not bad, 'attribute sets of the operations: %s' % bad)

    def test_dev_dump(self):
        devs = self.ynl.dump('dev-get', {})
        names = sorted(d['name'] for d in devs)
        want = sorted(t1.devices())
        check(names == want, 'YNL lists %s, the tool %s' % (names, want))
        for d in devs:
            shown = t1.dev_show(d['name'])
            check(d['qp-num'] == shown['qp_num'], '%s qp-num: YNL %s, tool %s'
                  % (d['name'], d['qp-num'], shown['qp_num']))
            check('rclink%d' % d['index'] == d['name'],
                  'index %s of %s' % (d['index'], d['name']))
            check(d['mac'] == shown['mac'], '%s mac: YNL %s, tool %s'
                  % (d['name'], d['mac'], shown['mac']))

    def test_dev_handle(self):
        for name in (self.a, self.b):
            handle = 'pci/' + t1.bdf_of(name)
            got = self.ynl.do('dev-get', {'name': handle})
            check(got['name'] == name and got['handle'] == handle,
                  'dev-get %s: %s, %s' % (handle, got['name'],
                                          got['handle']))
            by_name, by_handle = t1.dev_show(name), t1.dev_show(handle)
            check(by_name == by_handle, 'rclink dev show dev %s: %s, dev %s: %s'
                  % (name, by_name, handle, by_handle))
            check(by_name.get('handle') == handle, 'the tool shows handle %s'
                  % by_name.get('handle'))
        try:
            self.ynl.do('dev-get', {'name': 'pci/0000:ff:1f.7'})
        except self.err as e:
            check(e.error == errno.ENODEV, 'unknown handle: errno %d' % e.error)
        else:
            raise rt.TestFailed('dev-get of an unknown handle answered')

    def qp_new(self, dev, peer_ip, peer_mac):
        self.ynl.do('qp-new', {'dev-name': dev, 'qpn': QPN, 'dqpn': QPN,
                               'dip': int(ipaddress.ip_address(peer_ip)),
                               'dmac': bytes.fromhex(
                                   peer_mac.replace(':', ''))})
        self.added.append((dev, QPN))

    def test_qp_lifecycle(self):
        self.del_qps()
        ma, mb = (t1.dev_show(d)['mac'] for d in (self.a, self.b))
        self.qp_new(self.a, self.IP_B, mb)
        self.qp_new(self.b, self.IP_A, ma)
        got = self.ynl.do('qp-get', {'dev-name': self.a, 'qpn': QPN})
        shown = t1.qp_show(self.a, QPN)
        check(got['dev-name'] == self.a and
              got['dev-handle'] == 'pci/' + t1.bdf_of(self.a),
              'qp-get names the board %s, %s' % (got['dev-name'],
                                                 got['dev-handle']))
        self.ktap.diag('qp-get: %s' % {k: got[k] for k in
                                        ('qpn', 'dqpn', 'dip', 'state')})
        check(got['dqpn'] == QPN and shown['dqpn'] == QPN,
              'dqpn: YNL %s, tool %s' % (got['dqpn'], shown['dqpn']))
        check(ip_of(got['dip']) == self.IP_B == shown['dip'],
              'dip: YNL %s, tool %s' % (got['dip'], shown['dip']))
        check(got['state'] == shown['state'],
              'state: YNL %s, tool %s' % (got['state'], shown['state']))
        self.ynl.do('qp-set', {'dev-name': self.a, 'qpn': QPN, 'speed': 5})
        shown = t1.qp_show(self.a, QPN)
        check(shown['speed'] == 5, 'speed after qp-set 5: %s' % shown['speed'])
        self.ynl.do('qp-del', {'dev-name': self.a, 'qpn': QPN})
        self.ynl.do('qp-del', {'dev-name': self.b, 'qpn': QPN})
        self.added = []
        for d in (self.a, self.b):
            check(QPN not in t1.qpns(d), '%s: QP %d still there' % (d, QPN))

    def refused(self, attr, value, lo, hi):
        before = t1.dev_show(self.a)
        try:
            self.ynl.do('dev-set', {'name': self.a, attr: value})
        except self.err as e:
            text = str(e)
            ext = getattr(e.nl_msg, 'extack', None) or {}
            self.ktap.diag('dev-set %s %s: %s' % (attr, value,
                                                   text.replace('\n', ' ')))
            check(e.error in (errno.EINVAL, errno.ERANGE),
                  '%s %s: errno %d' % (attr, value, e.error))
            check(attr in str(ext.get('bad-attr', '')),
                  '%s %s: extack names %s' % (attr, value,
                                              ext.get('bad-attr')))
            pol = ext.get('policy', {})
            check(pol.get('min-value') == lo and pol.get('max-value') == hi,
                  '%s %s: policy %s, want %d..%d' % (attr, value, pol, lo,
                                                     hi))
        else:
            raise rt.TestFailed('dev-set %s %s accepted' % (attr, value))
        after = t1.dev_show(self.a)
        check(after == before, 'dev-set %s %s changed the board: %s -> %s'
              % (attr, value, before, after))

    def test_policy_refused(self):
        self.refused('ttl', 0, 1, 255)
        self.refused('retry-timer', 8192, 1, 8191)

    def test_mcast_dump(self):
        groups = [g for g in self.ynl.dump('mcast-get', {})
                  if g['dev-name'] == self.a]
        check(all(g['dev-handle'] == 'pci/' + t1.bdf_of(self.a)
                  for g in groups), 'mcast-get without the board handle')
        shown = t1.tool_json(['mcast', 'show', 'dev', self.a])
        check(sorted(g['group'] for g in groups) == list(range(8)),
              'groups of %s: %s' % (self.a, [g['group'] for g in groups]))
        check(len(shown) == len(groups), 'tool %d groups, YNL %d'
              % (len(shown), len(groups)))


    def test_mr_get(self):
        regs = self.ynl.dump('mr-get', {})
        shown = t1.tool_json(['mr', 'show'])
        check(sorted((r['dev-name'], r['key']) for r in regs) ==
              sorted((r['dev'], r['key']) for r in shown),
              'YNL %s, the tool %s' % (regs, shown))
        keys = {r['key'] for r in regs if r['dev-name'] == self.a}
        key = next(k for k in range(0x10000, 0x20000) if k not in keys)
        try:
            self.ynl.do('mr-get', {'dev-name': self.a, 'key': key})
        except self.err as e:
            check(e.error in (errno.ENOENT, errno.EOPNOTSUPP),
                  'mr-get of key 0x%x: %s' % (key, e))
        else:
            raise rt.TestFailed('mr-get of key 0x%x, which no registration '
                                'has, answered' % key)

    def test_ctx_get(self):
        ctxs = self.ynl.dump('ctx-get', {})
        shown = t1.tool_json(['ctx', 'show'])
        check(sorted((c['dev-name'], c['id']) for c in ctxs) ==
              sorted((c['dev'], c['id']) for c in shown),
              'YNL %s, the tool %s' % (ctxs, shown))
        ids = {c['id'] for c in ctxs if c['dev-name'] == self.a}
        free = next(n for n in range(1, 1 << 16) if n not in ids)
        try:
            self.ynl.do('ctx-get', {'dev-name': self.a, 'id': free})
        except self.err as e:
            check(e.error in (errno.ENOENT, errno.EOPNOTSUPP),
                  'ctx-get of context %d: %s' % (free, e))
        else:
            raise rt.TestFailed('ctx-get of context %d, which no process '
                                'has, answered' % free)


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = YnlTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (
        ('spec_loads', t.test_spec_loads), ('dev_dump', t.test_dev_dump),
        ('dev_handle', t.test_dev_handle),
        ('qp_lifecycle', t.test_qp_lifecycle),
        ('policy_refused', t.test_policy_refused),
        ('mcast_dump', t.test_mcast_dump), ('mr_get', t.test_mr_get),
        ('ctx_get', t.test_ctx_get)),
        'nl_ynl')


if __name__ == '__main__':
    main()
