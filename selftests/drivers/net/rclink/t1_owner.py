#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""QP and group ownership (Documentation/uapi/rclink-dev.rst, "Ownership"):
two unprivileged users, UID_A and UID_B, on board A of the pair.  Root adds
QP 4 for UID_A (`qp add ... owner UID_A`), QP 5 for UID_B, QP 6 for itself
(peers: the same numbers on board B, root's), /dev/rclinkN is made
read-writable for everybody for the test, and every user's part runs in a
child that dropped root (setgid, setuid) before it opened the device.

  owner_shown     `rclink qp show` and `mcast show` print owner and netns:
                  UID_A, UID_B, 0, the netns cookie of the test's network
                  namespace (SO_NETNS_COOKIE); a group's owner is 0 until
                  mcast set gives it away
  own_qp          UID_A binds QP 4 and UID_B QP 5: each sends a message to
                  B and receives B's answer on its own QP
  other_qp        UID_A cannot bind QP 5 (UID_B's) or QP 6 (root's), UID_B
                  not QP 4: EACCES, also while the owner is bound; the
                  owner binds afterwards (the refusal took nothing)
  other_group     group 2 given to UID_A (`mcast set ... owner UID_A`):
                  UID_A binds it, UID_B gets EACCES there and on group 3
                  (root's); changing the owner of a bound group is refused
                  (EBUSY)
  rings_areas     UID_A's file has a ring and an area holding a pattern;
                  UID_B cannot open UID_A's file through /proc (EACCES),
                  its own file has no ring to map (EINVAL) until it sets up
                  its own, whose area is zero; DRAIN of UID_B's file returns
                  at once while UID_A's messages are its own; UID_A's area
                  still holds the pattern
  root_rule       a file opened with CAP_NET_ADMIN (root) binds a QP of
                  UID_A: the administrator may (the capability adds,
                  changes and deletes any QP anyway); the opener decides, so
                  a file root opened and handed to UID_A (setuid after
                  open) keeps root's right, one UID_A opened does not
  netns           a child in a network namespace of its own: UID_A there
                  cannot bind QP 4 (UID_A in the initial namespace); QP 7,
                  added for UID_A with `netns /proc/PID/ns/net` of the
                  child, it binds
"""

import ctypes
import errno
import fcntl
import json
import mmap
import os
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

UID_A, UID_B = 10001, 10002
QA, QB, QR, QN = 4, 5, 6, 7
GA, GR = 2, 3
IP_A, IP_B = '10.197.0.1', '10.197.0.2'
BIND_MCAST = 1
SO_NETNS_COOKIE = 71
CLONE_NEWNET = 0x40000000

# struct rclink_ring_setup: size, flags, sq_entries, cq_entries, area_size,
# rings_size, sq_off, cq_off, max_msg; _IOWR('J', 6)
RING_SETUP_FMT = '9I'
IOC_RING_SETUP = t1._ioc(3, 6, struct.calcsize(RING_SETUP_FMT))  # noqa
RING_OFF_AREA = 0x40000000
AREA = 1 << 16


def errname(e):
    return errno.errorcode.get(e, str(e))


def try_errno(fn, *args):
    """'ok', or the errno name fn raised."""
    try:
        fn(*args)
    except OSError as e:
        return errname(e.errno)
    return 'ok'


def ring_setup(fd):
    buf = bytearray(struct.pack(RING_SETUP_FMT,
                                struct.calcsize(RING_SETUP_FMT), 0, 8, 0,
                                AREA, 0, 0, 0, 0))
    fcntl.ioctl(fd, IOC_RING_SETUP, buf)


def map_area(fd):
    return mmap.mmap(fd, AREA, mmap.MAP_SHARED,
                     mmap.PROT_READ | mmap.PROT_WRITE, offset=RING_OFF_AREA)


class Child:
    """fn(ch, *args) in a child process that drops root to uid (None: stays
    root) after pre(ch) ran; ch.send()/ch.recv() exchange JSON with the
    parent; result() is fn's return value (or {'error': ...})."""

    def __init__(self, uid, fn, *args, pre=None):
        p_r, c_w = os.pipe()
        c_r, p_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(p_r)
            os.close(p_w)
            self.rf, self.wf = os.fdopen(c_r, 'r'), os.fdopen(c_w, 'w')
            try:
                if pre:
                    pre(self)
                if uid is not None:
                    os.setgroups([])
                    os.setgid(uid)
                    os.setuid(uid)
                res = fn(self, *args)
            except BaseException as e:  # pylint: disable=broad-except
                res = {'error': repr(e)}
            try:
                self.send({'result': res})
            finally:
                os._exit(0)  # pylint: disable=protected-access
        os.close(c_r)
        os.close(c_w)
        self.rf, self.wf = os.fdopen(p_r, 'r'), os.fdopen(p_w, 'w')

    def send(self, obj):
        self.wf.write(json.dumps(obj) + '\n')
        self.wf.flush()

    def recv(self):
        line = self.rf.readline()
        if not line:
            raise rt.TestFailed('the child ended early')
        return json.loads(line)

    def result(self):
        while True:
            msg = self.recv()
            if 'result' in msg:
                break
        os.waitpid(self.pid, 0)
        self.rf.close()
        self.wf.close()
        res = msg['result']
        if isinstance(res, dict) and 'error' in res:
            raise rt.TestFailed('child: %s' % res['error'])
        return res


def run_as(uid, fn, *args, pre=None):
    return Child(uid, fn, *args, pre=pre).result()


# ------------------------------------------------------------ children ----

def c_bind(_ch, dev, qpns, flags=0):
    """Open dev, bind each of qpns in turn on one file: the errno names."""
    out = []
    with t1.Chan(dev) as c:
        for q in qpns:
            r = try_errno(c.bind, q, flags)
            out.append(r)
            if r == 'ok':
                c.unbind()
    return out


def c_echo(_ch, dev, qpn, msg):
    """Bind qpn, send msg, return what comes back."""
    with t1.Chan(dev, qpn) as c:
        c.send(msg.encode())
        c.drain()
        got = c.recv(10)
    return None if got is None else got.decode()


def c_hold(ch, dev, qpn, flags=0):
    """Bind qpn and stay bound until the parent says so."""
    with t1.Chan(dev, qpn if not flags else None) as c:
        if flags:
            c.bind(qpn, flags)
        ch.send({'bound': True})
        ch.recv()
    return 'ok'


def c_ring_owner(ch, dev, qpn):
    """UID_A: a ring and an area with a pattern; waits for the parent."""
    with t1.Chan(dev, qpn) as c:
        ring_setup(c.fd)
        area = map_area(c.fd)
        area[:16] = b'secret-of-uid-a!'
        ch.send({'pid': os.getpid(), 'fd': c.fd})
        ch.recv()
        kept = bytes(area[:16]).decode()
        area.close()
    return kept


def c_ring_other(_ch, dev, qpn, pid, fd):
    """UID_B: what it reaches of UID_A's file, and its own."""
    res = {}
    try:
        os.close(os.open('/proc/%d/fd/%d' % (pid, fd), os.O_RDWR))
        res['proc_open'] = 'ok'
    except OSError as e:
        res['proc_open'] = errname(e.errno)
    with t1.Chan(dev, qpn) as c:
        res['map_no_ring'] = try_errno(map_area, c.fd)
        ring_setup(c.fd)
        area = map_area(c.fd)
        res['own_area_zero'] = bytes(area[:AREA]) == bytes(AREA)
        area.close()
        t0 = time.monotonic()
        c.drain()
        res['drain_s'] = time.monotonic() - t0
    return res


def c_opened_by_root(_ch, dev, qpn, fd):
    """A file root opened, used after setuid: bind qpn on it."""
    del dev
    c = t1.Chan.__new__(t1.Chan)
    c.fd = fd
    r = try_errno(c.bind, qpn)
    if r == 'ok':
        c.unbind()
    os.close(fd)
    return r


def unshare_net(ch):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET):
        raise OSError(ctypes.get_errno(), 'unshare(CLONE_NEWNET)')
    ch.send({'pid': os.getpid()})
    ch.recv()           # QP 7 is there


def c_netns(_ch, dev):
    return c_bind(None, dev, [QA, QN])


# ---------------------------------------------------------------- test ----

class OwnerTest:
    def __init__(self, ktap):
        self.ktap = ktap
        self.a = self.b = None
        self.saved = {}
        self.added = []
        self.mode = None
        self.groups = None

    def setup(self):
        self.a, self.b = t1.pick_pair()
        for d in (self.a, self.b):
            self.saved[d] = t1.dev_show(d)
            if t1.qpns(d):
                raise rt.SkipTest('%s has QPs configured: in use' % d)
        self.groups = t1.tool_json(['mcast', 'show', 'dev', self.a])
        if 'owner' not in self.groups[0]:
            raise rt.TestFailed('mcast show prints no owner: %s'
                                % self.groups[0])
        t1.tool(['dev', 'set', 'dev', self.a, 'ip', IP_A])
        t1.tool(['dev', 'set', 'dev', self.b, 'ip', IP_B])
        ma, mb = (t1.dev_show(d)['mac'] for d in (self.a, self.b))
        for q, owner in ((QA, [UID_A]), (QB, [UID_B]), (QR, [])):
            t1.tool(['qp', 'add', 'dev', self.a, 'qpn', q, 'dqpn', q, 'dip',
                     IP_B, 'dmac', mb] + (['owner'] + owner if owner
                                           else []))
            self.added.append((self.a, q))
            t1.tool(['qp', 'add', 'dev', self.b, 'qpn', q, 'dqpn', q, 'dip',
                     IP_A, 'dmac', ma])
            self.added.append((self.b, q))
        path = '/dev/' + self.a
        self.mode = os.stat(path).st_mode & 0o7777
        os.chmod(path, 0o666)

    def restore(self):
        if self.mode is not None:
            os.chmod('/dev/' + self.a, self.mode)
        for d, q in reversed(self.added):
            t1.tool(['qp', 'del', 'dev', d, 'qpn', q], check=False)
        self.added = []
        if self.groups:
            for g in (GA, GR):
                t1.tool(['mcast', 'set', 'dev', self.a, 'group', g,
                         'owner', 0], check=False)
        for d, saved in self.saved.items():
            args = t1.restore_args(saved, t1.dev_show(d))
            if args:
                t1.tool(['dev', 'set', 'dev', d] + args, check=False)

    def peer_answer(self, qpn, child):
        """Run child (it sends on board A's qpn), answer it from B."""
        with t1.Chan(self.b, qpn) as pb:
            ch = child()
            got = pb.recv(10)
            check(got is not None, 'B got nothing on QP %d' % qpn)
            pb.send(b'answer:' + got)
            pb.drain()
            return got, ch.result()

    def test_owner_shown(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        cookie = struct.unpack('Q', s.getsockopt(socket.SOL_SOCKET,
                                                 SO_NETNS_COOKIE, 8))[0]
        s.close()
        qps = {int(q['qpn']): q for q in t1.qp_show(self.a)}
        for q, uid in ((QA, UID_A), (QB, UID_B), (QR, 0)):
            check(int(qps[q]['owner']) == uid and
                  int(qps[q]['netns']) == cookie,
                  'qp %d: owner %s netns %s, want %d %d' % (
                      q, qps[q].get('owner'), qps[q].get('netns'), uid,
                      cookie))
        _, out = t1.tool(['qp', 'show', 'dev', self.a, 'qpn', QA])
        check(' owner %d ' % UID_A in out and ' netns %d' % cookie in out,
              'text output: %r' % out)
        g = t1.tool_json(['mcast', 'show', 'dev', self.a, 'group', GR])[0]
        check(int(g['owner']) == 0 and int(g['netns']) == cookie,
              'group %d: %s' % (GR, g))

    def test_own_qp(self):
        for uid, q in ((UID_A, QA), (UID_B, QB)):
            msg = 'from-%d-on-%d' % (uid, q)
            got, ans = self.peer_answer(
                q, lambda uid=uid, q=q, msg=msg: Child(uid, c_echo, self.a,
                                                       q, msg))
            check(got == msg.encode(), 'B read %r, want %r' % (got, msg))
            check(ans == 'answer:' + msg, 'uid %d read %r' % (uid, ans))

    def test_other_qp(self):
        r = run_as(UID_A, c_bind, self.a, [QB, QR, QA])
        check(r == ['EACCES', 'EACCES', 'ok'],
              'UID_A binds QP %d, %d, %d: %s' % (QB, QR, QA, r))
        r = run_as(UID_B, c_bind, self.a, [QA, QR, QB])
        check(r == ['EACCES', 'EACCES', 'ok'],
              'UID_B binds QP %d, %d, %d: %s' % (QA, QR, QB, r))
        # while the owner is bound: still EACCES (not EBUSY)
        holder = Child(UID_B, c_hold, self.a, QB)
        check(holder.recv().get('bound'), 'UID_B did not bind')
        r = run_as(UID_A, c_bind, self.a, [QB])
        holder.send({})
        holder.result()
        check(r == ['EACCES'], 'UID_A binds bound QP %d: %s' % (QB, r))
        q = t1.qp_show(self.a, QB)
        check(q['bound'] in ('no', False, 0), 'QP %d bound: %s' % (QB, q))

    def test_other_group(self):
        t1.tool(['mcast', 'set', 'dev', self.a, 'group', GA, 'owner', UID_A])
        g = t1.tool_json(['mcast', 'show', 'dev', self.a, 'group', GA])[0]
        check(int(g['owner']) == UID_A, 'group %d: %s' % (GA, g))
        r = run_as(UID_A, c_bind, self.a, [GA, GR], BIND_MCAST)
        check(r == ['ok', 'EACCES'], 'UID_A binds group %d, %d: %s'
              % (GA, GR, r))
        r = run_as(UID_B, c_bind, self.a, [GA, GR], BIND_MCAST)
        check(r == ['EACCES', 'EACCES'], 'UID_B binds group %d, %d: %s'
              % (GA, GR, r))
        holder = Child(UID_A, c_hold, self.a, GA, BIND_MCAST)
        check(holder.recv().get('bound'), 'UID_A did not bind the group')
        rc, out = t1.tool(['mcast', 'set', 'dev', self.a, 'group', GA,
                           'owner', UID_B], check=False)
        holder.send({})
        holder.result()
        check(rc != 0 and 'bound' in out,
              'owner change of a bound group: rc %d %r' % (rc, out))
        g = t1.tool_json(['mcast', 'show', 'dev', self.a, 'group', GA])[0]
        check(int(g['owner']) == UID_A, 'group %d after EBUSY: %s' % (GA, g))

    def test_rings_areas(self):
        owner = Child(UID_A, c_ring_owner, self.a, QA)
        where = owner.recv()
        try:
            r = run_as(UID_B, c_ring_other, self.a, QB, where['pid'],
                       where['fd'])
        finally:
            owner.send({})
            kept = owner.result()
        self.ktap.diag('UID_B: %s' % r)
        check(r['proc_open'] == 'EACCES', "UID_A's file through /proc: %s"
              % r['proc_open'])
        check(r['map_no_ring'] == 'EINVAL', 'mmap without a ring: %s'
              % r['map_no_ring'])
        check(r['own_area_zero'], "UID_B's own area is not zero")
        check(r['drain_s'] < 5, 'DRAIN of an idle file took %.1f s'
              % r['drain_s'])
        check(kept == 'secret-of-uid-a!', "UID_A's area: %r" % kept)

    def test_root_rule(self):
        r = c_bind(None, self.a, [QA, QB])
        check(r == ['ok', 'ok'], 'root binds QP %d, %d: %s' % (QA, QB, r))
        fd = os.open('/dev/' + self.a, os.O_RDWR)
        try:
            r = run_as(UID_A, c_opened_by_root, self.a, QB, fd)
        finally:
            os.close(fd)
        check(r == 'ok', 'a file root opened, UID_A binds QP %d: %s'
              % (QB, r))
        r = run_as(UID_A, c_bind, self.a, [QB])
        check(r == ['EACCES'], 'a file UID_A opened, QP %d: %s' % (QB, r))

    def test_netns(self):
        ch = Child(UID_A, c_netns, self.a, pre=unshare_net)
        pid = ch.recv()['pid']
        try:
            t1.tool(['qp', 'add', 'dev', self.a, 'qpn', QN, 'dqpn', QN,
                     'dip', IP_B, 'dmac', '02:00:00:00:00:01', 'owner',
                     UID_A, 'netns', '/proc/%d/ns/net' % pid])
            self.added.append((self.a, QN))
        finally:
            ch.send({})
            r = ch.result()
        check(r == ['EACCES', 'ok'], 'UID_A in its own netns binds QP %d, '
              '%d: %s' % (QA, QN, r))
        q = t1.qp_show(self.a, QN)
        check(int(q['owner']) == UID_A, 'QP %d: %s' % (QN, q))
        r = run_as(UID_A, c_bind, self.a, [QN, QA])
        check(r == ['EACCES', 'ok'], 'UID_A in the initial netns binds QP '
              '%d, %d: %s' % (QN, QA, r))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = OwnerTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (
        ('owner_shown', t.test_owner_shown), ('own_qp', t.test_own_qp),
        ('other_qp', t.test_other_qp), ('other_group', t.test_other_group),
        ('rings_areas', t.test_rings_areas), ('root_rule', t.test_root_rule),
        ('netns', t.test_netns)), 't1_owner')


if __name__ == '__main__':
    main()
