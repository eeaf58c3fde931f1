#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Damage a perf.data file the way disks, crashes and bugs do.

refcnt_mutate.py IN OUT SEED prints what it did, one line:
  truncate OFFSET            the file cut at OFFSET
  header-flip OFFSET BIT     a bit flipped in the file header or attrs
  event-header-flip N OFFSET BIT   in the header of the data section's event N
  payload-flip N OFFSET BIT  in the body of event N (after its header)
  swap N M                   events N and M exchanged (same size: the
                             stream stays walkable, the order does not)
  scan-flip OFFSET BIT       a bit flipped in perf refcnt's scan at exit (the
                             last feature section), or
  scan-set OFFSET VALUE      a 32-bit field of it set to an extreme value
The data section is walked by perf_event_header.size, so the damage lands
where it is said to.
"""
import random
import struct
import sys


def events(data, start, end):
    """(offset, size) of each event of the data section."""
    out = []
    off = start
    while off + 8 <= end:
        size = struct.unpack_from("<H", data, off + 6)[0]
        if size < 8 or off + size > end:
            break
        out.append((off, size))
        off += size
    return out


HEADER_FEAT_BITS = 256
FEATURES_OFF = 72       # adds_features in struct perf_file_header


def scan_section(data, data_off, data_size):
    """(offset, size) of the scan at exit: the last feature bit's section."""
    bits = int.from_bytes(data[FEATURES_OFF:FEATURES_OFF + HEADER_FEAT_BITS // 8], "little")
    if not bits >> (HEADER_FEAT_BITS - 1):
        return None
    table = data_off + data_size + (bin(bits).count("1") - 1) * 16
    if table + 16 > len(data):
        return None
    off, size = struct.unpack_from("<QQ", data, table)
    if size < 4 or off + size > len(data):
        return None
    return off, size


def damage_scan(data, rnd, sec):
    """Flip a bit of the scan section, or set one of its fields to an extreme."""
    off, size = sec
    if rnd.randrange(2):
        pos = off + rnd.randrange(size)
        bit = rnd.randrange(8)
        data[pos] ^= 1 << bit
        return "scan-flip %d %d" % (pos, bit)
    pos = off + 4 * rnd.randrange(size // 4)
    value = rnd.choice([0xffffffff, 0x7fffffff, 0x80000000, 0x3fffffff, 0, 1])
    struct.pack_into("<I", data, pos, value)
    return "scan-set %d %#x" % (pos, value)


def main():
    src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rnd = random.Random(seed)
    data = bytearray(open(src, "rb").read())
    # struct perf_file_header: magic, size, attr_size, attrs, data, event_types
    hdr_size = struct.unpack_from("<Q", data, 8)[0]
    attrs_off, attrs_size = struct.unpack_from("<QQ", data, 24)
    data_off, data_size = struct.unpack_from("<QQ", data, 40)
    evs = events(data, data_off, data_off + data_size)
    kinds = ["truncate", "header-flip", "event-header-flip", "payload-flip", "swap", "scan"]
    kind = kinds[seed % len(kinds)]

    scan = scan_section(data, data_off, data_size)
    if kind == "scan" and not scan:
        kind = "payload-flip"   # a recording without a scan at exit

    if kind == "scan":
        what = damage_scan(data, rnd, scan)
    elif kind == "truncate":
        cut = rnd.randrange(len(data))
        data = data[:cut]
        what = "truncate %d" % cut
    elif kind == "header-flip":
        # the file header, or the attrs it points to
        span = list(range(hdr_size)) + list(range(attrs_off, attrs_off + attrs_size))
        off = rnd.choice(span)
        bit = rnd.randrange(8)
        data[off] ^= 1 << bit
        what = "header-flip %d %d" % (off, bit)
    elif kind == "event-header-flip":
        n = rnd.randrange(len(evs))
        off = evs[n][0] + rnd.randrange(8)
        bit = rnd.randrange(8)
        data[off] ^= 1 << bit
        what = "event-header-flip %d %d %d" % (n, off, bit)
    elif kind == "payload-flip":
        n = rnd.choice([i for i, e in enumerate(evs) if e[1] > 8])
        off = evs[n][0] + 8 + rnd.randrange(evs[n][1] - 8)
        bit = rnd.randrange(8)
        data[off] ^= 1 << bit
        what = "payload-flip %d %d %d" % (n, off, bit)
    else:
        sizes = {}
        for i, (_, size) in enumerate(evs):
            sizes.setdefault(size, []).append(i)
        same = [v for v in sizes.values() if len(v) > 1]
        n, m = rnd.sample(rnd.choice(same), 2)
        (a, size), (b, _) = evs[n], evs[m]
        data[a:a + size], data[b:b + size] = data[b:b + size], data[a:a + size]
        what = "swap %d %d" % (n, m)

    open(dst, "wb").write(data)
    print(what)


if __name__ == "__main__":
    main()
