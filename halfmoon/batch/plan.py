"""The plan of a run: its deals cut into chunks (a Parquet file each) and pieces (deals solved
together), sized for where they run and for the range; and a dry run's estimate of the time.

Nothing here lists the deals: a chunk or a piece is computed from its index when it is
needed, so the plan of the whole code space is as small as that of ten deals.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Iterable, Iterator, NamedTuple, Optional, Sequence

from .errors import BatchError
from .estimate import Estimate, estimate, model_fits, sample_numbers
from .sources import DealList

CHUNK_SIZE = 250  # the smallest chosen chunk: a short local run writes files of 250 deals
MAX_FILES = 10_000  # on a cluster, chosen chunk sizes aim at a run of at most this many files
LOCAL_FILES = 40  # locally, at about this many (see choose_chunk_size)
LOCAL_MAX_CHUNK = 100_000  # this process holds a chunk's rows until the chunk is whole
CLUSTER_MAX_CHUNK = 1_000_000  # a worker streams its chunk to the file, a piece at a time
# on a cluster, at least this many chunks (tasks) per core where the range allows
TASKS_PER_CORE = 4
PIECE_SIZE = 16  # locally, the smallest piece: deals in a task sent to a worker
# locally, the largest: a piece is a message to and from the main process, which shares the
# cores with the workers (about 30 µs a deal in pieces of 16, 10 in pieces of 256)
MAX_PIECE_SIZE = 256
PIECES_PER_WORKER = 32  # locally, pieces no larger than to give each worker this many (balance)
CLUSTER_PIECE_SIZE = 10_000  # on a cluster: deals a worker solves between row groups it writes
SAMPLE = 5000  # deals solved by a dry run to time the solver (some seconds)


def nice_up(n: int) -> int:
    """The smallest of 1, 2, 2.5 and 5 times a power of ten that is at least ``n``."""
    scale = 1
    while True:
        for step in (1, 2, 2.5, 5):
            if step * scale >= n and (step * scale) == int(step * scale):
                return int(step * scale)
        scale *= 10


def choose_chunk_size(count: int, *, cluster: bool, cores: int) -> int:
    """Deals per chunk file for a run of ``count`` deals: at least :data:`CHUNK_SIZE`, at most
    what the backend holds well (:data:`LOCAL_MAX_CHUNK`, :data:`CLUSTER_MAX_CHUNK`).  Locally,
    large enough for about :data:`LOCAL_FILES` files (a file's own kilobyte then costs well
    under a byte a deal, and a killed run loses a few seconds); on a cluster, where a chunk is
    a task, for at most about :data:`MAX_FILES` files, and small enough to give every core
    :data:`TASKS_PER_CORE` tasks."""
    size = nice_up(math.ceil(count / (MAX_FILES if cluster else LOCAL_FILES)))
    size = max(CHUNK_SIZE, min(size, CLUSTER_MAX_CHUNK if cluster else LOCAL_MAX_CHUNK))
    if cluster:
        size = min(size, max(1, count // (TASKS_PER_CORE * max(1, cores))))
    return size


def choose_piece_size(chunk_size: int, *, cluster: bool, count: int = 0, workers: int = 1) -> int:
    """Deals a worker solves at a time.  On a cluster :data:`CLUSTER_PIECE_SIZE`; locally a
    power of two from :data:`PIECE_SIZE` to :data:`MAX_PIECE_SIZE`, the largest that still
    gives each of ``workers`` about :data:`PIECES_PER_WORKER` pieces of the run's ``count``
    deals (large pieces: fewer messages for the main process; enough of them: the workers
    finish together).  A power of two divides the row groups' size, so the files' row groups
    are the same whatever the piece size chosen.  Never more than ``chunk_size``."""
    if cluster:
        return min(chunk_size, CLUSTER_PIECE_SIZE)
    size = PIECE_SIZE
    while size < MAX_PIECE_SIZE and 2 * size * PIECES_PER_WORKER * max(1, workers) <= count:
        size *= 2
    return min(chunk_size, size)


def parse_chunks(text: str) -> range:
    """``"A:B"``: chunks A to B-1 of a run."""
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts) \
            or int(parts[0]) >= int(parts[1]):
        raise BatchError(f"bad --chunks {text!r}: expected A:B with 0 <= A < B (chunks A to B-1)")
    return range(int(parts[0]), int(parts[1]))


class Piece(NamedTuple):
    """Deals solved together: part ``k`` of ``count`` of chunk ``chunk``."""

    chunk: int
    k: int
    count: int
    numbers: Sequence[int]


def cut(numbers: Sequence[int], size: int) -> Iterator[Sequence[int]]:
    """``numbers`` cut evenly into parts of at most ``size``, in order, lazily."""
    count = math.ceil(len(numbers) / size)
    for k in range(count):
        yield numbers[round(k * len(numbers) / count) : round((k + 1) * len(numbers) / count)]


@dataclass(frozen=True)
class Plan:
    """How a run's deals are cut: chunk ``i`` holds deals ``i*chunk_size`` to
    ``(i+1)*chunk_size - 1`` of the list; ``selected`` are the chunks this run works on."""

    deals: DealList
    chunk_size: int
    piece_size: int
    selected: Optional[range] = None  # None: every chunk

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise BatchError(f"bad chunk size {self.chunk_size}: "
                             "expected at least 1 deal per chunk")
        if self.piece_size < 1:
            raise BatchError(f"bad piece size {self.piece_size}: "
                             "expected at least 1 deal per piece")
        if self.selected is not None and self.selected.start >= self.nchunks:
            raise BatchError(f"bad --chunks {self.selected.start}:{self.selected.stop}:"
                             f" the run has {self.nchunks} chunks (0 to {self.nchunks - 1})")

    @property
    def nchunks(self) -> int:
        return math.ceil(len(self.deals) / self.chunk_size)

    @property
    def chunks(self) -> range:
        """The indices of the chunks this run works on."""
        every = range(self.nchunks)
        return every if self.selected is None else every[self.selected.start : self.selected.stop]

    def chunk(self, index: int) -> Sequence[int]:
        """The deal numbers of chunk ``index`` (a range for a range of deals)."""
        return self.deals.numbers[index * self.chunk_size : (index + 1) * self.chunk_size]

    def chunk_len(self, index: int) -> int:
        return min(self.chunk_size, len(self.deals) - index * self.chunk_size)

    def deals_in(self, indices: Iterable[int]) -> int:
        """Deals in the chunks ``indices`` (a range is counted without a loop)."""
        if isinstance(indices, range) and indices.step == 1:
            if not indices:
                return 0
            return (len(indices) - 1) * self.chunk_size + self.chunk_len(indices[-1])
        return sum(self.chunk_len(i) for i in indices)

    def pieces(self, indices: Iterable[int]) -> Iterator[Piece]:
        """The pieces of the chunks ``indices``, in order, each at most ``piece_size`` deals."""
        for index in indices:
            chunk = self.chunk(index)
            count = math.ceil(len(chunk) / self.piece_size)
            for k, numbers in enumerate(cut(chunk, self.piece_size)):
                yield Piece(index, k, count, numbers)

    def npieces(self, index: int) -> int:
        return math.ceil(self.chunk_len(index) / self.piece_size)

    def pieces_in(self, indices: Iterable[int]) -> int:
        """Pieces in the chunks ``indices`` (a range is counted without a loop)."""
        if isinstance(indices, range) and indices.step == 1:
            if not indices:
                return 0
            return (len(indices) - 1) * self.npieces(indices[0]) + self.npieces(indices[-1])
        return sum(self.npieces(i) for i in indices)


@dataclass
class Calibration:
    """The solver timed on a sample of a run's deals, in this process."""

    deals: int
    seconds: float  # wall time of the sample, rows made
    spread: float  # relative half-width of the 95 % interval of the time a deal
    bytes_per_deal: float = math.nan  # in the chunk files, from the sample's rows (see price_rows)
    file_bytes: int = 0  # a chunk file's own bytes, whatever its rows (its footer)
    estimate: Optional[Estimate] = None  # the time a deal with its interval (estimate.py)
    seed: Optional[int] = None  # the sample's seed (None: spread evenly over the run)
    cpu_share: float = 1.0  # CPU time over wall time of the sample (below 1: a shared machine)

    @property
    def per_deal(self) -> float:
        return self.seconds / self.deals if self.estimate is None else self.estimate.per_deal

    @property
    def per_deal_range(self) -> tuple[float, float]:
        if self.estimate is None:
            return (self.per_deal * (1 - self.spread), self.per_deal * (1 + self.spread))
        return (self.estimate.low, self.estimate.high)


