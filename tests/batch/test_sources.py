"""The deals of a batch run: ranges, random samples, codes files, numbers; bad input refused."""

from __future__ import annotations

import pytest
from batch_helpers import batch_args, quiet_run

from halfmoon.batch import (
    BatchError,
    DealList,
    deals_from_codes,
    deals_from_numbers,
    deals_from_random,
    parse_range,
)
from halfmoon.cli.main import main


def test_range_is_a_to_b_minus_one():
    deals = parse_range("5:9")
    assert list(deals.numbers) == [5, 6, 7, 8]
    assert deals.source == {"kind": "range", "start": 5, "stop": 9}


@pytest.mark.parametrize("text", ["5:5", "9:5", "abc", "1:2:3", "-1:4", "0:999999999999"])
def test_bad_ranges_are_refused(text):
    with pytest.raises(BatchError, match="bad range"):
        parse_range(text)


def test_random_deals_are_distinct_and_reproducible():
    a, b = deals_from_random(50, seed=7), deals_from_random(50, seed=7)
    assert list(a.numbers) == list(b.numbers)
    assert len(set(a.numbers)) == 50
    assert list(deals_from_random(50, seed=8).numbers) != list(a.numbers)
    assert a.source == {"kind": "random", "count": 50, "seed": 7}


def test_deal_numbers_from_a_program_are_checked_and_kept_once():
    deals = deals_from_numbers([5, 3, 5, 0])
    assert list(deals.numbers) == [5, 3, 0] and deals.duplicates == 1
    assert deals.source == {"kind": "numbers", "count": 3}
    for bad in (-1, 26**7, "7", 1.5, True):
        with pytest.raises(BatchError, match="bad deal number"):
            deals_from_numbers([5, bad])


def test_a_deal_list_with_repeats_is_refused(tmp_path):
    with pytest.raises(BatchError, match="names a deal twice"):
        quiet_run(DealList([1, 2, 1], {"kind": "numbers", "count": 3}), tmp_path / "r", workers=1)
    assert not (tmp_path / "r").exists()


def test_codes_file_with_comments_numbers_and_repeats(tmp_path):
    f = tmp_path / "codes.txt"
    f.write_text("# my deals\n\nHM1-N-AAAAAAB\n  hm1-n-aaaaaba  # deal 26, lower case\n7\n1\n")
    deals = deals_from_codes(f)
    assert list(deals.numbers) == [1, 26, 7]
    assert deals.duplicates == 1
    assert deals.source == {"kind": "codes", "file": str(f.resolve())}


def test_codes_file_with_bad_lines_names_them_and_writes_nothing(tmp_path, capsys):
    f = tmp_path / "codes.txt"
    lines = ["HM1-N-AAAAAAA", "HM1-N-AAAA", "12", "hello", "HM1-X-AAAAAAA", "99999999999",
             "HM1-N-AAAAAA1", "HM2-N-AAAAAAA", "also bad", "# fine"]
    f.write_text("\n".join(lines) + "\n")
    out = tmp_path / "results"
    assert main(batch_args(out, "--codes", str(f))) == 2
    err = capsys.readouterr().err
    assert err.startswith("halfmoon: error: ")
    assert "7 malformed lines, nothing was run" in err
    for n in (2, 4, 5, 6, 7):  # the first five bad lines, by number
        assert f"line {n}:" in err
    assert "line 8:" not in err and "and 2 more" in err
    assert "wrong length" in err and "unknown deal family" in err
    assert "Traceback" not in err
    assert not out.exists()


PNG = bytes.fromhex("89504e470d0a1a0a0000000d494844520000001000000010080600000077f8")


@pytest.mark.parametrize("data, why", [
    (PNG + b"\n\x1a\r" * 40, "a byte 0x89 at offset 0 that is not UTF-8"),
    (bytes((i * 97 + 13) % 256 for i in range(600)), "a byte 0xcf at offset 2 that is not UTF-8"),
    ("HM1-N-AAAAAAB\n7\n".encode("utf-16"),
     "a byte 0xff at offset 0 that is not UTF-8, UTF-16 by its first bytes: save it as UTF-8"),
    ("HM1-N-AAAAAAB\n7\n".encode("utf-16-le"), "a NUL byte at offset 1"),
    (b"HM1-N-AAAAAAB\n7\x00\n\xff", "a NUL byte at offset 15"),
    (b"HM1-N-AAAAAAB\n\xe9t\xe9\n", "a byte 0xe9 at offset 14 that is not UTF-8"),
], ids=["png", "random bytes", "utf-16", "utf-16 without its mark", "a nul", "latin-1"])
@pytest.mark.parametrize("command", ["batch", "players"])
def test_a_codes_file_that_is_not_text_is_one_line(tmp_path, capsys, data, why, command):
    """It used to be read as UTF-8 with its bad bytes replaced, and its "lines" shown."""
    f = tmp_path / "deals.png"
    f.write_bytes(data)
    out = tmp_path / "r"
    args = batch_args(out, "--codes", str(f)) if command == "batch" else [
        "players", "--codes", str(f)]
    assert main(args) == 2
    out_text, err = capsys.readouterr()
    assert out_text == "" and err.splitlines() == [
        f"halfmoon: error: codes file {str(f)!r} is not text ({why}): expected one deal code"
        " or number a line"]
    assert not out.exists()


