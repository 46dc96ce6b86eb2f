"""Results of one function that differ only in argument values become one
parametrized test (a table of examples), end to end on the gen_pure fixture's module."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import FIXTURES, function_source, generate, run_pytest_in

PRICING = (FIXTURES / "gen_pure" / "shop" / "pricing.py").read_text()


def test_a_functions_examples_become_one_parametrized_test(tmp_path: Path) -> None:
    generated = generate(tmp_path, {"pricing.py": PRICING}, "pricing")
    table = generated.text.split("\n\n\n")
    [block] = [part for part in table if "def test_shipping_cost(" in part]
    assert block == (
        "@pytest.mark.parametrize(\n"
        '    ("order_total", "weight_kg", "country", "expected"),\n'
        "    [\n"
        '        (2.5, 2.5, "GB", 6.0),\n'
        '        (50.0, 2.5, "GB", 0.0),\n'
        '        (2.5, 2, "GB", 3.5),\n'
        '        (2.5, 2.5, "abc", 15.0),\n'
        '        (2.5, 2.5, "FR", 8.75),\n'
        "    ],\n"
        ")\n"
        "def test_shipping_cost(order_total, weight_kg, country, expected):\n"
        "    assert shipping_cost(order_total, weight_kg, country=country) == "
        "pytest.approx(expected)"
    )
    # Fewer than three examples stay one test each.
    assert function_source(generated.text, "test_price_label_with_zero_pence").endswith(
        'assert price_label(0) == "0.00 GBP"'
    )
    done = run_pytest_in(generated.repo)
    assert done.returncode == 0, done.stdout
