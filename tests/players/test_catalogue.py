"""The player catalogue (issue 21, item 6): one grammar of player names, one
table of the players with their budget ranges, options and places, one
refusal everywhere, and players that other packages install through the
``domeng.players`` entry-point group."""

from __future__ import annotations

import importlib
import re
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from domeng.core.errors import DomengError, PlayerError
from domeng.players import catalogue
from domeng.players.catalogue import BUILTINS, PLACES

REFUSAL = r"^player .{1,80} refused( [^:]+)?: \S"


# ---------------------------------------------------------------- the grammar


@st.composite
def valid_names(draw) -> str:
    """A valid name of a built-in, written in any case, budget with leading
    zeros, options in any order."""
    e = draw(st.sampled_from(BUILTINS))
    text = e.name
    if e.budget and draw(st.booleans()):
        n = draw(st.integers(*e.budget))
        text += "-" + "0" * draw(st.integers(0, 2)) + str(n)
    opts = draw(st.lists(st.sampled_from(e.options), unique=True)) if e.options else []
    for o in opts:
        if o.flag:
            text += f":{o.key}"
        else:
            x = draw(st.decimals(o.lo, o.hi, places=draw(st.integers(0, 4))))
            text += f":{o.key}{x}"
    return "".join(c.upper() if draw(st.booleans()) else c for c in text)


@settings(max_examples=300, deadline=None)
@given(valid_names())
def test_every_valid_name_round_trips(text):
    pn = catalogue.parse(text)
    assert catalogue.parse(pn.text) == pn  # the canonical form reads back as the same name
    assert catalogue.parse(pn.text).text == pn.text
    assert pn.entry is not None and pn.text.startswith(pn.entry.name)
    if pn.budget is not None:
        lo, hi = pn.entry.budget
        assert lo <= pn.budget <= hi and f"-{pn.budget}" in pn.text


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        st.text(max_size=30),
        st.text(alphabet="searchimto-:0123456789.epbvl_xSEARCH", max_size=24),
        valid_names().map(lambda s: s + "x"),
        valid_names().map(lambda s: s.replace("-", "--", 1)),
    )
)
def test_anything_else_is_refused_with_the_one_message(text):
    try:
        pn = catalogue.parse(text, "study")
    except PlayerError as e:
        msg = str(e)
        assert "\n" not in msg
        assert re.match(REFUSAL, msg), msg
        assert " in a study" in msg
        return
    assert catalogue.parse(pn.text) == pn  # whatever is accepted is a well-formed name


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("HUNTER", "hunter"),
        (" search-050 ", "search-50"),
        ("esearch-1000:eps0.1", "esearch-1000:eps0.1"),
        ("ismcts-2000:pb2", "ismcts-2000:pb2"),
        ("ismcts-2000:pb2.0:heavy:model", "ismcts-2000:model:heavy:pb2"),
        ("nsearch:eps0.00001", "nsearch:eps0.00001"),
        ("mypkg.players:strategy", "mypkg.players:strategy"),
    ],
)
def test_names_and_their_canonical_form(text, canonical):
    assert catalogue.parse(text).text == canonical


def test_options_are_what_the_makers_take():
    assert catalogue.parse("esearch-1000:eps0.1").kwargs() == {"explore": 0.1}
    assert catalogue.parse("ismcts:heavy:model:c0.5:pb2").kwargs() == {
        "model": True,
        "rollout": "heavy",
        "c_uct": 0.5,
        "pb": 2.0,
    }


@pytest.mark.parametrize(
    "text, reason",
    [
        ("search-0", "search takes N from 1 to 100,000 samples per decision (search-N)"),
        ("ismcts-200001", "ismcts takes N from 1 to 200,000 iterations per decision"),
        ("hunter-5", "hunter takes no budget (write hunter)"),
        ("search:eps0.1", "bad option 'eps0.1'; search takes no options"),
        ("esearch:eps1.5", "option 'eps1.5' out of range; the options of esearch: epsX"),
        ("ismcts:pb1:pb2", "bad option 'pb2'"),
        ("wizard", "unknown player; players here: random, heavy"),
        ("my-mod:fn", "unknown player"),
        ("x" * 201, "up to 200 printable ASCII characters"),
    ],
)
def test_refusals_say_why_and_what_is_allowed(text, reason):
    with pytest.raises(PlayerError) as e:
        catalogue.parse(text, "study")
    assert str(e.value).startswith("player '") and reason in str(e.value)


