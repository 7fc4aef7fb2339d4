"""Every default and derivation the wizard, the API and the quotes share lives in one module, and
every edge reads it from there: one fact, many places."""

import ast
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import override_settings
from drf_spectacular.generators import SchemaGenerator
from rest_framework.fields import empty

from engine.advice.checklist import Deployment
from engine.assumptions import REGIONS
from engine.money import CURRENCIES
from engine.tco import MAX_HORIZON_YEARS, MIN_HORIZON_YEARS
from quotes.advice import inputs
from quotes.advice.inputs import Uptime, language_codes, utilization_pct_for_uptime
from quotes.api.inputs import ConfigurationInput
from quotes.api.partners.quote_payloads import QuoteCreateInput
from quotes.api.tco_inputs import TcoInput
from quotes.models import Quote, WizardResult
from quotes.wizard.forms import DeploymentForm, UsageForm

ROOT = Path(__file__).resolve().parents[3]


def test_each_uptime_suggests_its_utilisation():
    assert inputs.UPTIMES == ("flexible", "business_hours", "always_on")
    assert utilization_pct_for_uptime(Uptime.FLEXIBLE) == 50
    assert utilization_pct_for_uptime(Uptime.BUSINESS_HOURS) == 30
    assert utilization_pct_for_uptime(Uptime.ALWAYS_ON) == 70


def test_an_unknown_or_missing_uptime_suggests_nothing():
    assert utilization_pct_for_uptime("sometimes") is None
    assert utilization_pct_for_uptime(None) is None
    assert utilization_pct_for_uptime(["always_on"]) is None


def test_the_shared_defaults_and_bounds():
    assert inputs.DEFAULT_UTILIZATION_PCT == 70
    assert Decimal("0.7") == inputs.DEFAULT_UTILIZATION
    assert Decimal(5) == inputs.MIN_UTILIZATION_PCT
    assert Decimal(100) == inputs.MAX_UTILIZATION_PCT
    assert inputs.GROWTH_GPUS_MAX == 16
    assert Decimal("999999999999.99") == inputs.BUDGET_MAX
    assert (inputs.BUDGET_MAX_DIGITS, inputs.BUDGET_DECIMAL_PLACES) == (14, 2)
    assert inputs.DEFAULT_REGION == "FR"
    assert inputs.DEFAULT_REGION in REGIONS
    assert inputs.DEFAULT_HORIZON_YEARS == 3
    assert MIN_HORIZON_YEARS <= inputs.DEFAULT_HORIZON_YEARS <= MAX_HORIZON_YEARS
    assert tuple(d.value for d in Deployment) == inputs.DEPLOYMENTS


def test_currencies_come_from_the_engine():
    assert inputs.DEFAULT_CURRENCY == "EUR"
    assert inputs.DEFAULT_CURRENCY in CURRENCIES
    assert inputs.CURRENCY_CHOICES == [("EUR", "EUR"), ("USD", "USD")]
    assert [code for code, _label in inputs.CURRENCY_CHOICES] == list(CURRENCIES)


def test_languages_are_read_from_the_settings_when_asked():
    assert language_codes() == ["en", "fr"]
    assert inputs.DEFAULT_LANGUAGE == settings.LANGUAGE_CODE == "en"
    with override_settings(LANGUAGES=[("en", "English")]):
        assert language_codes() == ["en"]
        assert inputs.language_choices() == [("en", "English")]


@pytest.mark.django_db  # the deployment step offers the catalog's service tiers
def test_the_wizard_starts_from_the_shared_defaults():
    fields: Any = DeploymentForm().fields
    assert fields["region"].initial == "FR"
    assert fields["currency"].initial == "EUR"
    assert fields["horizon_years"].initial == 3
    assert fields["utilization_pct"].initial == 70
    assert fields["deployment"].initial == "not_sure"
    assert [code for code, _label in fields["currency"].choices] == ["EUR", "USD"]
    assert (fields["utilization_pct"].minimum, fields["utilization_pct"].maximum) == (
        Decimal(5),
        Decimal(100),
    )
    usage: Any = UsageForm().fields
    assert [code for code, _label in usage["uptime"].choices] == list(inputs.UPTIMES)
    assert usage["growth_gpus"].maximum == 16


def test_the_apis_use_the_shared_defaults():
    tco: Any = TcoInput().fields
    assert tco["horizon_years"].default == 3
    assert tco["utilization"].default == Decimal("0.7")
    assert tco["region"].default == "FR"
    assert tco["environment"].default == "production"
    partner: Any = QuoteCreateInput().fields
    # The partner API: no fixed utilisation; without one its uptime suggests it, as in the wizard.
    assert partner["utilization_pct"].required is False
    assert partner["utilization_pct"].default is empty
    assert partner["uptime"].default == "always_on"
    assert partner["deployment"].default == "on_premises"
    assert partner["currency"].default == "EUR"
    assert partner["language"].default == "en"
    assert list(partner["language"].choices) == ["en", "fr"]
    assert partner["growth_gpus"].max_value == 16
    configuration: Any = ConfigurationInput().fields
    assert configuration["currency"].default == "EUR"
    assert configuration["growth_gpus"].max_value == 16


def test_the_documented_regions_are_the_engines():
    schema: Any = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    region = components["TcoRequestSchemaRequest"]["properties"]["region"]
    (reference,) = region["allOf"]
    assert set(components[reference["$ref"].rsplit("/", 1)[-1]]["enum"]) == set(REGIONS)


def test_the_models_choose_from_the_shared_lists():
    assert Quote._meta.get_field("currency").choices == [("EUR", "EUR"), ("USD", "USD")]
    assert Quote._meta.get_field("currency").default == "EUR"
    assert Quote._meta.get_field("language").default == "en"
    language: Any = WizardResult._meta.get_field("language")
    assert [code for code, _name in language.choices] == ["en", "fr"]


def _imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_inputs_import_the_engine_and_settings_only():
    """The models take their choices from here: it must not reach back into the app."""
    path = ROOT / "quotes" / "advice" / "inputs.py"
    project = {
        name
        for name in _imports_of(path)
        if name.split(".")[0] in {"quotes", "catalog", "gpuquote", "rest_framework"}
        or (name.startswith("django") and not name.startswith("django.conf"))
    }
    assert project == set()


def test_no_api_module_imports_the_html_forms():
    for path in sorted((ROOT / "quotes" / "api").rglob("*.py")):
        form_imports = {
            name
            for name in _imports_of(path)
            if name == "quotes.wizard.forms" or name.startswith("quotes.wizard.forms.")
        }
        assert form_imports == set(), path
