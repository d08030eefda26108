"""Network instances: flows routed over links and middleboxes.

Bonald & Roberts' router and network applications (§1, §3.3: flows of packets crossing a router's
middleboxes and output link, or a network's links; BMF generalises network-wide max-min fairness)
and SimGrid-style flow systems are graphs. `from_network` turns one into an `Instance`:

* each link (edge) with a ``capacity`` attribute and each middlebox (node) with a ``capacity``
  attribute is a resource, named by its ``name`` attribute, else ``"u-v"`` for a link and the
  node's own name for a middlebox (only those some flow crosses, in the graph's order);
* each flow is a user, named by its key in `flows`; its demand on a resource is its route's load
  there per unit of rate: on a link, the flow's ``size`` (default 1: one unit of bandwidth per
  unit of rate) times the link's ``cost`` (default 1); on a middlebox, the flow's own
  ``load[<middlebox>]`` if it gives one (per-flow processing time, as the router application's
  requirement vectors), else the node's ``cost`` (default 1);
* a flow gives its route as a list of nodes, or as ``{"path": [...]}`` / ``{"source": s,
  "target": t}`` (a shortest path by hop count, `networkx.shortest_path`: the `network` extra),
  with optional ``size``, ``load``, ``weight`` and ``max_tasks``.

The graph may be a networkx graph (read through ``G.nodes(data=True)``, ``G.edges(data=True)``,
``G.is_directed()``) or its JSON form, an instance file with a ``network`` key:

    {"network": {"directed": false,
                 "nodes": [{"id": "cpu", "capacity": 1}, {"id": "in"}, {"id": "out"}],
                 "links": [{"source": "cpu", "target": "out", "capacity": 1, "name": "link"}]},
     "flows": {"f1": {"path": ["in", "cpu", "out"], "load": {"cpu": "1/10"}}}}

Numbers are read exactly (`fairlab.core.exact.to_fraction`). Reading the JSON form needs no
networkx unless a flow is routed by source and target. `figure_svg` draws the network with each
flow's route and its bottleneck (a saturated resource on its route where its share is largest).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from html import escape
from typing import Any, Mapping, Sequence

from fairlab.core.errors import InputError
from fairlab.core.exact import format_exact, short_text, to_fraction


@dataclass(frozen=True)
class Network:
    """A network as the lab reads it: nodes (name, capacity or None, cost, position or None),
    links (u, v, name, capacity or None, cost), directed?, and each flow's route (node names)."""

    nodes: tuple[tuple[str, Fraction | None, Fraction, tuple | None], ...]
    links: tuple[tuple[str, str, str, Fraction | None, Fraction], ...]
    directed: bool
    routes: tuple[tuple[str, tuple[str, ...]], ...]


def _number(value, where: str, positive: bool = False) -> Fraction:
    number = to_fraction(value, where)
    if number < 0 or (positive and number == 0):
        raise InputError(f"{where}: must be {'positive' if positive else 'non-negative'}, got {short_text(value)}")
    return number


def _graph_parts(graph) -> tuple[list, list, bool]:
    """(nodes as (name, attrs), links as (u, v, attrs), directed) of a networkx graph or its JSON form."""
    if isinstance(graph, Mapping):
        directed = bool(graph.get("directed", False))
        nodes_raw, links_raw = graph.get("nodes") or [], graph.get("links") or graph.get("edges") or []
        if not isinstance(nodes_raw, list) or not isinstance(links_raw, list):
            raise InputError("network: nodes and links must be lists")
        nodes = []
        for k, node in enumerate(nodes_raw):
            if not isinstance(node, Mapping) or "id" not in node:
                raise InputError(f"network.nodes[{k}]: expected an object with an id, got {short_text(node)}")
            nodes.append((str(node["id"]), {key: v for key, v in node.items() if key != "id"}))
        links = []
        for k, link in enumerate(links_raw):
            if not isinstance(link, Mapping) or "source" not in link or "target" not in link:
                raise InputError(f"network.links[{k}]: expected an object with source and target, "
                                 f"got {short_text(link)}")
            links.append((str(link["source"]), str(link["target"]),
                          {key: v for key, v in link.items() if key not in ("source", "target")}))
        known = {name for name, _ in nodes}
        for u, v, _ in links:  # nodes named only by links
            for x in (u, v):
                if x not in known:
                    known.add(x)
                    nodes.append((x, {}))
        return nodes, links, directed
    try:
        nodes = [(str(n), dict(a)) for n, a in graph.nodes(data=True)]
        links = [(str(u), str(v), dict(a)) for u, v, a in graph.edges(data=True)]
        directed = bool(graph.is_directed())
    except (AttributeError, TypeError) as exc:
        raise InputError(f"network: expected a networkx graph or its JSON form ({exc})") from None
    if graph.is_multigraph() if hasattr(graph, "is_multigraph") else False:
        raise InputError("network: a multigraph's parallel links cannot be told apart by a route of nodes")
    return nodes, links, directed


