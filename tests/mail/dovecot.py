"""A real IMAP server for the tests: Debian's dovecot, run in the foreground from a temp dir.

One passwd-file user with a Maildir, listening on 127.0.0.1 at a free port, plain
login allowed (it is local). Under root, mail is owned by the `dovecot` system user
(dovecot refuses UID 0 for mail); otherwise everything runs as the current user.
"""

from __future__ import annotations

import imaplib
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from tests.mail.smtp_server import free_port

CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_internal_user = {internal}
default_login_user = {login}
first_valid_uid = {uid}
last_valid_uid = {uid}
mail_location = maildir:{root}/home/%u/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
service imap-login {{
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service stats {{
  unix_listener stats-reader {{
    mode = 0666
  }}
  unix_listener stats-writer {{
    mode = 0666
  }}
}}
"""


def dovecot_binary() -> str | None:
    return shutil.which("dovecot") or (Path("/usr/sbin/dovecot").is_file() and "/usr/sbin/dovecot") or None


class Dovecot:
    def __init__(self, user: str = "dicepost", password: str = "imap-secret") -> None:
        binary = dovecot_binary()
        if binary is None:
            raise RuntimeError("dovecot is not installed (apt-get install dovecot-imapd)")
        self.binary = binary
        self.user, self.password = user, password
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="dicepost-dovecot-"))
        self.root.chmod(0o755)
        if os.geteuid() == 0:
            mail_user = pwd.getpwnam("dovecot")
            internal, login = "dovecot", "dovenull"
        else:
            mail_user = pwd.getpwuid(os.geteuid())
            internal = login = mail_user.pw_name
        self.uid, self.gid = mail_user.pw_uid, mail_user.pw_gid
        home = self.root / "home" / user
        (home / "Maildir").mkdir(parents=True)
        for path in (self.root / "home", home, home / "Maildir"):
            os.chown(path, self.uid, self.gid)
        (self.root / "passwd").write_text(f"{user}:{{PLAIN}}{password}::::::\n")
        self.config = self.root / "dovecot.conf"
        self.config.write_text(CONFIG.format(root=self.root, internal=internal, login=login, uid=self.uid,
                                             gid=self.gid, port=self.port))
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"imap://{self.user}:{self.password}@127.0.0.1:{self.port}/INBOX"

    def start(self) -> Dovecot:
        self.proc = subprocess.Popen([self.binary, "-F", "-c", str(self.config)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(200):
            if self.proc.poll() is not None:
                raise RuntimeError(f"dovecot exited: {self.proc.stderr.read().decode() if self.proc.stderr else ''}"
                                   f"\n{self.log()}")
            try:
                with imaplib.IMAP4("127.0.0.1", self.port, timeout=2) as probe:
                    probe.noop()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("dovecot did not start listening\n" + self.log())

    def log(self) -> str:
        path = self.root / "dovecot.log"
        return path.read_text() if path.exists() else ""

    def append(self, raw: bytes, folder: str = "INBOX") -> None:
        """Deliver a message the way an MTA would (IMAP APPEND)."""
        with imaplib.IMAP4("127.0.0.1", self.port, timeout=10) as conn:
            conn.login(self.user, self.password)
            typ, data = conn.append(folder, "", imaplib.Time2Internaldate(time.time()), raw)
            assert typ == "OK", data

    def count(self) -> int:
        """Messages in the INBOX, read from the Maildir: an IMAP login right after a failed one
        would wait out dovecot's auth penalty."""
        maildir = self.root / "home" / self.user / "Maildir"
        return sum(1 for sub in ("new", "cur") if (maildir / sub).is_dir() for _ in (maildir / sub).iterdir())

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc is not None and self.proc.stderr:
            self.proc.stderr.close()
        shutil.rmtree(self.root, ignore_errors=True)
