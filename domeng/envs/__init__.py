"""Environments for game-AI research (``pip install 'domeng[rl]'``).

* :mod:`domeng.envs.pettingzoo`: the five seats as a PettingZoo AEC game.
* :mod:`domeng.envs.gym`: one learning seat against compiled players,
  ``gymnasium.make("domeng/Domeng-v0", opponents="hunter", seat=0)``, and a
  vectorised form stepping N tables in one compiled call.
* :mod:`domeng.envs.open_spiel`: ``pyspiel.load_game("python_domeng")``.

Importing :mod:`domeng.envs` registers ``domeng/Domeng-v0`` with Gymnasium
when Gymnasium is installed (nothing else is imported).  Every environment
steps through the step API (:mod:`domeng.engine.step`) and shows a seat only
its D17 view (:mod:`domeng.core.encoding`).  See ``docs/environments.md``.
"""

from __future__ import annotations

ENV_ID = "domeng/Domeng-v0"


def register() -> bool:
    """Register ``domeng/Domeng-v0`` with Gymnasium (once); False without Gymnasium.

    >>> register()  # importing domeng.envs already did
    True
    >>> import gymnasium
    >>> ENV_ID in gymnasium.registry
    True
    """
    try:
        import gymnasium
    except ImportError:  # the rl extra is not installed
        return False
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID,
            entry_point="domeng.envs.gym:DomengEnv",
            vector_entry_point="domeng.envs.gym:DomengVectorEnv",
        )
    return True


register()
