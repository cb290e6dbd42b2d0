"""In: patches of white pyramid balls (video px) and the views of each white track.
Out: each white ball's printed number, read by the ONNX number net and voted over its views.
"""
