"""The documentation site's generated pages, written from the lab's registries at build time.

mkdocs-gen-files runs this file on every ``mkdocs build`` (mkdocs.yml, ``plugins: gen-files``), so
the pages cannot go stale: one page per registered mechanism (`fairlab.mechanisms.registry`) and per
property (`fairlab.properties.property`), the paper-check ledger (`fairlab.paper_checks.ledger`) and
the CLI reference (the Typer app, `fairlab.cli.app`). Nothing here runs a mechanism, a search or a
proof: a mechanism's profile is the stored one (`fairlab.audit.reference`: the theorem catalogue
and the shipped fixtures); the ledger page lists the transcriptions and the status each claim is
expected to get, which ``fairlab paper-check`` and the test suite check.

    python scripts/docs_pages.py OUT_DIR    writes the same pages into OUT_DIR (to look at them)
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path

import typer

#: the folders whose every page is generated (mkdocs.yml's nav names them with a trailing slash;
#: tests/project/test_docs_nav.py checks no hand-written page lies there)
SECTIONS = ("mechanisms/", "properties/")
#: the single generated pages
FILES = ("ledger.md", "cli.md")

SETTING_WORDS = {
    "pool": "one divisible pool of resources",
    "machines": "whole tasks placed on several machines",
    "dynamic": "agents arriving (and departing) over time",
}
STATUS_WORDS = {
    "proved": "proved",
    "proved (restricted)": "proved on a smaller domain",
    "violated": "violated",
    "not established": "not established",
}


def status_words(row: dict) -> str:
    """A profile row's status in words; a proof on a smaller domain names that domain."""
    words = STATUS_WORDS.get(row["status"], row["status"])
    if row["status"] == "proved (restricted)":
        restricted = next((e["restriction"] for e in row["evidence"] if e.get("restriction")), None)
        words += f" ({restricted})" if restricted else ""
    return words


# --------------------------------------------------------------------------- text helpers
def doc_markdown(text: str | None) -> str:
    """A docstring as Markdown: dedented, doctest lines (``>>>``) fenced as Python sessions (else
    Markdown would read them as quotes), headings demoted below the page's own."""
    lines = inspect.cleandoc(text or "").splitlines()
    out: list[str] = []
    k = 0
    while k < len(lines):
        stripped = lines[k].strip()
        if stripped.startswith(">>>"):
            indent = len(lines[k]) - len(lines[k].lstrip())
            block = []
            while k < len(lines) and lines[k].strip():
                block.append(lines[k][indent:] if len(lines[k]) >= indent else lines[k].strip())
                k += 1
            if out and out[-1].strip():
                out.append("")
            out += ["```pycon", *block, "```", ""]
            continue
        out.append(lines[k])
        k += 1
    text = "\n".join(out).strip()
    return re.sub(r"^(#{1,3}) ", r"###\1 ", text, flags=re.MULTILINE)


def plain(text: object) -> str:
    """Transcribed text (a claim as printed, a source) shown as written, not read as Markdown."""
    out = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return re.sub(r"([\\`*_{}\[\]#|])", r"\\\1", out)


def cell(text: object) -> str:
    """A value fit for one Markdown table cell (one line, each pipe escaped once)."""
    return re.sub(r"(?<!\\)\|", r"\\|", " ".join(str(text).split()))


def table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def facts_list(facts: list[list[str]]) -> list[str]:
    """Label/value pairs as a Markdown list ("- **Source:** ..."), then a blank line."""
    return [f"- **{label}:** {value}" for label, value in facts] + [""]


def sizes(pairs) -> str:
    return ", ".join(f"{n}×{m}" for n, m in pairs or [])


# --------------------------------------------------------------------------- mechanisms
def mechanism_names() -> list[str]:
    from fairlab.mechanisms import registry

    return registry.names(None)


