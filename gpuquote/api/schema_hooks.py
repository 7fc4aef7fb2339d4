"""OpenAPI post-processing: every error the API answers is RFC 9457 problem details, sent as
``application/problem+json`` (``gpuquote.api.errors``); the schema says so for every 4xx/5xx."""

from __future__ import annotations

from typing import Any

PROBLEM_MEDIA_TYPE = "application/problem+json"


def problem_media_type_for_errors(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if not isinstance(operation, dict):
                continue
            for status, response in operation.get("responses", {}).items():
                content = response.get("content") if isinstance(response, dict) else None
                if not str(status).startswith(("4", "5")) or not content:
                    continue
                if "application/json" in content:
                    content[PROBLEM_MEDIA_TYPE] = content.pop("application/json")
    return result
