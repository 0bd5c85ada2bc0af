#!/usr/bin/python3
"""Extract the uncompressed vmlinux ELF from an x86 bzImage, for PVH boot.

usage: extract-vmlinux.py BZIMAGE OUT

Under TCG the guest's own decompressor is slow for xz (Debian 6.1 kernels:
~3 s per boot); QEMU boots an uncompressed vmlinux with a PVH entry note
directly (qboot and SeaBIOS both handle it).  Only xz and gzip payloads are
extracted (zstd decompresses fast enough in the guest, and needs no
non-stdlib module this way).  Exit status: 0 written, 2 not applicable
(other compression, no PVH note), 1 error.
"""
import lzma
import os
import struct
import sys
import zlib

XEN_ELFNOTE_PHYS32_ENTRY = 18


def has_pvh_note(elf):
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if p_type != 4:  # PT_NOTE
            continue
        pos, end = p_offset, p_offset + p_filesz
        while pos + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, pos)
            name = elf[pos + 12:pos + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == XEN_ELFNOTE_PHYS32_ENTRY:
                return True
            pos += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def decompress(img):
    # The payload follows the setup code; take the first magic that decodes.
    for magic, fn in ((b"\xfd7zXZ\x00", lambda d: lzma.LZMADecompressor(
            format=lzma.FORMAT_XZ).decompress(d)),
                      (b"\x1f\x8b\x08", lambda d: zlib.decompressobj(
                          16 + zlib.MAX_WBITS).decompress(d))):
        start = 0
        while True:
            i = img.find(magic, start)
            if i < 0:
                break
            try:
                out = fn(img[i:])
            except (lzma.LZMAError, zlib.error):
                out = b""
            if out[:4] == b"\x7fELF":
                return out
            start = i + 1
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    src, dst = sys.argv[1:]
    with open(src, "rb") as f:
        img = f.read()
    elf = decompress(img)
    if elf is None or not has_pvh_note(elf):
        return 2
    tmp = "%s.tmp.%d" % (dst, os.getpid())
    with open(tmp, "wb") as f:
        f.write(elf)
    os.replace(tmp, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
