"""A figure of agents over time: each user's dominant share after every event of a dynamic
allocation (`fairlab.mechanisms.base.Allocation.steps`), e.g. Kash, Procaccia & Shah's dynamic DRF
against drf-rerun. ``fairlab allocate MECH INSTANCE --figure PATH`` draws it.

Only the file the caller names is written (PNG or SVG, by its suffix); `check_path` refuses a bad
path with a one-line `InputError` before any work. The numbers are the exact allocation's, drawn
as floats (a picture, never a verdict).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact

FORMATS = {".png": "png", ".svg": "svg"}


def check_path(path: str | os.PathLike) -> Path:
    """The figure's path, or a one-line InputError: suffix .png or .svg, an existing writable
    directory to hold it, and not itself a directory."""
    text = str(path)
    if not text.strip():
        raise InputError("--figure: the path is empty")
    target = Path(text)
    if target.suffix.lower() not in FORMATS:
        raise InputError(f"--figure {text!r}: the file name must end in .png or .svg")
    if target.is_dir():
        raise InputError(f"--figure {text!r}: is a directory")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"--figure {text!r}: no such directory {str(parent)!r}")
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise InputError(f"--figure {text!r}: not writable")
    return target


def step_labels(allocation) -> list[str]:
    inst = allocation.instance
    return [f"{k}\n{'+' if step.event[0] == 'arrive' else '−'}{inst.users[step.event[1]]}"
            for k, step in enumerate(allocation.steps, start=1)]


def draw(allocation, path: str | os.PathLike) -> Path:
    """Draw each user's dominant share over the steps into `path` (checked first)."""
    target = check_path(path)
    if allocation.steps is None:
        raise InputError("--figure: the allocation has no steps (an instance without arrivals)")
    from matplotlib.figure import Figure  # heavy and optional: loaded only when a figure is drawn

    inst = allocation.instance
    steps = allocation.steps
    xs = list(range(1, len(steps) + 1))
    fig = Figure(figsize=(max(5.0, 1.1 * len(steps) + 2), 4.0))
    ax = fig.add_subplot(1, 1, 1)
    for i, user in enumerate(inst.users):
        points = [(k, float(step.tasks[i] * inst.dominant_share_per_task(i)))
                  for k, step in zip(xs, steps) if i in step.present]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", drawstyle="steps-post", label=user)
    ax.set_xticks(xs)
    ax.set_xticklabels(step_labels(allocation))
    ax.set_xlabel("step (event)")
    ax.set_ylabel("dominant share")
    ax.set_ylim(0, 1.05)
    ratio = allocation.extra.get("fairness_ratio") if allocation.extra else None
    title = f"{allocation.mechanism}: dominant shares over time"
    if ratio is not None:
        title += f" (fairness ratio {format_exact(ratio)})"
    ax.set_title(title, fontsize=10)
    ax.legend(loc="best")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    # written beside the target and renamed into place: a failed write leaves nothing behind
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        # created with the user's umask (as a plain open would), never over an existing file
        with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb") as handle:
            fig.savefig(handle, format=FORMATS[target.suffix.lower()], dpi=110)
        os.replace(partial, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise InputError(f"--figure: cannot write {str(target)!r}: {exc.strerror or exc}") from None
    return target
