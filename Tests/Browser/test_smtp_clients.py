"""Real SMTP clients against the real binary: Python's smtplib (plain, STARTTLS, AUTH PLAIN and
LOGIN) and swaks (plain and TLS), and every file of the MIME corpus. Each message is checked where
a person sees it: its row in the Inbox, its page, and its raw bytes at /messages/N/raw.

A 250 after DATA means the message is committed, so every check reads right after the reply,
without waiting.
"""
import copy
import email.generator
import html
import io
import re
import shutil
import smtplib
import socket
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request
from email.message import EmailMessage
from pathlib import Path

import pytest

import mailroom_server

CORPUS = mailroom_server.ROOT / "Tests" / "Fixtures" / "mime"
# The decoded subject of every file in the corpus, as scripts/make-mime-corpus.py writes it.
CORPUS_SUBJECTS = {
    "subject-utf-8.eml": "Grüße aus Köln 👋",
    "subject-iso-8859-1.eml": "Café crème à emporter",
    "subject-shift-jis.eml": "会議の資料を送ります",
    "subject-koi8-r.eml": "Привет из Москвы",
    "alternative.eml": "Welcome to the project",
    "html-only.eml": "Your invoice",
    "nested-mixed.eml": "Scan from the copier",
    "inline-cid.eml": "Newsletter with a logo",
    "broken-boundary.eml": "Broken boundary",
    "missing-charset.eml": "No charset",
    "8bit-headers.eml": "Grüße ohne Kodierung",
    "long-line.eml": "One long line",
    "scanner-pdf-no-disposition.eml": "Scan",
}
USERS = {"alice": "correct horse battery", "bob": "s3cret:with:colons"}


# MARK: Fixtures


@pytest.fixture(scope="module")
def certificate():
    """A self-signed certificate for localhost and its key, made by the openssl program."""
    directory = Path(tempfile.mkdtemp(prefix="mailroom-smtp-tls-"))
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
                    "-days", "2", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    yield ["--smtp-tls-cert", str(cert), "--smtp-tls-key", str(key)]
    shutil.rmtree(directory)


@pytest.fixture(scope="module")
def password_file():
    directory = Path(tempfile.mkdtemp(prefix="mailroom-smtp-users-"))
    path = directory / "users"
    path.write_text("# SMTP logins\n\n" + "".join(f"{user}:{password}\n" for user, password in USERS.items()))
    yield str(path)
    shutil.rmtree(directory)


@pytest.fixture
def servers():
    """Starts servers with SMTP on; each must stop cleanly (exit 0) at the end of the test."""
    started = []

    def start(*extra):
        server = mailroom_server.start(smtp=True, extra=list(extra))
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


# MARK: Reading what was stored


