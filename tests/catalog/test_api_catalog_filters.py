"""The catalog lists' FilterSets filter on exactly the parameters their serializers validate and
document (the currency of the parts lists prices the answer, it does not filter it)."""

import pytest
from django_filters import FilterSet
from rest_framework import serializers

from catalog.api import views
from catalog.api.filters import (
    ChassisFilter,
    ChassisQueryInput,
    CpuFilter,
    CpuQueryInput,
    GpuFilter,
    GpuQueryInput,
    PriceFilter,
    PriceQueryInput,
    filtered,
)
from catalog.models import Chassis
from tests.factories import chassis_make


@pytest.mark.parametrize(
    ("filterset", "query_input", "not_filters"),
    [
        (GpuFilter, GpuQueryInput, {"currency"}),
        (CpuFilter, CpuQueryInput, {"currency"}),
        (ChassisFilter, ChassisQueryInput, {"currency"}),
        (PriceFilter, PriceQueryInput, set()),
    ],
)
def test_each_filterset_filters_on_its_serializers_parameters(
    filterset: type[FilterSet], query_input: type[serializers.Serializer], not_filters: set[str]
) -> None:
    assert set(filterset.base_filters) == set(query_input().fields) - not_filters


def test_every_list_view_filters_with_the_filterset_of_its_query() -> None:
    pairs = {
        (view.query_input_class, view.filterset_class)
        for view in (views.GpuListView, views.CpuListView, views.ChassisListView)
    } | {(views.CurrentPriceListView.query_input_class, views.CurrentPriceListView.filterset_class)}

    assert pairs == {
        (GpuQueryInput, GpuFilter),
        (CpuQueryInput, CpuFilter),
        (ChassisQueryInput, ChassisFilter),
        (PriceQueryInput, PriceFilter),
    }
    assert views.GpuDetailView.filterset_class is None


@pytest.mark.django_db
def test_the_chassis_form_factor_filter_keeps_chassis_that_accept_it() -> None:
    sxm = chassis_make(sku="CH-SXM", accepts_sxm=True, accepts_pcie=False)
    pcie = chassis_make(sku="CH-PCIE", accepts_sxm=False, accepts_pcie=True)

    found = filtered(
        ChassisFilter, {"form_factor": "sxm", "currency": "EUR"}, Chassis.objects.all()
    )

    assert list(found) == [sxm]
    assert pcie not in found
