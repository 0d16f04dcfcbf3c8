"""Build hook: put ``chapters/`` and ``recordings/`` inside the wheel, as ``tracer/_bundled/``.

The repository keeps the chapter's material at the top level, beside the package (it is not
code), but a wheel can only install what lives in a package. A regular build maps the two folders
into ``tracer/_bundled``, where :mod:`tracer.files.paths` finds them through :mod:`importlib.resources`.
An editable build maps nothing: that install imports tracer from the checkout and reads the
checkout's own folders, so a stale copy in ``site-packages`` could only mislead. (hatchling's
``force-include`` table would copy them for editable installs too; a hook can tell the two apart.)
"""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

BUNDLED = {"chapters": "tracer/_bundled/chapters", "recordings": "tracer/_bundled/recordings"}


class BundleContentHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name == "wheel" and version != "editable":
            build_data["force_include"].update(BUNDLED)
