# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Your own player
#
# Writing a player, testing it and ranking it against the built-in players. (A placeholder for the site's build: the tutorial itself is written
# on another branch and replaces this file.)

# %%
from domeng.players.registry import BUILTIN_PLAYERS

print(", ".join(BUILTIN_PLAYERS))
