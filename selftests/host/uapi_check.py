#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The user API's own rules (KTAP).

 1. ioctl_magic_free: RCLINK_DEV_IOC_MAGIC of uapi/linux/rclink_dev.h has no
    entry in the kernel's Documentation/userspace-api/ioctl/ioctl-number.rst
    (read from the linux-source tarball; skipped without one);
 2. ioctl_structs_grow: every ioctl of the char device that takes an
    argument takes a struct that begins with __u32 size and __u32 flags,
    has an RCLINK_<NAME>_SIZE_VER0 no larger than itself, and is encoded
    with the magic and its own size (checked by the compiler: offsetof,
    sizeof, _IOC_TYPE, _IOC_SIZE);
 3. uapi_ascii: the uAPI headers (uapi/linux/*.h, the generated netlink
    header included) and tools/lib/*.h are ASCII: English only, the
    references to source documents stay in Documentation/;
 4. tool_ascii: what the tools print (every string literal of
    tools/rclink/*.c) is ASCII;
 5. tool_doc_ascii: so are rclink(8) and the bash completion.

Environment: RCLINK_CACHE (default ~/.cache/rclink), RCLINK_LINUX_SOURCE
(default the newest /usr/src/linux-source-*.tar.xz), as tools/net/gen-nl.sh.

usage: uapi_check.py
"""

import glob
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
HDR = os.path.join(TOP, 'uapi', 'linux', 'rclink_dev.h')
NUMBERS = 'Documentation/userspace-api/ioctl/ioctl-number.rst'


def ioctl_numbers():
    """The text of ioctl-number.rst, or None when no source is at hand."""
    cache = os.environ.get('RCLINK_CACHE',
                           os.path.expanduser('~/.cache/rclink'))
    tools = os.path.join(cache, 'linux-tools')
    path = os.path.join(tools, NUMBERS)
    if not os.path.isfile(path):
        src = os.environ.get('RCLINK_LINUX_SOURCE')
        if not src:
            found = glob.glob('/usr/src/linux-source-*.tar.xz')
            found.sort(key=lambda p: [int(x) for x in
                                      re.findall(r'\d+', p)])
            src = found[-1] if found else None
        if not src or not os.path.isfile(src):
            return None
        os.makedirs(tools, exist_ok=True)
        subprocess.run(['tar', '-xJf', src, '-C', tools,
                        '--strip-components=1', '--wildcards',
                        '*/' + NUMBERS], check=True)
    with open(path, encoding='utf-8') as f:
        return f.read()


def header_magic(text):
    m = re.search(r"#define\s+RCLINK_DEV_IOC_MAGIC\s+"
                  r"(?:'(.)'|(0x[0-9a-fA-F]+))", text)
    if not m:
        return None
    return ord(m.group(1)) if m.group(1) else int(m.group(2), 16)


def table_codes(rst):
    """{code: [table lines]} of the registry's table."""
    codes = {}
    for line in rst.splitlines():
        m = re.match(r"^(?:'(.)'|0x([0-9A-Fa-f]{2}))\s", line)
        if m:
            code = ord(m.group(1)) if m.group(1) else int(m.group(2), 16)
            codes.setdefault(code, []).append(line.rstrip())
    return codes


def check_magic():
    with open(HDR, encoding='utf-8') as f:
        magic = header_magic(f.read())
    if magic is None:
        return False, ['no RCLINK_DEV_IOC_MAGIC in rclink_dev.h']
    rst = ioctl_numbers()
    if rst is None:
        return None, ['no linux-source tarball: install linux-source-6.12']
    codes = table_codes(rst)
    if len(codes) < 100:
        return False, ['ioctl-number.rst: only %d codes parsed' % len(codes)]
    if magic in codes:
        return False, ['magic %#04x (%r) is taken: %s' % (magic, chr(magic),
                                                          line)
                       for line in codes[magic]]
    return True, ['magic %#04x (%r): no entry' % (magic, chr(magic))]


def ioctls(text):
    """[(name, dir, type)] of the RCLINK_IOC_* definitions."""
    out = []
    for m in re.finditer(r'#define\s+(RCLINK_IOC_\w+)\s+(_IO[RW]*)\('
                         r'RCLINK_DEV_IOC_MAGIC,\s*\\?\s*(\d+)'
                         r'(?:,\s*\\?\s*([^)]+))?\)', text):
        out.append((m.group(1), m.group(2),
                    ' '.join(m.group(4).split()) if m.group(4) else None))
    return out


def check_structs():
    with open(HDR, encoding='utf-8') as f:
        text = f.read()
    found = ioctls(text)
    msgs = ['%d ioctls' % len(found)]
    if len(found) < 7:
        return False, msgs + ['fewer ioctls than BIND..RING_ENTER parsed']
    ok = True
    asserts = []
    for name, kind, typ in found:
        if kind == '_IO':
            continue
        m = re.fullmatch(r'struct (rclink_\w+)', typ or '')
        if not m:
            ok = False
            msgs.append('%s takes %s, not a struct with a size' % (name, typ))
            continue
        sname = m.group(1)
        ver0 = 'RCLINK_%s_SIZE_VER0' % sname[len('rclink_'):].upper()
        body = re.search(r'struct %s \{(.*?)\n\};' % sname, text, re.S)
        members = re.findall(r'^\s*(__[us]\d+)\s+(\w+)', body.group(1),
                             re.M) if body else []
        if members[:2] != [('__u32', 'size'), ('__u32', 'flags')]:
            ok = False
            msgs.append('struct %s does not begin with __u32 size, __u32 '
                        'flags: %s' % (sname, members[:2]))
            continue
        if ver0 not in text:
            ok = False
            msgs.append('%s: no %s' % (name, ver0))
            continue
        t = 'struct %s' % sname
        asserts += [
            '_Static_assert(offsetof(%s, size) == 0, "%s");' % (t, name),
            '_Static_assert(offsetof(%s, flags) == 4, "%s");' % (t, name),
            '_Static_assert(%s >= 8 && %s <= sizeof(%s), "%s");'
            % (ver0, ver0, t, name),
            '_Static_assert(_IOC_SIZE(%s) == sizeof(%s), "%s");'
            % (name, t, name),
            '_Static_assert(_IOC_TYPE(%s) == RCLINK_DEV_IOC_MAGIC, "%s");'
            % (name, name),
        ]
    if not asserts:
        return False, msgs
    src = ('#include <stddef.h>\n#include <linux/rclink_dev.h>\n' +
           '\n'.join(asserts) + '\nint main(void) { return 0; }\n')
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, 'uapi_structs.c')
        with open(c, 'w', encoding='ascii') as f:
            f.write(src)
        r = subprocess.run(['gcc', '-Wall', '-Werror', '-fsyntax-only',
                            '-I', os.path.join(TOP, 'uapi'), c],
                           capture_output=True, text=True, check=False)
        if r.returncode:
            ok = False
            msgs += r.stderr.splitlines()
    return ok, msgs


