#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a shared test vector file (firmware/vectors/*.json) into the
command file the RTL testbench reads with $readmemh (one 256-bit command
a line: {c, b, a, op}, see rclink_tb.v).

Usage: vec2tb.py VECTOR.json OUT.hex
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'vectors'))
import vecload as vl  # noqa: E402  pylint: disable=wrong-import-position

HBASE = 0x10000000          # host memory of the testbench (rclink_tb.v)
PAGE = 4096
DB_SHIFT = 16               # DMAQ_CTX_CAP.db_shift

OP = dict(end=0, w=1, r=2, poll=3, memw=4, memr=5, ipirq=6, cfg=7, msix=8,
          nomsix=9, credit=10, tx=11, delay=12, rx=13, notx=14, intx=15,
          wait=16, ipset=17, memeq=18, ack=19, ipdfx=20, t2rate=21,
          tmo=22, db=23, rge=24, wstall=25, sent3=26, rx3=27,
          t3drops=28, nosent3=29, timers=30)
M64 = (1 << 64) - 1


def lanes(off, width):
    """(qword address, byte enables, shift) of an access."""
    if width == 64:
        return off & ~7, 0xff, 0
    return off & ~7, (0xf0 if off & 4 else 0x0f), (32 if off & 4 else 0)


def cmd(op, a=0, b=0, c=0, extra=0):
    w0 = OP[op] | (extra << 8)
    return '%064x' % ((c & M64) << 192 | (b & M64) << 128 | (a & M64) << 64 | w0)


