# SPDX-License-Identifier: GPL-2.0
"""cocotb tests of the DMA engine (rclink_tlp_req) through its burst port.

The UltraScale+ top (cocotb/rclink_us_tb.v) under cocotbext-pcie's root
complex and hard IP model, as in test_rclink_us; ``Dma`` drives the
engine's burst port (dma_cmd_*, dma_wd_*, dma_rd_*) as a DMA user of the
core would.  Every request TLP that reaches the root complex is recorded,
so the MRRS / MPS and 4 KiB splits are checked on the bus, not inside the
RTL.  Completions can be split at every RCB, held back and sent in another
order, dropped (completion timeout) or poisoned.

test_dma_bench is the benchmark of ``rtl.sh bench`` (skipped otherwise):
4 KiB reads and writes back to back, throughput in MB/s at the 250 MHz
cycle time of the simulation.
"""

import os
import random

import cocotb
from cocotb.triggers import RisingEdge, Timer, with_timeout

from cocotbext.pcie.core.tlp import Tlp, TlpType
from cocotbext.pcie.core.utils import PcieId

from test_rclink_us import (PTILE, RC_TLPS, RQ_TLPS, SHORT, bring_up,
                            delay_reads, mps_mrrs, reg)

BENCH = os.environ.get("RCLINK_BENCH", "0") != "0"
CLK_NS = 4                  # 250 MHz
CPL_TIMEOUT = 4000          # rclink_us_tb's CPL_TIMEOUT (cycles)


class RcMon:
    """Counts the adapter's RC beats with a completion starting at DW lane
    4, 8 or 12 (straddled) and those it held because the core did not take
    all the completions of the beat (a bank two of them write)."""

    def __init__(self, dut):
        self.dut = dut
        self.straddled = 0
        self.split = 0
        self.most = 0               # most completions starting in a beat
        self.run = not PTILE        # (the P-tile adapter: one a beat)
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        if not self.run:
            return
        a = self.dut.dut.u_if
        while self.run:
            await RisingEdge(self.dut.user_clk)
            # the beat behind the adapter's register slice (rb_*)
            if int(a.rcs_valid.value) and int(a.rb_take.value):
                self.straddled += 1
            if int(a.rb_v.value):
                sops = bin(int(a.rb_u.value) & 0xF).count("1")
                self.most = max(self.most, sops)
                if not int(a.rb_take.value):
                    self.split += 1


class RqMon:
    """Counts the request beats the UltraScale+ top hands to the hard IP,
    the TLPs starting in them and those starting at DW lane 8 (RQ
    straddle: is_sop with pointer 2); the P-tile top's adapter beats
    (r_*), one TLP start at most, from lane 0."""

    def __init__(self, dut):
        self.dut = dut
        self.beats = 0
        self.tlps = 0
        self.lane8 = 0
        self.run = True
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        d = self.dut
        while self.run:
            await RisingEdge(d.user_clk)
            if PTILE:
                t = d.dut
                if int(t.r_valid.value) and int(t.r_ready.value):
                    self.beats += 1
                    self.tlps += int(t.r_sop.value)
                continue
            if not (int(d.s_axis_rq_tvalid.value) and
                    int(d.s_axis_rq_tready.value)):
                continue
            self.beats += 1
            if RQ_TLPS == 1:
                self.tlps += int(d.dut.u_if.rq_sop.value)
                continue
            u = int(d.s_axis_rq_tuser.value)
            for k in range(2):
                if u >> (20 + k) & 1:
                    self.tlps += 1
                    if (u >> (22 + 2 * k)) & 3 == 2:
                        self.lane8 += 1


