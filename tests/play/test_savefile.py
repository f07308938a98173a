"""Save files (``domeng.play.savefile``): a saved game replays to exactly the
game never interrupted; the file holds no hand and no generator state;
edits are detected by the HMAC (refused, or loaded marked MODIFIED); writes
are atomic and never follow a planted link; every reader refuses junk with
one line (issue 10, items 5 and 6)."""

from __future__ import annotations

import json
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playkit import SEATS

from domeng.cli.main import main
from domeng.play.savefile import check_writable, key_path, read_save, write_save
from domeng.play.session import SAVE_FORMAT, SaveFileError, Session


def advance(s: Session, steps: int, pick: int = 0) -> None:
    """``steps`` steps: people take their ``pick``-th move (mod the count)."""
    for _ in range(steps):
        if s.game_over:
            return
        if s.round_over:
            s.deal()
            continue
        if s.human_to_move():
            ms = s.moves()
            s.play(ms[pick % len(ms)].action)
        else:
            s.auto_step()


def finish(s: Session, pick: int = 0) -> None:
    while not s.game_over:
        advance(s, 1, pick)


@pytest.mark.parametrize("cut", [0, 1, 2, 7, 15, 30, 45, 70])
def test_save_and_load_continue_identically(tmp_path, cut):
    seats = ["human", "random", "human", "hunter", "random"]
    whole = Session(seats, seed=21, rounds=3)
    finish(whole, pick=1)
    first = Session(seats, seed=21, rounds=3)
    advance(first, cut, pick=1)
    path = tmp_path / "g.json"
    write_save(str(path), first)
    second = read_save(str(path))
    assert second.actions == first.actions and not second.modified
    assert second.view(0) == first.view(0) and second.round_over == first.round_over
    finish(second, pick=1)
    assert second.finished == whole.finished
    assert second.game.stones == whole.game.stones and second.ranking() == whole.ranking()


def test_a_save_holds_no_hand_no_generator_state(tmp_path):
    s = Session(SEATS, seed=99, rounds=2)
    advance(s, 9)
    path = tmp_path / "g.json"
    write_save(str(path), s)
    data = json.loads(path.read_text())
    assert set(data) == {
        "format",
        "version",
        "rules",
        "seats",
        "seed",
        "target",
        "actions",
        "modified",
        "names",
        "hmac",
    }
    assert data["format"] == SAVE_FORMAT and data["seed"] == 99
    hand_text = json.dumps(s.game.hand(1))
    assert hand_text not in path.read_text()


def test_key_is_private_and_made_once(tmp_path, _data_home):
    s = Session(SEATS, seed=1, rounds=1)
    write_save(str(tmp_path / "a.json"), s)
    key = key_path()
    assert str(key).startswith(str(_data_home))
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    before = key.read_text()
    write_save(str(tmp_path / "b.json"), s)
    assert key.read_text() == before


def test_a_save_is_readable_by_its_owner_only(tmp_path):
    """A save holds the seed, so every hand (D17): never readable by other
    users of the machine, also when saved over a file that was (walk4: 0644)."""
    s = Session(["human", "heavy", "human", "keeper", "random"], seed=3, rounds=1)
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    old.write_text("{}")
    old.chmod(0o644)
    for path in (new, old):
        write_save(str(path), s)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
    assert read_save(str(old)).seats == s.seats


def saved(tmp_path, steps=12) -> tuple[str, dict]:
    s = Session(SEATS, seed=8, rounds=2)
    advance(s, steps)
    path = tmp_path / "ok.json"
    write_save(str(path), s)
    return str(path), json.loads(path.read_text())


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d.update(seed=d["seed"] + 1),
        lambda d: d["actions"][0].__setitem__(0, (d["actions"][0][0] + 2) % 56),
        lambda d: d.update(seats=["human"] * 5),
        lambda d: d["rules"].update(pass_award=3),
        lambda d: d.update(modified=False) or d.update(target={"rounds": 50, "camats": None}),
        lambda d: d.pop("hmac"),
        lambda d: d.update(hmac="0" * 64),
        lambda d: d.update(hmac=["x"]),
    ],
)
def test_an_edited_save_is_refused_in_one_line(tmp_path, edit):
    path, data = saved(tmp_path)
    edit(data)
    with open(path, "w") as f:
        json.dump(data, f)
    with pytest.raises(SaveFileError) as info:
        read_save(path)
    msg = str(info.value)
    assert "was modified since domeng saved it" in msg and "--allow-modified" in msg
    assert "\n" not in msg


def test_an_edited_save_loads_marked_when_allowed_and_stays_marked(tmp_path):
    path, data = saved(tmp_path)
    data["target"] = {"rounds": 5, "camats": None}
    with open(path, "w") as f:
        json.dump(data, f)
    s = read_save(path, allow_modified=True)
    assert s.modified and s.target_rounds == 5
    write_save(path, s)  # re-signed, but the mark stays
    again = read_save(path)
    assert again.modified


