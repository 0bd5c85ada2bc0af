-- SPDX-License-Identifier: GPL-2.0
--
-- rclink.lua: a Wireshark/tshark dissector for the TYPE1 and TYPE2 frames
-- of the RCLINK-Stream IP (Documentation/hw/formats.rst; TYPE2: the
-- multicast of Documentation/hw/shim.rst, UDP port 4792 or Ethernet type
-- 0x88b6, Key_words M = 1, no ICRC):
--
--   Standard      Ethernet [VLAN] IPv4 UDP(4791) RH payload pad [ICRC]
--   AFH_GEN1      Ethernet(MAC_SA[47:40] = TC with gen1-tc) [VLAN]
--                 type 0x88b5, RH payload pad [ICRC]
--   AFH_GEN2_16b  MAC_DA {TC, SUE_payload, Dest Addr[15:0]},
--                 MAC_SA {Key_words, SUE_payload, Source Addr[15:0]},
--                 [VLAN] type 0x88b5, RH payload pad [ICRC]
--   AFH_Lite      MAC_DA {TC = the VC, Reserve, Dest Addr[15:0]},
--                 MAC_SA {XPU_ID, Reserve, Source Addr[15:0]},
--                 [VLAN] type 0x88b5, RH payload pad (never an ICRC;
--                 TC 5 is TYPE2, 0..3 the TYPE1 bank)
--
-- Load it with  tshark -X lua_script:tools/wireshark/rclink.lua ...
-- Preferences:  rclink.afh   auto|gen1|gen1-tc|gen2|lite (auto: GEN2 when
--                            the Key_words of MAC_SA[47:40] have W = 1,
--                            M = 0, else GEN1; Lite only when chosen)
--               rclink.icrc  TRUE|FALSE (type1_remove_icrc_en = 0|1)
-- The RH is one big-endian 64-bit word; a REQ payload starts with the
-- shim's segment header (one little-endian 64-bit word).

local p = Proto("rclink", "RCLINK-Stream TYPE1/TYPE2")

local ETH_AFH = 0x88b5
local ETH_AFH2 = 0x88b6
local UDP_PORT = 4791
local UDP_PORT2 = 4792
local KW_W, KW_M = 0x80, 0x01
local LITE_VC_TYPE2 = 5

local opcodes = { [0] = "REQ", [1] = "ACK", [2] = "CNP", [3] = "reserved" }
local positions = { [0] = "MIDDLE", [1] = "FIRST", [2] = "LAST", [3] = "ONLY" }

local f = p.fields
f.format = ProtoField.string("rclink.format", "Header format")
f.type = ProtoField.uint8("rclink.type", "Data type", base.DEC,
                          { [1] = "TYPE1 (reliable)", [2] = "TYPE2 (multicast)" })
f.tc = ProtoField.uint8("rclink.tc", "Traffic Class", base.HEX)
f.kw = ProtoField.uint8("rclink.kw", "Key_words", base.HEX)
f.kw_w = ProtoField.uint8("rclink.kw.w", "W", base.DEC)
f.kw_x = ProtoField.uint8("rclink.kw.x", "X", base.DEC)
f.kw_m = ProtoField.uint8("rclink.kw.m", "M", base.DEC)
f.sue = ProtoField.uint64("rclink.sue", "SUE_payload / Reserve", base.HEX)
f.da16 = ProtoField.uint16("rclink.da16", "Dest Addr[15:0]", base.HEX)
f.sa16 = ProtoField.uint16("rclink.sa16", "Source Addr[15:0]", base.HEX)
f.sa40 = ProtoField.uint64("rclink.sa40", "Source Addr[39:0]", base.HEX)
f.xpu = ProtoField.uint8("rclink.xpu", "XPU_ID", base.DEC)
f.rh = ProtoField.uint64("rclink.rh", "RH", base.HEX)
f.opcode = ProtoField.uint8("rclink.rh.opcode", "Opcode", base.DEC, opcodes)
f.fack = ProtoField.uint8("rclink.rh.fack", "FACK", base.DEC)
f.pad = ProtoField.uint8("rclink.rh.pad", "Pad", base.DEC)
f.ts_en = ProtoField.uint8("rclink.rh.ts_en", "Timestamp_en", base.DEC)
f.ts = ProtoField.uint16("rclink.rh.ts", "Timestamp", base.DEC)
f.pkey = ProtoField.uint8("rclink.rh.pkey", "P_key", base.HEX)
f.pkt_len = ProtoField.uint8("rclink.rh.pkt_len", "Pkt_len", base.DEC)
f.syndrome = ProtoField.uint8("rclink.rh.syndrome", "Aeth_syndrom", base.HEX)
f.psn = ProtoField.uint16("rclink.rh.psn", "PSN", base.DEC)
f.dest_qp = ProtoField.uint16("rclink.rh.dest_qp", "Dest_QP", base.DEC)
f.seg_pos = ProtoField.uint8("rclink.seg.pos", "Segment position", base.DEC,
                             positions)
