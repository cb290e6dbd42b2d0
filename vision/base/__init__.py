"""In (shared by every room, imports none): a calibration and table spec, pixels, cost matrices.
Out: the table's masks and ball radius in the picture, colour classes, assignments, solvers, camera-motion spans.
"""
