"""relplan: a Monte Carlo reliability and checkpoint planner for large AI training clusters."""

__version__ = "0.1.0"
