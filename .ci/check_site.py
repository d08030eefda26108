"""The built documentation site in headless Chromium: every page renders, no console error, every
internal link resolves.

    python .ci/check_site.py SITE_DIR        (bash .ci/docs runs it after `mkdocs build --strict`)

The site is served from SITE_DIR on a loopback port (as a reader's server would: the theme's search
worker and its directory URLs need http) and each HTML page is opened in the system's Chromium
(driven over the DevTools protocol by the `Browser` of tests/conftest.py, the same as the report
tests'; FAIRLAB_CHROMIUM names another binary). A page fails when its main content is empty, when the
console, the log or an uncaught exception reports an error, or when it requests anything off the site
(the site works offline); the one failed request not counted is the browser's own guess of
/favicon.ico for a page that declares no icon (the standalone audit report). Every link of every page
that stays on the site must name a file of SITE_DIR (a folder: its index.html) and, with a #fragment,
an element id of that page.
Exit 0: all good; 1: problems (one line each); 2: bad input (no site, no Chromium).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
#: the links, ids and content size of a page, read in the page after it loaded
READ_PAGE = """(() => ({
  title: document.title,
  content: (document.querySelector("article") || document.body).innerText.trim().length,
  ids: Array.from(document.querySelectorAll("[id]"), e => e.id),
  links: Array.from(document.querySelectorAll("a[href]"), a => a.href),
}))()"""


def load_browser():
    """tests/conftest.py's `Browser`, `BrowserError` and `chromium_executable` (one DevTools client for the repo)."""
    spec = importlib.util.spec_from_file_location("fairlab_tests_conftest", ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's signature)
        pass


def serve(folder: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def pages(site: Path) -> list[str]:
    """The site's pages as URL paths ("/", "/mechanisms/drf/", "/404.html")."""
    out = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site).as_posix()
        out.append("/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel))
    return out


def target_file(site: Path, path: str) -> Path | None:
    """The file of SITE_DIR a URL path names (a folder: its index.html), or None."""
    local = site / unquote(path).lstrip("/")
    if local.is_dir():
        local = local / "index.html"
    return local if local.is_file() else None


def problems_of(events: list[dict], origin: str) -> list[str]:
    out = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            out.append("exception: " + str(details.get("exception", {}).get("description") or details.get("text")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            if entry.get("url") == origin + "/favicon.ico":
                continue  # the browser's own guess for a page that declares no icon (a standalone report)
            out.append(f"log: {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if not url.startswith((origin + "/", "data:", "about:", "blob:")):
                out.append("request off the site: " + url)
    return out


def check(site: Path, browser_module) -> tuple[list[str], int, int]:
    """(problems, pages checked, internal links checked)."""
    executable = browser_module.chromium_executable()
    if not executable or not os.access(executable, os.X_OK):
        print("error: Chromium not found (install the system package `chromium`, or set FAIRLAB_CHROMIUM)",
              file=sys.stderr)
        sys.exit(2)
    server, origin = serve(site)
    problems: list[str] = []
    ids: dict[str, set[str]] = {}
    links: list[tuple[str, str]] = []  # (page, href)
    with tempfile.TemporaryDirectory(prefix="fairlab-site-check-") as scratch:
        browser = browser_module.Browser(executable, Path(scratch) / "profile", Path(scratch) / "chromium.log")
        try:
            browser.open_page()
            for page in pages(site):
                del browser.events[:]
                try:
                    browser.navigate(origin + page)
                    time.sleep(0.05)  # let a script's error after load reach the event list
                    seen = browser.evaluate(READ_PAGE)
                except browser_module.BrowserError as exc:
                    problems.append(f"{page}: {exc}")
                    continue
                problems += [f"{page}: {p}" for p in problems_of(browser.events, origin)]
                if not seen["title"] or seen["content"] == 0:
                    problems.append(f"{page}: rendered empty (title {seen['title']!r}, {seen['content']} characters)")
                ids[page] = set(seen["ids"])
                links += [(page, href) for href in seen["links"]]
        finally:
            browser.close()
            server.shutdown()
            server.server_close()
    checked = 0
    for page, href in links:
        parts = urlsplit(href)
        if f"{parts.scheme}://{parts.netloc}" != origin:
            continue  # off the site (a link out is the reader's choice; nothing is requested here)
        checked += 1
        file = target_file(site, parts.path)
        if file is None:
            problems.append(f"{page}: link {parts.path} names no file of the site")
        elif parts.fragment and file.name.endswith(".html"):
            target = "/" + file.relative_to(site).as_posix().removesuffix("index.html")
            if target in ids and unquote(parts.fragment) not in ids[target]:
                problems.append(f"{page}: link {parts.path}#{parts.fragment}: no element with that id")
    return problems, len(ids), checked


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python .ci/check_site.py SITE_DIR", file=sys.stderr)
        return 2
    site = Path(argv[0])
    if not (site / "index.html").is_file():
        print(f"error: {site}: no index.html (build the site first: mkdocs build --strict -d DIR)", file=sys.stderr)
        return 2
    problems, count, links = check(site, load_browser())
    for line in sorted(set(problems)):
        print(line)
    print(f"{count} pages, {links} internal links: {len(set(problems))} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
