#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""DMAQ_CTX_RX_HOLD of one rclink board (Documentation/hw/shim.rst,
"Contexts": how long a user context's TYPE1 packet without room waits).

usage: rclink_rx_hold.py DEV [US]

  DEV  rclinkN (the board's /dev and netlink name) or a PCI address
  US   the new value in microseconds; without it the value is only read

Prints the value before the write.  The driver writes its devlink
parameter ctx_rx_hold_us when it sets the board up; a test that changes
the register here puts the printed value back.  Writes BAR0 while the
driver holds it (boot option iomem=relaxed): exit 4 (skip) when BAR0
cannot be mapped, 1 on an error, 2 on a usage error.
"""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    try:
        us = int(sys.argv[2], 0) if len(sys.argv) == 3 else None
    except ValueError:
        print('bad value %s' % sys.argv[2], file=sys.stderr)
        return 2
    if us is not None and not 0 <= us <= 0xffffffff:
        print('%d: out of 0..2^32-1' % us, file=sys.stderr)
        return 2
    try:
        bar = rt.Bar0(t1.bdf_of(sys.argv[1]))
    except rt.SkipTest as e:
        print(e, file=sys.stderr)
        return 4
    except OSError as e:
        print('%s: %s' % (sys.argv[1], e), file=sys.stderr)
        return 1
    with bar:
        print(bar.rfield('DMAQ_CTX_RX_HOLD', 'usec'))
        if us is not None:
            bar.write('DMAQ_CTX_RX_HOLD', us)
    return 0


if __name__ == '__main__':
    sys.exit(main())
