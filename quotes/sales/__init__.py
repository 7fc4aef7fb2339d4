"""Sales quotes: services (create, lines, workflow, notify, build), selectors, the staff screens
(views, forms, urls) and the quote PDF."""
