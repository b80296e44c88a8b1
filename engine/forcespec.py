"""Declarative force fields: what a player may bring, the exact reason for each refusal,
and a JSON Schema of it for a force-builder form.

A ruleset describes its force JSON once with these specs (as `OptionSpec` describes
options) and gets from it

- `read(force)`: the force normalised (defaults filled in, names folded to lower case)
  and every reason it is refused, each naming the place ("unit 2 (Tank)") and the field
  as the player knows it ("Pw", "unit types (types)"), never only an internal key; each
  reason is a `Refusal`, a sentence that carries the path of its value in the force
  (("units", 1, "pw")), so a form shows it beside its field;
- `schema()`: a JSON Schema (draft 2020-12) of the same shape, titles and descriptions
  included, that `Ruleset.force_schema(options)` publishes.

What is not a field's own shape (a points budget, a defence level the cost table skips,
two types that clash) stays a check in the ruleset's code, run on what `read` returns
once it has no reasons.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]


class _Invalid:
    """What read() returns for a value it refused (its reasons are already given)."""

    def __repr__(self) -> str:
        return "INVALID"


INVALID: Any = _Invalid()


Path = tuple[str | int, ...]


class Place(str):
    """Where a value is, as reasons say it ("unit 2 (Tank)"), with its path in the force
    (("units", 1, "pw")) so a form can show each reason beside its field."""

    path: Path

    def __new__(cls, text: str = "", path: Path = ()) -> Place:
        place = super().__new__(cls, text)
        place.path = path
        return place

    def at(self, *more: str | int) -> Place:
        return Place(str(self), (*self.path, *more))


class Refusal(str):
    """One reason a force is refused: the sentence, and `path`, the place in the force
    of the value it is about (() for the force as a whole, as a budget check says)."""

    path: Path

    def __new__(cls, text: str, path: Path = ()) -> Refusal:
        refusal = super().__new__(cls, text)
        refusal.path = path
        return refusal


def path_of(reason: str) -> Path:
    """The path of a reason in the force (() for a plain sentence)."""
    return reason.path if isinstance(reason, Refusal) else ()


def _place(where: str) -> Place:
    return where if isinstance(where, Place) else Place(where)


def _at(where: str, message: str) -> Refusal:
    return Refusal(f"{where}: {message}" if where else message, _place(where).path)


class Spec(ABC):
    """One value of a force. `label` is the name the player knows it by (the rules'
    word, "Pw" or "hero"); `doc` says what it is, for the form."""

    label: str
    doc: str

    @abstractmethod
    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        """The value normalised, or INVALID after appending every reason (each starting
        with `where`, the place of the value, when it is not empty)."""

    @abstractmethod
    def schema(self) -> JSON:
        """This value's JSON Schema, with `title` and `description`."""

    def _titled(self, out: JSON) -> JSON:
        out["title"] = self.label
        if self.doc:
            out["description"] = self.doc
        return out


@dataclass(frozen=True)
class Whole(Spec):
    """A whole number from minimum to maximum (bools are refused)."""

    label: str
    minimum: int
    maximum: int
    doc: str = ""

    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            reasons.append(_at(where, f"{self.label} must be a whole number, not {value!r}"))
            return INVALID
        if not self.minimum <= value <= self.maximum:
            reasons.append(_at(where, f"{self.label} must be between {self.minimum} and "
                                      f"{self.maximum}, not {value}"))
            return INVALID
        return value

    def schema(self) -> JSON:
        return self._titled({"type": "integer", "minimum": self.minimum, "maximum": self.maximum})


@dataclass(frozen=True)
class Text(Spec):
    """Text of min_length to max_length characters."""

    label: str
    max_length: int
    min_length: int = 0
    doc: str = ""

    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        if not isinstance(value, str) or not self.min_length <= len(value) <= self.max_length:
            size = (f"at most {self.max_length}" if self.min_length == 0
                    else f"{self.min_length} to {self.max_length}")
            reasons.append(_at(where, f"{self.label} must be text of {size} characters"))
            return INVALID
        return value

    def schema(self) -> JSON:
        return self._titled({"type": "string", "minLength": self.min_length,
                             "maxLength": self.max_length})


@dataclass(frozen=True)
class Choice(Spec):
    """One of a fixed list of names; with fold, any case is read as lower case."""

    label: str
    choices: tuple[str, ...]
    doc: str = ""
    fold: bool = False
    # A sentence for each choice, in the order of `choices` (a hero's card), published as
    # the schema's `enumDescriptions` for a form to show beside the choice.
    descriptions: tuple[str, ...] = ()

    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        name = value.strip().lower() if self.fold and isinstance(value, str) else value
        if not isinstance(name, str) or name not in self.choices:
            reasons.append(_at(where, f"{self.label} {value!r} is not one of {', '.join(self.choices)}"))
            return INVALID
        return name

    def schema(self) -> JSON:
        out: JSON = {"type": "string", "enum": list(self.choices)}
        if self.descriptions:
            out["enumDescriptions"] = list(self.descriptions)
        return self._titled(out)


