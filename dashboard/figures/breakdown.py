"""Where a decode step's time goes, for this scenario beside its healthy rack, at the reference
interactivity: one stacked bar each, a segment per named part (us per step), so a viewer sees
why a fault costs what it costs. Input: the decode block of model.evaluate (its `breakdown`
and `healthy_breakdown`)."""

from __future__ import annotations

from dashboard.figures.base import empty_figure, header

# One colour a part, the same on both bars (Okabe-Ito and greys; exposed communication in the
# scenario's vermilion so it stands out).
PART_COLORS = {
    "attention": "#56B4E9",
    "experts": "#009E73",
    "imbalance": "#7FC9A9",
    "dense": "#0072B2",
    "activations": "#999999",
    "gaps": "#BBBBBB",
    "mtp_draft": "#F0E442",
    "exposed": "#D55E00",
    "outside": "#666666",
    "residual": "#CC79A7",
}
SHORT = {
    "attention": "attention",
    "experts": "expert GEMMs",
    "imbalance": "expert imbalance",
    "dense": "shared/dense/head",
    "activations": "activations",
    "mtp_draft": "MTP drafting",
    "exposed": "exposed comm.",  # dispatch and combine not hidden (hover: the model's name)
    "gaps": "gaps in a layer",
    "outside": "outside the layers",
    "residual": "residual (fitted)",
}


def breakdown_figure(decode: dict) -> dict:
    """Two stacked horizontal bars (healthy rack, this scenario) of one decode step's parts."""
    here, healthy = decode.get("breakdown"), decode.get("healthy_breakdown")
    if not here or not healthy:
        return empty_figure(
            "The job is down in this scenario: there is no decode step to break down.",
            "Decode step breakdown",
        )

    def label(name: str, b: dict) -> str:
        head, _, tail = b["deployment"]["label"].partition(", FP8")  # two short lines
        return f"{name}<br>{head}<br>FP8{tail}" if tail else f"{name}<br>{head}"

    rows = [(label("healthy rack", healthy), healthy), (label("this scenario", here), here)]
    names = here.get("names", {})
    data = []
    for key, color in PART_COLORS.items():
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": SHORT[key],
                "y": [label for label, _ in rows],
                "x": [b["parts_us"][key] / 1000 for _, b in rows],
                "customdata": [
                    [100 * b["parts_share"][key], b["deployment"]["label"], b["batch_per_gpu"]]
                    for _, b in rows
                ],
                "marker": {"color": color},
                "hovertemplate": (
                    f"{names.get(key, SHORT[key])}<br>%{{x:.2f}} ms a step "
                    "(%{customdata[0]:.1f}%)<br>%{customdata[1]}, %{customdata[2]:.3g} "
                    "requests a GPU<extra></extra>"
                ),
            }
        )
    ref = decode.get("tokens_per_s_per_user", 0)
    sub = (
        f"at {ref:g} tokens/s per user, the best deployment for each<br>exposed "
        f"communication: {100 * healthy['exposed_share']:.1f}% of the healthy step,<br>"
        f"{100 * here['exposed_share']:.1f}% of this one"
    )
    lay = header("Where a decode step's time goes", sub, "breakdown")
    lay |= {
        "barmode": "stack",
        "xaxis": {"title": {"text": "ms per decode step (the slowest EP group's GPU)"}},
        # the bars' three-line labels each need ~40 px: a wide bar gap would squeeze them
        "yaxis": {
            "autorange": "reversed",
            "title": {"text": "configuration"},
            "tickfont": {"size": 10},
        },
        "bargap": 0.25,
        # the legend under the plot, its own margin (it wraps to more rows on a narrow screen)
        "legend": {
            "orientation": "h",
            "yref": "container",
            "y": 0,
            "yanchor": "bottom",
            "font": {"size": 10},
            "traceorder": "normal",
            "entrywidth": 165,  # px an entry: two or three a row, never one long column
            "entrywidthmode": "pixels",
        },
        "margin": {"t": 96, "b": 150},
    }
    return {"data": data, "layout": lay}