class Dma:
    """A user of the engine's burst port."""

    def __init__(self, tb):
        self.tb = tb
        self.dut = tb.dut
        self.beats = []             # (data, keep, last, err) as they came
        self.cycle = 0
        self.last_rd_cycle = 0
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.user_clk)
            self.cycle += 1
            if int(dut.dma_rd_valid.value):
                self.beats.append((int(dut.dma_rd_data.value),
                                   int(dut.dma_rd_keep.value),
                                   int(dut.dma_rd_last.value),
                                   int(dut.dma_rd_err.value)))
                self.last_rd_cycle = self.cycle

    async def _cmd(self, write, addr, length):
        dut = self.dut
        dut.dma_cmd_write.value = int(write)
        dut.dma_cmd_addr.value = addr
        dut.dma_cmd_len.value = length
        await self._handshake(dut.dma_cmd_valid, dut.dma_cmd_ready)
        dut.dma_cmd_valid.value = 0

    async def _handshake(self, valid, ready):
        """Raise valid, return after the edge that took it."""
        valid.value = 1
        while True:
            await RisingEdge(self.dut.user_clk)
            if int(ready.value):
                return

    async def write(self, addr, data, gaps=None):
        """One burst write of data (1..4096 bytes) at addr; gaps: a
        random.Random, with which the lines come with up to 3 idle
        cycles before each."""
        dut = self.dut
        await self._cmd(True, addr, len(data))
        first = addr & ~63
        end = addr + len(data)
        for line in range(first, end, 64):
            buf = bytearray(64)
            for i in range(64):
                a = line + i
                if addr <= a < end:
                    buf[i] = data[a - addr]
            if gaps:
                dut.dma_wd_valid.value = 0
                for _ in range(gaps.choice((0, 0, 1, 3))):
                    await RisingEdge(dut.user_clk)
            dut.dma_wd_data.value = int.from_bytes(buf, "little")
            await self._handshake(dut.dma_wd_valid, dut.dma_wd_ready)
        dut.dma_wd_valid.value = 0

    async def read_cmd(self, addr, length):
        await self._cmd(False, addr, length)

    async def read_result(self, addr, length, start, timeout_us=200):
        """The data of a read whose beats start at self.beats[start]:
        (bytes, per-beat err list, index of the next burst's first beat)."""
        nbeats = ((addr & 63) + length + 63) // 64

        async def wait():
            while len(self.beats) < start + nbeats:
                await RisingEdge(self.dut.user_clk)
        await with_timeout(wait(), timeout_us, "us")
        out = bytearray()
        errs = []
        for k in range(nbeats):
            data, keep, last, err = self.beats[start + k]
            raw = data.to_bytes(64, "little")
            line = (addr & ~63) + 64 * k
            for i in range(64):
                inside = addr <= line + i < addr + length
                assert bool(keep >> i & 1) == inside, (k, i, hex(keep))
                if inside:
                    out.append(raw[i])
            assert last == (k == nbeats - 1), (k, last)
            errs.append(err)
        return bytes(out), errs, start + nbeats

    async def read(self, addr, length):
        start = len(self.beats)
        await self.read_cmd(addr, length)
        data, errs, _ = await self.read_result(addr, length, start)
        return data, errs


class Bus:
    """Records the request TLPs at the root complex; optionally sends the
    read completions itself (split at every RCB, held and reordered,
    dropped, poisoned)."""

    def __init__(self, tb):
        self.tb = tb
        self.rc = tb.rc
        self.reads = []             # (address, byte count)
        self.writes = []
        self.orig_rd = self.rc.rx_tlp_handler[TlpType.MEM_READ]
        self.orig_wr = self.rc.rx_tlp_handler[TlpType.MEM_WRITE]
        self.hold = 0               # hold this many reads, send them reversed
        self.held = []
        self.drop = None            # f(tlp) -> True: never answered
        self.poison = None          # f(tlp, i) -> True: completion i poisoned
        self.rcb_split = False
        # (us, f(address) -> True): such reads take the memory's bytes
        # when they arrive and are completed us microseconds later (an
        # answer that tells the memory as it was)
        self.snap_delay = None
        self.rc.register_rx_tlp_handler(TlpType.MEM_READ, self._rd)
        self.rc.register_rx_tlp_handler(TlpType.MEM_WRITE, self._wr)

    def restore(self):
        self.rc.register_rx_tlp_handler(TlpType.MEM_READ, self.orig_rd)
        self.rc.register_rx_tlp_handler(TlpType.MEM_WRITE, self.orig_wr)

    async def _wr(self, tlp):
        self.writes.append((tlp.address + tlp.get_first_be_offset(),
                            tlp.get_be_byte_count()))
        await self.orig_wr(tlp)

    async def _rd(self, tlp):
        self.reads.append((tlp.address + tlp.get_first_be_offset(),
                           tlp.get_be_byte_count()))
        if self.drop and self.drop(tlp):
            return
        if self.snap_delay and self.snap_delay[1](tlp.address):
            data = await self.rc.mem_address_space.read(tlp.address, tlp.length * 4)
            cocotb.start_soon(self._late(tlp, data, self.snap_delay[0]))
            return
        if not (self.hold or self.rcb_split or self.poison):
            await self.orig_rd(tlp)
            return
        if self.hold:
            self.held.append(tlp)
            if len(self.held) < self.hold:
                return
            batch, self.held, self.hold = self.held, [], 0
            for t in reversed(batch):
                await self._complete(t)
            return
        await self._complete(tlp)

    async def _late(self, tlp, data, us):
        await Timer(us, "us")
        await self._complete(tlp, data)

    async def _complete(self, tlp, data=None):
        """Completions of one read, each at most one 64-byte RCB (data:
        the bytes to send, else the memory's now)."""
        addr = tlp.address + tlp.get_first_be_offset()
        nbytes = tlp.get_be_byte_count()
        if data is None:
            data = await self.rc.mem_address_space.read(tlp.address, tlp.length * 4)
        m = 0                       # DWs sent
        n = 0                       # bytes sent
        i = 0
        while m < tlp.length:
            cpl = Tlp.create_completion_data_for_tlp(tlp, PcieId(0, 0, 0))
            dws = min(tlp.length - m, (64 - (addr & 0x3C)) >> 2)
            cpl.byte_count = nbytes - n
            cpl.lower_address = addr & 0x7F
            cpl.set_data(data[m * 4:(m + dws) * 4])
            if self.poison and self.poison(tlp, i):
                cpl.ep = True
            await self.rc.send(cpl)
            m += dws
            n += dws * 4 - (addr & 3)
            addr += dws * 4 - (addr & 3)
            i += 1


