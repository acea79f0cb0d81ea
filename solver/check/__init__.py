"""The independent check: the same verdicts from a constraint model (OR-tools CP-SAT)."""
