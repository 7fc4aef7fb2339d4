from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save
from django.utils.translation import gettext_lazy as _


class QuotesConfig(AppConfig):
    name = "quotes"
    verbose_name = _("Quotes")

    def ready(self) -> None:
        # Status and price announcements reach partner webhooks through one relay.
        from quotes.partners.relay import webhook_relay_connect

        webhook_relay_connect()

        # A regional assumption saved here is seen by this process's next answer at once.
        from catalog.selectors import versions_forget
        from quotes.models import RegionAssumption

        for signal in (post_save, post_delete):
            signal.connect(versions_forget, sender=RegionAssumption, dispatch_uid="versions-ra")
