"""The lag on the scoreboard page end to end (issue 32): a served ``breaker: "lag"`` match
goes from the lag shot to the break with one referee tap in headless Chromium (system
package, Playwright); skipped where either is absent."""

from __future__ import annotations

import shutil
from pathlib import Path

import httpx
import pytest
from svc_helpers import AUTH, TOKEN, lag_shot, server, shot

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("no system chromium", allow_module_level=True)

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]  # fmt: skip


def test_lag_to_break_with_one_tap(tmp_path: Path) -> None:
    players = {"A": "Ann", "B": "Bob"}
    with (
        server(tmp_path) as (url, _),
        httpx.Client(base_url=url, headers=AUTH, timeout=10) as c,
        sync_api.sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        mid = c.post("/matches", json={"game": "pyramid-free", "players": players,
                                       "breaker": "lag"}).json()["id"]  # fmt: skip
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid}?lang=en&token={TOKEN}")
        page.wait_for_selector("#conn.live", timeout=15000)
        assert "waiting" in page.text_content("#lag")
        # the camera's lag shot arrives: Ann 300 mm from the front cushion, Bob 480 mm
        assert c.post(f"/matches/{mid}/shots", json=lag_shot(300.0, 480.0)).status_code == 201
        page.wait_for_selector("#lag-concede", timeout=15000)
        text = page.text_content("#lag")
        assert "Ann wins" in text and "300.0 ±" in text and "480.0 ±" in text
        assert "front cushion" in page.text_content("#lagWhy")
        # one tap: Ann gives the break to Bob
        page.click("#lag-concede")
        page.wait_for_function(
            "document.getElementById('lag').textContent.includes('Bob breaks')", timeout=15000
        )
        st = c.get(f"/matches/{mid}/state").json()
        assert st["turn"] == "B" and st["lag"]["status"] == "decided"
        assert "Bob" in page.text_content("#turn")
        assert page.locator("#lag button").count() == 0
        # the break follows: Bob's shot is judged as the break
        r = c.post(f"/matches/{mid}/shots", json=shot(player="B", cue="yellow", frame=300))
        assert r.status_code == 201, r.text
        page.wait_for_function("document.querySelectorAll('#hist tr').length === 2", timeout=15000)
        browser.close()
