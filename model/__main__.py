"""Command line: `python -m model evaluate 'fail=st3&workload=deepseek-r1'` prints the JSON."""

from __future__ import annotations

import argparse
import json
import sys

from model.errors import ScenarioError
from model.evaluate import evaluate
from model.scenario import parse_query


def main(argv: list[str] | None = None) -> int:
    """Parse the scenario query, evaluate it, print the API's JSON; exit 2 on bad input."""
    ap = argparse.ArgumentParser(prog="python -m model", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    ev = sub.add_parser("evaluate", help="evaluate one scenario")
    ev.add_argument("query", nargs="?", default="", help="scenario query string")
    args = ap.parse_args(argv)
    try:
        parsed = parse_query(args.query)
    except ScenarioError as e:
        print(json.dumps({"error": e.message, "token": e.token}), file=sys.stderr)
        return 2
    result = evaluate(parsed.scenario)
    result["notices"] = parsed.notices
    json.dump(result, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
