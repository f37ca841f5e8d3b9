"""The Monte Carlo simulation: the model, failure distributions and streams, per-trial
random numbers, the compiled job timeline, the engine that drives it, and trial traces."""
