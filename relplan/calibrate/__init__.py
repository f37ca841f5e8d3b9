"""Field data in, rates out: lifetimes fitted to censored data and judged by it, log files
read, incident logs set against a config's rates, and a log's history replayed against a
checkpoint policy."""
