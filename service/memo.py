"""Reads shared by the work of one transaction that opted in (a batch of mails).

A round's results mails to every player read the same steps, round, submissions and
boards; inside `shared(session)` each is read once and handed to the next mail. Outside
such a block `memo` just calls its function, so nothing is kept across transactions or
seen by code that did not ask for it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from sqlalchemy.orm import Session

T = TypeVar("T")
_KEY = "dicepost.memo"


@contextmanager
def shared(session: Session) -> Iterator[None]:
    """Keep memo'd reads for the block (one transaction: its reads agree with each other)."""
    session.info[_KEY] = {}
    try:
        yield
    finally:
        session.info.pop(_KEY, None)


def memo(session: Session, key: Hashable, make: Callable[[], T]) -> T:
    """make()'s value, made once per `shared` block; made every time outside one."""
    store: dict[Hashable, Any] | None = session.info.get(_KEY)
    if store is None:
        return make()
    if key not in store:
        store[key] = make()
    value: T = store[key]
    return value
