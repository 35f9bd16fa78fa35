#!/usr/bin/env python3
"""Checks the code signature of every arm64 slice of a (universal) Mach-O file without Apple's
tools: finds LC_CODE_SIGNATURE, reads the CodeDirectory of the embedded signature, and
recomputes the hash of every page it covers. Apple silicon refuses to load an arm64 slice
whose signature does not match its bytes, so this is what `codesign --verify` would check
first for an ad-hoc signature (no certificate to check). Used by `cargo xtask test`.

usage: macho_signature.py FILE   (prints one line per slice; exit 1 on a mismatch)
"""
import hashlib
import struct
import sys

FAT_MAGIC = 0xCAFEBABE
MH_MAGIC_64 = 0xFEEDFACF
CPU_TYPE_ARM64 = 0x0100000C
LC_CODE_SIGNATURE = 0x1D
CSMAGIC_EMBEDDED_SIGNATURE = 0xFADE0CC0
CSMAGIC_CODEDIRECTORY = 0xFADE0C02
HASHES = {1: ("sha1", 20), 2: ("sha256", 32)}


def slices(data):
    (magic,) = struct.unpack_from(">I", data, 0)
    if magic != FAT_MAGIC:
        return [(struct.unpack_from("<I", data, 4)[0], 0, len(data))]
    (count,) = struct.unpack_from(">I", data, 4)
    found = []
    for i in range(count):
        cputype, _, offset, size, _ = struct.unpack_from(">iiIII", data, 8 + 20 * i)
        found.append((cputype & 0xFFFFFFFF, offset, size))
    return found


def check_slice(data):
    magic, _, _, _, ncmds, _, _, _ = struct.unpack_from("<IiiIIIII", data, 0)
    if magic != MH_MAGIC_64:
        return "not a 64-bit Mach-O"
    at = 32
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, at)
        if cmd == LC_CODE_SIGNATURE:
            dataoff, datasize = struct.unpack_from("<II", data, at + 8)
            return check_signature(data, dataoff, datasize)
        at += cmdsize
    return "no LC_CODE_SIGNATURE"


def check_signature(data, dataoff, datasize):
    blob = data[dataoff:dataoff + datasize]
    magic, _, count = struct.unpack_from(">III", blob, 0)
    if magic != CSMAGIC_EMBEDDED_SIGNATURE:
        return "not an embedded signature"
    for i in range(count):
        _, offset = struct.unpack_from(">II", blob, 12 + 8 * i)
        (sub_magic,) = struct.unpack_from(">I", blob, offset)
        if sub_magic != CSMAGIC_CODEDIRECTORY:
            continue
        cd = blob[offset:]
        (_, _, _, _, hash_offset, _, _, n_code_slots, code_limit, hash_size, hash_type, _, page_shift) = struct.unpack_from(">IIIIIIIIIBBBB", cd, 0)
        name, size = HASHES.get(hash_type, (None, None))
        if name is None or size != hash_size:
            return "unknown hash type %d" % hash_type
        page = 1 << page_shift
        for slot in range(n_code_slots):
            start = slot * page
            chunk = data[start:min(start + page, code_limit)]
            expected = cd[hash_offset + slot * hash_size:hash_offset + (slot + 1) * hash_size]
            if hashlib.new(name, chunk).digest() != expected:
                return "page %d does not match its hash" % slot
        return "ok: %d pages of %d bytes, %s, code limit %d" % (n_code_slots, page, name, code_limit)
    return "no CodeDirectory"


def main():
    data = open(sys.argv[1], "rb").read()
    bad = False
    for cputype, offset, size in slices(data):
        if cputype != CPU_TYPE_ARM64:
            print("slice cputype 0x%x: not arm64, no signature required" % cputype)
            continue
        result = check_slice(data[offset:offset + size])
        print("arm64 slice: " + result)
        bad |= not result.startswith("ok")
    sys.exit(1 if bad else 0)


main()
