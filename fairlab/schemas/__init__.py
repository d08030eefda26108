"""JSON Schemas (draft 2020-12) of the documents the lab reads and writes, shipped as package data.

``NAME.schema.json``: instance, allocation, result, report, listing, fixture. Read them with
`fairlab.core.schemas.load` or print them with ``fairlab schema NAME``.
"""
