# SPDX-License-Identifier: GPL-2.0
"""cocotb tests of the TYPE3 bridge (rclink_axi_dma).

cocotbext-axi's AxiMaster plays the RCLINK-Stream IP's two TYPE3 masters
(seed 000: NONR_MD_AXI, 256 bits, MD reads and 16-byte write-backs with
WSTRB 0x3f << 16k; NONR_DATA_AXI, 512 bits, frame data) against the
UltraScale+ top (cocotb/rclink_us_tb.v) under cocotbext-pcie's root
complex, whose memory is the host memory the MD rings point into.  Data
is checked in that memory byte for byte (its neighbours untouched), so
the strobes, 4 KiB splits and MPS / MRRS splits of the engine are covered
end to end.
"""

import itertools
import random
import struct

import cocotb
from cocotb.triggers import RisingEdge, Timer, with_timeout
from cocotb.utils import get_sim_time

from cocotbext.axi import AxiBus, AxiMaster, AxiResp
from cocotbext.pcie.core.tlp import TlpType

from test_rclink_dma import Bus, mps_mrrs, rand_bytes, settle
from test_rclink_us import (OP_CHECK, OP_FILL, SHORT, ST_DONE, ST_ERR, ST_OK,
                            PTILE, bring_up, delay_reads, flr_done, flr_set,
                            reg, wait_irq)

ERR = reg("SHIM_T3_DMA_ERR")


def masters(tb, data_burst=256):
    """The IP's two masters (data_burst: the data master's longest burst
    in beats; the IP issues at most 4 on reads and 8 on writes)."""
    dut = tb.dut
    md = AxiMaster(AxiBus.from_prefix(dut, "nonr_md"), dut.user_clk,
                   dut.user_reset)
    dt = AxiMaster(AxiBus.from_prefix(dut, "nonr_data"), dut.user_clk,
                   dut.user_reset, max_burst_len=data_burst)
    return md, dt


# (offset in a 16 KiB region, length, beat size or None: the bus width):
# odd lengths and addresses, across 4 KiB boundaries, narrow beats
DATA_CASES = [(0x0FF3, 4096, None), (0x1FFE, 3, None), (0x2FC1, 1000, None),
              (0x0040, 64, None), (0x07FD, 2051, None), (0x1F7D, 777, 2),
              (0x2FF1, 45, 3), (0x3001, 1, 0), (0x0E30, 600, 5)]


async def rw_check(tb, m, base, mem, off, data, size, rng):
    """Write data at base + off through master m, read it back through m
    (the read's completions come after the posted writes reached memory,
    as a driver's register read flushes them), check host memory."""
    before = rand_bytes(rng, 0x4000)
    mem[0:0x4000] = before
    w = await with_timeout(m.write(base + off, data, size=size), 200, "us")
    assert w.resp == AxiResp.OKAY, (hex(off), w.resp)
    r = await with_timeout(m.read(base + off, len(data), size=size), 200, "us")
    assert r.resp == AxiResp.OKAY, (hex(off), r.resp)
    want = before[:off] + data + before[off + len(data):]
    assert bytes(mem[0:0x4000]) == want, (hex(off), len(data), size)
    assert r.data == data, (hex(off), len(data), size)


async def flush(m, addr):
    """A read through m: it returns after every write before it reached
    host memory (PCIe: a read does not pass posted writes)."""
    r = await m.read(addr, 1, size=0)
    assert r.resp == AxiResp.OKAY


@cocotb.test()
async def test_t3_data_rw(dut):
    """NONR_DATA_AXI: writes and reads of odd lengths at odd addresses,
    across 4 KiB boundaries, full and narrow beats, bursts of any length
    (up to 64 beats of 64 bytes); MPS 128 and MRRS 128 split them further
    on the link."""
    tb, drv = await bring_up(dut)
    rng = random.Random(3)
    md, dt = masters(tb)
    combos = [(256, 512)] if SHORT else [(256, 512), (128, 128)]
    for mps, mrrs in combos:
        mps_mrrs(tb, mps, mrrs)
        await settle(tb)
        base, mem = tb.rc.alloc_region(0x4000)
        cases = DATA_CASES[:3] + DATA_CASES[5:6] if SHORT else DATA_CASES
        for off, n, size in cases:
            data = rand_bytes(rng, n)
            await rw_check(tb, dt, base, mem, off, data, size, rng)
    assert await drv.bar0.read_qword(ERR) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test()
