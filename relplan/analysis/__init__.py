"""What one simulation means: its summaries and frames, its provenance, the checkpoint
optimisers, and the inventory and baseline reports of a config."""
