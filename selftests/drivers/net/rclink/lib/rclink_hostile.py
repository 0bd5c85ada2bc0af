#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The hostile-device mode of one rclink board model (SHIM_HOSTILE_*,
Documentation/hw/shim.rst "Hostile-device mode"; a real board has none).

usage: rclink_hostile.py DEV [seed=N] [ppm=N] [evt] [cqe] [md] [busy] [dead]
                             [off] [show]

  DEV      rclinkN or a PCI address (a dead board has only its address)
  seed=N   reseeds the generator (first, so a run is reproducible)
  ppm=N    chance of a lie per opportunity, per million
  evt cqe md busy   the lies to tell (SHIM_HOSTILE_CTRL bits); the others
           are switched off
  dead     the board leaves the bus: reads all ones until a PCI reset
  off      no lie any more (a dead board cannot be told: reset it)
  show     prints ctrl=... ppm=... lies=N on one line

Writes BAR0 while the driver holds it (boot with iomem=relaxed where
CONFIG_IO_STRICT_DEVMEM is set), else exit 4 (skip); exit 4 too when the
board ignores the mode.  Exit 1 on an error, 2 on a usage error.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position

KINDS = ('evt', 'cqe', 'md', 'busy', 'dead')


def ctrl_value(ppm, kinds):
    """SHIM_HOSTILE_CTRL for ppm and the named lies."""
    v = 0
    mask, shift = rt.hw.field('SHIM_HOSTILE_CTRL', 'ppm')
    if ppm < 0 or ppm > mask >> shift:
        raise ValueError('ppm %d out of range' % ppm)
    v |= ppm << shift
    for k in kinds:
        mask, _ = rt.hw.field('SHIM_HOSTILE_CTRL', k)
        v |= mask
    return v


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        sys.stderr.write(__doc__)
        return 2
    dev, ops = argv[1], argv[2:]
    seed = ppm = None
    kinds, off, show = [], False, False
    try:
        for op in ops:
            k, _, v = op.partition('=')
            if k == 'seed' and v:
                seed = int(v, 0)
            elif k == 'ppm' and v:
                ppm = int(v, 0)
            elif op in KINDS:
                kinds.append(op)
            elif op == 'off':
                off = True
            elif op == 'show':
                show = True
            else:
                sys.stderr.write('rclink_hostile: bad argument %r\n%s'
                                 % (op, __doc__))
                return 2
    except ValueError:
        sys.stderr.write('rclink_hostile: bad number in %r\n' % ops)
        return 2
    try:
        bdf = dev if ':' in dev else t1.bdf_of(dev)
        bar = rt.Bar0(bdf)
        try:
            if seed is not None:
                bar.write('SHIM_HOSTILE_SEED', seed)
            if off:
                bar.write('SHIM_HOSTILE_CTRL', 0)
            if kinds or ppm is not None:
                want = ctrl_value(ppm or 0, kinds)
                bar.write('SHIM_HOSTILE_CTRL', want)
                if 'dead' not in kinds and \
                        bar.read('SHIM_HOSTILE_CTRL') != want:
                    raise rt.SkipTest('%s ignores SHIM_HOSTILE_CTRL (no '
                                      'hostile mode: a real board?)' % dev)
                # dead: its registers read all ones now; a board that
                # still reads its magic has no such mode (the RTL)
                if 'dead' in kinds and \
                        bar.rfield('SHIM_ID', 'magic') == rt.hw.MAGIC:
                    raise rt.SkipTest('%s ignores SHIM_HOSTILE_CTRL.dead '
                                      '(SHIM_ID still reads its magic): no '
                                      'hostile mode, a real board or the '
                                      'RTL' % dev)
            if show:
                print('ctrl=%#x lies=%d' % (bar.read('SHIM_HOSTILE_CTRL'),
                                            bar.read('SHIM_HOSTILE_COUNT')),
                      flush=True)
        finally:
            bar.close()
    except rt.SkipTest as e:
        sys.stderr.write('SKIP: %s\n' % e)
        return rt.KSFT_SKIP
    except (OSError, LookupError, ValueError) as e:
        sys.stderr.write('rclink_hostile: %s: %s\n' % (dev, e))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
