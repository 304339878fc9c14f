"""Tables a person reads or exports, as pandas DataFrames, and one way to show one on the page.

The compare table, the fleet study's results and the CSV export are DataFrames: each is
built once as a frame (rows named, columns named), then rendered by `html_table` or written
by pandas' own to_csv through dcc.send_data_frame, so what is shown and what is exported
cannot drift apart. Every cell is rendered as plain text.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
from dash import html


def html_table(df: pd.DataFrame, cls: str = "compare-table", mark: str | None = None) -> html.Table:
    """A DataFrame as an html.Table: a header row of the column names (the index's name
    over the index), then a row a record with the index as its first cell. A row whose
    last cell is `mark` gets the class "differs"."""
    head = html.Tr([html.Th(df.index.name or ""), *(html.Th(str(c)) for c in df.columns)])
    body = [
        html.Tr(
            [html.Td(str(name)), *(html.Td(str(v)) for v in row)],
            className="differs" if mark is not None and row and row[-1] == mark else None,
        )
        for name, row in zip(df.index, df.itertuples(index=False, name=None), strict=True)
    ]
    return html.Table([head, *body], className=cls)


def flatten(obj: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, value) for every leaf of a nested result: lists of dicts by index
    (events[0]), lists of scalars joined by ';'."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, list) and obj and isinstance(obj[0], dict | list):
        for i, v in enumerate(obj):
            yield from flatten(v, f"{prefix}[{i}]")
    else:
        yield prefix, obj if not isinstance(obj, list) else ";".join(map(str, obj))


def key_values(obj: dict) -> pd.DataFrame:
    """A nested result as a two-column frame, key and value, in the result's own order."""
    return pd.DataFrame(list(flatten(obj)), columns=["key", "value"], dtype=object)
