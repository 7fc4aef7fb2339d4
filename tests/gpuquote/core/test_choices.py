"""Django choices built from an enum declared once (gpuquote.core.choices)."""

from enum import StrEnum

import pytest

from catalog.models import Cable, Chassis, Drive, Gpu, Part, ServiceTier
from engine.build.parts import (
    Availability,
    CableEnds,
    CableKind,
    Cooling,
    DriveFormFactor,
    DriveKind,
    FormFactor,
    GpuClass,
    PartKind,
)
from engine.commerce.pricing import LineKind, Recurrence
from engine.commerce.service_tiers import Coverage
from engine.commerce.workflow import QuoteStatus
from gpuquote.core.choices import choices_of, values_of
from quotes.models import Quote, QuoteLine


class Fan(StrEnum):
    AXIAL = "axial"
    RADIAL = "radial"


def test_choices_follow_the_enums_order_with_plain_string_values():
    choices = choices_of(Fan, {Fan.RADIAL: "Radial", Fan.AXIAL: "Axial"})

    assert choices == [("axial", "Axial"), ("radial", "Radial")]
    assert [type(value) for value, _label in choices] == [str, str]
    assert values_of(Fan) == ["axial", "radial"]
    assert [type(value) for value in values_of(Fan)] == [str, str]


def test_a_member_without_a_label_fails_at_import():
    with pytest.raises(ValueError, match=r"labels missing for \['RADIAL'\]"):
        choices_of(Fan, {Fan.AXIAL: "Axial"})


def test_a_label_for_another_enums_member_fails():
    with pytest.raises(ValueError, match=r"labels for unknown \['air'\]"):
        choices_of(Fan, {Fan.AXIAL: "Axial", Fan.RADIAL: "Radial", Cooling.AIR: "Air"})


@pytest.mark.parametrize(
    ("model", "field", "enum"),
    [
        (Part, "kind", PartKind),
        (Part, "availability", Availability),
        (Gpu, "form_factor", FormFactor),
        (Gpu, "gpu_class", GpuClass),
        (Drive, "drive_kind", DriveKind),
        (Drive, "form_factor", DriveFormFactor),
        (Chassis, "cooling", Cooling),
        (Cable, "cable_kind", CableKind),
        (Cable, "ends", CableEnds),
        (ServiceTier, "coverage", Coverage),
        (Quote, "status", QuoteStatus),
        (QuoteLine, "kind", LineKind),
        (QuoteLine, "recurrence", Recurrence),
    ],
)
def test_the_models_choices_are_the_engines_enums(model, field, enum):
    values = [value for value, _label in model._meta.get_field(field).choices]

    assert values == [member.value for member in enum]
