"""The frame every page shares: the document with its inline style and a policy that lets
it load nothing, the run's header, the before/after cards and small escaped pieces.

Every text here may come from the repository, the model or the sandbox: it goes through
`esc` (html.escape, quotes included) before it reaches the page, attributes too.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from coder.delivery.html.style import CSS
from coder.delivery.report import DeliveredReport

# The browser itself then refuses any script, frame, font, image or request, whatever
# a file's text might smuggle in: only the inline style is allowed.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
GOOD = {"fixed", "nothing_to_do", "goal_met", "improved", "nothing_to_cover", "finished"}
PARTIAL = {"partial", "no_gain"}


def esc(value: object) -> str:
    """Text (of any origin) as HTML text or an attribute value."""
    return html.escape(str(value), quote=True)


def breakable(value: object) -> str:
    """Escaped text that may wrap after a path's slashes and a node id's `::`."""
    text = esc(value)
    for mark in ("/", "::", "["):
        text = text.replace(mark, mark + "<wbr>")
    return text


def document(title: str, body: Iterable[str]) -> str:
    """One self-contained page: no script, no external resource."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>{esc(title)}</title>",
            f"<style>{CSS}</style>",
            "</head>",
            "<body>",
            '<main class="page">',
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )


def header(report: DeliveredReport) -> str:
    """The command, its status, and the facts of the run."""
    tone = "good" if report.status in GOOD else "warn" if report.status in PARTIAL else "bad"
    facts = [
        ("run", report.run_id),
        ("model", report.model),
        ("sandbox", report.sandbox),
        ("took", f"{report.duration_s:.1f} s"),
        ("changes", delivered(report)),
    ]
    items = "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in facts)
    error = f'<pre class="error">{esc(report.error)}</pre>' if report.error else ""
    return (
        f'<header class="run"><h1>coder {esc(report.command)} '
        f'<span class="status {tone}">{esc(report.status.replace("_", " "))}</span></h1>'
        f'<dl class="facts">{items}</dl>{error}</header>'
    )


def delivered(report: DeliveredReport) -> str:
    """What became of the changes, in a few words."""
    count = len(report.changed_files)
    files = f"{count} file{'' if count == 1 else 's'}"
    if not count:
        return "none"
    if report.applied:
        return f"{files} applied"
    if report.branch:
        commit = f" ({report.commit[:10]})" if report.commit else ""
        return f"{files} committed on branch {report.branch}{commit}"
    return f"{files} in the patch, not applied"


def card(label: str, before: str, after: str | None, note: str = "", tone: str = "") -> str:
    """A figure before and after the run (`after` None: it did not change or is unknown)."""
    arrow = f'<span class="arrow">&rarr;</span><span class="after">{esc(after)}</span>'
    figures = f'<span class="before">{esc(before)}</span>{arrow if after is not None else ""}'
    small = f'<div class="note">{esc(note)}</div>' if note else ""
    return (
        f'<div class="card {esc(tone)}"><div class="label">{esc(label)}</div>'
        f'<div class="figures">{figures}</div>{small}</div>'
    )


def cards(items: Iterable[str]) -> str:
    return f'<section class="cards">{"".join(items)}</section>'


def section(title: str, body: str, *, count: int | None = None, anchor: str = "") -> str:
    number = f' <span class="count">{count}</span>' if count is not None else ""
    ident = f' id="{esc(anchor)}"' if anchor else ""
    return f"<section{ident}><h2>{esc(title)}{number}</h2>{body}</section>"


def percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}%"


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
