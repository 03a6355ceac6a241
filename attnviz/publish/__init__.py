"""Stage 7, publish: documents, pages, walkthroughs, decks and the gallery, made of figures."""
