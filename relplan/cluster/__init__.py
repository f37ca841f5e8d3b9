"""The cluster: topology -> inventory of component classes, the impact of each failure
mode on the job, and the price of the hardware (the redundancy budget)."""
