# SPDX-License-Identifier: GPL-2.0
"""cocotb tests of the MAC side (rclink_mac; Documentation/hw/rtl.rst,
"MAC side").

The tests play both ends of the block on the UltraScale+ or P-tile bench:
the RCLINK-Stream IP's CEMAC ports (tx2mac_* into the shim, mac2tx_*
credits and CBFC configuration out of it, mac2rx_* out with rx2mac_rdy
in) and the integrator's MAC adapter (emac_*), while the registers are
read and written through the root complex as the driver does.  Frames are
compared byte for byte; every counter is checked against the number of
frames the test sent of each kind.
"""

import random

import cocotb
from cocotb.triggers import FallingEdge, RisingEdge, Timer

from mac_wire import DW, beats, idle_inputs, take
from test_rclink_us import SHORT, bring_up, reg

ETH_T1, ETH_T2, ETH_CTRL = 0x88B5, 0x88B6, 0x8808
OP_PAUSE, OP_PFC, OP_UPDATE = 0x0001, 0x0101, 0x0102
LINK_FORCE_DOWN = 1 << 8    # SHIM_LINK.force_down
DA = bytes([0x02, 0, 0, 0, 0, 1])
FC_DA = bytes.fromhex("0180c2000001")   # RX_FC_DADDR's reset value


def frame(rng, etype, length, opcode=None, vlan=None, da=DA):
    """An Ethernet frame of length bytes (DA, SA, [tag], type, payload)."""
    hdr = da + bytes([0x02, 0, 0, 0, 0, 2])
    if vlan is not None:
        hdr += (0x8100).to_bytes(2, "big") + vlan.to_bytes(2, "big")
    hdr += etype.to_bytes(2, "big")
    if opcode is not None:
        hdr += opcode.to_bytes(2, "big")
    body = bytes(rng.randrange(256) for _ in range(length - len(hdr)))
    return hdr + body


class Mac:
    """Both ends of rclink_mac: the IP's TX (on MAC credits) and RX
    (rx2mac_rdy, optionally random), the MAC adapter's TX (a beat's credit
    back after a few cycles) and RX (valid/ready)."""

    def __init__(self, dut, rng, rx_ready=1.0):
        self.dut = dut
        self.rng = rng
        self.rx_ready = rx_ready          # chance of rx2mac_rdy a cycle
        self.tx_wire = []                 # frames the MAC adapter got
        self.tx_meta = []                 # (vcid, mcast, vlan) of each
        self.rx_ip = []                   # frames the IP got
        self.ip_credits = 0               # MAC2TX_CREDIT_I pulses
        self.mac_beats = 0                # beats the MAC adapter took
        self.cbfc_rst = []                # (MAC2TX_CBFC_RST_I, limit, size, ovhd)
        self.cbfc_reset = 0               # MAC2TX_CBFC_RESET_I pulses
        self.cbfc_ret = []                # (MAC2TX_CBFC_VLD_I, NUM_I)
        self.cbfc_rst_ret = []            # len(cbfc_ret) at each RST
        self.rx_stall_max = 0             # beats taken while the IP stalls
        idle_inputs(dut)
        self._owed = []                   # cycles at which credits are due
        cocotb.start_soon(self._run())

    async def _run(self):
        dut = self.dut
        tx_cur = rx_cur = None
        cycle = 0
        while True:
            await RisingEdge(dut.user_clk)
            cycle += 1
            # sampled values of this edge
            if int(dut.mac2tx_credit.value):
                self.ip_credits += 1
            rst = int(dut.mac2tx_cbfc_rst.value)
            if rst:
                self.cbfc_rst_ret.append(len(self.cbfc_ret))
                self.cbfc_rst.append((rst, int(dut.cbfc_credit_limit.value),
                                      int(dut.cbfc_credit_size.value),
                                      int(dut.cbfc_pkt_ovhd.value)))
            self.cbfc_reset += int(dut.mac2tx_cbfc_reset.value)
            vld = int(dut.mac2tx_cbfc_vld.value)
            if vld:
                self.cbfc_ret.append((vld, int(dut.mac2tx_cbfc_num.value)))
            if int(dut.emac_tx_vld.value):
                self.mac_beats += 1
                self._owed.append(cycle + self.rng.randrange(1, 6))
                w, be = int(dut.emac_tx_dat.value), int(dut.emac_tx_be.value)
                fe = int(dut.emac_tx_fe.value)
                if int(dut.emac_tx_fs.value):
                    tx_cur = bytearray()
                    self.tx_meta.append((int(dut.emac_tx_vcid.value),
                                         int(dut.emac_tx_mcast.value),
                                         int(dut.emac_tx_vlan.value)))
                tx_cur += take(w, be, fe)
                if fe:
                    self.tx_wire.append(bytes(tx_cur))
            rdy = int(dut.rx2mac_rdy.value)
            if int(dut.mac2rx_vld.value) and rdy:
                w, be = int(dut.mac2rx_dat.value), int(dut.mac2rx_be.value)
                fe = int(dut.mac2rx_fe.value)
                if int(dut.mac2rx_fs.value):
                    rx_cur = bytearray()
                rx_cur += take(w, be, fe)
                if fe:
                    self.rx_ip.append(bytes(rx_cur))
            # the MAC adapter gives a beat's credit back, one a cycle
            await FallingEdge(dut.user_clk)
            due = self._owed and self._owed[0] <= cycle
            dut.emac_tx_credit.value = int(bool(due))
            if due:
                self._owed.pop(0)
            dut.rx2mac_rdy.value = int(self.rng.random() < self.rx_ready)

    async def _drive(self, pfx, data, gap, ready=None, fe_side=(), **side):
        """A frame on the stream of prefix pfx, one beat a cycle with
        random gaps; with ready (a signal), each beat until it is taken;
        side: other signals of the stream held during the frame; fe_side:
        (name, value) pairs on the frame's last beat only (0 before)."""
        dut = self.dut
        sig = lambda n: getattr(dut, pfx + n)  # noqa: E731
        for dat, be, fs, fe in beats(data):
            await FallingEdge(dut.user_clk)
            while self.rng.random() < gap:
                sig("vld").value = 0
                await FallingEdge(dut.user_clk)
            for n, v in (("vld", 1), ("dat", dat), ("be", be), ("fs", fs),
                         ("fe", fe)) + tuple(side.items()):
                sig(n).value = v
            for n, v in fe_side:
                sig(n).value = v if fe else 0
            for _ in range(10000 if ready is not None else 0):
                await RisingEdge(dut.user_clk)
                if int(ready.value):
                    break
            else:
                assert ready is None, pfx + ": not ready for 10000 cycles"
        await FallingEdge(dut.user_clk)
        for n in ("vld", "fs", "fe") + tuple(n for n, _ in fe_side):
            sig(n).value = 0

    async def ip_send(self, data, vlan=0, gap=0.0, cbfc=0):
        """The IP sends a frame on TX2MAC_* (on credits: no ready);
        cbfc: TX2MAC_CBFC_VCID_O (a bit per VC)."""
        t2 = data[12:14] == ETH_T2.to_bytes(2, "big")
        await self._drive("tx2mac_", data, gap, vlan=vlan, vcid=5,
                          mcast=int(t2), cbfc_vcid=cbfc)

    async def mac_recv(self, data, gap=0.0, fcs_err=0):
        """The MAC adapter hands a frame over on emac_rx_* (valid/ready);
        fcs_err: the MAC's FCS error flag on the frame's last beat."""
        await self._drive("emac_rx_", data, gap, ready=self.dut.emac_rx_rdy,
                          fe_side=(("fcs_err", fcs_err),))

    async def mac_burst(self, frames):
        """One-beat frames on emac_rx_*, one a cycle, no gap (the shim's
        ready is asserted to be high: control frames never wait)."""
        dut = self.dut
        for f in frames:
            (dat, be, fs, fe), = beats(f)
            await FallingEdge(dut.user_clk)
            assert int(dut.emac_rx_rdy.value)
            dut.emac_rx_dat.value, dut.emac_rx_be.value = dat, be
            dut.emac_rx_fs.value, dut.emac_rx_fe.value = fs, fe
            dut.emac_rx_vld.value = 1
        await FallingEdge(dut.user_clk)
        dut.emac_rx_vld.value = 0
        dut.emac_rx_fs.value = dut.emac_rx_fe.value = 0

    async def idle(self, cycles=40):
        for _ in range(cycles):
            await RisingEdge(self.dut.user_clk)


async def counters(drv):
    names = ("SHIM_WIRE_TX_FRAMES", "SHIM_WIRE_RX_FRAMES",
             "SHIM_TX_DROP_LINK", "SHIM_MAC_CTRL_DROP", "SHIM_CBFC_UPD_RX")
    return {n: await drv.bar0.read_qword(reg(n)) for n in names}


async def setup(dut, seed, rx_ready=1.0):
    # both ends driven before the reset of bring_up: the block starts
    # from defined inputs
    mac = Mac(dut, random.Random(seed), rx_ready)
    tb, drv = await bring_up(dut)
    await mac.idle(4)
    return tb, drv, mac


