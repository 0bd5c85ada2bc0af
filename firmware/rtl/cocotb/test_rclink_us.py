# SPDX-License-Identifier: GPL-2.0
"""cocotb tests of the UltraScale+ shim (rclink_shim_us) at the PCIe level.

cocotbext-pcie's root complex enumerates its UltraScale+ hard IP model,
whose CQ/CC/RQ/RC streams and configuration ports drive the shim
(cocotb/rclink_us_tb.v, with the IP stand-in of tb/rclink_ip_model.v).
``Driver`` does what drivers/rclink does on the bus: probe (identity and
capability registers), MSI-X table programming with the vectors masked
and then unmasked, the event ring, the DMA self-test.  Register offsets
and fields come from the generated contract (selftests' rclink_hw.py).

The shared test vectors (firmware/vectors) run here too, through the
real TLPs, one test each (test_vector_NAME), as the QEMU model's
vectors.py runs them (MSI-X off, bus mastering on) and with the IP
stand-in's part as the word-level bench (tb/rclink_tb.v) plays it:
``Stand`` checks the TX_S packets (``sent``, ``sent2``, sim ``tx``,
``tx2``, ``notx``), drives RX_M (sim ``rx``, ``rx2``), holds and
releases the stand-in's TX_S tokens (sim ``credit``), waits (sim
``wait``), pulses the IP's IRQ, RECV_ACK and RETRY_TMO ports (sim
``ipirq``, ``ack``, ``tmo``), sets its status bits and levels and
checks its SET_TYPE2_RATE updates (sim ``ipset``, ``ipdfx``,
``t2rate``), checks the core's timers_run (sim ``timers``), runs the
IP's TYPE3 ring engine on the NONR masters (t3_twin.py: ``sent3``, sim
``rx3``, ``t3drops``, ``nosent3``), plays both ends of the MAC side
(mac_wire.py: ``wirerx``, ``wiretx``; the TYPE3 engine's frames go on
the IP's CEMAC_TX), and plays
the word-level bench's host side the PCIe way: bus mastering and MSI-X
through the configuration space (sim ``cfg``), the MSI-X messages at
the root complex (sim ``msix``, ``nomsix``), the INTx level the top
gives the hard IP (sim ``intx``), late completions of the root
complex (sim ``delay``) and a hard IP that takes no request beat for a
while after each write (sim ``wstall``); the ops of the model's peer
board and those of the model only are left out, as there.  vecset.py
says which vectors are replayed and why the others are not
(test_vector_set checks it and rtl.rst's lists); a vector that wants
fewer TX_S tokens (sim_ost_n) runs on the bench built with that OST_N
(rtl.sh), the others on the contract's.

RCLINK_COCOTB_SHORT=1 (make check) runs the same cases with a shorter DMA
buffer, without the vectors that say cocotb_long.  RCLINK_VECTOR_TRACE=1
logs each op of a vector as it starts (and the root complex's set-up
steps).

RCLINK_PCIE=ptile runs the same tests (and those of test_rclink_dma,
test_rclink_q, test_rclink_t3) on the P-tile top (cocotb/rclink_ptile_tb.v)
under cocotbext-pcie's P-tile device model instead (``TB`` hides the
difference: the FLR handshake, the request stream, the reads held), and
the P-tile's own test_ptile_* (the TX credit gate and the tile's own
credits, RX back-pressure and the request FIFO's wrap, INTx).
"""

import logging
import os
import struct
import sys

import cocotb
from cocotb.handle import Force, Release
from cocotb.result import SimTimeoutError
from cocotb.triggers import FallingEdge, RisingEdge, Timer, with_timeout
from cocotb.utils import get_sim_time

from cocotbext.axi import AxiStreamBus
from cocotbext.pcie.core import RootComplex
from cocotbext.pcie.core.caps import PciCapId
from cocotbext.pcie.core.tlp import Tlp, TlpType
from cocotbext.pcie.core.utils import PcieId
from cocotbext.pcie.intel.ptile import (PTilePcieDevice, PTileRxBus,
                                        PTileTxBus)
from cocotbext.pcie.xilinx.us import UltraScalePlusPcieDevice

sys.path.insert(0, os.environ["RCLINK_HW_PY"])
sys.path.insert(0, os.environ["RCLINK_VECTORS"])
import rclink_hw as hw  # noqa: E402
import mac_wire  # noqa: E402
import t3_twin  # noqa: E402
import vecload as vl  # noqa: E402
import vecset  # noqa: E402
from vecset import op_kind  # noqa: E402

SHORT = os.environ.get("RCLINK_COCOTB_SHORT", "0") != "0"
# RCLINK_VECTOR_TRACE=1: each op of a vector in the log as it starts
TRACE = os.environ.get("RCLINK_VECTOR_TRACE", "0") != "0"
# the bench: UltraScale+ (rclink_us_tb.v) or P-tile (rclink_ptile_tb.v)
PTILE = os.environ.get("RCLINK_PCIE", "us") == "ptile"
# UltraScale+: completions a 512-bit RC beat, 1, 2 or 4 (rtl.sh builds
# the shim the same way)
RC_TLPS = int(os.environ.get("RCLINK_RC_TLPS", "4"))
RQ_TLPS = int(os.environ.get("RCLINK_RQ_TLPS", "2"))
NVEC = hw.MSIX_VECTORS
NCTX = 8                    # rclink_us_tb.v: contexts, BAR4 of NCTX pages
DB_SHIFT = 16               # DMAQ_CTX_CAP.db_shift
STEP = 0x9E3779B9
OP_FILL, OP_CHECK = 1, 2
ST_DONE, ST_OK, ST_ERR = 1 << 1, 1 << 2, 1 << 3


def reg(name):
    return hw.reg(name)


