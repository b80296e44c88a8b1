from datetime import UTC, datetime, timedelta, timezone

import pytest

from service.clock import FakeClock, UtcClock, as_utc, require_aware
from service.schedule.durations import DurationError, describe_duration, format_duration, parse_duration

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_fake_clock_moves_only_when_told():
    clock = FakeClock(T0)
    assert clock.now() == T0
    assert clock.advance(timedelta(hours=2)) == T0 + timedelta(hours=2)
    assert clock.now() == T0 + timedelta(hours=2)
    clock.set(T0)
    assert clock.now() == T0


def test_fake_clock_refuses_naive_and_backwards():
    with pytest.raises(ValueError, match="start: a timezone-aware"):
        FakeClock(datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="backwards"):
        FakeClock(T0).advance(timedelta(seconds=-1))


def test_real_clock_is_aware_utc():
    assert UtcClock().now().utcoffset() == timedelta(0)


def test_as_utc_treats_naive_as_utc_and_converts_others():
    assert as_utc(datetime(2026, 1, 1, 5)) == datetime(2026, 1, 1, 5, tzinfo=UTC)
    plus2 = datetime(2026, 1, 1, 5, tzinfo=timezone(timedelta(hours=2)))
    assert as_utc(plus2) == datetime(2026, 1, 1, 3, tzinfo=UTC)
    assert require_aware(plus2, "x").tzinfo == UTC


@pytest.mark.parametrize(("text", "expected"), [
    ("PT48H", timedelta(hours=48)),
    ("P1DT12H", timedelta(days=1, hours=12)),
    ("PT5S", timedelta(seconds=5)),
    ("P2W", timedelta(weeks=2)),
    ("PT1H30M", timedelta(hours=1, minutes=30)),
    ("PT0.5S", timedelta(milliseconds=500)),
    ("pt10m", timedelta(minutes=10)),
    ("P3D", timedelta(days=3)),
    # words, as people write them in the GM's forms and in mail
    ("1 day", timedelta(days=1)),
    ("36 hours", timedelta(hours=36)),
    ("1 day 12 hours", timedelta(days=1, hours=12)),
    ("1 day, 6 hours", timedelta(days=1, hours=6)),
    ("2 weeks and 1 day", timedelta(days=15)),
    ("90 Minutes", timedelta(minutes=90)),
    ("12 hrs", timedelta(hours=12)),
])
def test_parse_duration(text, expected):
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "P", "PT", "48H", "P1DT", "PT-5S", "P1H", "PT1D", "soon", "P1DT2H3X",
                                  "1 fortnight", "1 day 2 days", "day", "12"])
def test_parse_duration_refuses_malformed(text):
    with pytest.raises(DurationError, match=r"^deadline: "):
        parse_duration(text, "deadline")


@pytest.mark.parametrize("text", ["P1Y", "P2M", "P1Y2M"])
def test_parse_duration_refuses_calendar_units(text):
    with pytest.raises(DurationError, match="no fixed length"):
        parse_duration(text)


def test_parse_duration_refuses_non_strings():
    with pytest.raises(DurationError, match="got 48"):
        parse_duration(48)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["PT48H", "P1DT12H", "PT5S", "P14D", "PT1H30M", "PT0S", "P1DT0.5S"])
def test_format_round_trips(text):
    assert parse_duration(format_duration(parse_duration(text))) == parse_duration(text)


def test_format_shortest_forms():
    assert format_duration(timedelta(hours=48)) == "P2D"
    assert format_duration(timedelta(hours=36)) == "P1DT12H"
    assert format_duration(timedelta(0)) == "PT0S"
    with pytest.raises(DurationError):
        format_duration(timedelta(seconds=-1))


@pytest.mark.parametrize(("delta", "words"), [
    (timedelta(hours=12), "12 hours"),
    (timedelta(days=1, hours=12), "1 day 12 hours"),
    (timedelta(days=2, minutes=1), "2 days 1 minute"),
    (timedelta(seconds=59), "0 minutes"),
])
def test_describe_duration(delta, words):
    assert describe_duration(delta) == words


@pytest.mark.parametrize("text", ["P3661D", "P99999999999W", "PT999999999999999H"])
def test_parse_duration_refuses_spans_past_ten_years(text):
    with pytest.raises(DurationError, match="at most 3660 days"):
        parse_duration(text, "by")
