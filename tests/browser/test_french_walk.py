"""Every customer and staff page in French, read like a French customer reads it.

The browser asks for French (``Accept-Language: fr``) and walks the wizard's four steps, the
result page of three cases (inference, fine-tuning, training), the checklist PDF (downloaded,
and the page it is printed from read like the others), the quote-sent page, the staff login,
dashboard and quote page, and the customer's quote page ``/q/``. On each page the visible text
(every ``<details>`` opened first, plus the page title and the labels read aloud; citations
marked ``lang="en"`` left out, they keep their publication's words) must hold no English word
that French never uses and no number written the English way (``24.6``): each offence is
printed with the words around it (and the report goes to test-artifacts/).
"""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from django.utils import translation

from quotes.advice.store import result_from_json
from quotes.models import Quote, QuoteRequest, WizardResult
from quotes.sales import services
from quotes.wizard.result_page import result_context
from tests.browser.conftest import quote_form_send
from tests.browser.test_staff_quote import sign_in
from tests.browser.test_wizard import NEXT, fill_step
from tests.quotes.sales.test_quote_services import _user
from tests.quotes.wizard.wizard_cases import CASES

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("eager_celery"),
]

# English words a French sentence never holds (matched as whole words, any case). Brand and
# model names, units and code are not words of this list.
ENGLISH_WORDS = (
    "the",
    "and",
    "with",
    "without",
    "for",
    "of",
    "to",
    "is",
    "are",
    "your",
    "you",
    "this",
    "that",
    "which",
    "when",
    "per",
    "each",
    "server",
    "servers",
    "month",
    "months",
    "year",
    "years",
    "hours",
    "days",
    "price",
    "cost",
    "running",
    "needed",
    "needs",
    "memory",
    "power",
    "storage",
    "network",
    "cooling",
    "electricity",
    "staff",
    "spare",
    "budget option",
    "quote",
    "request",
    "send",
    "sign in",
    "managed hosting",
    "cloud reserved",
    "not planned",
    "passed",
    "failed",
    "checks",
)
ENGLISH = re.compile(r"\b(" + "|".join(re.escape(word) for word in ENGLISH_WORDS) + r")\b", re.I)
# A decimal point between digits: French writes "24,6".
DECIMAL_POINT = re.compile(r"\d\.\d")
# Names that carry a point and are the same in every language: model versions and sizes
# ("Qwen2.5 0.5B"), software versions, standards, addresses. Removed from the text before it
# is searched.
ALLOWED = re.compile(
    r"Llama[ -]3\.\d+|Qwen ?2\.5|\b\d+\.\d+B\b|Mistral[^,;]*v0\.\d|FLUX\.1"
    r"|Stable Diffusion (?:3\.5|XL 1\.0)"
    r"|Phi[ -]3\.5|Gemma[ -]?\d(?:\.\d)?|DeepSeek[- ]V\d(?:\.\d)?|CUDA(?: Toolkit)? \d+\.\d+"
    r"|ROCm \d+\.\d+|PCIe \d\.\d|PCI Express \d\.\d|Gen ?\d\.\d|NVLink \d\.\d|OCP \d\.\d"
    r"|HBM\d(?:\.\d)?e?|DDR\d|IEEE 802\.\d+\w*|v\d+\.\d+(?:\.\d+)?|\d+\.\d+\.\d+"
    r"|arXiv:\d+\.\d+|doi:\S+|\d+\.\d+ (?:ou ultérieure|or later)"
    r"|Ubuntu \d+\.\d+|\d+\.\d+ LTS|Linux \d+(?:\.\d+)?"
    r"|(?:capacité de calcul|compute capability) \d+\.\d(?: / \d+\.\d)?"
    r"|\b(?:U\.[23]|E[13]\.[SL]|M\.2)\b"
    r"|\b\w+@[\w.]+|https?://\S+|www\.\S+|[\w-]+\.(?:com|org|net|io|fr|eu|gov|ai)\b\S*",
    re.I,
)
# English words allowed where they are names: a product or an offer keeps its name (a part's
# name is its maker's capitalised words: "Supermicro CloudDC A+ Server AS-1116CS-TN").
ALLOWED_NAMES = re.compile(
    r"(?:Supermicro|Gigabyte|ASUS|Dell|HPE|Lenovo|Micron|Samsung|Kioxia|Solidigm)"
    r"(?: [A-Z0-9][\w+.-]*)+|"
    r"NVIDIA [\w -]+|GPUQuote|Hugging Face|PyTorch|Transformers|Ampere|Hopper|Blackwell"
    r"|Ada Lovelace|Analytical Engines|Acme|vLLM|TensorRT-LLM|Power Usage Effectiveness"
    r"|Lambda|RunPod|Vast\.ai|Scaleway|OVHcloud|CoreWeave|Hetzner|AWS|Azure|Google Cloud"
    r"|Uptime Institute|Our World in Data|Ember|Eurostat|U\.S\. EIA|EIA"
    # Publication titles a translated source quotes as published.
    r"|How to make the most of hardware service contracts|Electric Power Monthly"
    r"|How much carbon dioxide is produced per kilowatthour of U\.S\. electricity generation\?"
    r"|Employer Costs for Employee Compensation"
    r"|UK Government GHG conversion factors for company reporting"
)
SPACES = re.compile(r"[\s\u00a0\u202f]+")


