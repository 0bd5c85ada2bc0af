#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE1 reliable messages through the board's queue engine, driven from
user space (Documentation/hw/shim.rst, "TYPE1: reliable messages" and
"Wire fault injection").

Both boards of a wired pair are unbound from the driver.  The test maps
BAR0, switches on memory decode and bus mastering (INTx masked) and gives
the boards DMA memory of its own: locked anonymous pages whose bus
addresses are their physical addresses (/proc/self/pagemap; the test
skips when an IOMMU is present).  Every ring fits one page; messages are
WQE chains of page-sized pieces, receive buffers are single pages (the
benchmark uses 64 KiB pieces and buffers where the pages happen to be
physically contiguous).

Board A sends to board B over QP 1 (Standard format, ICRC on):

  * sizes 1, 1336, 1337, 5000 and 65536: RECV CQEs (FIRST/LAST/MSG_LEN)
    and the bytes on B, SEND CQEs on A, the per-QP counters, the free
    slots, a RECV_ACK event for a FACK message;
  * a bad WQE (BAD_WQE), an unreadable buffer (DMA_ERR), a send on a
    disabled QP (FLUSHED, IRQ code 4);
  * VLAN tags, no ICRC, timestamps in every ACK (RECV_ACK events); the
    link down (the slots wait);
  * ACK merge: one ACK per QP for packets that arrive together, in the
    order of the merge pointer (ascending QPN, wrapping);
  * ECN and CNP: A's REQs sent ECT(0) and marked CE by the wire: B answers
    each with a CNP (on the wire: OPCODE CNP to A's QP), A reports each as
    a RECV_CNP record; with the CNP merge one per burst passes, the rest
    counted in DMAQ_T1_CNP_MERGED; NOCNP records count the bytes sent;
  * B without receive buffers: RNR NAKs, or (RNR off, or RNR on but
    XON_THR_RDMA.flow_stop_en off: FLOW_STOP does not reach the IP) NOBUF
    drops that the retry timer recovers;
  * wire faults on A (5% loss, 1% corruption, 2% reordering): still
    byte-exact, with retransmissions;
  * the wire cut (100% loss): a RETRY_TMO record per retry timer expiry,
    then the retry timer makes the QP fatal
    (INTR_STATUS.t1_retry_over, IRQ_INFO TYPE1 code 2), the QP stops;
    free_buf_set releases its slots (FLUSHED), the QP is set up again and
    carries a message;
  * 1000 messages of 64 KiB, timed (at most as many in flight as B has
    buffers and CQEs for).

The boards are reset and bound again at the end.
"""

import ctypes
import errno
import mmap
import os
import struct
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413
import t1_wire as tw  # noqa: E402  pylint: disable=wrong-import-position

PAGE = 4096
QPN = 1
QP_OFF = 2                 # a QP that stays disabled
SQ_ORDER = 8               # 256 WQEs, one page
RQ_ORDER = 8               # 256 RQEs, one page
CQ_ORDER = 7               # 128 CQEs, one page
EVT_ORDER = 8              # 256 records, one page
RQ_BUFS = 192              # receive buffers posted (pages)
TX_PAGES = 320             # payload pages of each board
BIG = 16 * PAGE            # a physically contiguous unit for the benchmark
BIG_PAGES = 16 * 40        # pages searched for such units, per board
SEG_DATA = hw.PARAMS['TYPE1_PKT_LEN'] - hw.FORMATS['SEG'][0]
RETRY_US = 2000           # retry timer of the functional tests
RETRY_THR = 7
BENCH_RETRY_US = 8000     # the benchmark: no RNR, long retry timer
BENCH_RETRY_THR = 15
WAIT = float(os.environ.get('RCLINK_T1_WAIT', '120'))
SIZES = (1, 1336, 1337, 5000, 65536)
BENCH_MSGS = int(os.environ.get('RCLINK_T1_BENCH', '1000'))

# event record sources (include/rclink_hw.h RCLINK_EVT_SRC_*)
EVT_SRC_IRQ_INFO = 1
EVT_SRC_RECV_ACK = 5
EVT_SRC_RECV_CNP = 6
EVT_SRC_NOCNP = 7
EVT_SRC_RETRY_TMO = 8
ECT0 = 2                   # ECN field ECT(0) in the Traffic Class

PCI_COMMAND = 4
CMD_MEMORY = 0x2
CMD_MASTER = 0x4
CMD_INTX_DISABLE = 0x400

libc = ctypes.CDLL(None, use_errno=True)


def fmt(name, fname):
    """(word, mask, shift) of a field of a format."""
    word, hi, lo = hw.FORMATS[name][1][fname]
    return word, ((1 << (hi - lo + 1)) - 1) << lo, lo


def fput(name, fname, value):
    _, mask, shift = fmt(name, fname)
    return (value << shift) & mask


def fget(name, fname, words):
    word, mask, shift = fmt(name, fname)
    return (words[word] & mask) >> shift


def fconst(name, cname):
    return hw.FORMATS[name][2][cname]


def npkts(size):
    return (size + SEG_DATA - 1) // SEG_DATA


def pkt_bytes(size):
    """The TX_S bytes of a message: each packet's segment header and
    data, at least the IP's minimum (SEG.PKT_MIN, zero padding)."""
    hdr = hw.FORMATS['SEG'][0]
    pmin = fconst('SEG', 'PKT_MIN')
    return sum(max(hdr + min(SEG_DATA, size - off), pmin)
               for off in range(0, size, SEG_DATA))


def pattern(seed, n):
    """n bytes that differ per seed."""
    base = rt.random_block(4096 + 256, seed=0x7431)
    k = (seed * 131) % 256
    out = (base[k:k + 4096] * (n // 4096 + 1))[:n]
    return bytes(out)


# ------------------------------------------------------------- DMA memory

class DmaMem:
    """Locked anonymous pages with their bus (= physical) addresses."""

    def __init__(self, npages):
        self.npages = npages
        self.mm = mmap.mmap(-1, npages * PAGE,
                            mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        if hasattr(mmap, 'MADV_NOHUGEPAGE'):
            # A huge page could be collapsed (moved) under the device;
            # a kernel without transparent huge pages refuses (EINVAL).
            try:
                self.mm.madvise(mmap.MADV_NOHUGEPAGE)
            except OSError as e:
                if e.errno != errno.EINVAL:
                    raise
        self._cbuf = (ctypes.c_char * (npages * PAGE)).from_buffer(self.mm)
        self.vaddr = ctypes.addressof(self._cbuf)
        if libc.mlock(ctypes.c_void_p(self.vaddr),
                      ctypes.c_size_t(npages * PAGE)):
            err = ctypes.get_errno()
            raise rt.SkipTest('mlock: %s' % os.strerror(err))
        for i in range(npages):
            self.mm[i * PAGE] = 0
        self.phys = []
        with open('/proc/self/pagemap', 'rb') as f:
            f.seek(self.vaddr // PAGE * 8)
            raw = f.read(8 * npages)
        for i in range(npages):
            ent = struct.unpack_from('<Q', raw, 8 * i)[0]
            pfn = ent & ((1 << 55) - 1)
            if not ent >> 63 or not pfn:
                raise rt.SkipTest('no physical address in /proc/self/pagemap')
            self.phys.append(pfn * PAGE)

    def close(self):
        if self.mm is None:
            return
        libc.munlock(ctypes.c_void_p(self.vaddr),
                     ctypes.c_size_t(self.npages * PAGE))
        del self._cbuf
        self.mm.close()
        self.mm = None


class Pool:
    """Buffers of one size in a DmaMem: (mmap offset, bus address)."""

    def __init__(self, mem, first, count, size=PAGE):
        n = size // PAGE
        self.size = size
        self.free = []
        for p in range(first, first + count - n + 1, n):
            if all(mem.phys[p + k] == mem.phys[p] + k * PAGE
                   for k in range(n)):
                self.free.append((p * PAGE, mem.phys[p]))

    def get(self):
        return self.free.pop() if self.free else None

    def put(self, unit):
        self.free.append(unit)


# ----------------------------------------------------------------- boards

class Board:
    """One board driven directly: registers, its rings and memory."""

    def __init__(self, name, bdf, mem, first_page):
        self.name = name
        self.bdf = bdf
        self.bar = rt.Bar0(bdf)
        self.mem = mem
        self.first_page = first_page
        self.pool = None
        self.sq_page = first_page
        self.rq_page = first_page + 1
        self.cq_page = first_page + 2
        self.evt_page = first_page + 3
        self.mac = self.bar.read('SHIM_MAC') & ((1 << 48) - 1)
        self.ip = 0
        self.sq_prod = self.rq_prod = self.cq_cons = 0
        self.evt_cons = 0
        self.inflight = {}         # SQ index of last WQE -> (units, length)
        self.rq_bufs = {}          # RQ index -> unit
        self.rx_msg = None
        self.rx_done = []          # (status list, bytes, msg_len)
        self.send_done = []        # (status, len, idx, qpn)
        self.repost = True         # receive buffers go back at once
        self.records = []          # event records seen

    def w(self, name, val):
        self.bar.write(name, val)

    def r(self, name):
        return self.bar.read(name)

    def field(self, name, fname):
        return self.bar.rfield(name, fname)

    def ip_counters(self):
        """The board counts the events inside the IP (SHIM_CAP3.ip_counters;
        else those counters read 0: Documentation/hw/shim.rst, "What a
        shim can count")."""
        return bool(self.field('SHIM_CAP3', 'ip_counters'))

    def qps(self, qpn):
        """The QP's counters, those the board counts."""
        self.w('DMAQ_QP_STAT_SEL', qpn)
        counted = self.ip_counters()
        return {n[len('DMAQ_QPS_'):].lower(): self.r(n) for n in hw.REGS
                if n.startswith('DMAQ_QPS_') and
                (counted or n not in hw.IP_INTERNAL)}

    def counters(self):
        names = [n for n in hw.REGS if n.startswith(('DMAQ_T1_', 'SHIM_WIRE_'))
                 and n not in ('DMAQ_T1_OST_FREE',)
                 and not n.startswith('SHIM_WIRE_FAULT')]
        names.append('DMAQ_BAD_WQE')
        return {n: self.r(n) for n in names}

    # -- setup (seed 000, TYPE1 init steps 1-8) ----------------------------
    def global_init(self, ip, rnr, retry_us, retry_thr):
        self.ip = ip
        self.w('SHIM_RESET', 1)
        self.w('RDMA_EN', rt.fval('RDMA_EN', 'type1_en', 1))
        self.w('MAC_ADDR', self.mac)
        afh = hw.REGS['AFH_CFG_EN'][5] | \
            rt.fval('AFH_CFG_EN', 'standard_en', 1)
        if rnr:
            afh |= rt.fval('AFH_CFG_EN', 'type1_flow_stop_send_rnr_en', 0xf)
            # the engine's FLOW_STOP must reach the IP's RNR logic
            self.w('XON_THR_RDMA', rt.fval('XON_THR_RDMA', 'flow_stop_en',
                                           0xf))
        self.w('AFH_CFG_EN', afh)
        self.w('IP_ADDR', ip | rt.fval('IP_ADDR', 'ip_id', 0x1234) |
               rt.fval('IP_ADDR', 'ip_ttl', 64))
        self.w('TRAFFIC_CLASS', 0)
        self.w('RETRY_TIMER_CFG',
               rt.fval('RETRY_TIMER_CFG', 'retry_timer', retry_us) |
               rt.fval('RETRY_TIMER_CFG', 'retry_cnt_thr', retry_thr))

    def qp_init(self, qpn, peer, dqpn, psn, rpsn, pkey=0x5a):
        m = 0xfff
        self.w('QP_ID_SET', qpn)
        self.w('TX_EPSN_MEM', psn & m)
        self.w('EXPECT_RESP_PSN_MEM', psn & m)
        self.w('TX_LAST_PSN_MEM', (psn - 1) & m)
        self.w('TX_MAX_FW_PSN_MEM', (psn - 1) & m)
        self.w('REQ_CHK_SN_MEM', rpsn & m)
        self.w('TX_ACK_SN_MEM', rpsn & m)
        self.w('TX_SPEED_MEM', 1000)
        self.w('TX_CC_BYTE_CNT_MEM', 0)
        self.w('DEST_IP_MEM', peer.ip |
               rt.fval('DEST_IP_MEM', 'dest_qpid', dqpn))
        self.w('DEST_MAC_MEM', peer.mac)
        self.w('UDP_SRC_PORT_MEM', 0xc000 + qpn |
               rt.fval('UDP_SRC_PORT_MEM', 'qp_p_key', pkey))
        self.w('BTH_QP_CFG_MEM', pkey)
        self.w('RETRY_CNT_MEM', 0)
        self.w('QP_CONTROL_STATUS', rt.fval('QP_CONTROL_STATUS', 'qp_en', 1))

    def queues_init(self):
        ph = self.mem.phys
        self.w('DMAQ_SQ_BASE', ph[self.sq_page])
        self.w('DMAQ_SQ_CFG', SQ_ORDER | rt.fval('DMAQ_SQ_CFG', 'enable', 1))
        self.w('DMAQ_RQ_BASE', ph[self.rq_page])
        self.w('DMAQ_RQ_CFG', RQ_ORDER | rt.fval('DMAQ_RQ_CFG', 'enable', 1))
        self.w('DMAQ_CQ_BASE', ph[self.cq_page])
        self.w('DMAQ_CQ_CFG', CQ_ORDER | rt.fval('DMAQ_CQ_CFG', 'enable', 1) |
               rt.fval('DMAQ_CQ_CFG', 'vector', 1))
        self.sq_prod = self.rq_prod = self.cq_cons = 0
        mm = self.mem.mm
        for p in (self.sq_page, self.rq_page, self.cq_page, self.evt_page):
            mm[p * PAGE:(p + 1) * PAGE] = bytes(PAGE)
        self.w('SHIM_EVT_BASE', ph[self.evt_page])
        self.w('SHIM_EVT_CONS', 0)
        self.w('SHIM_EVT_CTRL', rt.fval('SHIM_EVT_CTRL', 'enable', 1) |
               rt.fval('SHIM_EVT_CTRL', 'order', EVT_ORDER))
        self.evt_cons = 0

    # -- receive buffers -----------------------------------------------------
    def use_pool(self, big=False):
        """Payload and receive buffers: pages, or 64 KiB units."""
        first = self.first_page + 4 + (TX_PAGES if big else 0)
        self.pool = Pool(self.mem, first, BIG_PAGES if big else TX_PAGES,
                         BIG if big else PAGE)
        return len(self.pool.free)

    def post_rq(self, count):
        mm = self.mem.mm
        base = self.rq_page * PAGE
        n = 0
        cons = self.r('DMAQ_RQ_CONS')
        while n < count and (self.rq_prod - cons) & 0xffffffff < \
                (1 << RQ_ORDER):
            unit = self.pool.get()
            if unit is None:
                break
            slot = self.rq_prod % (1 << RQ_ORDER)
            struct.pack_into('<QQ', mm, base + 16 * slot, unit[1],
                             self.pool.size)
            self.rq_bufs[self.rq_prod] = unit
            self.rq_prod += 1
            n += 1
        self.w('DMAQ_RQ_PROD', self.rq_prod & 0xffffffff)
        return n

    # -- send ----------------------------------------------------------------
    def sq_room(self):
        cons = self.r('DMAQ_SQ_CONS')
        return (1 << SQ_ORDER) - ((self.sq_prod - cons) & 0xffffffff)

    def post_send(self, qpn, data, fack=False, opcode=None, ring=True):
        """Queue a message (a WQE per page); False when no room."""
        mm = self.mem.mm
        size = self.pool.size
        pieces = [data[i:i + size] for i in range(0, len(data), size)]
        if len(pieces) > self.sq_room() or len(pieces) > len(self.pool.free):
            return False
        base = self.sq_page * PAGE
        units = []
        op = fconst('WQE', 'OP_SEND') if opcode is None else opcode
        for i, piece in enumerate(pieces):
            unit = self.pool.get()
            units.append(unit)
            mm[unit[0]:unit[0] + len(piece)] = piece
            w0 = (fput('WQE', 'OPCODE', op) | fput('WQE', 'QPN', qpn) |
                  fput('WQE', 'LEN', len(piece)))
            if i < len(pieces) - 1:
                w0 |= fput('WQE', 'MORE', 1)
            elif fack:
                w0 |= fput('WQE', 'FACK', 1)
            slot = self.sq_prod % (1 << SQ_ORDER)
            struct.pack_into('<QQ', mm, base + 16 * slot, w0, unit[1])
            self.sq_prod += 1
        self.inflight[(self.sq_prod - 1) & 0xffffffff] = (units, len(data))
        if ring:
            self.w('DMAQ_SQ_PROD', self.sq_prod & 0xffffffff)
        return True

    def ring_sq(self):
        self.w('DMAQ_SQ_PROD', self.sq_prod & 0xffffffff)

    # -- completions ---------------------------------------------------------
    def poll_cq(self, verify=True):
        """Consume the CQEs the board wrote; returns how many."""
        mm = self.mem.mm
        base = self.cq_page * PAGE
        size = 1 << CQ_ORDER
        n = 0
        repost = 0
        while True:
            off = base + 32 * (self.cq_cons % size)
            words = struct.unpack_from('<4Q', mm, off)
            want = 0 if (self.cq_cons >> CQ_ORDER) & 1 else 1
            if fget('CQE', 'PHASE', words) != want:
                break
            seq = fget('CQE', 'SEQ', words)
            check(seq == self.cq_cons & 0xffffffff,
                  '%s: CQE SEQ %d at consumer %d' % (self.name, seq,
                                                     self.cq_cons))
            self.cqe(words, verify)
            if fget('CQE', 'KIND', words) == fconst('CQE', 'KIND_RECV'):
                repost += 1
            self.cq_cons += 1
            n += 1
        if n:
            self.w('DMAQ_CQ_CONS', self.cq_cons & 0xffffffff)
            if repost and self.repost:
                self.post_rq(repost)
        return n

    def cqe(self, words, verify):
        kind = fget('CQE', 'KIND', words)
        status = fget('CQE', 'STATUS', words)
        length = fget('CQE', 'LEN', words)
        idx = fget('CQE', 'IDX', words)
        if kind == fconst('CQE', 'KIND_SEND'):
            units, _ = self.inflight.pop(idx, ([], None))
            for u in units:
                self.pool.put(u)
            self.send_done.append((status, length, idx,
                                   fget('CQE', 'QPN', words)))
            return
        check(kind == fconst('CQE', 'KIND_RECV'),
              '%s: CQE kind %d' % (self.name, kind))
        unit = self.rq_bufs.pop(idx, None)
        check(unit is not None, '%s: RECV CQE for RQ index %d not posted'
              % (self.name, idx))
        first = fget('CQE', 'FIRST', words)
        last = fget('CQE', 'LAST', words)
        msg_len = fget('CQE', 'MSG_LEN', words)
        if first:
            check(self.rx_msg is None, '%s: FIRST inside a message'
                  % self.name)
            self.rx_msg = ([], [], msg_len)
        check(self.rx_msg is not None, '%s: RECV CQE outside a message'
              % self.name)
        keep = length if verify else min(length, 8)
        self.rx_msg[0].append(bytes(self.mem.mm[unit[0]:unit[0] + keep]))
        self.rx_msg[1].append(status)
        self.pool.put(unit)
        if last:
            self.rx_done.append((self.rx_msg[1], b''.join(self.rx_msg[0]),
                                 self.rx_msg[2]))
            self.rx_msg = None

    def events(self):
        """New event ring records: [(source, info)]."""
        prod = self.r('SHIM_EVT_PROD')
        mm = self.mem.mm
        size = 1 << EVT_ORDER
        new = []
        while self.evt_cons != prod:
            off = self.evt_page * PAGE + 16 * (self.evt_cons % size)
            info, meta = struct.unpack_from('<QQ', mm, off)
            new.append((meta & 0xff, info))
            self.evt_cons = (self.evt_cons + 1) & 0xffffffff
        self.w('SHIM_EVT_CONS', self.evt_cons)
        self.records += new
        return new


class Pair:
    def __init__(self, a, b):
        self.a = a
        self.b = b
        self.state = lambda: ''

    def pump(self, verify=True):
        return self.a.poll_cq(verify) + self.b.poll_cq(verify)

    def wait(self, cond, what, timeout=WAIT):
        deadline = time.monotonic() + timeout
        while not cond():
            if not self.pump():
                if time.monotonic() > deadline:
                    raise rt.TestFailed('timeout waiting for %s\n%s'
                                        % (what() if callable(what) else what,
                                           self.state()))
                time.sleep(0.002)

    def transfer(self, msgs, fack_last=False, window=None):
        """Send msgs (list of bytes) A->B; returns the RECV results.  With
        a window, at most that many bytes are in flight (posted and not
        yet received)."""
        a, b = self.a, self.b
        b.rx_done = []
        a.send_done = []
        pending = list(msgs)
        deadline = time.monotonic() + WAIT
        while pending:
            check(time.monotonic() < deadline, 'cannot post: %d of %d '
                  'messages received\n%s' % (len(b.rx_done), len(msgs),
                                              self.state()))
            inflight = sum(len(m) for m in msgs[len(b.rx_done):
                                                len(msgs) - len(pending)])
            if (window is None or not inflight or
                    inflight + len(pending[0]) <= window) and \
                    a.post_send(QPN, pending[0],
                                fack=fack_last and len(pending) == 1):
                pending.pop(0)
                continue
            if not self.pump():
                time.sleep(0.002)
        self.wait(lambda: len(b.rx_done) >= len(msgs) and
                  len(a.send_done) >= len(msgs),
                  lambda: '%d messages (%d received, %d completed)'
                  % (len(msgs), len(b.rx_done), len(a.send_done)))
        return b.rx_done


def check_delivery(res, msgs, a):
    errs = []
    if len(res) != len(msgs):
        errs.append('%d messages received, %d sent' % (len(res), len(msgs)))
    for i, (got, want) in enumerate(zip(res, msgs)):
        statuses, data, msg_len = got
        if any(s != fconst('CQE', 'ST_OK') for s in statuses):
            errs.append('message %d: RECV status %r' % (i, statuses))
        if msg_len != len(want):
            errs.append('message %d: MSG_LEN %d, want %d'
                        % (i, msg_len, len(want)))
        if data != want:
            diff = next((k for k in range(min(len(data), len(want)))
                         if data[k] != want[k]), min(len(data), len(want)))
            errs.append('message %d (%d bytes): %d bytes received, first '
                        'difference at %d' % (i, len(want), len(data), diff))
    for i, (status, length, _, qpn) in enumerate(a.send_done):
        if status != fconst('CQE', 'ST_OK') or qpn != QPN or \
                length != len(msgs[i]):
            errs.append('SEND CQE %d: status %d qpn %d len %d, want OK %d %d'
                        % (i, status, qpn, length, QPN, len(msgs[i])))
    check(not errs, '\n'.join(errs[:10]))


# ------------------------------------------------------------------ tests

class T1Test:
    def __init__(self, ktap, pair):
        self.ktap = ktap
        self.p = pair
        self.a = pair.a
        self.b = pair.b

    def setup(self, rnr=True, retry_us=RETRY_US, retry_thr=RETRY_THR,
              big=False):
        """Both boards from reset; B refuses with RNR NAKs when rnr;
        64 KiB buffers when big (and there are enough)."""
        a, b = self.a, self.b
        a.global_init(0x0ac70001, rnr, retry_us, retry_thr)
        b.global_init(0x0ac70002, rnr, retry_us, retry_thr)
        for side, peer in ((a, b), (b, a)):
            side.queues_init()
            side.qp_init(QPN, peer, QPN, psn=100, rpsn=100)
            side.rq_bufs = {}
            side.inflight = {}
            side.rx_msg = None
            if not big or side.use_pool(True) < 16:
                side.use_pool(False)
        b.post_rq(RQ_BUFS)
        if big:
            self.ktap.diag('buffers of %d bytes' % b.pool.size)
        check(a.field('SHIM_LINK', 'up') and b.field('SHIM_LINK', 'up'),
              'link down')
        check(a.field('DMAQ_T1_OST_FREE', 'free') ==
              hw.PARAMS['TYPE1_OST_N'], 'OST_FREE %d'
              % a.field('DMAQ_T1_OST_FREE', 'free'))

    def test_sizes(self):
        a, b = self.a, self.b
        msgs = [pattern(i, n) for i, n in enumerate(SIZES)]
        res = self.p.transfer(msgs, fack_last=True)
        check_delivery(res, msgs, a)
        pk = sum(npkts(n) for n in SIZES)
        qa, qb = a.qps(QPN), b.qps(QPN)
        self.ktap.diag('A QP %d: %s' % (QPN, qa))
        self.ktap.diag('B QP %d: %s' % (QPN, qb))
        nbytes = sum(pkt_bytes(n) for n in SIZES)
        want_a = {'tx_pkts': pk, 'retx_pkts': 0, 'tx_bytes': nbytes}
        want_b = {'rx_pkts': pk, 'rx_bytes': nbytes, 'rx_dup': 0,
                  'rx_oos': 0, 'nak_tx': 0}
        # a board without SHIM_CAP3.ip_counters: those assertions skipped
        skipped = sorted(['A ' + k for k in want_a if k not in qa] +
                         ['B ' + k for k in want_b if k not in qb])
        if 'ack_rx' not in qa or 'ack_tx' not in qb:
            skipped.append('ACKs')
        if skipped:
            self.ktap.diag('SKIP assertions on %s: the board does not count '
                           'them' % ', '.join(skipped))
        errs = ['A %s %d, want %d' % (k, qa[k], v) for k, v in want_a.items()
                if k in qa and qa[k] != v]
        errs += ['B %s %d, want %d' % (k, qb[k], v)
                 for k, v in want_b.items() if k in qb and qb[k] != v]
        if 'ACKs' in skipped:
            pass
        elif qa['ack_rx'] != qb['ack_tx'] or not qa['ack_rx']:
            errs.append('ACKs: B sent %d, A got %d' % (qb['ack_tx'],
                                                       qa['ack_rx']))
        elif qb['ack_tx'] >= pk:
            errs.append('no ACK merge: %d ACKs for %d packets'
                        % (qb['ack_tx'], pk))
        for side in (a, b):
            c = side.counters()
            bad = {k: v for k, v in c.items()
                   if v and k.startswith(('DMAQ_T1_', 'DMAQ_BAD'))}
            if bad:
                errs.append('%s drops %s' % (side.name, bad))
            free = side.field('DMAQ_T1_OST_FREE', 'free')
            if free != hw.PARAMS['TYPE1_OST_N']:
                errs.append('%s OST_FREE %d' % (side.name, free))
        for side in (a, b):
            side.w('QP_ID_SET', QPN)
            errs += ['%s %s' % (side.name, e) for e in self.psn_check(side)]
        ev = [info for src, info in a.events()
              if src == EVT_SRC_RECV_ACK]
        if not ev:
            errs.append('no RECV_ACK event for the FACK message')
        else:
            words = [ev[-1]]
            self.ktap.diag('RECV_ACK: rtt %d us qpid %d acked %d nak %d'
                           % (fget('RECV_ACK', 'RTT', words),
                              fget('RECV_ACK', 'QPID', words),
                              fget('RECV_ACK', 'NUM_ACKED', words),
                              fget('RECV_ACK', 'NAK', words)))
            if fget('RECV_ACK', 'QPID', words) != QPN or \
                    fget('RECV_ACK', 'NAK', words) or \
                    not fget('RECV_ACK', 'NUM_ACKED', words):
                errs.append('RECV_ACK 0x%x' % ev[-1])
        check(not errs, '\n'.join(errs))

    def psn_check(self, side):
        """The PSN registers after everything was acknowledged."""
        tx = side.r('TX_EPSN_MEM')
        exp = side.r('EXPECT_RESP_PSN_MEM')
        last = side.r('TX_LAST_PSN_MEM')
        mfw = side.r('TX_MAX_FW_PSN_MEM')
        req = side.r('REQ_CHK_SN_MEM')
        ack = side.r('TX_ACK_SN_MEM')
        errs = []
        if exp != tx or last != (tx - 1) & 0xfff or mfw != last:
            errs.append('TX_EPSN %d EXPECT_RESP %d TX_LAST %d MAX_FW %d'
                        % (tx, exp, last, mfw))
        if req != ack:
            errs.append('REQ_CHK %d TX_ACK_SN %d' % (req, ack))
        return errs

    def test_bad_wqe(self):
        """A bad opcode completes BAD_WQE, a buffer the board cannot read
        DMA_ERR; the QP goes on; the per-QP counters clear."""
        a = self.a
        before = a.r('DMAQ_BAD_WQE')
        a.send_done = []
        check(a.post_send(QPN, b'x' * 100, opcode=0xf), 'no SQ room')
        self.p.wait(lambda: a.send_done, 'the BAD_WQE completion', 10)
        status = a.send_done[0][0]
        check(status == fconst('CQE', 'ST_BAD_WQE'),
              'status %d, want BAD_WQE' % status)
        check(a.r('DMAQ_BAD_WQE') == before + 1, 'DMAQ_BAD_WQE %d -> %d'
              % (before, a.r('DMAQ_BAD_WQE')))
        # A WQE whose buffer is beyond any memory.
        a.send_done = []
        mm = a.mem.mm
        slot = a.sq_prod % (1 << SQ_ORDER)
        struct.pack_into('<QQ', mm, a.sq_page * PAGE + 16 * slot,
                         fput('WQE', 'OPCODE', fconst('WQE', 'OP_SEND')) |
                         fput('WQE', 'QPN', QPN) | fput('WQE', 'LEN', 64),
                         1 << 52)
        a.sq_prod += 1
        a.ring_sq()
        self.p.wait(lambda: a.send_done, 'the DMA_ERR completion', 10)
        status = a.send_done[0][0]
        check(status == fconst('CQE', 'ST_DMA_ERR'),
              'status %d, want DMA_ERR' % status)
        msgs = [pattern(11, 3000)]
        check_delivery(self.p.transfer(msgs), msgs, a)
        a.w('DMAQ_QP_STAT_SEL', QPN |
            rt.fval('DMAQ_QP_STAT_SEL', 'clear', 1))
        check(not any(a.qps(QPN).values()), 'counters not cleared: %s'
              % a.qps(QPN))

    def test_variants(self):
        """VLAN tags, no ICRC, timestamps in every ACK."""
        a, b = self.a, self.b
        for side in (a, b):
            side.w('VLAN_CTRL', rt.fval('VLAN_CTRL', 'vlan_en', 1) |
                   rt.fval('VLAN_CTRL', 'vid', 5))
            side.w('RC_MISC_CFG',
                   rt.fval('RC_MISC_CFG', 'type1_remove_icrc_en', 1) |
                   rt.fval('RC_MISC_CFG', 'tx_ack_time_en', 1))
        a.events()
        try:
            msgs = [pattern(20 + i, n) for i, n in enumerate((1, 5000,
                                                               65536))]
            check_delivery(self.p.transfer(msgs), msgs, a)
        finally:
            for side in (a, b):
                side.w('VLAN_CTRL', 0)
                side.w('RC_MISC_CFG', 0)
        acks = [i for s, i in a.events() if s == EVT_SRC_RECV_ACK]
        check(acks, 'no RECV_ACK event with tx_ack_time_en')
        check(sum(fget('RECV_ACK', 'NUM_ACKED', [i]) for i in acks) ==
              sum(npkts(len(m)) for m in msgs),
              'RECV_ACK events acknowledge %d packets, want %d'
              % (sum(fget('RECV_ACK', 'NUM_ACKED', [i]) for i in acks),
                 sum(npkts(len(m)) for m in msgs)))
        for side in (a, b):
            bad = {k: v for k, v in side.counters().items()
                   if v and k.startswith('DMAQ_T1_RX_DROP')}
            check(not bad, '%s drops %s' % (side.name, bad))

    def test_link_down(self):
        """Link down: the slots wait, nothing is sent; up: all goes."""
        a, b = self.a, self.b
        q0 = a.qps(QPN)
        a.w('SHIM_LINK', rt.fval('SHIM_LINK', 'force_down', 1))
        try:
            check(not a.field('SHIM_LINK', 'up'), 'link still up')
            b.rx_done = []
            a.send_done = []
            msgs = [pattern(30, 5000)]
            check(a.post_send(QPN, msgs[0]), 'no SQ room')
            time.sleep(0.2)
            self.p.pump()
            q1 = a.qps(QPN)
            busy = hw.PARAMS['TYPE1_OST_N'] - \
                a.field('DMAQ_T1_OST_FREE', 'free')
            # (tx_pkts counts inside the IP: where the board does not
            # count it, B receiving nothing shows that nothing was sent)
            sent = q1['tx_pkts'] - q0['tx_pkts'] if 'tx_pkts' in q1 else 0
            if 'tx_pkts' not in q1:
                self.ktap.diag('SKIP assertion on A tx_pkts: the board '
                               'does not count it')
            check(not sent and not b.rx_done and busy == npkts(5000) and
                  not a.send_done and not q1['timeouts'] - q0['timeouts'],
                  'link down: %d packets sent, %d received, %d slots '
                  'held, %d timeouts'
                  % (sent, len(b.rx_done), busy,
                     q1['timeouts'] - q0['timeouts']))
        finally:
            a.w('SHIM_LINK', 0)
        self.p.wait(lambda: b.rx_done and a.send_done, 'the message')
        check_delivery(b.rx_done, msgs, a)

    def test_ack_merge(self):
        """ACK MERGE (seed 000): with A's link held down, single-packet
        messages without FACK wait on QPs 40, 8 (three), 24 and 20; the
        link comes up and all six go in one round.  B answers each QP with
        one ACK (QP 8's three packets merged into one), and its ACKs leave
        in the order of the merge pointer: ascending QPN from where the
        pointer stood, wrapping (a rotation of 8, 20, 24, 40)."""
        a, b = self.a, self.b
        qps = (8, 20, 24, 40)
        for q in qps:
            a.qp_init(q, b, q, 0, 0)
            b.qp_init(q, a, q, 0, 0)
        ack0 = {q: b.qps(q).get('ack_tx') for q in qps}
        pcap = rt.wire_pcap()
        size0 = os.path.getsize(pcap) if pcap else None
        b.rx_done = []
        a.send_done = []
        order = (40, 8, 8, 8, 24, 20)
        a.w('SHIM_LINK', rt.fval('SHIM_LINK', 'force_down', 1))
        try:
            for k, q in enumerate(order):
                check(a.post_send(q, pattern(50 + k, 100)), 'no SQ room')
            time.sleep(0.2)
            self.p.pump()
        finally:
            a.w('SHIM_LINK', 0)
        self.p.wait(lambda: len(a.send_done) == len(order) and
                    len(b.rx_done) == len(order), 'the six messages')
        if b.ip_counters():
            acks = {q: b.qps(q)['ack_tx'] - ack0[q] for q in qps}
            self.ktap.diag('ACKs sent by B per QP: %s' % acks)
            check(all(n == 1 for n in acks.values()), 'ACKs per QP %s, want '
                  'one each (QP 8: three packets merged)' % acks)
        else:
            self.ktap.diag('SKIP assertion on the ACKs per QP: B does not '
                           'count ack_tx')
        if size0 is None:
            self.ktap.diag('no wire capture: the ACK order is not checked')
            return
        seq = []
        for _ in range(20):
            recs, _ = tw.pcap_records(pcap, size0)
            seq = []
            for _, d in recs:
                if len(d) < 50 or d[12:14] != b'\x08\x00' or \
                        d[23] != 17 or d[6:12] != b.mac.to_bytes(6, 'big'):
                    continue
                rh = struct.unpack('>Q', d[42:50])[0]
                if fget('RH', 'OPCODE', [rh]) == fconst('RH', 'OP_ACK'):
                    seq.append(fget('RH', 'DEST_QP', [rh]))
            if len(seq) >= len(qps):
                break
            time.sleep(0.5)
        self.ktap.diag('B\'s ACKs on the wire, by DEST_QP: %s' % seq)
        want = sorted(qps)
        rots = [want[i:] + want[:i] for i in range(len(want))]
        check(seq in rots, 'ACK order %s, want a rotation of %s' % (seq,
                                                                 want))

    def cnp_burst(self, n, seed):
        """n one-packet messages A->B sent together (A's link held down
        while they are posted); returns A's new event records."""
        a, b = self.a, self.b
        a.events()
        b.rx_done = []
        a.send_done = []
        msgs = [pattern(seed + k, 100) for k in range(n)]
        a.w('SHIM_LINK', rt.fval('SHIM_LINK', 'force_down', 1))
        try:
            for m in msgs:
                check(a.post_send(QPN, m), 'no SQ room')
            time.sleep(0.1)
            self.p.pump()
        finally:
            a.w('SHIM_LINK', 0)
        self.p.wait(lambda: len(a.send_done) == n and len(b.rx_done) == n,
                    '%d messages' % n)
        check_delivery(b.rx_done, msgs, a)
        time.sleep(0.05)
        return a.events()

    def cnp_check(self, recs, n_pass, n_merged, d_a, d_b, merged0):
        cnps = [i for s, i in recs if s == EVT_SRC_RECV_CNP]
        merged = self.a.r('DMAQ_T1_CNP_MERGED') - merged0
        errs = []
        if len(cnps) != n_pass or merged != n_merged:
            errs.append('%d RECV_CNP records, %d merged; want %d, %d'
                        % (len(cnps), merged, n_pass, n_merged))
        if any(fget('CC_INFO', 'QPID', [i]) != QPN or
               fget('CC_INFO', 'BYTE_CNT', [i]) for i in cnps):
            errs.append('RECV_CNP INFO %s, want QPID %d'
                        % ([hex(i) for i in cnps], QPN))
        n = n_pass + n_merged
        for what, got in (('B ecn_rx', d_b['ecn_rx']),
                          ('A cnp_rx', d_a['cnp_rx']),
                          ('SHIM_WIRE_ECN_MARKED', d_a['marked'])):
            if got != n:
                errs.append('%s +%d, want %d' % (what, got, n))
        check(not errs, '; '.join(errs))

    def test_ecn(self):
        """ECN/CNP of the CC interface: A's QP sends ECT(0) (the Traffic
        Class of its bank), A's wire marks every ECT frame CE.  B answers
        each REQ with a CNP; A counts it (cnp_rx) and, without the merge,
        reports every one as a RECV_CNP record.  With the merge
        (timer_thr 50 ms) one CNP per burst of 12 passes and 11 are
        filtered; after 200 ms the next burst passes one again.  The CNPs
        on the wire: OPCODE CNP, DEST_QP A's QP, from B.  Then NOCNP
        (marking off): the records' byte counts add up to A's tx_bytes."""
        a, b = self.a, self.b
        if not (a.ip_counters() and b.ip_counters()):
            # every check compares the records with ecn_rx, cnp_rx,
            # DMAQ_T1_CNP_MERGED or tx_bytes
            raise rt.SkipTest('the board does not count ECN, CNPs or the '
                              'merge (SHIM_CAP3.ip_counters 0)')
        n = 12
        pcap = rt.wire_pcap()
        size0 = os.path.getsize(pcap) if pcap else None
        a.w('TRAFFIC_CLASS', ECT0 << (8 * (QPN & 3)))
        a.w('SHIM_WIRE_FAULT_ECN', rt.fval('SHIM_WIRE_FAULT_ECN', 'ce_ppm',
                                           1000000))

        def snap():
            return (a.qps(QPN), b.qps(QPN), a.r('SHIM_WIRE_ECN_MARKED'),
                    a.r('DMAQ_T1_CNP_MERGED'))

        def deltas(s0):
            s1 = snap()
            return ({'cnp_rx': s1[0]['cnp_rx'] - s0[0]['cnp_rx'],
                     'marked': s1[2] - s0[2]},
                    {'ecn_rx': s1[1]['ecn_rx'] - s0[1]['ecn_rx']}, s0[3])
        try:
            s0 = snap()
            recs = self.cnp_burst(n, 300)
            self.cnp_check(recs, n, 0, *deltas(s0))
            a.w('CNP_CFG', rt.fval('CNP_CFG', 'timer_thr_us', 50000))
            a.w('RC_MISC_CFG', rt.fval('RC_MISC_CFG', 'cnp_merge_en', 1))
            for k in range(2):
                time.sleep(0.2)
                s0 = snap()
                recs = self.cnp_burst(n, 400 + 20 * k)
                self.cnp_check(recs, 1, n - 1, *deltas(s0))
            a.w('SHIM_WIRE_FAULT_ECN', 0)
            a.w('RC_MISC_CFG', 0)
            a.w('CNP_CFG', rt.fval('CNP_CFG', 'nocnp_en', 1) |
                rt.fval('CNP_CFG', 'nocnp_interval', 255))
            q0 = a.qps(QPN)
            recs = self.cnp_burst(n, 500)
            time.sleep(0.05)
            recs += a.events()
            sent = a.qps(QPN)['tx_bytes'] - q0['tx_bytes']
            nocnp = [i for s, i in recs if s == EVT_SRC_NOCNP]
            got = sum(fget('CC_INFO', 'BYTE_CNT', [i]) for i in nocnp)
            self.ktap.diag('NOCNP: %d records, %d bytes; A sent %d'
                           % (len(nocnp), got, sent))
            check(nocnp and got == sent and
                  all(fget('CC_INFO', 'QPID', [i]) == QPN and
                      fget('CC_INFO', 'BYTE_CNT', [i]) for i in nocnp),
                  'NOCNP records %s (%d bytes), want QP %d and %d bytes'
                  % ([hex(i) for i in nocnp], got, QPN, sent))
        finally:
            a.w('SHIM_WIRE_FAULT_ECN', 0)
            a.w('TRAFFIC_CLASS', 0)
            a.w('RC_MISC_CFG', 0)
            a.w('CNP_CFG', 0)
        if size0 is None:
            self.ktap.diag('no wire capture: the frames are not checked')
            return
        recs, _ = tw.pcap_records(pcap, size0)
        cnp = ce = 0
        for _, d in recs:
            if len(d) < 50 or d[12:14] != b'\x08\x00' or d[23] != 17:
                continue
            rh = struct.unpack('>Q', d[42:50])[0]
            op = fget('RH', 'OPCODE', [rh])
            if op == fconst('RH', 'OP_CNP') and \
                    d[6:12] == b.mac.to_bytes(6, 'big'):
                check(fget('RH', 'DEST_QP', [rh]) == QPN,
                      'CNP to QP %d' % fget('RH', 'DEST_QP', [rh]))
                cnp += 1
            elif op == fconst('RH', 'OP_REQ') and (d[15] & 3) == 3 and \
                    d[6:12] == a.mac.to_bytes(6, 'big'):
                ce += 1
        self.ktap.diag('wire: %d REQs marked CE, %d CNPs' % (ce, cnp))
        check(ce == 3 * n and cnp == 3 * n, 'wire: %d REQs marked CE and %d '
              'CNPs, want %d each' % (ce, cnp, 3 * n))

    def test_qp_disabled(self):
        a = self.a
        before = a.r('DMAQ_T1_TX_DROP_QP_OFF')
        a.w('INTR_STATUS', a.r('INTR_STATUS'))
        a.events()
        a.send_done = []
        check(a.post_send(QP_OFF, b'y' * 3000), 'no SQ room')
        self.p.wait(lambda: a.send_done, 'the FLUSHED completion', 10)
        status, length, _, qpn = a.send_done[0]
        check(status == fconst('CQE', 'ST_FLUSHED') and qpn == QP_OFF and
              length == 3000, 'SEND CQE status %d qpn %d len %d'
              % (status, qpn, length))
        drops = a.r('DMAQ_T1_TX_DROP_QP_OFF') - before
        check(drops == npkts(3000), 'DMAQ_T1_TX_DROP_QP_OFF +%d, want %d'
              % (drops, npkts(3000)))
        check(a.field('INTR_STATUS', 't1_tx_qp_disabled'),
              'INTR_STATUS.t1_tx_qp_disabled not set')
        want = rt.irq_info(1, 4, QP_OFF)
        infos = [i for s, i in a.events() if s == EVT_SRC_IRQ_INFO]
        check(infos.count(want) == npkts(3000), 'IRQ_INFO code 4: %s'
              % [hex(i) for i in infos])
        check(a.field('DMAQ_T1_OST_FREE', 'free') == hw.PARAMS['TYPE1_OST_N'],
              'slots not returned')

    def test_refused(self, rnr, flow_stop=True):
        """B runs out of receive buffers: it refuses with RNR NAKs (rnr,
        and its engine's FLOW_STOP reaches the IP: XON_THR_RDMA.flow_stop_en
        of the QP's bank) or drops (DMAQ_T1_RX_DROP_NOBUF, the retry timer
        recovers); once buffers are posted again everything arrives.
        Without RNR the retry threshold is 0 (retry for ever): how long
        this guest takes to post buffers again is no concern of the
        test."""
        a, b = self.a, self.b
        if not (a.ip_counters() and b.ip_counters()):
            # the wait for the refusal is on rnr_tx or DMAQ_T1_RX_DROP_NOBUF
            raise rt.SkipTest('the board does not count RNR NAKs or NOBUF '
                              'drops (SHIM_CAP3.ip_counters 0): the refusal '
                              'cannot be seen')
        afh = b.r('AFH_CFG_EN')
        xon = b.r('XON_THR_RDMA')
        bit = rt.fval('AFH_CFG_EN', 'type1_flow_stop_send_rnr_en',
                      1 << (QPN & 3))
        fbit = rt.fval('XON_THR_RDMA', 'flow_stop_en', 1 << (QPN & 3))
        b.w('AFH_CFG_EN', afh | bit if rnr else afh & ~bit)
        b.w('XON_THR_RDMA', xon | fbit if flow_stop else xon & ~fbit)
        rnr = rnr and flow_stop         # RNR NAKs only then
        retry = a.r('RETRY_TIMER_CFG')
        if not rnr:
            a.w('RETRY_TIMER_CFG',
                rt.fval('RETRY_TIMER_CFG', 'retry_timer', RETRY_US))
        qa0, qb0 = a.qps(QPN), b.qps(QPN)
        nobuf0 = b.r('DMAQ_T1_RX_DROP_NOBUF')
        posted = (b.rq_prod - b.r('DMAQ_RQ_CONS')) & 0xffffffff
        msgs = [pattern(200 + i, 65536) for i in range(posted // 16 + 2)]
        b.repost = False
        try:
            b.rx_done = []
            a.send_done = []
            for m in msgs:
                check(a.post_send(QPN, m), 'no SQ room')
            if rnr:
                cond = lambda: b.qps(QPN)['rnr_tx'] > qb0['rnr_tx']
            else:
                cond = lambda: b.r('DMAQ_T1_RX_DROP_NOBUF') > nobuf0
            self.p.wait(cond, 'the refusal', 20)
        finally:
            b.repost = True
        b.post_rq(RQ_BUFS)
        self.p.wait(lambda: len(b.rx_done) >= len(msgs) and
                    len(a.send_done) >= len(msgs), 'the messages')
        a.w('RETRY_TIMER_CFG', retry)
        b.w('AFH_CFG_EN', afh)
        b.w('XON_THR_RDMA', xon)
        check_delivery(b.rx_done, msgs, a)
        qa, qb = a.qps(QPN), b.qps(QPN)
        d = {k: qa[k] - qa0[k] for k in qa if qa[k] != qa0[k]}
        d.update({'B.' + k: qb[k] - qb0[k] for k in qb if qb[k] != qb0[k]})
        d['B.nobuf'] = b.r('DMAQ_T1_RX_DROP_NOBUF') - nobuf0
        self.ktap.diag(' '.join('%s=%d' % kv for kv in sorted(d.items())))
        if rnr:
            check(d.get('rnr_rx', 0) > 0 and d.get('B.rnr_tx') == d['rnr_rx'],
                  'RNR NAKs: B sent %d, A got %d' % (d.get('B.rnr_tx', 0),
                                                     d.get('rnr_rx', 0)))
        else:
            check(d['B.nobuf'] > 0 and not d.get('B.rnr_tx'),
                  'no NOBUF drop, or RNR NAKs (%d) without RNR'
                  % d.get('B.rnr_tx', 0))
        check(d.get('retx_pkts', 0) > 0, 'no retransmission')

    def set_faults(self, side, seed=0, loss=0, corrupt=0, reorder=0, dup=0):
        side.w('SHIM_WIRE_FAULT_SEED', seed)
        side.w('SHIM_WIRE_FAULT_RATE0',
               rt.fval('SHIM_WIRE_FAULT_RATE0', 'loss_ppm', loss) |
               rt.fval('SHIM_WIRE_FAULT_RATE0', 'corrupt_ppm', corrupt))
        side.w('SHIM_WIRE_FAULT_RATE1',
               rt.fval('SHIM_WIRE_FAULT_RATE1', 'reorder_ppm', reorder) |
               rt.fval('SHIM_WIRE_FAULT_RATE1', 'dup_ppm', dup))

    def test_faults(self):
        a, b = self.a, self.b
        qa0, qb0 = a.qps(QPN), b.qps(QPN)
        ca0, cb0 = a.counters(), b.counters()
        self.set_faults(a, seed=0x52434c4b, loss=50000, corrupt=10000,
                        reorder=20000)
        sizes = [65536, 1, 40000, 1337, 65536, 9000, 65536, 2672, 30000,
                 65536] * 2
        msgs = [pattern(100 + i, n) for i, n in enumerate(sizes)]
        t0 = time.monotonic()
        posted = (b.rq_prod - b.r('DMAQ_RQ_CONS')) & 0xffffffff
        try:
            # No more in flight than B has buffers and CQEs for: the
            # refusals (RNR) have their own test.
            room = min(posted, 1 << CQ_ORDER) - 32
            res = self.p.transfer(msgs, window=room * PAGE)
        finally:
            self.set_faults(a)
        dt = time.monotonic() - t0
        check_delivery(res, msgs, a)
        qa, qb = a.qps(QPN), b.qps(QPN)
        ca, cb = a.counters(), b.counters()
        d = {k: qa[k] - qa0[k] for k in qa}
        d.update({'B.' + k: qb[k] - qb0[k] for k in qb})
        d.update({k: ca[k] - ca0[k] for k in ca if ca[k] != ca0[k]})
        d.update({'B.' + k: cb[k] - cb0[k] for k in cb if cb[k] != cb0[k]})
        self.ktap.diag('%d messages, %d bytes in %.1f s; %s'
                       % (len(msgs), sum(sizes), dt,
                          ' '.join('%s=%d' % kv for kv in sorted(d.items())
                                   if kv[1])))
        errs = []
        counted = a.ip_counters() and b.ip_counters()
        for k in ('retx_pkts', 'SHIM_WIRE_LOST', 'SHIM_WIRE_CORRUPTED',
                  'SHIM_WIRE_REORDERED', 'B.rx_oos', 'B.nak_tx', 'nak_rx'):
            if k.split('.')[-1] in ('retx_pkts', 'rx_oos', 'nak_tx',
                                    'nak_rx') and not counted:
                continue
            if d.get(k, 0) <= 0:
                errs.append('%s did not grow' % k)
        bad = sum(d.get('B.' + k, 0) for k in
                  ('DMAQ_T1_RX_DROP_ICRC', 'DMAQ_T1_RX_DROP_CSUM',
                   'DMAQ_T1_RX_DROP_MALFORMED', 'DMAQ_T1_RX_DROP_DA',
                   'DMAQ_T1_RX_DROP_BADQP', 'DMAQ_T1_RX_DROP_PKEY',
                   'DMAQ_T1_RX_DROP_QP_OFF'))
        if not counted:
            self.ktap.diag('SKIP assertions on retx_pkts, rx_oos, nak_tx, '
                           'nak_rx and the damaged frames B dropped: the '
                           'board does not count them')
        elif bad != d['SHIM_WIRE_CORRUPTED']:
            errs.append('B dropped %d damaged frames, A corrupted %d'
                        % (bad, d['SHIM_WIRE_CORRUPTED']))
        check(not errs, '\n'.join(errs))

    def test_cut(self):
        a, b = self.a, self.b
        a.w('INTR_STATUS', a.r('INTR_STATUS'))
        a.events()
        n0 = len(a.records)
        q0 = a.qps(QPN)
        self.set_faults(a, loss=1000000)
        a.send_done = []
        check(a.post_send(QPN, pattern(7, 5000)), 'no SQ room')
        t0 = time.monotonic()
        self.p.wait(lambda: a.field('INTR_STATUS', 't1_retry_over'),
                    'INTR_STATUS.t1_retry_over', 30)
        self.ktap.diag('fatal after %.2f s' % (time.monotonic() - t0))
        q1 = a.qps(QPN)
        a.w('QP_ID_SET', QPN)
        cnt = a.field('RETRY_CNT_MEM', 'retry_counter')
        errs = []
        if cnt != RETRY_THR:
            errs.append('retry_counter %d, want %d' % (cnt, RETRY_THR))
        if q1['timeouts'] - q0['timeouts'] != RETRY_THR:
            errs.append('timeouts +%d, want %d'
                        % (q1['timeouts'] - q0['timeouts'], RETRY_THR))
        a.events()
        recs = a.records[n0:]
        want = rt.irq_info(1, 2, QPN)
        if want not in [i for s, i in recs if s == EVT_SRC_IRQ_INFO]:
            errs.append('no IRQ_INFO TYPE1 code 2 qpid %d' % QPN)
        # RETRY_TMO_VLD_O/QPID_O: one record per expiry that went back N
        tmo = [fget('CC_INFO', 'QPID', [i]) for s, i in recs
               if s == EVT_SRC_RETRY_TMO]
        if tmo != [QPN] * (RETRY_THR - 1):
            errs.append('RETRY_TMO records of QPs %s, want QP %d %d times'
                        % (tmo, QPN, RETRY_THR - 1))
        # Stopped: nothing more is sent, nothing completes.
        time.sleep(4 * RETRY_US / 1e6 + 0.2)
        self.p.pump()
        q2 = a.qps(QPN)
        if 'tx_pkts' not in q2:
            self.ktap.diag('SKIP assertion on A tx_pkts (a fatal QP sends '
                           'nothing): the board does not count it')
        elif q2['tx_pkts'] != q1['tx_pkts']:
            errs.append('fatal QP still sends (%d -> %d packets)'
                        % (q1['tx_pkts'], q2['tx_pkts']))
        if a.send_done:
            errs.append('completion while fatal: %r' % a.send_done)
        busy = hw.PARAMS['TYPE1_OST_N'] - a.field('DMAQ_T1_OST_FREE', 'free')
        if busy != npkts(5000):
            errs.append('%d slots held, want %d' % (busy, npkts(5000)))
        check(not errs, '\n'.join(errs))

        # The recovery procedure (seed 000, TX retry times over).
        self.set_faults(a)
        a.w('QP_ID_SET', QPN)
        a.w('QP_CONTROL_STATUS', 0)
        a.w('TX_SPEED_MEM', 0)
        check(not a.field('XON_THR_RDMA', 'type1_free_busy'), 'free busy')
        a.w('QP_CONTROL_STATUS',
            rt.fval('QP_CONTROL_STATUS', 'free_buf_set', 1))
        deadline = time.monotonic() + 5
        while a.field('QP_CONTROL_STATUS', 'free_buf_set'):
            check(time.monotonic() < deadline, 'free_buf_set stays 1')
            time.sleep(0.01)
        self.p.wait(lambda: a.send_done, 'the FLUSHED completion', 10)
        status, length, _, _ = a.send_done[0]
        check(status == fconst('CQE', 'ST_FLUSHED') and length == 5000,
              'SEND CQE status %d len %d, want FLUSHED 5000'
              % (status, length))
        check(a.field('DMAQ_T1_OST_FREE', 'free') == hw.PARAMS['TYPE1_OST_N'],
              'slots not released')
        a.w('QP_ID_SET', QPN)
        nxt = a.r('TX_EPSN_MEM')
        a_rx = a.r('REQ_CHK_SN_MEM')
        b.w('QP_ID_SET', QPN)
        b_tx = b.r('TX_EPSN_MEM')
        # Both ends set up again: A starts at nxt + 1, B expects it.
        a.qp_init(QPN, b, QPN, psn=nxt + 1, rpsn=a_rx)
        b.qp_init(QPN, a, QPN, psn=b_tx, rpsn=nxt + 1)
        msgs = [pattern(9, 20000)]
        check_delivery(self.p.transfer(msgs), msgs, a)

    def state(self):
        """The boards' TYPE1 state, for a diagnosis."""
        out = []
        for side in (self.a, self.b):
            side.w('QP_ID_SET', QPN)
            regs = {n: side.r(n) for n in (
                'QP_CONTROL_STATUS', 'RETRY_CNT_MEM', 'TX_EPSN_MEM',
                'EXPECT_RESP_PSN_MEM', 'REQ_CHK_SN_MEM', 'TX_ACK_SN_MEM',
                'INTR_STATUS', 'DMAQ_T1_OST_FREE', 'DMAQ_SQ_PROD',
                'DMAQ_SQ_CONS', 'DMAQ_RQ_PROD', 'DMAQ_RQ_CONS',
                'DMAQ_CQ_PROD', 'DMAQ_CQ_CONS')}
            regs.update({k: v for k, v in side.counters().items() if v})
            regs.update({'qps.' + k: v for k, v in side.qps(QPN).items() if v})
            out.append('%s: %s' % (side.name, ' '.join(
                '%s=%d' % kv for kv in sorted(regs.items()))))
        return '\n'.join(out)

    def bench(self, n):
        a, b = self.a, self.b
        size = 65536
        stamp = struct.Struct('<Q')
        data = bytearray(pattern(3, size))
        b.rx_done = []
        a.send_done = []
        q0a, q0b = a.qps(QPN), b.qps(QPN)
        # Never more messages in flight than B has buffers and CQEs for:
        # nothing is refused, the figure is the transport's.
        posted = (b.rq_prod - b.r('DMAQ_RQ_CONS')) & 0xffffffff
        per = -(-size // b.pool.size)
        window = max(1, min(posted, (1 << CQ_ORDER) - 16) // per - 1)
        sent = 0
        t0 = time.monotonic()
        deadline = t0 + 600
        while len(b.rx_done) < n:
            progress = False
            while sent < n and sent - len(b.rx_done) < window:
                stamp.pack_into(data, 0, sent)
                if not a.post_send(QPN, data, ring=False):
                    break
                sent += 1
                progress = True
            if progress:
                a.ring_sq()
            if not self.p.pump(verify=False) and not progress:
                check(time.monotonic() < deadline, 'benchmark stuck at %d: %s'
                      % (len(b.rx_done), self.state()))
                time.sleep(0.0005)
        self.p.wait(lambda: len(a.send_done) >= n, 'send completions')
        dt = time.monotonic() - t0
        bad = [i for i, (st, d, ml) in enumerate(b.rx_done)
               if ml != size or stamp.unpack_from(d)[0] != i or
               any(s != fconst('CQE', 'ST_OK') for s in st)]
        qa, qb = a.qps(QPN), b.qps(QPN)
        d = {k: qa[k] - q0a[k] for k in qa if qa[k] != q0a[k]}
        d.update({'B.' + k: qb[k] - q0b[k] for k in qb if qb[k] != q0b[k]})
        self.ktap.diag('%d x %d bytes A->B in %.2f s: %.1f MB/s, %.0f '
                       'packets/s' % (n, size, dt, n * size / dt / 1e6,
                                      d.get('tx_pkts', 0) / dt))
        self.ktap.diag(' '.join('%s=%d' % kv for kv in sorted(d.items())))
        check(not bad, 'messages out of order or damaged: %s' % bad[:10])
        check(all(s[0] == fconst('CQE', 'ST_OK') for s in a.send_done),
              'SEND status not OK')


# ------------------------------------------------------------- harness

def config_word(bdf, off, val=None):
    with open(rt.pci_path(bdf, 'config'), 'r+b', buffering=0) as f:
        f.seek(off)
        if val is None:
            return struct.unpack('<H', f.read(2))[0]
        f.write(struct.pack('<H', val))
    return val


def pick_pair():
    devs = rt.all_devices()
    if len(devs) < 2:
        return None
    return devs[0], devs[1]


class UserPair:
    """The pair taken from the driver for a test that drives it from user
    space: unbound, memory decode and bus mastering on, INTx masked; and
    given back (reset, command word restored, bound again)."""

    def __init__(self, pair):
        self.pair = pair
        self.bound = [d for d in pair if rt.driver_of(d) == rt.DRIVER]
        self.saved_cmd = {}
        self.boards = []
        self.mem = None

    def take(self):
        for d in self.bound:
            rt.unbind(d)
        for d in self.pair:
            self.saved_cmd[d] = config_word(d, PCI_COMMAND)
            config_word(d, PCI_COMMAND, self.saved_cmd[d] | CMD_MEMORY |
                        CMD_MASTER | CMD_INTX_DISABLE)

    def give_back(self, ktap):
        for bd in self.boards:
            bd.w('SHIM_RESET', 1)
            if getattr(bd, 'db', None):
                bd.db.close()
            bd.bar.close()
        if self.mem:
            self.mem.close()
        for d, cmd in self.saved_cmd.items():
            config_word(d, PCI_COMMAND, cmd)
        for d in self.bound:
            try:
                rt.bind(d)
            except (OSError, rt.TestFailed) as e:
                ktap.diag('rebind %s: %s' % (d, e))


def run_pair(body):
    """Run body(ktap, up) on the wired pair taken from the driver (a
    UserPair), skipping behind an IOMMU or without two boards."""
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    if os.path.isdir('/sys/kernel/iommu_groups') and \
            os.listdir('/sys/kernel/iommu_groups'):
        ktap.skip_all('an IOMMU translates DMA: user-space buffers unusable')
    pair = pick_pair()
    if not pair:
        ktap.skip_all('fewer than two rclink boards (need a wired pair)')
    up = UserPair(pair)
    try:
        up.take()
        body(ktap, up)
    except rt.SkipTest as e:
        ktap.skip_all(str(e))
    finally:
        up.give_back(ktap)
        mod.__exit__(None, None, None)
    ktap.finish()


def t1_tests(ktap, up):
    pair = up.pair
    per = 4 + TX_PAGES + BIG_PAGES
    mem = up.mem = DmaMem(2 * per)
    boards = up.boards = [Board('A', pair[0], mem, 0),
                          Board('B', pair[1], mem, per)]
    for bd in boards:
        bd.w('SHIM_RESET', 1)
    if not (boards[0].field('SHIM_LINK', 'up') and
            boards[1].field('SHIM_LINK', 'up')):
        raise rt.SkipTest('the boards have no carrier (not a wired pair)')
    ktap.plan(15)
    t = T1Test(ktap, Pair(*boards))
    t.p.state = t.state
    ktap.run('setup', t.setup)
    ktap.run('sizes', t.test_sizes)
    ktap.run('bad_wqe', t.test_bad_wqe)
    ktap.run('qp_disabled', t.test_qp_disabled)
    ktap.run('variants', t.test_variants)
    ktap.run('link_down', t.test_link_down)
    ktap.run('ack_merge', t.test_ack_merge)
    ktap.run('ecn_cnp', t.test_ecn)
    ktap.run('refused_rnr', t.test_refused, True)
    ktap.run('refused_nobuf', t.test_refused, False)
    ktap.run('refused_no_flow_stop', t.test_refused, True, False)
    ktap.run('wire_faults', t.test_faults)
    ktap.run('retry_fatal_and_recovery', t.test_cut)
    ktap.run('bench_setup', t.setup, False, BENCH_RETRY_US,
             BENCH_RETRY_THR, True)
    ktap.run('bench_%dx64k' % BENCH_MSGS, t.bench, BENCH_MSGS)


def main():
    run_pair(t1_tests)


if __name__ == '__main__':
    main()
