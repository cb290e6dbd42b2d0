"""In: every frame's Detections (table mm), empty or not.
Out: tracks: ball ids held across frames, positions in table mm, rest and loss states, numbers.
"""
