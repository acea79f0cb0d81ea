"""The grouping search: the model in the grouping view, clause learning, propagation, counting."""
