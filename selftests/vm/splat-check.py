#!/usr/bin/python3
"""Kernel splats of a guest run as KTAP (make check-debug, make check-iommu).

usage: splat-check.py [--kmemleak] [--dma] [--name NAME] RESULTS_DIR

Reads what run-guest.sh and guest-watch.sh left in RESULTS_DIR:
  dmesg.log      the kernel log (guest-watch.sh); console.log when missing
  console.log    the serial console (a panic's last words)
  kmemleak.log   with --kmemleak: the leak report after two scans
  qemu.log       with --dma: QEMU's guest-error log (-d guest_errors -D)
and prints one KTAP document, one test per kind of splat: ok when there is
none, "not ok" with each splat (its first lines, and the selftest that was
running, from guest-watch.sh's "rclink-check: test NAME" markers) as
diagnostics.  Kinds: kasan, ubsan, lockdep, bug (BUG:, Oops, panics),
warning, refcount/list/debugobjects, hangs/stalls; with --kmemleak the
leaks ("unreferenced object"); with --dma the DMA remapping faults the
guest logged and those QEMU reported on the console (those between the
"iommu-fault-test begin/end" markers are expected and not counted), and the
board model's DMA errors.
Exit status 1 when any test failed.
"""

import os
import re
import sys

PREFIX = re.compile(r'^(?:<\d+>)?(?:\[\s*[\d.]+\])?(?:\[\s*[TC]\d+\])?\s?')
MARK = re.compile(r'rclink-check: (.*)$')
CONTEXT = 24        # lines shown after the first line of a splat
MAX_SHOWN = 4       # splats shown per kind

# The headers of lockdep's and RCU's reports ("WARNING: ...")
LOCKDEP = (r'possible circular locking dependency|inconsistent lock state|'
           r'possible recursive locking|suspicious RCU usage|'
           r'bad unlock balance|lock held when returning to user space|'
           r'held lock freed|possible irq lock inversion|'
           r'.*-safe -> .*-unsafe lock order')
KINDS = [
    ('kasan', re.compile(r'BUG: KASAN:|KASAN: ')),
    ('ubsan', re.compile(r'UBSAN: ')),
    ('lockdep', re.compile(
        r'WARNING: (?:%s)|DEBUG_LOCKS_WARN_ON|BUG: MAX_LOCKDEP|'
        r'BUG: key .* has not been registered' % LOCKDEP)),
    ('refcount_list_debugobjects', re.compile(
        r'refcount_t: |list_(?:add|del) corruption|list corruption|'
        r'ODEBUG: |ref_tracker: .*(?:has .* users|leaked)|'
        r'unregister_netdevice: waiting for|slab .* corrupt|'
        r'BUG .*: Redzone|BUG .*: Poison overwritten|Object corrupt')),
    ('hang_stall', re.compile(
        r'INFO: task .* blocked for more than|rcu: INFO: .*detected stall|'
        r'soft lockup|hard LOCKUP|BUG: workqueue lockup|'
        r'watchdog: BUG: soft lockup')),
    ('bug_oops_panic', re.compile(
        r'BUG: |kernel BUG at|Oops: |general protection fault|'
        r'Kernel panic|Unable to handle kernel|stack-protector|'
        r'BUG: unable to handle')),
    ('warning', re.compile(r'WARNING: |------------\[ cut here \]')),
]
DMA_FAULT = re.compile(r'DMAR: \[DMA (?:Read|Write)|DMAR: DRHD: handling '
                       r'fault|DMAR:.*fault|IOMMU.*fault|AMD-Vi: Event logged')
QEMU_DMA_FAULT = re.compile(r'vtd_\w+: detected .*(?:failure|error)|'
                            r'amdvi.*page fault')
MODEL_DMA = re.compile(r'^rclink: .*(?:write|read).* failed|'
                       r'^rclink: .*(?:DMA|dma) error')