async def test_t3_md_rw(dut):
    """NONR_MD_AXI as the IP uses it: 16- and 32-byte MD reads (ARSIZE 4
    and 5) and write-backs of the 6 low bytes of an MD (AWSIZE 4, WSTRB
    0x3f << 16k): only those bytes change in the ring; odd accesses work
    too."""
    tb, drv = await bring_up(dut)
    rng = random.Random(4)
    md, dt = masters(tb)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    base, mem = tb.rc.alloc_region(0x4000)
    ring = rand_bytes(rng, 0x4000)
    mem[0:0x4000] = ring
    for i in (0, 1, 2, 63, 255):
        r = await md.read(base + 16 * i, 16, size=4)
        assert r.resp == AxiResp.OKAY and r.data == ring[16 * i:16 * i + 16], i
    r = await md.read(base + 0x40, 32, size=5)
    assert r.data == ring[0x40:0x60]
    want = bytearray(ring)
    for i in (0, 1, 5, 255):
        wb = rand_bytes(rng, 6)
        w = await md.write(base + 16 * i, wb, size=4)
        assert w.resp == AxiResp.OKAY
        await flush(md, base)
        want[16 * i:16 * i + 6] = wb
        assert bytes(mem[0:0x4000]) == bytes(want), i
    if not SHORT:
        for off, n, size in ((0x0FFB, 77, None), (0x1FF0, 300, 4),
                             (0x0003, 1, 0)):
            data = rand_bytes(rng, n)
            await rw_check(tb, md, base, mem, off, data, size, rng)
    assert await drv.bar0.read_qword(ERR) == 0


@cocotb.test()
async def test_t3_both_masters(dut):
    """Both masters at once, several bursts each in flight (the IP's burst
    limits on the data master: 4 beats read, 8 beats write): every burst
    completes with its own data, neither master starves."""
    tb, drv = await bring_up(dut)
    rng = random.Random(5)
    md, dt = masters(tb, data_burst=8)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    base, mem = tb.rc.alloc_region(0xC000)
    init = rand_bytes(rng, 0xC000)
    mem[0:0xC000] = init
    # frames at odd offsets, some across a 4 KiB boundary
    frames = [(0x4000 + 0x1000 * i + 0x3C0 * (i & 1) + i,
               rand_bytes(rng, 100 + 331 * i))
              for i in range(3 if SHORT else 8)]
    mds = [(16 * i, rand_bytes(rng, 6)) for i in range(8 if SHORT else 32)]
    done = {"md": 0, "dt": 0}

    async def data_side():
        for a, d in frames:
            w = await dt.write(base + a, d)
            assert w.resp == AxiResp.OKAY
            done["dt"] += 1
        for a, d in frames:
            r = await dt.read(base + a, len(d))
            assert r.resp == AxiResp.OKAY and r.data == d, hex(a)

    async def md_side():
        for a, d in mds:
            r = await md.read(base + a, 16, size=4)
            assert r.data == init[a:a + 16]
            w = await md.write(base + a, d, size=4)
            assert w.resp == AxiResp.OKAY
            done["md"] += 1
    t1 = cocotb.start_soon(data_side())
    t2 = cocotb.start_soon(md_side())
    await with_timeout(t1.join(), 500, "us")
    await with_timeout(t2.join(), 500, "us")
    await flush(md, base)
    for a, d in frames:
        assert bytes(mem[a:a + len(d)]) == d, hex(a)
    for a, d in mds:
        assert bytes(mem[a:a + 6]) == d
        assert bytes(mem[a + 6:a + 16]) == init[a + 6:a + 16]
    assert await drv.bar0.read_qword(ERR) == 0


