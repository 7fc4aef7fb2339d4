"""SSRF and local-file attacks through partner webhooks and price feeds (issue 12, items 6-7).

Every outbound request goes through ``gpuquote.core.outbound``: the host is resolved, every
address must be global (or explicitly allowed by ``OUTBOUND_ALLOW_PRIVATE_HOSTS``), and the
connection goes to the vetted address. DNS is faked (``socket.getaddrinfo`` patched): the names
below resolve to what they resolve to on the real Internet, and nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from catalog.models import PriceRefreshRun, PriceSource, RunStatus
from catalog.services import price_source_refresh
from gpuquote.core.outbound import (
    OutboundPolicy,
    OutboundRefusedError,
    address_is_public,
    outbound_target,
)
from quotes.models import DeliveryStatus, Webhook, WebhookAttempt
from quotes.partners.webhooks.delivery import webhook_deliver
from quotes.partners.webhooks.events import webhook_event_emit
from tests.api_fixtures import auth, partner_key

WEBHOOKS = reverse("api:webhooks")
PUBLIC_V4 = "93.184.215.14"  # example.com
NOT_PUBLIC = "The URL must point to a public host, not a local or private address."
NOT_RESOLVED = "The host name could not be resolved."

# What these names resolve to on the Internet (localtest.me and nip.io are public wildcards).
DNS = {
    "localtest.me": ["127.0.0.1"],
    "127.0.0.1.nip.io": ["127.0.0.1"],
    "10.0.0.5.nip.io": ["10.0.0.5"],
    "metadata.google.internal": ["169.254.169.254"],
    "v6-loopback.example": ["::1"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "nat64.example": ["64:ff9b::7f00:1"],
    "nat64-local.example": ["64:ff9b:1::a00:1"],
    "sixtofour.example": ["2002:c0a8:0101::1"],  # 6to4 of 192.168.1.1
    "teredo.example": ["2001:0:4136:e378:8000:63bf:3fff:fdd2"],
    "cgnat.example": ["100.64.0.1"],
    "multicast.example": ["224.0.0.251"],
    "multicast6.example": ["ff02::1"],
    "unspecified.example": ["0.0.0.0"],  # noqa: S104 - an attack target, not a bind address
    "reserved.example": ["240.0.0.1"],
    "ula.example": ["fd00::1"],
    "mixed.example": [PUBLIC_V4, "10.1.2.3"],  # one private record is enough to refuse
    "acme.example": [PUBLIC_V4],
    "dns64-public.example": ["64:ff9b::5db8:d70e"],  # NAT64 of 93.184.215.14
    "v6-public.example": ["2606:4700:4700::1111"],
}


def fake_getaddrinfo(table: dict[str, list[str]]) -> Callable[..., list]:
    real = socket.getaddrinfo

    def getaddrinfo(host, port, family=0, type=0, proto=0, flags=0):
        try:  # a literal (as the C library reads it, "2130706433" too): no DNS involved
            return real(host, port, family, type, proto, flags | socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        results = []
        for text in table[host]:
            address = ipaddress.ip_address(text)
            if address.version == 4:
                results.append((socket.AF_INET, socket.SOCK_STREAM, 6, "", (text, int(port or 0))))
            else:
                results.append(
                    (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (text, int(port or 0), 0, 0))
                )
        return results

    return getaddrinfo


@pytest.fixture
def dns(monkeypatch) -> dict[str, list[str]]:
    table = dict(DNS)
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo(table))
    return table


@pytest.fixture
def connects(monkeypatch) -> list[tuple]:
    """Every socket address a connection was opened to."""
    seen: list[tuple] = []
    real_connect = socket.socket.connect

    def connect(self, address):
        seen.append(address)
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


# --- The policy (pure) --------------------------------------------------------------------------

INTERNAL_NAMES = [name for name in DNS if name not in ("acme.example", "dns64-public.example")]
INTERNAL_NAMES.remove("v6-public.example")


@pytest.mark.parametrize("name", INTERNAL_NAMES)
def test_policy_refuses_a_name_resolving_to_a_non_global_address(dns, name):
    with pytest.raises(OutboundRefusedError) as refused:
        outbound_target(f"https://{name}/hook", policy=OutboundPolicy())
    assert refused.value.reason == "address"


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "[64:ff9b::7f00:1]",
        "[64:ff9b::a9fe:a9fe]",  # NAT64 of 169.254.169.254
        "[64:ff9b:1::a00:1]",
        "[2002:7f00:1::1]",
        "169.254.169.254",
        "100.100.100.200",  # CGNAT (Alibaba Cloud metadata)
        "0.0.0.0",  # noqa: S104
        "[fe80::1]",
        "224.0.0.1",
        "2130706433",  # 127.0.0.1 written as one number: not a host we accept either way
    ],
)
def test_policy_refuses_a_non_global_address_literal(dns, host):
    with pytest.raises(OutboundRefusedError):
        outbound_target(f"https://{host}/hook", policy=OutboundPolicy())


@pytest.mark.parametrize(
    "text",
    ["64:ff9b::7f00:1", "::ffff:10.0.0.1", "2002:a00:1::1", "64:ff9b:1::808:808", "ff0e::1"],
)
def test_addresses_embedding_a_private_ipv4_are_not_public(text):
    assert address_is_public(ipaddress.ip_address(text)) is False


@pytest.mark.parametrize(
    "text", [PUBLIC_V4, "2606:4700:4700::1111", "64:ff9b::808:808", "::ffff:8.8.8.8"]
)
def test_global_addresses_are_public(text):
    assert address_is_public(ipaddress.ip_address(text)) is True


@pytest.mark.parametrize("name", ["acme.example", "dns64-public.example", "v6-public.example"])
def test_policy_accepts_a_name_resolving_to_global_addresses_only(dns, name):
    target = outbound_target(f"https://{name}/hook?x=1", policy=OutboundPolicy())
    assert (target.host, target.port, target.path) == (name, 443, "/hook?x=1")
    assert [str(a) for a in target.addresses] == [str(ipaddress.ip_address(a)) for a in DNS[name]]


def test_policy_allows_private_hosts_only_when_listed(dns):
    policy = OutboundPolicy.from_entries(["10.0.0.0/8", "localtest.me"])
    assert [str(a) for a in outbound_target("http://10.0.0.5.nip.io/", policy=policy).addresses]
    assert outbound_target("http://localtest.me:8080/", policy=policy).port == 8080
    with pytest.raises(OutboundRefusedError):
        outbound_target("http://127.0.0.1.nip.io/", policy=policy)
    with pytest.raises(OutboundRefusedError):
        outbound_target("http://metadata.google.internal/", policy=policy)


def test_policy_requires_https_when_told(dns):
    with pytest.raises(OutboundRefusedError) as refused:
        outbound_target("http://acme.example/", policy=OutboundPolicy(https_only=True))
    assert refused.value.reason == "scheme"


# --- Webhooks: registration ---------------------------------------------------------------------


@pytest.fixture
def acme(db):
    return partner_key("Acme Cloud")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("https://localtest.me/hook", NOT_PUBLIC),
        ("https://127.0.0.1.nip.io/hook", NOT_PUBLIC),
        ("https://metadata.google.internal/computeMetadata/v1/", NOT_PUBLIC),
        ("https://[64:ff9b::7f00:1]/hook", NOT_PUBLIC),
        ("https://[::ffff:127.0.0.1]/hook", NOT_PUBLIC),
        ("https://mixed.example/hook", NOT_PUBLIC),
        ("https://nowhere.invalid/hook", NOT_RESOLVED),
    ],
)
def test_webhook_registration_refuses_a_host_resolving_to_a_private_address(
    client, dns, acme, url, message
):
    response = client.post(
        WEBHOOKS, {"url": url}, content_type="application/json", headers=auth(acme[1])
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"url": [message]}
    assert not Webhook.objects.exists()


@pytest.mark.django_db
def test_webhook_change_to_a_private_host_changes_nothing(client, dns, acme):
    webhook = Webhook.objects.create(partner=acme[0], url="https://acme.example/hook")

    response = client.patch(
        reverse("api:webhook", kwargs={"webhook_id": webhook.pk}),
        {"url": "https://localtest.me/hook"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"url": [NOT_PUBLIC]}
    webhook.refresh_from_db()
    assert webhook.url == "https://acme.example/hook"


@pytest.mark.django_db
def test_webhook_registration_accepts_a_public_host(client, dns, acme):
    response = client.post(
        WEBHOOKS,
        {"url": "https://acme.example/hook"},
        content_type="application/json",
        headers=auth(acme[1]),
    )

    assert response.status_code == 201
    assert Webhook.objects.get().url == "https://acme.example/hook"


# --- Webhooks: delivery -------------------------------------------------------------------------


def _delivery(webhook: Webhook):
    return webhook_event_emit(
        partner_ids=[webhook.partner_id], event_type="quote.status_changed", data={"n": 1}
    )[0]


def _attempts(delivery) -> list[tuple]:
    return list(
        WebhookAttempt.objects.filter(delivery=delivery)
        .order_by("number")
        .values_list("number", "response_status", "error")
    )


@pytest.mark.django_db
def test_webhook_dns_rebinding_to_metadata_is_refused_at_delivery(dns, acme, connects):
    """Registered while public; the name then resolves to the metadata service."""
    webhook = Webhook.objects.create(partner=acme[0], url="https://rebind.example/hook")
    dns["rebind.example"] = [PUBLIC_V4]
    delivery = _delivery(webhook)
    dns["rebind.example"] = ["169.254.169.254"]

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    assert connects == []
    assert _attempts(delivery) == [(1, None, "unreachable")]
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.FAILED


@pytest.mark.django_db
def test_webhook_connects_to_the_vetted_address_without_resolving_again(
    dns, acme, connects, httpserver, settings, monkeypatch
):
    """A name answering a private address on the second lookup gets no second lookup."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1/32"]
    lookups: list[str] = []
    answers = iter([["127.0.0.1"], ["169.254.169.254"], ["169.254.169.254"]])
    fake = fake_getaddrinfo(dns)

    def counting(host, *args, **kwargs):
        if host == "rebind.example":
            lookups.append(host)
            dns[host] = next(answers)
        return fake(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counting)
    httpserver.expect_request("/hook", method="POST").respond_with_data("ok")
    url = f"http://rebind.example:{httpserver.port}/hook"
    webhook = Webhook.objects.create(partner=acme[0], url=url)
    delivery = _delivery(webhook)

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is True

    assert lookups == ["rebind.example"]
    assert [address[0] for address in connects] == ["127.0.0.1"]
    [(request, _response)] = httpserver.log
    assert request.headers["Host"] == f"rebind.example:{httpserver.port}"


