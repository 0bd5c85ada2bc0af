#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE1 helpers of the rclink selftests: the `rclink` tool, the board
pair, /dev/rclinkN and its ioctls (uapi/linux/rclink_dev.h).

The tool is $RCLINK_TOOL (default <repo>/build/tools/rclink).  The two
boards are $RCLINK_T1_DEVS="rclinkA rclinkB", else the first two boards
`rclink -j dev show` lists (by index).

Run as a program it serves the shell tests:

  rclink_t1.py devs                 the two boards ("A B"); exit 4 + reason
  rclink_t1.py bdf NAME             PCI address of board NAME
  rclink_t1.py restore-args FILE NAME [KEY...]
                                    `dev set` arguments putting board NAME
                                    back to its `rclink -j dev show` in FILE
                                    (but the KEYs)
  rclink_t1.py qpns NAME            QP numbers configured on board NAME
  rclink_t1.py get KEY [KEY...]     from the JSON on stdin (an array takes
                                    its first element; a missing key, or a
                                    key of the "stats" object, is looked up
                                    there): the value, one a line
  rclink_t1.py chan ...             see chan_cli() below
"""

import array
import errno
import fcntl
import json
import os
import select
import signal
import shutil
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.abspath(os.path.join(HERE, '..', '..', '..', '..', '..'))
sys.dont_write_bytecode = True

KSFT_SKIP = 4

# ----------------------------------------------------------------- tool ----


def tool_path():
    if os.environ.get('RCLINK_TOOL'):
        return os.environ['RCLINK_TOOL']
    built = os.path.join(TOP, 'build', 'tools', 'rclink')
    # installed (the rclink-tools package): the tool in PATH
    if not os.access(built, os.X_OK) and shutil.which('rclink'):
        return shutil.which('rclink')
    return built


class ToolError(Exception):
    """The tool failed: .rc, .out (stdout + stderr), .cmd."""

    def __init__(self, cmd, rc, out):
        super().__init__('%s: exit %d: %s' % (' '.join(cmd), rc, out.strip()))
        self.cmd = cmd
        self.rc = rc
        self.out = out


def tool(args, check=True, timeout=30):
    """Run the tool; (rc, stdout + stderr).  ToolError when check and rc."""
    cmd = [tool_path()] + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=timeout, check=False)
    if check and p.returncode:
        raise ToolError(cmd, p.returncode, p.stdout)
    return p.returncode, p.stdout


def tool_json(args):
    """The parsed JSON of `rclink -j ARGS` (stdout only)."""
    cmd = [tool_path(), '-j'] + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=30, check=False)
    if p.returncode:
        raise ToolError(cmd, p.returncode, p.stdout + p.stderr)
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        raise ToolError(cmd, 0, 'not JSON (%s): %r' % (e, p.stdout[:500])) \
            from e


def dev_name(d):
    return d.get('dev') or d.get('name') or d.get('ifname')


def dev_index(name):
    digits = ''.join(c for c in name if c.isdigit())
    return int(digits) if digits else 1 << 30


def devices():
    """`rclink -j dev show`: {name: dict}."""
    return {dev_name(d): d for d in tool_json(['dev', 'show'])}


def dev_show(name, stats=False):
    res = tool_json((['-s'] if stats else []) + ['dev', 'show', 'dev', name])
    return res[0] if isinstance(res, list) else res


def qp_show(name, qpn=None, stats=False):
    args = (['-s'] if stats else []) + ['qp', 'show', 'dev', name]
    if qpn is not None:
        args += ['qpn', qpn]
    res = tool_json(args)
    if qpn is not None:
        return res[0] if isinstance(res, list) and res else res
    return res


def qpns(name):
    return sorted(int(q['qpn']) for q in qp_show(name))


def pick_pair():
    """(A, B) board names; SkipTest-like ValueError with the reason."""
    env = os.environ.get('RCLINK_T1_DEVS', '').split()
    if not os.access(tool_path(), os.X_OK):
        raise LookupError('no rclink tool %s (make tools, or set RCLINK_TOOL)'
                          % tool_path())
    devs = devices()
    if env:
        if len(env) != 2:
            raise LookupError('RCLINK_T1_DEVS wants two board names')
        for n in env:
            if n not in devs:
                raise LookupError('RCLINK_T1_DEVS: no board %s (rclink dev '
                                  'show lists %s)' % (n, ' '.join(devs)))
        return env[0], env[1]
    names = sorted(devs, key=dev_index)
    if len(names) < 2:
        raise LookupError('fewer than two rclink boards (rclink dev show: '
                          '%s)' % (' '.join(names) or 'none'))
    return names[0], names[1]


def bdf_of(name):
    """PCI address of board NAME (rclinkN or a PCI address)."""
    if name.count(':') == 2:
        return name
    if name.count(':') == 1:
        return '0000:' + name
    cands = ['/sys/class/rclink/%s/device' % name]
    try:
        st = os.stat('/dev/' + name)
        cands.append('/sys/dev/char/%d:%d/device' % (os.major(st.st_rdev),
                                                     os.minor(st.st_rdev)))
    except OSError:
        pass
    for c in cands:
        if os.path.exists(c):
            return os.path.basename(os.path.realpath(c))
    # the class device directory under its PCI parent
    pci = '/sys/bus/pci/devices'
    try:
        for bdf in sorted(os.listdir(pci)):
            for sub in ('rclink', 'misc', ''):
                if os.path.isdir(os.path.join(pci, bdf, sub, name)):
                    return bdf
    except OSError:
        pass
    # the tool's identity fields
    try:
        d = dev_show(name)
    except (ToolError, OSError):
        d = {}
    for k in ('bus', 'bdf', 'pci', 'bus_name', 'dev_name', 'device'):
        v = str(d.get(k, ''))
        v = v.split('/')[-1]
        if v.count(':') == 2:
            return v
    raise LookupError('cannot find the PCI address of %s (no /sys/class/'
                      'rclink/%s/device, /dev/%s or bus field)'
                      % (name, name, name))


# -------------------------------------------------------------- devlink ----

def devlink(*args):
    """Run devlink; its output (ToolError when it fails)."""
    cmd = ['devlink'] + [str(a) for a in args]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60, check=False)
    if p.returncode:
        raise ToolError(cmd, p.returncode, p.stdout)
    return p.stdout


def devlink_param(name, param):
    """The driverinit value of a devlink param of board NAME."""
    h = 'pci/' + bdf_of(name)
    out = json.loads(devlink('-j', 'dev', 'param', 'show', h, 'name', param))
    for v in out['param'][h][0]['values']:
        if v['cmode'] == 'driverinit':
            return v['value']
    raise LookupError('%s: no driverinit value of %s' % (h, param))


def wait_for(what, cond, timeout=20.0):
    """Wait until cond() is true; TimeoutError naming what."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError('timed out waiting for %s' % what)
        time.sleep(0.1)


