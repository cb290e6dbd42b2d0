"""A real pinhole camera over the table, with OpenCV lens distortion.

Frames and units:

- Table frame (contract §1): ``x`` along the table, ``y`` across, in mm; ``z`` mm above
  the cloth. Seen from above with ``x`` pointing to the back, ``y`` points to the right,
  so ``(x, y, z_up)`` is a *left-handed* frame. The camera therefore works in the
  right-handed frame ``(x, y, -z)`` ("flipped table frame"): a point ``P = (x, y, z)``
  has camera coordinates ``R @ (flip(P) - flip(C))`` where ``flip`` negates ``z`` and ``C``
  is the optical centre ``(x, y, height)`` in table mm. ``R`` is a proper rotation, so
  ``cv2.projectPoints(flip(P), rvec, tvec, K, dist)`` gives the same pixels as
  :meth:`Camera.project` (inside the image).
- Pixels: ``(u, v)`` with ``u`` to the right, ``v`` down, as recorded (distorted) unless a
  name says ``undistorted``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from contract.calib import CalibrationFile, Distortion
from contract.tables import TableSpec

_FLIP = np.array([1.0, 1.0, -1.0])


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def _rot(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix of ``angle`` radians about the unit ``axis`` (right-handed)."""
    m, _ = cv2.Rodrigues(np.asarray(axis, float).reshape(3) * angle)
    return m


