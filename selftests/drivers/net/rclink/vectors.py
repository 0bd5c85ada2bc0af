#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The shared test vectors (firmware/vectors/*.json) on the board.

The same vectors run on the shim RTL's testbench (firmware/rtl/rtl.sh
sim, Documentation/hw/rtl.rst): register sequences with expected values,
event records, CQEs and host memory contents.  Here they go through BAR0
of one board (the first with the known identity and a carrier, in the
order of the PCI hierarchy, or of $RCLINK_DEVS) with the driver unbound,
with DMA memory of the test's own
(locked pages whose bus addresses are their physical addresses, as
t1_model.py does; the test skips behind an IOMMU).  Memory decode and bus
mastering are on, INTx is masked (no MSI-X: the interrupt self-test
writes SELFTEST records, as the vectors expect).  Vector files marked
sim_only and ops marked "sim" (stimulus of the IP stand-in) are left to
the testbench.  A vector of user contexts is skipped on an RTL board in
co-simulation ($RCLINK_RTL_DEVS): its checks assume the model's lone board
or the testbench's stand-in, and t1_uctx.sh checks the contexts there;
so is a vector marked model_only (a function the RTL does not have yet).
A vector that "needs" register fields (a board of one
kind: SHIM_CAP3.ip_counters 0, the model's ip-internal-counters=off) runs
on the first board of the set that has them, wired or not, or is skipped.  A "sent" op (a TYPE1 packet the testbench sees on TX_S,
padded with zero bytes to SEG.PKT_MIN)
is looked up here among the frames of the wire capture of the pair
($RCLINK_RESULTS/wire.pcap, as boards.sh check writes it; a vector with
"sent" ops is skipped without it), and so is a "sent2" op (a TYPE2
packet: a frame of the standard format to UDP port 4792, the group in
the RH's DEST_QP), and so is a "sent3" op (a TYPE3 frame sent from the
MD ring: the buffer's bytes, padded with zeros to 60).  A "wirerx" op
hands the board a frame from the wire through its SHIM_WIRE_INJECT hook
(no link partner needed), a "wiretx" op checks SHIM_WIRE_TX_FRAMES and
the SHIM_WIRE_TX_LAST hook.  A "db" op writes a doorbell of a user context in the doorbell BAR (DMAQ_CTX_CAP.db_bar,
through sysfs resourceN).  One KTAP
result per vector file.

$RCLINK_VECTORS is the vector directory (default: firmware/vectors of the
tree this test lives in).
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
from rclinktest import check, hw  # noqa: E402  pylint: disable=C0413
import t1_model as t1  # noqa: E402  pylint: disable=C0413
import t1_wire  # noqa: E402  pylint: disable=C0413

VEC_DIR = os.environ.get('RCLINK_VECTORS',
                         os.path.join(HERE, '..', '..', '..', '..',
                                      'firmware', 'vectors'))
PAGE = 4096
NPAGES = 64
POLL_S = 5
ROCE_PORT = 4791
T2_PORT = 4792
# a TX_S packet shorter than this is padded with zero bytes (SEG.PKT_MIN)
PKT_MIN = hw.FORMATS['SEG'][2]['PKT_MIN']
# a TYPE3 frame shorter than a minimum Ethernet frame is padded to it
ETH_ZLEN = 60


def standard_req(frame, port):
    """(RH, payload) of a Standard-format REQ frame (IPv4/UDP to port,
    optional VLAN tag, no ICRC), or None."""
    l3 = 14
    etype = struct.unpack('>H', frame[12:14])[0]
    if etype == 0x8100 and len(frame) >= 18:
        etype = struct.unpack('>H', frame[16:18])[0]
        l3 = 18
    if etype != 0x0800 or len(frame) < l3 + 28 or frame[l3 + 9] != 17:
        return None
    l4 = l3 + (frame[l3] & 0xf) * 4
    dport, ulen = struct.unpack('>HH', frame[l4 + 2:l4 + 6])
    if dport != port or ulen < 16 or len(frame) < l4 + ulen:
        return None
    rh = struct.unpack('>Q', frame[l4 + 8:l4 + 16])[0]
    if rh >> 62 != 0:
        return None
    pad = (rh >> 59) & 3
    return rh, frame[l4 + 16:l4 + ulen - pad]


def type1_req(frame):
    """(DEST_QP, FACK, payload) of a TYPE1 REQ frame without ICRC, or
    None."""
    r = standard_req(frame, ROCE_PORT)
    return r and (r[0] & 0x1fff, (r[0] >> 61) & 1, r[1])


def type2_pkt(frame):
    """(group, payload) of a TYPE2 frame of the standard format (IPv4/UDP
    to T2_PORT, the group in the RH's DEST_QP, no ICRC), or None."""
    r = standard_req(frame, T2_PORT)
    return r and (r[0] & 0x1fff, r[1])


class Runner:  # pylint: disable=too-many-instance-attributes
    def __init__(self, bar, mem, vl):
        self.bar = bar
        self.mem = mem
        self.vl = vl
        self.dbar = None
        self.page = {}
        self.pcap = None
        self.pcap_off = 0
        self.frames = []
        self.fidx = 0

    def where(self, spec):
        """(mmap offset) of a host address spec inside a buffer."""
        name, off = (spec.split('+') + ['0'])[:2]
        off = self.vl.num(off)
        check(name in self.page and 0 <= off < PAGE,
              'address %s outside the vector\'s buffers' % spec)
        return self.page[name] * PAGE + off

    def sent(self, op):
        """The next REQ frame of QP op[1] on the wire carries the segment
        header and the bytes of the pieces; None or what differs."""
        vl = self.vl
        mm = self.mem.mm
        want = struct.pack('<Q', vl.value(op[2]))
        for a, ln in op[4]:
            o = self.where(a)
            want += bytes(mm[o:o + vl.value(ln)])
        want = want.ljust(PKT_MIN, b'\0')
        qpn, fack = vl.value(op[1]), vl.value(op[3])
        end = time.monotonic() + POLL_S
        while True:
            while self.fidx < len(self.frames):
                req = type1_req(self.frames[self.fidx])
                self.fidx += 1
                if req and req[0] == qpn and req[2] == want:
                    return None if req[1] == fack else 'FACK %d' % req[1]
            if time.monotonic() > end:
                return 'no such frame among %d on the wire' % len(self.frames)
            time.sleep(0.05)
            recs, _ = t1_wire.pcap_records(self.pcap, self.pcap_off)
            self.frames = [d for _, d in recs]

    def sent2(self, op):
        """The next TYPE2 frame to group op[1] on the wire carries the
        segment header and the bytes of the pieces; None or what
        differs."""
        vl = self.vl
        mm = self.mem.mm
        want = struct.pack('<Q', vl.value(op[2]))
        for a, ln in op[3]:
            o = self.where(a)
            want += bytes(mm[o:o + vl.value(ln)])
        want = want.ljust(PKT_MIN, b'\0')
        group = vl.value(op[1])

        def match(frame):
            pkt = type2_pkt(frame)
            return bool(pkt) and pkt[0] == group and pkt[1] == want
        return self.on_wire(match, 'TYPE2 frame')

    def sent3(self, op):
        """The next TYPE3 frame on the wire is the op[2] bytes at op[1]
        (padded with zeros to ETH_ZLEN); None or what differs."""
        o = self.where(op[1])
        want = bytes(self.mem.mm[o:o + self.vl.value(op[2])])
        want = want.ljust(ETH_ZLEN, b'\0')
        return self.on_wire(lambda f: f == want, 'TYPE3 frame')

    def on_wire(self, match, what):
        """Skip the frames of the wire capture up to the next one match
        takes (waiting up to POLL_S for it); None or what is missing."""
        end = time.monotonic() + POLL_S
        while True:
            while self.fidx < len(self.frames):
                frame = self.frames[self.fidx]
                self.fidx += 1
                if match(frame):
                    return None
            if time.monotonic() > end:
                return 'no such %s among %d on the wire' % (what,
                                                           len(self.frames))
            time.sleep(0.05)
            recs, _ = t1_wire.pcap_records(self.pcap, self.pcap_off)
            self.frames = [d for _, d in recs]

    def wire_rx(self, op):
        """A frame from the wire: its bytes in host memory, delivered by
        the board's SHIM_WIRE_INJECT hook (the model's)."""
        vl = self.vl
        data = vl.frame_bytes(op[2])
        a = self.where(op[1])
        check(a % PAGE + len(data) <= PAGE,
              '%r: the frame runs past its buffer' % (op[:2],))
        self.mem.mm[a:a + len(data)] = data
        self.bar.w64(vl.reg('SHIM_WIRE_INJECT_ADDR')[0],
                     vl.addr(op[1], self.bases()))
        self.bar.w64(vl.reg('SHIM_WIRE_INJECT')[0],
                     vl.value({'reg': 'SHIM_WIRE_INJECT', 'len': len(data)}))

    def wire_tx(self, op):
        """The board has sent op[1] frames to the wire since its reset,
        the last of Ethernet type op[2] and op[3] bytes
        (SHIM_WIRE_TX_FRAMES, the SHIM_WIRE_TX_LAST hook); None or what
        differs."""
        vl = self.vl
        total = vl.value(op[1])
        off = vl.reg('SHIM_WIRE_TX_FRAMES')[0]
        end = time.monotonic() + POLL_S
        got = self.bar.r64(off)
        while got < total and time.monotonic() < end:
            time.sleep(0.001)
            got = self.bar.r64(off)
        if got != total:
            return '%d frames sent' % got
        if not total:
            return None
        last = self.bar.r64(vl.reg('SHIM_WIRE_TX_LAST')[0])
        et = last & 0xffff
        ln = (last >> 16) & 0xffff
        if (et, ln) != (vl.value(op[2]), vl.value(op[3])):
            return 'the last frame of type %#x, %d bytes' % (et, ln)
        return None

    def bases(self):
        return {n: self.mem.phys[p] for n, p in self.page.items()}

    def rd(self, off, width):
        return self.bar.r64(off) if width == 64 else self.bar.r32(off)

    def wr(self, off, width, val):
        if width == 64:
            self.bar.w64(off, val)
        else:
            self.bar.w32(off, val)

    def load(self, v, key):
        """Map the vector's buffers (v[key]) to pages, zeroed."""
        self.page = {n: i for i, n in enumerate(sorted(v[key]))}
        check(len(self.page) <= NPAGES, 'too many buffers')
        self.mem.mm[0:NPAGES * PAGE] = bytes(NPAGES * PAGE)

    def run(self, v, peer=None):
        self.load(v, 'buffers')
        if peer:
            peer.load(v, 'peer_buffers')
        if any(op[0] in ('sent', 'sent2', 'sent3') for op in v['ops']):
            self.pcap = rt.wire_pcap() or None
            if not self.pcap:
                raise rt.SkipTest('no wire capture ($RCLINK_RESULTS/'
                                  'wire.pcap) for the frames')
            self.pcap_off = os.path.getsize(self.pcap)
            self.frames = []
            self.fidx = 0
        errs = []
        for n, op in enumerate(v['ops']):
            if op[0] == 'sim':
                continue
            if op[0] == 'peer':
                peer.do(n, op[1:], errs)
            elif op[0] == 'model':
                self.do(n, op[1:], errs)
            else:
                self.do(n, op, errs)
            if len(errs) > 10:
                break
        check(not errs, '\n'.join(errs))

    def do(self, n, op, errs):  # pylint: disable=too-many-branches
        """One op; a failed check appends to errs."""
        vl = self.vl
        mm = self.mem.mm
        k = op[0]
        if k == 'sent':
            err = self.sent(op)
            if err:
                errs.append('op %d %r: %s' % (n, op, err))
        elif k in ('sent2', 'sent3'):
            err = self.sent2(op) if k == 'sent2' else self.sent3(op)
            if err:
                errs.append('op %d %r: %s' % (n, op, err))
        elif k in ('w64', 'w32'):
            off, _ = vl.reg(op[1])
            self.wr(off, 64 if k == 'w64' else 32, vl.value(op[2]))
        elif k in ('r64', 'r32'):
            off, _ = vl.reg(op[1])
            width = 64 if k == 'r64' else 32
            mask = vl.value(op[3]) if len(op) > 3 else (1 << width) - 1
            got = self.rd(off, width)
            if got & mask != vl.value(op[2]):
                errs.append('op %d %r: read 0x%x' % (n, op, got))
        elif k == 'rge':
            off, _ = vl.reg(op[1])
            end = time.monotonic() + POLL_S
            got = self.bar.r64(off)
            while got < vl.value(op[2]) and time.monotonic() < end:
                time.sleep(0.001)
                got = self.bar.r64(off)
            if got < vl.value(op[2]):
                errs.append('op %d %r: read 0x%x' % (n, op, got))
        elif k == 'wbuf':
            off, _ = vl.reg(op[1])
            self.bar.w64(off, vl.addr(op[2], self.bases()))
        elif k == 'poll':
            off, _ = vl.reg(op[1])
            mask = vl.value(op[3]) if len(op) > 3 else (1 << 64) - 1
            end = time.monotonic() + POLL_S
            got = self.bar.r64(off)
            while got & mask != vl.value(op[2]) and time.monotonic() < end:
                time.sleep(0.001)
                got = self.bar.r64(off)
            if got & mask != vl.value(op[2]):
                errs.append('op %d %r: read 0x%x' % (n, op, got))
        elif k == 'memw':
            struct.pack_into('<Q', mm, self.where(op[1]), vl.value(op[2]))
        elif k == 'memr':
            mask = vl.value(op[3]) if len(op) > 3 else (1 << 64) - 1
            got = struct.unpack_from('<Q', mm, self.where(op[1]))[0]
            if got & mask != vl.value(op[2]):
                errs.append('op %d %r: memory 0x%x' % (n, op, got))
        elif k == 'fill':
            a = self.where(op[1])
            data = vl.pattern(vl.value(op[3]), vl.value(op[2]))
            mm[a:a + len(data)] = data
        elif k in ('wqe', 'rqe'):
            a = self.where(op[1])
            if k == 'wqe':
                w0 = vl.value(op[2])
                w1 = (vl.addr(op[3], self.bases())
                      if isinstance(op[3], str) and op[3][:2] != '0x'
                      else vl.value(op[3]))
            else:
                w0 = vl.addr(op[2], self.bases())
                w1 = vl.value(op[3])
            struct.pack_into('<QQ', mm, a, w0, w1)
        elif k == 'memeq':
            a, b, ln = self.where(op[1]), self.where(op[2]), vl.value(op[3])
            if mm[a:a + ln] != mm[b:b + ln]:
                errs.append('op %d %r: bytes differ' % (n, op))
        elif k == 'wirerx':
            self.wire_rx(op)
        elif k == 'wiretx':
            err = self.wire_tx(op)
            if err:
                errs.append('op %d %r: %s' % (n, op, err))
        elif k == 'master':
            cmd = t1.config_word(self.bar.bdf, t1.PCI_COMMAND) & ~t1.CMD_MASTER
            t1.config_word(self.bar.bdf, t1.PCI_COMMAND,
                           cmd | (t1.CMD_MASTER if vl.value(op[1]) else 0))
        elif k == 'db':
            if not self.dbar:
                self.dbar = rt.DoorbellBar(self.bar.bdf, self.bar)
            self.dbar.ring(vl.value(op[1]), op[2], vl.value(op[3]))
        elif k == 'dbw':
            if not self.dbar:
                self.dbar = rt.DoorbellBar(self.bar.bdf, self.bar)
            off, size, val = vl.db_write(op, self.dbar.shift)
            self.dbar.write(off, size, val)
        else:
            raise rt.TestFailed('unknown op %r' % op)


def uses_contexts(v):
    """The vector rings doorbells of user contexts."""
    return any(op[0] in ('db', 'dbw') or
               (op[0] == 'peer' and op[1] in ('db', 'dbw'))
               for op in v['ops'])


def has_contexts(bar):
    return bar.r64(hw.reg('DMAQ_CTX_CAP')) & 0xffff > 1


def uses_mr(v):
    """The vector works the registration table of RDMA WRITE and READ."""
    return any(len(op) > 1 and isinstance(op[1], str) and
               op[1].startswith(('DMAQ_MR_', 'DMAQ_RDMA_'))
               for op in v['ops'])


def has_mr(bar):
    return bar.r64(hw.reg('DMAQ_MR_CAP')) & 0xffff > 0


def matches(bar, needs):
    """The board's registers hold the fields a vector needs ("needs")."""
    for reg, fields in needs.items():
        for f, want in fields.items():
            if bar.rfield(reg, f) != want:
                return False
    return True


def board_for(v, devs, opened):
    """The first board of the known identity (wired or not) whose
    registers are as the vector needs, or None.  The boards already opened
    are read through their own BAR0: Bar0(enable=True) would switch
    their decode, and with it bus mastering, off again at its end."""
    for b in opened:
        if matches(b.bar, v['needs']):
            return b.bdf
    for bdf in devs:
        if bdf in [b.bdf for b in opened]:
            continue
        with rt.Bar0(bdf, enable=True) as bar:
            if (bar.rfield('SHIM_ID', 'magic') == hw.MAGIC and
                    bar.rfield('SHIM_VERSION', 'major') ==
                    hw.SHIM_VERSION_MAJOR and matches(bar, v['needs'])):
                return bdf
    return None


def run_needs(ktap, v, devs, vl, opened):
    """A vector of a board of one kind, on such a board (one already
    opened, or one of its own)."""
    bdf = board_for(v, devs, opened)
    if not bdf:
        ktap.skip(v['name'], 'no board with %s (the model: see the '
                  'vector\'s desc)' % v['needs'])
        return
    for b in opened:
        if b.bdf == bdf:
            ktap.run(v['name'], b.runner.run, v, None)
            return
    b = Board(bdf, vl)
    try:
        b.open()
        ktap.run(v['name'], b.runner.run, v, None)
    finally:
        b.close(ktap)


def usable(bdf):
    """A board of the known identity with a carrier (the vectors expect a
    wired board; the selftests' board set also holds boards the driver
    refuses and boards without a wire)."""
    with rt.Bar0(bdf, enable=True) as bar:
        return (bar.rfield('SHIM_ID', 'magic') == hw.MAGIC and
                bar.rfield('SHIM_VERSION', 'major') == hw.SHIM_VERSION_MAJOR
                and bar.rfield('SHIM_LINK', 'up'))


class Board:
    """One board for the vectors: unbound, decode and bus mastering on,
    INTx masked, DMA pages of its own."""

    def __init__(self, bdf, vl):
        self.bdf = bdf
        self.vl = vl
        self.bound = False
        self.saved = None
        self.mem = self.bar = self.runner = None

    def open(self):
        bdf = self.bdf
        if rt.driver_of(bdf) == rt.DRIVER:
            rt.unbind(bdf)
            self.bound = True
        self.saved = t1.config_word(bdf, t1.PCI_COMMAND)
        t1.config_word(bdf, t1.PCI_COMMAND, self.saved | t1.CMD_MEMORY |
                       t1.CMD_MASTER | t1.CMD_INTX_DISABLE)
        self.mem = t1.DmaMem(NPAGES)
        self.bar = rt.Bar0(bdf)
        self.bar.w64(self.vl.reg('SHIM_RESET')[0], 1)
        self.runner = Runner(self.bar, self.mem, self.vl)
        return self

    def close(self, ktap):
        vl = self.vl
        if self.runner and self.runner.dbar:
            self.runner.dbar.close()
        if self.bar:
            self.bar.w64(vl.reg('SHIM_RESET')[0], 1)
            self.bar.r64(vl.reg('SHIM_ID')[0])
            self.bar.close()
        if self.mem:
            self.mem.close()
        if self.saved is not None:
            t1.config_word(self.bdf, t1.PCI_COMMAND, self.saved)
        if self.bound:
            try:
                rt.bind(self.bdf)
            except (OSError, rt.TestFailed) as e:
                ktap.diag('rebind %s: %s' % (self.bdf, e))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    if not os.path.isdir(VEC_DIR):
        ktap.skip_all('no vector directory %s' % VEC_DIR)
    sys.path.insert(0, VEC_DIR)
    import vecload as vl  # pylint: disable=import-outside-toplevel
    vecs = [vl.load(f) for f in vl.all_files()]
    vecs = [v for v in vecs if not v.get('sim_only')]
    if os.path.isdir('/sys/kernel/iommu_groups') and \
            os.listdir('/sys/kernel/iommu_groups'):
        ktap.skip_all('an IOMMU translates DMA: user-space buffers unusable')
    devs = rt.all_devices()
    every = list(devs)
    if not os.environ.get('RCLINK_DEVS'):
        # in the order of their place in the PCI hierarchy (root port
        # first): the order the boards were plugged in, where the bus
        # numbers may run the other way
        devs.sort(key=lambda d: os.path.realpath(rt.pci_path(d)))
    devs = [d for d in devs if usable(d)]
    if not devs:
        ktap.skip_all('no rclink board with the known magic, shim major '
                      'and a carrier')
    boards = []
    try:
        boards.append(Board(devs[0], vl))
        boards[0].open()
        if len(devs) > 1:
            boards.append(Board(devs[1], vl))
            boards[1].open()
        ktap.plan(len(vecs))
        for v in vecs:
            if v.get('needs'):
                run_needs(ktap, v, every, vl, boards)
                continue
            if any(op[0] == 'peer' for op in v['ops']) and len(boards) < 2:
                ktap.skip(v['name'], 'needs the wired pair')
                continue
            if uses_contexts(v) and not all(has_contexts(b.bar)
                                            for b in boards):
                # a shim without them reports num 1
                ktap.skip(v['name'], 'the board has no user contexts')
                continue
            if uses_contexts(v) and any(rt.is_rtl(b.bdf) for b in boards):
                # their checks of acknowledgements and slots assume the
                # model's lone board or the testbench's IP stand-in (its
                # "sim" ops), neither the co-simulation's stand-in nor
                # its bridge to the model's wire
                ktap.skip(v['name'], 'the contexts vectors run on the model '
                          'and the RTL testbench (rtl.sh sim); on an RTL '
                          'board t1_uctx.sh checks the contexts')
                continue
            if v.get('cosim_skip') and any(rt.is_rtl(b.bdf) for b in boards):
                # runs on the model and the RTL testbench, not yet on the
                # co-simulation's RTL board (the vector says why)
                ktap.skip(v['name'], v['cosim_skip'])
                continue
            if v.get('model_only') and any(rt.is_rtl(b.bdf) for b in boards):
                # a function the RTL does not have yet (the testbench
                # skips it too)
                ktap.skip(v['name'], v['model_only'])
                continue
            if uses_mr(v) and not all(has_mr(b.bar) for b in boards):
                # DMAQ_MR_CAP.num 0: no registration table (the RTL today)
                ktap.skip(v['name'], 'the board has no registration table')
                continue
            ktap.run(v['name'], boards[0].runner.run, v,
                     boards[1].runner if len(boards) > 1 else None)
    except rt.SkipTest as e:
        ktap.skip_all(str(e))
    finally:
        for b in boards:
            b.close(ktap)
        mod.__exit__(None, None, None)
    ktap.finish()


if __name__ == '__main__':
    main()
