"""Absolute links honour a BASE_URL with a path exactly once, in and out of requests."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import url_for

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


def test_links_follow_each_request_and_outside_one_the_default(tmp_path: Path) -> None:
    app = create_app(base_config(f"sqlite:///{tmp_path}/u.sqlite3", BASE_URL=None))
    for root in ("http://host:8000/sub/", "https://other.example/"):
        with app.test_request_context(base_url=root):
            assert game_url("g1") == root + "games/g1"
            assert game_url("g 2") == root + "games/g%202"
            assert absolute("web.round_", game_id="g1", number=3) == root + "games/g1/rounds/3"
    with app.app_context():
        assert game_url("g1") == "http://127.0.0.1:5000/games/g1"


def test_the_base_url_is_flasks_server_name_so_url_for_builds_under_it(tmp_path: Path) -> None:
    app = _app(tmp_path, "https://example.org/dp/")
    assert (app.config["SERVER_NAME"], app.config["APPLICATION_ROOT"], app.config["PREFERRED_URL_SCHEME"]) == \
        ("example.org", "/dp", "https")
    with app.app_context():
        assert url_for("web.game", game_id="g1", _external=True) == game_url("g1")


@pytest.mark.parametrize("base", ["example.org", "ftp://example.org", "https://", "https://example.org/?x=1"])
def test_a_base_url_that_is_no_site_root_is_refused_by_name(tmp_path: Path, base: str) -> None:
    with pytest.raises(ValueError, match=r"DICEPOST_BASE_URL=.*: use the public root of the site"):
        _app(tmp_path, base)


def test_the_app_registers_nothing_that_url_for_would_add_to_a_link(tmp_path: Path) -> None:
    """Under a base URL, absolute() builds with the app's URL adapter, as url_for does but
    without its URL defaults: exact only while the app registers none."""
    app = create_app(base_config(f"sqlite:///{tmp_path}/u.sqlite3"))
    assert not any(app.url_default_functions.values())
    assert not any(app.url_value_preprocessors.values())
    assert not any(bp.url_default_functions or bp.url_value_preprocessors for bp in app.blueprints.values())
