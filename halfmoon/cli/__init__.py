"""The command line: ``halfmoon <command>``, thin argument parsing over library functions."""

from .main import main

__all__ = ["main"]
