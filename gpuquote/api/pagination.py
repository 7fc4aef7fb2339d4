"""Page-number pagination for every list: ``?page=2&page_size=100`` (at most 200).

A page that does not exist is a 400 naming ``page`` (DRF's default is a 404, which would tell a
partner the list itself is missing).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination

from gpuquote.api.errors import InputError
from gpuquote.core.numbers import NumberRejected, number_text_check
from gpuquote.core.validators import number_message


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> Any:
        for name in (self.page_query_param, self.page_size_query_param):
            raw = request.query_params.get(name)
            if raw is None:
                continue
            try:  # the shared number rules, before DRF or Django's paginator calls int()
                number_text_check(raw)
            except NumberRejected as exc:
                raise InputError({name: [number_message(exc.code)]}) from exc
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound as error:
            raise InputError(
                {"page": [_("No such page: pages are numbered from 1 to the last one.")]}
            ) from error
