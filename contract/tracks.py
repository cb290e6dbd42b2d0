"""TRACKS.csv (contract §7): one row per ball or skittle per frame, as a struct of arrays.

``x``, ``y`` in table mm; ``u``, ``v`` in recorded video pixels (NaN where predicted).
Extension: an optional ninth column ``state``: ``standing`` or ``fallen`` for a skittle,
empty for a ball. Readers that know only the eight contract columns ignore it.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from contract.errors import ContractError

HEADER = ("frame", "t", "id", "x", "y", "visible", "u", "v")
STATE = "state"
SKITTLE_STATES = ("standing", "fallen")


@dataclass(frozen=True)
class Tracks:
    """Rows of TRACKS.csv, column arrays of equal length, sorted by (frame, id)."""

    frame: np.ndarray  # int
    t: np.ndarray  # float seconds
    id: np.ndarray  # str (object)
    x: np.ndarray  # mm
    y: np.ndarray  # mm
    visible: np.ndarray  # bool
    u: np.ndarray  # px, NaN when predicted
    v: np.ndarray  # px, NaN when predicted
    state: np.ndarray | None = None  # str (object): skittle state, "" for balls

    def __len__(self) -> int:
        return len(self.frame)

    @classmethod
    def from_rows(cls, rows: list[tuple]) -> Tracks:
        """Rows of 8 contract fields, or 9 with the skittle ``state`` last."""
        rows = sorted(rows, key=lambda r: (int(r[0]), str(r[2])))
        with_state = any(len(r) > 8 for r in rows)
        if with_state:
            rows = [r if len(r) > 8 else (*r, "") for r in rows]
        cols = list(zip(*rows, strict=True)) if rows else [()] * 8
        nan = float("nan")
        return cls(
            frame=np.asarray(cols[0], dtype=np.int64),
            t=np.asarray(cols[1], dtype=float),
            id=np.asarray(cols[2], dtype=object),
            x=np.asarray(cols[3], dtype=float),
            y=np.asarray(cols[4], dtype=float),
            visible=np.asarray(cols[5], dtype=bool),
            u=np.asarray([nan if c is None else c for c in cols[6]], dtype=float),
            v=np.asarray([nan if c is None else c for c in cols[7]], dtype=float),
            state=np.asarray([c or "" for c in cols[8]], dtype=object) if with_state else None,
        )

    def select(self, mask: np.ndarray) -> Tracks:
        st = None if self.state is None else self.state[mask]
        return Tracks(*(getattr(self, f)[mask] for f in HEADER), state=st)

    def ids(self) -> list[str]:
        return sorted(set(self.id.tolist()))

    def of(self, ident: str) -> Tracks:
        return self.select(self.id == ident)

    def at_frame(self, frame: int) -> Tracks:
        return self.select(self.frame == frame)


def _num(s: str) -> float | None:
    return None if s == "" else float(s)


def read_tracks(path: str | Path) -> Tracks:
    """Read and validate a TRACKS.csv; raise one-line :class:`ContractError` on bad rows."""
    p = Path(path)
    if not p.is_file():
        raise ContractError(str(path), "", "no such file")
    rows: list[tuple] = []
    with p.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or tuple(h.strip() for h in header[:8]) != HEADER:
            raise ContractError(str(path), "header", f"expected {','.join(HEADER)}")
        state_col = header.index(STATE) if STATE in header[8:] else None
        for n, r in enumerate(reader, start=2):
            if not r:
                continue
            try:
                frame, t, ident, x, y, vis = (
                    int(r[0]),
                    float(r[1]),
                    r[2],
                    float(r[3]),
                    float(r[4]),
                    int(r[5]),
                )
                u, v = (_num(r[6]), _num(r[7])) if len(r) >= 8 else (None, None)
            except (ValueError, IndexError):
                raise ContractError(str(path), f"line {n}", f"bad row {','.join(r)!r}") from None
            if not ident or vis not in (0, 1) or frame < 0:
                raise ContractError(
                    str(path), f"line {n}", "id must be set, visible 0/1, frame >= 0"
                )
            if state_col is None:
                rows.append((frame, t, ident, x, y, vis, u, v))
                continue
            st = r[state_col].strip() if len(r) > state_col else ""
            if st and st not in SKITTLE_STATES:
                raise ContractError(
                    str(path), f"line {n}", f"state must be one of {SKITTLE_STATES}"
                )
            rows.append((frame, t, ident, x, y, vis, u, v, st))
    return Tracks.from_rows(rows)


def _fmt(v: float) -> str:
    return "" if not np.isfinite(v) else f"{v:.2f}"


class TracksWriter:
    """TRACKS.csv written in pieces (a long replay's rows, chunk by chunk), atomically:
    rows go to a temporary file renamed over ``path`` when the writer closes without an
    error. Use as a context manager; :meth:`write` rows sorted by (frame, id)."""

    def __init__(self, path: str | Path, state: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._tmp = self.path.with_name(self.path.name + ".tmp")
        self._f = self._tmp.open("w", newline="", encoding="utf-8")
        self._w = csv.writer(self._f)
        self._w.writerow(HEADER if not state else (*HEADER, STATE))
        self._state = state

    def write(self, tracks: Tracks) -> None:
        for i in range(len(tracks)):
            extra = (
                () if not self._state else (tracks.state[i] if tracks.state is not None else "",)
            )
            self._w.writerow(
                (
                    int(tracks.frame[i]),
                    f"{tracks.t[i]:.4f}",
                    tracks.id[i],
                    f"{tracks.x[i]:.2f}",
                    f"{tracks.y[i]:.2f}",
                    int(bool(tracks.visible[i])),
                    _fmt(tracks.u[i]),
                    _fmt(tracks.v[i]),
                    *extra,
                )
            )

    def commit(self) -> None:
        """Close and put the file in place (what was written so far); once."""
        if not self._f.closed:
            self._f.close()
            self._tmp.replace(self.path)

    def discard(self) -> None:
        """Close and drop the temporary file; ``path`` is left as it was."""
        if not self._f.closed:
            self._f.close()
            self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> TracksWriter:
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def write_tracks(path: str | Path, tracks: Tracks) -> None:
    """Write TRACKS.csv atomically (temp file + rename)."""
    with TracksWriter(path, state=tracks.state is not None) as w:
        w.write(tracks)