def calibrate(deals: DealList, budget: int, sample: int = SAMPLE, lines: str = "all",
              neighbours: Optional[Sequence[int]] = None, seed: Optional[int] = None
              ) -> Calibration:
    """Solve ``sample`` deals of ``deals`` as a worker would (spread evenly over them, or drawn
    with ``seed``), time them, estimate the time a deal (:mod:`.estimate`), and price their
    rows in the chunk files (``neighbours``: deal numbers of one chunk, see
    :func:`price_rows`)."""
    from solver import SOLVER_VERSION

    from .backends import solve_piece

    numbers = sample_numbers(deals.numbers, sample, seed)
    solve_piece(numbers[:1], budget)  # untimed: loads the compiled solver and its tables
    t0, c0 = time.perf_counter(), time.process_time()
    rows = solve_piece(numbers, budget)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    # on a shared machine the solver had a core part of the time only: its times (wall
    # clock) are scaled to the CPU time this process had, i.e. to a core of its own
    share = min(1.0, cpu / seconds) if seconds > 0 and cpu > 0 else 1.0
    why_not = model_fits(deals.source, budget, SOLVER_VERSION)
    est = estimate([row["seconds"] * share for row in rows], seconds * share,
                   use_model=not why_not, reason=why_not, seed=0 if seed is None else seed,
                   positions=[row["nodes"] for row in rows])
    spread = max(est.per_deal - est.low, est.high - est.per_deal) / est.per_deal
    per_deal, file_bytes = price_rows(rows, lines == "all", neighbours)
    return Calibration(len(numbers), seconds, spread, per_deal, file_bytes, est, seed, share)


