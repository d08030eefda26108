"""The audit's property table as a LaTeX booktabs table (`fairlab audit MECHANISM --format latex`).

One ``table`` float per audit document: a row per property (its name and title), the audited
mechanism's status in the words of the markdown report (`fairlab.audit.markdown.status_word`:
"proved up to 2×2", "violated at 3×2", ...) and the reference columns (drf, ceei, bmf, asset:
`fairlab.audit.markdown.reference_parts`, abbreviated to fit a one-column page: "proved, 8 sizes
≤ 4×4" and a mark whose note the caption gives), ruled with ``\\toprule``/``\\midrule``/``\\bottomrule``.
The mechanism's name in the header breaks after ``_ . / : -`` and hyphenates; the markdown and HTML
reports list every size.
The caption says what the table is about (the sizes, the instance domain, the seed, the version)
and the ``\\label`` is ``tab:fairlab-audit-MECHANISM`` (``-DOMAIN`` added when asked per domain).

The preamble needs ``\\usepackage{booktabs}`` and ``\\usepackage{array}`` (both in Debian's
texlive-latex-base / -recommended); the leading comment says so. Every string from the document
is escaped (`escape`): names come from user files. The output is plain ASCII except for letters
of user names outside it, which a comment flags (compile with lualatex or xelatex then).
"""

from __future__ import annotations

import re

from fairlab.audit.markdown import reference_columns, reference_parts, short_name, status_word

#: characters LaTeX treats specially, and how to write each literally (text mode)
SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
    ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}",
}
#: the non-ASCII characters the lab's own words use, written so that pdflatex needs no extra package
SYMBOLS = {
    "×": r"$\times$", "—": "---", "–": "--", "∞": r"$\infty$", "≤": r"$\leq$", "≥": r"$\geq$", "∧": r"$\wedge$",
    "¬": r"$\neg$", "…": r"\ldots{}", "→": r"$\rightarrow$", "∈": r"$\in$", "⊆": r"$\subseteq$", "·": r"$\cdot$",
    "‘": "`", "’": "'", "“": "``", "”": "''", "◀": r"$\triangleleft$", "\u00a0": "~",
}
#: what the table needs in the preamble
PACKAGES = ("booktabs", "array")


def escape(value) -> str:
    """`value` as LaTeX text: specials escaped, the lab's symbols written out, control characters
    dropped, and any other character kept as is (letters of user names)."""
    out = []
    for ch in "" if value is None else str(value):
        if ch in SPECIALS:
            out.append(SPECIALS[ch])
        elif ch in SYMBOLS:
            out.append(SYMBOLS[ch])
        elif ch in "\n\r\t":
            out.append(" ")
        elif ord(ch) >= 32 and ch != "\x7f":
            out.append(ch)
    return "".join(out)


def label(text: str) -> str:
    """A ``\\label`` key: letters, digits and ``-:.`` only."""
    return re.sub(r"[^A-Za-z0-9:.-]+", "-", text).strip("-") or "audit"


#: at most this many sizes are listed in a reference cell; more are counted ("8 sizes ≤ 4×4")
LISTED_SIZES = 2


def breakable(text: str) -> str:
    """`escape` (text), with a line break allowed after ``_ . / : -`` and the words between hyphenated as
    usual (a long plug-in name in a narrow column)."""
    out = []
    for ch in str(text):
        out.append(escape(ch))
        if ch in "_./:-":
            out.append(r"\hspace{0pt}")  # a break allowed, and the next word may be hyphenated
    return "".join(out)


def reference_cell(entry: dict | None, marks: dict[str, str]) -> str:
    """A reference profile's cell in LaTeX: the status, the sizes (listed up to `LISTED_SIZES`, else
    counted with the largest numbers of users and resources), each note as a superscript mark;
    `marks` (note -> letter) grows with the notes met, for the caption."""
    if not entry or entry["status"] == "not established":
        return "---"
    status, sizes, notes = reference_parts(entry)
    if status.endswith(" (restricted)") and any(note.startswith("on ") for note in notes):  # said by the mark
        status = status.removesuffix(" (restricted)")
        notes = [f"proved {note} only (restricted)" if note.startswith("on ") else note for note in notes]
    if len(sizes) > LISTED_SIZES:
        words = f"{len(sizes)} sizes $\\leq$ {max(n for n, _ in sizes)}$\\times${max(m for _, m in sizes)}"
    else:
        words = ", ".join(f"{n}$\\times${m}" for n, m in sizes)
    letters = [marks.setdefault(note, chr(ord("a") + len(marks))) for note in notes]
    cell = escape(status) + (f", {words}" if words else "")
    return cell + (f"\\textsuperscript{{{','.join(letters)}}}" if letters else "")


