"""What each feature buys (issue 14, item 8): the goodput panel's own settings (job size in
racks, spare racks, repair policy, checkpoint interval, price per GPU-hour) and, for them,
the side-by-side of the seven features off one at a time, gb200-nvl72 and eth-x72 in goodput
points, GPU-hours and money a year, with why each is large or small; the optimiser's best
repair policy and its trade (goodput against rack-down visits a year); a CSV of the table.

The numbers are model.reliability.compare's and goodput.best_policy's; this module reads
the inputs, refuses bad ones by name and formats.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from functools import lru_cache
from typing import Any

import pandas as pd
from dash import Dash, Input, Output, State, dcc, html
from dash.development.base_component import Component

from dashboard import ids, state
from dashboard.figures.base import empty_figure
from dashboard.figures.goodput import policy_figure
from dashboard.panels import buys_answer
from dashboard.panels.below import unseen
from dashboard.panels.common import graph
from model.errors import ScenarioError
from model.fabric import features
from model.registry import kind_of
from model.reliability import compare, goodput
from model.reliability.accounting import MAX_JOB_RACKS, TAU_MAX_S
from model.reliability.policy import parse_policy
from model.reliability.rates import DEFAULT_RATES
from model.scenario import ONSITE, Scenario

SCENARIO_POLICY = "scenario"  # the repair menu's first entry: the URL's own repair=
POLICIES = (
    "now",
    "window-7",
    "window-30",
    "window-90",
    "window-365",
    "dark-5",
    "dark-20",
    "bw-95",
    "bw-90",
)


def _number(label: str, cid: str, value: Any, **kw: Any) -> html.Label:
    return html.Label(
        [f"{label} ", dcc.Input(id=cid, value=value, debounce=True, className="number", **kw)]
    )


def _intro() -> list[Component]:
    """The panel's heading and what the table compares, over what and at which scales."""
    return [
        html.H2("What each feature buys: goodput, GPU-hours and money a year"),
        html.P(
            "Each of Vera Rubin's seven NVLink 6 features (vr-nvl72) turned off alone, and "
            "gb200-nvl72 and eth-x72 as they ship, against vr-nvl72 with all seven: closed "
            "form over a year "
            "(docs/GOODPUT.md), at one rack, at 2,000 racks with spare racks, and at the "
            "job size set here. Failure rates: FACTS.md §6 and [A] rows (assumptions "
            "panel).",
            className="note",
        ),
    ]


def _repair_menu() -> html.Label:
    """The repair-policy menu: the scenario's own repair= first, then every policy."""
    return html.Label(
        [
            "repair policy ",
            dcc.Dropdown(
                id=ids.BUYS_REPAIR,
                options=[
                    {
                        "label": "the scenario's (repair= in the URL)",
                        "value": SCENARIO_POLICY,
                    },
                    *({"label": goodput.policy_words(p), "value": p} for p in POLICIES),
                ],
                value=SCENARIO_POLICY,
                clearable=False,
                style={"minWidth": "18em"},
            ),
        ]
    )


def _controls() -> html.Div:
    """The panel's settings, typed in and checked by settings() (a bad one is refused by
    name, not clamped), and the CSV button."""
    return html.Div(
        className="control typed",
        children=[
            _number(
                "job racks", ids.BUYS_RACKS, "128", type="text", inputMode="numeric", maxLength=7
            ),
            dcc.Checklist(
                id=ids.BUYS_SPARES,
                options=[{"label": " spare racks", "value": "spares"}],
                value=["spares"],
                inline=True,
            ),
            _repair_menu(),
            dcc.Checklist(
                id=ids.BUYS_ONSITE,
                options=[{"label": " spare parts on site", "value": ONSITE}],
                value=[],
                inline=True,
            ),
            _number(
                "checkpoint, min (blank: Daly's optimum)",
                ids.BUYS_CKPT,
                "",
                type="text",
                inputMode="decimal",
                maxLength=8,
                style={"width": "6em"},
            ),
            _number(
                "$ per GPU-hour",
                ids.BUYS_PRICE,
                f"{DEFAULT_RATES.price_per_gpu_h:g}",
                type="text",
                inputMode="decimal",
                maxLength=8,
            ),
            html.Button("Table as CSV", id=ids.BUYS_CSV, n_clicks=0),
        ],
    )


