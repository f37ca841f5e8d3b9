"""The communication model: alpha-beta collectives, the traffic of each parallelism
dimension, step time and slowdowns, the job's baseline and the source document's figures."""
