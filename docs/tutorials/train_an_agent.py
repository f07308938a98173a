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
# # Train an agent
#
# Training a small agent on the vectorised environment and placing it on the ladder. (A placeholder for the site's build: the tutorial itself is written
# on another branch and replaces this file.)

# %%
import domeng.envs

print(domeng.envs.ENV_ID)
