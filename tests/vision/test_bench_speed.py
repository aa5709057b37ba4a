"""The speed benchmark's live measure: the loop's frames over a still table an arm reaches over."""

import cv2
import numpy as np

from calibration.seats import Seat
from vision.bench import _ARM_S, _LIVE_FPS, _LIVE_S, _live_frames


def test_the_live_measure_times_every_frame_and_searches_when_the_arm_changes_the_table() -> None:
    frame = np.full((360, 640, 3), (60, 110, 70), np.uint8)
    for x in (250, 340):
        cv2.fillConvexPoly(frame, np.array([[x, 80], [x + 70, 80], [x + 70, 182], [x, 182]], np.int32), (235, 242, 245))
        cv2.circle(frame, (x + 35, 131), 12, (40, 40, 160), -1, cv2.LINE_AA)
    per_frame, searches = _live_frames(frame, [Seat("Anna", (320.0, 350.0)), Seat("Ben", (320.0, 10.0))])
    assert len(per_frame) == int(_LIVE_FPS * _LIVE_S) and all(ms >= 0 for ms in per_frame)
    # The first frame, once a second at least, and a few times while the arm moves in and out.
    once_a_second = int(_LIVE_S)
    assert once_a_second + 2 <= searches < len(per_frame) / 2
    assert _ARM_S[3] < _LIVE_S