@dataclass(frozen=True)
class Names(Spec):
    """A list of names from `choices` (each called an `item`), at most max_items of them,
    each at most once when unique; with fold, any case is read as lower case."""

    label: str
    item: str
    choices: tuple[str, ...]
    max_items: int
    doc: str = ""
    unique: bool = True
    fold: bool = True
    example: str = ""
    # A sentence for each name, in the order of `choices` (what a skill does), published
    # as the items' `enumDescriptions` for a form to show beside each box.
    descriptions: tuple[str, ...] = ()

    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            like = f" like {self.example}" if self.example else ""
            reasons.append(_at(where, f"{self.label} must be a list of names{like}"))
            return INVALID
        before = len(reasons)
        out: list[str] = []
        for raw in value:
            name = raw.strip().lower() if self.fold else raw
            if name not in self.choices:
                reasons.append(_at(where, f"{raw!r} is not a {self.item} ({', '.join(self.choices)})"))
            elif self.unique and name in out:
                reasons.append(_at(where, f"{self.item} {name} is given twice"))
            else:
                out.append(name)
        if len(value) > self.max_items:
            reasons.append(_at(where, f"at most {self.max_items} {self.label}, not {len(value)}"))
        return INVALID if len(reasons) > before else out

    def schema(self) -> JSON:
        items: JSON = {"type": "string", "enum": list(self.choices)}
        if self.descriptions:
            items["enumDescriptions"] = list(self.descriptions)
        return self._titled({"type": "array", "items": items,
                             "maxItems": self.max_items, "uniqueItems": self.unique})


@dataclass(frozen=True)
class Field:
    """A field of a Shape: its JSON key, its spec, and its default when left out
    (required: no default, leaving it out is refused; nullable: null is read as None)."""

    key: str
    spec: Spec
    default: Any = None
    required: bool = False
    nullable: bool = False

    @property
    def name(self) -> str:
        """The field as messages name it: the label, and the key too where the label
        is not the key in other letters."""
        label = self.spec.label
        return label if label.lower() == self.key.lower() else f"{label} ({self.key})"


@dataclass(frozen=True)
class Shape(Spec):
    """A JSON object with these fields and no others. `example` is shown when the value
    is not an object; `title_key` names a text field whose value is added to the place
    of the fields' reasons ("unit 1 (Tank)"). `check`, run on the read object once all
    its fields are fine, returns the reasons its fields' shapes cannot give (two fields
    that clash, a value the cost table skips), placed like the others."""

    label: str
    fields: tuple[Field, ...]
    example: str = ""
    doc: str = ""
    title_key: str | None = None
    check: Callable[[dict[str, Any]], Sequence[str]] | None = field(default=None, compare=False)

    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        if not isinstance(value, Mapping):
            like = f" like {self.example}" if self.example else ""
            reasons.append(_at(where, f"{'must' if where else f'{self.label} must'} be an object{like}"))
            return INVALID
        out: dict[str, Any] = {}
        before = len(reasons)
        where = _place(where)
        fields = {f.key: f for f in self.fields}
        title = fields.get(self.title_key) if self.title_key else None
        if title is not None and title.key in value:
            name = title.spec.read(value[title.key], where.at(title.key), reasons)
            if name is not INVALID and name:
                where = Place(f"{where} ({name})" if where else str(name), where.path)
        unknown = sorted(str(k) for k in value if k not in fields)
        if unknown:
            known = ", ".join(f.name for f in self.fields)
            has = "fields" if where else f"{self.label} has"
            reasons.append(_at(where, f"unknown field {', '.join(unknown)} ({has}: {known})"))
        for f in self.fields:
            if f.key not in value:
                if f.required:
                    reasons.append(_at(where.at(f.key), f"{f.name} is missing") if where
                                   else Refusal(f"{self.label} needs {f.name}", where.at(f.key).path))
                else:
                    out[f.key] = json.loads(json.dumps(f.default))  # a fresh copy
            elif f is title or (f.nullable and value[f.key] is None):
                out[f.key] = value[f.key]
            else:
                out[f.key] = f.spec.read(value[f.key], where.at(f.key), reasons)
        if len(reasons) == before and self.check is not None:
            reasons.extend(_at(where, r) for r in self.check(out))
        return INVALID if len(reasons) > before else out

    def schema(self) -> JSON:
        props: JSON = {}
        for f in self.fields:
            props[f.key] = f.spec.schema()
            if f.nullable:
                props[f.key] = {"anyOf": [props[f.key], {"type": "null"}]}
            if not f.required and f.default is not None:
                props[f.key]["default"] = f.default
        out: JSON = {"type": "object", "properties": props, "additionalProperties": False}
        required = [f.key for f in self.fields if f.required]
        if required:
            out["required"] = required
        return self._titled(out)


