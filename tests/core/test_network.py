"""Network instances (issue 29): flows routed over links and middleboxes (Bonald & Roberts' router
and network applications, SimGrid-style flow systems) as instances, from networkx graphs or
their JSON form, with names kept; the figure marks each flow's bottleneck."""

import json
import os
import subprocess
import sys
from fractions import Fraction as F

import pytest

from fairlab import mechanisms
from fairlab.core import network
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance, examples


def test_router_example_is_bonald_roberts_requirement_vectors():
    """§4.3 of Bonald & Roberts: a1 = (.1, 1), a2 = (1, .1), a3 = (1, 1) on a middlebox and a link."""
    inst = Instance.resolve("network-router")
    assert inst.users == ("class 1", "class 2", "class 3")
    assert inst.resources == ("middlebox", "output link")  # the uncapacitated ingress is no resource
    assert inst.capacities == (1, 1)
    assert inst.demands == ((F(1, 10), 1), (1, F(1, 10)), (1, 1))


def test_simgrid_network_is_network_max_min_under_bmf():
    """BMF generalises network-wide max-min fairness (Bonald & Roberts §3.3): on unit loads over
    links it is the max-min fair rate vector, computed here by hand (water-filling the links)."""
    inst = Instance.resolve("network-simgrid")
    assert inst.resources == ("l1", "l2", "backbone", "l3", "l4")
    # l4 (4) is shared by f2, f3: 2 each; l3 (10) by f1, f4: 5 each; the backbone carries 14 < 15
    want = (5, 2, 2, 5)
    for name in ("bmf", "drf", "ceei"):
        assert mechanisms.allocate(name, inst).tasks == want, name


def test_from_networkx_graph_routes_and_names():
    nx = pytest.importorskip("networkx")
    g = nx.Graph()
    g.add_edge("a", "b", capacity=6)
    g.add_edge("b", "c", capacity=4, name="slow")
    g.add_node("b", capacity=9, cost=2)  # a middlebox: 2 units of processing per unit of rate
    inst = Instance.from_network(g, {"long": {"source": "a", "target": "c"}, "short": ["b", "c"],
                                     "heavy": {"path": ["a", "b"], "load": {"b": 3}, "weight": 2}})
    assert inst.users == ("long", "short", "heavy")
    assert inst.resources == ("b", "a-b", "slow")
    assert inst.demands == ((2, 1, 1), (2, 0, 1), (3, 1, 0))
    assert inst.capacities == (9, 6, 4) and inst.weights[2] == (2, 2, 2)
    # one capacitated link: single-resource max-min applies too, and agrees with bmf and drf
    one = nx.DiGraph()
    one.add_edge("s", "t", capacity=10)
    flows = {"x": ["s", "t"], "y": {"path": ["s", "t"], "max_tasks": 2}, "z": ["s", "t"]}
    single = Instance.from_network(one, flows)
    assert mechanisms.allocate("maxmin", single).tasks == (4, 2, 4)
    assert mechanisms.allocate("bmf", single).tasks == mechanisms.allocate("drf", single).tasks == (4, 2, 4)


def test_bad_networks_are_one_line_errors():
    graph = {"nodes": [{"id": "a"}, {"id": "b"}], "links": [{"source": "a", "target": "b", "capacity": 1}]}
    with pytest.raises(InputError, match="no link from b to a|no link"):
        Instance.from_network({**graph, "directed": True}, {"f": ["b", "a"]})
    with pytest.raises(InputError, match="names no node 'z'"):
        Instance.from_network(graph, {"f": ["a", "z"]})
    with pytest.raises(InputError, match="capacity"):
        Instance.from_network({"links": [{"source": "a", "target": "b", "capacity": 0}]}, {"f": ["a", "b"]})
    with pytest.raises(InputError, match="no flow crosses"):
        Instance.from_network({"links": [{"source": "a", "target": "b"}]}, {"f": ["a", "b"]})
    with pytest.raises(InputError, match="unknown key"):
        Instance.from_dict({"network": graph, "flows": {"f": ["a", "b"]}, "capacities": [1]})


def test_bottlenecks_and_figure():
    inst = Instance.resolve("network-simgrid")
    tasks = mechanisms.allocate("bmf", inst).tasks
    assert network.bottlenecks(inst, tasks) == ["l3", "l4", "l4", "l3"]
    svg = network.figure_svg(network.network_of(examples()["network-simgrid"]), inst, tasks, "bmf")
    assert svg.startswith("<svg") and svg.count("✕") == 4 and "f2: rate 2, bottleneck l4" in svg


def test_cli_allocate_on_networks_with_figure(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "FAIRLAB_DEBUG"}
    for name in ("bmf", "ceei", "drf"):
        for example in ("network-router", "network-simgrid"):
            out = subprocess.run([sys.executable, "-m", "fairlab", "allocate", name, example, "--format", "json"],
                                 capture_output=True, text=True, env=env, cwd=tmp_path)
            assert out.returncode == 0, out.stderr
            assert json.loads(out.stdout)["users"]
    figure = tmp_path / "router.svg"
    command = [sys.executable, "-m", "fairlab", "allocate", "bmf", "network-router", "--figure", str(figure)]
    out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert figure.read_text().startswith("<svg")
    assert "bottleneck" in figure.read_text()


def test_network_examples_are_shipped():
    assert {"network-router", "network-simgrid"} <= set(examples())
