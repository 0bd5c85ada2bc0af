#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Mask or unmask one MSI-X vector of a board in its MSI-X table, as a
test hook (the kernel's own view of the mask is not changed: unmask what
was masked).  The table is found through the MSI-X capability (BIR and
offset); the entry's Vector Control word is at +12, bit 0 = masked.

  rclink_msix.py BDF VECTOR show|mask|unmask

Exit 4 when the table's BAR cannot be mapped while the driver holds it
(CONFIG_IO_STRICT_DEVMEM without iomem=relaxed), 1 on other errors.
"""

import mmap
import os
import struct
import sys

PCI_CAP_ID_MSIX = 0x11


def msix_table(bdf):
    """(bar, offset, size) of the MSI-X table."""
    with open('/sys/bus/pci/devices/%s/config' % bdf, 'rb') as f:
        cfg = f.read(256)
    pos = cfg[0x34] & ~3
    while pos:
        if cfg[pos] == PCI_CAP_ID_MSIX:
            ctrl = struct.unpack_from('<H', cfg, pos + 2)[0]
            table = struct.unpack_from('<I', cfg, pos + 4)[0]
            return table & 7, table & ~7, ((ctrl & 0x7ff) + 1) * 16
        pos = cfg[pos + 1] & ~3
    raise OSError('no MSI-X capability')


def main(argv):
    if len(argv) != 4 or argv[3] not in ('show', 'mask', 'unmask'):
        sys.stderr.write(__doc__)
        return 2
    bdf, vec, cmd = argv[1], int(argv[2], 0), argv[3]
    try:
        bar, off, size = msix_table(bdf)
        if vec * 16 >= size:
            raise OSError('vector %d: the table has %d' % (vec, size // 16))
        path = '/sys/bus/pci/devices/%s/resource%d' % (bdf, bar)
        fd = os.open(path, os.O_RDWR | os.O_SYNC)
        try:
            length = off + size
            mm = mmap.mmap(fd, (length + 4095) & ~4095, mmap.MAP_SHARED,
                           mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
    except OSError as e:
        sys.stderr.write('%s: %s\n' % (bdf, e))
        return 4 if getattr(e, 'errno', 0) in (1, 13, 22) else 1
    words = memoryview(mm).cast('I')
    ctl = (off + vec * 16 + 12) >> 2
    if cmd == 'mask':
        words[ctl] = words[ctl] | 1
    elif cmd == 'unmask':
        words[ctl] = words[ctl] & ~1
    print('vector %d %s' % (vec, 'masked' if words[ctl] & 1 else 'unmasked'))
    words.release()
    mm.close()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
