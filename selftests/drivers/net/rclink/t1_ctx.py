#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""User contexts of the shim driven from user space, without the driver
(Documentation/hw/shim.rst, "Contexts").

Both boards of a wired pair are unbound; as t1_model.py does, the test
maps BAR0, turns on memory decode and bus mastering and gives the boards
locked pages of its own (skipped behind an IOMMU).  It also maps the
doorbell BAR (DMAQ_CTX_CAP.db_bar).  Every user context the shim has
(DMAQ_CTX_CAP.num - 1 of them) gets, on each board, its queues, a
doorbell record, an area of one page and QP n (context n owns QP n; the
QPs of the two boards are paired):

  * all contexts: each of board A's contexts sends one message of its own
    length from its area; each of board B's contexts receives exactly its
    QP's message in its area (RECV CQE, bytes, doorbell record), each of
    A's completes it (SEND OK): nothing crosses between contexts;
  * a foreign QP: a WQE of context 5 for QP 6 completes NOT_OWNER in
    context 5 only, context 6's CQ does not move, all contexts run;
  * out of the area: a WQE of context 7 beyond its page completes BAD_ADDR
    and puts context 7 alone in error (cause BAD_ADDR, CTX_ERR record);
    every other context sends and receives again;
  * a full CQ: board B's context 9 leaves its 16 CQEs unconsumed; the
    17th message, which B's board acknowledged (A's SEND completes OK),
    waits for room (DMAQ_CTX_RX_HOLD set long; nothing counted, nothing
    written beyond the CQ) and lands once context 9 consumes; then every
    other context's messages go through; with a hold of 2 ms and no
    buffer posted the next message of context 9 is dropped and the
    context is in error (cause RX_NOBUF, ERR_INFO the QP,
    DMAQ_CTX_RX_NOBUF) while every other context's messages go through;
  * teardown: every context is stopped (the "active" handshake) and
    disabled; no message took one of context 0's RQEs; the owner table
    goes back to context 0 with SHIM_RESET.

Context 0's RQ has two RQEs on each board, as a driver keeps it: with
fewer the shim raises FLOW_STOP on every bank and the IP refuses every
TYPE1 request, a user context's too (shim.rst, "Stalls are the context's
own").

