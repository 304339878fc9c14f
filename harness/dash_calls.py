"""Build the request bodies the Dash renderer sends to /_dash-update-component, from the app's
own callback map, so benchmarks call the real callbacks exactly as a browser does."""

from __future__ import annotations


def body(app, output_id: str, values: dict[str, object], changed: str) -> dict:
    """The POST body for the callback whose first output is on component `output_id`.

    values: "component.property" -> value for every input and state of that callback.
    """

    def outs_of(cb: dict) -> list:
        return cb["output"] if isinstance(cb["output"], list) else [cb["output"]]

    def matches(cb: dict) -> bool:
        # a clientside callback sits in the map too, with no server function to call
        return "callback" in cb and outs_of(cb)[0].component_id == output_id

    found = [(n, cb) for n, cb in app.callback_map.items() if matches(cb)]
    if not found:
        raise KeyError(output_id)
    name, cb = found[0]
    outs = outs_of(cb)

    def dep(d: dict) -> dict:
        k = f"{d['id']}.{d['property']}"
        return {"id": d["id"], "property": d["property"], "value": values.get(k)}

    return {
        "output": name,
        # a list for a multi-output callback (named "..a.b..", as every dict-output one is)
        "outputs": [{"id": o.component_id, "property": o.component_property} for o in outs]
        if name.startswith("..")
        else {"id": outs[0].component_id, "property": outs[0].component_property},
        "inputs": [dep(d) for d in cb["inputs"]],
        "state": [dep(d) for d in cb.get("state", [])],
        "changedPropIds": [changed],
    }


def page_calls(
    app, search: str, clock: float = 3600.0, drawn_fabric: str | None = "vr-nvl72"
) -> list[dict]:
    """The callbacks a page runs when its scenario (the URL's search) changes.

    drawn_fabric: the fabric whose rack the page has drawn (None on a first page: the rack
    callback then sends the whole figure, not a Patch)."""
    v = {
        "url.search": search,
        "ready.data": search,
        "ready-later.data": search,  # the page scrolled to its charts (panels/below.py)
        "below-seen.data": True,
        "rack-fabric.data": drawn_fabric,
        "clock.data": clock,
        "counter.value": "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_PER_LINK_TOTAL",
        "link-input.value": "gpu07-st3.sw2",
        "compare-input.value": "fabric=eth-x72",
    }
    return [
        body(app, "messages", v, "url.search"),
        body(app, "rack", v, "url.search"),  # beside the cards' (panels/rack.py)
        body(app, "decode-chart", v, "ready-later.data"),
        body(app, "timeline-chart", v, "ready-later.data"),
        body(app, "heatmap-chart", v, "url.search"),  # from the URL once seen
        body(app, "compare-table", v, "ready-later.data"),
    ]
