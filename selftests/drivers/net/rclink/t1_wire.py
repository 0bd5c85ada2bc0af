#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE1 frames on the wire (Documentation/hw/shim.rst, "TYPE1: reliable
messages", Frames): a small known traffic pattern on one QP pair, then
the wire capture of the QEMU board pair ($RCLINK_RESULTS/wire.pcap written
by filter-dump, or $RCLINK_WIRE_PCAP; the test is skipped without it) is
checked frame by frame:

  * tshark (IP checksum validation on) decodes every frame of the test as
    Ethernet/IPv4/UDP to port 4791 with a good IP checksum, none
    malformed (its InfiniBand dissector is disabled: the RH is not a BTH);
  * our decoder checks each frame: Ethernet addresses and type, IPv4
    (version, IHL, ToS from tc/ack_tc, length, ID, DF, TTL, protocol,
    checksum, addresses), UDP (ports, length, checksum 0), the RH (DEST_QP,
    PSN contiguous from the configured sq_psn across the 2^EPSN_W wrap,
    PKT_LEN, PKEY, TS_EN, PAD, FACK, OPCODE; ACK syndrome and the echoed
    timestamp), the segment header (POS, OFFSET, MSG_LEN), the payload
    against the messages sent, the pad and the ICRC (CRC-32, zlib's).

The frames of the test are the UDP ones from the source ports of its two
QPs (used only here).  The boards keep their configuration.

  t1_wire.py --selftest    checks the decoder against frames it builds
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
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413

UDP_PORT = 4791
SEG_HDR = 8
RH_LEN = 8
ICRC_LEN = 4

# The traffic: A's QP QA sends to B's QP QB (same bank), message sizes
# around the pad, PKT_LEN and packet boundaries (pkt_len 1344 = 8 + 1336).
IP_A, IP_B = '10.198.0.1', '10.198.0.2'
QA, QB = 21, 45
SPORT_A, SPORT_B = 49443, 50262
PKEY_A, PKEY_B = 0x5a, 0xa5
SQ_PSN_A, SQ_PSN_B = 4090, 77
TTL_A, TTL_B = 33, 44
IPID_A, IPID_B = 0x1234, 0x4321
TC_A, ACK_TC_A, TC_B, ACK_TC_B = 0x48, 0x88, 0x28, 0xb8
SIZES = (1, 2, 3, 4, 5, 100, 107, 108, 109, 110, 200, 1335, 1336, 1337,
         2672, 2673, 4000, 10000, 65536, 64)

RH = hw.FORMATS['RH']
SEG = hw.FORMATS['SEG']
# the IP's TX_S minimum: a shorter packet is padded with zero bytes
PKT_MIN = SEG[2]['PKT_MIN']
SYN = hw.FORMATS['SYN']


def fget(fmt, word, name):
    _, hi, lo = fmt[1][name]
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def fput(fmt, name, value):
    _, hi, lo = fmt[1][name]
    return (value & ((1 << (hi - lo + 1)) - 1)) << lo


def ip_csum(hdr):
    s = sum(struct.unpack('!%dH' % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def icrc(ip_hdr, udp_and_rest):
    """CRC-32 over the IPv4 header with ToS, TTL and checksum all ones,
    the UDP header, the RH, the payload and the pad (shim.rst)."""
    m = bytearray(ip_hdr)
    m[1] = 0xff
    m[8] = 0xff
    m[10] = m[11] = 0xff
    return zlib.crc32(bytes(m) + udp_and_rest) & 0xffffffff


def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(':'))


def ip_bytes(ip):
    return bytes(int(x) for x in ip.split('.'))


def padded(n):
    return (n + 3) & ~3


def pkt_len_field(payload_len):
    """RH.PKT_LEN of a REQ whose payload (segment header + data) is n."""
    n = RH_LEN + padded(payload_len)
    return n if n <= 127 else 0


# ------------------------------------------------------------ the pcap ----

def pcap_records(path, start=0):
    """[(ts, data)] of the records of a pcap from byte offset start (a
    record boundary; 0 = the first record)."""
    with open(path, 'rb') as f:
        head = f.read(24)
        if len(head) < 24:
            return [], None
        magic = struct.unpack('<I', head[:4])[0]
        if magic in (0xa1b2c3d4, 0xa1b23c4d):
            endian = '<'
        elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
            endian = '>'
        else:
            raise rt.TestFailed('%s: not a pcap (magic 0x%08x)' % (path, magic))
        linktype = struct.unpack(endian + 'I', head[20:24])[0]
        f.seek(max(start, 24))
        data = f.read()
    recs = []
    off = 0
    while off + 16 <= len(data):
        ts_s, ts_u, incl, orig = struct.unpack(endian + 'IIII',
                                               data[off:off + 16])
        if incl > 262144 or orig < incl:
            raise rt.TestFailed('%s: bad record at offset %d (incl %d orig '
                                '%d): not a record boundary'
                                % (path, start + off, incl, orig))
        if off + 16 + incl > len(data):
            break
        recs.append((ts_s + ts_u / 1e6, data[off + 16:off + 16 + incl]))
        off += 16 + incl
    return recs, (head, linktype)


def pcap_write(path, head, recs):
    with open(path, 'wb') as f:
        f.write(head)
        for ts, d in recs:
            f.write(struct.pack('<IIII', int(ts), int((ts % 1) * 1e6),
                                len(d), len(d)))
            f.write(d)


# ----------------------------------------------------------- the frames ----

class Side:
    """What a board puts into its frames."""

    def __init__(self, mac, ip, ttl, ip_id, tc, ack_tc, qpn, sport, pkey):
        self.mac = mac
        self.ip = ip
        self.ttl = ttl
        self.ip_id = ip_id
        self.tc = tc
        self.ack_tc = ack_tc
        self.qpn = qpn
        self.sport = sport
        self.pkey = pkey


def build_frame(src, dst, opcode, psn, payload=b'', ts=0, ts_en=1, fack=0,
                syndrome=0, with_icrc=True, eth_pad=0):
    """A Standard-format TYPE1 frame from side src to side dst (used by
    --selftest to check the decoder)."""
    pad = padded(len(payload)) - len(payload)
    rh = (fput(RH, 'DEST_QP', dst.qpn) | fput(RH, 'PSN', psn) |
          fput(RH, 'PKEY', src.pkey) | fput(RH, 'TS', ts) |
          fput(RH, 'TS_EN', ts_en) | fput(RH, 'PAD', pad) |
          fput(RH, 'FACK', fack) | fput(RH, 'OPCODE', opcode))
    if opcode == RH[2]['OP_REQ']:
        rh |= fput(RH, 'PKT_LEN', pkt_len_field(len(payload)))
    else:
        rh |= fput(RH, 'SYNDROME', syndrome)
    body = struct.pack('>Q', rh) + payload + bytes(pad)
    ulen = 8 + len(body) + (ICRC_LEN if with_icrc else 0)
    udp = struct.pack('>HHHH', src.sport, UDP_PORT, ulen, 0)
    tos = src.tc if opcode == RH[2]['OP_REQ'] else src.ack_tc
    iph = struct.pack('>BBHHHBBH4s4s', 0x45, tos, 20 + ulen, src.ip_id,
                      0x4000, src.ttl, 17, 0, ip_bytes(src.ip),
                      ip_bytes(dst.ip))
    iph = iph[:10] + struct.pack('>H', ip_csum(iph)) + iph[12:]
    tail = struct.pack('<I', icrc(iph, udp + body)) if with_icrc else b''
    return (mac_bytes(dst.mac) + mac_bytes(src.mac) + b'\x08\x00' + iph +
            udp + body + tail + bytes(eth_pad))


def seg_data(payload):
    """The data of a REQ payload (segment header, data, and the zero
    padding of a LAST or ONLY packet below the TX_S minimum)."""
    seg = struct.unpack('<Q', payload[:SEG_HDR])[0]
    data = payload[SEG_HDR:]
    off, mlen = fget(SEG, seg, 'OFFSET'), fget(SEG, seg, 'MSG_LEN')
    if (fget(SEG, seg, 'POS') in (SEG[2]['LAST'], SEG[2]['ONLY']) and
            len(payload) == PKT_MIN and off <= mlen and
            mlen - off < len(data)):
        return data[:mlen - off]
    return data


def seg_header(pos, offset, msg_len):
    return struct.pack('<Q', fput(SEG, 'POS', pos) |
                       fput(SEG, 'OFFSET', offset) |
                       fput(SEG, 'MSG_LEN', msg_len))


class Decoder:
    """Checks the frames of the test (A sends REQs to B, B ACKs)."""

    def __init__(self, a, b, sq_psn, epsn_w, pkt_len, icrc_on, messages):
        self.a = a
        self.b = b
        self.sq_psn = sq_psn
        self.mod = 1 << epsn_w
        self.data_per_pkt = pkt_len - SEG_HDR
        self.icrc_on = icrc_on
        self.messages = messages
        self.errs = []
        self.reqs = {}          # psn -> (frame index, rh, payload)
        self.req_order = []     # psns in first-seen order
        self.retx = 0
        self.acks = []          # (frame index, psn, ts_en, ts)
        self.n = 0

    def err(self, i, msg):
        if len(self.errs) < 40:
            self.errs.append('frame %d: %s' % (i, msg))

    def ours(self, d):
        """(side sending, side receiving) or None when not a test frame."""
        if len(d) < 14 + 20 + 8 or d[12:14] != b'\x08\x00':
            return None
        ip = d[14:]
        if ip[0] >> 4 != 4 or ip[9] != 17:
            return None
        ihl = (ip[0] & 15) * 4
        sport, dport = struct.unpack('>HH', ip[ihl:ihl + 4])
        if dport != UDP_PORT:
            return None
        if sport == self.a.sport:
            return self.a, self.b
        if sport == self.b.sport:
            return self.b, self.a
        return None

    def frame(self, i, d):
        who = self.ours(d)
        if who is None:
            return False
        src, dst = who
        self.n += 1
        e = lambda m: self.err(i, m)  # noqa: E731
        if d[0:6] != mac_bytes(dst.mac):
            e('Ethernet DA %s, want %s' % (d[0:6].hex(':'), dst.mac))
        if d[6:12] != mac_bytes(src.mac):
            e('Ethernet SA %s, want %s' % (d[6:12].hex(':'), src.mac))
        ip = d[14:]
        ver_ihl, tos, tot, ipid, frag, ttl, proto, csum = \
            struct.unpack('>BBHHHBBH', ip[:12])
        if ver_ihl != 0x45:
            e('IPv4 version/IHL 0x%02x, want 0x45' % ver_ihl)
            return True
        if tot > len(ip):
            e('IPv4 total length %d > %d bytes after Ethernet' % (tot, len(ip)))
            return True
        if any(ip[tot:]):
            e('%d bytes after the IP packet, not zero' % (len(ip) - tot))
        ip = ip[:tot]
        if ipid != src.ip_id:
            e('IPv4 ID 0x%04x, want 0x%04x' % (ipid, src.ip_id))
        if frag != 0x4000:
            e('IPv4 flags/fragment 0x%04x, want 0x4000 (DF)' % frag)
        if ttl != src.ttl:
            e('TTL %d, want %d' % (ttl, src.ttl))
        if proto != 17:
            e('protocol %d' % proto)
        if ip_csum(ip[:20]) != 0:
            e('IPv4 header checksum 0x%04x wrong' % csum)
        if ip[12:16] != ip_bytes(src.ip) or ip[16:20] != ip_bytes(dst.ip):
            e('IPv4 %s -> %s, want %s -> %s'
              % ('.'.join(map(str, ip[12:16])), '.'.join(map(str, ip[16:20])),
                 src.ip, dst.ip))
        sport, dport, ulen, ucsum = struct.unpack('>HHHH', ip[20:28])
        if ulen != tot - 20:
            e('UDP length %d, want %d' % (ulen, tot - 20))
        if ucsum != 0:
            e('UDP checksum 0x%04x, want 0' % ucsum)
        udp_payload = ip[28:]
        tail = ICRC_LEN if self.icrc_on else 0
        if len(udp_payload) < RH_LEN + tail:
            e('UDP payload of %d bytes' % len(udp_payload))
            return True
        if self.icrc_on:
            got = struct.unpack('<I', udp_payload[-4:])[0]
            want = icrc(ip[:20], ip[20:-4])
            if got != want:
                e('ICRC 0x%08x, want 0x%08x' % (got, want))
            udp_payload = udp_payload[:-4]
        rh = struct.unpack('>Q', udp_payload[:8])[0]
        body = udp_payload[8:]
        op = fget(RH, rh, 'OPCODE')
        if fget(RH, rh, 'DEST_QP') != dst.qpn:
            e('DEST_QP %d, want %d' % (fget(RH, rh, 'DEST_QP'), dst.qpn))
        if fget(RH, rh, 'PKEY') != src.pkey:
            e('PKEY 0x%x, want 0x%x' % (fget(RH, rh, 'PKEY'), src.pkey))
        psn = fget(RH, rh, 'PSN')
        if src is self.a:
            if op != RH[2]['OP_REQ']:
                e('opcode %d from A, want REQ' % op)
                return True
            if tos != src.tc:
                e('ToS 0x%02x, want tc 0x%02x' % (tos, src.tc))
            self.req(i, rh, psn, body)
        else:
            if op != RH[2]['OP_ACK']:
                e('opcode %d from B, want ACK' % op)
                return True
            if tos != src.ack_tc:
                e('ToS 0x%02x, want ack_tc 0x%02x' % (tos, src.ack_tc))
            syn = fget(RH, rh, 'SYNDROME')
            if fget(SYN, syn, 'TYPE') != SYN[2]['ACK'] or \
                    fget(SYN, syn, 'VALUE') != 0x1f:
                e('ACK syndrome 0x%02x, want ACK (type 0, value 0x1f) on a '
                  'perfect wire' % syn)
            if body:
                e('ACK with %d bytes after the RH' % len(body))
            if fget(RH, rh, 'PAD') or fget(RH, rh, 'FACK'):
                e('ACK with PAD %d FACK %d' % (fget(RH, rh, 'PAD'),
                                               fget(RH, rh, 'FACK')))
            self.acks.append((i, psn, fget(RH, rh, 'TS_EN'),
                              fget(RH, rh, 'TS')))
        return True

    def req(self, i, rh, psn, body):
        e = lambda m: self.err(i, m)  # noqa: E731
        pad = fget(RH, rh, 'PAD')
        if len(body) % 4:
            e('REQ payload + pad of %d bytes, not a multiple of 4' % len(body))
        if len(body) < SEG_HDR:
            e('REQ without a segment header (%d bytes)' % len(body))
            return
        payload = body[:len(body) - pad] if pad else body
        if pad and any(body[len(body) - pad:]):
            e('pad bytes not zero: %s' % body[len(body) - pad:].hex())
        if padded(len(payload)) != len(body) or pad > 3:
            e('PAD %d inconsistent with %d bytes' % (pad, len(body)))
        want_pl = pkt_len_field(len(payload))
        if fget(RH, rh, 'PKT_LEN') != want_pl:
            e('PKT_LEN %d, want %d (payload %d bytes)'
              % (fget(RH, rh, 'PKT_LEN'), want_pl, len(payload)))
        if not fget(RH, rh, 'TS_EN'):
            e('REQ without TS_EN')
        if psn in self.reqs:
            self.retx += 1
            old = self.reqs[psn]
            if old[2] != payload:
                e('retransmission of PSN %d differs from the original' % psn)
            self.reqs[psn] = (old[0], old[1], old[2], fget(RH, rh, 'TS'))
            return
        self.reqs[psn] = (i, rh, payload, fget(RH, rh, 'TS'))
        self.req_order.append(psn)

    def seg_endian(self):
        """'<': the segment header is one little-endian 64-bit word
        (shim.rst, Frames: it is payload, written and read by the shims).
        When the first REQ's header only makes sense big-endian, that is
        one error and the rest is decoded big-endian (to check it)."""
        if not self.req_order or not self.messages:
            return '<'
        payload = self.reqs[self.req_order[0]][2]
        first = len(self.messages[0])

        def sane(e):
            seg = struct.unpack(e + 'Q', payload[:8])[0]
            return (fget(SEG, seg, 'OFFSET') == 0 and
                    fget(SEG, seg, 'MSG_LEN') == first and
                    fget(SEG, seg, 'POS') in (SEG[2]['FIRST'], SEG[2]['ONLY']))
        if not sane('<') and sane('>'):
            self.errs.append('the segment header is big-endian on the wire '
                             '(%s), shim.rst: one little-endian word'
                             % payload[:8].hex())
            return '>'
        return '<'

    def finish(self):
        """Checks across frames: PSNs, segments, messages, ACKs."""
        want = self.sq_psn
        for k, psn in enumerate(self.req_order):
            if psn != want:
                self.errs.append('REQ #%d has PSN %d, want %d (contiguous from '
                                 'sq_psn %d)' % (k, psn, want, self.sq_psn))
                break
            want = (want + 1) % self.mod
        msgs = []
        cur = None
        pos_name = {v: k for k, v in SEG[2].items()}
        endian = self.seg_endian()
        for psn in self.req_order:
            i, rh, payload, _ = self.reqs[psn]
            seg = struct.unpack(endian + 'Q', payload[:8])[0]
            data = payload[8:]
            pos = fget(SEG, seg, 'POS')
            off = fget(SEG, seg, 'OFFSET')
            mlen = fget(SEG, seg, 'MSG_LEN')
            e = lambda m, i=i, psn=psn: self.err(  # noqa: E731
                i, 'PSN %d %s: %s' % (psn, pos_name.get(pos), m))
            if pos in (SEG[2]['FIRST'], SEG[2]['ONLY']):
                if cur is not None:
                    e('a new message while message %d is open' % len(msgs))
                cur = {'len': mlen, 'data': b'', 'pkts': 0}
            elif cur is None:
                e('no message open')
                cur = {'len': mlen, 'data': b'', 'pkts': 0}
            if mlen != cur['len']:
                e('MSG_LEN %d, message has %d' % (mlen, cur['len']))
            if off != len(cur['data']):
                e('OFFSET %d, want %d' % (off, len(cur['data'])))
            last = pos in (SEG[2]['LAST'], SEG[2]['ONLY'])
            if len(payload) < PKT_MIN:
                e('%d bytes, below the TX_S minimum of %d' % (len(payload),
                                                             PKT_MIN))
            if (last and len(payload) == PKT_MIN and off <= mlen and
                    mlen - off < len(data)):
                if any(data[mlen - off:]):
                    e('padding not zero: %s' % data[mlen - off:].hex())
                data = data[:mlen - off]
            if not last and len(data) != self.data_per_pkt:
                e('%d data bytes in a packet that is not the last, want %d'
                  % (len(data), self.data_per_pkt))
            if not last and fget(RH, rh, 'FACK'):
                e('FACK on a packet that is not the last')
            if last and len(cur['data']) + len(data) != mlen:
                e('message ends at %d bytes, MSG_LEN %d'
                  % (len(cur['data']) + len(data), mlen))
            if last and len(data) > self.data_per_pkt:
                e('%d data bytes > %d' % (len(data), self.data_per_pkt))
            cur['data'] += data
            cur['pkts'] += 1
            if last:
                msgs.append(cur)
                cur = None
        if cur is not None:
            self.errs.append('the last message is incomplete (%d of %d bytes)'
                             % (len(cur['data']), cur['len']))
        if len(msgs) != len(self.messages):
            self.errs.append('%d messages on the wire, %d sent'
                             % (len(msgs), len(self.messages)))
        for k, (m, want_m) in enumerate(zip(msgs, self.messages)):
            if m['data'] != want_m:
                self.errs.append('message %d: %d bytes on the wire differ from '
                                 'the %d sent' % (k, len(m['data']),
                                                  len(want_m)))
            npk = max(1, -(-len(want_m) // self.data_per_pkt))
            if m['pkts'] != npk:
                self.errs.append('message %d (%d bytes): %d packets, want %d'
                                 % (k, len(want_m), m['pkts'], npk))
        # ACKs: cumulative, in PSN order, the last covers the last REQ, the
        # timestamp echoes the acknowledged REQ's
        if not self.acks:
            self.errs.append('no ACK on the wire')
            return
        sent = set(self.req_order)
        prev = None
        for i, psn, ts_en, ts in self.acks:
            if psn not in sent:
                self.err(i, 'ACK for PSN %d, never sent' % psn)
                continue
            rank = self.req_order.index(psn)
            if prev is not None and rank < prev:
                self.err(i, 'ACK for PSN %d goes back' % psn)
            prev = rank
            if not ts_en:
                self.err(i, 'ACK without TS_EN (ack_timestamp is on)')
            elif ts != self.reqs[psn][3]:
                self.err(i, 'ACK TS %d, the REQ with PSN %d had %d'
                         % (ts, psn, self.reqs[psn][3]))
        if self.req_order and self.acks[-1][1] != self.req_order[-1]:
            self.errs.append('the last ACK is for PSN %d, the last REQ has %d'
                             % (self.acks[-1][1], self.req_order[-1]))


# --------------------------------------------------------------- tshark ----

def tshark_check(path, nframes):
    """Problems tshark finds in the capture of our frames ([] = none)."""
    flt = ('frame', 'eth && ip && udp.dstport == %d' % UDP_PORT,
           'ip.checksum.status == 1', 'ip.checksum.status == 0',
           '_ws.malformed', '_ws.expert.severity >= 8388608')
    cmd = ['tshark', '-n', '-r', path, '-o', 'ip.check_checksum:TRUE',
           '--disable-protocol', 'infiniband', '-q', '-z',
           'io,stat,0,' + ','.join(flt)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, check=False, timeout=300)
    row = None
    for line in p.stdout.splitlines():
        if '<>' in line:
            cols = [c.strip() for c in line.split('|')]
            row = [int(c) for c in cols[2:-1:2] if c.isdigit()]
            break
    if p.returncode or not row or len(row) < len(flt):
        return ['tshark failed (exit %d): %s' % (p.returncode,
                                                 p.stdout[-2000:])]
    errs = []
    frames, good, ok_csum, bad_csum, malformed, expert = row[:6]
    if frames != nframes:
        errs.append('tshark read %d frames, want %d' % (frames, nframes))
    if good != nframes:
        errs.append('%d of %d frames decode as eth/ip/udp port %d'
                    % (good, nframes, UDP_PORT))
    if ok_csum != nframes or bad_csum:
        errs.append('IP checksum good in %d, bad in %d of %d frames'
                    % (ok_csum, bad_csum, nframes))
    if malformed:
        errs.append('%d malformed frames' % malformed)
    if expert:
        errs.append('%d frames with expert errors' % expert)
    if errs:
        p = subprocess.run(['tshark', '-n', '-r', path, '-o',
                            'ip.check_checksum:TRUE', '--disable-protocol',
                            'infiniband', '-V', '-c', '3'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, check=False)
        errs.append(p.stdout[-3000:])
    return errs


def have_tshark():
    return subprocess.run(['sh', '-c', 'command -v tshark'],
                          stdout=subprocess.DEVNULL, check=False).returncode == 0


# ------------------------------------------------------------- selftest ---

def selftest():
    """The decoder and tshark against frames built here (no board)."""
    a = Side('02:52:43:00:00:01', IP_A, TTL_A, IPID_A, TC_A, ACK_TC_A, QA,
             SPORT_A, PKEY_A)
    b = Side('02:52:43:00:00:02', IP_B, TTL_B, IPID_B, TC_B, ACK_TC_B, QB,
             SPORT_B, PKEY_B)
    msgs = [t1.pattern(QA, k, s) for k, s in enumerate(SIZES)]
    per = 1336
    frames = []
    psn = SQ_PSN_A
    ts = 100
    for m in msgs:
        offs = list(range(0, len(m), per)) or [0]
        for k, off in enumerate(offs):
            data = m[off:off + per]
            if len(offs) == 1:
                pos = SEG[2]['ONLY']
            elif k == 0:
                pos = SEG[2]['FIRST']
            elif k == len(offs) - 1:
                pos = SEG[2]['LAST']
            else:
                pos = SEG[2]['MIDDLE']
            pl = seg_header(pos, off, len(m)) + data
            frames.append(build_frame(a, b, RH[2]['OP_REQ'], psn,
                                      pl.ljust(PKT_MIN, b'\0'), ts=ts))
            last_psn, last_ts = psn, ts
            psn = (psn + 1) % 4096
            ts += 3
        frames.append(build_frame(b, a, RH[2]['OP_ACK'], last_psn, ts=last_ts,
                                  syndrome=0x1f, eth_pad=6))
    dec = Decoder(a, b, SQ_PSN_A, 12, 1344, True, msgs)
    for i, f in enumerate(frames):
        dec.frame(i + 1, f)
    dec.finish()
    ok = not dec.errs
    print('decoder on %d good frames: %s' % (len(frames),
                                             dec.errs or 'no error'))
    # one bad frame of each kind must be caught
    bad = bytearray(frames[2])                  # a REQ
    bad[-1] ^= 1                                # ICRC
    dec2 = Decoder(a, b, SQ_PSN_A, 12, 1344, True, msgs)
    dec2.frame(1, bytes(bad))
    print('decoder on a bad ICRC: %s' % dec2.errs)
    ok &= any('ICRC' in x for x in dec2.errs)
    dec3 = Decoder(a, b, SQ_PSN_A, 12, 1344, True, msgs)
    for i, f in enumerate(frames[:4] + frames[5:]):   # a REQ lost
        dec3.frame(i + 1, f)
    dec3.finish()
    print('decoder without frame 4: %s' % dec3.errs[:2])
    ok &= any('contiguous' in x for x in dec3.errs)
    if have_tshark():
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 'x.pcap')
            head = struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
            pcap_write(p, head, [(1.0 + k, f) for k, f in enumerate(frames)])
            recs, _ = pcap_records(p)
            ok &= len(recs) == len(frames)
            errs = tshark_check(p, len(frames))
            print('tshark: %s' % (errs or 'no error'))
            ok &= not errs
    return 0 if ok else 1


# ------------------------------------------------------------------ test ---

class WireTest:
    def __init__(self, ktap, pcap):
        self.ktap = ktap
        self.pcap = pcap
        self.a = self.b = None
        self.saved = {}
        self.added = []
        self.info = {}
        self.messages = []
        self.size0 = 0
        self.frames = []
        self.head = None
        self.sa = self.sb = None

    def setup(self):
        self.a, self.b = t1.pick_pair()
        for d in (self.a, self.b):
            self.saved[d] = t1.dev_show(d)
            if t1.qpns(d):
                raise rt.SkipTest('%s has QPs configured: in use' % d)
        self.info = self.saved[self.a]
        cfg = {self.a: (IP_A, TTL_A, IPID_A, TC_A, ACK_TC_A),
               self.b: (IP_B, TTL_B, IPID_B, TC_B, ACK_TC_B)}
        for d, (ip, ttl, ipid, tc, atc) in cfg.items():
            t1.tool(['dev', 'set', 'dev', d, 'ip', ip, 'ttl', ttl, 'ip_id',
                     ipid, 'tc', tc, 'ack_tc', atc, 'ack_timestamp', 'on',
                     'icrc', 'on'])

    def restore(self):
        if self.a is None:
            return
        for d in (self.b, self.a):
            for q in list(self.added):
                if q[0] == d:
                    t1.tool(['qp', 'del', 'dev', d, 'qpn', q[1]], check=False)
                    self.added.remove(q)
        for d, saved in self.saved.items():
            args = t1.restore_args(saved, t1.dev_show(d))
            if args:
                t1.tool(['dev', 'set', 'dev', d] + args, check=False)

    def side(self, d):
        mac = t1.dev_show(d)['mac']
        if d == self.a:
            return Side(mac, IP_A, TTL_A, IPID_A, TC_A, ACK_TC_A, QA,
                        SPORT_A, PKEY_A)
        return Side(mac, IP_B, TTL_B, IPID_B, TC_B, ACK_TC_B, QB, SPORT_B,
                    PKEY_B)

    def test_traffic(self):
        a, b = self.side(self.a), self.side(self.b)
        self.sa, self.sb = a, b
        t1.tool(['qp', 'add', 'dev', self.a, 'qpn', QA, 'dqpn', QB, 'dip',
                 IP_B, 'dmac', b.mac, 'sport', SPORT_A, 'pkey', PKEY_A,
                 'rx_pkey', PKEY_B, 'sq_psn', SQ_PSN_A, 'rq_psn', SQ_PSN_B])
        self.added.append((self.a, QA))
        t1.tool(['qp', 'add', 'dev', self.b, 'qpn', QB, 'dqpn', QA, 'dip',
                 IP_A, 'dmac', a.mac, 'sport', SPORT_B, 'pkey', PKEY_B,
                 'rx_pkey', PKEY_A, 'sq_psn', SQ_PSN_B, 'rq_psn', SQ_PSN_A])
        self.added.append((self.b, QB))
        self.size0 = os.path.getsize(self.pcap)
        self.messages = [t1.pattern(QA, k, s) for k, s in enumerate(SIZES)]
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            for m in self.messages:
                check(ca.send(m) == len(m), 'short write')
            ca.drain()
            for k, m in enumerate(self.messages):
                got = cb.recv(10)
                check(got is not None, 'message %d did not arrive' % k)
                check(got == m, 'message %d: %d bytes, want %d (content '
                      'differs)' % (k, len(got), len(m)))
            check(cb.poll(select.POLLIN, 0.2) == 0, 'a message too many')
        qa = t1.qp_show(self.a, QA, stats=True)
        st = qa.get('stats', qa)
        self.ktap.diag('A qpn %d: tx_pkts %s retx_pkts %s rtt_samples %s '
                       'sq_psn %s' % (QA, st.get('tx_pkts'), st.get('retx_pkts'),
                                      st.get('rtt_samples'), qa.get('sq_psn')))
        npk = sum(max(1, -(-s // (int(self.info['pkt_len']) - SEG_HDR)))
                  for s in SIZES)
        want = (SQ_PSN_A + npk) % (1 << int(self.info['epsn_w']))
        check(int(qa['sq_psn']) == want, 'A sq_psn %s after %d packets from '
              '%d, want %d' % (qa['sq_psn'], npk, SQ_PSN_A, want))
        check(int(st.get('rtt_samples', 0)) > 0, 'no RTT sample with '
              'ack_timestamp on: %s' % st)

    def capture(self):
        """Our frames of the live wire (waits for QEMU to write them)."""
        deadline = time.monotonic() + 10
        while True:
            time.sleep(1)
            recs, self.head = pcap_records(self.pcap, self.size0)
            dec = Decoder(self.sa, self.sb, SQ_PSN_A, 12, 1344, True, [])
            ours = [r for r in recs if dec.ours(r[1])]
            if self.frames and len(ours) == len(self.frames):
                break
            self.frames = ours
            if time.monotonic() > deadline:
                break
        check(self.frames, '%s has no frame of the test after offset %d (%d '
              'records): not the live wire?' % (self.pcap, self.size0,
                                                len(recs)))
        self.ktap.diag('%d frames of the test in %s (from offset %d)'
                       % (len(self.frames), self.pcap, self.size0))

    def test_tshark(self):
        if not have_tshark():
            raise rt.SkipTest('no tshark')
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, 't1.pcap')
            pcap_write(p, self.head[0], self.frames)
            errs = tshark_check(p, len(self.frames))
        check(not errs, '\n'.join(errs))

    def test_decode(self):
        dec = Decoder(self.sa, self.sb, SQ_PSN_A, int(self.info['epsn_w']),
                      int(self.info['pkt_len']), True, self.messages)
        for i, (_, d) in enumerate(self.frames):
            dec.frame(i + 1, d)
        dec.finish()
        self.ktap.diag('%d REQs (%d retransmitted), %d ACKs'
                       % (len(dec.req_order), dec.retx, len(dec.acks)))
        check(not dec.errs, '\n'.join(dec.errs))


def start_pair_test(ktap, make_test):
    """The common start of the wire tests: the capture of the pair's wire
    (skip without it), the module, the test object's setup (skip when the
    pair is missing or busy).  Returns (module, test)."""
    pcap = rt.wire_pcap()
    if not pcap:
        ktap.skip_all('no $RCLINK_RESULTS/wire.pcap or $RCLINK_WIRE_PCAP (QEMU '
                      'filter-dump of the pair\'s wire)')
    mod = rt.start(ktap)
    t = make_test(ktap, pcap)
    try:
        t.setup()
    except (LookupError, rt.SkipTest) as e:
        t.restore()
        mod.__exit__(None, None, None)
        ktap.skip_all(str(e))
    except Exception:  # pylint: disable=broad-except
        t.restore()
        mod.__exit__(None, None, None)
        raise
    return mod, t


def main():
    if sys.argv[1:] == ['--selftest']:
        sys.exit(selftest())
    ktap = rt.Ktap()
    mod, t = start_pair_test(ktap, WireTest)
    mark = rt.kmsg_mark('t1_wire')
    ktap.plan(5)
    try:
        ktap.run('traffic', t.test_traffic)
        if t.sa is not None:
            ktap.run('capture', t.capture)
        else:
            ktap.skip('capture', 'no traffic')
        if t.frames:
            ktap.run('tshark', t.test_tshark)
            ktap.run('decode', t.test_decode)
        else:
            ktap.skip('tshark', 'no frames')
            ktap.skip('decode', 'no frames')
    finally:
        t.restore()
        bad = rt.kmsg_problems(rt.kmsg_since(mark), errors=False)
        ktap.result('kernel_log_clean', not bad, '\n'.join(bad))
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