@pytest.mark.django_db
def test_partners_never_read_connection_errors(client, acme, settings):
    """A port scan through webhooks: every failure reads "unreachable", whatever happened."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["127.0.0.1"]
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    webhook = Webhook.objects.create(partner=acme[0], url=f"http://127.0.0.1:{port}/hook")
    delivery = _delivery(webhook)

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    response = client.get(
        reverse("api:webhook-deliveries", kwargs={"webhook_id": webhook.pk}),
        headers=auth(acme[1]),
    )
    [row] = response.json()["results"]
    assert [(a["number"], a["response_status"], a["error"]) for a in row["attempts"]] == [
        (1, None, "unreachable")
    ]


@pytest.mark.django_db
def test_a_webhook_to_loopback_is_not_called_without_the_allow_setting(acme, httpserver):
    httpserver.expect_request("/hook", method="POST").respond_with_data("ok")
    webhook = Webhook.objects.create(partner=acme[0], url=httpserver.url_for("/hook"))
    delivery = _delivery(webhook)

    assert webhook_deliver(delivery_id=delivery.pk, last_attempt=True) is False

    assert httpserver.log == []
    assert _attempts(delivery) == [(1, None, "unreachable")]


# --- Price feeds --------------------------------------------------------------------------------

FEED = "sku,price\nGPU-A,1.00\n"


def _source(location: str, **fields) -> PriceSource:
    values = {"name": "Attack", "kind": "supplier", "format": "csv", "currency": "EUR"}
    return PriceSource.objects.create(location=location, **(values | fields))


def _refresh(source: PriceSource) -> PriceRefreshRun:
    return price_source_refresh(source_id=source.pk)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "location",
    [
        "http://localtest.me:{port}/feed",
        "http://127.0.0.1:{port}/feed",
        "http://[::ffff:127.0.0.1]:{port}/feed",
        "http://metadata.google.internal/computeMetadata/v1/",
    ],
)
def test_a_feed_url_to_an_internal_address_is_refused(dns, httpserver, connects, location):
    httpserver.expect_request("/feed").respond_with_data(FEED)
    source = _source(location.format(port=httpserver.port))

    run = _refresh(source)

    assert run.status == RunStatus.FAILED
    assert "not a public address" in run.message
    assert connects == []
    assert httpserver.log == []


@pytest.mark.django_db
def test_a_feed_redirect_to_an_internal_address_is_refused(dns, httpserver, connects, settings):
    """The supplier's own host is allowed by name; its redirect to loopback is checked again."""
    settings.OUTBOUND_ALLOW_PRIVATE_HOSTS = ["prices.supplier.internal"]
    dns["prices.supplier.internal"] = ["127.0.0.1"]
    httpserver.expect_request("/feed").respond_with_data(
        "", status=302, headers={"Location": f"http://127.0.0.1:{httpserver.port}/admin-only"}
    )
    httpserver.expect_request("/admin-only").respond_with_data(FEED)
    source = _source(f"http://prices.supplier.internal:{httpserver.port}/feed")

    run = _refresh(source)

    assert run.status == RunStatus.FAILED
    assert "not a public address" in run.message
    assert [request.path for request, _ in httpserver.log] == ["/feed"]
    assert len(connects) == 1


