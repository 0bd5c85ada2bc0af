#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Probe: the module loads, every good board is bound and passed its probe
self-test, its register ports never timed out (debugfs reg_timeout),
devlink info reports the board, the kernel log is clean.

counters (each board): the device statistics of `rclink -s dev show` hold
the board's counters of events inside the IP (count_source ip_internal)
when its SHIM_CAP3.ip_counters is 1 and leave them out when it is 0 (not
counted, Documentation/hw/shim.rst "What a shim can count"); the others
are always there.  qp_not_counted: on a board with ip_counters 0 (the
model's ip-internal-counters=off in the board set of make check), a QP's
`rclink -s qp show` leaves out its ip_internal counters and shows the
others; skipped without such a board.  cbfc_counted: a board with
ip_counters 0 and one with ip_counters 1, each switched to CBFC (devlink
param flow_control cbfc and a reload, then back): the cbfc object of
`rclink -s dev show` leaves out recovered and every VC's rx_drop and
rx_buf (SHIM_CBFC_RECOVERED, SHIM_CBFC_RX_DROP, SHIM_CBFC_RX_BUF:
ip_internal) on the first and
holds them on the second; its other counters are there on both.

A board that is not bound must be one the driver has to refuse (wrong
magic or shim major, see bad_board.sh); a board bound to another driver is
left alone.
"""

import os
import re
import shutil
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413
import rclink_t1 as t1  # noqa: E402  pylint: disable=C0413

IRQ_MODE_RE = re.compile(r'^(msix [1-9][0-9]*|msi 1|intx 1)$')


def test_selftest(bdf):
    rt.check_selftest(bdf)


def test_irq_mode(bdf):
    text = rt.sysfs_read(rt.dbg_path(bdf, 'irq_mode'))
    check(IRQ_MODE_RE.match(text), 'irq_mode %r' % text)
    mode, n = rt.irq_mode(bdf)
    check(mode != 'msix' or n <= hw.MSIX_VECTORS,
          'msix %d vectors > %d' % (n, hw.MSIX_VECTORS))


def test_reg_timeout(bdf):
    """debugfs reg_timeout: SHIM_REG_TIMEOUT; a healthy board's register
    ports always answer (the model's never time out)."""
    text = rt.sysfs_read(rt.dbg_path(bdf, 'reg_timeout'))
    check(text == 'rc 0\nmac 0', 'reg_timeout %r' % text)


def test_devlink_info(bdf):
    info = rt.devlink_info(bdf)
    errs = []
    if info.get('driver') != rt.DRIVER:
        errs.append('driver %r' % info.get('driver'))
    serial = info.get('serial_number', '')
    if not re.match(r'^[0-9a-fA-F]{16}$', serial):
        errs.append('serial_number %r is not 16 hex digits' % serial)
    vers = info.get('versions', {})
    fixed = vers.get('fixed', {})
    running = vers.get('running', {})
    want_fixed = {'board.id': '%04x:%04x' % (hw.VENDOR_ID, hw.DEVICE_ID),
                  'asic.rev': '%x.%x' % (hw.IP_VERSION >> 8,
                                         hw.IP_VERSION & 0xff)}
    for k, v in want_fixed.items():
        if fixed.get(k) != v:
            errs.append('fixed %s = %r, want %r' % (k, fixed.get(k), v))
    want_fw = '%d.%d' % (hw.SHIM_VERSION_MAJOR, hw.SHIM_VERSION_MINOR)
    if running.get('fw') != want_fw:
        errs.append('running fw = %r, want %r' % (running.get('fw'), want_fw))
    check(not errs, '; '.join(errs) + '\n' + repr(info) if errs else '')
    return serial


# The board's counters in the tool's statistics: register -> key
DEV_KEYS = {
    'DMAQ_T1_RX_DROP_DA': 'rx_drop_da', 'DMAQ_T1_RX_DROP_CSUM': 'rx_drop_csum',
    'DMAQ_T1_RX_DROP_ICRC': 'rx_drop_icrc',
    'DMAQ_T1_RX_DROP_PKEY': 'rx_drop_pkey',
    'DMAQ_T1_RX_DROP_BADQP': 'rx_drop_badqp',
    'DMAQ_T1_RX_DROP_QP_OFF': 'rx_drop_qp_off',
    'DMAQ_T1_RX_DROP_NOBUF': 'rx_drop_nobuf',
    'DMAQ_T1_RX_DROP_MALFORMED': 'rx_drop_malformed',
    'DMAQ_T1_TX_DROP_QP_OFF': 'tx_drop_qp_off', 'DMAQ_BAD_WQE': 'bad_wqe',
    'DMAQ_T1_RX_DROP_FORMAT': 'rx_drop_format',
    'DMAQ_T2_TX_PKTS': 't2_tx_pkts', 'DMAQ_T2_TX_DROP': 't2_tx_drop',
    'DMAQ_T2_RX_PKTS': 't2_rx_pkts',
    'DMAQ_T2_RX_DROP_NOGROUP': 't2_rx_drop_nogroup',
    'DMAQ_T2_RX_DROP_NOBUF': 't2_rx_drop_nobuf',
    'DMAQ_T2_RX_DROP_MALFORMED': 't2_rx_drop_malformed',
    'DMAQ_T2_RX_LOST': 't2_rx_lost', 'DMAQ_T2_RX_DROP_OLD': 't2_rx_drop_old',
    'DMAQ_T1_CNP_MERGED': 'cnp_merged',
}
QP_KEYS = {
    'DMAQ_QPS_TX_PKTS': 'tx_pkts', 'DMAQ_QPS_TX_BYTES': 'tx_pkt_bytes',
    'DMAQ_QPS_RX_PKTS': 'rx_pkts', 'DMAQ_QPS_RX_BYTES': 'rx_pkt_bytes',
    'DMAQ_QPS_RETX_PKTS': 'retx_pkts', 'DMAQ_QPS_NAK_RX': 'nak_rx',
    'DMAQ_QPS_NAK_TX': 'nak_tx', 'DMAQ_QPS_RNR_RX': 'rnr_rx',
    'DMAQ_QPS_RNR_TX': 'rnr_tx', 'DMAQ_QPS_TIMEOUTS': 'timeouts',
    'DMAQ_QPS_RX_DUP': 'rx_dup', 'DMAQ_QPS_RX_OOS': 'rx_oos',
    'DMAQ_QPS_ACK_TX': 'ack_tx', 'DMAQ_QPS_ACK_RX': 'ack_rx',
    'DMAQ_QPS_ECN_RX': 'ecn_rx', 'DMAQ_QPS_CNP_RX': 'cnp_rx',
}
NOT_COUNTED_QP = 7
# The cbfc object of `rclink -s dev show`: its ip_internal counters (the
# IP's receive buffer) and those the shim counts itself
CBFC_KEYS = {'SHIM_CBFC_RECOVERED': 'recovered', 'SHIM_CBFC_UPD_TX': 'upd_tx',
             'SHIM_CBFC_UPD_RX': 'upd_rx', 'SHIM_CBFC_RESYNC': 'resync',
             'SHIM_MAC_CTRL_DROP': 'mac_ctrl_drop'}
CBFC_VC_KEYS = {'SHIM_CBFC_RX_DROP': 'rx_drop', 'SHIM_CBFC_RX_BUF': 'rx_buf',
                'SHIM_CBFC_TX_BLOCKED': 'tx_blocked'}
CBFC_VCS = 8


def name_of(bdf):
    """The tool's name of the board at bdf."""
    for n in t1.devices():
        if t1.bdf_of(n) == bdf:
            return n
    raise rt.TestFailed('no rclink dev with PCI address %s' % bdf)


def ip_counters(bdf):
    """SHIM_CAP3.ip_counters of the board, from BAR0."""
    with rt.Bar0(bdf) as bar:
        return bar.rfield('SHIM_CAP3', 'ip_counters')


def stats_as_counted(keys, stats, counted):
    """Errors: a key of an ip_internal counter present on a board that does
    not count it, or any key missing that should be there."""
    errs = []
    for reg, key in sorted(keys.items()):
        want = counted or reg not in hw.IP_INTERNAL
        if (key in stats) != want:
            errs.append('%s (%s): %s with ip_counters %d'
                        % (key, reg, 'present' if key in stats else 'absent',
                           counted))
    return errs


def test_counters(bdf):
    if not os.access(t1.tool_path(), os.X_OK):
        raise rt.SkipTest('no rclink tool %s' % t1.tool_path())
    counted = ip_counters(bdf)
    name = name_of(bdf)
    stats = t1.dev_show(name, stats=True).get('stats', {})
    errs = stats_as_counted(DEV_KEYS, stats, counted)
    check(not errs, '\n'.join(errs))


def test_qp_not_counted(bound):
    if not os.access(t1.tool_path(), os.X_OK):
        raise rt.SkipTest('no rclink tool %s' % t1.tool_path())
    bdfs = [b for b in bound if not ip_counters(b)]
    if not bdfs:
        raise rt.SkipTest('no board with SHIM_CAP3.ip_counters 0 (the '
                          'model: ip-internal-counters=off)')
    name = name_of(bdfs[0])
    t1.tool(['qp', 'add', 'dev', name, 'qpn', NOT_COUNTED_QP, 'dqpn',
             NOT_COUNTED_QP, 'dip', '10.0.0.2', 'dmac', '02:52:43:00:00:02'])
    try:
        st = t1.qp_show(name, NOT_COUNTED_QP, stats=True).get('stats', {})
    finally:
        t1.tool(['qp', 'del', 'dev', name, 'qpn', NOT_COUNTED_QP],
                check=False)
    errs = stats_as_counted(QP_KEYS, st, 0)
    for key in ('tx_msgs', 'rx_msgs', 'rx_pkts', 'timeouts'):
        if key not in st:
            errs.append('%s absent' % key)
    check(not errs, '\n'.join(errs))


def cbfc_errors(name, counted):
    """Switch board NAME to CBFC, read the cbfc object of `rclink -s dev
    show`, switch it back; the errors of its counters as counted."""
    fc = t1.devlink_param(name, 'flow_control')
    try:
        # (inside: a failed reload must not leave cbfc set for later tests)
        t1.devlink_reload(name, [('flow_control', 'cbfc')])
        cb = t1.dev_show(name, stats=True).get('cbfc')
    finally:
        t1.devlink_reload(name, [('flow_control', fc)])
    if cb is None:
        return ['%s: no cbfc object in cbfc mode' % name]
    errs = ['%s: %s' % (name, e)
            for e in stats_as_counted(CBFC_KEYS, cb, counted)]
    vcs = cb.get('vcs', [])
    if len(vcs) != CBFC_VCS:
        errs.append('%s: %d VCs' % (name, len(vcs)))
    for vc in vcs:
        errs += ['%s VC %s: %s' % (name, vc.get('vc'), e)
                 for e in stats_as_counted(CBFC_VC_KEYS, vc, counted)]
    return errs


def test_cbfc_counted(ktap, bound):
    """recovered and rx_drop of the cbfc statistics are absent on a board
    that does not count them, present on one that does."""
    if not os.access(t1.tool_path(), os.X_OK):
        raise rt.SkipTest('no rclink tool %s' % t1.tool_path())
    if not shutil.which('devlink'):
        raise rt.SkipTest('no devlink (iproute2)')
    pick = {}
    for bdf in bound:
        name = name_of(bdf)
        show = t1.dev_show(name)
        if 'cbfc' in show.get('hw_disabled', []) or t1.qpns(name):
            continue
        pick.setdefault(ip_counters(bdf), name)
    if not pick:
        raise rt.SkipTest('no board that can switch to CBFC')
    errs = []
    for counted in (0, 1):
        if counted not in pick:
            ktap.diag('no board with ip_counters %d that can switch to '
                      'CBFC: not checked' % counted)
            continue
        ktap.diag('cbfc_counted: %s, ip_counters %d' % (pick[counted],
                                                        counted))
        errs += cbfc_errors(pick[counted], counted)
    check(not errs, '\n'.join(errs))


def test_serial_matches(bdf, serial):
    if serial is None:
        raise rt.SkipTest('no devlink serial')
    with rt.Bar0(bdf) as bar:
        reg = bar.read('SHIM_SERIAL')
    check(int(serial, 16) == reg,
          'devlink serial %s, SHIM_SERIAL 0x%016x' % (serial, reg))


def main():
    ktap = rt.Ktap()
    if os.geteuid() != 0:
        ktap.skip_all('must run as root')
    devs = rt.all_devices()
    if not devs:
        ktap.skip_all('no rclink board (%04x:%04x)'
                      % (hw.VENDOR_ID, hw.DEVICE_ID))
    rt.ensure_debugfs()

    mark = rt.kmsg_mark('probe')
    preloaded = rt.module_loaded()
    load_err = None
    try:
        rt.load_module()
    except rt.SkipTest as e:
        ktap.skip_all(str(e))
    except rt.TestFailed as e:
        load_err = str(e)

    bound = rt.bound_devices() if load_err is None else []
    per_board = 7
    ktap.plan(4 + per_board * len(bound) + 2)

    ktap.result('module_load', load_err is None,
                load_err or ('already loaded' if preloaded else None))

    # Every board is bound, or is one the driver must refuse.
    refused = []
    errs = []
    for bdf in devs:
        drv = rt.driver_of(bdf)
        if drv == rt.DRIVER:
            continue
        if drv:
            ktap.diag('%s is bound to %s: left alone' % (bdf, drv))
            continue
        try:
            magic, major = rt.read_identity(bdf)
        except OSError as e:
            errs.append('%s: cannot read its identity: %s' % (bdf, e))
            continue
        if magic == hw.MAGIC and major == hw.SHIM_VERSION_MAJOR:
            errs.append('%s is a good board (magic 0x%08x, shim major %d) '
                        'but not bound' % (bdf, magic, major))
        else:
            refused.append(bdf)
            ktap.diag('%s refused as expected (magic 0x%08x, major %d)'
                      % (bdf, magic, major))
    if not bound:
        errs.append('no board bound to %s' % rt.DRIVER)
    ktap.result('good_boards_bound', not errs, '\n'.join(errs))

    def test_debugfs():
        try:
            dirs = sorted(os.listdir(rt.DBG_DIR))
        except OSError as e:
            raise rt.TestFailed('%s: %s' % (rt.DBG_DIR, e)) from e
        drv = rt.driver_devices()
        check(dirs == drv, 'debugfs dirs %r, boards bound to %s %r'
              % (dirs, rt.DRIVER, drv))
    ktap.run('debugfs_dirs', test_debugfs)

    # With the module loaded before, the log holds whatever the boards
    # reported since (injected faults are errors too): splats only.
    recs = rt.kmsg_since(mark) if not preloaded else rt.kmsg_records()
    for bdf in bound:
        ktap.run('%s.selftest' % bdf, test_selftest, bdf)
        ktap.run('%s.irq_mode' % bdf, test_irq_mode, bdf)
        ktap.run('%s.reg_timeout' % bdf, test_reg_timeout, bdf)
        serial = ktap.run('%s.devlink_info' % bdf, test_devlink_info, bdf)
        ktap.run('%s.serial_is_shim_serial' % bdf, test_serial_matches,
                 bdf, serial)
        bad = rt.kmsg_problems(recs, bdfs=[bdf], exclude=refused,
                               errors=not preloaded)
        ktap.result('%s.kernel_log_clean' % bdf, not bad, '\n'.join(bad))
        ktap.run('%s.counters' % bdf, test_counters, bdf)
    ktap.run('qp_not_counted', test_qp_not_counted, bound)
    ktap.run('cbfc_counted', test_cbfc_counted, ktap, bound)

    # Unload when this test loaded the module: no splat on the way out.
    if load_err is None and not preloaded:
        mark = rt.kmsg_mark('probe unload')
        try:
            rt.unload_module()
            bad = rt.kmsg_problems(rt.kmsg_since(mark), exclude=refused)
            ktap.result('module_unload', not bad, '\n'.join(bad))
        except rt.TestFailed as e:
            ktap.fail('module_unload', str(e))
    else:
        ktap.skip('module_unload', 'module was loaded before the test'
                  if preloaded else 'module did not load')
    ktap.finish()


if __name__ == '__main__':
    main()
