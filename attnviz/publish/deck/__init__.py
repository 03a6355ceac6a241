"""Decks: a walkthrough as slides (the deck model, Beamer, reveal.js, PowerPoint, PDF)."""
