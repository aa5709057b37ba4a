"""The rules referee: the games' vocabulary, rules, rankings and the command line."""

__version__ = "0.1.0"
