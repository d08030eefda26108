"""Figures 1-3 of Bonald & Roberts §4.3-§4.4 and the orderings their text states.

The example: two resources, three classes a_1 = (.1, 1), a_2 = (1, .1), a_3 = (1, 1); service
rates γ_k against the load of the most loaded resource.

* Figure 1, balanced load ρ_1 = ρ_2 = ρ_3 (both resources carry 2.1 ρ): "for each allocation
  γ_1 = γ_2 > γ_3"; "BMF is very close to PF while both are somewhat better than DRF, especially
  at high load".
* Figure 2, unbalanced load ρ_1 = 4ρ_2 = 4ρ_3 (resource 2 carries 5.1 ρ_2, resource 1 2.4 ρ_2):
  "γ_2 > γ_1 > γ_3"; PF and BMF give "a significant gain in γ_2 for negligible reductions in γ_1
  and γ_3".
* Figure 3, the same unbalanced load, one panel per mechanism: fluid lines and packet-simulation
  crosses (§4.4; `fairlab.dynamics.packets`).

`paper_orderings()` returns those statements checked on freshly computed curves, for the
paper-check ledger. The thresholds used for the words "negligible" and "clearly" are stated in
each claim.
"""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

from rich.progress import Progress

from fairlab.core.errors import InputError
from fairlab.dynamics import markov, packets

REQUIREMENTS = [[Fraction(1, 10), Fraction(1)], [Fraction(1), Fraction(1, 10)], [Fraction(1), Fraction(1)]]
MECHANISMS = ("drf", "pf", "bmf")
LOAD_POINTS = tuple(Fraction(k, 10) for k in range(1, 9)) + (Fraction(85, 100), Fraction(9, 10))
FIGURE_LOADS = {1: "balanced", 2: "unbalanced", 3: "unbalanced"}
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")


def class_loads(kind: str, peak: Fraction) -> list[Fraction]:
    """Per-class loads ρ_k giving the most loaded resource the load `peak` (exact)."""
    if kind == "balanced":  # ρ_1 = ρ_2 = ρ_3 = ρ; each resource carries 2.1 ρ
        rho = Fraction(peak) / Fraction(21, 10)
        return [rho, rho, rho]
    if kind == "unbalanced":  # ρ_1 = 4ρ, ρ_2 = ρ_3 = ρ; resource 2 carries 5.1 ρ, resource 1 2.4 ρ
        rho = Fraction(peak) / Fraction(51, 10)
        return [4 * rho, rho, rho]
    raise ValueError(kind)


def curves(kind: str, mechanisms=MECHANISMS, loads=LOAD_POINTS, tol: float = 1e-4, on_point: Callable | None = None):
    """{mechanism: [MarkovResult per load point]} for the paper's example."""
    out: dict[str, list] = {}
    for m in mechanisms:
        out[m] = []
        for x in loads:
            out[m].append(markov.solve(m, REQUIREMENTS, class_loads(kind, x), tol=tol))
            if on_point:
                on_point(m, x)
    return out


# ----------------------------------------------------------------------------------- orderings
def _claim(figure, text, holds, detail):
    return {"figure": figure, "source": f"Bonald & Roberts §4.3, Figure {figure}", "claim": text,
            "holds": bool(holds), "detail": detail}


