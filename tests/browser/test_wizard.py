"""The wizard in a real browser (Chromium): every step, both languages, the result, the PDF.

Each case goes through the four steps the way a person does (clicking choices, typing numbers
the way the language writes them), then the result page's figures are compared with what the
engine says for the same inputs, and axe-core checks every page for serious or critical issues.
"""

from __future__ import annotations

import io
import re

import pytest
from django.utils import translation
from pypdf import PdfReader

from gpuquote.core.formatting import money_format, number_localized
from quotes.models import QuoteRequest, WizardResult
from tests.browser.conftest import publish_screenshot
from tests.quotes.wizard.wizard_cases import CASES, EXPECTED, engine_answer, stored_advice

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEXT = "button[name=nav][value=next]"
BACK = "button[name=nav][value=back]"
SPACES = re.compile(r"[\s\u00a0\u202f]+")


def _typed(value: str, language: str) -> str:
    """A number as a French speaker types it (decimal comma)."""
    return value.replace(".", ",") if language == "fr" else value


def fill_step(page, answers: dict[str, str], language: str) -> None:
    """Answer a step like a person: click the choices, type the numbers."""
    boxes = page.locator("input[type=checkbox]")
    for index in range(boxes.count()):
        box = boxes.nth(index)
        name = box.get_attribute("name")
        if name in answers or not box.is_visible():
            continue
        box.uncheck()  # a box the case leaves out is unticked
    # The task first: it decides which of step 1's choices are shown (the fine-tuning method
    # only for fine-tuning).
    ordered = sorted(answers.items(), key=lambda item: item[0] != "goal")
    for name, value in ordered:
        field = page.locator(f"[name={name}]").first
        kind = field.get_attribute("type")
        if (
            kind == "radio"
            and not field.is_visible()
            and not page.locator(f"details.advanced [name={name}]").count()
        ):
            continue  # hidden because it does not apply: the server ignores it
        if not field.is_visible() and page.locator("details.advanced:not([open])").count():
            page.click("details.advanced > summary")
        if kind == "radio":
            page.check(f"input[name={name}][value='{value}']")
        elif kind == "checkbox":
            page.check(f"input[name={name}]")
        elif field.evaluate("el => el.tagName") == "SELECT":
            page.select_option(f"select[name={name}]", value)
        else:
            field.fill(_typed(value, language))


def walk(page, case: dict, language: str, *, shots=None, axe=None, label: str = "") -> str:
    """Through the four steps; returns the result page's URL."""
    page.goto("/")
    for number, (step, answers) in enumerate(case.items(), start=1):
        assert page.locator(f"form[action='/wizard/{step}/']").count() == 1
        fill_step(page, answers, language)
        if shots is not None:
            shots(page, f"{label}-step{number}-{step}")
        if axe is not None:
            axe(page, f"{label}-step{number}-{step}")
        page.click(NEXT)
        page.wait_for_load_state()
    assert "/r/" in page.url, page.locator(".error-summary").all_inner_texts()
    return page.url


def _text(locator) -> str:
    return SPACES.sub(" ", locator.inner_text()).strip()


def _same(text: str) -> str:
    return SPACES.sub(" ", text).strip()


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("name", ["inference", "fine_tuning", "training"])
def test_whole_wizard_gives_the_engines_figures(new_page, shoot, axe, name, language):
    page = new_page(language)
    label = f"{language}-{name}"
    check = axe if name == "fine_tuning" else None

    walk(page, CASES[name], language, shots=shoot, axe=check, label=label)

    assert page.locator("html").get_attribute("lang") == language
    result = WizardResult.objects.get()
    assert result.language == language
    expected = EXPECTED[name]
    advice, chosen, tco = engine_answer(expected)
    currency = expected["currency"]
    with translation.override(language):
        for option, cost in tco.options.items():
            shown = _text(page.locator(f".totals [data-option='{option}'] .figure-value"))
            assert shown == _same(money_format(cost.total.amount, currency, places=0))
        price = _text(page.locator(f".option[data-tier='{chosen.tier}'] .price"))
        assert price == _same(money_format(chosen.totals.price.amount, currency, places=0))
        memory = _text(page.locator("[data-figure=memory] .figure-value"))
        rounded = round(advice.sizing.memory_gb.total, 2)
        unit = "Go" if language == "fr" else "GB"  # gigaoctets in French
        assert memory == _same(number_localized(rounded, 1)) + f" {unit}"
    assert page.locator(".option").count() == len(advice.build.options)
    assert page.locator("svg.chart:visible").count() == 1  # the drawing for this width
    assert page.locator(".checklist li").count() == 5
    path = shoot(page, f"{label}-result")
    if check is not None:
        axe(page, f"{label}-result")
    if name == "fine_tuning" and language == "en":
        publish_screenshot(path, "result.png")


def test_checklist_pdf_downloads_in_the_results_language(new_page):
    page = new_page("fr")
    walk(page, CASES["fine_tuning"], "fr")

    with page.expect_download() as download_info:
        page.click(".result-actions a[href$='checklist.pdf']")
    download = download_info.value

    assert download.suggested_filename.endswith(".pdf")
    reader = PdfReader(io.BytesIO(download.path().read_bytes()))
    text = SPACES.sub(" ", "\n".join(p.extract_text() for p in reader.pages))
    result = WizardResult.objects.get()
    tco = stored_advice(result).tco
    assert tco is not None
    with translation.override("fr"):
        total = money_format(tco.on_premises.total.amount, "EUR", places=0)
    assert _same(total) in text
    for number in range(1, 6):
        assert f"{number}. " in text
    assert "Llama 3.1 8B" in text