def read(graph, flows: Mapping | None) -> tuple[dict, Network]:
    """The instance dict (capacities, demands, weights, max_tasks, users, resources) and the `Network`."""
    nodes, links, directed = _graph_parts(graph)
    if not isinstance(flows, Mapping) or not flows:
        raise InputError("flows: expected a non-empty mapping of flow name -> route")
    node_cap = {name: (None if a.get("capacity") is None else _number(a["capacity"], f"node {name}: capacity", True))
                for name, a in nodes}
    node_cost = {name: _number(a.get("cost", 1), f"node {name}: cost") for name, a in nodes}
    by_pair: dict[tuple[str, str], int] = {}
    link_rows = []
    for k, (u, v, a) in enumerate(links):
        name = str(a.get("name", f"{u}-{v}"))
        cap = None if a.get("capacity") is None else _number(a["capacity"], f"link {name}: capacity", True)
        link_rows.append((u, v, name, cap, _number(a.get("cost", 1), f"link {name}: cost")))
        for pair in ([(u, v)] if directed else [(u, v), (v, u)]):
            if pair in by_pair:
                raise InputError(f"network: two links between {pair[0]} and {pair[1]}")
            by_pair[pair] = k
    routes, specs = [], []
    for flow, raw in flows.items():
        spec = {"path": raw} if isinstance(raw, (list, tuple)) else raw
        if not isinstance(spec, Mapping):
            raise InputError(f"flows[{flow!r}]: expected a list of nodes or an object, got {short_text(raw)}")
        path = spec.get("path")
        if path is None:
            if "source" not in spec or "target" not in spec:
                raise InputError(f"flows[{flow!r}]: give a path or a source and a target")
            path = _shortest(nodes, links, directed, str(spec["source"]), str(spec["target"]), flow)
        path = [str(x) for x in path]
        if len(path) < 1 or any(x not in node_cap for x in path):
            missing = next((x for x in path if x not in node_cap), None)
            raise InputError(f"flows[{flow!r}]: path {short_text(path)} names no node {missing!r}")
        for a, b in zip(path, path[1:]):
            if (a, b) not in by_pair:
                raise InputError(f"flows[{flow!r}]: no link from {a} to {b}")
        routes.append((str(flow), tuple(path)))
        specs.append(spec)
    # resources: capacitated middleboxes and links some flow crosses, in the graph's order
    crossed_nodes = {x for _, path in routes for x in path}
    crossed_links = {by_pair[(a, b)] for _, path in routes for a, b in zip(path, path[1:])}
    resources = [("node", name) for name, _ in nodes if node_cap[name] is not None and name in crossed_nodes]
    resources += [("link", k) for k in range(len(link_rows)) if link_rows[k][3] is not None and k in crossed_links]
    if not resources:
        raise InputError("network: no flow crosses a link or middlebox with a capacity")
    names = [r if kind == "node" else link_rows[r][2] for kind, r in resources]
    if len(set(names)) != len(names):
        raise InputError(f"network: resource names must be distinct, got {names}")
    capacities = [node_cap[r] if kind == "node" else link_rows[r][3] for kind, r in resources]
    demands = []
    for (flow, path), spec in zip(routes, specs):
        size = _number(spec.get("size", 1), f"flows[{flow!r}].size")
        loads = spec.get("load") or {}
        if not isinstance(loads, Mapping) or any(str(x) not in path for x in loads):
            raise InputError(f"flows[{flow!r}].load: expected loads on middleboxes of its path, "
                             f"got {short_text(loads)}")
        loads = {str(x): _number(v, f"flows[{flow!r}].load[{x}]") for x, v in loads.items()}
        links_used = {by_pair[(a, b)] for a, b in zip(path, path[1:])}
        row = []
        for kind, r in resources:
            if kind == "node":
                row.append(loads.get(r, node_cost[r]) if r in path else Fraction(0))
            else:
                row.append(size * link_rows[r][4] if r in links_used else Fraction(0))
        demands.append(row)
    data: dict[str, Any] = {"capacities": capacities, "demands": demands, "users": [f for f, _ in routes],
                            "resources": names}
    if any("weight" in s for s in specs):
        data["weights"] = [s.get("weight", 1) for s in specs]
    if any(s.get("max_tasks") is not None for s in specs):
        data["max_tasks"] = [s.get("max_tasks") for s in specs]
    positions = {name: a.get("pos") for name, a in nodes}
    network = Network(tuple((name, node_cap[name], node_cost[name],
                             tuple(positions[name]) if isinstance(positions[name], (list, tuple)) else None)
                            for name, _ in nodes),
                      tuple(link_rows), directed, tuple(routes))
    return data, network


