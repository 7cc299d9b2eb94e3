#!/usr/bin/env python3
"""Writes the demo model's textures (examples/tentacle_skin0.png, examples/tentacle_skin1.tga).

Procedural pictures made here, so the repository owns them: rings along the tentacle (v) and a
stripe around it (u). Skin 1 is a TGA on purpose, so that `make demo` shows the conversion to PNG
that glTF needs. Python's standard library only (zlib, struct).
"""
import math
import os
import struct
import zlib

SIZE = 64


def colour(u, v, base, ring):
    rings = 0.5 + 0.5 * math.cos(v * 2 * math.pi * 6)
    stripe = 1.0 if abs(u - 0.5) < 0.08 else 0.0
    out = []
    for c in range(3):
        x = base[c] * (0.6 + 0.4 * rings) + ring[c] * stripe
        out.append(max(0, min(255, int(round(x)))))
    return out


def pixels(base, ring):
    rows = []
    for y in range(SIZE):
        row = []
        for x in range(SIZE):
            row.append(colour((x + 0.5) / SIZE, (y + 0.5) / SIZE, base, ring))
        rows.append(row)
    return rows


def write_png(path, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(c for p in row for c in p) for row in rows)
    ihdr = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 2, 0, 0, 0)  # 8-bit RGB
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def write_tga(path, rows):
    header = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, SIZE, SIZE, 24, 0x20)  # top-left origin
    body = b"".join(bytes((p[2], p[1], p[0])) for row in rows for p in row)  # BGR
    with open(path, "wb") as f:
        f.write(header + body)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    write_png(os.path.join(here, "tentacle_skin0.png"), pixels((90, 170, 80), (200, 60, 140)))
    write_tga(os.path.join(here, "tentacle_skin1.tga"), pixels((150, 90, 180), (240, 200, 60)))