def test_back_and_next_keep_every_answer(new_page):
    page = new_page("en")
    case = CASES["fine_tuning"]
    page.goto("/")
    fill_step(page, case["project"], "en")
    page.fill("#id_batch_size", "12")
    page.click(NEXT)
    fill_step(page, case["data"], "en")
    page.click(NEXT)
    page.check("input[name=environment][value=experiment]")

    page.click(BACK)  # from step 3, with an unfinished answer
    assert page.url.endswith("/wizard/data/")
    assert page.input_value("#id_total_gb") == "2"
    assert page.input_value("#id_epochs") == "3"
    page.click(BACK)
    assert page.url.endswith("/wizard/project/")
    assert page.is_checked("input[name=goal][value=fine_tuning]")
    assert page.input_value("#id_model") == "llama-3.1-8b"
    assert page.input_value("#id_batch_size") == "12"
    page.click(NEXT)
    page.click(NEXT)
    assert page.url.endswith("/wizard/usage/")
    assert page.is_checked("input[name=environment][value=experiment]")


def test_invalid_input_is_explained_and_focused(new_page, shoot, axe):
    page = new_page("en")
    page.goto("/")
    page.check("input[name=goal][value=fine_tuning]")
    page.click("details.advanced > summary")
    page.fill("#id_batch_size", "0")

    page.click(NEXT)

    summary = page.locator("#error-summary")
    assert summary.is_visible()
    assert "Enter a number from 1 to 65,536." in summary.inner_text()
    assert page.evaluate("document.activeElement.id") == "error-summary"
    field = page.locator("#id_batch_size")
    assert field.get_attribute("aria-invalid") == "true"
    assert "id_batch_size_error" in field.get_attribute("aria-describedby")
    assert page.locator("details.advanced").get_attribute("open") is not None
    summary.locator("a").first.click()
    assert page.evaluate("location.hash") == "#id_batch_size"
    shoot(page, "en-invalid-step1")
    axe(page, "en-invalid-step1")


def test_keyboard_only(new_page):
    page = new_page("en")
    page.goto("/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")  # skip to the content
    # The goal radios: focus the group, move with the arrow keys.
    page.focus("input[name=goal][value=inference]")
    page.keyboard.press("ArrowRight")
    assert page.is_checked("input[name=goal][value=fine_tuning]")
    page.click("details.advanced > summary")
    page.focus("#id_batch_size")
    page.keyboard.press("Control+a")
    page.keyboard.type("16")
    page.keyboard.press("Enter")  # Enter submits with the default button: Next
    page.wait_for_url("**/wizard/data/")
    # Tab order on a step: the fields first, then Next, then Back.
    page.focus("#id_deadline_days")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.value") == "next"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.value") == "back"


def test_works_without_javascript(new_page, shoot):
    page = new_page("en", javascript=False)

    walk(page, CASES["training"], "en")

    assert page.locator(".checklist li").count() == 5
    assert page.locator("svg.chart:visible").count() == 1
    shoot(page, "en-nojs-training-result")


def test_phone_layout_has_no_sideways_scrolling(new_page, shoot):
    page = new_page("fr", width=390, height=844)
    page.goto("/")
    shoot(page, "fr-phone-step1-project")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    walk(page, CASES["inference"], "fr")

    shoot(page, "fr-phone-inference-result")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_send_me_a_quote(new_page, shoot, axe):
    page = new_page("en")
    url = walk(page, CASES["inference"], "en")
    page.goto(url + "#quote")

    page.fill("#id_name", "Ada Lovelace")
    page.fill("#id_company", "Analytical Engines")
    page.fill("#id_email", "ada@example.com")
    page.select_option("#id_country", "GB")
    page.click(".quote-form button[type=submit]")
    assert page.locator("#error-summary").is_visible()  # no consent yet
    assert "Tick this box" in page.locator("#error-summary").inner_text()
    assert QuoteRequest.objects.count() == 0
    page.check("#id_consent")
    page.click(".quote-form button[type=submit]")

    page.wait_for_url(re.compile(r"/quote/sent/"))
    request = QuoteRequest.objects.get()
    assert (request.company, request.country.code, request.consent) == (
        "Analytical Engines",
        "GB",
        True,
    )
    assert url in page.input_value("#private-url")
    axe(page, "en-quote-sent")
    shoot(page, "en-quote-sent")


def test_step_screenshot_for_the_readme(new_page, shoot, axe):
    page = new_page("en")
    page.goto("/")
    page.check("input[name=goal][value=fine_tuning]")
    axe(page, "en-step1-project")

    path = shoot(page, "en-step1-project")

    publish_screenshot(path, "wizard-step-1.png")


def test_the_fine_tuning_method_shows_only_for_fine_tuning(new_page):
    page = new_page("en")
    page.goto("/")
    method = page.locator("#id_method_field")

    page.check("input[name=goal][value=inference]")
    assert not method.is_visible()
    page.check("input[name=goal][value=fine_tuning]")
    assert method.is_visible()
    page.check("input[name=goal][value=pretraining]")
    assert not method.is_visible()

    without_js = new_page("en", javascript=False)
    without_js.goto("/")
    assert without_js.locator("#id_method_field").is_visible()  # labelled "Fine-tuning method"
