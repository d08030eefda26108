"""The documentation site's sources agree with its navigation, and the generated pages with the registries.

Cheap: nothing is built (CI builds the site with `mkdocs build --strict` and checks it in Chromium,
bash .ci/docs). mkdocs.yml's ``nav`` lists every page file under docs/ and names nothing else, except
the generated pages (scripts/docs_pages.py, run by mkdocs-gen-files at build time): its folders are
named with a trailing slash and hold no hand-written page, its single pages are in the nav and are not
files in docs/ (a stale copy would hide the generated one).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGE_SUFFIXES = (".md", ".ipynb")


def generator():
    spec = importlib.util.spec_from_file_location("docs_pages", ROOT / "scripts" / "docs_pages.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def nav_entries(node) -> list[str]:
    """Every path the nav names (files, and folders with a trailing slash), in order."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [path for value in node.values() for path in nav_entries(value)]
    if isinstance(node, list):
        return [path for item in node for path in nav_entries(item)]
    raise AssertionError(f"mkdocs.yml nav: unexpected entry {node!r}")


def config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def page_files() -> set[str]:
    return {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*") if p.suffix in PAGE_SUFFIXES}


def test_nav_lists_every_page_file_and_nothing_else():
    gen = generator()
    entries = nav_entries(config()["nav"])
    assert len(entries) == len(set(entries)), f"mkdocs.yml nav names a page twice: {entries}"
    folders = {e for e in entries if e.endswith("/")}
    files = {e for e in entries if not e.endswith("/")}
    assert folders == set(gen.SECTIONS), f"nav folders {sorted(folders)} != the generated sections {gen.SECTIONS}"
    on_disk = page_files()
    hand_written_in_generated = sorted(f for f in on_disk if f.startswith(tuple(gen.SECTIONS)))
    assert not hand_written_in_generated, f"files in a generated section (remove them): {hand_written_in_generated}"
    stale = sorted(set(gen.FILES) & on_disk)
    assert not stale, f"generated pages must not be files in docs/ (remove them): {stale}"
    missing_from_nav = sorted(on_disk - files)
    assert not missing_from_nav, f"pages under docs/ missing from mkdocs.yml nav: {missing_from_nav}"
    no_file = sorted(files - on_disk - set(gen.FILES))
    assert not no_file, f"mkdocs.yml nav names pages that are no file under docs/ nor generated: {no_file}"


def test_nav_order_is_the_plan():
    titles = [next(iter(item)) if isinstance(item, dict) else item for item in config()["nav"]]
    assert titles == ["Home", "Getting started", "Concepts", "Tutorials", "How-to guides", "Mechanisms",
                      "Properties", "Paper-check ledger", "CLI reference", "API reference", "Citing"]


def test_the_generated_pages_cover_the_registries():
    from fairlab import properties
    from fairlab.mechanisms import registry
    from fairlab.paper_checks import ledger

    pages = generator().pages()
    for name in registry.names(None):
        assert f"mechanisms/{name}.md" in pages, name
        assert f"[{name}]({name}.md)" in pages["mechanisms/index.md"], name
    for name in properties.names(None):
        assert f"properties/{name}.md" in pages, name
    assert all(f"### {claim.id} {{#{claim.id}}}\n" in pages["ledger.md"] for claim in ledger.CLAIMS)
    for verb in ("allocate", "check", "search", "prove", "audit", "paper-check"):
        assert f"## fairlab {verb}\n" in pages["cli.md"], verb


def test_a_mechanism_page_gives_domain_source_and_the_stored_profile():
    from fairlab.audit import reference
    from fairlab.mechanisms import registry

    gen = generator()
    drf = registry.get("drf")
    page = gen.mechanism_page("drf")
    assert drf.source in page and f"`{drf.domain.label}`: {drf.domain.words}" in page
    stored = reference.profile("drf", drf.domain)
    assert stored == gen.profile_of(drf)
    for prop, row in stored.items():
        assert f"| [{prop}](../properties/{prop}.md) | {gen.status_words(row)} |" in page, prop
    # a mechanism with no stored record says so rather than showing a table of "not established"
    bare = [n for n in registry.names(None) if not any(r["evidence"] for r in gen.profile_of(registry.get(n)).values())]
    assert bare, "every mechanism has a stored record: test the message another way"
    page = gen.mechanism_page(bare[0])
    assert "No stored record" in page and "| property | status |" not in page


def test_a_mechanism_of_another_setting_gets_its_settings_properties():
    from fairlab import properties
    from fairlab.mechanisms import registry

    gen = generator()
    for name in registry.names("machines"):
        profile = gen.profile_of(registry.get(name))
        assert list(profile) == properties.names("machines"), name


def test_generated_links_name_pages_that_exist():
    pages = generator().pages()
    for path, text in pages.items():
        for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", text):
            resolved = (Path(path).parent / target).as_posix()
            parts: list[str] = []
            for part in resolved.split("/"):
                if part == "..":
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            resolved = "/".join(parts)
            assert resolved in pages or (DOCS / resolved).is_file(), f"{path}: link {target} names no page"


def test_doctests_in_a_docstring_become_code_blocks():
    text = generator().doc_markdown('''First line.

        >>> 1 + 1
        2

    More prose.''')
    assert "```pycon\n>>> 1 + 1\n2\n```" in text and "More prose." in text


def test_the_api_index_names_every_top_level_export():
    import fairlab

    index = (DOCS / "api" / "index.md").read_text(encoding="utf-8")
    missing = [name for name in fairlab.__all__ if name != "__version__" and f"| `fairlab.{name}` |" not in index]
    assert not missing, f"docs/api/index.md: add a row for {missing}"


def test_a_pipe_is_escaped_once_in_a_table_cell():
    gen = generator()
    assert gen.cell("table | json") == gen.cell(gen.plain("table | json")) == "table \\| json"
    assert gen.table(["a", "b"], [["x | y", "z"]]).splitlines()[-1] == "| x \\| y | z |"
