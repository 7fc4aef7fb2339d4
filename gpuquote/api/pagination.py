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


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> Any:
        try:
            return super().paginate_queryset(queryset, request, view)
        except NotFound as error:
            raise InputError(
                {"page": [_("No such page: pages are numbered from 1 to the last one.")]}
            ) from error
