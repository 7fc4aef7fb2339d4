"""The wizard's steps in order: each step's name, form and title."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from quotes.wizard.forms.base import WizardStepForm
from quotes.wizard.forms.deployment import DeploymentForm, UsageForm
from quotes.wizard.forms.workload import DataForm, ProjectForm

STEP_FORMS: dict[str, type[WizardStepForm]] = {
    form.step: form for form in (ProjectForm, DataForm, UsageForm, DeploymentForm)
}
STEPS: tuple[str, ...] = tuple(STEP_FORMS)
STEP_TITLES = {
    "project": _("Project"),
    "data": _("Data"),
    "usage": _("Production or experiment"),
    "deployment": _("Deployment and costs"),
}
