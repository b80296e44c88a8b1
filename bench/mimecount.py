"""Instructions to write a composed mail's MIME: service.mail.mime against the standard
library's `email` (EmailMessage), on the same parts: `python -m bench.mimecount DIR`.

DIR holds mails as `bench.mailcount --save DIR` writes them. Each mail is read back into
its headers, text, HTML and attachments; then both writers make the message from them,
several passes each, and callgrind counts each writer's passes apart (`--callgrind` runs
itself under valgrind; without it, it prints CPU µs per mail). What the mails say is
rendered before either writer runs, so this is the whole of what the choice changes.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from email import message_from_bytes, policy
from email.headerregistry import Address
from email.message import EmailMessage
from pathlib import Path

from bench.mailcount import Marks, print_per_mail, under_callgrind

Parts = tuple[list[tuple[str, str | Address]], str, str, list[tuple[str, str, bytes]], str]


def read_parts(raw: bytes) -> Parts:
    """(headers, text, HTML, attachments, Message-ID) of one composed mail."""
    msg = message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    skip = {"mime-version", "content-type", "content-transfer-encoding", "dkim-signature"}
    headers: list[tuple[str, str | Address]] = [
        (k, v.addresses[0] if k in ("From", "To") else str(v))
        for k, v in msg.items() if k.lower() not in skip]
    text = html = ""
    attached: list[tuple[str, str, bytes]] = []
    for part in msg.walk():
        if part.is_multipart():
            continue
        if part.get_filename():
            data = part.get_payload(decode=True)
            attached.append((part.get_filename() or "", part.get_content_type(), bytes(data)))
        elif part.get_content_type() == "text/html":
            html = part.get_content()
        else:
            text = part.get_content()
    return headers, text, html, attached, str(msg["Message-ID"])


def with_mime(parts: Parts) -> bytes:
    from service.mail import mime

    headers, text, html, attached, msg_id = parts
    fields = [(name, mime.address(value) if isinstance(value, Address) else mime.unstructured(value))
              for name, value in headers]
    return mime.message(mime.header_block(fields), text, html,
                        [mime.Attached(n, t, d) for n, t, d in attached], seed=msg_id)


def with_email(parts: Parts) -> bytes:
    headers, text, html, attached, _msg_id = parts
    msg = EmailMessage(policy=policy.SMTP)
    for name, value in headers:
        msg[name] = value
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    for name, content_type, data in attached:
        maintype, subtype = content_type.split("/")
        msg.add_attachment(data, maintype=maintype, subtype=subtype, filename=name)
    return msg.as_bytes()


def inside(folder: Path, passes: int) -> None:
    mails = [read_parts(p.read_bytes()) for p in sorted(folder.glob("*.eml"))]
    with tempfile.TemporaryDirectory() as tmp:
        marks = Marks.load(Path(tmp))
        writers: dict[str, Callable[[Parts], bytes]] = {"mime": with_mime, "email": with_email}
        for parts in mails:  # warm: imports, the email package's header classes
            for write in writers.values():
                write(parts)
        marks.start()
        for name, write in writers.items():
            t0 = time.process_time()
            with marks.counted():
                for _ in range(passes):
                    for parts in mails:
                        write(parts)
            cpu = time.process_time() - t0
            marks.dump(name)
            n = len(mails) * passes
            print(f"{name}: {n} mails, {1e6 * cpu / max(n, 1):.0f} µs CPU a mail")


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.mimecount", description=__doc__)
    p.add_argument("folder")
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--callgrind", action="store_true", help="count instructions under valgrind")
    args = p.parse_args()
    if not args.callgrind:
        inside(Path(args.folder), args.passes)
        return
    print_per_mail(*under_callgrind("bench.mimecount", [args.folder, "--passes", str(args.passes)]), digits=3)


if __name__ == "__main__":
    main()
