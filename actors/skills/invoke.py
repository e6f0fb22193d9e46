"""``/<name> [args]``: from a command's name and arguments to what runs, for every frontend.

``prepare`` turns ``/commit``, ``/crud-gen product '{"name": "string"}'`` or ``/help`` into
either a ``SkillPrompt`` (a prompt for the model: a skill's steps or a rendered pattern) or a
``SkillOutput`` (text Legato produces itself: the help listing, the memory location, mock
data). The skill library answers ``PrepareCommand`` with it, so a skill behaves the same in
every frontend. Lookup order: the project's skill, the project's pattern, then the bundled ones.
"""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING

from actors.errors import ConfigError, UsageError
from actors.own_files import GUIDE_CAP, Refused, read_own
from actors.places import MEMORY_FILE, memory_dir
from actors.protocol import CommandInfo, PermissionRule, SkillOutput, SkillPrompt
from actors.settings.rule_check import check_rules
from actors.skills import mockdata
from actors.skills.agents import shown_path, survey_agents
from actors.skills.patterns import (
    BUNDLED_PATTERNS,
    Pattern,
    bind,
    find_pattern,
    list_patterns,
    load_pattern,
    pattern_files,
    project_patterns_dir,
    render,
    usage_line,
)
from actors.skills.reference import render_parts
from actors.skills.skill import Skill
from actors.skills.skills import (
    BUNDLED_SKILLS,
    Shadowed,
    declared_name,
    find_skill,
    list_skills,
    load_skill,
    markdown_files,
    project_skills_dir,
    render_skill,
    survey,
)
from actors.skills.stats import record_run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import CommandKind

BUILTINS = {
    "help": ("", "list the skills and patterns with their arguments"),
    "init": ("[project name]", "write LEGATO.md from the project (runs /init-project)"),
    "memory": ("", "show where this project's memory lives and what it holds"),
    "patterns": (
        "[init]",
        "show the pattern library's folder; init writes its README and changelog",
    ),
}
# ``/init``, the reference's name for it, runs the bundled skill that writes LEGATO.md.
ALIASES = {"init": "init-project"}
# The reference's instruction files, which Legato loads beside LEGATO.md.
_THEIR_GUIDES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md")
# Past this, a usage column would push the descriptions off a narrow terminal.
_USAGE_WIDTH = 40


def find_command(project_root: str, name: str, home: str | None = None) -> Skill | Pattern | None:
    """The skill or pattern ``/name`` runs: the project's before the bundled, skills first.

    A file meant to be ``/name`` (by its file name or the name in its front matter) that does
    not load raises its faults: "not a skill" would send the user looking in the wrong place.
    """
    skill = find_skill(project_root, name, home)
    pattern = find_pattern(project_root, name)
    if skill is not None and pattern is not None:
        return pattern if skill.bundled and not pattern.bundled else skill
    found = skill or pattern
    if found is None:
        meant = find_file(project_root, name)
        if meant is not None:
            kind, path = meant
            stem = os.path.basename(path).removesuffix(".md")
            loaded = load_skill(path, expected=stem) if kind == "skill" else load_pattern(path)
            # A pattern that loads is run by its own name only, not by its file's.
            return loaded if loaded.name == name else None
    return found


def find_file(project_root: str, name: str) -> tuple[CommandKind, str] | None:
    """The file meant to be ``/name``, loadable or not: named ``<name>.md``, or declaring
    ``name: <name>`` in its front matter. The project's before the bundled, skills first."""
    folders: list[tuple[CommandKind, list[str]]] = [
        ("skill", markdown_files(project_skills_dir(project_root))),
        ("pattern", pattern_files(project_patterns_dir(project_root))),
        ("skill", markdown_files(BUNDLED_SKILLS)),
        ("pattern", pattern_files(BUNDLED_PATTERNS)),
    ]
    for kind, files in folders:
        for path in files:
            if os.path.basename(path) == f"{name}.md" or declared_name(path) == name:
                return kind, path
    return None


def prepare(
    name: str,
    args: Sequence[str],
    project_root: str,
    *,
    home: str | None = None,
    seed: int | None = None,
    in_session: bool = False,
) -> SkillPrompt | SkillOutput:
    """What ``/name args`` runs: ``UsageError`` for a bad call, ``ConfigError`` for a bad file.

    ``in_session``: the advice it gives says what to type in a session rather than in a shell.
    A pattern run is counted for ``--pattern-stats``.
    """
    home = home if home is not None else os.path.expanduser("~")
    if name == "help":
        return SkillOutput(help_text(project_root, home, in_session=in_session))
    if name == "memory":
        return SkillOutput(memory_text(project_root, home))
    if name == "patterns":
        from actors.skills.library_files import patterns_text

        return SkillOutput(patterns_text(project_root, tuple(args), in_session=in_session))
    name = ALIASES.get(name, name)
    found = find_command(project_root, name, home)
    if found is None:
        raise UsageError(
            f"/{name} is not a skill or a pattern",
            remedy=_suggest(project_root, name, in_session=in_session),
        )
    if isinstance(found, Skill):
        return _skill_prompt(found, args, project_root)
    pattern: Pattern = found
    values = bind(pattern, args)
    result: SkillPrompt | SkillOutput
    if pattern.generator == "mock-data":
        result = SkillOutput(mockdata.generate(values["schema"], int(values["count"]), seed=seed))
    else:
        shown = ", ".join(f"{key}={value}" for key, value in values.items() if value) or "none"
        prompt = (
            f"Run the pattern /{pattern.name}: {pattern.description}\n"
            f"Arguments: {shown}\n"
            "Produce everything the pattern lists, following its steps, with its template "
            f"filled in for these arguments.\n\n{render(pattern, values)}"
        )
        result = SkillPrompt(
            prompt=prompt,
            kind="pattern",
            name=pattern.name,
            path=pattern.path,
            from_project=not pattern.bundled,
        )
    record_run(project_root, home, pattern.name)
    return result


