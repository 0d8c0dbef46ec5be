"""make install and make deb, as an administrator uses them: the installed binary runs on its
own (its Swift runtime beside it, Public/ found without --public), the systemd unit verifies,
the man page covers every flag and subcommand, and the package installs, removes (keeping the
mail) and purges (removing it) with dpkg.

Both are made from the debug build, which has the same layout as the release one."""
import gzip
import os
import re
import shutil
import signal
import subprocess
import tempfile
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make(*arguments):
    return subprocess.run(["make", "--no-print-directory", *arguments], cwd=ROOT, capture_output=True, text=True,
                          check=True, timeout=1200)


@pytest.fixture(scope="module")
def staged():
    folder = Path(tempfile.mkdtemp(prefix="mailroom-install-"))
    make("install", f"DESTDIR={folder}", "PREFIX=/usr", "CONFIGURATION=debug")
    yield folder
    shutil.rmtree(folder)


def start(binary, database, cwd, environment=None):
    """The binary on a free port; its port."""
    process = subprocess.Popen([str(binary), "--port", "0", "--smtp-port", "0", "--no-samples", "--quiet", "--db",
                                str(database)], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=environment)
    for _ in range(5):
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if match:
            return process, int(match.group(1))
    process.kill()
    raise AssertionError(f"the installed mailroom did not start: {line!r}")


def test_the_installed_files_are_where_they_belong(staged):
    for path in ["usr/bin/mailroom", "usr/share/mailroom/Public/style.css", "usr/share/mailroom/Public/app.js",
                 "usr/share/mailroom/Public/favicon.ico", "usr/lib/systemd/system/mailroom.service",
                 "usr/share/man/man1/mailroom.1.gz", "etc/default/mailroom", "usr/lib/mailroom/libswiftCore.so"]:
        assert (staged / path).is_file(), path
    assert os.access(staged / "usr/bin/mailroom", os.X_OK)
    runpath = subprocess.run(["readelf", "-d", str(staged / "usr/bin/mailroom")], capture_output=True, text=True).stdout
    assert "$ORIGIN/../lib/mailroom" in runpath


def test_the_installed_binary_runs_on_its_own_and_finds_its_files(staged):
    binary = staged / "usr/bin/mailroom"
    # Every Swift library comes from beside the binary, none from the toolchain.
    libraries = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    swift = [line.split("=> ")[1].split(" (")[0] for line in libraries.splitlines() if "libswift" in line]
    beside = os.path.realpath(staged / "usr/lib/mailroom")
    assert swift and all(os.path.realpath(path).startswith(beside + "/") for path in swift), libraries
    assert "not found" not in libraries
    with tempfile.TemporaryDirectory() as elsewhere:
        process, port = start(binary, Path(elsewhere) / "mail.sqlite", elsewhere)
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/style.css", timeout=10) as answer:
                assert answer.status == 200
                assert answer.read() == (ROOT / "Public/style.css").read_bytes()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/mailboxes/inbox", timeout=10) as answer:
                assert answer.status == 200
        finally:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=15) == 0


def test_the_unit_verifies_and_is_locked_down(staged):
    unit = (staged / "usr/lib/systemd/system/mailroom.service").read_text()
    assert "ExecStart=/usr/bin/mailroom --db /var/lib/mailroom/mailroom.sqlite $MAILROOM_ARGS" in unit
    for setting in ["DynamicUser=yes", "StateDirectory=mailroom", "ProtectSystem=strict", "NoNewPrivileges=yes",
                    "SystemCallFilter=@system-service", "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
                    "CapabilityBoundingSet=\n", "PrivateDevices=yes", "ProtectHome=yes"]:
        assert setting in unit, setting
    # systemd-analyze checks the executable too: a copy of the unit pointing at the staged one.
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "mailroom.service"
        copy.write_text(unit.replace("ExecStart=/usr/bin/mailroom", f"ExecStart={staged}/usr/bin/mailroom"))
        run = subprocess.run(["systemd-analyze", "verify", "--man=no", str(copy)], capture_output=True, text=True, timeout=60)
        problems = [line for line in (run.stdout + run.stderr).splitlines() if "mailroom.service" in line]
        assert run.returncode == 0 and not problems, run.stdout + run.stderr


