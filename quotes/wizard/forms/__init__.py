"""The customer wizard's forms: one per step, plus the quote request.

``fields``: the bounded number fields that read localised numbers; ``base``: what every step
shares; ``workload`` (steps 1-2) and ``deployment`` (steps 3-4): the step forms; ``steps``: their
order and titles; ``quote_request``: the request sent from the result page.
"""

from quotes.wizard.forms.base import WizardStepForm
from quotes.wizard.forms.deployment import REGION_NAMES, DeploymentForm, UsageForm
from quotes.wizard.forms.fields import number_parse
from quotes.wizard.forms.quote_request import QuoteRequestForm
from quotes.wizard.forms.steps import STEP_FORMS, STEP_TITLES, STEPS
from quotes.wizard.forms.workload import DataForm, ProjectForm

__all__ = [
    "REGION_NAMES",
    "STEPS",
    "STEP_FORMS",
    "STEP_TITLES",
    "DataForm",
    "DeploymentForm",
    "ProjectForm",
    "QuoteRequestForm",
    "UsageForm",
    "WizardStepForm",
    "number_parse",
]
