# To a type checker, records are dataclasses: the same decorator, fields and generated methods
# (records.py makes them without importing `dataclasses`, for the command's start-up; its doctests
# check that they behave the same).
from dataclasses import FrozenInstanceError as FrozenInstanceError
from dataclasses import dataclass as dataclass
from dataclasses import field as field
from dataclasses import fields as fields
from dataclasses import replace as replace

__all__ = ["dataclass", "field", "fields", "replace", "FrozenInstanceError"]
