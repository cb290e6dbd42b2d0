"""The scoreboard page end to end: a real server, headless Chromium (system package) driven
by Playwright; the page draws the table, follows changes over SSE, speaks ru and en.
Skipped where Playwright or /usr/bin/chromium is absent."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import httpx
import pytest
from svc_helpers import AUTH, NO_CONTACT, TOKEN, doubtful_break, plain, server, shot, verdict

from service.live import write_test_video

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("no system chromium", allow_module_level=True)

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def test_page_follows_the_match(tmp_path: Path, browser) -> None:
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        mid = c.post(
            "/matches", json={"game": "pyramid-free", "players": {"A": "Иванов", "B": "Petrov"}}
        ).json()["id"]
        c.post(f"/matches/{mid}/shots", json=shot())
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid}?lang=ru")
        page.wait_for_selector("#conn.live", timeout=15000)
        st = c.get(f"/matches/{mid}/state").json()
        assert page.text_content("#pA") == "Иванов" and page.text_content("#pB") == "Petrov"
        assert page.text_content("#sA") == str(st["score"]["A"])
        assert page.locator("svg g.ball").count() == len(st["on_table"])
        assert page.locator("#hist tr").count() == 1
        assert "Партия 1" in page.text_content("#frame")
        # a referee correction and a new shot reach the page over SSE, no reload
        c.post(
            f"/matches/{mid}/referee/verdict",
            json={"verdict": verdict(False, 0, 7, "B", ("foot",))},
        )
        page.wait_for_function("document.getElementById('sB').textContent === '7'", timeout=15000)
        assert page.text_content("#verdict").startswith("Фол: нет касания пола ногой")
        assert page.get_attribute("#verdict", "class") == "foul"
        assert "Petrov" in page.text_content("#turn")
        c.post(f"/matches/{mid}/shots", json=shot(player="B", frame=100))
        page.wait_for_function("document.querySelectorAll('#hist tr').length === 2", timeout=15000)
        rev = c.get(f"/matches/{mid}/state").json()["rev"]
        page.wait_for_function(f"document.body.dataset.rev === '{rev}'", timeout=15000)
        page.close()


def test_page_in_english(tmp_path: Path, browser) -> None:
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        mid = c.post(
            "/matches", json={"game": "carom-5pin", "players": {"A": "Ann", "B": "Bob"}}
        ).json()["id"]
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid}?lang=en")
        page.wait_for_selector("#conn.live", timeout=15000)
        assert (
            "Frame 1" in page.text_content("#frame") and page.text_content("#histTitle") == "Shots"
        )
        assert page.locator("svg rect").count() >= 2  # the carom table drawn
        page.close()


def _table_json(tid: int, **status) -> dict:
    """A ``GET /tables/{id}`` answer with ``status`` over an idle table's."""
    base = {"running": False, "connected": False, "fps": 0.0, "frames": 0, "dropped": 0}
    base |= {"gaps": [], "restarts": 0, "last_error": None, "last_calibration_check": None}
    base |= {"calibration": {}, "vision": None, "camera_moved": [], "ended": False}
    return {"id": tid, "name": "T", "source": "0", "spec": "pyramid-12ft", "calibrated": True} | {
        "created": 0.0,
        "status": base | status,
    }


MOVE = {"frame": 880, "t": 29.3, "type": "camera_moved", "until": 890}


