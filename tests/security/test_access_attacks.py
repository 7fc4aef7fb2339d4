"""Attacks on who a caller is: a forged client address, a staff account without a sales role,
guessed passwords and guessed API keys. Each test is named after the attack and asserts the
exact answer, and that nothing changed."""

from __future__ import annotations

from collections.abc import Mapping
from io import StringIO

import pytest
from axes.helpers import get_client_ip_address
from axes.models import AccessAttempt
from django.conf import settings as django_settings
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client, RequestFactory, override_settings
from django.urls import reverse
from django_ratelimit.core import is_ratelimited

from gpuquote.core.client_ip import client_ip
from gpuquote.core.roles import REP_GROUP
from quotes.models import ApiKey, Quote, QuoteEvent, Webhook, WebhookDelivery
from quotes.partners.keys import api_key_revoke
from tests.api_fixtures import auth, partner_key
from tests.quotes.sales.test_quote_services import wizard_request_make

pytestmark = pytest.mark.django_db

SIZING_BODY = {"task": "inference", "model": "llama-3.1-8b"}
ANON_BUDGET = 120  # API_ANON_RATE's default: 120/minute
PROBLEM_TYPE = "https://gpuquote.example/problems/"


def _sizing(client, **headers):
    return client.post(
        reverse("api:sizing"), SIZING_BODY, content_type="application/json", headers=headers
    )


def _assert_throttled(response) -> None:
    assert response.status_code == 429, response.content[:300]
    body = response.json()
    assert body["type"] == PROBLEM_TYPE + "throttled"
    assert body["status"] == 429
    assert body["errors"] == {}
    assert int(response["Retry-After"]) > 0


# --- 1. Rotating X-Forwarded-For to escape the anonymous throttle -----------------------------


def test_rotating_x_forwarded_for_does_not_escape_the_anonymous_throttle(client):
    """NUM_PROXIES=0 (the default): the address is REMOTE_ADDR, whatever the client claims."""
    for number in range(ANON_BUDGET):
        response = _sizing(client, x_forwarded_for=f"10.0.{number // 250}.{number % 250 + 1}")
        assert response.status_code == 200, (number, response.content[:200])

    _assert_throttled(_sizing(client, x_forwarded_for="192.0.2.99"))


@override_settings(NUM_PROXIES=1)
def test_behind_one_proxy_only_the_rightmost_forwarded_address_counts(client):
    """The proxy appends the address it saw: the client's own entries on the left are ignored."""
    for number in range(ANON_BUDGET):
        forged = f"10.0.{number // 250}.{number % 250 + 1}"
        response = _sizing(client, x_forwarded_for=f"{forged}, 203.0.113.7")
        assert response.status_code == 200, (number, response.content[:200])

    _assert_throttled(_sizing(client, x_forwarded_for="198.51.100.1, 203.0.113.7"))
    # Another client behind the same proxy has its own budget.
    assert _sizing(client, x_forwarded_for="203.0.113.7, 203.0.113.8").status_code == 200


@pytest.mark.parametrize(
    ("num_proxies", "forwarded", "expected"),
    [
        (0, "198.51.100.1, 203.0.113.7", "127.0.0.1"),  # no proxy trusted: the socket address
        (1, "198.51.100.1, 203.0.113.7", "203.0.113.7"),  # the address our proxy saw
        (2, "198.51.100.1, 203.0.113.7", "198.51.100.1"),  # two proxies: second from the right
        (3, "198.51.100.1, 203.0.113.7", "198.51.100.1"),  # fewer entries than proxies
        (1, None, "127.0.0.1"),  # no header (a health check from the proxy's host)
        (1, "198.51.100.1, not-an-address", "127.0.0.1"),  # garbage never becomes an identity
        (1, "2001:db8::1", "2001:db8::1"),
    ],
)
def test_client_ip_honours_num_proxies(settings, num_proxies, forwarded, expected):
    settings.NUM_PROXIES = num_proxies
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    request = RequestFactory().get("/", REMOTE_ADDR="127.0.0.1", **headers)

    assert client_ip(request) == expected


