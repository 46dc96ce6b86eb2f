"""The model layer: the Model seam and its implementations (see base.py for the contract)."""

from coder.models.base import (
    PRIVATE_DATA,
    Message,
    Model,
    ModelAuthError,
    ModelError,
    ModelNotFoundError,
    ModelSpecError,
    ModelUnavailableError,
    Reply,
    ScriptExhaustedError,
    ToolCall,
    ToolSchema,
    Usage,
    estimate_tokens,
    wire_messages,
)
from coder.models.openai import OpenAIModel, OpenAIModelConfig
from coder.models.presets import KNOWN_PREFIXES, PRESETS, Preset, make_model
from coder.models.scripted import ScriptedModel, ScriptError
from coder.models.textproto import TextProtocolModel

__all__ = [
    "KNOWN_PREFIXES",
    "PRESETS",
    "PRIVATE_DATA",
    "Message",
    "Model",
    "ModelAuthError",
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
    "estimate_tokens",
    "make_model",
    "wire_messages",
]
