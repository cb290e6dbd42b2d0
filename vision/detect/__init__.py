"""In: one Frame and the table's calibration (video px).
Out: that frame's Detections: ball centres (video px and table mm), radii, colours, scores; 5-pin skittles.
"""
