#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE1 header formats (Documentation/hw/formats.rst) between the two
boards of a pair: for each of Standard, AFH_GEN1, AFH_GEN1 with TC,
AFH_GEN2_16b and AFH_Lite, with and without VLAN and ICRC (Lite never
carries one, nor ACKs: it does not retransmit), both boards are set to it
with `rclink dev set ... format F vlan V icrc on|off`, messages go both
ways and arrive intact, and the frames of the live wire
($RCLINK_RESULTS/wire.pcap, or $RCLINK_WIRE_PCAP) are checked twice:

  * by the decoder here, field by field: DA and SA as the format fills
    them (TC, Key_words, XPU_ID, 16/40/48-bit addresses), the VLAN tag (TPID,
    PCP from vlan_pri, VID), the Ethernet type (IPv4 or 0x88b5), the RH
    (DEST_QP, PKEY, PKT_LEN, PAD, OPCODE), the ICRC (present or not, and
    right) and the segment headers against the messages;
  * by tshark with the dissector tools/wireshark/rclink.lua: the same
    fields per frame, no malformed frame, no expert error, ICRC good.

Then mismatched pairs (A on gen1, B on std; A on gen2, B on gen1; A on
lite, B on gen2; A on gen2, B on lite): the frames are dropped and counted
in B's rx_drop_format, nothing is delivered, nothing crashes, and after B
follows the message arrives.

  t1_formats.py --selftest    checks decoder and dissector on built frames
