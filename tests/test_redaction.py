"""The one redactor: each secret in every form it may be written in, and nothing else."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

import pytest

from coder.redaction import REDACTED, Redactor

KEY = "live-9f8e7d6c5b4a/3210+zyxw é"


@pytest.mark.parametrize(
    "written",
    [
        KEY,
        json.dumps(KEY)[1:-1],  # inside a JSON string, ensure_ascii
        json.dumps(KEY, ensure_ascii=False)[1:-1],
        json.dumps(KEY)[1:-1].replace("/", "\\/"),  # encoders that escape "/"
        quote(KEY, safe=""),
        quote(KEY, safe="").lower(),
        quote_plus(KEY),
        quote(KEY),  # "/" kept, as in a path
    ],
    ids=["plain", "json", "json-utf8", "json-slash", "url", "url-lower", "url-plus", "url-path"],
)
def test_every_written_form_of_a_secret_is_hidden(written: str) -> None:
    redact = Redactor([KEY])
    assert redact.text(f"<{written}>") == f"<{REDACTED}>"
    assert redact.count(f"a {written} b {written}") == 2


def test_a_secret_cut_short_is_hidden_but_ordinary_text_is_not() -> None:
    redact = Redactor([KEY])
    assert redact.text(f"wrote {KEY[:12]}…") == f"wrote {REDACTED}…"
    assert redact.text(f"{KEY[:12]} and more") == f"{KEY[:12]} and more"  # not cut: not it
    assert redact.text("li…") == "li…"


def test_short_values_are_never_secrets_and_key_shapes_always_are() -> None:
    redact = Redactor(["short", None, ""])
    assert redact.secrets == []
    assert redact.text("a short text") == "a short text"
    shaped = "sk-abcdefgh12345678 ghp_0123456789abcdefABCD Bearer abc.def-123456"
    assert redact.text(shaped) == f"{REDACTED} {REDACTED} Bearer {REDACTED}"
    assert redact.count(shaped) == 0  # a made-up key in a test is not a known secret


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("key=sk-abcdefgh12345678", "key=[REDACTED]"),
        ("token ghp_0123456789abcdefABCD.", "token [REDACTED]."),
        ("gho_0123456789abcdefABCD", "[REDACTED]"),
        ("github_pat_0123456789abcdef_XYZ", "[REDACTED]"),
        ("Authorization: BEARER abc.def-123456", "Authorization: BEARER [REDACTED]"),
        ("authorization: bearer abc.def-123456", "authorization: bearer [REDACTED]"),
        ("no key here: sk- gh_ bearer", "no key here: sk- gh_ bearer"),
    ],
)
def test_each_key_shape_is_hidden_alone_in_any_text_around_it(text: str, hidden: str) -> None:
    assert Redactor([]).text(text) == hidden


def test_a_secret_inside_another_is_hidden_whole() -> None:
    redact = Redactor(["abcdefgh", "xxabcdefghyy"])
    assert redact.text("1 xxabcdefghyy 2 abcdefgh") == f"1 {REDACTED} 2 {REDACTED}"


def test_data_is_redacted_keys_and_all() -> None:
    redact = Redactor([KEY])
    data = {KEY: [KEY, 1, None, True, (f"x{KEY}",)], "n": 2.5}
    assert redact(data) == {REDACTED: [REDACTED, 1, None, True, [f"x{REDACTED}"]], "n": 2.5}


def test_the_environment_gives_its_secret_looking_values() -> None:
    environ = {"MY_SERVICE_TOKEN": "token-value-1234", "HOME": "/home/someone-long"}
    redact = Redactor.from_environment("configured-key-99", environ=environ)
    assert redact.secrets == ["configured-key-99", "token-value-1234"]