def devlink_reload(name, params=()):
    """Set driverinit params [(param, value)] of board NAME, reload it and
    wait for it to answer again (a reload drops its QPs and settings)."""
    h = 'pci/' + bdf_of(name)
    for param, value in params:
        devlink('dev', 'param', 'set', h, 'name', param, 'value', value,
                'cmode', 'driverinit')
    devlink('dev', 'reload', h, 'action', 'driver_reinit')

    def back():
        try:
            dev_show(name)
            return True
        except ToolError:
            return False
    wait_for('%s after the reload' % name, back, 60.0)


# `dev set` keys a test may change, with the tool's value syntax
DEV_SET_KEYS = ('mac', 'ip', 'ttl', 'ip_id', 'tc', 'ack_tc', 'retry_timer',
                'retry_cnt', 'rnr_retry_cnt', 'ack_timestamp', 'icrc',
                'vlan', 'vlan_pri', 'format', 'cc_window', 'bank_rr',
                't2_rate', 'cnp_merge', 'cnp_window_us', 'nocnp_us')
# `dev show` keys whose `dev set` keyword differs
DEV_SET_WORD = {'cnp_window_us': 'cnp_window', 'nocnp_us': 'nocnp'}


def onoff(v):
    if isinstance(v, bool):
        return 'on' if v else 'off'
    if isinstance(v, int):
        return 'on' if v else 'off'
    return str(v)


def restore_args(saved, now=None, skip=()):
    """`dev set` arguments that put a board from now back to saved (both
    `dev show` dicts); every key when now is None; not the keys in skip."""
    args = []
    for k in DEV_SET_KEYS:
        if k not in saved or k in skip:
            continue
        if now is not None and now.get(k) == saved[k]:
            continue
        v = saved[k]
        if k in ('ack_timestamp', 'icrc', 'bank_rr', 'cnp_merge'):
            v = onoff(v)
        elif k in ('vlan', 't2_rate', 'nocnp_us') and not v:
            v = 'off'
        args += [DEV_SET_WORD.get(k, k), str(v)]
    return args


