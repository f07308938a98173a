"""``domeng rules``: the terms, decisions and rule options."""

from __future__ import annotations

import sys

from domeng.cli.args import add_option


def add_parser(sub) -> None:
    ru = sub.add_parser(
        "rules",
        help="print the rules: terms, decisions, options and defaults",
        description="Print the card's terms, the decisions D1..D17 and every rule "
        "option with its default.",
    )
    add_option(ru, "--json", help="print the options' defaults as JSON")
    ru.set_defaults(func=cmd_rules)


def cmd_rules(args) -> int:
    from domeng.core.rules import Rules

    if args.json:
        import json

        print(json.dumps(Rules().to_dict(), indent=2))
        return 0
    from domeng.core.ruletext import rules_text

    sys.stdout.write(rules_text())
    return 0
