"""A short demonstration: deal 0, a few moves replayed, the status line after each."""

from __future__ import annotations

from .engine import Game


def main(code: str = "HM1-N-AAAAAAA", moves: int = 3) -> None:
    clock_ticks = iter(range(0, 10_000, 7))
    game = Game(code, clock=lambda: float(next(clock_ticks)))
    print(game.status_line())
    for _ in range(moves):
        legal = list(game.legal_moves)
        if not legal:
            break
        move = legal[0]
        cards = " + ".join(str(game.card_at(s)) for s in move.sources)
        game.play(move)
        print(f"{game.move_count}. {cards}  ({move})   {game.status_line()}")
    print(game)


if __name__ == "__main__":
    main()
