from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class QuotesConfig(AppConfig):
    name = "quotes"
    verbose_name = _("Quotes")

    def ready(self) -> None:
        # Status and price announcements reach partner webhooks through one relay.
        from quotes.partners.relay import webhook_relay_connect

        webhook_relay_connect()
