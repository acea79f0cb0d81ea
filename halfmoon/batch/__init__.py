"""Batch runs: many deals solved on every core or on a Dask cluster into a resumable Parquet
dataset (:mod:`.run`), from a range, a sample or a codes file (:mod:`.sources`), through a
backend (:mod:`.backends`) into a results directory (:mod:`.directory`) whose rows follow
the schema of :mod:`.results`."""

from .errors import BatchError
from .run import CHUNK_SIZE, BatchInterrupted, BatchSummary, run_batch
from .sources import (
    DealList,
    deals_from_codes,
    deals_from_numbers,
    deals_from_random,
    deals_from_range,
    parse_range,
)
from .backends import default_workers

__all__ = [
    "BatchError", "BatchInterrupted", "BatchSummary", "CHUNK_SIZE", "DealList", "run_batch",
    "deals_from_codes", "deals_from_numbers", "deals_from_random", "deals_from_range",
    "parse_range", "default_workers",
]
