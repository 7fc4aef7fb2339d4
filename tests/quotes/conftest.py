import pytest


@pytest.fixture(autouse=True)
def _quotes_tasks_run_in_process(eager_celery):
    """Quote e-mails and expiry are asserted on right after the call: run them in-process."""
