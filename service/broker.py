"""kombu's Redis transport, with an acknowledgement on a closed connection made a connection error.

When the worker loses Redis it closes the broken connection, which clears the transport's
link to its kombu Connection, while tasks taken on it are still running in the pool. When
one finishes, its late acknowledgement goes to the old channel; if that channel has to build
a new Redis pool it reads the connection's host from the cleared link and raises
AttributeError. Celery treats that as an unrecoverable error and the worker exits, although
it is only a connection that is gone. Raised as redis' ConnectionError, it is what it is:
kombu logs "Couldn't ack" and the worker carries on with its new connection. The message
is not lost: its Redis kept it unacknowledged (and redelivers it after the visibility
timeout) or forgot it in a restart (and the sweeper rings again from the database); the
tasks are idempotent either way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> Any:
        transport = self.connection
        if transport is None or transport.client is None:
            raise redis.ConnectionError("the broker connection of this channel was closed")
        # celery-types' kombu stubs leave out this private method, which the transport has.
        return super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]

    @contextmanager
    def conn_or_acquire(self, client: Any = None) -> Iterator[Any]:
        if client:
            yield client
            return
        pool = self.pool  # a new pool after a lost connection: a new client with it
        kept = getattr(self, "_kept_client", None)
        if kept is None or kept[0] is not pool:
            kept = self._kept_client = (pool, self._create_client())  # type: ignore[attr-defined]
        yield kept[1]


class Transport(kombu_redis.Transport):
    Channel = Channel
