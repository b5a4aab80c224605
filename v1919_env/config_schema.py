"""Configs with a schema: the one layer under every YAML config reader (training, RLlib, tournaments,
the ladder, self-play, fits and expert-iteration rounds).

A config kind is a pydantic model built on `Strict` (unknown keys refused, no coercion: no bool for
an int, no "yes" for a bool, no NaN or infinity); `validate(Model, raw, error)` checks a decoded
mapping and turns pydantic's ValidationError into one line that names the field path and what the
field takes (`ppo.batch_size: must be at least 1, got 0`); `read_config(path, build, error)` reads a
YAML file and prefixes that line with the file. A validator that checks another field than its
own (a cross-field rule) raises `FieldError(path, message)` to name it. `training/schemas.py` writes
each model's JSON Schema to configs/schema/ for editors.
"""
from __future__ import annotations

import typing
from pathlib import Path

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, ValidationError
from pydantic_core import PydanticCustomError

__all__ = ["ConfigError", "FieldError", "Name", "Strict", "defaults", "describe", "name_field", "one_of", "read_config",
           "validate", "with_defaults"]


class ConfigError(ValueError):
    """A config that cannot be run; the one-line message names the file (when read from one) and the field."""


class FieldError(ValueError):
    """Raised inside a validator about the field `path` (dotted, relative to the model being validated,
    "[k]" for a list item), not the one validated."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path = path


class Strict(BaseModel):
    """The base of every config model: unknown keys refused, types exact, numbers finite."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, populate_by_name=False)


def _int(v):
    if isinstance(v, bool) or not isinstance(v, int):
        raise PydanticCustomError("int_type", "expected an integer")
    return v


def one_of(*values: int):
    """The type of a field that takes one of these integers (a Literal that refuses true and false)."""
    return typing.Annotated[typing.Literal[values], BeforeValidator(_int)]


Name = typing.Annotated[str, StringConstraints(pattern=r"\S")]
"""A run or tournament name: a string with at least one visible character."""


def name_field(what: str):
    """The `name` field of a config kind: null takes the config file's stem."""
    return Field(None, description=f"a non-empty string, {what}, or null (the config file's stem)")


# ----------------------------------------------------------------------------- one-line errors
_TEXT = {
    "missing": "missing",
    "int_type": "expected an integer",
    "float_type": "expected a number",
    "finite_number": "expected a finite number",
    "bool_type": "expected true or false",
    "string_type": "expected a string",
    "string_pattern_mismatch": "expected a non-empty string",
    "dict_type": "expected a mapping",
    "model_type": "expected a mapping",
    "list_type": "expected a list",
    "greater_than_equal": "must be at least {ge}",
    "greater_than": "must be more than {gt}",
    "less_than_equal": "must be at most {le}",
    "less_than": "must be less than {lt}",
    "literal_error": "expected {expected}",
    "too_short": "expected at least {min_length} item(s)",
}

_SAYS_WHAT_IT_TAKES = {"int_type", "float_type", "bool_type", "string_type", "string_pattern_mismatch", "dict_type",
                       "model_type", "list_type", "literal_error", "too_short"}


def _join(path: str, key) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    key = str(key)
    return key if not path else path + (key if key.startswith("[") else "." + key)


def _models_in(annotation) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for a in typing.get_args(annotation) for m in _models_in(a)]


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The model class that holds the field at `loc` (None where the path leaves the models)."""
    for key in loc[:-1]:
        if isinstance(key, int):
            continue
        fields = {f.alias or n: f for n, f in model.model_fields.items()}
        if key not in fields:
            return None
        inner = _models_in(fields[key].annotation)
        if not inner:
            return None
        model = inner[0]
    return model


def _field(model: type[BaseModel], loc: tuple):
    holder = _model_at(model, loc)
    if holder is None or not loc or isinstance(loc[-1], int):
        return holder, None
    return holder, {f.alias or n: f for n, f in holder.model_fields.items()}.get(loc[-1])


def _one(err: dict, model: type[BaseModel]) -> str:
    loc = tuple(err["loc"])
    path = ""
    for key in loc:
        path = _join(path, key)
    kind = err["type"]
    if kind == "value_error":
        cause = err["ctx"]["error"]
        if isinstance(cause, FieldError):
            path = _join(path, cause.path)
        return f"{path}: {cause}" if path else str(cause)
    if kind == "assertion_error":
        return f"{path}: {err['msg']}"
    if kind == "extra_forbidden":
        holder = _model_at(model, loc)
        known = "" if holder is None else "; known: " + ", ".join(f.alias or n for n, f in holder.model_fields.items())
        return f"{path}: unknown key{known}"
    text = _TEXT.get(kind, err["msg"]).format(**err.get("ctx", {}))
    if kind == "missing":
        return f"{path}: {text}"
    _, field = _field(model, loc)
    if field is not None and field.description and kind in _SAYS_WHAT_IT_TAKES:
        text = f"expected {field.description}"       # a field's description says what it takes
    return f"{path}: {text}, got {err['input']!r}"


def describe(error: ValidationError, model: type[BaseModel]) -> str:
    """One line for a ValidationError of `model`: its first error, with the field path and what the
    field takes, and how many more there are."""
    errors = error.errors()
    more = f" (and {len(errors) - 1} more error(s))" if len(errors) > 1 else ""
    return _one(errors[0], model) + more


def validate(model: type[BaseModel], raw, error: type[Exception] = ConfigError, context: dict | None = None):
    """`model` validated from the decoded mapping `raw`; `error` (one line, describe()) if it is not valid."""
    try:
        return model.model_validate(raw, context=context)
    except ValidationError as e:
        raise error(describe(e, model)) from None


# ----------------------------------------------------------------------------- files
def read_config(path, build, error: type[Exception] = ConfigError):
    """Read a YAML config file and build it with `build(raw, name=stem)`; a file that cannot be read,
    is not YAML or is refused by `build` raises `error` prefixed by its path."""
    p = Path(path)
    try:
        raw = yaml.safe_load(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise error(f"cannot read {p}: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise error(f"{p}: not valid YAML: {e}") from e
    except UnicodeDecodeError as e:
        raise error(f"{p}: not a text file: {e}") from e
    try:
        return build(raw, name=p.stem)
    except error as e:
        raise error(f"{p}: {e}") from e


# ----------------------------------------------------------------------------- defaults
def defaults(model: type[BaseModel]) -> dict:
    """Every field's default, as the resolved config writes it (aliases as keys)."""
    return model.model_construct().model_dump(by_alias=True)


def with_defaults(model: type[BaseModel], saved: dict) -> dict:
    """A saved config (a run's, from before a key existed) with each missing key of `model` at its
    default; keys the model lacks are kept, so a comparison with the current config still sees them."""
    out = dict(saved)
    for name, f in model.model_fields.items():
        key = f.alias or name
        inner = _models_in(f.annotation)
        if key not in out:
            out[key] = defaults(model)[key]
        elif inner and isinstance(out[key], dict):
            out[key] = with_defaults(inner[0], out[key])
    return out
