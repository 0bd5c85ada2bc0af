#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rclink(8) against the tool's own usage text (KTAP).

The usage text is read from usage() in tools/rclink/rclink.c (its string
literals), the man page from tools/rclink/rclink.8.  Checked:

 1. every command line of the usage text is in the man page's SYNOPSIS
    with the same words in the same order (brackets, braces and bars
    aside, options before the object aside), and the other way round;
 2. every OBJECT COMMAND of the usage text has a paragraph in OBJECTS
    (".SS object" and the command in bold in it);
 3. every option of the usage text (short and long) is in OPTIONS, and
    every option documented there is in the usage text.

usage: rclink_man_check.py [TOOL_SOURCE MAN_PAGE]
"""

import os
import re
import sys

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def usage_text(src):
    body = re.search(r'static void usage\(FILE \*f\)\s*\{(.*?)\n\}', src,
                     re.S).group(1)
    lits = re.findall(r'"((?:[^"\\]|\\.)*)"', body)
    return ''.join(lits).replace('\\n', '\n').replace('\\"', '"')


def roff_line(line):
    """A roff macro line as plain text."""
    m = re.match(r'\.(B|I|BR|RB|IR|RI|BI|IB)\s+(.*)$', line)
    if m:
        args = re.findall(r'"[^"]*"|\S+', m.group(2))
        args = [a.strip('"') for a in args]
        text = (' '.join(args) if m.group(1) in ('B', 'I')
                else ''.join(args))
    elif line.startswith('.'):
        return None
    else:
        text = line
    text = re.sub(r'\\f[BIRP]', '', text)
    return text.replace('\\-', '-').replace('\\(em', '-')


def sections(man):
    """{'SYNOPSIS': [lines], ...}; .SS subsections as 'OBJECTS/dev'."""
    out, cur, sub = {}, None, None
    for line in man.splitlines():
        m = re.match(r'\.SH\s+"?([^"]*)"?', line)
        if m:
            cur, sub = m.group(1).strip(), None
            out.setdefault(cur, [])
            continue
        m = re.match(r'\.SS\s+"?([^"]*)"?', line)
        if m and cur:
            sub = '%s/%s' % (cur, m.group(1).strip())
            out.setdefault(sub, [])
            continue
        for key in (cur, sub):
            if key:
                out[key].append(line)
    return out


def words(cmd):
    """The words of a command line: no brackets, bars, options."""
    toks = re.split(r'[\s\[\]{}|]+', cmd)
    return tuple(t for t in toks if t and not t.startswith('-'))


def synopsis_commands(lines):
    cmds, cur = [], []
    for line in lines + ['.br']:
        if line.strip() == '.br':
            if cur:
                cmds.append(' '.join(cur))
            cur = []
            continue
        text = roff_line(line)
        if text is not None:
            cur.append(text)
    return cmds


def main(argv):
    src_path = argv[1] if len(argv) > 2 else os.path.join(
        TOP, 'tools/rclink/rclink.c')
    man_path = argv[2] if len(argv) > 2 else os.path.join(
        TOP, 'tools/rclink/rclink.8')
    with open(src_path, encoding='utf-8') as f:
        usage = usage_text(f.read())
    with open(man_path, encoding='utf-8') as f:
        man = f.read()
    secs = sections(man)

    u_cmds, u_opts, in_opts = [], set(), False
    for line in usage.splitlines():
        line = re.sub(r'^Usage:', '', line).strip()
        if line.startswith('Options:'):
            in_opts = True
        if in_opts:
            u_opts |= set(re.findall(r'(?<![\w-])(-[a-zA-Z]|--[a-z-]+)',
                                     line))
            continue
        if line.startswith('rclink'):
            u_cmds.append(line)
            u_opts |= set(re.findall(r'(?<![\w-])(-[a-zA-Z]|--[a-z-]+)',
                                     line))
        elif u_cmds and line:
            u_cmds[-1] += ' ' + line      # a continued command line
    u_words = [words(c) for c in u_cmds if 'OBJECT' not in c]

    m_cmds = synopsis_commands(secs.get('SYNOPSIS', []))
    m_words = [words(c) for c in m_cmds]

    print('TAP version 13')
    print('1..3')
    errs = []
    for w in u_words:
        if w not in m_words:
            errs.append('usage line not in the SYNOPSIS: %s' % ' '.join(w))
    for w in m_words:
        if w not in u_words:
            errs.append('SYNOPSIS line not in the usage: %s' % ' '.join(w))
    result(1, 'synopsis_matches_usage', errs)

    errs = []
    for w in u_words:
        if len(w) < 3 or w[1] in ('help',):
            continue
        obj, cmd = w[1], w[2]
        body = secs.get('OBJECTS/%s' % obj)
        if body is None:
            errs.append('no .SS %s in OBJECTS' % obj)
            continue
        if obj == cmd or cmd.isupper():
            continue
        if not any(re.match(r'\.B\s+%s\b' % re.escape(cmd), ln) or
                   re.match(r'\.BR\s+%s\b' % re.escape(cmd), ln)
                   for ln in body):
            errs.append('OBJECTS/%s does not describe "%s"' % (obj, cmd))
    result(2, 'commands_described', errs)

    errs = []
    m_opts = set()
    for line in secs.get('OPTIONS', []):
        if line.startswith('.BR') or line.startswith('.B '):
            text = roff_line(line) or ''
            m_opts |= set(re.findall(r'(?<![\w-])(-[a-zA-Z]|--[a-z-]+)',
                                     text))
    for o in sorted(u_opts - m_opts):
        errs.append('option %s not in OPTIONS' % o)
    for o in sorted(m_opts - u_opts):
        errs.append('OPTIONS documents %s, the usage text does not' % o)
    result(3, 'options_documented', errs)
    return 1 if FAILED else 0


FAILED = []


def result(n, name, errs):
    for e in errs:
        print('# %s' % e)
    if errs:
        FAILED.append(name)
    print('%sok %d %s' % ('not ' if errs else '', n, name))


if __name__ == '__main__':
    sys.exit(main(sys.argv))
