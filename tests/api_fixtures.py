"""Partners and API keys for API tests: ``partner_key("acme")`` -> (partner, raw key)."""

from __future__ import annotations

from quotes.models import Partner
from quotes.partners.keys import api_key_issue


def partner_key(name: str = "Acme Cloud", **key_fields) -> tuple[Partner, str]:
    partner, _created = Partner.objects.get_or_create(name=name)
    _key, raw = api_key_issue(
        partner=partner, name=key_fields.pop("key_name", "tests"), **key_fields
    )
    return partner, raw


def auth(raw: str, scheme: str = "Api-Key") -> dict[str, str]:
    """Headers for Django's test client (``client.get(url, headers=auth(raw))``)."""
    return {"Authorization": f"{scheme} {raw}"}
