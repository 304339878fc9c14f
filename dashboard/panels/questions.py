"""The four questions readers of the seed article asked (FACTS.md §7), answered for the
scenario on screen, in a sentence or two each, from the model's result."""

from __future__ import annotations

from model import words

GB200_TBS = 1.8  # the article's "1.8 TB/s": GB200 NVL72's per-GPU NVLink 5 bandwidth


def answers(r: dict) -> list[tuple[str, str]]:
    """(question, answer) pairs for one evaluate() result."""
    f = r["fabric"]
    feats = {k: v["on"] for k, v in r["features"].items()}
    pg = r["bandwidth"]["per_gpu_tbs"]
    gp = r["goodput"]
    link_fate = (
        f"a link failure is routed around by {f['reroutes']}, and the job runs on with one GPU at "
        f"{f['links_per_gpu'] - 1}/{f['links_per_gpu']} of its bandwidth"
        if feats["reroute"]
        else "a link failure hangs the collective: the job aborts, restarts from its last "
        "checkpoint and loses the work since"
    )
    lost = (
        "With telemetry a degrading link is flagged days ahead and drained on purpose"
        if feats["telemetry"]
        else "With the telemetry feature off the counters still show a degrading link (DCGM "
        "reads them), but nothing acts on them: it is found only when it fails"
    )
    three_days = (
        f"On {f['name']} with these settings {link_fate}. {lost}. Over a rack-year the model "
        f"expects {gp['interruptions_per_job_year']:.1f} job interruptions and "
        f"{gp['fraction']:.2%} goodput; losing days needs a restart with no recent checkpoint "
        f"(here one every {gp['checkpoint_interval_s'] / 60:.0f} min) or a long repair wait."
    )
    tbs = words.decimal
    which = (  # the article's number is GB200's: said once, not "GB200 ... is the GB200 one"
        "that is the 1.8 TB/s"
        if pg["healthy"] == GB200_TBS
        else "the 1.8 TB/s is GB200 NVL72's, on NVLink 5"
    )
    bw = (
        f"{f['name']} gives {tbs(pg['healthy'])} TB/s per GPU (bidirectional; {which}). In this "
        f"scenario the worst GPU has {tbs(pg['min'])} TB/s and the mean is {tbs(pg['mean'], 3)}; "
        "a collective runs at the worst GPU's pace, so all-to-all moves "
        f"{tbs(r['bandwidth']['all_to_all_tbs'])} TB/s across the rack."
    )
    http = (
        "No. A 502 is an HTTP gateway error from whatever serves your checkpoint storage or API, "
        f"not the {f['technology']} scale-up fabric, which never carries checkpoint writes to "
        "storage. What the "
        f"fabric changes is how often you restart from a checkpoint: here "
        f"{gp['interruptions_per_job_year']:.1f} job interruptions a year, with "
        f"{gp['badput_hours_per_rack_year']['lost_work']:.0f} h of lost work and "
        f"{gp['badput_hours_per_rack_year']['checkpoints']:.0f} h of checkpoint writes."
    )
    tr = r["training"]
    algo = tr.get("all_reduce_algorithm") or "none (the job is down)"
    reduction = (
        f"{tbs(r['sharp_tflops'])} TFLOPS of in-switch reduction"
        if r["sharp_healthy_tflops"]
        else f"no in-switch reduction ({f['in_network']})"
    )
    nccl = (
        "No. NCCL runs on top of the fabric and picks its algorithm from what the fabric offers. "
        f"Here it would see {r['counts']['links_up']:,} of {r['counts']['links']:,} links up, "
        f"{reduction}, and reduce gradients by {algo}; "
        "the fabric's rerouting decides whether NCCL sees a slower link or a dead one."
    )
    return [
        ("I lost three days of training last month to a random link failure.", three_days),
        ("Does this affect the 1.8 TB/s?", bw),
        ("Does this handle the 502 errors I've seen during checkpointing?", http),
        ("Does this actually replace the need for NCCL?", nccl),
    ]
