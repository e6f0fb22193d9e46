"""``/<name>`` and ``legato /<name>``: what a skill or pattern the person names runs, and the
reports of ``legato skills``."""
