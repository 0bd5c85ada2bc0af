#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE3 DMA faults (DMA_INTR_ST1) and the devlink health reporter "type3".

On board A of a wired pair (netdevs in a namespace each), every fault the
driver can provoke through debugfs t3_fault (it posts a malformed MD:
tx_two_sop, tx_two_eop, tx_md_size_zero, tx_oversize, rx_md_size_zero;
and data_axi_resp_err, a TX buffer at a bus address nothing decodes,
unless an IOMMU would turn that into a DMA fault) and every other ST1
cause raised with SHIM_INTR_INJECT.nonr_st1 (rx_oversize,
rx_fifo_overflow, ...) must:

  * move its ethtool -S counter (nonr_st1_<cause>) by exactly 1;
  * when the cause halts a path (seed 000: "需要软复位"), be reported to
    devlink health: error count +1 and, with auto recovery (the soft reset
    of the TYPE3 path), recover count +1;
  * when the seed only reports it (the bus errors md_axi_wr_resp_err,
    md_axi_rd_resp_err, data_axi_resp_err: "只上报中断"), cause no health
    report and no soft reset (the driver's nonr_soft_reset stays): a real
    data_axi_resp_err loses its frame and the path goes on;
  * move shim_t3_dma_err (SHIM_T3_DMA_ERR, the path's failed host
    accesses) by 1 for the data_axi_resp_err the driver provokes, by 0
    for an injected cause or a malformed MD;
  * leave the interface working: pings both ways after the recovery;
  * leak nothing on TX: no byte in flight (BQL) once idle, the TX packet
    count does not go backwards.

Also: the reporter exists and is healthy with auto recovery, diagnose
works, a dump is taken on a fault.  ring_alloc_fail: ethtool -G on the
running interface whose new RX ring fails after its page pool was made
(debugfs t3_ring_alloc_fail) is refused with the old rings kept and
working, and no warning (a page pool made or destroyed with its NAPI
running warns).  The reporter's grace period is set to
0 during the test (restored at the end).  The SHIM_INTR_INJECT part needs
BAR0 mapped while bound (iomem=relaxed), else those cases SKIP.
"""

import os
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413

REPORTER = 'type3'
# Faults the driver provokes through debugfs t3_fault, and the side whose
# ping makes the model see the malformed MD (A transmits, B's frame is
# received by A).
DEBUGFS_FAULTS = (('tx_two_sop', 'A'), ('tx_two_eop', 'A'),
                  ('tx_md_size_zero', 'A'), ('tx_oversize', 'A'),
                  ('rx_md_size_zero', 'B'))
if not (os.path.isdir('/sys/class/iommu') and os.listdir('/sys/class/iommu')):
    # a read of an address nothing decodes (a DMA fault behind an IOMMU)
    DEBUGFS_FAULTS += (('data_axi_resp_err', 'A'),)
ST1 = hw.REGS['DMA_INTR_ST1'][11]
INJECT_FAULTS = tuple(n for n in sorted(ST1, key=lambda f: ST1[f][1])
                      if n not in dict(DEBUGFS_FAULTS))


# ST1 causes that halt a path until a soft reset (Documentation/hw/shim.rst,
# TYPE3 rings): reported to devlink health and recovered.  The others
# (FIFO over/underflow) are counted; a report is allowed, not required.
HALTING = ('tx_two_sop', 'tx_two_eop', 'tx_oversize', 'rx_oversize',
           'tx_md_size_zero', 'rx_md_size_zero')
# ST1 causes the seed only reports ("只上报中断"): no health report, no reset
REPORT_ONLY = ('md_axi_wr_resp_err', 'md_axi_rd_resp_err',
               'data_axi_resp_err')
ST1_PREFIXES = ('nonr_st1_', 'dma_intr_st1_', 'st1_', 't3_')


def stat_name(names, fault):
    """The ethtool -S name of an ST1 counter: the fault's name with the
    driver's prefix (nonr_st1_, ...), else the bare name when no software
    counter could have it (tx_oversize is also the name of the driver's
    count of oversize skbs)."""
    for pfx in ST1_PREFIXES:
        if pfx + fault in names:
            return pfx + fault
    cands = [n for n in names if n.endswith('_' + fault)]
    if len(cands) == 1:
        return cands[0]
    return fault if fault in names else None


class FaultTest:
    def __init__(self, pair, ktap):
        self.pair = pair
        self.a = pair.a
        self.b = pair.b
        self.ktap = ktap
        self.stat_names = sorted(self.a.ethtool_stats())
        self.saved_grace = None

    def health(self):
        h = rt.devlink_health(self.a.bdf, REPORTER)
        check(h is not None, 'no devlink health reporter %s on pci/%s'
              % (REPORTER, self.a.bdf))
        return h

    def devlink(self, *args, check_rc=True):
        return rt.run(['devlink'] + list(args), check_rc)

    # -- the reporter ------------------------------------------------------
    def test_reporter(self):
        h = self.health()
        self.ktap.diag('reporter: %s' % h)
        check(h.get('state') == 'healthy', 'state %s' % h.get('state'))
        check(h.get('auto_recover') is True,
              'auto_recover %s' % h.get('auto_recover'))
        grace = h.get('grace_period', 0)
        if grace:
            self.saved_grace = grace
            self.devlink('health', 'set', 'pci/' + self.a.bdf, 'reporter',
                         REPORTER, 'grace_period', '0')

    def restore(self):
        if self.saved_grace:
            self.devlink('health', 'set', 'pci/' + self.a.bdf, 'reporter',
                         REPORTER, 'grace_period', str(self.saved_grace),
                         check_rc=False)
        self.devlink('health', 'dump', 'clear', 'pci/' + self.a.bdf,
                     'reporter', REPORTER, check_rc=False)

    def test_diagnose(self):
        p = self.devlink('-j', 'health', 'diagnose', 'pci/' + self.a.bdf,
                         'reporter', REPORTER)
        check(p.stdout.strip(), 'diagnose printed nothing')
        self.ktap.diag('diagnose: %s' % p.stdout.strip()[:300])

    def test_ring_alloc_fail(self):
        a = self.a
        before = a.rings()
        want = {'rx': 128 if before['rx'] != 128 else 512,
                'tx': 128 if before['tx'] != 128 else 512}
        mark = rt.kmsg_mark('t3_faults ring_alloc_fail')
        path = rt.dbg_path(a.bdf, 't3_ring_alloc_fail')
        rt.sysfs_write(path, 1)
        try:
            p = a.nsx(['ethtool', '-G', a.dev, 'rx', str(want['rx']), 'tx',
                       str(want['tx'])], check_rc=False)
            left = rt.sysfs_read(path)
        finally:
            rt.sysfs_write(path, 0)
        check(p.returncode != 0, 'ethtool -G succeeded though the RX ring '
              'allocation failed: %s' % p.stdout.strip())
        check(left == '0', 'the hook was not reached (%s left)' % left)
        now = a.rings()
        check((now['rx'], now['tx']) == (before['rx'], before['tx']),
              'rings %s after the failure, were %s' % (now, before))
        recs = rt.kmsg_since(mark)
        check(any('cannot allocate rings' in t for _, _, t in recs),
              'no "cannot allocate rings" message in the log')
        bad = rt.kmsg_problems(recs, errors=False)
        check(not bad, '\n'.join(bad))
        for s in (self.a, self.b):
            sent, got, out = s.ping(count=3, interval=0.2, timeout=2)
            check(got == sent == 3, '%s: %d/%d replies after the failed '
                  'ethtool -G\n%s' % (s.name, got, sent, out))
        # and the change itself still works
        a.nsx(['ethtool', '-G', a.dev, 'rx', str(want['rx']), 'tx',
               str(want['tx'])])
        now = a.rings()
        check((now['rx'], now['tx']) == (want['rx'], want['tx']),
              'rings %s, want %s' % (now, want))
        a.nsx(['ethtool', '-G', a.dev, 'rx', str(before['rx']), 'tx',
               str(before['tx'])])
        sent, got, out = a.ping(count=3, interval=0.2, timeout=2)
        check(got == sent == 3, 'A: %d/%d replies after the resizes\n%s'
              % (got, sent, out))

    def test_dump(self):
        p = self.devlink('health', 'dump', 'show', 'pci/' + self.a.bdf,
                         'reporter', REPORTER, check_rc=False)
        check(p.returncode == 0 and p.stdout.strip(),
              'no dump after the faults: exit %d %s'
              % (p.returncode, p.stdout.strip()))
        self.ktap.diag('dump: %s' % ' '.join(p.stdout.split())[:300])

    # -- one fault ---------------------------------------------------------
    def provoke_debugfs(self, fault, side):
        path = rt.dbg_path(self.a.bdf, 't3_fault')
        if not os.path.exists(path):
            raise rt.SkipTest('no %s' % path)
        rt.sysfs_write(path, fault)
        # Traffic that makes the model meet the malformed MD.
        s = self.a if side == 'A' else self.b
        s.ping(count=2, interval=0.2, timeout=0.5)

    def provoke_inject(self, fault):
        bit = ST1[fault][1]
        with rt.Bar0(self.a.bdf) as bar:
            bar.inject_intr(st1=1 << bit)
            bar.read('SHIM_ID')

    def wait(self, what, cond, timeout=None):
        deadline = time.monotonic() + (rt.TIMEOUT if timeout is None
                                       else timeout)
        while True:
            v = cond()
            if v or time.monotonic() > deadline:
                return v
            time.sleep(0.1)

    def bql_inflight(self):
        """Bytes in flight of A's TX queues (BQL), or None without BQL."""
        p = self.a.nsx(['sh', '-c', 'cat /sys/class/net/%s/queues/tx-*/'
                        'byte_queue_limits/inflight 2>/dev/null' % self.a.dev],
                       check_rc=False)
        vals = [int(x) for x in p.stdout.split() if x.isdigit()]
        return sum(vals) if vals else None

    def test_fault(self, fault, how, side=None):
        sname = stat_name(self.stat_names, fault)
        check(sname, 'no ethtool -S counter for %s in %s'
              % (fault, ' '.join(self.stat_names)))
        st0 = self.a.ethtool_stats()
        h0 = self.health()
        s640 = self.a.stats64()
        rst0 = rt.events(self.a.bdf).get('nonr_soft_reset', 0)
        if how == 'debugfs':
            self.provoke_debugfs(fault, side)
        else:
            self.provoke_inject(fault)
        errs = []
        if not self.wait('stat', lambda: self.a.ethtool_stats()[sname]
                         > st0[sname]):
            errs.append('%s did not move' % sname)

        def health_moved():
            h = self.health()
            return (h.get('error', 0) > h0.get('error', 0) and
                    h.get('recover', 0) > h0.get('recover', 0))
        self.wait('health', health_moved,
                  timeout=None if fault in HALTING else 1)
        if fault in REPORT_ONLY:
            time.sleep(1)       # a late report or reset would show
        time.sleep(0.5)
        st1 = self.a.ethtool_stats()
        h1 = self.health()
        if st1[sname] - st0[sname] != 1:
            errs.append('%s %+d, want +1' % (sname, st1[sname] - st0[sname]))
        # SHIM_T3_DMA_ERR counts host accesses of the path that failed:
        # the one the driver provokes, not an injected cause or a bad MD
        want = 1 if (fault, how) == ('data_axi_resp_err', 'debugfs') else 0
        got = st1.get('shim_t3_dma_err', -1) - st0.get('shim_t3_dma_err', 0)
        if got != want:
            errs.append('shim_t3_dma_err %+d, want %+d' % (got, want))
        for k in ('error', 'recover'):
            d = h1.get(k, 0) - h0.get(k, 0)
            if fault in REPORT_ONLY:
                if d:
                    errs.append('health %s count %+d for a fault the seed '
                                'only reports' % (k, d))
            elif d != 1 and (fault in HALTING or d not in (0, 1)):
                errs.append('health %s count %+d, want +1' % (k, d))
        rst = rt.events(self.a.bdf).get('nonr_soft_reset', 0) - rst0
        if fault in REPORT_ONLY and rst:
            errs.append('%d soft resets after %s' % (rst, fault))
        if h1.get('state') != 'healthy':
            errs.append('health state %s after recovery' % h1.get('state'))
        others = {}
        for f in ST1:
            k = stat_name(self.stat_names, f)
            if f != fault and k and st1.get(k) != st0.get(k):
                others[k] = st1.get(k, 0) - st0.get(k, 0)
        if others:
            errs.append('other ST1 counters moved: %s' % rt.fmt_delta(others))
        # Traffic resumes (the carrier may bounce during the reset).
        for s in (self.a, self.b):
            s.wait_carrier(True)
        self.a.ping(count=1, timeout=2)
        for s in (self.a, self.b):
            sent, got, out = s.ping(count=3, interval=0.2, timeout=2)
            if got != 3:
                errs.append('%s: %d/%d replies after recovery\n%s'
                            % (s.name, got, sent, out))
        # Nothing left in flight, TX counters sane.
        infl = self.wait('bql', lambda: self.bql_inflight() in (0, None),
                         timeout=3)
        if not infl:
            errs.append('%s bytes still in flight (BQL) after recovery'
                        % self.bql_inflight())
        s641 = self.a.stats64()
        for k in ('packets', 'bytes'):
            if s641['tx'][k] < s640['tx'][k]:
                errs.append('tx_%s went back: %d -> %d'
                            % (k, s640['tx'][k], s641['tx'][k]))
        self.ktap.diag('%s: %s %+d, health error %+d recover %+d, '
                       'tx_dropped %+d tx_errors %+d'
                       % (fault, sname, st1[sname] - st0[sname],
                          h1.get('error', 0) - h0.get('error', 0),
                          h1.get('recover', 0) - h0.get('recover', 0),
                          s641['tx'].get('dropped', 0) -
                          s640['tx'].get('dropped', 0),
                          s641['tx'].get('errors', 0) -
                          s640['tx'].get('errors', 0)))
        check(not errs, '\n'.join(errs))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    pair = rt.T3Pair()
    t = None
    try:
        try:
            pair.__enter__()
        except rt.SkipTest as e:
            ktap.skip_all(str(e))
        marker = rt.kmsg_mark('t3_faults')
        ktap.diag('A: %s %s, B: %s %s' % (pair.a.bdf, pair.a.dev,
                                          pair.b.bdf, pair.b.dev))
        t = FaultTest(pair, ktap)
        ktap.plan(4 + len(DEBUGFS_FAULTS) + len(INJECT_FAULTS) + 1)
        ktap.run('reporter', t.test_reporter)
        have = rt.devlink_health(pair.a.bdf, REPORTER) is not None
        ktap.run('diagnose', t.test_diagnose)
        for fault, side in DEBUGFS_FAULTS:
            if have:
                ktap.run('fault_' + fault, t.test_fault, fault, 'debugfs',
                         side)
            else:
                ktap.fail('fault_' + fault, 'no reporter %s' % REPORTER)
        for fault in INJECT_FAULTS:
            if have:
                ktap.run('fault_' + fault, t.test_fault, fault, 'inject')
            else:
                ktap.fail('fault_' + fault, 'no reporter %s' % REPORTER)
        ktap.run('dump', t.test_dump)
        ktap.run('ring_alloc_fail', t.test_ring_alloc_fail)

        def log_clean():
            bad = rt.kmsg_problems(rt.kmsg_since(marker), errors=False)
            check(not bad, '\n'.join(bad))
        ktap.run('kernel_log_clean', log_clean)
    finally:
        if t is not None:
            t.restore()
        pair.__exit__(None, None, None)
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
