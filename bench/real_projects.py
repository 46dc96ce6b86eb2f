"""The projects bench_real.py runs and the intended source changes it makes to each.

Six pinned PyPI sdists that ship their tests and have runtime dependencies. Four are
tuned on (their unrepaired tests are written up for the engine's authors); flask and
environs are HELD OUT: nobody tunes the engine on them, their figures are reported
apart. Each change is a set of exact replacements in the source (see
builtin_corpus.apply_edits) of a kind maintainers make: default, rename, keyword,
exception (a new exception type), message.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = ("default", "rename", "keyword", "exception", "message")


@dataclass(frozen=True)
class Change:
    name: str
    kind: str
    edits: tuple[tuple[str, ...], ...]
    """(file, old, new[, copies]) replacements in the project's source."""
    pin: str = ""
    """For a default change: the keyword whose old value a repair may pass explicitly;
    such a test passes on both sources and still tests what it tested (not weakened)."""


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    install: tuple[str, ...]
    """`pip install` arguments in the project's .venv: the project, then test deps."""
    changes: tuple[Change, ...]
    held_out: bool = False

    @property
    def folder(self) -> str:
        return f"{self.name}-{self.version}"


_JINJA_ENV = "src/jinja2/environment.py"
_JINJA_INIT_HEAD = (
    "        self,\n        block_start_string: str = BLOCK_START_STRING,\n"
    "        block_end_string: str = BLOCK_END_STRING,\n"
    "        variable_start_string: str = VARIABLE_START_STRING,\n"
    "        variable_end_string: str = VARIABLE_END_STRING,\n"
    "        comment_start_string: str = COMMENT_START_STRING,\n"
    "        comment_end_string: str = COMMENT_END_STRING,\n"
    "        line_statement_prefix: t.Optional[str] = LINE_STATEMENT_PREFIX,\n"
    "        line_comment_prefix: t.Optional[str] = LINE_COMMENT_PREFIX,\n"
)
_UNDEFINED_NAME_ERROR = (
    "class UndefinedError(TemplateRuntimeError):\n"
    '    """Raised if a template tries to operate on :class:`Undefined`."""\n'
)
_MA_FIELDS = "src/marshmallow/fields.py"
_ENVIRONS = "src/environs/__init__.py"
_ENV_NOT_SET = "f'Environment variable \"{proxied_key or parsed_key}\" not set'"

JINJA2 = Project(
    "jinja2",
    "3.1.4",
    ("-e", ".", "pytest==7.4.0"),
    (
        Change(
            "undefined raises UndefinedNameError",
            "exception",
            (
                (
                    "src/jinja2/exceptions.py",
                    _UNDEFINED_NAME_ERROR,
                    _UNDEFINED_NAME_ERROR + "\n\nclass UndefinedNameError(TemplateRuntimeError):\n"
                    '    """Raised if a template uses a name that is not defined."""\n',
                ),
                (
                    "src/jinja2/runtime.py",
                    "from .exceptions import UndefinedError\n",
                    "from .exceptions import UndefinedError\n"
                    "from .exceptions import UndefinedNameError\n",
                ),
                (
                    "src/jinja2/runtime.py",
                    "        exc: t.Type[TemplateRuntimeError] = UndefinedError,",
                    "        exc: t.Type[TemplateRuntimeError] = UndefinedNameError,",
                ),
            ),
        ),
        Change(
            "Environment(trim_blocks=) renamed trim_block_newlines=",
            "keyword",
            (
                (
                    _JINJA_ENV,
                    _JINJA_INIT_HEAD + "        trim_blocks: bool = TRIM_BLOCKS,\n",
                    _JINJA_INIT_HEAD + "        trim_block_newlines: bool = TRIM_BLOCKS,\n",
                ),
                (
                    _JINJA_ENV,
                    "        self.trim_blocks = trim_blocks\n",
                    "        self.trim_blocks = trim_block_newlines\n",
                ),
            ),
        ),
    ),
)