def check_splits(reqs, limit):
    """Every request within one aligned block of limit bytes (so within
    limit and never across a 4 KiB boundary)."""
    for a, n in reqs:
        assert 0 < n <= limit, (hex(a), n, limit)
        assert a // limit == (a + n - 1) // limit, (hex(a), n, limit)


async def settle(tb, cycles=None):
    """Let a configuration change reach the shim: the UltraScale+ block
    shows it at once, the P-tile on its time-multiplexed configuration
    bus, 32 cycles a round (two rounds)."""
    if cycles is None:
        cycles = 80 if PTILE else 20
    for _ in range(cycles):
        await RisingEdge(tb.dut.user_clk)


def rand_bytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


# (offset in a 16 KiB region, length): odd sizes and offsets, across 4 KiB
CASES = [(0x0FF3, 4096), (0x1FFE, 3), (0x2FC1, 1000), (0x3001, 1),
         (0x0040, 64), (0x07FD, 2051), (0x1F7D, 777), (0x2000, 4096)]


@cocotb.test()
async def test_dma_burst_rw(dut):
    """Burst writes and reads of odd sizes and offsets, across 4 KiB
    boundaries: host memory holds exactly the bytes written (its
    neighbours untouched), the reads return them with their keep; the
    request TLPs on the bus are split at MPS (writes) and MRRS (reads)."""
    tb, drv = await bring_up(dut)
    rng = random.Random(22)
    combos = [(256, 512), (128, 128)] if SHORT else \
        [(256, 512), (128, 128), (512, 256), (256, 4096)]
    for mps, mrrs in combos:
        mps_mrrs(tb, mps, mrrs)
        await settle(tb)
        dma = Dma(tb)
        bus = Bus(tb)
        base, mem = tb.rc.alloc_region(0x5000)
        for off, n in (CASES[:4] if SHORT else CASES):
            await write_read(dma, base, mem, rng, off, n, (mps, mrrs))
        # the engine caps MRRS at its buffer regions (MAX_RD 512)
        check_splits(bus.writes, mps)
        check_splits(bus.reads, min(mrrs, 512))
        assert max(n for _, n in bus.writes) == min(mps, 4096)
        assert max(n for _, n in bus.reads) == min(mrrs, 512)
        bus.restore()
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test()
async def test_dma_write_straddle(dut):
    """Write TLPs two a beat (UltraScale+ RQ_TLPS 2: a TLP that follows
    one of the same command starts at DW lane 8 of the beat that ends the
    one before): a 4 KiB write from a page takes 72 request beats at MPS
    256 (16 TLPs, 4.5 beats each; 80 with one TLP a beat) and 80 at MPS
    128 (32 TLPs, 2.5 beats each; 96); writes of odd offsets and lengths
    with the write data coming with gaps (a TLP whose first line is not
    there yet starts at lane 0 of the next beat) leave host memory
    exactly as written.  The P-tile top (no descriptor lanes) takes 64
    beats for the page either way."""
    tb, drv = await bring_up(dut)
    rng = random.Random(2204)
    base, mem = tb.rc.alloc_region(0x5000)
    for mps, want1, want2 in ((256, 80, 72), (128, 96, 80)):
        mps_mrrs(tb, mps, 512)
        await settle(tb)
        dma = Dma(tb)
        mon = RqMon(dut)
        data = rand_bytes(rng, 4096)
        await dma.write(base + 0x1000, data)
        await settle(tb, 50)
        mon.run = False
        assert bytes(mem[0x1000:0x2000]) == data, mps
        assert mon.tlps == 4096 // mps, (mps, mon.tlps)
        want = 64 if PTILE else want2 if RQ_TLPS == 2 else want1
        assert mon.beats == want, (mps, mon.beats, want)
        assert mon.lane8 == (mon.tlps // 2 if RQ_TLPS == 2 and not PTILE
                             else 0), (mps, mon.lane8)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    dma = Dma(tb)
    mon = RqMon(dut)
    cases = CASES[:4] if SHORT else CASES
    for gaps in (None, rng):
        for off, n in cases:
            await write_read(dma, base, mem, rng, off, n, gaps is None,
                             gaps=gaps)
    mon.run = False
    tb.log.info("RQ: %d beats, %d TLPs, %d from lane 8", mon.beats,
                mon.tlps, mon.lane8)
    if RQ_TLPS == 2 and not PTILE:
        assert mon.lane8 > 0, mon.lane8


