"""What the benchmarks read of other processes from /proc: who descends from whom, and a
process's peak RSS as the kernel keeps it (``VmHWM``, from its exec on)."""

from __future__ import annotations

from pathlib import Path


def descendants(root: int) -> list[int]:
    """Every process under ``root``, children and theirs."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_bytes()
            except OSError:
                continue  # gone since the listing
            # The command name may hold spaces and parentheses; the fields after it do not.
            parent = int(stat.rpartition(b")")[2].split()[1])
            children.setdefault(parent, []).append(int(entry.name))
    found, pending = [], list(children.get(root, ()))
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending.extend(children.get(pid, ()))
    return found


def high_water_kb(pid: int) -> int | None:
    """The process's peak RSS in kB; None when it is gone, or a zombie (the last read stands)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_bytes().splitlines():
            if line.startswith(b"VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None