@cocotb.test()
async def test_t3_dma_error(dut):
    """A read whose completion is poisoned and a read of an address the
    root complex does not map (UR) answer SLVERR and are counted in
    SHIM_T3_DMA_ERR; with bus mastering off a write answers SLVERR, does
    not reach memory and is counted; the next accesses work."""
    tb, drv = await bring_up(dut)
    md, dt = masters(tb)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    bus = Bus(tb)
    rng = random.Random(6)
    base, mem = tb.rc.alloc_region(0x2000)
    mem[0:0x2000] = rand_bytes(rng, 0x2000)
    bus.rcb_split = True
    bus.poison = lambda tlp, i: tlp.address == base + 0x200
    r = await dt.read(base + 0x1C0, 256)
    assert r.resp == AxiResp.SLVERR, r.resp
    assert await drv.bar0.read_qword(ERR) == 1
    bus.poison = None
    bus.rcb_split = False
    r = await dt.read(base + 0x1C0, 256)
    assert r.resp == AxiResp.OKAY and r.data == bytes(mem[0x1C0:0x2C0])
    # UR: nothing at that address
    r = await md.read(0x7FFF00000000, 16, size=4)
    assert r.resp == AxiResp.SLVERR, r.resp
    assert await drv.bar0.read_qword(ERR) == 2
    # bus mastering off: refused without a request on the link
    await drv.pdev.clear_master()
    await settle(tb)
    nreq = len(bus.writes) + len(bus.reads)
    before = bytes(mem[0:0x2000])
    w = await dt.write(base + 0x100, bytes(300))
    assert w.resp == AxiResp.SLVERR, w.resp
    r = await md.read(base, 32)
    assert r.resp == AxiResp.SLVERR and r.data == bytes(32)
    assert bytes(mem[0:0x2000]) == before
    assert len(bus.writes) + len(bus.reads) == nreq
    await drv.pdev.set_master()
    await settle(tb)
    assert await drv.bar0.read_qword(ERR) == 4
    w = await dt.write(base + 0x100, bytes(300))
    assert w.resp == AxiResp.OKAY
    await flush(dt, base)
    assert bytes(mem[0x100:0x22C]) == bytes(300)
    bus.restore()


async def raw_write(dut, addr, beats):
    """One INCR burst of 64-byte beats on NONR_DATA_AXI, driven by hand:
    beats is a list of (data, wstrb); returns BRESP."""
    def sig(name):
        return getattr(dut, "nonr_data_" + name)

    async def handshake(valid, ready):
        """Raise valid (or ready), return after the edge that took it."""
        sig(valid).value = 1
        while True:
            await RisingEdge(dut.user_clk)
            if int(sig(ready).value):
                break
        sig(valid).value = 0

    sig("awaddr").value = addr
    sig("awlen").value = len(beats) - 1
    sig("awsize").value = 6
    sig("awburst").value = 1
    sig("awid").value = 5
    await handshake("awvalid", "awready")
    for i, (data, strb) in enumerate(beats):
        sig("wdata").value = int.from_bytes(data, "little")
        sig("wstrb").value = strb
        sig("wlast").value = int(i == len(beats) - 1)
        await handshake("wvalid", "wready")
    await handshake("bready", "bvalid")
    assert int(sig("bid").value) == 5
    return int(sig("bresp").value)


