"""Re-make docs/GOODPUT.md's 'what each feature buys' table from the model (issue 14):

.venv/bin/python scripts/goodput_table.py docs/GOODPUT.md   # rewrite its section
.venv/bin/python scripts/goodput_table.py                   # print the table
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from model.reliability.compare import feature_values, markdown, rewrite


def main(argv: list[str]) -> int:
    """Print the table, or rewrite the section between the compare markers of argv[0]."""
    table = markdown(feature_values())
    if not argv:
        sys.stdout.write(table + "\n")
        return 0
    path = Path(argv[0])
    path.write_text(rewrite(path.read_text(encoding="utf-8"), table), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
