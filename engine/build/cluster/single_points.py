"""Single points of failure: the parts of a built option whose failure alone stops the whole
service, spare servers or not.

A spare GPU server (N+1) covers a GPU server failing; it does not cover the cluster's parts
bought once: the one storage server every GPU server reads its data from (NFS), the one leaf
switch that links them, or the one storage switch. Two of each (a storage pair, two switches
with bonded links) would remove them; GPUQuote names them so the customer decides. A
management switch is left out: the service keeps running without remote management. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from ...i18n import Message, gettext_noop
from ..configuration import BuiltOption, PartScope
from .lines import LineRole

# The whole service stops when the single part in one of these roles does.
_SHARED_ROLES = MappingProxyType(
    {
        LineRole.SHARED_STORAGE.value: Message(
            gettext_noop("the one shared storage server (NFS) all GPU servers read from")
        ),
        LineRole.LEAF.value: Message(gettext_noop("the one leaf switch linking the GPU servers")),
        LineRole.SPINE.value: Message(gettext_noop("the one spine switch linking the leaves")),
        LineRole.STORAGE_SWITCH.value: Message(gettext_noop("the one storage network switch")),
        LineRole.STORAGE_SPINE.value: Message(gettext_noop("the one storage network spine switch")),
    }
)
SINGLE_POINT_ROLES = tuple(_SHARED_ROLES)
SERVER = "server"
_SERVER_LABEL = Message(gettext_noop("the one GPU server: no spare takes over when it fails"))


@dataclass(frozen=True, slots=True)
class SinglePoint:
    role: str  # a cluster LineRole value, or ``SERVER`` for the only GPU server
    name: str  # the part's catalog name
    label: Message  # what it is, for people


def single_points_of_failure(option: BuiltOption) -> tuple[SinglePoint, ...]:
    """The option's parts bought once whose failure stops every server's work, in part order:
    the GPU server of a one-server option, then each cluster role held by a single part."""
    found: list[SinglePoint] = []
    if option.servers == 1:
        chassis = next((line for line in option.parts if line.kind == "chassis"), None)
        name = option.gpu_line.name if chassis is None else chassis.name
        found.append(SinglePoint(SERVER, name, _SERVER_LABEL))
    for line in option.parts:
        label = _SHARED_ROLES.get(line.role)
        if line.scope == PartScope.CLUSTER and label is not None and line.quantity == 1:
            found.append(SinglePoint(line.role, line.name, label))
    return tuple(found)