def test_an_edit_that_breaks_the_game_is_corrupt_even_when_allowed(tmp_path):
    path, data = saved(tmp_path)
    data["actions"][0][0] = 0  # [0|0] left: not the D3 lead
    with open(path, "w") as f:
        json.dump(data, f)
    with pytest.raises(SaveFileError, match="is corrupt"):
        read_save(path, allow_modified=True)


def test_a_save_from_another_user_is_refused(tmp_path, monkeypatch):
    path, _ = saved(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "someone-else"))
    with pytest.raises(SaveFileError, match="was modified"):
        read_save(path)


def test_atomic_write_replaces_a_link_not_its_target(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "g.json"
    link.symlink_to(victim)
    write_save(str(link), Session(SEATS, seed=2, rounds=1))
    assert victim.read_text() == "keep me" and not link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json", "victim.txt"]


def test_check_writable(tmp_path):
    check_writable(str(tmp_path / "new.json"))
    assert list(tmp_path.iterdir()) == []  # the probe left nothing
    for bad, why in [
        (tmp_path, "it is a folder"),
        (tmp_path / "no" / "x.json", "no folder"),
        ("/proc/domeng-save.json", "cannot save"),
    ]:
        with pytest.raises(SaveFileError, match=why):
            check_writable(str(bad))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=5),
            lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
            max_leaves=20,
        ).map(lambda x: json.dumps(x).encode()),
    )
)
def test_read_save_refuses_junk_in_one_line(tmp_path, raw):
    p = tmp_path / "junk.json"
    p.write_bytes(raw)
    with pytest.raises(SaveFileError) as info:
        read_save(str(p), allow_modified=True)
    assert "\n" not in str(info.value)


def test_deep_nesting_and_huge_files(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SaveFileError, match=r"corrupt|not a domeng"):
        read_save(str(deep))
    big = tmp_path / "big.json"
    with open(big, "wb") as f:
        f.truncate(9 * 1024 * 1024)
    with pytest.raises(SaveFileError, match="too large"):
        read_save(str(big))


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_signed_but_crafted_actions_are_refused(tmp_path, data):
    """Even a save signed with the user's key (their own bug, or a copy)
    replays only legal actions: anything else is corrupt, one line."""
    s = Session(SEATS, seed=8, rounds=2)
    advance(s, 10)
    payload = s.to_save()
    acts = data.draw(st.lists(st.lists(st.integers(-3, 60), max_size=12), max_size=3))
    payload["actions"] = acts
    from domeng.play import savefile

    path = tmp_path / "c.json"
    payload["hmac"] = savefile._digest(savefile.load_key(create=True), payload)
    path.write_text(json.dumps(payload))
    try:
        got = read_save(str(path))
    except SaveFileError as e:
        assert "\n" not in str(e) and "corrupt" in str(e)
    else:
        assert got.actions == acts


def test_cli_usage_errors(tmp_path, capsys):
    junk = tmp_path / "c.json"
    junk.write_text('{"format": "domeng-pl')
    foreign = tmp_path / "f.json"
    foreign.write_text('{"hello": 1}')
    for argv, msg in [
        (
            ["play", "--seats", "human,wizard,heavy,keeper,random"],
            "player 'wizard' refused at a terminal table",
        ),
        (["play", "--seats", "human,omniscient,heavy,keeper,random"], "sees every hand"),
        (["play", "--seats", "human,heavy"], "--seats needs 5 comma-separated seats"),
        (["play", "--delay", "-1"], "must be a number of seconds"),
        (["play", "--delay", "²"], "must be a number of seconds"),
        (["play", "--rule", "pollo=x"], "rule option pollo_award must be a whole number"),
        (
            ["play", "--load", "x.json", "--seats", "human,heavy,heavy,heavy,heavy"],
            "cannot be combined with --load",
        ),
        (["play", "--load", str(tmp_path / "missing.json")], "cannot read save file"),
        (["play", "--load", str(junk)], "is corrupt: not valid JSON"),
        (["play", "--load", str(foreign)], "is not a domeng play save file"),
        (["play", "--allow-modified"], "--allow-modified goes with --load"),
        (["play", "--save", str(tmp_path / "nope" / "g.json")], "cannot save to"),
        (["play", "--save", str(tmp_path)], "it is a folder"),
    ]:
        assert main(argv) == 2, argv
        out, err = capsys.readouterr()
        assert msg in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)
        assert out == ""


@pytest.mark.slow
def test_search_sits_at_the_table_and_replays(tmp_path):
    """The strongest built-in plays at a table, and a save replays its moves
    (each checked to be the move it makes)."""
    seats = ["human", "search-30", "hunter", "search", "random"]
    s = Session(seats, seed=13, rounds=1)
    advance(s, 14)
    path = tmp_path / "s.json"
    write_save(str(path), s)
    again = read_save(str(path))
    assert again.actions == s.actions
    finish(s)
    finish(again)
    assert again.finished == s.finished


def test_other_format_versions_refused(tmp_path):
    path, data = saved(tmp_path)
    data["version"] = 99
    with open(path, "w") as f:
        json.dump(data, f)
    with pytest.raises(SaveFileError, match="format version 99; this domeng reads version 3"):
        read_save(path, allow_modified=True)