def _shortest(nodes, links, directed: bool, source: str, target: str, flow) -> list[str]:
    try:
        import networkx
    except ImportError:
        raise InputError(f"flows[{flow!r}]: routing by source and target needs networkx "
                         "(pip install 'fairlab[network]'), or give the path") from None
    graph = networkx.DiGraph() if directed else networkx.Graph()
    graph.add_nodes_from(name for name, _ in nodes)
    graph.add_edges_from((u, v) for u, v, _ in links)
    try:
        return list(networkx.shortest_path(graph, source, target))
    except (networkx.NetworkXNoPath, networkx.NodeNotFound) as exc:
        raise InputError(f"flows[{flow!r}]: no route from {source} to {target} ({exc})") from None


def from_dict(data: Mapping):
    """(instance dict, `Network`) of an instance file's ``{"network": ..., "flows": ...}`` form."""
    unknown = [k for k in data if k not in ("network", "flows")]
    if unknown:
        raise InputError(f"instance: unknown key {short_text(unknown[0])} beside network (known: network, flows)")
    return read(data["network"], data.get("flows"))


# --------------------------------------------------------------------------- the figure
def bottlenecks(instance, tasks: Sequence) -> list[str | None]:
    """Each flow's bottleneck: among the saturated resources of its route, the one where its share
    d_ir / c_r is largest (first in resource order on a tie); None if none of its resources is
    saturated (e.g. its task cap binds)."""
    loads = [sum((t * row[r] for t, row in zip(tasks, instance.demands)), Fraction(0)) for r in range(instance.m)]
    out = []
    for i in range(instance.n):
        saturated = [r for r in range(instance.m)
                     if instance.demands[i][r] > 0 and loads[r] == instance.capacities[r]]
        best = max(saturated, key=lambda r: (instance.demands[i][r] / instance.capacities[r], -r), default=None)
        out.append(None if best is None else instance.resources[best])
    return out


_COLOURS = ("#0969da", "#cf222e", "#1a7f37", "#8250df", "#bc4c00", "#0a3069", "#bf3989", "#4d2d00")