@cocotb.test()
async def test_mac_pass(dut):
    """Link up: TYPE1/2/3 frames of 60 .. 1500 bytes pass both ways byte
    for byte, in order, with gaps on either side; the wire counters count
    them; every credit the MAC gives back reaches the IP."""
    tb, drv, mac = await setup(dut, 1)
    rng = random.Random(11)
    before = await counters(drv)
    n = 6 if SHORT else 20
    tx = [frame(rng, rng.choice([0x0800, ETH_T1, ETH_T2, 0x86DD]),
                rng.choice([60, 127, 128, 129, 256, 1500]))
          for _ in range(n)]
    rx = [frame(rng, rng.choice([0x0800, ETH_T1, 0x88CC]),
                rng.choice([60, 64, 128, 300, 1518]))
          for _ in range(n)]
    send = cocotb.start_soon(_all(mac.ip_send, tx, 0.3))
    recv = cocotb.start_soon(_all(mac.mac_recv, rx, 0.3))
    await send
    await recv
    await mac.idle(60)
    assert mac.tx_wire == tx
    assert mac.rx_ip == rx
    assert all(v == 5 for v, _, _ in mac.tx_meta)
    after = await counters(drv)
    d = {k: after[k] - before[k] for k in after}
    assert d == {"SHIM_WIRE_TX_FRAMES": n, "SHIM_WIRE_RX_FRAMES": n,
                 "SHIM_TX_DROP_LINK": 0, "SHIM_MAC_CTRL_DROP": 0,
                 "SHIM_CBFC_UPD_RX": 0}, d
    nbeats = sum(len(beats(f)) for f in tx)
    assert mac.mac_beats == nbeats
    assert mac.ip_credits == nbeats, (mac.ip_credits, nbeats)


async def _all(fn, frames, gap):
    for f in frames:
        await fn(f, gap=gap)


@cocotb.test()
async def test_mac_rx_ctrl(dut):
    """MAC control frames (Ethernet type 0x8808) never reach the IP: a
    CBFC update frame (opcode 0x0102, 86 bytes or more, to RX_FC_DADDR)
    is taken off and counted in SHIM_CBFC_UPD_RX, every other (Pause,
    PFC, an unknown opcode, an update frame too short or to another
    address, a long one of two beats) dropped and counted in
    SHIM_MAC_CTRL_DROP; the frames around them arrive intact, under the
    IP's random back-pressure (RX2MAC_RDY_O)."""
    tb, drv, mac = await setup(dut, 2, rx_ready=0.4)
    rng = random.Random(12)
    before = await counters(drv)
    kinds = [("data", None, 100), ("ctrl", OP_PFC, 60),
             ("data", None, 129), ("ctrl", OP_PAUSE, 60),
             ("upd", OP_UPDATE, 86), ("ctrl", OP_UPDATE, 85),
             ("ctrl", 0x0203, 64), ("upd", OP_UPDATE, 300),
             ("ctrl", OP_PFC, 200), ("data", None, 60),
             ("upd", OP_UPDATE, 128), ("data", None, 1000),
             ("ctrl", OP_UPDATE, 86)]
    frames, want = [], []
    for kind, op, length in kinds:
        if kind == "data":
            f = frame(rng, 0x0800, length)
            want.append(f)
        else:
            f = frame(rng, ETH_CTRL, length, opcode=op,
                      da=FC_DA if kind == "upd" else DA)
        frames.append(f)
    for f in frames:
        await mac.mac_recv(f, gap=0.2)
    await mac.idle(80)
    assert mac.rx_ip == want
    after = await counters(drv)
    d = {k: after[k] - before[k] for k in after}
    assert d == {"SHIM_WIRE_TX_FRAMES": 0,
                 "SHIM_WIRE_RX_FRAMES": len(frames),
                 "SHIM_TX_DROP_LINK": 0,
                 "SHIM_MAC_CTRL_DROP": sum(k == "ctrl" for k, _, _ in kinds),
                 "SHIM_CBFC_UPD_RX": sum(k == "upd" for k, _, _ in kinds)}, d


@cocotb.test()
async def test_mac_rx_fc_daddr(dut):
    """The address of update frames is the MAC's RX_FC_DADDR as the MAC
    uses it: a new value written takes effect at the release of
    PHY_CONFIG.soft_reset (a static register of seed 003), not before;
    SHIM_RESET brings the reset value back."""
    tb, drv, mac = await setup(dut, 5)
    bar0 = drv.bar0
    rng = random.Random(15)
    new = bytes.fromhex("02aabbccddee")

    async def mac_csr(name, val):
        # a read after it: the write has reached the MAC
        await bar0.write_dword(reg(name), val)
        await bar0.read_dword(reg(name))

    async def upd_to(da):
        await mac.mac_recv(frame(rng, ETH_CTRL, 86, opcode=OP_UPDATE, da=da))
        await mac.idle(20)
        c = await counters(drv)
        return c["SHIM_CBFC_UPD_RX"], c["SHIM_MAC_CTRL_DROP"]

    await mac_csr("RX_FC_DADDR_LO", int.from_bytes(new[2:], "big"))
    await mac_csr("RX_FC_DADDR_HI", int.from_bytes(new[:2], "big"))
    assert await upd_to(new) == (0, 1)
    assert await upd_to(FC_DA) == (1, 1)
    await mac_csr("PHY_CONFIG", 1)
    assert await upd_to(FC_DA) == (2, 1)
    await mac_csr("PHY_CONFIG", 0)
    got = await upd_to(FC_DA)
    assert got == (2, 2), got
    assert await upd_to(new) == (3, 2)
    await bar0.write_qword(reg("SHIM_RESET"), 1)
    await mac.idle(20)
    assert await upd_to(new) == (0, 1)
    assert await upd_to(FC_DA) == (1, 1)
    assert mac.rx_ip == []


@cocotb.test()
async def test_mac_rx_backpressure(dut):
    """RX2MAC_RDY_O low: the shim holds what it took (a skid buffer and
    its output register: at most three beats) and lowers its ready to
    the MAC; nothing is lost or repeated when the IP is ready again."""
    tb, drv, mac = await setup(dut, 3, rx_ready=0.0)
    rng = random.Random(13)
    f = frame(rng, 0x0800, 8 * DW)
    taken = 0

    async def count():
        nonlocal taken
        while True:
            await RisingEdge(dut.user_clk)
            if int(dut.emac_rx_vld.value) and int(dut.emac_rx_rdy.value):
                taken += 1
    counter = cocotb.start_soon(count())
    send = cocotb.start_soon(mac.mac_recv(f))
    await mac.idle(100)
    assert taken == 3, taken
    assert not int(dut.emac_rx_rdy.value)
    assert mac.rx_ip == []
    mac.rx_ready = 0.5
    await send
    await mac.idle(60)
    counter.kill()
    assert taken == 8
    assert mac.rx_ip == [f]


@cocotb.test()
async def test_mac_link_down(dut):
    """SHIM_LINK.up 0 (force_down): TYPE3 frames are dropped at TX and
    counted in SHIM_TX_DROP_LINK, TYPE1 and TYPE2 frames (Ethernet type
    0x88b5/0x88b6, also behind a VLAN tag) go on; every beat's credit
    gets back to the IP, the dropped ones from the shim while the MAC
    returns its own: none leaks, none is made up.  With the link up again
    TYPE3 frames pass."""
    tb, drv, mac = await setup(dut, 4)
    rng = random.Random(14)
    before = await counters(drv)
    await drv.bar0.write_qword(reg("SHIM_LINK"), LINK_FORCE_DOWN)
    assert await drv.bar0.read_qword(reg("SHIM_LINK")) == LINK_FORCE_DOWN
    sent = []                               # (frame, vlan, passes)
    for i in range(8 if SHORT else 24):
        k = rng.randrange(5)
        if k == 0:
            sent.append((frame(rng, ETH_T1, rng.choice([60, 300])), 0, True))
        elif k == 1:
            sent.append((frame(rng, ETH_T2, 200, vlan=3), 1, True))
        elif k == 2:
            # a TYPE3 frame whose tag hides nothing of TYPE1/2
            sent.append((frame(rng, 0x0800, 150, vlan=3), 1, False))
        else:
            sent.append((frame(rng, rng.choice([0x0800, 0x86DD]),
                               rng.choice([60, 128, 129, 400, 1500])), 0,
                         False))
    for f, vlan, _ in sent:
        await mac.ip_send(f, vlan=vlan, gap=0.2)
    await mac.idle(60)
    assert mac.tx_wire == [f for f, _, p in sent if p]
    nbeats = sum(len(beats(f)) for f, _, _ in sent)
    assert mac.ip_credits == nbeats, (mac.ip_credits, nbeats)
    after = await counters(drv)
    d = {k: after[k] - before[k] for k in after}
    assert d["SHIM_TX_DROP_LINK"] == sum(not p for _, _, p in sent), d
    assert d["SHIM_WIRE_TX_FRAMES"] == sum(p for _, _, p in sent), d
    # the link back: TYPE3 passes
    await drv.bar0.write_qword(reg("SHIM_LINK"), 0)
    assert await drv.bar0.read_qword(reg("SHIM_LINK")) == 1
    f = frame(rng, 0x0800, 300)
    await mac.ip_send(f)
    await mac.idle(40)
    assert mac.tx_wire[-1] == f
    again = await counters(drv)
    assert again["SHIM_TX_DROP_LINK"] == after["SHIM_TX_DROP_LINK"]
    assert again["SHIM_WIRE_TX_FRAMES"] == after["SHIM_WIRE_TX_FRAMES"] + 1


@cocotb.test()
async def test_mac_pfc_paused(dut):
    """SHIM_PFC_PAUSED reads the priorities the MAC says the partner has
    paused (emac_rx_pfc, what drives the IP's RX_PFC_REQ_I), as they are
    at the read; the other bits read 0."""
    tb, drv, mac = await setup(dut, 21)
    assert await drv.bar0.read_qword(reg("SHIM_PFC_PAUSED")) == 0
    for paused in (0x01, 0x5A, 0x80, 0xFF, 0x00, 0x24):
        dut.emac_rx_pfc.value = paused
        await mac.idle(2)
        got = await drv.bar0.read_qword(reg("SHIM_PFC_PAUSED"))
        assert got == paused, (hex(got), hex(paused))
    dut.emac_rx_pfc.value = 0