def orderings_from(kind: str, data: dict, loads: Sequence, figure: int | None = None) -> list[dict]:
    """The statements of the text about one load pattern, checked on computed curves `data`.
    For `figure` 3 only the ordering its caption states is returned (the rest is Figure 2's text)."""
    out = []
    xs = [float(x) for x in loads]
    hi = len(xs) - 1
    g = {m: [r.gamma for r in data[m]] for m in data}
    if kind == "balanced":
        fig = 1
        eq_err = max(abs(v[0] - v[1]) / v[0] for m in g for v in g[m])
        above = all(v[0] > v[2] for m in g for v in g[m])
        out.append(_claim(fig, "for each allocation γ1 = γ2 > γ3 (balanced load)",
                          eq_err <= 1e-6 and above,
                          f"max |γ1-γ2|/γ1 = {eq_err:.1e} (tolerance 1e-6, floats);"
                          f" γ1 > γ3 at all {len(xs)} loads: {above}"))
        d_bp = max(abs(a - b) / b for va, vb in zip(g["bmf"], g["pf"]) for a, b in zip(va, vb))
        d_dp = max(abs(a - b) / b for va, vb in zip(g["drf"], g["pf"]) for a, b in zip(va, vb))
        out.append(_claim(fig, "BMF is very close to PF (closer than DRF is)", d_bp < d_dp,
                          f"max relative |γ_BMF-γ_PF| = {d_bp:.3f} vs max relative |γ_DRF-γ_PF| = {d_dp:.3f}"))
        ok = all(g[m][hi][k] > g["drf"][hi][k] for m in ("pf", "bmf") for k in range(3))
        gains = {m: [g[m][hi][k] / g["drf"][hi][k] - 1 for k in range(3)] for m in ("pf", "bmf")}
        out.append(_claim(fig, f"PF and BMF both above DRF at high load (every class, load {xs[hi]})", ok,
                          "relative gains over DRF: "
                          + "; ".join(f"{m}: " + ", ".join(f"{x:+.3f}" for x in v) for m, v in gains.items())))
    else:
        fig = figure or 2
        ok = all(v[1] > v[0] > v[2] for m in g for v in g[m])
        out.append(_claim(fig, "for each allocation γ2 > γ1 > γ3 (unbalanced load ρ1 = 4ρ2 = 4ρ3)", ok,
                          f"checked at loads {xs} for {', '.join(g)}"))
        if fig == 3:
            return out
        gain = {m: g[m][hi][1] / g["drf"][hi][1] - 1 for m in ("pf", "bmf")}
        out.append(_claim(fig, f"PF and BMF give class 2 a clearly higher rate than DRF (≥ 10% at load {xs[hi]})",
                          all(v >= 0.10 for v in gain.values()),
                          ", ".join(f"γ2 {m}/drf - 1 = {v:+.3f}" for m, v in gain.items())))
        loss = max(1 - g[m][i][k] / g["drf"][i][k] for m in ("pf", "bmf") for i in range(len(xs)) for k in (0, 2))
        out.append(_claim(fig, "for negligible reductions in γ1 and γ3 (at most 5% below DRF at every load)",
                          loss <= 0.05, f"largest relative reduction of γ1 or γ3 vs DRF: {loss:+.4f}"))
    return out


def paper_orderings(
    loads: Sequence = (Fraction(2, 10), Fraction(5, 10), Fraction(8, 10)), tol: float = 1e-4
) -> list[dict]:
    """The orderings the text states for Figures 1-3, each checked on freshly computed fluid curves.

    Returns a list of {"figure", "source", "claim", "holds", "detail"}. The last load point plays
    the role of "high load". About 30 s with the default loads on 2 shared cores.
    """
    out = []
    for kind in ("balanced", "unbalanced"):
        out += orderings_from(kind, curves(kind, loads=loads, tol=tol), loads)
    return out


# ----------------------------------------------------------------------------------- plotting
def _axes_rates(ax, xs, results, style, label, balanced=False):
    for k in range(3):
        # balanced load: γ1 = γ2, so class 1 is drawn wide underneath class 2 to stay visible
        width = 4 if balanced and k == 0 else 1.5
        name = f"{label} class {k + 1}" + (" (= class 2)" if balanced and k == 0 else "")
        ax.plot(xs, [r.gamma[k] for r in results], style, color=COLOURS[k], label=name, linewidth=width)


