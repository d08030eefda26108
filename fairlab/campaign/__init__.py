"""fairlab.campaign: searches, checks, proofs and audits over many cells, resumable, on one machine
or a cluster (`fairlab campaign run SPEC --out DIR`).

`spec` reads a campaign (TOML or JSON) and expands it into cells identified by the hash of their
description (plug-in and instance files by content); `cell` runs one cell in a process of its own
under a hard time limit; `run` drives them on an executor and writes one result file per cell;
`report` reads a campaign folder back.
"""
