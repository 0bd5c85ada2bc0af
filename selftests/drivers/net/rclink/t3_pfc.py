#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""PFC on the TYPE3 netdevs of a wired pair (Documentation/congestion.rst,
"PFC"; the MAC's Pause/PFC CSRs of seed 003):

  dcb_show      `dcb -j pfc show`: 8 priorities, none enabled after probe,
                the MAC's TX_FC_ENABLE and RX_PFC_ENABLE 0
  dcb_set       `dcb pfc set dev X prio-pfc 3:on 5:on` on A, 3:on on B: the
                enables in both MAC registers, shown back; a cable delay
                is refused (EOPNOTSUPP in dcbnl's reply, which dcb does not
                show: the refusal is in the kernel log), nothing changes
  xoff_xon      A's TX_FC_QUANTA[3] = 0x1234, the CSR request of queue 3
                (TX_FC_XOFF_REQ req0 bit 3) set then cleared, twice: before
                and after a soft reset of the MAC (PHY_CONFIG.soft_reset 1
                then 0; TX_FC_QUANTA does not change dynamically, seed
                003): A sends two XOFF and two XON frames, B counts them
                for priority 3 (dcb indications, SHIM_PFC_RX), A's requests
                and `ethtool -I -a` tx_pause_frames count them; queue 6
                (not enabled) sends nothing
  wire          tshark decodes the four frames as MAC control, opcode
                0x0101 (PFC), class 3 enabled, pause_time 0xffff (the
                quanta before the soft reset), 0, 0x1234, 0; all from A's
                own address (TX_FC_SADDR, which the driver set and applied
                with a soft reset: the reset value would show otherwise)
  bad_ctrl      three bad MAC control frames from A's netdev (AF_PACKET):
                a PFC frame to 01:80:c2:00:00:02, an unknown opcode, a
                CBFC update shorter than its format: B's MAC drops and
                counts each (SHIM_MAC_CTRL_DROP, ethtool -S
                shim_rx_drop_mac_ctrl), pauses nothing (SHIM_PFC_RX) and
                takes no update (SHIM_CBFC_UPD_RX)
  ctrl_corrupt  with A's wire damaging every frame (model only), A's XOFF
                and XON are sent and counted corrupted, and B receives
                neither: the partner MAC's FCS would drop them
  nonr_buffer   the IP's PFC thresholds are seed 000's (PFC 模式寄存器配置):
                XON_THR_RDMA at 1/2 and 3/4 of 2^TYPE1_RX_BUF_AW,
                XON_THR_NON_RDMA at 1/2 and 3/4 of NONR_RX_DEPTH and ACK
                0x80/0xc0; with PFC on TYPE3's priority and B's TYPE3 RX
                held (SHIM_CC_TEST.t3_rx_hold: no MD), A's frames fill B's
                NONR buffer, never past NONR_RX_DEPTH words, B sends XOFF
                at the TYPE3 threshold and A is paused; released, every
                frame arrives at B or is counted as a buffer drop
                (SHIM_CBFC_RX_DROP), B's buffer empties; skipped where B
                does not see its buffer (SHIM_CAP3.ip_counters 0)
  Restores PFC off and the quanta.
"""

import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
import t1_wire as tw  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

PRIO = 3
QUANTA = 0x1234
PFC_DA = bytes.fromhex('0180c2000001')


def run(cmd, ok=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60, check=False)
    if ok and p.returncode:
        raise rt.TestFailed('%s: exit %d: %s' % (' '.join(cmd), p.returncode,
                                                 p.stdout.strip()))
    return p.returncode, p.stdout


def soft_reset(bar):
    """The MAC's soft reset: its static registers take their values."""
    bar.write('PHY_CONFIG', rt.fval('PHY_CONFIG', 'soft_reset', 1))
    bar.write('PHY_CONFIG', 0)


def carrier(ifname):
    try:
        with open('/sys/class/net/%s/carrier' % ifname,
                  encoding='ascii') as f:
            return f.read().strip() == '1'
    except OSError:
        return False