async def status(bar0, mac):
    """SHIM_CBFC_STATUS: the read flushes the writes before it (PCIe
    order); the loads of the last write are out some cycles later."""
    st = await bar0.read_qword(reg("SHIM_CBFC_STATUS"))
    await mac.idle(12)
    return st


@cocotb.test()
async def test_mac_cbfc_cfg(dut):
    """SHIM_CBFC_CTRL.load: MAC2TX_CBFC_RST_I one VC a cycle, each with
    its SHIM_CBFC_VC_CFG on the configuration outputs; a credit_size that
    is no size (6, 7) is refused (no RST, not loaded); .reset is one
    MAC2TX_CBFC_RESET_I and unloads every VC; DFX_CBFC_CF_O reads in
    DMAQ_DFX_CBFC_CF0/CF1."""
    tb, drv, mac = await setup(dut, 5)
    bar0 = drv.bar0
    cfg = {}
    for v in range(8):
        limit, size, ovhd = 100 + 37 * v, v % 6, (v * 77 - 200) & 0x3FF
        if v == 6:
            size = 6                        # not a size
        cfg[v] = (limit, size, ovhd)
        await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * v,
                               limit | size << 16 | ovhd << 20)
    for v in range(8):
        limit, size, ovhd = cfg[v]
        got = await bar0.read_qword(reg("SHIM_CBFC_VC_CFG") + 8 * v)
        assert got == limit | size << 16 | ovhd << 20, (v, hex(got))
    assert await bar0.read_qword(reg("SHIM_CBFC_STATUS")) == 0
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 0b11100101)
    st = await status(bar0, mac)
    want = [(1 << v,) + cfg[v] for v in (0, 2, 5, 7)]
    assert mac.cbfc_rst == want, mac.cbfc_rst
    assert st == 0b10100101 << 8, hex(st)
    # VC 6 made a size: loaded too; a reload of 6 as no size unloads it
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 6, 5 | 3 << 16)
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 6)
    assert await status(bar0, mac) == 0b11100101 << 8
    assert mac.cbfc_rst[-1] == (1 << 6, 5, 3, 0), mac.cbfc_rst
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 6, 5 | 7 << 16)
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 6)
    assert await status(bar0, mac) == 0b10100101 << 8
    assert len(mac.cbfc_rst) == 5
    # reset: one pulse, nothing loaded, no RST
    assert mac.cbfc_reset == 0
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 8)
    assert await status(bar0, mac) == 0
    assert mac.cbfc_reset == 1
    assert len(mac.cbfc_rst) == 5
    # DFX_CBFC_CF_O: bank0 in the low 16 bits .. TYPE3 in [111:96]
    flows = [0x1111, 0x2222, 0x3333, 0x4444, 0x0AC5, 0x7E02, 0xFFFF]
    dut.dfx_cbfc_cf.value = sum(c << (16 * i) for i, c in enumerate(flows))
    await Timer(40, "ns")
    cf0 = await bar0.read_qword(reg("DMAQ_DFX_CBFC_CF0"))
    cf1 = await bar0.read_qword(reg("DMAQ_DFX_CBFC_CF1"))
    assert cf0 == 0x4444333322221111, hex(cf0)
    assert cf1 == 0xFFFF7E020AC5, hex(cf1)
    # SHIM_RESET: configuration and state back to their reset values
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 0b1)
    assert await status(bar0, mac) == 1 << 8
    await drv.reset()
    assert await bar0.read_qword(reg("SHIM_CBFC_STATUS")) == 0
    assert await bar0.read_qword(reg("SHIM_CBFC_VC_CFG")) == 0


def ipv4_udp(rng, dport, length, vlan=None):
    """An IPv4/UDP frame (20-byte IPv4 header) to UDP port dport."""
    f = bytearray(frame(rng, 0x0800, length, vlan=vlan))
    o = 14 + (4 if vlan is not None else 0)
    f[o] = 0x45
    f[o + 9] = 17
    f[o + 22:o + 24] = dport.to_bytes(2, "big")
    return bytes(f)


@cocotb.test()
async def test_mac_link_down_keys(dut):
    """With the link down the IP's own receive keys (RX_CLASS_CFG) tell
    TYPE1/TYPE2 too: the Standard format's IPv4/UDP to type1_udp_dport
    (4791 after reset) or type2_udp_port, mac_type1/mac_type2; the shim
    follows the driver's writes of the register through the RC window,
    and its reset values after SHIM_RESET."""
    tb, drv, mac = await setup(dut, 6)
    rng = random.Random(16)
    bar0 = drv.bar0
    await bar0.write_qword(reg("SHIM_LINK"), LINK_FORCE_DOWN)
    before = await counters(drv)
    # reset keys: 4791 is TYPE1, 5000 and Ethernet type 0x9000 are not
    cases = [(ipv4_udp(rng, 4791, 100), 0, True),
             (ipv4_udp(rng, 4791, 200, vlan=7), 1, True),
             (ipv4_udp(rng, 5000, 100), 0, False),
             (frame(rng, 0x9000, 80), 0, False)]
    # new keys: TYPE1 port 5000, TYPE2 port 6000, mac_type1 0x9000
    cls = 5000 | 6000 << 16 | 0x9000 << 32
    keyed = [(ipv4_udp(rng, 5000, 100), 0, True),
             (ipv4_udp(rng, 6000, 150, vlan=2), 1, True),
             (ipv4_udp(rng, 4791, 100), 0, False),
             (frame(rng, 0x9000, 80), 0, True),
             (frame(rng, 0x9001, 80), 0, False)]
    for f, vlan, _ in cases:
        await mac.ip_send(f, vlan=vlan)
    await bar0.write_qword(reg("RX_CLASS_CFG"), cls)
    assert await bar0.read_qword(reg("RX_CLASS_CFG")) == cls
    for f, vlan, _ in keyed:
        await mac.ip_send(f, vlan=vlan)
    await mac.idle(40)
    sent = cases + keyed
    assert mac.tx_wire == [f for f, _, p in sent if p]
    after = await counters(drv)
    assert (after["SHIM_TX_DROP_LINK"] - before["SHIM_TX_DROP_LINK"] ==
            sum(not p for _, _, p in sent))
    nbeats = sum(len(beats(f)) for f, _, _ in sent)
    assert mac.ip_credits == nbeats, (mac.ip_credits, nbeats)
    # SHIM_RESET resets the IP: its keys and the shim's copy with it
    await drv.reset()
    await bar0.write_qword(reg("SHIM_LINK"), LINK_FORCE_DOWN)
    assert await bar0.read_qword(reg("SHIM_LINK")) == LINK_FORCE_DOWN
    n = len(mac.tx_wire)
    for f, vlan, _ in cases:
        await mac.ip_send(f, vlan=vlan)
    await mac.idle(40)
    assert mac.tx_wire[n:] == [f for f, _, p in cases if p]


def update(mask, based, epoch, peer_epoch, totals, length=86, da=FC_DA):
    """A CBFC update frame (shim.rst "CBFC"): totals {vc: (sent, freed)}."""
    f = da + bytes([0x02, 0, 0, 0, 0, 3])
    f += ETH_CTRL.to_bytes(2, "big") + OP_UPDATE.to_bytes(2, "big")
    f += bytes([mask, based]) + epoch.to_bytes(2, "big")
    f += peer_epoch.to_bytes(2, "big")
    for v in range(8):
        sent, freed = totals.get(v, (0, 0))
        f += (sent & 0xFFFFFFFF).to_bytes(4, "big")
        f += (freed & 0xFFFFFFFF).to_bytes(4, "big")
    return f.ljust(length, b"\0")


def returned(mac):
    """The credits MAC2TX_CBFC_VLD_I/NUM_I gave back, per VC."""
    out = {}
    for vld, num in mac.cbfc_ret:
        assert vld & (vld - 1) == 0 and vld < 256, hex(vld)  # one-hot
        v = vld.bit_length() - 1
        out[v] = out.get(v, 0) + num
    return out


async def load(bar0, mac, vcs, limit=1000, size=0):
    for v in vcs:
        await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * v,
                               limit | size << 16)
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"),
                           sum(1 << v for v in vcs))
    await status(bar0, mac)