def pattern(seed, nbytes):
    """The self-test pattern: 32-bit word i is seed ^ (i * STEP)."""
    return b"".join(struct.pack("<I", (seed ^ (i * STEP)) & 0xFFFFFFFF)
                    for i in range(nbytes // 4))


def flr_set(dut, on):
    """The hard IP's FLR request for PF0 (cfg_flr_in_process, the
    P-tile's flr_rcvd_pf)."""
    if PTILE:
        dut.flr_rcvd_pf.value = int(on)
    else:
        dut.cfg_flr_in_process.value = int(on)


def flr_done(dut):
    """The shim's FLR acknowledgement (cfg_flr_done, flr_completed_pf)."""
    d = dut.flr_completed_pf if PTILE else dut.cfg_flr_done
    return int(d.value) & 1


async def cfg_settle(tb):
    """Let a configuration change (mps_mrrs, bus mastering) reach the
    shim: the UltraScale+ block shows it at once, the P-tile on its
    time-multiplexed configuration bus, 32 cycles a round."""
    for _ in range(80 if PTILE else 0):
        await RisingEdge(tb.dut.user_clk)


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.log = logging.getLogger("cocotb.tb")
        self.log.setLevel(logging.INFO)

        # the MAC side's inputs at rest (the MAC tests and the wire's ops
        # drive them): no input of the shim left floating
        mac_wire.idle_inputs(dut)

        self.rc = RootComplex()
        # the hard IP's MSI-X capability points at the shim's table and PBA
        # in BAR2 (Documentation/hw/rtl.rst)
        msix = dict(pf0_msi_enable=True, pf0_msi_count=1,
                    pf0_msix_enable=True, pf0_msix_table_size=NVEC - 1,
                    pf0_msix_table_bir=2, pf0_msix_table_offset=0x000,
                    pf0_msix_pba_bir=2, pf0_msix_pba_offset=0x800)
        if PTILE:
            self.dev = PTilePcieDevice(
                port_num=0,
                pcie_generation=3,
                pcie_link_width=16,
                pld_clk_frequency=250e6,
                pf_count=1,
                max_payload_size=256,
                enable_extended_tag=False,
                **msix,
                reset_status=dut.reset_status,
                coreclkout_hip=dut.coreclkout_hip,
                rx_bus=PTileRxBus.from_prefix(dut, "rx_st"),
                tx_bus=PTileTxBus.from_prefix(dut, "tx_st"),
                tx_cdts_limit=dut.tx_cdts_limit,
                tx_cdts_limit_tdm_idx=dut.tx_cdts_limit_tdm_idx,
                tl_cfg_func=dut.tl_cfg_func,
                tl_cfg_add=dut.tl_cfg_add,
                tl_cfg_ctl=dut.tl_cfg_ctl,
                flr_rcvd_pf=dut.flr_rcvd_pf,
                flr_completed_pf=dut.flr_completed_pf,
            )
        else:
            self._us_device(dut, msix)
        self._setup(dut)

    def _us_device(self, dut, msix):
        self.dev = UltraScalePlusPcieDevice(
            pcie_generation=3,
            pcie_link_width=16,
            user_clk_frequency=250e6,
            alignment="dword",
            cq_straddle=False,
            cc_straddle=False,
            rq_straddle=RQ_TLPS == 2,
            rc_straddle=RC_TLPS >= 2,
            rc_4tlp_straddle=RC_TLPS == 4,
            pf_count=1,
            max_payload_size=256,
            enable_client_tag=True,
            enable_extended_tag=False,
            enable_parity=False,
            **msix,
            user_clk=dut.user_clk,
            user_reset=dut.user_reset,
            user_lnk_up=dut.user_lnk_up,
            rq_bus=AxiStreamBus.from_prefix(dut, "s_axis_rq"),
            rc_bus=AxiStreamBus.from_prefix(dut, "m_axis_rc"),
            cq_bus=AxiStreamBus.from_prefix(dut, "m_axis_cq"),
            pcie_cq_np_req=dut.pcie_cq_np_req,
            pcie_cq_np_req_count=dut.pcie_cq_np_req_count,
            cc_bus=AxiStreamBus.from_prefix(dut, "s_axis_cc"),
            cfg_max_payload=dut.cfg_max_payload,
            cfg_max_read_req=dut.cfg_max_read_req,
            cfg_function_status=dut.cfg_function_status,
            cfg_interrupt_msix_enable=dut.cfg_interrupt_msix_enable,
            cfg_interrupt_msix_mask=dut.cfg_interrupt_msix_mask,
            cfg_interrupt_msi_enable=dut.cfg_interrupt_msi_enable,
            cfg_interrupt_msi_int=dut.cfg_interrupt_msi_int,
            cfg_interrupt_msi_sent=dut.cfg_interrupt_msi_sent,
            cfg_interrupt_msi_fail=dut.cfg_interrupt_msi_fail,
            cfg_interrupt_int=dut.cfg_interrupt_int,
            cfg_interrupt_pending=dut.cfg_interrupt_pending,
            cfg_interrupt_sent=dut.cfg_interrupt_sent,
        )

    def _setup(self, dut):
        # the models' logs: warnings and errors only
        for name in ("cocotb.pcie", "cocotb.rclink_us_tb",
                     "cocotb.rclink_ptile_tb"):
            logging.getLogger(name).setLevel(logging.WARNING)
        self.dev.log.setLevel(logging.WARNING)
        self.rc.log.setLevel(logging.ERROR)
        for f in self.dev.functions:
            f.log.setLevel(logging.WARNING)

        # the hard IP's configuration (Documentation/hw/rtl.rst)
        f = self.dev.functions[0]
        f.vendor_id = hw.VENDOR_ID
        f.device_id = hw.DEVICE_ID
        f.class_code = 0x020000
        f.configure_bar(0, hw.BAR0_SIZE, ext=True, prefetch=False)
        f.configure_bar(2, 0x1000, ext=False, prefetch=False)
        # the doorbell BAR of the bench's NCTX contexts (rclink_us_tb.v)
        f.configure_bar(4, NCTX << DB_SHIFT, ext=True, prefetch=True)

        self.rc.make_port().connect(self.dev)

        # cocotbext-pcie's models leave the FLR request to the design;
        # test_flr_during_dma drives it as the block would
        self.flr(0)
        # the engine's burst port idles unless a test_dma_* drives it
        dut.dma_cmd_valid.value = 0
        dut.dma_wd_valid.value = 0
        # RX_M idles unless a test_q_* plays the IP's receive side
        for sig in ("vld", "fs", "fe", "dat", "keep", "qpid", "etype", "len",
                    "sa", "psn"):
            getattr(dut, "rx_m_" + sig).value = 0
        # the IP's TYPE3 masters idle unless a test_t3_* plays them
        for m in ("nonr_md", "nonr_data"):
            for sig in ("awvalid", "wvalid", "arvalid", "bready", "rready"):
                getattr(dut, "%s_%s" % (m, sig)).value = 0

        # reads the hard IP holds (tags in use), the most seen at once
        self.max_tags = 0
        self.rx_held = 0            # P-tile: cycles rx_st_ready was low
        cocotb.start_soon(self._watch_tags())

    async def _watch_tags(self):
        while True:
            await RisingEdge(self.dut.user_clk)
            self.max_tags = max(self.max_tags, self.reads_held())
            if PTILE and not int(self.dut.rx_st_ready.value):
                self.rx_held += 1

    # the FLR handshake, bus mastering and the request stream of either top
    def flr(self, on):
        flr_set(self.dut, on)

    def flr_done(self):
        return flr_done(self.dut)

    def bus_master(self):
        """Bus mastering as the shim sees it."""
        if PTILE:
            return int(self.dut.dut.bm_en.value)
        return int(self.dut.cfg_function_status.value) >> 2 & 1

    def req_tlp_end(self):
        """The request TLPs whose last beat goes to the hard IP in this
        cycle (on the P-tile: to the adapter, whose TX FIFO may hold it a
        few cycles more; with RQ straddling two may end in one beat, told
        by is_eop)."""
        d = self.dut
        if PTILE:
            d = d.dut
            return int(d.r_valid.value) and int(d.r_ready.value) \
                and int(d.r_last.value)
        if not (int(d.s_axis_rq_tvalid.value) and int(d.s_axis_rq_tready.value)):
            return 0
        if RQ_TLPS == 2:
            return bin((int(d.s_axis_rq_tuser.value) >> 26) & 3).count("1")
        return int(d.s_axis_rq_tlast.value)

    def reads_held(self):
        """Reads the hard IP holds a tag for (the UltraScale+ model); the
        P-tile model keeps none, there the engine's tags waiting for a
        completion (pending, or forgotten by a reset and held until their
        late completion)."""
        if PTILE:
            req = self.dut.dut.u_tlp.u_req
            return bin(int(req.pend.value) | int(req.zombie.value)).count("1")
        return 32 - self.dev.active_request[0:32].count(None)

    async def init(self):
        await FallingEdge(self.dut.user_reset)
        await Timer(100, "ns")
        await self.rc.enumerate()


class Driver:
    """What drivers/rclink does on the bus, as far as these tests go."""

    def __init__(self, tb):
        self.tb = tb
        self.rc = tb.rc
        self.pdev = None
        self.bar0 = None
        self.bar2 = None
        self.bar4 = None
        self.irqs = [0] * NVEC
        self.on_irq = []            # callbacks run with each message

    async def probe(self):
        self.pdev = self.rc.find_device(self.tb.dev.functions[0].pcie_id)
        assert self.pdev.vendor_id == hw.VENDOR_ID
        assert self.pdev.device_id == hw.DEVICE_ID
        await self.pdev.enable_device()
        await self.pdev.set_master()
        self.bar0 = self.pdev.bar_window[0]
        self.bar2 = self.pdev.bar_window[2]
        self.bar4 = self.pdev.bar_window[4]
        magic = await self.bar0.read_qword(reg("SHIM_ID"))
        assert magic & 0xFFFFFFFF == hw.MAGIC, hex(magic)
        ver = await self.bar0.read_qword(reg("SHIM_VERSION"))
        assert (ver >> 16) & 0xFFFF == hw.SHIM_VERSION_MAJOR, hex(ver)

    async def msix_setup(self):
        """pci_alloc_irq_vectors(): program the table, every vector masked
        (as Linux leaves them until request_irq), then enable MSI-X."""
        n = await self.pdev.alloc_irq_vectors(NVEC, NVEC)
        assert n == NVEC
        for v in range(NVEC):
            await self.mask(v, True)
            self.pdev.request_irq(v, self._handler(v))

    def _handler(self, v):
        async def handler():
            self.irqs[v] += 1
            for cb in list(self.on_irq):
                cb(v)
        return handler

    async def mask(self, v, masked):
        await self.bar2.write_dword(v * 16 + 12, 1 if masked else 0)
        # read back: the write reached the table before anything after it
        assert await self.bar2.read_dword(v * 16 + 12) == (1 if masked else 0)

    async def reset(self):
        """rclink_reset(): SHIM_RESET, then a read flushes the write."""
        await self.bar0.write_qword(reg("SHIM_RESET"), 1)
        magic = await with_timeout(self.bar0.read_qword(reg("SHIM_ID")), 10, "us")
        assert magic & 0xFFFFFFFF == hw.MAGIC, hex(magic)

    async def pba(self):
        return await self.bar2.read_qword(0x800)

    async def selftest(self, op, addr, nbytes, seed):
        await self.bar0.write_qword(reg("SHIM_TEST_DMA_ADDR"), addr)
        await self.bar0.write_qword(reg("SHIM_TEST_DMA_CTRL"),
                                    (seed << 32) | (op << 24) | nbytes)
        for _ in range(2000):
            st = await self.bar0.read_qword(reg("SHIM_TEST_DMA_STATUS"))
            if st & ST_DONE:
                return st
            await Timer(200, "ns")
        raise AssertionError("self-test did not finish")


async def bring_up(dut):
    tb = TB(dut)
    await tb.init()
    drv = Driver(tb)
    await drv.probe()
    return tb, drv


def mps_mrrs(tb, mps, mrrs):
    """Set the function's MPS and MRRS (device control) as the driver's
    PCI core would, and the root complex's MPS to the same (it bounds the
    completions); the hard IP model shows them on cfg_max_*."""
    tb.rc.max_payload_size = (mps // 128).bit_length() - 1
    cap = tb.dev.functions[0].pcie_cap
    cap.max_payload_size = (mps // 128).bit_length() - 1
    cap.max_read_request_size = (mrrs // 128).bit_length() - 1


def delay_reads(tb, us, only=lambda addr: True):
    """Memory reads at the root complex whose address passes only are
    completed us microseconds late, the others at once.  Returns the
    list of the addresses of all reads seen and the handler to restore."""
    orig = tb.rc.rx_tlp_handler[TlpType.MEM_READ]
    seen = []

    async def later(tlp):
        await Timer(us, "us")
        await orig(tlp)

    async def handler(tlp):
        seen.append(tlp.address)
        if only(tlp.address):
            cocotb.start_soon(later(tlp))
        else:
            await orig(tlp)
    tb.rc.register_rx_tlp_handler(TlpType.MEM_READ, handler)
    return seen, orig


async def wait_irq(drv, v, count, timeout_us=20):
    async def poll():
        while drv.irqs[v] < count:
            await RisingEdge(drv.tb.dut.user_clk)
    await with_timeout(poll(), timeout_us, "us")


@cocotb.test()
async def test_probe_registers(dut):
    """Identity and capability registers through real TLPs; scratch write
    and read-back; 32-bit halves; a 2-byte read completes (with 0, a bad
    size) with the right byte count and lower address."""
    tb, drv = await bring_up(dut)
    bar0 = drv.bar0
    for name in ("SHIM_CAP0", "SHIM_CAP1", "SHIM_CAP2", "SHIM_CAP3"):
        val = await bar0.read_qword(reg(name))
        assert val == hw.REGS[name][5], f"{name} {val:#x}"
    ver = hw.REGS["SHIM_VERSION"][5]
    assert await bar0.read_dword(reg("SHIM_VERSION")) == ver & 0xFFFFFFFF
    assert await bar0.read_dword(reg("SHIM_VERSION") + 4) == ver >> 32
    await bar0.write_qword(reg("SHIM_SCRATCH"), 0x0123456789ABCDEF)
    assert await bar0.read_qword(reg("SHIM_SCRATCH")) == 0x0123456789ABCDEF
    await bar0.write_dword(reg("SHIM_SCRATCH") + 4, 0xCAFEF00D)
    assert await bar0.read_qword(reg("SHIM_SCRATCH")) == 0xCAFEF00D89ABCDEF
    # RC window (AXI4-Lite to the IP stand-in): RX_CLASS_CFG reset value
    assert await bar0.read_qword(reg("RX_CLASS_CFG")) == hw.REGS["RX_CLASS_CFG"][5]
    # sub-DW accesses are refused by the register file (read 0), but
    # complete correctly on the link
    assert await bar0.read(reg("SHIM_ID") + 2, 2) == bytes(2)
    assert await bar0.read(reg("SHIM_ID") + 7, 1) == bytes(1)
    assert await bar0.read(reg("SHIM_ID") + 1, 3) == bytes(3)
    assert int(dut.cnt_bad_req.value) == 0
    # a read across a quad word is refused with UR and counted
    try:
        await bar0.read(reg("SHIM_ID") + 4, 8)
        refused = False
    except Exception as e:          # cocotbext-pcie: unsuccessful completion
        refused = "Unsuccessful" in str(e)
    assert refused
    assert int(dut.cnt_bad_req.value) == 1
    assert await bar0.read_qword(reg("SHIM_ID")) & 0xFFFFFFFF == hw.MAGIC


@cocotb.test()
async def test_dma_selftest(dut):
    """DMA self-test FILL then CHECK through RQ/RC into the root
    complex's memory, in bursts (one read request per MRRS, several
    outstanding); a changed word is found; a buffer at an address that is
    not 64-byte aligned, across a 4 KiB boundary, counts each changed
    word."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 128, 128)
    await Timer(100, "ns")
    nbytes = 512 if SHORT else 4096
    addr, mem = tb.rc.alloc_region(0x2000)
    reads, _ = delay_reads(tb, 0, only=lambda a: False)
    seed = 0x5EED1234
    # ok tells about the last CHECK only (Documentation/hw/shim.rst)
    st = await drv.selftest(OP_FILL, addr, nbytes, seed)
    assert st & ST_DONE and not st & ST_ERR, hex(st)
    assert bytes(mem[0:nbytes]) == pattern(seed, nbytes)
    assert bytes(mem[nbytes:nbytes + 8]) == bytes(8)
    st = await drv.selftest(OP_CHECK, addr, nbytes, seed)
    assert st & ST_OK and not st & ST_ERR, hex(st)
    assert tb.max_tags > 1, tb.max_tags
    assert len(reads) == nbytes // 128, len(reads)
    tb.log.info("reads outstanding at most: %d", tb.max_tags)
    mem[40] ^= 0xFF
    st = await drv.selftest(OP_CHECK, addr, nbytes, seed)
    assert st & ST_DONE and not st & ST_OK and st >> 32 == 1, hex(st)
    # a length of 4 mod 8: the burst ends one DW into a quad word
    st = await drv.selftest(OP_FILL, addr + 0x1000, 12, seed)
    assert st & ST_DONE and not st & ST_ERR, hex(st)
    assert bytes(mem[0x1000:0x100c]) == pattern(seed, 12)
    assert bytes(mem[0x100c:0x1010]) == bytes(4)
    st = await drv.selftest(OP_CHECK, addr + 0x1000, 12, seed)
    assert st & ST_OK, hex(st)
    # 8-byte aligned only, across the 4 KiB boundary at 0x1000
    off, n = 0xFC8, 0x24C
    mem[0:0x2000] = bytes(0x2000)
    st = await drv.selftest(OP_FILL, addr + off, n, seed)
    assert st & ST_DONE and not st & ST_ERR, hex(st)
    assert bytes(mem[off:off + n]) == pattern(seed, n)
    assert bytes(mem[:off]) == bytes(off) and bytes(mem[off + n:]) == bytes(0x2000 - off - n)
    st = await drv.selftest(OP_CHECK, addr + off, n, seed)
    assert st & ST_OK and st >> 32 == 0, hex(st)
    mem[off] ^= 1
    mem[0x1000 + 7] ^= 0x80
    mem[off + n - 1] ^= 4
    st = await drv.selftest(OP_CHECK, addr + off, n, seed)
    assert st & ST_DONE and not st & ST_OK and st >> 32 == 3, hex(st)


@cocotb.test()
async def test_msix(dut):
    """The driver's MSI-X table programming, read back through BAR2; a
    vector raised while masked stays pending in the PBA and is delivered on
    unmask; the function mask likewise; the event ring's record is in host
    memory when its message arrives."""
    tb, drv = await bring_up(dut)
    await drv.msix_setup()
    for v in range(NVEC):
        vec = drv.pdev.msi_vectors[v]
        lo = await drv.bar2.read_dword(v * 16)
        hi = await drv.bar2.read_dword(v * 16 + 4)
        data = await drv.bar2.read_dword(v * 16 + 8)
        assert (hi << 32) | lo == vec.addr and data == vec.data
    assert await drv.pba() == 0
    # sub-DW reads and a byte write of the table (BAR2 takes any byte
    # enables): the completion's lower address and byte count pick the
    # bytes
    v3 = drv.pdev.msi_vectors[3]
    entry = struct.pack("<QI", v3.addr, v3.data)
    assert await drv.bar2.read(3 * 16 + 1, 3) == entry[1:4]
    assert await drv.bar2.read(3 * 16 + 10, 2) == entry[10:12]
    await drv.bar2.write(3 * 16 + 9, b"\xab")
    assert await drv.bar2.read_dword(3 * 16 + 8) == (v3.data & ~0xFF00) | 0xAB00
    await drv.bar2.write_dword(3 * 16 + 8, v3.data)
    assert await drv.bar2.read_dword(3 * 16 + 8) == v3.data

    # masked: pending, no message; unmasked: the message
    await drv.bar0.write_qword(reg("SHIM_TEST_IRQ"), 2)
    await Timer(2, "us")
    assert drv.irqs[2] == 0
    assert await drv.pba() == 1 << 2
    await drv.mask(2, False)
    await wait_irq(drv, 2, 1)
    assert await drv.pba() == 0

    # unmasked: at once
    await drv.mask(1, False)
    await drv.bar0.write_qword(reg("SHIM_TEST_IRQ"), 1)
    await wait_irq(drv, 1, 1)

    # function mask (MSI-X capability, message control bit 14)
    msg_ctrl = await drv.pdev.capability_read_word(PciCapId.MSIX, 2)
    await drv.pdev.capability_write_word(PciCapId.MSIX, 2, msg_ctrl | 0x4000)
    await Timer(200, "ns")       # the P-tile shows it in 32 cycles
    await drv.bar0.write_qword(reg("SHIM_TEST_IRQ"), 1)
    await Timer(2, "us")
    assert drv.irqs[1] == 1
    assert await drv.pba() == 1 << 1
    await drv.pdev.capability_write_word(PciCapId.MSIX, 2, msg_ctrl & ~0x4000)
    await wait_irq(drv, 1, 2)
    assert await drv.pba() == 0

    # the event ring on vector 0: the record is there with its message
    await drv.mask(0, False)
    ring, mem = tb.rc.alloc_region(0x1000)
    seen = []
    drv.on_irq.append(lambda v: seen.append((v, bytes(mem[0:16]))))
    await drv.bar0.write_qword(reg("SHIM_EVT_BASE"), ring)
    await drv.bar0.write_qword(reg("SHIM_EVT_CTRL"), (0 << 16) | (4 << 8) | 1)
    info = 0x0000_00A5_0000_1234
    await drv.bar0.write_qword(reg("SHIM_EVT_INJECT"), info)
    await wait_irq(drv, 0, 1)
    assert seen and seen[0][0] == 0, seen
    rec_info, rec_meta = struct.unpack("<QQ", seen[0][1])
    assert rec_info == info, hex(rec_info)
    assert rec_meta >> 63 == 1, hex(rec_meta)
    assert await drv.bar0.read_qword(reg("SHIM_EVT_PROD")) == 1
    # a ring base off the contract's alignment (8 bytes into a line, 56):
    # the record at base + 16 * index crosses a line and is still written
    # whole, in one burst of two beats, before its message
    mem[0:0x100] = bytes(0x100)
    seen.clear()
    drv.on_irq[-1] = lambda v: seen.append((v, bytes(mem[0x38:0x48])))
    await drv.bar0.write_qword(reg("SHIM_EVT_CTRL"), 0)
    await drv.bar0.write_qword(reg("SHIM_EVT_BASE"), ring + 0x38)
    await drv.bar0.write_qword(reg("SHIM_EVT_CTRL"), (0 << 16) | (4 << 8) | 1)
    await drv.bar0.write_qword(reg("SHIM_EVT_INJECT"), info + 1)
    await wait_irq(drv, 0, 2)
    rec_info, rec_meta = struct.unpack("<QQ", seen[0][1])
    assert rec_info == info + 1 and rec_meta >> 63 == 1, seen
    assert bytes(mem[0:0x38]) == bytes(0x38) and bytes(mem[0x48:0x100]) == bytes(0xB8)


@cocotb.test()
async def test_msi(dut):
    """MSI (one vector) when MSI-X is off: an event record, then the MSI
    through the block's cfg_interrupt_msi_int / _sent handshake; the
    interrupt self-test makes a SELFTEST record (no MSI-X) and an MSI."""
    tb, drv = await bring_up(dut)
    assert await drv.pdev.enable_msi_range(1, 1) == 1
    drv.pdev.request_irq(0, drv._handler(0))
    ring, mem = tb.rc.alloc_region(0x1000)
    await drv.bar0.write_qword(reg("SHIM_EVT_BASE"), ring)
    await drv.bar0.write_qword(reg("SHIM_EVT_CTRL"), (4 << 8) | 1)
    await drv.bar0.write_qword(reg("SHIM_EVT_INJECT"), 0x1234)
    await wait_irq(drv, 0, 1)
    assert struct.unpack("<Q", bytes(mem[0:8]))[0] == 0x1234
    await drv.bar0.write_qword(reg("SHIM_TEST_IRQ"), 2)
    await wait_irq(drv, 0, 2)
    info, meta = struct.unpack("<QQ", bytes(mem[16:32]))
    assert info == 2 and meta & 0xFF == 3, (hex(info), hex(meta))
    assert await drv.pba() == 0


@cocotb.test(skip=not PTILE)
async def test_ptile_credits(dut):
    """P-tile: the adapter takes the link partner's credit limits (finite
    in the model) from the time-multiplexed tx_cdts_limit and starts no
    posted TLP without a posted header credit: with the PH limit held at
    what was used, a DMA FILL writes nothing and does not finish while
    register reads still complete; with the limit back it finishes and
    the data is right."""
    tb, drv = await bring_up(dut)
    ifc = dut.dut.u_if
    # PH, NPH, CPLH, PD, NPD, CPLD: all finite
    assert int(ifc.fin.value) & 0x77 == 0x77, bin(int(ifc.fin.value))
    addr, mem = tb.rc.alloc_region(0x1000)
    seed, nbytes = 0x77AA55, 256
    used_ph = int(ifc.used.value) & 0xFFFF
    await FallingEdge(dut.user_clk)
    dut.tx_cdts_limit_tdm_idx.value = Force(0)
    dut.tx_cdts_limit.value = Force(used_ph)
    await RisingEdge(dut.user_clk)
    await RisingEdge(dut.user_clk)
    await drv.bar0.write_qword(reg("SHIM_TEST_DMA_ADDR"), addr)
    await drv.bar0.write_qword(reg("SHIM_TEST_DMA_CTRL"),
                               (seed << 32) | (OP_FILL << 24) | nbytes)
    await Timer(2, "us")
    st = await drv.bar0.read_qword(reg("SHIM_TEST_DMA_STATUS"))
    assert not st & ST_DONE, hex(st)
    assert bytes(mem[0:nbytes]) == bytes(nbytes)
    assert int(ifc.used.value) & 0xFFFF == used_ph
    dut.tx_cdts_limit_tdm_idx.value = Release()
    dut.tx_cdts_limit.value = Release()
    for _ in range(100):
        st = await drv.bar0.read_qword(reg("SHIM_TEST_DMA_STATUS"))
        if st & ST_DONE:
            break
        await Timer(100, "ns")
    assert st & ST_DONE and not st & ST_ERR, hex(st)
    assert bytes(mem[0:nbytes]) == pattern(seed, nbytes)
    assert (int(ifc.used.value) - used_ph) & 0xFF >= nbytes // 256


@cocotb.test(skip=not PTILE)
async def test_ptile_rx_backpressure(dut):
    """P-tile: the adapter's RX FIFO and the tile's 27 cycles of ready
    latency.  While BAR0 waits for a dead IP register port (REG_TIMEOUT
    cycles), 48 posted 16-byte writes of BAR0 pile up in the request FIFO
    (RX_DEPTH 64 in the bench): rx_st_ready falls, the tile sends on for
    its latency, and none is lost: once the read has timed out each is
    refused and counted (cnt_bad_req), in order with a SCRATCH write
    after them."""
    tb, drv = await bring_up(dut)
    bar0 = drv.bar0
    bad0 = int(dut.cnt_bad_req.value)
    dut.axil_dead.value = 1
    rd = cocotb.start_soon(bar0.read_qword(reg("RX_CLASS_CFG")))
    await Timer(100, "ns")
    tb.rx_held = 0
    n = 48
    for i in range(n):
        await bar0.write(reg("SHIM_SCRATCH"), struct.pack("<QQ", i, i))
    await bar0.write_qword(reg("SHIM_SCRATCH"), 0xB0B0)
    assert await with_timeout(rd, 50, "us") == ONES
    dut.axil_dead.value = 0
    assert await bar0.read_qword(reg("SHIM_SCRATCH")) == 0xB0B0
    assert int(dut.cnt_bad_req.value) - bad0 == n
    assert int(dut.dut.cnt_rx_drop.value) == 0
    tb.log.info("rx_st_ready low on %d cycles", tb.rx_held)
    assert tb.rx_held > 0


@cocotb.test(skip=not PTILE)
async def test_ptile_rx_wrap(dut):
    """P-tile: two requests of one tile beat where the request FIFO wraps
    (the second written at place 0 after place RX_DEPTH - 1).  Rounds of
    a read (a request alone in its beat: the FIFO's write place goes
    odd or even) and a run of posted writes (the tile packs two a beat)
    until such a pair has come twice; every request header the core
    takes is the tile's, in the tile's order, none lost, none a stale
    one of the place written over; SHIM_SCRATCH holds the last write."""
    tb, drv = await bring_up(dut)
    bar0 = drv.bar0
    ifc = dut.dut.u_if
    depth = int(ifc.RX_DEPTH.value)
    sent, took = [], []
    wraps = {"n": 0}

    async def watch():
        while True:
            await RisingEdge(dut.user_clk)
            v, sop = int(dut.rx_st_valid.value), int(dut.rx_st_sop.value)
            hdr = int(dut.rx_st_hdr.value)
            for s in range(2):
                h = hdr >> (128 * s) & ((1 << 128) - 1)
                # a request's first segment (not a completion, 01010)
                if v >> s & sop >> s & 1 and h >> 120 & 0x1F != 0x0A:
                    sent.append(h)
            x = dut.dut
            if int(x.q_valid.value) and int(x.q_ready.value):
                took.append(int(x.q_hdr.value))
            if int(ifc.r_n.value) == 2 and int(ifc.r_fit.value) and \
                    int(ifc.u_rf.wp.value) % depth == depth - 1:
                wraps["n"] += 1
    w = cocotb.start_soon(watch())
    val = 0
    for r in range(16):
        assert await bar0.read_qword(reg("SHIM_SCRATCH")) == val
        for _ in range(20 + r):
            val += 1
            await bar0.write_qword(reg("SHIM_SCRATCH"), val)
        if wraps["n"] >= 2:
            break
    assert await bar0.read_qword(reg("SHIM_SCRATCH")) == val
    await Timer(100, "ns")
    w.kill()
    tb.log.info("%d requests, %d pairs at the FIFO's end", len(sent),
                wraps["n"])
    assert wraps["n"] >= 2, wraps
    assert took == sent, [(i, hex(a), hex(b)) for i, (a, b) in
                          enumerate(zip(took, sent)) if a != b][:4]
    assert int(dut.dut.cnt_rx_drop.value) == 0


@cocotb.test(skip=not PTILE)
async def test_ptile_rx_fifo_order(dut):
    """P-tile: both RX FIFOs (RAM banks read a cycle ahead, RX_DEPTH 64 in
    the bench) hand the core every beat written into them, whole (header,
    data, flags), once, in order: a scoreboard of the beats written
    (c_it0/c_it1, r_it0/r_it1 when they fit) against the beats the core
    takes (rc_* every cycle rc_valid, req_* when req_valid and
    req_ready).  Rounds of 48 posted writes of BAR0 held back behind a
    read of a dead IP register port (req_ready low: the request FIFO
    fills, rx_st_ready falls, the head waits at the FIFO's last place,
    at place 0, before the last), each followed by a DMA CHECK of 8 KiB
    (completions through the whole completion FIFO several times); then
    256 writes with gaps of 0 to 6 cycles.  No beat is dropped."""
    tb, drv = await bring_up(dut)
    bar0 = drv.bar0
    ifc = dut.dut.u_if
    depth = int(ifc.RX_DEPTH.value)
    fifos = {"c": [], "r": []}
    st = {"c_in": 0, "c_out": 0, "r_in": 0, "r_out": 0, "held": 0,
          "held_end": 0, "through": 0, "bad": []}

    def take(kind, got):
        q = fifos[kind]
        st[kind + "_out"] += 1
        if not q:
            st["bad"].append((kind, st[kind + "_out"], "none", hex(got)))
        elif q[0] != got:
            st["bad"].append((kind, st[kind + "_out"], hex(q[0]), hex(got)))
            q.pop(0)
        else:
            q.pop(0)

    async def watch():
        while True:
            await RisingEdge(dut.user_clk)
            # the beats the core takes at this edge (written before it)
            if int(ifc.rc_valid.value):
                take("c", int(ifc.rc_sop.value) << 641 |
                     int(ifc.rc_last.value) << 640 |
                     int(ifc.rc_hdr.value) << 512 | int(ifc.rc_data.value))
            if int(ifc.req_valid.value):
                if int(ifc.req_ready.value):
                    # the FIFO's only beat taken as the next is written
                    if (int(ifc.u_rf.wp.value) - int(ifc.u_rf.rp.value)) % \
                            (2 * depth) == 1 and int(ifc.r_n.value) and \
                            int(ifc.r_fit.value):
                        st["through"] += 1
                    take("r", int(ifc.req_hdr.value) << 68 |
                         int(ifc.req_bar.value) << 65 |
                         int(ifc.req_data.value) << 1 |
                         int(ifc.req_bad.value))
                else:
                    st["held"] += 1
                    if int(ifc.u_rf.rp.value) % depth in (depth - 1, 0):
                        st["held_end"] += 1
            # the beats written at this edge
            for k in ("c", "r"):
                n = int(getattr(ifc, k + "_n").value)
                if n and int(getattr(ifc, k + "_fit").value):
                    fifos[k].append(int(getattr(ifc, k + "_it0").value))
                    if n == 2:
                        fifos[k].append(int(getattr(ifc, k + "_it1").value))
                    st[k + "_in"] += n
    w = cocotb.start_soon(watch())
    mps_mrrs(tb, 128, 128)
    await cfg_settle(tb)
    addr, mem = tb.rc.alloc_region(0x2000)
    seed, nbytes = 0x0DDBA11, 0x2000
    mem[0:nbytes] = pattern(seed, nbytes)
    tb.rx_held = 0
    for r in range(3):
        # the read at place depth - 2 - r (writes before it move the
        # place on): the first write held behind it at the FIFO's last
        # place, then at place 0, then one before the last
        while int(ifc.u_rf.wp.value) % depth != (depth - 2 - r) % depth:
            await bar0.write_qword(reg("SHIM_SCRATCH"), r)
            await Timer(50, "ns")
        dut.axil_dead.value = 1
        rd = cocotb.start_soon(bar0.read_qword(reg("RX_CLASS_CFG")))
        await Timer(100, "ns")
        for i in range(48 + r):
            await bar0.write(reg("SHIM_SCRATCH"), struct.pack("<QQ", i, r))
        await bar0.write_qword(reg("SHIM_SCRATCH"), 0x5C0 + r)
        assert await with_timeout(rd, 50, "us") == ONES
        dut.axil_dead.value = 0
        assert await bar0.read_qword(reg("SHIM_SCRATCH")) == 0x5C0 + r
        res = await with_timeout(drv.selftest(OP_CHECK, addr, nbytes, seed),
                                 50, "us")
        assert res & ST_OK and not res & ST_ERR, hex(res)
    # writes a cycle apart and more (the tile's beats): the core takes a
    # FIFO's only request at the edge the next is written
    for i in range(256):
        await bar0.write_qword(reg("SHIM_SCRATCH"), i)
        await Timer(4 * (i % 7), "ns")
    assert await bar0.read_qword(reg("SHIM_SCRATCH")) == 255
    await Timer(100, "ns")
    w.kill()
    tb.log.info("%d requests taken as the next was written", st["through"])
    tb.log.info("beats in/out: completions %d/%d, requests %d/%d; head "
                "held %d cycles (%d at the FIFO's end); rx_st_ready low "
                "%d cycles", st["c_in"], st["c_out"], st["r_in"],
                st["r_out"], st["held"], st["held_end"], tb.rx_held)
    assert not st["bad"], st["bad"][:4]
    assert not fifos["c"] and not fifos["r"], (len(fifos["c"]),
                                               len(fifos["r"]))
    assert st["c_out"] >= 4 * depth and st["r_out"] >= 2 * depth, st
    assert st["held_end"] > 0 and tb.rx_held > 0, (st, tb.rx_held)
    # the read-ahead's bypass was taken (a request popped in the cycle the
    # next one was written to its place)
    assert st["through"] > 0, st
    assert int(dut.dut.cnt_rx_drop.value) == 0


@cocotb.test(skip=not PTILE)
async def test_ptile_credits_tile_own(dut):
    """P-tile: the tile's own TLPs on the partner's credits.  The tile
    answers configuration reads itself, on completion credits the
    adapter does not see go; the partner frees them, and the completion
    header limit runs ahead of what the adapter counts, here by more
    than half the field (HDR_W 8: 128).  The adapter's credits stay at
    most the partner's initial allocation and register reads still
    complete (they need a completion credit); before, limit - used past
    half the field read as no credits and the completer hung."""
    tb, drv = await bring_up(dut)
    ifc = dut.dut.u_if
    hw_ = int(ifc.HDR_W.value)
    used0 = int(ifc.used.value) >> 32 & 0xFFFF
    lim0 = int(ifc.lim.value) >> 32 & 0xFFFF
    n = (1 << hw_) + 40
    lim, moved = lim0, 0
    for _ in range(n):
        await drv.pdev.config_read_dword(0)
        now = int(ifc.lim.value) >> 32 & 0xFFFF
        moved += (now - lim) % (1 << hw_)
        lim = now
    cap = int(ifc.cap.value) >> 32 & 0xFFFF
    # the partner freed the tile's completions: the limit moved on by more
    # than half the field and the initial allocation
    assert int(ifc.fin.value) >> 2 & 1 and 0 < cap < 1 << (hw_ - 1)
    assert moved > (1 << (hw_ - 1)) + cap, (moved, cap)
    for _ in range(4):
        val = await with_timeout(drv.bar0.read_qword(reg("SHIM_ID")), 20, "us")
        assert val & 0xFFFFFFFF == hw.MAGIC, hex(val)
    # the count followed the limit: limit - used at most the allocation
    lim = int(ifc.lim.value) >> 32 & 0xFFFF
    used = int(ifc.used.value) >> 32 & 0xFFFF
    avail = int(ifc.avail.value) >> 32 & 0xFFFF
    assert (lim - used) % (1 << hw_) <= cap, (lim, used, used0, cap)
    assert avail <= cap, (avail, cap)


@cocotb.test(skip=not PTILE)
async def test_ptile_tx_packing(dut):
    """P-tile: TX packing.  A DMA CHECK of 8 KiB at MRRS 128 sends 64 read
    requests of one segment each; while the tile holds tx_st_ready low
    (1 us, the model's pause) they wait in the adapter's FIFO, and a
    request goes into segment 1 of the beat before it.  Beats that carry
    two TLPs (the first ending in segment 0, the second starting in
    segment 1) are seen, fewer beats than TLPs leave, every request
    leaves once at the address of its MRRS block (the model checks the
    framing) and the CHECK passes."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 128, 128)
    await cfg_settle(tb)
    addr, mem = tb.rc.alloc_region(0x2000)
    seed, nbytes = 0x5EED17, 0x2000
    mem[0:nbytes] = pattern(seed, nbytes)
    st = {"beats": 0, "tlps": 0, "pairs": 0, "reads": []}

    async def watch():
        while True:
            await RisingEdge(dut.user_clk)
            v = int(dut.tx_st_valid.value)
            if not v:
                continue
            sop, eop = int(dut.tx_st_sop.value), int(dut.tx_st_eop.value)
            hdr = int(dut.tx_st_hdr.value)
            st["beats"] += 1
            assert sop & ~v == 0 and eop & ~v == 0, (v, sop, eop)
            for s in range(2):
                h = hdr >> (128 * s) & ((1 << 128) - 1)
                if sop >> s & 1:
                    st["tlps"] += 1
                    # a memory read (fmt 000 or 001, type 00000)
                    if h >> 120 & 0xDF == 0x00:
                        a = h & ((1 << 64) - 1) if h >> 125 & 1 else \
                            h >> 32 & 0xFFFFFFFF
                        st["reads"].append(a & ~3)
            if sop >> 1 & 1 and eop & 1 and v == 0b11:
                st["pairs"] += 1
    w = cocotb.start_soon(watch())
    # the tile holds tx_st_ready low for 1 us (as when its link is busy),
    # then takes beats again
    sink = tb.dev.tx_sink
    sink.pause = True
    run = cocotb.start_soon(drv.selftest(OP_CHECK, addr, nbytes, seed))
    await Timer(1, "us")
    held = st["beats"]
    sink.pause = False
    res = await with_timeout(run, 50, "us")
    await Timer(100, "ns")
    w.kill()
    assert held == 0, held
    tb.log.info("%d TLPs in %d beats, %d beats with two", st["tlps"],
                st["beats"], st["pairs"])
    assert res & ST_OK and not res & ST_ERR, hex(res)
    assert sorted(st["reads"]) == [addr + 128 * i for i in range(nbytes // 128)], \
        [hex(a) for a in st["reads"][:8]]
    assert st["pairs"] > 0, st
    assert st["beats"] < st["tlps"], st


@cocotb.test(skip=not PTILE)
async def test_ptile_intx(dut):
    """P-tile: INTx (MSI and MSI-X off) on app_int[0]: asserted while the
    event ring holds a record, low while the command register's INTx
    disable is set (the tile's configuration bus), deasserted when the
    driver consumes the record."""
    tb, drv = await bring_up(dut)
    bar0 = drv.bar0

    async def level(want):
        for _ in range(200):            # > two rounds of the config bus
            await RisingEdge(dut.user_clk)
            if int(dut.app_int.value) == want:
                return
        raise AssertionError("app_int %#x, not %#x" % (int(dut.app_int.value), want))

    ring, mem = tb.rc.alloc_region(0x1000)
    await bar0.write_qword(reg("SHIM_EVT_BASE"), ring)
    await bar0.write_qword(reg("SHIM_EVT_CTRL"), (4 << 8) | 1)
    await level(0)
    await bar0.write_qword(reg("SHIM_EVT_INJECT"), 0x1234)
    await level(1)
    # the record's write is on its way through the model's link
    for _ in range(100):
        if struct.unpack("<Q", bytes(mem[0:8]))[0] == 0x1234:
            break
        await Timer(10, "ns")
    assert struct.unpack("<Q", bytes(mem[0:8]))[0] == 0x1234
    cmd = await drv.pdev.config_read_word(0x04)
    await drv.pdev.config_write_word(0x04, cmd | 0x400)
    await level(0)
    await drv.pdev.config_write_word(0x04, cmd & ~0x400)
    await level(1)
    prod = await bar0.read_qword(reg("SHIM_EVT_PROD"))
    await bar0.write_qword(reg("SHIM_EVT_CONS"), prod)
    await level(0)


@cocotb.test()
async def test_dma_errors(dut):
    """Unsupported Request and poisoned completions end the self-test with
    its err bit (the contract's DMA error), the shim stays usable."""
    tb, drv = await bring_up(dut)
    seed = 0x1234
    # no memory there: the root complex answers UR
    st = await drv.selftest(OP_CHECK, 0x7000_0000, 64, seed)
    assert st & ST_ERR and not st & ST_OK, hex(st)

    # poisoned completions for a region
    addr, mem = tb.rc.alloc_region(0x1000)
    mem[0:64] = pattern(seed, 64)
    orig = tb.rc.rx_tlp_handler[TlpType.MEM_READ]

    async def poison(tlp):
        if addr <= tlp.address < addr + 0x1000:
            cpl = Tlp.create_completion_data_for_tlp(tlp, PcieId(0, 0, 0))
            cpl.byte_count = tlp.get_be_byte_count()
            cpl.lower_address = (tlp.address + tlp.get_first_be_offset()) & 0x7F
            cpl.set_data(bytes(tlp.length * 4))
            cpl.ep = True
            await tb.rc.send(cpl)
        else:
            await orig(tlp)

    tb.rc.register_rx_tlp_handler(TlpType.MEM_READ, poison)
    st = await drv.selftest(OP_CHECK, addr, 64, seed)
    assert st & ST_ERR and not st & ST_OK, hex(st)
    tb.rc.register_rx_tlp_handler(TlpType.MEM_READ, orig)
    st = await drv.selftest(OP_CHECK, addr, 64, seed)
    assert st & ST_OK and not st & ST_ERR, hex(st)
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


@cocotb.test()
async def test_reset_with_reads_out(dut):
    """SHIM_RESET while self-test reads are outstanding: their late
    completions do not reach the core after the reset (a new CHECK right
    after it passes)."""
    tb, drv = await bring_up(dut)
    # 128-byte read requests: the 1 KiB CHECK has 8 out at once
    mps_mrrs(tb, 128, 128)
    await cfg_settle(tb)
    slow, smem = tb.rc.alloc_region(0x1000)
    fast, fmem = tb.rc.alloc_region(0x1000)
    smem[0:1024] = bytes(range(256)) * 4
    fmem[0:2048] = pattern(0x77, 2048)
    # every read is answered 2 us late: the completions of the reads
    # forgotten at the reset come while those of the CHECK after it are
    # still out
    delay_reads(tb, 2)
    await drv.bar0.write_qword(reg("SHIM_TEST_DMA_ADDR"), slow)
    await drv.bar0.write_qword(reg("SHIM_TEST_DMA_CTRL"),
                               (0x77 << 32) | (OP_CHECK << 24) | 1024)
    await Timer(300, "ns")
    assert tb.max_tags == 8, tb.max_tags
    await drv.reset()
    t_reset = get_sim_time("ns")
    # the late completions arrive while this CHECK runs
    st = await drv.selftest(OP_CHECK, fast, 2048, 0x77)
    assert get_sim_time("ns") - t_reset > 2000
    assert st & ST_OK and not st & ST_ERR and st >> 32 == 0, hex(st)

    async def all_back():
        while tb.reads_held() != 0:
            await RisingEdge(dut.user_clk)
    await with_timeout(all_back(), 5, "us")
    st = await drv.selftest(OP_CHECK, fast, 256, 0x77)
    assert st & ST_OK and not st & ST_ERR, hex(st)
    assert int(dut.cnt_cpl_unexp.value) == 0


@cocotb.test()
async def test_completion_timeout(dut):
    """A read that is never completed answers err after the completion
    timeout and is counted; the next reads work.  (The hard IP model never
    frees the lost tag, as a real block's own completion timeout would:
    the test reads too little afterwards to come round to it again.)"""
    tb, drv = await bring_up(dut)
    addr, mem = tb.rc.alloc_region(0x1000)
    orig = tb.rc.rx_tlp_handler[TlpType.MEM_READ]

    async def drop(tlp):
        if addr <= tlp.address < addr + 0x1000:
            return
        await orig(tlp)

    tb.rc.register_rx_tlp_handler(TlpType.MEM_READ, drop)
    st = await drv.selftest(OP_CHECK, addr, 8, 0)
    assert st & ST_ERR and not st & ST_OK, hex(st)
    assert int(dut.cnt_cpl_tmo.value) == 1
    good, gmem = tb.rc.alloc_region(0x1000)
    gmem[0:64] = pattern(5, 64)
    st = await drv.selftest(OP_CHECK, good, 64, 5)
    assert st & ST_OK and not st & ST_ERR, hex(st)
    assert int(dut.cnt_cpl_unexp.value) == 0


REG_TIMEOUT = 1024          # rclink_shim_us's default (cycles)
IP_RST_CYCLES = 1024
ONES = (1 << 64) - 1


def mac_rw_reg():
    """A MAC window register with writable bits: (offset, mask)."""
    for name, r in hw.REGS.items():
        if 0x8000 <= r[0] < 0xc000 and r[6] and not r[2]:
            return r[0], r[6]
    raise AssertionError("no RW MAC register")


async def reg_tmo(drv):
    v = await drv.bar0.read_qword(reg("SHIM_REG_TIMEOUT"))
    return v & 0xFFFFFFFF, v >> 32


@cocotb.test()
async def test_reg_port_timeout(dut):
    """A dead register port does not hang BAR0: with the IP's AXI4-Lite
    port silent, an RC read completes with all ones and a write is
    dropped, both counted in SHIM_REG_TIMEOUT.rc; a port that took the
    read but holds R back times out too and its late R is not taken for
    the next read's answer; a MAC port stuck in waitrequest likewise
    (SHIM_REG_TIMEOUT.mac).  Once the ports answer again, accesses work."""
    tb, drv = await bring_up(dut)
    bar0 = drv.bar0
    cfg = reg("RX_CLASS_CFG")
    cfg_rst = hw.REGS["RX_CLASS_CFG"][5]
    assert await reg_tmo(drv) == (0, 0)
    dut.axil_dead.value = 1
    t0 = get_sim_time("ns")
    assert await with_timeout(bar0.read_qword(cfg), 50, "us") == ONES
    # at 250 MHz, not before REG_TIMEOUT cycles
    assert get_sim_time("ns") - t0 >= REG_TIMEOUT * 4
    await bar0.write_qword(cfg, cfg_rst ^ 1)
    assert await with_timeout(reg_tmo(drv), 50, "us") == (2, 0)
    dut.axil_dead.value = 0
    assert await bar0.read_qword(cfg) == cfg_rst        # the write was dropped
    await bar0.write_qword(reg("SHIM_SCRATCH"), 0x1234)
    # the port takes AR but holds R: timed out, the late R is swallowed
    dut.axil_mute_r.value = 1
    assert await with_timeout(bar0.read_qword(cfg), 50, "us") == ONES
    dut.axil_mute_r.value = 0
    await bar0.write_qword(cfg, cfg_rst ^ 1)
    assert await bar0.read_qword(cfg) == cfg_rst ^ 1
    await bar0.write_qword(cfg, cfg_rst)
    assert await bar0.read_qword(cfg) == cfg_rst
    assert await reg_tmo(drv) == (3, 0)
    # the MAC's CSR port: waitrequest stuck
    rev = reg("TX_FC_REVISION_ID")
    rev_rst = hw.REGS["TX_FC_REVISION_ID"][5]
    moff, mmask = mac_rw_reg()
    mval = await bar0.read_dword(moff)
    dut.mac_dead.value = 1
    assert await with_timeout(bar0.read_dword(rev), 50, "us") == 0xFFFFFFFF
    await bar0.write_dword(moff, mval ^ (mmask & 0xFFFFFFFF))
    assert await with_timeout(reg_tmo(drv), 50, "us") == (3, 2)
    dut.mac_dead.value = 0
    assert await bar0.read_dword(rev) == rev_rst
    assert await bar0.read_dword(moff) == mval
    assert await bar0.read_qword(reg("SHIM_SCRATCH")) == 0x1234
    # SHIM_RESET clears the counters (the shim's registers)
    await drv.reset()
    assert await reg_tmo(drv) == (0, 0)
    assert int(dut.cnt_bad_req.value) == 0


@cocotb.test()
async def test_reset_hold(dut):
    """SHIM_RESET holds the IP's reset for IP_RST_CYCLES; a BAR0 read of
    the RC or MAC window sent meanwhile waits and answers the reset value
    after the IP left reset; the shim's own registers answer at once."""
    tb, drv = await bring_up(dut)
    bar0 = drv.bar0
    cfg = reg("RX_CLASS_CFG")
    cfg_rst = hw.REGS["RX_CLASS_CFG"][5]
    await bar0.write_qword(cfg, cfg_rst ^ 1)
    assert await bar0.read_qword(cfg) == cfg_rst ^ 1
    edges = {}

    async def watch():
        await FallingEdge(dut.ip_rst_n)
        edges["fall"] = get_sim_time("ns")
        await RisingEdge(dut.ip_rst_n)
        edges["rise"] = get_sim_time("ns")
    w = cocotb.start_soon(watch())
    await bar0.write_qword(reg("SHIM_RESET"), 1)
    magic = await with_timeout(bar0.read_qword(reg("SHIM_ID")), 10, "us")
    assert magic & 0xFFFFFFFF == hw.MAGIC
    assert "fall" in edges and "rise" not in edges      # answered during the hold
    v = await with_timeout(bar0.read_qword(cfg), 50, "us")
    assert "rise" in edges
    assert v == cfg_rst, hex(v)
    assert edges["rise"] - edges["fall"] >= IP_RST_CYCLES * 4, edges
    w.kill()
    # the MAC window waits the same way
    w = cocotb.start_soon(watch())
    await bar0.write_qword(reg("SHIM_RESET"), 1)
    rev = reg("TX_FC_REVISION_ID")
    assert await with_timeout(bar0.read_dword(rev), 50, "us") == \
        hw.REGS["TX_FC_REVISION_ID"][5]
    assert "rise" in edges
    w.kill()
    assert await reg_tmo(drv) == (0, 0)


@cocotb.test()
async def test_flr_during_dma(dut):
    """FLR in the middle of DMA: with self-test reads outstanding (their
    completions 2 us late) the block raises cfg_flr_in_process (the
    P-tile flr_rcvd_pf); the shim sends no new request, waits for the
    reads out to complete, resets the function's state and pulses
    cfg_flr_done (flr_completed_pf); afterwards the registers read their
    reset values and DMA works."""
    tb, drv = await bring_up(dut)
    mps_mrrs(tb, 128, 128)          # the 256-byte CHECK: 2 reads out
    await cfg_settle(tb)
    bar0 = drv.bar0
    slow, smem = tb.rc.alloc_region(0x1000)
    fast, fmem = tb.rc.alloc_region(0x1000)
    smem[0:256] = pattern(0x77, 256)
    fmem[0:256] = pattern(0x77, 256)
    seen, _ = delay_reads(tb, 2, lambda a: slow <= a < slow + 0x1000)
    # request TLPs the shim hands to the hard IP (counted on RQ, or where
    # the P-tile's adapter takes them: the model takes some cycles to pass
    # a TLP to the root complex)
    rq = [0]

    async def rq_count():
        while True:
            await RisingEdge(dut.user_clk)
            rq[0] += int(tb.req_tlp_end())
    counter = cocotb.start_soon(rq_count())
    await bar0.write_qword(reg("SHIM_SCRATCH"), 0x5555)
    await bar0.write_qword(reg("SHIM_TEST_DMA_ADDR"), slow)
    await bar0.write_qword(reg("SHIM_TEST_DMA_CTRL"),
                           (0x77 << 32) | (OP_CHECK << 24) | 256)
    await Timer(300, "ns")
    assert tb.max_tags > 1, tb.max_tags
    tb.flr(1)
    # the shim's FLR state sees it at the next edge; a TLP loaded before
    # that may still be handed over at the one after
    await RisingEdge(dut.user_clk)
    await RisingEdge(dut.user_clk)
    await Timer(1, "ns")
    n_before = rq[0]
    t0 = get_sim_time("ns")
    async def flr_done():
        while not tb.flr_done():
            await RisingEdge(dut.user_clk)
    await with_timeout(flr_done(), 20, "us")
    tb.log.info("FLR done after %d ns", get_sim_time("ns") - t0)
    # the reads out were answered first (2 us), no new one was sent
    assert get_sim_time("ns") - t0 >= 1500, get_sim_time("ns") - t0
    assert tb.reads_held() == 0
    assert rq[0] == n_before, (rq[0], n_before)
    await RisingEdge(dut.user_clk)
    assert not tb.flr_done()                          # one pulse
    await Timer(200, "ns")
    assert rq[0] == n_before
    assert len(seen) == n_before, (len(seen), n_before)
    counter.kill()
    tb.flr(0)
    # the function's state is reset (the config space is the host's to
    # restore; the model keeps it, so BARs and bus mastering stay)
    assert await bar0.read_qword(reg("SHIM_SCRATCH")) == 0
    st = await bar0.read_qword(reg("SHIM_TEST_DMA_STATUS"))
    assert st == hw.REGS["SHIM_TEST_DMA_STATUS"][5], hex(st)
    st = await drv.selftest(OP_CHECK, fast, 256, 0x77)
    assert st & ST_OK and not st & ST_ERR, hex(st)
    assert int(dut.cnt_cpl_unexp.value) == 0
    assert int(dut.cnt_cpl_tmo.value) == 0


# ---- the IP stand-in's ports ---------------------------------------------

class TxMon:
    """The packets on TX_S: (qpid, bytes, fack, first cycle, last cycle);
    meta the (TX_S_ETYPE_I, TX_S_TYPE2_GROUP_INDEX_I) of each."""

    def __init__(self, dut):
        self.dut = dut
        self.pkts = []
        self.meta = []
        self.cycle = 0
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        cur, start = None, 0
        while True:
            await RisingEdge(dut.user_clk)
            self.cycle += 1
            if not int(dut.tx_vld.value):
                continue
            keep = int(dut.tx_keep.value)
            word = int(dut.tx_dat.value).to_bytes(64, "big")
            if int(dut.tx_fs.value):
                cur, start = bytearray(), self.cycle
            cur += word[:bin(keep).count("1")]
            if int(dut.tx_fe.value):
                self.pkts.append((int(dut.tx_qpid.value), bytes(cur),
                                  int(dut.tx_fack.value), start, self.cycle))
                self.meta.append((int(dut.tx_etype.value),
                                  int(dut.tx_group.value)))
                cur = None


def rx_m_beats(dut, pkt):
    """pkt cut into RX_M beats of the port's width: (RX_M_DAT, RX_M_KEEP)
    each, the first byte in the most significant lane, the keep bits
    contiguous from the top; only the last beat partial."""
    w = len(dut.rx_m_dat) // 8          # bytes a beat
    out = []
    for i in range(0, len(pkt), w):
        b = pkt[i:i + w]
        out.append((int.from_bytes(b.ljust(w, b"\0"), "big"),
                    ((1 << len(b)) - 1) << (w - len(b))))
    return out


async def rx_m_packet(dut, pkt, qpid, etype=0, psn=0, sa=0):
    """One packet on RX_M (first byte in the most significant lane of a
    beat, whatever the port's width), RX_M_LEN its bytes; TYPE2 (etype 3)
    with the sender's PSN and source address.  A TYPE1 request (etype 0)
    must find FLOW_STOP of its bank down: under it the IP would answer
    RNR instead (Stand.flow_stop)."""
    beats = rx_m_beats(dut, pkt)
    if etype == 0:
        await FallingEdge(dut.user_clk)
        fs = int(dut.flow_stop.value)
        assert not fs >> (qpid & 3) & 1, \
            "TYPE1 request of QP %d under FLOW_STOP %#x" % (qpid, fs)
    for k, (dat, keep) in enumerate(beats):
        await FallingEdge(dut.user_clk)
        dut.rx_m_vld.value = 1
        dut.rx_m_fs.value = int(k == 0)
        dut.rx_m_fe.value = int(k == len(beats) - 1)
        dut.rx_m_dat.value = dat
        dut.rx_m_keep.value = keep
        dut.rx_m_qpid.value = qpid
        dut.rx_m_etype.value = etype
        dut.rx_m_len.value = len(pkt)
        dut.rx_m_psn.value = psn
        dut.rx_m_sa.value = sa
        for _ in range(20000):
            await RisingEdge(dut.user_clk)
            if int(dut.rx_m_rdy.value):
                break
        else:
            raise AssertionError("RX_M not ready for 20000 cycles")
    await FallingEdge(dut.user_clk)
    dut.rx_m_vld.value = 0
    dut.rx_m_fs.value = 0
    dut.rx_m_fe.value = 0
    dut.rx_m_etype.value = 0
    # done when the shim is done with the packet (its RX_M queue let go of
    # it and the engine ended it: a SEND lets go with its last data byte,
    # S_END follows; rclink_rx), as the word-level bench: what comes next
    # sees the packet handled
    rx = dut.dut.u_tlp.u_core.u_rx
    for _ in range(20000):
        if not int(rx.iq_pkt.value) and int(rx.st.value) != 12:    # S_END
            break
        await RisingEdge(dut.user_clk)
    else:
        raise AssertionError("RX_M packet not handled for 20000 cycles")


# ---- the shared test vectors ---------------------------------------------

M64 = (1 << 64) - 1
PKT_MIN = hw.FORMATS["SEG"][2]["PKT_MIN"]
CYCLE_NS = 4                # user_clk, 250 MHz
# the stand-in's ops after which the register writes before them must
# have taken effect (a read flushes them, as the testbench waits after
# each command)
FLUSH = {"sim:rx", "sim:rx2", "sim:rx3", "sim:ipirq", "sim:ack", "sim:tmo",
         "sim:ipset", "sim:ipdfx", "sim:intx", "sim:t2rate", "sim:timers",
         "sim:nomsix", "wirerx", "wiretx"}


class Stand:
    """The IP stand-in's part of a vector (vec2tb.py / rclink_tb.v): the
    TX_S packets against host memory, RX_M packets from host memory, the
    stand-in's TX_S tokens, the IP's IRQ, RECV_ACK, RETRY_TMO, status and
    rate ports, and the host side the word-level bench plays: the
    configuration (bus mastering, MSI-X) through the configuration space,
    the MSI-X messages the root complex takes, the INTx level the top
    gives the hard IP, the read latency of the root complex's memory and
    a requester that takes no TLP for a while after each write."""

    def __init__(self, tb, drv, mem_get):
        self.tb = tb
        self.drv = drv
        self.dut = dut = tb.dut
        self.mem_get = mem_get
        self.mon = TxMon(dut)
        self.seen = 0
        self.t2_psn = {}
        self.bg = None
        self.msix_log = []          # MSI-X messages in order: their vectors
        self.msix_r = 0
        self.irq_on = False
        self.read_orig = tb.rc.rx_tlp_handler[TlpType.MEM_READ]
        self.wst = 0                # sim wstall: cycles after each write
        self.wst_task = None
        self.stalls = 0             # writes the requester stalled after
        if TRACE:
            tb.rc.log.setLevel(logging.INFO)
        dut.ip.npkts.value = 0
        dut.ip.runts.value = 0

    async def cycles(self, n):
        for _ in range(n):
            await RisingEdge(self.dut.user_clk)

    async def tx(self, seg, qpid, fack, etype, group, addr, n):
        """The next TX_S packet; a list of what differs."""
        for _ in range(20000):
            if len(self.mon.pkts) > self.seen:
                break
            await RisingEdge(self.dut.user_clk)
        if len(self.mon.pkts) <= self.seen:
            return ["no TX_S packet"]
        q, pkt, f, _, _ = self.mon.pkts[self.seen]
        et, gr = self.mon.meta[self.seen]
        self.seen += 1
        want = (struct.pack("<Q", seg) + self.mem_get(addr, n)).ljust(
            PKT_MIN, b"\0")
        bad = []
        if pkt != want:
            bad.append("TX_S packet %s, not %s" % (pkt[:80].hex(),
                                                   want[:80].hex()))
        if (q, f, et) != (qpid, fack, etype) or (etype == 3 and gr != group):
            bad.append("TX_S qpid %d fack %d etype %d group %d" %
                       (q, f, et, gr))
        return bad

    async def notx(self):
        await self.cycles(200)
        bad = []
        if len(self.mon.pkts) != self.seen:
            bad.append("%d unexpected TX_S packets" %
                       (len(self.mon.pkts) - self.seen))
        if int(self.dut.ip.runts.value):
            bad.append("TX_S packet below the 64-byte minimum")
        return bad

    def credit(self, a):
        """0 acknowledge, 1 hold the acknowledged credits, 2 release the
        held ones, 3 hold the TYPE2 tokens, 4 return them again."""
        ip = self.dut.ip
        if a == 0:
            ip.hold.value = 0
        elif a == 1:
            ip.hold.value = 1
            ip.held.value = 0
        elif a == 2:
            ip.held.value = 1000000
        elif a in (3, 4):
            ip.hold2.value = int(a == 3)

    async def rx(self, pkt, qpid, etype=0, psn=0, sa=0, bg=False):
        if self.bg is not None:
            await self.bg
            self.bg = None
        task = cocotb.start_soon(rx_m_packet(self.dut, pkt, qpid, etype,
                                             psn, sa))
        if bg:
            self.bg = task
        else:
            await task

    async def flow_stop(self, qpid, flags):
        """FLOW_STOP of a TYPE1 request's bank (QPID bits 1:0) as the IP
        sees it before it takes the request (rclink_tb.v): under it the IP
        answers RNR (or drops the request, the stand-in's rnr_en) and
        nothing comes on RX_M.  The vector's "rnr" or "nobuf" says it
        expects that.  None when the request goes on RX_M, else the list
        of what differs."""
        if self.bg is not None:
            await self.bg
            self.bg = None
        await FallingEdge(self.dut.user_clk)
        bank = qpid & 3
        fs = int(self.dut.flow_stop.value)
        want = "rnr" if "rnr" in flags else "nobuf" if "nobuf" in flags \
            else None
        if not fs >> bank & 1:
            if want is None:
                return None
            return ["FLOW_STOP low: the request was taken, not refused"]
        got = "rnr" if int(self.dut.ip.rnr_en.value) >> bank & 1 else "nobuf"
        if got == want:
            return []
        return ["TYPE1 request under FLOW_STOP %#x: %s" %
                (fs, "answered RNR" if got == "rnr" else "dropped")]

    async def pulse(self, **sigs):
        """Drive the bench's hooks (rclink_tb_stand_in.vh) for one cycle."""
        await FallingEdge(self.dut.user_clk)
        for name, val in sigs.items():
            getattr(self.dut, name).value = val
        await FallingEdge(self.dut.user_clk)
        for name in sigs:
            if name.endswith("_vld"):
                getattr(self.dut, name).value = 0

    def _irq(self, v):
        async def handler():
            self.msix_log.append(v)
        return handler

    async def cfg(self, a):
        """The word-level bench's cfg: bit 0 bus mastering, bit 1 MSI-X
        (every vector unmasked, as the bench's core takes them), through
        the function's configuration space."""
        pdev = self.drv.pdev
        assert not a & ~3, "cfg %#x: MSI is not played here" % a
        if a & 1:
            await pdev.set_master()
        else:
            await pdev.clear_master()
        if a & 2 and not pdev.msix_enabled:
            assert await pdev.enable_msix_range(NVEC, NVEC, 0) == NVEC
            if not self.irq_on:
                for v in range(NVEC):
                    pdev.request_irq(v, self._irq(v))
                self.irq_on = True
        elif not a & 2 and pdev.msix_enabled:
            await pdev.disable_msix()
        await cfg_settle(self.tb)
        await self.cycles(2)

    async def msix(self, want):
        """The next MSI-X message is of vector want (the word-level bench
        waits 2000 cycles; here the message's way through the link too)."""
        for _ in range(5000):
            if len(self.msix_log) > self.msix_r:
                break
            await RisingEdge(self.dut.user_clk)
        if len(self.msix_log) <= self.msix_r:
            return ["no MSI-X message"]
        v = self.msix_log[self.msix_r]
        self.msix_r += 1
        return [] if v == want else ["MSI-X vector %d" % v]

    async def nomsix(self):
        await self.cycles(200)
        n = len(self.msix_log) - self.msix_r
        return ["%d unexpected MSI-X messages" % n] if n else []

    async def intx(self, level):
        """The INTx level the top gives the hard IP (cfg_interrupt_int[0],
        the P-tile's app_int[0])."""
        await self.cycles(20)
        d = self.dut
        got = int((d.app_int if PTILE else d.cfg_interrupt_int).value) & 1
        return [] if got == level else ["INTx level %d" % got]

    def ipset(self, off, bits):
        """The IP sets status bits of one of its registers."""
        w = self.dut.ip.regs[off >> 3]
        w.value = int(w.value) | bits

    def ipdfx(self, mac_free, wait_crd, t2_crd):
        ip = self.dut.ip
        ip.mac_free.value = mac_free & 1
        ip.wait_crd.value = wait_crd & 1
        ip.t2_crd.value = t2_crd & 0xFFFF

    def t2rate(self, rate, n):
        ip = self.dut.ip
        got, got_n = int(ip.t2_rate.value), int(ip.t2_rate_n.value)
        bad = []
        if got != rate & 0x3FFFFF:
            bad.append("SET_TYPE2_RATE_DAT_I %#x" % got)
        if got_n != n:
            bad.append("SET_TYPE2_RATE_VLD_I pulses %d" % got_n)
        return bad

    def delay(self, cycles, page):
        """Reads of host memory (of the page at page only, when given) are
        completed cycles late; the word-level bench's default of 3 cycles
        is the root complex's own pace."""
        rc = self.tb.rc
        if cycles <= 3:
            rc.register_rx_tlp_handler(TlpType.MEM_READ, self.read_orig)
            return
        orig = self.read_orig

        async def later(tlp):
            await Timer(cycles * CYCLE_NS, "ns")
            await orig(tlp)

        async def handler(tlp):
            if page is None or page <= tlp.address < page + 0x1000:
                cocotb.start_soon(later(tlp))
            else:
                await orig(tlp)
        rc.register_rx_tlp_handler(TlpType.MEM_READ, handler)

    async def _wstall(self):
        """After each memory write request the hard IP takes no beat of
        the request stream for self.wst cycles (write TLPs that leave
        late): UltraScale+ RQ, whose first beat's descriptor has the
        request type in bits 78:75; the P-tile's request stream into its
        adapter (header bit 126: with data), whose TX the model holds."""
        dut = self.dut
        sink = self.tb.dev.tx_sink if PTILE else self.tb.dev.rq_sink
        first, wr, left = True, False, 0
        while True:
            await RisingEdge(dut.user_clk)
            if left:
                left -= 1
                if not left:
                    sink.pause = False
            if PTILE:
                d = dut.dut
                if not (int(d.r_valid.value) and int(d.r_ready.value)):
                    continue
                if int(d.r_sop.value):
                    wr = int(d.r_hdr.value) >> 126 & 1
                end = int(d.r_last.value)
            else:
                if not (int(dut.s_axis_rq_tvalid.value) and
                        int(dut.s_axis_rq_tready.value)):
                    continue
                if first:
                    wr = (int(dut.s_axis_rq_tdata.value) >> 75) & 0xF == 1
                end = int(dut.s_axis_rq_tlast.value)
                first = bool(end)
            if end and wr and self.wst:
                self.stalls += 1
                sink.pause = True
                left = self.wst

    def wstall(self, n):
        self.wst = n
        if n and self.wst_task is None:
            self.wst_task = cocotb.start_soon(self._wstall())

    def stop(self):
        """The vector's end: the root complex and the link as before."""
        if self.wst_task is not None:
            self.wst_task.kill()
            self.tb.log.info("the requester stalled after %d writes",
                             self.stalls)
            (self.tb.dev.tx_sink if PTILE else self.tb.dev.rq_sink).pause = False
        self.tb.rc.register_rx_tlp_handler(TlpType.MEM_READ, self.read_orig)

    async def do(self, op, bases):
        """One of the stand-in's ops; a list of what failed."""
        k = op_kind(op)
        val, adr = vl.value, (lambda a: vl.addr(a, bases))
        if k in ("peer", "model"):
            return []
        if k in t3_twin.OPS:
            return await self.t3.do(op, bases)
        if k == "wirerx":
            return await self.wire.rx(vl.frame_bytes(op[2]), val(op[3]))
        if k == "wiretx":
            return await self.wire.tx(val(op[1]), val(op[2]), val(op[3]))
        if k in ("sent", "sent2"):
            pieces = [(adr(a), val(n)) for a, n in op[-1]]
            for (a0, n0), (a1, _) in zip(pieces, pieces[1:]):
                assert a0 + n0 == a1, "%r: pieces not contiguous" % (op,)
            n = sum(n for _, n in pieces)
            if k == "sent":
                return await self.tx(val(op[2]), val(op[1]), val(op[3]), 0,
                                     0, pieces[0][0], n)
            return await self.tx(val(op[2]), 0, 0, 3, val(op[1]),
                                 pieces[0][0], n)
        if k == "sim:tx":
            return await self.tx(val(op[2]), val(op[3]), val(op[4]), 0, 0,
                                 adr(op[5]), val(op[6]))
        if k == "sim:tx2":
            return await self.tx(val(op[2]), 0, 0, 3, val(op[3]),
                                 adr(op[4]), val(op[5]))
        if k == "sim:notx":
            return await self.notx()
        if k == "sim:msix":
            return await self.msix(val(op[2]))
        if k == "sim:nomsix":
            return await self.nomsix()
        if k == "sim:intx":
            return await self.intx(val(op[2]) & 1)
        if k == "sim:t2rate":
            return self.t2rate(val(op[2]), val(op[3]))
        if k == "sim:timers":
            got = int(self.dut.dut.u_tlp.timers_run.value)
            return [] if got == val(op[2]) & 1 else ["timers_run %d" % got]
        if k == "sim:credit":
            self.credit(val(op[2]))
        elif k == "sim:wait":
            await self.cycles(val(op[2]))
        elif k == "sim:cfg":
            await self.cfg(val(op[2]))
        elif k == "sim:ipirq":
            await self.pulse(ipirq_vld=1, ipirq_info=val(op[2]) & M64)
        elif k == "sim:ack":
            await self.pulse(ack_vld=1, ack_qpid=val(op[2]),
                             ack_rtt=val(op[3]) & 0xFFFFFFFF,
                             ack_num=val(op[4]), ack_nak=val(op[5]) & 1)
        elif k == "sim:tmo":
            await self.pulse(tmo_vld=1, tmo_qpid=val(op[2]))
        elif k == "sim:ipset":
            self.ipset(vl.reg(op[2])[0], val(op[3]))
        elif k == "sim:ipdfx":
            self.ipdfx(val(op[2]), val(op[3]), val(op[4]))
        elif k == "sim:delay":
            self.delay(val(op[2]), adr(op[3]) if len(op) > 3 else None)
        elif k == "sim:wstall":
            self.wstall(val(op[2]))
        elif k == "sim:rx":
            n = val(op[5])
            pkt = struct.pack("<Q", val(op[3])) + self.mem_get(adr(op[4]), n)
            if "pad" in op[6:]:
                pkt = pkt.ljust(PKT_MIN, b"\0")
            refused = await self.flow_stop(val(op[2]), op[6:])
            if refused is not None:
                return refused
            await self.rx(pkt, val(op[2]), bg="bg" in op[6:])
        elif k == "sim:rx2":
            g = val(op[2])
            psn = val(op[6]) if len(op) > 6 else self.t2_psn.get(g, 0)
            self.t2_psn[g] = (psn + 1) & 0xFFF
            pkt = struct.pack("<Q", val(op[3])) + \
                self.mem_get(adr(op[4]), val(op[5]))
            await self.rx(pkt, g, 3, psn & 0xFFF,
                          val(op[7]) & 0x3FF if len(op) > 7 else 0)
        else:
            raise AssertionError("op %r is not the stand-in's" % (op,))
        return []


async def run_vector(tb, drv, v):
    """Replay a vector's ops as vec2tb.py / rclink_tb.v do; returns the
    list of failed checks."""
    # the buffers on consecutive pages, in the order of their names, as
    # on the testbench (a piece may run on into the next buffer)
    names = sorted(v["buffers"])
    base, mem = tb.rc.alloc_region(0x1000 * max(1, len(names)))
    bases = {name: base + 0x1000 * i for i, name in enumerate(names)}
    bar0 = drv.bar0
    fails = []

    def host(a, n):
        assert base <= a and a + n <= base + len(mem), \
            "no host buffer at %#x+%d" % (a, n)
        return a - base

    def mem_get(a, n):
        off = host(a, n)
        return bytes(mem[off:off + n])

    def mem_put(a, data):
        off = host(a, len(data))
        mem[off:off + len(data)] = data

    def check(ok, what):
        if not ok:
            fails.append(what)

    stand = Stand(tb, drv, mem_get)
    # the IP's TYPE3 ring engine on the NONR masters, when the vector
    # plays TYPE3 (else the masters stay idle for test_rclink_t3)
    # (and when it plays the wire: the IP's frames come from there)
    wire = any(op_kind(op) in vecset.WIRE for op in v["ops"])
    stand.t3 = t3_twin.T3Twin(tb.dut, mem_get, tb.log) \
        if t3_twin.wanted(v) or wire else None
    # both ends of the MAC side, when the vector plays the wire: the
    # TYPE3 engine's frames go on the IP's CEMAC_TX
    stand.wire = None
    if wire:
        stand.wire = mac_wire.Wire(tb.dut)
        stand.t3.on_tx = stand.wire.ip_send
    try:
        await _run_ops(v, bases, bar0, drv, tb, stand, mem_get, mem_put,
                       check, fails)
    finally:
        stand.stop()
        if stand.t3 is not None:
            stand.t3.stop()
        if stand.wire is not None:
            stand.wire.stop()
    return fails


async def _run_ops(v, bases, bar0, drv, tb, stand, mem_get, mem_put, check,
                   fails):
    for pc, op in enumerate(v["ops"]):
        if TRACE:
            tb.log.info("op %d %r", pc, op)
        if op_kind(op) in vecset.STAND:
            if op_kind(op) in FLUSH:
                # the register writes before a packet take effect first
                # (a read flushes them, as the testbench waits after each)
                await bar0.read_qword(reg("SHIM_ID"))
            try:
                # none of the stand-in's ops takes long: a hang is a failure
                fails += ["%d %r: %s" % (pc, op, f)
                          for f in await with_timeout(stand.do(op, bases),
                                                      100, "us")]
            except SimTimeoutError:
                fails.append("%d %r: not done after 100 us (the vector "
                             "stops here)" % (pc, op))
                break
            except AssertionError as e:
                fails.append("%d %r: %s (the vector stops here)" % (pc, op, e))
                break
            continue
        if op[0] == "sim":
            op = op[1:]
        k = op[0]
        if k in ("w64", "w32"):
            off, _ = vl.reg(op[1])
            if k == "w64":
                await bar0.write_qword(off, vl.value(op[2]) & M64)
            else:
                await bar0.write_dword(off, vl.value(op[2]) & 0xFFFFFFFF)
        elif k in ("r64", "r32"):
            off, _ = vl.reg(op[1])
            if k == "r64":
                val = await bar0.read_qword(off)
                mask = vl.value(op[3]) if len(op) > 3 else M64
            else:
                val = await bar0.read_dword(off)
                mask = vl.value(op[3]) if len(op) > 3 else 0xFFFFFFFF
            check(val & mask == vl.value(op[2]) & mask,
                  "%d %r: read %#x" % (pc, op, val))
        elif k == "wbuf":
            off, _ = vl.reg(op[1])
            await bar0.write_qword(off, vl.addr(op[2], bases))
        elif k == "db":
            await drv.bar4.write_qword(
                vl.value(op[1]) << DB_SHIFT | hw.FORMATS["DB"][2]["OFF_" + op[2]],
                vl.value(op[3]) & 0xFFFFFFFF)
        elif k == "dbw":
            a, size, val = vl.db_write(op, DB_SHIFT)
            await drv.bar4.write(a, val.to_bytes(size, "little"))
        elif k == "poll":
            off, _ = vl.reg(op[1])
            mask = vl.value(op[3]) if len(op) > 3 else M64
            want = vl.value(op[2]) & mask
            for _ in range(200):
                val = await bar0.read_qword(off)
                if val & mask == want:
                    break
                await Timer(200, "ns")
            check(val & mask == want, "%d %r: polled %#x" % (pc, op, val))
        elif k == "rge":
            off, _ = vl.reg(op[1])
            for _ in range(200):
                val = await bar0.read_qword(off)
                if val >= vl.value(op[2]):
                    break
                await Timer(200, "ns")
            check(val >= vl.value(op[2]), "%d %r: read %#x" % (pc, op, val))
        elif k == "master":
            if vl.value(op[1]):
                await drv.pdev.set_master()
            else:
                await drv.pdev.clear_master()
            await cfg_settle(tb)
        elif k == "memw":
            mem_put(vl.addr(op[1], bases),
                    struct.pack("<Q", vl.value(op[2]) & M64))
        elif k == "memr":
            val, = struct.unpack("<Q", mem_get(vl.addr(op[1], bases), 8))
            mask = vl.value(op[3]) if len(op) > 3 else M64
            check(val & mask == vl.value(op[2]) & mask,
                  "%d %r: memory %#x" % (pc, op, val))
        elif k == "fill":
            mem_put(vl.addr(op[1], bases),
                    vl.pattern(vl.value(op[3]), vl.value(op[2])))
        elif k == "memeq":
            n = vl.value(op[3])
            check(mem_get(vl.addr(op[1], bases), n) ==
                  mem_get(vl.addr(op[2], bases), n), "%d %r" % (pc, op))
        elif k == "wqe":
            w1 = (vl.addr(op[3], bases) if isinstance(op[3], str) and
                  not op[3].startswith("0x") else vl.value(op[3]))
            mem_put(vl.addr(op[1], bases),
                    struct.pack("<QQ", vl.value(op[2]) & M64, w1 & M64))
        elif k == "rqe":
            mem_put(vl.addr(op[1], bases),
                    struct.pack("<QQ", vl.addr(op[2], bases),
                                vl.value(op[3]) & M64))
        else:
            raise AssertionError("op %r is not a plain op" % (op,))


@cocotb.test()
async def test_ctx_doorbell_bar(dut):
    """The doorbell BAR through the PCIe top: DMAQ_CTX_CAP names it, a
    32-bit write of a register's low half counts, one of the high half
    alone, one to the reserved rest of the page, a 2-byte one and a
    16-byte one (a TLP of 4 DWs) are dropped and counted in
    DMAQ_CTX_DB_DROP, reads of up to 64 bytes return zeros, and none of
    it is a bad request.  The three WQEs the SQ
    producer posts name a QP of context 0: NOT_OWNER, the context runs on."""
    tb, drv = await bring_up(dut)
    bar0, bar4 = drv.bar0, drv.bar4
    cap = await bar0.read_qword(reg("DMAQ_CTX_CAP"))
    assert cap & 0xFFFF == NCTX
    assert (cap >> 16) & 0xFF == DB_SHIFT
    assert (cap >> 24) & 0xF == 4
    ctx = 5
    page = ctx << DB_SHIFT
    off = hw.FORMATS["DB"][2]
    await bar0.write_qword(reg("DMAQ_CTX_SEL"), ctx)
    mems = {}
    for r in ("SQ_BASE", "RQ_BASE", "CQ_BASE", "DBREC", "AREA_TBL"):
        addr, mems[r] = tb.rc.alloc_region(0x1000)
        await bar0.write_qword(reg("DMAQ_CTX_" + r), addr)
    for i in range(3):
        mems["SQ_BASE"][16 * i:16 * i + 16] = struct.pack(
            "<QQ", vl.fmt("WQE", OPCODE=1, QPN=0, LEN=64), 0)
    await bar0.write_qword(reg("DMAQ_CTX_QCFG"), 0x40404)
    await bar0.write_qword(reg("DMAQ_CTX_AREA_CFG"), 12 << 24 | 1)
    await bar0.write_qword(reg("DMAQ_CTX_CTRL"), 1)
    assert await bar0.read_qword(reg("DMAQ_CTX_STATUS")) == 3
    await bar4.write_dword(page + off["OFF_RQ_PROD"], 5)
    assert await bar0.read_qword(reg("DMAQ_CTX_RQ_IDX")) == 5
    await bar4.write_dword(page + off["OFF_RQ_PROD"] + 4, 7)
    await bar4.write_qword(page + 0x100, 9)
    await bar4.write(page + off["OFF_RQ_PROD"], (6).to_bytes(2, "little"))
    await bar4.write(page + off["OFF_RQ_PROD"], (6).to_bytes(16, "little"))
    assert await bar0.read_qword(reg("DMAQ_CTX_DB_DROP")) == 4
    await bar4.write_qword(page + off["OFF_SQ_PROD"], 0xFFFFFFFF00000003)
    assert await bar0.read_qword(reg("DMAQ_CTX_RQ_IDX")) == 5
    for _ in range(100):
        if await bar0.read_qword(reg("DMAQ_CTX_CQ_IDX")) & 0xFFFFFFFF == 3:
            break
        await Timer(100, "ns")
    assert await bar0.read_qword(reg("DMAQ_CTX_SQ_IDX")) == 0x300000003
    assert await bar0.read_qword(reg("DMAQ_CTX_NOT_OWNER")) == 3
    assert await bar4.read_qword(page + off["OFF_RQ_PROD"]) == 0
    assert await bar4.read_dword(page + off["OFF_SQ_PROD"]) == 0
    # wide loads of the page (16, 32 and 64 bytes, one of 52 at an odd
    # place): zeros, completions of one and of two beats
    for a, n in ((0, 16), (0x20, 32), (0x40, 64), (0x103, 50)):
        assert await bar4.read(page + a, n) == bytes(n), (a, n)
    assert await bar0.read_qword(reg("DMAQ_CTX_DB_DROP")) == 4
    assert await bar0.read_qword(reg("DMAQ_CTX_STATUS")) == 3
    assert int(dut.cnt_bad_req.value) == 0




def bench_ost_n():
    """The TX_S tokens (TYPE1 outstanding packets) the bench's shim counts
    on: its OST_N, the contract's TYPE1_OST_N unless rtl.sh built the
    bench again with fewer for the vectors that ask for them (sim_ost_n).
    The count is the shim's (the send engine's free slots after reset,
    DMAQ_T1_OST_FREE), not the IP stand-in's, which only returns the
    tokens."""
    top = cocotb.top
    return int(top.OST_N.value) if top is not None else \
        hw.PARAMS["TYPE1_OST_N"]


OST_N = bench_ost_n()


def vector_files():
    """The vectors this bench replays (vecset.py: every op a plain op or
    one Stand plays, no model_only or cocotb_skip reason), those of its
    token count (a vector's sim_ost_n, else the contract's)."""
    return [(name, path) for name, kind, _, path in vecset.table()
            if kind == "replay" and
            vl.load(path).get("sim_ost_n", hw.PARAMS["TYPE1_OST_N"]) == OST_N]


@cocotb.test()
async def test_vector_set(dut):
    """Each shared vector file is replayed here or says why not (vecset.py:
    model_only, cocotb_skip), and the lists of Documentation/hw/rtl.rst
    are vecset.py's."""
    bad = vecset.errors()
    with open(vecset.RST) as f:
        _, have, _ = vecset.split(f.read())
    if have != vecset.block():
        bad.append("rtl.rst's vector lists are not vecset.py's "
                   "(vecset.py --write)")
    for b in bad:
        logging.getLogger("cocotb.tb").error("%s", b)
    assert not bad, bad


def _vector_test(name, path):
    async def vector(dut):
        tb, drv = await bring_up(dut)
        fails = await run_vector(tb, drv, vl.load(path))
        for f in fails:
            tb.log.error("vector %s: %s", name, f)
        assert not fails, "%d checks failed" % len(fails)
        assert int(dut.cnt_bad_req.value) == 0
    vector.__name__ = vector.__qualname__ = "test_vector_" + name
    vector.__doc__ = "The shared vector %s through the PCIe top." % name
    # on the P-tile top: not a vector it does not pass yet (ptile_skip)
    # not in the short set: a vector of more than 10 s on this bench
    # (its cocotb_long key; the short run replays it on the word-level
    # bench instead)
    skip = (SHORT and bool(vl.load(path).get("cocotb_long"))) or \
        (PTILE and bool(vl.load(path).get("ptile_skip")))
    return cocotb.test(skip=skip)(vector)


for _name, _path in vector_files():
    globals()["test_vector_" + _name] = _vector_test(_name, _path)