def draw(figure: int, out_dir: str | Path, loads=LOAD_POINTS, tol: float = 1e-4, packet_loads=None,
         packet_options: dict | None = None, progress: bool = True, echo: Callable = print) -> dict:
    """Regenerate Figure 1, 2 or 3 as a PNG in `out_dir`; return paths, timings and orderings."""
    from matplotlib.figure import Figure  # heavy and optional: loaded only when a figure is drawn

    if figure not in (1, 2, 3):
        raise InputError(f"figure: expected 1, 2 or 3, got {figure!r}")
    started = time.perf_counter()
    kind = FIGURE_LOADS[figure]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    bar = None
    tick = None
    if progress:
        bar = Progress(transient=True)
        bar.start()
        task = bar.add_task(f"figure {figure}: fluid curves", total=len(MECHANISMS) * len(loads))
        tick = lambda m, x: bar.advance(task)  # noqa: E731
    try:
        data = curves(kind, loads=loads, tol=tol, on_point=tick)
    finally:
        if bar is not None:
            bar.stop()
    fluid_seconds = time.perf_counter() - started
    xs = [float(x) for x in loads]
    xlabel = "load of the most loaded resource" if kind == "balanced" else "resource 2 load"
    title = {"balanced": "balanced load ρ1 = ρ2 = ρ3", "unbalanced": "unbalanced load ρ1 = 4ρ2 = 4ρ3"}[kind]
    packet: dict[str, list] = {}
    if figure in (1, 2):
        fig = Figure(figsize=(11, 4.5))
        axes = fig.subplots(1, 2, sharey=True)
        for ax, other in zip(axes, ("drf", "pf")):
            _axes_rates(ax, xs, data["bmf"], "-", "BMF", kind == "balanced")
            _axes_rates(ax, xs, data[other], "--", other.upper(), kind == "balanced")
            ax.set_title(f"({'ab'[axes.tolist().index(ax)]}) BMF v {other.upper()}")
    else:
        if packet_loads is None:  # a few of the fluid load points, so crosses sit on the lines' abscissae
            packet_loads = ([x for x in loads if x in (Fraction(3, 10), Fraction(5, 10), Fraction(7, 10))]
                            or list(loads)[:3])
        opts = {"flows": 10000, "mean_size": 50, "window": 5, "seed": 0, **(packet_options or {})}
        fig = Figure(figsize=(15, 4.5))
        axes = fig.subplots(1, 3, sharey=True)
        for ax, m in zip(axes, MECHANISMS):
            _axes_rates(ax, xs, data[m], "-", "fluid")
            packet[m] = []
            for x in packet_loads:
                res = packets.simulate(m, REQUIREMENTS, class_loads(kind, x), progress=progress, **opts)
                packet[m].append((float(x), res))
                for k in range(3):
                    ax.plot([float(x)], [res.gamma[k]], "x", color=COLOURS[k], markersize=9, mew=2)
            ax.plot([], [], "kx", label=f"packets (W={opts['window']}, mean {opts['mean_size']} pkts)")
            ax.set_title(f"({'abc'[MECHANISMS.index(m)]}) {m.upper()}")
    for ax in axes:
        ax.set_xlabel(xlabel)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower left")
    axes[0].set_ylabel("service rate γ_k")
    fig.suptitle(f"Figure {figure} (Bonald & Roberts §4): a1=(.1,1), a2=(1,.1), a3=(1,1); {title}")
    fig.tight_layout()
    path = out_dir / f"figure{figure}.png"
    fig.savefig(path, dpi=110)
    orderings = orderings_from(kind, data, loads, figure)
    if packet:
        worst = max(abs(r.gamma[k] - data[m][[float(v) for v in loads].index(x)].gamma[k])
                    / data[m][[float(v) for v in loads].index(x)].gamma[k]
                    for m, pts in packet.items() for x, r in pts if x in xs for k in range(3))
        orderings.append(_claim(3, "the packet-based algorithms closely approximate the fluid service rates "
                                   "(within 15% per class; the run's statistical error is of that order)",
                                worst <= 0.15, f"largest relative difference packets vs fluid: {worst:.3f} "
                                f"({opts['flows']} flows, mean {opts['mean_size']} packets, W={opts['window']})"))
    worst_boundary = max(r.boundary_mass for m in data for r in data[m])
    return {
        "figure": figure,
        "path": str(path),
        "seconds": time.perf_counter() - started,
        "fluid_seconds": fluid_seconds,
        "loads": xs,
        "gamma": {m: [r.gamma for r in data[m]] for m in data},
        "max_boundary_mass": worst_boundary,
        "states": {m: [r.states for r in data[m]] for m in data},
        "orderings": orderings,
        "packets": {m: [{"load": x, "gamma": r.gamma, "fluid": data[m][[float(v) for v in loads].index(x)].gamma
                         if x in xs else None, "packets_per_second": r.packets_per_second} for x, r in v]
                    for m, v in packet.items()},
    }
