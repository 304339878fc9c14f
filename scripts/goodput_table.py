"""Re-make docs/GOODPUT.md's 'what each feature buys' table from the model (issue 14):

.venv/bin/python scripts/goodput_table.py docs/GOODPUT.md   # rewrite its sections
.venv/bin/python scripts/goodput_table.py                   # print the tables

The second table (issue 16) is the seven features on the 1,152-GPU domain beside one rack
and beside sixteen racks on the scale-out network, between the domain markers.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.reliability.compare import (
    DOMAIN_BEGIN,
    DOMAIN_END,
    beside,
    feature_values,
    markdown,
    markdown_beside,
    rewrite,
)


def main(argv: list[str]) -> int:
    """Print the table, or rewrite the section between the compare markers of argv[0]."""
    table = markdown(feature_values())
    domain = markdown_beside(beside())
    if not argv:
        sys.stdout.write(table + "\n\n" + domain + "\n")
        return 0
    path = Path(argv[0])
    text = rewrite(path.read_text(encoding="utf-8"), table)
    path.write_text(rewrite(text, domain, DOMAIN_BEGIN, DOMAIN_END), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
