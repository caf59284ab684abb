"""A command's one-record document: the envelope, the record's own fields, then what it ran on, read back the same."""

from dataclasses import dataclass

import pytest

from tfgraphs.records.one_record import OneRecord


@dataclass(frozen=True)
class Sample(OneRecord):
    """A name and the sizes measured for it."""

    name: str
    sizes: tuple = ()

    command = "sample"


def test_its_own_fields_come_between_the_provenance_and_what_it_ran_on():
    sample = Sample("a", (1, 2), tf_version="2.16.1", machine={"cpu_count": 4})
    saved = sample.to_dict()
    assert list(saved)[:3] == ["schema", "tool", "command"] and saved["command"] == "sample"
    assert list(saved)[-4:] == ["name", "sizes", "tf_version", "machine"]
    assert saved["sizes"] == [1, 2]
    assert Sample.from_dict(saved) == sample


def test_a_document_lacking_a_field_without_a_default_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"not a complete sample result \(no name\)"):
        Sample.from_dict({"sizes": [1]})
