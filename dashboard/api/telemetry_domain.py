"""GET /api/v1/telemetry on a multi-rack domain: the domain's tier and every GPU's fabric
health (model.telemetry.domain), the attribution evaluate gives the domain (one answer
whichever endpoint shows it), and with rack=rNN (or link=rNN.<link>) that rack's own
counters, as one rack answers them, and one link's series and forecast. A rack's counters
keep IDs local to the rack; every ID this answer names itself is rack-prefixed."""

from __future__ import annotations

from collections.abc import Mapping

from dashboard.exporter.domain import rack_index
from model import ScenarioError, telemetry
from model.assess import assess
from model.evaluate import evaluate
from model.kinds import ComponentKind
from model.multirack.domains import rack_id
from model.parts import part
from model.scenario import Scenario
from model.telemetry.domain import domain_counters
from model.telemetry.names import names_json


def domain_telemetry(
    s: Scenario, own: Mapping, window: tuple[float, float, float] | None = None
) -> dict:
    """The JSON of /api/v1/telemetry for a domain scenario (own: the route's parameters;
    window: t0, t1, step of a link's series, when link= is given)."""
    t = float(own["t_s"])
    dc = domain_counters(s, t)
    out: dict = {
        "counters": dc.to_json(),
        "attribution": evaluate(s)["telemetry"],
        "names": names_json(),
    }
    rack, local = None, None
    if "link" in own:
        token = str(own["link"])
        p = part(s, token)
        if p.local is None or p.kind not in (ComponentKind.LINK, ComponentKind.CABLE):
            raise ScenarioError(f"'{token}': a series takes a rack's link or cable", token)
        rack, local = p.rack, p.local
    if "rack" in own:
        r = rack_index(s, str(own["rack"]))
        if rack is not None and r != rack:
            raise ScenarioError(f"link= is in {rack_id(rack)}, rack= is {rack_id(r)}", "rack")
        rack = r
    if rack is None:
        return out
    ra, snap = assess(s).racks[rack], dc.racks[rack]
    if ra is None or snap is None:
        raise ScenarioError(f"rack {rack_id(rack)} is lost in this scenario", "rack")
    out["rack"] = {
        "id": rack_id(rack),
        "ids": f"local to the rack: prefix them with {rack_id(rack)}.",
        "counters": snap.to_json(cables=bool(own.get("cables"))),
        "health_rule": telemetry.health_rule(ra.scenario, t),
    }
    if local is not None and window is not None:
        t0, t1, step = window
        series = telemetry.link_series(ra.scenario, local, t0, t1, step)
        out["series"] = {**series, "id": f"{rack_id(rack)}.{series['id']}"}
        fc = telemetry.forecast(ra.scenario, local, t).to_json()
        out["forecast"] = {**fc, "link": f"{rack_id(rack)}.{fc['link']}"}
    return out
