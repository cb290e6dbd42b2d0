"""tablemon vision, in rooms by stage as the data flows: capture -> detect -> track -> events.

``capture`` reads frames, ``detect`` finds the balls of one frame, ``numbers`` reads white balls'
numbers, ``track`` holds ball ids across frames, ``events`` cuts shots and finds their events;
``base`` holds what several rooms share. ``replay``, ``stream``, ``live`` and ``register`` join
the rooms into the recorded-video and live pipelines.
"""
