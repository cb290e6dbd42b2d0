"""In: a video file, a still image, a USB camera index or an RTSP/HTTP URL.
Out: Frame values (image, index, time) in order, and the Detections type the detector fills.
"""
