"""Absolute links honour a BASE_URL with a path exactly once, in and out of requests."""

from __future__ import annotations

from pathlib import Path

from service import create_app
from service.urls import absolute, game_url, record_url
from tests.conftest import base_config


def _app(tmp_path: Path, base: str):  # type: ignore[no-untyped-def]
    return create_app(base_config(f"sqlite:///{tmp_path}/u.sqlite3", BASE_URL=base))


def test_a_base_url_with_a_path_appears_once_outside_a_request(tmp_path: Path) -> None:
    app = _app(tmp_path, "https://example.org/dp/")
    with app.app_context():
        assert game_url("g1") == "https://example.org/dp/games/g1"
        assert record_url("g1") == "https://example.org/dp/api/games/g1/record"


def test_a_base_url_with_a_path_appears_once_inside_a_request(tmp_path: Path) -> None:
    app = _app(tmp_path, "https://example.org/dp")
    # A request mounted under the same prefix (SCRIPT_NAME) and one whose proxy stripped it.
    for root in ("https://example.org/dp/", "http://internal:8000/"):
        with app.test_request_context(base_url=root):
            assert game_url("g1") == "https://example.org/dp/games/g1"


def test_without_a_base_url_links_follow_the_request(tmp_path: Path) -> None:
    app = create_app(base_config(f"sqlite:///{tmp_path}/u.sqlite3", BASE_URL=None))
    with app.test_request_context(base_url="http://host:8000/sub/"):
        assert game_url("g1") == "http://host:8000/sub/games/g1"


def test_kept_links_are_the_ones_built_for_their_base_and_values(tmp_path: Path) -> None:
    """absolute() keeps what it built: asked again, in or out of a request, under another
    request root or with other values, each link is what url_for builds for it."""
    app = create_app(base_config(f"sqlite:///{tmp_path}/u.sqlite3", BASE_URL=None))
    for _ in range(2):
        for root in ("http://host:8000/sub/", "https://other.example/"):
            with app.test_request_context(base_url=root):
                assert game_url("g1") == root + "games/g1"
                assert game_url("g 2") == root + "games/g%202"
                assert absolute("web.round_", game_id="g1", number=3) == root + "games/g1/rounds/3"
        with app.app_context():
            assert game_url("g1") == "http://127.0.0.1:5000/games/g1"


def test_the_app_registers_nothing_that_would_make_a_kept_link_stale(tmp_path: Path) -> None:
    """absolute() keeps a link by its base, endpoint and values: exact only while url_for
    depends on nothing else. A URL default or value preprocessor would change that, so one
    added to the app must come with a change to absolute()."""
    app = create_app(base_config(f"sqlite:///{tmp_path}/u.sqlite3"))
    assert not any(app.url_default_functions.values())
    assert not any(app.url_value_preprocessors.values())
    assert not any(bp.url_default_functions or bp.url_value_preprocessors for bp in app.blueprints.values())
