#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Which shared vectors (firmware/vectors) the cocotb benches replay
through the PCIe tops (test_rclink_us.py, test_vector_NAME), and why the
others do not.

A vector is replayed when each of its ops is a plain op (PLAIN) or one
of the IP stand-in's ops that test_rclink_us.py's ``Stand`` plays
(STAND).  Otherwise it names its reason: "model_only" (a function the
RTL does not have yet: the model only) or "cocotb_skip" (an op that
needs the word-level bench, tb/rclink_tb.v: the core only).  A vector
that is neither replayable nor gives a reason is an error, and so is a
"cocotb_skip" on a vector whose ops Stand all plays, and a vector of
the wire's ops (WIRE) without "tb_skip" (the word-level bench cannot
play them; rtl.sh sim skips such a vector, saying why).  A vector with
"sim_ost_n" (fewer TX_S tokens, the shim's OST_N) is replayed on a
bench built again with that OST_N (rtl.sh, from vecset.py --ost).

The lists of Documentation/hw/rtl.rst ("Shared test vectors") are this
script's output, between the comments ".. vecset begin" and
".. vecset end":

  vecset.py                 print the block
  vecset.py --check RST     exit 1 (saying why) when a vector has no
                            reason or RST's block is not the output
  vecset.py --write RST     write the block into RST
  vecset.py --ost           the replayed vectors that want fewer tokens:
                            "N NAME..." a line, N their sim_ost_n

Needs no cocotb (rtl.sh sim runs --check).
"""

import os
import sys
import textwrap

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("RCLINK_VECTORS",
                                  os.path.join(HERE, "..", "..", "vectors")))
import vecload as vl  # noqa: E402  pylint: disable=wrong-import-position

RST = os.path.join(HERE, "..", "..", "..", "Documentation", "hw", "rtl.rst")
BEGIN, END = ".. vecset begin", ".. vecset end"

# register and host memory ops
PLAIN = {"w64", "w32", "r64", "r32", "wbuf", "poll", "memw", "memr", "fill",
         "memeq", "wqe", "rqe", "db", "dbw", "rge", "master"}
# the IP stand-in's ops Stand plays (as tb/rclink_tb.v does), and those of
# the model's peer board and of the model only, which both benches leave
STAND = {"sent", "sent2", "peer", "model", "sim:tx", "sim:tx2", "sim:notx",
         "sim:rx", "sim:rx2", "sim:credit", "sim:wait", "sim:cfg",
         "sim:msix", "sim:nomsix", "sim:intx", "sim:ipirq", "sim:ack",
         "sim:tmo", "sim:ipset", "sim:ipdfx", "sim:t2rate", "sim:delay",
         "sim:wstall", "sim:timers",
         # the IP's TYPE3 ring engine and its MAC side (t3_twin.py)
         "sent3", "sim:rx3", "sim:t3drops", "sim:nosent3",
         # the MAC side's streams, both ends (mac_wire.py)
         "wirerx", "wiretx"}

# the wire's ops: the word-level bench ties the MAC side off (tb_skip)
WIRE = {"wirerx", "wiretx"}


def op_kind(op):
    """The op's name: "sim:NAME" for the stand-in's, the plain op's name
    for a plain op only the testbench runs."""
    if op[0] == "sim" and op[1] not in PLAIN:
        return "sim:" + op[1]
    return op[1] if op[0] == "sim" else op[0]


def classify(v):
    """("replay", ""), ("model", why), ("core", why) or ("error", why)."""
    other = sorted({op_kind(o) for o in v["ops"]} - PLAIN - STAND)
    if v.get("model_only"):
        return "model", v["model_only"]
    if v.get("cocotb_skip"):
        if not other:
            return "error", "cocotb_skip, but Stand plays every op"
        return "core", v["cocotb_skip"]
    if other:
        return "error", ("ops %s that Stand does not play, and no "
                         "cocotb_skip reason" % ", ".join(other))
    if WIRE & {op_kind(o) for o in v["ops"]} and not v.get("tb_skip"):
        return "error", ("wire ops, which the word-level bench cannot "
                         "play, and no tb_skip reason")
    if v.get("cocotb_long") and v.get("tb_skip"):
        return "error", ("cocotb_long and tb_skip: the short run (make "
                         "check) would replay it nowhere")
    return "replay", ""


def table():
    """(name, kind, why, path) of every vector file."""
    out = []
    for path in vl.all_files():
        kind, why = classify(vl.load(path))
        out.append((os.path.basename(path)[:-5], kind, why, path))
    return out


def ost_runs():
    """{sim_ost_n: [name, ...]} of the replayed vectors that want a
    bench with fewer TX_S tokens."""
    runs = {}
    for n, k, _, path in table():
        ost = vl.load(path).get("sim_ost_n")
        if k == "replay" and ost:
            runs.setdefault(ost, []).append(n)
    return runs


def errors():
    return ["%s: %s" % (n, why) for n, k, why, _ in table() if k == "error"]


def names(kind):
    return ", ".join("``%s``" % n for n, k, _, _ in table() if k == kind)


def block():
    """The rst lines of the lists."""
    t = table()
    n_rep = sum(k == "replay" for _, k, _, _ in t)
    def para(text, indent=""):
        return textwrap.wrap(text, 72, initial_indent=indent,
                             subsequent_indent=" " * len(indent),
                             break_on_hyphens=False, break_long_words=False)
    lines = [
        BEGIN,
        "   (generated by firmware/rtl/cocotb/vecset.py --write from the",
        "   vectors' ops and their model_only, cocotb_skip, tb_skip and",
        "   cocotb_long keys)",
        "",
    ]
    lines += para("Through the PCIe tops (%d of the %d vector files): %s." %
                  (n_rep, len(t), names("replay")))
    for ost, which in sorted(ost_runs().items()):
        lines += [""]
        lines += para("Of those, on benches built with OST_N %d (the "
                      "vector's ``sim_ost_n``: fewer TX_S tokens): %s." %
                      (ost, ", ".join("``%s``" % n for n in which)))
    core = [(n, why) for n, k, why, _ in t if k == "core"]
    lines += [""]
    if not core:
        lines += ["On the core only (``rclink_tb.v``; the vector's "
                  "``cocotb_skip``): none.", ""]
    else:
        lines += ["On the core only (``rclink_tb.v``; the vector's "
                  "``cocotb_skip``):", ""]
    for n, why in core:
        lines += para("``%s``: %s" % (n, why), "* ")
    if core:
        lines += [""]
    skips = [(n, vl.load(path).get("ptile_skip")) for n, k, _, path in t
             if k == "replay" and vl.load(path).get("ptile_skip")]
    lines += para("Replayed through the UltraScale+ top, not yet through "
                  "the P-tile top (the vector's ``ptile_skip``)%s" %
                  (": none." if not skips else ":"))
    lines += [""]
    for n, why in skips:
        lines += para("``%s``: %s" % (n, why), "* ")
    if skips:
        lines += [""]
    tbs = [(n, vl.load(path).get("tb_skip")) for n, k, _, path in t
           if k == "replay" and vl.load(path).get("tb_skip")]
    lines += para("Replayed through the PCIe tops, not on the word-level "
                  "bench (``rclink_tb.v``, its MAC side tied off; the "
                  "vector's ``tb_skip``)%s" % (": none." if not tbs else ":"))
    lines += [""]
    for n, why in tbs:
        lines += para("``%s``: %s" % (n, why), "* ")
    if tbs:
        lines += [""]
    longs = [(n, vl.load(path).get("cocotb_long")) for n, k, _, path in t
             if k == "replay" and vl.load(path).get("cocotb_long")]
    lines += para("In the short run of ``make check`` on the word-level "
                  "bench (``rtl.sh sim-short``) instead of the PCIe tops "
                  "(the vector's ``cocotb_long``)%s" %
                  (": none." if not longs else ":"))
    lines += [""]
    for n, why in longs:
        lines += para("``%s``: %s" % (n, why), "* ")
    if longs:
        lines += [""]
    lines += para("On the model only (``model_only``, the reason in the "
                  "file): %s." % names("model"))
    lines += ["", END]
    return lines


def split(text):
    """RST's lines before, inside and after the block."""
    lines = text.split("\n")
    if BEGIN not in lines or END not in lines:
        raise SystemExit("no %r ... %r block" % (BEGIN, END))
    a, b = lines.index(BEGIN), lines.index(END)
    return lines[:a], lines[a:b + 1], lines[b + 1:]


def main(argv):
    rst = argv[2] if len(argv) > 2 else RST
    if len(argv) > 1 and argv[1] == "--write":
        with open(rst) as f:
            pre, _, post = split(f.read())
        with open(rst, "w") as f:
            f.write("\n".join(pre + block() + post))
        return 0
    if len(argv) > 1 and argv[1] == "--ost":
        for ost, names in sorted(ost_runs().items()):
            print(ost, " ".join(names))
        return 0
    if len(argv) > 1 and argv[1] == "--check":
        bad = errors()
        with open(rst) as f:
            _, have, _ = split(f.read())
        if have != block():
            bad.append("%s: the vector lists differ from vecset.py's "
                       "(vecset.py --write)" % os.path.basename(rst))
        for b in bad:
            print(b)
        return 1 if bad else 0
    print("\n".join(block()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
