from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save
from django.utils.translation import gettext_lazy as _


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = _("Catalog")

    def ready(self) -> None:
        # A part, a price or a cloud price saved here is seen by this process's next answer at
        # once (other processes within DATA_VERSION_MS: catalog.selectors.versions).
        from catalog.selectors.versions import versions_forget

        for model in self.get_models():
            for signal in (post_save, post_delete):
                signal.connect(
                    versions_forget, sender=model, dispatch_uid=f"versions-{model.__name__}"
                )