@cocotb.test()
async def test_mac_cbfc_upd_epochs(dut):
    """Received update frames: a new epoch of the partner counts in
    SHIM_CBFC_RESYNC (its first does not), so does a SENT total that went
    back on a VC both have loaded; a VC this board has not loaded is
    ignored; FREED of another epoch than this board's (peer epoch 0: the
    partner has not heard it) returns nothing on MAC2TX_CBFC_VLD_I; an
    update frame to another address than RX_FC_DADDR is dropped
    (SHIM_MAC_CTRL_DROP), not parsed."""
    tb, drv, mac = await setup(dut, 7)
    bar0 = drv.bar0
    await load(bar0, mac, [0, 3])
    rs = lambda: bar0.read_qword(reg("SHIM_CBFC_RESYNC"))  # noqa: E731
    base = await rs()
    seq = [
        # (mask, epoch, {vc: (sent, freed)}, resyncs it makes)
        (0b00101001, 0x1234, {0: (100, 50), 3: (7, 7), 5: (9, 9)}, 0),
        (0b00101001, 0x1234, {0: (120, 60), 3: (7, 7), 5: (1, 1)}, 0),
        (0b00101001, 0x1234, {0: (110, 70), 3: (8, 7), 5: (0, 0)}, 1),
        (0b00001001, 0x1235, {0: (5, 5), 3: (9, 9)}, 1),
        (0b00001001, 0x1235, {0: (4, 5), 3: (3, 9)}, 2),
        (0b00001001, 0x0001, {0: (4, 5), 3: (3, 9)}, 1),
    ]
    want = 0
    for mask, ep, totals, n in seq:
        await mac.mac_recv(update(mask, mask, ep, 0, totals), gap=0.2)
        await mac.idle(8)
        want += n
        assert await rs() - base == want, (hex(ep), totals, want)
    assert mac.cbfc_ret == [], mac.cbfc_ret
    # a new epoch, but not to RX_FC_DADDR: dropped, no resync
    drop = (await counters(drv))["SHIM_MAC_CTRL_DROP"]
    await mac.mac_recv(update(0b1001, 0b1001, 0x3000, 0,
                              {0: (4, 5), 3: (3, 9)}, da=DA), gap=0.2)
    await mac.idle(8)
    assert await rs() - base == want
    assert (await counters(drv))["SHIM_MAC_CTRL_DROP"] == drop + 1
    # two update frames back to back (one beat each, no gap): the second
    # sees the first one's new epoch
    await mac.mac_burst([update(0b1001, 0b1001, ep, 0,
                                {0: (4, 5), 3: (3, 9)})
                         for ep in (0x2000, 0x2000)])
    await mac.idle(8)
    assert await rs() - base == want + 1


def parse_update(f):
    """(mask, based, epoch, peer epoch, {vc: (sent, freed)}) of an update
    frame the shim sent, checked for its fixed fields."""
    assert len(f) == 86, len(f)
    assert f[:6] == bytes([0x01, 0x80, 0xC2, 0, 0, 0x01]), f[:6].hex()
    assert f[12:16] == bytes([0x88, 0x08, 0x01, 0x02]), f[12:16].hex()
    totals = {}
    for v in range(8):
        e = f[22 + 8 * v:30 + 8 * v]
        totals[v] = (int.from_bytes(e[:4], "big"), int.from_bytes(e[4:], "big"))
    return (f[16], f[17], int.from_bytes(f[18:20], "big"),
            int.from_bytes(f[20:22], "big"), totals)


def credits(length, size, ovhd):
    b = length + ovhd
    return 1 if b <= 0 else -(-b // size)


@cocotb.test()
async def test_mac_cbfc_upd_tx(dut):
    """Update frames built on TX: one at each write of SHIM_CBFC_CTRL,
    every sync_us while totals change, update_us after the partner's
    update freed credits; 86 bytes between the IP's frames, never inside
    one, on a MAC credit of the shim's own (every credit of the IP's beats
    still reaches the IP).  SENT counts each frame of a loaded VC
    (TX2MAC_CBFC_VCID_O) at ceil((length + pkt_ovhd) / credit_size), at
    least one; FREED is the partner's SENT once based; the partner's
    FREED growth of this board's epoch comes back on MAC2TX_CBFC_VLD_I/
    NUM_I (0x7fff at most a time), a FREED gone back is a debt."""
    tb, drv, mac = await setup(dut, 8)
    rng = random.Random(18)
    bar0 = drv.bar0
    cnt = lambda n: bar0.read_qword(reg(n))  # noqa: E731
    tx0, upd0 = await cnt("SHIM_WIRE_TX_FRAMES"), await cnt("SHIM_CBFC_UPD_TX")
    await bar0.write_qword(reg("SHIM_CBFC_TIMING"), 1 | 4 << 16)
    assert await cnt("SHIM_CBFC_TIMING") == 1 | 4 << 16
    cfg = {1: (0, 32, 4), 4: (2, 128, -20)}        # code, bytes, ovhd
    for v, (code, _, ovhd) in cfg.items():
        await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * v,
                               500 | code << 16 | (ovhd & 0x3FF) << 20)
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 1 | 1 << 4)
    await status(bar0, mac)
    upds = lambda: [f for f in mac.tx_wire  # noqa: E731
                    if f[12:14] == ETH_CTRL.to_bytes(2, "big")]
    assert len(upds()) == 1, len(upds())
    mask, based, epoch, pep, totals = parse_update(upds()[0])
    assert (mask, based, pep) == (0b10010, 0, 0) and epoch != 0
    assert all(t == (0, 0) for t in totals.values()), totals
    # the IP sends on VC 1, 4, an unloaded VC 6 and no VC
    sent = {1: 0, 4: 0}
    data = []
    for i in range(10 if SHORT else 30):
        vc = rng.choice([1, 4, 6, None])
        f = frame(rng, ETH_T1, rng.choice([60, 127, 128, 129, 300, 1500]))
        await mac.ip_send(f, gap=0.3, cbfc=0 if vc is None else 1 << vc)
        data.append(f)
        if vc in sent:
            sent[vc] += credits(len(f), cfg[vc][1], cfg[vc][2])
    await mac.idle(3 * 250)
    last = parse_update(upds()[-1])
    assert {v: last[4][v][0] for v in sent} == sent, (last[4], sent)
    assert [f for f in mac.tx_wire
            if f[12:14] != ETH_CTRL.to_bytes(2, "big")] == data
    n_upd = len(upds())
    assert n_upd >= 2
    assert await cnt("SHIM_CBFC_UPD_TX") - upd0 == n_upd
    assert await cnt("SHIM_WIRE_TX_FRAMES") - tx0 == n_upd + len(data)
    ip_beats = sum(len(beats(f)) for f in data)
    assert mac.ip_credits == ip_beats, (mac.ip_credits, ip_beats)
    assert mac.mac_beats == ip_beats + n_upd
    # the partner's update: its SENT becomes this board's FREED (based),
    # its FREED of this board's epoch comes back to the IP
    pe = 0x5A5A
    await mac.mac_recv(update(0b10010, 0b10010, pe, epoch,
                              {1: (70, 10), 4: (9, 5)}))
    await mac.idle(2 * 250)
    assert returned(mac) == {1: 10, 4: 5}, mac.cbfc_ret
    mask, based, ep2, pep, totals = parse_update(upds()[-1])
    assert (mask, based, ep2, pep) == (0b10010, 0b10010, epoch, pe)
    assert totals[1][1] == 70 and totals[4][1] == 9, totals
    # large growth: NUM_I's 15 bits a time
    await mac.mac_recv(update(0b10010, 0b10010, pe, epoch,
                              {1: (70, 40010), 4: (9, 5)}))
    await mac.idle(100)
    assert returned(mac) == {1: 40010, 4: 5}, mac.cbfc_ret
    assert max(n for _, n in mac.cbfc_ret) == 0x7FFF
    # FREED back by 1000: a debt; 500 more pays half; 600 more returns 100
    rs0 = await cnt("SHIM_CBFC_RESYNC")
    for fr in (39010, 39510, 40110):
        await mac.mac_recv(update(0b10010, 0b10010, pe, epoch,
                                  {1: (70, fr), 4: (9, 5)}))
        await mac.idle(100)
    assert returned(mac) == {1: 40110, 4: 5}, mac.cbfc_ret
    assert await cnt("SHIM_CBFC_RESYNC") - rs0 == 1
    # FREED of another epoch of this board: nothing comes back
    await mac.mac_recv(update(0b10010, 0b10010, pe, epoch ^ 0x100,
                              {1: (70, 50000), 4: (9, 500)}))
    await mac.idle(100)
    assert returned(mac) == {1: 40110, 4: 5}, mac.cbfc_ret
    # a reload of VC 4: its credits are the limit less what is out
    # (SENT less the partner's FREED): that much growth returns nothing
    out4 = sent[4] - 5
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 4)
    await status(bar0, mac)
    await mac.mac_recv(update(0b10010, 0b10010, pe, epoch,
                              {1: (70, 40110), 4: (9, 5 + out4 + 3)}))
    await mac.idle(100)
    assert returned(mac) == {1: 40110, 4: 8}, mac.cbfc_ret
    # an update due while the IP pauses inside a frame waits for its end
    f = frame(rng, ETH_T1, 3 * DW - 5)
    bs = beats(f)
    n_upd = len(upds())

    async def beat(b):
        await FallingEdge(dut.user_clk)
        dut.tx2mac_dat.value, dut.tx2mac_be.value = b[0], b[1]
        dut.tx2mac_fs.value, dut.tx2mac_fe.value = b[2], b[3]
        dut.tx2mac_vld.value = 1
        await FallingEdge(dut.user_clk)
        dut.tx2mac_vld.value = 0
    await beat(bs[0])
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 1)
    await status(bar0, mac)
    assert len(upds()) == n_upd
    for b in bs[1:]:
        await beat(b)
    await mac.idle(20)
    assert mac.tx_wire[-2:] == [f, upds()[-1]], mac.tx_wire[-2:]
    assert len(upds()) == n_upd + 1


