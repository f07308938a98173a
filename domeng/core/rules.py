"""The rule constants and options of Domeng, as one frozen, validated object.

Every number the rules use lives here: the 25 STONES (term 13), the size of
each award, and the three rule options of ``docs/rules.md`` (D3, D6, D11).  The
batch engine receives the same values as a flat ``int64`` array
(:meth:`Rules.to_array`), so changing an option never recompiles anything.

Options can be given as strings, the way the CLI takes them::

    Rules.parse("pollo=4", "passebunge_every_pass=false")
    Rules().replace(pollo_award=4)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from domeng.core.errors import RulesError

# Indices into Rules.to_array() (the kernel's view of the rules).
R_STONES = 0
R_PASS = 1
R_PASSEBUNGE = 2
R_CAPPU = 3
R_CEKI = 4
R_POLLO = 5
R_MANGUNO = 6
R_MATTIKKENG = 7
R_MATTIKKENG_REDUCED = 8
R_OPENER_LEADS_DOUBLE = 9
R_PASSEBUNGE_EVERY_PASS = 10
R_PENALIZE_MANGUNO_PASS = 11
R_LEN = 12  # length of Rules.to_array()
N_RULES = 12

#: the largest value a numeric option may take (it must fit the engines' integers)
MAX_VALUE = 10**9
_TRUE = {"true", "1", "yes", "on", "y", "t"}
_FALSE = {"false", "0", "no", "off", "n", "f"}


@dataclass(frozen=True)
class Rules:
    """Constants and options of one Domeng variant (defaults = ``docs/rules.md``).

    Award sizes are maxima ("up to N"); who pays is fixed by D7..D14.  A
    frozen dataclass: each option below is a keyword argument (a whole
    number from 0, or a bool), checked when the rules are made.

    Raises
    ------
    RulesError
        For an option of the wrong type or out of range.

    Examples
    --------
    >>> from domeng import Rules
    >>> Rules().pollo_award
    5
    >>> rules = Rules.parse("pollo=4,passebunge_every_pass=false")
    >>> rules.changed()
    {'pollo_award': 4, 'passebunge_every_pass': False}
    >>> str(rules)
    'pollo_award=4, passebunge_every_pass=false'
    """

    #: STONES on the table at the start of a game and after each CAMAT (terms 13, 14; D15)
    stones: int = 25
    #: a PASS earns the passer up to this many stones (term 2)
    pass_award: int = 1
    #: a PASSEBUNGE earns the passer up to this many stones (term 3)
    passebunge_award: int = 2
    #: plain FIRST CAPPU: the CUCUQ gets up to this many (terms 6, 12)
    cappu_award: int = 1
    #: CEKI: the CUCUQ gets up to this many (term 8)
    ceki_award: int = 3
    #: POLLO: the CUCUQ gets up to this many (term 9)
    pollo_award: int = 5
    #: block without MATTIKKENG: the CUCUQ gets up to this many (D13)
    manguno_award: int = 1
    #: block with one lower MATTIKKENG: the MANGUNO gets up to this many (D14)
    mattikkeng_award: int = 5
    #: block with several MATTIKKENG, or one with an equal sum: the MANGUNO gets up to this many (D14)
    mattikkeng_reduced_award: int = 1
    #: D3: the first round's opener must lead the double that made him opener
    opener_leads_double: bool = True
    #: D6: every pass before a seat's first play is a PASSEBUNGE (False: only the first one)
    passebunge_every_pass: bool = True
    #: D11: the MANGUNO's closing pass is a PASS, penalised from the table only
    penalize_manguno_pass: bool = False

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type in (bool, "bool"):
                if not isinstance(value, (bool, np.bool_)):
                    raise RulesError(f"rule option {f.name} must be true or false, got {value!r}")
                object.__setattr__(self, f.name, bool(value))  # numpy bools: plain (JSON)
            else:
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                    raise RulesError(
                        f"rule option {f.name} must be a whole number from 0 to {MAX_VALUE:,}, "
                        f"got {value!r}"
                    )
                if value < 0 or value > MAX_VALUE:
                    raise RulesError(
                        f"rule option {f.name} must be a whole number from 0 to {MAX_VALUE:,}, "
                        f"got {value}"
                    )
                object.__setattr__(self, f.name, int(value))  # numpy integers: plain (JSON)
        if self.stones < 1:
            raise RulesError(f"rule option stones must be a whole number >= 1, got {self.stones}")

    # ----------------------------------------------------------------- parsing
    @classmethod
    def option_names(cls) -> list[str]:
        """Every option's name, in declaration order.

        >>> Rules.option_names()[:3]
        ['stones', 'pass_award', 'passebunge_award']
        """
        return [f.name for f in fields(cls)]

    @classmethod
    def parse(cls, *specs: str | Iterable[str] | None) -> Rules:
        """Build rules from strings ``"name=value"`` (several may be joined
        by commas).  Award names may drop ``_award``: ``"pollo=4"``.

        Parameters
        ----------
        *specs:
            Strings, lists of strings, or None (skipped); the options not
            named keep their defaults.

        Returns
        -------
        Rules

        Raises
        ------
        RulesError
            For an unknown option, a value that is not one, or a missing ``=``.

        Examples
        --------
        >>> Rules.parse("ceki=2", ["pollo=4"]).changed()
        {'ceki_award': 2, 'pollo_award': 4}
        """
        values: dict[str, object] = {}
        for spec in specs:
            if spec is None:
                continue
            items = [spec] if isinstance(spec, str) else list(spec)
            for item in items:
                for part in str(item).split(","):
                    part = part.strip()
                    if not part:
                        continue
                    if "=" not in part:
                        raise RulesError(
                            f"rule option {part!r} must be written name=value, e.g. pollo=4 or "
                            "passebunge_every_pass=false"
                        )
                    name, text = (s.strip() for s in part.split("=", 1))
                    key = cls._canonical_name(name)
                    values[key] = cls._convert(key, text)
        return cls(**values)  # type: ignore[arg-type]  # each value checked by _convert

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, object]) -> Rules:
        """Build rules from a mapping such as the one :meth:`to_dict` returns
        (values may also be strings, as typed after ``--rule``).

        >>> Rules.from_mapping({"pollo": "4"}) == Rules(pollo_award=4)
        True
        """
        values = {}
        for name, value in mapping.items():
            key = cls._canonical_name(name)
            values[key] = cls._convert(key, value) if isinstance(value, str) else value
        return cls(**values)  # type: ignore[arg-type]  # __post_init__ validates each

    @classmethod
    def _canonical_name(cls, name: str) -> str:
        names = cls.option_names()
        key = name.strip().lower().replace("-", "_")
        if key in names:
            return key
        if key + "_award" in names:
            return key + "_award"
        raise RulesError(f"unknown rule option {name!r}; known options: {', '.join(names)}")

    @classmethod
    def _convert(cls, key: str, text: object) -> object:
        ftype = {f.name: f.type for f in fields(cls)}[key]
        s = str(text).strip().lower()
        if ftype in (bool, "bool"):
            if s in _TRUE:
                return True
            if s in _FALSE:
                return False
            raise RulesError(f"rule option {key} must be true or false, got {text!r}")
        try:
            if not s.isascii():  # int() would read Unicode digits such as '٣'
                raise ValueError
            return int(s)
        except ValueError:
            raise RulesError(
                f"rule option {key} must be a whole number from 0 to {MAX_VALUE:,}, got {text!r}"
            ) from None

    # ----------------------------------------------------------------- views
    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated).

        >>> Rules().replace(ceki_award=2).changed()
        {'ceki_award': 2}
        """
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, object]:
        """Every option's value, by name (JSON-friendly).

        >>> Rules().to_dict()["stones"]
        25
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def changed(self) -> dict[str, object]:
        """The options that differ from the defaults.

        >>> Rules().changed()
        {}
        """
        default = Rules()
        return {k: v for k, v in self.to_dict().items() if getattr(default, k) != v}

    def to_array(self) -> np.ndarray:
        """The rules as the batch engine reads them (indices ``R_*``).

        >>> int(Rules().to_array()[R_STONES])
        25
        """
        a = np.zeros(N_RULES, dtype=np.int64)
        a[R_STONES] = self.stones
        a[R_PASS] = self.pass_award
        a[R_PASSEBUNGE] = self.passebunge_award
        a[R_CAPPU] = self.cappu_award
        a[R_CEKI] = self.ceki_award
        a[R_POLLO] = self.pollo_award
        a[R_MANGUNO] = self.manguno_award
        a[R_MATTIKKENG] = self.mattikkeng_award
        a[R_MATTIKKENG_REDUCED] = self.mattikkeng_reduced_award
        a[R_OPENER_LEADS_DOUBLE] = int(self.opener_leads_double)
        a[R_PASSEBUNGE_EVERY_PASS] = int(self.passebunge_every_pass)
        a[R_PENALIZE_MANGUNO_PASS] = int(self.penalize_manguno_pass)
        return a

    def __str__(self) -> str:
        ch = self.changed()
        if not ch:
            return "default rules"
        return ", ".join(
            f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in ch.items()
        )


DEFAULT_RULES = Rules()
