"""The one study spec: what a study plays, as a record and as a file.

A :class:`StudySpec` holds the kind of study (``simulate``, ``compare``,
``sweep``, ``tournament``, ``ladder``), the fields of its
:class:`~domeng.study.plan.Plan` (tables, rounds, seed, players, rules,
chunking, records) and the kind's own ones (the variants of a comparison,
the grid of a sweep, the deals and seating design of a tournament or
ladder, the targets of a study that stops on the data) and where it writes
(``out``).  Every study entry point takes one (``domeng.simulate(spec)``,
``domeng.compare(spec=spec)``, ...; :func:`domeng.study.entry.run` picks
the entry point from ``spec.kind``); their keyword arguments are a convenience over the same
code.  A study folder records the spec it ran as ``config.toml``
(:data:`CONFIG_NAME`), which ``domeng simulate --config DIR/config.toml``
(or ``StudySpec.from_toml``) reads back.

The file's keys are the command's flags (``--chunk-tables`` is
``chunk_tables``, ``--rule`` is ``rule``): a study file is the command line
written down::

    kind = "compare"
    tables = 200
    rounds = 20
    players = "random,heavy,keeper,hunter,random"
    rule = ["passebunge_every_pass=false"]
    variant = ["pollo=4"]

Validation happens here, once, with one-line errors naming the key (and the
file).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import tomllib

from domeng.core.defaults import MAX_LADDER_PLAYERS
from domeng.core.errors import DomengError, StudyError
from domeng.core.rules import Rules
from domeng.results.html import value_text

#: the kinds of study, each a command and an entry point
KINDS = ("simulate", "compare", "sweep", "tournament", "ladder")
#: the file a study folder records its spec in
CONFIG_NAME = "config.toml"
#: the largest input file read as a spec (a study file is a few lines)
MAX_SPEC_BYTES = 1 << 20

_TABLED = ("simulate", "compare", "sweep")
_DUPLICATE = ("tournament", "ladder")
_DRAWN = ("compare", "sweep", "tournament", "ladder")

#: field -> (its key in a study file, i.e. the command's flag; the kinds that have it)
_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "tables": ("tables", _TABLED),
    "deals": ("deals", _DUPLICATE),
    "rounds": ("rounds", KINDS),
    "seed": ("seed", KINDS),
    "players": ("players", KINDS),
    "rules": ("rule", KINDS),  # a sweep's fixed rules too (--rule, as everywhere)
    "variants": ("variant", ("compare",)),
    "baseline": ("baseline", ("compare",)),
    "grid": ("vary", ("sweep",)),  # a sweep's axes: --vary NAME=V1,V2
    "metrics": ("metric", ("sweep",)),
    "target_ci": ("target_ci", ("simulate", "compare")),
    "max_rounds": ("max_rounds", ("simulate", "compare")),
    "orders": ("orders", _DUPLICATE),
    "chunk_tables": ("chunk_tables", ("simulate",)),
    "records": ("records", ("simulate", "compare", "sweep")),
    "workers": ("workers", KINDS),
    "out": ("out", KINDS),
    "fmt": ("format", _DRAWN),
    "dpi": ("dpi", _DRAWN),
}
_INTS = {  # field -> (least, most)
    "tables": (1, 10**12),
    "deals": (1, 10**6),
    "rounds": (1, 10**9),
    "seed": (0, 2**64 - 1),
    "max_rounds": (1, 10**13),
    "chunk_tables": (1, 10**9),
    "workers": (1, 10**9),
    "dpi": (30, 1200),
}
_LISTS = ("players", "rules", "variants", "grid", "metrics", "target_ci")
_CHOICES = {"orders": ("all", "balanced", "rotations"), "fmt": ("png", "svg", "pdf")}


def file_key(kind: str, name: str) -> str:
    """The key (the command's flag) of field ``name`` in a ``kind`` study's file."""
    return _KEYS[name][0]


def fields_of(kind: str) -> list[str]:
    """The fields a ``kind`` study has (besides ``kind``), in file order."""
    return [name for name, (_, kinds) in _KEYS.items() if kind in kinds]


@dataclass(frozen=True)
class StudySpec:
    """One study: its kind, its plan and its kind's own fields, validated.

    Parameters
    ----------
    kind:
        ``"simulate"``, ``"compare"``, ``"sweep"``, ``"tournament"`` or ``"ladder"``.
    tables, deals, rounds, seed:
        Counts and the seed (None: the entry point's default); ``tables``
        for simulate/compare/sweep, ``deals`` for tournament/ladder.
    players:
        Player names (one for all seats or five; a ladder five to twelve);
        a comma-separated string is split.
    rules:
        ``NAME=VALUE`` rule values (kept in canonical form); a sweep's fixed ones.
    variants, baseline:
        A comparison's variant specs and its baseline spec.
    grid, metrics:
        A sweep's axes (``NAME=V1,V2,...``) and the metrics it plots.
    target_ci, max_rounds:
        ``METRIC=HALF_WIDTH`` targets of a study that stops on the data, and its cap.
    orders:
        The seating design of a tournament or ladder.
    chunk_tables, records, workers:
        Tables per engine call, per-round records (into ``out``), engine threads.
    out, fmt, dpi:
        The study folder, and its plots' format and resolution.

    Examples
    --------
    >>> from domeng.study.spec import StudySpec
    >>> spec = StudySpec("compare", tables=4, rounds=2, variants=["pollo=4"])
    >>> spec.rules, spec.variants
    ((), ('pollo=4',))
    >>> StudySpec.from_dict(spec.to_dict()) == spec
    True
    """

    kind: str = "simulate"
    tables: int | None = None
    deals: int | None = None
    rounds: int | None = None
    seed: int | None = None
    players: tuple[str, ...] | None = None
    rules: tuple[str, ...] = ()
    variants: tuple[str, ...] = ()
    baseline: str | None = None
    grid: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    target_ci: tuple[str, ...] = ()
    max_rounds: int | None = None
    orders: str | None = None
    chunk_tables: int | None = None
    records: bool = False
    workers: int | None = None
    out: str | None = None
    fmt: str | None = None
    dpi: int | None = None

    def __post_init__(self) -> None:
        for name, value in _validated(self, _field_names).items():
            object.__setattr__(self, name, value)

    # ----------------------------------------------------------- dict and file
    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, by name (lists for tuples; JSON- and TOML-friendly).

        Examples
        --------
        >>> StudySpec(tables=2, rounds=3).to_dict()
        {'kind': 'simulate', 'tables': 2, 'rounds': 3}
        """
        out: dict[str, Any] = {"kind": self.kind}
        for name in fields_of(self.kind):
            value = getattr(self, name)
            if value is None or value == () or (name == "records" and not value):
                continue
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str | None = None) -> StudySpec:
        """A spec from :meth:`to_dict`'s form (field names); ``source`` names
        where it came from in the errors.  Unknown keys are refused.

        Examples
        --------
        >>> StudySpec.from_dict({"kind": "sweep", "grid": ["pollo=3,4"]}).grid
        ('pollo_award=3,4',)
        """
        data = dict(data)
        kind = _kind_of(data.pop("kind", "simulate"), source)
        known = fields_of(kind)
        for key in data:
            if key not in known:
                raise _error(
                    source, key, f"is not a key of a {kind} study (known: {', '.join(known)})"
                )
        return _build(kind, data, source, lambda name: name)

    def to_toml(self) -> str:
        """The spec as a study file (the command's flags as keys), read back by :meth:`from_toml`.

        Examples
        --------
        >>> print(StudySpec("sweep", grid=["pollo=3,4"], rules=["ceki=2"]).to_toml())
        # a domeng study: run it with `domeng sweep --config FILE`
        kind = "sweep"
        rule = ["ceki_award=2"]
        vary = ["pollo_award=3,4"]
        <BLANKLINE>
        """
        lines = [
            f"# a domeng study: run it with `domeng {self.kind} --config FILE`",
            f"kind = {toml_value(self.kind)}",
        ]
        for name, value in self.to_dict().items():
            if name == "kind":
                continue
            if name == "players":
                value = ",".join(value)  # as --players takes them
            lines.append(f"{file_key(self.kind, name)} = {toml_value(value)}")
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, path: str | os.PathLike, kind: str | None = None) -> StudySpec:
        """Read a study file (:meth:`to_toml`'s keys, the command's flags).
        ``kind``: the study the file must hold (a file without ``kind`` is one).

        Raises
        ------
        StudyError
            One line naming the file and the key: not TOML, an unknown key,
            a wrong type or a bad value.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "study.toml"
        >>> _ = p.write_text('kind = "simulate"\\ntables = 3\\nrule = ["pollo=4"]\\n')
        >>> StudySpec.from_toml(p).rules
        ('pollo_award=4',)
        """
        data = read_toml(path)
        source = str(path)
        kind = _kind_of(data.pop("kind", kind or "simulate"), source, expect=kind)
        by_key = {file_key(kind, name): name for name in fields_of(kind)}
        values = {}
        for key, value in data.items():
            name = by_key.get(key.replace("-", "_"))
            if name is None:
                raise _error(
                    source, key, f"is not a key of a {kind} study (known: {', '.join(by_key)})"
                )
            values[name] = value
        return _build(kind, values, source, lambda name: file_key(kind, name))

    def replace(self, **changes: Any) -> StudySpec:
        """A copy with some fields changed (validated again).

        Examples
        --------
        >>> StudySpec(tables=2).replace(tables=5).tables
        5
        """
        return dataclasses.replace(self, **changes)