def _answer_slots() -> list[Component]:
    """The places the callbacks fill: the table (what a buyer reads first), the best policy,
    its trade, the CSV."""
    return [
        html.Div(id=ids.BUYS_TABLE),
        html.Div(id=ids.BUYS_POLICY, className="note"),
        graph(ids.BUYS_TRADE, 320),
        dcc.Download(id=ids.BUYS_DOWNLOAD),
    ]


def layout() -> html.Section:
    """The settings, the table, the best policy and the CSV button."""
    return html.Section(className="panel buys", children=[*_intro(), _controls(), *_answer_slots()])


def settings(
    s: Scenario,
    racks: object,
    spares: object,
    repair: object,
    onsite: object,
    ckpt: object,
    price: object,
) -> dict[str, Any]:
    """The panel's settings as the model takes them, or a ScenarioError naming the one that
    is wrong (2.5 racks is refused, not cut to 2)."""

    def number(v: object, name: str) -> float:
        text = str(v if v is not None else "").replace(",", "").replace("$", "").strip()
        try:
            x = float(text)
        except ValueError:
            x = math.nan
        if not math.isfinite(x):
            raise ScenarioError(f"{name} must be a number", name)
        return x

    r = number(racks, "job racks")
    if not (1 <= r <= MAX_JOB_RACKS and r == int(r)):
        raise ScenarioError(
            f"job racks must be a whole number from 1 to {MAX_JOB_RACKS:,}", "job racks"
        )
    p = number(price, "price")
    if not 0 <= p <= 1000:
        raise ScenarioError("price must be from 0 to 1,000 $ per GPU-hour", "price")
    tau = None
    if str(ckpt or "").strip():
        minutes = number(ckpt, "checkpoint interval")
        if not 1 / 60 <= minutes <= TAU_MAX_S / 60:
            raise ScenarioError(
                f"checkpoint interval must be from 1 s to {TAU_MAX_S / 60:,.0f} minutes",
                "checkpoint interval",
            )
        tau = minutes * 60.0
    if repair in (None, SCENARIO_POLICY):
        policy = s.repair
    elif repair in POLICIES:
        policy = str(repair) + (f",{ONSITE}" if onsite and ONSITE in onsite else "")
    else:
        raise ScenarioError(f"repair policy '{repair}' is not one of the menu's", "repair policy")
    return {
        "job_racks": int(r),
        "spares": bool(spares) and "spares" in spares,  # type: ignore[operator]
        "repair": parse_policy(policy).text,
        "checkpoint_interval_s": tau,
        "price": p,
    }


def _values(s: Scenario, st: dict[str, Any]) -> dict:
    """compare.feature_values for the scenario's workload and the panel's settings."""
    return json.loads(_answers(_key(s), *_settings_key(st))[0])


def _best(s: Scenario, st: dict[str, Any]) -> dict:
    """goodput.best_policy for the scenario's configuration and the panel's settings."""
    return json.loads(_answers(_key(s), *_settings_key(st))[1])


def _along(s: Scenario, st: dict[str, Any]) -> list[dict]:
    """goodput.best_policy_along: the same optimiser at three interactivities around at=."""
    return json.loads(_answers(_key(s), *_settings_key(st))[2])


def _key(s: Scenario) -> Scenario:
    """What the answers depend on: the fabric, features and workload (a rack's life starts
    whole, so today's faults, flaky parts and updates do not enter)."""
    return replace(s, fail=(), flaky=(), update=(), repair="now")


def _settings_key(st: dict[str, Any]) -> tuple:
    return (st["job_racks"], st["spares"], st["repair"], st["checkpoint_interval_s"], st["price"])


@lru_cache(maxsize=64)
def _answers(
    h: Scenario, job_racks: int, spares: bool, repair: str, tau: float | None, price: float
) -> tuple[str, str, str]:
    """The answers as JSON text (every caller gets its own copy), memoised on the frozen
    inputs: a click changes the faults, not these, so the table is worked out once."""
    values = compare.feature_values(
        DEFAULT_RATES,
        scales=compare.scales_for(job_racks, spares),
        repair=repair,
        checkpoint_interval_s=tau,
        price_per_gpu_h=price,
        workload=h.workload,
        fabric=kind_of(h).reliability.features_fabric(h),  # a domain's own seven features
        at=h.at,
    )
    kw = {"job_racks": job_racks, "spares": spares, "checkpoint_interval_s": tau}
    best = goodput.best_policy(replace(h, repair=repair), **kw)
    along = goodput.best_policy_along(replace(h, repair=repair), **kw)
    return json.dumps(values), json.dumps(best), json.dumps(along)