def price_rows(rows: list[dict], lines: bool,
               neighbours: Optional[Sequence[int]] = None) -> tuple[float, int]:
    """(bytes a deal, bytes a file has whatever its rows) of chunk files holding rows like
    ``rows``.

    The deal numbers are delta-coded in a file, so their cost depends on how close a chunk's
    deals are, not on the sample's spread: the rows are priced with the smallest of
    ``neighbours`` (one chunk's numbers) in their place, if given."""
    import io

    from .directory import write_tables
    from .results import SCHEMA, rows_to_table

    if neighbours is not None and len(neighbours) >= len(rows):
        close = (list(neighbours[: len(rows)]) if isinstance(neighbours, range)
                 else sorted(neighbours)[: len(rows)])
        rows = [dict(row, deal=int(n)) for row, n in zip(rows, close)]

    def size(tables) -> int:
        f = io.BytesIO()
        write_tables(f, tables)
        return f.tell()

    # a row group's own bytes (its columns' headers and statistics) go with the file, not the rows
    one = size([rows_to_table(rows[:1], lines)])
    if len(rows) < 2:
        return float(one - size([SCHEMA.empty_table()])), size([SCHEMA.empty_table()])
    per_deal = (size([rows_to_table(rows, lines)]) - one) / (len(rows) - 1)
    return per_deal, max(0, round(one - per_deal))