def test_a_codes_file_may_start_with_a_byte_order_mark(tmp_path):
    f = tmp_path / "codes.txt"
    f.write_bytes("HM1-N-AAAAAAB\r\n7\r\n".encode("utf-8-sig"))
    assert list(deals_from_codes(f).numbers) == [1, 7]


def test_a_bad_line_is_quoted_without_control_characters_and_cut_short(tmp_path, capsys):
    f = tmp_path / "codes.txt"
    lines = ["\x1b[31mred\x1b[0m", "x" * 300, "9" * 5000, "HM1-N-" + "\x07" * 40,
             "hm1-n-aaa\x85aaab", "1\r2\r3", "\u202eHM1-N-AAAAAAB", "HM1-N-AAAAAAB"]
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(batch_args(tmp_path / "r", "--codes", str(f))) == 2
    err = capsys.readouterr().err
    shown = err.splitlines()
    assert shown == [
        f"halfmoon: error: {f}: 7 malformed lines, nothing was run:",
        "  line 1: '\\x1b[31mred\\x1b[0m' is neither a deal code nor a deal number",
        "  line 2: '" + "x" * 38 + "'... (300 characters) is neither a deal code nor a deal"
        " number",
        "  line 3: deal number '" + "9" * 38 + "'... (5,000 characters) is outside"
        " 0..8031810175",
        "  line 4: 'HM1-N-" + "\\x07" * 8 + "'... (46 characters) is not a deal code"
        " (expected one like HM1-N-AAAAAAB)",
        "  line 5: bad deal code 'hm1-n-aaa\\x85aaab': '\\x85' is not a letter A-Z",
        "  ... and 2 more"]
    assert all(line.isprintable() and len(line) < 130 for line in shown[1:])


def test_empty_or_missing_codes_file(tmp_path, capsys):
    f = tmp_path / "codes.txt"
    f.write_text("# nothing here\n\n")
    assert main(batch_args(tmp_path / "r", "--codes", str(f))) == 2
    assert "no deal codes or numbers" in capsys.readouterr().err
    assert main(batch_args(tmp_path / "r", "--codes", str(tmp_path / "none.txt"))) == 2
    assert "cannot read codes file" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--range", "0:4", "--workers", "0"], "bad number of workers"),
        (["--range", "0:4", "--chunk-size", "0"], "bad --chunk-size 0"),
        (["--range", "0:4", "--budget", "0"], "bad budget"),
        (["--range", "0:4", "--seed", "3"], "--seed goes with --random"),
        (["--random", "0"], "bad --random"),
        (["--range", "0:4", "--random", "3"], "not allowed with"),
        ([], "one of the arguments"),
    ],
)


def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, args, message):
    assert main(["batch", "--out", str(tmp_path / "r"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("halfmoon: error: ") and message in err
    assert err.count("\n") == 1


def test_a_range_is_named_by_its_bounds_whatever_its_length():
    import hashlib
    import time

    import numpy as np

    from halfmoon.game.codes import DEAL_COUNT

    t0 = time.perf_counter()
    full = parse_range(f"0:{DEAL_COUNT}")
    assert len(full) == DEAL_COUNT and full.digest() == parse_range(f"0:{DEAL_COUNT}").digest()
    assert full.digest() != parse_range(f"1:{DEAL_COUNT}").digest()
    assert time.perf_counter() - t0 < 1  # no array of 8 billion numbers
    assert full.sample(3) == [DEAL_COUNT // 6, DEAL_COUNT // 2, 5 * DEAL_COUNT // 6]
    # other lists, and the numbers' digest of a range, hash every number as before
    old = hashlib.sha256(np.arange(5, 9, dtype="<i8").tobytes()).hexdigest()
    assert deals_from_numbers([5, 6, 7, 8]).digest() == old
    assert parse_range("5:9").numbers_digest() == parse_range("5:9").numbers_digest(block=3) == old
    assert parse_range("5:9").sample(10) == [5, 6, 7, 8]


def test_the_population_of_a_run_in_words():
    from halfmoon.batch.sources import population

    assert population({"kind": "range", "start": 0, "stop": 3000}, 3000) == (
        "the 3,000 deals numbered 0 to 2,999 (a range of deal numbers, not a random sample)")
    assert population({"kind": "range", "start": 0, "stop": 600}, 200).startswith(
        "200 of the 600 deals numbered 0 to 599")
    assert population({"kind": "random", "count": 2000, "seed": 77}, 2000) == (
        "2,000 deals drawn uniformly at random from all 8,031,810,176 deal codes (seed 77)")
    assert population({"kind": "codes", "file": "/x/hard.txt"}, 5) == (
        "the 5 deals listed in hard.txt (a list of deal codes)")
    assert population({"kind": "numbers", "count": 300}, 300) == (
        "300 deals given by number (a list, not a random sample)")
    assert population({}, 40) == "40 deals (how they were chosen is not recorded)"
