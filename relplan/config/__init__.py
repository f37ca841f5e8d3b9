"""Configs: the TOML schema (pydantic), loading with ``--set`` overrides, consistency checks,
defaults derived from other keys, and the declarative studies."""
