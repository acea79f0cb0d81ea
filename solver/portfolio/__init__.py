"""The portfolio: the searches taking turns on a deal, and many deals by number in one call."""
