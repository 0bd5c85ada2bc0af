# SPDX-License-Identifier: GPL-2.0
"""Loader of the shared test vectors (firmware/vectors/*.json).

The same vectors run on the RTL testbench (firmware/rtl/tb/vec2tb.py turns
them into a command file) and on the QEMU model (the kselftest
selftests/drivers/net/rclink/vectors.py replays them through BAR0).  See
Documentation/hw/rtl.rst, "Shared test vectors".

A vector file is {"name", "desc", "buffers": {name: bytes}, "ops": [...]}.
"model_only": "why" marks a vector of a function the RTL does not have
yet: the testbench skips it, saying why (Documentation/hw/rtl.rst).
"cosim_skip": "why" marks a vector that passes on the model and the RTL
testbench but not yet on the co-simulation's RTL board (vectors.py skips
it there, saying why).
"cocotb_skip": "why" marks a vector the cocotb benches of the PCIe tops
cannot replay (an op only the word-level testbench can play): it runs on
the core only (firmware/rtl/cocotb/vecset.py lists them).
"tb_skip": "why" marks a vector the word-level testbench (tb/rclink_tb.v,
rtl.sh sim) cannot play (its MAC side is tied off): rtl.sh sim skips it,
saying why; the cocotb benches replay it (vecset.py lists them).
"ptile_skip": "why" marks a vector the cocotb bench of the P-tile top
does not pass yet (an open finding): that bench skips it, saying why.
"needs": {REGISTER: {field: value}} marks a vector of a board of one kind
(a capability): the model's selftest runs it on a board whose fields hold
those values (one of the board set, wired or not), or skips it; the
testbench runs it (the RTL is that kind of board, or the vector fails).
Each op is a list; registers are named as in rclink.yaml ("NAME",
"NAME[i]" for arrays, "NAME+4" for the upper half of a 64-bit register)
or given as a BAR0 offset; host addresses are "buffer+offset" strings or
"nomem" (an address no memory answers).  Numbers may be strings ("0x..") or
composed from fields (value()).

  ["w64"|"w32", reg, value]          MMIO write
  ["r64"|"r32", reg, expect, mask?]  MMIO read, (value & mask) == expect
  ["rge", reg, least]                64-bit read until the value is at
                                     least least (a counter that retries
                                     move on)
  ["wbuf", reg, addr]                64-bit write of a host address
  ["poll", reg, expect, mask?]       64-bit read until it matches
  ["memw", addr, value]              host memory: 64-bit little-endian word
  ["memr", addr, expect, mask?]      host memory word check
  ["fill", addr, len, seed]          host memory bytes (pattern())
  ["memeq", addr, addr2, len]        host memory bytes equal
  ["wqe", addr, w0, w1addr]          a 16-byte entry: word 0, then a host
                                     address (or number) as word 1
  ["rqe", addr, bufaddr, len]        a 16-byte RQE
  ["sent", qpn, seg, fack, [[addr, len], ...]]
                                     the next TYPE1 packet of QP qpn carries
                                     segment header seg and the bytes of
                                     the pieces (RTL: on TX_S; model: a REQ
                                     frame in the wire's pcap, no ICRC)
  ["sent2", group, seg, [[addr, len], ...]]
                                     the next TYPE2 packet to group carries
                                     segment header seg and the bytes of
                                     the pieces (RTL: on TX_S with
                                     TX_S_ETYPE_I 3; model: an IPv4/UDP
                                     frame to port 4792 in the wire's pcap
                                     with the group in the RH's DEST_QP)
  ["db", ctx, reg, value]            a 64-bit write of doorbell reg
                                     (SQ_PROD, RQ_PROD, CQ_CONS, CQ_ARM:
                                     format DB) of user context ctx, in
                                     the doorbell BAR
  ["dbw", ctx, where, size, value]   a write of size bytes (1, 2, 4, 8)
                                     at where in user context ctx's
                                     doorbell page: a DB register name,
                                     "NAME+4" or a byte offset (the
                                     contract's refused sizes and places,
                                     DMAQ_CTX_DB_DROP)
  ["wirerx", addr, hex, ip]          a frame arrives from the wire: the
                                     bytes hex (no FCS; model: written to
                                     host memory at addr for its
                                     SHIM_WIRE_INJECT hook; cocotb: on the
                                     MAC adapter's RX stream).  ip 1:
                                     the IP gets it unchanged, 0: it does
                                     not (cocotb checks the IP's RX
                                     stream; the model's IP shows it in
                                     its counters, "model" ops)
  ["wiretx", total, etype, len]      the board has sent total frames to
                                     the wire since the vector's
                                     SHIM_RESET, the last one of Ethernet
                                     type etype and len bytes (model:
                                     SHIM_WIRE_TX_FRAMES and the
                                     SHIM_WIRE_TX_LAST hook; cocotb: the
                                     MAC adapter's TX stream); total 0:
                                     none (etype and len not checked)
  ["master", on]                     PCI bus mastering (PCI_COMMAND's
                                     master bit) off (0) or on (1)
  ["peer", op...]                    an op on the other board of the
                                     model's wired pair (its buffers are
                                     "peer_buffers"); not on the testbench
  ["model", op...]                   an op on the board that only the
                                     model runs (what the testbench's
                                     stimulus cannot show: the wire's
                                     counters, the IP's own drops)
  ["sim", what, ...]                 only on the RTL testbench (IP stand-in
                                     stimulus and checks of its ports);
                                     ["sim", op, ...] is a plain op that only
                                     the testbench runs
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HW_DIR = os.path.join(HERE, '..', '..', 'selftests', 'drivers', 'net', 'rclink')
NOMEM = 1 << 52


def _hw():
    if HW_DIR not in sys.path:
        sys.path.insert(0, HW_DIR)
    import rclink_hw  # pylint: disable=import-outside-toplevel
    return rclink_hw


def num(v):
    if isinstance(v, str):
        return int(v, 0)
    return int(v)


def pattern(seed, n):
    """n bytes of the payload pattern of seed."""
    return bytes(((seed * 131) + i * 7 + (i >> 8)) & 0xff for i in range(n))


def reg(spec):
    """(BAR0 offset, width) of a register spec."""
    hw = _hw()
    if isinstance(spec, int) or (isinstance(spec, str) and spec[:2] == '0x'):
        off = num(spec)
        return off, 32 if off >= 0x8000 else 64
    name, plus = spec, 0
    if '+' in name:
        name, p = name.split('+')
        plus = num(p)
    idx = 0
    if '[' in name:
        name, i = name[:-1].split('[')
        idx = int(i)
    r = hw.REGS[name]
    return r[0] + idx * r[4] + plus, r[1]


def db_write(op, shift=16):
    """(byte offset in the doorbell BAR, size, value) of a "dbw" op."""
    where = op[2]
    if isinstance(where, str) and where[:1].isalpha():
        name, plus = where, 0
        if '+' in name:
            name, p = name.split('+')
            plus = num(p)
        off = _hw().FORMATS['DB'][2]['OFF_' + name] + plus
    else:
        off = num(where)
    size = num(op[3])
    if size not in (1, 2, 4, 8) or (off & (size - 1)):
        raise ValueError('%r: not a naturally aligned 1, 2, 4 or 8 byte '
                         'write' % (op,))
    mask = (1 << (8 * size)) - 1
    return (num(op[1]) << shift) + off, size, value(op[4]) & mask


def field(regname, fname, value):
    hw = _hw()
    hi, lo = hw.REGS[regname][11][fname][:2]
    return (num(value) & ((1 << (hi - lo + 1)) - 1)) << lo


def fmt(fmtname, **fields):
    """A word of a TYPE1 format (WQE, CQE, SEG ...) from field values."""
    hw = _hw()
    w = 0
    for k, v in fields.items():
        _, hi, lo = hw.FORMATS[fmtname][1][k]
        w |= (num(v) & ((1 << (hi - lo + 1)) - 1)) << lo
    return w


def value(v):
    """A number: int, "0x..", {"fmt": FORMAT, FIELD: v, ...} (a word of a
    TYPE1 format), {"reg": REGISTER, field: v, ...} (a register value
    from its fields), {"rstval": REGISTER}, {"pat": [seed, k]} (64-bit word
    k of the DMA self-test pattern) or {"or": [v, ...]}."""
    if isinstance(v, dict):
        if 'fmt' in v:
            return fmt(v['fmt'], **{k: value(x) for k, x in v.items()
                                    if k != 'fmt'})
        if 'reg' in v:
            w = 0
            for k, x in v.items():
                if k != 'reg':
                    w |= field(v['reg'], k, value(x))
            return w
        if 'rstval' in v:
            return _hw().REGS[v['rstval']][5]
        if 'pat' in v:
            # 64-bit word k of the DMA self-test pattern of seed
            seed, k = value(v['pat'][0]), value(v['pat'][1])
            step = 0x9e3779b9
            lo = (seed ^ (2 * k * step)) & 0xffffffff
            hi = (seed ^ ((2 * k + 1) * step)) & 0xffffffff
            return (hi << 32) | lo
        if 'or' in v:
            w = 0
            for x in v['or']:
                w |= value(x)
            return w
        raise SystemExit('bad value %r' % v)
    return num(v)


def load(path):
    with open(path) as f:
        v = json.load(f)
    v.setdefault('buffers', {})
    v.setdefault('peer_buffers', {})
    for name, size in list(v['buffers'].items()) + list(v['peer_buffers'].items()):
        if num(size) > 4096:
            raise SystemExit('%s: buffer %s larger than a page' % (path, name))
    return v


def addr(spec, bases):
    """Host address of "buf+off" given {buf: base}."""
    if isinstance(spec, int):
        return spec
    if spec == 'nomem':
        return NOMEM
    if spec[:2] == '0x':
        return num(spec)
    name, off = (spec.split('+') + ['0'])[:2]
    return bases[name] + num(off)


def frame_bytes(hexstr):
    """The bytes of a "wirerx" op's frame."""
    data = bytes.fromhex(hexstr)
    if len(data) < 14:
        raise ValueError('wirerx: a frame of %d bytes has no Ethernet '
                         'header' % len(data))
    return data


def all_files():
    return sorted(os.path.join(HERE, f) for f in os.listdir(HERE)
                  if f.endswith('.json'))
