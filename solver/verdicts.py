"""The verdict codes every search returns, and their names: defined here once."""

WIN = 1
LOSS = 0
UNRESOLVED = -1  # the budget was spent before the deal was settled
NAMES = {WIN: "win", LOSS: "loss", UNRESOLVED: "unresolved"}
VERDICTS = ("win", "loss", "unresolved")  # the names, in the order results count them