def counted(stats, *keys):
    """The board counts every one of keys of `rclink -s qp/dev show`: the
    driver leaves out the counters of events inside the IP on a board
    without SHIM_CAP3.ip_counters (Documentation/hw/shim.rst, "What a shim
    can count").  A test skips an assertion on a counter not counted (that
    assertion only, saying so), never the whole test."""
    return all(k in stats for k in keys)


def not_counted(ktap, what, keys):
    """Say that an assertion on keys is skipped: the board does not count
    them."""
    ktap.diag('SKIP assertion %s: the board does not count %s'
              % (what, ', '.join(keys)))


def get_key(obj, key):
    if isinstance(obj, list):
        obj = obj[0] if obj else {}
    if key in obj:
        return obj[key]
    st = obj.get('stats')
    if isinstance(st, dict) and key in st:
        return st[key]
    raise KeyError(key)


class PairTest:
    """A test object on a pair of boards A and B: one QP pair (A's qa to
    B's qb) added through the tool; restore() deletes it and puts the
    boards' `dev set` configuration back.  Subclasses set QA, QB, IP_A and
    IP_B and may extend setup()/restore()."""

    QA = QB = 0
    IP_A = IP_B = ''

    def __init__(self, ktap):
        self.ktap = ktap
        self.a = self.b = None
        self.saved = {}
        self.added = []

    def setup(self):
        """The pair, idle (LookupError, a skip, when a board has QPs),
        with its IPs."""
        self.a, self.b = pick_pair()
        for d in (self.a, self.b):
            self.saved[d] = dev_show(d)
            if qpns(d):
                raise LookupError('%s has QPs configured: in use' % d)
        self.set_ips()

    def set_ips(self):
        tool(['dev', 'set', 'dev', self.a, 'ip', self.IP_A])
        tool(['dev', 'set', 'dev', self.b, 'ip', self.IP_B])

    def restore(self):
        self.del_qps()
        for d, saved in self.saved.items():
            args = restore_args(saved, dev_show(d))
            if args:
                tool(['dev', 'set', 'dev', d] + args, check=False)

    def add_qps(self, *extra):
        """A's QA -> B's QB and back; extra: `qp add` arguments of A's."""
        self.del_qps()          # what a failed test may have left
        ma, mb = (dev_show(d)['mac'] for d in (self.a, self.b))
        tool(['qp', 'add', 'dev', self.a, 'qpn', self.QA, 'dqpn', self.QB,
              'dip', self.IP_B, 'dmac', mb] + list(extra))
        self.added.append((self.a, self.QA))
        tool(['qp', 'add', 'dev', self.b, 'qpn', self.QB, 'dqpn', self.QA,
              'dip', self.IP_A, 'dmac', ma])
        self.added.append((self.b, self.QB))

    def del_qps(self):
        for d, q in reversed(self.added):
            tool(['qp', 'del', 'dev', d, 'qpn', q], check=False)
        self.added = []


# ------------------------------------------------------------ /dev/rclinkN -

# uapi/linux/rclink_dev.h: magic 'J'; every struct begins with its
# __u32 size and __u32 flags (Documentation/uapi/rclink-dev.rst)
IOC_MAGIC = ord('J')
BIND_FMT = '3I'         # size, flags, qpn
INFO_FMT = '8IQ'        # size, flags, qpn, max_msg, tx_window, tx_inflight,
                        # rx_queued, state, tx_flushed
WINDOW_FMT = '3I'       # size, flags, window


def _ioc(d, nr, size):
    return (d << 30) | (size << 16) | (IOC_MAGIC << 8) | nr


IOC_BIND = _ioc(1, 1, struct.calcsize(BIND_FMT))
IOC_UNBIND = _ioc(0, 2, 0)
IOC_INFO = _ioc(3, 3, struct.calcsize(INFO_FMT))
IOC_SET_WINDOW = _ioc(1, 4, struct.calcsize(WINDOW_FMT))
IOC_DRAIN = _ioc(0, 5, 0)
FIONREAD = 0x541B
QPN_NONE = 0xffffffff
STATES = {0: 'reset', 1: 'ready', 2: 'fatal'}


