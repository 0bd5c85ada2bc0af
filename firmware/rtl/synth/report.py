#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Resource counts of the shim from the netlist yosys wrote (write_json).

A generic netlist (synth.ys): logic cells, flip-flops, latches, memories
and their bits.  A netlist mapped to UltraScale+ cells (xilinx.ys): LUTs by
size, flip-flops, LUT RAM, shift registers, block RAM, UltraRAM, DSP,
CARRY8 and wide multiplexers, the flip-flops and RAMs per source file, and
the deepest paths in LUT levels between sequential cells (flip-flops, block
and LUT RAM writes, shift registers, DSP) and the ports, with the signals
they start and end at.  The last line is one summary line
("rtl-synth: ...") for a log to grep.  Exit 1 when a latch is found.

    report.py NETLIST.json [--paths N]
"""

import collections
import json
import re
import sys

XLAT = ('LDCE', 'LDPE', 'LDCPE')
XFF = ('FDRE', 'FDSE', 'FDCE', 'FDPE')
XBRAM = ('RAMB36E2', 'RAMB18E2', 'RAMB36E1', 'RAMB18E1')
XMUXF = ('MUXF7', 'MUXF8', 'MUXF9')
# yosys 0.23 maps adders to CARRY4 for every family (the vendor tool packs
# two into a CARRY8 of UltraScale+)
XCARRY = ('CARRY4', 'CARRY8')
# cells whose outputs follow some inputs in the same cycle: those inputs
# (by name prefix) are the combinational ones, the others are written at
# the clock edge.  LUT RAM reads and shift register taps are one LUT level.
XCOMB_RAM = {
    'RAM32M': ('ADDR',), 'RAM32M16': ('ADDR',), 'RAM64M': ('ADDR',),
    'RAM64M8': ('ADDR',), 'RAM32X1D': ('A', 'DPRA'),
    'RAM64X1D': ('A', 'DPRA'), 'RAM128X1D': ('A', 'DPRA'),
    'RAM256X1D': ('A', 'DPRA'), 'RAM32X1S': ('A',), 'RAM64X1S': ('A',),
    'RAM128X1S': ('A',), 'RAM256X1S': ('A',),
    'SRL16E': ('A',), 'SRLC32E': ('A',), 'SRLC16E': ('A',),
}
# ports of those cells that are never combinational inputs
XSEQ_PORTS = ('D', 'DI', 'WE', 'WCLK', 'CLK', 'CE', 'ADDRH')


def top_module(nl):
    top = [m for m, d in nl['modules'].items()
           if d.get('attributes', {}).get('top')]
    return top[0] if top else 'rclink_shim_us'


def generic(name, mod):
    kinds = collections.Counter()
    ffs = latches = mems = membits = logic = 0
    for cell in mod['cells'].values():
        t = cell['type']
        kinds[t] += 1
        if 'DLATCH' in t.upper():
            latches += 1
        elif 'DFF' in t.upper():
            ffs += 1
        elif t.startswith('$mem'):
            mems += 1
            p = cell['parameters']
            membits += int(p['WIDTH'], 2) * int(p['SIZE'], 2)
        else:
            logic += 1
    print('%s: %d logic cells, %d flip-flops, %d latches, '
          '%d memories (%d bits)' % (name, logic, ffs, latches, mems,
                                     membits))
    for t, n in sorted(kinds.items()):
        print('  %-24s %d' % (t, n))
    print('rtl-synth: generic %s cells %d ff %d latches %d mem %d'
          % (name, logic, ffs, latches, mems))
    return 1 if latches else 0


def is_comb_in(t, port):
    """Whether input PORT of a cell of type T drives its outputs in the
    same cycle; (True, weight) or (False, None)."""
    if t.startswith('LUT') or t == 'INV':
        return True
    if t in XMUXF or t in XCARRY:
        return True
    pre = XCOMB_RAM.get(t)
    if pre:
        if port in XSEQ_PORTS or port.startswith('DI'):
            return False
        return any(port.startswith(p) for p in pre)
    return False


def weight(t):
    """(LUT levels, carry cells, MUXF) a cell adds to a path."""
    if t.startswith('LUT') or t in XCOMB_RAM:
        return (1, 0, 0)
    if t in XCARRY:
        return (0, 1, 0)
    if t in XMUXF:
        return (0, 0, 1)
    return (0, 0, 0)


def block_of(nm):
    """The instance path of a register's or memory's name, without the
    generate blocks' indexed names."""
    parts = nm.lstrip('$\\').split('$')[0].split('.')[:-1]
    while parts and re.match(r'g_\w+\[\d+\]$', parts[-1]):
        parts.pop()
    return '.'.join(parts) or '(top)'


def mem_block(cn):
    """The block of a memory's cell (instance path, memory, parts)."""
    parts = cn.split('.')
    while len(parts) > 1 and re.match(r'\d+$', parts[-1]):
        parts.pop()
    return block_of('.'.join(parts))


