"""Many simulations: where they run (this process, local processes, Dask), what they keep
(the store of finished points), what they are checked for before the work (memory, run
size, warnings), and what they answer: compare, sweep and the redundancy planner."""
