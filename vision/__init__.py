"""From a camera frame to the cards on the table: finding, reading and checking them."""

from vision.read import read_card
from vision.records import CardReading, SymbolReading

__all__ = ["read_card", "CardReading", "SymbolReading"]