def list_commands(project_root: str, home: str | None = None) -> tuple[CommandInfo, ...]:
    """Every skill and pattern ``/name`` can run here, for /help and completion."""
    skills, _ = list_skills(project_root, home)
    skills = [skill for skill in skills if skill.user_invocable]
    patterns, _ = list_patterns(project_root)
    infos = [
        CommandInfo(
            name=s.name,
            description=s.description,
            kind="skill",
            path=s.path,
            bundled=s.bundled,
            usage=f"/{s.name} {s.hint}",
        )
        for s in skills
    ]
    infos += [
        CommandInfo(
            name=p.name,
            description=p.description,
            kind="pattern",
            path=p.path,
            bundled=p.bundled,
            usage=usage_line(p),
        )
        for p in patterns
    ]
    return tuple(infos)


def help_text(project_root: str, home: str, *, in_session: bool = False) -> str:
    """Skills, patterns and the built-in commands, each with its arguments, in aligned columns;
    then the files that do not load. The advice is what to type where the help is read."""
    run = "" if in_session else "legato "
    skills, skill_faults, shadowed = survey(project_root, home)
    skills = [skill for skill in skills if skill.user_invocable]
    patterns, pattern_faults = list_patterns(project_root)
    rows: list[tuple[str, str] | str] = [f"Skills and commands (run one: {run}/<name> [args]):"]
    rows += [(f"/{s.name} {s.hint}", _from(s.description, s.source, s.bundled)) for s in skills]
    rows += ["", f"Patterns (run one: {run}/<name> <required> [optional]):"]
    rows += [(usage_line(p), _described(p.description, p.bundled)) for p in patterns]
    agents, agent_faults, hidden_agents = survey_agents(project_root, home)
    if agents:
        rows += ["", "Agent types (the model starts them with its Agent tool):"]
        rows += [
            (a.name, f"{a.description}  ({shown_path(a.path, project_root, home)})") for a in agents
        ]
    rows += ["", "Built in:"]
    rows += [(f"/{name} {hint}".rstrip(), text) for name, (hint, text) in BUILTINS.items()]
    if shadowed:
        rows += ["", "Not run (a file of the same name wins):"]
        rows += [(f"/{hidden.name}", _hidden(hidden)) for hidden in shadowed]
    if hidden_agents:
        rows += ["", "Agent files not used (a file of the same name wins):"]
        rows += [(name, f"{shown}: {winner} is used") for shown, name, winner in hidden_agents]
    faults = [*skill_faults, *pattern_faults]
    if faults:
        rows += ["", "Not loaded (fix these files):"]
        rows += [(f"/{_meant(fault.path)}", _summary(project_root, fault)) for fault in faults]
    if agent_faults:
        rows += ["", "Agent files not loaded (fix these files):"]
        rows += [(_meant(fault.path), _summary(project_root, fault)) for fault in agent_faults]
    lines = _aligned(rows)
    lines.append("")
    lines.append(f"{run}/<name> --test checks one and shows it rendered, listing every fault.")
    lines.append(f"Memory: {memory_dir(os.path.realpath(project_root), home)}")
    return "\n".join(lines)


def _described(description: str, bundled: bool) -> str:
    return description if bundled else f"{description}  (project)"


def _from(description: str, source: str, bundled: bool) -> str:
    return description if bundled else f"{description}  ({source})"


def _hidden(hidden: Shadowed) -> str:
    return f"{hidden.source}: {hidden.winner} runs instead"


