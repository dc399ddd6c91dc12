"""Which installed fonts cover a language (fontconfig's `fc-list :lang=xx`), for browser tests that skip when the
script would draw as empty boxes."""
from __future__ import annotations

import shutil
import subprocess


def fonts_for(lang: str) -> str:
    """The font families fontconfig lists for `lang` (an ISO 639 code), or "" without fontconfig or a font."""
    exe = shutil.which("fc-list")
    if exe is None:
        return ""
    return subprocess.run([exe, f":lang={lang}", "family"], capture_output=True, text=True).stdout
