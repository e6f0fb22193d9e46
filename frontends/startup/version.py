"""The one place the version lives (pyproject reads it too)."""

__version__ = "0.1.0"
