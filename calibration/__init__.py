"""tablemon calibration: table markings -> homography, lens distortion and camera pose.

``calibrate_video(path, table)`` is the one call other stages need: the clean plate of a
video or image, the fitted model as a :class:`contract.calib.Calibration`.
"""

from __future__ import annotations

from pathlib import Path

from contract.calib import Calibration
from contract.errors import ContractError
from contract.tables import TableSpec


def calibrate_video(source: str | Path, table: TableSpec) -> Calibration:
    """Calibrate from the table itself; one-line :class:`ContractError` when no table is
    found (never a bad fit passed off as good)."""
    from calibration.cli import calibrate
    from calibration.detect import NoTableError

    try:
        fit, _ = calibrate(source, table)
    except NoTableError as e:
        raise ContractError(str(source), "calibration", str(e)) from None
    return Calibration(fit.calib)
