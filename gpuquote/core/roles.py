"""Who belongs to the sales team, and with which role: the one rule for the staff screens, the
API (the catalog's and the partner endpoints) and the workflow. It lives in the shared core because
both apps ask it.

The role comes from the user's groups (``setup_roles`` creates them); a superuser is the admin and
acts as a sales manager. ``is_staff`` alone grants nothing here: it only opens the Django admin,
where model permissions decide. Partners' webhooks belong to the partners: the sales team may read
them (support), but only managers and the admin may change, delete or ping one
(``may_change_partner_webhooks``); reps read only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.utils.translation import gettext

from engine.commerce.workflow import Role

if TYPE_CHECKING:
    from django.contrib.auth.models import User

REP_GROUP = "sales rep"
MANAGER_GROUP = "sales manager"
WEBHOOK_EDITORS = frozenset({Role.SALES_MANAGER})


def sales_role(user: Any) -> Role | None:
    """The sales role of a signed-in, active user; None for anyone else (anonymous, a partner's
    key, staff in no sales group)."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return None
    if user.is_superuser:
        return Role.SALES_MANAGER
    groups = set(user.groups.values_list("name", flat=True))
    if MANAGER_GROUP in groups:
        return Role.SALES_MANAGER
    if REP_GROUP in groups:
        return Role.SALES_REP
    return None


def user_role(user: Any) -> Role:
    """``sales_role``, or ``PermissionDenied`` (a 403 on the staff screens) for anyone else."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        raise PermissionDenied(gettext("Sign in as a member of the sales team."))
    role = sales_role(user)
    if role is None:
        raise PermissionDenied(gettext("Only the sales team can work on quotes."))
    return role


def signed_in_user(request: HttpRequest) -> User:
    """The user of a request that only signed-in users reach (the admin, the staff screens),
    typed as such; ``PermissionDenied`` (a 403) should an anonymous one ever get there."""
    user = request.user
    if not user.is_authenticated:
        raise PermissionDenied(gettext("Sign in as a member of the sales team."))
    return user


def may_change_partner_webhooks(role: Role | None) -> bool:
    """Change, delete or ping a partner's webhook from a staff session."""
    return role in WEBHOOK_EDITORS
