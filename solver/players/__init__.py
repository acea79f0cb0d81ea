"""The players: the simple ones (random, greedy, lookahead, tuned), move features, the fair
ones and the PIMC player; the players by name, their games on many deals, the fair hint."""
