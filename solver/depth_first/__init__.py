"""The depth-first search: its kernel, the pruning rules, the bounds test, the projected games."""