def test_the_catalogue_matches_the_players_modules():
    """The budgets and defaults the catalogue shows are the makers' own."""
    from domeng.core.defaults import PLAYER_IDS
    from domeng.players import isearch, ismcts, search

    by = {e.name: e for e in BUILTINS}
    assert ismcts.MAX_ITERATIONS == catalogue.MAX_ITERATIONS == by["ismcts"].budget[1]
    assert by["ismcts"].default_budget == ismcts.DEFAULT_ITERATIONS
    assert by["search"].default_budget == search.DEFAULT_SAMPLES
    for k in ("esearch", "isearch", "nsearch"):
        assert by[k].default_budget == isearch.DEFAULT_SAMPLES and k in isearch.KINDS
    assert {n: by[n].pid for n in PLAYER_IDS} == PLAYER_IDS
    for e in BUILTINS:  # every maker the catalogue names exists
        if e.kind == "alias":  # ``best``: another name of the catalogue
            assert catalogue.parse(e.make).entry.kind != "alias", e.make
        elif e.make:
            mod, _, attr = e.make.partition(":")
            assert callable(getattr(importlib.import_module(mod), attr)), e.make


def test_best_is_the_strongest_builtin_under_its_own_name():
    """``best`` (issue 25) plays catalogue.BEST, a budgeted built-in search
    that is not itself an alias, under the name ``best``; it takes no budget
    and no options, and sits wherever that player may."""
    from domeng.players.registry import resolve_player

    target = catalogue.parse(catalogue.BEST)
    assert target.entry is not None and target.entry.kind == "search" and target.budget
    best = catalogue.parse("Best")
    assert best.text == "best" and best.entry.kind == "alias" and best.entry.make == catalogue.BEST
    assert best.places == target.places
    spec = resolve_player("best")
    assert spec.name == "best" and spec.kind == "compiled"
    assert spec.fn is resolve_player(catalogue.BEST).fn  # its decisions are BEST's
    for place in PLACES:
        if place in target.places:
            assert catalogue.check("best", place).text == "best"
    for bad, why in (("best-5", "takes no budget"), ("best:eps0.1", "takes no options")):
        with pytest.raises(PlayerError, match=why):
            catalogue.parse(bad)


# ---------------------------------------------------------------- one limit at every surface


def _terminal(name):
    from domeng.play.session import parse_seats

    return parse_seats(["human", name, "random", "random", "random"])[1]


def _browser(name):
    from domeng.web.table import TableSpec

    return TableSpec.parse({"seats": ["human", name, "random", "random", "random"]}).seats[1]


def _study(name):
    from domeng.study.names import check_player_names

    return check_player_names([name] + ["random"] * 4, source=None)[0]


def _environment(name):
    from domeng.envs.options import seat_players

    return seat_players([name, "random", "random", "random"], 0)[1]


SURFACES = {
    "terminal": _terminal,
    "browser": _browser,
    "study": _study,
    "environment": _environment,
}


@pytest.mark.parametrize("entry", [e for e in BUILTINS if e.budget], ids=lambda e: e.name)
def test_one_budget_limit_and_one_message_at_every_surface(entry):
    lo, hi = entry.budget
    for place, seat in SURFACES.items():
        assert seat(f"{entry.name}-{hi}") == f"{entry.name}-{hi}", place
        assert seat(f"{entry.name.upper()}-0{lo}") == f"{entry.name}-{lo}", place
    for bad in (f"{entry.name}-{hi + 1}", f"{entry.name}-0", f"{entry.name}-x"):
        messages = {}
        for place, seat in SURFACES.items():
            with pytest.raises(DomengError) as e:
                seat(bad)
            messages[place] = str(e.value)
            assert PLACES[place] in messages[place]
        # the same words, but for the place
        same = {m.replace(PLACES[p], "PLACE") for p, m in messages.items()}
        assert same == {f"player {bad!r} refused PLACE: {entry.name} takes {entry.budget_text()}"}


@pytest.mark.parametrize(
    "name, why",
    [("omniscient", "research player that sees every hand"), ("mymod:fn", "would import code")],
)
def test_where_a_player_may_sit_is_the_catalogues_everywhere(name, why):
    sits = catalogue.parse(name).places
    for place, seat in SURFACES.items():
        if place in sits:
            assert seat(name) == name
            continue
        with pytest.raises(DomengError) as e:
            seat(name)
        msg = str(e.value)
        assert msg.startswith(f"player {name!r} refused {PLACES[place]}: ") and why in msg
        assert "it sits only " in msg and "\n" not in msg


