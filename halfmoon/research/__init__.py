"""Research over the solver: statistics of a results dataset, simple players against the
solver, and the analysis of a position's legal moves."""
