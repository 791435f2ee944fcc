"""pbem: a play-by-email adjudicator for board wargames."""

__version__ = "0.1.0"