def test_tournaments_and_ladders_refuse_with_the_same_message():
    from domeng.study.ladder import ladder
    from domeng.study.tournament import tournament

    for bad, reason in (("search-100001", "search takes N from 1"), ("omniscient", "sits only")):
        with pytest.raises(
            PlayerError, match=rf"^player '{bad}' refused in a tournament or ladder"
        ):
            tournament([bad] + ["random"] * 4, deals=1, rounds=1)
        with pytest.raises(PlayerError, match=reason):
            ladder([bad] + ["random"] * 5, deals=1, rounds=1)


def test_the_environment_refuses_before_compiling():
    gym = pytest.importorskip("domeng.envs.gym")
    with pytest.raises(PlayerError, match=r"^player 'ismcts-0' refused in an environment"):
        gym.DomengEnv(opponents="ismcts-0")


# ---------------------------------------------------------------- what the surfaces show


def test_the_browser_form_shows_the_catalogues_descriptions():
    from starlette.testclient import TestClient

    from domeng.web.server import create_app

    with TestClient(create_app(delay=0)) as client:
        opts = client.get("/api/options").json()
    assert opts["seats"] == ["human", *catalogue.builtin_names("browser")]
    assert opts["about"] == catalogue.describe("browser", plugins=False)
    assert "omniscient" not in opts["seats"]
    for e in BUILTINS:
        if "browser" in e.places:
            assert e.description in opts["about"][e.name]


# ---------------------------------------------------------------- plugins


PLUGIN_MODULE = '''
import numba


@numba.njit
def first_move(obs, hist, moves, n_moves, rng):
    return 0


class LastMove:
    name = "lastmove"

    def choose(self, obs, moves, rng):
        return moves[-1]


def make():
    """The first legal move."""
    return first_move


def make_class():
    return LastMove


def broken():
    raise RuntimeError("the plugin's own bug")


def not_a_player():
    return 42
'''

ENTRY_POINTS = """\
[domeng.players]
theirname = theirmod_dp:make
theirclass = theirmod_dp:make_class
brokenone = theirmod_dp:broken
notplayer = theirmod_dp:not_a_player
missingmod = nosuchmodule_dp:make
bad-name = theirmod_dp:make
search = theirmod_dp:make
"""


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A package ``theirpkg`` 1.0 with its dist-info on sys.path: nothing is installed."""
    (tmp_path / "theirmod_dp.py").write_text(textwrap.dedent(PLUGIN_MODULE))
    info = tmp_path / "theirpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: theirpkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    from domeng.players import registry

    monkeypatch.setattr(registry, "_SPEC_CACHE", {})
    catalogue.plugins(reload=True)
    yield
    monkeypatch.undo()
    sys.modules.pop("theirmod_dp", None)
    catalogue.plugins(reload=True)


def test_a_plugin_is_found_and_plays(plugin, capsys):
    from domeng.cli.main import main
    from domeng.players.registry import resolve_player

    assert {"theirname", "theirclass", "brokenone"} <= set(catalogue.plugins())
    entry = catalogue.lookup("theirname")
    assert entry.kind == "plugin" and "package theirpkg 1.0" in entry.description
    assert resolve_player("theirname", "study").kind == "compiled"
    assert resolve_player("TheirClass", "study").kind == "python"  # a class is a factory
    # the built-in keeps its name; the plugin that wanted it is not used
    assert catalogue.lookup("search") is catalogue._BUILTIN["search"]
    argv = ["simulate", "--players", "theirname,random,random,random,random"]
    code = main(argv + ["-t", "2", "-r", "2", "--no-progress", "--seed", "1"])
    assert code == 0, capsys.readouterr().err


@pytest.mark.parametrize(
    "name, words",
    [
        ("brokenone", "the plugin brokenone (theirmod_dp:broken, package theirpkg 1.0) is broken:"),
        ("notplayer", "the plugin notplayer (theirmod_dp:not_a_player, package theirpkg 1.0) is"),
        ("missingmod", "cannot import the plugin missingmod (nosuchmodule_dp:make"),
        ("bad-name", "the plugin bad-name (theirmod_dp:make, package theirpkg 1.0) is refused"),
    ],
)
def test_a_refused_or_broken_plugin_is_one_clear_line(plugin, capsys, name, words):
    from domeng.cli.main import main

    code = main(["simulate", "--players", name, "-t", "2", "-r", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and words in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_plugin_sits_in_studies_not_at_a_table_with_people(plugin):
    with pytest.raises(PlayerError) as e:
        _terminal("theirname")
    msg = str(e.value)
    assert msg.startswith("player 'theirname' refused at a terminal table: ")
    assert "installed by package theirpkg 1.0" in msg and "\n" not in msg
    assert "theirname" in catalogue.names("study") and "theirname" not in catalogue.names("browser")
