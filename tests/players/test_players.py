"""Players: custom Python and compiled players, the search player, tournaments."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from domeng.batch.reference import run_reference
from domeng.batch.tables import run_tables
from domeng.cli.main import main
from domeng.core import layout as L
from domeng.core.errors import DomengError, PlayerError
from domeng.core.observation import OBS_HAND, OBS_HAND_SIZE, OBS_SEAT, OBS_VOID
from domeng.core.rules import Rules
from domeng.core.tiles import NUMBER_MASK
from domeng.engine.reference import Table
from domeng.players.determinize import determinize
from domeng.players.registry import RandomPlayer, make_player, resolve_player, resolve_players
from domeng.players.search import make_search_strategy
from domeng.study.tournament import tournament


@numba.njit
def lowest_tile_first(obs, hist, moves, n_moves, rng):
    """A user's compiled player: always the first (lowest) legal move."""
    return 0


class AlwaysLast:
    """A user's Python player (reference engine only)."""

    name = "always-last"

    def choose(self, obs, moves, rng):
        return moves[-1]


def test_resolve_players_by_name_function_and_object():
    assert resolve_player("random").kind == "builtin"
    assert resolve_player("HUNTER").name == "hunter"
    assert resolve_player(lowest_tile_first).kind == "compiled"
    assert resolve_player(AlwaysLast()).kind == "python"
    assert resolve_player(AlwaysLast).kind == "python"  # a class is instantiated
    assert [p.name for p in resolve_players("heavy")] == ["heavy"] * 5
    with pytest.raises(PlayerError, match="unknown player"):
        resolve_player("nobody")
    with pytest.raises(PlayerError, match="search-N"):
        resolve_player("search-x")
    with pytest.raises(PlayerError, match="one player for all seats or five"):
        resolve_players("random,heavy")
    with pytest.raises(PlayerError, match="cannot import"):
        resolve_player("no_such_module_xyz:fn")


def test_a_compiled_player_runs_in_both_engines_identically():
    players = [lowest_tile_first, "random", "hunter", lowest_tile_first, "keeper"]
    k = run_tables(players, seed=3, n_tables=4, rounds=30)
    r_agg, r_state, _, _ = run_reference([make_player(p) for p in players], Rules(), 3, 4, 30)
    np.testing.assert_array_equal(k.agg, r_agg)
    np.testing.assert_array_equal(k.state, r_state)


def test_a_python_player_runs_on_the_reference_engine():
    players = [AlwaysLast(), "random", "random", "random", "random"]
    out = run_tables(players, seed=1, n_tables=2, rounds=5, records=True)
    assert out.agg[:, L.A_ROUNDS].sum() == 10
    assert out.records.shape == (10, L.REC_LEN)
    # the slow path is the reference engine itself: same numbers as run_reference
    r_agg, r_state, _, _ = run_reference([AlwaysLast()] + [RandomPlayer()] * 4, Rules(), 1, 2, 5)
    np.testing.assert_array_equal(out.agg, r_agg)
    np.testing.assert_array_equal(out.state, r_state)
    # and the Python player's moves are its own choice: the last legal move each time
    t = Table(seed=1)
    rnd = t.new_round()
    seen = 0
    while not rnd.ended:
        moves = rnd.legal_moves()
        if not moves:
            rnd.pass_turn()
            continue
        if rnd.to_move == 0:
            move = AlwaysLast().choose(rnd.observation(0), moves, t.seat_rngs[0])
            assert move == moves[-1]
            seen += 1
        else:
            move = RandomPlayer().choose(
                rnd.observation(rnd.to_move), moves, t.seat_rngs[rnd.to_move]
            )
        rnd.play(move)
    assert seen > 0


