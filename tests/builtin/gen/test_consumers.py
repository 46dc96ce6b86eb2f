"""Text in the language of the parser a parameter is handed to: str.format templates for
a `Formatter`'s parse and `.format`, printf templates for `%`, JSON for `json.loads`,
digits for `int()`, read through the module's own helpers too (consumers.py).

End to end through the real Agent and LocalSandbox, then the pieces.
"""

from __future__ import annotations

import ast
from pathlib import Path

from coder.builtin.gen import find_targets
from coder.builtin.gen.consumers import consumers
from tests.helpers import generate, param_values, run_pytest_in

TEMPLATES = """\
import json
from string import Formatter

_formatter = Formatter()


def field_names(template):
    names = []
    for _literal, name, spec, conversion in _formatter.parse(template):
        if name is None:
            continue
        if name == "":
            names.append("#")
        elif conversion:
            names.append(f"{name}!{conversion}")
        elif spec:
            names.append(f"{name}:{spec}")
        else:
            names.append(name)
    return names


def count_fields(given):
    return len(field_names(given))


def setting_keys(text):
    data = json.loads(text)
    if isinstance(data, dict):
        return sorted(data)
    return []
"""


def test_a_template_parser_is_tested_with_templates_that_reach_each_branch(
    tmp_path: Path,
) -> None:
    generated = generate(tmp_path, {"templ.py": TEMPLATES}, "templ")
    text = generated.text
    assert '"{} and {}", ["#", "#"]' in text, text  # plain fields
    assert '"0", "name!r"' in text or '"0", "na' in text, text  # a conversion
    assert "count_fields(" in text, text
    assert '{"a": 1}' in text and '["a"]' in text, text  # JSON that holds an object
    assert '"{"' not in text, text  # the stdlib's ValueError for an unclosed one: not pinned
    assert run_pytest_in(generated.repo).returncode == 0


def test_what_a_parameter_is_handed_to_says_its_language() -> None:
    source = """\
import json

def render(spec, row):
    return spec % row

def fill(pattern, **fields):
    return pattern.format(**fields)

def load(blob):
    return json.loads(blob)

def amount(text: str):
    return int(text)

def passed_on(source):
    return load(source)

def count(n):
    return int(n) + 1
"""
    tree = ast.parse(source)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    expected = {"render": "printf", "fill": "format", "load": "json", "amount": "int"}
    for name, language in expected.items():
        param = functions[name].args.args[0].arg
        assert consumers(functions[name], param, tree) == [language], name
    assert consumers(functions["passed_on"], "source", tree) == ["json"]
    [target] = find_targets(TEMPLATES, ["count_fields"], "templ")  # through field_names
    assert target.probes[0].call.source() == 'count_fields("{} and {}")'
    assert param_values(source, "render")["spec"][0] == '"%s and %d"'
    assert param_values(source, "passed_on")["source"][0] == '"[1, 2]"'  # no name said "text"
    assert '"42"' in param_values(source, "amount")["text"]
    assert not any(v.startswith('"') for v in param_values(source, "count")["n"][:1])


def test_a_template_comes_after_what_the_module_shows() -> None:
    source = '''\
def fill(template, value):
    """
    >>> fill("<{}>", 3)
    '<3>'
    """
    return template.format(value)
'''
    found = param_values(source, "fill")["template"]
    assert found[0] == '"<{}>"', found
    assert '"{0}: {name!r:>8}"' in found, found


def test_a_formatter_subclass_and_its_own_methods_hand_on_a_template() -> None:
    source = """\
import string


class Loud(string.Formatter):
    def shout(self, template, *args):
        return self.vformat(template, args, {}).upper()

    def twice(self, pattern):
        return self.shout(pattern) * 2


class Plain:
    def show(self, spec):
        return self.render(spec)

    def render(self, spec):
        return spec % ()
"""
    tree = ast.parse(source)
    methods = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert consumers(methods["shout"], "template", tree) == ["format"]  # a Formatter's self
    assert consumers(methods["twice"], "pattern", tree) == ["format"]  # through self.shout
    assert consumers(methods["show"], "spec", tree) == ["printf"]  # through self.render
    assert consumers(methods["render"], "spec", tree) == ["printf"]
    other = source.replace("Loud(string.Formatter)", "Loud")  # no Formatter: self is no parser
    tree = ast.parse(other)
    methods = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert consumers(methods["shout"], "template", tree) == []
