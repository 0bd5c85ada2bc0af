# SPDX-License-Identifier: GPL-2.0
"""The TYPE3 ring engine of the IP stand-in in the cocotb benches: a
Python twin of tb/rclink_t3_model.v (the MD rings of
Documentation/hw/shim.rst, "TYPE3 rings") that plays the IP's two TYPE3
masters with cocotbext-axi's AxiMaster, so a shared vector's TYPE3 ops
(``sent3``, sim ``rx3``, ``t3drops``, ``nosent3``) replay through the
PCIe tops as on the word-level bench (test_rclink_us.py, ``Stand``).

As there, the registers stay in the IP stand-in (tb/rclink_ip_model.v):
the twin reads them on its t3_* outputs and gives its results on the
bench's t3e_* hooks (rclink_tb_stand_in.vh), one cycle each.  The bursts
are the model's: an MD is read with one beat of 16 bytes (NONR_MD_AXI,
ARSIZE 4) and its word 0 written back with the 6 low bytes (WSTRB 0x3f
of its half); a TX frame is read in bursts of at most 4 lines of 64
bytes, an RX frame written in bursts of at most 8, none across 4 KiB,
the first starting at the buffer's address.  One transfer at a time; a
burst answered other than OKAY ends the frame's transfer.

The MAC side is the vector's: TX frames (padded with zeros to the 60
bytes of a minimum Ethernet frame) are kept for ``sent3`` and, when the
vector plays the wire (mac_wire.py), sent on the IP's CEMAC_TX; ``rx3`` hands
the engine a frame and waits until it is stored or dropped.  The drops
the IP alone knows are counted here (off, no MDs, fault), as the model's
drop_off, drop_nomd and drop_err.
"""

import os
import sys

import cocotb
from cocotb.triggers import FallingEdge, RisingEdge

from cocotbext.axi import AxiBus, AxiMaster, AxiResp

sys.path.insert(0, os.environ["RCLINK_HW_PY"])
sys.path.insert(0, os.environ["RCLINK_VECTORS"])
import rclink_hw as hw  # noqa: E402
import vecload as vl  # noqa: E402
from vecset import op_kind  # noqa: E402

# MD word 0 (shim.rst, "Memory descriptors"): DATA_SIZE 19:4, SF, LF,
# BUF_SIZE 63:48 (RX)
MD_SF, MD_LF = 1 << 20, 1 << 21
TX_MAX, RX_OVERSIZE, ETH_ZLEN = 4096, 8096, 60
P_NONE, P_SOP, P_EOP = 0, 1, 2
# the stand-in's ops the twin plays
OPS = {"sent3", "sim:rx3", "sim:t3drops", "sim:nosent3"}


def st0(**bits):
    """DMA_INTR_ST0 bits of the contract."""
    return vl.value(dict(reg="DMA_INTR_ST0", **bits))


def st1(**bits):
    return vl.value(dict(reg="DMA_INTR_ST1", **bits))


# the ST1 bits that only report (bus errors): the path goes on
REPORT_ONLY = st1(md_axi_wr_resp_err=1, md_axi_rd_resp_err=1,
                  data_axi_resp_err=1)


def wanted(v):
    """Whether vector v uses the TYPE3 engine (then it is started)."""
    return any(op_kind(op) in OPS for op in v["ops"])