def test_every_address_reader_uses_client_ip(settings):
    """django-axes (login lockout) and django-ratelimit (HTML pages) read the same address."""
    settings.NUM_PROXIES = 1
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.1.1.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.7"
    )

    assert get_client_ip_address(request) == "203.0.113.7"

    # django-ratelimit's key="ip", through its public API: two requests from the same client
    # behind different proxies share one count; another client has its own.
    def limited(remote: str, forwarded: str) -> bool:
        other = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
        return is_ratelimited(other, group="client-ip-check", key="ip", rate="1/m", increment=True)

    assert limited("10.1.1.1", "6.6.6.6, 203.0.113.7") is False
    assert limited("10.2.2.2", "9.9.9.9, 203.0.113.7") is True
    assert limited("10.1.1.1", "6.6.6.6, 198.51.100.1") is False


def test_num_proxies_defaults_to_the_socket_address():
    assert django_settings.NUM_PROXIES == 0
    assert (
        django_settings.REST_FRAMEWORK["NUM_PROXIES"] == django_settings.NUM_PROXIES
    )  # DRF's own throttles


# --- 2. Staff status without a sales role ---------------------------------------------------


@pytest.fixture
def partner_world(seed_catalog):
    partner, key = partner_key("Owner")
    hook = Webhook.objects.create(partner=partner, url="https://owner.example/hooks")
    return {"partner": partner, "key": key, "hook": hook}


def _signed_in(django_user_model, username: str, group: str | None = None, **flags) -> Client:
    user = django_user_model.objects.create_user(username=username, **flags)
    if group:
        user.groups.add(Group.objects.get_or_create(name=group)[0])
    client = Client()
    client.force_login(user)
    return client


def _owner_quote(partner_world) -> int:
    # Imported lazily: that module builds the schema.
    from tests.gpuquote.api.test_api_access import QUOTE_BODY

    response = Client().post(
        reverse("api:quote-list"), QUOTE_BODY, content_type="application/json",
        headers=auth(partner_world["key"]),
    )  # fmt: skip
    assert response.status_code == 201, response.content[:300]
    return response.json()["id"]


STAFF_SCREENS = [
    ("get", "sales:dashboard", False),
    ("get", "sales:quote_new", False),
    ("post", "sales:quote_new", False),
    ("get", "sales:quote_detail", True),
    ("post", "sales:line_add_part", True),
    ("post", "sales:line_add_service", True),
    ("post", "sales:line_update", True),
    ("post", "sales:line_remove", True),
    ("post", "sales:terms_update", True),
    ("post", "sales:workload_set", True),
    ("post", "sales:option_apply", True),
    ("post", "sales:quote_action", True),
    ("get", "sales:quote_pdf", True),
]


@pytest.mark.parametrize(("method", "name", "per_quote"), STAFF_SCREENS)
def test_staff_without_a_sales_role_is_refused_every_staff_screen(
    django_user_model, partner_world, method, name, per_quote
):
    quote_id = _owner_quote(partner_world)
    before = (Quote.objects.values().get(pk=quote_id), QuoteEvent.objects.count())
    client = _signed_in(django_user_model, "roleless", is_staff=True)
    url = reverse(name, args=[quote_id] if per_quote else [])

    response = getattr(client, method)(url, {"do": "send", "discount_pct": "50"})

    assert response.status_code == 403
    assert (Quote.objects.values().get(pk=quote_id), QuoteEvent.objects.count()) == before


def test_staff_without_a_sales_role_is_refused_the_request_to_quote_screen(django_user_model):
    quote_request = wizard_request_make()
    client = _signed_in(django_user_model, "roleless", is_staff=True)

    response = client.post(reverse("sales:quote_from_request", args=[quote_request.pk]))

    assert response.status_code == 403
    assert not Quote.objects.exists()


def _webhook_row(partner_world) -> Mapping[str, object]:

    return Webhook.objects.values().get(pk=partner_world["hook"].pk)


