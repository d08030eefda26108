"""Shared test setup: where the test plug-ins are, how to run the CLI in a fresh process, and a
store of findings that is never the repository's (every run writes into a temporary folder).

The tests mirror the packages: ``tests/<package>/`` holds the tests of ``fairlab.<package>``
(``tests/core`` for ``fairlab.core``, ``tests/cli`` for the command line, ``tests/project`` for
packaging and dependencies); ``tests/plugins`` holds researcher-style plug-ins the tests load.
Hypothesis strategies for instances are public: `fairlab.strategies`.

`browser` (the HTML reports' tests) drives the system's Chromium with no new dependency: the Chrome
DevTools Protocol over ``--remote-debugging-pipe`` (Chromium reads NUL-terminated JSON messages on
fd 3 and writes its answers and events on fd 4). Every wait has a deadline, and the browser's
process group is killed at teardown whatever happened. Without Chromium the browser tests are
skipped, unless the environment variable CI is set: then they fail (CI installs it, see .ci/run).
FAIRLAB_CHROMIUM names another browser binary.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLUGINS = Path(__file__).resolve().parent / "plugins"
TIMEOUT = 20.0  # seconds any one browser step may take (a hung browser fails, it does not hang)


def pytest_configure(config):
    # Under CI (the environment variable CI set, as .ci/run's runs are) hypothesis draws the same
    # examples every run (derandomize): CI's verdict on a commit does not depend on luck. Local runs
    # keep exploring new examples (and hypothesis keeps the failures it finds in .hypothesis/).
    if os.environ.get("CI"):
        from hypothesis import settings

        settings.register_profile("fairlab-ci", derandomize=True, database=None)
        settings.load_profile("fairlab-ci")
    # Findings of every search and proof the tests run go to a throwaway store (FAIRLAB_STORE),
    # inherited by the CLI subprocesses the tests start: nothing is written into the checkout.
    import tempfile

    os.environ["FAIRLAB_STORE"] = tempfile.mkdtemp(prefix="fairlab-test-store-")
    # The CLI subprocesses the tests start compile the lab's sources once, into a throwaway cache
    # shared by all of them (PYTHONPYCACHEPREFIX), instead of once per process when the machine sets
    # PYTHONDONTWRITEBYTECODE: about half a second of every `fairlab` subprocess. Nothing is written
    # beside the sources.
    # (xdist's workers inherit the controller's folder.)
    if "PYTHONPYCACHEPREFIX" not in os.environ:
        os.environ["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(prefix="fairlab-test-pycache-")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


# ------------------------------------------------------------------------------ the heavy tier
#: The default suite's heaviest tests (8 s or more each on two cores, measured with
#: ``pytest --durations``): whole audits, searches and proofs run end to end, the docs' long shell
#: examples. They are in the default suite (``python -m pytest`` runs them) and marked ``heavy``:
#: CI runs them once, in its locked environment, and leaves them out of the other Pythons' and the
#: lowest bounds' runs (``-m 'not slow and not heavy'``) to finish in its time. Tests of process
#: pools, time limits, kills, typing and the pytest plug-in stay in every run: they are what differs
#: between Pythons. Each entry says what the test buys.
HEAVY = {
    "tests/audit/test_audit.py::test_asset_profile_matches_the_drf_paper":
        "asset's whole 2x2 profile against DRF paper Theorems 1-3 and Table 2",
    "tests/audit/test_audit.py::test_audit_document_validates_and_renders": "(shares the asset audit above)",
    "tests/audit/test_audit.py::test_same_audit_same_document": "a whole audit is deterministic",
    "tests/audit/test_audit_regressions.py::test_a_plugin_that_breaks_later_is_an_error_row_and_stores_only_violations":
        "a plug-in failing mid-audit is a finding, the rest of the report stands",
    "tests/audit/test_audit_regressions.py::test_a_time_limit_never_turns_a_violation_into_proved":
        "a stopped proof never reads as proved",
    "tests/audit/test_figure_files.py::test_the_files_are_reproducible_across_processes":
        "figure files byte-identical across processes",
    "tests/campaign/test_campaign.py::test_audit_cells_report_their_property_statuses":
        "campaign audit cells carry the audit's statuses",
    "tests/campaign/test_dask.py::test_campaign_run_cluster_local_from_the_cli":
        "the CLI's Dask cluster run (the pool equivalence test stays in every run)",
    "tests/campaign/test_lab_sweeps.py::test_matrix_in_parallel_equals_one_after_another":
        "a parallel matrix gives the serial verdicts (catalogue and rediscover twins stay in every run)",
    "tests/campaign/test_lab_sweeps.py::test_matrix_out_keeps_each_cell_and_resumes":
        "matrix --out resumes cell by cell",
    "tests/cli/test_audit_cli.py::test_audit_jobs_gives_the_serial_verdicts_in_the_same_order[drf]":
        "--jobs 2 equals --jobs 1 on drf (the plug-in case stays in every run)",
    "tests/cli/test_audit_cli.py::test_audit_json_markdown_and_table": "the audit's three text formats",
    "tests/cli/test_audit_cli.py::test_audit_latex_table_and_figures": "LaTeX table and figure files",
    "tests/cli/test_audit_cli.py::test_audit_writes_the_html_report": "the HTML report is written",
    "tests/cli/test_json.py::test_json_output_validates[audit]": "the audit's JSON against its schema",
    "tests/cli/test_plugins.py::test_cli_matrix_reports_a_failing_plugin_instead_of_n_a_cells":
        "a failing plug-in is a finding in matrix",
    "tests/domain/test_verbs.py::test_audit_of_a_plugin_that_crashes_somewhere_exits_0_with_error_rows_and_violations":
        "error rows beside violations, exit 0",
    "tests/dynamic_agents/test_controlled_drf.py::test_at_most_d_agents_change_per_event[0]": "controlled DRF, d = 0",
    "tests/dynamic_agents/test_controlled_drf.py::test_at_most_d_agents_change_per_event[1]": "controlled DRF, d = 1",
    "tests/dynamic_agents/test_controlled_drf.py::test_at_most_d_agents_change_per_event[2]": "controlled DRF, d = 2",
    "tests/dynamics/test_dynamics.py::test_packet_schedulers_agree_with_fluid_model":
        "packet schedulers converge to Bonald & Roberts' fluid model",
    "tests/machines/test_search.py::test_cli_prove_and_matrix": "drf-machines prove and matrix from the CLI",
    "tests/mechanisms/test_exact_plugins.py::test_a_researchers_lp_audits": "a pulp LP plug-in audits to the end",
    "tests/mechanisms/test_plugin_batches.py::test_an_audit_gives_the_same_profile_batched_or_not":
        "batched plug-in calls give the same audit",
    "tests/paper_checks/test_paper_checks.py::test_fast_entry_comes_out_as_expected[lecture-drfh-properties]":
        "the lecture's DRFH claim on 12 seeded instances",
    "tests/project/test_docs_snippets.py::test_shell_lines_run[docs/concepts.md]": "the concepts page's commands",
    "tests/project/test_docs_snippets.py::test_shell_lines_run[docs/howto/lp-mechanism.md]": "the LP how-to's commands",
    "tests/properties/test_contract.py::test_check_confirm_encoding_and_joint_rule_agree[ceei]":
        "ceei: check, confirm, encoding and joint rule agree",
    "tests/search/test_domain_draws.py::test_impossibility_families_take_weights_and_caps_after_every_plain_base":
        "every impossibility family's weights and caps",
    "tests/search/test_impossibility.py::test_every_generated_family_stands_in_its_stated_relations[pm]":
        "every generated pm family (50,009) is well formed",
    "tests/search/test_prove_gsp.py::test_search_ceei_gsp_finds_a_violation_and_drf_holds": "gsp search and proof",
    "tests/search/test_search_verdicts.py::test_same_search_twice_gives_the_same_json[ceei sp]":
        "a ceei sp search is deterministic",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid in HEAVY:
            item.add_marker(pytest.mark.heavy)


@pytest.fixture
def plugins() -> Path:
    """The folder of test plug-ins (``tests/plugins``)."""
    return PLUGINS


@pytest.fixture
def run_cli():
    """Run ``python -m fairlab ARGS`` in a fresh process: ``run_cli(*args, input=None, timeout=300, env=None)``."""

    def run(*args, input: str | None = None, timeout: float = 300, env: dict | None = None):
        return subprocess.run(
            [sys.executable, "-m", "fairlab", *map(str, args)], input=input, capture_output=True, text=True,
            timeout=timeout, env={**os.environ, **(env or {})},
        )

    return run


PROGRESS_LINE = re.compile(r"\[\d+/\d+\] ")  # `--progress plain`'s line of a finished unit


def _assert_one_line_error(out, *words):
    """A refused command: exit 2, nothing on stdout, one line ``error: ...`` naming every word (after
    the plain progress lines of the units that finished before the error, if any)."""
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert out.stdout == ""
    lines = [line for line in out.stderr.strip().splitlines() if not PROGRESS_LINE.match(line)]
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert all(w in lines[0] for w in words), lines[0]


@pytest.fixture
def assert_one_line_error():
    """`assert_one_line_error(completed_process, *words)`: the project's rule for bad input."""
    return _assert_one_line_error