class PfcTest:
    def __init__(self, ktap):
        self.ktap = ktap
        self.bdf = []
        self.ifs = []
        self.bars = []
        self.pcap = None
        self.size0 = None

    def setup(self):
        if not shutil.which('dcb'):
            raise rt.SkipTest('no dcb (iproute2)')
        devs = t1.pick_pair()
        self.bdf = [t1.bdf_of(d) for d in devs]
        self.ifs = [rt.netdev_of(b) for b in self.bdf]
        if None in self.ifs:
            raise rt.SkipTest('a board has no netdev in this namespace')
        self.bars = [rt.Bar0(b) for b in self.bdf]
        self.pcap = rt.wire_pcap()

    def restore(self):
        for i in self.ifs:
            if i:
                run(['dcb', 'pfc', 'set', 'dev', i, 'prio-pfc', 'all:off'],
                    ok=False)
        for bar in self.bars:
            bar.write('TX_FC_XOFF_REQ', 0)
            bar.write('TX_FC_QUANTA', 0xffff, PRIO)
            soft_reset(bar)
            bar.close()
        self.bars = []

    def show(self, i):
        """`dcb -j -s pfc show`, per-priority values as {prio: value}."""
        _, out = run(['dcb', '-j', '-s', 'pfc', 'show', 'dev', self.ifs[i]])
        o = json.loads(out)
        for k in ('prio_pfc', 'requests', 'indications'):
            v = o.get(k)
            if isinstance(v, list):
                o[k] = {str(n): x for n, x in enumerate(v)}
        return o

    def enables(self, i):
        return (self.bars[i].read('TX_FC_ENABLE'),
                self.bars[i].read('RX_PFC_ENABLE'))

    def test_dcb_show(self):
        for i in range(2):
            o = self.show(i)
            self.ktap.diag('%s: %s' % (self.ifs[i], o))
            check(o.get('pfc_cap') == 8, 'pfc_cap %r' % o.get('pfc_cap'))
            check(not any(o.get('prio_pfc', {}).values()),
                  'priorities enabled after probe: %s' % o.get('prio_pfc'))
            check(self.enables(i) == (0, 0), 'MAC enables 0x%x 0x%x after '
                  'probe' % self.enables(i))

    def test_dcb_set(self):
        a, b = self.ifs
        run(['dcb', 'pfc', 'set', 'dev', a, 'prio-pfc', '%d:on' % PRIO,
             '5:on'])
        run(['dcb', 'pfc', 'set', 'dev', b, 'prio-pfc', '%d:on' % PRIO])
        want = (1 << PRIO) | (1 << 5)
        check(self.enables(0) == (want, want), 'A: MAC enables 0x%x 0x%x, '
              'want 0x%x' % (self.enables(0) + (want,)))
        check(self.enables(1) == (1 << PRIO,) * 2, 'B: MAC enables 0x%x '
              '0x%x' % self.enables(1))
        on = [int(k) for k, v in self.show(0)['prio_pfc'].items() if v]
        check(sorted(on) == [PRIO, 5], 'dcb shows %s enabled' % on)
        mark = rt.kmsg_mark('t3_pfc delay')
        rc, out = run(['dcb', 'pfc', 'set', 'dev', a, 'delay', '5'], ok=False)
        self.ktap.diag('delay 5: exit %d %s' % (rc, out.strip()))
        log = [r for r in rt.kmsg_since(mark) if 'PFC: refused' in str(r)]
        check(log, 'no "PFC: refused" in the kernel log for a cable delay')
        check(self.show(0).get('delay') == 0, 'delay %r shown after the '
              'refusal' % self.show(0).get('delay'))
        check(self.enables(0) == (want, want), 'the refused delay changed '
              'the enables')

    def counts(self):
        return ([[self.bars[i].read('SHIM_PFC_TX', q) for q in range(8)]
                 for i in range(2)],
                [[self.bars[i].read('SHIM_PFC_RX', q) for q in range(8)]
                 for i in range(2)])

    def pause_stats(self, i):
        _, out = run(['ethtool', '-I', '-a', self.ifs[i]])
        m = re.search(r'tx_pause_frames:\s*(\d+)', out)
        return int(m.group(1)) if m else None

    def test_xoff_xon(self):
        a = self.bars[0]
        tx0, rx0 = self.counts()
        ind0 = self.show(1).get('indications', {})
        ps0 = self.pause_stats(0)
        self.size0 = os.path.getsize(self.pcap) if self.pcap else None
        a.write('TX_FC_QUANTA', QUANTA, PRIO)
        for _ in range(2):
            a.write('TX_FC_XOFF_REQ', 1 << PRIO)
            time.sleep(0.1)
            a.write('TX_FC_XOFF_REQ', 0)
            a.write('TX_FC_XOFF_REQ', 1 << 6)   # not enabled: no frame
            a.write('TX_FC_XOFF_REQ', 0)
            time.sleep(0.1)
            soft_reset(a)                       # the new quanta applies
        time.sleep(0.2)
        tx1, rx1 = self.counts()
        dtx = [x - y for x, y in zip(tx1[0], tx0[0])]
        drx = [x - y for x, y in zip(rx1[1], rx0[1])]
        self.ktap.diag('A sent per priority %s, B received %s' % (dtx, drx))
        want = [4 if q == PRIO else 0 for q in range(8)]
        check(dtx == want and drx == want, 'frames sent %s received %s, '
              'want %s' % (dtx, drx, want))
        ind1 = self.show(1).get('indications', {})
        got = {k: ind1.get(k, 0) - ind0.get(k, 0) for k in ind1}
        check(got.get(str(PRIO)) == 4, 'B dcb indications moved %s' % got)
        ps1 = self.pause_stats(0)
        if ps0 is None or ps1 is None:
            self.ktap.diag('ethtool -I -a shows no pause statistics')
        else:
            check(ps1 - ps0 == 4, 'tx_pause_frames +%d, want 4'
                  % (ps1 - ps0))

    def test_ctrl_corrupt(self):
        """A MAC control frame the wire damages never arrives: the
        partner's MAC would drop it on its FCS before anything parsed it."""
        a, b = self.bars
        if rt.is_rtl(self.bdf[0]):
            raise rt.SkipTest('the wire fault injector is the model\'s')
        tx0, rx0 = self.counts()
        c0 = a.read('SHIM_WIRE_CORRUPTED')
        a.write('SHIM_WIRE_FAULT_RATE0',
                rt.fval('SHIM_WIRE_FAULT_RATE0', 'corrupt_ppm', 1000000))
        try:
            a.write('TX_FC_XOFF_REQ', 1 << PRIO)     # XOFF
            a.write('TX_FC_XOFF_REQ', 0)             # XON
            time.sleep(0.2)
        finally:
            a.write('SHIM_WIRE_FAULT_RATE0', 0)
        tx1, rx1 = self.counts()
        dtx = [x - y for x, y in zip(tx1[0], tx0[0])]
        drx = [x - y for x, y in zip(rx1[1], rx0[1])]
        dc = a.read('SHIM_WIRE_CORRUPTED') - c0
        self.ktap.diag('A sent per priority %s, corrupted %d; B received %s, '
                       'paused 0x%x' % (dtx, dc, drx,
                                        b.read('SHIM_PFC_PAUSED')))
        check(dtx[PRIO] == 2, 'A sent %s PFC frames, want 2 on %d'
              % (dtx, PRIO))
        check(dc >= 2, 'A\'s wire corrupted %d frames, want at least 2' % dc)
        check(drx == [0] * 8, 'B received PFC frames %s, want none' % drx)

    def test_wire(self):
        if not self.pcap or not tw.have_tshark():
            raise rt.SkipTest('no wire capture or no tshark')
        recs, head = tw.pcap_records(self.pcap, self.size0)
        frames = [r for r in recs if r[1][12:14] == b'\x88\x08']
        check(len(frames) == 4, '%d MAC control frames on the wire, want 4'
              % len(frames))
        mac = self.bars[0].read('SHIM_MAC') & (1 << 48) - 1
        sas = {r[1][6:12].hex() for r in frames}
        check(sas == {'%012x' % mac}, 'source addresses %s, want A\'s '
              '%012x' % (sas, mac))
        fields = ('macc.opcode', 'macc.cbfc.enbv.c%d' % PRIO,
                  'macc.cbfc.pause_time.c%d' % PRIO, '_ws.malformed')
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'pfc.pcap')
            tw.pcap_write(p, head[0], frames)
            cmd = ['tshark', '-n', '-r', p, '-T', 'fields', '-E',
                   'separator=|']
            for f in fields:
                cmd += ['-e', f]
            _, out = run(cmd)
        rows = [ln.split('|') for ln in out.splitlines() if '|' in ln]
        self.ktap.diag('tshark: %s' % rows)
        want = [('0x0101', 0xffff), ('0x0101', 0), ('0x0101', QUANTA),
                ('0x0101', 0)]
        got = [(r[0], int(r[2], 0)) for r in rows
               if r[1] in ('1', 'True') and not r[3]]
        check(got == want, 'decoded %s, want %s' % (got, want))

    def ethtool_stat(self, i, name):
        _, out = run(['ethtool', '-S', self.ifs[i]])
        m = re.search(r'^\s*%s:\s*(\d+)' % name, out, re.M)
        if not m:
            raise rt.TestFailed('ethtool -S %s has no %s' % (self.ifs[i],
                                                            name))
        return int(m.group(1))

    def test_bad_ctrl(self):
        a, b = self.ifs
        with open('/sys/class/net/%s/address' % a, encoding='ascii') as f:
            sa = bytes.fromhex(f.read().strip().replace(':', ''))
        with open('/sys/class/net/%s/flags' % a, encoding='ascii') as f:
            was_up = int(f.read(), 0) & 1
        run(['ip', 'link', 'set', 'dev', a, 'up'])
        try:
            end = time.monotonic() + 10
            while not carrier(a) and time.monotonic() < end:
                time.sleep(0.1)
            check(carrier(a), '%s has no carrier' % a)
            bad = [
                # PFC to another address
                (bytes.fromhex('0180c2000002'),
                 struct.pack('>HHH', 0x0101, 1 << PRIO, 0xffff)),
                # an opcode no MAC control knows
                (PFC_DA, struct.pack('>H', 0x0999)),
                # a CBFC update cut at the minimum frame size
                (PFC_DA, struct.pack('>HH', 0x0102, 0x0001)),
            ]
            bar = self.bars[1]
            drop0 = bar.read('SHIM_MAC_CTRL_DROP')
            st0 = self.ethtool_stat(1, 'shim_rx_drop_mac_ctrl')
            _, rx0 = self.counts()
            upd0 = bar.read('SHIM_CBFC_UPD_RX')
            with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
                s.bind((a, 0))
                for da, body in bad:
                    f = da + sa + struct.pack('>H', 0x8808) + body
                    s.send(f + bytes(60 - len(f)))
            end = time.monotonic() + 5
            while (bar.read('SHIM_MAC_CTRL_DROP') - drop0 < len(bad) and
                   time.monotonic() < end):
                time.sleep(0.1)
            time.sleep(0.2)
            drop = bar.read('SHIM_MAC_CTRL_DROP') - drop0
            st = self.ethtool_stat(1, 'shim_rx_drop_mac_ctrl') - st0
            _, rx1 = self.counts()
            upd = bar.read('SHIM_CBFC_UPD_RX') - upd0
            self.ktap.diag('B: SHIM_MAC_CTRL_DROP +%d, ethtool '
                           'shim_rx_drop_mac_ctrl +%d, PFC received %s, '
                           'updates +%d' % (drop, st,
                                            [x - y for x, y in
                                             zip(rx1[1], rx0[1])], upd))
            check(drop == len(bad), 'SHIM_MAC_CTRL_DROP +%d, want %d'
                  % (drop, len(bad)))
            check(st == len(bad), 'ethtool -S %s shim_rx_drop_mac_ctrl '
                  '+%d, want %d' % (b, st, len(bad)))
            check(rx1[1] == rx0[1], 'B counted PFC frames: %s -> %s'
                  % (rx0[1], rx1[1]))
            check(upd == 0, 'B took %d CBFC update(s)' % upd)
        finally:
            if not was_up:
                run(['ip', 'link', 'set', 'dev', a, 'down'], ok=False)


