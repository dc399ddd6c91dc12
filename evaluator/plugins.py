"""Named registries that fill themselves: a dataset loader, an answer reader or a metric registers under its name in
the module that defines it (a decorator beside the function), and a task names it by that key.

`Registry` is a dict (name → what was registered, in registration order) that refuses a name twice and says which
names are close when one is unknown. `declared_dirs` lists the folders that declarations as data (languages, task
folders) are read from.
"""
from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Callable, TypeVar

T = TypeVar("T")


class Registry(dict[str, T]):
    """Name → registered value, filled by `add` or the `register(name)` decorator where each value is defined."""

    def __init__(self, kind: str):
        super().__init__()
        self.kind = kind
        """What the registry holds, for messages ("answer reader", "dataset loader", "metric")."""

    def add(self, name: str, value: T) -> T:
        """Register `value` under `name`; ValueError when the name is taken."""
        if name in self:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self[name] = value
        return value

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: register the decorated object under `name` and return it unchanged."""
        return lambda value: self.add(name, value)

    def hint(self, name: str) -> str:
        """"unknown <kind> 'x'", with the closest registered name when there is one."""
        close = difflib.get_close_matches(str(name), list(self), n=1)
        return f"unknown {self.kind} {name!r}" + (f"; did you mean {close[0]!r}?" if close else "")

    def lookup(self, name: str) -> T:
        """The value registered under `name`; KeyError with a close-match hint otherwise."""
        try:
            return self[name]
        except KeyError:
            raise KeyError(self.hint(name)) from None


def declared_dirs(builtin: Path, env: str, sub: str) -> list[Path]:
    """Folders of declarations: `builtin`, then every folder in `$<env>` (os.pathsep-separated), then `<sub>/`
    inside a local `$TANAW_DATA_DIR` when it exists."""
    dirs = [builtin]
    dirs += [Path(p).expanduser() for p in os.environ.get(env, "").split(os.pathsep) if p.strip()]
    data = os.environ.get("TANAW_DATA_DIR", "")
    if data and not data.startswith("hf:") and (Path(data).expanduser() / sub).is_dir():
        dirs.append(Path(data).expanduser() / sub)
    return dirs
