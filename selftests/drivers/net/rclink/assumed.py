#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Assumed registers (Documentation/driver.rst, "Assumed registers").

The contract marks "assumed" the register fields whose place the IP's
documents do not give (rclink_hw.py ASSUMED).  At probe the driver reads
each back; a board that lacks them (the model's assumed-regs=off, in the
board set of make check) must stay bound with TYPE3 working, say in the
kernel log which field is missing and what is disabled, report it in
debugfs "assumed" and `rclink dev show` (hw_disabled), and refuse with a clear message the settings that need
a missing field: `rclink dev set`, `rclink qp add`, `rclink mcast set`,
binding /dev/rclinkN to a TYPE2 group, the devlink params header_format
gen2/lite, flow_control cbfc and cc_algorithm dcqcn.  Every other board
reports nothing missing.

Which boards lack them is read from BAR0, not from the driver:
RX_CLASS_CFG.type1_udp_dport keeps its reset value 4791 (the driver never
writes it) unless the field is absent.
"""

import errno
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413
import rclink_t1 as t1  # noqa: E402  pylint: disable=C0413

FIELDS = ['%s.%s' % (r, f) for r, fs in hw.ASSUMED.items() for f in fs]
FEATURES = ('type1', 'type2', 'format gen2', 'format lite',
            'flow control cbfc', 'rnr_retry_cnt', 'ack_timestamp', 'bank_rr',
            'icrc off', 'cnp_merge', 'nocnp (cc_algorithm dcqcn)')
# The same in `rclink -j dev show` hw_disabled
HW_DISABLED = ('type1', 'type2', 'gen2', 'lite', 'cbfc', 'rnr_retry_cnt',
               'ack_timestamp', 'bank_rr', 'icrc_off', 'cnp_merge', 'nocnp')
T1_PORT = 4791
BIND_MCAST = 1


def lacks(bdf):
    """True when BAR0 shows the board without the assumed fields."""
    with rt.Bar0(bdf) as bar:
        return bar.rfield('RX_CLASS_CFG', 'type1_udp_dport') != T1_PORT


def report(bdf):
    """debugfs "assumed": ({field: 'ok' | 'missing'}, [disabled])"""
    text = rt.sysfs_read(rt.dbg_path(bdf, 'assumed'))
    fields, disabled = {}, None
    for line in text.splitlines():
        if line.startswith('disabled:'):
            rest = line[len('disabled:'):].strip()
            disabled = [] if rest == 'none' else rest.split(', ')
        else:
            name, _, state = line.partition(' ')
            fields[name] = state
    check(disabled is not None, 'no "disabled:" line in %r' % text)
    return fields, disabled


def test_report(bdf, absent):
    fields, disabled = report(bdf)
    want = 'missing' if absent else 'ok'
    errs = []
    if sorted(fields) != sorted(FIELDS):
        errs.append('fields %s, contract %s' % (sorted(fields),
                                                sorted(FIELDS)))
    errs += ['%s %s, want %s' % (f, s, want)
             for f, s in sorted(fields.items()) if s != want]
    want_dis = sorted(FEATURES) if absent else []
    if sorted(disabled) != want_dis:
        errs.append('disabled %s, want %s' % (disabled, want_dis))
    check(not errs, '\n'.join(errs))


def test_dev_show(bdf, absent):
    if not os.access(t1.tool_path(), os.X_OK):
        raise rt.SkipTest('no rclink tool %s' % t1.tool_path())
    d = t1.dev_show(name_of(bdf))
    got = d.get('hw_disabled')
    want = sorted(HW_DISABLED) if absent else []
    check(isinstance(got, list) and sorted(got) == want,
          'rclink dev show hw_disabled %r, want %r' % (got, want))


def test_log_clean(bdf):
    bad = [t for _, _, t in rt.kmsg_records()
           if bdf in t and 'IP lacks' in t]
    check(not bad, 'a board with the assumed fields:\n' + '\n'.join(bad))


def test_rebind_log(bdf):
    """Rebind: bound again, each field named, the summary, no error."""
    mark = rt.kmsg_mark('assumed %s' % bdf)
    rt.unbind(bdf)
    rt.bind(bdf)
    recs = rt.kmsg_since(mark)
    log = [t for _, _, t in recs if bdf in t]
    errs = ['no "IP lacks %s" line' % f for f in FIELDS
            if not any('IP lacks %s ' % f in t for t in log)]
    summary = '%d of %d assumed register fields missing' % (len(FIELDS),
                                                            len(FIELDS))
    if not any(summary in t for t in log):
        errs.append('no "%s" line' % summary)
    errs += rt.kmsg_problems(recs, bdfs=[bdf])
    rt.check_selftest(bdf)
    check(not errs, '\n'.join(errs) + '\nlog:\n' + '\n'.join(log))


def test_type3(bdf):
    check(rt.netdev_of(bdf), 'no TYPE3 netdev')
    rt.check_selftest(bdf)


def name_of(bdf):
    for n in t1.devices():
        if t1.bdf_of(n) == bdf:
            return n
    raise rt.TestFailed('no rclink dev with PCI address %s' % bdf)


def refused(what, args, msg, run=t1.tool):
    """The command fails and its output carries msg."""
    if run is t1.tool:
        rc, out = t1.tool(args, check=False)
    else:
        try:
            out, rc = run(*args), 0
        except t1.ToolError as e:
            out, rc = e.out, e.rc
    if rc == 0:
        return ['%s: accepted' % what]
    if msg not in out:
        return ['%s: exit %d without "%s": %s' % (what, rc, msg,
                                                  out.strip())]
    return []


def test_settings_refused(bdf):
    if not os.access(t1.tool_path(), os.X_OK):
        raise rt.SkipTest('no rclink tool %s' % t1.tool_path())
    name = name_of(bdf)
    errs = refused('dev set', ['dev', 'set', 'dev', name, 'ttl', 32],
                   'TYPE1 is disabled')
    errs += refused('qp add', ['qp', 'add', 'dev', name, 'qpn', 5, 'dqpn', 5,
                               'dip', '10.0.0.2', 'dmac',
                               '02:52:43:00:00:02'], 'TYPE1 is disabled')
    errs += refused('mcast set', ['mcast', 'set', 'dev', name, 'group', 0,
                                  'join', 'on'], 'TYPE2 is disabled')
    # /dev/rclinkN: a TYPE2 group cannot be bound (RCLINK_BIND_MCAST)
    with t1.Chan(name) as ch:
        try:
            ch.bind(0, BIND_MCAST)
            errs.append('bind to TYPE2 group 0: accepted')
        except OSError as e:
            if e.errno != errno.EOPNOTSUPP:
                errs.append('bind to TYPE2 group 0: %s, want EOPNOTSUPP' % e)
    check(not t1.qpns(name), 'the board has QPs')
    check(not errs, '\n'.join(errs))


def test_devlink_refused(bdf):
    try:
        t1.devlink('dev', 'show', 'pci/' + bdf)
    except (t1.ToolError, OSError) as e:
        raise rt.SkipTest('no devlink instance: %s' % e) from e
    errs = []
    for param, value, msg in (('header_format', 'gen2', 'gen2 is disabled'),
                              ('header_format', 'lite', 'lite is disabled'),
                              ('flow_control', 'cbfc', 'cbfc is disabled'),
                              ('cc_algorithm', 'dcqcn',
                               'cc_algorithm dcqcn: disabled')):
        errs += refused('devlink %s %s' % (param, value),
                        ['dev', 'param', 'set', 'pci/' + bdf, 'name', param,
                         'value', value, 'cmode', 'driverinit'], msg,
                        run=t1.devlink)
    # what the board has is still taken (and put back)
    old = t1.devlink_param(bdf, 'header_format')
    try:
        t1.devlink('dev', 'param', 'set', 'pci/' + bdf, 'name',
                   'header_format', 'value', 'gen1', 'cmode', 'driverinit')
    except t1.ToolError as e:
        errs.append('header_format gen1 refused: %s' % e)
    t1.devlink('dev', 'param', 'set', 'pci/' + bdf, 'name', 'header_format',
               'value', old, 'cmode', 'driverinit')
    check(not errs, '\n'.join(errs))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    bound = rt.bound_devices()
    if not bound:
        mod.__exit__(None, None, None)
        ktap.skip_all('no board bound to rclink')
    absent = {}
    for bdf in bound:
        absent[bdf] = lacks(bdf)
        ktap.diag('%s: %s' % (bdf, 'lacks the assumed fields'
                              if absent[bdf] else 'has the assumed fields'))
    nlack = sum(absent.values())
    ktap.plan(3 * len(bound) + 4 * nlack)
    for bdf in bound:
        if absent[bdf]:
            ktap.run('%s.rebind_log' % bdf, test_rebind_log, bdf)
        else:
            ktap.run('%s.log_clean' % bdf, test_log_clean, bdf)
        ktap.run('%s.report' % bdf, test_report, bdf, absent[bdf])
        ktap.run('%s.dev_show' % bdf, test_dev_show, bdf, absent[bdf])
        if absent[bdf]:
            ktap.run('%s.type3_works' % bdf, test_type3, bdf)
            ktap.run('%s.settings_refused' % bdf, test_settings_refused, bdf)
            ktap.run('%s.devlink_refused' % bdf, test_devlink_refused, bdf)
            ktap.run('%s.report_after_rebind' % bdf, test_report, bdf, True)
    mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
