"""Domeng's players: the protocol and catalogue (:mod:`domeng.players.registry`,
:mod:`domeng.players.catalogue`), the heuristics, the search players on one
search core and one determinizer, the learned player, and any of them as an
agent over the environments' observations (:func:`load`).

Importing this package imports none of its modules: ``load`` imports what it
needs when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from domeng.players.agents import Agent


def load(name: str, seed: int = 0, table: int = 0, seat: int = 0) -> Agent:
    """Any player of the catalogue (a built-in with its budget and options,
    ``module:function``, a plugin) as a policy over the environments'
    observations (issue 25, item 6): an :class:`~domeng.players.agents.Agent`.
    ``domeng.load_player`` is this function.

    Parameters
    ----------
    name:
        A player name that may sit in an environment (``docs/players.md``);
        a name refused there is refused here in the same words.
    seed, table, seat:
        Where its generator starts: seat ``seat``'s stream at table
        ``table`` of a study seeded ``seed`` (:meth:`Agent.reseed`).

    Returns
    -------
    Agent
        ``agent(observation, action_mask) -> action`` (PettingZoo,
        Gymnasium), ``agent.bot(game, seat)`` (OpenSpiel).

    Examples
    --------
    >>> import domeng.players
    >>> domeng.players.load("Search-200")
    Agent('search-200')
    >>> domeng.players.load("omniscient")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    domeng.core.errors.PlayerError: player 'omniscient' refused in an environment: ...
    """
    from domeng.players.agents import Agent

    return Agent(name, seed, table, seat)


__all__ = ["load"]