@cocotb.test()
async def test_mac_cbfc_vc_on(dut):
    """SHIM_CBFC_STATUS.vc_on: a flow under CBFC (AFH_CFG_EN, which the
    shim follows from the driver's writes) is on while its VC is loaded,
    software_ctrl_cbfc_vc_status has it and DFX_CBFC_CF_O holds at least
    credit_uf_limit maximum frames (TYPE3: 4096 bytes); each fall of a
    VC's bit counts in SHIM_CBFC_TX_BLOCKED[v]."""
    tb, drv, mac = await setup(dut, 9)
    bar0 = drv.bar0
    blk = lambda v: bar0.read_qword(reg("SHIM_CBFC_TX_BLOCKED") + 8 * v)  # noqa: E731,E501
    # TYPE3 on VC 2 (1024-byte credits, overhead 0: 4 a frame, uf 2: 8),
    # TYPE2 on VC 5 (uf 1)
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 2, 100 | 4 << 16)
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 5, 100 | 2 << 16)
    afh = (1 << 11 | 2 << 30 | 2 << 42 | 1 << 33 | 5 << 27 | 1 << 39 |
           0xFF << 52)
    await bar0.write_qword(reg("AFH_CFG_EN"), afh)
    assert await bar0.read_qword(reg("AFH_CFG_EN")) == afh

    async def cfs(t3, t2):
        dut.dfx_cbfc_cf.value = t3 << 96 | t2 << 80
        await mac.idle(12)
        return (await bar0.read_qword(reg("SHIM_CBFC_STATUS"))) & 0xFF
    # not loaded: off whatever the credits
    assert await cfs(100, 0xFFFF) == 0
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 2 | 1 << 5)
    b2, b5 = await blk(2), await blk(5)
    st = await cfs(8, 0xFFFF)
    assert st == 1 << 2 | 1 << 5, hex(st)
    assert await cfs(7, 0xFFFF) == 1 << 5
    assert await blk(2) - b2 == 1
    assert await cfs(8, 0) == 1 << 2
    assert await blk(5) - b5 == 1
    assert await cfs(9, 0xFFFF) == 1 << 2 | 1 << 5
    # software_ctrl_cbfc_vc_status without VC 2: off
    await bar0.write_qword(reg("AFH_CFG_EN"), afh & ~(1 << 54))
    assert await cfs(9, 0xFFFF) == 1 << 5
    assert await blk(2) - b2 == 2
    # stop_cbfc_en: nothing under CBFC
    await bar0.write_qword(reg("AFH_CFG_EN"), afh | 1 << 5)
    assert await cfs(9, 0xFFFF) == 0
    got = (await blk(2) - b2, await blk(5) - b5)
    assert got == (2, 2), got


def upd_frames(mac):
    return [f for f in mac.tx_wire if f[12:14] == ETH_CTRL.to_bytes(2, "big")]


@cocotb.test()
async def test_mac_tx_fc_addr(dut):
    """The update frames the shim sends go from the MAC's TX_FC_SADDR to
    its TX_FC_DADDR as the MAC uses them: a new value written takes
    effect at the release of PHY_CONFIG.soft_reset (static registers of
    seed 003), not before; SHIM_RESET brings the reset values back."""
    tb, drv, mac = await setup(dut, 22)
    bar0 = drv.bar0
    sa = bytes.fromhex("025243000001")
    da = bytes.fromhex("02aabbccddee")
    reset_sa = bytes.fromhex("e100cbfc5add")  # TX_FC_SADDR's reset value

    async def mac_csr(name, val):
        await bar0.write_dword(reg(name), val)
        await bar0.read_dword(reg(name))

    async def addrs():
        """(DA, SA) of the update frame a load sends now."""
        n = len(upd_frames(mac))
        await load(bar0, mac, [0])
        await mac.idle(20)
        fs = upd_frames(mac)
        assert len(fs) > n, "no update frame"
        return fs[-1][:6], fs[-1][6:12]

    assert await addrs() == (FC_DA, reset_sa)
    await mac_csr("TX_FC_DADDR_LO", int.from_bytes(da[2:], "big"))
    await mac_csr("TX_FC_DADDR_HI", int.from_bytes(da[:2], "big"))
    await mac_csr("TX_FC_SADDR_LO", int.from_bytes(sa[2:], "big"))
    await mac_csr("TX_FC_SADDR_HI", int.from_bytes(sa[:2], "big"))
    assert await addrs() == (FC_DA, reset_sa)
    await mac_csr("PHY_CONFIG", 1)
    assert await addrs() == (FC_DA, reset_sa)
    await mac_csr("PHY_CONFIG", 0)
    got = await addrs()
    assert got == (da, sa), (got[0].hex(), got[1].hex())
    await bar0.write_qword(reg("SHIM_RESET"), 1)
    await mac.idle(20)
    assert await addrs() == (FC_DA, reset_sa)


async def load_epoch(bar0, mac, vcs, limit=1000, size=0):
    """Load vcs; this board's epoch, from the update frame the load sent."""
    n = len(upd_frames(mac))
    await load(bar0, mac, vcs, limit, size)
    await mac.idle(20)
    assert len(upd_frames(mac)) > n
    return parse_update(upd_frames(mac)[-1])[2]


@cocotb.test()
async def test_mac_cbfc_upd_fcs_err(dut):
    """An update frame the MAC flags with an FCS error (MAC2RX_FCS_ERR_I
    not 0 on its last beat, one beat or more) is dropped and counted in
    SHIM_MAC_CTRL_DROP, not parsed: its FREED returns no credit, its
    epoch makes no resync, its SENT is no FREED of this board's."""
    tb, drv, mac = await setup(dut, 10)
    bar0 = drv.bar0
    cnt = lambda n: bar0.read_qword(reg(n))  # noqa: E731
    epoch = await load_epoch(bar0, mac, [0])
    pe = 0x4321
    upd0 = await cnt("SHIM_CBFC_UPD_RX")
    drop0 = await cnt("SHIM_MAC_CTRL_DROP")
    rs0 = await cnt("SHIM_CBFC_RESYNC")
    await mac.mac_recv(update(1, 1, pe, epoch, {0: (3, 10)}))
    await mac.idle(100)
    assert returned(mac) == {0: 10}, mac.cbfc_ret
    # a bit flipped in FREED, in the epoch, in SENT; one with 200 bytes
    # (two beats, the flag on the second); each flag value
    bad = [(update(1, 1, pe, epoch, {0: (3, 10 | 1 << 14)}), 1),
           (update(1, 1, pe ^ 0x10, epoch, {0: (3, 10)}), 2),
           (update(1, 1, pe, epoch, {0: (3 | 1 << 20, 10)}), 3),
           (update(1, 1, pe ^ 1, epoch, {0: (3, 10 | 1 << 13)},
                   length=200), 1)]
    for f, err in bad:
        await mac.mac_recv(f, fcs_err=err)
        await mac.idle(100)
    assert returned(mac) == {0: 10}, mac.cbfc_ret
    assert await cnt("SHIM_CBFC_RESYNC") == rs0
    assert await cnt("SHIM_CBFC_UPD_RX") == upd0 + 1
    assert await cnt("SHIM_MAC_CTRL_DROP") == drop0 + len(bad)
    assert mac.rx_ip == []
    # FREED is still the partner's SENT of the good frame (3)
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1)
    await status(bar0, mac)
    await mac.idle(20)
    assert parse_update(upd_frames(mac)[-1])[4][0] == (0, 3)
    # the next good frame: FREED grows from the last good one
    await mac.mac_recv(update(1, 1, pe, epoch, {0: (3, 15)}))
    await mac.idle(100)
    assert await cnt("SHIM_CBFC_UPD_RX") == upd0 + 2
    assert await cnt("SHIM_CBFC_RESYNC") == rs0


@cocotb.test()
async def test_mac_cbfc_ret_debt(dut):
    """A FREED gone back (a debt) in the cycles after a FREED growth is
    still owed to the IP: every NUM_I is at most what is owed and the
    returns total the FREED's net growth, whatever the cycle the debt
    arrives in relative to the return's VC rotation (the pair of frames
    comes at every offset of the 32-cycle round)."""
    tb, drv, mac = await setup(dut, 11)
    bar0 = drv.bar0
    epoch = await load_epoch(bar0, mac, [0])
    pe = 0x5151
    b = 100
    await mac.mac_recv(update(1, 1, pe, epoch, {0: (0, b)}))
    await mac.idle(100)
    assert returned(mac) == {0: b}, mac.cbfc_ret
    for i in range(40):
        # +10, then back by 1000 the next cycle, then up to +10 again
        await mac.mac_burst([update(1, 1, pe, epoch, {0: (0, b + 10)}),
                             update(1, 1, pe, epoch, {0: (0, b - 990)})])
        await mac.idle(50 + i % 2)
        await mac.mac_burst([update(1, 1, pe, epoch, {0: (0, b + 10)})])
        await mac.idle(50)
        b += 10
        got = returned(mac)
        assert got == {0: b}, (i, got, mac.cbfc_ret[-3:])
    assert max(n for _, n in mac.cbfc_ret) <= 100, mac.cbfc_ret


@cocotb.test()
async def test_mac_cbfc_load_race(dut):
    """A load (SHIM_CBFC_CTRL) in the cycle an update frame is parsed
    keeps that frame's FREED growth: after each load the IP gets exactly
    the credits the partner freed after it (the load's debt is what is
    out: SENT less FREED, the frame's FREED included or paid back by it).
    The frame is sent at every cycle around the load."""
    tb, drv, mac = await setup(dut, 12)
    rng = random.Random(22)
    bar0 = drv.bar0
    epoch = await load_epoch(bar0, mac, [0])
    pe = 0x6262
    # SENT of VC 0: 4 frames of 1500 bytes in 32-byte credits
    for _ in range(4):
        await mac.ip_send(frame(rng, ETH_T1, 1500), cbfc=1)
    s = 4 * credits(1500, 32, 0)
    await mac.idle(20)
    # the cycles from the write to its RST pulse
    n = len(mac.cbfc_rst)
    w = cocotb.start_soon(bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1))
    lat = 0
    while len(mac.cbfc_rst) == n:
        await RisingEdge(dut.user_clk)
        lat += 1
    await w
    await mac.idle(50)
    for d in range(max(0, lat - 12), lat + 4):
        # 10 out, then the frame that frees them races the load; then 7
        # more freed: 7 to the IP after the load
        await mac.mac_recv(update(1, 1, pe, epoch, {0: (0, s - 10)}))
        await mac.idle(50)
        n = len(mac.cbfc_rst)
        w = cocotb.start_soon(bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1))
        await mac.idle(d)
        await mac.mac_burst([update(1, 1, pe, epoch, {0: (0, s)})])
        await w
        await mac.idle(50)
        await mac.mac_recv(update(1, 1, pe, epoch, {0: (0, s + 7)}))
        await mac.idle(100)
        assert len(mac.cbfc_rst) == n + 1
        after = sum(num for _, num in mac.cbfc_ret[mac.cbfc_rst_ret[n]:])
        assert after == 7, (d, lat, after, mac.cbfc_ret[-3:])


