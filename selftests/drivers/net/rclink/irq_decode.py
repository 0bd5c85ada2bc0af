#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Event decoding: on every bound board, each IRQ_INFO code, RC_INTR_O bit
and TYPE3 cause bit injected through the shim's test hooks moves exactly
its own debugfs counter(s); unknown codes are counted as unknown; a TYPE1
retry timeout runs the QP recovery (the QP ends disabled, its rate limit
cleared, other QPs untouched).  Records of the CC interface (RECV_ACK,
RECV_CNP, NOCNP, RETRY_TMO, made with SHIM_EVT_INJECT_SRC) naming a QP
beyond QP_NUM
or one that does not exist are counted as such (cc_drop_noqp); a record
of an unknown source is counted as unknown.  On an RTL board
($RCLINK_RTL_DEVS), which has no SHIM_EVT_INJECT_SRC, those cases SKIP.

Needs BAR0 mapped while the driver holds it: with CONFIG_IO_STRICT_DEVMEM
the kernel must boot with iomem=relaxed, otherwise the tests SKIP.
"""

import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413

# Counters any event may move.
ALWAYS = ('irq_total', 'evt_records')
RECOVERY = {'qp_fatal': 1, 'qp_recovered': 1}
QPID = 3            # QP of the injected TYPE1 codes
RECOVER_QP = 5      # QP of the recovery test; RECOVER_QP + 1 is a witness
UNKNOWN = ((0, 1), (1, 9), (1, 0), (2, 3))
NO_QP = 1000        # a QP number below QP_NUM the tests never create
UNKNOWN_SRC = 0x7e  # an event source the contract does not define
# event sources of the CC interface (include/rclink_hw.h RCLINK_EVT_SRC_*),
# the format of their INFO word and the counter of their records
CC_SOURCES = ((5, 'RECV_ACK', 'recv_ack'), (6, 'CC_INFO', 'recv_cnp'),
              (7, 'CC_INFO', 'nocnp'), (8, 'CC_INFO', 'retry_tmo'))
SOFT_RESET_ST1 = range(5, 11)


def fields(reg):
    """(name, bit) of the one-bit fields of reg, by bit."""
    return sorted(((f, v[1]) for f, v in hw.REGS[reg][11].items()
                   if v[0] == v[1]), key=lambda x: x[1])


def injected(bdf, bar, what, do, expect, allowed=()):
    before = rt.events(bdf)
    do(bar)
    problems, d = rt.wait_events(bdf, before, expect,
                                 allowed=ALWAYS + tuple(allowed),
                                 settle=0.15)
    check(not problems, '%s: %s (all changes: %s)'
          % (what, '; '.join(problems), rt.fmt_delta(d)))


def wait_reg_zero(bar, name, timeout=None):
    end = time.monotonic() + (rt.TIMEOUT if timeout is None else timeout)
    while True:
        v = bar.read(name)
        if not v or time.monotonic() > end:
            return v
        time.sleep(0.01)


def cases(bdf):
    """[(name, func(bar))] of one board."""
    out = []

    def irq_case(t, c, q, expect):
        info = rt.irq_info(t, c, q)
        return lambda bar: injected(
            bdf, bar, 'IRQ_INFO 0x%x (type %d code %d qp %d)' % (info, t, c, q),
            lambda b: b.inject_irq(info), expect)

    for tname, (tval, codes) in hw.IRQ_TYPES.items():
        for code, cname in sorted(codes.items()):
            cnt = rt.IRQ_TYPE_PREFIX[tname] + cname
            expect = {cnt: 1}
            if tname == 'TYPE1' and cname == 'retry_timeout':
                expect.update(RECOVERY)
            out.append((cnt, irq_case(tval, code, QPID, expect)))
    for t, c in UNKNOWN:
        out.append(('unknown_type%d_code%d' % (t, c),
                    irq_case(t, c, QPID, {'unknown': 1})))

    def src_case(src, info, expect):
        def run(bar):
            if rt.is_rtl(bdf):
                # the RTL's injected records are IRQ_INFO ones whatever
                # the source asked (an unknown source would even pass)
                raise rt.SkipTest('RTL board: no SHIM_EVT_INJECT_SRC '
                                  '(Documentation/hw/rtl.rst)')
            bar.write('SHIM_EVT_INJECT_SRC', src)
            try:
                injected(bdf, bar, 'source %d INFO 0x%x' % (src, info),
                         lambda b: b.inject_irq(info), expect)
            finally:
                bar.write('SHIM_EVT_INJECT_SRC', 0)
        return run

    for src, fmt, cnt in CC_SOURCES:
        _, hi, lo = hw.FORMATS[fmt][1]['QPID']
        for why, qpn in (('beyond_qp_num', (1 << (hi - lo + 1)) - 1),
                         ('no_qp', NO_QP)):
            out.append(('%s_%s' % (cnt, why),
                        src_case(src, (qpn << lo) | 1,
                                 {cnt: 1, 'cc_drop_noqp': 1})))
    out.append(('unknown_source', src_case(UNKNOWN_SRC, 0x1234,
                                           {'unknown': 1})))

    def intr_case(what, kw, expect):
        return lambda bar: injected(bdf, bar, 'SHIM_INTR_INJECT %s' % what,
                                    lambda b: b.inject_intr(**kw), expect)

    for f, bit in fields('INTR_STATUS'):
        out.append(('rc_intr_' + f,
                    intr_case('rc_intr bit %d' % bit, {'rc': 1 << bit},
                              {'rc_intr_' + f: 1})))

    def rc_cleared(bar):
        v = wait_reg_zero(bar, 'INTR_STATUS')
        check(not v, 'INTR_STATUS 0x%x after the events were handled' % v)
        # Cleared causes report again when they come back.
        mask = hw.REGS['INTR_STATUS'][8]
        injected(bdf, bar, 'SHIM_INTR_INJECT rc_intr 0x%x again' % mask,
                 lambda b: b.inject_intr(rc=mask),
                 {'rc_intr_' + f: 1 for f, _ in fields('INTR_STATUS')})
        v = wait_reg_zero(bar, 'INTR_STATUS')
        check(not v, 'INTR_STATUS 0x%x after the second round' % v)
    out.append(('rc_intr_cleared_and_rearmed', rc_cleared))

    for f, bit in fields('DMA_INTR_ST0'):
        expect = {'nonr_st0_' + f: 1, 't3_nonr': 1}
        out.append(('nonr_st0_' + f,
                    intr_case('nonr_st0 bit %d' % bit, {'st0': 1 << bit},
                              expect)))
    for f, bit in fields('DMA_INTR_ST1'):
        expect = {'nonr_st1_' + f: 1, 'nonr_st0_abnormal': 1, 't3_nonr': 1}
        if bit in SOFT_RESET_ST1:
            expect['nonr_soft_reset'] = 1
        out.append(('nonr_st1_' + f,
                    intr_case('nonr_st1 bit %d' % bit, {'st1': 1 << bit},
                              expect)))

    def nonr_cleared(bar):
        st0 = wait_reg_zero(bar, 'DMA_INTR_ST0')
        st1 = wait_reg_zero(bar, 'DMA_INTR_ST1')
        check(not st0 and not st1,
              'DMA_INTR_ST0 0x%x ST1 0x%x after the events were handled'
              % (st0, st1))
    out.append(('nonr_status_cleared', nonr_cleared))

    out.append(('qp_recovery', lambda bar: qp_recovery(bdf, bar)))
    return out


def qp_recovery(bdf, bar):
    en = hw.field('QP_CONTROL_STATUS', 'qp_en')[0]
    keep = hw.REGS['QP_CONTROL_STATUS'][6] & ~hw.REGS['QP_CONTROL_STATUS'][10]
    sel = bar.read('QP_ID_SET')
    saved = {}
    for q in (RECOVER_QP, RECOVER_QP + 1):
        bar.write('QP_ID_SET', q)
        saved[q] = (bar.read('QP_CONTROL_STATUS'), bar.read('TX_SPEED_MEM'))
        bar.write('QP_CONTROL_STATUS', en)
        bar.write('TX_SPEED_MEM', 0x1234)
    bar.write('QP_ID_SET', sel)
    try:
        info = rt.irq_info(hw.IRQ_TYPES['TYPE1'][0], 2, RECOVER_QP)
        expect = dict(RECOVERY, t1_retry_timeout=1)
        injected(bdf, bar, 'retry timeout of QP %d' % RECOVER_QP,
                 lambda b: b.inject_irq(info), expect)
        end = time.monotonic() + rt.TIMEOUT
        while True:
            bar.write('QP_ID_SET', RECOVER_QP)
            ctl, speed = bar.read('QP_CONTROL_STATUS'), bar.read('TX_SPEED_MEM')
            if (not ctl & en and not speed) or time.monotonic() > end:
                break
            time.sleep(0.02)
        check(not ctl & en and not speed,
              'QP %d after recovery: QP_CONTROL_STATUS 0x%x TX_SPEED_MEM 0x%x'
              ', want qp_en 0 and 0' % (RECOVER_QP, ctl, speed))
        bar.write('QP_ID_SET', RECOVER_QP + 1)
        ctl, speed = bar.read('QP_CONTROL_STATUS'), bar.read('TX_SPEED_MEM')
        check(ctl & en and speed == 0x1234,
              'QP %d (not the failed one) changed: QP_CONTROL_STATUS 0x%x '
              'TX_SPEED_MEM 0x%x' % (RECOVER_QP + 1, ctl, speed))
    finally:
        for q, (ctl, speed) in saved.items():
            bar.write('QP_ID_SET', q)
            bar.write('QP_CONTROL_STATUS', ctl & keep)
            bar.write('TX_SPEED_MEM', speed)
        bar.write('QP_ID_SET', sel)


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    try:
        boards = rt.bound_devices()
        if not boards:
            ktap.skip_all('no board bound to rclink')
        plan = [(bdf, cases(bdf)) for bdf in boards]
        ktap.plan(sum(len(c) for _, c in plan))
        for bdf, tests in plan:
            mode = rt.irq_mode(bdf)
            ktap.diag('board %s, irq %s %d' % ((bdf,) + mode))
            try:
                bar = rt.Bar0(bdf)
            except rt.SkipTest as e:
                for name, _ in tests:
                    ktap.skip('%s.%s' % (bdf, name), str(e))
                continue
            with bar:
                for name, func in tests:
                    ktap.run('%s.%s' % (bdf, name), func, bar)
    finally:
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
