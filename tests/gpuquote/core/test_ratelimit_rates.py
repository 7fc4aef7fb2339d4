"""The HTML pages' rate strings, read by our own parser the way django-ratelimit reads them."""

from typing import Any

import pytest
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from gpuquote.core import ratelimit
from gpuquote.core.ratelimit import parse_rate


@pytest.mark.parametrize(
    ("rate", "expected"),
    [
        ("60/m", (60, 60)),
        ("10/h", (10, 3600)),
        ("30/s", (30, 1)),
        ("5/d", (5, 86400)),
        ("7/", (7, 1)),  # no unit: seconds
        ("10/5m", (10, 300)),  # a multiplier before the unit
        ("120/minute", (120, 60)),  # text after the unit's letter
        ("3/H", (3, 3600)),
        (" 4/m ", (4, 60)),
    ],
)
def test_parse_rate_reads_count_and_period_seconds(rate: str, expected: tuple[int, int]) -> None:
    assert parse_rate(rate) == expected


@pytest.mark.parametrize("rate", ["", "m", "60", "/m", "sixty/m", "-1/m"])
def test_parse_rate_refuses_a_malformed_rate_naming_it(rate: str) -> None:
    with pytest.raises(ValueError, match="is not a rate such as '60/m'") as raised:
        parse_rate(rate)
    assert repr(rate) in str(raised.value)


def test_every_html_page_rate_setting_parses() -> None:
    for name in ("WIZARD_RATE", "QUOTE_REQUEST_RATE", "CHECKLIST_PDF_RATE", "QUOTE_PDF_RATE"):
        count, seconds = parse_rate(getattr(settings, name))
        assert count > 0, name
        assert seconds in {1, 60, 3600, 86400}, name


def test_over_the_limit_with_a_failed_cache_asks_for_the_whole_period(
    rf: RequestFactory, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    # Given a limit of 10 an hour, and a cache that cannot say when the window ends
    settings.QUOTE_REQUEST_RATE = "10/h"
    monkeypatch.setattr(
        ratelimit, "get_usage", lambda *a, **k: {"should_limit": True, "time_left": 0}
    )
    calls: list[HttpRequest] = []

    @ratelimit.rate_limited(group="t", rate_setting="QUOTE_REQUEST_RATE", methods=["POST"])
    def view(request: HttpRequest) -> HttpResponse:
        calls.append(request)
        return HttpResponse("ok")

    # When a request comes in
    response = view(rf.post("/"))

    # Then it is refused for the whole period, and the view never ran
    assert response.status_code == 429
    assert response["Retry-After"] == "3600"
    assert calls == []