def profile_of(mech) -> dict:
    """The stored profile of `mech` on its declared domain over its setting's properties
    (`fairlab.audit.reference.profile`: the theorem catalogue and the shipped fixtures)."""
    from fairlab import properties
    from fairlab.audit import reference

    return reference.profile(mech.name, mech.domain, properties.names(mech.setting))


def mechanism_page(name: str) -> str:
    from fairlab.mechanisms import registry

    mech = registry.get(name)
    module = sys.modules.get(mech.module)
    domain = mech.domain
    lines = [f"# {mech.name}", "", f"**{plain(mech.summary)}**", ""]
    facts = [
        ["Source", plain(mech.source)],
        ["Setting", f"`{mech.setting}`: {SETTING_WORDS.get(mech.setting, mech.setting)}"],
        ["Domain", f"`{domain.label or 'all'}`: {domain.words}"],
        *([["Valuation model", f"`{mech.valuation}` (its paper's; the machines properties judge in it unless "
                               "`--option model=...` asks the other, see Concepts)"]]
          if mech.setting == "machines" else []),
        ["Aliases", ", ".join(f"`{a}`" for a in mech.aliases) or "none"],
        ["Single-valued", "yes" if mech.single_valued else "no (the lab picks one allocation of several)"],
        ["Symbolic spec", "yes (`fairlab prove` and the symbolic search serve it)" if mech.spec else
         "no (numeric engines only)"],
        ["Module", f"`{mech.module}`"],
    ]
    lines += facts_list(facts)
    if mech.options:
        options = [[f"`{k}`", plain(v)] for k, v in mech.options.items()]
        lines += ["## Options", "", table(["option", "meaning"], options), ""]
    lines += ["## Definition", "", doc_markdown(module.__doc__ if module else mech.allocate.__doc__), ""]
    lines += ["## The lab's profile", ""]
    profile = profile_of(mech)
    if not any(row["evidence"] for row in profile.values()):
        lines += [f"No stored record (theorem catalogue entry or shipped counterexample) covers `{mech.name}` "
                  f"on its domain `{domain.label or 'all'}`: every property is *not established* here. "
                  f"`fairlab audit {mech.name}` computes a profile (searches and proofs; it takes a while).", ""]
    else:
        lines += [f"On the domain `{domain.label or 'all'}` ({domain.words}), from the lab's stored records: "
                  "the theorem catalogue (proofs decided by the default test suite) and the shipped, "
                  "re-verified counterexamples. Not recomputed when this page is built; a property without a "
                  "record is *not established* (nothing is claimed).", ""]
        rows = []
        for prop, row in profile.items():
            evidence = "; ".join(e["evidence"] + (f" (on {e['restriction']})" if e.get("restriction") else "")
                                 for e in row["evidence"]) or "no record"
            rows.append([f"[{prop}](../properties/{prop}.md)", status_words(row),
                         sizes(row["sizes"]) or "—", plain(row["source"] or "—"), plain(evidence)])
        lines += [table(["property", "status", "sizes", "source", "evidence"], rows), ""]
    return "\n".join(lines)


def mechanisms_index() -> str:
    from fairlab.mechanisms import registry

    rows = []
    for name in mechanism_names():
        mech = registry.get(name)
        rows.append([f"[{name}]({name}.md)", mech.setting, f"`{mech.domain.label or 'all'}`", plain(mech.summary)])
    return "\n".join(["# Mechanisms", "",
                      "Every mechanism the lab registers, one page each, generated from the registry when the "
                      "site is built. Each page gives the definition, the source, the domain the mechanism is "
                      "defined on and the lab's stored profile.", "",
                      table(["mechanism", "setting", "domain", "summary"], rows), ""])


# --------------------------------------------------------------------------- properties
def property_names() -> list[str]:
    from fairlab import properties

    return properties.names(None)