f.seg_off = ProtoField.uint32("rclink.seg.offset", "Segment offset", base.DEC)
f.seg_len = ProtoField.uint32("rclink.seg.msg_len", "Message length", base.DEC)
f.data = ProtoField.bytes("rclink.data", "Data")
f.data_len = ProtoField.uint32("rclink.data_len", "Data length", base.DEC)
f.icrc = ProtoField.uint32("rclink.icrc", "ICRC", base.HEX)
f.icrc_ok = ProtoField.bool("rclink.icrc.good", "ICRC good")

local e_icrc = ProtoExpert.new("rclink.icrc.bad", "ICRC does not match",
                               expert.group.CHECKSUM, expert.severity.ERROR)
local e_len = ProtoExpert.new("rclink.len.bad", "length inconsistent",
                              expert.group.MALFORMED, expert.severity.ERROR)
p.experts = { e_icrc, e_len }

p.prefs.afh = Pref.enum("AFH format", 0, "AFH header format",
                        { { 1, "auto", 0 }, { 2, "gen1", 1 },
                          { 3, "gen1-tc", 2 }, { 4, "gen2", 3 },
                          { 5, "lite", 4 } }, false)
p.prefs.icrc = Pref.bool("ICRC", true, "frames carry an ICRC")

local fi_ip = Field.new("ip")
local fi_udp = Field.new("udp")
local fi_eth_src = Field.new("eth.src")
local fi_eth_dst = Field.new("eth.dst")