@pytest.mark.parametrize(
    ("status", "lang", "words", "warned"),
    [
        ({}, "en", ["Camera: off", "Calibration: yes"], 0),
        ({"running": True}, "en", ["Camera: connecting"], 1),
        (
            {"running": True, "connected": True, "fps": 29.97, "frames": 900, "dropped": 3},
            "ru",
            ["Камера: в эфире 30.0 к/с", "пропущено кадров: 3"],
            0,
        ),
        (  # a move 10 frames ago: the referee is told to check the shots meanwhile
            {
                "running": True,
                "connected": True,
                "fps": 30.0,
                "frames": 900,
                "camera_moved": [MOVE],
            },
            "en",
            ["Camera moved: frames 880–890 (shots meanwhile are not judged: check them)"],
            1,
        ),
        (  # a move 2 minutes of stream ago: named, not warned
            {
                "running": True,
                "connected": True,
                "fps": 30.0,
                "frames": 4500,
                "camera_moved": [MOVE],
            },
            "en",
            ["Camera moved: frames 880–890"],
            0,
        ),
        (
            {"ended": True, "vision": "the camera moves: no shot is judged"},
            "en",
            ["Camera: video ended", "the camera moves: no shot is judged"],
            1,
        ),
    ],
)
def test_page_shows_the_tables_status(
    tmp_path: Path, browser, status: dict, lang: str, words: list[str], warned: int
) -> None:
    """The page polls its table (``GET /tables/{id}``, answered here by the test) and shows
    the camera, the calibration, why no shots come and a recent camera move as a warning."""
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        tid = c.post("/tables", json={"name": "T", "source": "0"}).json()["id"]
        mid = c.post(
            "/matches",
            json={"game": "pyramid-free", "players": {"A": "A", "B": "B"}, "table_id": tid},
        ).json()["id"]
        page = browser.new_page()
        page.route(
            f"**/tables/{tid}*", lambda route: route.fulfill(json=_table_json(tid, **status))
        )
        page.goto(f"{url}/scoreboard/{mid}?lang={lang}")
        page.wait_for_selector("#tstatus:not([hidden])", timeout=15000)
        text = page.text_content("#tstatus")
        assert all(w in text for w in words), text
        assert page.locator("#tstatus .warn").count() == warned
        page.close()


def test_page_without_a_table_shows_no_status(tmp_path: Path, browser) -> None:
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        mid = c.post("/matches", json={"game": "pyramid-free", "players": {"A": "A", "B": "B"}})
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid.json()['id']}?lang=en")
        page.wait_for_selector("#conn.live", timeout=15000)
        assert page.locator("#tstatus").is_hidden()
        page.close()


def _wait_text(page, sel: str, text: str) -> None:
    page.wait_for_function(
        "([s, t]) => (document.querySelector(s) || {}).textContent === t",
        arg=[sel, text],
        timeout=15000,
    )


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_page_asks_the_referee(tmp_path: Path, browser, lang: str) -> None:
    """A break whose contact was hidden: the page shows the settled score with the point in
    question beside it, "awaiting the referee", the question with one button per option;
    the referee enters the token once and taps "without the contact": the foul is given,
    every later shot judged again, and the page follows over the stream."""
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        mid = c.post(
            "/matches", json={"game": "pyramid-free", "players": {"A": "Ann", "B": "Bob"}}
        ).json()["id"]
        for s in (doubtful_break(), plain()):
            assert c.post(f"/matches/{mid}/shots", json=s).status_code == 201
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid}?lang={lang}")
        page.wait_for_selector("#conn.live", timeout=15000)
        page.wait_for_selector("#questions:not([hidden])", timeout=15000)
        # settled 1 (shot 2), the break's point pending
        assert (page.text_content("#sA"), page.text_content("#qA")) == ("1", "(+1?)")
        assert page.text_content("#qB") == ""
        words = {"en": "awaiting the referee", "ru": "ждёт решения судьи"}[lang]
        assert words in page.text_content("#awaiting") and page.is_visible("#awaiting")
        buttons = page.locator(".question button")
        assert buttons.count() == 2
        foul = page.locator(f'.question button[data-option="{NO_CONTACT}"]')
        label = {
            "en": "without contact yellow w2 at frame 10",
            "ru": "без события «касание yellow w2» (кадр 10)",
        }
        assert label[lang] in foul.text_content() and "Bob +1" in foul.text_content()
        why = {
            "en": "Shot 1: the verdict depends on without contact yellow w2 at frame 10",
            "ru": "Удар 1: решение зависит от варианта: без события «касание yellow w2» (кадр 10)",
        }
        assert page.text_content(".question .why") == why[lang]
        doubt = {"en": "frame", "ru": "кадр"}[lang] + " 10 — contact yellow w2: the contact was"
        assert page.text_content(".question .doubt").startswith(doubt)
        # no token yet: the tap asks for it, nothing is sent
        foul.click()
        page.wait_for_selector("#qtokenRow:not([hidden])", timeout=5000)
        assert c.get(f"/matches/{mid}/questions").json()["open"] == 1
        page.fill("#qtoken", TOKEN)
        page.click("#qtokenSave")
        foul.click()
        _wait_text(page, "#sB", "2")  # B +1 for the foul, and shot 2 is B's now
        page.wait_for_selector("#questions[hidden]", state="attached", timeout=15000)
        assert page.text_content("#sA") == "0" and page.text_content("#qA") == ""
        assert page.is_hidden("#awaiting")
        audit = c.get(f"/matches/{mid}/audit").json()[-1]
        assert (audit["action"], audit["shot"]) == ("answer", 1)
        st = c.get(f"/matches/{mid}/state").json()
        assert st["score"] == {"A": 0, "B": 2} and st["questions_open"] == 0
        page.close()


