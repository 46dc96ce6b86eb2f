"""The JSON schema a model sees for a tool's arguments, derived from its pydantic model."""

from __future__ import annotations

import copy
import functools
from typing import Any

from pydantic import BaseModel


def parameters_schema(args_model: type[BaseModel]) -> Any:
    """The argument model's JSON schema without titles (a copy the caller may change)."""
    return copy.deepcopy(_parameters(args_model))


@functools.cache
def _parameters(args_model: type[BaseModel]) -> Any:
    """The argument model's JSON schema, made once: pydantic takes milliseconds for it,
    and every model request of every agent lists the tools."""
    return _strip_titles(args_model.model_json_schema())


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's `title` keys: they cost tokens and tell the model nothing."""
    if isinstance(schema, dict):
        return {
            key: _strip_titles(value)
            for key, value in schema.items()
            if not (key == "title" and isinstance(value, str))
        }
    if isinstance(schema, list):
        return [_strip_titles(item) for item in schema]
    return schema