def _field_names(name: str) -> str:
    return name


def _error(source: str | None, key: str, problem: str) -> StudyError:
    where = f"{source}: " if source else ""
    return StudyError(f"{where}key {key!r} {problem}")


def _kind_of(kind: Any, source: str | None, expect: str | None = None) -> str:
    if not isinstance(kind, str) or kind not in KINDS:
        raise _error(source, "kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    if expect is not None and kind != expect:
        raise _error(source, "kind", f"is {kind!r}: run it with `domeng {kind} --config {source}`")
    return kind


def _build(kind: str, values: dict, source: str | None, key_of) -> StudySpec:
    """A spec of ``kind`` from ``values`` (field -> value), errors naming ``key_of(field)``."""
    try:
        spec = StudySpec.__new__(StudySpec)
        for f in fields(StudySpec):
            object.__setattr__(spec, f.name, values.get(f.name, f.default))
        object.__setattr__(spec, "kind", kind)
        checked = _validated(spec, key_of, source)
    except RecursionError:
        raise _error(source, "?", "is nested too deeply") from None
    return StudySpec(kind, **checked)


def _validated(spec: StudySpec, key_of, source: str | None = None) -> dict[str, Any]:
    """Every field of ``spec`` checked and normalised (lists to tuples, rule
    names canonical); an error names ``key_of(field)`` and ``source``."""
    kind = _kind_of(spec.kind, source)
    allowed = set(fields_of(kind))
    out: dict[str, Any] = {}
    for f in fields(spec):
        name, value = f.name, getattr(spec, f.name)
        if name == "kind":
            continue
        if name not in allowed:
            if value not in (None, (), [], False):
                raise _error(source, key_of(name), f"is not a key of a {kind} study")
            out[name] = f.default
            continue
        try:
            out[name] = _check(kind, name, value)
        except (StudyError, DomengError) as e:
            raise _error(source, key_of(name), str(e)) from None
    _check_together(kind, out, source, key_of)
    return out


def _check(kind: str, name: str, value: Any) -> Any:
    """One field's value, checked (raising the problem as a StudyError) and normalised."""
    if value is None:
        return None
    if name in _INTS:
        lo, hi = _INTS[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise StudyError(f"must be a whole number, got {value!r}")
        if not lo <= value <= hi:
            raise StudyError(f"must be a whole number from {lo} to {hi:,}, got {value!r}")
        return int(value)
    if name == "records":
        if not isinstance(value, bool):
            raise StudyError(f"must be true or false, got {value!r}")
        return value
    if name in _CHOICES:
        if value not in _CHOICES[name]:
            raise StudyError(f"must be one of {', '.join(_CHOICES[name])}, got {value!r}")
        return value
    if name in ("out", "baseline"):
        if isinstance(value, os.PathLike) and name == "out":
            value = os.fspath(value)
        if not isinstance(value, str) or not value.strip():
            raise StudyError(f"must be a non-empty string, got {value!r}")
        return value
    items = _strings(value, split=name == "players")
    if name == "players":
        if not 1 <= len(items) <= MAX_LADDER_PLAYERS:
            raise StudyError(
                f"must name one to {MAX_LADDER_PLAYERS} players (five for a table, "
                f"five to {MAX_LADDER_PLAYERS} for a ladder), got {len(items)}"
            )
        return items
    if name == "rules":
        changed = Rules.parse(list(items)).changed()
        return tuple(f"{k}={value_text(v)}" for k, v in changed.items())
    if name == "grid":
        grid = parse_grid(list(items))
        return tuple(f"{k}={','.join(value_text(v) for v in vs)}" for k, vs in grid.items())
    if name == "target_ci":
        for item in items:
            metric, sep, hw = item.partition("=")
            if not sep or not metric.strip() or not _positive(hw):
                raise StudyError(f"must be METRIC=HALF_WIDTH (a number > 0), got {item!r}")
    return items


def parse_grid(specs: Sequence[str] | dict) -> dict[str, list]:
    """A sweep's grid: ``["pollo=3,4,5", "passebunge_every_pass=true,false"]`` (or a dict of
    lists) -> ``{option: [values]}``, each value checked by :class:`Rules`."""
    items = list(specs.items()) if isinstance(specs, dict) else []
    if not isinstance(specs, dict):
        for spec in specs:
            name, sep, values = str(spec).partition("=")
            if not sep or not name.strip():
                raise StudyError(
                    f"malformed grid {spec!r}: expected NAME=V1,V2,... e.g. pollo=3,4,5"
                )
            vals = [v.strip() for v in values.split(",")]
            if not values.strip() or any(v == "" for v in vals):
                raise StudyError(f"malformed grid {spec!r}: a value is missing")
            items.append((name.strip(), vals))
    grid: dict[str, list] = {}
    for name, vals in items:
        key = Rules._canonical_name(name)
        if key in grid:
            raise StudyError(f"malformed grid: {name} is given twice")
        vals = list(vals)
        if not vals:
            raise StudyError(f"empty sweep: {name} has no values")
        conv = [getattr(Rules.parse(f"{key}={value_text(v)}"), key) for v in vals]
        if len(set(conv)) != len(conv):
            raise StudyError(f"malformed grid: {name} repeats a value")
        grid[key] = conv
    if not grid:
        raise StudyError("empty sweep: give at least one --vary NAME=V1,V2,...")
    if all(len(v) == 1 for v in grid.values()):
        raise StudyError("empty sweep: every option has a single value; give two or more")
    return grid


def _check_together(kind: str, out: dict, source: str | None, key_of) -> None:
    """What one field alone cannot say."""
    if kind == "compare" and not out["variants"]:
        raise _error(source, key_of("variants"), "is missing: a comparison needs a variant")
    if kind == "sweep" and not out["grid"]:
        raise _error(source, key_of("grid"), "is missing: a sweep needs NAME=V1,V2,...")
    if kind == "sweep":
        swept = {item.split("=", 1)[0] for item in out["grid"]}
        both = [item for item in out["rules"] if item.split("=", 1)[0] in swept]
        if both:
            raise _error(source, key_of("rules"), f"holds {both[0]!r}, an option the grid sweeps")
    if kind in _DUPLICATE and out["players"] is None:
        raise _error(source, key_of("players"), f"is missing: a {kind} needs its players")
    if out.get("records") and out.get("out") is None:
        raise _error(source, key_of("records"), "needs out (the records go into the folder)")
    if out.get("max_rounds") is not None and not out.get("target_ci"):
        raise _error(
            source, key_of("max_rounds"), "caps a study that stops on the data: give target_ci too"
        )
    if out.get("target_ci") and kind == "simulate":
        for name in ("tables", "chunk_tables", "records"):
            if out.get(name):
                raise _error(
                    source, key_of(name), "cannot go with target_ci (the study sets its own size)"
                )


def _strings(value: Any, split: bool = False) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [s for s in (p.strip() for p in value.split(",")) if s] if split else [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise StudyError(f"must be a string or a list of strings, got {value!r}")
    return tuple(v.strip() for v in value)


def _positive(text: str) -> bool:
    try:
        v = float(text)
    except ValueError:
        return False
    return v > 0 and v != float("inf")


# ---------------------------------------------------------------- TOML
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_value(value: Any) -> str:
    """A value as TOML: a string, a whole number, a boolean, or a list of them.

    Examples
    --------
    >>> toml_value(["a\\"b", 3, True])
    '["a\\\\"b", 3, true]'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        # JSON's string escapes are TOML's, except DEL, which TOML wants escaped
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def read_toml(path: str | os.PathLike) -> dict[str, Any]:
    """A TOML file as a dict, or one StudyError naming the file."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            raw = f.read(MAX_SPEC_BYTES + 1)
    except OSError as e:
        raise StudyError(f"cannot read the study file {str(p)!r}: {e.strerror or e}") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise StudyError(f"{p}: not a study file (over {MAX_SPEC_BYTES:,} bytes)")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise StudyError(f"{p}: not a study file (not UTF-8 text)") from None
    except tomllib.TOMLDecodeError as e:
        raise StudyError(f"{p}: not valid TOML: {e}") from None
    except RecursionError:
        raise StudyError(f"{p}: not a study file (nested too deeply)") from None


# ---------------------------------------------------------------- the entry points
#: an entry point's study parameters: its keyword -> the spec's field
_PARAMS = {
    "simulate": ("tables", "rounds", "players", "rules", "seed", "workers", "chunk_tables",
                 "records", "checkpoint"),
    "simulate_until": ("target_ci", "rounds", "players", "rules", "seed", "max_rounds",
                       "workers", "checkpoint"),
    "compare": ("variants", "baseline", "tables", "rounds", "players", "rules", "seed",
                "target_ci", "max_rounds", "workers", "out", "fmt", "dpi"),
    "sweep": ("grid", "tables", "rounds", "players", "rules", "seed", "workers", "out",
              "fmt", "dpi", "metrics"),
    "tournament": ("players", "deals", "rounds", "seed", "rules", "workers", "orders", "out",
                   "fmt", "dpi"),
    "ladder": ("players", "deals", "rounds", "seed", "rules", "workers", "orders", "out",
               "fmt", "dpi"),
}  # fmt: skip


def check_kind(name: str, spec: Any) -> StudySpec:
    """``spec`` if it is a study entry point ``name`` runs (``simulate``,
    ``simulate_until``, ``compare``, ...), else one StudyError saying which
    entry point runs it (a ``simulate`` spec with ``target_ci`` is for
    :func:`~domeng.study.sequential.simulate_until`; :func:`run` picks it)."""
    if not isinstance(spec, StudySpec):
        raise StudyError(f"spec must be a StudySpec, got {type(spec).__name__}")
    kind = "simulate" if name == "simulate_until" else name
    if spec.kind != kind:
        raise StudyError(f"{name}() was given a {spec.kind} study: use domeng.{spec.kind}(spec)")
    if kind == "simulate" and (name == "simulate") == bool(spec.target_ci):
        raise StudyError(
            "a simulate spec with target_ci stops on the data: run it with "
            "domeng.simulate_until(spec) or domeng.run(spec)"
            if spec.target_ci
            else "simulate_until() needs a spec with target_ci: run this one with domeng.simulate"
        )
    return spec


def refuse_both(entry: Any, spec: Any, given: Mapping[str, Any]) -> StudySpec:
    """``spec``, checked by :func:`check_kind`, for keyword entry point
    ``entry`` (``simulate``, ``compare``, ...) called with it; ``given``:
    the call's study keywords, which must keep their defaults (a study is
    given as a spec or as keywords, not both)."""
    import inspect

    name = entry.__name__
    spec = check_kind(name, spec)
    params = inspect.signature(entry).parameters
    first = next(iter(params))
    for key, value in given.items():
        if key == first and isinstance(value, StudySpec):
            continue
        p = params.get(key)
        default = None if p is None or p.default is inspect.Parameter.empty else p.default
        if value is default or _equal(value, default) or (p is None and value is False):
            continue
        if key in _PARAMS[name]:
            raise StudyError(
                f"{name}(): give the study as a spec or as keywords, not both ({key}=)"
            )
    return spec


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # an object whose == is not a truth value
        return False


def expected_of(spec: Any, given: Mapping[str, Any]) -> tuple:
    """``resume(folder, spec=)``: the parameters a resumed simulate study must
    have, from ``spec`` (``given``: the same given as keywords, which must
    then be None): tables, rounds, seed, players, rules, chunk_tables, records."""
    if not isinstance(spec, StudySpec) or spec.kind != "simulate" or spec.target_ci:
        raise StudyError("resume() takes a simulate StudySpec without target_ci")
    both = [k for k, v in given.items() if v is not None]
    if both:
        raise StudyError(
            f"resume(): give the study as a spec or as keywords, not both ({both[0]}=)"
        )
    players = None if spec.players is None else list(spec.players)
    return (spec.tables, spec.rounds, spec.seed, players, list(spec.rules) or None,
            spec.chunk_tables, spec.records or None)  # fmt: skip


def record(folder: str | os.PathLike | None, kind: str, **values: Any) -> StudySpec | None:
    """Write the resolved spec of a study that ran into ``folder`` as
    ``config.toml`` (:data:`CONFIG_NAME`), atomically; returns it.  Nothing
    is written (None) without a folder or for what a file cannot name
    (player objects, a records file elsewhere)."""
    if folder is None:
        return None
    players = values.get("players")
    if players is not None and not isinstance(players, str):
        if not isinstance(players, Sequence) or not all(isinstance(p, str) for p in players):
            return None  # player objects: a file cannot name them
    rules = values.get("rules")
    if rules is not None:
        values["rules"] = list(rule_texts(rules))
    if kind == "compare":
        values["variants"] = [variant_text(v) for v in _listed(values.get("variants"))]
        if isinstance(values.get("baseline"), dict):
            values["baseline"] = variant_text(values["baseline"])
    if isinstance(values.get("target_ci"), dict):
        values["target_ci"] = [f"{m}={hw!r}" for m, hw in values["target_ci"].items()]
    if isinstance(values.get("grid"), dict):
        values["grid"] = [
            f"{k}={','.join(value_text(v) for v in vs)}" for k, vs in values["grid"].items()
        ]
    values["out"] = os.fspath(folder)
    spec = StudySpec(kind, **{k: v for k, v in values.items() if v is not None})
    from domeng.infra.fs import atomic_write, write_failure

    try:
        atomic_write(Path(folder) / CONFIG_NAME, spec.to_toml())
    except OSError as e:
        raise write_failure(Path(folder) / CONFIG_NAME, e, "the study's config") from None
    return spec


def record_arms(folder: Any, kind: str, study: Mapping, arms: Mapping, how: tuple) -> None:
    """The ``config.toml`` of a resumed comparison or sweep, from its manifest:
    ``study`` (tables, rounds, seed, targets, grid) and ``arms`` (name ->
    (Rules, players), the baseline or first point first); ``how``: format,
    dpi, metrics."""
    (base_rules, base_players), *others = list(arms.values())
    values: dict[str, Any] = dict(
        rounds=study["rounds"], seed=study["seed"], players=list(base_players),
        workers=None, fmt=how[0], dpi=how[1],
    )  # fmt: skip
    if study.get("target_ci"):
        values.update(target_ci=study["target_ci"], max_rounds=study.get("max_rounds"))
    else:
        values["tables"] = study["tables"]
    base = base_rules.to_dict()
    if kind == "sweep":
        grid = dict(study["grid"])
        values.update(grid=grid, metrics=how[2])
        values["rules"] = {k: v for k, v in base_rules.changed().items() if k not in grid}
    else:
        values["rules"] = base_rules
        variants = []
        for rules, players in others:
            diff = {k: v for k, v in rules.to_dict().items() if base[k] != v}
            parts = [",".join(f"{k}={value_text(v)}" for k, v in diff.items())] if diff else []
            if tuple(players) != tuple(base_players):
                parts.append("players=" + ",".join(players))
            variants.append(";".join(parts))
        values["variants"] = variants
    record(folder, kind, **values)


def _listed(value: Any) -> list:
    if value is None:
        return []
    return [value] if isinstance(value, (str, dict)) else list(value)


def rule_texts(rules: Any) -> tuple[str, ...]:
    """Rules in any form the entry points take (:func:`~domeng.study.summary.coerce_rules`)
    as a spec holds them: the changed options' ``NAME=VALUE``, canonical."""
    from domeng.study.summary import coerce_rules

    return tuple(f"{k}={value_text(v)}" for k, v in coerce_rules(rules).changed().items())


def variant_text(v: Any) -> str:
    """A variant spec (a string, or a dict of rule values and ``players``) as its string form."""
    if isinstance(v, str):
        return v
    items = dict(v)
    lineup = items.pop("players", None)
    parts = [",".join(f"{k}={value_text(x)}" for k, x in items.items())] if items else []
    if lineup is not None:
        parts.append("players=" + (lineup if isinstance(lineup, str) else ",".join(lineup)))
    return ";".join(parts)


__all__ = ["CONFIG_NAME", "KINDS", "StudySpec", "check_kind", "parse_grid", "record", "refuse_both", "rule_texts",
           "variant_text"]  # fmt: skip
