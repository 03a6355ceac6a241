"""Stage 3, words: what a figure says (its text, notation, user text, highlight, accessible
descriptions) and the budgets that bound it, as data with no positions."""