def http_get(server, path):
    """(status, body bytes) of a GET, 404 included."""
    try:
        with urllib.request.urlopen(server.url(path), timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def inbox_rows(server):
    """The Inbox's rows as (message id, subject), newest first."""
    status, body = http_get(server, "/mailboxes/inbox")
    assert status == 200
    page = body.decode("utf-8")
    return [(int(number), html.unescape(subject)) for number, subject in
            re.findall(r'<li class="row[^"]*" id="message-\d+" data-id="(\d+)">.*?<span class="subject">([^<]*)</span>',
                       page)]


def message_subject(server, number):
    """The subject heading of the message page."""
    status, body = http_get(server, f"/messages/{number}")
    assert status == 200, f"/messages/{number} answered {status}"
    match = re.search(r'<h1 class="message-subject">([^<]*)</h1>', body.decode("utf-8"))
    assert match, f"no subject heading on /messages/{number}"
    return html.unescape(match.group(1))


def raw_message(server, number):
    status, body = http_get(server, f"/messages/{number}/raw")
    assert status == 200, f"/messages/{number}/raw answered {status}"
    return body


def only_new_row(server, before):
    """The one row that is in the Inbox now and was not in `before`."""
    rows = inbox_rows(server)
    new = [row for row in rows if row not in before]
    assert len(new) == 1, f"expected one new message, found {new}"
    return new[0]


def as_smtplib_sends(message):
    """The bytes `send_message` puts after DATA, dot-stuffing undone: the message flattened
    with CRLF line endings, ending in a CRLF."""
    with io.BytesIO() as out:
        email.generator.BytesGenerator(out).flatten(copy.copy(message), linesep="\r\n")
        data = out.getvalue()
    return data if data.endswith(b"\r\n") else data + b"\r\n"


def stored_number(reply):
    """The N of a DATA reply "2.0.0 Stored as message N"."""
    match = re.search(rb"Stored as message (\d+)", reply)
    assert match, f"not a stored reply: {reply!r}"
    return int(match.group(1))


def a_message(subject, body):
    message = EmailMessage()
    message["From"] = "Sender <sender@example.test>"
    message["To"] = "inbox@mailroom.test"
    message["Subject"] = subject
    message.set_content(body)
    return message


def connect(server, source="127.0.0.1"):
    """A session from `source`: after a wrong password, that address must wait before its next
    login is even checked, so a right login right after one comes from another address."""
    return smtplib.SMTP("127.0.0.1", server.smtp_port, local_hostname="client.example.test", timeout=10,
                        source_address=(source, 0))


def unverified():
    """TLS without checking the self-signed certificate (what the test servers have)."""
    return ssl._create_unverified_context()


def check_delivered(server, message, before=()):
    """The message sent with send_message is the one new Inbox row, with its subject on its page
    and exactly the bytes smtplib sent as its raw text. Returns its number."""
    number, subject = only_new_row(server, list(before))
    assert subject == message["Subject"]
    assert message_subject(server, number) == message["Subject"]
    assert raw_message(server, number) == as_smtplib_sends(message)
    return number


# MARK: smtplib


def test_smtplib_delivers_a_message_in_plain_text(servers):
    server = servers()
    message = a_message("Hello from smtplib", "First line.\n.A line that starts with a dot.\n..Two dots.\n"
                        "Grüße, 8-bit text.\n")
    with connect(server) as client:
        code, features = client.ehlo()
        assert code == 250
        for extension in ("pipelining", "size", "8bitmime", "smtputf8", "enhancedstatuscodes"):
            assert client.has_extn(extension), extension
        assert not client.has_extn("starttls") and not client.has_extn("auth")
        assert client.send_message(message) == {}
        # A second message on the same session.
        second = a_message("Second from smtplib", "Again.\n")
        before = inbox_rows(server)
        assert client.send_message(second) == {}
        check_delivered(server, second, before)
    rows = inbox_rows(server)
    assert [subject for _, subject in rows] == ["Second from smtplib", "Hello from smtplib"]
    number = rows[1][0]
    assert message_subject(server, number) == "Hello from smtplib"
    assert raw_message(server, number) == as_smtplib_sends(message)
    status, _ = http_get(server, f"/messages/{number}/raw")
    assert status == 200


def test_smtplib_delivers_over_starttls(servers, certificate):
    server = servers(*certificate)
    message = a_message("Over STARTTLS", "Sent encrypted.\n")
    with connect(server) as client:
        client.ehlo()
        assert client.has_extn("starttls")
        code, _ = client.starttls(context=unverified())
        assert code == 220
        assert isinstance(client.sock, ssl.SSLSocket) and client.sock.version().startswith("TLS")
        client.ehlo()
        # Once in TLS, STARTTLS is not offered again.
        assert not client.has_extn("starttls")
        assert client.send_message(message) == {}
        # The last reply comes through TLS too, before the connection closes.
        assert client.quit()[0] == 221
    check_delivered(server, message)


def read_reply(stream):
    """One SMTP reply from a file over a socket: (code, [lines])."""
    lines = []
    while True:
        line = stream.readline()
        assert line.endswith(b"\r\n"), f"the connection ended in a reply: {line!r}"
        lines.append(line[4:-2].decode())
        if line[3:4] != b"-":
            return int(line[:3]), lines


def test_plaintext_sent_behind_starttls_is_thrown_away(servers, certificate):
    """RFC 3207 4.2: a NOOP in the same write as STARTTLS is never answered, in plaintext or
    after the handshake, and does not disturb the handshake."""
    server = servers(*certificate)
    with socket.create_connection(("127.0.0.1", server.smtp_port), timeout=10) as plain:
        stream = plain.makefile("rb")
        assert read_reply(stream)[0] == 220
        plain.sendall(b"EHLO client.example.test\r\n")
        assert "STARTTLS" in read_reply(stream)[1]
        plain.sendall(b"STARTTLS\r\nNOOP\r\nMAIL FROM:<injected@example.test>\r\n")
        code, lines = read_reply(stream)
        assert (code, lines) == (220, ["2.0.0 Ready to start TLS"])
        with unverified().wrap_socket(plain, server_hostname="localhost") as secure:
            secure_stream = secure.makefile("rb")
            secure.sendall(b"EHLO again.example.test\r\n")
            code, lines = read_reply(secure_stream)
            # The first reply in TLS is EHLO's, not the NOOP's or the injected MAIL's.
            assert code == 250 and lines[0].endswith("greets again.example.test"), lines
            assert "STARTTLS" not in lines
            # The injected MAIL started no transaction.
            secure.sendall(b"RCPT TO:<inbox@mailroom.test>\r\n")
            assert read_reply(secure_stream)[0] == 503
            secure.sendall(b"QUIT\r\n")
            assert read_reply(secure_stream)[0] == 221
    assert inbox_rows(server) == []


@pytest.mark.parametrize("mechanism", ["PLAIN", "LOGIN"])
def test_auth_over_starttls_with_a_password_file(servers, certificate, password_file, mechanism):
    server = servers(*certificate, "--smtp-password-file", password_file)
    message = a_message(f"Logged in with {mechanism}", "Authenticated.\n")
    with connect(server) as client:
        client.ehlo()
        # Passwords are never offered over plaintext.
        assert not client.has_extn("auth")
        assert client.mail("sender@example.test")[0] == 530
        client.starttls(context=unverified())
        client.ehlo()
        assert client.has_extn("auth")
        assert set(client.esmtp_features["auth"].upper().split()) >= {"PLAIN", "LOGIN"}
        # MAIL before AUTH.
        code, reply = client.mail("sender@example.test")
        assert code == 530 and reply.startswith(b"5.7.0"), reply
        # The wrong password.
        client.user, client.password = "alice", "wrong"
        with pytest.raises(smtplib.SMTPAuthenticationError) as refused:
            client.auth(mechanism, getattr(client, f"auth_{mechanism.lower()}"))
        assert refused.value.smtp_code == 535
        # Guessing again at once (an unknown user with a known password): this address must
        # wait, and the guess is not even checked.
        client.user, client.password = "mallory", USERS["alice"]
        with pytest.raises(smtplib.SMTPAuthenticationError) as waiting:
            client.auth(mechanism, getattr(client, f"auth_{mechanism.lower()}"))
        assert waiting.value.smtp_code == 454 and b"Too many failed logins" in waiting.value.smtp_error
    # The right one (bob's password has colons in it), from another address.
    with connect(server, source="127.0.0.2") as client:
        client.starttls(context=unverified())
        client.ehlo()
        client.user, client.password = "bob", USERS["bob"]
        code, _ = client.auth(mechanism, getattr(client, f"auth_{mechanism.lower()}"))
        assert code == 235
        assert client.send_message(message) == {}
    check_delivered(server, message)


def test_login_with_smtplib_login_and_a_wrong_password(servers, certificate, password_file):
    server = servers(*certificate, "--smtp-password-file", password_file)
    with connect(server) as client:
        client.starttls(context=unverified())
        # smtplib tries PLAIN (535), then LOGIN at once, which is not even checked: the address
        # must wait after a wrong password.
        with pytest.raises(smtplib.SMTPAuthenticationError) as refused:
            client.login("alice", "not her password")
        assert refused.value.smtp_code == 454 and b"Too many failed logins" in refused.value.smtp_error
        with pytest.raises(smtplib.SMTPSenderRefused) as sender:
            client.sendmail("sender@example.test", ["inbox@mailroom.test"], b"Subject: No\r\n\r\nNot logged in.\r\n")
        assert sender.value.smtp_code == 530
    with connect(server, source="127.0.0.2") as client:
        client.starttls(context=unverified())
        assert client.login("alice", USERS["alice"])[0] == 235
        client.sendmail("sender@example.test", ["inbox@mailroom.test"], b"Subject: Logged in\r\n\r\nYes.\r\n")
    assert [subject for _, subject in inbox_rows(server)] == ["Logged in"]


def test_auth_without_tls_only_with_allow_insecure(servers, password_file):
    # Without TLS and without the flag, the server does not start at all.
    work = tempfile.mkdtemp(prefix="mailroom-smtp-refused-")
    refused = subprocess.run(
        [mailroom_server.BINARY, "--port", "0", "--smtp-port", str(mailroom_server.free_port()), "--no-samples",
         "--quiet", "--db", str(Path(work) / "never.sqlite"), "--smtp-password-file", password_file],
        capture_output=True, text=True, timeout=10, cwd=work)
    shutil.rmtree(work)
    assert refused.returncode != 0
    assert "--smtp-auth-allow-insecure" in refused.stderr + refused.stdout

    server = servers("--smtp-password-file", password_file, "--smtp-auth-allow-insecure")
    message = a_message("Logged in without TLS", "Insecure but allowed.\n")
    with connect(server) as client:
        client.ehlo()
        assert client.has_extn("auth") and not client.has_extn("starttls")
        assert client.mail("sender@example.test")[0] == 530
        with pytest.raises(smtplib.SMTPAuthenticationError):
            client.login("alice", "wrong")
    with connect(server, source="127.0.0.2") as client:
        client.ehlo()
        client.user, client.password = "alice", USERS["alice"]
        assert client.auth("PLAIN", client.auth_plain)[0] == 235
        assert client.send_message(message) == {}
    check_delivered(server, message)


def test_accept_any_takes_any_login_and_requires_none(servers):
    server = servers("--smtp-auth-accept-any")
    first = a_message("Any login", "Logged in as nobody in particular.\n")
    with connect(server) as client:
        client.ehlo()
        assert client.has_extn("auth")
        assert client.login("whoever", "whatever")[0] == 235
        assert client.send_message(first) == {}
    check_delivered(server, first)
    second = a_message("No login", "Not logged in at all.\n")
    before = inbox_rows(server)
    with connect(server) as client:
        assert client.send_message(second) == {}
    check_delivered(server, second, before)


# MARK: swaks


def swaks(server, *flags):
    run = subprocess.run(["swaks", "--server", f"127.0.0.1:{server.smtp_port}", "--to", "a@example.test",
                          "--from", "b@example.test", *flags],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, f"swaks exited {run.returncode}:\n{run.stdout}\n{run.stderr}"
    return run.stdout


def test_swaks_delivers_in_plain_text(servers):
    server = servers()
    transcript = swaks(server, "--header", "Subject: Sent by swaks", "--body", "Hello from swaks.")
    number = stored_number(transcript.encode())
    assert inbox_rows(server) == [(number, "Sent by swaks")]
    assert message_subject(server, number) == "Sent by swaks"
    raw = raw_message(server, number)
    assert b"Subject: Sent by swaks\r\n" in raw and b"\r\n\r\nHello from swaks.\r\n" in raw
    status, page = http_get(server, f"/messages/{number}")
    assert status == 200 and "Hello from swaks." in page.decode()


def test_swaks_delivers_over_tls_and_logs_in(servers, certificate, password_file):
    server = servers(*certificate, "--smtp-password-file", password_file)
    transcript = swaks(server, "-tls", "--header", "Subject: Swaks over TLS", "--body", "Encrypted.",
                       "--auth", "LOGIN", "--auth-user", "alice", "--auth-password", USERS["alice"])
    assert "TLS started" in transcript
    number = stored_number(transcript.encode())
    assert inbox_rows(server) == [(number, "Swaks over TLS")]
    assert message_subject(server, number) == "Swaks over TLS"


def test_swaks_with_tls_against_the_tls_server(servers, certificate):
    server = servers(*certificate)
    transcript = swaks(server, "-tls", "--header", "Subject: Swaks TLS only", "--body", "Encrypted, no login.")
    assert "TLS started" in transcript
    number = stored_number(transcript.encode())
    assert inbox_rows(server) == [(number, "Swaks TLS only")]


# MARK: The MIME corpus


def test_every_corpus_file_is_stored_and_shows_its_decoded_subject(servers):
    files = sorted(CORPUS.glob("*.eml"))
    assert {path.name for path in files} == set(CORPUS_SUBJECTS), \
        "every corpus file needs its subject in CORPUS_SUBJECTS (from scripts/make-mime-corpus.py)"
    server = servers()
    with connect(server) as client:
        for path in files:
            data = path.read_bytes()
            before = inbox_rows(server)
            if path.name == "long-line.eml":
                # A 100,000-byte line is over the default 65,536: refused after its end, nothing stored.
                with pytest.raises(smtplib.SMTPDataError) as refused:
                    client.sendmail("scanner@office.test", ["inbox@mailroom.test"], data)
                assert refused.value.smtp_code == 500 and refused.value.smtp_error.startswith(b"5.5.6")
                assert inbox_rows(server) == before
                continue
            client.sendmail("scanner@office.test", ["inbox@mailroom.test"], data)
            number, subject = only_new_row(server, before)
            assert subject == CORPUS_SUBJECTS[path.name], path.name
            assert message_subject(server, number) == CORPUS_SUBJECTS[path.name], path.name
            assert raw_message(server, number) == (data if data.endswith(b"\r\n") else data + b"\r\n"), path.name
    assert len(inbox_rows(server)) == len(files) - 1

    # With a longer line allowed, the long line is taken and shown.
    roomy = servers("--smtp-max-line", "131072")
    data = (CORPUS / "long-line.eml").read_bytes()
    with connect(roomy) as client:
        client.sendmail("a@b.test", ["inbox@mailroom.test"], data)
    [(number, subject)] = inbox_rows(roomy)
    assert subject == "One long line"
    assert message_subject(roomy, number) == "One long line"
    assert raw_message(roomy, number) == data