def figure_svg(network: Network, instance, tasks: Sequence, title: str = "") -> str:
    """The network as an SVG picture (deterministic text): nodes (middleboxes as squares with their
    capacity), links (with name and capacity), each flow's route as a coloured line with its rate,
    and its bottleneck marked with a ✕ and the flow's name."""
    import math

    names = [n for n, *_ in network.nodes]
    given = {n: pos for n, _, _, pos in network.nodes if pos is not None}
    pos = {}
    for k, n in enumerate(names):
        if n in given:
            pos[n] = (float(given[n][0]), float(given[n][1]))
        else:  # a circle, in node order
            angle = 2 * math.pi * k / max(len(names), 1)
            pos[n] = (math.cos(angle), math.sin(angle))
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    width, margin = 720, 90
    scale = (width - 2 * margin) / max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    height = int(2 * margin + (max(ys) - min(ys)) * scale)  # as tall as the drawing needs

    def at(n):
        x, y = pos[n]
        return (margin + (x - min(xs)) * scale, margin + (max(ys) - y) * scale)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 30 * instance.n}" '
           f'font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>']
    if title:
        out.append(f'<text x="10" y="18" font-size="14" font-weight="bold">{escape(title)}</text>')
    for u, v, name, cap, _ in network.links:
        (x1, y1), (x2, y2) = at(u), at(v)
        out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#999" stroke-width="6"/>')
        label = name if cap is None else f"{name} (c={format_exact(cap)})"
        out.append(f'<text x="{(x1 + x2) / 2:.1f}" y="{(y1 + y2) / 2 - 8:.1f}" fill="#555" '
                   f'text-anchor="middle">{escape(label)}</text>')
    worst = bottlenecks(instance, tasks)
    marks: list[str] = []
    for i, (flow, path) in enumerate(network.routes):
        colour = _COLOURS[i % len(_COLOURS)]
        offset = (i - (instance.n - 1) / 2) * 5
        points = " ".join(f"{at(n)[0] + offset:.1f},{at(n)[1] + offset:.1f}" for n in path)
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5" opacity="0.85"/>')
        mark = worst[i]
        spot = None
        if mark is not None:
            if mark in pos:
                spot = at(mark)
            else:
                for a, b in zip(path, path[1:]):
                    link = next((lk for lk in network.links if {lk[0], lk[1]} == {a, b} or (lk[0], lk[1]) == (a, b)),
                                None)
                    if link is not None and link[2] == mark:
                        spot = ((at(a)[0] + at(b)[0]) / 2, (at(a)[1] + at(b)[1]) / 2)
        if spot is not None:
            lift = 26 if mark in pos else 0  # above a middlebox's square, on a link's midpoint
            marks.append(f'<text x="{spot[0] + offset * 3:.1f}" y="{spot[1] - lift + 6:.1f}" fill="{colour}" '
                         f'font-size="18" font-weight="bold" text-anchor="middle">✕</text>')
        legend_y = height + 30 * i + 10
        out.append(f'<line x1="20" y1="{legend_y:.1f}" x2="50" y2="{legend_y:.1f}" stroke="{colour}" '
                   'stroke-width="3"/>')
        where = f"bottleneck {mark}" if mark is not None else "no saturated resource on its route"
        out.append(f'<text x="58" y="{legend_y + 4:.1f}">{escape(flow)}: rate {escape(format_exact(tasks[i]))}, '
                   f'{escape(where)} (route {escape(" → ".join(path))})</text>')
    for n, cap, _, _ in network.nodes:
        x, y = at(n)
        if cap is not None:
            out.append(f'<rect x="{x - 16:.1f}" y="{y - 16:.1f}" width="32" height="32" fill="#fff8c5" '
                       'stroke="#7d4e00"/>')
            out.append(f'<text x="{x:.1f}" y="{y + 30:.1f}" text-anchor="middle">c={escape(format_exact(cap))}</text>')
        else:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="12" fill="#f6f8fa" stroke="#57606a"/>')
        out.append(f'<text x="{x:.1f}" y="{y + 4:.1f}" text-anchor="middle" font-weight="bold">{escape(n)}</text>')
    out += marks  # over the nodes
    out.append("</svg>")
    return "\n".join(out) + "\n"


def network_of(path) -> Network | None:
    """The `Network` of an instance file if it is a network instance, else None (a file that does
    not read as JSON is not one). The caller resolves a shipped example's name to its file
    (`fairlab.core.instance.examples`)."""
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return from_dict(data)[1] if isinstance(data, dict) and "network" in data else None


def write_figure(network: Network, allocation, path) -> None:
    """`figure_svg` of `allocation` written to `path` (.svg; .png through matplotlib's SVG-free
    route is not offered: the figure is vector text)."""
    from pathlib import Path

    target = Path(path)
    if target.suffix.lower() != ".svg":
        raise InputError(f"--figure {str(path)!r}: a network's figure is written as .svg")
    title = f"{allocation.mechanism}: each flow's rate and bottleneck (✕)"
    target.write_text(figure_svg(network, allocation.instance, allocation.tasks, title), encoding="utf-8")
