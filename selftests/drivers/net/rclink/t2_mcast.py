#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE2 multicast between the boards of a pair (seed 000, TYPE2;
Documentation/hw/shim.rst, "TYPE2: multicast"):

  deliver         A's file bound to group 3 (RCLINK_BIND_MCAST) sends
                  messages of 1..TYPE2_PKT_LEN-8 bytes; B, joined, reads
                  each once, in order, intact; the counters agree
  oversize        a message over TYPE2_PKT_LEN-8 bytes: EMSGSIZE
  not_member      B leaves the group: nothing arrives, each frame is counted
                  in B's t2_rx_drop_nogroup; a group whose MAC differs on
                  B is not the same group
  loss_counted    30 % loss on A's wire: what B gets plus t2_rx_lost is what
                  A sent, exactly (unreliability visible, not hidden)
  duplicates      every frame twice on the wire: each message once, the
                  copies counted in t2_rx_drop_old
                  (on a B that does not count t2_rx_lost or t2_rx_drop_old,
                  SHIM_CAP3.ip_counters 0 as on the RTL, that assertion
                  is skipped, saying so)
  formats         the same in AFH_GEN1 with and without TC, AFH_GEN2_16b
                  (Key_words M = 1) and AFH_Lite (TYPE2's VC 5 in the TC);
                  with the wire capture ($RCLINK_RESULTS/wire.pcap) tshark
                  and tools/wireshark/rclink.lua decode every TYPE2 frame:
                  TYPE2, the format, the group in DEST_QP, Key_words 0x83
  refused         group 8, a unicast group MAC, an unknown group on bind
  credits_ost     the MAC keeps its multicast credits (model hook
                  SHIM_CC_TEST.t2_crd_hold): of 1000-byte messages, as many
                  as the 2048 cells hold go out, the next 16 wait in the
                  IP's TYPE2 buffers (t2_ost_free 0, tx_wait_mac_crd 1), the
                  rest in the send queue; nothing is lost: with the credits
                  back every message arrives, in order, and t2_crd,
                  t2_ost_free and tx_idle are back
  ost_link_down   the same 16 waiting in the IP and 4 in the send queue
                  when A's link goes down: all 20 complete FLUSHED
                  (tx_flushed), t2_ost_free is 16 again, nothing more
                  arrives; with the link back a message goes through
  rate            t2_rate 4101562500bit (2100 bytes per 4.096 us window) on
                  windows ended one by one (SHIM_CC_TEST.manual), shown
                  back as t2_rate: the rate is the IP's policer (seed 000,
                  TYPE2 code 1: over-rate packets are dropped): of
                  1008-byte packets 3 go in the first window, the 4th is
                  dropped with IRQ_INFO TYPE2 code 1 (event t2_tx_oversize
                  +1); after a window end (acc_cnt 3024 - 2100 carried) 2
                  go and the 3rd is dropped; every send completes (the
                  shim handed them to the IP); too fast for the window:
                  refused