def bit_names(mod):
    names = {}
    for n, d in mod['netnames'].items():
        hidden = d.get('hide_name', 0)
        for i, b in enumerate(d['bits']):
            if isinstance(b, str):
                continue
            nm = n if len(d['bits']) == 1 else '%s[%d]' % (n, i)
            key = (hidden, len(nm))
            if b not in names or key < names[b][0]:
                names[b] = (key, nm)
    return {b: v[1] for b, v in names.items()}


def xilinx(name, mod, npaths):
    cells = mod['cells']
    kinds = collections.Counter(c['type'] for c in cells.values())
    luts = {k: kinds.get('LUT%d' % k, 0) for k in range(1, 7)}
    nlut = sum(luts.values())
    ffs = sum(kinds.get(t, 0) for t in XFF)
    lat = sum(kinds.get(t, 0) for t in XLAT) + sum(
        n for t, n in kinds.items() if 'DLATCH' in t.upper())
    lutram = sum(kinds.get(t, 0) for t in XCOMB_RAM if t.startswith('RAM'))
    srl = sum(kinds.get(t, 0) for t in XCOMB_RAM if t.startswith('SRL'))
    b36 = kinds.get('RAMB36E2', 0)
    b18 = kinds.get('RAMB18E2', 0)
    uram = kinds.get('URAM288', 0) + kinds.get('URAM288_BASE', 0)
    dsp = kinds.get('DSP48E2', 0)
    carry4 = kinds.get('CARRY4', 0)
    carry = kinds.get('CARRY8', 0)
    muxf = sum(kinds.get(t, 0) for t in XMUXF)
    print('%s (UltraScale+ cells): %d LUTs (%s), %d flip-flops, '
          '%d latches' % (name, nlut, ', '.join(
              'LUT%d %d' % (k, luts[k]) for k in range(6, 0, -1)),
              ffs, lat))
    print('  LUT RAM cells %d, shift registers %d, RAMB36E2 %d, '
          'RAMB18E2 %d (%.1f RAMB36), URAM288 %d, DSP48E2 %d, CARRY4 %d, '
          'CARRY8 %d, MUXF7/8/9 %d' % (lutram, srl, b36, b18, b36 + b18 / 2.0,
                                       uram, dsp, carry4, carry, muxf))
    for t, n in sorted(kinds.items()):
        print('  %-24s %d' % (t, n))

    # flip-flops and RAMs per block: the instance path of the register or
    # RAM (a LUT's name is the mapper's, so LUTs are not counted here)
    names = bit_names(mod)
    per = collections.defaultdict(collections.Counter)
    for cn, c in cells.items():
        t = c['type']
        if t in XFF:
            q = c['connections'].get('Q', ['x'])[0]
            nm = names.get(q, cn) if not isinstance(q, str) else cn
        elif t in XBRAM or t.startswith('URAM') or t in XCOMB_RAM:
            nm = cn
            if '.' not in nm:
                outs = [b for p, bits in c['connections'].items()
                        if c['port_directions'].get(p) == 'output'
                        for b in bits if not isinstance(b, str)]
                nm = names.get(outs[0], cn) if outs else cn
        else:
            continue
        blk = block_of(nm) if t in XFF else mem_block(nm)
        if t in XFF:
            per[blk]['ff'] += 1
        elif t in XCOMB_RAM:
            per[blk]['lutram'] += 1
        else:
            per[blk]['bram'] += 1 if '36' in t or 'URAM' in t else 0.5
    print('per block (flip-flops, RAMB36 equivalents, LUT RAM and shift '
          'register cells):')
    for f in sorted(per, key=lambda f: -per[f]['ff']):
        p = per[f]
        print('  %-34s ff %6d bram %5.1f lutram %5d'
              % (f, p['ff'], p['bram'], p['lutram']))

    # LUT levels: driver of each bit, then the cells in topological
    # order of their combinational inputs
    drv = {}
    for cn, c in cells.items():
        for p, bits in c['connections'].items():
            if c['port_directions'].get(p) == 'output':
                for b in bits:
                    if not isinstance(b, str):
                        drv[b] = cn
    comb_in = {}
    for cn, c in cells.items():
        t = c['type']
        ins = []
        for p, bits in c['connections'].items():
            if c['port_directions'].get(p) != 'input':
                continue
            if is_comb_in(t, p):
                ins.extend(b for b in bits if not isinstance(b, str))
        if ins or t.startswith('LUT') or t in XMUXF or t in XCARRY:
            comb_in[cn] = ins
    depth = {}
    pred = {}
    # iterative DFS (the graph is deep: no recursion)
    for root in comb_in:
        if root in depth:
            continue
        stack = [(root, 0)]
        onstack = {root}
        while stack:
            cn, i = stack.pop()
            ins = comb_in[cn]
            while i < len(ins):
                d = drv.get(ins[i])
                if d in comb_in and d not in depth:
                    if d in onstack:
                        raise SystemExit('combinational loop through %s' % d)
                    stack.append((cn, i + 1))
                    stack.append((d, 0))
                    onstack.add(d)
                    break
                i += 1
            else:
                best, bp = (0, 0, 0), (ins[0] if ins else None)
                for b in ins:
                    d = drv.get(b)
                    if d in depth and depth[d] > best:
                        best, bp = depth[d], b
                w = weight(cells[cn]['type'])
                depth[cn] = tuple(x + y for x, y in zip(best, w))
                pred[cn] = bp
                onstack.discard(cn)

    def cell_name(cn, c, port):
        """An end point: the register a flip-flop is part of (its Q), a
        RAM's port, with the source line."""
        q = c['connections'].get('Q')
        if c['type'] in XFF and q and not isinstance(q[0], str):
            nm = names.get(q[0], cn)
        elif '.' in cn:
            # a memory's cell: instance path, memory, part
            nm = '%s %s.%s' % (cn.rsplit('.', 1)[0], c['type'], port)
        else:
            nm = '%s.%s' % (c['type'], port)
        src = c.get('attributes', {}).get('src', '').split('|')[0]
        src = re.sub(r'^.*/', '', re.sub(r'\.\d+-\d+\.\d+$', '', src))
        return '%s (%s)' % (nm, src) if src else nm
    # end points: inputs of the sequential cells (and the clocked inputs
    # of LUT RAM and shift registers), the module's outputs
    ends = []
    for cn, c in cells.items():
        t = c['type']
        for p, bits in c['connections'].items():
            if c['port_directions'].get(p) != 'input' or is_comb_in(t, p):
                continue
            for b in bits:
                d = drv.get(b)
                if d in depth:
                    ends.append((depth[d], b, cell_name(cn, c, p)))
    for pn, p in mod['ports'].items():
        if p['direction'] == 'output':
            for i, b in enumerate(p['bits']):
                d = drv.get(b)
                if d in depth:
                    ends.append((depth[d], b, 'port %s[%d]' % (pn, i)))
    ends.sort(key=lambda e: e[0], reverse=True)
    worst = ends[0][0] if ends else (0, 0, 0)
    hist = collections.Counter(min(e[0][0], 20) for e in ends)

    def start_of(b):
        path = []
        while True:
            d = drv.get(b)
            if d not in depth:
                return b, path
            path.append(d)
            b = pred[d]
            if b is None:
                return None, path

    print('deepest paths (LUT levels, carry cells, MUXF; start -> end):')
    seen = set()
    shown = 0
    for dep, b, where in ends:
        if shown >= npaths:
            break
        sb, path = start_of(b)
        sname = names.get(sb, 'constant') if sb is not None else 'constant'
        sd = drv.get(sb)
        if sd is not None and cells[sd]['type'] not in XFF:
            sname = '%s.%s' % (cells[sd]['type'], sname)
        key = re.sub(r'\[\d+\]', '', where)      # one path per register
        if key in seen:
            continue
        seen.add(key)
        shown += 1
        print('  %2d LUT %2d carry %2d MUXF  %s -> %s'
              % (dep[0], dep[1], dep[2], sname, where))
    # the deepest end point per block (the block of its register)
    bw = {}
    for dep, b, where in ends:
        w = where.split(' (')[0]
        if ' ' in w:        # a memory: its block
            blk = mem_block(w.split(' ')[0])
        else:
            blk = block_of(w) if '.' in w else '(top)'
        if blk not in bw or dep > bw[blk][0]:
            bw[blk] = (dep, where)
    print('deepest end point per block (LUT levels):')
    for blk in sorted(bw, key=lambda k: -bw[k][0][0]):
        print('  %-34s %2d  %s' % (blk, bw[blk][0][0], bw[blk][1]))
    print('end points by LUT levels (20 = 20 or more): ' + ', '.join(
        '%d:%d' % (k, hist[k]) for k in sorted(hist)))
    print('rtl-synth: xcup %s lut %d ff %d lutram %d srl %d ramb36 %d '
          'ramb18 %d uram %d dsp %d carry4 %d carry8 %d latches %d levels %d'
          % (name, nlut, ffs, lutram, srl, b36, b18, uram, dsp, carry4, carry,
             lat, worst[0]))
    return 1 if lat else 0


def main():
    args = sys.argv[1:]
    npaths = 12
    if '--paths' in args:
        i = args.index('--paths')
        npaths = int(args[i + 1])
        del args[i:i + 2]
    with open(args[0]) as f:
        nl = json.load(f)
    name = top_module(nl)
    mod = nl['modules'][name]
    if any(c['type'].startswith('LUT') or c['type'] in XFF
           for c in mod['cells'].values()):
        return xilinx(name, mod, npaths)
    return generic(name, mod)


if __name__ == '__main__':
    sys.exit(main())
