"""Pure statistics, the package's bottom layer but for the basics: means and quantiles with
their confidence intervals, survival curves of censored data, the circular block bootstrap.
numpy and scipy only; nothing here knows a config, a model or a simulation."""
