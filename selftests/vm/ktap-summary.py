#!/usr/bin/python3
"""Summarize KTAP/TAP output (e.g. a guest console log).

usage: ktap-summary.py [FILE...]     (no FILE or "-": stdin)

Counts the top-level results only, i.e. result lines starting in column 0:
with the kselftest runner those are one per test program; nested subtests
(indented, or prefixed "# " as kselftest nests them) and any console noise
are ignored.  Results must be numbered ("ok 3 name").  "ok" is a pass, "not ok" a failure, a "# SKIP" directive (any
case) a skip; "not ok ... # TODO" is a skip too (an expected failure).  A
top-level "Bail out!" and results missing from a top-level plan ("1..N")
count as failures.  A new document starts at each column-0 "TAP version" /
"KTAP version" line.

Prints each failure, then "N passed, N failed[, N skipped]".  Exit status 1
if anything failed or no result was found at all (kselftest runners exit 0
even when tests fail, so check this instead), else 0.
"""
import re
import sys

RESULT = re.compile(
    r"^(?P<ok>ok|not ok) +(?P<num>\d+)\b\s*(?:-\s+)?(?P<desc>[^#]*?)"
    r"\s*(?:#\s*(?P<directive>.*?))?\s*$")
PLAN = re.compile(r"^1\.\.(?P<n>\d+)\b")
VERSION = re.compile(r"^K?TAP version \d+")
BAIL = re.compile(r"^Bail out!(?P<reason>.*)$")


class Summary:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.doc_results = 0
        self.doc_plan = None

    def end_doc(self, where):
        if self.doc_plan is not None and self.doc_results < self.doc_plan:
            missing = self.doc_plan - self.doc_results
            self.failed += missing
            self.failures.append("%s%d of %d planned results missing"
                                 % (where, missing, self.doc_plan))
        self.doc_results = 0
        self.doc_plan = None

    def feed(self, line, where):
        line = line.rstrip("\r\n")
        if VERSION.match(line):
            self.end_doc(where)
            return
        m = PLAN.match(line)
        if m:
            self.doc_plan = int(m.group("n"))
            return
        m = BAIL.match(line)
        if m:
            self.failed += 1
            self.failures.append(where + line)
            return
        m = RESULT.match(line)
        if not m:
            return
        self.doc_results += 1
        directive = (m.group("directive") or "").strip()
        desc = m.group("desc") or ""
        name = desc or "test " + m.group("num")
        ok = m.group("ok") == "ok"
        upper = directive.upper()
        if upper.startswith("SKIP") or (not ok and upper.startswith("TODO")):
            self.skipped += 1
        elif ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(where + name
                                 + (" # " + directive if directive else ""))


def main():
    files = sys.argv[1:] or ["-"]
    if any(f in ("-h", "--help") for f in files):
        print(__doc__.strip())
        return 0
    s = Summary()
    for f in files:
        where = "" if len(files) == 1 else f + ": "
        if f == "-":
            fh = open(sys.stdin.fileno(), encoding="utf-8", errors="replace",
                      closefd=False)
        else:
            try:
                fh = open(f, encoding="utf-8", errors="replace")
            except OSError as e:
                print("ktap-summary: %s" % e, file=sys.stderr)
                s.failed += 1
                s.failures.append(where + "cannot read")
                continue
        with fh:
            for line in fh:
                s.feed(line, where)
        s.end_doc(where)
    for name in s.failures:
        print("FAIL: " + name)
    line = "%d passed, %d failed" % (s.passed, s.failed)
    if s.skipped:
        line += ", %d skipped" % s.skipped
    print(line)
    return 1 if s.failed or (s.passed + s.skipped) == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