@dataclass(frozen=True)
class Either(Spec):
    """One of several object shapes, told apart by a key: `keyed` pairs a key with the
    shape of an object that has it (an object must have exactly one of these keys,
    unless `otherwise` is the shape of one that has none). With `bare`, a plain text
    value is read as {bare: value} ("knight" as {"preset": "knight"})."""

    label: str
    keyed: tuple[tuple[str, Shape], ...]
    otherwise: Shape | None = None
    bare: str | None = None
    doc: str = ""

    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        if self.bare is not None and isinstance(value, str):
            value = {self.bare: value}
        keys = [k for k, _ in self.keyed]
        if not isinstance(value, Mapping):
            text = f"a {self.bare} name or an object" if self.bare else "an object"
            other = f", or {self.otherwise.label}" if self.otherwise is not None else ""
            reasons.append(_at(where, f"must be {text} with {' or '.join(keys)}{other}"))
            return INVALID
        given = [(k, shape) for k, shape in self.keyed if k in value]
        if len(given) == 1:
            return given[0][1].read(value, where, reasons)
        if not given and self.otherwise is not None:
            return self.otherwise.read(value, where, reasons)
        reasons.append(_at(where, f"give {' or '.join(keys)}, not {'both' if given else 'neither'}"
                       if len(keys) == 2 else f"give one of {', '.join(keys)}"))
        return INVALID

    def schema(self) -> JSON:
        shapes = [shape.schema() for _, shape in self.keyed]
        for (key, _), shape in zip(self.keyed, shapes, strict=True):
            shape["required"] = sorted({*shape.get("required", []), key})
        if self.otherwise is not None:
            shapes.append(self.otherwise.schema())
        if self.bare is not None:
            bare = dict(self.keyed)[self.bare].schema()["properties"][self.bare]
            shapes.append(bare)
        return self._titled({"oneOf": shapes})


@dataclass(frozen=True)
class Items(Spec):
    """A list of min_items to max_items values of one spec; the n-th is called
    "{item} n" in reasons ("unit 3"). `why_max` says why there is a most, after it."""

    label: str
    item: str
    spec: Spec
    max_items: int
    min_items: int = 1
    doc: str = ""
    why_max: str = ""

    def read(self, value: Any, where: str, reasons: list[str]) -> Any:
        if not isinstance(value, list) or len(value) < self.min_items:
            reasons.append(_at(where, f"{self.label} must be a list of at least {self.min_items} "
                                      f"{self.item}{'s' if self.min_items != 1 else ''}"))
            return INVALID
        if len(value) > self.max_items:
            why = f" ({self.why_max})" if self.why_max else ""
            reasons.append(_at(where, f"at most {self.max_items} {self.label}, not {len(value)}{why}"))
            return INVALID
        before = len(reasons)
        path = _place(where).path
        out = [self.spec.read(v, Place(f"{self.item} {n}", (*path, n - 1)), reasons)
               for n, v in enumerate(value, start=1)]
        return INVALID if len(reasons) > before else out

    def schema(self) -> JSON:
        return self._titled({"type": "array", "items": self.spec.schema(),
                             "minItems": self.min_items, "maxItems": self.max_items})


@dataclass(frozen=True)
class ForceCost:
    """What a force costs against the game's budget, as the player reads points."""

    spent: str
    budget: str
    over: bool

    def to_json(self) -> JSON:
        return {"spent": self.spent, "budget": self.budget, "over": self.over}


@dataclass(frozen=True)
class ForceSpec:
    """A whole force: its top-level shape (label "a force")."""

    shape: Shape
    notes: Sequence[str] = field(default=())  # what the schema cannot say (budget, ...)

    def read(self, force: Any) -> tuple[Any, list[str]]:
        """(the force normalised, every reason) — the force is INVALID when there are reasons."""
        reasons: list[str] = []
        return self.shape.read(force, Place(), reasons), reasons

    def schema(self) -> JSON:
        out: JSON = {"$schema": "https://json-schema.org/draft/2020-12/schema", **self.shape.schema()}
        if self.notes:
            out["description"] = " ".join([out.get("description", ""), *self.notes]).strip()
        return out
