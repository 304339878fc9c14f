"""Issue 28, problem 4: Ethernet and GB200 spoke NVLink 6. Each fabric's cards, hovers, key
and tables now say what that fabric has, in the model's words (model/words.py, the presets)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from harness.page import below, hover_part, ready

pytestmark = pytest.mark.e2e


def _card(page, title: str):
    return page.locator("#cards .card").filter(has=page.locator(".card-title", has_text=title))


def _key_text(page) -> str:
    """The rack's colour key as drawn (the annotation's text in the SVG)."""
    return page.evaluate(
        "() => [...document.querySelectorAll('#rack .annotation-text')]"
        ".map(t => t.textContent).join(' | ')"
    )


def test_ethernet_says_what_ethernet_has(served, page):
    """It said "NVOS, NMX-Controller and NMX-Telemetry", "adaptive-bandwidth mode ...
    DEGRADED_BW", "0 TFLOPS / of 0; SHARP on switch chips in service", and its key had a
    "fabric-manager leader" while its control-plane card said there is none."""
    page.goto(served + "/?fabric=eth-x72&fail=st3")
    ready(page)
    sharp = _card(page, "In-network compute")
    expect(sharp.locator(".card-value")).to_have_text("none")
    expect(sharp).to_contain_text("Ethernet switches do no in-network reduction")
    expect(sharp).not_to_contain_text("SHARP")
    part = _card(page, "ECMP routing")  # no NMX partition, so not NMX's HEALTHY either
    expect(part.locator(".card-value")).to_have_text("fewer ports")
    expect(part).to_contain_text("ECMP: no NMX partition on Ethernet; ports down on 72 GPUs")
    cards = page.locator("#cards")
    for nvlink in ("adaptive-bandwidth", "DEGRADED_BW", "NMX calls", "leader", "NO_NVLINK"):
        expect(cards).not_to_contain_text(nvlink)
    expect(_card(page, "Control plane").locator(".card-value")).to_have_text("distributed")
    expect(cards.locator(".card-value", has_text="HEALTHY")).to_have_count(0)
    expect(page.locator("#events")).not_to_contain_text("leader")
    expect(page.locator("#events")).to_contain_text(
        "ECMP routing: fewer ports (no NMX partition on Ethernet)"
    )
    expect(page.locator("#events")).not_to_contain_text("HEALTHY")
    questions = page.locator("#questions")
    expect(questions).to_contain_text("routed around by ECMP reconvergence in about 3 s")
    expect(questions).to_contain_text("not the Ethernet scale-up fabric")
    expect(questions).to_contain_text("no in-switch reduction (off-the-shelf Ethernet switches")
    expect(questions).not_to_contain_text("NVLink fabric")
    key = _key_text(page)
    assert "cable up" in key and "leader" not in key, key
    hover_part(page, "st3.mc", "eth-x72")
    label = page.locator("#rack .hoverlayer .hovertext").first
    expect(label).to_contain_text("the switch's network OS, management only")
    expect(label).not_to_contain_text("NMX")
    assert page.log.errors == []


def test_nvlink_keeps_its_fabric_manager(served, page):
    """The same page on NVLink still names NMX and its leader (the fix is per fabric)."""
    page.goto(served + "/?fabric=gb200-nvl72&fail=st3")
    ready(page)
    assert "fabric-manager leader" in _key_text(page)
    hover_part(page, "st2.mc", "gb200-nvl72")
    expect(page.locator("#rack .hoverlayer .hovertext").first).to_contain_text(
        "NVOS, NMX-Controller and NMX-Telemetry"
    )
    expect(_card(page, "In-network compute")).to_contain_text(
        "of 64.8 TFLOPS; SHARP on the switch chips in service"
    )
    # the article's 1.8 TB/s is GB200's: said once ("GB200 ... (GB200 is the 1.8 TB/s one)")
    expect(page.locator("#questions")).to_contain_text(
        "GB200 NVL72 (NVLink 5) gives 1.8 TB/s per GPU (bidirectional; that is the 1.8 TB/s)"
    )
    assert page.log.errors == []


def test_gb200s_feature_table_says_where_gb200_stands(served, page):
    """On GB200 the table said "seven NVLink 6 features ... against vr-nvl72" and no more."""
    page.goto(served + "/?fabric=gb200-nvl72&fail=st3")
    ready(page)
    below(page)
    table = page.locator("#buys-table")
    table.scroll_into_view_if_needed()
    expect(table).to_contain_text(
        "this page's fabric is the row 'gb200-nvl72, defaults': it ships 2 of the seven "
        "(control-plane resilience, operation with partially populated racks); the rest are "
        "NVLink 6's",
        timeout=60000,
    )
    expect(page.locator(".panel").filter(has_text="What each feature buys")).to_contain_text(
        "Each of Vera Rubin's seven NVLink 6 features (vr-nvl72) turned off alone"
    )
    assert page.log.errors == []


def test_one_rack_does_not_explain_trunk_states(served, page):
    """On one rack the partition card explained NMX's BANDWIDTH state for trunk links."""
    page.goto(served + "/?fail=gpu07-st3.sw2")
    ready(page)
    part = _card(page, "Partition")
    expect(part).to_contain_text("adaptive-bandwidth mode; links missing on 1 GPU: every GPU")
    expect(part).not_to_contain_text("trunk")
    expect(part).not_to_contain_text("BANDWIDTH is")
    assert page.log.errors == []


