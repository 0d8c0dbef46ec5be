#!/usr/bin/python3
"""Writes the MIME corpus in Tests/Fixtures/mime: mail as Python's email package makes it, in the
charsets and shapes devices send, plus a few files broken by hand (written byte by byte here).

Usage: scripts/make-mime-corpus.py   (from the repository; the files are committed, so the tests
need neither this script nor Python)
"""
import base64
import os
from email.message import EmailMessage
from email.utils import format_datetime
from datetime import datetime, timezone
from email import policy

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "mime")
WHEN = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)


def base(subject, sender="Scanner <scanner@office.test>"):
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = sender
    message["To"] = "inbox@mailroom.test"
    message["Date"] = format_datetime(WHEN)
    slug = "".join(c for c in (subject or "none").lower() if c.isalnum())[:24]
    message["Message-ID"] = f"<corpus-{slug}@mailroom.test>"
    if subject is not None:
        message["Subject"] = subject
    return message


def subject_in(charset, text):
    """A message whose subject is one RFC 2047 encoded word in `charset` (written by hand: the
    email package would re-encode Shift_JIS as ISO-2022-JP)."""
    encoded = base64.b64encode(text.encode(charset)).decode()
    return (f"From: sender@example.test\r\nTo: inbox@mailroom.test\r\nDate: {format_datetime(WHEN)}\r\n"
            f"Subject: =?{charset}?B?{encoded}?=\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: text/plain; charset=utf-8\r\n\r\nA subject in {charset}.\r\n").encode()


def write(name, data):
    if isinstance(data, EmailMessage):
        # Fixed boundaries, so that the files come out the same every time.
        for number, part in enumerate(part for part in data.walk() if part.is_multipart()):
            part.set_boundary(f"corpus-boundary-{number}")
        data = data.as_bytes(policy=policy.SMTP)
    with open(os.path.join(OUT, name), "wb") as file:
        file.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    write("subject-utf-8.eml", subject_in("UTF-8", "Grüße aus Köln 👋"))
    write("subject-iso-8859-1.eml", subject_in("ISO-8859-1", "Café crème à emporter"))
    write("subject-shift-jis.eml", subject_in("Shift_JIS", "会議の資料を送ります"))
    write("subject-koi8-r.eml", subject_in("KOI8-R", "Привет из Москвы"))

    alternative = base("Welcome to the project")
    alternative.set_content("Hello, plain reader.\n")
    alternative.add_alternative("<p>Hello, <b>HTML</b> reader.</p>\n", subtype="html")
    write("alternative.eml", alternative)

    html_only = base("Your invoice", sender="Billing <billing@shop.test>")
    html_only.set_content("<html><body><h1>Invoice</h1><p>Total: 12&nbsp;&euro;</p>"
                          "<script>alert(1)</script></body></html>\n", subtype="html")
    write("html-only.eml", html_only)

    mixed = base("Scan from the copier")
    mixed.set_content("Two files are attached.\n")
    mixed.add_attachment(b"%PDF-1.4 first scan\n" * 100, maintype="application", subtype="pdf", filename="scan-0001.pdf")
    inner = EmailMessage(policy=policy.SMTP)
    inner.set_content("Nested text.\n")
    inner.add_attachment(b"a,b\n1,2\n", maintype="text", subtype="csv", filename="figures.csv")
    mixed.add_attachment(inner)
    write("nested-mixed.eml", mixed)

    related = base("Newsletter with a logo")
    related.set_content("The logo is inline.\n")
    related.add_alternative('<p><img src="cid:logo@news.test"> News of the week.</p>\n', subtype="html")
    related.get_payload()[1].add_related(b"\x89PNG\r\n\x1a\n" + bytes(64), maintype="image", subtype="png", cid="<logo@news.test>")
    write("inline-cid.eml", related)

    # Broken by hand.
    write("broken-boundary.eml", b"From: old@device.test\r\nSubject: Broken boundary\r\n"
          b"Content-Type: multipart/mixed; boundary=\"never\"\r\n\r\n"
          b"--never\r\nContent-Type: text/plain\r\n\r\nThe boundary is never closed.\r\n")
    write("missing-charset.eml", b"From: old@device.test\r\nSubject: No charset\r\n"
          b"Content-Type: text/plain\r\nContent-Transfer-Encoding: 8bit\r\n\r\nCaf\xe9 au lait\r\n")
    write("8bit-headers.eml", "From: Jürgen <juergen@example.test>\r\nSubject: Grüße ohne Kodierung\r\n"
          "\r\nRaw UTF-8 in the headers.\r\n".encode("utf-8"))
    write("long-line.eml", b"From: a@b.test\r\nSubject: One long line\r\n\r\n" + b"x" * 100_000 + b"\r\n")
    write("scanner-pdf-no-disposition.eml", b"From: scanner@office.test\r\nSubject: Scan\r\n"
          b"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"scan\"\r\n\r\n"
          b"--scan\r\nContent-Type: text/plain\r\n\r\nScanned on floor 2.\r\n"
          b"--scan\r\nContent-Type: application/pdf; name=\"scan0042.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
          b"JVBERi0xLjQK\r\n--scan--\r\n")


if __name__ == "__main__":
    main()
