"""The shipped JSON Schemas (`fairlab.core.schemas`, package data `fairlab.schemas`): each is a valid
draft 2020-12 schema, the shipped examples are instances, results and reports validate, and what
the readers refuse the schemas refuse too where a schema can say so."""

import json

import pytest

from fairlab.core import schemas
from fairlab.core.errors import InputError
from fairlab.core.instance import Instance, examples
from fairlab.core.results import Result, Status, report, to_dict

jsonschema = pytest.importorskip("jsonschema")

#: the schemas issue 15 asks for (fixture: written with the fixture store)
REQUIRED = {"instance", "allocation", "result", "report", "listing"}


def test_the_schemas_are_shipped_and_valid():
    assert set(schemas.names()) >= REQUIRED
    for name in schemas.names():
        schema = schemas.load(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"urn:fairlab:schema:{name}" and schema["title"] and schema["description"]


def test_unknown_schema_is_a_one_line_error_naming_the_known_ones():
    with pytest.raises(InputError, match=r"schema 'nope': unknown \(known: allocation, .*result"):
        schemas.load("nope")


@pytest.mark.parametrize("name", sorted(examples()))
def test_shipped_examples_are_instances(name):
    schemas.validate(json.loads(examples()[name].read_text(encoding="utf-8")), "instance")
    schemas.validate(Instance.resolve(name).to_dict(), "instance")  # and what the lab writes back


@pytest.mark.parametrize("bad", [
    {"demands": [[1]]},
    {"capacities": [], "demands": [[1]]},
    {"capacities": [1], "demands": [[1]], "colour": "red"},
    {"capacities": ["one"], "demands": [[1]]},
    {"capacities": [1], "demands": [[1]], "users": ["a", "a"]},
])
def test_instance_schema_refuses_what_the_reader_refuses(bad):
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate(bad, "instance")
    with pytest.raises(InputError):
        Instance.resolve(bad)


def test_results_and_reports_validate():
    inst = Instance.resolve("drf-paper")
    result = Result("check", Status.VIOLATED, "asset", "si", inst, witness={"user": 1}, exactness="rational",
                    budget={"seed": 0}, seconds=0.25, explanation="why")
    schemas.validate(to_dict(result), "result")
    schemas.validate(report("matrix", [result, result.replace(status=Status.HOLDS, witness=None)], cells=2), "report")
    for broken in ({**to_dict(result), "verdict": "violated"},  # the old key: not a field of Result
                   {**to_dict(result), "status": "maybe"},
                   {k: v for k, v in to_dict(result).items() if k != "provenance"}):
        with pytest.raises(jsonschema.ValidationError):
            schemas.validate(broken, "result")
    bad_row = report("matrix", [result])
    bad_row["results"][0]["status"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        schemas.validate(bad_row, "report")  # the rows are checked against the result schema's row


def test_every_status_is_in_the_result_schema():
    assert set(schemas.load("result")["properties"]["status"]["enum"]) == {s.value for s in Status}