T3_ETH_TYPE = 0x9000            # Ethernet loopback: TYPE3 at the IP
T3_FRAMES = 12
T3_LEN = 1000                   # 16 words of 64 bytes
T3_WAIT = 30                    # s for the released frames (a loaded host)
SOL_PACKET = 263
PACKET_STATISTICS = 6


def wait_for(what, cond, timeout=10):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            check(False, 'timed out waiting for %s' % what)
        time.sleep(0.02)


def link_up(ifname):
    with open('/sys/class/net/%s/flags' % ifname, encoding='ascii') as f:
        was_up = int(f.read(), 0) & 1
    run(['ip', 'link', 'set', 'dev', ifname, 'up'])
    wait_for('carrier on %s' % ifname, lambda: carrier(ifname))
    return was_up


def t3_snapshot(t, prio):
    """The counters a TYPE3 frame from A to B may end in (a failure's
    diagnostic): both netdevs' ethtool statistics, the shim's."""
    snap = {}
    for side, ifname, bar in zip('AB', t.ifs, t.bars):
        rc, out = run(['ethtool', '-S', ifname], ok=False)
        for line in out.splitlines() if not rc else ():
            k, _, v = line.strip().partition(':')
            if v.strip().isdigit():
                snap['%s.%s' % (side, k)] = int(v)
        for reg in ('SHIM_RX_DROP_OFF', 'SHIM_RX_DROP_NOMD',
                    'SHIM_RX_DROP_ERR', 'SHIM_WIRE_TX_FRAMES',
                    'SHIM_WIRE_RX_FRAMES', 'SHIM_PFC_PAUSED'):
            snap['%s.%s' % (side, reg)] = bar.read(reg)
        snap['%s.SHIM_CBFC_RX_BUF' % side] = bar.read('SHIM_CBFC_RX_BUF',
                                                      prio)
    return snap


