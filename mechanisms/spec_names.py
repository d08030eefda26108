"""Specs without name traps: every call of a mechanism's spec gets helper unknowns of its own (issue 29).

A spec ``spec(sym, tasks, **options) -> [Constraint, ...]`` may introduce helper unknowns (prices,
levels, indicator variables). z3 identifies an unknown by its name, so a helper written with a
fixed name (``z3.Real("price")``) would be ONE unknown shared by every call of the spec: in the sp
encoding the truthful run and the misreport run would be forced to share their prices, and a
"proof" could rest on that accident. The lab therefore renames every call's helpers itself
(`NamespacedSpec`, which `fairlab.mechanisms.base.Mechanism` puts around every spec, built-in or
plug-in):

* kept as they are: the unknowns of the instance (`sym`: capacities, demands, weights, task caps,
  machines, domain), the task terms (`tasks`), and unknowns *named after* a task term (a name
  that starts with a task's name followed by a non-alphanumeric character, e.g. the placement
  unknowns ``t0@m1`` of `SymbolicInstance.placement`, or ``t0.dyn.x1_0``): those are the tasks'
  own namespace, which callers such as `fairlab.mechanisms.conformance` read back;
* every other uninterpreted constant or function is replaced (``z3.substitute`` /
  ``z3.substitute_funs``) by a fresh one (``z3.FreshConst`` / ``z3.FreshFunction``, named after it),
  new on each call.

So a spec with fixed helper names and one with fresh names give the same constraints up to the
helpers' names, hence the same verdicts. `check_independent` verifies what the renaming
guarantees, for the encodings that call a spec twice (a deviation property's truthful and deviating
runs): two calls share no unknown beyond the instances' own and the tasks they were given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import z3

from fairlab.core.errors import PluginError


def unknowns(exprs) -> tuple[dict[str, z3.ExprRef], dict[str, z3.FuncDeclRef]]:
    """The uninterpreted constants (name -> term) and functions of arity > 0 (name -> declaration)
    occurring in `exprs`. The walk reads each distinct node once through z3's C API functions
    (``Z3_get_ast_kind``, ``Z3_get_app_arg``, ...: the public API the z3 module wraps), DAG-aware (z3
    shares subterms), building a Python object only for the unknowns it returns."""
    consts: dict[str, z3.ExprRef] = {}
    funcs: dict[str, z3.FuncDeclRef] = {}
    for e in exprs:
        if not isinstance(e, z3.ExprRef):
            continue
        ctx = e.ctx
        ref = ctx.ref()
        seen: set[int] = set()
        stack = [e.as_ast()]
        while stack:
            ast = stack.pop()
            key = z3.Z3_get_ast_id(ref, ast)
            if key in seen:
                continue
            seen.add(key)
            kind = z3.Z3_get_ast_kind(ref, ast)
            if kind == z3.Z3_APP_AST:
                count = z3.Z3_get_app_num_args(ref, ast)
                decl = z3.Z3_get_app_decl(ref, ast)
                if z3.Z3_get_decl_kind(ref, decl) == z3.Z3_OP_UNINTERPRETED:
                    name = z3.Z3_get_symbol_string(ref, z3.Z3_get_decl_name(ref, decl))
                    if count == 0:
                        if name not in consts:
                            consts[name] = z3.FuncDeclRef(decl, ctx)()
                    elif name not in funcs:
                        funcs[name] = z3.FuncDeclRef(decl, ctx)
                stack.extend(z3.Z3_get_app_arg(ref, ast, k) for k in range(count))
            elif kind == z3.Z3_QUANTIFIER_AST:
                stack.append(z3.Z3_get_quantifier_body(ref, ast))
    return consts, funcs


def instance_terms(sym) -> list:
    """Every z3 term of a symbolic instance (numbers and domain constraints)."""
    terms = list(sym.capacities) + [d for row in sym.demands for d in row]
    terms += [w for row in sym.weights for w in row] + [t for t in sym.max_tasks if t is not None]
    terms += [c for row in (getattr(sym, "machines", None) or []) for c in row]
    terms += [c.expr for c in getattr(sym, "domain", None) or []]
    return [t for t in terms if isinstance(t, z3.ExprRef)]


def _owned_by_tasks(name: str, task_names: list[str]) -> bool:
    for t in task_names:
        if name == t or (name.startswith(t) and len(name) > len(t) and not name[len(t)].isalnum()):
            return True
    return False


def namespace(constraints: list, sym, tasks) -> list:
    """`constraints` with every helper unknown (see the module docstring) replaced by a fresh one."""
    exprs = [c[1] for c in constraints if isinstance(c, tuple) and len(c) == 2 and isinstance(c[1], z3.ExprRef)]
    consts, funcs = unknowns(exprs)
    if not consts and not funcs:
        return constraints
    kept_consts, kept_funcs = unknowns(instance_terms(sym) + [t for t in tasks if isinstance(t, z3.ExprRef)])
    task_names = [str(t) for t in tasks if isinstance(t, z3.ExprRef) and z3.is_const(t)]
    pairs = [(term, z3.FreshConst(term.sort(), prefix=name)) for name, term in sorted(consts.items())
             if name not in kept_consts and not _owned_by_tasks(name, task_names)]
    fun_pairs = []
    for name, decl in sorted(funcs.items()):
        if name in kept_funcs or _owned_by_tasks(name, task_names):
            continue
        domain = [decl.domain(k) for k in range(decl.arity())]
        fresh = z3.FreshFunction(*domain, decl.range())
        fun_pairs.append((decl, fresh(*[z3.Var(k, s) for k, s in enumerate(domain)])))
    if not pairs and not fun_pairs:
        return constraints
    out = []
    for c in constraints:
        if isinstance(c, tuple) and len(c) == 2 and isinstance(c[1], z3.ExprRef):
            expr = z3.substitute(c[1], *pairs) if pairs else c[1]
            if fun_pairs:
                expr = z3.substitute_funs(expr, *fun_pairs)
            if hasattr(type(c), "_fields"):  # a NamedTuple (a `Constraint`): kept as its own class
                kind: Callable[[Any, Any], tuple[Any, Any]] = type(c)
                out.append(kind(c[0], expr))
            else:
                out.append((c[0], expr))
        else:
            out.append(c)
    return out


class NamespacedSpec:
    """A spec whose every call gets fresh helper unknowns (`namespace`). Picklable if the spec is."""

    namespaced = True

    def __init__(self, spec):
        self.spec = spec
        self.__doc__ = getattr(spec, "__doc__", None)
        self.__wrapped__ = spec

    def __call__(self, sym, tasks, *args, **kwargs):
        out = self.spec(sym, tasks, *args, **kwargs)
        return namespace(list(out), sym, tasks)

    def __repr__(self) -> str:
        return f"NamespacedSpec({self.spec!r})"


def namespaced(spec):
    """`spec` wrapped in `NamespacedSpec` (None stays None; wrapping twice is wrapping once)."""
    if spec is None or getattr(spec, "namespaced", False) is True:
        return spec
    return NamespacedSpec(spec)


def check_independent(who: str, first: tuple, second: tuple) -> None:
    """Raise `PluginError` if two calls of a spec share an unknown beyond their instances' own
    unknowns and their task terms. `first` / `second`: (sym, tasks, constraints) of each call."""
    allowed: set[str] = set()
    for sym, tasks, _ in (first, second):
        consts, funcs = unknowns(instance_terms(sym) + [t for t in tasks if isinstance(t, z3.ExprRef)])
        allowed |= set(consts) | set(funcs)
    seen = []
    for _sym, tasks, constraints in (first, second):
        consts, funcs = unknowns([c[1] for c in constraints])
        task_names = [str(t) for t in tasks if isinstance(t, z3.ExprRef) and z3.is_const(t)]
        seen.append({n for n in (set(consts) | set(funcs)) - allowed if not _owned_by_tasks(n, task_names)})
    shared = sorted(seen[0] & seen[1])
    if shared:
        raise PluginError(f"{who}: two calls of the spec share the unknown(s) "
                          f"{', '.join(shared[:5])}: each call must have helper unknowns of its own")
