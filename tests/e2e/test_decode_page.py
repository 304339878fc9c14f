"""Issue 12 on the page: the decode frontier against the same GPU, where a step's time goes,
the words for the exposed communication and the vendor's figure, the calibration table."""

from playwright.sync_api import expect

from dashboard import ids
from harness.page import below, ready
from harness.servers import ARTIFACTS
from model import parse_query
from model.workloads.step import BREAKDOWN_KEYS
from model.workloads.throughput import work


def test_a_fault_shows_its_exposed_communication_beside_the_healthy_step(served, page):
    page.goto(served + "/?fail=st3")
    ready(page)
    below(page)
    versus = page.locator(f"#{ids.VERSUS}")
    expect(versus).to_contain_text("exposed after the overlap", timeout=30000)
    d = work(parse_query("fail=st3").scenario).decode
    # the page's share is the model's one answer
    expect(versus).to_contain_text(f"{d['exposed_share']:.1%} of this scenario's decode step")
    expect(versus).to_contain_text("NVIDIA's 'up to 2.3x'")
    bars = page.locator(f"#{ids.BREAKDOWN} .barlayer .trace")
    expect(bars.first).to_be_visible(timeout=30000)
    assert bars.count() == len(BREAKDOWN_KEYS)  # one trace a part, two bars each
    expect(page.locator(f"#{ids.BREAKDOWN}")).to_contain_text("this scenario")
    card = page.locator("#cards .card", has_text="MoE decode")
    expect(card).to_contain_text("x eth-x72 (the same Rubin GPUs")
    page.locator(f"#{ids.BREAKDOWN}").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "decode-breakdown-st3-1280.png"))
    assert page.log.errors == []


def test_gb200_is_held_against_b200_and_the_calibration_table_opens(served, page):
    page.goto(served + "/?fabric=gb200-nvl72")
    ready(page)
    card = page.locator("#cards .card", has_text="MoE decode")
    expect(card).to_contain_text("b200-roce (the same B200 GPUs", timeout=30000)
    expect(card).not_to_contain_text("eth-x72")
    below(page)  # the calibration table's panel mounts once a reader comes near it
    page.locator(f"#{ids.CALIBRATION_SUMMARY}").click()
    rows = page.locator(f"#{ids.CALIBRATION_BODY} tr")
    expect(rows.nth(60)).to_be_attached(timeout=60000)
    expect(page.locator(f"#{ids.CALIBRATION_BODY}")).to_contain_text("InferenceX GB200 NVL72")
    expect(page.locator(f"#{ids.CALIBRATION_BODY}")).to_contain_text(
        "moving it 10% moves a fitted point at most"
    )
    assert page.log.errors == []
