"""The join page's force builder, made from the ruleset's published force schema alone
(`Ruleset.force_schema`): fields for numbers, names, lists of names and units, a picker
for the ruleset's presets, and a described choice (a hero's card) as cards to pick.

Each input is named by its path in the force JSON, after `f.` ("f.units.1.pw"); a unit
slot's `$` input says what the slot holds ("" empty, "p:<preset>", "c:<n>" the n-th
custom shape of the schema, "u" a plain unit). The same reading works without script
(the form posts) and with it (the page posts the form to the check endpoint as you type);
the refusals are the ruleset's `validate_force`, each placed at its field or, when no
field of the form is its own, at the nearest one that holds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from werkzeug.datastructures import MultiDict

from service.forces import ForceCheck

PREFIX = "f."
SPARE_SLOTS = 2  # empty unit slots after the force's units (script shows them one at a time)
JSONish = dict[str, Any]


@dataclass
class Widget:
    """One field of the form: kind is number, text, select, checks, cards, group, list or slot."""

    kind: str
    name: str  # the input's name
    at: str  # the path in the force, as refusals name it
    label: str
    doc: str = ""
    value: Any = None
    choices: list[tuple[str, str, str]] = field(default_factory=list)  # (value, label, description)
    minimum: int | None = None
    maximum: int | None = None
    required: bool = False
    children: list[Widget] = field(default_factory=list)
    # a slot: the alternatives' fields, keyed by the `$` value that shows them
    alternatives: list[tuple[str, str, list[Widget]]] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)

    def walk(self) -> list[Widget]:
        out = [self]
        for child in self.children:
            out += child.walk()
        for _, _, widgets in self.alternatives:
            for w in widgets:
                out += w.walk()
        return out


def _plain(schema: JSONish) -> tuple[JSONish, bool]:
    """(the schema, nullable) of `anyOf: [X, null]`."""
    options = schema.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            return {**kept[0], **{k: v for k, v in schema.items() if k != "anyOf"}}, True
    return schema, False


def _join(*parts: str | int) -> str:
    return ".".join(str(p) for p in parts if p != "")


def _alternatives(item: JSONish) -> tuple[list[tuple[str, str, str]], list[tuple[str, JSONish]]]:
    """A unit slot's choices: (presets as (value, label, doc)), (custom shapes as ($ value, schema))."""
    presets: list[tuple[str, str, str]] = []
    customs: list[tuple[str, JSONish]] = []
    shapes: list[JSONish] = item["oneOf"] if isinstance(item.get("oneOf"), list) else [item]
    for n, shape in enumerate(shapes):
        if shape.get("type") != "object":
            continue  # a bare preset name: the presets below say it
        props = shape.get("properties", {})
        key = next((k for k in shape.get("required", []) if "enum" in props.get(k, {})), None)
        if key is not None and len(shape.get("oneOf", [])) == 0 and key == next(iter(props)):
            desc = props[key].get("enumDescriptions") or [""] * len(props[key]["enum"])
            presets += [(f"p:{key}:{v}", v, d) for v, d in zip(props[key]["enum"], desc, strict=True)]
        else:
            customs.append((f"c:{n}" if len(shapes) > 1 else "u", shape))
    return presets, customs


def build(schema: JSONish, force: Any) -> Widget:
    """The form for a force with this schema, filled with `force` (a dict or None)."""
    return _widget(schema, force if isinstance(force, dict) else {}, "", "", schema.get("title", "force"))


def _widget(schema: JSONish, value: Any, name: str, path: str, label: str) -> Widget:
    schema, nullable = _plain(schema)
    title, doc = str(schema.get("title", label)), str(schema.get("description", ""))
    kind = schema.get("type")
    if kind == "object":
        props = schema.get("properties", {})
        required = set(schema.get("required", []))
        given = value if isinstance(value, dict) else {}
        kids = []
        for key, sub in props.items():
            w = _widget(sub, given.get(key, sub.get("default")), _join(name, key), _join(path, key), key)
            w.required = key in required
            kids.append(w)
        return Widget("group", name, path, title, doc, children=kids)
    if kind == "array" and isinstance(schema.get("items"), dict) and "enum" in schema["items"]:
        chosen = value if isinstance(value, list) else []
        names = schema["items"]["enum"]
        descs = schema["items"].get("enumDescriptions") or [""] * len(names)
        return Widget("checks", name, path, title, doc, value=[str(v) for v in chosen],
                      choices=[(str(c), str(c), str(d)) for c, d in zip(names, descs, strict=True)],
                      maximum=schema.get("maxItems"))
    if kind == "array":
        items = value if isinstance(value, list) else []
        limit = int(schema.get("maxItems", len(items) + SPARE_SLOTS))
        slots = [_slot(schema["items"], items[i] if i < len(items) else None, _join(name, i),
                       _join(path, i), i) for i in range(min(limit, len(items) + SPARE_SLOTS))]
        return Widget("list", name, path, title, doc, children=slots,
                      minimum=schema.get("minItems"), maximum=limit)
    if "enum" in schema:
        descs = schema.get("enumDescriptions") or [""] * len(schema["enum"])
        choices = [(str(c), str(c), str(d)) for c, d in zip(schema["enum"], descs, strict=True)]
        if nullable:
            choices.insert(0, ("", "(none)", ""))
        return Widget("cards" if schema.get("enumDescriptions") else "select", name, path, title, doc,
                      value="" if value is None else str(value), choices=choices)
    if kind == "integer":
        return Widget("number", name, path, title, doc, value="" if value is None else value,
                      minimum=schema.get("minimum"), maximum=schema.get("maximum"))
    return Widget("text", name, path, title, doc, value="" if value is None else str(value),
                  maximum=schema.get("maxLength"))


