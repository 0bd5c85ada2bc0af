#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""CBFC, credit-based flow control (seed 000, CBFC 流量控制;
Documentation/hw/shim.rst "CBFC", Documentation/flow-control.rst) between
the boards of a pair, both switched to it with `devlink dev param set ...
flow_control value cbfc` and a reload:

  driver_init   the seed's CBFC init sequence in the registers: stop_cbfc_en
                0, the seven flows enabled on seven VCs of their own,
                credit_uf_limit 1, dyn only for TYPE1, every VC enabled,
                the RX PFC enables 0; every VC loaded and on; `rclink dev
                show -s` shows each flow's credits at the credit limit;
                each TYPE1 bank's, the ACKs' and TYPE2's Traffic Class
                carry their VC in tc[7:2] (TRAFFIC_CLASS)
  incast        two QPs of A (bank 0, one VC) send into two QPs of B whose
                readers do not read (B posts no receive buffers: debugfs
                t1_rx_queued_max 0, type1_rq_size 16): the frames wait in
                B's VC 0 buffer (SHIM_CBFC_RX_BUF), A's VC 0 runs out of
                credits and stops (dev show -s: credits below one frame,
                tx_blocked counted), nothing is dropped (rx_drop_nobuf,
                rx_drop of the VC 0) or retransmitted; then B reads: every
                message arrives in order and A's credits come back to the
                limit
  vc_status     vc_status with VC 0 off: A's bank-0 QP sends nothing (the
                message stays in flight, B receives nothing); back on: it
                arrives
  type3         raw frames from A's TYPE3 netdev to B's: they arrive, the
                TYPE3 credits come back to the limit (SHIM_CBFC_UPD_RX)
  update_frame  the wire: CBFC update frames (MAC control, opcode 0x0102)
                of both boards; the last ones agree: what B freed on VC 0
                (A's REQs) and VC 6 (TYPE3) is what A sent there, what A
                freed on VC 4 (B's ACKs) is what B sent
  lost          10 % loss on A's wire: the messages arrive (retransmitted),
                B frees the credits of the lost frames when A's totals
                show them (SHIM_CBFC_RECOVERED), A's credits come back to
                the limit; skipped after the traffic when B does not
                count recovered (SHIM_CAP3.ip_counters 0: absent from
                `dev show -s`)
  refused       cbfc_uf 0, a credit size the seed does not have, a credit
                limit below one frame, vlan_pri and an ack_tc whose
                tc[7:2] is not the ACK VC are refused with a message and
                change nothing (ack_tc 17, ECN bits set, is taken); `dcb pfc set ... prio-pfc 3:on`
                (PFC and CBFC are exclusive) is refused in the kernel log
                and leaves the MAC's PFC off
  mac_reset     SHIM_CBFC_CTRL.reset (MAC2TX_CBFC_RESET_I) on A: no VC
                loaded, no credits, a message waits; a load of every VC
                (MAC2TX_CBFC_RST_I): it goes, the credits are back
  gen1_vlan     AFH_GEN1 without TC under CBFC (seed: VLAN forced): `dev
                show` says vlan_forced, `vlan off` is refused; on the wire
                A's REQs carry 802.1Q VID 0 PCP 0 (bank 0's VC), B's ACKs
                PCP 4 (the ACK VC)
  partner_reset B is reloaded (its board reset: a new CBFC epoch) while
                its VC 0 buffer holds A's data, then A while B holds A's
                data: each time the other board counts a resync
                (SHIM_CBFC_RESYNC); after A's reset A has its limit less
                what B holds (that room stays taken), the data B held
                still reaches B's reader, and afterwards both boards'
                credits are back at the limit (what a reset board held is
                returned, nothing twice) and messages go both ways
  mismatch      A's credit limit twice B's (the ends configured
                differently) and B does not read: B's VC 0 buffer fills to
                its limit and drops what A sends beyond it
                (SHIM_CBFC_RX_DROP, rx_drop of `dev show -s`, that
                assertion skipped where B does not count it); A
                retransmits and, once B reads, every message arrives in
                order and A's credits come back to its limit
  size          cbfc_size 1024 on both boards: the same messages waiting
                in B's VC 0 buffer hold 2 credits each instead of 5 at
                256 (a frame of a 1000-byte message is 1025..1280 bytes)
  uf_dyn        cbfc_uf type1 2, B not reading: with cbfc_dyn off A's
                TYPE1 stops below two maximum frames of credits (12), with
                it on (the seed's 动态下限调节) it goes on down to one (6)
  sync          idle boards send no update frames; after one message B
                sends the update of the freed credits and then one every
                sync_us for three periods (4 in all), then none again;
                with SHIM_CBFC_TIMING.sync_us 0 only the first
  bank_vc       each TYPE1 bank on the VC its Traffic Class carries
                (seed: TC 域高 6 比特体现 VCID 信息): by default bank n has
                tc 4n (VC n); `bank 1 tc 28` on both boards moves bank 1
                to VC 7 (AFH_CFG_EN.type1_req_bank1_cbfc, TRAFFIC_CLASS,
                dev show's banks and flows).  B does not read: A's bank-0
                messages beyond B's buffers wait in B's VC 0 buffer, its
                bank-1 messages in VC 7's, none in VC 1's
                (SHIM_CBFC_RX_BUF(n), dev show -s rx_buf of each VC); A's
                credits of each bank are its limit less what its VC holds
                at B.  On
                the wire A's bank-0 REQs carry ToS 0, bank 1's ToS 28.  B
                reads: everything arrives in order, the credits come back
  bank_refused  in cbfc mode a bank beyond 3, a tc whose VC is above 7, a
                VC of ACK/CNP, TYPE2 or TYPE3, a VC of another bank, the
                same bank twice and `tc` for all banks at once are refused
                with a message and change nothing; two banks swapping
                their VCs in one request are taken
Where B does not see its VC buffers (SHIM_CBFC_RX_BUF), a shim beside
the real IP (SHIM_CAP3.ip_counters 0), size is skipped (it is about what
they hold); incast, partner_reset, mismatch and uf_dyn skip only their
assertions on it (partner_reset checks that A starts below its limit
instead of at the limit less what B holds), bank_vc sends a message of
each bank instead of filling B's buffers.
"""

import os
import shutil
import socket
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import hw, check  # noqa: E402  pylint: disable=C0413
import t1_wire as tw  # noqa: E402  pylint: disable=wrong-import-position

QA, QB = 0, 4                 # bank 0 both
QA2, QB2 = 8, 12              # bank 0 both: the second sender
QA1, QB1 = 1, 5               # bank 1 both
VC_BANK1 = 7                  # bank_vc moves bank 1 there: tc 7 << 2
SPORT_BASE = 49152            # a QP's default UDP source port: + qpn
MSG_CREDITS = 5               # a SIZE message's frame, 256-byte credits
IP_A, IP_B = '10.199.0.1', '10.199.0.2'
WAIT = 60.0
SIZE = 1000
LIMIT = 64                    # the driver's default credit limit
VC_TYPE3 = 6
RQ_SMALL = 16
T3_FRAMES = 20
T3_ETH_TYPE = b'\x90\x00'     # Ethernet loopback: TYPE3 to the IP
FLOWS = ('type1_bank0', 'type1_bank1', 'type1_bank2', 'type1_bank3',
         'ackcnp', 'type2', 'type3')


def fields(reg, val):
    """{field: value} of a register value."""
    return {name: (val >> f[1]) & ((1 << (f[0] - f[1] + 1)) - 1)
            for name, f in hw.REGS[reg][11].items()}


def wait_for(what, cond, timeout=20.0):
    try:
        t1.wait_for(what, cond, timeout)
    except TimeoutError as e:
        raise rt.TestFailed(str(e)) from e


class CbfcTest(t1.PairTest):
    QA, QB, IP_A, IP_B = QA, QB, IP_A, IP_B

    def __init__(self, ktap):
        super().__init__(ktap)
        self.changed = []
        self.queued_max = {}
        self.bar = {}
        self.pcap = None
        self.pcap0 = 0

    # ---------------------------------------------------------------- setup

    def reload(self, dev, params):
        try:
            t1.devlink_reload(dev, params)
        except (t1.ToolError, TimeoutError) as e:
            raise rt.TestFailed(str(e)) from e

    def setup(self):
        if not shutil.which('devlink'):
            raise rt.SkipTest('no devlink (iproute2)')
        a, b = t1.pick_pair()
        for d in (a, b):
            if t1.qpns(d):
                raise LookupError('%s has QPs configured: in use' % d)
        rq = t1.devlink_param(b, 'type1_rq_size')
        self.changed = [(a, [('flow_control', 'pfc')]),
                        (b, [('flow_control', 'pfc'), ('type1_rq_size', rq)])]
        self.reload(a, [('flow_control', 'cbfc')])
        self.reload(b, [('flow_control', 'cbfc'),
                        ('type1_rq_size', RQ_SMALL)])
        super().setup()
        for d in (self.a, self.b):
            self.bar[d] = rt.Bar0(t1.bdf_of(d))
        self.pcap = rt.wire_pcap()
        self.pcap0 = os.path.getsize(self.pcap) if self.pcap else 0
        self.add_qps()
        self.add_second()

    def add_second(self):
        ma, mb = (t1.dev_show(d)['mac'] for d in (self.a, self.b))
        t1.tool(['qp', 'add', 'dev', self.a, 'qpn', QA2, 'dqpn', QB2,
                 'dip', IP_B, 'dmac', mb])
        self.added.append((self.a, QA2))
        t1.tool(['qp', 'add', 'dev', self.b, 'qpn', QB2, 'dqpn', QA2,
                 'dip', IP_A, 'dmac', ma])
        self.added.append((self.b, QB2))

    def restore(self):
        self.wire_loss(0)
        for bar in self.bar.values():
            bar.close()
        self.bar = {}
        self.del_qps()
        for d, params in self.changed:
            try:
                self.reload(d, params)
            except (rt.TestFailed, t1.ToolError) as e:
                self.ktap.diag('restoring %s: %s' % (d, e))
        self.saved = {}
        super().restore()

    # -------------------------------------------------------------- helpers

    def reg(self, dev, name, index=0):
        return self.bar[dev].read(name, index)

    def b_buf(self):
        """Does B see what its VC buffers hold?  A shim beside the real IP
        does not (SHIM_CBFC_RX_BUF is ip_internal, SHIM_CAP3.ip_counters
        0): there it reads 0."""
        return bool(self.bar[self.b].rfield('SHIM_CAP3', 'ip_counters'))

    def need_rx_buf(self):
        """Skip the case unless B sees its VC buffers: the case is about
        what they hold."""
        if not self.b_buf():
            raise rt.SkipTest('%s does not count its VC buffers '
                              '(SHIM_CAP3.ip_counters 0): this case '
                              'watches SHIM_CBFC_RX_BUF' % self.b)

    def cbfc(self, dev):
        """dev show -s: the cbfc object (flows and VCs)."""
        return t1.dev_show(dev, stats=True)['cbfc']

    def credits(self, dev, flow):
        for f in self.cbfc(dev)['flows']:
            if f['flow'] == flow:
                return int(f['credits'])
        raise rt.TestFailed('no flow %s in dev show -s' % flow)

    def wait_credits_back(self, dev, flows=('type1_bank0',)):
        for f in flows:
            wait_for('%s credits of %s back at %d' % (f, dev, LIMIT),
                     lambda f=f: self.credits(dev, f) == LIMIT)

    def dev_stat(self, dev, key):
        return int(t1.dev_show(dev, stats=True)['stats'][key])

    def qp_stat(self, dev, qpn, key):
        return int(t1.qp_show(dev, qpn, stats=True)['stats'][key])

    def retx(self, dev, qpn):
        """The QP's retransmitted packets, None where the board does not
        count them (retx_pkts is ip_internal)."""
        st = t1.qp_show(dev, qpn, stats=True)['stats']
        return int(st['retx_pkts']) if t1.counted(st, 'retx_pkts') else None

    def set_queued_max(self, dev, val):
        path = rt.dbg_path(t1.bdf_of(dev), 't1_rx_queued_max')
        if dev not in self.queued_max:
            with open(path, encoding='ascii') as f:
                self.queued_max[dev] = int(f.read())
        with open(path, 'w', encoding='ascii') as f:
            f.write(str(val))

    def restore_queued_max(self, dev):
        """The driver's own limit again (what set_queued_max found)"""
        if dev in self.queued_max:
            self.set_queued_max(dev, self.queued_max[dev])

    def wire_loss(self, ppm):
        if self.a in self.bar:
            self.bar[self.a].write('SHIM_WIRE_FAULT_SEED', 7)
            self.bar[self.a].write('SHIM_WIRE_FAULT_RATE0', ppm)

    # ---------------------------------------------------------------- tests

    def test_driver_init(self):
        for d in (self.a, self.b):
            afh = self.reg(d, 'AFH_CFG_EN')
            f = fields('AFH_CFG_EN', afh)
            check(f['stop_cbfc_en'] == 0, '%s: stop_cbfc_en 1' % d)
            ens = [f['rx_type1_req_bank%d_cbfc_en' % n] for n in range(4)]
            ens += [f['rx_type1_ack_cbfc_en'], f['rx_type2_cbfc_en'],
                    f['rx_type3_cbfc_en']]
            check(ens == [1] * 7, '%s: flow enables %s' % (d, ens))
            vcs = [f['type1_req_bank%d_cbfc' % n] for n in range(4)]
            vcs += [f['type1_ack_cbfc'], f['type2_cbfc'], f['type3_cbfc']]
            check(len(set(vcs)) == 7, '%s: VCs shared: %s' % (d, vcs))
            # every flow's Traffic Class carries its VC in tc[7:2]
            tcf = fields('TRAFFIC_CLASS', self.reg(d, 'TRAFFIC_CLASS'))
            tcs = [tcf['type1_req_tc_bank%d' % n] for n in range(4)]
            tcs += [tcf['type1_ack_tc'], tcf['type2_req_tc']]
            check([t >> 2 for t in tcs] == vcs[:6],
                  '%s: Traffic Classes %s, VCs %s' % (d, tcs, vcs))
            ufs = [f[k + '_credit_uf_limit_cbfc']
                   for k in ('type1', 'type2', 'type3', 'ack')]
            check(ufs == [1, 1, 1, 1], '%s: credit_uf_limit %s' % (d, ufs))
            dyn = [f[k + '_dyn_uf_limit_cbfc_en']
                   for k in ('type1', 'type2', 'type3', 'ack')]
            check(dyn == [1, 0, 0, 0], '%s: dyn_uf_limit %s' % (d, dyn))
            check(f['software_ctrl_cbfc_vc_status'] == 0xff,
                  '%s: vc_status 0x%x' % (d, f['software_ctrl_cbfc_vc_status']))
            x = fields('XON_THR_RDMA', self.reg(d, 'XON_THR_RDMA'))
            rxpfc = [v for k, v in x.items()
                     if k.startswith('rx_') and k.endswith('_pfc_en')]
            check(not any(rxpfc), '%s: RX PFC enables %s' % (d, rxpfc))
            st = fields('SHIM_CBFC_STATUS', self.reg(d, 'SHIM_CBFC_STATUS'))
            want = sum(1 << v for v in vcs)
            check(st['loaded'] & want == want and st['vc_on'] == want,
                  '%s: SHIM_CBFC_STATUS loaded 0x%x vc_on 0x%x, want 0x%x'
                  % (d, st['loaded'], st['vc_on'], want))
            got = {fl: self.credits(d, fl) for fl in FLOWS}
            self.ktap.diag('%s: VCs %s, credits %s' % (d, vcs, got))
            check(set(got.values()) == {LIMIT}, '%s: credits %s, want %d'
                  % (d, got, LIMIT))

    def test_incast(self):
        seen = self.b_buf()
        n = 40
        drop0 = self.dev_stat(self.b, 'rx_drop_nobuf') if seen else None
        retx0 = [self.retx(self.a, q) for q in (QA, QA2)]
        blk0 = self.reg(self.a, 'SHIM_CBFC_TX_BLOCKED', 0)
        vdrop0 = self.reg(self.b, 'SHIM_CBFC_RX_DROP', 0)
        self.set_queued_max(self.b, 0)
        try:
            with t1.Chan(self.a, QA, nonblock=True) as ca, \
                    t1.Chan(self.a, QA2, nonblock=True) as ca2, \
                    t1.Chan(self.b, QB) as cb, t1.Chan(self.b, QB2) as cb2:
                sent = {QA: 0, QA2: 0}
                for i in range(n):
                    for q, ch in ((QA, ca), (QA2, ca2)):
                        try:
                            ch.write(t1.pattern(q, i, SIZE))
                            sent[q] += 1
                        except BlockingIOError:
                            pass
                # B's buffers run out, then its VC 0 buffer fills
                if seen:
                    wait_for('frames waiting in B\'s VC 0 buffer',
                             lambda: self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0))
                wait_for('A out of bank 0 credits',
                         lambda: self.credits(self.a, 'type1_bank0') < 6)
                time.sleep(1.0)
                held = self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0)
                cf = self.credits(self.a, 'type1_bank0')
                blk = self.reg(self.a, 'SHIM_CBFC_TX_BLOCKED', 0) - blk0
                infl = ca.info()['tx_inflight'] + ca2.info()['tx_inflight']
                self.ktap.diag('stalled: %s written, %d in flight, B holds %d '
                               'credits, A has %d, VC 0 blocked %d times'
                               % (sent, infl, held, cf, blk))
                if seen:
                    check(held > 0 and held <= LIMIT,
                          'B holds %d credits' % held)
                else:
                    t1.not_counted(self.ktap, 'B holds 1..limit credits',
                                   ['SHIM_CBFC_RX_BUF'])
                check(blk > 0, 'A\'s VC 0 never blocked')
                check(infl > 0, 'nothing waits at A')
                # the receiver reads: everything arrives, in order
                self.restore_queued_max(self.b)
                for q, ch, peer in ((QA, cb, QA), (QA2, cb2, QA2)):
                    for i in range(sent[q]):
                        m = ch.recv(WAIT)
                        check(m == t1.pattern(peer, i, SIZE),
                              'QP %d message %d of %d: %r' %
                              (peer, i, sent[q],
                               None if m is None else m[:12]))
                ca.drain()
                ca2.drain()
        finally:
            self.restore_queued_max(self.b)
        self.wait_credits_back(self.a)
        drop = self.dev_stat(self.b, 'rx_drop_nobuf') - drop0 if seen \
            else None
        retx = [self.retx(self.a, q) for q in (QA, QA2)]
        retx = [None if r is None or r0 is None else r - r0
                for r, r0 in zip(retx, retx0)]
        vdrop = self.reg(self.b, 'SHIM_CBFC_RX_DROP', 0) - vdrop0
        self.ktap.diag('after: rx_drop_nobuf +%s, retransmitted %s, VC 0 '
                       'drops +%d, B holds %d' %
                       (drop, retx, vdrop,
                        self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0)))
        # (SHIM_CBFC_RX_DROP and RX_BUF read 0 where B does not see them)
        if drop is None:
            t1.not_counted(self.ktap, 'no drop at B, nothing left held',
                           ['rx_drop_nobuf', 'SHIM_CBFC_RX_DROP',
                            'SHIM_CBFC_RX_BUF'])
            drop = 0
        check(drop == 0 and vdrop == 0, 'drops at B: nobuf %d, VC 0 %d'
              % (drop, vdrop))
        if None in retx:
            t1.not_counted(self.ktap, 'no retransmission', ['retx_pkts'])
        else:
            check(retx == [0, 0], 'retransmissions %s' % retx)
        check(self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0) == 0,
              'B still holds credits')

    def test_vc_status(self):
        t1.tool(['dev', 'set', 'dev', self.a, 'vc_status', '0xfe'])
        try:
            with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
                m = t1.pattern(QA, 1000, SIZE)
                ca.send(m, WAIT)
                check(cb.recv(1.5) is None, 'sent with VC 0 off')
                st = fields('SHIM_CBFC_STATUS',
                               self.reg(self.a, 'SHIM_CBFC_STATUS'))
                check(not st['vc_on'] & 1, 'VC 0 on: 0x%x' % st['vc_on'])
                check(ca.info()['tx_inflight'] == 1, 'not waiting at A')
                t1.tool(['dev', 'set', 'dev', self.a, 'vc_status', '0xff'])
                check(cb.recv(WAIT) == m, 'did not arrive with VC 0 on')
                ca.drain()
        finally:
            t1.tool(['dev', 'set', 'dev', self.a, 'vc_status', '0xff'],
                    check=False)

    def test_type3(self):
        """Raw frames A -> B on the TYPE3 netdevs (VC 6)."""
        na, nb = (rt.netdev_of(t1.bdf_of(d)) for d in (self.a, self.b))
        if not na or not nb:
            raise rt.SkipTest('a board has no netdev in this namespace')
        # IFF_UP of each, as found
        was_up = {n: int(rt.sysfs_read('/sys/class/net/%s/flags' % n),
                         16) & 1 for n in (na, nb)}
        for n in (na, nb):
            rt.run(['ip', 'link', 'set', n, 'up'])
        try:
            self.type3_frames(na, nb)
        finally:
            # the netdevs are kept across the reloads below: left up, their
            # own frames (IPv6) would move the CBFC counters of later tests
            for n, up in was_up.items():
                if not up:
                    rt.run(['ip', 'link', 'set', n, 'down'], check_rc=False)

    def type3_frames(self, na, nb):
        rxp = '/sys/class/net/%s/statistics/rx_packets' % nb
        upd0 = self.reg(self.a, 'SHIM_CBFC_UPD_RX')
        rx0 = int(rt.sysfs_read(rxp))
        dst = bytes.fromhex(t1.dev_show(self.b)['mac'].replace(':', ''))
        with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as sk:
            sk.bind((na, 0))
            src = sk.getsockname()[4]
            for i in range(T3_FRAMES):
                sk.send(dst + src + T3_ETH_TYPE + bytes([i]) * 500)
        wait_for('%d frames at %s' % (T3_FRAMES, nb),
                 lambda: int(rt.sysfs_read(rxp)) - rx0 >= T3_FRAMES)
        self.wait_credits_back(self.a, ('type3',))
        upd = self.reg(self.a, 'SHIM_CBFC_UPD_RX') - upd0
        self.ktap.diag('%d frames at %s, %d updates back at A'
                       % (int(rt.sysfs_read(rxp)) - rx0, nb, upd))
        check(upd > 0, 'no credit came back for TYPE3')

    def test_update_frame(self):
        """After the traffic above: each board's last update frame carries
        the other's totals: B freed on VC 0 (A's REQs) and VC 6 (TYPE3)
        what A sent there, A freed on VC 4 (B's ACKs) what B sent."""
        if not self.pcap:
            raise rt.SkipTest('no wire capture')
        time.sleep(0.5)
        recs = tw.pcap_records(self.pcap, self.pcap0)[0]
        upd = [r[1] for r in recs if len(r[1]) >= 86 and
               r[1][12:16] == b'\x88\x08\x01\x02']
        macs = {d: t1.dev_show(d)['mac'].lower() for d in (self.a, self.b)}
        last = {}
        for f in upd:
            for d, m in macs.items():
                if f[6:12].hex(':') == m:
                    last[d] = f
        self.ktap.diag('%d update frames of %d; from %s' %
                       (len(upd), len(recs), sorted(last)))
        check(len(last) == 2, 'no update frame from %s' %
              [d for d in macs if d not in last])

        def tot(d, vc):
            return struct.unpack('>II', last[d][22 + 8 * vc:30 + 8 * vc])

        for src, dst, vc in ((self.a, self.b, 0), (self.a, self.b, VC_TYPE3),
                             (self.b, self.a, 4)):
            sent, freed = tot(src, vc)[0], tot(dst, vc)[1]
            self.ktap.diag('VC %d: %s sent %d, %s freed %d'
                           % (vc, src, sent, dst, freed))
            check(sent == freed and sent > 0, 'VC %d: sent %d, freed %d'
                  % (vc, sent, freed))
        check(last[self.a][16] & 0x7f == 0x7f, 'VC mask 0x%02x'
              % last[self.a][16])

    def test_lost(self):
        rec0 = self.reg(self.b, 'SHIM_CBFC_RECOVERED')
        self.wire_loss(100000)
        try:
            with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
                for i in range(30):
                    m = t1.pattern(QA, 3000 + i, SIZE)
                    ca.send(m, WAIT)
                    check(cb.recv(WAIT) == m, 'message %d' % i)
                ca.drain()
        finally:
            self.wire_loss(0)
        self.wait_credits_back(self.a)
        rec = self.reg(self.b, 'SHIM_CBFC_RECOVERED') - rec0
        lost = self.reg(self.a, 'SHIM_WIRE_LOST')
        self.ktap.diag('B recovered %d credits (A\'s wire lost %d frames in '
                       'all)' % (rec, lost))
        # on a board that does not count it, that assertion only is skipped
        if not t1.counted(self.cbfc(self.b), 'recovered'):
            t1.not_counted(self.ktap, 'B recovered > 0', ['recovered'])
            return
        check(rec > 0, 'no credits recovered')

    def test_refused(self):
        before = self.reg(self.a, 'AFH_CFG_EN')
        cfg0 = self.reg(self.a, 'SHIM_CBFC_VC_CFG', 0)
        tc0 = self.reg(self.a, 'TRAFFIC_CLASS')
        for args in (['cbfc_uf', 'type1', '0'], ['cbfc_size', '512'],
                     ['cbfc_limit', '1'], ['vlan_pri', '3'],
                     ['ack_tc', '0'], ['ack_tc', '20']):
            try:
                t1.tool(['dev', 'set', 'dev', self.a] + args)
            except t1.ToolError as e:
                self.ktap.diag('%s: %s' % (' '.join(args),
                                           str(e).strip()[-120:]))
            else:
                raise rt.TestFailed('%s accepted' % args)
        check(self.reg(self.a, 'AFH_CFG_EN') == before,
              'AFH_CFG_EN changed by refused settings')
        check(self.reg(self.a, 'SHIM_CBFC_VC_CFG', 0) == cfg0,
              'SHIM_CBFC_VC_CFG changed by refused settings')
        check(self.reg(self.a, 'TRAFFIC_CLASS') == tc0,
              'TRAFFIC_CLASS changed by refused settings')
        # the ECN bits of the ACKs' Traffic Class stay free
        t1.tool(['dev', 'set', 'dev', self.a, 'ack_tc', '17'])
        try:
            got = self.bar[self.a].rfield('TRAFFIC_CLASS', 'type1_ack_tc')
            check(got == 17, 'ack_tc 17: TRAFFIC_CLASS.type1_ack_tc %d'
                  % got)
        finally:
            t1.tool(['dev', 'set', 'dev', self.a, 'ack_tc', '16'],
                    check=False)
        nd = rt.netdev_of(t1.bdf_of(self.a))
        if nd and shutil.which('dcb'):
            # dcbnl returns a refusal inside its reply, which dcb does not
            # show: the log says it, nothing changes
            mark = rt.kmsg_mark('t1_cbfc dcb')
            subprocess.run(['dcb', 'pfc', 'set', 'dev', nd, 'prio-pfc',
                            '3:on'], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30, check=False)
            log = [r for r in rt.kmsg_since(mark)
                   if 'PFC and CBFC are exclusive' in str(r)]
            check(log, 'no "PFC and CBFC are exclusive" in the kernel log')
            check(self.reg(self.a, 'RX_PFC_ENABLE') == 0 and
                  self.reg(self.a, 'TX_FC_ENABLE') == 0,
                  'PFC enabled in the MAC in CBFC mode')


    def test_mac_reset(self):
        """MAC2TX_CBFC_RESET_I (SHIM_CBFC_CTRL.reset): every VC unloaded,
        no credits, the flows blocked; a load (MAC2TX_CBFC_RST_I) gives
        the credits back and what waited goes."""
        bar = self.bar[self.a]
        bar.write('SHIM_CBFC_CTRL', rt.fval('SHIM_CBFC_CTRL', 'reset', 1))
        try:
            st = fields('SHIM_CBFC_STATUS', self.reg(self.a,
                                                     'SHIM_CBFC_STATUS'))
            check(st['loaded'] == 0 and st['vc_on'] == 0,
                  'after the reset: loaded 0x%x vc_on 0x%x'
                  % (st['loaded'], st['vc_on']))
            check(self.credits(self.a, 'type1_bank0') == 0,
                  'credits left after the reset')
            with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
                m = t1.pattern(QA, 5000, SIZE)
                ca.send(m, WAIT)
                check(cb.recv(1.5) is None, 'sent after the MAC\'s reset')
                bar.write('SHIM_CBFC_CTRL', rt.fval('SHIM_CBFC_CTRL', 'load',
                                                    0xff))
                check(cb.recv(WAIT) == m, 'not sent after the load')
                ca.drain()
        finally:
            bar.write('SHIM_CBFC_CTRL', rt.fval('SHIM_CBFC_CTRL', 'load', 0xff))
        self.wait_credits_back(self.a, FLOWS)

    def wait_reg_above(self, dev, name, base, index=0):
        wait_for('%s of %s above %d' % (name, dev, base),
                 lambda: self.reg(dev, name, index) > base)

    def fill_b(self, ch, n, first):
        """n messages on A's QA (ch) while B posts no more buffers: those
        beyond B's posted receive buffers (type1_rq_size) are acknowledged
        by B's IP, their data waits in B's VC 0 buffer; the credits it
        holds."""
        self.set_queued_max(self.b, 0)
        for i in range(n):
            ch.write(t1.pattern(QA, first + i, SIZE))
        wait_for('%d messages completed at A' % n,
                 lambda: ch.info()['tx_inflight'] == 0)
        held = self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0)
        self.ktap.diag('B holds %d credits of A\'s, A has %d' %
                       (held, self.credits(self.a, 'type1_bank0')))
        if self.b_buf():
            check(held > 0, 'nothing waits in B\'s VC 0 buffer')
        else:
            t1.not_counted(self.ktap, 'B holds credits',
                           ['SHIM_CBFC_RX_BUF'])
        return held

    def renew_qps(self):
        """The QPs again after a reload (which drops QPs and IPs)."""
        self.del_qps()
        self.set_ips()
        self.add_qps()
        self.add_second()

    def both_ways(self, first):
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            m = t1.pattern(QA, first, SIZE)
            ca.send(m, WAIT)
            check(cb.recv(WAIT) == m, 'A -> B after the reset')
            m = t1.pattern(QB, first + 1, SIZE)
            cb.send(m, WAIT)
            check(ca.recv(WAIT) == m, 'B -> A after the reset')
            ca.drain()
            cb.drain()

    def credits_exact(self, what):
        """Both boards' credits back at the limit, and they stay there."""
        for d in (self.a, self.b):
            self.wait_credits_back(d, FLOWS)
        time.sleep(0.5)
        for d in (self.a, self.b):
            got = {fl: self.credits(d, fl) for fl in FLOWS}
            check(set(got.values()) == {LIMIT}, '%s, %s: credits %s'
                  % (what, d, got))

    def test_partner_reset(self):
        """A reset of the link partner mid-stream (Documentation/hw/shim.rst
        "CBFC", the update frame's epochs)."""
        b_params = [('flow_control', 'cbfc'), ('type1_rq_size', RQ_SMALL)]
        # B's reset while it holds A's data: the data is gone with B's
        # state, A gets its credits back
        rs0 = self.reg(self.a, 'SHIM_CBFC_RESYNC')
        try:
            with t1.Chan(self.a, QA) as ca:
                self.fill_b(ca, RQ_SMALL + 8, 6000)
                self.reload(self.b, b_params)
        finally:
            self.restore_queued_max(self.b)
        self.wait_reg_above(self.a, 'SHIM_CBFC_RESYNC', rs0)
        self.renew_qps()
        self.both_ways(6100)
        self.credits_exact('after B\'s reset')
        self.ktap.diag('B\'s reset: A resynced %d, B recovered %d credits'
                       % (self.reg(self.a, 'SHIM_CBFC_RESYNC') - rs0,
                          self.reg(self.b, 'SHIM_CBFC_RECOVERED')))
        # A's reset while B holds A's data: B still delivers it (A had it
        # acknowledged), its credits belong to A's old epoch
        rs0 = self.reg(self.b, 'SHIM_CBFC_RESYNC')
        vdrop0 = self.reg(self.b, 'SHIM_CBFC_RX_DROP', 0)
        try:
            with t1.Chan(self.b, QB) as cb:
                with t1.Chan(self.a, QA) as ca:
                    self.fill_b(ca, RQ_SMALL + 8, 6200)
                self.reload(self.a, [('flow_control', 'cbfc')])
                self.wait_reg_above(self.b, 'SHIM_CBFC_RESYNC', rs0)
                # what waits at B keeps its room: A starts below its limit
                # (by what B holds, where B sees it)
                held = self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0)
                if self.b_buf():
                    wait_for('A\'s credits at %d - %d' % (LIMIT, held),
                             lambda: self.credits(self.a, 'type1_bank0') ==
                             LIMIT - held)
                else:
                    wait_for('A\'s credits between 0 and its limit',
                             lambda: 0 < self.credits(self.a,
                                                      'type1_bank0') < LIMIT)
                self.ktap.diag('A\'s reset: B holds %d, A starts with %d'
                               % (held, self.credits(self.a,
                                                     'type1_bank0')))
                self.restore_queued_max(self.b)
                # what B held from before A's reset
                self.read_in_order(cb, 6200, RQ_SMALL + 8)
        finally:
            self.restore_queued_max(self.b)
        check(self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0) == 0,
              'B still holds credits')
        self.renew_qps()
        self.both_ways(6300)
        self.credits_exact('after A\'s reset')
        if self.b_buf():
            check(self.reg(self.b, 'SHIM_CBFC_RX_DROP', 0) == vdrop0,
                  'B dropped on VC 0')
        else:
            t1.not_counted(self.ktap, 'B held all and dropped nothing',
                           ['SHIM_CBFC_RX_BUF', 'SHIM_CBFC_RX_DROP'])

    @staticmethod
    def burst(ch, first, n):
        """Up to n messages of QA on a non-blocking channel, until its
        window is full; how many went."""
        for i in range(n):
            try:
                ch.write(t1.pattern(QA, first + i, SIZE))
            except BlockingIOError:
                return i
        return n

    @staticmethod
    def read_in_order(ch, first, n):
        for i in range(n):
            m = ch.recv(WAIT)
            check(m == t1.pattern(QA, first + i, SIZE),
                  'message %d of %d: %r' %
                  (i, n, None if m is None else m[:12]))

    def test_mismatch(self):
        """A sends beyond B's buffer: counted drops, retransmission, order."""
        n = 40
        # B reads only after the drops: A retries for 16 x 8 ms
        shown = t1.dev_show(self.a)
        retry = [str(shown['retry_timer']), str(shown['retry_cnt'])]
        t1.tool(['dev', 'set', 'dev', self.a, 'retry_timer', '8191',
                 'retry_cnt', '15'])
        t1.tool(['dev', 'set', 'dev', self.a, 'cbfc_limit', str(2 * LIMIT)])
        vdrop0 = self.reg(self.b, 'SHIM_CBFC_RX_DROP', 0)
        retx0 = self.retx(self.a, QA)
        try:
            wait_for('A\'s credits at %d' % (2 * LIMIT),
                     lambda: self.credits(self.a, 'type1_bank0') == 2 * LIMIT)
            self.set_queued_max(self.b, 0)
            with t1.Chan(self.a, QA, nonblock=True) as ca, \
                    t1.Chan(self.b, QB) as cb:
                sent = self.burst(ca, 7000, n)
                # the wire delivers at once: B's buffer is full by now
                held = self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0)
                self.restore_queued_max(self.b)
                if self.b_buf():
                    check(held <= LIMIT, 'B holds %d credits, beyond its '
                          'limit %d' % (held, LIMIT))
                else:
                    t1.not_counted(self.ktap, 'B holds at most its limit',
                                   ['SHIM_CBFC_RX_BUF'])
                self.read_in_order(cb, 7000, sent)
                ca.drain()
            wait_for('A\'s credits back at %d' % (2 * LIMIT),
                     lambda: self.credits(self.a, 'type1_bank0') == 2 * LIMIT)
        finally:
            self.restore_queued_max(self.b)
            t1.tool(['dev', 'set', 'dev', self.a, 'cbfc_limit', str(LIMIT)],
                    check=False)
            t1.tool(['dev', 'set', 'dev', self.a, 'retry_timer', retry[0],
                     'retry_cnt', retry[1]], check=False)
        vdrop = self.reg(self.b, 'SHIM_CBFC_RX_DROP', 0) - vdrop0
        retx = self.retx(self.a, QA)
        if retx is not None:
            retx -= retx0
        vcs = {v['vc']: v for v in self.cbfc(self.b)['vcs']}
        self.ktap.diag('%d messages, B held %d credits, dropped %d frames '
                       '(dev show: %s), A retransmitted %s'
                       % (sent, held, vdrop, vcs[0].get('rx_drop'), retx))
        if t1.counted(vcs[0], 'rx_drop'):
            check(vdrop > 0 and int(vcs[0]['rx_drop']) >= vdrop,
                  'VC 0 drops: register %d, dev show %s'
                  % (vdrop, vcs[0]['rx_drop']))
        else:
            t1.not_counted(self.ktap, 'on B\'s VC 0 drops', ['rx_drop'])
        if retx is not None:
            check(retx > 0, 'nothing retransmitted')
        else:
            t1.not_counted(self.ktap, 'A retransmitted', ['retx_pkts'])
        self.wait_credits_back(self.a, FLOWS)

    def fill_read(self, first):
        """fill_b() with the rest read at B; the credits B held."""
        with t1.Chan(self.b, QB) as cb:
            try:
                with t1.Chan(self.a, QA) as ca:
                    held = self.fill_b(ca, RQ_SMALL + 8, first)
            finally:
                self.restore_queued_max(self.b)
            self.read_in_order(cb, first, RQ_SMALL + 8)
        self.wait_credits_back(self.a)
        return held

    def test_size(self):
        self.need_rx_buf()
        h256 = self.fill_read(8000)
        try:
            for d in (self.a, self.b):
                t1.tool(['dev', 'set', 'dev', d, 'cbfc_size', '1024'])
            self.wait_credits_back(self.a, FLOWS)
            h1024 = self.fill_read(8100)
        finally:
            for d in (self.a, self.b):
                t1.tool(['dev', 'set', 'dev', d, 'cbfc_size', '256'],
                        check=False)
        self.ktap.diag('B held %d credits of 256 bytes, %d of 1024'
                       % (h256, h1024))
        # How many messages wait can differ by one between the two fills
        # (the receive buffers B had posted when its reader stopped): each
        # holds 5 credits of 256 bytes and 2 of 1024
        n256, n1024 = h256 // 5, h1024 // 2
        check(h256 % 5 == 0 and h1024 % 2 == 0 and n256 and n1024 and
              abs(n256 - n1024) <= 1,
              '%d credits at 256, %d at 1024: not 5 and 2 per message'
              % (h256, h1024))
        self.wait_credits_back(self.a, FLOWS)

    def stall_credits(self, first):
        """A's bank-0 credits once B holds all it can (B not reading)."""
        n = 40
        self.set_queued_max(self.b, 0)
        try:
            with t1.Chan(self.a, QA, nonblock=True) as ca, \
                    t1.Chan(self.b, QB) as cb:
                sent = self.burst(ca, first, n)
                if self.b_buf():
                    wait_for('frames waiting in B\'s VC 0 buffer',
                             lambda: self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0))
                wait_for('A stalled', lambda: ca.info()['tx_inflight'] and
                         self.credits(self.a, 'type1_bank0') < 12)
                time.sleep(1.0)
                cf = self.credits(self.a, 'type1_bank0')
                held = self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0)
                self.restore_queued_max(self.b)
                self.read_in_order(cb, first, sent)
                ca.drain()
        finally:
            self.restore_queued_max(self.b)
        self.wait_credits_back(self.a)
        return cf, held

    def test_uf_dyn(self):
        """A message's frame costs 5 credits of 256 bytes, the flow's
        maximum frame (pkt_len 1344 + 128 bytes) 6: with uf 2 the flow
        stops below 12 credits, with dyn it goes on while 6 remain."""
        t1.tool(['dev', 'set', 'dev', self.a, 'cbfc_uf', 'type1', '2'])
        try:
            t1.tool(['dev', 'set', 'dev', self.a, 'cbfc_dyn', 'off'])
            off = self.stall_credits(9000)
            t1.tool(['dev', 'set', 'dev', self.a, 'cbfc_dyn', 'on'])
            on = self.stall_credits(9100)
        finally:
            t1.tool(['dev', 'set', 'dev', self.a, 'cbfc_uf', 'type1', '1',
                     'cbfc_dyn', 'on'], check=False)
        self.ktap.diag('stalled with cbfc_dyn off: A %d credits, B holds %d; '
                       'on: A %d, B holds %d' % (off + on))
        check(6 <= off[0] < 12, 'dyn off: A stopped with %d credits'
              % off[0])
        check(on[0] < 6, 'dyn on: A stopped with %d credits' % on[0])
        if self.b_buf():
            check(off[0] + off[1] == LIMIT and on[0] + on[1] == LIMIT,
                  'credits of A and B\'s buffer do not add up to %d'
                  % LIMIT)
        else:
            t1.not_counted(self.ktap, 'A\'s credits and B\'s buffer add up '
                           'to the limit', ['SHIM_CBFC_RX_BUF'])

    def upd_quiet(self):
        """Both boards' SHIM_CBFC_UPD_TX once neither grows for 0.3 s."""
        last = [None]

        def still():
            now = [self.reg(d, 'SHIM_CBFC_UPD_TX') for d in (self.a,
                                                            self.b)]
            same, last[0] = now == last[0], now
            if not same:
                time.sleep(0.3)
            return same
        wait_for('no more update frames', still)
        return last[0]

    def one_message_updates(self, first):
        """Update frames sent by A and B for one message A -> B, and the
        packets A retransmitted meanwhile (a retry timer that expired on
        a loaded host: each retransmission is another credit change), None
        where A does not count them."""
        u0 = self.upd_quiet()
        r0 = self.retx(self.a, QA)
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            m = t1.pattern(QA, first, SIZE)
            ca.send(m, WAIT)
            check(cb.recv(WAIT) == m, 'message %d' % first)
            ca.drain()
        u1 = self.upd_quiet()
        r1 = self.retx(self.a, QA)
        return ([b - a for a, b in zip(u0, u1)],
                None if r0 is None or r1 is None else r1 - r0)

    def test_sync(self):
        on, on_retx = self.one_message_updates(9500)
        bar = self.bar[self.b]
        timing = self.reg(self.b, 'SHIM_CBFC_TIMING')
        sync = rt.fval('SHIM_CBFC_TIMING', 'sync_us', 0xffff)
        try:
            bar.write('SHIM_CBFC_TIMING', timing & ~sync)
            off, off_retx = self.one_message_updates(9501)
        finally:
            bar.write('SHIM_CBFC_TIMING', timing)
        self.ktap.diag('update frames of A, B for one message: %s; with B\'s '
                       'sync_us 0: %s; A retransmitted %s, %s packets'
                       % (on, off, on_retx, off_retx))
        check(on[1] == 4, 'B sent %d updates, not 1 + 3 periodic' % on[1])
        check(off[1] == 1, 'B sent %d updates with sync_us 0' % off[1])
        # A: the update of the ACK's credits and its periods (its sync
        # timer may tick once between its REQ and the ACK: 4 or 5); a
        # retransmitted REQ brings another ACK and its 4 updates
        if on_retx is None or off_retx is None:
            # without the count, A's retransmissions bound nothing
            check(on[0] >= 4 and off[0] >= 4, 'A sent %d, then %d'
                  % (on[0], off[0]))
            t1.not_counted(self.ktap, 'A sent at most 5 + 4 per '
                           'retransmission', ['retx_pkts'])
        else:
            check(4 <= on[0] <= 5 + 4 * on_retx and
                  4 <= off[0] <= 5 + 4 * off_retx,
                  'A sent %d, then %d (retransmitted %d, %d)'
                  % (on[0], off[0], on_retx, off_retx))
        self.wait_credits_back(self.a, FLOWS)

    def test_gen1_vlan(self):
        """AFH_GEN1 without TC under CBFC: the VLAN tag carries the VC."""
        self.del_qps()
        for d in (self.a, self.b):
            t1.tool(['dev', 'set', 'dev', d, 'format', 'gen1'])
            got = t1.dev_show(d)
            check(got.get('vlan_forced') is True, '%s: vlan_forced %r'
                  % (d, got.get('vlan_forced')))
        try:
            t1.tool(['dev', 'set', 'dev', self.a, 'vlan', 'off'])
        except t1.ToolError as e:
            self.ktap.diag('vlan off: %s' % str(e).strip()[-100:])
        else:
            raise rt.TestFailed('vlan off accepted with gen1 under CBFC')
        check(t1.dev_show(self.a).get('vlan_forced') is True,
              'the refused vlan off changed the board')
        start = os.path.getsize(self.pcap) if self.pcap else 0
        try:
            self.add_qps()
            with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
                m = t1.pattern(QA, 4000, SIZE)
                ca.send(m, WAIT)
                check(cb.recv(WAIT) == m, 'no message in gen1')
                ca.drain()
            if not self.pcap:
                return
            time.sleep(0.3)
            tags = {}
            for _, f in tw.pcap_records(self.pcap, start)[0]:
                if f[12:14] == b'\x81\x00' and f[16:18] == b'\x88\xb5':
                    tci = struct.unpack('>H', f[14:16])[0]
                    tags.setdefault(f[6:12].hex(':'), set()).add(
                        (tci >> 13, tci & 0xfff))
            macs = {d: t1.dev_show(d)['mac'].lower() for d in (self.a,
                                                               self.b)}
            self.ktap.diag('802.1Q (PCP, VID) of AFH frames: %s' % tags)
            # A's REQs of bank 0 on VC 0, B's ACKs on VC 4, VID 0
            check(tags.get(macs[self.a]) == {(0, 0)},
                  'A\'s REQs: %s' % tags.get(macs[self.a]))
            check(tags.get(macs[self.b]) == {(4, 0)},
                  'B\'s ACKs: %s' % tags.get(macs[self.b]))
        finally:
            self.del_qps()
            for d in (self.a, self.b):
                t1.tool(['dev', 'set', 'dev', d, 'format', 'std'],
                        check=False)
            self.add_qps()
            self.add_second()

    # ----------------------------------------------------- per-bank VCs

    @staticmethod
    def banks(dev):
        """dev show's banks: {bank: (tc, vc)}."""
        return {int(b['bank']): (int(b['tc']), b.get('vc'))
                for b in t1.dev_show(dev).get('banks', [])}

    def bank_regs(self, dev):
        """Each bank's (TRAFFIC_CLASS tc, AFH_CFG_EN VC)."""
        tcr = fields('TRAFFIC_CLASS', self.reg(dev, 'TRAFFIC_CLASS'))
        afh = fields('AFH_CFG_EN', self.reg(dev, 'AFH_CFG_EN'))
        return {n: (tcr['type1_req_tc_bank%d' % n],
                    afh['type1_req_bank%d_cbfc' % n]) for n in range(4)}

    def set_banks(self, args, check_rc=True):
        for d in (self.a, self.b):
            t1.tool(['dev', 'set', 'dev', d] + args, check=check_rc)

    def add_bank1_qps(self):
        ma, mb = (t1.dev_show(d)['mac'] for d in (self.a, self.b))
        t1.tool(['qp', 'add', 'dev', self.a, 'qpn', QA1, 'dqpn', QB1,
                 'dip', IP_B, 'dmac', mb])
        t1.tool(['qp', 'add', 'dev', self.b, 'qpn', QB1, 'dqpn', QA1,
                 'dip', IP_A, 'dmac', ma])

    def del_bank1_qps(self):
        t1.tool(['qp', 'del', 'dev', self.a, 'qpn', QA1], check=False)
        t1.tool(['qp', 'del', 'dev', self.b, 'qpn', QB1], check=False)

    def req_tos(self, start):
        """The ToS of A's TYPE1 REQs on the wire since start, by QP
        (standard format: UDP source port 49152 + qpn)."""
        mac = bytes.fromhex(t1.dev_show(self.a)['mac'].replace(':', ''))
        tos = {}
        for _, f in tw.pcap_records(self.pcap, start)[0]:
            if (len(f) < 50 or f[6:12] != mac or f[12:14] != b'\x08\x00'
                    or f[23] != 17 or f[36:38] != b'\x12\xb7' or
                    f[42] >> 6 != 0):
                continue
            qpn = struct.unpack('>H', f[34:36])[0] - SPORT_BASE
            tos.setdefault(qpn, set()).add(f[15])
        return tos

    def test_bank_vc(self):
        want0 = {n: (n << 2, n) for n in range(4)}
        for d in (self.a, self.b):
            got = self.bank_regs(d)
            shown = {n: (tc, int(vc)) for n, (tc, vc) in
                     self.banks(d).items()}
            self.ktap.diag('%s: banks (tc, VC) %s, dev show %s'
                           % (d, got, shown))
            check(got == want0 and shown == want0,
                  '%s: default banks %s, dev show %s, want %s'
                  % (d, got, shown, want0))
        tc1 = VC_BANK1 << 2
        self.set_banks(['bank', '1', 'tc', str(tc1)])
        start = os.path.getsize(self.pcap) if self.pcap else 0
        try:
            want = dict(want0)
            want[1] = (tc1, VC_BANK1)
            for d in (self.a, self.b):
                got = self.bank_regs(d)
                shown = {n: (tc, int(vc)) for n, (tc, vc) in
                         self.banks(d).items()}
                check(got == want and shown == want,
                      '%s: banks %s, dev show %s, want %s'
                      % (d, got, shown, want))
                vcs = {f['flow']: int(f['vc'])
                       for f in self.cbfc(d)['flows']}
                check(vcs['type1_bank1'] == VC_BANK1 and
                      vcs['type1_bank0'] == 0,
                      '%s: flows on VCs %s' % (d, vcs))
            self.add_bank1_qps()
            held = self.hold_two_banks(11000)
        finally:
            self.restore_queued_max(self.b)
            self.del_bank1_qps()
            self.set_banks(['bank', '1', 'tc', '4'], check_rc=False)
        self.ktap.diag('B holds VC 0 %s, VC %d %s, VC 1 %s credits; A had '
                       '%s' % held)
        if self.pcap:
            time.sleep(0.3)
            tos = self.req_tos(start)
            self.ktap.diag('ToS of A\'s REQs by QP: %s' % tos)
            check(tos.get(QA) == {0} and tos.get(QA1) == {tc1},
                  'ToS of bank 0 %s, of bank 1 %s, want {0} and {%d}'
                  % (tos.get(QA), tos.get(QA1), tc1))
        for d in (self.a, self.b):
            check(self.bank_regs(d) == want0, '%s: banks not restored: %s'
                  % (d, self.bank_regs(d)))
        self.wait_credits_back(self.a, FLOWS)

    def hold_two_banks(self, first):
        """B does not read: bank-0 messages fill B's buffers and wait in
        VC 0's buffer, then bank-1 messages wait in VC 7's; B reads."""
        n0, n1 = RQ_SMALL + 4, 4
        self.set_queued_max(self.b, 0)
        with t1.Chan(self.b, QB) as cb, t1.Chan(self.b, QB1) as cb1:
            with t1.Chan(self.a, QA) as ca, t1.Chan(self.a, QA1) as ca1:
                for i in range(n0):
                    ca.write(t1.pattern(QA, first + i, SIZE))
                wait_for('%d bank-0 messages completed at A' % n0,
                         lambda: ca.info()['tx_inflight'] == 0)
                for i in range(n1):
                    ca1.write(t1.pattern(QA1, first + i, SIZE))
                wait_for('%d bank-1 messages completed at A' % n1,
                         lambda: ca1.info()['tx_inflight'] == 0)
                if self.b_buf():
                    h0 = self.reg(self.b, 'SHIM_CBFC_RX_BUF', 0)
                    h7 = self.reg(self.b, 'SHIM_CBFC_RX_BUF', VC_BANK1)
                    h1 = self.reg(self.b, 'SHIM_CBFC_RX_BUF', 1)
                    check(h0 > 0 and h7 > 0 and h1 == 0,
                          'B holds VC 0 %d, VC %d %d, VC 1 %d credits: want '
                          'VC 0 and %d only' % (h0, VC_BANK1, h7, h1,
                                                VC_BANK1))
                    # dev show -s: the same per VC (SHIM_CBFC_RX_BUF(n))
                    bufs = {int(v['vc']): int(v['rx_buf'])
                            for v in self.cbfc(self.b)['vcs']}
                    check(bufs[0] == h0 and bufs[VC_BANK1] == h7 and
                          bufs[1] == 0, 'B\'s dev show -s rx_buf %s' % bufs)
                    # all of bank 1's: B's host has had no room since
                    # bank 0
                    check(h7 == n1 * MSG_CREDITS,
                          'VC %d holds %d credits for %d messages of %d'
                          % (VC_BANK1, h7, n1, MSG_CREDITS))
                else:
                    # B does not see its buffers: A's credits tell
                    t1.not_counted(self.ktap, 'what each VC holds at B',
                                   ['SHIM_CBFC_RX_BUF'])
                    # (all of bank 1's wait: B's host has had no room
                    # since bank 0)
                    h0, h1, h7 = None, None, n1 * MSG_CREDITS
                    wait_for('A\'s bank-0 credits below its limit',
                             lambda: self.credits(self.a, 'type1_bank0') <
                             LIMIT)
                wait_for('A\'s bank credits at the limit less what B holds',
                         lambda: (h0 is None or
                                  self.credits(self.a, 'type1_bank0') ==
                                  LIMIT - h0) and
                         self.credits(self.a, 'type1_bank1') == LIMIT - h7)
                cf = (self.credits(self.a, 'type1_bank0'),
                      self.credits(self.a, 'type1_bank1'))
                self.restore_queued_max(self.b)
                for i in range(n0):
                    m = cb.recv(WAIT)
                    check(m == t1.pattern(QA, first + i, SIZE),
                          'bank 0 message %d of %d' % (i, n0))
                for i in range(n1):
                    m = cb1.recv(WAIT)
                    check(m == t1.pattern(QA1, first + i, SIZE),
                          'bank 1 message %d of %d' % (i, n1))
                ca.drain()
                ca1.drain()
        self.wait_credits_back(self.a, ('type1_bank0', 'type1_bank1'))
        check(self.reg(self.b, 'SHIM_CBFC_RX_BUF', VC_BANK1) == 0,
              'B still holds VC %d credits' % VC_BANK1)
        return (h0, VC_BANK1, h7, h1, cf)

    def test_bank_refused(self):
        regs = (self.reg(self.a, 'AFH_CFG_EN'),
                self.reg(self.a, 'TRAFFIC_CLASS'))
        for args, msg in ((['bank', '4', 'tc', '0'], '0..3'),
                          (['bank', '1', 'tc', '32'], '0..31'),
                          (['bank', '1', 'tc', '16'], 'ACK/CNP'),
                          (['bank', '1', 'tc', '27'], 'ACK/CNP'),
                          (['bank', '1', 'tc', '0'], 'two banks'),
                          (['bank', '1', 'tc', '28', 'bank', '1', 'tc',
                            '28'], 'twice'),
                          (['tc', '4'], 'per bank')):
            try:
                t1.tool(['dev', 'set', 'dev', self.a] + args)
            except t1.ToolError as e:
                self.ktap.diag('%s: %s' % (' '.join(args),
                                           str(e).strip()[-140:]))
                check(msg in e.out, '%s: no "%s" in %r'
                      % (' '.join(args), msg, e.out.strip()))
            else:
                raise rt.TestFailed('%s accepted' % args)
            check((self.reg(self.a, 'AFH_CFG_EN'),
                   self.reg(self.a, 'TRAFFIC_CLASS')) == regs,
                  '%s changed the registers' % args)
        # a swap passes through no shared VC when it is one request
        t1.tool(['dev', 'set', 'dev', self.a, 'bank', '0', 'tc', '4',
                 'bank', '1', 'tc', '1'])
        try:
            got = self.bank_regs(self.a)
            check(got[0] == (4, 1) and got[1] == (1, 0),
                  'after the swap: %s' % got)
        finally:
            t1.tool(['dev', 'set', 'dev', self.a, 'bank', '0', 'tc', '0',
                     'bank', '1', 'tc', '4'], check=False)
        check(self.bank_regs(self.a) == {n: (n << 2, n) for n in range(4)},
              'not restored: %s' % self.bank_regs(self.a))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = CbfcTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('driver_init', t.test_driver_init),
                                 ('incast', t.test_incast),
                                 ('vc_status', t.test_vc_status),
                                 ('type3', t.test_type3),
                                 ('update_frame', t.test_update_frame),
                                 ('lost', t.test_lost),
                                 ('refused', t.test_refused),
                                 ('mac_reset', t.test_mac_reset),
                                 ('gen1_vlan', t.test_gen1_vlan),
                                 ('partner_reset', t.test_partner_reset),
                                 ('mismatch', t.test_mismatch),
                                 ('size', t.test_size),
                                 ('uf_dyn', t.test_uf_dyn),
                                 ('sync', t.test_sync),
                                 ('bank_vc', t.test_bank_vc),
                                 ('bank_refused', t.test_bank_refused)),
                  't1_cbfc')


if __name__ == '__main__':
    main()
