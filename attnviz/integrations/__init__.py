"""Stage 9, integrations: Sphinx, MkDocs and Markdown, with the settings they share and
their caches."""
