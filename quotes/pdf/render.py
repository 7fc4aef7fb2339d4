"""PDF documents from Django templates with WeasyPrint (A4, paginated, page numbers in CSS).

The templates carry their own CSS (``templates/pdf/base.html``) and inline SVG, so a PDF needs
no network and no static files: the URL fetcher refuses anything but ``data:`` URLs.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.template.loader import render_to_string

# WeasyPrint reports each layout step at INFO; keep the logs for what matters.
logging.getLogger("weasyprint.progress").setLevel(logging.WARNING)


class ExternalResourceError(ValueError):
    """A PDF template asked for a resource outside the document."""


def _no_fetching(url: str, *args: Any, **kwargs: Any) -> Any:
    if url.startswith("data:"):
        from weasyprint.urls import default_url_fetcher

        return default_url_fetcher(url, *args, **kwargs)
    raise ExternalResourceError(f"PDF templates may not load {url}")


def render_pdf(template_name: str, context: dict[str, Any]) -> bytes:
    """Render ``template_name`` with ``context`` (in the active language) to PDF bytes."""
    from weasyprint import HTML

    html = render_to_string(template_name, context)
    return HTML(string=html, base_url=str(settings.BASE_DIR), url_fetcher=_no_fetching).write_pdf()
