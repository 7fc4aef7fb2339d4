"""GPUQuote's calculation core.

Pure, typed Python: nothing in this package imports Django, DRF or Celery. It takes frozen
dataclasses and returns frozen dataclasses; the web, the API, the PDFs and the tasks translate
to and from them (tests/test_architecture.py guards the rule).
"""