@cocotb.test()
async def test_mac_cbfc_load_give(dut):
    """A load (SHIM_CBFC_CTRL) while credits owed are being given to the
    IP: no give decided before the load reaches the IP after its
    MAC2TX_CBFC_RST_I, so after each RST the IP gets exactly what the
    partner freed beyond the load's debt.  The load comes at every cycle
    offset around the give's phases (synchronised on the give before)."""
    tb, drv, mac = await setup(dut, 14)
    rng = random.Random(24)
    bar0 = drv.bar0
    epoch = await load_epoch(bar0, mac, [0])
    pe = 0x7373
    per = credits(1500, 32, 0)
    # the cycles from the write to its RST pulse
    n = len(mac.cbfc_rst)
    w = cocotb.start_soon(bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1))
    lat = 0
    while len(mac.cbfc_rst) == n:
        await RisingEdge(dut.user_clk)
        lat += 1
    await w
    await mac.idle(50)
    m = (lat + 10) // 32 + 1          # the give B's round after A's
    sent = fr = 0
    for j in range(32 * m - lat - 10, 32 * m - lat + 10):
        # one frame more out (SENT), then two returns of 10: A's give
        # (seen at edge E) times B's, which is due 32 * m cycles later
        await mac.ip_send(frame(rng, ETH_T1, 1500), cbfc=1)
        sent += per
        await mac.idle(20)
        k = len(mac.cbfc_ret)
        fr += 10
        await mac.mac_recv(update(1, 1, pe, epoch, {0: (0, fr)}))
        while len(mac.cbfc_ret) == k:
            await RisingEdge(dut.user_clk)
        fr += 10

        async def b_frame(f=fr):
            await mac.idle(32 * (m - 1) + 1)
            await mac.mac_burst([update(1, 1, pe, epoch, {0: (0, f)})])
        b = cocotb.start_soon(b_frame())
        await mac.idle(j)
        n = len(mac.cbfc_rst)
        await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1)
        await b
        await mac.idle(80)
        # the load's debt: SENT less FREED (B's included); then 7 beyond
        fr = sent + 7
        await mac.mac_recv(update(1, 1, pe, epoch, {0: (0, fr)}))
        await mac.idle(100)
        assert len(mac.cbfc_rst) == n + 1
        after = sum(num for _, num in mac.cbfc_ret[mac.cbfc_rst_ret[n]:])
        assert after == 7, (j, lat, after, mac.cbfc_ret[-3:])


@cocotb.test()
async def test_mac_cbfc_load_many(dut):
    """A write that loads every VC while credits are owed on each: the
    VCs get their MAC2TX_CBFC_RST_I one a cycle, lowest first, and no VC
    gets a give on MAC2TX_CBFC_VLD_I from the new books before its own
    RST (the IP would lose it), so after each RST the IP gets exactly
    what the load left owed: the partner's FREED less SENT (here FREED
    runs ahead of SENT, as it does for the IP's frames still in the SENT
    stages).  The write comes at every cycle offset of the returns'
    32-cycle round (synchronised on a give)."""
    tb, drv, mac = await setup(dut, 16)
    bar0 = drv.bar0
    allv = list(range(8))
    epoch = await load_epoch(bar0, mac, allv)
    pe = 0x7474
    events = []                       # (cycle, RST_I, VLD_I, NUM_I)

    async def watch():
        cyc = 0
        while True:
            await RisingEdge(dut.user_clk)
            cyc += 1
            rst = int(dut.mac2tx_cbfc_rst.value)
            vld = int(dut.mac2tx_cbfc_vld.value)
            if rst or vld:
                events.append((cyc, rst, vld,
                               int(dut.mac2tx_cbfc_num.value)))
    w = cocotb.start_soon(watch())
    fr = {v: 0 for v in allv}
    for j in range(36):
        for v in allv:
            fr[v] += 10 + v
        k = len(mac.cbfc_ret)
        await mac.mac_recv(update(0xFF, 0xFF, pe, epoch,
                                  {v: (0, fr[v]) for v in allv}))
        while len(mac.cbfc_ret) == k:
            await RisingEdge(dut.user_clk)
        await mac.idle(j)
        e0 = len(events)
        await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 0xFF)
        await mac.idle(200)
        ev = events[e0:]
        rsts = [(c, r) for c, r, _, _ in ev if r]
        assert [r for _, r in rsts] == [1 << v for v in allv], (j, rsts)
        for v, (rc, _) in zip(allv, rsts):
            # none between the write's first RST and the VC's own
            early = [(c, n) for c, _, vl, n in ev
                     if vl >> v & 1 and rsts[0][0] <= c <= rc]
            after = sum(n for c, _, vl, n in ev if vl >> v & 1 and c > rc)
            assert not early, (j, v, rc, early)
            assert after == fr[v], (j, v, rc, after, fr[v])
    w.kill()


@cocotb.test()
async def test_mac_cbfc_vc_on_remap(dut):
    """A write of AFH_CFG_EN that moves flows between VCs changes each
    VC's status once: a VC on before and after (another flow takes it
    over) does not dip, SHIM_CBFC_TX_BLOCKED does not count."""
    tb, drv, mac = await setup(dut, 13)
    bar0 = drv.bar0
    blk = lambda v: bar0.read_qword(reg("SHIM_CBFC_TX_BLOCKED") + 8 * v)  # noqa: E731,E501
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 2, 100 | 4 << 16)
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 5, 100 | 2 << 16)
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 2 | 1 << 5)
    dut.dfx_cbfc_cf.value = 0xFFFF << 96 | 0xFFFF << 80
    # TYPE3 (uf 2) on VC 2; TYPE2 (uf 1) on VC 4, not loaded: off
    en = 1 << 11 | 2 << 42 | 1 << 33 | 1 << 39 | 0xFF << 52
    await bar0.write_qword(reg("AFH_CFG_EN"), en | 2 << 30 | 4 << 27)
    await mac.idle(12)
    st = await bar0.read_qword(reg("SHIM_CBFC_STATUS")) & 0xFF
    assert st == 1 << 2, hex(st)
    b2 = await blk(2)
    # TYPE3 to VC 5, TYPE2 to VC 2: both on
    await bar0.write_qword(reg("AFH_CFG_EN"), en | 5 << 30 | 2 << 27)
    await mac.idle(12)
    st = await bar0.read_qword(reg("SHIM_CBFC_STATUS")) & 0xFF
    assert st == 1 << 2 | 1 << 5, hex(st)
    falls = await blk(2) - b2
    assert falls == 0, falls


@cocotb.test()
async def test_mac_cbfc_vc_on_remap_uf(dut):
    """A write of AFH_CFG_EN that changes both a flow's VC (hence its
    maximum frame in credits) and its credit_uf_limit changes the VCs'
    status once: the new uf never meets the old maximum, so a VC on
    before and after does not dip and SHIM_CBFC_TX_BLOCKED does not
    count."""
    tb, drv, mac = await setup(dut, 15)
    bar0 = drv.bar0
    blk = lambda v: bar0.read_qword(reg("SHIM_CBFC_TX_BLOCKED") + 8 * v)  # noqa: E731,E501
    # VC 2: 1024-byte credits (TYPE3: 4 a frame), VC 5: 128-byte (32)
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 2, 100 | 4 << 16)
    await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * 5, 100 | 2 << 16)
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), 1 << 2 | 1 << 5)
    # TYPE3 holds 40 credits; TYPE2 plenty (uf 1)
    dut.dfx_cbfc_cf.value = 40 << 96 | 0xFFFF << 80
    en = 1 << 11 | 1 << 33 | 1 << 39 | 0xFF << 52
    # TYPE3 on VC 5 with uf 1 (needs 32), TYPE2 on VC 2: both on
    await bar0.write_qword(reg("AFH_CFG_EN"), en | 5 << 30 | 1 << 42 | 2 << 27)
    await mac.idle(12)
    st = await bar0.read_qword(reg("SHIM_CBFC_STATUS")) & 0xFF
    assert st == 1 << 2 | 1 << 5, hex(st)
    b2, b5 = await blk(2), await blk(5)
    # TYPE3 to VC 2 with uf 4 (needs 16), TYPE2 to VC 5: both on (uf 4
    # with VC 5's maximum would need 128)
    await bar0.write_qword(reg("AFH_CFG_EN"), en | 2 << 30 | 4 << 42 | 5 << 27)
    await mac.idle(12)
    st = await bar0.read_qword(reg("SHIM_CBFC_STATUS")) & 0xFF
    assert st == 1 << 2 | 1 << 5, hex(st)
    falls = (await blk(2) - b2, await blk(5) - b5)
    assert falls == (0, 0), falls


