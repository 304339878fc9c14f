"""The fleet study: lifetime goodput of many racks over years for every feature set, by seeded
Monte Carlo. Heavy enough to run as a Dash background callback, with progress and cancel:
on diskcache by default, on Celery workers when REDIS_URL is set. The study is split into
seeded chunks (model/reliability/chunks.py): with Celery, every chunk is a task any worker
takes (dashboard/infra/tasks.py), so more workers finish it sooner, with the same answer as one
process. The results are a pandas DataFrame (a row a configuration), shown as a table.

Its watchdog (a study whose worker dies is reported on the page within a bound) is
fleet_watchdog.py; the IDs of both are in dashboard/ids.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd
from dash import CeleryManager, Dash, Input, Output, State, dcc, html
from dash.exceptions import PreventUpdate

from dashboard import ids
from dashboard.infra.jobs import RevokingCeleryManager
from dashboard.infra.tasks import StudyCancelled, run_chunks
from dashboard.panels.fleet_watchdog import (
    BEAT_S,
    CANCELLED,
    PICKUP_S,
    STALL_S,
    WATCH_MS,
    Heartbeat,
    job_revoked,
    watch,
    watch_outputs,
)
from dashboard.panels.tables import html_table
from model.errors import ScenarioError
from model.reliability import chunks, goodput

__all__ = [
    "BEAT_S",
    "PICKUP_S",
    "STALL_S",
    "WATCH_MS",
    "RevokingCeleryManager",
    "frame",
    "layout",
    "register",
    "study",
    "study_size",
]


def layout() -> html.Section:
    """The study's inputs, Run and Cancel, its progress and its result; the watchdog's stores."""
    return html.Section(
        className="panel fleet",
        children=[
            html.H2("Fleet study: goodput of many racks over years (Monte Carlo)"),
            html.P(
                "Every feature set and fabric of the comparison, each a seeded Monte Carlo of "
                "racks x years (up to 10,000 racks x 100 years, run in chunks of "
                f"{goodput.MAX_RACK_YEARS:,.0f} rack-years). It runs in the background: the "
                "page stays usable, and you can cancel it.",
                className="note",
            ),
            html.Div(
                className="control typed",
                children=[
                    html.Label(
                        [
                            "racks ",
                            dcc.Input(  # text, so 10,000 reads as people write it
                                id=ids.FLEET_RACKS,
                                type="text",
                                inputMode="numeric",
                                value="100",
                                maxLength=7,
                                debounce=True,
                                className="number",
                            ),
                        ]
                    ),
                    html.Label(
                        [
                            "years ",
                            dcc.Input(
                                id=ids.FLEET_YEARS,
                                type="number",
                                value=5,
                                min=0.1,
                                max=100,
                                step=0.1,
                                className="number",
                            ),
                        ]
                    ),
                    html.Button("Run the study", id=ids.FLEET_RUN, n_clicks=0),
                    html.Button("Cancel", id=ids.FLEET_CANCEL, n_clicks=0, disabled=True),
                ],
            ),
            html.Progress(id=ids.FLEET_PROGRESS, value="0", max="10"),
            html.Span(id=ids.FLEET_PROGRESS_TEXT, className="note"),
            html.Div(id=ids.FLEET_RESULT),
            dcc.Store(id=ids.FLEET_BEAT),
            dcc.Store(id=ids.FLEET_LIVE, data=False),
            dcc.Store(id=ids.FLEET_DONE),
            dcc.Store(id=ids.FLEET_STOP),
            dcc.Store(id=ids.FLEET_WATCH_STATE),
            dcc.Interval(id=ids.FLEET_WATCH, interval=WATCH_MS, disabled=True),
        ],
    )


def frame(done: list[tuple[str, dict]]) -> pd.DataFrame:
    """The study's results: a row a configuration, goodput and the p5/p95 rack as
    percentages, and the largest loss."""
    rows = []
    for _label, r in done:
        hours = r["badput_hours_per_rack_year"]
        worst = max(hours, key=hours.get)
        rows.append(
            {
                "goodput": f"{r['fraction']:.3%}",
                "p5 rack": f"{r['per_rack_fraction']['p5']:.3%}",
                "p95 rack": f"{r['per_rack_fraction']['p95']:.3%}",
                "largest loss, h per rack-year": f"{worst.replace('_', ' ')}: {hours[worst]:.0f}",
            }
        )
    index = pd.Index([label for label, _ in done], name="configuration")
    return pd.DataFrame(rows, index=index, dtype=object)


def _table(racks: int, years: float, done: list[tuple[str, dict]]) -> html.Div:
    return html.Div(
        [
            html.P(
                f"{racks:,} racks x {years:g} years each, seeded: the same inputs give the "
                "same table. The p5 and p95 rack are over every rack of the fleet.",
                className="note",
            ),
            html_table(frame(done)),
        ]
    )


def study_size(racks: object, years: object) -> tuple[int, float]:
    """The study's racks and years from the page's inputs, or a ScenarioError naming the one
    that is wrong (2.5 racks is refused, not cut to 2)."""

    def number(v: object, name: str) -> float:
        if isinstance(v, str):
            v = v.replace(",", "").strip()  # 10,000 as the box shows it
        try:
            x = float(v)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            x = math.nan
        if not math.isfinite(x):
            raise ScenarioError(f"{name} must be a number", name)
        return x

    r, y = number(racks, "racks"), number(years, "years")
    if not (1 <= r <= 10_000 and r == int(r)):
        raise ScenarioError("racks must be a whole number from 1 to 10,000", "racks")
    if not 0.1 <= y <= 100:
        raise ScenarioError("years must be a number from 0.1 to 100", "years")
    return int(r), y


def study(
    set_progress: Callable[[tuple], None],
    n: int | None,
    racks: object,
    years: object,
    capp: Any | None = None,
) -> dict[str, Any]:
    """Run every comparison row's Monte Carlo as chunks (on Celery app capp's workers, or
    here when None), reporting the chunks done and beating in between; returns the table
    (or the refusal) and the run it answers (fleet-done)."""
    if job_revoked():
        raise PreventUpdate
    try:
        racks, years = study_size(racks, years)
        plan = chunks.fleet_study_plan(racks, years)
        with Heartbeat(set_progress) as beat:

            def progress(done: int, total: int) -> None:
                row = plan[min(done, total - 1)]["label"]
                beat.report(str(done), str(total), f"{done} of {total} chunks; {row}…")

            progress(0, len(plan))
            answers = run_chunks(
                plan, capp, progress, help=True, study=_job_id(capp), cancelled=job_revoked
            )
            done = chunks.fleet_study_combine(plan, answers)
            beat.report(str(len(plan)), str(len(plan)), "done")
    except StudyCancelled:
        raise PreventUpdate from None  # the page cancelled it: nobody waits for a table
    except ScenarioError as e:
        refused = html.Div(f"Fleet study refused: {e.message}", className="msg error")
        return {"result": refused, "done": n}
    return {"result": _table(racks, years, done), "done": n}


def _job_id(capp: Any | None) -> str | None:
    """The Celery task id of the job running this study (its study's name, so a job handed
    out again after its worker died resumes the same chunks), or None off Celery."""
    if capp is None:
        return None
    # celery: loaded only where Celery runs the jobs (REDIS_URL), heavy and optional
    from celery import current_task

    return getattr(current_task.request, "id", None) if current_task else None


def racks_shown(racks: object) -> dict[str, str]:
    """The racks box as people write the number (10000 -> 10,000); as typed if not one."""
    try:
        r, _ = study_size(racks, 1)
    except ScenarioError:
        raise PreventUpdate from None  # left as typed: Run names what is wrong with it
    return {"racks": f"{r:,}"}


RUNNING = "Running: the table appears when the study finishes."
# Run clears the old table in the browser, at the click: no request, so however busy the
# server, the last run's table is never on screen as if it answered this one. Cancel says so
# there too, in the watchdog's words: the background job's end reaches the page a poll or
# more later (seconds on a busy machine), and "Running" stayed on screen till then (issue 28).
SAY_AT_THE_CLICK = (
    "function(run, cancel) {"
    f" const cancelled = dash_clientside.callback_context.triggered_id === {ids.FLEET_CANCEL!r};"
    " const p = cancelled"
    f" ? {{type: 'Div', props: {{children: {CANCELLED!r}, className: 'msg notice'}}}}"
    f" : {{type: 'P', props: {{children: {RUNNING!r}, className: 'note'}}}};"
    " p.namespace = 'dash_html_components';"
    " return [p, cancelled ? 'cancelled' : 'starting…']; }"
)


def register(app: Dash, manager: Any) -> None:
    """The study as a background callback on `manager`, the racks box's format, and its
    watchdog. With a Celery manager the study's chunks go to its app's workers."""
    capp = manager.handle if isinstance(manager, CeleryManager) else None

    def fleet_study(set_progress, n, racks, years):  # Dash passes these positionally
        return study(set_progress, n, racks, years, capp)

    app.callback(
        output={"racks": Output(ids.FLEET_RACKS, "value")},
        inputs={"racks": Input(ids.FLEET_RACKS, "value")},
        prevent_initial_call=True,
    )(racks_shown)
    app.clientside_callback(
        SAY_AT_THE_CLICK,
        Output(ids.FLEET_RESULT, "children", allow_duplicate=True),
        Output(ids.FLEET_PROGRESS_TEXT, "children", allow_duplicate=True),
        Input(ids.FLEET_RUN, "n_clicks"),
        Input(ids.FLEET_CANCEL, "n_clicks"),
        prevent_initial_call=True,
    )
    app.callback(
        output={
            "result": Output(ids.FLEET_RESULT, "children"),
            "done": Output(ids.FLEET_DONE, "data"),
        },
        inputs=[Input(ids.FLEET_RUN, "n_clicks")],
        state=[State(ids.FLEET_RACKS, "value"), State(ids.FLEET_YEARS, "value")],
        background=True,
        manager=manager,
        running=[
            (Output(ids.FLEET_RUN, "disabled"), True, False),
            (Output(ids.FLEET_CANCEL, "disabled"), False, True),
            (Output(ids.FLEET_LIVE, "data"), True, False),
        ],
        cancel=[Input(ids.FLEET_CANCEL, "n_clicks"), Input(ids.FLEET_STOP, "data")],
        progress=[
            Output(ids.FLEET_PROGRESS, "value"),
            Output(ids.FLEET_PROGRESS, "max"),
            Output(ids.FLEET_PROGRESS_TEXT, "children"),
            Output(ids.FLEET_BEAT, "data"),
        ],
        prevent_initial_call=True,
    )(fleet_study)
    # Cancel's clicks are a State, not an Input: the renderer sends a running job's handle
    # with every request of a callback that has one of the job's cancel inputs as an Input.
    app.callback(
        output=watch_outputs(),
        inputs={
            "run_clicks": Input(ids.FLEET_RUN, "n_clicks"),
            "ticks": Input(ids.FLEET_WATCH, "n_intervals"),
        },
        state={
            "cancels": State(ids.FLEET_CANCEL, "n_clicks"),
            "beat": State(ids.FLEET_BEAT, "data"),
            "done": State(ids.FLEET_DONE, "data"),
            "live": State(ids.FLEET_LIVE, "data"),
            "state": State(ids.FLEET_WATCH_STATE, "data"),
        },
        prevent_initial_call=True,
    )(watch)
