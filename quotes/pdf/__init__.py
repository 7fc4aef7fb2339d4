"""Documents: ``render`` turns a Django template into A4 PDF bytes with WeasyPrint (no network,
no static files); ``quote`` is the sales quote document (its context is shared with the staff
preview and the customer's page); ``charts`` draws the SVG cost chart that the result page, the
checklist and the quote share. The wizard's checklist PDF renders through ``render``."""