def test_players_from_a_module_on_the_command_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "myplayers.py").write_text(
        textwrap.dedent("""
        import numba

        @numba.njit
        def first(obs, hist, moves, n_moves, rng):
            return 0

        def not_a_player():
            return 1
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(
        [
            "simulate",
            "--tables",
            "3",
            "--rounds",
            "4",
            "--players",
            "myplayers:first,random,random,random,random",
            "--json",
            "--no-progress",
        ]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads(out.out)
    assert summary["players"][0] == "myplayers:first"
    assert summary["rounds"] == 4
    code = main(
        [
            "simulate",
            "--tables",
            "3",
            "--rounds",
            "4",
            "--players",
            "myplayers:missing",
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "has no player" in err and len(err.strip().splitlines()) == 1


def test_search_player_is_legal_and_reproducible():
    a = run_tables("search-5,random,heavy,keeper,hunter", seed=2, n_tables=3, rounds=4)
    b = run_tables("search-5,random,heavy,keeper,hunter", seed=2, n_tables=3, rounds=4)
    np.testing.assert_array_equal(a.agg, b.agg)
    assert (a.state[:, L.ST_STONES : L.ST_STONES + 5].sum(1) + a.state[:, L.ST_TABLE] == 25).all()


def test_search_determinizations_respect_what_the_seat_knows():
    """Sampled hands: the seat's own hand kept, every other seat gets its
    hand size, no tile it is known to lack (a pass shows it holds neither open
    number, D17), nothing on the chain, no tile twice."""
    rng = np.zeros(1, dtype=np.uint64)
    rng[0] = 12345
    checked = 0
    for seed in range(30):
        t = Table(seed=seed)
        rnd = t.new_round()
        r_state = np.random.default_rng(seed)
        while not rnd.ended:
            moves = rnd.legal_moves()
            if not moves:
                rnd.pass_turn()
                continue
            obs, _ = rnd.observation(rnd.to_move).to_array()
            hands = np.zeros(5, dtype=np.int64)
            assert determinize(obs, rng, hands)
            me = obs[OBS_SEAT]
            assert hands[me] == obs[OBS_HAND]
            allm = 0
            for p in range(5):
                assert bin(int(hands[p])).count("1") == obs[OBS_HAND_SIZE + p]
                assert allm & hands[p] == 0
                allm |= int(hands[p])
                for n in range(7):
                    if (obs[OBS_VOID + p] >> n) & 1:
                        assert hands[p] & NUMBER_MASK[n] == 0
                        checked += 1
            rnd.play(moves[r_state.integers(len(moves))])
    assert checked > 0


def test_search_strategy_budget():
    assert make_search_strategy(7) is make_search_strategy(7)
    with pytest.raises(ValueError):
        make_search_strategy(0)


def test_duplicate_tournament_rotates_players_over_the_same_deals():
    res = tournament(
        "random,heavy,keeper,hunter,random", deals=30, rounds=5, seed=4, orders="rotations"
    )
    t = res.table()
    assert list(t["player"]) == ["random#0", "heavy", "keeper", "hunter", "random#4"]
    assert (t["rounds"] == 30 * 5 * 5).all()  # each player plays every round of every rotation
    # stones received minus given, over all players, is what the table paid out
    from domeng.study.tournament import STATS

    # every player played every round of every rotation of every deal
    assert (res.per_deal[:, :, STATS.index("rounds")] == 5 * 5).all()
    # stones a player receives come from the table or from other players:
    # what players give is at most what they receive, in every deal
    per = res.per_deal
    assert (
        per[:, :, STATS.index("given")].sum(1) <= per[:, :, STATS.index("received")].sum(1)
    ).all()
    m = res.margins()
    assert len(m) == 20
    ab = m[(m.a == "hunter") & (m.b == "heavy")].iloc[0]
    ba = m[(m.a == "heavy") & (m.b == "hunter")].iloc[0]
    assert ab.net_diff == pytest.approx(-ba.net_diff)
    # same seed, same numbers; deals are shared by the rotations
    again = tournament(
        "random,heavy,keeper,hunter,random",
        deals=30,
        rounds=5,
        seed=4,
        chunk_deals=7,
        orders="rotations",
    )
    np.testing.assert_array_equal(res.per_deal, again.per_deal)


def test_tournament_deals_are_the_same_in_every_rotation():
    from domeng.batch.tables import trace_table
    from domeng.study.tournament import duplicate_states

    deals = []
    for r in range(5):
        st = duplicate_states(seed=6, deal_start=2, n_deals=1, rotation=r, rules=Rules())[0]
        events, _, _ = trace_table("random", Rules(), state=st, rounds=1)
        deals.append(events[0][0]["hands"])
    assert all(d == deals[0] for d in deals)


def test_tournament_command(tmp_path, capsys):
    out = tmp_path / "t"
    code = main(
        [
            "tournament",
            "--players",
            "random,heavy,keeper,hunter,search-3",
            "--deals",
            "4",
            "--rounds",
            "2",
            "--out",
            str(out),
            "--json",
            "--no-progress",
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    s = json.loads(captured.out)
    assert s["deals"] == 4 and len(s["players_stats"]) == 5
    assert (out / "report.html").exists() and (out / "plots" / "tournament.png").exists()
    assert (out / "players.csv").exists()
    from domeng.study.tournament import TournamentResults

    back = TournamentResults.load(out)
    assert back.deals == 4
    code = main(
        [
            "tournament",
            "--players",
            "random,heavy,keeper,hunter,no_such_mod_xyz:fn",
            "--deals",
            "2",
            "--no-progress",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "cannot import player module" in err


def test_a_python_player_cannot_play_a_tournament(capsys):
    """Tournaments run on the batch engine: a Python player is refused up front."""
    with pytest.raises(DomengError, match="reference engine only"):
        tournament([AlwaysLast(), "random", "random", "random", "random"], deals=2, rounds=1)


def test_compiled_players_get_copies_they_can_neither_read_past_nor_change():
    """D17 in the kernel: a user's compiled player sees no legal moves but its
    own (the rest of ``moves`` is -1) and its writes to what it is given
    change nothing in the game."""

    @numba.njit
    def vandal(obs, hist, moves, n_moves, rng):
        for i in range(n_moves, moves.shape[0]):
            if moves[i] != -1:
                return -1  # it could see past its moves: flagged as a bad move
        for i in range(obs.shape[0]):
            obs[i] = 0
        for i in range(moves.shape[0]):
            moves[i] = 27 * 2  # [6|6] everywhere
        hist[:, :] = 3
        return 0

    @numba.njit
    def polite(obs, hist, moves, n_moves, rng):
        return 0

    a = run_tables(
        [vandal, "hunter", vandal, "random", "keeper"], seed=5, n_tables=10, rounds=40, records=True
    )
    b = run_tables(
        [polite, "hunter", polite, "random", "keeper"], seed=5, n_tables=10, rounds=40, records=True
    )
    np.testing.assert_array_equal(a.agg, b.agg)
    np.testing.assert_array_equal(a.records, b.records)
    held = a.state[:, L.ST_STONES : L.ST_STONES + 5].sum(1) + a.state[:, L.ST_TABLE]
    assert (held == 25).all()


def test_a_player_never_gets_the_deal_stream():
    """D17: the generator a player draws from is its seat's own stream, not
    the stream the deals come from (else it could recompute the deal)."""
    from domeng.core.rng import GAMMA, MASK64

    t = Table(seed=9, table_index=3)
    deal_start = t.rng.state
    got = []

    class Spy:
        def choose(self, obs, moves, rng):
            got.append(rng.state)
            return moves[0]

    for _ in range(3):
        t.play_round([Spy()] * 5)
    inv_gamma = pow(GAMMA, -1, 1 << 64)
    for state in got:
        steps = ((state - deal_start) * inv_gamma) & MASK64  # draws from the deal stream's start
        assert steps > 10**12  # not a point of the deal stream anywhere near this game


def test_search_beats_random_players_clearly():
    """Not a benchmark: a sanity check that the search player plays well
    (a large, paired margin against random players)."""
    res = tournament("search-30,random,random,random,random", deals=12, rounds=4, seed=1)
    m = res.margins()
    row = m[(m.a == "search-30") & (m.b == "random#1")].iloc[0]
    assert row.net_diff < 0 and row.ci_high < 0


def test_python_module_runs_as_subprocess_with_custom_player(tmp_path):
    (tmp_path / "strat.py").write_text(
        "import numba\n@numba.njit\ndef last(obs, hist, moves, n_moves, rng):\n"
        "    return n_moves - 1\n"
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "domeng",
            "tournament",
            "--players",
            "strat:last,random,heavy,keeper,hunter",
            "--deals",
            "3",
            "--rounds",
            "2",
            "--json",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["players"][0] == "strat:last"