# ------------------------------------------------------------------------------ a headless browser
def chromium_executable() -> str | None:
    """FAIRLAB_CHROMIUM, else ``chromium`` / ``chromium-browser`` on PATH, else None."""
    chosen = os.environ.get("FAIRLAB_CHROMIUM")
    if chosen:
        return chosen
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _high(fd: int) -> int:
    """`fd` moved to a number >= 10, so it cannot collide with the browser's fds 3 and 4."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class BrowserError(RuntimeError):
    """The browser answered with an error, died, or did not answer in time."""


class Browser:
    """A headless Chromium with one page, driven over the DevTools protocol pipe.

    ``navigate(url)``, ``evaluate(js) -> value`` (JSON-able result of the expression, promises
    awaited), ``screenshot(path)`` (full page, PNG); ``problems`` lists console errors, uncaught
    exceptions, log errors and every request that was not for a file:, data: or about: URL."""

    FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
             "--remote-debugging-pipe")

    def __init__(self, executable: str, profile: Path, log: Path):
        to_chrome_r, self._to_chrome = map(_high, os.pipe())
        self._from_chrome, from_chrome_w = map(_high, os.pipe())
        self._log = open(log, "wb")  # noqa: SIM115 (closed in close())
        # fds 3 and 4 of the browser are our pipe ends (dup2 in the child; both ends are >= 10, so
        # neither dup2 overwrites the other's source).
        def pipe_fds_3_and_4():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.process = subprocess.Popen(
            [executable, *self.FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            pass_fds=(3, 4), preexec_fn=pipe_fds_3_and_4, start_new_session=True)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next_id = 0
        self._answers: dict[int, dict] = {}
        self._inbox: queue.Queue = queue.Queue()
        self.events: list[dict] = []
        self.session: str | None = None
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------ the pipe
    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_chrome, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._inbox.put(None)
                return
            buffer += chunk
            while b"\0" in buffer:
                message, buffer = buffer.split(b"\0", 1)
                self._inbox.put(json.loads(message))

    def _pump(self, deadline: float) -> None:
        """Take one message off the pipe (an answer or an event) before `deadline`."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise BrowserError("the browser did not answer in time")
        try:
            message = self._inbox.get(timeout=left)
        except queue.Empty:
            raise BrowserError("the browser did not answer in time") from None
        if message is None:
            raise BrowserError(f"the browser closed the pipe (exit code {self.process.poll()})")
        if "id" in message:
            self._answers[message["id"]] = message
        else:
            self.events.append(message)

    def send(self, method: str, params: dict | None = None, session: bool = True, timeout: float = TIMEOUT) -> dict:
        """One DevTools command; its result (raises `BrowserError` on an error answer or timeout)."""
        self._next_id += 1
        ident = self._next_id
        message = {"id": ident, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        try:
            os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        except OSError as exc:
            raise BrowserError(f"cannot write to the browser: {exc}") from None
        deadline = time.monotonic() + timeout
        while ident not in self._answers:
            self._pump(deadline)
        answer = self._answers.pop(ident)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    # ------------------------------------------------------------------ the page
    def open_page(self, width: int = 1280, height: int = 900) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def navigate(self, url: str, timeout: float = TIMEOUT) -> None:
        """Load `url` and wait until the document is complete."""
        answer = self.send("Page.navigate", {"url": url}, timeout=timeout)
        if answer.get("errorText"):
            raise BrowserError(f"navigate {url}: {answer['errorText']}")
        deadline = time.monotonic() + timeout
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise BrowserError(f"navigate {url}: not loaded within {timeout} s")
            time.sleep(0.05)

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-able; promises awaited)."""
        answer = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            raise BrowserError(f"evaluate: {details.get('exception', {}).get('description') or details.get('text')}")
        return answer["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        """A full-page PNG of the current page at `path`."""
        import base64

        size = self.send("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
        Path(path).write_bytes(base64.b64decode(data["data"]))
        return Path(path)

    @property
    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, error log entries and requests leaving the machine."""
        out = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                out.append("exception: " + str(params.get("exceptionDetails", {}).get("text")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append("log: " + str(params["entry"].get("text")))
            elif method == "Network.requestWillBeSent":
                url = params.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:", "about:")):
                    out.append("request: " + url)
        return out

    def close(self) -> None:
        """Ask the browser to quit, then kill its process group; always returns."""
        try:
            if self.process.poll() is None:
                self.session = None
                self.send("Browser.close", session=False, timeout=3)
        except BrowserError:
            pass
        try:
            self.process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # the renderer and zygote children too
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        for fd in (self._to_chrome, self._from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium with one 1280×900 page (see `Browser`); skipped without Chromium, failed
    instead when CI is set."""
    executable = chromium_executable()
    if not executable or not os.access(executable, os.X_OK):
        reason = "Chromium not found (install the system package `chromium`, or set FAIRLAB_CHROMIUM)"
        if os.environ.get("CI"):
            pytest.fail(f"{reason}; CI is set, so this is a failure, not a skip")
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("chromium")
    started = Browser(executable, folder / "profile", folder / "chromium.log")
    try:
        started.open_page()
    except BrowserError as exc:
        started.close()
        log = (folder / "chromium.log").read_text(errors="replace")[-2000:]
        pytest.fail(f"Chromium did not start: {exc}\n{log}")
    try:
        yield started
    finally:
        started.close()