"""

import os
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
sys.path.insert(0, HERE)
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413
import t1_wire as tw  # noqa: E402  pylint: disable=wrong-import-position

AFH = hw.FORMATS['AFH']
RH = tw.RH
ETH_AFH = AFH[2]['ETH_TYPE1']
KW1 = AFH[2]['KW_TYPE1']
BANK_MASK = hw.PARAMS['TYPE1_VC_NUM'] - 1
# tshark's warning for a source address with the I/G bit set: an odd XPU_ID
# in MAC_SA[47:40] of AFH_Lite
GROUP_SA = ('Expert Info (Warning/Protocol): Source MAC must not be a group '
            'address: IEEE 802.3-2002, Section 3.2.3(b)')
OP_REQ, OP_ACK = RH[2]['OP_REQ'], RH[2]['OP_ACK']

IP_A, IP_B = '10.199.0.1', '10.199.0.2'
QA, QB = 37, 61                       # same bank (1)
PKEY_A, PKEY_B = 0x3c, 0xc3
SPORT_A, SPORT_B = 49500, 50500
TC_A, ACK_TC_A, TC_B, ACK_TC_B = 0x5c, 0x9c, 0x2c, 0xac
SIZES = (1, 6, 100, 119, 120, 1336, 1337, 3000)

# (name, format, vlan id or 0, vlan_pri, icrc)
CONFIGS = (
    ('std', 'std', 0, 0, True),
    ('std_vlan_noicrc', 'std', 100, 5, False),
    ('gen1', 'gen1', 0, 0, True),
    ('gen1_noicrc', 'gen1', 0, 0, False),
    ('gen1_tc_vlan', 'gen1-tc', 7, 3, True),
    ('gen2', 'gen2', 0, 0, True),
    ('gen2_vlan_noicrc', 'gen2', 33, 6, False),
    ('lite', 'lite', 0, 0, False),
    ('lite_vlan', 'lite', 21, 4, False),
)


def lua_path():
    p = os.environ.get('RCLINK_LUA')
    if p:
        return p
    for c in (os.path.join(HERE, 'rclink.lua'),
              os.path.join(HERE, '..', '..', '..', '..', 'tools', 'wireshark',
                           'rclink.lua')):
        if os.path.isfile(c):
            return os.path.abspath(c)
    return None


class Side:
    def __init__(self, mac, tc, ack_tc, qpn, pkey, sport, ip):
        self.mac = mac
        self.tc = tc
        self.ack_tc = ack_tc
        self.qpn = qpn
        self.pkey = pkey
        self.sport = sport
        self.ip = ip


def mac_int(mac):
    return int(mac.replace(':', ''), 16)


def put_mac(v):
    return struct.pack('>Q', v)[2:]


def l2(fmt, src, dst, req, vlan, pri):
    """DA, SA, VLAN tag and Ethernet type of a frame src -> dst."""
    tc = src.tc if req else src.ack_tc
    da, sa = mac_int(dst.mac), mac_int(src.mac)
    if fmt == 'gen1-tc':
        sa = (tc << 40) | (sa & ((1 << 40) - 1))
    elif fmt == 'gen2':
        da = (tc << 40) | (da & 0xffff)
        sa = (KW1 << 40) | (sa & 0xffff)
    elif fmt == 'lite':
        # QPID {XPU_ID, BANK}: the bank as TC, the XPU_ID of dst's QP
        da = ((dst.qpn & BANK_MASK) << 40) | (da & 0xffff)
        sa = ((dst.qpn >> 2) << 40) | (sa & 0xffff)
    h = put_mac(da) + put_mac(sa)
    if vlan:
        h += struct.pack('>HH', 0x8100, (pri << 13) | vlan)
    return h + struct.pack('>H', 0x0800 if fmt == 'std' else ETH_AFH)


def build(fmt, src, dst, op, psn, payload=b'', vlan=0, pri=0, icrc=True,
          syndrome=0x1f):
    """A frame in format fmt (for --selftest)."""
    if fmt == 'std':
        s = tw.Side(src.mac, src.ip, 64, 0, src.tc, src.ack_tc, src.qpn,
                    src.sport, src.pkey)
        d = tw.Side(dst.mac, dst.ip, 64, 0, dst.tc, dst.ack_tc, dst.qpn,
                    dst.sport, dst.pkey)
        f = tw.build_frame(s, d, op, psn, payload, syndrome=syndrome,
                           with_icrc=icrc)
        if vlan:
            f = f[:12] + struct.pack('>HH', 0x8100, (pri << 13) | vlan) + f[12:]
        return f + bytes(max(0, 60 - len(f)))
    pad = tw.padded(len(payload)) - len(payload)
    rh = (tw.fput(RH, 'DEST_QP', dst.qpn) | tw.fput(RH, 'PSN', psn) |
          tw.fput(RH, 'PKEY', src.pkey) | tw.fput(RH, 'TS_EN', 1) |
          tw.fput(RH, 'PAD', pad) | tw.fput(RH, 'OPCODE', op))
    if op == OP_REQ:
        rh |= tw.fput(RH, 'PKT_LEN', tw.pkt_len_field(len(payload)))
    else:
        rh |= tw.fput(RH, 'SYNDROME', syndrome)
    body = struct.pack('>Q', rh) + payload + bytes(pad)
    if icrc:
        body += struct.pack('<I', zlib.crc32(body) & 0xffffffff)
    f = l2(fmt, src, dst, op == OP_REQ, vlan, pri) + body
    return f + bytes(max(0, 60 - len(f)))


class Decoder:
    """Checks frames of one configuration; keeps per-frame facts for the
    comparison with tshark."""

    def __init__(self, fmt, a, b, vlan, pri, icrc, messages):
        self.fmt = fmt
        self.a, self.b = a, b
        self.vlan, self.pri, self.icrc = vlan, pri, icrc
        self.messages = messages      # {side qpn: [messages it sent]}
        self.errs = []
        self.facts = []               # per frame: dict
        self.reqs = {a.qpn: {}, b.qpn: {}}
        self.acks = 0

    def err(self, i, m):
        if len(self.errs) < 40:
            self.errs.append('frame %d (%s): %s' % (i, self.fmt, m))

    def ours(self, d):
        """(src, dst) of a frame of the test, else None."""
        off = 12
        if len(d) < 60:
            return None
        et = struct.unpack('>H', d[off:off + 2])[0]
        if et == 0x8100:
            off += 4
            et = struct.unpack('>H', d[off:off + 2])[0]
        if et == 0x0800:
            ip = d[off + 2:]
            if ip[9] != 17:
                return None
            sport, dport = struct.unpack('>HH', ip[20:24])
            if dport != tw.UDP_PORT:
                return None
            who = {self.a.sport: (self.a, self.b),
                   self.b.sport: (self.b, self.a)}
            return who.get(sport)
        if et != ETH_AFH:
            return None
        rh = struct.unpack('>Q', d[off + 2:off + 10])[0]
        qp = tw.fget(RH, rh, 'DEST_QP')
        pkey = tw.fget(RH, rh, 'PKEY')
        if qp == self.b.qpn and pkey == self.a.pkey:
            return self.a, self.b
        if qp == self.a.qpn and pkey == self.b.pkey:
            return self.b, self.a
        return None

    def frame(self, i, d):
        who = self.ours(d)
        if who is None:
            return False
        src, dst = who
        e = lambda m: self.err(i, m)  # noqa: E731
        off = 12
        tag = None
        if struct.unpack('>H', d[12:14])[0] == 0x8100:
            tag = struct.unpack('>H', d[14:16])[0]
            off = 16
        et = struct.unpack('>H', d[off:off + 2])[0]
        off += 2
        if self.vlan:
            if tag is None:
                e('no VLAN tag, want VID %d' % self.vlan)
            elif tag != (self.pri << 13) | self.vlan:
                e('VLAN TCI 0x%04x, want PCP %d VID %d' % (tag, self.pri,
                                                           self.vlan))
        elif tag is not None:
            e('VLAN tag 0x%04x with VLAN off' % tag)
        want_et = 0x0800 if self.fmt == 'std' else ETH_AFH
        if et != want_et:
            e('Ethernet type 0x%04x, want 0x%04x' % (et, want_et))
            return True
        tail = 4 if self.icrc else 0
        if self.fmt == 'std':
            ip = d[off:]
            tot = struct.unpack('>H', ip[2:4])[0]
            body_at = off + 28
            n = tot - 28 - tail
            pre = bytearray(ip[:20])
            pre[1] = pre[8] = pre[10] = pre[11] = 0xff
            pre = bytes(pre) + ip[20:28]
            tos = ip[1]
        else:
            body_at = off
            pre = b''
            tos = None
            rh = struct.unpack('>Q', d[off:off + 8])[0]
            op = tw.fget(RH, rh, 'OPCODE')
            if op == OP_ACK:
                n = 8
            elif tw.fget(RH, rh, 'PKT_LEN'):
                n = tw.fget(RH, rh, 'PKT_LEN')
            else:
                n = len(d) - off - tail
        body = d[body_at:body_at + n]
        rh = struct.unpack('>Q', body[:8])[0]
        op = tw.fget(RH, rh, 'OPCODE')
        req = op == OP_REQ
        tc = src.tc if req else src.ack_tc
        da, sa = mac_int(d[0:6].hex(':')), mac_int(d[6:12].hex(':'))
        fact = {'format': self.fmt, 'op': op, 'qp': tw.fget(RH, rh, 'DEST_QP'),
                'psn': tw.fget(RH, rh, 'PSN'), 'pkey': tw.fget(RH, rh, 'PKEY'),
                'pad': tw.fget(RH, rh, 'PAD'), 'tc': None, 'kw': None,
                'xpu': None, 'icrc': None}
        if self.fmt == 'std':
            if da != mac_int(dst.mac) or sa != mac_int(src.mac):
                e('DA/SA %012x/%012x' % (da, sa))
            if tos != tc:
                e('ToS 0x%02x, want TC 0x%02x' % (tos, tc))
        elif self.fmt == 'gen1':
            if da != mac_int(dst.mac) or sa != mac_int(src.mac):
                e('DA/SA %012x/%012x, want %s/%s' % (da, sa, dst.mac, src.mac))
        elif self.fmt == 'lite':
            fact['tc'] = da >> 40
            fact['xpu'] = sa >> 40
            if not req:
                e('opcode %d in AFH_Lite (no ACK)' % op)
            want = dst.qpn & BANK_MASK, dst.qpn >> 2
            if (da >> 40, sa >> 40) != want:
                e('TC/XPU_ID 0x%02x/0x%02x, want the QPID {%d, %d}'
                  % (da >> 40, sa >> 40, want[1], want[0]))
            if (da >> 16) & 0xffffff or (sa >> 16) & 0xffffff:
                e('Reserve not zero: %06x %06x'
                  % ((da >> 16) & 0xffffff, (sa >> 16) & 0xffffff))
            if da & 0xffff != mac_int(dst.mac) & 0xffff or \
                    sa & 0xffff != mac_int(src.mac) & 0xffff:
                e('addresses[15:0] %04x/%04x' % (da & 0xffff, sa & 0xffff))
        elif self.fmt == 'gen1-tc':
            fact['tc'] = sa >> 40
            if da != mac_int(dst.mac):
                e('DA %012x, want %s' % (da, dst.mac))
            if sa >> 40 != tc or (sa & ((1 << 40) - 1)) != \
                    mac_int(src.mac) & ((1 << 40) - 1):
                e('SA %012x, want TC 0x%02x + source address[39:0]' % (sa, tc))
        else:
            fact['tc'] = da >> 40
            fact['kw'] = sa >> 40
            if da >> 40 != tc:
                e('MAC_DA[47:40] 0x%02x, want TC 0x%02x' % (da >> 40, tc))
            if sa >> 40 != KW1:
                e('Key_words 0x%02x, want 0x%02x' % (sa >> 40, KW1))
            if (da >> 16) & 0xffffff or (sa >> 16) & 0xffffff:
                e('SUE_payload/Reserve not zero: %06x %06x'
                  % ((da >> 16) & 0xffffff, (sa >> 16) & 0xffffff))
            if da & 0xffff != mac_int(dst.mac) & 0xffff or \
                    sa & 0xffff != mac_int(src.mac) & 0xffff:
                e('addresses[15:0] %04x/%04x' % (da & 0xffff, sa & 0xffff))
        if fact['qp'] != dst.qpn or fact['pkey'] != src.pkey:
            e('DEST_QP %d PKEY 0x%x, want %d 0x%x' % (fact['qp'], fact['pkey'],
                                                     dst.qpn, src.pkey))
        if self.icrc:
            got = struct.unpack('<I', d[body_at + n:body_at + n + 4])[0]
            want = zlib.crc32(pre + body) & 0xffffffff
            fact['icrc'] = got
            if got != want:
                e('ICRC 0x%08x, want 0x%08x' % (got, want))
        if req:
            pad = fact['pad']
            payload = body[8:len(body) - pad]
            if tw.fget(RH, rh, 'PKT_LEN') != tw.pkt_len_field(len(payload)):
                e('PKT_LEN %d for %d payload bytes'
                  % (tw.fget(RH, rh, 'PKT_LEN'), len(payload)))
            self.reqs[src.qpn].setdefault(fact['psn'], payload)
        else:
            self.acks += 1
            if len(body) != 8:
                e('ACK with %d bytes after the RH' % (len(body) - 8))
        self.facts.append(fact)
        return True

    def finish(self):
        for q, psns in self.reqs.items():
            data = b''.join(tw.seg_data(p) for _, p in sorted(
                psns.items(), key=lambda kv: kv[0]))
            want = b''.join(self.messages.get(q, []))
            if data != want:
                self.errs.append('%s: QP %d put %d data bytes on the wire, '
                                 'sent %d' % (self.fmt, q, len(data),
                                              len(want)))
        if self.fmt == 'lite':
            if self.acks:
                self.errs.append('lite: %d ACKs on the wire' % self.acks)
        elif not self.acks:
            self.errs.append('%s: no ACK on the wire' % self.fmt)


TS_FIELDS = ('rclink.format', 'rclink.rh.opcode', 'rclink.rh.dest_qp',
             'rclink.rh.psn', 'rclink.rh.pkey', 'rclink.rh.pad', 'rclink.tc',
             'rclink.kw', 'rclink.xpu', 'rclink.icrc', 'rclink.icrc.good',
             '_ws.malformed', '_ws.expert')


def tshark_fields(path, fmt, icrc):
    """Per frame: dict of TS_FIELDS as tshark with rclink.lua decodes them."""
    lua = lua_path()
    afh = fmt if fmt != 'std' else 'auto'
    cmd = ['tshark', '-n', '-r', path, '-X', 'lua_script:' + lua,
           '-o', 'rclink.afh:' + afh,
           '-o', 'rclink.icrc:' + ('TRUE' if icrc else 'FALSE'),
           '-T', 'fields', '-E', 'separator=|', '-E', 'occurrence=l']
    for x in TS_FIELDS:
        cmd += ['-e', x]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, check=False, timeout=300)
    if p.returncode:
        raise rt.TestFailed('tshark failed (%d): %s' % (p.returncode,
                                                        p.stderr[-2000:]))
    rows = []
    for line in p.stdout.splitlines():
        rows.append(dict(zip(TS_FIELDS, line.split('|'))))
    return rows, p.stderr


def compare(facts, rows, icrc):
    """Differences between the decoder's facts and tshark's rows."""
    errs = []
    if len(rows) != len(facts):
        return ['tshark decoded %d frames, the decoder %d'
                % (len(rows), len(facts))]

    def num(s):
        if s in ('', None):
            return None
        return int(s, 0)
    for i, (f, r) in enumerate(zip(facts, rows)):
        want = {'rclink.format': 'standard' if f['format'] == 'std'
                else f['format'],
                'rclink.rh.opcode': f['op'], 'rclink.rh.dest_qp': f['qp'],
                'rclink.rh.psn': f['psn'], 'rclink.rh.pkey': f['pkey'],
                'rclink.rh.pad': f['pad'], 'rclink.tc': f['tc'],
                'rclink.kw': f['kw'], 'rclink.xpu': f['xpu'],
                'rclink.icrc': f['icrc']}
        for k, v in want.items():
            got = r.get(k) if k == 'rclink.format' else num(r.get(k))
            if got != v:
                errs.append('frame %d: tshark %s = %r, decoder %r'
                            % (i + 1, k, got, v))
        if icrc and r.get('rclink.icrc.good') not in ('1', 'True'):
            errs.append('frame %d: tshark ICRC not good (%r)'
                        % (i + 1, r.get('rclink.icrc.good')))
        expert = r.get('_ws.expert')
        if f['xpu'] is not None and f['xpu'] & 1 and expert == GROUP_SA:
            expert = None       # the seed's format (formats.rst, AFH_Lite)
        if r.get('_ws.malformed') or expert:
            errs.append('frame %d: tshark malformed/expert: %r %r'
                        % (i + 1, r.get('_ws.malformed'), r.get('_ws.expert')))
        if len(errs) > 20:
            break
    return errs


def pcap_head():
    return struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)


def selftest():
    ok = True
    a = Side('02:52:43:00:00:01', TC_A, ACK_TC_A, QA, PKEY_A, SPORT_A, IP_A)
    b = Side('02:52:43:00:00:02', TC_B, ACK_TC_B, QB, PKEY_B, SPORT_B, IP_B)
    for name, fmt, vlan, pri, icrc in CONFIGS:
        msgs = {QA: [bytes(range(7)) * 3], QB: []}
        payload = tw.seg_header(3, 0, 21) + msgs[QA][0]
        frames = [build(fmt, a, b, OP_REQ, 5, payload, vlan, pri, icrc)]
        if fmt != 'lite':
            frames.append(build(fmt, b, a, OP_ACK, 5, b'', vlan, pri, icrc))
        dec = Decoder(fmt, a, b, vlan, pri, icrc, msgs)
        for i, fr in enumerate(frames):
            ok &= dec.frame(i + 1, fr)
        dec.finish()
        print('%s: decoder %s' % (name, dec.errs or 'clean'))
        ok &= not dec.errs
        if tw.have_tshark() and lua_path():
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, 'f.pcap')
                tw.pcap_write(p, pcap_head(), [(1.0 + k, f)
                                               for k, f in enumerate(frames)])
                rows, err = tshark_fields(p, fmt, icrc)
                errs = compare(dec.facts, rows, icrc)
                print('%s: tshark %s %s' % (name, errs or 'agrees',
                                            err.strip()[-300:]))
                ok &= not errs
    # a broken ICRC is caught by both
    fr = bytearray(build('gen2', a, b, OP_REQ, 9,
                         tw.seg_header(3, 0, 4) + b'abcd', icrc=True))
    fr[30] ^= 1                         # a data byte
    dec = Decoder('gen2', a, b, 0, 0, True, {})
    dec.frame(1, bytes(fr))
    print('bad ICRC: %s' % dec.errs)
    ok &= any('ICRC' in x for x in dec.errs)
    if tw.have_tshark() and lua_path():
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'f.pcap')
            tw.pcap_write(p, pcap_head(), [(1.0, bytes(fr))])
            rows, _ = tshark_fields(p, 'gen2', True)
            print('tshark on a bad ICRC: %s' % rows)
            ok &= rows and rows[0].get('rclink.icrc.good') not in ('1', 'True')
    return 0 if ok else 1


# ------------------------------------------------------------------ test ---

class FormatTest:
    def __init__(self, ktap, pcap):
        self.ktap = ktap
        self.pcap = pcap
        self.a = self.b = None
        self.saved = {}
        self.added = []
        self.sa = self.sb = None

    def setup(self):
        self.a, self.b = t1.pick_pair()
        for d in (self.a, self.b):
            self.saved[d] = t1.dev_show(d)
            if t1.qpns(d):
                raise rt.SkipTest('%s has QPs configured: in use' % d)
        self.sa = Side(self.saved[self.a]['mac'], TC_A, ACK_TC_A, QA, PKEY_A,
                       SPORT_A, IP_A)
        self.sb = Side(self.saved[self.b]['mac'], TC_B, ACK_TC_B, QB, PKEY_B,
                       SPORT_B, IP_B)
        for d, s in ((self.a, self.sa), (self.b, self.sb)):
            t1.tool(['dev', 'set', 'dev', d, 'ip', s.ip, 'tc', s.tc,
                     'ack_tc', s.ack_tc])

    def restore(self):
        if self.a is None:
            return
        self.del_qps()
        for d, saved in self.saved.items():
            args = t1.restore_args(saved, t1.dev_show(d))
            if args:
                t1.tool(['dev', 'set', 'dev', d] + args, check=False)

    def del_qps(self):
        for d, q in reversed(self.added):
            t1.tool(['qp', 'del', 'dev', d, 'qpn', q], check=False)
        self.added = []

    @staticmethod
    def drops(dev):
        st = t1.dev_show(dev, stats=True).get('stats', {})
        return {k: int(v) for k, v in st.items()}

    def drop_diff(self, before):
        """The counters that moved since before ({dev: drops})."""
        out = []
        for d, old in before.items():
            now = self.drops(d)
            moved = ['%s +%d' % (k, now[k] - old.get(k, 0)) for k in now
                     if now[k] != old.get(k, 0)]
            out.append('%s: %s' % (d, ', '.join(moved) or 'no drop'))
        return '; '.join(out)

    def set_format(self, dev, fmt, vlan, pri, icrc):
        t1.tool(['dev', 'set', 'dev', dev, 'format', fmt,
                 'vlan', vlan if vlan else 'off', 'vlan_pri', pri,
                 'icrc', 'on' if icrc else 'off'])
        got = t1.dev_show(dev)
        want = 'standard' if fmt == 'std' else fmt
        check(got.get('format') == want, '%s: format %r after set %s'
              % (dev, got.get('format'), fmt))

    def add_qps(self):
        a, b = self.sa, self.sb
        t1.tool(['qp', 'add', 'dev', self.a, 'qpn', QA, 'dqpn', QB, 'dip',
                 IP_B, 'dmac', b.mac, 'sport', SPORT_A, 'pkey', PKEY_A,
                 'rx_pkey', PKEY_B, 'sq_psn', 100, 'rq_psn', 200])
        self.added.append((self.a, QA))
        t1.tool(['qp', 'add', 'dev', self.b, 'qpn', QB, 'dqpn', QA, 'dip',
                 IP_A, 'dmac', a.mac, 'sport', SPORT_B, 'pkey', PKEY_B,
                 'rx_pkey', PKEY_A, 'sq_psn', 200, 'rq_psn', 100])
        self.added.append((self.b, QB))

    def frames_since(self, size0, dec_for_ours, want_min):
        deadline = time.monotonic() + 10
        frames, head = [], None
        while True:
            time.sleep(0.5)
            recs, head = tw.pcap_records(self.pcap, size0)
            ours = [r for r in recs if dec_for_ours.ours(r[1])]
            if len(ours) >= want_min and len(ours) == len(frames):
                break
            frames = ours
            if time.monotonic() > deadline:
                break
        return frames, head

    def run_config(self, fmt, vlan, pri, icrc):
        for d in (self.a, self.b):
            self.set_format(d, fmt, vlan, pri, icrc)
        self.add_qps()
        size0 = os.path.getsize(self.pcap)
        msgs = {QA: [t1.pattern(QA, k, s) for k, s in enumerate(SIZES)],
                QB: [t1.pattern(QB, k, s) for k, s in enumerate(SIZES[:4])]}
        before = {d: self.drops(d) for d in (self.a, self.b)}
        try:
            self.traffic(fmt, msgs)
        except rt.TestFailed as e:
            raise rt.TestFailed('%s (drops: %s)'
                                % (e, self.drop_diff(before))) from e
        self.check_wire(fmt, vlan, pri, icrc, msgs, size0)

    def traffic(self, fmt, msgs):
        """msgs[QA] from A to B, then msgs[QB] from B to A, intact."""
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            for src, dst, q in ((ca, cb, QA), (cb, ca, QB)):
                for m in msgs[q]:
                    check(src.send(m) == len(m), 'short write')
                src.drain()
                for k, m in enumerate(msgs[q]):
                    got = dst.recv(10)
                    check(got is not None, '%s: message %d of QP %d did not '
                          'arrive' % (fmt, k, q))
                    check(got == m, '%s: message %d of QP %d: %d bytes, want '
                          '%d' % (fmt, k, q, len(got), len(m)))
                check(dst.poll(select.POLLIN, 0.2) == 0, '%s: a message too '
                      'many from QP %d' % (fmt, q))

    def check_wire(self, fmt, vlan, pri, icrc, msgs, size0):
        dec = Decoder(fmt, self.sa, self.sb, vlan, pri, icrc, msgs)
        frames, head = self.frames_since(size0, dec, 2)
        for i, (_, d) in enumerate(frames):
            dec.frame(i + 1, d)
        dec.finish()
        self.ktap.diag('%s vlan %s icrc %s: %d frames on the wire'
                       % (fmt, vlan or 'off', icrc, len(frames)))
        errs = list(dec.errs)
        if tw.have_tshark() and lua_path() and frames:
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, 'f.pcap')
                tw.pcap_write(p, head[0], frames)
                rows, _ = tshark_fields(p, fmt, icrc)
                errs += compare(dec.facts, rows, icrc)
        self.del_qps()
        check(not errs, '\n'.join(errs))

    def mismatch(self, fmt_a, fmt_b):
        """A sends in fmt_a to B in fmt_b: the frames are dropped and
        counted at B, nothing is delivered; once B follows (new QPs: A's
        retries may be spent) messages flow again."""
        self.set_format(self.a, fmt_a, 0, 0, True)
        self.set_format(self.b, fmt_b, 0, 0, True)
        self.add_qps()
        before = self.drops(self.b)
        # rx_drop_format counts inside the IP: absent where B does not
        # count it (then only "nothing is delivered" is checked)
        counted = t1.counted(before, 'rx_drop_format')
        m = t1.pattern(QA, 0, 500)
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            check(ca.send(m) == len(m), 'short write')
            deadline = time.monotonic() + (10 if counted else 2)
            now = before
            while time.monotonic() < deadline:
                now = self.drops(self.b)
                if counted and \
                        now['rx_drop_format'] > before['rx_drop_format']:
                    break
                time.sleep(0.2)
            self.ktap.diag('%s -> %s: %s' % (fmt_a, fmt_b,
                                             self.drop_diff({self.b: before})))
            if counted:
                check(now['rx_drop_format'] > before['rx_drop_format'],
                      '%s -> %s: rx_drop_format of B stays %d'
                      % (fmt_a, fmt_b, before['rx_drop_format']))
                other = [k for k in now if k != 'rx_drop_format' and
                         now[k] != before[k]]
                check(not other, '%s -> %s: counted as %s, not as a '
                      'format mismatch' % (fmt_a, fmt_b, other))
            else:
                t1.not_counted(self.ktap, 'B counts a format mismatch',
                               ['rx_drop_format'])
            check(cb.poll(select.POLLIN, 0.5) == 0, '%s -> %s: a message '
                  'was delivered across formats' % (fmt_a, fmt_b))
        self.del_qps()
        self.set_format(self.b, fmt_a, 0, 0, True)
        self.add_qps()
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            check(ca.send(m) == len(m), 'short write')
            got = cb.recv(10)
            check(got == m, '%s: no message after B changed format (%r)'
                  % (fmt_a, None if got is None else len(got)))
        self.del_qps()

    def test_refused(self):
        """An unknown format: refused, the format stays."""
        before = t1.dev_show(self.a)['format']
        for bad, msg in (('gen3', 'unknown'),):
            try:
                t1.tool(['dev', 'set', 'dev', self.a, 'format', bad])
            except t1.ToolError as e:
                check(msg in str(e), 'format %s: %s' % (bad, e))
            else:
                raise rt.TestFailed('format %s accepted' % bad)
        check(t1.dev_show(self.a)['format'] == before, 'format changed')


def main():
    if sys.argv[1:] == ['--selftest']:
        sys.exit(selftest())
    ktap = rt.Ktap()
    mod, t = tw.start_pair_test(ktap, FormatTest)
    mark = rt.kmsg_mark('t1_formats')
    ktap.plan(len(CONFIGS) + 6)
    if not (tw.have_tshark() and lua_path()):
        ktap.diag('no tshark or rclink.lua: frames checked by the decoder '
                  'only')
    try:
        for name, fmt, vlan, pri, icrc in CONFIGS:
            ktap.run(name, lambda f=fmt, v=vlan, p=pri, i=icrc:
                     t.run_config(f, v, p, i))
            t.del_qps()
        ktap.run('mismatch_gen1_std', lambda: t.mismatch('gen1', 'std'))
        t.del_qps()
        ktap.run('mismatch_gen2_gen1', lambda: t.mismatch('gen2', 'gen1'))
        t.del_qps()
        ktap.run('mismatch_lite_gen2', lambda: t.mismatch('lite', 'gen2'))
        t.del_qps()
        ktap.run('mismatch_gen2_lite', lambda: t.mismatch('gen2', 'lite'))
        t.del_qps()
        ktap.run('refused', t.test_refused)
    finally:
        t.restore()
        bad = rt.kmsg_problems(rt.kmsg_since(mark), errors=False)
        ktap.result('kernel_log_clean', not bad, '\n'.join(bad))
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
