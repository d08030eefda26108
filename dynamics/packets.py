"""Packet schedulers of Bonald & Roberts §3.1-§3.3 under dynamic flow arrivals (§4.4).

A router has J resources of capacity 1 visited in order 1..J; a class-k packet takes a_kj time
units at resource j (a resource with a_kj = 0 is skipped). Each flow keeps a window of W packets:
packet k is admitted only when packet k - W has finished at all resources (§3.1). Every resource
serves its queue in increasing start tag (start-time fair queueing, Goyal et al. [7]):

* ``drf`` — memoryless DRFQ, eq. (2): one tag per packet at admission,
  S_i^k = max(V(u_i^k), S_i^{k-1} + max_j a_ij), V(t) the largest start tag of any packet that
  has begun service at any resource.
* ``pf`` — SFQ with queue-length weights, eq. (5): per-resource tags at arrival at j,
  S_ij^k = max(V_j(u_ij^k), S_ij^{k-1} + a_ij / Q_ij), Q_ij the number of flow-i packets waiting
  or in service at j (counting the arriving one), V_j the tag of the last packet to start at j.
* ``bmf`` — per-resource weighted SFQ, eq. (7): S_ij^k = max(V_j(u), S_ij^{k-1} + a_ij). The paper
  writes u_i^k "as defined in §3.2", where only the arrival time at j is defined; we use that.

Flows of class k arrive as a Poisson process of rate λ_k = ρ_k / M and bring a geometric number
of packets of mean M, so ρ_k is the class load in the fluid model's units and the measured
γ_k = ρ̂_k / E(n_k) (Little's law, time-average n_k after a warm-up; ρ̂_k the realised load, the
packets brought by class-k flows arriving in the window per unit time, which removes most of the
sampling noise of the flow sizes) is comparable with
`fairlab.dynamics.markov` (the paper's Figure 3: crosses vs lines). Also reported: `gamma_completed`, mean
size over mean completion time of the flows that arrived after the warm-up and completed before
the last arrival (it uses realised sizes, but misses flows still running at the end, so it leans
towards short flows). Floats throughout; seeded.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Sequence, SupportsFloat

import numpy as np
from rich.progress import Progress

from fairlab.core.errors import InputError

SCHEDULERS = ("drf", "pf", "bmf")


@dataclass
class PacketResult:
    scheduler: str
    loads: list[float]
    gamma: list[float]
    gamma_completed: list[float]
    mean_flows: list[float]
    completed_flows: list[int]
    flows: int
    packets: int
    simulated_time: float
    seconds: float
    window: int
    mean_size: float
    seed: int
    notes: list[str] = field(default_factory=list)

    @property
    def packets_per_second(self) -> float:
        return self.packets / self.seconds if self.seconds > 0 else float("inf")


def simulate(
    scheduler: str,
    requirements: Sequence[Sequence[SupportsFloat]],
    loads: Sequence[SupportsFloat],
    flows: int = 2000,
    mean_size: float = 100.0,
    window: int = 10,
    seed: int = 0,
    warmup: float = 0.1,
    progress: bool = False,
) -> PacketResult:
    """Simulate `flows` flow arrivals under `scheduler` (drf | pf | bmf) and measure γ_k."""
    if scheduler not in SCHEDULERS:
        raise InputError(f"scheduler {scheduler!r}: expected one of {', '.join(SCHEDULERS)}")
    A = [[float(x) for x in row] for row in requirements]
    K, J = len(A), len(A[0])
    rho = [float(x) for x in loads]
    if len(rho) != K:
        raise InputError(f"loads: expected {K} values (one per class), got {len(rho)}")
    if any(x <= 0 for x in rho):
        raise InputError(f"loads: must all be positive, got {rho}")
    if window < 1:
        raise InputError(f"window: must be a positive integer, got {window}")
    if flows < 10:
        raise InputError(f"flows: need at least 10 flow arrivals, got {flows}")
    if not mean_size >= 1:
        raise InputError(f"mean_size: must be at least 1 packet, got {mean_size}")
    for j in range(J):
        if sum(rho[k] * A[k][j] for k in range(K)) >= 1:
            raise InputError(f"loads: unstable, resource {j + 1} has load >= 1 (condition (8) of §4.1)")
    started = time.perf_counter()
    rng = np.random.default_rng(seed)
    lam = np.array(rho) / mean_size
    total_rate = lam.sum()
    gaps = rng.exponential(1 / total_rate, flows)
    arrival_times = np.cumsum(gaps)
    classes = rng.choice(K, size=flows, p=lam / total_rate)
    sizes = rng.geometric(1 / mean_size, flows) if mean_size > 1 else np.ones(flows, dtype=np.int64)
    path = [[j for j in range(J) if A[k][j] > 0] for k in range(K)]
    dom = [max(A[k]) for k in range(K)]

    # per-flow state (lists indexed by flow id)
    to_admit = sizes.astype(np.int64).tolist()
    to_finish = list(to_admit)
    last_tag = [0.0] * flows  # DRFQ: S_i^{k-1}
    last_tag_j = [[0.0] * J for _ in range(flows)] if scheduler != "drf" else None
    queued = [[0] * J for _ in range(flows)] if scheduler == "pf" else None

    queues: list[list[tuple]] = [[] for _ in range(J)]  # heaps of (tag, serial, flow, k, stage)
    busy = [False] * J
    vtime = [0.0] * J  # V_j (pf, bmf)
    vglobal = 0.0  # V (drf)
    events: list = []  # (time, serial, kind, payload)
    serial = 0
    n_active = [0] * K
    area = [0.0] * K
    completed = [0] * K
    done_size = [0.0] * K  # over flows arriving after the warm-up and completed
    done_time = [0.0] * K
    t_last = 0.0
    t_warm = float(arrival_times[int(warmup * flows)])
    t_end = float(arrival_times[-1])
    packets_done = 0

    def admit(fid, k, now):
        nonlocal serial, vglobal
        tag = 0.0
        if scheduler == "drf":
            tag = max(vglobal, last_tag[fid] + dom[k])
            last_tag[fid] = tag
        arrive(fid, k, 0, tag, now)

    def arrive(fid, k, stage, tag, now):
        nonlocal serial
        j = path[k][stage]
        if scheduler == "pf":
            assert queued is not None and last_tag_j is not None  # kept for pf
            q = queued[fid]
            q[j] += 1
            tag = max(vtime[j], last_tag_j[fid][j] + A[k][j] / q[j])
            last_tag_j[fid][j] = tag
        elif scheduler == "bmf":
            assert last_tag_j is not None  # kept for bmf
            tag = max(vtime[j], last_tag_j[fid][j] + A[k][j])
            last_tag_j[fid][j] = tag
        serial += 1
        heapq.heappush(queues[j], (tag, serial, fid, k, stage))
        if not busy[j]:
            start(j, now)

    def start(j, now):
        nonlocal serial, vglobal
        tag, _, fid, k, stage = heapq.heappop(queues[j])
        busy[j] = True
        if scheduler == "drf":
            if tag > vglobal:
                vglobal = tag
        else:
            vtime[j] = tag
        serial += 1
        heapq.heappush(events, (now + A[k][j], serial, 1, (j, fid, k, stage, tag)))

    bar = None
    if progress:
        bar = Progress(transient=True)
        bar.start()
        task = bar.add_task(f"{scheduler} packets", total=flows)
    next_flow = 0
    horizon = t_end
    try:
        while True:
            t_arr = arrival_times[next_flow] if next_flow < flows else math.inf
            if events and events[0][0] <= t_arr:
                now, _, kind, payload = heapq.heappop(events)
            elif next_flow < flows:
                now, kind, payload = float(t_arr), 0, next_flow
                next_flow += 1
            else:
                break
            if now > horizon:
                now = horizon
                break
            # time-average of the number of flows in progress over [t_warm, t_end]
            if now > t_warm:
                span = now - max(t_last, t_warm)
                for c in range(K):
                    area[c] += n_active[c] * span
            t_last = now
            if kind == 0:
                fid = payload
                k = int(classes[fid])
                n_active[k] += 1
                for _ in range(min(window, to_admit[fid])):
                    to_admit[fid] -= 1
                    admit(fid, k, now)
                if bar is not None and fid % 200 == 0:
                    bar.update(task, completed=fid)
            else:
                j, fid, k, stage, tag = payload
                busy[j] = False
                if scheduler == "pf" and queued is not None:
                    queued[fid][j] -= 1
                if stage + 1 < len(path[k]):
                    arrive(fid, k, stage + 1, tag, now)
                else:
                    packets_done += 1
                    to_finish[fid] -= 1
                    if to_finish[fid] == 0:
                        n_active[k] -= 1
                        if now > t_warm:
                            completed[k] += 1
                        if arrival_times[fid] >= t_warm:
                            done_size[k] += sizes[fid]
                            done_time[k] += now - arrival_times[fid]
                    elif to_admit[fid] > 0:
                        to_admit[fid] -= 1
                        admit(fid, k, now)
                if queues[j] and not busy[j]:
                    start(j, now)
    finally:
        if bar is not None:
            bar.stop()
    measured = horizon - t_warm
    mean_n = [a / measured for a in area]
    # realised load of each class in the window: packets brought by flows arriving in it per unit time
    in_window = arrival_times >= t_warm
    realised = [float(sizes[in_window & (classes == k)].sum()) / measured for k in range(K)]
    gamma = [realised[k] / mean_n[k] if mean_n[k] > 0 else float("nan") for k in range(K)]
    return PacketResult(
        scheduler=scheduler,
        loads=rho,
        gamma=gamma,
        gamma_completed=[done_size[k] / done_time[k] if done_time[k] > 0 else float("nan") for k in range(K)],
        mean_flows=mean_n,
        completed_flows=completed,
        flows=flows,
        packets=packets_done,
        simulated_time=horizon,
        seconds=time.perf_counter() - started,
        window=window,
        mean_size=mean_size,
        seed=seed,
        notes=[f"warm-up: first {warmup:.0%} of the flow arrivals; measured over simulated time "
               f"[{t_warm:.1f}, {horizon:.1f}]"],
    )