def _skill_prompt(skill: Skill, args: Sequence[str], project_root: str) -> SkillPrompt:
    """A skill or command's prompt, with what the person should know about running it."""
    if not skill.user_invocable:
        raise UsageError(
            f"/{skill.name} is for the model to load, not to run ({skill.source} says "
            "user-invocable: false)",
            remedy="Ask for what it does in a prompt, or set user-invocable: true in the file",
        )
    notes: list[str] = []
    shell: tuple[str, ...] = ()
    allowed: tuple[PermissionRule, ...] = ()
    model: str | None = None
    if skill.zero_based:
        body, shell = render_parts(skill, args, project_root)
        kind = "skill" if skill.folder else "command"
        where = f"\nIts files are in {skill.folder}." if skill.folder else ""
        prompt = f"Run the {kind} /{skill.name}: {skill.description}{where}\n\n{body}"
        allowed = _allowed(skill, project_root)
        notes += check_rules(allowed)
        if skill.model and skill.level == "user":
            model = skill.model
        elif skill.model:
            notes.append(
                f"{skill.source}: model ({skill.model}) is not applied: a project's file does "
                "not choose where the project's code is sent. Choose one with --model or /model"
            )
    else:
        # /init-project's steps write a guide: which guides there are already comes first.
        guides = _guides_note(project_root) if skill.name == ALIASES["init"] else ""
        prompt = (
            f"Run the skill /{skill.name}: {skill.description}\n{guides}"
            f"Follow these steps in order.\n\n{render_skill(skill, args)}"
        )
    return SkillPrompt(
        prompt=prompt,
        kind="skill",
        name=skill.name,
        path=skill.path,
        from_project=skill.level == "project",
        notes=tuple(notes),
        shell=shell,
        model=model,
        allowed=allowed,
    )


def _allowed(skill: Skill, project_root: str) -> tuple[PermissionRule, ...]:
    """The file's ``allowed-tools`` as allow rules, named by its file and line; one that
    cannot be honoured is the file's error (ConfigError), as it is in a settings file."""
    return tuple(
        PermissionRule(
            behavior="allow",
            text=text,
            source=skill.path,
            line=skill.allowed_line,
            anchor=project_root,
        )
        for text in skill.allowed_tools
    )


def _guides_note(project_root: str) -> str:
    """Which of the reference's instruction files the project has: LEGATO.md is loaded beside
    them, so it should add to them rather than repeat them."""
    present = [name for name in _THEIR_GUIDES if os.path.isfile(os.path.join(project_root, name))]
    if not present:
        return "The project has no CLAUDE.md or AGENTS.md: LEGATO.md will be its only guide.\n"
    listed = ", ".join(present)
    return (
        f"The project already has {listed}, which Legato loads into every session beside "
        f"LEGATO.md. Read {listed} first; do not repeat in LEGATO.md what they already say, "
        "write only what they miss. End by saying whether they already covered the project, "
        "and what LEGATO.md adds.\n"
    )


def _meant(path: str) -> str:
    """The name a broken file is meant to run as: its front matter's, else its file name."""
    return declared_name(path) or os.path.basename(path).removesuffix(".md")


def _summary(project_root: str, fault: ConfigError) -> str:
    """A fault on one line, its file named from the project's root."""
    shown = os.path.relpath(fault.path, project_root)
    if shown.startswith(".."):
        shown = fault.path
    first = fault.message.splitlines()[0].removesuffix(":")
    return first.replace(fault.path, shown, 1)


def _aligned(rows: Sequence[tuple[str, str] | str]) -> list[str]:
    """Headings as they are; ``(usage, description)`` rows in two columns."""
    usages = [row[0] for row in rows if isinstance(row, tuple)]
    width = min(max(map(len, usages), default=0), _USAGE_WIDTH)
    lines: list[str] = []
    for row in rows:
        if isinstance(row, str):
            lines.append(row)
        elif len(row[0]) > width:
            lines.append(f"  {row[0]}")
            lines.append(f"  {'':<{width}}  {row[1]}")
        else:
            lines.append(f"  {row[0]:<{width}}  {row[1]}")
    return lines


def memory_text(project_root: str, home: str) -> str:
    folder = memory_dir(os.path.realpath(project_root), home)
    lines = [f"Memory for this project: {folder}"]
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".md"))
    except FileNotFoundError:
        names = []
    if MEMORY_FILE in names:
        try:
            found = read_own(
                os.path.join(folder, MEMORY_FILE),
                inside=(folder,),
                cap=GUIDE_CAP,
                cut=True,
            )
        except Refused as refused:
            lines.append(f"  {MEMORY_FILE}: {refused.why}, so it is not loaded")
        else:
            count = found.data.count(b"\n") if found is not None else 0
            lines.append(
                f"  {MEMORY_FILE}: {count} lines (the first 200 are loaded into every session)"
            )
    else:
        lines.append(f"  {MEMORY_FILE}: not written yet; ask 'remember that ...' to start it")
    topics = [name for name in names if name != MEMORY_FILE]
    lines.append(f"  topic files: {', '.join(topics) if topics else 'none'} (read when relevant)")
    return "\n".join(lines)


def _suggest(project_root: str, name: str, *, in_session: bool) -> str:
    names = [info.name for info in list_commands(project_root)] + list(BUILTINS)
    close = difflib.get_close_matches(name, names, n=3)
    hint = f"Did you mean {', '.join('/' + c for c in close)}? " if close else ""
    listing = "Type /help" if in_session else "Run 'legato /help'"
    return (
        f"{hint}{listing} to list them; add your own in .legato/skills/<name>.md or "
        ".claude/commands/<name>.md"
    )