MARSHMALLOW = Project(
    "marshmallow",
    "3.21.3",
    ("-e", ".[tests]"),
    (
        Change(
            "required message reworded",
            "message",
            (
                (
                    _MA_FIELDS,
                    '"required": "Missing data for required field.",',
                    '"required": "This field is required.",',
                ),
            ),
        ),
        Change(
            "Field(data_key=) renamed external_key=",
            "keyword",
            (
                (
                    _MA_FIELDS,
                    "        data_key: str | None = None,\n",
                    "        external_key: str | None = None,\n",
                ),
                (
                    _MA_FIELDS,
                    "        self.data_key = data_key\n",
                    "        self.data_key = external_key\n",
                ),
            ),
        ),
        Change(
            "unknown fields excluded by default",
            "default",
            (
                (
                    "src/marshmallow/schema.py",
                    'getattr(meta, "unknown", RAISE)',
                    'getattr(meta, "unknown", EXCLUDE)',
                ),
            ),
            pin="unknown=",
        ),
    ),
)

BLEACH = Project(
    "bleach",
    "6.1.0",
    ("-e", ".", "pytest==7.4.2"),
    (
        Change(
            "clean(strip=) renamed strip_disallowed_tags=",
            "keyword",
            (
                (
                    "bleach/__init__.py",
                    "    strip=False,\n    strip_comments=True,",
                    "    strip_disallowed_tags=False,\n    strip_comments=True,",
                ),
                (
                    "bleach/__init__.py",
                    "        strip=strip,\n",
                    "        strip=strip_disallowed_tags,\n",
                ),
            ),
        ),
        Change(
            "linkify's default callback target_blank, not nofollow",
            "default",
            (
                (
                    "bleach/linkifier.py",
                    "DEFAULT_CALLBACKS = [linkify_callbacks.nofollow]",
                    "DEFAULT_CALLBACKS = [linkify_callbacks.target_blank]",
                ),
            ),
            pin="callbacks=",
        ),
    ),
)

WSPROTO = Project(
    "wsproto",
    "1.2.0",
    ("-e", ".", "pytest"),
    (
        Change(
            "PerMessageDeflate(client_no_context_takeover=) renamed client_no_takeover=",
            "keyword",
            (
                (
                    "src/wsproto/extensions.py",
                    "        client_no_context_takeover: bool = False,\n",
                    "        client_no_takeover: bool = False,\n",
                ),
                (
                    "src/wsproto/extensions.py",
                    "        self.client_no_context_takeover = client_no_context_takeover\n",
                    "        self.client_no_context_takeover = client_no_takeover\n",
                ),
            ),
        ),
        Change(
            "missing-header messages reworded",
            "message",
            (("src/wsproto/handshake.py", '"Missing header, ', '"Missing header: ', "7"),),
        ),
    ),
)

FLASK = Project(
    "flask",
    "3.0.3",
    ("-e", ".", "pytest==8.1.1", "werkzeug==3.0.3", "click==8.1.7", "python-dotenv", "asgiref"),
    (
        Change(
            "Blueprint(url_prefix=) renamed prefix=",
            "keyword",
            (
                (
                    "src/flask/blueprints.py",
                    "        url_prefix: str | None = None,\n",
                    "        prefix: str | None = None,\n",
                ),
                ("src/flask/blueprints.py", "            url_prefix,\n", "            prefix,\n"),
            ),
        ),
        Change(
            "render_template_string renamed render_string",
            "rename",
            (
                (
                    "src/flask/templating.py",
                    "def render_template_string(source: str",
                    "def render_string(source: str",
                ),
                (
                    "src/flask/__init__.py",
                    "from .templating import render_template_string as render_template_string",
                    "from .templating import render_string as render_string",
                ),
            ),
        ),
    ),
    held_out=True,
)

ENVIRONS = Project(
    "environs",
    "11.0.0",
    ("-e", ".[tests]", "marshmallow<4"),
    (
        Change(
            "not-set message reworded",
            "message",
            ((_ENVIRONS, _ENV_NOT_SET, _ENV_NOT_SET.replace("not set", "is not set"), "2"),),
        ),
        Change(
            "a missing variable raises EnvVarMissingError",
            "exception",
            (
                (
                    _ENVIRONS,
                    "class ParserConflictError(ValueError):",
                    "class EnvVarMissingError(KeyError):\n"
                    '    """A variable read eagerly is not set."""\n'
                    "\n\nclass ParserConflictError(ValueError):",
                ),
                (
                    _ENVIRONS,
                    f"raise EnvError(\n                    {_ENV_NOT_SET}",
                    f"raise EnvVarMissingError(\n                    {_ENV_NOT_SET}",
                    "2",
                ),
            ),
        ),
    ),
    held_out=True,
)

PROJECTS = (JINJA2, MARSHMALLOW, BLEACH, WSPROTO, FLASK, ENVIRONS)
