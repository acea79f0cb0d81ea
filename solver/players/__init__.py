"""The players: the simple ones (random, greedy, lookahead, tuned), move features, the fair ones."""
