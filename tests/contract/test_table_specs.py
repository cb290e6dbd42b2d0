import pytest

from contract import ContractError, load_table, table_names


@pytest.mark.parametrize("name", ["pyramid-12ft", "carom-match", "pool-9ft", "snooker-small"])
def test_builtin_tables_load(name: str) -> None:
    t = load_table(name)
    assert t.name == name and t.L > t.W > 0


def test_pyramid_markings_contract_1() -> None:
    t = load_table("pyramid-12ft")
    assert (t.L, t.W, t.ball_mm) == (3550, 1775, 68.0)
    assert t.spots == {"front": (887.5, 887.5), "centre": (1775.0, 887.5), "back": (2662.5, 887.5)}
    assert t.in_house(887.4) and not t.in_house(887.5)  # a centre on the house line is outside
    assert [p.name for p in t.pockets] == [
        "front-left",
        "front-right",
        "middle-left",
        "middle-right",
        "back-left",
        "back-right",
    ]


def test_carom_skittles() -> None:
    t = load_table("carom-match")
    s = t.skittle_spots
    assert set(s) == {"centre", "front", "back", "left", "right"}
    assert s["front"][0] < s["centre"][0] < s["back"][0]
    assert s["left"][1] < s["centre"][1] < s["right"][1]
    assert t.pockets == ()


def test_unknown_table_is_one_line() -> None:
    with pytest.raises(ContractError) as e:
        load_table("no-such-table")
    assert "\n" not in str(e.value) and "pyramid-12ft" in str(e.value)
    assert "pyramid-12ft" in table_names()
