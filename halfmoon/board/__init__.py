"""The web board: play a deal in the browser, with the solver's opinion beside the game.

The page (``static/``: plain HTML, CSS and JavaScript) holds no rules: it sends taps to
the reference engine and draws the state that comes back.  Modules, one concern each:

- :mod:`~halfmoon.board.games`: live games and their bounded store;
- :mod:`~halfmoon.board.view`: the state of a game as the page draws it;
- :mod:`~halfmoon.board.opinion`: what the solver's answers say of a game (the winnable
  light, the hint, the marked move list, the analysis, the solution);
- :mod:`~halfmoon.board.jobs` and :mod:`~halfmoon.board.pool`: the solver running in
  other processes, bounded in budget and time;
- :mod:`~halfmoon.board.service`: the games, the answers and the solver joined;
- :mod:`~halfmoon.board.validation`: reading and checking what a request asks;
- :mod:`~halfmoon.board.server`: the HTTP app and ``halfmoon play``.
"""
