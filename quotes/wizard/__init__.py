"""The customer wizard: its step forms, views and result page.

It builds on ``quotes.advice`` (the shared inputs and the one computation); advice never imports
the wizard, and the API never imports its HTML forms.
"""
