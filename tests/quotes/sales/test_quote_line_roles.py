"""A quote line keeps the role the builder gave its part: every role fits the column.

SQLite does not enforce a CharField's length and PostgreSQL does: a multi-server option put on a
quote stopped with "value too long for type character varying(8)" on "storage_adapter" (and on
"management_link" before it). This holds on both databases."""

from __future__ import annotations

from engine.build.cluster.lines import CLUSTER_ROLES
from quotes.models import QuoteLine


def test_every_role_the_builder_gives_a_part_fits_the_quote_line():
    width = QuoteLine._meta.get_field("role").max_length

    roles = {"", "boot", "data", *CLUSTER_ROLES}

    assert width is not None
    assert max(len(role) for role in roles) <= width
    assert "storage_adapter" in roles
