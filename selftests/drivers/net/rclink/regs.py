#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Register contract of BAR0 (Documentation/hw/shim.rst, registers.rst),
checked on one good board with the driver unbound: reset values, RW / RO /
W1C / WO semantics, reserved bits, 64- and 32-bit access, the self-test
registers, the MAC window, per-QP storage selected by QP_ID_SET, the
capabilities, SHIM_RESET.  The board is reset and bound again at the end.

$RCLINK_REGS_DEV picks the board (default: the first bound one).  On an
RTL board (co-simulation, $RCLINK_RTL_DEVS) the registers the RTL does not
have (rclinktest.RTL_ABSENT, Documentation/hw/rtl.rst "Not in the RTL")
are left out of the register walks and reported as one SKIP.
"""

import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413

# Wire frame and drop counters: RO, they count whatever the wire carried
# (not reset by SHIM_RESET, may move at any time).
COUNTERS = ('SHIM_WIRE_TX_FRAMES', 'SHIM_WIRE_RX_FRAMES',
            'SHIM_RX_DROP_NOMD', 'SHIM_RX_DROP_OFF', 'SHIM_RX_DROP_T12',
            'SHIM_TX_DROP_LINK', 'SHIM_RX_DROP_ERR')
# The wire fault injector's counters, the TYPE1 drop counters and the per-QP
# counters of the queue engine (DMAQ_QPS_*, of the QP DMAQ_QP_STAT_SEL
# selects) are never reset but by SHIM_RESET (the injector's not even
# then), so they hold what earlier traffic left.
COUNTERS += tuple(n for n in hw.REGS
                  if n.startswith(('SHIM_WIRE_LOST', 'SHIM_WIRE_CORRUPTED',
                                   'SHIM_WIRE_REORDERED',
                                   'SHIM_WIRE_DUPLICATED', 'DMAQ_QPS_',
                                   'DMAQ_T1_RX_DROP_', 'DMAQ_T1_TX_DROP_',
                                   'DMAQ_BAD_WQE', 'DMAQ_RDMA_TX_',
                                   'DMAQ_RDMA_RX_', 'DMAQ_RDMA_REM_ERR',
                                   'DMAQ_RDMA_TIMEOUT')))
# Registers whose value is not a constant after reset (SHIM_LINK.up is the
# wire's carrier, SHIM_MAC the board's own address; the queue engine's
# indices and free slots follow its queues).
VARYING = ('SHIM_SERIAL', 'SHIM_LINK', 'SHIM_MAC', 'SHIM_CAP0', 'SHIM_CAP1',
           'SHIM_CAP2', 'SHIM_CAP3', 'SHIM_TEST_DMA_STATUS',
           'DMAQ_SQ_PROD', 'DMAQ_SQ_CONS', 'DMAQ_RQ_PROD', 'DMAQ_RQ_CONS',
           'DMAQ_CQ_PROD', 'DMAQ_CQ_CONS', 'DMAQ_T1_OST_FREE',
           'DMAQ_CTX_CAP', 'DMAQ_MR_CAP') + COUNTERS
# RW bits not to set in the RW test: they start something (the queue
# engine's enables start DMA from the queue bases; the hostile mode's dead
# bit takes the board off the bus until a PCI reset).
RW_EXCLUDE = {
    'SHIM_HOSTILE_CTRL': hw.field('SHIM_HOSTILE_CTRL', 'dead')[0],
    'SHIM_EVT_CTRL': hw.field('SHIM_EVT_CTRL', 'enable')[0],
    'SHIM_TEST_DMA_CTRL': hw.field('SHIM_TEST_DMA_CTRL', 'op')[0],
    'DMAQ_SQ_CFG': hw.field('DMAQ_SQ_CFG', 'enable')[0],
    'DMAQ_RQ_CFG': hw.field('DMAQ_RQ_CFG', 'enable')[0],
    'DMAQ_CQ_CFG': hw.field('DMAQ_CQ_CFG', 'enable')[0],
}
# Tested on their own (DMAQ_CQ_CONS cannot pass DMAQ_CQ_PROD: test_cq_cons).
# The registers of a context (DMAQ_CTX_SEL selects it; after reset it
# selects nothing, so they read 0 and drop writes) and the owner tables
# (an owner must be a context the shim has): the vector "contexts".  The
# registration table's selected entry (BASE and LEN only while not valid,
# CTRL.valid only with a length): t1_rdma.
RW_SPECIAL = ('SHIM_TEST_ECHO', 'DMAQ_CQ_CONS', 'DMAQ_QP_OWNER',
              'DMAQ_T2_OWNER', 'DMAQ_MR_BASE', 'DMAQ_MR_LEN',
              'DMAQ_MR_CTRL', 'DMAQ_MR_TBL') + tuple(
                  n for n in hw.REGS if n.startswith('DMAQ_CTX_') and
                  n not in ('DMAQ_CTX_CAP', 'DMAQ_CTX_SEL'))
WIN_MAC = 0x8000


def regdesc(name):
    (off, width, per_qp, count, stride, reset, rw, ro, w1c, wo, sc,
     fields) = hw.REGS[name]
    return dict(off=off, width=width, per_qp=per_qp, count=count,
                stride=stride, reset=reset, rw=rw, ro=ro, w1c=w1c, wo=wo,
                sc=sc, fields=fields)


def wmask(width):
    return (1 << width) - 1


def varying(name):
    return name in VARYING or name.startswith('SHIM_EVT_')


def elements(rtl=False):
    """(name, index, desc) of every register element (on an RTL board,
    of those the RTL has)."""
    for name in hw.REGS:
        if rtl and rt.rtl_absent(name):
            continue
        d = regdesc(name)
        for i in range(d['count']):
            yield name, i, d


class RegTest:
    def __init__(self, bar, rtl=False):
        self.bar = bar
        self.rtl = rtl
        self.qp_num = None

    def rd(self, name, i=0):
        return self.bar.read(name, i)

    def wr(self, name, val, i=0):
        self.bar.write(name, val, i)

    def shim_reset(self):
        self.wr('SHIM_RESET', 1)
        self.rd('SHIM_ID')          # flush the posted write

    # -- every register ------------------------------------------------
    def test_reset_values(self):
        errs = []
        for name, i, d in elements(self.rtl):
            if varying(name):
                continue
            v = self.rd(name, i)
            if v != d['reset']:
                errs.append('%s[%d] @0x%x: 0x%x, reset value 0x%x'
                            % (name, i, hw.reg(name, i), v, d['reset']))
        check(not errs, '\n'.join(errs))

    def test_identity(self):
        magic = self.bar.rfield('SHIM_ID', 'magic')
        major = self.bar.rfield('SHIM_VERSION', 'major')
        minor = self.bar.rfield('SHIM_VERSION', 'minor')
        ip = self.bar.rfield('SHIM_VERSION', 'ip')
        check((magic, major, ip) == (hw.MAGIC, hw.SHIM_VERSION_MAJOR,
                                     hw.IP_VERSION),
              'magic 0x%x shim %d.%d ip 0x%x' % (magic, major, minor, ip))

    def _sc_settle(self, name, i, d):
        """Wait for self-clearing bits to clear; their value or None."""
        end = time.monotonic() + 1
        while True:
            v = self.rd(name, i)
            if not v & d['sc'] or time.monotonic() > end:
                return v

    def test_rw_bits(self):
        """Writing all ones / zeros: RW bits follow, everything else
        (RO, W1C, reserved) does not."""
        errs = []
        for name, i, d in elements(self.rtl):
            if not d['rw'] or name in RW_SPECIAL:
                continue
            excl = RW_EXCLUDE.get(name, 0)
            bits = d['rw'] & ~excl & ~d['sc']
            keep = d['reset'] & (excl | d['ro'])
            full = wmask(d['width'])
            for pattern in (full, 0):
                val = (pattern & full & ~excl) | (d['reset'] & excl)
                self.wr(name, val, i)
                got = self._sc_settle(name, i, d)
                want = (pattern & bits) | keep
                if varying(name):       # RO bits with a value of their own
                    got &= ~d['ro']
                    want &= ~d['ro']
                if got != want:
                    errs.append('%s[%d]: wrote 0x%x, read 0x%x, want 0x%x'
                                % (name, i, val, got, want))
            self.wr(name, d['reset'], i)
        check(not errs, '\n'.join(errs))

    def test_ro_bits(self):
        errs = []
        for name, i, d in elements(self.rtl):
            if not d['ro'] or name == 'SHIM_RESET':
                continue
            before = self.rd(name, i)
            flip = (before & d['rw']) | (~before & d['ro'])
            self.wr(name, flip & wmask(d['width']), i)
            got = self.rd(name, i)
            if got != before and not (name in COUNTERS and got > before):
                errs.append('%s[%d]: 0x%x, after writing 0x%x reads 0x%x'
                            % (name, i, before, flip, got))
            self.wr(name, before & d['rw'], i)
        check(not errs, '\n'.join(errs))

    def test_w1c_bits(self):
        regs = {'INTR_STATUS': 'rc', 'DMA_INTR_ST0': 'st0',
                'DMA_INTR_ST1': 'st1'}
        errs = []
        for name in regs:
            self.wr(name, wmask(64))
            if self.rd(name):
                errs.append('%s: writing ones set 0x%x' % (name,
                                                           self.rd(name)))
        # Set every bit through the test hook (the event ring is off).
        self.bar.inject_intr(rc=0xffff, st0=0x1f, st1=0x7ff)
        for name in regs:
            d = regdesc(name)
            got = self.rd(name)
            if got != d['w1c']:
                errs.append('%s: injected all causes, reads 0x%x, want 0x%x'
                            % (name, got, d['w1c']))
            self.wr(name, 0)
            if self.rd(name) != got:
                errs.append('%s: writing 0 changed 0x%x to 0x%x'
                            % (name, got, self.rd(name)))
            low = d['w1c'] & -d['w1c']
            self.wr(name, low)
            if self.rd(name) != d['w1c'] & ~low:
                errs.append('%s: writing 0x%x left 0x%x, want 0x%x'
                            % (name, low, self.rd(name), d['w1c'] & ~low))
            self.wr(name, wmask(64))
            if self.rd(name):
                errs.append('%s: writing ones left 0x%x' % (name,
                                                            self.rd(name)))
        # ST1 causes also raise DMA_INTR_ST0.abnormal.
        self.bar.inject_intr(st1=1)
        ab = hw.field('DMA_INTR_ST0', 'abnormal')[0]
        st0, st1 = self.rd('DMA_INTR_ST0'), self.rd('DMA_INTR_ST1')
        if (st0, st1) != (ab, 1):
            errs.append('ST1 bit 0 injected: ST0 0x%x ST1 0x%x, want 0x%x 1'
                        % (st0, st1, ab))
        self.wr('DMA_INTR_ST0', wmask(64))
        self.wr('DMA_INTR_ST1', wmask(64))
        check(not errs, '\n'.join(errs))

    def test_wo_read_zero(self):
        errs = []
        for name, i, d in elements(self.rtl):
            if d['wo'] and not (d['rw'] | d['ro'] | d['w1c']):
                v = self.rd(name, i)
                if v:
                    errs.append('%s reads 0x%x' % (name, v))
        check(not errs, '\n'.join(errs))

    def _unassigned(self, lo, hi, step):
        taken = set()
        for name, i, d in elements():
            off = hw.reg(name, i)
            taken.update(range(off, off + d['width'] // 8, 4))
        return [o for o in range(lo, hi, step)
                if not any(x in taken for x in range(o, o + step, 4))]

    def test_unassigned_read_zero(self):
        """Offsets without a register read 0 (the shim and queue engine
        windows always; the IP and MAC windows on the model, where no
        undocumented register can hide)."""
        spans = [(0x4000, 0x8000, 8)]
        if rt.qemu_guest():
            spans += [(0x0, 0x4000, 8), (WIN_MAC, hw.BAR0_SIZE, 4)]
        errs = []
        for lo, hi, step in spans:
            for off in self._unassigned(lo, hi, step):
                v = self.bar.r64(off) if step == 8 else self.bar.r32(off)
                if v:
                    errs.append('0x%x reads 0x%x' % (off, v))
        check(not errs, '\n'.join(errs[:20]))

    def test_unassigned_write_ignored(self):
        errs = []
        for off in self._unassigned(0x4000, 0x5000, 8)[:16]:
            self.bar.w64(off, wmask(64))
            if self.bar.r64(off):
                errs.append('0x%x reads 0x%x after a write'
                            % (off, self.bar.r64(off)))
        check(not errs, '\n'.join(errs))

    def test_cq_cons(self):
        """DMAQ_CQ_CONS is the host's consumer index: a value beyond
        DMAQ_CQ_PROD (nothing produced after reset) is ignored."""
        prod = self.rd('DMAQ_CQ_PROD')
        check(prod == 0, 'DMAQ_CQ_PROD %d after reset' % prod)
        for v in (1, 5, 0xffffffff):
            self.wr('DMAQ_CQ_CONS', v)
            got = self.rd('DMAQ_CQ_CONS')
            check(got == 0, 'DMAQ_CQ_CONS reads %d after writing %d with '
                  'DMAQ_CQ_PROD 0' % (got, v))
        self.wr('DMAQ_CQ_CONS', 0)
        check(self.rd('DMAQ_CQ_CONS') == 0, 'DMAQ_CQ_CONS 0')

    # -- self-test registers and access sizes ---------------------------
    def test_scratch_64bit(self):
        off = hw.reg('SHIM_SCRATCH')
        pat = 0x0123456789abcdef
        self.bar.w64(off, pat)
        got = self.bar.r64(off)
        check(got == pat, 'SCRATCH 0x%x, wrote 0x%x' % (got, pat))
        self.bar.w64(off, ~pat)
        got = self.bar.r64(off)
        check(got == ~pat & wmask(64), 'SCRATCH 0x%x, wrote 0x%x'
              % (got, ~pat & wmask(64)))
        self.bar.w64(off, 0)

    def test_scratch_32bit_halves(self):
        off = hw.reg('SHIM_SCRATCH')
        self.bar.w64(off, 0x0123456789abcdef)
        lo, hi = self.bar.r32(off), self.bar.r32(off + 4)
        check((hi, lo) == (0x01234567, 0x89abcdef),
              '32-bit reads: upper 0x%x lower 0x%x' % (hi, lo))
        self.bar.w32(off + 4, 0xdeadbeef)
        got = self.bar.r64(off)
        check(got == 0xdeadbeef89abcdef,
              'after a 32-bit write of the upper half: 0x%x' % got)
        self.bar.w32(off, 0x5a5aa5a5)
        got = self.bar.r64(off)
        check(got == 0xdeadbeef5a5aa5a5,
              'after a 32-bit write of the lower half: 0x%x' % got)
        self.bar.w64(off, 0)

    def test_echo(self):
        off = hw.reg('SHIM_TEST_ECHO')
        errs = []
        for pat in (0x0123456789abcdef, 0, wmask(64), 0xa5a5a5a55a5a5a5a):
            self.bar.w64(off, pat)
            got = self.bar.r64(off)
            if got != ~pat & wmask(64):
                errs.append('wrote 0x%x, read 0x%x, want 0x%x'
                            % (pat, got, ~pat & wmask(64)))
        check(not errs, '\n'.join(errs))

    def test_mac_window(self):
        """32-bit IDs exact, a 64-bit access is ignored."""
        errs = []
        for name, i, d in elements(self.rtl):
            if d['off'] < WIN_MAC or d['rw']:
                continue
            v = self.rd(name, i)
            if v != d['reset']:
                errs.append('%s: 0x%x, want 0x%x' % (name, v, d['reset']))
        rev = hw.reg('TX_FC_REVISION_ID')
        scr = hw.reg('TX_FC_SCRATCH')
        self.bar.w32(scr, 0x5a5a1234)
        v = self.bar.r64(rev)
        if v:
            errs.append('64-bit read of 0x%x returned 0x%x' % (rev, v))
        self.bar.w64(rev, wmask(64))
        v = self.bar.r32(scr)
        if v != 0x5a5a1234:
            errs.append('64-bit write at 0x%x changed TX_FC_SCRATCH to 0x%x'
                        % (rev, v))
        self.bar.w32(scr, 0)
        check(not errs, '\n'.join(errs))

    # -- per-QP storage -------------------------------------------------
    def qp_regs(self):
        # TX_CC_BYTE_CNT_MEM is the rate control's acc_cnt: it loses
        # TX_SPEED_MEM bytes at every CC window end, not a plain store
        return [n for n in hw.REGS if regdesc(n)['per_qp']
                and regdesc(n)['rw'] and n != 'TX_CC_BYTE_CNT_MEM']

    @staticmethod
    def qp_pattern(k, i, d):
        v = 0x0123456789abcdef ^ (k * 0x1111111111111111) ^ (i << 8)
        return v & d['rw'] & ~d['sc']

    def test_qp_select(self):
        qps = sorted({0, 5, self.qp_num - 1})
        regs = self.qp_regs()
        check(regs, 'no per-QP register')
        for k, q in enumerate(qps):
            self.wr('QP_ID_SET', q)
            got = self.rd('QP_ID_SET')
            check(got == q, 'QP_ID_SET reads %d after writing %d' % (got, q))
            for i, name in enumerate(regs):
                self.wr(name, self.qp_pattern(k, i, regdesc(name)))
        errs = []
        for k, q in enumerate(qps):
            self.wr('QP_ID_SET', q)
            for i, name in enumerate(regs):
                want = self.qp_pattern(k, i, regdesc(name))
                got = self.rd(name)
                if got != want:
                    errs.append('QP %d %s: 0x%x, want 0x%x'
                                % (q, name, got, want))
        self.qp_cleanup(qps, regs)
        check(not errs, '\n'.join(errs))

    def qp_cleanup(self, qps, regs):
        for q in qps:
            self.wr('QP_ID_SET', q)
            for name in regs:
                self.wr(name, 0)
        self.wr('QP_ID_SET', 0)

    def test_qp_out_of_range(self):
        """QP_ID_SET >= QP_NUM: per-QP reads 0 and writes are dropped."""
        regs = self.qp_regs()
        last = self.qp_num - 1
        self.wr('QP_ID_SET', last)
        for i, name in enumerate(regs):
            self.wr(name, self.qp_pattern(1, i, regdesc(name)))
        errs = []
        for sel in (self.qp_num, self.qp_num + 1, 0xffffffff):
            self.wr('QP_ID_SET', sel)
            for i, name in enumerate(regs):
                v = self.rd(name)
                if v:
                    errs.append('QP_ID_SET %d: %s reads 0x%x' % (sel, name, v))
                self.wr(name, regdesc(name)['rw'] & ~regdesc(name)['sc'])
        self.wr('QP_ID_SET', last)
        for i, name in enumerate(regs):
            want = self.qp_pattern(1, i, regdesc(name))
            if self.rd(name) != want:
                errs.append('QP %d %s: 0x%x after out-of-range writes, '
                            'want 0x%x' % (last, name, self.rd(name), want))
        self.wr('QP_ID_SET', 0)
        for name in regs:
            if self.rd(name):
                errs.append('QP 0 %s: 0x%x after out-of-range writes'
                            % (name, self.rd(name)))
        self.qp_cleanup([last], regs)
        check(not errs, '\n'.join(errs))

    # -- capabilities and reset -----------------------------------------
    def test_caps(self):
        errs = []
        caps = {}
        for r in ('SHIM_CAP0', 'SHIM_CAP1', 'SHIM_CAP2', 'SHIM_CAP3'):
            for f in regdesc(r)['fields']:
                caps[f] = self.bar.rfield(r, f)
        q = caps['qp_num']
        if not (4 <= q <= hw.PARAMS['QP_NUM'] and q & (q - 1) == 0):
            errs.append('qp_num %d' % q)
        if not 1 <= caps['num_vectors'] <= 2048:
            errs.append('num_vectors %d' % caps['num_vectors'])
        if caps['evt_ring_max_order'] < 4:
            errs.append('evt_ring_max_order %d' % caps['evt_ring_max_order'])
        if rt.qemu_guest():
            want = {f: hw.PARAMS[f.upper()] for f in caps
                    if f.upper() in hw.PARAMS}
            want['num_vectors'] = hw.MSIX_VECTORS
            want['evt_ring_max_order'] = \
                regdesc('SHIM_CAP3')['fields']['evt_ring_max_order'][3]
            for f, v in sorted(want.items()):
                if caps[f] != v:
                    errs.append('%s = %d, PARAMS default %d' % (f, caps[f], v))
        check(not errs, '\n'.join(errs))
        if not rt.qemu_guest():
            raise rt.SkipTest('sane; exact PARAMS defaults only on the model')

    def test_shim_reset(self):
        self.wr('SHIM_SCRATCH', 0x1122334455667788)
        self.wr('RDMA_EN', 3)
        self.wr('TX_FC_SCRATCH', 0xabcd)
        self.wr('QP_ID_SET', 5)
        self.wr('TX_SPEED_MEM', 0x1234)
        self.bar.inject_intr(rc=1)
        # wire faults (shim.rst: SHIM_RESET clears them), queue config
        self.wr('SHIM_WIRE_FAULT_RATE0', 0x0000123400005678)
        self.wr('SHIM_WIRE_FAULT_RATE1', 0x0000043200000765)
        self.wr('SHIM_WIRE_FAULT_DELAY', 77)
        self.wr('SHIM_LINK', rt.fval('SHIM_LINK', 'force_down', 1))
        self.wr('DMAQ_SQ_CFG', 5)
        self.wr('DMAQ_QP_STAT_SEL', 9)
        self.shim_reset()
        errs = []
        for name in ('SHIM_SCRATCH', 'RDMA_EN',
                     'TX_FC_SCRATCH', 'QP_ID_SET', 'INTR_STATUS',
                     'SHIM_EVT_DROPS', 'SHIM_EVT_PROD',
                     'SHIM_WIRE_FAULT_RATE0', 'SHIM_WIRE_FAULT_RATE1',
                     'SHIM_WIRE_FAULT_DELAY', 'DMAQ_SQ_CFG',
                     'DMAQ_QP_STAT_SEL', 'DMAQ_T1_OST_FREE'):
            v, want = self.rd(name), regdesc(name)['reset']
            if v != want:
                errs.append('%s 0x%x after SHIM_RESET, want 0x%x'
                            % (name, v, want))
        self.wr('QP_ID_SET', 5)
        if self.rd('TX_SPEED_MEM'):
            errs.append('QP 5 TX_SPEED_MEM 0x%x after SHIM_RESET'
                        % self.rd('TX_SPEED_MEM'))
        self.wr('QP_ID_SET', 0)
        if self.bar.rfield('SHIM_LINK', 'force_down'):
            errs.append('SHIM_LINK.force_down still set after SHIM_RESET')
        check(not errs, '\n'.join(errs))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    bound = rt.bound_devices()
    bdf = os.environ.get('RCLINK_REGS_DEV') or (bound[0] if bound else None)
    if bdf is None:
        mod.__exit__(None, None, None)
        ktap.skip_all('no board bound to rclink')
    if bdf.count(':') == 1:
        bdf = '0000:' + bdf
    was_bound = rt.driver_of(bdf) == rt.DRIVER
    mode = rt.irq_mode(bdf) if was_bound else None

    tests = ['reset_values', 'identity', 'rw_bits', 'ro_bits', 'w1c_bits',
             'wo_read_zero', 'cq_cons', 'unassigned_read_zero',
             'unassigned_write_ignored', 'scratch_64bit',
             'scratch_32bit_halves', 'echo', 'mac_window', 'qp_select',
             'qp_out_of_range', 'caps', 'shim_reset']
    rtl = rt.is_rtl(bdf)
    ktap.plan(1 + len(tests) + 2 + rtl)
    ktap.diag('board %s%s' % (bdf, ' (irq %s %d)' % mode if mode else ''))

    bar = None
    try:
        if was_bound:
            ktap.run('unbind', rt.unbind, bdf)
        else:
            ktap.skip('unbind', 'board was not bound')
        if rt.driver_of(bdf) is None:
            bar = rt.Bar0(bdf, enable=True)
            t = RegTest(bar, rtl)
            t.shim_reset()
            t.qp_num = bar.rfield('SHIM_CAP0', 'qp_num')
            if rtl:
                ktap.skip('rtl_absent', 'RTL board: not in the RTL '
                          '(Documentation/hw/rtl.rst): ' + ' '.join(
                              n for n in hw.REGS if rt.rtl_absent(n)))
            for name in tests:
                ktap.run(name, getattr(t, 'test_' + name))
                # No test may leave the next one a changed board.
                if name != 'reset_values':
                    t.shim_reset()
        else:
            for name in tests:
                ktap.skip(name, 'board still bound')
    finally:
        if bar is not None:
            bar.w64(hw.reg('SHIM_RESET'), 1)
            bar.close()
        if was_bound:
            ktap.run('rebind', rt.bind, bdf)

            def after():
                rt.check_selftest(bdf)
                now = rt.irq_mode(bdf)
                check(now == mode, 'irq mode %s %d, was %s %d'
                      % (now + mode))
            ktap.run('rebind_selftest', after)
        else:
            ktap.skip('rebind', 'board was not bound')
            ktap.skip('rebind_selftest', 'board was not bound')
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
