"""mkdocs hooks (mkdocs.yml, ``hooks:``): the API reference is read from a view of the checkout laid out
as `fairlab` (`scripts/layout.py`), so that plain ``mkdocs serve`` and ``mkdocs build`` work in an
editable checkout.

mkdocstrings' griffe reads a package from its folder; the checkout's `mechanisms/`, `properties/`, ...
become `fairlab.mechanisms` etc. only through setuptools' package-dir, which griffe cannot follow. Each
build lays the view out in a temporary folder, puts it first on the Python handler's search path
(``paths``) and removes it when the build ends; ``mkdocs serve`` also watches the package's folders, so
an edited docstring rebuilds the site. Nothing is written into the checkout.
"""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import tempfile
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import event_priority

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("fairlab_layout", HERE / "layout.py")
assert spec is not None and spec.loader is not None
layout = importlib.util.module_from_spec(spec)
spec.loader.exec_module(layout)

#: the views of the builds still running (removed at the end of each build, and at exit)
views: list[Path] = []


def remove_views() -> None:
    while views:
        shutil.rmtree(views.pop(), ignore_errors=True)


atexit.register(remove_views)


@event_priority(100)  # before the plugins' on_config: the handler reads ``paths`` when it first renders
def on_config(config: MkDocsConfig) -> MkDocsConfig:
    scratch = Path(tempfile.mkdtemp(prefix="fairlab-docs-view."))
    views.append(scratch)
    view = layout.build_view(scratch / "view")  # the checkout this file lies in (bash .ci/docs links scripts/)
    python = config.plugins["mkdocstrings"].config["handlers"]["python"]
    python["paths"] = [str(view)]
    return config


def on_serve(server: LiveReloadServer, config: MkDocsConfig, builder) -> LiveReloadServer:
    for folder in layout.package_dirs().values():
        server.watch(str(folder))
    return server


def on_post_build(config: MkDocsConfig) -> None:
    remove_views()


def on_build_error(error: Exception) -> None:
    remove_views()
