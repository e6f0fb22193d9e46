"""The skill library: skills and patterns, run as ``/<name> [args]``.

``SkillLibrary`` is the actor; frontends ask it ``ListCommands``, ``PrepareCommand``,
``CheckCommand`` and ``GetPatternStats`` (actors/protocol/).

Why an actor of its own rather than messages to the memory store: the two hold different
things and live differently. The memory store reads the configuration once, at start, and a
bad file stops the session before any request; the library reads the skill and pattern files
anew for each request (a file fixed mid-session counts at once), needs no configuration (so
``legato /<name> --test`` works beside a broken settings file, and starts only this actor),
and owns a side effect of its own, the pattern counts in ``~/.legato/projects/<hash>/``.

Inside: ``skill.py`` is the record every skill is read into; ``skills.py``, ``reference.py``
and ``patterns.py`` load and render the files, ``frontmatter.py`` and ``safe_yaml.py`` read
their YAML front matter, ``invoke.py`` turns ``/name args`` into a prompt or text,
``checks.py`` and ``changelog.py`` are ``--test``, ``mockdata.py`` renders mock data without a
model, ``stats.py`` counts runs. The bundled library is in ``bundled/``.
"""

from __future__ import annotations

from actors.skills.actor import SkillLibrary

__all__ = ["SkillLibrary"]
