"""The decision checklist PDF: A4, paginated, the five points with the customer's figures."""

from __future__ import annotations

import io
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.urls import reverse
from django.utils import translation
from pypdf import PdfReader

from gpuquote.core.formatting import money_format
from quotes.models import WizardResult
from tests.quotes.wizard.wizard_cases import stored_advice, wizard_result_make

pytestmark = pytest.mark.django_db

POINTS_EN = (
    "GPU memory validated",
    "System synergy",
    "Growth plan",
    "Deployment decision",
    "Total cost",
)
A4_POINTS = (595.28, 841.89)


@pytest.fixture(autouse=True)
def catalog(seed_catalog):
    """The seed catalog (``load_catalog``, copied: tests/conftest.py ``seed_catalog``)."""


def _pdf_text(response) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(response.content))
    text = "\n".join(page.extract_text() for page in reader.pages)
    return reader, re.sub(r"[\s\u00a0\u202f]+", " ", text)


def _one_decimal(value: float) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)


def _download(client, result: WizardResult):
    return client.get(reverse("wizard:checklist_pdf", kwargs={"token": result.token}))


def test_checklist_pdf_has_the_five_points_and_the_customers_figures(client):
    result = wizard_result_make(client, language="en")

    response = _download(client, result)

    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"].startswith('attachment; filename="gpuquote-checklist-')
    assert response.content.startswith(b"%PDF-")
    reader, text = _pdf_text(response)
    assert len(reader.pages) >= 2
    width, height = (float(v) for v in reader.pages[0].mediabox.upper_right)
    assert (round(width, 2), round(height, 2)) == A4_POINTS
    for number, title in enumerate(POINTS_EN, start=1):
        assert f"{number}. {title}" in text
    assert f"Page 1 / {len(reader.pages)}" in text
    advice = stored_advice(result)
    assert advice.tco is not None
    memory = _one_decimal(advice.sizing.memory_gb.total)
    assert f"The work needs {memory} GB of GPU memory" in text
    total = advice.tco.on_premises.total.amount
    with translation.override("en"):
        assert money_format(total, "EUR", places=0) in text
        assert money_format("50000", "EUR", places=0) in text  # the budget, in point 5
    assert "Not decided yet" in text  # point 4 from the answer "not sure"
    assert text.count("— MET") + text.count("— NOT MET") == 5
    assert "Llama 3.1 8B" in text  # the answers
    assert "Assumptions and sources" in text
    assert "Eurostat" in text or "SDES" in text  # a source of the electricity price
    # The seed's dollar prices, in euros: the rate they were converted at
    assert "Prices observed in USD are converted at 1 EUR = 1.0824 USD (ECB euro reference" in text


def test_checklist_pdf_is_in_the_results_language(client):
    result = wizard_result_make(client, language="fr")

    # The visitor now browses in English: the PDF stays in the result's language.
    client.cookies["django_language"] = "en"
    response = _download(client, result)

    assert response.status_code == 200
    _reader, text = _pdf_text(response)
    assert result.language == "fr"
    advice = stored_advice(result)
    assert advice.tco is not None
    with translation.override("fr"):
        formatted = money_format(advice.tco.on_premises.total.amount, "EUR", places=0)
    assert re.sub(r"[\u00a0\u202f]", " ", formatted) in text  # 72 610 €, French style
    assert "Les prix relevés en USD sont convertis à 1 EUR = 1,0824 USD (BCE" in text
    memory = _one_decimal(advice.sizing.memory_gb.total)
    assert str(memory).replace(".", ",") + " Go" in text  # gigaoctets, the French unit
    assert re.search(r" 1 / \d+", text)  # page numbers


def test_checklist_pdf_is_private(client):
    result = wizard_result_make(client, language="en")

    response = _download(client, result)

    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert response["Cache-Control"] == "private, no-store"
