"""Command line: `python -m model evaluate 'fail=st3&workload=deepseek-r1'` prints the JSON;
`python -m model import FILE` reads a rack's telemetry file (`-` for stdin) into the scenario
it describes, as POST /api/v1/import answers."""

from __future__ import annotations

import argparse
import json
import sys

from model.errors import ScenarioError
from model.evaluate import evaluate
from model.query import parse_query
from model.telemetry.importers import MAX_BYTES, ImportRefused, import_text, parse_hosts


def main(argv: list[str] | None = None) -> int:
    """Parse the scenario query, evaluate it, print the API's JSON; exit 2 on bad input."""
    ap = argparse.ArgumentParser(prog="python -m model", description=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    ev = sub.add_parser("evaluate", help="evaluate one scenario")
    ev.add_argument("query", nargs="?", default="", help="scenario query string")
    im = sub.add_parser("import", help="read a rack's telemetry file into its scenario")
    im.add_argument(
        "file", help="a dcgm-exporter scrape or nvidia-smi's NVLink output; - for stdin"
    )
    im.add_argument(
        "--hosts",
        default="",
        help="the scrape's hosts' compute trays, 'node-a:ct01,node-b:ct02' (else by name)",
    )
    args = ap.parse_args(argv)
    if args.cmd == "import":
        return _import(args.file, args.hosts)
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


def _import(path: str, hosts: str = "") -> int:
    """Print the import's JSON; exit 2, with the error naming the line, if it cannot be read."""
    try:
        host_map = parse_hosts(hosts)
        if path == "-":
            data = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        out = import_text(data, hosts=host_map)
    except OSError as e:
        print(
            json.dumps({"error": f"cannot read {path}: {e.strerror}", "token": path}),
            file=sys.stderr,
        )
        return 2
    except ImportRefused as e:
        token = f"line {e.line}" if e.line else "hosts"  # line 0: the host map, not the file
        print(json.dumps({"error": e.message, "token": token}), file=sys.stderr)
        return 2
    json.dump(out.to_json(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
