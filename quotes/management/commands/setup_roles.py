"""Create the sales groups and give them their permissions; running it again changes nothing
(except restoring a permission someone removed).

``sales rep``: view, add and change quotes, revisions and lines; view events and requests; view
the managed offer's service tiers. ``sales manager``: the same, plus ``quotes.approve_discount``
and adding and changing the service tiers (catalog data the sales team prices). The workflow
reads the role from the group names (``gpuquote.core.roles.sales_role``); the permissions serve
the admin.
"""

from __future__ import annotations

from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand
from django.db import transaction

from gpuquote.core.roles import MANAGER_GROUP, REP_GROUP

REP_CODENAMES = (
    "view_quote",
    "add_quote",
    "change_quote",
    "view_quoterevision",
    "add_quoterevision",
    "change_quoterevision",
    "view_quoteline",
    "add_quoteline",
    "change_quoteline",
    "delete_quoteline",
    "view_quoteevent",
    "view_quoterequest",
    "change_quoterequest",
    "view_wizardresult",
)
MANAGER_CODENAMES = (*REP_CODENAMES, "approve_discount")
# The catalog's permissions each group has (the service tiers are the sales team's prices).
REP_CATALOG_CODENAMES = ("view_servicetier",)
MANAGER_CATALOG_CODENAMES = (*REP_CATALOG_CODENAMES, "add_servicetier", "change_servicetier")


class Command(BaseCommand):
    help = "Create the 'sales rep' and 'sales manager' groups with their permissions."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        groups = (
            (REP_GROUP, {"quotes": REP_CODENAMES, "catalog": REP_CATALOG_CODENAMES}),
            (MANAGER_GROUP, {"quotes": MANAGER_CODENAMES, "catalog": MANAGER_CATALOG_CODENAMES}),
        )
        for name, by_app in groups:
            group, created = Group.objects.get_or_create(name=name)
            count = 0
            for app_label, codenames in by_app.items():
                permissions = Permission.objects.filter(
                    content_type__app_label=app_label, codename__in=codenames
                )
                missing = set(codenames) - set(permissions.values_list("codename", flat=True))
                if missing:
                    raise RuntimeError(f"unknown permissions {sorted(missing)}: run migrate first")
                group.permissions.add(*permissions)
                count += len(codenames)
            verb = "created" if created else "up to date"
            self.stdout.write(f"{name}: {verb}, {count} permissions")