def nonr_buffer(t):
    """The seed's thresholds; TYPE3 fills B's NONR buffer, B sends XOFF."""
    a, b = t.ifs
    ba, bb = t.bars
    if not bb.rfield('SHIM_CAP3', 'ip_counters'):
        raise rt.SkipTest('B does not see its receive buffer '
                          '(SHIM_CAP3.ip_counters 0): this case watches '
                          'SHIM_CBFC_RX_BUF')
    prio = bb.rfield('AFH_CFG_EN', 'type3_cbfc')
    depth = 1 << bb.rfield('SHIM_CAP1', 'type1_rx_buf_aw')
    nonr = bb.rfield('SHIM_CAP2', 'nonr_rx_depth')
    was_up = [link_up(i) for i in (a, b)]
    for i in (a, b):
        run(['dcb', 'pfc', 'set', 'dev', i, 'prio-pfc', '%d:on' % prio])
    try:
        thr = {f: bb.rfield('XON_THR_RDMA', f)
               for f in ('xon_thr_rdma', 'xoff_thr_rdma')}
        thr.update({f: bb.rfield('XON_THR_NON_RDMA', f)
                    for f in ('xon_thr_non_rdma', 'xoff_thr_non_rdma',
                              'xon_thr_ack_rdma', 'xoff_thr_ack_rdma')})
        want = {'xon_thr_rdma': depth // 2,
                'xoff_thr_rdma': depth * 3 // 4,
                'xon_thr_non_rdma': nonr // 2,
                'xoff_thr_non_rdma': nonr * 3 // 4,
                'xon_thr_ack_rdma': 0x80, 'xoff_thr_ack_rdma': 0xc0}
        t.ktap.diag('TYPE3 on priority %d, TYPE1 buffer %d words, NONR '
                    'buffer %d words; thresholds %s' % (prio, depth, nonr,
                                                        thr))
        check(thr == want, 'thresholds %s, want %s' % (thr, want))
        xoff = thr['xoff_thr_non_rdma']
        tx0 = bb.read('SHIM_PFC_TX', prio)
        rx0 = ba.read('SHIM_PFC_RX', prio)
        vdrop0 = bb.read('SHIM_CBFC_RX_DROP', prio)
        snap0 = t3_snapshot(t, prio)
        with open('/sys/class/net/%s/address' % a, encoding='ascii') as f:
            src = bytes.fromhex(f.read().strip().replace(':', ''))
        with open('/sys/class/net/%s/address' % b, encoding='ascii') as f:
            dst = bytes.fromhex(f.read().strip().replace(':', ''))
        rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                           socket.htons(T3_ETH_TYPE))
        tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        peak = 0
        try:
            rx.bind((b, T3_ETH_TYPE))
            rx.settimeout(0.2)
            tx.bind((a, 0))
            bb.write('SHIM_CC_TEST', rt.fval('SHIM_CC_TEST', 't3_rx_hold', 1))
            for i in range(T3_FRAMES):
                tx.send(dst + src + struct.pack('>H', T3_ETH_TYPE) +
                        bytes([i]) * (T3_LEN - 14))

            def held():
                nonlocal peak
                h = bb.read('SHIM_CBFC_RX_BUF', prio)
                peak = max(peak, h)
                return h

            wait_for('B holding %d words' % xoff, lambda: held() >= xoff)
            wait_for('B sending XOFF',
                     lambda: bb.read('SHIM_PFC_TX', prio) > tx0)
            wait_for('A receiving XOFF',
                     lambda: ba.read('SHIM_PFC_RX', prio) > rx0)
            for _ in range(20):
                held()
                time.sleep(0.02)
            t.ktap.diag('held by B: peak %d words (XOFF at %d, depth %d), '
                        'XOFF sent %d, A paused 0x%x' % (
                            peak, xoff, nonr,
                            bb.read('SHIM_PFC_TX', prio) - tx0,
                            ba.read('SHIM_PFC_PAUSED')))
            check(peak <= nonr, 'B held %d words, its TYPE3 buffer is %d'
                  % (peak, nonr))
            bb.write('SHIM_CC_TEST', 0)
            got = set()
            t0 = time.monotonic()
            end = t0 + T3_WAIT
            while time.monotonic() < end:
                vdrop = bb.read('SHIM_CBFC_RX_DROP', prio) - vdrop0
                if len(got) + vdrop >= T3_FRAMES:
                    break
                try:
                    f = rx.recv(4096)
                except socket.timeout:
                    continue
                if f[6:12] == src and len(f) >= T3_LEN:
                    got.add(f[14])
            vdrop = bb.read('SHIM_CBFC_RX_DROP', prio) - vdrop0
            took = time.monotonic() - t0
            pstat = struct.unpack('II', rx.getsockopt(SOL_PACKET,
                                                      PACKET_STATISTICS, 8))
        finally:
            bb.write('SHIM_CC_TEST', 0)
            rx.close()
            tx.close()
        t.ktap.diag('released: B received %d of %d frames, %d dropped for '
                    'want of buffer, in %.1f s' % (len(got), T3_FRAMES, vdrop,
                                                  took))
        if len(got) + vdrop != T3_FRAMES:
            # where the others went: every counter of the path that moved
            t.ktap.diag('missing %s; the packet socket: %d queued, %d '
                        'dropped' % (sorted(set(range(T3_FRAMES)) - got),
                                     pstat[0], pstat[1]))
            snap = t3_snapshot(t, prio)
            t.ktap.diag('moved: %s' % {k: snap[k] - snap0.get(k, 0)
                                       for k in sorted(snap)
                                       if snap[k] != snap0.get(k, 0)})
        check(len(got) + vdrop == T3_FRAMES, '%d received + %d dropped, '
              'sent %d' % (len(got), vdrop, T3_FRAMES))
        wait_for('B\'s buffer empty',
                 lambda: bb.read('SHIM_CBFC_RX_BUF', prio) == 0)
        wait_for('A no longer paused',
                 lambda: not ba.read('SHIM_PFC_PAUSED') >> prio & 1)
    finally:
        for i in (a, b):
            run(['dcb', 'pfc', 'set', 'dev', i, 'prio-pfc', 'all:off'],
                ok=False)
        for i, up in zip((a, b), was_up):
            if not up:
                run(['ip', 'link', 'set', 'dev', i, 'down'], ok=False)


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = PfcTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('dcb_show', t.test_dcb_show),
                                 ('dcb_set', t.test_dcb_set),
                                 ('xoff_xon', t.test_xoff_xon),
                                 ('wire', t.test_wire),
                                 ('bad_ctrl', t.test_bad_ctrl),
                                 ('ctrl_corrupt', t.test_ctrl_corrupt),
                                 ('nonr_buffer', lambda: nonr_buffer(t))),
                   't3_pfc')


if __name__ == '__main__':
    main()
