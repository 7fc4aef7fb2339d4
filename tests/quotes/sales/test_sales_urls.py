"""The sales screens have their own ``sales`` namespace; their paths did not move with the names."""

import pytest
from django.urls import resolve, reverse

from quotes.sales import public_views, views

PER_QUOTE = {
    "quote_detail": ("/staff/quotes/7/", views.quote_detail),
    "line_add_part": ("/staff/quotes/7/lines/part/", views.line_add_part),
    "line_add_service": ("/staff/quotes/7/lines/other/", views.line_add_service),
    "line_update": ("/staff/quotes/7/lines/update/", views.line_update),
    "line_remove": ("/staff/quotes/7/lines/remove/", views.line_remove),
    "terms_update": ("/staff/quotes/7/terms/", views.terms_update),
    "service_tier_set": ("/staff/quotes/7/support/", views.service_tier_set),
    "workload_set": ("/staff/quotes/7/workload/", views.workload_set),
    "option_apply": ("/staff/quotes/7/proposal/", views.option_apply),
    "quote_action": ("/staff/quotes/7/action/", views.quote_action),
    "quote_pdf": ("/staff/quotes/7/quote.pdf", views.quote_pdf),
    "customer_update": ("/staff/quotes/7/customer/", views.customer_update),
    "quote_approve": ("/staff/quotes/7/approve/", views.quote_approve),
    "quote_from_request": ("/staff/requests/7/quote/", views.quote_from_request),
}


@pytest.mark.parametrize(("name", "expected"), PER_QUOTE.items())
def test_a_staff_screen_keeps_its_path_and_is_named_after_its_view(name, expected):
    path, view = expected

    assert reverse(f"sales:{name}", args=[7]) == path
    match = resolve(path)
    assert (match.view_name, match.func) == (f"sales:{name}", view)


@pytest.mark.parametrize(
    ("name", "path"),
    [
        ("login", "/staff/login/"),
        ("logout", "/staff/logout/"),
        ("dashboard", "/staff/"),
        ("quote_new", "/staff/quotes/new/"),
    ],
)
def test_the_staff_entry_points_keep_their_paths(name, path):
    assert reverse(f"sales:{name}") == path
    assert resolve(path).view_name == f"sales:{name}"


def test_the_customers_quote_link_keeps_its_path():
    assert reverse("sales:quote_public", args=["abc"]) == "/q/abc/"
    assert reverse("sales:quote_public_pdf", args=["abc"]) == "/q/abc/quote.pdf"
    assert resolve("/q/abc/").func == public_views.quote_public
    assert resolve("/q/abc/quote.pdf").func == public_views.quote_public_pdf