class Chan:
    """An open /dev/rclinkN, optionally bound to a QP."""

    def __init__(self, name, qpn=None, nonblock=False):
        self.name = name
        flags = os.O_RDWR | (os.O_NONBLOCK if nonblock else 0)
        self.fd = os.open('/dev/' + name, flags)
        if qpn is not None:
            try:
                self.bind(qpn)
            except OSError:
                self.close()
                raise

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def bind(self, qpn, flags=0):
        fcntl.ioctl(self.fd, IOC_BIND,
                    struct.pack(BIND_FMT, struct.calcsize(BIND_FMT), flags,
                                qpn))

    def unbind(self):
        fcntl.ioctl(self.fd, IOC_UNBIND)

    def info(self):
        size = struct.calcsize(INFO_FMT)
        buf = bytearray(struct.pack(INFO_FMT, size, *[0] * 8))
        fcntl.ioctl(self.fd, IOC_INFO, buf)
        v = struct.unpack(INFO_FMT, bytes(buf))[2:]
        return dict(zip(('qpn', 'max_msg', 'tx_window', 'tx_inflight',
                         'rx_queued', 'state', 'tx_flushed'), v))

    def set_window(self, n):
        fcntl.ioctl(self.fd, IOC_SET_WINDOW,
                    struct.pack(WINDOW_FMT, struct.calcsize(WINDOW_FMT), 0,
                                n))

    def drain(self):
        fcntl.ioctl(self.fd, IOC_DRAIN)

    def fionread(self):
        buf = array.array('i', [0])
        fcntl.ioctl(self.fd, FIONREAD, buf, True)
        return buf[0]

    def set_nonblock(self, on):
        fl = fcntl.fcntl(self.fd, fcntl.F_GETFL)
        fl = (fl | os.O_NONBLOCK) if on else (fl & ~os.O_NONBLOCK)
        fcntl.fcntl(self.fd, fcntl.F_SETFL, fl)

    def poll(self, events=select.POLLIN | select.POLLOUT, timeout=0.0):
        p = select.poll()
        p.register(self.fd, events)
        res = p.poll(int(timeout * 1000))
        return res[0][1] if res else 0

    def write(self, data):
        return os.write(self.fd, data)

    def read(self, size=1 << 20):
        return os.read(self.fd, size)

    def recv(self, timeout=10.0, size=1 << 20):
        """The next message, waiting up to timeout (None when none)."""
        if not self.poll(select.POLLIN, timeout) & select.POLLIN:
            return None
        return os.read(self.fd, size)

    def send(self, data, timeout=10.0):
        """Write one message, waiting up to timeout for window room."""
        end = time.monotonic() + timeout
        while True:
            try:
                return os.write(self.fd, data)
            except BlockingIOError:
                if time.monotonic() > end:
                    raise
                self.poll(select.POLLOUT, 0.2)


