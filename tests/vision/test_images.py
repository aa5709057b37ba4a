"""Reading photos: what is accepted, what is refused and why, and that nothing crashes."""

import struct
import zlib

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vision.images import ImageError, load_image


def encode(image: np.ndarray, ext: str) -> bytes:
    ok, data = cv2.imencode(ext, image)
    assert ok
    return data.tobytes()


def png_header(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk))


RGB = np.random.default_rng(0).integers(0, 255, (100, 120, 3), dtype=np.uint8)


@pytest.mark.parametrize(
    "image, ext",
    [
        (RGB, ".png"),
        (RGB, ".jpg"),
        (RGB[..., 0].copy(), ".png"),
        (np.dstack([RGB, np.full((100, 120), 128, np.uint8)]), ".png"),
        ((RGB.astype(np.uint16) * 257), ".png"),
    ],
    ids=["png", "jpeg", "grayscale", "alpha", "16-bit"],
)
def test_photos_are_read_as_bgr8(tmp_path, image, ext) -> None:
    path = tmp_path / f"photo{ext}"
    path.write_bytes(encode(image, ext))
    frame = load_image(path)
    assert frame.shape == (100, 120, 3) and frame.dtype == np.uint8


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "no such file"),
        (b"", "empty file"),
        (b"hello, this is text", "not an image"),
        (encode(RGB, ".png")[:40], "not an image"),
        (encode(np.zeros((40, 200, 3), np.uint8), ".png"), "40 is smaller than 64x64|200x40, smaller than 64x64"),
        (png_header(20000, 10000), "200 megapixels\\), larger than 100 megapixels"),
    ],
    ids=["missing", "empty", "text", "truncated png", "too small", "too large"],
)
def test_unusable_files_are_refused_with_the_reason(tmp_path, content, message) -> None:
    path = tmp_path / "photo.png"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ImageError, match=message) as error:
        load_image(path)
    assert str(path) in str(error.value)


def test_a_folder_is_refused(tmp_path) -> None:
    with pytest.raises(ImageError, match="is a folder"):
        load_image(tmp_path)


JPEG = encode(RGB, ".jpg")
PNG = encode(RGB, ".png")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    base=st.sampled_from([JPEG, PNG, b""]),
    cut=st.integers(0, len(JPEG)),
    flips=st.lists(st.tuples(st.integers(0, len(PNG) - 1), st.integers(0, 255)), max_size=8),
    noise=st.binary(max_size=64),
)
def test_random_and_corrupted_files_never_crash(tmp_path, base, cut, flips, noise) -> None:
    data = bytearray(base[:cut] + noise)
    for index, value in flips:
        if index < len(data):
            data[index] = value
    path = tmp_path / "fuzz.img"
    path.write_bytes(bytes(data))
    try:
        frame = load_image(path)
    except ImageError:
        return
    assert frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8