@pytest.mark.parametrize(("method", "suffix"), [("patch", ""), ("delete", ""), ("post", "ping/")])
def test_a_sales_rep_reads_but_cannot_change_a_partners_webhook(
    django_user_model, partner_world, method, suffix
):
    client = _signed_in(django_user_model, "rep", REP_GROUP)
    url = f"/api/v1/webhooks/{partner_world['hook'].pk}/"
    before = _webhook_row(partner_world)

    assert client.get(url).status_code == 200
    assert client.get(url + "deliveries/").status_code == 200
    response = getattr(client, method)(
        url + suffix, {"url": "https://attacker.example/steal", "is_active": False},
        content_type="application/json",
    )  # fmt: skip

    assert response.status_code == 403
    body = response.json()
    assert body["type"] == PROBLEM_TYPE + "forbidden"
    assert body["detail"] == "Only a sales manager may change a partner's webhooks."
    assert _webhook_row(partner_world) == before
    assert not WebhookDelivery.objects.exists()


@pytest.mark.parametrize(("group", "superuser"), [("sales manager", False), (None, True)])
def test_a_sales_manager_or_admin_may_change_a_partners_webhook(
    django_user_model, partner_world, group, superuser
):
    client = _signed_in(
        django_user_model, "boss", group, is_staff=superuser, is_superuser=superuser
    )
    url = f"/api/v1/webhooks/{partner_world['hook'].pk}/"

    response = client.patch(url, {"is_active": False}, content_type="application/json")

    assert response.status_code == 200, response.content[:300]
    assert _webhook_row(partner_world)["is_active"] is False


# --- 3. Guessing passwords and API keys -----------------------------------------------------

PASSWORD = "correct-horse-battery-staple"
LOGIN_PAGES = [
    ("/staff/login/", "/staff/", {"is_staff": False}),
    ("/admin/login/", "/admin/", {"is_staff": True, "is_superuser": True}),
]


def _login(client, url: str, username: str, password: str, address: str = "203.0.113.5"):
    after = url.removesuffix("login/")  # where each login page sends its user
    return client.post(
        url, {"username": username, "password": password, "next": after}, REMOTE_ADDR=address
    )


def _signed_in_user_id(client) -> str | None:
    return client.session.get("_auth_user_id")


def _assert_locked_out(response) -> None:
    assert response.status_code == 429
    text = response.content.decode()
    assert "Too many failed sign-in attempts" in text
    assert "Try again after" in text
    assert response["Retry-After"] == "3600"  # AXES_COOLOFF_MINUTES' default: one hour


@pytest.mark.parametrize(("url", "after", "flags"), LOGIN_PAGES)
def test_guessing_passwords_locks_the_login_page_for_that_user_and_address(
    client, django_user_model, url, after, flags
):
    user = django_user_model.objects.create_user(username="rep", password=PASSWORD, **flags)
    user.groups.add(Group.objects.get_or_create(name=REP_GROUP)[0])
    for _attempt in range(4):  # AXES_FAILURE_LIMIT's default: 5
        assert _login(client, url, "rep", "wrong-guess").status_code == 200  # the form again
    _assert_locked_out(_login(client, url, "rep", "wrong-guess"))

    _assert_locked_out(_login(client, url, "rep", PASSWORD))
    assert _signed_in_user_id(client) is None

    # Per user name + address: the same person from elsewhere still signs in.
    response = _login(Client(), url, "rep", PASSWORD, address="198.51.100.20")
    assert response.status_code == 302
    assert response["Location"] == after


def _lock_out(client, url: str = "/staff/login/") -> None:
    for _attempt in range(5):
        _login(client, url, "rep", "wrong-guess")
    _assert_locked_out(_login(client, url, "rep", PASSWORD))


def test_the_admin_unlocks_a_locked_out_user(client, django_user_model, admin_client):
    django_user_model.objects.create_user(username="rep", password=PASSWORD)
    _lock_out(client)
    changelist = admin_client.get("/admin/axes/accessattempt/")
    assert changelist.status_code == 200
    attempt = AccessAttempt.objects.get(username="rep", ip_address="203.0.113.5")
    assert attempt.failures_since_start == 6
    assert "203.0.113.5" in changelist.content.decode()

    response = admin_client.post(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": [attempt.pk], "post": "yes"},
    )

    assert response.status_code == 302
    assert not AccessAttempt.objects.exists()
    assert _login(client, "/staff/login/", "rep", PASSWORD).status_code == 302


