#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Wire fault injection and the link hook of one rclink board (the shim's
SHIM_WIRE_FAULT_* registers and SHIM_LINK.force_down, Documentation/hw/
shim.rst "Wire fault injection"; a real board ignores them).

usage: rclink_wire.py DEV [loss=PPM] [corrupt=PPM] [reorder=PPM] [dup=PPM]
                          [delay=US] [seed=N] [link=up|down] [off] [show]

  DEV      rclinkN (the board's /dev and netlink name) or a PCI address
  off      every rate and the delay 0, link up (what a test leaves behind)
  seed=N   reseeds the fault generator (first, so a run is reproducible)
  link=up  also waits (up to $RCLINK_TEST_TIMEOUT s) for SHIM_LINK.up
  show     prints the settings and the counters as key=value on one line:
           the injector's lost/corrupted/reordered/duplicated, the wire
           frame counts, the TYPE1 receive drops (DMAQ_T1_RX_DROP_*)

Writes BAR0 while the driver holds it: a kernel with CONFIG_IO_STRICT_DEVMEM
needs the boot option iomem=relaxed, else exit 4 (skip).  Exit 1 on an
error, 2 on a usage error.
"""

import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position

RATES = {'loss': ('SHIM_WIRE_FAULT_RATE0', 'loss_ppm'),
         'corrupt': ('SHIM_WIRE_FAULT_RATE0', 'corrupt_ppm'),
         'reorder': ('SHIM_WIRE_FAULT_RATE1', 'reorder_ppm'),
         'dup': ('SHIM_WIRE_FAULT_RATE1', 'dup_ppm'),
         'delay': ('SHIM_WIRE_FAULT_DELAY', 'delay_us')}
COUNTERS = (('lost', 'SHIM_WIRE_LOST'), ('corrupted', 'SHIM_WIRE_CORRUPTED'),
            ('reordered', 'SHIM_WIRE_REORDERED'),
            ('duplicated', 'SHIM_WIRE_DUPLICATED'),
            ('tx_frames', 'SHIM_WIRE_TX_FRAMES'),
            ('rx_frames', 'SHIM_WIRE_RX_FRAMES'),
            ('rx_drop_da', 'DMAQ_T1_RX_DROP_DA'),
            ('rx_drop_csum', 'DMAQ_T1_RX_DROP_CSUM'),
            ('rx_drop_icrc', 'DMAQ_T1_RX_DROP_ICRC'),
            ('rx_drop_pkey', 'DMAQ_T1_RX_DROP_PKEY'),
            ('rx_drop_badqp', 'DMAQ_T1_RX_DROP_BADQP'),
            ('rx_drop_qp_off', 'DMAQ_T1_RX_DROP_QP_OFF'),
            ('rx_drop_nobuf', 'DMAQ_T1_RX_DROP_NOBUF'),
            ('rx_drop_malformed', 'DMAQ_T1_RX_DROP_MALFORMED'),
            ('tx_drop_qp_off', 'DMAQ_T1_TX_DROP_QP_OFF'),
            ('bad_wqe', 'DMAQ_BAD_WQE'),
            ('ost_free', 'DMAQ_T1_OST_FREE'))


class Wire:
    """The fault injector and link hook of one board (BAR0 mapped)."""

    def __init__(self, dev):
        self.dev = dev
        self.bdf = t1.bdf_of(dev)
        self.bar = rt.Bar0(self.bdf)

    def close(self):
        self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def _set_field(self, reg, fname, value):
        mask, shift = rt.hw.field(reg, fname)
        if value < 0 or value > mask >> shift:
            raise ValueError('%s.%s: %d out of range' % (reg, fname, value))
        v = self.bar.read(reg)
        self.bar.write(reg, (v & ~mask) | (value << shift))
        if (self.bar.read(reg) & mask) >> shift != value:
            raise rt.SkipTest('%s ignores %s.%s (no wire hooks: a real '
                              'board?)' % (self.dev, reg, fname))

    def set(self, **kw):
        """Rates in ppm (loss, corrupt, reorder, dup), delay in us."""
        for k, v in kw.items():
            reg, fname = RATES[k]
            self._set_field(reg, fname, int(v))
        self.bar.read('SHIM_ID')        # flush the posted writes

    def seed(self, value):
        self.bar.write('SHIM_WIRE_FAULT_SEED', value)
        self.bar.read('SHIM_ID')

    def link(self, up, timeout=None):
        """force_down off (up) or on; with up, wait for SHIM_LINK.up.
        False when the link did not come up."""
        self._set_field('SHIM_LINK', 'force_down', 0 if up else 1)
        self.bar.read('SHIM_ID')
        if not up:
            return True
        end = time.monotonic() + (rt.TIMEOUT if timeout is None else timeout)
        while not self.bar.rfield('SHIM_LINK', 'up'):
            if time.monotonic() > end:
                return False
            time.sleep(0.01)
        return True

    def off(self):
        self.set(loss=0, corrupt=0, reorder=0, dup=0, delay=0)
        return self.link(True)

    def settings(self):
        res = {}
        for k, (reg, fname) in RATES.items():
            res[k] = self.bar.rfield(reg, fname)
        res['force_down'] = self.bar.rfield('SHIM_LINK', 'force_down')
        res['link_up'] = self.bar.rfield('SHIM_LINK', 'up')
        return res

    def counters(self):
        return {k: self.bar.read(reg) for k, reg in COUNTERS}

    def show(self):
        d = {'dev': self.dev, 'bdf': self.bdf}
        d.update(self.settings())
        d.update(self.counters())
        return ' '.join('%s=%s' % kv for kv in d.items())


def main(argv):
    if len(argv) < 2 or argv[1] in ('-h', '--help'):
        sys.stderr.write(__doc__)
        return 2
    dev, ops = argv[1], argv[2:]
    try:
        parsed = []
        for op in ops:
            k, _, v = op.partition('=')
            if k in RATES or k == 'seed':
                parsed.append((k, int(v, 0)))
            elif k == 'link' and v in ('up', 'down'):
                parsed.append((k, v))
            elif op in ('off', 'show'):
                parsed.append((op, None))
            else:
                sys.stderr.write('rclink_wire: bad argument %r\n%s'
                                 % (op, __doc__))
                return 2
    except ValueError:
        sys.stderr.write('rclink_wire: bad number in %r\n' % ops)
        return 2
    rc = 0
    try:
        with Wire(dev) as w:
            # the seed first, then the rates, the link, show last
            for k, v in sorted(parsed, key=lambda kv: (kv[0] != 'seed',
                                                       kv[0] == 'show')):
                if k == 'seed':
                    w.seed(v)
                elif k in RATES:
                    w.set(**{k: v})
                elif k == 'link':
                    if not w.link(v == 'up'):
                        sys.stderr.write('rclink_wire: %s: link not up\n'
                                         % dev)
                        rc = 1
                elif k == 'off':
                    if not w.off():
                        sys.stderr.write('rclink_wire: %s: link not up\n'
                                         % dev)
                        rc = 1
                elif k == 'show':
                    print(w.show(), flush=True)
    except rt.SkipTest as e:
        sys.stderr.write('SKIP: %s\n' % e)
        return rt.KSFT_SKIP
    except (OSError, LookupError, ValueError) as e:
        sys.stderr.write('rclink_wire: %s: %s\n' % (dev, e))
        return 1
    return rc


if __name__ == '__main__':
    sys.exit(main(sys.argv))
