"""Batch runs: many deals solved on every core or on a Dask cluster into a resumable Parquet
dataset (:mod:`.run`), from a range, a sample or a codes file (:mod:`.sources`), cut into
chunks and pieces (:mod:`.plan`), through a backend (:mod:`.backends`, :mod:`.cluster`) into
a results directory (:mod:`.directory`), local or at an fsspec URL (:mod:`.store`), whose
rows follow the schema of :mod:`.results`."""

from .backends import default_workers
from .errors import BatchError
from .plan import CHUNK_SIZE, DryRun, Plan, parse_chunks
from .run import BatchInterrupted, BatchSummary, plan_batch, run_batch
from .sources import (
    DealList,
    deals_from_codes,
    deals_from_numbers,
    deals_from_random,
    deals_from_range,
    parse_range,
)

__all__ = [
    "BatchError", "BatchInterrupted", "BatchSummary", "CHUNK_SIZE", "DealList", "DryRun", "Plan",
    "run_batch", "plan_batch", "parse_chunks",
    "deals_from_codes", "deals_from_numbers", "deals_from_random", "deals_from_range",
    "parse_range", "default_workers",
]
