"""The messages a new user met (walk4 findings, fixes4a item 4): each is one
clear line with the right exit status, said before any work starts."""

from __future__ import annotations

import numpy as np
import pytest

from domeng.cli.main import build_parser, main


def one_line(capsys, argv, expect: str, code: int = 2) -> str:
    got = main(argv)
    out, err = capsys.readouterr()
    assert got == code, (got, out, err)
    assert out == "" and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1 and err.count("\r") == 0, repr(err)
    assert expect in err, err
    return err


@pytest.mark.parametrize(
    "argv, where",
    [
        (["tournament", "--players", "random,heavy,keeper,hunter,omniscient"], "a tournament"),
        (
            ["ladder", "--players", "random,heavy,keeper,hunter,expert,omniscient"],
            "a tournament or ladder",
        ),
        (["simulate", "-t", "2", "-r", "2", "--players", "omniscient"], "a study"),
        (
            [
                "simulate",
                "-r",
                "2",
                "--players",
                "omniscient",
                "--target-ci",
                "passebunge_per_round=0.01",
            ],
            "a study",
        ),
        (
            ["compare", "-t", "2", "-r", "2", "--players", "omniscient", "--variant", "pollo=4"],
            "a study",
        ),
    ],
)
def test_omniscient_is_refused_as_a_research_player_before_any_bar(capsys, argv, where):
    """The progress bar is on (no --no-progress): the refusal comes first, alone."""
    err = one_line(capsys, argv, "it is a research player that sees every hand")
    assert where in err and "Python objects" not in err and "%" not in err


def test_omniscient_refusal_in_the_python_api():
    import domeng
    from domeng.core.errors import PlayerError
    from domeng.players.omniscient import OmniscientPlayer
    from domeng.study.tournament import tournament

    with pytest.raises(PlayerError, match="refused in a tournament or ladder"):
        tournament([OmniscientPlayer(), "random", "random", "random", "random"], deals=1)
    with pytest.raises(PlayerError, match="research player"):
        domeng.simulate(tables=1, rounds=1, players=[OmniscientPlayer()] + ["random"] * 4)


def test_a_results_file_of_text_is_named_unreadable_without_unsafe_advice(tmp_path, capsys):
    (tmp_path / "results.npz").write_text("garbage")
    err = one_line(capsys, ["report", str(tmp_path)], "not a domeng results file")
    assert str(tmp_path / "results.npz") in err
    assert "pickle" not in err.lower() and "unsafe" not in err.lower()


def test_a_results_file_of_objects_gets_no_unsafe_advice(tmp_path, capsys):
    np.savez(
        tmp_path / "results.npz",
        group_agg=np.array([object()], dtype=object),
        group_state=np.zeros(2),
        group_tables=np.zeros(2),
        meta=np.array("{}"),
    )
    err = one_line(capsys, ["report", str(tmp_path)], str(tmp_path / "results.npz"))
    assert "allow_pickle" not in err and "pickle.load" not in err and "unsafe" not in err


def test_tournament_results_of_text_get_no_unsafe_advice(tmp_path):
    from domeng.core.errors import ResultsError
    from domeng.study.tournament import TournamentResults

    (tmp_path / "per_deal.npz").write_text("garbage")
    with pytest.raises(ResultsError) as e:
        TournamentResults.load(tmp_path)
    assert "allow_pickle" not in str(e.value) and "unsafe" not in str(e.value)


@pytest.mark.parametrize("command", ["compare", "sweep"])
def test_resume_of_a_missing_folder_says_no_such_folder(capsys, tmp_path, command):
    one_line(capsys, [command, "--resume", str(tmp_path / "nowhere")], "no such folder")
    (tmp_path / "file").write_text("x")
    one_line(capsys, [command, "--resume", str(tmp_path / "file")], "is not a folder")


def test_a_ladder_of_five_says_1_lineup(capsys):
    from domeng.study.ladder import ladder

    text = ladder(
        "random,heavy,keeper,hunter,expert", deals=1, rounds=1, orders="rotations", progress=False
    ).to_text()
    assert "5 players, 1 lineup x 1 deal x 1 round x 5 seatings" in text and "lineups" not in text


def test_a_study_stopped_after_one_look_says_1_look():
    from domeng.results.sequential import stopping_text

    stop = {
        "reason": "target reached",
        "tables": 64,
        "looks": 1,
        "max_rounds": 10**6,
        "targets": {"passebunge_per_round": {"half_width": 0.001, "target": 0.002}},
    }
    assert "(1 look; cap" in stopping_text(stop)
    assert "(3 looks; cap" in stopping_text({**stop, "looks": 3})


@pytest.mark.parametrize(
    "address", ["notaurl", "tcp://host", "ftp://h:1", "tcp://h:0", "tcp://h:1/x", "h:port"]
)
def test_a_malformed_scheduler_address_is_a_usage_mistake(capsys, address):
    one_line(
        capsys,
        ["simulate", "-t", "2", "-r", "2", "--scheduler", address],
        "must be a Dask scheduler address like tcp://HOST:PORT",
    )


@pytest.mark.parametrize(
    "address", ["tcp://10.0.0.5:8786", "10.0.0.5:8786", "tls://h.example:1", "tcp://[::1]:8786"]
)
def test_scheduler_addresses_that_parse(address):
    args = build_parser().parse_args(["simulate", "--scheduler", address])
    assert args.scheduler == address