AFH_STD, AFH_GEN1, AFH_GEN1_TC, AFH_GEN2, AFH_LITE = (1 << b for b in range(5))


def t1_tc(rng, fmt, tc, length, vlan=None):
    """A TYPE1 frame whose Traffic Class is tc where format fmt (the
    AFH_CFG_EN format bits) carries it: Standard the IPv4 ToS of an
    IPv4/UDP frame to 4791, AFH_GEN1 MAC_SA[47:40], AFH_GEN2_16b MAC_DA
    [47:40] (Ethernet type 0x88b5); an RH with a random opcode after."""
    if fmt == AFH_STD:
        f = bytearray(ipv4_udp(rng, 4791, length, vlan=vlan))
        f[15 + (4 if vlan is not None else 0)] = tc
    else:
        f = bytearray(frame(rng, ETH_T1, length, vlan=vlan))
        f[0 if fmt & AFH_GEN2 else 6] = tc
    return bytes(f)


def afh_cbfc(flows):
    """AFH_CFG_EN with flows {flow: vc} under CBFC (flows 0..3 TYPE1 REQ
    banks, 4 ACK/CNP, 5 TYPE2, 6 TYPE3), every VC's software status on."""
    en = 0xFF << 52
    for f, v in flows.items():
        en |= 1 << (6 + f if f < 5 else 33 if f == 5 else 11)
        en |= v << (12 + 3 * f)
    return en


def freed(mac, v):
    """This board's FREED of VC v in its last update frame."""
    return parse_update(upd_frames(mac)[-1])[4][v][1]


async def rx_setup(dut, seed, cfg, flows):
    """Load the VCs of cfg {vc: (size code, bytes, ovhd)} with flows
    {flow: vc} under CBFC; this board's epoch."""
    tb, drv, mac = await setup(dut, seed)
    bar0 = drv.bar0
    await bar0.write_qword(reg("AFH_CFG_EN"), afh_cbfc(flows))
    await bar0.read_qword(reg("AFH_CFG_EN"))        # (the write is done)
    for v, (code, _, ovhd) in cfg.items():
        await bar0.write_qword(reg("SHIM_CBFC_VC_CFG") + 8 * v,
                               500 | code << 16 | (ovhd & 0x3FF) << 20)
    n = len(upd_frames(mac))
    await bar0.write_qword(reg("SHIM_CBFC_CTRL"), sum(1 << v for v in cfg))
    await status(bar0, mac)
    await mac.idle(20)
    assert len(upd_frames(mac)) == n + 1
    return tb, drv, mac, parse_update(upd_frames(mac)[-1])[2]


@cocotb.test()
async def test_mac_cbfc_rx_freed(dut):
    """One-way traffic: the frames that pass into the IP free their
    credits on their VC (the IP's class of each frame, its flow's VC of
    AFH_CFG_EN, ceil((length + pkt_ovhd) / credit_size)) and an update
    frame carries them within update_us, without waiting for sync_us
    (1000 us) or for the partner's SENT.  TYPE1 frames in AFH_GEN2_16b,
    their TC (MAC_DA[47:40], tc[7:2] 0) every TYPE1 flow's (TRAFFIC_CLASS
    0): counted while those flows are all under CBFC on one VC.  Frames
    of a flow not under CBFC, of a VC not loaded, with an FCS error, or
    TYPE1 frames while the TYPE1 flows of their TC are on more than one
    VC or not all under CBFC free nothing."""
    cfg = {1: (0, 32, 4), 3: (2, 128, -20), 5: (1, 64, 0)}
    # TYPE1 (all banks and ACK) on VC 1, TYPE3 on VC 3, TYPE2 not under
    # CBFC
    tb, drv, mac, epoch = await rx_setup(
        dut, 20, cfg, {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 6: 3})
    rng = random.Random(30)
    bar0 = drv.bar0
    await bar0.write_qword(reg("AFH_CFG_EN"), afh_cbfc(
        {0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 6: 3}) | AFH_GEN2)
    upd0 = len(upd_frames(mac))
    # keys: TYPE2 to UDP port 6000 and Ethernet type 0x88b6; TYPE1 to
    # 4791 (the reset key) and Ethernet type 0x88b5; a tag of 0x9100
    await bar0.write_qword(reg("RX_CLASS_CFG"),
                           4791 | 6000 << 16 | 0x88B5 << 32 | 0x88B6 << 48)
    await bar0.write_qword(reg("VLAN_CTRL"), 0x9100 << 16)
    assert await bar0.read_qword(reg("VLAN_CTRL")) == 0x9100 << 16

    def tag(f, tpid, vid=5):
        return f[:12] + tpid.to_bytes(2, "big") + vid.to_bytes(2, "big") + f[12:]
    want = {1: 0, 3: 0, 5: 0}
    data = []
    for i in range(24):
        kind = rng.choice(["t1udp", "t1eth", "t2udp", "t2eth", "t3", "t3udp"])
        n = rng.choice([60, 127, 128, 129, 300, 1500])
        f = {"t1udp": lambda: ipv4_udp(rng, 4791, n),
             "t1eth": lambda: frame(rng, ETH_T1, n),
             "t2udp": lambda: ipv4_udp(rng, 6000, n),
             "t2eth": lambda: frame(rng, ETH_T2, n),
             "t3": lambda: frame(rng, 0x9000, n),
             "t3udp": lambda: ipv4_udp(rng, 5000, n)}[kind]()
        t = rng.choice([None, 0x8100, 0x88A8, 0x9100])
        if t is not None:
            f = tag(f, t)
        vc = 1 if kind.startswith("t1") else 3 if kind.startswith("t3") else None
        if vc is not None:
            want[vc] += credits(len(f), cfg[vc][1], cfg[vc][2])
        data.append(f)
        await mac.mac_recv(f, gap=0.2)
    await mac.idle(4 * 250)
    assert mac.rx_ip == data
    assert len(upd_frames(mac)) > upd0, "no update within update_us"
    assert {v: freed(mac, v) for v in want} == want, (
        {v: freed(mac, v) for v in want}, want)
    # a tag of 0x9200 (not a TPID): its IPv4/UDP frame is TYPE3 on VC 3
    f = tag(ipv4_udp(rng, 4791, 200), 0x9200)
    await mac.mac_recv(f)
    want[3] += credits(len(f), 128, -20)
    await mac.idle(4 * 250)
    assert {v: freed(mac, v) for v in want} == want, (
        {v: freed(mac, v) for v in want}, want)
    # nothing freed: an FCS error, TYPE2 (not under CBFC), TYPE1 while its
    # flows are on VC 1 and 5; after moving TYPE3 to VC 6 (not loaded)
    await mac.mac_recv(frame(rng, 0x9000, 300), fcs_err=1)
    await mac.mac_recv(frame(rng, ETH_T2, 300))
    await bar0.write_qword(reg("AFH_CFG_EN"), afh_cbfc(
        {0: 1, 1: 5, 2: 1, 3: 1, 4: 1, 6: 6}) | AFH_GEN2)
    await bar0.read_qword(reg("AFH_CFG_EN"))        # (the write is done)
    await mac.mac_recv(frame(rng, ETH_T1, 300))
    await mac.mac_recv(frame(rng, 0x9000, 300))
    await mac.idle(4 * 250)
    assert {v: freed(mac, v) for v in want} == want, (
        {v: freed(mac, v) for v in want}, want)
    # a flow of its own VC: TYPE1 all on VC 5
    await bar0.write_qword(reg("AFH_CFG_EN"), afh_cbfc(
        {0: 5, 1: 5, 2: 5, 3: 5, 4: 5}) | AFH_GEN2)
    await bar0.read_qword(reg("AFH_CFG_EN"))
    f = frame(rng, ETH_T1, 1000)
    await mac.mac_recv(f)
    want[5] += credits(len(f), 64, 0)
    await mac.idle(4 * 250)
    assert {v: freed(mac, v) for v in want} == want, (
        {v: freed(mac, v) for v in want}, want)
    # only bank 0 of TYPE1 under CBFC (on VC 5): a TYPE1 frame may be of
    # a flow the partner did not charge (ACK/CNP, another bank): nothing
    await bar0.write_qword(reg("AFH_CFG_EN"), afh_cbfc({0: 5}) | AFH_GEN2)
    await bar0.read_qword(reg("AFH_CFG_EN"))
    await mac.mac_recv(frame(rng, ETH_T1, 1000))
    await mac.mac_recv(ipv4_udp(rng, 4791, 500))
    await mac.idle(4 * 250)
    assert {v: freed(mac, v) for v in want} == want, (
        {v: freed(mac, v) for v in want}, want)


