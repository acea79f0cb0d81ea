"""The players by name: the simple players' codes, the ladder's players and their settings,
and the front door's checks of a name."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import solver
from halfmoon.game.errors import HalfMoonError
from solver.players.bandit import (
    B_BATCH,
    B_C,
    B_CAP,
    B_FLAGS,
    B_HOPELESS,
    B_LEAD,
    B_TOTAL,
    B_Z,
    NBANDIT,
    SEARCHES,
)
from solver.players.fair import (
    MCTS,
    NPARAMS,
    P_BUDGET,
    P_C,
    P_DEDUPE,
    P_DEFAULT,
    P_PARTIAL,
    P_ROUNDS,
    P_Z,
    ROLLOUT,
)
from solver.players.features import GREEDY_WEIGHTS
from solver.players.roster import FAIR, KINDS, PLAYERS, SIMPLE, player_named
from solver.players.simple import GREEDY, LOOKAHEAD, RANDOM, TUNED


def test_the_simple_players_codes_and_depths():
    assert SIMPLE == {"random": (RANDOM, 0), "greedy": (GREEDY, 0), "lookahead": (LOOKAHEAD, 2),
                      "lookahead3": (LOOKAHEAD, 3), "tuned": (TUNED, 0)}
    assert len({RANDOM, GREEDY, LOOKAHEAD, TUNED, ROLLOUT, MCTS}) == 6  # one code a player
    assert solver.SIMPLE_PLAYERS == SIMPLE and solver.SIMPLE_PLAYERS is not SIMPLE


def test_the_ladder_players_and_fair():
    assert solver.FAIR_PLAYERS == (*PLAYERS, "fair") and solver.FAIR == FAIR in PLAYERS
    for name, p in PLAYERS.items():
        assert p.name == name and p.about and p.kind in KINDS
        assert (p.kind == "simple") == (p.samples == 0)
    assert KINDS == ("simple", "kernel", "pimc", "bandit", "recommend")
    assert solver.player_named("fair") == replace(PLAYERS[FAIR], name="fair")
    assert player_named("greedy") == PLAYERS["greedy"]


def test_samples_and_name_at_samples():
    assert solver.player_named("rollout", samples=7).samples == 7
    assert solver.player_named("greedy", samples=7).samples == 0  # a player that does not sample
    p = solver.player_named("uct@64")
    assert (p.name, p.samples, p.code, p.base) == ("uct@64", 64, MCTS, GREEDY)
    assert solver.player_named("fair@16", samples=99).samples == 16  # the name's samples win
    for bad in ("greedy@4", "rollout@0", "rollout@x", "uct@-3"):
        with pytest.raises(HalfMoonError, match="NAME@SAMPLES"):
            solver.player_named(bad)


def test_the_settings_as_the_kernels_take_them_and_in_words():
    p = solver.player_named("rollout-lookahead")
    params = p.params()
    assert params.shape == (NPARAMS,) and params.dtype == np.float64
    assert (params[P_BUDGET], params[P_ROUNDS], params[P_Z], params[P_C]) == (32, 4, 2.0, 0.3)
    assert (params[P_PARTIAL], params[P_DEFAULT], params[P_DEDUPE]) == (0.0, 0.0, 0.0)
    assert solver.player_named("rollout").params()[P_DEDUPE] == 1.0
    assert solver.player_named("pimc").settings() == "8 layouts, 20,000 positions a solve"
    assert solver.player_named("uct@50").settings() == "50 iterations a decision"
    assert solver.player_named("fair").settings() == "256 layouts a decision"
    assert solver.player_named("tuned").settings() == ""


def test_the_bandits_settings_by_name():
    p = solver.player_named("bandit@cap=300,lead=40,batch=5,c=1.5,total=900,hopeless=60,"
                            "search=plain,z=2")
    assert (p.kind, p.base, p.budget, p.samples, p.batch, p.c, p.total, p.hopeless, p.search,
            p.z) == ("bandit", TUNED, 300, 40, 5, 1.5, 900, 60, "plain", 2.0)
    assert p.name == ("bandit@cap=300,lead=40,batch=5,c=1.5,total=900,hopeless=60,search=plain,"
                      "z=2")
    params = p.params()
    assert params.shape == (NBANDIT,)
    assert [params[k] for k in (B_CAP, B_LEAD, B_BATCH, B_C, B_TOTAL, B_HOPELESS, B_FLAGS,
                                B_Z)] == [300, 40, 5, 1.5, 900, 60, SEARCHES["plain"], 2.0]
    assert p.settings().endswith(", the tuned move unless beaten by 2 s.e.")
    assert solver.player_named("bandit@50").samples == 50  # NAME@K: the leader's plays
    assert solver.player_named("bandit", samples=70).samples == 70
    d = solver.player_named("bandit")
    assert (d.budget, d.c, d.batch, d.search) == (1000, 2.0, 10, "order")
    assert d.settings() == ("leader 100 plays, cap 1,000 positions (order search), batches of 10,"
                            " C = 2, at most 1,000 samples")
    for bad, why in (("bandit@cap=0", "out of range"), ("bandit@lead=x", "is not a int"),
                     ("bandit@depth=3", "unknown setting 'depth'"), ("rollout@cap=3", "takes the"
                     " bandit"), ("bandit@search=bfs", "expected one of plain, engine, order"),
                     ("bandit@total=-1", "out of range")):
        with pytest.raises(HalfMoonError, match=why):
            solver.player_named(bad)


def test_bad_names_and_samples_are_refused():
    with pytest.raises(HalfMoonError, match=r"unknown player 'wise' \(expected some of random, "):
        solver.player_named("wise")
    with pytest.raises(HalfMoonError, match="samples must be a whole number of at least 1"):
        solver.player_named("rollout", samples=0)
    with pytest.raises(HalfMoonError, match="samples must be"):
        solver.player_named("rollout", samples=2.5)
    with pytest.raises(HalfMoonError, match="a player's name must be a string"):
        solver.player_named(3)


def test_greedy_weights_are_read_only_at_the_front_door():
    assert np.array_equal(solver.GREEDY_WEIGHTS, GREEDY_WEIGHTS)
    assert solver.GREEDY_WEIGHTS.shape == (solver.NMOVE_FEATURES,)
    with pytest.raises(ValueError):
        solver.GREEDY_WEIGHTS[0] = 1.0
