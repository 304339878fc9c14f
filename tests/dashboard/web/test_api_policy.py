"""GET /api/v1/goodput with repair=, optimise=1, job_racks= and spares= (issue 14)."""


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
    ):
        r = client.get(f"/api/v1/goodput?{q}")
        assert r.status_code == 400 and r.get_json()["token"] == token, q
