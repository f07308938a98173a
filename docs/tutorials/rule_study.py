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
# # A rule study
#
# A paired comparison of two rule values on the same tables, and a figure of it. (A placeholder for the site's build: the tutorial itself is written
# on another branch and replaces this file.)

# %%
import domeng

cmp = domeng.compare(["pollo=4"], tables=2, rounds=2, seed=0)
print(cmp.differences().shape[0] > 0)
