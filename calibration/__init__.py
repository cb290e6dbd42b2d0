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
    found or its front end cannot be told from its back (never a bad fit or a guessed
    orientation passed off as good). Whether its expected error is within bounds:
    :func:`contract.calib.calibration_uncertain`."""
    from calibration.cli import calibrate, require_sure_front
    from calibration.detect import NoTableError

    try:
        fit, _ = calibrate(source, table)
        require_sure_front(fit, table)
    except NoTableError as e:
        raise ContractError(str(source), "calibration", str(e)) from None
    return Calibration(fit.calib)
