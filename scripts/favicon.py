#!/usr/bin/python3
# Usage: scripts/favicon.py > Public/favicon.ico
# Draws Mailroom's icon (a white envelope on a blue rounded square) as 16, 32 and 48 px PNGs
# inside one .ico file; no imaging library needed.
import struct, zlib, sys

def draw(n):
    blue = (0x00, 0x62, 0xcc, 255)
    white = (255, 255, 255, 255)
    clear = (0, 0, 0, 0)
    r = n * 0.2
    px = []
    for y in range(n):
        row = []
        for x in range(n):
            cx, cy = x + 0.5, y + 0.5
            # rounded square
            dx = max(r - cx, 0, cx - (n - r)); dy = max(r - cy, 0, cy - (n - r))
            inside = dx * dx + dy * dy <= r * r
            c = blue if inside else clear
            # envelope body
            left, right, top, bottom = n * 0.2, n * 0.8, n * 0.3, n * 0.7
            if inside and left <= cx <= right and top <= cy <= bottom:
                c = white
                # the flap: a V from the top corners to the middle
                t = (cx - left) / (right - left)
                vy = top + (bottom - top) * 0.55 * (1 - abs(2 * t - 1))
                if abs(cy - vy) < max(n / 24, 0.75):
                    c = blue
            row.append(c)
        px.append(row)
    return px

def png(n):
    px = draw(n)
    raw = b"".join(b"\0" + bytes(v for p in row for v in p) for row in px)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))

sizes = [16, 32, 48]
images = [png(n) for n in sizes]
header = struct.pack("<HHH", 0, 1, len(images))
offset = 6 + 16 * len(images)
entries = b""
for n, data in zip(sizes, images):
    entries += struct.pack("<BBBBHHII", n, n, 0, 0, 1, 32, len(data), offset)
    offset += len(data)
sys.stdout.buffer.write(header + entries + b"".join(images))
