"""Analysis of simulations: result summaries with confidence intervals, the checkpoint
optimisers, scenario comparison and declarative sweeps."""