The boards are reset and bound again at the end.
"""

import os
import struct
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'lib'))
sys.path.insert(0, HERE)
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413
import t1_model as t1  # noqa: E402  pylint: disable=wrong-import-position

PAGE = 4096
ORDER = 4                       # 16 entries in every queue
PAGES = 5                       # SQ, RQ, CQ, record + table, area
OWN = 5                         # t1_model.Board's own pages (events) and
KBUF = 4                        # its page of the kernel's RQEs' buffers
REC = 64                        # the doorbell record's offset in its page
# event record source (include/rclink_hw.h RCLINK_EVT_SRC_CTX_ERR)
EVT_SRC_CTX_ERR = 10
WAIT = float(os.environ.get('RCLINK_T1_WAIT', '120'))
# DMAQ_CTX_RX_HOLD (us): longer than any step of a test, and short
HOLD_LONG = 60000000
HOLD_SHORT = 2000
ST_RUNNING = rt.fval('DMAQ_CTX_STATUS', 'running', 1)
ST_ACTIVE = rt.fval('DMAQ_CTX_STATUS', 'active', 1)
ST_ERROR = rt.fval('DMAQ_CTX_STATUS', 'error', 1)
CQE = hw.FORMATS['CQE']
CQE_C = CQE[2]
EVT = hw.FORMATS['CTX_EVT']


def fget(fmt, fname, words):
    word, hi, lo = hw.FORMATS[fmt][1][fname]
    return (words[word] >> lo) & ((1 << (hi - lo + 1)) - 1)


def fput(fmt, fname, value):
    _, hi, lo = hw.FORMATS[fmt][1][fname]
    return (value & ((1 << (hi - lo + 1)) - 1)) << lo


class Ctx:
    """One user context of one board: its pages and indices."""

    def __init__(self, board, n, first):
        self.b = board
        self.n = n
        self.first = first
        self.sq_prod = self.rq_prod = self.cq_cons = 0

    def page(self, k):
        return (self.first + k) * PAGE

    def phys(self, k):
        return self.b.mem.phys[self.first + k]

    def sel(self):
        self.b.w('DMAQ_CTX_SEL', self.n)

    def setup(self):
        b, mm = self.b, self.b.mem.mm
        struct.pack_into('<Q', mm, self.page(3), self.phys(4))
        b.w('DMAQ_QP_OWNER_SEL', self.n)
        b.w('DMAQ_QP_OWNER', self.n)
        self.sel()
        b.w('DMAQ_CTX_SQ_BASE', self.phys(0))
        b.w('DMAQ_CTX_RQ_BASE', self.phys(1))
        b.w('DMAQ_CTX_CQ_BASE', self.phys(2))
        b.w('DMAQ_CTX_QCFG', rt.fval('DMAQ_CTX_QCFG', 'sq_order', ORDER) |
            rt.fval('DMAQ_CTX_QCFG', 'rq_order', ORDER) |
            rt.fval('DMAQ_CTX_QCFG', 'cq_order', ORDER))
        b.w('DMAQ_CTX_DBREC', self.phys(3) + REC)
        b.w('DMAQ_CTX_AREA_TBL', self.phys(3))
        b.w('DMAQ_CTX_AREA_CFG', rt.fval('DMAQ_CTX_AREA_CFG', 'chunks', 1) |
            rt.fval('DMAQ_CTX_AREA_CFG', 'chunk_shift', 12))
        b.w('DMAQ_CTX_CTRL', rt.fval('DMAQ_CTX_CTRL', 'enable', 1))

    def status(self):
        self.sel()
        return self.b.r('DMAQ_CTX_STATUS')

    def send(self, off, length, qpn=None):
        w0 = (fput('WQE', 'OPCODE', hw.FORMATS['WQE'][2]['OP_SEND']) |
              fput('WQE', 'QPN', self.n if qpn is None else qpn) |
              fput('WQE', 'LEN', length))
        slot = self.sq_prod % (1 << ORDER)
        struct.pack_into('<QQ', self.b.mem.mm, self.page(0) + 16 * slot,
                         w0, off)
        self.sq_prod += 1
        self.b.db.ring(self.n, 'SQ_PROD', self.sq_prod)

    def post_rq(self, off, length):
        slot = self.rq_prod % (1 << ORDER)
        struct.pack_into('<QQ', self.b.mem.mm, self.page(1) + 16 * slot,
                         off, length)
        self.rq_prod += 1
        self.b.db.ring(self.n, 'RQ_PROD', self.rq_prod)

    def cqe(self):
        """The next CQE (words) when written, else None; consumed."""
        slot = self.cq_cons % (1 << ORDER)
        words = struct.unpack_from('<4Q', self.b.mem.mm,
                                   self.page(2) + 32 * slot)
        phase = 0 if (self.cq_cons >> ORDER) & 1 else 1
        if fget('CQE', 'PHASE', words) != phase or \
                fget('CQE', 'SEQ', words) != self.cq_cons & 0xffffffff:
            return None
        self.cq_cons += 1
        self.b.db.ring(self.n, 'CQ_CONS', self.cq_cons)
        return words

    def record(self):
        return struct.unpack_from('<2Q', self.b.mem.mm, self.page(3) + REC)

    def area(self, off, length):
        return bytes(self.b.mem.mm[self.page(4) + off:
                                   self.page(4) + off + length])

    def fill(self, off, data):
        self.b.mem.mm[self.page(4) + off:self.page(4) + off + len(data)] = \
            data


def wait_cqes(ctxs, what):
    """One CQE of each context: {ctx number: words}."""
    got = {}
    end = time.monotonic() + WAIT
    while len(got) < len(ctxs):
        for c in ctxs:
            if c.n not in got:
                w = c.cqe()
                if w:
                    got[c.n] = w
        if len(got) < len(ctxs):
            check(time.monotonic() < end, '%s: %d of %d CQEs after %ds'
                  % (what, len(got), len(ctxs), WAIT))
            time.sleep(0.005)
    return got


def msg_len(n):
    return 64 + 13 * n


class CtxTest:
    def __init__(self, ktap, a, b):
        self.ktap = ktap
        self.a, self.b = a, b
        self.rounds = 0
        self.num = a.field('DMAQ_CTX_CAP', 'num')
        self.ca = [Ctx(a, n, a.first_page + OWN + PAGES * (n - 1))
                   for n in range(1, self.num)]
        self.cb = [Ctx(b, n, b.first_page + OWN + PAGES * (n - 1))
                   for n in range(1, self.num)]

    @staticmethod
    def kernel_rqes(bd):
        """Context 0's RQ with two RQEs of half a page, as a driver keeps
        it: while it has fewer the shim raises FLOW_STOP on every bank and
        the IP answers every TYPE1 request RNR, a user context's too
        (shim.rst, "Stalls are the context's own").  No message is for
        context 0 here: DMAQ_RQ_CONS stays 0 (teardown checks it)."""
        mm = bd.mem.mm
        base = bd.rq_page * PAGE
        buf = bd.mem.phys[bd.first_page + KBUF]
        mm[base:base + PAGE] = bytes(PAGE)
        for i in range(2):
            struct.pack_into('<QQ', mm, base + 16 * i, buf + i * PAGE // 2,
                             PAGE // 2)
        bd.w('DMAQ_RQ_BASE', bd.mem.phys[bd.rq_page])
        bd.w('DMAQ_RQ_CFG', t1.RQ_ORDER |
             rt.fval('DMAQ_RQ_CFG', 'enable', 1))
        bd.w('DMAQ_RQ_PROD', 2)

    def setup(self):
        a, b = self.a, self.b
        a.global_init(0x0a000001, True, 8000, 15)
        b.global_init(0x0a000002, True, 8000, 15)
        for bd in (a, b):
            self.kernel_rqes(bd)
        a.w('SHIM_EVT_BASE', a.mem.phys[a.evt_page])
        a.w('SHIM_EVT_CONS', 0)
        a.w('SHIM_EVT_CTRL', rt.fval('SHIM_EVT_CTRL', 'enable', 1) |
            rt.fval('SHIM_EVT_CTRL', 'order', 8))
        for n in range(1, self.num):
            a.qp_init(n, b, n, 0, 0)
            b.qp_init(n, a, n, 0, 0)
        for c in self.ca + self.cb:
            c.setup()
        bad = [(c.b.name, c.n, c.status()) for c in self.ca + self.cb
               if c.status() != ST_RUNNING | ST_ACTIVE]
        check(not bad, 'contexts not running: %r' % bad[:8])
        self.ktap.diag('%d user contexts per board' % (self.num - 1))

    def round(self, skip=()):
        """Every context of A sends its message to its twin on B."""
        ca = [c for c in self.ca if c.n not in skip]
        cb = [c for c in self.cb if c.n not in skip]
        seed = 100 * self.rounds
        self.rounds += 1
        for c in cb:
            c.post_rq(0, PAGE)
        for c in ca:
            data = t1.pattern(c.n + seed, msg_len(c.n))
            c.fill(c.n, data)
            c.send(c.n, len(data))
        recv = wait_cqes(cb, 'receive')
        errs = []
        for c in cb:
            w = recv[c.n]
            want = t1.pattern(c.n + seed, msg_len(c.n))
            if (fget('CQE', 'KIND', w), fget('CQE', 'STATUS', w),
                    fget('CQE', 'QPN', w), fget('CQE', 'LEN', w)) != \
                    (CQE_C['KIND_RECV'], CQE_C['ST_OK'], c.n, len(want)):
                errs.append('B ctx %d: CQE %r' % (c.n, [hex(x) for x in w]))
            elif c.area(0, len(want)) != want:
                errs.append('B ctx %d: bytes differ' % c.n)
            elif fget('DBREC', 'RQ_CONS', c.record()) != c.rq_prod:
                errs.append('B ctx %d: record %r' % (c.n, c.record()))
        sent = wait_cqes(ca, 'send')
        for c in ca:
            w = sent[c.n]
            if (fget('CQE', 'KIND', w), fget('CQE', 'STATUS', w),
                    fget('CQE', 'QPN', w), fget('CQE', 'LEN', w)) != \
                    (CQE_C['KIND_SEND'], CQE_C['ST_OK'], c.n, msg_len(c.n)):
                errs.append('A ctx %d: CQE %r' % (c.n, [hex(x) for x in w]))
            elif fget('DBREC', 'SQ_CONS', c.record()) != c.sq_prod:
                errs.append('A ctx %d: record %r' % (c.n, c.record()))
        check(not errs, '\n'.join(errs[:10]))

    def test_all(self):
        self.round()

    def test_foreign_qp(self):
        c5, c6 = self.ca[4], self.ca[5]
        check(c5.n == 5 and c6.n == 6, 'context numbering')
        c5.send(0, 64, qpn=6)
        w = wait_cqes([c5], 'NOT_OWNER')[5]
        check((fget('CQE', 'STATUS', w), fget('CQE', 'QPN', w)) ==
              (CQE_C['ST_NOT_OWNER'], 6), 'CQE %r' % [hex(x) for x in w])
        check(c6.cqe() is None, 'context 6 got a CQE')
        c5.sel()
        check(self.a.r('DMAQ_CTX_NOT_OWNER') == 1, 'NOT_OWNER count %d'
              % self.a.r('DMAQ_CTX_NOT_OWNER'))
        bad = [c.n for c in self.ca if c.status() != ST_RUNNING | ST_ACTIVE]
        check(not bad, 'contexts not running: %r' % bad)

    def test_out_of_area(self):
        a = self.a
        c7 = self.ca[6]
        evt0 = a.r('SHIM_EVT_PROD')
        c7.send(PAGE - 100, 200)
        w = wait_cqes([c7], 'BAD_ADDR')[7]
        check(fget('CQE', 'STATUS', w) == CQE_C['ST_BAD_ADDR'],
              'CQE %r' % [hex(x) for x in w])
        end = time.monotonic() + WAIT
        while c7.status() & ST_ACTIVE and time.monotonic() < end:
            time.sleep(0.01)
        st = c7.status()
        check(st == ST_ERROR | rt.fval('DMAQ_CTX_STATUS', 'cause',
                                       EVT[2]['CAUSE_BAD_ADDR']),
              'context 7 status 0x%x' % st)
        check(fget('DBREC', 'ERROR', c7.record()) == 1, 'record %r'
              % (c7.record(),))
        bad = [c.n for c in self.ca if c.n != 7 and
               c.status() != ST_RUNNING | ST_ACTIVE]
        check(not bad, 'other contexts not running: %r' % bad)
        check(a.r('SHIM_EVT_PROD') == evt0 + 1, 'event records %d -> %d'
              % (evt0, a.r('SHIM_EVT_PROD')))
        rec = struct.unpack_from('<2Q', a.mem.mm, a.evt_page * PAGE +
                                 16 * (evt0 % 256))
        check((fget('CTX_EVT', 'CTX', rec), fget('CTX_EVT', 'CAUSE', rec),
               rec[1] & 0xff) == (7, EVT[2]['CAUSE_BAD_ADDR'],
                                  EVT_SRC_CTX_ERR),
              'event record %r' % [hex(x) for x in rec])
        self.round(skip=(7,))

    def test_cq_full(self):
        a9, b9 = self.ca[8], self.cb[8]
        check(a9.n == 9, 'context numbering')
        depth = 1 << ORDER
        hold0 = self.b.r('DMAQ_CTX_RX_HOLD')
        # a packet without room waits as long as this test needs
        self.b.w('DMAQ_CTX_RX_HOLD', HOLD_LONG)
        b9.sel()
        nobuf0 = self.b.r('DMAQ_CTX_RX_NOBUF')
        cq0 = b9.cq_cons
        # fill B's CQ: as many messages as it has entries, none consumed
        for k in range(depth):
            b9.post_rq(0, PAGE)
            a9.fill(0, t1.pattern(500 + k, 64))
            a9.send(0, 64)
            wait_cqes([a9], 'send %d' % k)
        b9.sel()
        idx = self.b.r('DMAQ_CTX_CQ_IDX')
        check(idx & 0xffffffff == cq0 + depth and idx >> 32 == cq0,
              'B context 9 CQ indices 0x%x' % idx)
        # one more: B's RQ has room, its CQ none; B's board takes it (A's
        # SEND completes OK) and holds it
        b9.post_rq(0, PAGE)
        a9.fill(0, t1.pattern(600, 64))
        a9.send(0, 64)
        w = wait_cqes([a9], 'send of the waiting message')[9]
        check(fget('CQE', 'STATUS', w) == CQE_C['ST_OK'],
              'send of the waiting message: CQE %r' % [hex(x) for x in w])
        time.sleep(0.1)
        b9.sel()
        check(self.b.r('DMAQ_CTX_RX_NOBUF') == nobuf0,
              'the waiting message was counted as dropped')
        check(self.b.r('DMAQ_CTX_CQ_IDX') & 0xffffffff == cq0 + depth,
              'B context 9 wrote beyond its full CQ')
        check(b9.status() == ST_RUNNING | ST_ACTIVE,
              'B context 9 status 0x%x while it waits' % b9.status())
        got = []
        for _ in range(depth):
            got.append(b9.cqe())
        check(all(got), 'B context 9: CQEs missing')
        last = wait_cqes([b9], 'the waiting message')[9]
        check((fget('CQE', 'STATUS', last), fget('CQE', 'LEN', last)) ==
              (CQE_C['ST_OK'], 64) and b9.area(0, 64) == t1.pattern(600, 64),
              'the waiting message: CQE %r' % [hex(x) for x in last])
        # the other contexts waited behind it: they go on
        self.round(skip=(7, 9))
        # no buffer and a short hold: dropped, context 9 in error
        self.b.w('DMAQ_CTX_RX_HOLD', HOLD_SHORT)
        a9.fill(0, t1.pattern(700, 64))
        a9.send(0, 64)
        w = wait_cqes([a9], 'send of the dropped message')[9]
        check(fget('CQE', 'STATUS', w) == CQE_C['ST_OK'],
              'send of the dropped message: CQE %r' % [hex(x) for x in w])
        end = time.monotonic() + WAIT
        while b9.status() & ST_ACTIVE and time.monotonic() < end:
            time.sleep(0.01)
        st = b9.status()
        check(st == ST_ERROR | rt.fval('DMAQ_CTX_STATUS', 'cause',
                                       EVT[2]['CAUSE_RX_NOBUF']),
              'B context 9 status 0x%x' % st)
        check(self.b.r('DMAQ_CTX_ERR_INFO') == 9,
              'B context 9 ERR_INFO 0x%x' % self.b.r('DMAQ_CTX_ERR_INFO'))
        check(self.b.r('DMAQ_CTX_RX_NOBUF') == nobuf0 + 1,
              'B context 9 DMAQ_CTX_RX_NOBUF %d, was %d'
              % (self.b.r('DMAQ_CTX_RX_NOBUF'), nobuf0))
        check(b9.cqe() is None, 'B context 9: a CQE of the dropped message')
        self.round(skip=(7, 9))
        self.b.w('DMAQ_CTX_RX_HOLD', hold0)

    def test_teardown(self):
        for c in self.ca + self.cb:
            c.sel()
            c.b.w('DMAQ_CTX_CTRL', rt.fval('DMAQ_CTX_CTRL', 'enable', 1) |
                  rt.fval('DMAQ_CTX_CTRL', 'stop', 1))
        end = time.monotonic() + WAIT
        busy = [c for c in self.ca + self.cb if c.status() & ST_ACTIVE]
        while busy and time.monotonic() < end:
            time.sleep(0.01)
            busy = [c for c in busy if c.status() & ST_ACTIVE]
        check(not busy, 'still active: %r' % [(c.b.name, c.n) for c in busy])
        for c in self.ca + self.cb:
            c.sel()
            c.b.w('DMAQ_CTX_CTRL', 0)
        bad = [(c.b.name, c.n) for c in self.ca + self.cb if c.status()]
        check(not bad, 'status after disable: %r' % bad[:8])
        taken = [(bd.name, bd.r('DMAQ_RQ_CONS')) for bd in (self.a, self.b)
                 if bd.r('DMAQ_RQ_CONS')]
        check(not taken, "the kernel's RQEs taken: %r" % taken)


def ctx_tests(ktap, up):
    pair = up.pair
    with rt.Bar0(pair[0]) as bar:
        num = bar.rfield('DMAQ_CTX_CAP', 'num')
    if num < 8:
        raise rt.SkipTest('the boards have %d contexts (8 needed)' % num)
    per = OWN + PAGES * (num - 1)
    mem = up.mem = t1.DmaMem(2 * per)
    boards = up.boards = [t1.Board('A', pair[0], mem, 0),
                          t1.Board('B', pair[1], mem, per)]
    for bd in boards:
        bd.w('SHIM_RESET', 1)
        bd.db = rt.DoorbellBar(bd.bdf, bd.bar)
    if not (boards[0].field('SHIM_LINK', 'up') and
            boards[1].field('SHIM_LINK', 'up')):
        raise rt.SkipTest('the boards have no carrier (not a wired pair)')
    t = CtxTest(ktap, *boards)
    ktap.plan(6)
    ktap.run('setup', t.setup)
    ktap.run('all_contexts', t.test_all)
    ktap.run('foreign_qp', t.test_foreign_qp)
    ktap.run('out_of_area', t.test_out_of_area)
    ktap.run('cq_full', t.test_cq_full)
    ktap.run('teardown', t.test_teardown)


def main():
    t1.run_pair(ctx_tests)


if __name__ == '__main__':
    main()