def test_a_command_unlocks_a_locked_out_user(client, django_user_model):
    django_user_model.objects.create_user(username="rep", password=PASSWORD)
    _lock_out(client)

    call_command("axes_reset_ip_username", "203.0.113.5", "rep", stdout=StringIO())

    assert _login(client, "/staff/login/", "rep", PASSWORD).status_code == 302


def test_a_successful_sign_in_forgets_the_earlier_failures(client, django_user_model):
    django_user_model.objects.create_user(username="rep", password=PASSWORD)
    for _attempt in range(4):
        _login(client, "/staff/login/", "rep", "wrong-guess")

    assert _login(client, "/staff/login/", "rep", PASSWORD).status_code == 302
    assert not AccessAttempt.objects.exists()  # AXES_RESET_ON_SUCCESS


def test_the_lockout_page_is_translated(client, django_user_model):
    django_user_model.objects.create_user(username="rep", password=PASSWORD)
    for _attempt in range(5):
        _login(client, "/staff/login/", "rep", "wrong-guess")

    response = client.post(
        "/staff/login/", {"username": "rep", "password": PASSWORD},
        REMOTE_ADDR="203.0.113.5", HTTP_ACCEPT_LANGUAGE="fr",
    )  # fmt: skip

    assert response.status_code == 429
    text = response.content.decode()
    assert "Trop de tentatives de connexion échouées" in text
    assert "Réessayez après le" in text


KEY_FAILURE_BUDGET = 20  # API_KEY_FAILURE_RATE's default: 20/minute


def _prices(client, raw: str, address: str = "203.0.113.9"):
    return client.get("/api/v1/catalog/prices/", headers=auth(raw), REMOTE_ADDR=address)


def test_guessing_api_keys_is_throttled_per_address(client, partner_world):
    used_before = list(ApiKey.objects.values_list("pk", "last_used_at"))
    for number in range(KEY_FAILURE_BUDGET):
        response = _prices(client, f"gq_deadbeef_guess{number}")
        assert response.status_code == 401, (number, response.content[:200])

    # Over the budget: refused before the key is even looked at, the right key too.
    _assert_throttled(_prices(client, "gq_deadbeef_one-more"))
    _assert_throttled(_prices(client, partner_world["key"]))
    assert list(ApiKey.objects.values_list("pk", "last_used_at")) == used_before
    # The partner calling from its own address is not affected.
    assert _prices(client, partner_world["key"], address="198.51.100.30").status_code == 200


def test_a_revoked_key_counts_against_the_budget(client, partner_world):
    _partner, revoked = partner_key("Former")
    api_key_revoke(key=ApiKey.objects.get(prefix=revoked.split("_")[1]))
    for _number in range(KEY_FAILURE_BUDGET):
        assert _prices(client, revoked).status_code == 401

    _assert_throttled(_prices(client, revoked))


def test_a_ten_character_password_is_refused():
    with pytest.raises(ValidationError) as refused:
        validate_password("Zq7#mB2x!v")

    assert refused.value.messages == [
        "This password is too short. It must contain at least 12 characters."
    ]
    validate_password("Zq7#mB2x!vK4")  # twelve: accepted


def test_a_password_like_the_user_name_or_a_common_one_is_refused(django_user_model):
    user = django_user_model(username="margaret.hamilton", email="margaret@example.com")

    with pytest.raises(ValidationError, match="too similar to the username"):
        validate_password("margaret.hamilton1", user=user)
    with pytest.raises(ValidationError, match="too common"):
        validate_password("password1234")


@pytest.mark.parametrize(("url", "after", "flags"), LOGIN_PAGES)
def test_spraying_one_password_over_many_user_names_locks_the_address(
    client, django_user_model, url, after, flags
):
    django_user_model.objects.create_user(username="rep", password=PASSWORD, **flags)
    for number in range(19):  # AXES_ADDRESS_FAILURE_LIMIT's default: 20, one try per name
        assert _login(client, url, f"user{number}", "Summer2026!").status_code == 200
    _assert_locked_out(_login(client, url, "user19", "Summer2026!"))

    _assert_locked_out(_login(client, url, "rep", PASSWORD))
    assert _signed_in_user_id(client) is None
    # Another address is not affected.
    assert _login(client, url, "rep", PASSWORD, address="198.51.100.7").status_code == 302
