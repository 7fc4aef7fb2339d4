from django.urls import path

from quotes.api import calculators
from quotes.api.partners import quotes, webhooks

urlpatterns = [
    # The public calculators.
    path("models/", calculators.ModelListView.as_view(), name="models"),
    path("sizing/", calculators.SizingView.as_view(), name="sizing"),
    path("configurations/", calculators.ConfigurationsView.as_view(), name="configurations"),
    path("tco/", calculators.TcoView.as_view(), name="tco"),
    path("service-tiers/", calculators.ServiceTierListView.as_view(), name="service-tiers"),
    # The partner endpoints.
    path("quotes/", quotes.QuoteListCreateView.as_view(), name="quote-list"),
    path("quotes/<int:pk>/", quotes.QuoteDetailView.as_view(), name="quote-detail"),
    path("quotes/<int:pk>/pdf/", quotes.QuotePdfView.as_view(), name="quote-pdf"),
    path("webhooks/", webhooks.WebhookListView.as_view(), name="webhooks"),
    path("webhooks/<int:webhook_id>/", webhooks.WebhookDetailView.as_view(), name="webhook"),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        webhooks.WebhookDeliveryListView.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "webhooks/<int:webhook_id>/ping/", webhooks.WebhookPingView.as_view(), name="webhook-ping"
    ),
]