def size_text(n: float) -> str:
    """Bytes in the unit that suits them: ``820 bytes``, ``3.4 MB``, ``2.9 TB`` (powers of 1000)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} bytes"


def duration(seconds: float) -> str:
    """A time in the unit that suits it: ``42 s``, ``3.5 min``, ``7.2 hours``, ``4.6 days``."""
    if seconds < 90:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.2g} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 86400:.1f} days"


@dataclass
class DryRun:
    """What a run would do (:func:`halfmoon.batch.plan_batch`), and how long it would take."""

    plan: Plan
    out: str
    budget: int
    cluster: bool  # on a Dask cluster (its workers write the files) or here
    cores: int  # the estimate's
    workers: int  # local worker processes (if not on a cluster)
    resumed: bool  # the output holds this run's manifest already
    present: int  # chunk files of the selected chunks already there (checked when the run starts)
    todo_deals: int
    todo_pieces: int
    calibration: Calibration

    lines_mode: str = "all"  # --lines: whether the files keep the winning lines
    cores_only: bool = False  # a cluster priced from --cores alone, without a scheduler

    @property
    def bytes(self) -> float:
        """Bytes of the chunk files still to write, at the sample's bytes a deal."""
        c = self.calibration
        todo_chunks = len(self.plan.chunks) - self.present
        return self.todo_deals * c.bytes_per_deal + todo_chunks * c.file_bytes

    def output_line(self) -> str:
        c = self.calibration
        if c.bytes_per_deal != c.bytes_per_deal:
            return "not priced"
        return (f"about {c.bytes_per_deal:.1f} bytes a deal with --lines {self.lines_mode}"
                f" (the sample's rows in the files' format), {size_text(self.bytes)} to write")

    @property
    def seconds(self) -> float:
        """Solving time of the deals to do on ``cores`` cores at the sample's speed."""
        return self.todo_deals * self.calibration.per_deal / self.cores

    def lines(self) -> list[str]:
        p, c = self.plan, self.calibration
        deals = p.deals
        chunks = p.chunks
        last = p.chunk_len(p.nchunks - 1)
        shape = f"{p.nchunks:,} files of {p.chunk_size:,} deals" + (
            f" (the last {last:,})" if last != p.chunk_size else "")
        if p.selected is not None:
            shape += (f"; this run: chunks {chunks.start:,} to {chunks.stop - 1:,}"
                      f" ({p.deals_in(chunks):,} deals)")
        todo_chunks = len(chunks) - self.present
        if self.cluster:
            tasks = (f"{todo_chunks:,} on the cluster, one a chunk, each worker writing its file;"
                     f" solved in pieces of {p.piece_size:,} deals")
            longest = p.chunk_size * c.per_deal
        else:
            where = "this process" if self.workers == 1 else f"{self.workers} local workers"
            tasks = (f"{self.todo_pieces:,} pieces of at most {p.piece_size:,} deals,"
                     f" solved by {where}; this process writes the files")
            longest = (p.chunk_size * c.per_deal
                       / min(self.cores, max(1, p.npieces(chunks.start))))
        done = (f"{self.present:,} of {len(chunks):,} chunk files present"
                " (checked when the run starts)"
                if self.resumed else "a new run")
        drawn = ("spread over the run" if c.seed is None
                 else f"drawn at random (--sample-seed {c.seed})")
        low, high = (self.todo_deals * x / self.cores for x in c.per_deal_range)
        speed = (c.estimate.describe() if c.estimate is not None
                 else f"{c.per_deal * 1000:.3g} ms a deal (±{c.spread * 100:.0f}%)")
        where = (" (a cluster's plan: a chunk a task)" if self.cluster and self.cores_only
                 else "")
        return [
            f"plan for {self.out}: {len(deals):,} deals ({_source(deals)}), budget {self.budget:,}"
            + where,
            f"  chunks: {shape}",
            f"  tasks:  {tasks}",
            f"  to do:  {self.todo_deals:,} deals; {done}",
            f"  sample: {c.deals:,} deals {drawn}, solved here in {c.seconds:.2f} s"
            + (f" (CPU {c.seconds * c.cpu_share:.2f} s: the machine is shared, the times are"
               " scaled to a core of its own)" if c.cpu_share < 0.95 else ""),
            f"  speed:  {speed}",
            f"  output: {self.output_line()}",
            f"  time:   about {duration(self.seconds)} [{duration(low)} to {duration(high)}]"
            f" on {self.cores:,} core{'s' if self.cores > 1 else ''} at this machine's speed"
            f" ({self.todo_deals * c.per_deal / 3600:,.0f} core-hours);"
            f" a chunk takes about {duration(longest)}",
        ]


def _source(deals: DealList) -> str:
    from .sources import describe_source

    return describe_source(deals.source)
