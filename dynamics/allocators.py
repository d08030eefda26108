"""Class-level allocators for the dynamic model (Bonald & Roberts §2, §3, §4.1).

In a state with n_k transactions of class k (requirement vector a_k, capacities normalised to 1),
identical transactions get identical allocations, so each mechanism reduces to a K-class problem
on the per-transaction rate φ_k (φ_k a_kj is the fraction of resource j one class-k transaction
gets):

* DRF (§2.2, water-filling of §3.1): transactions' dominant shares φ_k max_j a_kj rise together;
  when a resource saturates, the classes using it freeze.
* PF (§2.3, KKT form (3)): maximise Σ_k n_k log φ_k subject to Σ_k n_k φ_k a_kj ≤ 1 — weighted
  PF over classes with weights n_k. Solved on the dual, min_ν≥0 Σ_j ν_j − Σ_k n_k log(a_k·ν),
  by multiplicative (EM) steps then Newton on the active set; φ_k = 1 / (a_k·ν) as in (3).
* BMF (§2.4, mapping test of §3.3): every class is mapped to a bottleneck resource; a mapping is
  feasible if the mapped resources can be saturated with equal shares for the classes mapped to
  each, no capacity is exceeded, and every class's share of its bottleneck is maximal there.
  BMF's choice within its set: the class-symmetric allocation of the first feasible mapping in
  lexicographic order of (b(1), ..., b(K)). For J = 2 resources BMF is unique (§2.4), so the
  choice matters only for J ≥ 3, where it may differ from the registered `fairlab.mechanisms.bmf` (which
  returns the leximin-maximal BMF point); tests check ours is in the exact BMF set (`is_bmf`).

All three are vectorised over an array of states (floats: these feed performance figures, never
verdicts). Any other registered mechanism is applied per transaction through the exact registry
(`registry_rates`), cached per state; that is slow and meant for small truncations.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from typing import Sequence

import numpy as np

from fairlab import mechanisms
from fairlab.core.errors import InputError

FAST = ("drf", "pf", "bmf")
ALIASES = {"ceei": "pf"}

BMF_CHOICE = (
    "class-symmetric BMF allocation of the first feasible class-to-bottleneck mapping in "
    "lexicographic order (§3.3 mapping test); unique when there are 2 resources"
)


def canonical(name: str) -> str:
    """The fast allocator's name for `name` ("ceei" is PF), or `name` unchanged."""
    return ALIASES.get(name, name)


