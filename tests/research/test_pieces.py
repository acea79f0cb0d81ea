"""The findings' stages in pieces: kept, read back, extended or redone by what they were made
from."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from halfmoon.research.pieces import made_from, read_made_from, run_pieces


def _stage(calls):
    def fn(rows, add):
        calls.append(rows["deal"].tolist())
        # two rows a deal, as a stage of several players gives
        out = pd.concat([rows.assign(player="a"), rows.assign(player="b")], ignore_index=True)
        return {"out": out.assign(y=out["deal"] + add + (out["verdict"] == "loss"))}

    return fn


def _items(deals, losses=()):
    return pd.DataFrame({"deal": deals,
                         "verdict": ["loss" if d in losses else "win" for d in deals]})


def test_pieces_are_kept_and_not_redone(tmp_path):
    calls = []
    items = _items(list(range(10)))
    a = run_pieces(tmp_path, "s", items, _stage(calls), {"add": 1}, 4, 1, False)["out"]
    assert a["deal"].tolist() == [d for d in range(10) for _ in "ab"]
    assert a["y"].tolist() == [d + 1 for d in range(10) for _ in "ab"]
    assert calls == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    (tmp_path / "s" / "piece-000001.done").unlink()  # as if cut off during that piece
    b = run_pieces(tmp_path, "s", items, _stage(calls), {"add": 1}, 4, 1, False)["out"]
    assert b.equals(a) and calls[3:] == [[4, 5, 6, 7]]
    run_pieces(tmp_path, "s", items, _stage(calls), {"add": 1}, 4, 1, False)
    assert len(calls) == 4  # the same rows, options and solver: nothing redone
    # new options: redone from nothing
    run_pieces(tmp_path, "s", items, _stage(calls), {"add": 2}, 4, 1, False)
    assert calls[4:] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_what_a_stage_was_made_from_is_kept(tmp_path):
    items = _items([3, 1, 2])
    run_pieces(tmp_path, "s", items, _stage([]), {"add": 1}, 2, 1, False)
    made = read_made_from(tmp_path, "s")
    assert made == json.loads(json.dumps(made_from(items, {"add": 1})))
    assert made["rows"] == 3 and made["params"] == {"add": 1}
    assert made["columns"] == ["deal", "verdict"] and len(made["digest"]) == 64
    from solver import SOLVER_VERSION

    assert made["solver_version"] == SOLVER_VERSION
    # the digest is of the rows: another verdict, another order, another deal change it
    for other in (_items([3, 1, 2], losses={1}), _items([1, 3, 2]), _items([3, 1, 4])):
        assert made_from(other, {"add": 1})["digest"] != made["digest"]
    assert read_made_from(tmp_path, "nothing") is None


def test_rows_that_changed_are_done_again_and_only_they(tmp_path):
    calls = []
    fresh = tmp_path / "fresh"
    run_pieces(tmp_path, "s", _items([5, 1, 9, 7]), _stage(calls), {"add": 1}, 2, 1, False)
    # the run grew: the sample now holds new deals among the old, one old deal left it
    grown = _items([2, 5, 8, 9, 1, 6])
    calls.clear()
    out = run_pieces(tmp_path, "s", grown, _stage(calls), {"add": 1}, 2, 1, False)["out"]
    assert calls == [[2, 8], [6]]
    expect = run_pieces(fresh, "s", grown, _stage([]), {"add": 1}, 2, 1, False)["out"]
    pd.testing.assert_frame_equal(out, expect)
    assert out["deal"].tolist() == [d for d in [2, 5, 8, 9, 1, 6] for _ in "ab"]
    assert not (out["deal"] == 7).any()  # kept in a piece with 9, and left out
    # a verdict that changed: that deal alone again, with its new verdict
    changed = _items([2, 5, 8, 9, 1, 6], losses={9})
    calls.clear()
    out = run_pieces(tmp_path, "s", changed, _stage(calls), {"add": 1}, 2, 1, False)["out"]
    assert calls == [[9]]
    pd.testing.assert_frame_equal(
        out, run_pieces(tmp_path / "f2", "s", changed, _stage([]), {"add": 1}, 2, 1, False)["out"])
    assert out.loc[out["deal"] == 9, "y"].tolist() == [11, 11]
    # the rows back as they were first: read back, nothing done
    calls.clear()
    run_pieces(tmp_path, "s", changed, _stage(calls), {"add": 1}, 2, 1, False)
    assert calls == []


def test_a_stage_of_an_older_kind_is_redone(tmp_path):
    d = tmp_path / "s"
    d.mkdir()
    (d / "_params.json").write_text("{}")
    (d / "piece-000000.done").touch()
    pd.DataFrame({"deal": [1], "y": [99]}).to_parquet(d / "piece-000000.out.parquet")
    calls = []
    out = run_pieces(tmp_path, "s", _items([1]), _stage(calls), {"add": 1}, 2, 1, False)["out"]
    assert calls == [[1]] and out["y"].tolist() == [2, 2]
    assert not (d / "_params.json").exists()


def test_no_rows(tmp_path):
    out = run_pieces(tmp_path, "s", _items([]), _stage([]), {"add": 1}, 2, 1, False)["out"]
    assert len(out) == 0 and read_made_from(tmp_path, "s")["rows"] == 0
    assert np.isin(["deal", "verdict", "y"], out.columns).all()
