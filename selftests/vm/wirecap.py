#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The wire capture of the QEMU board pair, kept small.

QEMU's filter-dump writes every frame of the wire into a pcap file; over a
whole run of the suite that is tens of gigabytes (TCP and TYPE1 bulk tests),
most of it never read.  boards.sh points filter-dump at a FIFO instead and
starts this relay on it:

    wirecap.py FIFO PCAP

It copies the pcap header and then, frame by frame, only the frames that
arrive while the file PCAP.capture exists (a test that reads the wire
creates it through rclinktest.wire_pcap() or rcl_wire_pcap; run_all.sh
removes it after every test).  The file only grows, so the readers' "frames
after this size" stays true.  Each record is written as it arrives.  At
the end (QEMU closing the FIFO) one line is printed:

    wirecap: N frames (B bytes) written, M frames (C bytes) not captured

Nothing arriving on the FIFO within --wait seconds (QEMU did not start)
ends the relay with exit status 1.
"""

import argparse
import fcntl
import os
import struct
import sys
import time

GLOBAL_HDR = 24
REC_HDR = 16


def read_exact(fd, n, buf):
    """Append to buf until it holds n bytes; False at end of stream."""
    while len(buf) < n:
        chunk = os.read(fd, max(65536, n - len(buf)))
        if not chunk:
            return False
        buf += chunk
    return True


def open_writer_side(fifo, wait):
    """Open FIFO for reading and return once its writer sent data (the
    pcap header QEMU writes when it opens the file), in blocking mode."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:    # room for bursts: QEMU's writes block while the pipe is full
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    end = time.monotonic() + wait
    first = b''
    while not first:
        try:
            first = os.read(fd, GLOBAL_HDR)
        except BlockingIOError:
            first = b''     # a writer, nothing written yet
        if not first:
            if time.monotonic() > end:
                os.close(fd)
                return None, b''
            time.sleep(0.05)
    fl = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, fl & ~os.O_NONBLOCK)
    return fd, first


def relay(fd, first, out_path):
    """Copy the stream on fd to out_path under the capture switch;
    returns (written, written_bytes, dropped, dropped_bytes)."""
    switch = out_path + '.capture'
    buf = bytearray(first)
    out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    stats = [0, 0, 0, 0]
    try:
        if not read_exact(fd, GLOBAL_HDR, buf):
            return stats
        magic = bytes(buf[:4])
        if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
            endian = '<'
        elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
            endian = '>'
        else:
            raise ValueError('not a pcap stream (magic %s)' % magic.hex())
        os.write(out, bytes(buf[:GLOBAL_HDR]))
        del buf[:GLOBAL_HDR]
        rec = struct.Struct(endian + 'IIII')
        while True:
            if not read_exact(fd, REC_HDR, buf):
                break
            caplen = rec.unpack_from(buf)[2]
            if not read_exact(fd, REC_HDR + caplen, buf):
                break
            n = REC_HDR + caplen
            if os.path.exists(switch):
                os.write(out, bytes(buf[:n]))
                stats[0] += 1
                stats[1] += n
            else:
                stats[2] += 1
                stats[3] += n
            del buf[:n]
    finally:
        os.close(out)
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('fifo')
    ap.add_argument('pcap')
    ap.add_argument('--wait', type=float, default=3600.0,
                    help='seconds to wait for the writer (default 3600)')
    a = ap.parse_args()
    fd, first = open_writer_side(a.fifo, a.wait)
    if fd is None:
        print('wirecap: nothing arrived on %s in %.0f s' % (a.fifo, a.wait),
              file=sys.stderr)
        return 1
    try:
        st = relay(fd, first, a.pcap)
    finally:
        os.close(fd)
    print('wirecap: %d frames (%d bytes) written, %d frames (%d bytes) '
          'not captured' % tuple(st))
    return 0


if __name__ == '__main__':
    sys.exit(main())
