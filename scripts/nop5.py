#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Give every function of an x86-64 ELF binary built with
-fpatchable-function-entry=5 one 5-byte nop at its entry.

make does not build perf so (see PERF_CFLAGS in the Makefile: a nop at a
function's entry hides the probe's caller from the kernel's callchain);
this is for measuring what the optimized uprobes would give.

gcc pads each function's entry with five 1-byte nops (0x90) there. A
kernel with optimized uprobes (6.18) runs a uprobe placed on x86's
5-byte nop, nopl 0x0(%rax,%rax,1), as a call of a trampoline after its
first hit: about 1 us against 16 us for the int3 and the single step of
any other instruction. The rewrite turns the five nops into that one
nop, in place: the code does the same, a cycle or two faster.

Usage: nop5.py [--undo] BINARY   (prints how many entries it rewrote;
idempotent). --undo makes the 5-byte nops five 1-byte ones again: the same
perf, whose probes trap (make bench compares the two).
"""
import os
import struct
import sys

NOPS = b"\x90" * 5
NOP5 = b"\x0f\x1f\x44\x00\x00"
STT_FUNC = 2
PT_LOAD = 1
SHT_SYMTAB = 2


def fail(msg):
    print(f"nop5: {msg}", file=sys.stderr)
    sys.exit(1)


def sections(elf):
    """(type, offset, size, link, entsize) of each section header."""
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3a)
    for i in range(shnum):
        sh = struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize)
        yield sh[1], sh[4], sh[5], sh[6], sh[9]


def loads(elf):
    """(vaddr, offset, filesz) of each PT_LOAD segment."""
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        ptype, _, off, vaddr, _, filesz = struct.unpack_from(
            "<IIQQQQ", elf, phoff + i * phentsize)
        if ptype == PT_LOAD:
            yield vaddr, off, filesz


def entries(elf):
    """The file offsets of the functions' entries, from .symtab."""
    segs = list(loads(elf))
    for stype, off, size, _, entsize in sections(elf):
        if stype != SHT_SYMTAB or entsize != 24:
            continue
        for pos in range(off, off + size, entsize):
            _, info, _, shndx, value, symsize = struct.unpack_from(
                "<IBBHQQ", elf, pos)
            if info & 0xf != STT_FUNC or not shndx or symsize < len(NOP5):
                continue
            for vaddr, foff, filesz in segs:
                if vaddr <= value < vaddr + filesz:
                    yield value - vaddr + foff
                    break


def main():
    args = sys.argv[1:]
    undo = args[:1] == ["--undo"]
    if undo:
        args = args[1:]
    if len(args) != 1:
        fail("usage: nop5.py [--undo] BINARY")
    old, new = (NOP5, NOPS) if undo else (NOPS, NOP5)
    path = args[0]
    with open(path, "rb") as f:
        elf = bytearray(f.read())
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1 or \
       struct.unpack_from("<H", elf, 0x12)[0] != 62:
        fail(f"{path} is no little-endian x86-64 ELF binary")
    done = 0
    for off in sorted(set(entries(elf))):
        if elf[off:off + 5] == old:
            elf[off:off + 5] = new
            done += 1
    if done:
        # a new file in its place: the binary may be running (ETXTBSY)
        tmp = f"{path}.nop5.{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(elf)
        os.chmod(tmp, os.stat(path).st_mode)
        os.replace(tmp, path)
    what = "five 1-byte nops" if undo else "a 5-byte nop"
    print(f"nop5: {done} function entries of {path} now hold {what}")


if __name__ == "__main__":
    main()
