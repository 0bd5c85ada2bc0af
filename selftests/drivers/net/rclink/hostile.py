#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A board that lies (the model's hostile-device mode, Documentation/hw/
shim.rst "Hostile-device mode"): seeded random event records, bogus CQEs
(wrong kind, status, QP, index and lengths), TYPE3 MDs claiming more data
than their buffer, busy bits that never clear, while TYPE1 messages and
TYPE3 frames flow.  The driver must count and survive it all:

  * every system call returns within its timeout (nothing hangs);
  * the lies show up in the driver's counters (CQE errors and receive
    drops of the queue engine in debugfs "t1", rx_md_size_err in ethtool -S,
    the events of debugfs "events");
  * `rclink qp del` with a busy bit stuck returns, with an error or not;
  * after the lies stop and a function reset, both boards carry messages
    byte-exact again;
  * the kernel log has no splat.

Environment: RCLINK_HOSTILE_SEED (default 1), RCLINK_HOSTILE_PPM (default
20000), RCLINK_HOSTILE_MSGS (default 400).  Needs BAR0 access (boot with
iomem=relaxed) and the model's hostile mode, else SKIP.
"""

import os
import random
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
import pci_faults as pf  # noqa: E402  pylint: disable=wrong-import-position

SEED = int(os.environ.get('RCLINK_HOSTILE_SEED', '1'), 0)
PPM = int(os.environ.get('RCLINK_HOSTILE_PPM', '20000'), 0)
MSGS = int(os.environ.get('RCLINK_HOSTILE_MSGS', '400'), 0)
QP = pf.QP


def dbg_counters(bdf, name):
    """name value lines of a debugfs file of the board: a dict."""
    res = {}
    try:
        with open(rt.dbg_path(bdf, name), encoding='ascii') as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[1].isdigit():
                    res[parts[0]] = int(parts[1])
    except OSError:
        pass
    return res


def ethtool_stat(ifname, key):
    r = subprocess.run(['ethtool', '-S', ifname], capture_output=True,
                       text=True, check=False)
    for line in r.stdout.splitlines():
        k, _, v = line.strip().partition(':')
        if k == key:
            return int(v)
    return 0


def lies(bdf):
    with rt.Bar0(bdf) as bar:
        return bar.read('SHIM_HOSTILE_COUNT')


def t1_traffic(pair, ktap, n, deadline):
    """n messages A -> B and as many B -> A, non-blocking, never waiting
    past deadline; returns (sent, received)."""
    rnd = random.Random(SEED)
    sent = recvd = 0
    with t1.Chan(pair.name('A'), QP, nonblock=True) as ca, \
            t1.Chan(pair.name('B'), QP, nonblock=True) as cb:
        todo = [(ca, cb)] * n + [(cb, ca)] * n
        rnd.shuffle(todo)
        for tx, _ in todo:
            if time.monotonic() > deadline:
                break
            try:
                tx.send(t1.pattern(QP, sent, rnd.randint(1, 20000)), 2)
                sent += 1
            except OSError as e:
                ktap.diag('send: %s' % e)
            for ch in (ca, cb):
                try:
                    while True:
                        ch.read()
                        recvd += 1
                except OSError:
                    pass
        end = min(deadline, time.monotonic() + 5)
        while time.monotonic() < end and recvd < sent:
            for ch in (ca, cb):
                try:
                    ch.read()
                    recvd += 1
                except OSError:
                    time.sleep(0.05)
    return sent, recvd


def t3_frames(src_if, count):
    """Broadcast TYPE3 frames (Ethernet type 0x9000) from src_if."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((src_if, 0))
    mac = open('/sys/class/net/%s/address' % src_if,
               encoding='ascii').read().strip()
    # Ethernet type 0x9000 (loopback): TYPE3 for the classifier whatever
    # the header format (0x88b5 is the AFH TYPE1 type)
    hdr = b'\xff' * 6 + bytes.fromhex(mac.replace(':', '')) + b'\x90\x00'
    sent = 0
    for i in range(count):
        try:
            s.send(hdr + bytes([i & 0xff]) * (60 + (i * 37) % 1400))
            sent += 1
        except OSError:
            time.sleep(0.001)
    s.close()
    return sent


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    try:
        pair = pf.Pair()
    except (LookupError, t1.ToolError) as e:
        ktap.skip_all(str(e))
    bdf = pair.bdf
    r = subprocess.run([sys.executable, os.path.join(pf.HERE, 'lib',
                                                     'rclink_hostile.py'),
                        bdf['A'], 'show'], capture_output=True, text=True,
                       check=False)
    if r.returncode:
        ktap.skip_all('hostile mode: %s' % r.stderr.strip())
    try:
        pf.hostile(bdf['A'], 'ppm=1', 'evt')
        pf.hostile(bdf['A'], 'off')
    except rt.SkipTest as e:
        ktap.skip_all(str(e))
    ktap.plan(6)
    marker = rt.kmsg_mark('hostile')

    ifs = {s: rt.netdev_of(bdf[s]) for s in 'AB'}

    def lying_traffic(kinds):
        """TYPE1 and TYPE3 traffic while both boards tell these lies; the
        counters that moved (t1 of debugfs, events, rx_md_size_err)."""
        pair.qp_fresh()
        for s in 'AB':
            subprocess.run(['ip', 'link', 'set', ifs[s], 'up'], check=False)
        t1b = {s: dbg_counters(bdf[s], 't1') for s in 'AB'}
        evb = {s: dbg_counters(bdf[s], 'events') for s in 'AB'}
        md0 = ethtool_stat(ifs['B'], 'rx_md_size_err')
        mark = rt.kmsg_mark('hostile ' + ' '.join(kinds))
        for s in 'AB':
            pf.hostile(bdf[s], 'seed=%d' % (SEED + ord(s)), 'ppm=%d' % PPM,
                       *kinds)
        t0 = time.monotonic()
        sent, recvd = t1_traffic(pair, ktap, MSGS, t0 + 60)
        frames = t3_frames(ifs['A'], 3000)
        time.sleep(1)
        told = {s: lies(bdf[s]) for s in 'AB'}
        for s in 'AB':
            pf.hostile(bdf[s], 'off')
        res = {'md': ethtool_stat(ifs['B'], 'rx_md_size_err') - md0,
               'told': told['A'] + told['B']}
        ktap.diag('%s: TYPE1 %d sent, %d received in %.1f s; %d TYPE3 '
                  'frames; lies told A %d B %d; rx_md_size_err at B +%d'
                  % ('+'.join(kinds), sent, recvd, time.monotonic() - t0,
                     frames, told['A'], told['B'], res['md']))
        for s in 'AB':
            for name, before in (('t1', t1b[s]), ('events', evb[s])):
                now = dbg_counters(bdf[s], name)
                d = {k: now[k] - before.get(k, 0) for k in now
                     if now[k] != before.get(k, 0)}
                ktap.diag('%s %s moved: %s' % (s, name, ' '.join(
                    '%s+%d' % kv for kv in sorted(d.items()))))
                for k, v in d.items():
                    res[k] = res.get(k, 0) + v
        lines = [t for _, _, t in rt.kmsg_since(mark) if 'rclink' in t]
        for t in lines[:12]:
            ktap.diag('  kernel: %s' % t)
        if len(lines) > 12:
            ktap.diag('  kernel: ... %d lines more' % (len(lines) - 12))
        return res

    def cqe_md_lies():
        r = lying_traffic(['cqe', 'md'])
        rt.check(r['told'] > 0, 'no lie was told')
        rt.check(r.get('cqe_errors', 0) > 0, 'no bogus CQE was counted '
                 '(cqe_errors)')
        rt.check(r['md'] > 0, 'no oversized MD counted in rx_md_size_err')
    ktap.run('cqe_md_lies_counted', cqe_md_lies)

    def event_lies():
        r = lying_traffic(['evt'])
        rt.check(r['told'] > 0, 'no lie was told')
        rt.check(sum(v for k, v in r.items()
                     if k not in ('md', 'told')) > 0,
                 'no counter of the driver moved')
    ktap.run('event_lies_survived', event_lies)

    def busy_stuck():
        pf.hostile(bdf['A'], 'busy')
        t0 = time.monotonic()
        rc, out = t1.tool(['qp', 'del', 'dev', pair.name('A'), 'qpn',
                           str(QP)], check=False, timeout=60)
        pf.hostile(bdf['A'], 'off')
        ktap.diag('qp del with busy stuck: exit %d in %.1f s: %s'
                  % (rc, time.monotonic() - t0, out.strip()))
        rt.check(time.monotonic() - t0 < 30, 'qp del took too long')
    ktap.run('busy_stuck_returns', busy_stuck)

    def reset_both():
        for s in 'AB':
            pf.sysfs(rt.pci_path(bdf[s]) + 'reset', '1')
        for s in 'AB':
            pair.name(s, 30)
    ktap.run('function_reset', reset_both)
    ktap.run('traffic_after', pf.traffic_ok, pair)

    def log_clean():
        bad = rt.kmsg_problems(rt.kmsg_since(marker), errors=False)
        rt.check(not bad, 'kernel log: %s' % ' | '.join(bad[:5]))
    ktap.run('kernel_log_clean', log_clean)
    for s in 'AB':
        try:
            pf.hostile(bdf[s], 'off')
        except (rt.SkipTest, rt.TestFailed):
            pass
    pair.cleanup()
    mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