@cocotb.test()
async def test_mac_cbfc_rx_t1_tc(dut):
    """TYPE1 frames in the seed's configuration (each REQ bank and
    ACK/CNP a flow on a VC of its own, its Traffic Class tc[7:2] that
    VC, TRAFFIC_CLASS the same on both boards): each frame frees its
    credits on the VC of the flow whose TRAFFIC_CLASS tc[7:2] its TC
    has (the ECN bits [1:0] aside), read where the format puts the TC
    (Standard: IPv4 ToS; AFH_GEN1 with afh_gen1_tc_en: MAC_SA[47:40];
    AFH_GEN2_16b: MAC_DA[47:40]), with and without a VLAN tag, and an
    update frame carries them within update_us (one-way traffic, no
    SENT of the partner).  Nothing freed: a TC no TYPE1 flow has (VC 6:
    TYPE3's; VC 5: no flow), a flow not under CBFC, AFH_Lite (its TC is
    the bank, REQ and ACK alike), AFH_GEN1 without its TC, two flows
    with one TC on two VCs."""
    cfg = {0: (0, 32, 0), 1: (1, 64, 4), 2: (0, 32, 0), 3: (2, 128, -20),
           4: (0, 32, 8), 6: (1, 64, 0)}
    flows = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 6: 6}
    tb, drv, mac, epoch = await rx_setup(dut, 23, cfg, flows)
    rng = random.Random(33)
    bar0 = drv.bar0
    await bar0.write_qword(reg("RX_CLASS_CFG"), 4791 | ETH_T1 << 32)
    tcl = sum((v << 2) << 8 * v for v in range(5)) | 0x1C << 40
    # as two 32-bit writes: the shim's copy follows the byte strobes (the
    # ACK flow's TC is in the upper dword)
    await bar0.write_qword(reg("TRAFFIC_CLASS"), 0)
    await bar0.write_dword(reg("TRAFFIC_CLASS"), tcl & 0xFFFFFFFF)
    await bar0.write_dword(reg("TRAFFIC_CLASS") + 4, tcl >> 32)
    assert await bar0.read_qword(reg("TRAFFIC_CLASS")) == tcl

    async def afh(fmt, fl=flows):
        await bar0.write_qword(reg("AFH_CFG_EN"), afh_cbfc(fl) | fmt)
        await bar0.read_qword(reg("AFH_CFG_EN"))    # (the write is done)

    def now():
        return {v: freed(mac, v) for v in cfg}
    want = now()
    for fmt in (AFH_STD, AFH_GEN2, AFH_GEN1 | AFH_GEN1_TC):
        await afh(fmt)
        for vlan in (None, 7):
            n = len(upd_frames(mac))
            for _ in range(6):
                v = rng.randrange(5)            # bank 0-3 or ACK/CNP (4)
                f = t1_tc(rng, fmt, v << 2 | rng.randrange(4),
                          rng.choice([60, 129, 300, 1500]), vlan)
                want[v] += credits(len(f), cfg[v][1], cfg[v][2])
                await mac.mac_recv(f, gap=0.2)
            # ACK/CNP: the ACK VC
            f = t1_tc(rng, fmt, 4 << 2, 60, vlan)
            want[4] += credits(len(f), cfg[4][1], cfg[4][2])
            await mac.mac_recv(f)
            await mac.idle(4 * 250)
            assert len(upd_frames(mac)) > n, "no update within update_us"
            assert now() == want, (fmt, vlan, now(), want)
    # AFH_GEN1 without its TC: under CBFC the frames carry a tag whose
    # PCP is the flow's VC (seed 000: the VLAN forced; the driver's PCP)
    await afh(AFH_GEN1)
    n = len(upd_frames(mac))
    for _ in range(6):
        v = rng.randrange(5)
        f = t1_tc(rng, AFH_GEN1, rng.randrange(256),
                  rng.choice([60, 300, 1500]), v << 13)
        want[v] += credits(len(f), cfg[v][1], cfg[v][2])
        await mac.mac_recv(f, gap=0.2)
    await mac.idle(4 * 250)
    assert len(upd_frames(mac)) > n, "AFH_GEN1 by PCP: no update"
    assert now() == want, ("gen1 pcp", now(), want)
    # nothing freed
    sent = len(mac.rx_ip)
    await afh(AFH_STD)
    for tc in (6 << 2, 5 << 2 | 3, 0x80):
        await mac.mac_recv(t1_tc(rng, AFH_STD, tc, 300))
    await afh(AFH_STD, {0: 0, 1: 1, 3: 3, 4: 4, 6: 6})     # bank 2 not
    await mac.mac_recv(t1_tc(rng, AFH_STD, 2 << 2, 300))
    # (the format AFH_CFG_EN selects, the place the frame has its TC)
    for fmt, place, tc in ((AFH_LITE, AFH_GEN2, 1),
                           (AFH_LITE, AFH_GEN2, 1 << 2),
                           (AFH_GEN1, AFH_GEN1, 1 << 2),
                           (AFH_STD | AFH_GEN2, AFH_GEN2, 1 << 2)):
        await afh(fmt)
        await mac.mac_recv(t1_tc(rng, place, tc, 300))
    # AFH_GEN1 without its TC: a PCP of no TYPE1 flow's VC (6: TYPE3's,
    # 5: none), a frame without a tag; AFH_GEN1 with its TC: the PCP
    # does not count (its TC of no flow)
    await afh(AFH_GEN1)
    for vlan in (6 << 13, 5 << 13):
        await mac.mac_recv(t1_tc(rng, AFH_GEN1, 0, 300, vlan))
    await afh(AFH_GEN1 | AFH_GEN1_TC)
    await mac.mac_recv(t1_tc(rng, AFH_GEN1, 0x80, 300, 1 << 13))
    # bank 1 with bank 0's TC, on VC 1: a frame of that TC may be either
    await bar0.write_qword(reg("TRAFFIC_CLASS"), tcl & ~(0xFF << 8))
    await afh(AFH_STD)
    await mac.mac_recv(t1_tc(rng, AFH_STD, 0, 300))
    await mac.idle(4 * 250)
    assert now() == want, (now(), want)
    assert len(mac.rx_ip) == sent + 12
    # bank 1 with bank 0's TC, both on VC 0: that TC is VC 0's
    await afh(AFH_STD, {0: 0, 1: 0, 3: 3, 4: 4, 6: 6})
    f = t1_tc(rng, AFH_STD, 0, 300)
    want[0] += credits(len(f), cfg[0][1], cfg[0][2])
    await mac.mac_recv(f)
    await mac.idle(4 * 250)
    assert now() == want, (now(), want)


@cocotb.test()
async def test_mac_cbfc_rx_recovered(dut):
    """The partner's SENT only recovers what was lost on the wire: an
    update frame right behind the frames it counts (no gap) finds them
    all in the totals (FREED stays, no resync), one that counts a frame
    that never arrived frees its credits at once."""
    cfg = {2: (0, 32, 0)}
    tb, drv, mac, epoch = await rx_setup(dut, 21, cfg, {6: 2})
    rng = random.Random(31)
    bar0 = drv.bar0
    rs0 = await bar0.read_qword(reg("SHIM_CBFC_RESYNC"))
    pe = 0x7A7A
    # the partner's first update bases VC 2 at 0
    await mac.mac_recv(update(1 << 2, 0, pe, epoch, {2: (0, 0)}))
    await mac.idle(4 * 250)
    assert freed(mac, 2) == 0
    total = 0
    for i in range(6):
        fs = [frame(rng, 0x9000, rng.choice([60, 300, 1500, 129]))
              for _ in range(1 + i % 3)]
        total += sum(credits(len(f), 32, 0) for f in fs)
        for f in fs:
            await mac.mac_recv(f)
        # the partner's update straight behind its frames
        await mac.mac_recv(update(1 << 2, 0, pe, epoch, {2: (total, 0)}))
        await mac.idle(4 * 250)
        assert freed(mac, 2) == total, (i, freed(mac, 2), total)
    assert await bar0.read_qword(reg("SHIM_CBFC_RESYNC")) == rs0
    # a frame lost on the wire: the next update's SENT frees it
    lost = frame(rng, 0x9000, 700)
    f = frame(rng, 0x9000, 200)
    await mac.mac_recv(f)
    total += credits(len(f), 32, 0)
    await mac.idle(4 * 250)
    assert freed(mac, 2) == total
    total += credits(len(lost), 32, 0)
    await mac.mac_recv(update(1 << 2, 0, pe, epoch, {2: (total, 0)}))
    await mac.idle(4 * 250)
    assert freed(mac, 2) == total
    assert await bar0.read_qword(reg("SHIM_CBFC_RESYNC")) == rs0
    assert len(mac.rx_ip) == sum(1 + i % 3 for i in range(6)) + 1


@cocotb.test()
async def test_mac_cbfc_rx_pfc_hold(dut):
    """While the IP's TX_PFC_REQ_O has a VC's bit (its receive buffer
    back-pressures), the frames of that VC free nothing; when the bit
    falls their credits are freed at once (an update within update_us).
    Another VC's frames free theirs meanwhile."""
    cfg = {2: (0, 32, 0), 4: (1, 64, 8)}
    tb, drv, mac, epoch = await rx_setup(dut, 22, cfg, {5: 4, 6: 2})
    rng = random.Random(32)
    bar0 = drv.bar0
    await bar0.write_qword(reg("RX_CLASS_CFG"), 4791 | 0x88B6 << 48)
    await bar0.read_qword(reg("RX_CLASS_CFG"))
    f = frame(rng, 0x9000, 400)
    await mac.mac_recv(f)
    want = {2: credits(len(f), 32, 0), 4: 0}
    await mac.idle(4 * 250)
    assert {v: freed(mac, v) for v in want} == want
    dut.tx_pfc_req.value = 1 << 2
    await mac.idle(4)
    held = 0
    for i in range(5):
        f = frame(rng, 0x9000, rng.choice([60, 129, 700, 1500]))
        held += credits(len(f), 32, 0)
        await mac.mac_recv(f)
        f = frame(rng, ETH_T2, rng.choice([60, 300]))
        want[4] += credits(len(f), 64, 8)
        await mac.mac_recv(f)
    await mac.idle(4 * 250)
    assert {v: freed(mac, v) for v in want} == want, (
        {v: freed(mac, v) for v in want}, want)
    n = len(upd_frames(mac))
    dut.tx_pfc_req.value = 0
    await mac.idle(4 * 250)
    assert len(upd_frames(mac)) > n
    want[2] += held
    assert {v: freed(mac, v) for v in want} == want, (
        {v: freed(mac, v) for v in want}, want)
