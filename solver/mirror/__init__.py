"""The packed mirror of the game: the position format, the deal generator's twin, the table."""
