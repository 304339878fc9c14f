"""The fleet study's watchdog (dashboard/panels/fleet_watchdog.py): the page says "done" once
the run's result is in, whatever became of the study's own last progress report (Dash stops
polling a background callback's progress once its result has arrived)."""

from __future__ import annotations


def test_a_finished_run_reads_done(monkeypatch):
    from dashboard import ids
    from dashboard.panels import fleet_watchdog as W

    class Ctx:
        triggered_id = ids.FLEET_RUN

    monkeypatch.setattr(W, "ctx", Ctx)
    armed = W.watch(1, None, 0, None, None, True, None)
    # the old table goes in the browser at the click (fleet.SAY_AT_THE_CLICK): the arm's answer
    # writes neither, or arriving late it could hide a quick study's table
    assert armed["result"] is W.no_update and armed["progress"] is W.no_update
    state = armed["state"]
    Ctx.triggered_id = ids.FLEET_WATCH
    running = W.watch(1, 1, 0, "1 of 50", None, True, state)
    assert running["idle"] is False and running["progress"] is W.no_update
    done = W.watch(1, 2, 0, "50 of 50", 1, False, running["state"])  # fleet-done: this run
    assert done["progress"] == "done" and done["idle"] is True