@pytest.fixture
def feed_root(tmp_path, settings) -> Iterator[Path]:
    root = tmp_path / "feeds"
    root.mkdir()
    (root / "good.csv").write_text(FEED)
    (tmp_path / "secret.csv").write_text("TOP-SECRET-KEY,hunter2\n")
    settings.PRICE_FEED_FILE_ROOT = root
    return root


SETTINGS_FILE = Path(__file__).resolve().parents[2] / "gpuquote" / "settings" / "base.py"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "location",
    [
        "../secret.csv",
        "sub/../../secret.csv",
        "{tmp}/secret.csv",
        str(SETTINGS_FILE),
        "gpuquote/settings/base.py",
        "link.csv",
        "file://{tmp}/secret.csv",
    ],
)
def test_a_file_source_outside_the_feed_directory_is_refused(feed_root, location):
    (feed_root / "link.csv").symlink_to(feed_root.parent / "secret.csv")
    location = location.format(tmp=feed_root.parent)
    source = _source(location)

    run = _refresh(source)

    assert run.status == RunStatus.FAILED
    assert run.bytes_read is None
    for secret in ("TOP-SECRET", "hunter2", "Django settings", "SECRET_KEY"):
        assert secret not in run.message
    with pytest.raises(ValidationError) as invalid:
        source.full_clean()
    assert list(invalid.value.message_dict) == ["location"]


