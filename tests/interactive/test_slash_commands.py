from __future__ import annotations

from typing import get_args

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from actors.protocol import PermissionMode, SettingsMode, Usage
from frontends.interactive.completion import LegatoCompleter, fuzzy_score
from frontends.interactive.slash_commands import Command, Unknown, extra_words, help_text, parse
from frontends.interactive.status import CYCLE, Status


def test_commands_parse_and_typos_get_a_did_you_mean() -> None:
    assert parse("/model opus") == Command("/model", "opus")
    assert parse("  /COST ") == Command("/cost", "")
    assert parse("/exit") == Command("/quit", "")
    assert parse("/modle") == Unknown("/modle", "/model")
    assert parse("/modle").message() == (  # type: ignore[union-attr]
        "Unknown command /modle. Did you mean /model? Type /help for the commands."
    )
    assert parse("/zzzzzz") == Unknown("/zzzzzz", None)
    assert parse("fix the bug") is None
    assert parse("/etc/hosts looks odd") is None  # a path, not a command
    for name in ("/help", "/clear", "/quit", "/model", "/fast", "/cost"):
        assert name in help_text()


def test_words_after_a_command_that_takes_none_are_said_not_dropped() -> None:
    # "/undo app.py" must not undo the whole prompt as if the name were not there.
    said = extra_words(Command("/undo", "app.py"))
    assert said == (
        "/undo takes nothing after it, not 'app.py'; nothing was done\n  → Type /undo alone"
    )
    assert extra_words(Command("/undo", "")) is None
    assert extra_words(Command("/rewind", "2 code")) is None
    assert extra_words(Command("/model", "opus")) is None


def test_shift_tab_never_reaches_a_mode_without_questions() -> None:
    # From any mode, even one an embedding frontend started, the cycle reaches only the modes a
    # settings file may choose.
    for start in get_args(PermissionMode):
        mode = start
        for _ in range(len(CYCLE) + 1):
            mode = CYCLE[mode]
            assert mode in get_args(SettingsMode), (start, mode)


def test_shift_tab_cycle_and_status_texts() -> None:
    assert CYCLE["ask"] == "auto" and CYCLE["auto"] == "plan" and CYCLE["plan"] == "ask"
    status = Status("claude-sonnet-4-6", "ask")

    def line() -> str:
        return "".join(text for _, text in status.line())

    assert line() == " sonnet · 0 tokens · $0.0000"
    status.mode = "auto"
    assert "⏵⏵ accept edits on" in line()
    status.mode = "plan"
    assert "⏸ plan mode on" in line() and "accept edits" not in line()


def test_cost_is_counted_per_message_with_the_model_it_ran_on() -> None:
    status = Status("claude-sonnet-4-6", "ask")
    status.count(Usage(input_tokens=1_000_000, output_tokens=0))  # $3 on sonnet
    status.model = "claude-opus-4-6"
    status.fast = True
    status.count(Usage(input_tokens=0, output_tokens=100_000))  # $2.50 at opus, x6 fast
    assert status.cost_report() == (
        "Input tokens:  1,000,000\nOutput tokens: 100,000\nTotal cost:    $18.0000 USD"
    )
    assert " ⚡fast" in "".join(text for _, text in status.line())


def test_the_context_share_has_a_decimal_under_ten_percent() -> None:
    status = Status("claude-haiku-4-5-20251001", "ask")  # a 200,000-token window
    status.count(Usage(input_tokens=900, cache_read_input_tokens=9_000, output_tokens=100))
    assert status.line()[-1] == ("class:status", " · context 5.0%")
    assert status.usage_report().splitlines()[-1] == (
        "Context:       10,000 of 200,000 tokens (5.0% full)"
    )
    status.count(Usage(input_tokens=24_000, output_tokens=1_000))
    assert status.line()[-1] == ("class:status", " · context 12%")


def test_fuzzy_path_scores_prefer_contiguous_and_file_name_matches() -> None:
    assert fuzzy_score("xyz", "src/main.py") is None
    paths = ["docs/main_notes.md", "src/main.py", "src/maintenance/x.py", "tests/test_main.py"]
    ranked = sorted(paths, key=lambda p: fuzzy_score("main.py", p) or (9, 9, 9))
    assert ranked[0] == "src/main.py"
    assert fuzzy_score("smp", "src/main.py") is not None


def test_completion_of_commands_and_at_paths(tmp_path: object) -> None:
    completer = LegatoCompleter(
        lambda: ["src/app.py", "src/util.py", "README.md"], lambda: [("/commit", "Commit")]
    )

    def complete(text: str) -> list[str]:
        document = Document(text, len(text))
        return [c.text for c in completer.get_completions(document, CompleteEvent())]

    assert complete("/co") == ["/cost", "/context", "/compact", "/commit"]
    assert complete("/m") == ["/model", "/mcp"]
    assert complete("look at @sapp") == ["@src/app.py"]
    assert complete("look at @") == ["@README.md", "@src/app.py", "@src/util.py"]
    assert complete("no reference here") == []


def test_help_commands_wrap_under_their_own_column() -> None:
    from frontends.interactive.slash_commands import help_text
    from frontends.skills.skill_report import hang

    commands = help_text().split("\n\nKeys:")[0].splitlines()[1:]
    lines = hang("\n".join(commands), 60)
    assert len(lines) > len(commands)  # something was long enough to wrap at 60 columns
    assert all(line.startswith("  ") for line in lines), lines