class T3Twin:
    """tb/rclink_t3_model.v on the bench's NONR masters."""

    def __init__(self, dut, mem_get, log):
        self.dut = dut
        self.ip = dut.ip
        self.mem_get = mem_get
        self.log = log
        self.md = AxiMaster(AxiBus.from_prefix(dut, "nonr_md"), dut.user_clk,
                            dut.user_reset)
        self.dt = AxiMaster(AxiBus.from_prefix(dut, "nonr_data"),
                            dut.user_clk, dut.user_reset, max_burst_len=8)
        for m in (self.md, self.dt):
            for ifc in (m.read_if, m.write_if):
                ifc.log.setLevel("WARNING")
        self.txf = []               # TX frames sent, padded
        self.on_tx = None           # and each to the MAC side (mac_wire.py)
        self.seen = 0               # of those, checked by sent3
        self.rx = None              # a frame from the wire, not yet taken
        self.drop_off = self.drop_nomd = self.drop_err = 0
        self.halted = [False, False]            # TX, RX
        self.partial = P_NONE
        self.srst = [0, 0]          # soft resets (or IP resets) seen
        self.srst_done = [0, 0]     # those applied
        self.tasks = [cocotb.start_soon(self._watch()),
                      cocotb.start_soon(self._engine())]

    def stop(self):
        for t in self.tasks:
            t.kill()

    # ---- the IP's registers and results -----------------------------------
    def reg(self, name):
        return int(getattr(self.ip, "t3_" + name).value)

    def active(self, rx):
        c = self.reg("ctrl")
        if rx:
            want = vl.value({"reg": "NONR_DMA_CTRL", "rx_en": 1, "rx_reset": 1})
        else:
            want = vl.value({"reg": "NONR_DMA_CTRL", "tx_en": 1, "tx_reset": 1})
        return c & want == want

    def ring_size(self, rx):
        """The ring's size, 0 when it cannot be used (size 0, base not
        64-byte aligned)."""
        ba = self.reg("rx_ba" if rx else "tx_ba")
        size = self.reg("rx_size" if rx else "tx_size") & 0xFFF
        return 0 if ba & 63 else size

    def tail_up(self, rx, old, new, size):
        """The ST0 tail-up bit if TAIL_UP_CFG's value lies in (old, new]."""
        name = "rx_tail_up" if rx else "tx_tail_up"
        mask, shift = hw.field("TAIL_UP_CFG", name)
        cfg = (self.reg("tail_up_cfg") & mask) >> shift
        en = self.reg("int_mask") & vl.value({"reg": "DMA_INT_MASK", name: 1})
        moved = (new + size - old) % size
        dist = (cfg + size - old) % size
        if moved and cfg < size and en and dist and dist <= moved:
            return st0(**{name: 1})
        return 0

    async def give(self, which, ttx=0, trx=0, s0=0, s1=0, latch=0):
        """The results to the IP's register file, one cycle (t3_set)."""
        d = self.dut
        await FallingEdge(d.user_clk)
        d.t3e_set_tail.value = which
        d.t3e_new_tx_tail.value = ttx
        d.t3e_new_rx_tail.value = trx
        d.t3e_st0.value = s0
        d.t3e_st1.value = s1
        d.t3e_st0_latch.value = latch
        d.t3e_set.value = 1
        await FallingEdge(d.user_clk)
        d.t3e_set.value = 0
        d.t3e_set_tail.value = 0
        d.t3e_st0.value = 0
        d.t3e_st1.value = 0
        d.t3e_st0_latch.value = 0

    # ---- the transfers ------------------------------------------------------
    async def md_read(self, a):
        """(MD as a 128-bit number, error)."""
        r = await self.md.read(a, 16, size=4)
        return int.from_bytes(r.data, "little"), r.resp != AxiResp.OKAY

    async def md_write(self, a, w0):
        """Word 0's low 6 bytes (DATA_SIZE, SF, LF; BUF_SIZE kept)."""
        w = await self.md.write(a, w0.to_bytes(8, "little")[:6], size=4)
        return w.resp != AxiResp.OKAY

    async def data_move(self, wr, a, data=None, n=0):
        """Read n bytes at a (returns (bytes, err)) or write data at a
        (returns (None, err)), in bursts of at most 4 lines (read) or 8
        (write) of 64 bytes, none across 4 KiB; a burst answered other
        than OKAY ends it."""
        if wr:
            n = len(data)
        got, off, cur = bytearray(), 0, a
        while off < n:
            line = cur & ~63
            lines = min((4096 - (line & 0xFFF)) // 64, 8 if wr else 4)
            take = min(lines * 64 - (cur - line), n - off)
            if wr:
                r = await self.dt.write(cur, data[off:off + take])
            else:
                r = await self.dt.read(cur, take)
                got += r.data
            if r.resp != AxiResp.OKAY:
                return None, True
            off += take
            cur += take
        return (None if wr else bytes(got)), False

    # ---- the engine ------------------------------------------------------------
    async def _watch(self):
        """A soft reset (or the IP's reset) may come while a frame moves."""
        d = self.dut
        while True:
            await RisingEdge(d.user_clk)
            rst = not int(d.ip_rst_n.value)
            s = int(self.ip.t3_srst.value)
            for i in (0, 1):
                if rst or s >> i & 1:
                    self.srst[i] += 1

    async def _engine(self):
        """A received frame first, else the TX ring."""
        d = self.dut
        while True:
            await FallingEdge(d.user_clk)
            for i in (0, 1):
                if self.srst_done[i] != self.srst[i]:
                    self.halted[i] = False
                    if i == 0:
                        self.partial = P_NONE
                    self.srst_done[i] = self.srst[i]
            if not int(d.ip_rst_n.value):
                continue
            if self.rx is not None:
                await self._rx_frame(self.rx)
                self.rx = None
                continue
            size = self.ring_size(False)
            head = self.reg("tx_head") & 0xFFF
            if self.active(False) and not self.halted[0] and size and \
                    head < size and head != self.reg("tx_tail") & 0xFFF:
                await self._tx_run()

    async def _tx_md(self, md):
        """One MD; the ST1 bit of its fault (0: sent or skipped)."""
        d, err = await self.md_read(self.reg("tx_ba") + md * 16)
        if err:
            return st1(md_axi_rd_resp_err=1)
        sf, lf, n = d & MD_SF, d & MD_LF, (d >> 4) & 0xFFFF
        if not (sf and lf):
            # a frame must fit one MD: anything else is skipped, but two
            # SOPs or two EOPs in a row are a fault
            if sf and self.partial == P_SOP:
                return st1(tx_two_sop=1)
            if lf and self.partial == P_EOP:
                return st1(tx_two_eop=1)
            if sf:
                self.partial = P_SOP
            elif lf:
                self.partial = P_EOP
            return 0
        self.partial = P_NONE
        if n == 0:
            return st1(tx_md_size_zero=1)
        if n > TX_MAX:
            return st1(tx_oversize=1)
        data, err = await self.data_move(False, d >> 64, n=n)
        if err:
            return st1(data_axi_resp_err=1)
        # to the MAC: at least a minimum Ethernet frame
        self.txf.append(data.ljust(ETH_ZLEN, b"\0"))
        if self.on_tx is not None:
            self.on_tx(self.txf[-1])
        return 0

    async def _tx_run(self):
        """The MDs from tail to head."""
        size = self.ring_size(False)
        head = self.reg("tx_head") & 0xFFF
        tail = self.reg("tx_tail") & 0xFFF
        if tail >= size:
            tail = 0
        old, s1, s0, latch = tail, 0, 0, 0
        while tail != head and not self.halted[0]:
            st = await self._tx_md(tail)
            if st:
                self.log.info("t3: TX fault at MD %d: DMA_INTR_ST1 %#x",
                              tail, st)
            s1 |= st
            if st & ~REPORT_ONLY:
                self.halted[0] = True   # at this MD, until a soft reset
            else:
                tail = (tail + 1) % size
        if tail != old:
            s0 = self.tail_up(False, old, tail, size)
            if tail == head:
                latch = st0(tx_md_empty=1)
        await self.give(int(tail != old), tail, 0, s0, s1, latch)

    async def _rx_fault(self, s1, halt):
        if halt:
            self.halted[1] = True
        self.drop_err += 1
        self.log.info("t3: RX fault: DMA_INTR_ST1 %#x", s1)
        await self.give(0, s1=s1)

    async def _rx_frame(self, frame):
        """One frame from the MAC side: stored in the MDs from the tail,
        or dropped."""
        size = self.ring_size(True)
        head = self.reg("rx_head") & 0xFFF
        tail = self.reg("rx_tail") & 0xFFF
        if tail >= size:
            tail = 0
        if not self.active(True) or self.halted[1] or size == 0 or \
                head >= size:
            self.drop_off += 1
            return
        if len(frame) > RX_OVERSIZE:
            await self._rx_fault(st1(rx_oversize=1), True)
            return
        # the MDs the frame needs, all posted, before anything is written
        avail = (head + size - tail) % size
        mds, got = [], 0
        ba = self.reg("rx_ba")
        while got < len(frame) or not mds:
            if len(mds) == avail:
                self.drop_nomd += 1
                await self.give(0, s0=st0(rx_md_empty=1))
                return
            d, err = await self.md_read(ba + (tail + len(mds)) % size * 16)
            if err:
                await self._rx_fault(st1(md_axi_rd_resp_err=1), False)
                return
            if not d >> 48 & 0xFFFF:
                await self._rx_fault(st1(rx_md_size_zero=1), True)
                return
            mds.append(d)
            got += d >> 48 & 0xFFFF
        # the data, then word 0 of each MD
        off, chunks = 0, []
        for d in mds:
            chunk = min(d >> 48 & 0xFFFF, len(frame) - off)
            chunks.append(chunk)
            if chunk:
                _, err = await self.data_move(True, d >> 64,
                                              data=frame[off:off + chunk])
                if err:
                    await self._rx_fault(st1(data_axi_resp_err=1), False)
                    return
            off += chunk
        for i, (d, chunk) in enumerate(zip(mds, chunks)):
            w0 = (d & (0xFFFF << 48)) | chunk << 4
            w0 |= (MD_SF if i == 0 else 0) | (MD_LF if i == len(mds) - 1 else 0)
            if await self.md_write(ba + (tail + i) % size * 16, w0):
                await self._rx_fault(st1(md_axi_wr_resp_err=1), False)
                return
        new = (tail + len(mds)) % size
        await self.give(2, trx=new, s0=self.tail_up(True, tail, new, size))

    # ---- the vector's ops -------------------------------------------------------
    async def cycles(self, n):
        for _ in range(n):
            await RisingEdge(self.dut.user_clk)

    async def do(self, op, bases):
        """One of OPS; a list of what failed."""
        k = op[1] if op[0] == "sim" else op[0]
        val, adr = vl.value, (lambda a: vl.addr(a, bases))
        if k == "sent3":
            # the next frame on the wire: the bytes at addr, zeros up to 60
            n = val(op[2])
            for _ in range(20000):
                if len(self.txf) > self.seen:
                    break
                await RisingEdge(self.dut.user_clk)
            else:
                return ["no TYPE3 frame"]
            got = self.txf[self.seen]
            self.seen += 1
            want = self.mem_get(adr(op[1]), n).ljust(ETH_ZLEN, b"\0")
            if got != want:
                return ["TYPE3 frame %s (%d bytes), not %s (%d bytes)" %
                        (got[:64].hex(), len(got), want[:64].hex(), len(want))]
            return []
        if k == "rx3":
            self.rx = self.mem_get(adr(op[2]), val(op[3]))
            while self.rx is not None:
                await RisingEdge(self.dut.user_clk)
            return []
        if k == "t3drops":
            got = (self.drop_off, self.drop_nomd, self.drop_err)
            want = (val(op[2]), val(op[3]), val(op[4]))
            return [] if got == want else \
                ["TYPE3 RX drops (off, no MDs, fault) %r" % (got,)]
        if k == "nosent3":
            await self.cycles(500)
            n = len(self.txf) - self.seen
            return ["%d unexpected TYPE3 frames" % n] if n else []
        raise AssertionError("op %r is not the TYPE3 engine's" % (op,))