@cocotb.test()
async def test_t3_scattered_strobes(dut):
    """WSTRB with holes, driven by hand on the data port: one beat with
    several runs of strobes; a 3-beat burst whose run crosses the beats
    (one command); a 3-beat burst across a 4 KiB boundary (not a legal
    AXI burst, handled anyway: its run is cut there): exactly the
    strobed bytes reach host memory, each by one write TLP byte."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 128, 512)
    await settle(tb)
    bus = Bus(tb)
    rng = random.Random(11)
    base, mem = tb.rc.alloc_region(0x3000)
    before = rand_bytes(rng, 0x3000)
    mem[0:0x3000] = before
    want = bytearray(before)
    strobed = set()
    cases = [(0x0100, [0xF000_FFFF_0001_8F0F]),
             (0x0E80, [0xFFFF_FFFF_FFFF_F000, (1 << 64) - 1,
                       0x0000_0000_00FF_FFFF]),
             (0x1F80, [(1 << 64) - 2, (1 << 64) - 1, 0x8000_0000_0000_0003])]
    for addr, strbs in cases:
        beats = []
        for k, strb in enumerate(strbs):
            data = rand_bytes(rng, 64)
            beats.append((data, strb))
            for i in range(64):
                if strb >> i & 1:
                    want[addr + 64 * k + i] = data[i]
                    strobed.add(addr + 64 * k + i)
        assert await raw_write(dut, base + addr, beats) == 0
    # a read flushes the posted writes before it
    md, dt = masters(tb)
    await flush(dt, base)
    assert bytes(mem[0:0x3000]) == bytes(want)
    # no write TLP covers a byte without a strobe; the runs across beats
    # are one command each (at most an MPS block a TLP), cut at 4 KiB
    for a, n in bus.writes:
        assert all(x in strobed for x in range(a - base, a - base + n)), hex(a)
        assert (a // 4096) == ((a + n - 1) // 4096), hex(a)
    assert sum(n for _, n in bus.writes) == len(strobed)
    # the run 0xe8c-0xf17 over three beats is one command: two TLPs at
    # MPS 128 (one per beat would make three)
    assert len([a for a, _ in bus.writes if 0xE80 <= a - base < 0xF40]) == 2
    bus.restore()


@cocotb.test()
async def test_t3_read_room(dut):
    """The data master holds R back (rready low) with three 4 KiB reads
    out: the read buffer (128 lines) takes two, the third waits for room;
    meanwhile writes of both masters still go through (reads would wait
    behind the held data: one R queue serves both ports).  Once R flows
    again every read returns its data."""
    tb, drv = await bring_up(dut)
    md, dt = masters(tb)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    rng = random.Random(10)
    base, mem = tb.rc.alloc_region(0x4000)
    mem[0:0x4000] = rand_bytes(rng, 0x4000)
    want = bytes(mem[0:0x3000])
    dt.read_if.r_channel.pause = True
    reads = [cocotb.start_soon(dt.read(base + 0x1000 * i, 0x1000))
             for i in range(3)]
    br = dut.dut.u_tlp.u_t3
    while int(br.resv.value) != 128:           # two bursts' lines held
        await RisingEdge(dut.user_clk)
    for i in range(4):
        w = await with_timeout(md.write(base + 0x3000 + 16 * i, bytes(6),
                                        size=4), 20, "us")
        assert w.resp == AxiResp.OKAY
    w = await with_timeout(dt.write(base + 0x3100, bytes(200)), 20, "us")
    assert w.resp == AxiResp.OKAY
    assert not any(t.done() for t in reads)
    dt.read_if.r_channel.pause = False
    for i, t in enumerate(reads):
        r = await with_timeout(t, 50, "us")
        assert r.resp == AxiResp.OKAY
        assert r.data == want[0x1000 * i:0x1000 * (i + 1)], i
    assert bytes(mem[0x3000:0x3006]) == bytes(6)
    assert bytes(mem[0x3100:0x31C8]) == bytes(200)


@cocotb.test()
async def test_t3_write_before_irq(dut):
    """The IP raises its TYPE3 interrupt the cycle after the B of a frame
    write (a test hook of the bench does): the shim's event record and its
    MSI-X message reach the root complex after the frame's last byte, for
    a frame across a 4 KiB boundary at MPS 128 (many write TLPs)."""
    tb, drv = await bring_up(dut)
    md, dt = masters(tb, data_burst=8)
    mps_mrrs(tb, 128, 512)
    await settle(tb)
    await drv.msix_setup()
    await drv.mask(0, False)
    ring, rmem = tb.rc.alloc_region(0x1000)
    base, mem = tb.rc.alloc_region(0x4000)
    rng = random.Random(8)
    frame = rand_bytes(rng, 2000)
    seen = []
    def snap(v):
        k = len(seen)
        seen.append((bytes(mem[0x0F00:0x0F00 + len(frame)]),
                     bytes(rmem[16 * k:16 * (k + 1)])))
    drv.on_irq.append(snap)
    await drv.bar0.write_qword(reg("SHIM_EVT_BASE"), ring)
    await drv.bar0.write_qword(reg("SHIM_EVT_CTRL"), (0 << 16) | (4 << 8) | 1)
    # the ring is on before the IP writes: a read flushes the posted write
    # (the IP's masters are not behind the link; on the P-tile the first
    # burst's interrupt came before the write and found the ring off, a
    # counted drop)
    drops = await drv.bar0.read_qword(reg("SHIM_EVT_DROPS"))
    dut.t3_irq_on_b.value = 1
    # the frame in bursts of at most 8 beats: an interrupt after each B;
    # the first message finds the first burst, the last the whole frame
    w = await dt.write(base + 0x0F00, frame)
    assert w.resp == AxiResp.OKAY
    dut.t3_irq_on_b.value = 0
    # 0x0F00: the first burst is 256 bytes (up to the 4 KiB boundary)
    bursts = 1 + -(-(len(frame) - 256) // 512)
    await wait_irq(drv, 0, bursts, timeout_us=50)
    assert len(seen) == bursts, len(seen)
    for k, (data, rec) in enumerate(seen):
        info, meta = struct.unpack("<QQ", rec)
        assert info >> 31 == 3 and info & 0x1F == 1, hex(info)
        # burst k covers the frame up to 256 + 512 k bytes
        upto = min(len(frame), 256 + 512 * k)
        assert data[:upto] == frame[:upto], k
    assert seen[-1][0] == frame
    assert await drv.bar0.read_qword(reg("SHIM_EVT_DROPS")) == drops


@cocotb.test()
async def test_t3_reset_mid_write(dut):
    """SHIM_RESET while the bridge sends a write command's lines to the
    engine (the IP, reset with the shim, forgets its bursts): the engine
    still gets the command's lines, so it is not left waiting; after the
    reset the DMA self-test (the core's port) and the bridge work."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 128, 512)
    await settle(tb)
    br = dut.dut.u_tlp.u_t3
    # the data master is reset with the IP, as the IP's would be
    dt = AxiMaster(AxiBus.from_prefix(dut, "nonr_data"), dut.user_clk,
                   dut.ip_rst_n, reset_active_level=False)
    base, mem = tb.rc.alloc_region(0x10000)
    seen = {"hold": 0}

    async def watch():
        while True:
            await RisingEdge(dut.user_clk)
            if int(br.flush.value) and int(br.st.value) == 6:   # S_WPUSH
                seen["hold"] += 1
    watcher = cocotb.start_soon(watch())
    for attempt in range(4):
        task = cocotb.start_soon(dt.write(base, bytes(0x10000)))
        for _ in range(20 + 37 * attempt):
            await RisingEdge(dut.user_clk)
        while int(br.st.value) != 6:              # S_WPUSH
            await RisingEdge(dut.user_clk)
        await drv.reset()
        while not int(dut.ip_rst_n.value):          # IP_RST_CYCLES
            await RisingEdge(dut.user_clk)
        task.kill()
        if seen["hold"]:
            break
    watcher.kill()
    assert seen["hold"], "no reset hit a write command being sent"
    # the engine took the rest of the command and is free again
    addr, smem = tb.rc.alloc_region(0x1000)
    st = await drv.selftest(OP_FILL, addr, 512, 0x1234)
    assert st & ST_DONE and not st & ST_ERR, hex(st)
    st = await drv.selftest(OP_CHECK, addr, 512, 0x1234)
    assert st & ST_OK, hex(st)
    data = bytes(range(200))
    w = await with_timeout(dt.write(base + 0x11, data), 50, "us")
    assert w.resp == AxiResp.OKAY
    r = await with_timeout(dt.read(base + 0x11, len(data)), 50, "us")
    assert r.resp == AxiResp.OKAY and r.data == data
    assert bytes(mem[0x11:0x11 + 200]) == data


class Handshakes:
    """Sim times (ns) of the bridge's answers to the IP: B and R last."""

    def __init__(self, dut):
        self.dut = dut
        self.times = []
        self.task = cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.user_clk)
            for m in ("nonr_md", "nonr_data"):
                if int(getattr(dut, m + "_bvalid").value) and \
                        int(getattr(dut, m + "_bready").value):
                    self.times.append((m + " B", get_sim_time("ns")))
                if int(getattr(dut, m + "_rvalid").value) and \
                        int(getattr(dut, m + "_rready").value) and \
                        int(getattr(dut, m + "_rlast").value):
                    self.times.append((m + " R", get_sim_time("ns")))