async def write_read(dma, base, mem, rng, off, n, tag, gaps=None):
    """A burst write of n random bytes at base + off into a 0x5000-byte
    region of random bytes, then its read: the region holds exactly the
    bytes written, the read returns them without error (tag: the case,
    for the assertions)."""
    before = rand_bytes(rng, 0x5000)
    mem[0:0x5000] = before
    data = rand_bytes(rng, n)
    await dma.write(base + off, data, gaps=gaps)
    got, errs = await dma.read(base + off, n)
    want = before[:off] + data + before[off + n:]
    assert bytes(mem[0:0x5000]) == want, (tag, hex(off), n)
    assert got == data, (tag, hex(off), n)
    assert not any(errs), errs


async def held_reads(dut):
    """MPS 256, MRRS 512; the root complex holds 32 reads and completes
    them newest first; the RC beats counted."""
    tb, _ = await bring_up(dut)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    dma = Dma(tb)
    bus = Bus(tb)
    bus.hold = 32
    return tb, dma, bus, RcMon(dut)


@cocotb.test()
async def test_dma_32_reads_out_of_order(dut):
    """32 read requests outstanding (the hard IP model holds 32 tags at
    once), their completions split at every RCB and sent newest first:
    the bursts come back in command order with the right data."""
    tb, dma, bus, rc = await held_reads(dut)
    bus.rcb_split = True
    rng = random.Random(32)
    base, mem = tb.rc.alloc_region(0x5000)
    mem[0:0x5000] = rand_bytes(rng, 0x5000)
    # 4 bursts of about 4 KiB at odd offsets: 9 + 9 + 9 + 8 requests of
    # at most 512 B
    cmds = [(0x0010, 4096), (0x1010, 4096), (0x2010, 4096), (0x3010, 4000)]
    start = len(dma.beats)
    for off, n in cmds:
        await dma.read_cmd(base + off, n)
    for off, n in cmds:
        got, errs, start = await dma.read_result(base + off, n, start)
        assert got == bytes(mem[off:off + n]), hex(off)
        assert not any(errs)
    assert tb.max_tags == 32, tb.max_tags
    assert len(bus.reads) == 35, len(bus.reads)
    # straddled RC beats, some of whose completions write the same
    # reassembly bank (newest first: unrelated regions side by side)
    rc.run = False
    tb.log.info("RC: %d straddled beats, %d held", rc.straddled, rc.split)
    if PTILE:
        pass
    elif RC_TLPS > 1:
        assert rc.straddled > 0 and rc.split > 0, (rc.straddled, rc.split)
    else:
        assert rc.straddled == 0 and rc.split == 0, (rc.straddled, rc.split)
    check_splits(bus.reads, 512)
    bus.restore()
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test()
async def test_dma_small_reads_straddled(dut):
    """32 reads of 1 to 12 bytes outstanding, completed newest first, one
    of them poisoned: with straddling up to four completions share an RC
    beat, some writing the same bank of the reassembly buffer (the beat
    is held and given again); each burst comes back with its own data,
    only the poisoned one with err."""
    tb, dma, bus, rc = await held_reads(dut)
    bad = 0x40 * 20                 # the poisoned read's offset
    bus.poison = lambda tlp, i: (tlp.address & 0xFFF) == (bad & ~3)
    rng = random.Random(12)
    base, mem = tb.rc.alloc_region(0x1000)
    mem[0:0x1000] = rand_bytes(rng, 0x1000)
    # one read a 64-byte line, at a random DW of it (so the banks the
    # completions write collide at random)
    cmds = [(0x40 * k + (rng.randrange(16) * 4 if k != 20 else 0),
             rng.randrange(1, 13)) for k in range(32)]
    cmds = [(off, min(n, 0x40 * (k + 1) - off)) for k, (off, n) in enumerate(cmds)]
    start = len(dma.beats)
    for off, n in cmds:
        await dma.read_cmd(base + off, n)
    for off, n in cmds:
        got, errs, start = await dma.read_result(base + off, n, start)
        if off == bad:
            assert all(errs), (hex(off), errs)
        else:
            assert got == bytes(mem[off:off + n]), (hex(off), n)
            assert not any(errs), (hex(off), errs)
    rc.run = False
    tb.log.info("RC: %d straddled beats, %d held, at most %d completions a beat",
                rc.straddled, rc.split, rc.most)
    if PTILE:
        pass
    elif RC_TLPS == 4:
        assert rc.most >= 3 and rc.split > 0, (rc.most, rc.split)
    elif RC_TLPS == 2:
        assert rc.most == 2 and rc.straddled > 0, (rc.most, rc.straddled)
    else:
        assert rc.most == 1 and rc.straddled == 0, (rc.most, rc.straddled)
    bus.restore()
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test()
async def test_dma_cpl_timeout_mid_burst(dut):
    """A 2 KiB read whose second request is never completed: that
    request's beats answer err after the completion timeout (counted),
    the others carry their data; the next read works."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    dma = Dma(tb)
    bus = Bus(tb)
    rng = random.Random(7)
    base, mem = tb.rc.alloc_region(0x2000)
    mem[0:0x2000] = rand_bytes(rng, 0x2000)
    lost = base + 0x200
    bus.drop = lambda tlp: tlp.address == lost
    t0 = dma.cycle
    got, errs = await dma.read(base, 2048)
    assert errs == [0] * 8 + [1] * 8 + [0] * 16, errs
    assert got[:0x200] == bytes(mem[:0x200])
    assert got[0x400:] == bytes(mem[0x400:0x800])
    assert dma.cycle - t0 >= CPL_TIMEOUT
    assert int(dut.cnt_cpl_tmo.value) == 1
    bus.drop = None
    got, errs = await dma.read(base + 0x800, 1024)
    assert got == bytes(mem[0x800:0xC00]) and not any(errs)
    bus.restore()
    assert int(dut.cnt_cpl_unexp.value) == 0


@cocotb.test()
async def test_dma_poisoned_completion(dut):
    """A 512-byte read answered in 8 completions of 64 bytes, the third
    poisoned: its request's beats answer err; the following read of the
    same burst and the next burst are clean, no completion is left
    unexpected."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    dma = Dma(tb)
    bus = Bus(tb)
    bus.rcb_split = True
    rng = random.Random(9)
    base, mem = tb.rc.alloc_region(0x2000)
    mem[0:0x2000] = rand_bytes(rng, 0x2000)
    bus.poison = lambda tlp, i: tlp.address == base and i == 2
    got, errs = await dma.read(base, 1024)
    assert errs == [1] * 8 + [0] * 8, errs
    assert got[512:] == bytes(mem[512:1024])
    bus.poison = None
    got, errs = await dma.read(base, 1024)
    assert got == bytes(mem[:1024]) and not any(errs)
    bus.restore()
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test()
async def test_dma_bus_master_off(dut):
    """Bus Master Enable cleared while a 2 KiB read of the burst port is
    out (its completions 2 us late): that read still gets its data, and
    no request leaves the shim while bus mastering is off: a write's beats
    are taken and dropped (host memory untouched), a read answers its
    beats with err and the right keep; SHIM_DMA_BM_DROP counts the two
    bursts refused.  Set again, the port works."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    dma = Dma(tb)
    bus = Bus(tb)
    rng = random.Random(5)
    base, mem = tb.rc.alloc_region(0x2000)
    ref = rand_bytes(rng, 0x2000)
    mem[0:0x2000] = ref
    seen, _ = delay_reads(tb, 2)
    start = len(dma.beats)
    await dma.read_cmd(base, 2048)
    for _ in range(200):
        if len(seen) == 4:
            break
        await RisingEdge(dut.user_clk)
    assert len(seen) == 4, seen
    await drv.pdev.clear_master()
    await settle(tb)
    assert not tb.bus_master()
    n_rd, n_wr = len(seen), len(bus.writes)
    drops = await drv.bar0.read_qword(reg("SHIM_DMA_BM_DROP"))
    assert drops == 0, drops
    # a write and a read while bus mastering is off
    await dma.write(base + 0x805, rand_bytes(rng, 300))
    await dma.read_cmd(base + 0x1003, 200)
    got, errs, nxt = await dma.read_result(base, 2048, start)
    assert got == ref[:2048] and not any(errs), errs
    got, errs, _ = await dma.read_result(base + 0x1003, 200, nxt, timeout_us=20)
    assert errs == [1] * 4 and got == bytes(200), errs
    await Timer(3, "us")
    assert (len(seen), len(bus.writes)) == (n_rd, n_wr), \
        (seen[n_rd:], bus.writes[n_wr:])
    assert bytes(mem[0:0x2000]) == ref
    assert await drv.bar0.read_qword(reg("SHIM_DMA_BM_DROP")) == 2
    # bus mastering on again: the port works
    tb.rc.register_rx_tlp_handler(TlpType.MEM_READ, bus._rd)
    await drv.pdev.set_master()
    await settle(tb)
    data = rand_bytes(rng, 300)
    await dma.write(base + 0x805, data)
    got, errs = await dma.read(base + 0x805, 300)
    assert got == data and not any(errs), errs
    assert bytes(mem[0x805:0x805 + 300]) == data
    assert len(bus.writes) > n_wr and bus.reads
    assert await drv.bar0.read_qword(reg("SHIM_DMA_BM_DROP")) == 2
    bus.restore()
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test(skip=not BENCH)
async def test_dma_bench(dut):
    """rtl.sh bench: 4 KiB writes and reads back to back (MPS 256, MRRS
    512, 32 tags); MB/s over the simulated cycles at 250 MHz."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    dma = Dma(tb)
    n = 64
    base, mem = tb.rc.alloc_region(n * 4096)
    data = bytes(range(256)) * 16

    # writes: from the first command to the last request beat taken
    seen = {"last": 0}

    async def rq_watch():
        while True:
            await RisingEdge(dut.user_clk)
            if int(dut.s_axis_rq_tvalid.value) and int(dut.s_axis_rq_tready.value):
                seen["last"] = dma.cycle
    watcher = cocotb.start_soon(rq_watch())
    t0 = dma.cycle
    for i in range(n):
        await dma.write(base + i * 4096, data)
    await settle(tb, 50)
    wr_cycles = seen["last"] - t0
    watcher.kill()
    assert bytes(mem[0:4096]) == data

    # reads: from the first command to the last data beat
    t0 = dma.cycle
    start = len(dma.beats)

    async def issue():
        for i in range(n):
            await dma.read_cmd(base + i * 4096, 4096)
    cocotb.start_soon(issue())
    for i in range(n):
        got, errs, start = await dma.read_result(base + i * 4096, 4096, start)
        assert not any(errs)
    assert got == data
    rd_cycles = dma.last_rd_cycle - t0

    def mbs(cycles):
        return n * 4096 / (cycles * CLK_NS * 1e-9) / 1e6
    line = "rtl-bench: dma 4KiB write %d MB/s, read %d MB/s (%d x 4 KiB, " \
        "%d and %d cycles at 250 MHz, tags %d)" % (
            mbs(wr_cycles), mbs(rd_cycles), n, wr_cycles, rd_cycles,
            tb.max_tags)
    tb.log.warning(line)
    with open(os.environ.get("RCLINK_BENCH_OUT", "bench.txt"), "w") as f:
        f.write(line + "\n")
