"""fairlab.audit: the property profile of one mechanism in one command (`fairlab audit`).

For every property of the registry, at every size up to N users × M resources: the exact check on
the shipped examples, the search portfolio, and — where the mechanism has a symbolic spec — a proof
per size. One `fairlab.core.results.Result` (kind ``audit``) per property; `AuditReport` gathers
them with the reference profiles of drf, ceei, bmf and asset (from the theorem catalogue and the
shipped fixtures, not recomputed). Renderers: `markdown`, `html` (one self-contained file), `latex`
(the property table as a booktabs table) and `figure_files` (each figure of the report as SVG and
PDF), all taking the audit document ``AuditReport.to_dict()``.
"""