@dataclass(frozen=True, eq=False)
class Camera:
    """A pinhole camera with OpenCV distortion ``(k1, k2, p1, p2, k3)``.

    ``K``: 3x3 intrinsics (pixels). ``R``: proper rotation from the flipped table frame
    ``(x, y, -z)`` to camera coordinates. ``centre``: optical centre ``(x, y, height)`` in
    table mm (height above the cloth). ``image_size``: ``(width, height)`` pixels.
    """

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    centre: np.ndarray
    image_size: tuple[int, int]
    _r2_limit: float = field(init=False, repr=False, default=0.0)

    def __post_init__(self) -> None:
        for name in ("K", "dist", "R", "centre"):
            object.__setattr__(self, name, _ro(getattr(self, name)))
        if self.K.shape != (3, 3) or self.R.shape != (3, 3) or self.centre.shape != (3,):
            raise ValueError("camera needs K 3x3, R 3x3 and centre (3,)")
        if self.dist.shape != (5,):
            raise ValueError("camera distortion must be 5 OpenCV coeffs (k1, k2, p1, p2, k3)")
        if abs(np.linalg.det(self.R) - 1.0) > 1e-6:
            raise ValueError("camera R must be a proper rotation")
        if self.centre[2] <= 0:
            raise ValueError("camera centre must be above the cloth (height > 0 mm)")
        object.__setattr__(self, "image_size", (int(self.image_size[0]), int(self.image_size[1])))
        object.__setattr__(self, "_r2_limit", _monotonic_r2(self.dist))

    # ------------------------------------------------------------------ pose
    @property
    def rvec(self) -> np.ndarray:
        """OpenCV rotation vector of ``R`` (flipped table frame -> camera)."""
        return cv2.Rodrigues(np.asarray(self.R))[0].reshape(3)

    @property
    def tvec(self) -> np.ndarray:
        """OpenCV translation: camera coords = R @ flip(P) + tvec."""
        return -self.R @ (self.centre * _FLIP)

    @property
    def height(self) -> float:
        """Optical centre's height above the cloth, mm."""
        return float(self.centre[2])

    def to_camera(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (N,3) mm -> camera coordinates (N,3) mm (z along the optical axis)."""
        p = np.asarray(xyz_mm, float).reshape(-1, 3)
        return (p * _FLIP - self.centre * _FLIP) @ self.R.T

    def rays(self, xn: np.ndarray) -> np.ndarray:
        """Normalised undistorted image coords (N,2) -> unit ray directions (N,3) in the
        table frame ``(x, y, z_up)`` from the optical centre."""
        xn = np.asarray(xn, float).reshape(-1, 2)
        d = np.c_[xn, np.ones(len(xn))] @ self.R  # R.T applied row-wise
        d *= _FLIP
        return d / np.linalg.norm(d, axis=1, keepdims=True)

    # ------------------------------------------------------------ projection
    def distort_normalised(self, xn: np.ndarray) -> np.ndarray:
        """Normalised undistorted (N,2) -> distorted pixels (N,2) (OpenCV model). The radial
        factor is held constant beyond the radius where the model stops being monotonic, so
        far-off points never fold back into the picture."""
        x, y = xn[:, 0], xn[:, 1]
        k1, k2, p1, p2, k3 = self.dist
        r2 = x * x + y * y
        rc = np.minimum(r2, self._r2_limit)
        radial = 1 + k1 * rc + k2 * rc**2 + k3 * rc**3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        K = self.K
        return np.stack([K[0, 0] * xd + K[0, 1] * yd + K[0, 2], K[1, 1] * yd + K[1, 2]], axis=1)

    def project(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (N,3): x, y mm (contract §1), z mm above the cloth -> recorded
        (distorted) pixels (N,2). Points must lie in front of the camera."""
        pc = self.to_camera(xyz_mm)
        z = pc[:, 2:3]
        if np.any(z <= 1e-6):
            raise ValueError("point behind the camera")
        return self.distort_normalised(pc[:, :2] / z)

    def project_undistorted(self, xyz_mm: np.ndarray) -> np.ndarray:
        """Table points (N,3) mm -> undistorted pixels (N,2)."""
        pc = self.to_camera(xyz_mm)
        uv = pc @ self.K.T
        return uv[:, :2] / uv[:, 2:3]

    def undistort_normalised(self, uv: np.ndarray) -> np.ndarray:
        """Recorded pixels (N,2) -> normalised undistorted coords (N,2) (iterative)."""
        uv = np.asarray(uv, np.float64).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)
        out = cv2.undistortPoints(uv, self.K, self.dist, None, None, None, crit)
        return out.reshape(-1, 2)

    def cloth_homography(self) -> np.ndarray:
        """3x3 homography from cloth points (x, y, 1) mm (z = 0) to undistorted pixels."""
        r = self.R * _FLIP  # columns act on table (x, y, z_up)
        t = self.tvec
        return self.K @ np.c_[r[:, 0], r[:, 1], t]

    def foot(self) -> tuple[float, float]:
        """The point of the cloth straight below the optical centre, table mm."""
        return float(self.centre[0]), float(self.centre[1])

    # ------------------------------------------------------------ calibration
    def front_side(self, table: TableSpec) -> str:
        """Which side of the picture (left/right/top/bottom) the front cushion (x = 0) is on."""
        a = self.project(np.array([[0.0, table.W / 2, 0.0], [table.L, table.W / 2, 0.0]]))
        d = a[0] - a[1]
        if abs(d[0]) >= abs(d[1]):
            return "left" if d[0] < 0 else "right"
        return "top" if d[1] < 0 else "bottom"

    def to_calibration(self, table: TableSpec) -> CalibrationFile:
        """The exact calibration of this camera (CALIB.json, contract §6, format
        tablemon-calibration/1): ``image_to_table`` maps undistorted pixels to the cloth
        plane in mm, ``markings`` are recorded pixels of ``table.markings``,
        ``camera_position_mm`` the optical centre, ``front`` "truth" (how the front end was
        resolved, as calibration.fit writes it; :meth:`front_side` says where it is)."""
        H = np.linalg.inv(self.cloth_homography())
        H = H / H[2, 2]
        names = list(table.markings)
        pts = np.array([[*table.markings[n], 0.0] for n in names])
        px = self.project(pts)
        return CalibrationFile(
            table=table.name,
            image_size=self.image_size,
            image_to_table=tuple(tuple(float(v) for v in row) for row in H),
            distortion=Distortion(
                camera_matrix=tuple(tuple(float(v) for v in row) for row in self.K),
                coeffs=tuple(float(v) for v in self.dist),
            ),
            rms_mm=0.0,
            markings={n: (float(p[0]), float(p[1])) for n, p in zip(names, px, strict=True)},
            camera_position_mm=tuple(float(v) for v in self.centre),
            front="truth",
        )


def _monotonic_r2(dist: np.ndarray) -> float:
    """Largest r^2 up to which r * (1 + k1 r^2 + k2 r^4 + k3 r^6) keeps growing (max 25)."""
    k1, k2, _, _, k3 = (float(v) for v in dist)
    r2 = np.linspace(0.0, 25.0, 5001)
    deriv = 1 + 3 * k1 * r2 + 5 * k2 * r2**2 + 7 * k3 * r2**3
    bad = np.nonzero(deriv <= 0.05)[0]
    return float(r2[bad[0] - 1]) if len(bad) else 25.0