def _check(requirements: np.ndarray, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    A = np.asarray(requirements, dtype=float)
    n = np.asarray(states, dtype=float)
    if n.ndim == 1:
        n = n[None, :]
    if A.ndim != 2 or n.shape[1] != A.shape[0]:
        raise InputError(f"states: expected {A.shape[0]} counts per state, got shape {n.shape}")
    return A, n


# ----------------------------------------------------------------------------------- DRF
def drf_rates(requirements, states) -> np.ndarray:
    """Per-transaction DRF rates φ_k for each state (rows), 0 where n_k = 0 (§3.1 water-filling)."""
    A, n = _check(requirements, states)
    N, K = n.shape
    dom = A.max(axis=1)  # dominant requirement of each class
    present = n > 0
    active = present.copy()
    used = np.zeros((N, A.shape[1]))
    phi = np.zeros((N, K))
    for _ in range(A.shape[1] + 1):
        if not active.any():
            break
        # load per unit of common dominant share s of the still-active classes
        growth = (np.where(active, n / dom, 0.0)) @ A  # (N, J)
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(growth > 0, (1.0 - used) / growth, np.inf)
        s = room.min(axis=1)  # level at which the next resource saturates
        s = np.where(np.isfinite(s), s, 0.0)
        saturated = room <= s[:, None] * (1 + 1e-12) + 1e-15
        freeze = active & ((saturated.astype(float) @ (A.T > 0).astype(float)) > 0)
        phi = np.where(freeze, s[:, None] / dom, phi)
        used = used + (np.where(freeze, n * s[:, None] / dom, 0.0)) @ A
        active = active & ~freeze
    return phi


# ----------------------------------------------------------------------------------- PF
def pf_rates(requirements, states, tol: float = 1e-11) -> np.ndarray:
    """Per-transaction PF rates φ_k = 1 / (a_k·ν), ν the optimal dual of Σ n_k log φ_k (eq. (3))."""
    A, n = _check(requirements, states)
    N, K = n.shape
    J = A.shape[1]
    phi = np.zeros((N, K))
    rows = np.nonzero(n.sum(axis=1) > 0)[0]
    if rows.size == 0:
        return phi
    nn = n[rows]
    nu = np.repeat(nn.sum(axis=1, keepdims=True) / J, J, axis=1)
    # EM / multiplicative steps: ν_j <- ν_j Σ_k n_k a_kj / (a_k·ν); monotone, converges to the optimum.
    for _ in range(60):
        nu = nu * (_class_totals(A, nn, nu) @ A)  # ν_j Σ_k x_k a_kj
    nu = _pf_newton(A, nn, nu, tol)
    y = nu @ A.T
    phi[rows] = np.divide(1.0, y, out=np.zeros_like(y), where=nn > 0)
    return phi


def _class_totals(A, nn, nu):
    """x_k = n_k / (a_k·ν), the class's total rate (0 for an absent class, even where a_k·ν = 0)."""
    y = nu @ A.T
    return np.divide(nn, y, out=np.zeros_like(nn), where=nn > 0)


def _pf_kkt_ok(A, nn, nu, tol):
    load = _class_totals(A, nn, nu) @ A
    pos = nu > 0
    return np.all(np.where(pos, np.abs(load - 1) <= tol * 10, load <= 1 + tol * 10), axis=1)


def _pf_newton(A, nn, nu, tol):
    """Active-set Newton on the dual: Newton on the resources guessed binding (ν_j > 0), grouped
    by pattern; then drop resources whose ν_j collapsed, add those whose load exceeds 1, repeat."""
    J = A.shape[1]
    scale = nn.sum(axis=1, keepdims=True)
    active = nu > 1e-4 * scale
    nu = np.where(active, nu, 0.0)
    todo = np.arange(len(nn))
    for _round in range(2 * J + 2):
        for pattern in {tuple(r) for r in active[todo]}:
            idx = todo[(active[todo] == np.array(pattern)).all(axis=1)]
            cols = np.nonzero(pattern)[0]
            nu[np.ix_(idx, cols)] = _newton_group(A[:, cols], nn[idx], nu[np.ix_(idx, cols)], tol)
        bad = ~_pf_kkt_ok(A, nn, nu, tol * 1e3)
        todo = np.nonzero(bad)[0]
        if todo.size == 0:
            return nu
        load = _class_totals(A, nn[todo], nu[todo]) @ A
        sub = nu[todo]
        collapsed = sub < 1e-9 * scale[todo]
        wanted = (~active[todo]) & (load > 1 + tol)
        new_active = (active[todo] & ~collapsed) | wanted
        sub = np.where(new_active, np.where(wanted, 1e-2 * scale[todo], sub), 0.0)
        active[todo] = new_active
        nu[todo] = sub
    for r in todo:
        nu[r] = _pf_slow(A, nn[r], nu[r], tol)
    return nu


def _newton_group(As, w, v, tol):
    """Damped Newton for min Σ_j ν_j − Σ_k w_k log(a_k·ν) over ν > 0 (all columns of As binding)."""
    for _ in range(40):
        y = v @ As.T  # a_k·ν
        y = np.where(w > 0, y, 1.0)
        grad = 1.0 - (w / y) @ As
        if not np.all(np.abs(grad) < tol):
            H = np.einsum("nk,kj,kl->njl", w / y**2, As, As) + 1e-14 * np.eye(As.shape[1])
            step = np.linalg.solve(H, grad[..., None])[..., 0]
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(step > 0, v / step, np.inf)
            t = np.minimum(1.0, 0.5 * ratio.min(axis=1))  # keep ν positive
            v = v - t[:, None] * step
        else:
            break
    return v


def _pf_slow(A, n, nu, tol):
    """Fallback for a state whose active set was guessed wrong: long EM run on that one state."""
    nu = np.maximum(nu, 1e-3 * n.sum() / len(nu))
    for _ in range(200000):
        nu = nu * (_class_totals(A, n[None, :], nu[None, :])[0] @ A)
        if _pf_kkt_ok(A, n[None, :], nu[None, :], tol * 1e3)[0]:
            break
    return nu


# ----------------------------------------------------------------------------------- BMF
def bmf_rates(requirements, states, tol: float = 1e-9) -> np.ndarray:
    """Per-transaction BMF rates by the §3.3 mapping test (see `BMF_CHOICE` for which one)."""
    A, n = _check(requirements, states)
    N, K = n.shape
    J = A.shape[1]
    phi = np.zeros((N, K))
    done = n.sum(axis=1) == 0
    present = n > 0
    for combo in itertools.product(range(J), repeat=K):
        if done.all():
            break
        mapping = np.array(combo)
        if any(A[k, mapping[k]] == 0 for k in range(K)):
            continue
        # Only the present classes' mapping matters; skip states for which an earlier mapping
        # differing only on absent classes was already tried (done) — harmless either way.
        todo = np.nonzero(~done)[0]
        w = n[todo]
        pres = present[todo]
        # unknown level T_j per resource (share of resource j a mapped class gets); equations:
        # Σ_k n_k a_kj T_b(k) / a_k,b(k) = 1 for every resource that is some present class's bottleneck
        coef = np.zeros((len(todo), J, J))
        for k in range(K):
            b = mapping[k]
            coef[:, :, b] += (w[:, k] / A[k, b])[:, None] * A[k][None, :]
        used = np.zeros((len(todo), J), dtype=bool)
        for k in range(K):
            used[:, mapping[k]] |= pres[:, k]
        # unmapped resources: identity rows with T_j = 0 keep the system square
        M = np.where(used[:, :, None], coef, 0.0) + np.where(used, 0.0, 1.0)[:, :, None] * np.eye(J)[None]
        rhs = used.astype(float)
        det = np.linalg.det(M)
        ok = np.abs(det) > 1e-13
        T = np.zeros((len(todo), J))
        if ok.any():
            T[ok] = np.linalg.solve(M[ok], rhs[ok][..., None])[..., 0]
        rates = T[:, mapping] / A[np.arange(K), mapping][None, :]  # φ_k
        rates = np.where(pres, rates, 0.0)
        load = (w * rates) @ A
        ok &= np.all(T >= -tol, axis=1) & np.all(np.where(pres, rates > tol, True), axis=1)  # noqa: SIM300 (T is an array)
        ok &= np.all(load <= 1 + tol, axis=1)
        # maximality: each present class's share of its bottleneck is the largest there
        shares = rates[:, :, None] * A[None, :, :]  # (n, K, J)
        top = np.where(pres[:, :, None], shares, 0.0).max(axis=1)  # (n, J)
        own = shares[:, np.arange(K), mapping]  # (n, K)
        ok &= np.all(np.where(pres, own >= top[:, mapping] * (1 - 1e-9) - tol, True), axis=1)
        hit = todo[ok]
        phi[hit] = rates[ok]
        done[hit] = True
    if not done.all():
        bad = n[~done][0]
        raise InputError(f"bmf: no class-symmetric BMF allocation found for state {bad.astype(int).tolist()}")
    return phi


FAST_ALLOCATORS = {"drf": drf_rates, "pf": pf_rates, "bmf": bmf_rates}


# ----------------------------------------------------------------------------------- registry
@cache
def _registry_state(name: str, requirements: tuple, state: tuple) -> tuple:
    owners = [k for k, count in enumerate(state) for _ in range(count)]
    if not owners:
        return (0.0,) * len(state)
    instance = {
        "capacities": [1] * len(requirements[0]),
        "demands": [list(requirements[k]) for k in owners],
    }
    tasks = mechanisms.allocate(name, instance).tasks
    totals = [Fraction(0)] * len(state)
    for k, t in zip(owners, tasks):
        totals[k] = totals[k] + t
    # the class's total rate is what drives the death rate; per-transaction mean = total / n_k
    return tuple(float(totals[k]) / state[k] if state[k] else 0.0 for k in range(len(state)))


def registry_rates(name: str, requirements: Sequence[Sequence[Fraction]], states) -> np.ndarray:
    """Per-transaction rates of registered mechanism `name` applied to every transaction of each
    state (exact, through `fairlab.mechanisms.allocate`; cached per state). φ_k is the class mean, which is
    what the death rate n_k φ_k μ_k needs."""
    req = tuple(tuple(Fraction(x) for x in row) for row in requirements)
    out = [_registry_state(name, req, tuple(int(x) for x in s)) for s in np.atleast_2d(states)]
    return np.array(out, dtype=float)


def class_rates(name: str, requirements: Sequence[Sequence[Fraction]], states) -> np.ndarray:
    """Per-transaction rates φ_k for each state: fast allocator for drf/pf/bmf, registry otherwise."""
    key = canonical(name)
    if key in FAST_ALLOCATORS:
        A = np.array([[float(x) for x in row] for row in requirements])
        return FAST_ALLOCATORS[key](A, states)
    mechanisms.get(name)  # InputError naming the mechanism if unknown
    return registry_rates(name, requirements, states)