OUTPUTS = {
    "table": Output(ids.BUYS_TABLE, "children"),
    "policy": Output(ids.BUYS_POLICY, "children"),
    "trade": Output(ids.BUYS_TRADE, "figure"),
}


def table(
    search: str | None,
    racks: object,
    spares: object,
    repair: object,
    onsite: object,
    ckpt: object,
    price: object,
) -> dict[str, Any]:
    """The side-by-side and the best policy for the URL's scenario and the panel's settings."""
    unseen(search)
    s = state.current(search).scenario
    try:
        st = settings(s, racks, spares, repair, onsite, ckpt, price)
        values, best, along = _values(s, st), _best(s, st), _along(s, st)
    except ScenarioError as e:
        msg = html.Div(f"Not computed: {e.message}", className="msg error")
        return {"table": msg, "policy": "", "trade": empty_figure(f"Not computed: {e.message}")}
    kind = kind_of(s)
    note = html.P(
        f"Every row runs the scenario's workload ({values['workload']}) under "
        f"{goodput.policy_words(st['repair'])} "
        f"(repair={st['repair']}); checkpoints "
        + (
            f"every {st['checkpoint_interval_s'] / 60:g} min"
            if st["checkpoint_interval_s"]
            else "at each row's Daly optimum"
        )
        + f"; money at ${st['price']:g} per GPU-hour ({values['price_source']}). A value is "
        f"{kind.reliability.features_fabric(s)} with all seven features less the row: "
        "what the feature (or the fabric) buys"
        + (
            f"; a job's racks here are {s.fabric} domains."
            if kind.several_racks
            else f"; {features.fabric_row(s.fabric)}."
        ),
        className="note",
    )
    return {
        "table": buys_answer.answer(values, buys_answer.own_scale(values, st), note),
        "policy": buys_answer.policy_note(
            best, st["job_racks"], f"{s.fabric} domain" if kind.several_racks else "rack", along
        ),
        "trade": policy_figure(best),
    }


def csv(
    clicks: int | None,
    search: str | None,
    racks: object,
    spares: object,
    repair: object,
    onsite: object,
    ckpt: object,
    price: object,
) -> dict[str, Any]:
    """The table, one row a configuration and scale, as CSV (compare.records)."""
    s = state.current(search).scenario
    try:
        values = _values(s, settings(s, racks, spares, repair, onsite, ckpt, price))
    except ScenarioError as e:
        return {
            "download": dcc.send_string(
                f"not computed: {e.message}\n", "what-each-feature-buys.txt"
            )
        }
    df = pd.DataFrame(compare.records(values))
    return {"download": dcc.send_data_frame(df.to_csv, "what-each-feature-buys.csv", index=False)}


_SETTINGS = {
    "racks": (ids.BUYS_RACKS, "value"),
    "spares": (ids.BUYS_SPARES, "value"),
    "repair": (ids.BUYS_REPAIR, "value"),
    "onsite": (ids.BUYS_ONSITE, "value"),
    "ckpt": (ids.BUYS_CKPT, "value"),
    "price": (ids.BUYS_PRICE, "value"),
}


def register(app: Dash) -> None:
    """The table from LATER (panels/below.py) and the settings; the CSV on its button."""
    app.callback(
        output=OUTPUTS,
        inputs={"search": Input(ids.LATER, "data"), **{k: Input(*v) for k, v in _SETTINGS.items()}},
    )(table)
    app.callback(
        output={"download": Output(ids.BUYS_DOWNLOAD, "data")},
        inputs={"clicks": Input(ids.BUYS_CSV, "n_clicks")},
        state={"search": State(ids.URL, "search"), **{k: State(*v) for k, v in _SETTINGS.items()}},
        prevent_initial_call=True,
    )(csv)
