"""Input every way in shares: text, whole numbers and e-mail addresses, checked the same on
both databases.

- Text: PostgreSQL refuses a NUL character in any text column and a lone surrogate
  cannot be encoded at all, so either one would end a request in the driver's error.
  `text_problem` says what is wrong with a text; the web hook (`init_app`) applies it
  to the URL, the query, every form field and every string of a JSON body before any
  view runs, and the inbound mail path applies it to a mail's subject and body.
- Whole numbers: the columns are 32-bit INTEGER on PostgreSQL; SQLite takes 64 bits and
  raises OverflowError beyond. `whole_number` keeps both backends to the smaller range,
  and the hook answers 404 for a URL number no row can have. A JSON number too long to
  read at all (service.jsonlimits) is refused by the hook naming its field.
- Addresses: `normal_address` is the one validator (email-validator: syntax and the
  RFC 5321 lengths, no DNS look-ups) and gives the one form an address is stored,
  counted and compared in (lower case: mail providers do not tell case apart, and a
  limit per address must not be dodged by writing `Alice@` for `alice@`).

Every refusal is a 400 naming the field (JSON under /api/, the error page elsewhere).
The last-resort handler answers an unexpected error with a generic message: the
exception, which may quote SQL or a driver's message, goes to the log only.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

from email_validator import EmailNotValidError, validate_email
from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import InternalServerError

from service.errors import BadRequest, Invalid, NotFound
from service.jsonlimits import LongNumber

log = logging.getLogger(__name__)

INT_MIN = -(2**31)  # PostgreSQL INTEGER, the type of every whole-number column
INT_MAX = 2**31 - 1
MAX_ADDRESS = 320  # the columns' length: RFC 5321's 64 + 1 + 255
_SURROGATE = re.compile("[\ud800-\udfff]")
GENERIC_ERROR = "something went wrong on the server; nothing is known to have changed: try again"


def text_problem(value: str) -> str | None:
    """Why `value` cannot be stored as text on every backend, or None when it can."""
    if "\x00" in value:
        return "contains a NUL character (U+0000)"
    if _SURROGATE.search(value):
        return "contains a lone surrogate (not valid Unicode text)"
    return None


def storable(value: str) -> str:
    """`value` with what no backend stores replaced (for the service's own notes, not input)."""
    return _SURROGATE.sub("\ufffd", value.replace("\x00", "\ufffd"))


def check_text(value: str, field: str) -> str:
    problem = text_problem(value)
    if problem:
        raise BadRequest(f"{field} {problem}", field)
    return value


def _strings(value: Any, path: str) -> Iterable[tuple[str, str | LongNumber]]:
    """(field path, text) for every key and string inside a JSON value, and (field path,
    number) for every number too long to read (service.jsonlimits)."""
    if isinstance(value, str | LongNumber):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            sub = f"{path}.{key}" if path else str(key)
            yield sub, str(key)
            yield from _strings(item, sub)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{path}[{i}]")


def check_json(value: Any, path: str = "") -> None:
    """BadRequest naming the first string (or key) of a JSON value that cannot be stored,
    or the first number too long to read."""
    for field, item in _strings(value, path):
        if isinstance(item, LongNumber):
            raise BadRequest(f"{field or 'body'}: a number of {item.digits} digits is too long to read",
                             field or "body")
        check_text(item, field or "body")


def whole_number(value: Any, field: str, low: int = INT_MIN, high: int = INT_MAX) -> int:
    """An int in [low, high] (the columns' range by default); Invalid naming the field."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"{field} must be a whole number", field)
    if not low <= value <= high:
        raise Invalid(f"{field} must be from {low} to {high}", field)
    return value


def normal_address(value: Any, field: str = "email") -> str:
    """The address in the one form it is stored and compared in; Invalid with the reason."""
    if not isinstance(value, str):
        raise Invalid(f"{field} must be text (an e-mail address)", field)
    check_text(value, field)
    text = value.strip()
    if len(text) > MAX_ADDRESS:
        raise Invalid(f"{field}: an e-mail address is at most {MAX_ADDRESS} characters long, "
                      f"this one has {len(text)}", field)
    try:
        checked = validate_email(text, check_deliverability=False, strict=True)
    except EmailNotValidError as exc:
        raise Invalid(f"{field}: {text!r} is not a usable e-mail address: {exc}", field) from None
    return checked.normalized.lower()


def address_key(value: str | None) -> str | None:
    """normal_address, or None for text that is not an address (nothing to count or mail)."""
    if value is None:
        return None
    try:
        return normal_address(value)
    except (Invalid, BadRequest):
        return None


def _refusal(exc: BadRequest | NotFound) -> Response:
    if request.path.startswith("/api/"):
        response = jsonify(exc.to_json())
    else:
        response = Response(render_template("web/error.html", error=exc), mimetype="text/html")
    response.status_code = exc.status
    return response


# Endpoints whose body is a raw mail: the mail path checks its text (and the body may be
# larger than the form limit, which the view raises for itself).
RAW_MAIL_ENDPOINTS = ("mail.inbound_email",)
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")  # what werkzeug parses


def _check_request() -> Response | None:
    """Before any view: the URL, query, form and JSON body hold only storable text, and no
    number in the URL is beyond the columns."""
    try:
        check_text(request.path, "path")
        raw_mail = request.endpoint in RAW_MAIL_ENDPOINTS
        # Only these bodies are parsed as form fields (any other's form is empty): a JSON
        # body need not go through the form parser.
        form_body = not raw_mail and request.mimetype in FORM_TYPES
        sources = ((request.args,) if request.query_string else ()) + ((request.form,) if form_body else ())
        for source in sources:
            for key, values in source.lists():
                check_text(key, "a field name")
                for text in values:
                    check_text(text, key)
        if request.is_json and not raw_mail:
            body = request.get_json(silent=True)
            if body is not None:
                check_json(body)
        for name, value in (request.view_args or {}).items():
            if isinstance(value, int) and not INT_MIN <= value <= INT_MAX:
                raise NotFound(f"no {name} {value}")
    except (BadRequest, NotFound) as exc:
        return _refusal(exc)
    return None


def internal_error(exc: InternalServerError) -> Response:
    """Flask has logged the exception; the caller gets a message that quotes none of it."""
    if request.path.startswith("/api/"):
        response = jsonify({"error": GENERIC_ERROR})
    else:
        response = Response(GENERIC_ERROR + "\n", mimetype="text/plain")
    response.status_code = 500
    return response


def init_app(app: Flask) -> None:
    app.before_request(_check_request)
    app.register_error_handler(InternalServerError, internal_error)
