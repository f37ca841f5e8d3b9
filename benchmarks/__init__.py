"""relplan's benchmark: its engine against a SimPy reference model, its scaling and start-up.

Run it with ``python benchmarks/run.py`` from the repository root (see :mod:`benchmarks.run`).
The modules, each with one concern, import one another in this order only (no cycles):

- :mod:`benchmarks.measure`: timers, traced memory, the random-number floor, subprocesses;
- :mod:`benchmarks.levels`: how big a run is (trial counts, repeats) at each level;
- :mod:`benchmarks.machine`: the machine and the relplan tree the numbers come from;
- :mod:`benchmarks.cases`: the shipped cases and their SimPy-comparable models;
- :mod:`benchmarks.throughput`: relplan vs SimPy vs the floor on each case, and agreement;
- :mod:`benchmarks.scaling`: cost against trials, cluster size and events; peak RSS; plot;
- :mod:`benchmarks.startup`: wall time of fresh ``relplan`` processes, warm and cold;
- :mod:`benchmarks.report`: the report as tables, as JSON and as Markdown;
- :mod:`benchmarks.run`: the command line.

:mod:`benchmarks.simpy_reference` is the reference model itself.
"""