-- CRC-32 (IEEE, reflected, zlib's)
local crc_table = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if bit32.band(c, 1) == 1 then
            c = bit32.bxor(0xedb88320, bit32.rshift(c, 1))
        else
            c = bit32.rshift(c, 1)
        end
    end
    crc_table[i] = c
end

local function crc32(crc, bytes)
    crc = bit32.bnot(crc)
    for i = 0, bytes:len() - 1 do
        local idx = bit32.band(bit32.bxor(crc, bytes:get_index(i)), 0xff)
        crc = bit32.bxor(crc_table[idx], bit32.rshift(crc, 8))
    end
    return bit32.bnot(crc)
end

local function mac48(addr)
    local s = tostring(addr):gsub(":", "")
    return UInt64.fromhex(s)
end

-- The RH, payload, pad and ICRC from offset 0 of tvb.  icrc_pre: bytes the
-- ICRC covers before the RH (Standard: masked IPv4 and UDP headers), or nil.
local function dissect_body(tvb, pinfo, tree, afh, icrc_pre, type2, lite)
    local icrc_on = p.prefs.icrc and not type2 and not lite
    local tail = icrc_on and 4 or 0
    if tvb:len() < 8 + tail then
        tree:add_proto_expert_info(e_len, "shorter than RH + ICRC")
        return
    end
    local rh = tvb(0, 8):uint64()
    local function fld(hi, lo)
        return (rh:rshift(lo)):band(UInt64(2 ^ (hi - lo + 1) - 1)):tonumber()
    end
    local op = fld(63, 62)
    local rt = tree:add(f.rh, tvb(0, 8))
    rt:add(f.opcode, tvb(0, 1), op)
    rt:add(f.fack, tvb(0, 1), fld(61, 61))
    rt:add(f.pad, tvb(0, 1), fld(60, 59))
    rt:add(f.ts_en, tvb(0, 1), fld(56, 56))
    rt:add(f.ts, tvb(1, 2), fld(55, 40))
    rt:add(f.pkey, tvb(3, 1), fld(39, 32))
    if op == 0 then
        rt:add(f.pkt_len, tvb(4, 1), fld(31, 25))
    else
        rt:add(f.syndrome, tvb(4, 1), fld(31, 25))
    end
    rt:add(f.psn, tvb(4, 3), fld(24, 13))
    rt:add(f.dest_qp, tvb(6, 2), fld(12, 0))

    -- RH + payload + pad: the UDP length (Standard), else PKT_LEN, the RH
    -- alone for an ACK, else the frame
    local n
    if not afh then
        n = tvb:len() - tail
    elseif op == 1 then
        n = 8
    elseif op == 0 and fld(31, 25) ~= 0 then
        n = fld(31, 25)
    else
        n = tvb:len() - tail
    end
    if n < 8 or n + tail > tvb:len() then
        tree:add_proto_expert_info(e_len, "RH + payload of " .. n ..
                                   " bytes in " .. tvb:len())
        return
    end
    local pad = fld(60, 59)
    local plen = n - 8 - pad
    if op == 0 and plen >= 8 then
        local seg = tvb(8, 8):le_uint64()
        local st = tree:add(f.seg_pos, tvb(8, 1),
                            seg:band(UInt64(3)):tonumber())
        st:append_text(" (segment header)")
        tree:add(f.seg_off, tvb(9, 3), (seg:rshift(8)):band(
                 UInt64(0xffffff)):tonumber())
        tree:add(f.seg_len, tvb(12, 4), (seg:rshift(32)):tonumber())
        tree:add(f.data_len, tvb(16, plen - 8), plen - 8)
        if plen > 8 then
            tree:add(f.data, tvb(16, plen - 8))
        end
    end
    if icrc_on then
        local got = tvb(n, 4):le_uint()
        local ba = ByteArray.new()
        if icrc_pre then
            ba:append(icrc_pre)
        end
        ba:append(tvb(0, n):bytes())
        local want = crc32(0, ba)
        local it = tree:add_le(f.icrc, tvb(n, 4))
        local good = got == want
        it:add(f.icrc_ok, tvb(n, 4), good)
        if not good then
            it:add_proto_expert_info(e_icrc, string.format(
                "ICRC 0x%08x, computed 0x%08x", got, want))
        end
    end
    pinfo.cols.info = string.format("%s %s %d PSN %d%s",
                                    type2 and "MCAST" or opcodes[op],
                                    type2 and "group" or "QP",
                                    fld(12, 0), fld(24, 13),
                                    op == 0 and (" len " .. plen) or "")
end

-- Standard: UDP port 4791 (TYPE1) and 4792 (TYPE2)
local function std_dissector(tvb, pinfo, tree, type2)
    pinfo.cols.protocol = "RCLINK"
    local t = tree:add(p, tvb())
    t:add(f.format, "standard")
    t:add(f.type, type2 and 2 or 1)
    local pre = nil
    local ips = { fi_ip() }
    local ip = ips[#ips]
    if ip then
        local h = ip.range:bytes()
        local ihl = bit32.band(h:get_index(0), 0xf) * 4
        h = h:subset(0, ihl)
        h:set_index(1, 0xff)
        h:set_index(8, 0xff)
        h:set_index(10, 0xff)
        h:set_index(11, 0xff)
        pre = h
        local udps = { fi_udp() }
        pre:append(udps[#udps].range:bytes())
    end
    dissect_body(tvb, pinfo, t, false, pre, type2)
    return tvb:len()
end

local udp_p = Proto("rclink_std", "RCLINK-Stream TYPE1 (Standard)")
function udp_p.dissector(tvb, pinfo, tree)
    return std_dissector(tvb, pinfo, tree, false)
end
local udp2_p = Proto("rclink_std2", "RCLINK-Stream TYPE2 (Standard)")
function udp2_p.dissector(tvb, pinfo, tree)
    return std_dissector(tvb, pinfo, tree, true)
end

-- AFH formats: Ethernet type 0x88b5 (TYPE1) and 0x88b6 (TYPE2)
local function afh_dissector(tvb, pinfo, tree, type2)
    pinfo.cols.protocol = "RCLINK"
    local t = tree:add(p, tvb())
    local srcs, dsts = { fi_eth_src() }, { fi_eth_dst() }
    local sa = mac48(srcs[1].value)
    local da = mac48(dsts[1].value)
    local kw = (sa:rshift(40)):tonumber()
    local mode = p.prefs.afh
    if mode == 4 then
        -- AFH_Lite: the TC carries the VC, TYPE2's or the TYPE1 bank
        type2 = (da:rshift(40)):tonumber() == LITE_VC_TYPE2
    end
    t:add(f.type, type2 and 2 or 1)
    if mode == 0 then
        -- GEN2 Key_words: W = 1, M = 0 for TYPE1 and 1 for TYPE2
        local looks2 = bit32.band(kw, KW_W + KW_M) ==
                       KW_W + (type2 and KW_M or 0)
        mode = looks2 and 3 or 1
    end
    local sa_r, da_r = srcs[1].range, dsts[1].range
    local lite = mode == 4
    if lite then
        t:add(f.format, "lite")
        t:add(f.tc, da_r(0, 1))
        t:add(f.da16, da_r(4, 2))
        t:add(f.xpu, sa_r(0, 1))
        t:add(f.sa16, sa_r(4, 2))
    elseif mode == 3 then
        t:add(f.format, "gen2")
        t:add(f.tc, da_r(0, 1))
        t:add(f.sue, da_r(1, 3), ((da:rshift(16)):band(
              UInt64(0xffffff))):lshift(24):bor(
              (sa:rshift(16)):band(UInt64(0xffffff))))
        t:add(f.da16, da_r(4, 2))
        local kt = t:add(f.kw, sa_r(0, 1))
        kt:add(f.kw_w, sa_r(0, 1), bit32.extract(kw, 7))
        kt:add(f.kw_x, sa_r(0, 1), bit32.extract(kw, 1))
        kt:add(f.kw_m, sa_r(0, 1), bit32.extract(kw, 0))
        t:add(f.sa16, sa_r(4, 2))
    elseif mode == 2 then
        t:add(f.format, "gen1-tc")
        t:add(f.tc, sa_r(0, 1))
        t:add(f.sa40, sa_r(1, 5), sa:band(UInt64.new(0xffffffff, 0xff)))
    else
        t:add(f.format, "gen1")
    end
    dissect_body(tvb, pinfo, t, true, nil, type2, lite)
    return tvb:len()
end

local afh_p = Proto("rclink_afh", "RCLINK-Stream TYPE1 (AFH)")
function afh_p.dissector(tvb, pinfo, tree)
    return afh_dissector(tvb, pinfo, tree, false)
end
local afh2_p = Proto("rclink_afh2", "RCLINK-Stream TYPE2 (AFH)")
function afh2_p.dissector(tvb, pinfo, tree)
    return afh_dissector(tvb, pinfo, tree, true)
end

DissectorTable.get("udp.port"):add(UDP_PORT, udp_p)
DissectorTable.get("udp.port"):add(UDP_PORT2, udp2_p)
DissectorTable.get("ethertype"):add(ETH_AFH, afh_p)
DissectorTable.get("ethertype"):add(ETH_AFH2, afh2_p)
