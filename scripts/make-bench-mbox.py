#!/usr/bin/python3
"""Writes an mbox file of about SIZE bytes made from the MIME corpus (Tests/Fixtures/mime), for
the import bench: the corpus's messages in turn, each copy made unique by a Received line of its
own on top, written as mboxrd (a body's `From ` lines quoted).

Usage: scripts/make-bench-mbox.py OUT [SIZE]   (SIZE in bytes, default 1,000,000,000)
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "Tests", "Fixtures", "mime")
QUOTE = re.compile(rb"^(>*From )", re.MULTILINE)


def main():
    out = sys.argv[1]
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000_000
    corpus = []
    for name in sorted(os.listdir(CORPUS)):
        with open(os.path.join(CORPUS, name), "rb") as file:
            data = file.read()
        if not data.endswith(b"\n"):
            data += b"\n"
        corpus.append(QUOTE.sub(rb">\1", data))
    written = 0
    copy = 0
    with open(out, "wb") as file:
        while written < size:
            for data in corpus:
                copy += 1
                entry = (b"From bench@mailroom.test Tue Dec  1 09:30:00 2026\n"
                         + b"Received: from bench (copy %d) by mailroom.test; Tue, 1 Dec 2026 09:30:00 +0000\n" % copy
                         + data + b"\n")
                file.write(entry)
                written += len(entry)
    print(f"{out}: {copy:,} messages, {written:,} bytes")


if __name__ == "__main__":
    main()
