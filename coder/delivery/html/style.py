"""The pages' one inline style sheet: plain, readable, and printable; no web fonts, no
images, no url() (the page may load nothing)."""

CSS = """
:root {
  --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --paper: #ffffff; --wash: #f6f8fa;
  --good: #1a7f37; --good-bg: #dafbe1; --warn: #9a6700; --warn-bg: #fff8c5;
  --bad: #cf222e; --bad-bg: #ffebe9; --mutant: #bc4c00; --mutant-bg: #fff1e5;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--wash); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
.page { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 8px; display: flex; align-items: center; gap: 12px; }
h2 { font-size: 18px; margin: 32px 0 12px; padding-bottom: 6px;
  border-bottom: 1px solid var(--line); }
h3.sub { margin: 18px 0 10px; font-family: inherit; font-size: 16px; }
h3 { font-size: 15px; margin: 0; font-family: var(--mono); font-weight: 600; }
code, pre { font-family: var(--mono); font-size: 13px; }
.status { font-size: 13px; font-weight: 600; padding: 2px 10px; border-radius: 999px;
  text-transform: uppercase; letter-spacing: .04em; }
.good { color: var(--good); } .warn { color: var(--warn); } .bad { color: var(--bad); }
.status.good { background: var(--good-bg); } .status.warn { background: var(--warn-bg); }
.status.bad { background: var(--bad-bg); }
.facts { display: flex; flex-wrap: wrap; gap: 6px 28px; margin: 0; color: var(--muted); }
.facts div { display: flex; gap: 6px; } .facts dt { font-weight: 600; } .facts dd { margin: 0; }
pre.error { background: var(--bad-bg); border: 1px solid #ffcecb; border-radius: 6px;
  padding: 10px 12px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 14px 0 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr));
  gap: 12px; margin: 20px 0 4px; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: 8px;
  padding: 12px 16px; }
.card .label { color: var(--muted); font-size: 13px; font-weight: 600; }
.card .figures { font-size: 22px; font-weight: 600; white-space: nowrap; }
.card .arrow { color: var(--muted); margin: 0 8px; font-weight: 400; }
.card.good .after { color: var(--good); } .card.bad .after { color: var(--bad); }
.card .note { color: var(--muted); font-size: 13px; }
.count { display: inline-block; min-width: 22px; padding: 0 7px; margin-left: 6px;
  border-radius: 999px; background: #e6eaef; font-size: 13px; text-align: center; }
.box { background: var(--paper); border: 1px solid var(--line); border-radius: 8px;
  margin: 0 0 16px; overflow: hidden; }
.box > header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 6px 20px;
  padding: 10px 14px; background: var(--wash); border-bottom: 1px solid var(--line); }
.stats { color: var(--muted); font-size: 13px; display: flex; flex-wrap: wrap; gap: 4px 16px; }
.stats b { color: var(--ink); }
.legend { display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 8px 14px; font-size: 13px;
  color: var(--muted); border-bottom: 1px solid var(--line); }
.key { display: inline-block; width: 12px; height: 12px; border-radius: 3px;
  vertical-align: -1px; margin-right: 5px; border: 1px solid rgba(0,0,0,.15); }
.scroll { overflow-x: auto; }
table.code { border-collapse: collapse; width: 100%; font-family: var(--mono);
  font-size: 13px; line-height: 20px; }
table.code td { padding: 0 12px; white-space: pre; vertical-align: top; }
table.code td.num { width: 1%; text-align: right; color: #8c959f; user-select: none;
  border-right: 1px solid var(--line); }
table.code td.num + td.num { border-left: 0; }
tr.missed td { background: var(--bad-bg); } tr.missed td.num { color: var(--bad);
  box-shadow: inset 4px 0 var(--bad); }
tr.gained td { background: var(--good-bg); } tr.gained td.num { color: var(--good);
  box-shadow: inset 4px 0 var(--good); }
tr.partial td.num { box-shadow: inset 4px 0 #d4a72c; color: var(--warn); }
tr.mutant td.src .code { text-decoration: underline wavy var(--mutant);
  text-underline-offset: 4px; }
tr.mutant td.num { box-shadow: inset 4px 0 var(--mutant); color: var(--mutant); }
tr.note td { background: var(--mutant-bg); color: var(--mutant); white-space: pre-wrap;
  font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
tr.note code { background: #ffffffaa; border-radius: 4px; padding: 0 4px; color: var(--ink); }
tr.add td { background: var(--good-bg); } tr.del td { background: var(--bad-bg); }
tr.hunk td { background: #ddf4ff; color: var(--muted); }
tr.add td.sign { color: var(--good); } tr.del td.sign { color: var(--bad); }
td.sign { width: 1%; padding: 0 4px !important; user-select: none; }
.key.missed { background: var(--bad-bg); border-color: var(--bad); }
.key.gained { background: var(--good-bg); border-color: var(--good); }
.key.partial { background: #fff8c5; border-color: #d4a72c; }
.key.mutant { background: var(--mutant-bg); border-color: var(--mutant); }
table.grid { border-collapse: collapse; width: 100%; background: var(--paper);
  border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
table.grid th, table.grid td { text-align: left; vertical-align: top; padding: 8px 12px;
  border-bottom: 1px solid var(--line); }
table.grid th { background: var(--wash); font-size: 13px; color: var(--muted); }
table.grid td.why { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 14px; }
table.grid code { overflow-wrap: break-word; }
.box pre { margin: 0; padding: 10px 14px; } .box pre.error { margin: 10px 14px; }
.outcome { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px;
  border-radius: 999px; white-space: nowrap; }
.outcome.good { background: var(--good-bg); } .outcome.bad { background: var(--bad-bg); }
.outcome.warn { background: var(--warn-bg); }
.detail { display: block; margin-top: 4px; color: var(--muted); font-size: 12px;
  font-family: var(--mono); overflow-wrap: anywhere; }
ul.plain { margin: 0; padding: 0; list-style: none; }
ul.plain li { padding: 3px 0; }
.muted { color: var(--muted); }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
@media print { body { background: #fff; } .box, .card { break-inside: avoid; } }
"""
