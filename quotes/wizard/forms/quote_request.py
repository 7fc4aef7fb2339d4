"""The quote request sent from the result page: who asks, from where, their VAT number (optional)
and their consent to be contacted. Text fields reject control characters
(``gpuquote.core.forms``)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from gpuquote.core.countries import CountryFormField, VatNumberMatchesCountry
from gpuquote.core.forms import MultiLineField, SingleLineField


class QuoteRequestForm(VatNumberMatchesCountry, forms.Form):
    name = SingleLineField(label=_("Your name"), max_length=120)
    company = SingleLineField(label=_("Company"), max_length=160)
    email = forms.EmailField(label=_("E-mail"), max_length=254)
    country = CountryFormField(label=_("Country"))
    vat_number = SingleLineField(
        label=_("VAT number"),
        required=False,
        max_length=20,
        help_text=_(
            "A business in another EU country: with its VAT number the quote carries no French "
            "VAT (reverse charge)."
        ),
    )
    message = MultiLineField(
        label=_("Message"),
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    consent = forms.BooleanField(
        label=_(
            "I agree that the sales team contacts me about this quote and keeps my details "
            "for that purpose."
        ),
        error_messages={"required": _("Tick this box so that we may contact you.")},
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"].widget.attrs["autocomplete"] = "name"
        self.fields["company"].widget.attrs["autocomplete"] = "organization"
        self.fields["email"].widget.attrs["autocomplete"] = "email"
        self.fields["country"].widget.attrs["autocomplete"] = "country"
        self.fields["vat_number"].widget.attrs["autocomplete"] = "off"