def pattern(qpn, seq, size):
    """The content of message seq of a QP: a 12-byte header (seq, qpn,
    size, little-endian) and bytes derived from them."""
    head = struct.pack('<III', seq, qpn, size)
    k = (seq * 131 + qpn * 7) & 0xff
    body = bytes((k + i * 29) & 0xff for i in range(min(size, 4096)))
    data = head + body * (size // len(body) + 1) if body else head
    return data[:size]


# ------------------------------------------------------------------ CLI ----

def chan_xfer(ch, qpn, rest):
    """chan ... xfer: send and receive at once (see chan_cli)."""
    sizes = [int(s) for s in rest[0].split(',')]
    seq0, peer, peer_seq0 = int(rest[1]), int(rest[2], 0), int(rest[3])
    tmo = float(rest[4]) if len(rest) > 4 else 60.0
    err = []

    def receive():
        for i, size in enumerate(sizes):
            m = ch.recv(tmo)
            want = pattern(peer, peer_seq0 + i, size)
            if m is None:
                err.append('message %d of %d from QP %d did not arrive in '
                           '%.0f s' % (i, len(sizes), peer, tmo))
                return
            if m != want:
                err.append('message %d from QP %d: %d bytes, want %d, '
                           'header %r' % (i, peer, len(m), len(want), m[:12]))
                return

    t = threading.Thread(target=receive)
    t.start()
    try:
        for i, size in enumerate(sizes):
            ch.send(pattern(qpn, seq0 + i, size), tmo)
        ch.drain()
    except OSError as e:
        err.append('send: %s' % e)
    t.join()
    if err:
        print('; '.join(err))
        return 1
    print('sent and received %d messages byte-exact' % len(sizes))
    return 0


def chan_cli(args):
    """chan NAME QPN CMD...: one process keeping a bound file:
         send SIZE[,SIZE...] [SEQ0]   write pattern messages (blocking)
         recv COUNT SIZE[,SIZE...] [SEQ0] [TIMEOUT]
                                      read and check COUNT messages
         xfer SIZE[,SIZE...] SEQ0 PEER_QPN PEER_SEQ0 [TIMEOUT]
                                      both ways on the one bound file:
                                      send the messages while a thread
                                      reads and checks as many from the
                                      peer QP (its pattern)
         fatal [TIMEOUT]              write one message, wait for POLLERR,
                                      DRAIN (the message completes
                                      flushed), then a write must fail
                                      ECONNRESET; prints the INFO fields
       Exit 0 when all went as expected, else 1 with the reason."""
    name, qpn, cmd = args[0], int(args[1], 0), args[2]
    rest = args[3:]
    with Chan(name, qpn) as ch:
        if cmd == 'send':
            sizes = [int(s) for s in rest[0].split(',')]
            seq0 = int(rest[1]) if len(rest) > 1 else 0
            for i, s in enumerate(sizes):
                ch.send(pattern(qpn, seq0 + i, s))
            ch.drain()
            print('sent %d messages' % len(sizes))
            return 0
        if cmd == 'xfer':
            return chan_xfer(ch, qpn, rest)
        if cmd == 'recv':
            count = int(rest[0])
            sizes = [int(s) for s in rest[1].split(',')]
            seq0 = int(rest[2]) if len(rest) > 2 else 0
            tmo = float(rest[3]) if len(rest) > 3 else 10.0
            for i in range(count):
                m = ch.recv(tmo)
                want = pattern(qpn, seq0 + i, sizes[i % len(sizes)])
                if m is None:
                    print('message %d of %d did not arrive in %.0f s'
                          % (i, count, tmo))
                    return 1
                if m != want:
                    print('message %d: %d bytes, want %d, header %r'
                          % (i, len(m), len(want), m[:12]))
                    return 1
            ch.set_nonblock(True)
            try:
                m = ch.read()
                print('one message more than expected: %d bytes' % len(m))
                return 1
            except BlockingIOError:
                pass
            print('received %d messages byte-exact' % count)
            return 0
        if cmd == 'fatal':
            tmo = float(rest[0]) if rest else 10.0
            ch.write(pattern(qpn, 0, 1000))
            ev = ch.poll(select.POLLIN | select.POLLOUT, 0)
            end = time.monotonic() + tmo
            while not ev & select.POLLERR and time.monotonic() < end:
                ev = ch.poll(select.POLLIN | select.POLLOUT, 0.1)
            info0 = ch.info()
            # DRAIN: every message of the file completed (here: flushed)
            signal.signal(signal.SIGALRM, lambda *a: None)
            signal.alarm(int(tmo))
            try:
                ch.drain()
                drained = ''
            except OSError as e:
                drained = 'DRAIN: %s' % e
            signal.alarm(0)
            info = ch.info()
            print('poll 0x%x, INFO then %s, after DRAIN %s'
                  % (ev, json.dumps(info0), json.dumps(info)))
            bad = [drained] if drained else []
            if not ev & select.POLLERR:
                bad.append('no POLLERR within %.0f s' % tmo)
            try:
                ch.write(b'x' * 10)
                bad.append('write succeeded on the fatal QP')
            except OSError as e:
                if e.errno != errno.ECONNRESET:
                    bad.append('write: %s, want ECONNRESET' % e)
            if info['state'] != 2:
                bad.append('INFO state %d, want 2 (fatal)' % info['state'])
            if info['tx_flushed'] < 1 or info['tx_inflight']:
                bad.append('INFO after DRAIN: tx_flushed %d (want >= 1), '
                           'tx_inflight %d (want 0)'
                           % (info['tx_flushed'], info['tx_inflight']))
            if bad:
                print('; '.join(bad))
                return 1
            return 0
    sys.stderr.write('chan: unknown command %s\n' % cmd)
    return 2


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        if cmd == 'devs':
            print('%s %s' % pick_pair())
        elif cmd == 'bdf':
            print(bdf_of(args[0]))
        elif cmd == 'restore-args':
            with open(args[0], encoding='utf-8') as f:
                saved = json.load(f)
            if isinstance(saved, list):
                saved = saved[0]
            print(' '.join(restore_args(saved, dev_show(args[1]), args[2:])))
        elif cmd == 'qpns':
            print(' '.join(str(q) for q in qpns(args[0])))
        elif cmd == 'get':
            obj = json.load(sys.stdin)
            for k in args:
                v = get_key(obj, k)
                print(onoff(v) if isinstance(v, bool) else v)
        elif cmd == 'chan':
            return chan_cli(args)
        else:
            sys.stderr.write('unknown command %s\n' % cmd)
            return 2
    except LookupError as e:
        if cmd == 'devs':
            print(str(e).strip("'\""))
            return KSFT_SKIP
        sys.stderr.write('%s: %s\n' % (cmd, e))
        return 1
    except (ToolError, OSError, ValueError) as e:
        sys.stderr.write('%s: %s\n' % (cmd, e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
