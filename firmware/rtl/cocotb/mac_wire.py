# SPDX-License-Identifier: GPL-2.0
"""The MAC side of the cocotb benches for the shared vectors' wire ops
(``wirerx``, ``wiretx``; firmware/vectors/vecload.py): both ends of the
shim's rclink_mac (Documentation/hw/rtl.rst, "MAC side").

``Wire`` plays the IP's CEMAC_TX (the frames of the IP stand-in's TYPE3
engine, t3_twin.py, go on TX2MAC_* one beat a cycle: the IP sends on MAC
credits, the shim never holds it), takes what reaches the IP on
MAC2RX_* (RX2MAC_RDY_O always high) and plays the integrator's MAC
adapter: its TX stream is the wire the board sends on, its RX stream the
wire's frames coming in (valid/ready).  The frame format of the CEMAC
streams (``beats``, ``take``) is test_rclink_mac.py's too.
"""

import cocotb
from cocotb.triggers import FallingEdge, RisingEdge

DW = 128                    # bytes a beat (MAC_DW 1024)
# cycles a wire op waits for the frames it expects, and after them for
# any more
WAIT, SETTLE = 4000, 60


def beats(data):
    """A frame as CEMAC beats (dat, be, fs, fe): the first byte in the top
    bits; the byte enables on the FE beat only (seed 000: the first N-1
    beats carry 0), contiguous from the top."""
    out = []
    chunks = [data[i:i + DW] for i in range(0, len(data), DW)]
    for k, c in enumerate(chunks):
        last = k == len(chunks) - 1
        be = (((1 << len(c)) - 1) << (DW - len(c))) if last else 0
        out.append((int.from_bytes(c.ljust(DW, b"\0"), "big"), be,
                    int(k == 0), int(last)))
    return out


def take(word, be, fe):
    """The bytes of a beat seen on a CEMAC stream."""
    b = word.to_bytes(DW, "big")
    return b[:bin(be).count("1")] if fe else b


def idle_inputs(dut):
    """Every input of both ends of rclink_mac at rest (no frame, no
    credit, the IP ready)."""
    for name, val in (("vld", 0), ("fs", 0), ("fe", 0), ("dat", 0), ("be", 0),
                      ("vcid", 0), ("fcs", 1), ("err", 0), ("cbfc_vcid", 0),
                      ("hdr_type", 0), ("mcast", 0), ("vlan", 0)):
        getattr(dut, "tx2mac_" + name).value = val
    for name in ("vld", "fs", "fe", "dat", "be", "fcs_err"):
        getattr(dut, "emac_rx_" + name).value = 0
    dut.dfx_cbfc_cf.value = 0
    dut.tx_pfc_req.value = 0
    dut.emac_rx_pfc.value = 0
    dut.rx2mac_rdy.value = 1
    dut.emac_tx_credit.value = 0
    dut.emac_tx_credit_rst.value = 0


class Wire:
    """Both ends of rclink_mac for a vector."""

    def __init__(self, dut):
        self.dut = dut
        self.wire_tx = []           # frames the MAC adapter got (the wire)
        self.ip_rx = []             # frames the IP got
        self.ip_seen = 0            # of those, checked by wirerx
        self.ip_tx = []             # frames the IP is to send
        idle_inputs(dut)
        self.tasks = [cocotb.start_soon(self._watch()),
                      cocotb.start_soon(self._ip_sender())]

    def stop(self):
        for t in self.tasks:
            t.kill()
        idle_inputs(self.dut)

    def ip_send(self, frame):
        """The IP sends frame on TX2MAC_* (the TYPE3 engine's hook)."""
        self.ip_tx.append(bytes(frame))

    async def _watch(self):
        """The frames on the MAC adapter's TX stream and on the IP's RX
        stream, as they are taken."""
        dut = self.dut
        streams = (("emac_tx_", None, self.wire_tx),
                   ("mac2rx_", dut.rx2mac_rdy, self.ip_rx))
        cur = [None, None]
        while True:
            await RisingEdge(dut.user_clk)
            for i, (pfx, rdy, out) in enumerate(streams):
                sig = lambda n, p=pfx: int(getattr(dut, p + n).value)  # noqa: E731
                if not sig("vld") or (rdy is not None and not int(rdy.value)):
                    continue
                if sig("fs"):
                    cur[i] = bytearray()
                if cur[i] is None:
                    continue
                cur[i] += take(sig("dat"), sig("be"), sig("fe"))
                if sig("fe"):
                    out.append(bytes(cur[i]))
                    cur[i] = None

    async def _ip_sender(self):
        """The IP's frames on TX2MAC_*, one beat a cycle."""
        dut = self.dut
        while True:
            await FallingEdge(dut.user_clk)
            if not self.ip_tx:
                continue
            for dat, be, fs, fe in beats(self.ip_tx.pop(0)):
                dut.tx2mac_vld.value = 1
                dut.tx2mac_dat.value = dat
                dut.tx2mac_be.value = be
                dut.tx2mac_fs.value = fs
                dut.tx2mac_fe.value = fe
                await FallingEdge(dut.user_clk)
            dut.tx2mac_vld.value = 0
            dut.tx2mac_fs.value = 0
            dut.tx2mac_fe.value = 0

    async def cycles(self, n):
        for _ in range(n):
            await RisingEdge(self.dut.user_clk)

    async def rx(self, frame, to_ip):
        """The MAC adapter hands frame over on emac_rx_* (each beat until
        the shim takes it); to_ip: whether the IP is to get it.  A list of
        what differs."""
        dut = self.dut
        for dat, be, fs, fe in beats(frame):
            await FallingEdge(dut.user_clk)
            dut.emac_rx_vld.value = 1
            dut.emac_rx_dat.value = dat
            dut.emac_rx_be.value = be
            dut.emac_rx_fs.value = fs
            dut.emac_rx_fe.value = fe
            for _ in range(WAIT):
                await RisingEdge(dut.user_clk)
                if int(dut.emac_rx_rdy.value):
                    break
            else:
                return ["the shim took no RX beat for %d cycles" % WAIT]
        await FallingEdge(dut.user_clk)
        dut.emac_rx_vld.value = 0
        dut.emac_rx_fs.value = 0
        dut.emac_rx_fe.value = 0
        for _ in range(WAIT if to_ip else 0):
            if len(self.ip_rx) > self.ip_seen:
                break
            await RisingEdge(dut.user_clk)
        await self.cycles(SETTLE)
        got = self.ip_rx[self.ip_seen:]
        self.ip_seen = len(self.ip_rx)
        if got == ([frame] if to_ip else []):
            return []
        return ["the IP got %s" % ", ".join(f[:20].hex() + "..." for f in got)
                if got else "the IP got nothing"]

    async def tx(self, total, etype, length):
        """total frames on the wire since the vector began, the last of
        Ethernet type etype and length bytes; a list of what differs."""
        for _ in range(WAIT):
            if len(self.wire_tx) >= total:
                break
            await RisingEdge(self.dut.user_clk)
        await self.cycles(SETTLE)
        sent = self.wire_tx
        if len(sent) != total:
            return ["%d frames on the wire" % len(sent)]
        if total and (int.from_bytes(sent[-1][12:14], "big"),
                      len(sent[-1])) != (etype, length):
            return ["the last frame on the wire: %s (%d bytes)" %
                    (sent[-1][:20].hex(), len(sent[-1]))]
        return []
