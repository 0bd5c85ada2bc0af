#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The driver's layers (KTAP): Documentation/driver.rst, "Layers".

Every file of drivers/rclink/ belongs to one layer; a layer calls only
functions of its own layer and the ones below it.  What a lower layer has
to tell a higher one (an interrupt, an event record, a health report's
recovery) goes through a table of function pointers that the board core
fills in (struct rclink_evt_ops, struct rclink_health_ops).

 1. every_file_placed: each .c and .h of the driver is in LAYERS below;
 2. bar0_in_regs_only: no file but rclink_regs.[ch] touches BAR0 (readq,
    writeq, readl, writel, ioread*, iowrite*, bar0);
 3. regs_header_alone: rclink_regs.h includes no other driver header;
 4. headers_acyclic: the driver headers include each other without a cycle;
 5. calls_go_down: no function defined in a file of a higher layer is
    called (comments and strings are left out).

usage: layers.py [DRIVER_DIR]
"""

import glob
import os
import re
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

# Bottom up.  A header is in the layer of the code it declares.
LAYERS = [
    ('regs', ['rclink_regs.c', 'rclink_regs.h', 'rclink_compat.h']),
    ('board services', ['rclink_events.c', 'rclink_events.h',
                        'rclink_irq.c', 'rclink_irq.h',
                        'rclink_assumed.c', 'rclink_assumed.h',
                        'rclink_selftest.c', 'rclink_selftest.h',
                        'rclink_health.c', 'rclink_health.h',
                        'rclink.h']),
    ('flow control', ['rclink_cbfc.c', 'rclink_pfc.c', 'rclink_fc.h']),
    ('TYPE1 data path', ['rclink_dmaq.c', 'rclink_cdev.c', 'rclink_ring.c',
                         'rclink_ctx.c', 'rclink_mr.c', 'rclink_dp.h',
                         'rclink_ctx.h']),
    ('TYPE1 control', ['rclink_qp.c', 'rclink_cc.c', 'rclink_nl.c',
                       'rclink_nl_gen.c', 'rclink_nl_gen.h', 'rclink_qp.h',
                       'rclink_t1.h']),
    ('TYPE3 netdev', ['rclink_netdev.c', 'rclink_txrx.c',
                      'rclink_ethtool.c', 'rclink_dcb.c',
                      'rclink_netdev.h']),
    ('board core', ['rclink_main.c', 'rclink_devlink.c',
                    'rclink_debugfs.c']),
]

LAYER_OF = {f: i for i, (_, files) in enumerate(LAYERS) for f in files}


def strip(src):
    """The code without comments and string literals (same line count)."""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"'
                  r"|'(?:\\.|[^'\\\n])*'", blank, src, flags=re.S)


class Ktap:
    def __init__(self, n):
        self.n = 0
        self.failed = 0
        print('TAP version 13')
        print('1..%d' % n)

    def result(self, name, problems):
        self.n += 1
        for p in problems:
            print('# %s' % p)
        if problems:
            self.failed += 1
        print('%sok %d %s' % ('not ' if problems else '', self.n, name))


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, 'drivers',
                                                           'rclink')
    files = sorted(os.path.basename(p) for p in
                   glob.glob(os.path.join(d, '*.[ch]')))
    code = {}
    for f in files:
        with open(os.path.join(d, f), encoding='utf-8') as fh:
            code[f] = fh.read()
    bare = {f: strip(s) for f, s in code.items()}
    k = Ktap(5)

    k.result('every_file_placed',
             ['%s: in no layer (selftests/host/layers.py, LAYERS)' % f
              for f in files if f not in LAYER_OF])

    io = re.compile(r'\b(readq|writeq|readl|writel|ioread\w*|iowrite\w*|'
                    r'bar0)\b')
    probs = []
    for f in files:
        if f.startswith('rclink_regs.'):
            continue
        for n, line in enumerate(bare[f].split('\n'), 1):
            m = io.search(line)
            if m:
                probs.append('%s:%d: %s outside rclink_regs' %
                             (f, n, m.group(1)))
    k.result('bar0_in_regs_only', probs)

    inc = re.compile(r'^#include "([^"]+)"', re.M)
    includes = {f: [os.path.basename(h) for h in inc.findall(code[f])
                    if os.path.basename(h) in code] for f in files}
    k.result('regs_header_alone',
             ['rclink_regs.h includes %s' % h
              for h in includes.get('rclink_regs.h', [])])

    probs = []
    state = {}

    def visit(h, path):
        if state.get(h) == 'done':
            return
        if state.get(h) == 'open':
            probs.append('include cycle: %s' % ' -> '.join(path + [h]))
            return
        state[h] = 'open'
        for n in includes.get(h, []):
            if n.endswith('.h'):
                visit(n, path + [h])
        state[h] = 'done'
    for h in files:
        if h.endswith('.h'):
            visit(h, [])
    k.result('headers_acyclic', probs)

    # the functions each .c defines for others (not static)
    defn = {}
    fdef = re.compile(r'^(?!static\b)[a-z_][^\n;=]*?[\s*](rclink_\w+)'
                      r'\([^;{]*?\)\s*\{', re.M | re.S)
    for f in files:
        if f.endswith('.c'):
            for m in fdef.finditer(bare[f]):
                defn.setdefault(m.group(1), f)
    probs = []
    for f in files:
        if not f.endswith('.c') or f not in LAYER_OF:
            continue
        seen = set()
        for n, line in enumerate(bare[f].split('\n'), 1):
            for m in re.finditer(r'\b(rclink_\w+)\s*\(', line):
                t = defn.get(m.group(1))
                if (not t or t == f or t not in LAYER_OF or
                        LAYER_OF[t] <= LAYER_OF[f] or
                        (m.group(1), t) in seen):
                    continue
                seen.add((m.group(1), t))
                probs.append('%s:%d (%s) calls %s() of %s (%s)' %
                             (f, n, LAYERS[LAYER_OF[f]][0], m.group(1), t,
                              LAYERS[LAYER_OF[t]][0]))
    k.result('calls_go_down', probs)
    print('# %d passed, %d failed' % (k.n - k.failed, k.failed))
    return 1 if k.failed else 0


if __name__ == '__main__':
    sys.exit(main())