def test_page_shows_the_questions_stills(tmp_path: Path, browser, monkeypatch) -> None:
    """A match on a table playing a video file: the question shows its decisive still."""
    from service.live import write_test_video

    (tmp_path / "videos").mkdir()
    write_test_video(tmp_path / "videos" / "clip.mp4", frames=30)
    monkeypatch.setenv("TABLEMON_VIDEO_DIR", str(tmp_path / "videos"))
    monkeypatch.setenv("TABLEMON_AUTO_CALIBRATE", "false")
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        tid = c.post("/tables", json={"name": "T", "source": "clip.mp4"}).json()["id"]
        body = {"game": "pyramid-free", "players": {"A": "A", "B": "B"}, "table_id": tid}
        mid = c.post("/matches", json=body).json()["id"]
        c.post(f"/matches/{mid}/shots", json=doubtful_break())
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid}?lang=en")
        page.wait_for_selector(".question img", timeout=15000)
        page.wait_for_function(
            "document.querySelector('.question img').naturalWidth === 64", timeout=15000
        )
        assert page.get_attribute(".question img", "alt") == "10.jpg"
        page.close()


def test_page_shows_a_table_behind(tmp_path: Path, browser, monkeypatch) -> None:
    """A live table whose vision is slower than its camera: the badge says behind (with the
    lag) while it is, and the log says so; once it has caught up, the badge says so too."""
    here = str(Path(__file__).parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([here, os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("TABLEMON_LIVE_VISION", "slowvision:make")
    monkeypatch.setenv("SLOW_VISION_S", "0.08")  # 12 fps against the camera's 30
    monkeypatch.setenv("TABLEMON_VIDEO_DIR", str(tmp_path))
    write_test_video(tmp_path / "clip.mp4", frames=120, fps=30)  # 4 s: ~10 s to process
    with server(tmp_path) as (url, proc), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        tid = c.post("/tables", json={"name": "T", "source": str(tmp_path / "clip.mp4")}).json()[
            "id"
        ]
        mid = c.post(
            "/matches", json={"game": "pyramid-free", "players": {"A": "A", "B": "B"},
                              "table_id": tid}
        ).json()["id"]  # fmt: skip
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid}?lang=en")
        page.wait_for_selector("#conn.live", timeout=15000)
        assert c.post(f"/tables/{tid}/live", json={"match_id": mid}).status_code == 200
        # behind (a machine busier still may lose a frame read late: blind, said as such)
        page.wait_for_selector(
            "#health[data-state=behind], #health[data-state=blind]", timeout=20000
        )
        state, text = page.get_attribute("#health", "class"), page.text_content("#health")
        note = "shots will come late" if state == "behind" else "shots meanwhile go to the referee"
        assert text.startswith("Behind" if state == "behind" else "Frames lost")
        assert "lag" in text and note in text
        h = c.get(f"/tables/{tid}").json()["status"]["health"]
        assert h["frames_in"] > h["processed"] > 0
        # caught up: every frame processed, none lost, the badge gone with the ended worker
        end = time.monotonic() + 40
        while c.get(f"/tables/{tid}").json()["status"]["running"] and time.monotonic() < end:
            time.sleep(0.5)
        h = c.get(f"/tables/{tid}").json()["status"]["health"]
        assert h["state"] in ("ok", "blind") and h["max_lag_s"] > 1.0
        assert h["processed"] + h["lost"] == h["frames_in"] == 120 and h["skipped_idle"] == 0
        if h["state"] == "ok":  # caught up: the badge goes with the ended worker
            page.wait_for_selector("#health", state="hidden", timeout=15000)
        proc.kill()
        proc.wait()
        log = proc.stderr.read().decode()
    assert f"table {tid} (T) is {state}" in log
    assert h["state"] != "ok" or f"table {tid} (T) recovered" in log


def _classic_shots() -> list[dict]:
    """Classic pyramid: the break leaves every number read at rest but 3 and 7; the next
    shot pockets ``w3``, a ball whose number was not read (contract §3): 3 or 7."""
    on = [n for n in map(str, range(1, 16)) if n not in ("3", "7")] + ["w3", "w7", "yellow"]
    rest = {b: [500.0 + 100 * k, 300.0] for k, b in enumerate(on)}
    brk = {
        "start": {"frame": 10, "t": 0.33},
        "end": {"frame": 100, "t": 3.3},
        "cue_ball": "yellow",
        "events": [
            {"frame": 10, "t": 0.33, "type": "strike", "ball": "yellow"},
            {"frame": 20, "t": 0.66, "type": "contact", "balls": ["yellow", "1"]},
            {"frame": 30, "t": 1.0, "type": "cushion", "ball": "4", "cushion": "back"},
            {"frame": 40, "t": 1.33, "type": "cushion", "ball": "6", "cushion": "left"},
        ],
        "rest": rest,
    }
    pot = {
        "start": {"frame": 200, "t": 6.67},
        "end": {"frame": 260, "t": 8.67},
        "cue_ball": "yellow",
        "events": [
            {"frame": 200, "t": 6.67, "type": "strike", "ball": "yellow"},
            {"frame": 210, "t": 7.0, "type": "contact", "balls": ["yellow", "w3"]},
            {"frame": 230, "t": 7.67, "type": "pocket", "ball": "w3", "pocket": "back-left"},
        ],
        "rest": {b: xy for b, xy in rest.items() if b != "w3"},
    }
    return [brk, pot]


def test_page_asks_an_unread_number(tmp_path: Path, browser) -> None:
    """Classic pyramid scores a pocketed ball's number: the ball went down unread, so the
    page shows the shot's points pending, one button per number still possible (3, 7) with
    its points, and the score follows the referee's tap."""
    with server(tmp_path) as (url, _), httpx.Client(base_url=url, headers=AUTH, timeout=10) as c:
        mid = c.post(
            "/matches", json={"game": "pyramid-classic", "players": {"A": "Ann", "B": "Bob"}}
        ).json()["id"]
        for s in _classic_shots():
            assert c.post(f"/matches/{mid}/shots", json=s).status_code == 201
        st = c.get(f"/matches/{mid}/state").json()
        (q,) = c.get(f"/matches/{mid}/questions").json()["questions"]
        assert q["about"] == "number" and st["questions_open"] == 1
        gains = {o["key"]: o["gains"] for o in q["options"]}
        assert set(gains) == {"number:w3=3", "number:w3=7"}
        player = next(p for p, n in gains["number:w3=7"].items() if n == 7)  # who potted
        assert gains["number:w3=3"][player] == 3
        settled = st["score"][player]
        page = browser.new_page()
        page.goto(f"{url}/scoreboard/{mid}?lang=en")
        page.wait_for_selector("#questions:not([hidden])", timeout=15000)
        assert page.text_content(f"#s{player}") == str(settled)  # the pot's points wait
        assert page.text_content(f"#q{player}") != ""
        assert page.is_visible("#awaiting")
        assert "number" in page.text_content(".question .why")
        buttons = page.locator(".question button")
        assert buttons.count() == 2
        three = page.locator('.question button[data-option="number:w3=3"]')
        seven = page.locator('.question button[data-option="number:w3=7"]')
        assert "w3 is ball 3" in three.text_content() and "+3" in three.text_content()
        assert "w3 is ball 7" in seven.text_content() and "+7" in seven.text_content()
        seven.click()  # no token yet: the page asks for it, nothing is sent
        page.wait_for_selector("#qtokenRow:not([hidden])", timeout=5000)
        assert c.get(f"/matches/{mid}/questions").json()["open"] == 1
        page.fill("#qtoken", TOKEN)
        page.click("#qtokenSave")
        seven.click()
        _wait_text(page, f"#s{player}", str(settled + 7))
        page.wait_for_selector("#questions[hidden]", state="attached", timeout=15000)
        assert page.text_content(f"#q{player}") == "" and page.is_hidden("#awaiting")
        after = c.get(f"/matches/{mid}/state").json()
        assert after["score"][player] == settled + 7 and after["questions_open"] == 0
        page.close()
