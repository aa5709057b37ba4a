"""Reading photos from disk into BGR frames, refusing what cannot be a table photo."""

from __future__ import annotations

import struct
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["ImageError", "load_image", "image_size", "MIN_SIDE", "MAX_PIXELS"]

MIN_SIDE = 64
MAX_PIXELS = 100_000_000


class ImageError(ValueError):
    """A file cannot be used as a photo of the table."""


def load_image(path: Path) -> NDArray[np.uint8]:
    """The photo in ``path`` as an (H, W, 3) uint8 BGR frame.

    Grayscale photos are made BGR, an alpha channel is dropped, 16-bit photos are
    scaled to 8 bits. Files that are missing, empty, not an image, smaller than
    64x64 or larger than 100 megapixels raise ``ImageError`` with the reason.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ImageError(f"{path}: is a folder, expected an image file") from None
    except OSError as error:
        raise ImageError(f"{path}: cannot read the file ({error.strerror or error})") from None
    if not data:
        raise ImageError(f"{path}: empty file (0 bytes), expected a JPEG or PNG photo")
    size = _header_size(data)
    if size is not None:
        _check_size(path, *size)
    buffer = np.frombuffer(data, np.uint8)
    try:
        image = cv2.imdecode(buffer, cv2.IMREAD_UNCHANGED)
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise ImageError(f"{path}: not an image OpenCV can decode (corrupt, or not a photo format such as JPEG or PNG)")
    _check_size(path, image.shape[1], image.shape[0])
    return _to_bgr8(image)


def image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) of a PNG or JPEG file from its header alone; None when unknown or unreadable."""
    try:
        with path.open("rb") as file:
            return _header_size(file.read(1 << 18))
    except OSError:
        return None


def _check_size(path: Path, width: int, height: int) -> None:
    if width < MIN_SIDE or height < MIN_SIDE:
        raise ImageError(f"{path}: image is {width}x{height}, smaller than {MIN_SIDE}x{MIN_SIDE}; too small to show cards")
    if width * height > MAX_PIXELS:
        raise ImageError(
            f"{path}: image is {width}x{height} ({width * height / 1e6:.0f} megapixels), "
            f"larger than {MAX_PIXELS // 1_000_000} megapixels; scale it down first"
        )


def _to_bgr8(image: NDArray) -> NDArray[np.uint8]:
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype != np.uint8:
        image = cv2.normalize(image, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.shape[2] == 1:
        return cv2.cvtColor(image[..., 0], cv2.COLOR_GRAY2BGR)
    return np.ascontiguousarray(image[..., :3])


def _header_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, read before decoding, or None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if data[:2] == b"\xff\xd8":
        index = 2
        while index + 9 < len(data):
            if data[index] != 0xFF:
                index += 1
                continue
            marker = data[index + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                index += 1 if marker == 0xFF else 2
                continue
            (length,) = struct.unpack(">H", data[index + 2 : index + 4])
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                height, width = struct.unpack(">HH", data[index + 5 : index + 9])
                return width, height
            index += 2 + length
    return None
