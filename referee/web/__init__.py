"""The scoreboard page: the live referee's view and standings served to phones and TVs in the room.

The live loop publishes to a ``Hub`` (each annotated frame once, as JPEG bytes it
encoded itself; the game's state when it changes); a ``ScoreboardServer`` on the
standard library's ``ThreadingHTTPServer`` serves the page, the MJPEG stream, the
state as Server-Sent Events, the history of past games, and the referee's actions
to whoever holds the token. Nothing here imports OpenCV or the vision package.
"""

from referee.web.hub import Action, Hub
from referee.web.server import ScoreboardServer, is_loopback, parse_address
from referee.web.state import game_state

__all__ = ["Action", "Hub", "ScoreboardServer", "game_state", "is_loopback", "parse_address"]
