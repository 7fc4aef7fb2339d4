"""The quote PDF as a commercial document: the seller's legal details (from settings), payment
terms with the bank details, and the customer's signature block."""

from __future__ import annotations

import io
import re

import pytest
from pypdf import PdfReader

from quotes.pdf.quote import quote_pdf_render
from quotes.sales import services
from tests.quotes.sales.test_quote_services import _user, quote_make

pytestmark = pytest.mark.django_db


@pytest.fixture
def rep(django_user_model):
    return _user(django_user_model, "rep", services.REP_GROUP)


def _text(quote) -> str:
    pages = PdfReader(io.BytesIO(quote_pdf_render(quote=quote))).pages
    # One space for every run of blanks: a line break in the PDF is not a difference here.
    return re.sub(r"\s+", " ", " ".join(page.extract_text() for page in pages))


def test_the_embedded_demo_seller_is_printed_and_marked_as_sample_data(rep):
    text = _text(quote_make(rep))

    assert "SAMPLE DATA: the seller below is a demo company." in text
    for detail in (
        "GPUQuote Demo SAS",
        "1 rue de l'Exemple, 75001 Paris, France",
        "SIRET 999 999 998 00019",
        "SIREN 999 999 998",
        "VAT number FR11999999998",
        "FR76 9999 9000 0100 0000 0000 115",
        "GPUQFRPPXXX",
    ):
        assert detail in text, detail


def test_a_configured_seller_is_printed_without_the_sample_mark(rep, settings):
    settings.SELLER_IS_SAMPLE = False
    settings.SELLER_NAME = "Hébergement GPU SAS"
    settings.SELLER_ADDRESS = "10 quai de Seine, 69001 Lyon, France"
    settings.SELLER_SIREN = "123123127"
    settings.SELLER_SIRET = ""
    settings.SELLER_VAT_NUMBER = "FR86123123127"
    settings.SELLER_IBAN = "FR7612345000420001234567854"
    settings.SELLER_BIC = ""

    text = _text(quote_make(rep))

    assert "SAMPLE DATA" not in text
    assert "Hébergement GPU SAS" in text
    assert "SIREN 123 123 127" in text
    assert "SIRET" not in text
    assert "VAT number FR86123123127" in text
    assert "IBAN FR76 1234 5000 4200 0123 4567 854" in text
    assert "BIC" not in text


def test_payment_terms_and_the_signature_block(rep, settings):
    settings.QUOTE_PAYMENT_TERMS_DAYS = 45

    text = _text(quote_make(rep))

    assert "Payment within 45 days of invoice, by bank transfer." in text
    assert "Account holder GPUQuote Demo SAS" in text
    assert "Customer's agreement" in text
    assert "Signature, preceded by “Good for agreement”" in text
    assert "Date Name and position" in text