def property_page(name: str) -> str:
    from fairlab import properties
    from fairlab.audit import reference
    from fairlab.mechanisms import registry

    prop = properties.get(name)
    lines = [f"# {prop.name}: {prop.title}", "", doc_markdown(prop.definition), ""]
    facts = [
        ["Source", plain(prop.source)],
        ["Setting", f"`{prop.setting}`: {SETTING_WORDS.get(prop.setting, prop.setting)}"],
        ["Compares", f"`{prop.compares}`"],
        ["Witness", f"`{prop.witness.__name__}`: {plain(prop.witness_shape())}"],
        ["Weights and caps", plain(prop.weighted) if prop.weighted else
         "weights are not modelled in this setting" if prop.setting != "pool" else "not stated"],
    ]
    lines += facts_list(facts)
    if prop.setting == "pool":
        rows = []
        for mech_name in reference.REFERENCE_MECHANISMS:
            mech = registry.get(mech_name)
            row = reference.profile(mech.name, mech.domain)[name]
            rows.append([f"[{mech.name}](../mechanisms/{mech.name}.md)", f"`{mech.domain.label or 'all'}`",
                         status_words(row), sizes(row["sizes"]) or "—",
                         plain(row["source"] or "—")])
        lines += ["## The reference mechanisms", "",
                  "The stored profiles (theorem catalogue and shipped counterexamples; not recomputed here), "
                  "each on the mechanism's declared domain:", "",
                  table(["mechanism", "domain", "status", "sizes", "source"], rows), ""]
    return "\n".join(lines)


def properties_index() -> str:
    from fairlab import properties

    rows = []
    for name in property_names():
        prop = properties.get(name)
        rows.append([f"[{name}]({name}.md)", plain(prop.title), prop.setting, plain(prop.source)])
    return "\n".join(["# Properties", "",
                      "Every fairness property the lab registers, one page each, generated from the registry "
                      "when the site is built.", "", table(["property", "title", "setting", "source"], rows), ""])