def _look_rotation(yaw: float, tilt: float, tilt_dir: float) -> np.ndarray:
    """Camera rotation R (flipped table frame -> camera) for a camera looking straight down
    with the image ``u`` axis along table +x, turned ``yaw`` about the vertical, then the
    optical axis tilted by ``tilt`` radians towards azimuth ``tilt_dir`` (all radians)."""
    base = np.eye(3)  # rows: u = +x, v = +y, optical axis = -z_up (flipped +z)
    yaw_m = _rot(np.array([0.0, 0.0, 1.0]), yaw)
    tilt_axis = np.array([-math.sin(tilt_dir), math.cos(tilt_dir), 0.0])
    tilt_m = _rot(tilt_axis, tilt)
    return base @ (tilt_m @ yaw_m).T


def outline_mm(table: TableSpec) -> np.ndarray:
    """The outer corners (4,2) of the rails in table mm."""
    m = table.cushion_mm + table.rail_mm
    return np.array(
        [[-m, -m], [table.L + m, -m], [table.L + m, table.W + m], [-m, table.W + m]], float
    )


def random_camera(table: TableSpec, size: tuple[int, int], rng: np.random.Generator) -> Camera:
    """A camera 2.5-4 m over the cloth, tilted a few degrees, turned a little about the
    vertical, either end of the table at the left of the picture, with a focal length that
    fits the table and its rails into ``size`` (w, h) pixels, and mild barrel distortion."""
    w, h = int(size[0]), int(size[1])
    if w < 64 or h < 64 or w < h:
        raise ValueError(f"image size must be landscape and at least 64 px, got {size}")
    height = float(rng.uniform(2500.0, 4000.0))
    yaw = (math.pi if rng.random() < 0.5 else 0.0) + math.radians(rng.uniform(-3.0, 3.0))
    tilt = math.radians(rng.uniform(0.0, 4.0))
    tilt_dir = rng.uniform(0.0, 2 * math.pi)
    R = _look_rotation(yaw, tilt, tilt_dir)
    # Aim the optical axis at the table centre (plus a little) from the chosen height.
    axis = (R[2] * _FLIP).copy()  # optical axis in the table frame (z_up), pointing down
    target = np.array([table.L / 2, table.W / 2, 0.0])
    target[:2] += rng.normal(0.0, 25.0, 2)
    centre = target - axis * (height / -axis[2])
    corners = np.c_[outline_mm(table), np.zeros(4)]
    pc = (corners * _FLIP - centre * _FLIP) @ R.T
    xn = pc[:, :2] / pc[:, 2:3]
    fill = rng.uniform(0.88, 0.97)
    f = min(w / 2 * fill / np.abs(xn[:, 0]).max(), h / 2 * fill / np.abs(xn[:, 1]).max())
    cx = w / 2 + rng.uniform(-0.004, 0.004) * w
    cy = h / 2 + rng.uniform(-0.004, 0.004) * h
    K = np.array([[f, 0.0, cx], [0.0, f, cy], [0.0, 0.0, 1.0]])
    k1 = rng.uniform(-0.08, -0.02)
    k2 = rng.uniform(0.0, 0.3) * abs(k1)
    p1, p2 = rng.normal(0.0, 2e-4, 2)
    dist = np.array([k1, k2, p1, p2, 0.0])
    return Camera(K=K, dist=dist, R=R, centre=centre, image_size=(w, h))


def knocked(camera: Camera, rng: np.random.Generator) -> Camera:
    """The camera after a small knock: the picture shifts 3-15 px in a random direction and
    turns by up to 0.4 degrees about the optical axis (a small rotation of the mount)."""
    f = float(camera.K[0, 0])
    shift = rng.uniform(3.0, 15.0)
    ang = rng.uniform(0.0, 2 * math.pi)
    roll = math.radians(rng.uniform(-0.4, 0.4))
    # Small rotations in camera coordinates: about y shifts u, about x shifts v, about z rolls.
    rc = (
        _rot(np.array([0.0, 1.0, 0.0]), -shift * math.cos(ang) / f)
        @ _rot(np.array([1.0, 0.0, 0.0]), shift * math.sin(ang) / f)
        @ _rot(np.array([0.0, 0.0, 1.0]), roll)
    )
    centre = np.asarray(camera.centre) + np.r_[rng.normal(0.0, 2.0, 2), 0.0]
    return Camera(
        K=camera.K, dist=camera.dist, R=rc @ camera.R, centre=centre, image_size=camera.image_size
    )
