"""A user's script with a wrong type in each marked line: mypy --strict reports each line."""

import attnviz
from attnviz.cli.commands import main

attnviz.figure([[1, 0]], [[1, 0]], theme="blue")  # E: theme
attnviz.figure([[1, 0]], [[1, 0]], elide="yes")  # E: elide
attnviz.figure([[1, 0]], [[1, 0]], highlight=3)  # E: highlight
attnviz.figure({"a": 1}, [[1, 0]])  # E: q
attnviz.figure([[1, 0]], [[1, 0]], colour="red")  # E: unknown keyword
size: int = attnviz.figure().svg()  # E: svg is a str
attnviz.compose("not a figure")  # E: compose takes figures
attnviz.flash([[1]], [[1]], block=2)  # E: block is a pair
main("render -o fig.svg")  # E: the command's arguments are a list
attnviz.Mask("causal") & 3  # E: a mask combines with masks
single: attnviz.Figure = attnviz.figure(q_heads=[[[1]]], k_heads=[[[1]]])  # E: several heads make panels
