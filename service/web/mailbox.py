"""The embedded mailbox: mail the service "sent", kept in stored_mail for viewing.

Only in embedded mode (no REDIS_URL); in full mode mail goes out over SMTP.
"""

from __future__ import annotations

from flask import current_app, render_template
from sqlalchemy import select

from service.db import get_session
from service.errors import NotFound
from service.models import StoredMail
from service.web import bp


def _embedded_only() -> None:
    if not current_app.config["EMBEDDED"]:
        raise NotFound("the mailbox exists only in embedded mode; mail is sent over SMTP")


@bp.get("/mailbox")
def mailbox() -> str:
    _embedded_only()
    session = get_session()
    with session.begin():
        mails = list(session.scalars(select(StoredMail).order_by(StoredMail.id.desc()).limit(200)))
        return render_template("web/mailbox.html", mails=mails)


@bp.get("/mailbox/<int:mail_id>")
def mail(mail_id: int) -> str:
    _embedded_only()
    session = get_session()
    with session.begin():
        found = session.get(StoredMail, mail_id)
        if found is None:
            raise NotFound(f"no stored mail {mail_id}")
        return render_template("web/mail.html", mail=found)
