"""The live referee's rules side: events, the game as it unfolds, and where it is kept.

Nothing here imports OpenCV or the vision package: the game is driven by rows of
criteria, so it can be tested (and replayed from its stored events) without a camera.
"""