async def flr(dut):
    """The block's FLR handshake: raise cfg_flr_in_process (the P-tile's
    flr_rcvd_pf), wait for the cfg_flr_done (flr_completed_pf) pulse (its
    sim time is returned), drop it again."""
    flr_set(dut, 1)

    async def done():
        while not flr_done(dut):
            await RisingEdge(dut.user_clk)
    await with_timeout(done(), 40, "us")
    t = get_sim_time("ns")
    await RisingEdge(dut.user_clk)
    flr_set(dut, 0)
    return t


@cocotb.test()
async def test_t3_flr_mid_burst(dut):
    """FLR with bursts of the IP in the bridge: (a) an MD read whose
    completion is 2 us late and a frame write whose W beats are still
    coming; (b) an MD read the bridge could not yet request (the engine
    busy with a slow write of its burst port).  Before cfg_flr_done every
    burst taken is answered (the late read with its data, the cut ones
    with SLVERR), so the IP's masters are never left waiting; host memory
    does not change after the acknowledge; after the FLR the bridge
    works again."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 256, 512)
    await settle(tb)
    # the masters reset with the IP, as the IP's own would
    md = AxiMaster(AxiBus.from_prefix(dut, "nonr_md"), dut.user_clk,
                   dut.ip_rst_n, reset_active_level=False)
    dt = AxiMaster(AxiBus.from_prefix(dut, "nonr_data"), dut.user_clk,
                   dut.ip_rst_n, reset_active_level=False)
    br = dut.dut.u_tlp.u_t3
    rng = random.Random(31)
    base, mem = tb.rc.alloc_region(0x10000)
    ref = rand_bytes(rng, 0x10000)
    mem[0:0x10000] = ref
    reads, orig = delay_reads(tb, 2)
    hs = Handshakes(dut)

    # (a) the MD read goes out, then the frame write's W beats trickle
    dt.write_if.w_channel.set_pause_generator(itertools.cycle([1] * 7 + [0]))
    rd = cocotb.start_soon(md.read(base + 0x100, 32, size=5))
    for _ in range(100):
        if reads:
            break
        await RisingEdge(dut.user_clk)
    assert reads == [base + 0x100], reads
    wr = cocotb.start_soon(dt.write(base + 0x1000, rand_bytes(rng, 4096)))
    for _ in range(200):
        await RisingEdge(dut.user_clk)
        if int(br.st.value) == 2 and int(br.q_wb.value) >= 4:    # S_WRECV
            break
    assert int(br.st.value) == 2, int(br.st.value)
    t_done = await flr(dut)
    assert sorted(m for m, _ in hs.times) == ["nonr_data B", "nonr_md R"], hs.times
    assert all(t < t_done for _, t in hs.times), (hs.times, t_done)
    r = await with_timeout(rd, 1, "us")
    assert r.resp == AxiResp.OKAY and r.data == ref[0x100:0x120], r
    w = await with_timeout(wr, 1, "us")
    assert w.resp == AxiResp.SLVERR, w.resp
    n_reads = len(reads)
    await Timer(5, "us")
    assert bytes(mem[0:0x10000]) == ref
    assert len(reads) == n_reads
    dt.write_if.w_channel.set_pause_generator(None)
    while not int(dut.ip_rst_n.value):
        await RisingEdge(dut.user_clk)
    assert await drv.bar0.read_qword(ERR) == 0

    # (b) the engine busy with a slow write of its burst port: the MD
    # read is taken but not requested when the FLR comes
    hs.times.clear()
    dut.dma_cmd_write.value = 1
    dut.dma_cmd_addr.value = base + 0x8000
    dut.dma_cmd_len.value = 4096
    dut.dma_cmd_valid.value = 1
    await RisingEdge(dut.user_clk)
    while not int(dut.dma_cmd_ready.value):
        await RisingEdge(dut.user_clk)
    dut.dma_cmd_valid.value = 0
    fill = rand_bytes(rng, 4096)

    async def beats():
        for k in range(64):
            for _ in range(15):
                await RisingEdge(dut.user_clk)
            dut.dma_wd_data.value = int.from_bytes(fill[64 * k:64 * k + 64], "little")
            dut.dma_wd_valid.value = 1
            await RisingEdge(dut.user_clk)
            while not int(dut.dma_wd_ready.value):
                await RisingEdge(dut.user_clk)
            dut.dma_wd_valid.value = 0
    feeder = cocotb.start_soon(beats())
    rd = cocotb.start_soon(md.read(base + 0x200, 32, size=5))
    for _ in range(100):
        await RisingEdge(dut.user_clk)
        if int(br.st.value) == 1:                   # S_RCMD
            break
    assert int(br.st.value) == 1, int(br.st.value)
    n_reads = len(reads)
    t_done = await flr(dut)
    assert [m for m, _ in hs.times] == ["nonr_md R"], hs.times
    assert all(t < t_done for _, t in hs.times), (hs.times, t_done)
    r = await with_timeout(rd, 1, "us")
    assert r.resp == AxiResp.SLVERR and r.data == bytes(32), r
    await with_timeout(feeder, 1, "us")
    # the port's write, taken before the FLR, was finished before it (the
    # hard IP models pass the last TLP they took to the root complex some
    # cycles later: the adapter itself was idle at the acknowledge)
    want = ref[:0x8000] + fill + ref[0x9000:]
    for _ in range(100):
        if bytes(mem[0:0x10000]) == want:
            break
        await Timer(10, "ns")
    assert bytes(mem[0:0x10000]) == want
    await Timer(5, "us")
    assert bytes(mem[0:0x10000]) == want
    assert len(reads) == n_reads
    hs.task.kill()

    # after the FLR (bus mastering kept by the model) the bridge works
    tb.rc.register_rx_tlp_handler(TlpType.MEM_READ, orig)
    while not int(dut.ip_rst_n.value):
        await RisingEdge(dut.user_clk)
    data = rand_bytes(rng, 300)
    w = await with_timeout(dt.write(base + 0x1011, data), 50, "us")
    assert w.resp == AxiResp.OKAY
    r = await with_timeout(dt.read(base + 0x1011, len(data)), 50, "us")
    assert r.resp == AxiResp.OKAY and r.data == data
    r = await with_timeout(md.read(base + 0x200, 32, size=5), 50, "us")
    assert r.resp == AxiResp.OKAY and r.data == want[0x200:0x220]
    assert bytes(mem[0x1011:0x1011 + 300]) == data
    assert await drv.bar0.read_qword(ERR) == 0
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test()
async def test_t3_flr_dead_master(dut):
    """FLR while the MD master holds R back for good (a hung IP): the
    drain gives up DRAIN_TMO (4096) cycles after the engine went idle,
    so cfg_flr_done still comes; the master, reset with the IP, forgets
    its read, and the bridge works after the FLR."""
    tb, drv = await bring_up(dut)
    await settle(tb)
    md = AxiMaster(AxiBus.from_prefix(dut, "nonr_md"), dut.user_clk,
                   dut.ip_rst_n, reset_active_level=False)
    br = dut.dut.u_tlp.u_t3
    base, mem = tb.rc.alloc_region(0x1000)
    ref = bytes(range(256)) * 16
    mem[0:0x1000] = ref
    md.read_if.r_channel.set_pause_generator(itertools.repeat(1))
    rd = cocotb.start_soon(md.read(base + 0x40, 32, size=5))
    for _ in range(400):
        await RisingEdge(dut.user_clk)
        if int(dut.nonr_md_rvalid.value):
            break
    assert int(dut.nonr_md_rvalid.value) and not int(dut.nonr_md_rready.value)
    t0 = get_sim_time("ns")
    t_done = await flr(dut)
    assert 4096 * 4 <= t_done - t0 < 4096 * 4 + 2000, t_done - t0
    rd.kill()
    md.read_if.r_channel.set_pause_generator(None)
    md.read_if.r_channel.pause = False
    while not int(dut.ip_rst_n.value):
        await RisingEdge(dut.user_clk)
    assert int(br.jcnt.value) == 0 and int(br.st.value) == 0
    r = await with_timeout(md.read(base + 0x40, 32, size=5), 20, "us")
    assert r.resp == AxiResp.OKAY and r.data == ref[0x40:0x60], r