def test_a_feature_ethernet_lacks_says_so_on_screen(served, page):
    """All seven NVLink feature boxes stayed on Ethernet with no word of what they mean there:
    a feature Ethernet lacks is now disabled, with why on screen, and a link that switches it
    anyway says, on the page, that it means nothing there."""
    page.goto(served + "/?fabric=eth-x72&fail=st1.mc")
    ready(page)
    box = page.locator("#features input[value=cp-resilience]")
    expect(box).to_be_disabled()
    expect(page.locator("#features input[value=reroute]")).to_be_enabled()
    expect(page.locator("#feature-notes")).to_contain_text(
        "control-plane resilience: eth-x72 has none: no central controller to hand over"
    )
    page.goto(served + "/?fabric=eth-x72&fail=st1.mc&off=cp-resilience")
    ready(page)
    expect(page.locator("#messages")).to_contain_text(
        "off: 'cp-resilience' means nothing on eth-x72: no central controller to hand over: "
        "every switch routes for itself [A]"
    )
    expect(_card(page, "Control plane").locator(".card-value")).to_have_text("distributed")
    expect(_card(page, "Job").locator(".card-value")).to_have_text("running")
    assert page.log.errors == []


def test_each_feature_switch_says_what_it_means_on_this_fabric(served, page):
    """The seven boxes stayed as on Vera Rubin, with no word on screen of what they mean on
    Ethernet or GB200; now a line each under them, from the model, and none on vr-nvl72."""
    page.goto(served + "/?fabric=gb200-nvl72&fail=st3")
    ready(page)
    notes = page.locator("#feature-notes")
    expect(notes).to_contain_text("The feature switches above, on GB200 NVL72 (NVLink 5):")
    expect(notes).to_contain_text(
        "dynamic traffic rerouting: off on gb200-nvl72 by default: full-bandwidth mode"
    )
    page.goto(served + "/?fabric=eth-x72&fail=st3")
    ready(page)
    expect(notes).to_contain_text(
        "control-plane resilience: eth-x72 has none: no central controller to hand over"
    )
    expect(notes).to_contain_text("dynamic traffic rerouting: eth-x72 has it: ECMP reconvergence")
    page.goto(served + "/?fail=st3")
    ready(page)
    expect(page.locator("#cards .card").first).to_contain_text("3.2 TB/s")
    expect(notes).to_be_empty()
    assert page.log.errors == []
