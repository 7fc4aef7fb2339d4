"""The sales team's screens under /staff/ and the customer's private quote link /q/<token>/.

Included from ``gpuquote/urls.py`` in their own namespace: ``sales:<name>``, each name the
name of its view (``sales:quote_detail`` -> ``views.quote_detail``).
"""

from django.contrib.auth import views as auth_views
from django.urls import path

from gpuquote.core.form_body import form_body_limited
from quotes.sales import public_views, views

app_name = "sales"

urlpatterns = [
    path(
        "staff/login/",
        form_body_limited(auth_views.LoginView.as_view(template_name="staff/login.html")),
        name="login",
    ),
    path(
        "staff/logout/",
        auth_views.LogoutView.as_view(next_page="sales:login"),
        name="logout",
    ),
    path("staff/", views.dashboard, name="dashboard"),
    path("staff/quotes/new/", views.quote_new, name="quote_new"),
    path("staff/requests/<int:pk>/quote/", views.quote_from_request, name="quote_from_request"),
    path("staff/quotes/<int:pk>/", views.quote_detail, name="quote_detail"),
    path("staff/quotes/<int:pk>/lines/part/", views.line_add_part, name="line_add_part"),
    path("staff/quotes/<int:pk>/lines/other/", views.line_add_service, name="line_add_service"),
    path("staff/quotes/<int:pk>/lines/update/", views.line_update, name="line_update"),
    path("staff/quotes/<int:pk>/lines/remove/", views.line_remove, name="line_remove"),
    path("staff/quotes/<int:pk>/terms/", views.terms_update, name="terms_update"),
    path("staff/quotes/<int:pk>/support/", views.service_tier_set, name="service_tier_set"),
    path("staff/quotes/<int:pk>/workload/", views.workload_set, name="workload_set"),
    path("staff/quotes/<int:pk>/proposal/", views.option_apply, name="option_apply"),
    path("staff/quotes/<int:pk>/action/", views.quote_action, name="quote_action"),
    path("staff/quotes/<int:pk>/quote.pdf", views.quote_pdf, name="quote_pdf"),
    path("staff/quotes/<int:pk>/customer/", views.customer_update, name="customer_update"),
    path("staff/quotes/<int:pk>/approve/", views.quote_approve, name="quote_approve"),
    path("q/<slug:token>/", public_views.quote_public, name="quote_public"),
    path("q/<slug:token>/quote.pdf", public_views.quote_public_pdf, name="quote_public_pdf"),
]
