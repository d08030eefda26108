"""The JSON Schemas (draft 2020-12) of the lab's documents, read from the package data `fairlab.schemas`.

    >>> from fairlab.core import schemas
    >>> schemas.names()
    ['allocation', 'fixture', 'instance', 'listing', 'report', 'result']
    >>> schemas.load("result")["required"][:3]
    ['schema_version', 'kind', 'status']

Each schema has ``$id`` ``urn:fairlab:schema:NAME``; a schema refers to another by that id (a
result's instance is an ``urn:fairlab:schema:instance``), so validating needs all of them in one
registry: `validate` builds it (with the optional `jsonschema` package, in the ``test`` extra).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from fairlab.core.errors import InputError
from fairlab.core.names import unknown

PACKAGE = "fairlab.schemas"
SUFFIX = ".schema.json"


def names() -> list[str]:
    """The names of the shipped schemas, sorted."""
    return sorted(f.name.removesuffix(SUFFIX) for f in resources.files(PACKAGE).iterdir() if f.name.endswith(SUFFIX))


@cache
def _text(name: str) -> str:
    return resources.files(PACKAGE).joinpath(name + SUFFIX).read_text(encoding="utf-8")


def load(name: str) -> dict:
    """The schema `name` as a dict (a fresh copy); an unknown name is an `InputError` listing the known ones."""
    if name not in names():
        raise InputError(unknown("schema", name, names()))
    return json.loads(_text(name))


def validate(document, name: str) -> None:
    """Raise ``jsonschema.ValidationError`` unless `document` (parsed JSON) is valid under schema `name`.

    Needs the `jsonschema` package (``pip install 'fairlab[test]'``), imported here only: the lab
    itself never needs it."""
    import jsonschema  # optional: only for validating
    from referencing import Registry, Resource

    registry = Registry().with_resources((f"urn:fairlab:schema:{n}", Resource.from_contents(load(n))) for n in names())
    schema = load(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema, registry=registry).validate(document)