def _caption(document: dict, marks: dict[str, str]) -> str:
    domain = document.get("domain") or {}
    provenance = document.get("provenance") or {}
    words = (f"Property profile of \\texttt{{{escape(short_name(document['mechanism']))}}} by fairlab "
             f"{escape(provenance.get('lab', ''))}: every size up to {document['users']}~users~$\\times$~"
             f"{document['resources']}~resources, instance domain \\emph{{{escape(domain.get('name', 'all'))}}}, "
             f"seed {escape(document['seed'])}. Violated: a counterexample verified exactly; proved: for every "
             "demand profile at the sizes given; none-found: no counterexample among the candidates evaluated "
             "(not a proof); n/a: the mechanism declines such instances; unknown: the budget ran out.")
    less = domain.get("sub_domains")
    if less:
        words += (" The evidence of " + ", ".join(f"{escape(p)} covers only \\emph{{{escape(d)}}}"
                                                  for p, d in less.items())
                  + " (``on'' in the table).")
    elif less is not None:
        words += " Every verdict covers the whole domain."
    others = reference_columns(document)
    if others:
        words += (f" Columns {', '.join(escape(o) for o in others)}: reference profiles "
                  f"({escape(document['reference'].get('note', ''))}); ---: not established (the lab knows neither "
                  "a counterexample in this domain nor a proof); "
                  "``$k$ sizes $\\leq n\\times m$'': $k$ sizes, none with more than $n$ users or $m$ resources "
                  "(the markdown and HTML reports list them).")
    if marks:
        notes = (f"\\textsuperscript{{{letter}}} {escape(note)}" for note, letter in marks.items())
        words += " " + "; ".join(notes) + "."
    return words


def table(document: dict, domain_label: bool = False) -> str:
    """The property table of one audit `document` as a ``table`` float (a str ending in a newline)."""
    mechanism = document["mechanism"]
    others = reference_columns(document)
    ref = document["reference"]["mechanisms"]
    key = f"tab:fairlab-audit-{label(short_name(mechanism))}"
    if domain_label:
        key += f"-{label((document.get('domain') or {}).get('name', 'all'))}"
    # the columns share \linewidth exactly (a table* in a two-column paper spans both columns)
    column = r">{\raggedright\arraybackslash}p{\dimexpr %s-2\tabcolsep\relax}"
    spec = "@{}" + column % r"0.22\linewidth" + (column % rf"0.78\linewidth/{1 + len(others)}") * (1 + len(others))
    spec += "@{}"
    head = ["property", breakable(short_name(mechanism)), *(escape(o) for o in others)]  # roman: it hyphenates
    marks: dict[str, str] = {}
    rows = []
    for row in document["properties"]:
        cells = [f"{escape(row['property'])} ({escape(row.get('title', ''))})", escape(status_word(row))]
        cells += [reference_cell(ref[name].get(row["property"]), marks) for name in others]
        rows.append("    " + " & ".join(cells) + r" \\")
    lines = [f"% fairlab audit {escape(mechanism)}: the property table (fairlab audit --format latex)",
             "% preamble: " + " ".join("\\usepackage{" + p + "}" for p in PACKAGES),
             r"\begin{table}[htbp]", r"  \centering", r"  \small",
             f"  \\caption{{{_caption(document, marks)}}}", f"  \\label{{{key}}}",
             f"  \\begin{{tabular}}{{{spec}}}", r"    \toprule",
             "    " + " & ".join(f"\\textbf{{{h}}}" for h in head) + r" \\", r"    \midrule"]
    lines += rows
    lines += [r"    \bottomrule", r"  \end{tabular}", r"\end{table}"]
    text = "\n".join(lines) + "\n"
    if any(ord(ch) > 127 for ch in text):
        text = ("% some names use letters outside ASCII: pdflatex reads them as UTF-8 where it knows them;"
                " else compile with lualatex or xelatex\n" + text)
    return text


def render(documents: list[dict]) -> str:
    """The tables of one or more audit documents (one per asked domain), a blank line apart."""
    return "\n".join(table(d, domain_label=len(documents) > 1) for d in documents)
