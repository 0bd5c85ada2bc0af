#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TCP over the TYPE3 netdevs of two wired boards (one network namespace
each): 64 MiB from A to B at MTU 1500, byte exact (sha256 at both ends),
the TX ring of A and the RX ring of B wrapped many times (packet counts of
ip -s link against the ring sizes of ethtool -g); then 16 MiB each way at
MTU 4078, where every full-size frame spans several RX MDs.  No error
counted on the way, every frame A sent is received or counted as a drop
by B, no kernel splat.  $RCLINK_TCP_MIB changes
the size of the first transfer.
"""

import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

MIB = 1 << 20
BIG_MIB = int(os.environ.get('RCLINK_TCP_MIB', '64'))
JUMBO_MIB = 16
MIN_WRAPS = 4
LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lib',
                   'rclinktest.py')


def transfer(src, dst, nbytes, port):
    """nbytes from side src to side dst over TCP; (sent, received) summaries
    (dicts with bytes, sha256, seconds)."""
    sink = dst.spawn([sys.executable, LIB, 'tcp_sink', dst.ip, str(port),
                      '500'])
    try:
        p = src.nsx(['timeout', '500', sys.executable, LIB, 'tcp_source',
                     dst.ip, str(port), '500', str(nbytes)], check_rc=False)
        out, _ = sink.communicate(timeout=60)
    finally:
        if sink.poll() is None:
            sink.kill()
            sink.wait()
    try:
        sent = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError) as e:
        raise rt.TestFailed('sender: exit %d: %s' % (p.returncode,
                                                     p.stdout)) from e
    try:
        got = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError) as e:
        raise rt.TestFailed('receiver: %s' % out) from e
    return sent, got


def stats_delta(before, after):
    d = {}
    for direction in ('rx', 'tx'):
        for k, v in after[direction].items():
            if isinstance(v, int):
                d['%s_%s' % (direction, k)] = v - before[direction].get(k, 0)
    return d


class TcpTest:
    def __init__(self, pair, ktap):
        self.pair = pair
        self.ktap = ktap
        self.deltas = {}
        self.ethtool0 = self.ethtool1 = {}

    def run_transfer(self, src, dst, mib, port, mtu):
        for side in (self.pair.a, self.pair.b):
            side.set_mtu(mtu)
        src.ping(count=1, timeout=2)        # ARP
        before = {s.name: s.stats64() for s in (src, dst)}
        self.ethtool0 = {s.name: s.ethtool_stats() for s in (src, dst)}
        sent, got = transfer(src, dst, mib * MIB, port)
        after = {s.name: s.stats64() for s in (src, dst)}
        self.ethtool1 = {s.name: s.ethtool_stats() for s in (src, dst)}
        self.deltas = {n: stats_delta(before[n], after[n]) for n in before}
        secs = got.get('seconds') or 1e-9
        self.ktap.diag('%s -> %s mtu %d: %d bytes in %.1f s (%.1f MB/s)'
                       % (src.name, dst.name, mtu, got['bytes'], secs,
                          got['bytes'] / secs / 1e6))
        check(sent['bytes'] == mib * MIB,
              'sender sent %d bytes, want %d' % (sent['bytes'], mib * MIB))
        check(got['bytes'] == sent['bytes'],
              'receiver got %d bytes of %d' % (got['bytes'], sent['bytes']))
        check(got['sha256'] == sent['sha256'],
              'sha256 differs: sent %s received %s'
              % (sent['sha256'], got['sha256']))
        self.check_no_drops(src, dst)

    def fmt(self, side):
        return ' '.join('%s%+d' % (k, v) for k, v in
                        sorted(self.deltas[side.name].items()) if v)

    def check_no_drops(self, src, dst):
        """No error counted on the way (a counted drop, e.g. RX ring full
        under load, is allowed: TCP resends)."""
        errs = []
        for s in (src, dst):
            d = self.deltas[s.name]
            drops = ['%s +%d' % (k, d[k]) for k in
                     ('rx_dropped', 'tx_dropped', 'rx_missed_errors',
                      'rx_over_errors', 'rx_fifo_errors') if d.get(k)]
            if drops:
                self.ktap.diag('%s: %s' % (s.name, ', '.join(drops)))
            for k in ('rx_errors', 'tx_errors', 'rx_crc_errors',
                      'rx_length_errors', 'rx_frame_errors'):
                if d.get(k):
                    errs.append('%s %s +%d' % (s.name, k, d[k]))
        check(not errs, ', '.join(errs))

    def check_wraps(self, src, dst):
        tx_ring = src.rings().get('tx')
        rx_ring = dst.rings().get('rx')
        check(tx_ring and rx_ring, 'no ring sizes from ethtool -g')
        txp = self.deltas[src.name]['tx_packets']
        rxp = self.deltas[dst.name]['rx_packets']
        self.ktap.diag('%s tx %d packets on a ring of %d (%.0f wraps), '
                       '%s rx %d packets on a ring of %d (%.0f wraps)'
                       % (src.name, txp, tx_ring, txp / tx_ring, dst.name,
                          rxp, rx_ring, rxp / rx_ring))
        check(txp >= MIN_WRAPS * tx_ring, 'TX ring wrapped %.1f times'
              % (txp / tx_ring))
        check(rxp >= MIN_WRAPS * rx_ring, 'RX ring wrapped %.1f times'
              % (rxp / rx_ring))
        # The peer's view agrees: everything A sent, B received, or B
        # counted where it went (no silent loss).
        brx = self.deltas[dst.name]['rx_packets']
        if brx < txp:
            self.ktap.diag('%s stats64 %s' % (src.name, self.fmt(src)))
            self.ktap.diag('%s stats64 %s' % (dst.name, self.fmt(dst)))
            for s in (src, dst):
                self.ktap.diag('%s ethtool -S %s' % (s.name, rt.fmt_delta(
                    rt.delta(self.ethtool0.get(s.name, {}),
                             self.ethtool1.get(s.name, {})))))
        dst_drops = sum(self.deltas[dst.name].get(k, 0)
                        for k in ('rx_dropped', 'rx_missed_errors',
                                  'rx_errors', 'rx_over_errors',
                                  'rx_fifo_errors'))
        check(brx + dst_drops >= txp,
              '%s sent %d packets, %s received %d and counted %d drops'
              % (src.name, txp, dst.name, brx, dst_drops))

    def check_big_frames(self, dst):
        d = self.deltas[dst.name]
        avg = d['rx_bytes'] / max(d['rx_packets'], 1)
        self.ktap.diag('%s: %d packets, %.0f bytes on average'
                       % (dst.name, d['rx_packets'], avg))
        # Full-size segments of 4078 - 52 bytes dominate the data direction:
        # the frames were longer than one 2 KiB RX buffer.
        check(avg > 2048, 'average RX frame %.0f bytes: no multi-MD frames'
              % avg)


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    pair = rt.T3Pair()
    try:
        try:
            pair.__enter__()
        except rt.SkipTest as e:
            ktap.skip_all(str(e))
        marker = rt.kmsg_mark('t3_tcp')
        a, b = pair.a, pair.b
        ktap.diag('A: %s %s, B: %s %s' % (a.bdf, a.dev, b.bdf, b.dev))
        t = TcpTest(pair, ktap)
        ktap.plan(7)
        ok = ktap.run('tcp_%dmib_a_to_b_mtu1500' % BIG_MIB, t.run_transfer,
                      a, b, BIG_MIB, 5301, 1500)
        if t.deltas:
            ktap.run('rings_wrapped', t.check_wraps, a, b)
        else:
            ktap.skip('rings_wrapped', 'no transfer')
        del ok
        for name, src, dst, port in (('a_to_b', a, b, 5302),
                                     ('b_to_a', b, a, 5303)):
            t.deltas = {}
            ktap.run('tcp_%dmib_%s_mtu%d' % (JUMBO_MIB, name, rt.T3_MTU_MAX),
                     t.run_transfer, src, dst, JUMBO_MIB, port,
                     rt.T3_MTU_MAX)
            if t.deltas:
                ktap.run('rx_multi_md_frames_%s' % name, t.check_big_frames,
                         dst)
            else:
                ktap.skip('rx_multi_md_frames_%s' % name, 'no transfer')

        def log_clean():
            bad = rt.kmsg_problems(rt.kmsg_since(marker), errors=False)
            check(not bad, '\n'.join(bad))
        ktap.run('kernel_log_clean', log_clean)
    finally:
        pair.__exit__(None, None, None)
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
