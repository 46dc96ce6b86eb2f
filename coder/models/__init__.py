"""The model layer: the Model seam (base.py, the contract) and its clients: openai, the
text protocol, presets and scripted. May import coder.errors, coder.config and coder.redaction;
nothing else of coder."""

from coder.models.base import (
    PRIVATE_DATA,
    Message,
    Model,
    ModelAuthError,
    ModelContextError,
    ModelError,
    ModelNotFoundError,
    ModelSpecError,
    ModelUnavailableError,
    Reply,
    ScriptExhaustedError,
    ToolCall,
    ToolSchema,
    Usage,
)
from coder.models.openai import OpenAIModel, OpenAIModelConfig
from coder.models.presets import (
    KNOWN_PREFIXES,
    PRESETS,
    Preset,
    make_model,
    model_from_settings,
    preset_note,
)
from coder.models.scripted import ScriptedModel, ScriptError
from coder.models.textproto import TextProtocolModel

__all__ = [
    "KNOWN_PREFIXES",
    "PRESETS",
    "PRIVATE_DATA",
    "Message",
    "Model",
    "ModelAuthError",
    "ModelContextError",
    "ModelError",
    "ModelNotFoundError",
    "ModelSpecError",
    "ModelUnavailableError",
    "OpenAIModel",
    "OpenAIModelConfig",
    "Preset",
    "Reply",
    "ScriptError",
    "ScriptExhaustedError",
    "ScriptedModel",
    "TextProtocolModel",
    "ToolCall",
    "ToolSchema",
    "Usage",
    "make_model",
    "model_from_settings",
    "preset_note",
]
