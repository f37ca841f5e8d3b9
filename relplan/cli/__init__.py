"""The ``relplan`` command line: typer commands that parse, call the library and render."""
