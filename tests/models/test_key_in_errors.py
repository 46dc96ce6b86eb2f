"""The model client never puts its own key into an error, whatever the provider echoes."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from coder.models import ModelError, OpenAIModel, OpenAIModelConfig
from tests.llm_server import Behaviour, LLMServer, status

KEY = "live-0a1b2c3d4e5f/6789+key"  # `/` and `+`: its escaped and encoded forms differ
FORMS = (KEY, json.dumps(KEY)[1:-1], quote(KEY, safe=""))
ECHO = f"bad key Bearer {KEY} (json {json.dumps(KEY)}, url {quote(KEY, safe='')})"


def _model(server: LLMServer) -> OpenAIModel:
    config = OpenAIModelConfig(
        name="m", base_url=server.base_url, api_key=KEY, max_retries=0, label="compat:m"
    )
    return OpenAIModel(config, sleep=lambda seconds: None)


@pytest.mark.parametrize(
    "answer",
    [
        status(401, {"error": {"message": ECHO}}),
        status(403, {"error": ECHO}),
        status(404, {"error": {"message": ECHO}}),
        status(400, {"detail": ECHO}),
        status(503, {"error": {"message": ECHO}}),
        Behaviour(body=ECHO.encode(), headers={"Content-Type": "text/plain"}),
        Behaviour(body={"choices": [], "error": ECHO}),
    ],
    ids=["401", "403", "404", "400", "503", "not-json", "no-choices"],
)
def test_an_error_body_echoing_the_key_does_not_carry_it(
    answer: Any, llm_server: LLMServer
) -> None:
    llm_server.script(answer)
    with pytest.raises(ModelError) as raised:
        _model(llm_server).complete([{"role": "user", "content": "hi"}], [])
    assert llm_server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    message = str(raised.value)
    assert "[REDACTED]" in message
    assert not any(form in message for form in FORMS), message
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