def test_the_man_page_renders_cleanly_and_covers_every_flag_and_subcommand(staged):
    page = gzip.decompress((staged / "usr/share/man/man1/mailroom.1.gz").read_bytes()).decode()
    rendered = subprocess.run(["groff", "-man", "-Tutf8", "-ww"], input=page, capture_output=True, text=True, check=True)
    assert rendered.stderr == "", rendered.stderr
    text = re.sub(r".\x08", "", rendered.stdout)
    help_text = subprocess.run([str(staged / "usr/bin/mailroom"), "--help"], capture_output=True, text=True,
                               check=True).stdout
    flags = sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", help_text)))
    assert len(flags) > 30
    missing = [flag for flag in flags if flag not in text.replace("\u2010", "-")]
    assert missing == [], missing
    for subcommand in ["mailroom sendmail", "mailroom backup", "mailroom check", "mailroom import", "mailroom export"]:
        assert subcommand in text, subcommand
    for name in ["MAILROOM_PASSWORD", "MAILROOM_API_TOKEN", "MAILROOM_SMTP", "MAILROOM_SMTP_PASSWORD", "MAILROOM_ARGS",
                 "MAILROOM_DEFAULTS_FILE"]:
        assert name in text


@pytest.fixture(scope="module")
def package():
    output = make("deb", "CONFIGURATION=debug").stdout.strip().splitlines()[-1]
    path = ROOT / output
    assert path.is_file(), output
    yield path


def test_the_package_lists_its_files_and_dependencies(package):
    contents = subprocess.run(["dpkg-deb", "-c", str(package)], capture_output=True, text=True, check=True).stdout
    for path in ["./usr/bin/mailroom", "./usr/share/mailroom/Public/style.css", "./lib/systemd/system/mailroom.service",
                 "./usr/share/man/man1/mailroom.1.gz", "./etc/default/mailroom", "./usr/lib/mailroom/libswiftCore.so"]:
        assert path in contents, path
    assert "root/root" in contents and "/opt/swift" not in contents
    info = subprocess.run(["dpkg-deb", "-I", str(package)], capture_output=True, text=True, check=True).stdout
    assert "Package: mailroom" in info
    for dependency in ["libevent-2.1-7", "libsqlite3-0", "libgmime-3.0-0", "libssl3"]:
        assert dependency in info, info
    for script in ["postinst", "prerm", "postrm", "conffiles"]:
        assert script in info


def test_the_package_installs_removes_keeping_the_mail_and_purges(package):
    assert os.geteuid() == 0, "make test runs as root (it installs packages); dpkg -i needs it too"
    status = subprocess.run(["dpkg", "-s", "mailroom"], capture_output=True, text=True)
    assert status.returncode != 0, "a mailroom package is installed already; this test would replace it"
    state = Path("/var/lib/mailroom")
    assert not state.exists(), "/var/lib/mailroom exists already"
    try:
        subprocess.run(["dpkg", "-i", str(package)], capture_output=True, text=True, check=True, timeout=120)
        assert Path("/usr/bin/mailroom").is_file()
        help_text = subprocess.run(["/usr/bin/mailroom", "--help"], capture_output=True, text=True, check=True,
                                   env={"PATH": "/usr/bin:/bin"}).stdout
        assert "--smtp-port" in help_text
        # Mail as the service would keep it, then a removal: the mail stays.
        state.mkdir()
        (state / "mailroom.sqlite").write_bytes(b"kept")
        subprocess.run(["dpkg", "-r", "mailroom"], capture_output=True, text=True, check=True, timeout=120)
        assert not Path("/usr/bin/mailroom").exists()
        assert (state / "mailroom.sqlite").read_bytes() == b"kept"
        assert Path("/etc/default/mailroom").exists(), "a removal keeps the settings"
        subprocess.run(["dpkg", "-P", "mailroom"], capture_output=True, text=True, check=True, timeout=120)
        assert not state.exists()
        assert not Path("/etc/default/mailroom").exists()
    finally:
        subprocess.run(["dpkg", "-P", "mailroom"], capture_output=True, text=True)
        shutil.rmtree(state, ignore_errors=True)
