"""Headless mode: one prompt, no questions asked, output for a pipeline."""

from __future__ import annotations

from frontends.headless.run import run_headless

__all__ = ["run_headless"]
