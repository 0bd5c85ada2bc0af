#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TYPE1 rate control (seed 000, 速率控制; Documentation/hw/shim.rst,
"Rate control") between the boards of a pair:

  worked_example  the seed's QP2 example, step by step, with the CC windows
                  under the test's control (SHIM_CC_TEST.manual/step),
                  every length times 4: the seed's packets of 0x10 to
                  0x30 bytes are below its own TX_S minimum of 64 bytes
                  (a shorter packet is padded to 64 and counts 64), so
                  the same steps run at 0xC0 bytes per window with
                  packets of 0x40, 0xC0 and 0x80 bytes: speed 0xFF and one
                  window end give acc_cnt 0; a 0x40-byte packet leaves
                  acc_cnt 0x40 unmasked, a 0xC0-byte one makes it 0x100
                  and masks the QP, a 0x80-byte one then waits (not on the
                  wire, not delivered) until the next window end makes
                  acc_cnt 0x40, goes and leaves 0xC0, masked.  Packet
                  lengths are TX_S lengths: the 8-byte segment header and
                  the data.
  padded          a 1-byte message is a 64-byte TX_S packet (padded to the
                  IP's minimum): acc_cnt counts 64, the reader gets the 1
                  byte
  rate_units      rclink qp set ... rate 10gbit: TX_SPEED_MEM 5120 bytes per
                  4.096 us window, shown back as 10gbit (JSON: bit/s); at
                  cc_window 65536 1gbit is 8192 bytes; cc_window is refused
                  while the board has QPs
  refused         rate 0, rates above 2^22-1 bytes per window, rate with
                  speed, a cc_window that is not one of the five
  paced           at 50mbit every packet masks the QP for many windows of
                  the virtual clock; all messages still arrive, in order
  windows_100     5120 bytes per window (10gbit at 4.096 us), manual
                  windows, a backlog of 1000-byte messages: no window
                  carries more than length_thr plus one packet, and the
                  100 windows carry 100 x length_thr within 1 %; back on
                  the virtual clock the backlog drains, every message
                  arrives in order; skipped where A does not count the
                  bytes (SHIM_CAP3.ip_counters 0)
  masked_aside    CC_TYPE1_QP_EN_SET/CLR (Documentation/hw/shim.rst,
                  "Rate control"): QP 2 at 1mbit, masked by one message
                  (manual windows: it stays masked), gets 12 messages of
                  64 KiB (600 packets, more than the 512 slots), then QP 3
                  (unlimited) 20 messages: all 20 of QP 3 arrive while QP 2
                  sends no packet (tx_pkts where counted; none of its
                  messages arrives), and the engine set QP 2's 12 messages
                  aside (DMAQ_T1_CC_PARKED); QP 2's speed raised, its 12
                  messages follow, in order
  flow_stop       the driver lets the engine's FLOW_STOP reach the IP
                  (XON_THR_RDMA.flow_stop_en, every bank) and the IP answer
                  RNR (AFH_CFG_EN.type1_flow_stop_send_rnr_en)
"""

import os
import select
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                'lib'))
import rclinktest as rt  # noqa: E402  pylint: disable=wrong-import-position
import rclink_t1 as t1  # noqa: E402  pylint: disable=wrong-import-position
from rclinktest import check  # noqa: E402  pylint: disable=C0413

QA, QB = 2, 6                 # the seed's QP2, and its peer in bank 2
QY, QYB = 3, 7                # an unlimited QP beside it (bank 3)
IP_A, IP_B = '10.197.0.1', '10.197.0.2'
SEG = 8
PKT_MIN = rt.hw.FORMATS['SEG'][2]['PKT_MIN']    # the IP's TX_S minimum


class RateTest(t1.PairTest):
    QA, QB, IP_A, IP_B = QA, QB, IP_A, IP_B

    def __init__(self, ktap):
        super().__init__(ktap)
        self.bar = None

    def setup(self):
        super().setup()
        self.bar = rt.Bar0(t1.bdf_of(self.a))

    def restore(self):
        if self.bar:
            self.bar.write('SHIM_CC_TEST', 0)
            self.bar.close()
        super().restore()

    def cc(self):
        st = t1.qp_show(self.a, QA, stats=True)['stats']
        return int(st['cc_acc']), int(st['cc_mask'])

    def want_cc(self, step, acc, mask):
        got = self.cc()
        self.ktap.diag('%s: acc_cnt 0x%x, ARB_REQ_MASK %d' % (step, got[0],
                                                              got[1]))
        check(got == (acc, mask), '%s: acc_cnt 0x%x mask %d, want 0x%x mask '
              '%d' % (step, got[0], got[1], acc, mask))

    def step(self):
        self.bar.write('SHIM_CC_TEST', 3)      # manual, step

    def test_worked_example(self):
        self.bar.write('SHIM_CC_TEST', 1)      # manual windows
        self.add_qps('speed', 0xff)
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            self.step()
            self.want_cc('first window end, speed 0xff', 0, 0)
            t1.tool(['qp', 'set', 'dev', self.a, 'qpn', QA, 'speed', 0xc0])
            m1 = t1.pattern(QA, 1, 0x40 - SEG)
            check(ca.send(m1) == len(m1), 'short write')
            check(cb.recv(10) == m1, 'the 0x40-byte packet did not arrive')
            self.want_cc('0x40 sent', 0x40, 0)
            m2 = t1.pattern(QA, 2, 0xc0 - SEG)
            check(ca.send(m2) == len(m2), 'short write')
            check(cb.recv(10) == m2, 'the 0xc0-byte packet did not arrive')
            self.want_cc('0xc0 sent', 0x100, 1)
            m3 = t1.pattern(QA, 3, 0x80 - SEG)
            check(ca.send(m3) == len(m3), 'short write')
            check(cb.poll(select.POLLIN, 1.0) == 0, 'the 0x80-byte packet '
                  'went while the QP was masked')
            self.want_cc('0x80 waiting', 0x100, 1)
            self.step()
            check(cb.recv(10) == m3, 'the 0x80-byte packet did not go '
                  'after the window end')
            self.want_cc('second window end, 0x80 sent', 0xc0, 1)
            self.step()
            self.want_cc('third window end', 0, 0)
            ca.drain()
        self.bar.write('SHIM_CC_TEST', 0)
        self.del_qps()

    def test_padded(self):
        self.bar.write('SHIM_CC_TEST', 1)      # manual windows
        self.add_qps('speed', 0xff)
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            self.step()
            self.want_cc('window end', 0, 0)
            m = t1.pattern(QA, 1, 1)
            check(ca.send(m) == 1, 'short write')
            check(cb.recv(10) == m, 'the 1-byte message did not arrive '
                  'as 1 byte')
            self.want_cc('1 byte sent as the 64-byte minimum', PKT_MIN, 0)
            ca.drain()
        self.bar.write('SHIM_CC_TEST', 0)
        self.del_qps()

    def test_rate_units(self):
        self.add_qps('rate', '10gbit')
        q = t1.qp_show(self.a, QA)
        check(int(q['speed']) == 5120 and int(q['rate']) == 10 ** 10,
              'rate 10gbit: speed %s rate %s, want 5120 and 10^10'
              % (q['speed'], q['rate']))
        _, out = t1.tool(['qp', 'show', 'dev', self.a, 'qpn', QA])
        check('rate 10gbit' in out and 'speed 5120' in out,
              'text output: %r' % out)
        t1.tool(['qp', 'set', 'dev', self.a, 'qpn', QA, 'rate', '100mbit'])
        q = t1.qp_show(self.a, QA)
        check(int(q['speed']) == 52 and int(q['rate']) == 10 ** 8,
              'rate 100mbit: speed %s (51.2 rounded up: 52) rate %s'
              % (q['speed'], q['rate']))
        t1.tool(['qp', 'set', 'dev', self.a, 'qpn', QA, 'speed', 1000])
        q = t1.qp_show(self.a, QA)
        check(int(q['rate']) == 1000 * 8 * 10 ** 9 // 4096,
              'speed 1000: rate %s, want %d' % (q['rate'],
                                               1000 * 8 * 10 ** 9 // 4096))
        try:
            t1.tool(['dev', 'set', 'dev', self.a, 'cc_window', 65536])
        except t1.ToolError as e:
            check('delete them first' in str(e), 'cc_window with QPs: %s' % e)
        else:
            raise rt.TestFailed('cc_window changed while the board has QPs')
        self.del_qps()
        t1.tool(['dev', 'set', 'dev', self.a, 'cc_window', 65536])
        check(int(t1.dev_show(self.a)['cc_window']) == 65536, 'cc_window')
        self.add_qps('rate', '1gbit')
        q = t1.qp_show(self.a, QA)
        check(int(q['speed']) == 8192, 'rate 1gbit at 65.536 us: speed %s, '
              'want 8192' % q['speed'])
        self.del_qps()
        t1.tool(['dev', 'set', 'dev', self.a, 'cc_window', 4096])

    def test_refused(self):
        self.add_qps()
        cases = ((['rate', '0'], 'out of range'),
                 (['rate', '9tbit'], 'above 2^22-1 bytes'),
                 (['rate', '1gbit', 'speed', '5'], 'rate or speed'),
                 (['rate', '1gigabit'], 'unknown unit'))
        for args, msg in cases:
            try:
                t1.tool(['qp', 'set', 'dev', self.a, 'qpn', QA] + args)
            except t1.ToolError as e:
                check(msg in str(e), '%s: %s' % (args, e))
            else:
                raise rt.TestFailed('%s accepted' % args)
        check(int(t1.qp_show(self.a, QA)['speed']) == 4194303,
              'speed changed by a refused request')
        self.del_qps()
        for w in (5000, 2048, 131072):
            try:
                t1.tool(['dev', 'set', 'dev', self.a, 'cc_window', w])
            except t1.ToolError as e:
                check('cc_window' in str(e), 'cc_window %d: %s' % (w, e))
            else:
                raise rt.TestFailed('cc_window %d accepted' % w)

    def tx_pkts(self):
        """A's QA packets sent, None where A does not count them."""
        st = t1.qp_show(self.a, QA, stats=True)['stats']
        return int(st['tx_pkts']) if t1.counted(st, 'tx_pkts') else None

    def hw_tx(self):
        st = t1.qp_show(self.a, QA, stats=True)['stats']
        return int(st['tx_pkt_bytes']), int(st['cc_mask'])

    def test_windows_100(self):
        thr, size, nwin = 5120, 1000, 100
        if not self.bar.rfield('SHIM_CAP3', 'ip_counters'):
            raise rt.SkipTest('%s does not count the rate control\'s bytes '
                              '(tx_pkt_bytes, SHIM_CAP3.ip_counters 0): '
                              'this case measures them' % self.a)
        self.bar.write('SHIM_CC_TEST', 1)      # manual windows
        self.add_qps('speed', thr)
        sent = got = 0
        per_win = []

        def top_up():
            nonlocal sent
            while True:
                try:
                    ca.write(t1.pattern(QA, sent, size))
                except BlockingIOError:
                    return
                sent += 1

        def drain_b(timeout=0.0):
            nonlocal got
            while True:
                m = cb.recv(timeout)
                if m is None:
                    return
                check(m == t1.pattern(QA, got, size), 'message %d: %r'
                      % (got, m[:12]))
                got += 1
        with t1.Chan(self.a, QA, nonblock=True) as ca, \
                t1.Chan(self.b, QB, nonblock=True) as cb:
            top_up()
            self.step()
            deadline = time.monotonic() + 30
            while self.hw_tx()[1] != 1:
                check(time.monotonic() < deadline, 'the QP never masked')
                drain_b(0.05)
            b0 = self.hw_tx()[0]
            prev = b0
            for w in range(nwin):
                drain_b()
                top_up()
                self.step()
                deadline = time.monotonic() + 30
                while True:
                    now, mask = self.hw_tx()
                    if mask and now > prev:
                        break
                    check(time.monotonic() < deadline, 'window %d: nothing '
                          'sent, or the QP not masked again' % w)
                    time.sleep(0.01)
                per_win.append(now - prev)
                prev = now
            total = prev - b0
            self.ktap.diag('%d windows of %d bytes: %d bytes sent (%.3f %%), '
                           'per window %d..%d' % (
                               nwin, thr, total, 100.0 * total / (nwin * thr),
                               min(per_win), max(per_win)))
            check(max(per_win) <= thr + size + SEG, 'a window carried %d '
                  'bytes' % max(per_win))
            check(abs(total - nwin * thr) <= nwin * thr // 100, '%d bytes in '
                  '%d windows, want %d within 1 %%' % (total, nwin,
                                                      nwin * thr))
            # the virtual clock again, a backlog queued: it drains
            self.bar.write('SHIM_CC_TEST', 0)
            deadline = time.monotonic() + 60
            while got < sent:
                check(time.monotonic() < deadline, '%d of %d messages after '
                      'the switch to the virtual clock' % (got, sent))
                drain_b(0.2)
            ca.set_nonblock(False)
            ca.drain()
        self.del_qps()

    def test_paced(self):
        self.add_qps('rate', '50mbit')
        msgs = [t1.pattern(QA, k, 1000) for k in range(20)]
        with t1.Chan(self.a, QA) as ca, t1.Chan(self.b, QB) as cb:
            for m in msgs:
                check(ca.send(m) == len(m), 'short write')
            for k, m in enumerate(msgs):
                got = cb.recv(20)
                check(got == m, 'message %d of 20 at 50mbit: %r' % (
                    k, None if got is None else len(got)))
            ca.drain()
        acc, mask = self.cc()
        q = t1.qp_show(self.a, QA)
        self.ktap.diag('50mbit: speed %s, acc_cnt %d after 20 packets of '
                       '%d bytes' % (q['speed'], acc, 1000 + SEG))
        check(acc < 1000 + SEG + int(q['speed']), 'acc_cnt %d: more than one '
              'packet of debt' % acc)
        self.del_qps()


    def test_masked_aside(self):
        nx, ny, xsize, ysize = 12, 20, 65536, 4000
        self.bar.write('SHIM_CC_TEST', 1)      # manual: no window ends
        self.add_qps('rate', '1mbit')
        mb, ma = (t1.dev_show(d)['mac'] for d in (self.b, self.a))
        t1.tool(['qp', 'add', 'dev', self.a, 'qpn', QY, 'dqpn', QYB, 'dip',
                 IP_B, 'dmac', mb])
        self.added.append((self.a, QY))
        t1.tool(['qp', 'add', 'dev', self.b, 'qpn', QYB, 'dqpn', QY, 'dip',
                 IP_A, 'dmac', ma])
        self.added.append((self.b, QYB))
        with t1.Chan(self.a, QA) as cx, t1.Chan(self.b, QB) as cxb, \
                t1.Chan(self.a, QY) as cy, t1.Chan(self.b, QYB) as cyb:
            m0 = t1.pattern(QA, 1000, 100)
            check(cx.send(m0) == len(m0), 'short write')
            check(cxb.recv(10) == m0, 'QP %d: the first message did not '
                  'arrive' % QA)
            check(self.cc()[1] == 1, 'QP %d not masked after a message at '
                  '1mbit' % QA)
            x0 = self.tx_pkts()
            parked0 = self.bar.read('DMAQ_T1_CC_PARKED')
            xs = [t1.pattern(QA, k, xsize) for k in range(nx)]
            ys = [t1.pattern(QY, k, ysize) for k in range(ny)]
            for m in xs:
                check(cx.send(m) == len(m), 'short write')
            for m in ys:
                check(cy.send(m) == len(m), 'short write')
            for k, m in enumerate(ys):
                got = cyb.recv(20)
                check(got == m, 'QP %d message %d of %d beside the masked '
                      'QP %d: %r' % (QY, k, ny, QA,
                                     None if got is None else len(got)))
            cy.drain()
            xn = self.tx_pkts()
            parked = self.bar.read('DMAQ_T1_CC_PARKED') - parked0
            self.ktap.diag('QP %d: %d messages arrived; masked QP %d: %s '
                           'packets sent, %d messages set aside'
                           % (QY, ny, QA, None if xn is None else xn - x0,
                              parked))
            if xn is None:
                t1.not_counted(self.ktap, 'the masked QP sent no packet',
                               ['tx_pkts'])
            else:
                check(xn == x0, 'the masked QP %d sent %d packets'
                      % (QA, xn - x0))
            # (counted or not: none of its messages arrived)
            check(cxb.poll(select.POLLIN, 0) == 0, 'a message of the '
                  'masked QP %d arrived' % QA)
            check(parked == nx, '%d messages set aside, want %d'
                  % (parked, nx))
            # unmasked (CC_TYPE1_QP_EN_SET): QP 2's messages go, in order
            t1.tool(['qp', 'set', 'dev', self.a, 'qpn', QA, 'speed',
                     4194303])
            for k, m in enumerate(xs):
                got = cxb.recv(30)
                check(got == m, 'QP %d message %d of %d after the unmask: %r'
                      % (QA, k, nx, None if got is None else len(got)))
            cx.drain()
        self.bar.write('SHIM_CC_TEST', 0)
        self.del_qps()

    def test_flow_stop(self):
        for d in (self.a, self.b):
            with rt.Bar0(t1.bdf_of(d)) as bar:
                fs = bar.rfield('XON_THR_RDMA', 'flow_stop_en')
                rnr = bar.rfield('AFH_CFG_EN', 'type1_flow_stop_send_rnr_en')
            check((fs, rnr) == (0xf, 0xf), '%s: flow_stop_en 0x%x '
                  'type1_flow_stop_send_rnr_en 0x%x, want 0xf and 0xf'
                  % (d, fs, rnr))


def main():
    ktap = rt.Ktap()
    mod = rt.start(ktap)
    t = RateTest(ktap)
    rt.setup_or_skip(ktap, mod, t)
    rt.run_object(ktap, mod, t, (('worked_example', t.test_worked_example),
                   ('padded', t.test_padded),
                   ('rate_units', t.test_rate_units),
                   ('refused', t.test_refused), ('paced', t.test_paced),
                   ('windows_100', t.test_windows_100),
                   ('masked_aside', t.test_masked_aside),
                   ('flow_stop', t.test_flow_stop)), 't1_rate')


if __name__ == '__main__':
    main()