# --------------------------------------------------------------------------- ledger
def ledger_page() -> str:
    from fairlab.paper_checks import ledger

    lines = ["# Paper-check ledger", "",
             "Every checkable numeric claim of the lab's sources, transcribed as printed, with the check the lab "
             "runs and the status the ledger expects. `fairlab paper-check` runs the checks and compares each "
             "printed number with the lab's value (exact where printed exactly, to the printed rounding "
             "otherwise); it exits non-zero when a claim does not come out as expected. This page is generated "
             "from the ledger when the site is built and runs no check.", "",
             "Statuses (the ledger's wording rule, `fairlab.paper_checks.ledger.WORDING`):", "",
             *(f"- **{ledger.status_words(s, '...')}**: {plain(ledger.WORDING[s])}." for s in ledger.STATUSES),
             "", "Claims marked *slow* are skipped by `fairlab paper-check --quick`.", ""]
    counts: dict[str, int] = {}
    for c in ledger.CLAIMS:
        counts[c.expect] = counts.get(c.expect, 0) + 1
    lines += [f"{len(ledger.CLAIMS)} claims: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + ".", ""]
    by_source: dict[str, list] = {}
    for c in ledger.CLAIMS:
        by_source.setdefault(c.source, []).append(c)
    for source, claims in by_source.items():
        title = source.split(" (", 1)[1].rstrip(")") if " (" in source else source
        lines += [f"## {title}", "", f"Source file: `{source.split(' (', 1)[0]}`.", ""]
        for c in claims:
            expected = f"**{c.words}**" + (" (slow)" if c.slow else "")
            lines += [f"### {c.id} {{#{c.id}}}", "", f"*{plain(c.where)}*", "",
                      *(f"> {plain(line)}" for line in c.claim.splitlines()),
                      "", f"- **Check:** {plain(c.check)}", f"- **Expected:** {expected}"]
            lines += [f"- **Out of scope:** {plain(c.reason)}"] if c.reason else []
            lines += [f"- **What the paper claims:** {plain(c.paper_claims)}"] if c.paper_claims else []
            lines += [f"- **Not checked by the lab:** {plain(c.not_checked)}"] if c.not_checked else []
            lines.append("")
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI
# Typer's command objects, read through their public attributes (Typer carries its own copy of click).
def _param_row(ctx: typer.Context, param) -> list[str]:
    if param.param_type_name == "argument":
        name = f"`{param.human_readable_name}`"
    else:
        name = ", ".join(f"`{opt}`" for opt in [*param.opts, *param.secondary_opts])
    flag = getattr(param, "is_flag", False)
    kind = "flag" if flag else param.type.name.upper()
    if getattr(param.type, "choices", None):
        kind = " \\| ".join(str(choice) for choice in param.type.choices)
    default = param.get_default(ctx, call=False) if not flag else None
    shown = "" if default in (None, (), [], "") or callable(default) else f"`{default}`"
    return [name, kind, "yes" if param.required else "", shown, plain(getattr(param, "help", None) or "")]


def _command_section(command, path: list[str], level: int) -> list[str]:
    ctx = typer.Context(command, info_name=" ".join(path))
    usage = " ".join(command.collect_usage_pieces(ctx))
    lines = [f"{'#' * level} {' '.join(path)}", "", "```", f"{' '.join(path)} {usage}", "```", ""]
    if command.help:
        lines += [doc_markdown(command.help), ""]
    params = [p for p in command.get_params(ctx) if p.name != "help" and not getattr(p, "hidden", False)]
    if params:
        lines += [table(["argument / option", "type", "required", "default", "help"],
                        [_param_row(ctx, p) for p in params]), ""]
    for name in command.list_commands(ctx) if hasattr(command, "list_commands") else []:
        sub = command.get_command(ctx, name)
        if sub is not None and not sub.hidden:
            lines += _command_section(sub, [*path, name], min(level + 1, 4))
    return lines


def cli_page() -> str:
    from fairlab.cli.app import app

    intro = ["# CLI reference", "",
             "Every verb of the `fairlab` command, generated from the application when the site is built: the "
             "usage line, the help text and each argument and option, as `fairlab VERB --help` shows them. "
             "Bad input exits with code 2 and a one-line error; an internal error with code 3.", ""]
    return "\n".join(intro + _command_section(typer.main.get_command(app), ["fairlab"], 2))


# --------------------------------------------------------------------------- all pages
def pages() -> dict[str, str]:
    """Path under docs/ -> Markdown, for every generated page."""
    out = {"mechanisms/index.md": mechanisms_index(), "properties/index.md": properties_index()}
    out.update({f"mechanisms/{name}.md": mechanism_page(name) for name in mechanism_names()})
    out.update({f"properties/{name}.md": property_page(name) for name in property_names()})
    out["ledger.md"] = ledger_page()
    out["cli.md"] = cli_page()
    return out


def nav_file(section: str, index_title: str, names: list[str]) -> str:
    """The literate-nav file of a generated section: its index page, then one entry per page."""
    return "\n".join([f"* [{index_title}](index.md)", *(f"* [{name}]({name}.md)" for name in names), ""])


def write_with_gen_files() -> None:
    import mkdocs_gen_files

    for path, text in pages().items():
        with mkdocs_gen_files.open(path, "w") as handle:
            handle.write(text)
    for section, title, names in (("mechanisms", "All mechanisms", mechanism_names()),
                                  ("properties", "All properties", property_names())):
        with mkdocs_gen_files.open(f"{section}/SUMMARY.md", "w") as handle:
            handle.write(nav_file(section, title, names))


def write_to(folder: Path) -> None:
    for path, text in pages().items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


if __name__ == "__main__":  # python scripts/docs_pages.py OUT_DIR
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/docs_pages.py OUT_DIR")
    write_to(Path(sys.argv[1]))
elif __name__ == "<run_path>":  # mkdocs-gen-files runs the file with runpy.run_path
    write_with_gen_files()