def read_lines(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return [PREFIX.sub('', line.rstrip('\r\n'), count=1)
                    for line in f]
    except OSError:
        return None


class Report:
    def __init__(self):
        self.tests = []

    def add(self, name, hits, note=''):
        """hits: [(test, [lines])]"""
        diag = []
        for test, lines in hits[:MAX_SHOWN]:
            if test:
                diag.append('at: %s' % test)
                diag += ['  ' + x for x in lines]
            else:
                diag += lines
        if len(hits) > MAX_SHOWN:
            diag.append('... %d more' % (len(hits) - MAX_SHOWN))
        if note:
            diag.append(note)
        self.tests.append((not hits, name, diag, len(hits)))

    def fail(self, name, why):
        self.tests.append((False, name, [why], 1))

    def print(self, title):
        print('TAP version 13')
        print('# %s' % title)
        print('1..%d' % len(self.tests))
        for i, (ok, name, diag, n) in enumerate(self.tests, 1):
            for d in diag:
                print('# ' + d)
            print('%s %d %s%s' % ('ok' if ok else 'not ok', i, name,
                                  '' if ok else ' # %d found' % n))
        return all(t[0] for t in self.tests)


def splats(lines, kinds):
    """{kind: [(test, [lines])]} of the log lines."""
    out = {k: [] for k, _ in kinds}
    test = 'boot (before the suite)'
    in_fault_test = False
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARK.search(line)
        if m:
            what = m.group(1)
            if what.startswith('test '):
                test = what[5:]
            elif what == 'iommu-fault-test begin':
                in_fault_test = True
                test = 'iommu-fault-test'
            elif what == 'iommu-fault-test end':
                in_fault_test = False
                test = 'after the iommu-fault-test'
            elif what.startswith('suite end'):
                test = 'after the suite'
            i += 1
            continue
        for kind, rx in kinds:
            if not rx.search(line):
                continue
            if kind == 'dma_faults' and in_fault_test:
                break
            block = [line]
            j = i + 1
            while j < len(lines) and len(block) <= CONTEXT:
                nxt = lines[j]
                if MARK.search(nxt) or nxt.startswith('---[ end trace'):
                    break
                if any(r.search(nxt) for _, r in kinds) and \
                        not nxt.startswith((' ', '\t')) and \
                        'cut here' not in line:
                    break
                block.append(nxt)
                j += 1
            out[kind].append((test, block))
            i = j - 1
            break
        i += 1
    return out


def main(argv):
    args = argv[1:]
    kmemleak = dma = False
    name = None
    while args and args[0].startswith('--'):
        opt = args.pop(0)
        if opt == '--kmemleak':
            kmemleak = True
        elif opt == '--dma':
            dma = True
        elif opt == '--name' and args:
            name = args.pop(0)
        else:
            sys.stderr.write(__doc__)
            return 2
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    res = args[0]
    rep = Report()

    kinds = list(KINDS)
    if dma:
        kinds.insert(0, ('dma_faults', DMA_FAULT))
    log = read_lines(os.path.join(res, 'dmesg.log'))
    console = read_lines(os.path.join(res, 'console.log')) or []
    if not log:
        rep.fail('kernel_log', 'no dmesg.log (the guest did not get to run '
                 'guest-watch.sh?): checking the console only')
        log = []
    else:
        rep.add('kernel_log', [])
    found = splats(log, kinds)
    # A panic ends the guest before dmesg.log has it: add what the console
    # shows after the last line dmesg.log has.
    if console:
        tail = console
        if log:
            last = log[-1]
            for k in range(len(console) - 1, -1, -1):
                if console[k] == last:
                    tail = console[k + 1:]
                    break
        for kind, hits in splats(tail, kinds).items():
            found[kind] += hits
    for kind, _ in kinds:
        rep.add('no_' + kind, found[kind])

    if kmemleak:
        leaks = read_lines(os.path.join(res, 'kmemleak.log'))
        if leaks is None:
            rep.fail('no_kmemleak', 'no kmemleak.log (CONFIG_DEBUG_KMEMLEAK '
                     'off, or the guest died before the scans)')
        else:
            off = [x for x in log if 'kmemleak: Kernel memory leak detector '
                   'disabled' in x or 'kmemleak: Cannot allocate' in x]
            hits = []
            cur = None
            for x in leaks:
                if x.startswith('unreferenced object'):
                    cur = [x]
                    hits.append((None, cur))
                elif cur is not None and len(cur) <= CONTEXT:
                    cur.append(x)
            hits = [('the kmemleak scans after the suite', b) for _, b in hits]
            if off:
                rep.fail('no_kmemleak', 'kmemleak turned itself off: ' +
                         off[0])
            else:
                rep.add('no_kmemleak', hits)

    if dma:
        # QEMU's own report of the faults (stderr, on the console): also
        # those the guest's fault log compressed away.
        hits, window = [], False
        for x in console:
            m = MARK.search(x)
            if m and m.group(1) == 'iommu-fault-test begin':
                window = True
            elif m and m.group(1) == 'iommu-fault-test end':
                window = False
            elif QEMU_DMA_FAULT.search(x) and not window:
                hits.append((None, [x]))
        rep.add('no_qemu_dma_faults', hits)
        qlog = read_lines(os.path.join(res, 'qemu.log'))
        if qlog is None:
            rep.fail('no_model_dma_errors', 'no qemu.log')
        else:
            rep.add('no_model_dma_errors',
                    [(None, [x]) for x in qlog if MODEL_DMA.search(x)])

    ok = rep.print(name or 'kernel splats of %s' % os.path.basename(
        os.path.normpath(res)))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