def non_ascii(path, literals_only=False):
    """['path:line: text'] of the lines with a non-ASCII character."""
    bad = []
    with open(path, encoding='utf-8', errors='replace') as f:
        for no, line in enumerate(f, 1):
            if literals_only:
                hit = any(re.search(r'[^\x00-\x7f]', lit) for lit in
                          re.findall(r'"((?:[^"\\]|\\.)*)"', line))
            else:
                hit = re.search(r'[^\x00-\x7f]', line)
            if hit:
                bad.append('%s:%d: %s' % (os.path.relpath(path, TOP), no,
                                          line.strip()))
    return bad


def check_ascii(files, literals_only=False):
    if not files:
        return False, ['no files']
    bad = []
    for path in files:
        bad += non_ascii(path, literals_only)
    return not bad, bad or ['%d files ASCII' % len(files)]


def main():
    tests = [
        ('ioctl_magic_free', check_magic),
        ('ioctl_structs_grow', check_structs),
        ('uapi_ascii', lambda: check_ascii(
            sorted(glob.glob(os.path.join(TOP, 'uapi', 'linux', '*.h')) +
                   glob.glob(os.path.join(TOP, 'tools', 'lib', '*.h'))))),
        ('tool_ascii', lambda: check_ascii(
            sorted(glob.glob(os.path.join(TOP, 'tools', 'rclink', '*.c'))),
            literals_only=True)),
        ('tool_doc_ascii', lambda: check_ascii(
            [os.path.join(TOP, 'tools', 'rclink', n)
             for n in ('rclink.8', 'rclink.bash-completion')])),
    ]
    print('TAP version 13')
    print('1..%d' % len(tests))
    failed = 0
    for i, (name, fn) in enumerate(tests, 1):
        ok, msgs = fn()
        for msg in msgs:
            print('# %s' % msg)
        if ok is None:
            print('ok %d %s # SKIP' % (i, name))
        elif ok:
            print('ok %d %s' % (i, name))
        else:
            failed += 1
            print('not ok %d %s' % (i, name))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
