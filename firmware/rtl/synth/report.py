#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Resource counts of the shim from the netlist yosys wrote (write_json):
logic cells, flip-flops, latches, memories and their bits.  Exit 1 when a
latch is found."""

import collections
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        nl = json.load(f)
    top = [m for m, d in nl['modules'].items()
           if d.get('attributes', {}).get('top')]
    name = top[0] if top else 'rclink_shim_us'
    mod = nl['modules'][name]
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
    return 1 if latches else 0


if __name__ == '__main__':
    sys.exit(main())