def offences(text: str) -> list[str]:
    """English words and English decimal points in ``text``, each with 40 characters around."""
    text = SPACES.sub(" ", text)
    cleaned = ALLOWED_NAMES.sub(" ", ALLOWED.sub(" ", text))
    found = []
    for pattern in (ENGLISH, DECIMAL_POINT):
        for match in pattern.finditer(cleaned):
            start, end = max(0, match.start() - 40), match.end() + 40
            found.append(f"{match.group(0)!r} in …{cleaned[start:end]}…")
    return found


def page_text(page) -> str:
    """What a reader sees or hears: the text with every <details> open, the title, and the
    accessible names and placeholders written in attributes."""
    return page.evaluate(
        """() => {
            document.querySelectorAll('details').forEach(d => { d.open = true; });
            // A citation marked as English (lang="en": a publication's own title and words)
            // is read as such, not as French.
            document.querySelectorAll('body [lang]:not([lang|="fr"])')
                .forEach(el => { el.style.display = 'none'; });
            const named = '[aria-label], [title], [placeholder], img[alt]';
            const said = [...document.querySelectorAll(named)]
                .map(el => [el.getAttribute('aria-label'), el.getAttribute('title'),
                            el.getAttribute('placeholder'), el.getAttribute('alt')]
                    .filter(Boolean).join(' '));
            return [document.title, document.body.innerText, ...said].join('\\n');
        }"""
    )


class Reader:
    """Collects the offences of every page read, to report them all at once."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}

    def read(self, name: str, text: str) -> None:
        found = offences(text)
        if found:
            self.found[name] = found

    def page(self, name: str, page) -> None:
        self.read(f"{name} ({page.url})", page_text(page))

    def report(self) -> str:
        return "\n".join(
            f"{name}:\n" + "\n".join(f"  {offence}" for offence in found)
            for name, found in self.found.items()
        )


def test_offences_catch_english_and_decimal_points_but_not_names():
    assert offences("Coût total sur 4 ans : 5 000 € ; 24,6 Go par GPU") == []
    assert offences("Llama 3.1 8B sur NVIDIA H100 SXM, CUDA 12.4, PCIe 5.0") == []
    assert offences("2 serveurs par mois") == []
    found = offences("1 server per month, 24.6 Go")
    assert [offence.split(" in ")[0] for offence in found] == [
        "'server'",
        "'per'",
        "'month'",
        "'4.6'",
    ]


def checklist_html(result_url: str) -> str:
    """The page the checklist PDF of the result at ``result_url`` is printed from, rendered as
    ``checklist_pdf`` renders it: in the result's language. The PDF's text cannot tell which
    words are a citation kept in its publication's language; this page marks them."""
    token = result_url.rstrip("/").rsplit("/", 1)[-1]
    result = WizardResult.objects.get(token=token)
    advice = result_from_json(result.result)
    assert advice is not None
    with translation.override(result.language):
        return render_to_string("pdf/checklist.html", result_context(result, advice))


def walk_case(page, case: dict, reader: Reader, label: str, *, steps: bool) -> str:
    page.goto("/")
    for number, (step, answers) in enumerate(case.items(), start=1):
        fill_step(page, answers, "fr")
        if steps:
            reader.page(f"step {number} ({step})", page)
        page.click(NEXT)
        page.wait_for_load_state()
    assert "/r/" in page.url, page.locator(".error-summary").all_inner_texts()
    reader.page(f"result, {label}", page)
    return page.url


def test_every_page_reads_in_french(new_page, django_user_model, artifacts):
    reader = Reader()
    page = new_page("fr", width=1440)

    # The wizard and the result of three cases; the steps read once (their words are the
    # same whatever the case), the fine-tuning case's with its method tiles.
    walk_case(page, CASES["inference"], reader, "inference", steps=False)
    walk_case(page, CASES["training"], reader, "training", steps=False)
    result_url = walk_case(page, CASES["fine_tuning"], reader, "fine-tuning", steps=True)

    # The checklist PDF of the fine-tuning result: downloaded, and the page it is printed from
    # read like the others (citations kept as published are marked lang="en" there).
    with page.expect_download() as download_info:
        page.click(".result-actions a[href$='checklist.pdf']")
    assert download_info.value.path().read_bytes().startswith(b"%PDF-")
    pdf_page = new_page("fr", width=1440)
    pdf_page.set_content(checklist_html(result_url))
    reader.page("checklist PDF", pdf_page)

    # The quote request and the page that thanks for it.
    quote_form_send(page)
    reader.page("quote sent", page)

    # The staff: sign-in page, dashboard, the quote made from the request.
    call_command("setup_roles", stdout=StringIO())
    rep = _user(django_user_model, "rep", services.REP_GROUP)
    staff = new_page("fr", width=1440)
    staff.goto("/staff/login/")
    reader.page("staff sign-in", staff)
    sign_in(staff, "rep")
    reader.page("staff dashboard", staff)
    quote = services.quote_create_from_request(
        user=rep, quote_request=QuoteRequest.objects.latest("pk")
    )
    staff.goto(f"/staff/quotes/{quote.pk}/")
    reader.page("staff quote", staff)

    # The customer's quote page, once the quote is sent.
    services.quote_send(user=rep, quote=quote, failed_checks_acknowledged=True)
    quote = Quote.objects.get(pk=quote.pk)
    customer = new_page("fr", width=1440)
    customer.goto(f"/q/{quote.token}/")
    reader.page("customer quote", customer)

    (artifacts / "french-walk.txt").write_text(reader.report())
    assert reader.found == {}, "English or English numbers on French pages:\n" + reader.report()
