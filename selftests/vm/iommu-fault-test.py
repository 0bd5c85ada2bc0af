#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Negative test of make check-iommu: a DMA the driver did not map must be
refused by the IOMMU, and the refusal must be visible.

usage: iommu-fault-test.py [BDF]

With the driver bound to a board (BDF, default the first bound one) and the
board in an IOMMU DMA domain (strict translation, not identity), points the
shim's DMA self-test (Documentation/hw/shim.rst, "DMA self-test") at an
IOVA nothing maps and starts a FILL (a device write).  Expects:

  1. the self-test to finish with SHIM_TEST_DMA_STATUS.err set (the model
     sees the translation fail; pci_dma_write() returns an error);
  2. the kernel to log a DMA remapping fault of that device
     ("DMAR: [DMA Write ...] Request device [BDF] fault addr ...").

Prints KTAP; exit 0 when both hold, 4 (skip) without an IOMMU DMA domain
(the write would land in guest RAM), 1 otherwise.
"""

import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, '..', 'drivers', 'net', 'rclink', 'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position

# Low IOVAs are never handed out: the IOVA allocator works down from the
# top of the DMA mask, and page 0 is reserved.
UNMAPPED_IOVA = 0x10000
LEN = 256
SEED = 0x1057fa17


def iommu_domain(bdf):
    """The device's default domain type (DMA, DMA-FQ, identity), or None."""
    try:
        group = os.readlink(rt.pci_path(bdf, 'iommu_group'))
    except OSError:
        return None
    try:
        with open(os.path.join('/sys/kernel/iommu_groups',
                               os.path.basename(group), 'type'),
                  encoding='ascii') as f:
            return f.read().strip()
    except OSError:
        return None


def main(argv):
    print('TAP version 13')
    print('1..2')
    rt.load_module()
    devs = argv[1:] or rt.bound_devices()
    if not devs:
        print('# no board bound to rclink')
        print('not ok 1 unmapped_dma_refused')
        print('not ok 2 dmar_fault_logged')
        return 1
    bdf = devs[0]
    dom = iommu_domain(bdf)
    if dom not in ('DMA', 'DMA-FQ'):
        reason = 'no IOMMU DMA domain for %s (%s)' % (bdf, dom)
        print('ok 1 unmapped_dma_refused # SKIP ' + reason)
        print('ok 2 dmar_fault_logged # SKIP ' + reason)
        return 4
    print('# %s: IOMMU domain %s, DMA self-test FILL of %d bytes at IOVA '
          '0x%x' % (bdf, dom, LEN, UNMAPPED_IOVA))
    marker = rt.kmsg_mark('iommu-fault-test')
    ctrl = (rt.fval('SHIM_TEST_DMA_CTRL', 'len', LEN) |
            rt.fval('SHIM_TEST_DMA_CTRL', 'op', 1) |
            rt.fval('SHIM_TEST_DMA_CTRL', 'seed', SEED))
    with rt.Bar0(bdf) as bar:
        bar.write('SHIM_TEST_DMA_ADDR', UNMAPPED_IOVA)
        bar.write('SHIM_TEST_DMA_CTRL', ctrl)
        deadline = time.monotonic() + 5
        while True:
            st = bar.read('SHIM_TEST_DMA_STATUS')
            done = st & rt.hw.field('SHIM_TEST_DMA_STATUS', 'done')[0]
            busy = st & rt.hw.field('SHIM_TEST_DMA_STATUS', 'busy')[0]
            if (done and not busy) or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        bar.write('SHIM_TEST_DMA_ADDR', 0)
    err = st & rt.hw.field('SHIM_TEST_DMA_STATUS', 'err')[0]
    print('# SHIM_TEST_DMA_STATUS 0x%x' % st)
    ok1 = bool(done and err)
    print('%s 1 unmapped_dma_refused' % ('ok' if ok1 else 'not ok'))

    # The fault interrupt is handled asynchronously: wait for the log line.
    want = re.compile(r'DMAR: \[DMA Write.*\] Request device \[%s\] fault '
                      r'addr 0x0*%x' % (re.escape(bdf.split(':', 1)[1]),
                                        UNMAPPED_IOVA), re.I)
    found = []
    deadline = time.monotonic() + 10
    while not found and time.monotonic() < deadline:
        found = [t for _, _, t in rt.kmsg_since(marker) if want.search(t)]
        if not found:
            time.sleep(0.2)
    for t in found[:2]:
        print('# ' + t)
    print('%s 2 dmar_fault_logged' % ('ok' if found else 'not ok'))
    return 0 if ok1 and found else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