"""

import errno
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
import rclink_wire as rw  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413
import t1_wire as tw  # noqa: E402  pylint: disable=wrong-import-position
import t1_formats as tf  # noqa: E402  pylint: disable=wrong-import-position

BIND_MCAST = 1
LITE_VC_TYPE2 = hw.FORMATS['AFH'][2]['LITE_VC_TYPE2']
G = 3
MAX = 1344 - 8


def is_type2(d):
    """A TYPE2 frame of the defaults: UDP port 4792, Ethernet type 0x88b6,
    or AFH_Lite's 0x88b5 with TYPE2's VC in the TC (MAC_DA[47:40]), after
    an optional VLAN tag."""
    off = 12
    if len(d) < 18:
        return False
    et = struct.unpack('>H', d[off:off + 2])[0]
    if et == 0x8100:
        off += 4
        et = struct.unpack('>H', d[off:off + 2])[0]
    if et == 0x88b6 or (et == 0x88b5 and d[0] == LITE_VC_TYPE2):
        return True
    if et != 0x0800 or len(d) < off + 2 + 24 or d[off + 2 + 9] != 17:
        return False
    ihl = (d[off + 2] & 15) * 4
    return struct.unpack('>H', d[off + 2 + ihl + 2:off + 2 + ihl + 4])[0] == 4792


class McastTest:
    def __init__(self, ktap):
        self.ktap = ktap
        self.a = self.b = None
        self.saved = {}

    def setup(self):
        self.a, self.b = t1.pick_pair()
        for d in (self.a, self.b):
            self.saved[d] = (t1.dev_show(d), t1.tool_json(
                ['mcast', 'show', 'dev', d]))
        for d in (self.a, self.b):
            for g in range(8):
                t1.tool(['mcast', 'set', 'dev', d, 'group', g, 'join', 'off'])

    def restore(self):
        for d, (dev, groups) in self.saved.items():
            for grp in groups:
                on = grp['join'] in (True, 'on', 1)
                t1.tool(['mcast', 'set', 'dev', d, 'group', grp['group'],
                         'mac', grp['mac'], 'join', 'on' if on else 'off'],
                        check=False)
            args = t1.restore_args(dev, t1.dev_show(d))
            if args:
                t1.tool(['dev', 'set', 'dev', d] + args, check=False)
        with rw.Wire(self.a) as w:
            w.off()

    @staticmethod
    def stats(d):
        st = t1.dev_show(d, stats=True)['stats']
        return {k: int(v) for k, v in st.items() if k.startswith('t2_')}

    def delta(self, d, before):
        now = self.stats(d)
        return {k: now[k] - before[k] for k in now if now[k] != before[k]}

    def chans(self, ga=G, gb=G):
        ca = t1.Chan(self.a)
        ca.bind(ga, BIND_MCAST)
        cb = t1.Chan(self.b)
        cb.bind(gb, BIND_MCAST)
        return ca, cb

    def join(self, d, g, on=True):
        t1.tool(['mcast', 'set', 'dev', d, 'group', g, 'join',
                 'on' if on else 'off'])

    def send_all(self, ca, msgs):
        for m in msgs:
            check(ca.send(m) == len(m), 'short write')
        ca.drain()

    def test_deliver(self):
        self.join(self.b, G)
        msgs = [t1.pattern(G, k, n) for k, n in
                enumerate((1, 7, 8, 100, 119, 120, 1000, MAX))]
        sa, sb = self.stats(self.a), self.stats(self.b)
        ca, cb = self.chans()
        with ca, cb:
            self.send_all(ca, msgs)
            for k, m in enumerate(msgs):
                got = cb.recv(10)
                check(got == m, 'message %d (%d bytes): %r' % (
                    k, len(m), None if got is None else len(got)))
            check(cb.poll(select.POLLIN, 0.3) == 0, 'a message too many')
        da, db = self.delta(self.a, sa), self.delta(self.b, sb)
        self.ktap.diag('A %s; B %s' % (da, db))
        check(da.get('t2_tx_pkts') == len(msgs), 'A t2_tx_pkts +%s, want %d'
              % (da.get('t2_tx_pkts'), len(msgs)))
        check(db == {'t2_rx_pkts': len(msgs)}, 'B counters %s, want only '
              't2_rx_pkts +%d' % (db, len(msgs)))
        grp = t1.tool_json(['-s', 'mcast', 'show', 'dev', self.b, 'group',
                            G])[0]
        check(int(grp['stats']['rx_msgs']) >= len(msgs) and
              grp['join'] in ('on', True, 1), 'B group %d: %s' % (G, grp))
        check(grp['mac'] == '01:00:5e:52:43:%02x' % G, 'default MAC of group '
              '%d: %s' % (G, grp['mac']))

    def test_oversize(self):
        ca = t1.Chan(self.a)
        ca.bind(G, BIND_MCAST)
        with ca:
            try:
                ca.write(bytes(MAX + 1))
            except OSError as e:
                check(e.errno == errno.EMSGSIZE, 'errno %d' % e.errno)
            else:
                raise rt.TestFailed('%d bytes accepted' % (MAX + 1))
            info = ca.info()
            check(info['qpn'] == G, 'info qpn %d' % info['qpn'])

    def test_not_member(self):
        self.join(self.b, G, False)
        sb = self.stats(self.b)
        ca, cb = self.chans()
        with ca, cb:
            self.send_all(ca, [t1.pattern(G, k, 50) for k in range(5)])
            check(cb.poll(select.POLLIN, 1.0) == 0, 'a non-member received')
        db = self.delta(self.b, sb)
        check(db == {'t2_rx_drop_nogroup': 5}, 'B %s, want '
              't2_rx_drop_nogroup +5' % db)
        # group 5 joined on B, but with another MAC than A's group 5
        t1.tool(['mcast', 'set', 'dev', self.b, 'group', 5, 'mac',
                 '01:00:5e:11:22:33', 'join', 'on'])
        sb = self.stats(self.b)
        ca, cb = self.chans(5, 5)
        with ca, cb:
            self.send_all(ca, [b'x' * 64])
            check(cb.poll(select.POLLIN, 1.0) == 0, 'another group received')
            check(self.delta(self.b, sb) == {'t2_rx_drop_nogroup': 1},
                  'B %s' % self.delta(self.b, sb))
            mac_a = t1.tool_json(['mcast', 'show', 'dev', self.a, 'group',
                                  5])[0]['mac']
            t1.tool(['mcast', 'set', 'dev', self.b, 'group', 5, 'mac', mac_a])
            self.send_all(ca, [b'y' * 64])
            check(cb.recv(10) == b'y' * 64, 'same MAC: not delivered')
        self.join(self.b, 5, False)

    def test_loss_counted(self):
        self.join(self.b, G)
        n = 60
        sb = self.stats(self.b)
        ca, cb = self.chans()
        with ca, cb, rw.Wire(self.a) as w:
            w.seed(7)
            w.set(loss=300000)
            self.send_all(ca, [t1.pattern(G, k, 200) for k in range(n)])
            w.set(loss=0)
            self.send_all(ca, [b'last'])
            got = 0
            while True:
                m = cb.recv(5)
                check(m is not None, 'the last message did not arrive')
                if m == b'last':
                    break
                got += 1
        db = self.delta(self.b, sb)
        self.ktap.diag('%d of %d arrived, B %s' % (got, n, db))
        check(0 < got < n, '%d of %d arrived at 30%% loss' % (got, n))
        if t1.counted(sb, 't2_rx_lost'):
            check(db.get('t2_rx_lost', 0) == n - got, 't2_rx_lost +%s, '
                  'want %d' % (db.get('t2_rx_lost'), n - got))
        else:
            t1.not_counted(self.ktap, 'lost = sent - received',
                           ['t2_rx_lost'])
        check(db.get('t2_rx_pkts') == got + 1, 't2_rx_pkts +%s, want %d'
              % (db.get('t2_rx_pkts'), got + 1))

    def test_duplicates(self):
        self.join(self.b, G)
        n = 10
        msgs = [t1.pattern(G, k, 300) for k in range(n)]
        sb = self.stats(self.b)
        ca, cb = self.chans()
        with ca, cb, rw.Wire(self.a) as w:
            w.set(dup=1000000)
            self.send_all(ca, msgs)
            for k, m in enumerate(msgs):
                check(cb.recv(10) == m, 'message %d' % k)
            check(cb.poll(select.POLLIN, 0.5) == 0, 'a copy was delivered')
            w.set(dup=0)
        db = self.delta(self.b, sb)
        want = {'t2_rx_pkts': n, 't2_rx_drop_old': n}
        if not t1.counted(sb, 't2_rx_drop_old'):
            t1.not_counted(self.ktap, 'each copy counted',
                           ['t2_rx_drop_old'])
            del want['t2_rx_drop_old']
        check(db == want, 'B %s, want %s' % (db, ' '.join(
            '%s +%d' % kv for kv in sorted(want.items()))))

    def test_formats(self):
        self.join(self.b, G)
        pcap = rt.wire_pcap()
        decode = pcap and tw.have_tshark() and tf.lua_path()
        if not decode:
            self.ktap.diag('no wire capture or tshark: delivery only')
        for fmt in ('gen1', 'gen1-tc', 'gen2', 'lite', 'std'):
            for d in (self.a, self.b):
                t1.tool(['dev', 'set', 'dev', d, 'format', fmt])
            msgs = [t1.pattern(G, k, n) for k, n in enumerate((5, 500, MAX))]
            size0 = os.path.getsize(pcap) if decode else 0
            ca, cb = self.chans()
            with ca, cb:
                self.send_all(ca, msgs)
                for k, m in enumerate(msgs):
                    got = cb.recv(10)
                    check(got == m, '%s: message %d: %r' % (
                        fmt, k, None if got is None else len(got)))
            if decode:
                self.decode(pcap, size0, fmt, len(msgs))

    def decode(self, pcap, size0, fmt, n):
        """tshark + rclink.lua on the TYPE2 frames of the capture."""
        frames = []
        for _ in range(20):
            recs, head = tw.pcap_records(pcap, size0)
            frames = [r for r in recs if is_type2(r[1])]
            if len(frames) >= n:
                break
            subprocess.run(['sleep', '0.5'], check=False)
        check(len(frames) == n, '%s: %d TYPE2 frames on the wire, want %d'
              % (fmt, len(frames), n))
        fields = ('rclink.type', 'rclink.format', 'rclink.rh.dest_qp',
                  'rclink.kw', 'rclink.seg.msg_len', '_ws.malformed',
                  '_ws.expert')
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 't2.pcap')
            tw.pcap_write(p, head[0], frames)
            cmd = ['tshark', '-n', '-r', p, '-X', 'lua_script:' + tf.lua_path(),
                   '-T', 'fields', '-E', 'separator=|']
            if fmt in ('lite', 'gen1-tc'):
                # not told apart from GEN1 by their header
                cmd += ['-o', 'rclink.afh:' + fmt]
            for x in fields:
                cmd += ['-e', x]
            out = subprocess.run(cmd, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE,
                                 universal_newlines=True, check=False,
                                 timeout=300)
        rows = [dict(zip(fields, ln.split('|')))
                for ln in out.stdout.splitlines()]
        check(len(rows) == n, '%s: tshark decoded %d frames: %s'
              % (fmt, len(rows), out.stderr[-500:]))
        want_fmt = 'standard' if fmt == 'std' else fmt
        for i, r in enumerate(rows):
            # AFH_GEN2_16b puts Key_words with M = 1 in MAC_SA[47:40]: the
            # I/G bit of the source address, which Ethernet flags
            # (Documentation/hw/formats.rst); nothing else may be flagged
            expert = r['_ws.expert']
            if fmt == 'gen2':
                expert = re.sub(r'Expert Info \([^)]*\): Source MAC must not '
                                r'be a group address[^,]*(, Section [^,]*)?',
                                '', expert)
            expert = expert.strip(' ,')
            check(r['rclink.type'] == '2' and r['rclink.format'] == want_fmt
                  and r['rclink.rh.dest_qp'] == str(G)
                  and not r['_ws.malformed'] and not expert,
                  '%s: frame %d decoded as %s' % (fmt, i, r))
            if fmt == 'gen2':
                check(int(r['rclink.kw'], 0) == 0x83, 'Key_words %s'
                      % r['rclink.kw'])
        self.ktap.diag('%s: %d TYPE2 frames decoded by tshark' % (fmt, n))

    def test_refused(self):
        for args, msg in ((['group', 8, 'join', 'on'], 'group'),
                          (['group', 1, 'mac', '02:00:00:00:00:01'],
                           'multicast'),
                          (['group', 1, 'mac', '01:00:5e:52:43:02'],
                           'another group')):
            try:
                t1.tool(['mcast', 'set', 'dev', self.a] + args)
            except t1.ToolError as e:
                check(msg in str(e), '%s: %s' % (args, e))
            else:
                raise rt.TestFailed('%s accepted' % args)
        with t1.Chan(self.a) as ch:
            for g, flags, err in ((8, BIND_MCAST, errno.ERANGE),
                                  (1, 2, errno.EINVAL)):
                try:
                    ch.bind(g, flags)
                except OSError as e:
                    check(e.errno == err, 'bind %d flags %d: errno %d'
                          % (g, flags, e.errno))
                else:
                    raise rt.TestFailed('bind %d flags %d accepted'
                                        % (g, flags))


    def arrive(self, cb, msgs, first):
        """msgs[first:] arrive at cb in order (10 s each)."""
        for k in range(first, len(msgs)):
            got = cb.recv(10)
            if got != msgs[k]:
                # where it went: B's TYPE2 receive counters
                st = t1.dev_show(self.b, stats=True)['stats']
                check(False, 'message %d: %r; B: %s' % (
                    k, None if got is None else len(got),
                    {n: v for n, v in st.items()
                     if n.startswith('t2_rx') and v}))

    def hold_credits(self, bar, ca, cb):
        """The MAC keeps the multicast credits it would return
        (SHIM_CC_TEST.t2_crd_hold); one 1000-byte message goes A -> B.
        Returns ([that message], the cells its frame took)."""
        ca.set_window(1024)
        bar.write('SHIM_CC_TEST', 4)        # t2_crd_hold
        msgs = [t1.pattern(G, 0, 1000)]
        self.send_all(ca, msgs)
        self.arrive(cb, msgs, 0)
        return msgs, 2048 - int(t1.dev_show(self.a, stats=True)[
            'stats']['t2_crd'])

    def test_credits_ost(self):
        self.join(self.b, G)
        st = t1.dev_show(self.a, stats=True)['stats']
        check((st['t2_crd'], st['t2_ost_free'], st['tx_wait_mac_crd']) ==
              (2048, 16, 0), 'idle: t2_crd %s t2_ost_free %s '
              'tx_wait_mac_crd %s' % (st['t2_crd'], st['t2_ost_free'],
                                      st['tx_wait_mac_crd']))
        bar = rt.Bar0(t1.bdf_of(self.a))
        ca, cb = self.chans()
        try:
            with ca, cb:
                msgs, cells = self.hold_credits(bar, ca, cb)
                check(0 < cells <= 16, 'one frame took %d cells' % cells)
                fit = 2048 // cells
                msgs += [t1.pattern(G, k, 1000) for k in range(1, fit + 20)]
                for m in msgs[1:]:
                    check(ca.write(m) == len(m), 'short write')
                self.arrive(cb, msgs[:fit], 1)
                check(cb.poll(select.POLLIN, 0.5) == 0, 'more than the %d '
                      'messages the credits allow arrived' % fit)
                st = t1.dev_show(self.a, stats=True)['stats']
                info = ca.info()
                self.ktap.diag('%d cells a frame, %d sent; held: %s, '
                               'in flight %d' % (cells, fit, {
                                   k: st[k] for k in ('t2_crd', 't2_ost_free',
                                                      'tx_wait_mac_crd',
                                                      'tx_idle')},
                                   info['tx_inflight']))
                check(int(st['t2_crd']) == 2048 - fit * cells and
                      int(st['t2_ost_free']) == 0 and
                      int(st['tx_wait_mac_crd']) == 1 and
                      int(st['tx_idle']) == 0,
                      'credits held: t2_crd %s (want %d), t2_ost_free %s, '
                      'tx_wait_mac_crd %s, tx_idle %s' % (
                          st['t2_crd'], 2048 - fit * cells, st['t2_ost_free'],
                          st['tx_wait_mac_crd'], st['tx_idle']))
                check(info['tx_inflight'] == 20, '%d messages in flight, want '
                      '20 (16 in the IP, 4 in the send queue)'
                      % info['tx_inflight'])
                bar.write('SHIM_CC_TEST', 0)
                self.arrive(cb, msgs, fit)
                ca.drain()
                check(cb.poll(select.POLLIN, 0.3) == 0, 'a message too many')
        finally:
            bar.write('SHIM_CC_TEST', 0)
            bar.close()
        st = t1.dev_show(self.a, stats=True)['stats']
        check((int(st['t2_crd']), int(st['t2_ost_free']),
               int(st['tx_wait_mac_crd']), int(st['tx_idle'])) ==
              (2048, 16, 0, 1), 'credits back: %s' % st)

    def test_ost_link_down(self):
        self.join(self.b, G)
        bar = rt.Bar0(t1.bdf_of(self.a))
        ca, cb = self.chans()
        try:
            with ca, cb:
                _, cells = self.hold_credits(bar, ca, cb)
                check(cells > 0, 'no credit taken')
                fit = 2048 // cells - 1
                msgs = [t1.pattern(G, k, 1000) for k in range(1, fit + 21)]
                for m in msgs:
                    check(ca.write(m) == len(m), 'short write')
                self.arrive(cb, msgs[:fit], 0)
                deadline = time.monotonic() + 10
                while ca.info()['tx_inflight'] != 20:
                    check(time.monotonic() < deadline, '%d in flight, want 20'
                          % ca.info()['tx_inflight'])
                    time.sleep(0.05)
                flushed0 = ca.info()['tx_flushed']
                bar.write('SHIM_LINK', rt.fval('SHIM_LINK', 'force_down', 1))
                deadline = time.monotonic() + 10
                while ca.info()['tx_inflight']:
                    check(time.monotonic() < deadline, '%d still in flight '
                          'with the link down' % ca.info()['tx_inflight'])
                    time.sleep(0.05)
                info = ca.info()
                st = t1.dev_show(self.a, stats=True)['stats']
                self.ktap.diag('link down: %d flushed, t2_ost_free %s'
                               % (info['tx_flushed'] - flushed0,
                                  st['t2_ost_free']))
                check(info['tx_flushed'] - flushed0 == 20 and
                      int(st['t2_ost_free']) == 16,
                      'link down: %d flushed (want 20), t2_ost_free %s'
                      % (info['tx_flushed'] - flushed0, st['t2_ost_free']))
                bar.write('SHIM_CC_TEST', 0)
                bar.write('SHIM_LINK', 0)
                deadline = time.monotonic() + 10
                while not bar.rfield('SHIM_LINK', 'up'):
                    check(time.monotonic() < deadline, 'link not back up')
                    time.sleep(0.05)
                check(cb.poll(select.POLLIN, 0.5) == 0, 'a flushed message '
                      'arrived')
                last = [t1.pattern(G, 99, 500)]
                self.send_all(ca, last)
                self.arrive(cb, last, 0)
        finally:
            bar.write('SHIM_LINK', 0)
            bar.write('SHIM_CC_TEST', 0)
            bar.close()

    def test_rate(self):
        self.join(self.b, G)
        t1.tool(['dev', 'set', 'dev', self.a, 't2_rate', '4101562500bit'])
        _, shown = t1.tool(['dev', 'show', 'dev', self.a])
        check('t2_rate 4101562500bit' in shown, 't2_rate shown as: %s'
              % shown)
        check(t1.dev_show(self.a)['t2_rate'] == 4101562500, 'JSON t2_rate')
        bdf = t1.bdf_of(self.a)
        bar = rt.Bar0(bdf)
        ca, cb = self.chans()
        msgs = [t1.pattern(G, k, 1000) for k in range(7)]
        ev0 = rt.events(bdf).get('t2_tx_oversize', 0)

        def dropped():
            return rt.events(bdf).get('t2_tx_oversize', 0) - ev0

        def window(first, n_go, n_drop, drops_before):
            for m in msgs[first:first + n_go + n_drop]:
                check(ca.write(m) == len(m), 'short write')
            for k in range(first, first + n_go):
                m = cb.recv(3)
                check(m == msgs[k], 'message %d: %r' % (
                    k, None if m is None else m[:12]))
            check(cb.recv(0.5) is None, 'a message over the rate arrived')
            end = time.monotonic() + 5
            while (dropped() < drops_before + n_drop and
                   time.monotonic() < end):
                time.sleep(0.05)
            check(dropped() == drops_before + n_drop, 'IRQ_INFO TYPE2 '
                  'code 1 +%d, want +%d' % (dropped(), drops_before + n_drop))

        try:
            with ca, cb:
                bar.write('SHIM_CC_TEST', 1)        # manual windows
                window(0, 3, 1, 0)
                bar.write('SHIM_CC_TEST', 3)        # manual, step
                window(4, 2, 1, 1)
                ca.drain()
        finally:
            bar.write('SHIM_CC_TEST', 0)
            bar.close()
        self.ktap.diag('over the rate: %d dropped by the IP' % dropped())
        try:
            t1.tool(['dev', 'set', 'dev', self.a, 't2_rate', '10tbit'])
        except t1.ToolError as e:
            check('t2_rate' in str(e), 'message: %s' % e)
        else:
            raise rt.TestFailed('t2_rate 10tbit accepted')
        t1.tool(['dev', 'set', 'dev', self.a, 't2_rate', 'off'])
        check(t1.dev_show(self.a)['t2_rate'] == 0, 't2_rate off')


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = McastTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (
        ('deliver', t.test_deliver), ('oversize', t.test_oversize),
        ('not_member', t.test_not_member),
        ('loss_counted', t.test_loss_counted),
        ('duplicates', t.test_duplicates), ('formats', t.test_formats),
        ('refused', t.test_refused), ('credits_ost', t.test_credits_ost),
        ('ost_link_down', t.test_ost_link_down),
        ('rate', t.test_rate)), 't2_mcast')


if __name__ == '__main__':
    main()
