"""Rate limiting of token guessing (Flask-Limiter): failed authentications per client address.

Every token the service hands out (player, GM, invitation, unsubscribe, mail reply)
is 24+ random bytes, so guessing one is hopeless; the limit makes trying expensive
and visible anyway. One shared budget per client address counts the answers that a
guess gets, 401, 403 and 404, across every route (an application limit with
`deduct_when`), so successful requests cost nothing and honest players never meet it:
after RATELIMIT_AUTH_FAILURES (default 30 per minute) such answers, that address gets
429 with Retry-After until the window moves on.

Storage: Redis in full mode (REDIS_URL, keys under REDIS_PREFIX, so every web process
shares the counts), memory in embedded mode (one process). If Redis is unreachable the
limiter lets requests through (swallow_errors) rather than failing the service: the
tokens' entropy is the real protection. Behind a reverse proxy, run the app under
werkzeug's ProxyFix so that the client's address is the one counted.
"""

from __future__ import annotations

from flask import Flask, Response
from flask_limiter import ApplicationLimit, HeaderNames, Limiter
from flask_limiter.util import get_remote_address

DEFAULT_AUTH_FAILURES = "30 per minute"
GUESS_ANSWERS = (401, 403, 404)


def counts_as_guess(response: Response) -> bool:
    return response.status_code in GUESS_ANSWERS


LIMITER_RETRY_AFTER = "X-RateLimit-Retry-After"


def retry_after_on_429_only(response: Response) -> Response:
    """Flask-Limiter puts its window's Retry-After on every response (a 200 with
    "Retry-After: 60", or over a 503's own value): keep it for its 429s only."""
    value = response.headers.pop(LIMITER_RETRY_AFTER, None)
    if response.status_code == 429 and value is not None:
        response.headers["Retry-After"] = value
    return response


def init_app(app: Flask) -> Limiter:
    # Registered before the limiter's own after-request hook, so it runs after it.
    app.after_request(retry_after_on_429_only)
    redis_url = app.config.get("REDIS_URL")
    budget = str(app.config.get("RATELIMIT_AUTH_FAILURES") or DEFAULT_AUTH_FAILURES)
    limiter = Limiter(
        get_remote_address,
        app=app,
        application_limits=[ApplicationLimit(
            budget, deduct_when=counts_as_guess,
            error_message=f"too many refused requests from your address ({budget}); "
                          "try again after the number of seconds in the Retry-After header")],
        storage_uri=redis_url or "memory://",
        key_prefix=f"{app.config.get('REDIS_PREFIX', '')}limits" if redis_url else "limits",
        strategy="moving-window",
        headers_enabled=True,
        header_name_mapping={HeaderNames.RETRY_AFTER: LIMITER_RETRY_AFTER},
        swallow_errors=True,
        enabled=bool(app.config.get("RATELIMIT_ENABLED", True)),
    )
    app.extensions["dicepost.limiter"] = limiter
    return limiter