def _slot(item: JSONish, value: Any, name: str, path: str, index: int) -> Widget:
    presets, customs = _alternatives(item)
    chosen = ""
    if isinstance(value, str):
        value = {"preset": value}
    if isinstance(value, dict):
        chosen = next((v for v, label, _ in presets if v.split(":", 2)[1] in value
                       and str(value[v.split(":", 2)[1]]).lower() == label), "")
        if not chosen:
            chosen = next((c for c, shape in customs
                           if set(shape.get("required", [])) <= set(value)), customs[0][0] if customs else "")
    alternatives = []
    for code, shape in customs:
        fields = _widget(shape, value if chosen == code else None, _join(name, code), path,
                         str(shape.get("title", "")))
        alternatives.append((code, str(shape.get("title", "custom")), fields.children))
    choices = [("", "empty slot", ""), *presets, *((c, str(label), "") for c, label, _ in alternatives)]
    return Widget("slot", _join(name, "$"), path, f"unit {index + 1}", value=chosen, choices=choices,
                  alternatives=alternatives)


def read(schema: JSONish, form: MultiDict[str, str]) -> JSONish:
    """The force a posted form says (the inverse of `build`): what the player typed, as it
    is, for the ruleset to judge; empty inputs are left out so defaults apply."""
    got = _read(schema, form, PREFIX.rstrip("."))
    return got if isinstance(got, dict) else {}


_MISSING = object()


def _read(schema: JSONish, form: MultiDict[str, str], name: str) -> Any:
    schema, _ = _plain(schema)
    kind = schema.get("type")
    if kind == "object":
        out = {}
        for key, sub in schema.get("properties", {}).items():
            got = _read(sub, form, f"{name}.{key}")
            if got is not _MISSING:
                out[key] = got
        return out
    if kind == "array" and isinstance(schema.get("items"), dict) and "enum" in schema["items"]:
        return form.getlist(name) if f"{name}.shown" in form or name in form else _MISSING
    if kind == "array":
        units = []
        for i in range(int(schema.get("maxItems", 0)) or 100):
            choice = form.get(f"{name}.{i}.$")
            if choice is None:
                break
            unit = _read_slot(schema["items"], form, f"{name}.{i}", choice)
            if unit is not None:
                units.append(unit)
        return units
    raw = form.get(name)
    if raw is None or raw.strip() == "":
        return _MISSING
    if kind == "integer":
        text = raw.strip()
        return int(text) if text.lstrip("-").isdigit() else text  # the ruleset names a bad one
    return raw


def _read_slot(item: JSONish, form: MultiDict[str, str], name: str, choice: str) -> Any:
    if choice.startswith("p:"):
        _, key, preset = choice.split(":", 2)
        return {key: preset}
    for code, shape in _alternatives(item)[1]:
        if code == choice:
            got = _read(shape, form, f"{name}.{code}")
            return got if isinstance(got, dict) else {}
    return None


def place(root: Widget, verdict: ForceCheck) -> dict[str, list[str]]:
    """Each refusal at its field, or the nearest field of the form that holds it (the
    whole force at ""), set on the widgets and returned by field."""
    widgets = {w.at: w for w in root.walk() if w.kind != "group" or w.at == ""}
    for w in root.walk():  # a slot, not its group, is where a unit's refusals go
        if w.kind == "slot":
            widgets[w.at] = w
    placed: dict[str, list[str]] = {}
    for where, sentence in verdict.refusals:
        parts = where.split(".") if where else []
        while parts and ".".join(parts) not in widgets:
            parts.pop()
        key = ".".join(parts)
        widgets.get(key, root).refusals.append(sentence)
        placed.setdefault(key, []).append(sentence)
    return placed


def check_json(root: Widget, verdict: ForceCheck) -> Mapping[str, Any]:
    """What the page's script gets as you type: refusals by field, the running cost."""
    return {"ok": verdict.ok, "at": place(root, verdict),
            "cost": verdict.cost.to_json() if verdict.cost else None}