@pytest.mark.django_db
def test_the_default_feed_directory_is_the_committed_samples_only(settings):
    from gpuquote.settings import base as project_settings

    root = project_settings.BASE_DIR / "catalog" / "feeds" / "samples"
    assert Path(project_settings.PRICE_FEED_FILE_ROOT) == root
    assert sorted(p.name for p in root.iterdir() if p.suffix in (".csv", ".json"))


@pytest.mark.django_db
def test_a_feed_error_never_echoes_the_content(feed_root):
    (feed_root / "leak.csv").write_text("TOP-SECRET-KEY=abc,other\nx,y\n")
    source = _source("leak.csv")

    run = _refresh(source)

    assert run.status == RunStatus.REJECTED
    assert run.message == (
        "Unreadable feed: line 1: the CSV header lacks required column(s) sku, price."
    )


@pytest.mark.django_db
def test_a_feed_header_repeating_a_column_names_the_columns_by_position(feed_root):
    (feed_root / "twice.csv").write_text("sku,price,TOP-SECRET,TOP-SECRET\n")
    run = _refresh(_source("twice.csv"))

    assert run.status == RunStatus.REJECTED
    assert run.message == "Unreadable feed: line 1: columns 3 and 4 have the same name."


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("location", "message"),
    [
        ("http://metadata.google.internal/latest/", NOT_PUBLIC),
        ("http://localtest.me/feed.csv", NOT_PUBLIC),
        ("http://[64:ff9b::7f00:1]/feed.csv", NOT_PUBLIC),
        ("http://nowhere.invalid/feed.csv", NOT_RESOLVED),
        ("ftp://acme.example/feed.csv", "Use an http(s) URL or a file path."),
        (
            "../secret.csv",
            "The file must be inside the price feed directory (PRICE_FEED_FILE_ROOT).",
        ),
    ],
)
def test_a_price_source_location_is_checked_when_saved(dns, feed_root, location, message):
    source = PriceSource(
        name="Attack", kind="supplier", format="csv", currency="EUR", location=location
    )

    with pytest.raises(ValidationError) as invalid:
        source.full_clean()

    assert invalid.value.message_dict == {"location": [message]}


@pytest.mark.django_db
def test_a_price_source_at_a_public_url_or_inside_the_root_is_valid(dns, feed_root):
    for location in ("https://acme.example/feed.csv", "good.csv"):
        PriceSource(
            name="Fine", kind="supplier", format="csv", currency="EUR", location=location
        ).full_clean()


@pytest.mark.django_db
def test_connection_errors_stored_before_the_fix_are_not_shown_to_partners(client, acme):
    webhook = Webhook.objects.create(partner=acme[0], url="https://acme.example/hook")
    delivery = _delivery(webhook)
    WebhookAttempt.objects.create(
        delivery=delivery, number=1, error="ConnectionRefusedError: [Errno 111] refused"
    )

    response = client.get(
        reverse("api:webhook-deliveries", kwargs={"webhook_id": webhook.pk}),
        headers=auth(acme[1]),
    )

    [row] = response.json()["results"]
    assert [a["error"] for a in row["attempts"]] == ["unreachable"]


def test_the_outbound_policy_module_imports_no_framework_at_load():
    """Only ``outbound_policy``/``outbound_url_errors`` read Django, lazily, inside the call."""
    import ast

    import gpuquote.core.outbound as module

    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    top_level = [
        node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    assert [name for name in top_level if name and name.split(".")[0] == "django"] == []
