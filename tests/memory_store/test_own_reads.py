"""The memory store's own files read through the door for them: a settings file that cannot be
read as written stops the start (exit 2), a guide or record that cannot is a warning, and no
JSON text a repository or a driving program gives is parsed past 64 levels of nesting."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError
from actors.memory_store import Overrides, load_context
from actors.places import hooks_approval_path, mcp_approvals_path, memory_dir

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.memory_store.conftest import Dirs


def load(dirs: Dirs, overrides: Overrides | None = None) -> tuple[str, ...]:
    return load_context(str(dirs.project), home=str(dirs.home), overrides=overrides).warnings


def test_a_fifo_settings_file_stops_the_start_naming_it(dirs: Dirs) -> None:
    dirs.settings.parent.mkdir()
    os.mkfifo(dirs.settings)
    with pytest.raises(ConfigError) as caught:
        load(dirs)
    assert caught.value.message == f"{dirs.settings}: is a FIFO (named pipe), not a file"
    assert caught.value.remedy == "Replace it with a regular file, or remove it"


def test_a_global_config_linked_out_of_the_users_folders_stops_the_start(dirs: Dirs) -> None:
    elsewhere = dirs.home / "dotfiles.json"
    elsewhere.write_text('{"permissionMode": "auto"}')
    dirs.config.parent.mkdir(parents=True)
    dirs.config.symlink_to(elsewhere)
    with pytest.raises(ConfigError, match=r"leads to .*dotfiles\.json, outside .*/\.legato and "):
        load(dirs)


def test_settings_over_a_mebibyte_are_refused(dirs: Dirs) -> None:
    dirs.write_settings('{"model": "opus"' + " " * 1024 * 1024 + "}")
    with pytest.raises(ConfigError, match="is larger than 1024 KiB"):
        load(dirs)


@pytest.mark.parametrize(
    ("number", "shown"),
    [("1e999", "1e999"), ("-1e999", "-1e999"), ("9" * 5000, "9" * 37 + "...")],
)
def test_a_number_no_parser_keeps_is_placed_on_its_line(
    dirs: Dirs, number: str, shown: str
) -> None:
    # 5000 digits made the standard library's parser raise a plain ValueError, which crashed
    # the memory store; 1e999 was placed at column 1 with msgspec's words alone.
    dirs.write_settings('{"permissionMode": "ask",\n "maxBackgroundCommands": ' + number + "}")
    with pytest.raises(ConfigError) as caught:
        load(dirs)
    assert caught.value.message.endswith(
        f"settings.json:2: malformed JSON at column 27: the number {shown} is out of range "
        "(too large for a setting)"
    )


def test_deep_inline_mcp_config_is_a_configuration_error(dirs: Dirs) -> None:
    deep = '{"mcpServers": ' + "[" * 100_000
    with pytest.raises(ConfigError) as caught:
        load(dirs, Overrides(mcp_configs=(deep,)))
    assert caught.value.message.startswith(
        "--mcp-config:1: the JSON is nested more than 64 levels deep at column 79"
    )


def test_a_deep_global_config_is_a_configuration_error(dirs: Dirs) -> None:
    dirs.write_config('{"hooks": ' + "{" * 65 + "}" * 65 + "}")
    with pytest.raises(ConfigError, match=r"config\.json:1: the JSON is nested more than 64"):
        load(dirs)


def test_64_levels_still_load(dirs: Dirs) -> None:
    dirs.write_settings('{"x": ' + "[" * 63 + "]" * 63 + "}")
    assert any("'x'" in warning for warning in load(dirs))  # an unknown key, nothing worse


@pytest.mark.parametrize("where", [hooks_approval_path, mcp_approvals_path])
def test_an_approval_record_linked_elsewhere_approves_nothing(
    dirs: Dirs, where: Callable[[str, str], str]
) -> None:
    # The project's hooks are read, so that their approval record is read too; the project is
    # not trusted (which would approve them without the record).
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}'
    )
    record = where(os.path.realpath(dirs.project), str(dirs.home))
    os.makedirs(os.path.dirname(record))
    planted = dirs.project / "approved.json"
    planted.write_text('{"servers": {}, "fingerprint": ""}')
    os.symlink(planted, record)
    refused = f"{record} was not read: it leads to {planted}, outside {record.rsplit('/', 1)[0]}"
    assert [w for w in load(dirs) if w.startswith(refused)]


def test_deep_approval_records_approve_nothing(dirs: Dirs) -> None:
    record = mcp_approvals_path(os.path.realpath(dirs.project), str(dirs.home))
    os.makedirs(os.path.dirname(record))
    with open(record, "w") as file:
        file.write('{"x": ' + "[" * 200_000 + "]" * 200_000 + "}")
    (dirs.project / ".mcp.json").write_text('{"mcpServers": {"a": {"command": "a"}}}')
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert [server.approved for server in context.mcp_servers] == [False]
    assert any("not an approvals file" in warning for warning in context.warnings)


def test_topic_files_that_are_links_are_not_named(dirs: Dirs) -> None:
    folder = memory_dir(os.path.realpath(dirs.project), str(dirs.home))
    os.makedirs(folder)
    with open(os.path.join(folder, "debugging.md"), "w") as file:
        file.write("x")
    os.symlink(str(dirs.home / ".ssh" / "id_rsa"), os.path.join(folder, "keys.md"))
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert context.memory_topics == ("debugging.md",)


def test_memory_lines_end_at_newlines_as_a_text_file_s_do(dirs: Dirs) -> None:
    folder = memory_dir(os.path.realpath(dirs.project), str(dirs.home))
    os.makedirs(folder)
    with open(os.path.join(folder, "MEMORY.md"), "w", encoding="utf-8", newline="") as file:
        file.write("- a\u2028b\r\n" * 198 + "- mac\r- last\n- cut\n")
    memory = load_context(str(dirs.project), home=str(dirs.home)).memory
    assert memory == "- a\u2028b\n" * 198 + "- mac\n- last\n"


def test_a_guide_of_one_line_over_the_cap_says_what_was_loaded(dirs: Dirs) -> None:
    (dirs.project / "LEGATO.md").write_text("x" * 300_000)
    context = load_context(str(dirs.project), home=str(dirs.home), env={})
    assert [guide.text for guide in context.guides] == ["x" * 256 * 1024]
    assert [w for w in context.warnings if "LEGATO.md is larger than 256 KiB" in w] == [
        f"{dirs.project.resolve() / 'LEGATO.md'} is larger than 256 KiB; only its first 256 KiB "
        "were loaded (no line ends within them); shorten it"
    ]
