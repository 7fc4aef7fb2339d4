from django.urls import path

from quotes.api import webhook_views as views

urlpatterns = [
    path("webhooks/", views.WebhookListView.as_view(), name="webhooks"),
    path("webhooks/<int:webhook_id>/", views.WebhookDetailView.as_view(), name="webhook"),
    path(
        "webhooks/<int:webhook_id>/deliveries/",
        views.WebhookDeliveryListView.as_view(),
        name="webhook-deliveries",
    ),
    path("webhooks/<int:webhook_id>/ping/", views.WebhookPingView.as_view(), name="webhook-ping"),
]
