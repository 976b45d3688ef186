"""A third AgentV-like format, "toy", as small as a format can be: files that declare
`$schema: toy-eval` and hold a list of `cases`, each with an `input`. It proves the seam
between the formats: registered (`formats.registry.register`), it is checked and previewed by
the command line (`engine.py`) without any change outside this package and the registries.
The server's side of it (`editor.py`) sits beside it."""
