"""GET /api/v1/goodput with repair=, optimise=1, job_racks= and spares= (issue 14)."""

import pytest


def test_optimise_names_the_best_policy_as_repair_would_write_it(client):
    r = client.get("/api/v1/goodput?optimise=1")
    assert r.status_code == 200
    pol = r.get_json()["policy"]
    assert pol["best"] in {t["policy"] for t in pol["tried"]}
    best = next(t for t in pol["tried"] if t["policy"] == pol["best"])
    now = next(t for t in pol["tried"] if t["policy"] == "now")
    assert best["fraction"] - now["fraction"] == pol["gain_vs_now"] > 0
    assert "fewer times a year" in pol["why"]
    # the best policy, written back into the scenario, gives the goodput it promised
    again = client.get(f"/api/v1/goodput?repair={pol['best']}").get_json()
    assert again["fraction"] == best["fraction"]


def test_a_job_over_many_racks_and_bad_values(client):
    one = client.get("/api/v1/goodput").get_json()["fraction"]
    big = client.get("/api/v1/goodput?job_racks=128&spares=1").get_json()
    assert big["closed_form"]["job_racks"] == 128 and big["fraction"] < one
    for q, token in (
        ("job_racks=0", "job_racks"),
        ("job_racks=2.5", "job_racks"),
        ("spares=3", "spares"),
        ("optimise=yes", "optimise"),
        ("repair=soon", "soon"),
        ("repair=dark-0", "dark-0"),
        ("repair=bw-100,onsite", "bw-100,onsite"),
        ("repair=now,spares", "now,spares"),
        ("price=abc&compare=1", "price"),
        ("onsite_tray_h=-2", "onsite_tray_h"),
    ):
        r = client.get(f"/api/v1/goodput?{q}")
        assert r.status_code == 400 and r.get_json()["token"] == token, q


def test_compare_says_what_each_feature_buys_at_one_and_2000_racks(client):
    """Issue 14 Must-show: the seven features off one at a time, gb200-nvl72 and eth-x72, at
    1 rack and 2,000 racks, in pp, GPU-hours a year and money at an editable price."""
    out = client.get("/api/v1/goodput?compare=1&price=2").get_json()
    fv = out["feature_values"]
    assert [(x["job_racks"], x["spares"]) for x in fv["scales"]] == [(1, False), (2000, True)]
    assert fv["price_per_gpu_h"] == 2.0 and "GPU" in fv["price_source"]
    assert len(fv["rows"]) == 10 and fv["rows"][0]["key"] == "vr-nvl72"
    rows = {r["key"]: r for r in fv["rows"]}
    assert {"reroute", "telemetry", "gb200-nvl72", "eth-x72"} <= set(rows)
    for r in fv["rows"]:
        for a, ref in zip(r["at"], fv["rows"][0]["at"], strict=True):
            assert a["value_pp"] == pytest.approx((ref["fraction"] - a["fraction"]) * 100)
            gpus = a["job_racks"] * 72
            assert a["gpu_hours_per_year"] == pytest.approx(a["value_pp"] / 100 * gpus * 8766)
            assert a["money_per_year"] == pytest.approx(2.0 * a["gpu_hours_per_year"])
            assert a["why"]
    # the 1-rack column is the comparison's own numbers
    one = {c["label"]: c["fraction"] for c in out["comparison"]}
    assert all(r["at"][0]["fraction"] == one[r["label"]] for r in fv["rows"])
    # the job's own scale is added, and the page's repair policy applies to every row
    own = client.get("/api/v1/goodput?compare=1&job_racks=16&spares=1&repair=window-30")
    fv16 = own.get_json()["feature_values"]
    assert fv16["repair"] == "window-30" and fv16["scales"][-1]["job_racks"] == 16
    r = client.get("/api/v1/goodput?compare=1&price=-1")
    assert r.status_code == 400 and r.get_json()["token"] == "price"


def test_a_published_case_is_written_in_a_query(client):
    """Issue 14 items 3-4: Meta's 16k-GPU job (6.5 failures per 1,000 node-days, u0 5 min,
    60-minute checkpoints, E[ETTR] 0.70; Daly's exact model 0.714) through the API from its
    rates alone: GPU failures only over 228 racks with spares, nothing capped."""
    from model.reliability.rates import FAILURE_RATE_FIELDS

    gpu_per_h = 2_048 * 6.5e-3 / 24.0 / 16_384
    zero = "&".join(f"{k}=0" for k in FAILURE_RATE_FIELDS if k != "gpu_per_h")
    q = (
        f"job_racks=228&spares=1&gpu_per_h={gpu_per_h}&{zero}&updates_per_year=0"
        "&detect_other_s=0&restart_s=300&checkpoint_write_s=0.01&checkpoint_min=60"
    )
    r = client.get(f"/api/v1/goodput?{q}")
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["fraction"] == pytest.approx(0.70, abs=0.02)
    bad = client.get("/api/v1/goodput?flaky_share=2")
    assert bad.status_code == 400 and bad.get_json()["token"] == "flaky_share"