def convert(v):
    bases = {}
    for i, name in enumerate(sorted(v['buffers'])):
        bases[name] = HBASE + PAGE * (i + 1)
    out = []
    mem = {}                      # host memory image the vectors build
    t2_psn = {}                   # TYPE2: the next PSN of each group

    def memw(addr, data, mask=M64):
        out.append(cmd('memw', addr, data, mask))

    def write_bytes(addr, data):
        for i, byte in enumerate(data):
            a = addr + i
            q = a & ~7
            mem.setdefault(q, [0, 0])
            mem[q][0] |= byte << (8 * (a & 7))
            mem[q][1] |= 0xff << (8 * (a & 7))
        for q in sorted(mem):
            memw(q, mem[q][0], mem[q][1])
        mem.clear()

    plain = ('w64', 'w32', 'r64', 'r32', 'wbuf', 'poll', 'memw', 'memr',
             'fill', 'wqe', 'rqe', 'memeq', 'sent', 'sent2', 'db', 'dbw',
             'rge', 'sent3')
    # ops of the model's peer board, and those of the model only, are not
    # for the testbench
    ops = [o[1:] if o[0] == 'sim' and o[1] in plain else o for o in v['ops']
           if o[0] not in ('peer', 'model')]
    cfg = 1                     # the testbench's cfg: bus mastering on
    for op in ops:
        k = op[0]
        if k == 'master':
            cfg = (cfg & ~1) | (1 if vl.value(op[1]) else 0)
            out.append(cmd('cfg', cfg))
        elif k in ('w64', 'w32'):
            off, _ = vl.reg(op[1])
            width = 32 if k == 'w32' else 64
            q, be, sh = lanes(off, width)
            out.append(cmd('w', q, vl.value(op[2]) << sh, 0, be))
        elif k in ('r64', 'r32'):
            off, _ = vl.reg(op[1])
            width = 32 if k == 'r32' else 64
            q, be, sh = lanes(off, width)
            mask = vl.value(op[3]) if len(op) > 3 else (M64 if width == 64 else 0xffffffff)
            out.append(cmd('r', q, vl.value(op[2]) << sh, mask << sh, be))
        elif k == 'wbuf':
            off, _ = vl.reg(op[1])
            out.append(cmd('w', off, vl.addr(op[2], bases), 0, 0xff))
        elif k == 'poll':
            off, _ = vl.reg(op[1])
            mask = vl.value(op[3]) if len(op) > 3 else M64
            out.append(cmd('poll', off, vl.value(op[2]), mask, 0xff))
        elif k == 'rge':
            # a 64-bit read until the value is at least op[2]
            off, _ = vl.reg(op[1])
            out.append(cmd('rge', off, vl.value(op[2]), 0, 0xff))
        elif k == 'memw':
            memw(vl.addr(op[1], bases), vl.value(op[2]))
        elif k == 'memr':
            mask = vl.value(op[3]) if len(op) > 3 else M64
            out.append(cmd('memr', vl.addr(op[1], bases), vl.value(op[2]), mask))
        elif k == 'sent':
            # the pieces must be contiguous in the testbench's memory
            pieces = [(vl.addr(a, bases), vl.value(n)) for a, n in op[4]]
            for (a0, n0), (a1, _) in zip(pieces, pieces[1:]):
                if a0 + n0 != a1:
                    raise SystemExit('%r: pieces not contiguous here' % op)
            out.append(cmd('tx', vl.value(op[2]),
                           vl.value(op[1]) | vl.value(op[3]) << 16 |
                           sum(n for _, n in pieces) << 32, pieces[0][0]))
        elif k == 'sent2':
            # a TYPE2 packet (TX_S_ETYPE_I 3, the group index); the pieces
            # contiguous as for "sent"
            pieces = [(vl.addr(a, bases), vl.value(n)) for a, n in op[3]]
            for (a0, n0), (a1, _) in zip(pieces, pieces[1:]):
                if a0 + n0 != a1:
                    raise SystemExit('%r: pieces not contiguous here' % op)
            out.append(cmd('tx', vl.value(op[2]),
                           3 << 20 | vl.value(op[1]) << 24 |
                           sum(n for _, n in pieces) << 32, pieces[0][0]))
        elif k == 'sent3':
            # ["sent3", addr, len]: the next TYPE3 frame the IP sends on
            # the wire (the TYPE3 stand-in's MAC side)
            out.append(cmd('sent3', vl.addr(op[1], bases), vl.value(op[2])))
        elif k == 'db':
            # a doorbell of user context op[1] (the doorbell BAR, format DB)
            off = vl.value(op[1]) << DB_SHIFT | vl._hw().FORMATS['DB'][2]['OFF_' + op[2]]
            out.append(cmd('db', off, vl.value(op[3]) & 0xffffffff, 0, 0xff))
        elif k == 'dbw':
            # a doorbell BAR write of another size or place: its lanes
            off, size, val = vl.db_write(op, DB_SHIFT)
            sh = off & 7
            out.append(cmd('db', off & ~7, val << (8 * sh), 0,
                           ((1 << size) - 1) << sh))
        elif k == 'memeq':
            out.append(cmd('memeq', vl.addr(op[1], bases), vl.addr(op[2], bases),
                           vl.value(op[3])))
        elif k == 'fill':
            write_bytes(vl.addr(op[1], bases),
                        vl.pattern(vl.value(op[3]), vl.value(op[2])))
        elif k == 'wqe':
            a = vl.addr(op[1], bases)
            memw(a, vl.value(op[2]))
            memw(a + 8, vl.addr(op[3], bases) if isinstance(op[3], str) and
                 not op[3].startswith('0x') else vl.value(op[3]))
        elif k == 'rqe':
            a = vl.addr(op[1], bases)
            memw(a, vl.addr(op[2], bases))
            memw(a + 8, vl.value(op[3]))
        elif k == 'sim':
            w = op[1]
            if w == 'cfg':
                cfg = vl.value(op[2])
                out.append(cmd('cfg', cfg))
            elif w == 'delay':
                # ["sim", "delay", cycles, region?]: read latency (of the
                # page at region only, when given)
                out.append(cmd(w, vl.value(op[2]),
                               vl.addr(op[3], bases) if len(op) > 3 else 0))
            elif w == 'timers':
                # ["sim", "timers", level]: rclink_shim_top's timers_run
                # (a WRITE or READ waits for its response, a packet is
                # held on RX_M, a moderation timer runs) is level now
                out.append(cmd(w, vl.value(op[2])))
            elif w in ('msix', 'intx', 'wait', 'credit', 'ipirq', 'wstall'):
                # "wstall" cycles: after each host memory write the
                # requester takes nothing for that many cycles (write TLPs
                # that leave late); 0 ends it
                out.append(cmd(w, vl.value(op[2])))
            elif w == 'rx3':
                # ["sim", "rx3", addr, len]: a frame of len bytes from the
                # wire to the IP's TYPE3 receive path; waits until the
                # IP stored or dropped it
                out.append(cmd(w, vl.addr(op[2], bases), vl.value(op[3])))
            elif w == 't3drops':
                # ["sim", "t3drops", off, nomd, err]: the frames the IP's
                # TYPE3 receive path dropped so far (SHIM_RX_DROP_OFF,
                # _NOMD, _ERR of the model: events inside the IP)
                out.append(cmd(w, vl.value(op[2]), vl.value(op[3]),
                               vl.value(op[4])))
            elif w in ('nomsix', 'notx', 'nosent3'):
                out.append(cmd(w))
            elif w == 'tx':
                # ["sim", "tx", seg, qpn, fack, data addr, data bytes]
                out.append(cmd('tx', vl.value(op[2]),
                               vl.value(op[3]) | vl.value(op[4]) << 16 |
                               vl.value(op[6]) << 32, vl.addr(op[5], bases)))
            elif w == 'tx2':
                # ["sim", "tx2", seg, group, data addr, data bytes]: a
                # TYPE2 packet (TX_S_ETYPE_I 3, the group index)
                out.append(cmd('tx', vl.value(op[2]),
                               3 << 20 | vl.value(op[3]) << 24 |
                               vl.value(op[5]) << 32, vl.addr(op[4], bases)))
            elif w == 'rx':
                # ["sim", "rx", qpn, seg, data addr, data bytes, "pad"?,
                # "bg"?, "rnr"? | "nobuf"?]: with "pad", zero bytes after
                # the data up to the TX_S minimum (SEG.PKT_MIN), as a
                # sending shim pads; with "bg" the packet goes in the
                # background (it may wait on RX_M while the next commands
                # run; the next "rx" waits); "rnr" (or "nobuf"): the
                # shim's FLOW_STOP of the QP's bank is up, so the IP
                # answers the request RNR (or drops it) and nothing comes
                # on RX_M; without them FLOW_STOP must be down
                pad = 'pad' in op[6:]
                bg = 'bg' in op[6:]
                rnr = 'rnr' in op[6:]
                nobuf = 'nobuf' in op[6:]
                out.append(cmd('rx', vl.value(op[3]),
                               vl.value(op[2]) | pad << 28 | bg << 29 |
                               rnr << 30 | nobuf << 31 |
                               vl.value(op[5]) << 32,
                               vl.addr(op[4], bases)))
            elif w == 'rx2':
                # ["sim", "rx2", group, seg, data addr, data bytes, psn?,
                # sa?]: a TYPE2 packet on RX_M (ETYPE 3, the group on
                # QPID, the sender's RH PSN and TYPE1_2_RX_M_SA_O); without
                # psn the group's next one, as one sender numbers its
                # packets to a group; sa 0 when not given
                g = vl.value(op[2])
                psn = vl.value(op[6]) if len(op) > 6 else t2_psn.get(g, 0)
                sa = vl.value(op[7]) if len(op) > 7 else 0
                t2_psn[g] = (psn + 1) & 0xfff
                out.append(cmd('rx', vl.value(op[3]),
                               g | 3 << 20 | vl.value(op[5]) << 32,
                               vl.addr(op[4], bases),
                               (psn & 0xfff) << 44 | (sa & 0x3ff) << 34))
            elif w == 'ack':
                # ["sim", "ack", qpid, rtt, num_acked, nak]: RECV_ACK_*
                out.append(cmd('ack', vl.value(op[2]) | vl.value(op[4]) << 16 |
                               vl.value(op[5]) << 26, vl.value(op[3])))
            elif w == 'tmo':
                # ["sim", "tmo", qpid]: RETRY_TMO_VLD_O / RETRY_TMO_QPID_O
                out.append(cmd('tmo', vl.value(op[2])))
            elif w == 'ipdfx':
                # ["sim", "ipdfx", mac_free, wait_mac_crd, t2_crd]: the
                # IP's TX_MAC_FREE_O, TX_WAIT_MAC_CRD_O and multicast
                # credit level from now on
                out.append(cmd(w, vl.value(op[2]), vl.value(op[3]),
                               vl.value(op[4])))
            elif w == 't2rate':
                # ["sim", "t2rate", rate, updates]: the last
                # SET_TYPE2_RATE_DAT_I and the SET_TYPE2_RATE_VLD_I pulses
                # so far
                out.append(cmd(w, vl.value(op[2]), vl.value(op[3])))
            elif w == 'ipset':
                # ["sim", "ipset", reg, bits]: the IP sets status bits
                off, _ = vl.reg(op[2])
                out.append(cmd('ipset', off, vl.value(op[3])))
            else:
                raise SystemExit('unknown sim op %r' % op)
        else:
            raise SystemExit('unknown op %r' % op)
    out.append(cmd('end'))
    return out


def main():
    v = vl.load(sys.argv[1])
    lines = convert(v)
    with open(sys.argv[2], 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
