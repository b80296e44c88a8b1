"""The app's clock: `app.config["CLOCK"]` when set (tests pass a FakeClock), else real UTC."""

from __future__ import annotations

from datetime import datetime

from flask import current_app, has_app_context

from service.schedule.clock import Clock, UtcClock

_REAL = UtcClock()


def app_clock() -> Clock:
    if has_app_context():
        clock = current_app.config.get("CLOCK")
        if clock is not None:
            return clock
    return _REAL


def now() -> datetime:
    return app_clock().now()
