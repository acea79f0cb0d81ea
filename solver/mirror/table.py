"""The transposition table: positions proved lost, in one NumPy array of slots.

Each slot is a key and a generation stamp side by side (one 16-byte row of the
C-ordered array ``slots``, so a probe touches one cache line; the kernels index
``slots`` itself, which measured twice as fast as indexing its two columns as
strided views).  On Linux the array is asked for transparent huge pages, so that a
random probe of a large table does not also miss the page-table cache.
Open addressing with linear probing over at most ``MAX_PROBE`` slots, so a full
table never loops: when every probed slot is taken by the current deal, the entry
at the home slot is overwritten (forgetting a lost position is always sound, it
only costs a second search).  Entries are stamped with a generation number, one
per search, so the table is never cleared between deals: a slot whose stamp is
not the current generation counts as empty.  ``tt_prefetch`` asks for a position's
home slot ahead of its probe (the search does it for all children of a position at once).

Most positions a search looks up are new, and the probe of a new position's slot waits
for memory: its line was never read before (the prefetch hides only part of that).  So
the table keeps a *filter* after its slots, one bit per ``2**FILTER_SHIFT`` home slots
(1/1024 of the table's size: 64 KiB for 2**22 positions, small enough to stay in a
core's own caches): storing a position sets the bit of its home slot, a lookup whose bit
is clear returns "absent" without reading a slot, and a new generation clears the
filter.  The filter never hides a stored position of the current generation (every store
sets its bit).  ``tt_contains`` and ``tt_store`` (the search's table of lost positions) go
through the filter; ``tt_get`` and ``tt_put`` (the projected games' table, whose lookups
mostly find what they look for) do not, so a table is used through one pair or the
other.
"""

from __future__ import annotations

import mmap

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

MAX_PROBE = 16
ENTRY_BYTES = 16  # uint64 key + uint64 generation, side by side
FILTER_SHIFT = 3  # one filter bit per 8 home slots, 128 filter bits a row
# 64.5 MiB hold 2**22 (4.2 million) positions (64 MiB) and their filter (64 KiB), about
# what a search of the default budget stores (a fuller table only forgets); batch runs
# keep one per worker.
DEFAULT_MIB = 64.5
_HASH_MUL = np.uint64(0x9E3779B97F4A7C15)


class Table:
    """A transposition table of ``2**bits`` entries and their filter, the largest that
    fits in ``mib`` MiB, reused from search to search."""

    def __init__(self, mib: float = DEFAULT_MIB) -> None:
        if mib <= 0:
            raise ValueError(f"table size must be positive, got {mib} MiB")
        entries = int(mib * 2**20 / (ENTRY_BYTES * (1 + 2.0 ** -(FILTER_SHIFT + 7))))
        bits = max(10, entries.bit_length() - 1)
        self.bits = bits
        rows = 1 << bits
        # the filter: rows >> 10 rows of 128 bits, one row at least since bits >= 10
        self.slots = _zeroed_slots(rows + (rows >> (FILTER_SHIFT + 7)))
        self.keys = self.slots[:rows, 0]
        self.gens = self.slots[:rows, 1]
        self.filter = self.slots[rows:]  # the rows of filter_bit
        self.generation = 0

    @property
    def nbytes(self) -> int:
        return self.slots.nbytes

    def next_generation(self) -> int:
        """Start a new search: every older entry now reads as empty (and the filter,
        64 KiB for the default table, is cleared)."""
        self.generation += 1
        if self.generation >= 2**32 - 1:  # pragma: no cover - after 4 billion searches
            self.slots[:] = 0
            self.generation = 1
        self.filter[:] = 0  # the filter holds this generation's stores only
        return self.generation


def _zeroed_slots(n: int) -> np.ndarray:
    """An ``n`` × 2 uint64 array of zeros, on huge pages where the system offers them
    (anonymous memory comes zeroed; pages are only touched when first used)."""
    nbytes = n * ENTRY_BYTES
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is None or nbytes < 2**21:
        return np.zeros((n, 2), dtype=np.uint64)
    try:
        buf = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        buf.madvise(advice)
    except (OSError, ValueError, AttributeError):  # pragma: no cover - depends on the system
        return np.zeros((n, 2), dtype=np.uint64)
    return np.frombuffer(buf, dtype=np.uint64).reshape(n, 2)


@njit(cache=True, inline='always')
def filter_bit(bits, h):
    """Where the filter bit of home slot ``h`` is: (row of ``slots``, column, shift)."""
    f = h >> FILTER_SHIFT
    return (np.int64(1) << bits) + (f >> 7), (f >> 6) & 1, np.uint64(f & 63)


@njit(cache=True, inline='always')
def _home(pos, bits):
    """The home slot of a position (unsigned arithmetic even when ``pos`` comes typed as
    a signed integer, as a position passed from Python does)."""
    return np.int64((np.uint64(pos) * _HASH_MUL) >> np.uint64(64 - bits))


# LLVM's prefetch intrinsic is named after its pointer type: "p0" with opaque pointers
# (LLVM 15 and later), "p0i8" before.
_PREFETCH = "llvm.prefetch.p0" if llvm.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"


def prefetch_row(arr, row):
    """Ask the processor for the cache line of ``arr[row, 0]``: a hint, with no effect
    on results and no fault on any address.  Compiled, it is LLVM's prefetch; run as
    plain Python (NUMBA_DISABLE_JIT) it does nothing."""


@overload(prefetch_row)
def _prefetch_row_impl(arr, row):
    return lambda arr, row: _prefetch(arr, row)


@intrinsic
def _prefetch(typingctx, arr, row):
    sig = types.void(arr, row)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        zero = ir.Constant(ir.IntType(64), 0)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1], zero],
                                       wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH)
        # read, keep in all cache levels, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline='always')
def tt_prefetch(slots, bits, pos):
    """Start loading the home slot of ``pos`` ahead of its probe: a search that asks for
    all of a position's children at once waits for one memory access, not one each."""
    prefetch_row(slots, _home(pos, bits))


@njit(cache=True, inline='always')
def tt_contains(slots, gen, bits, pos):
    """Whether ``pos`` is stored (read through the filter: see the module's notes)."""
    fr, fc, fs = filter_bit(bits, _home(pos, bits))
    if (slots[fr, fc] >> fs) & np.uint64(1) == np.uint64(0):
        return False  # nothing with this home stored in this generation
    return tt_get(slots, gen, bits, pos, np.uint64(0)) != np.uint64(0)


@njit(cache=True, inline='always')
def tt_store(slots, gen, bits, pos):
    """Store a position; returns 1 if it took a free slot, 0 if it replaced one.  Sets
    the filter bit of its home slot."""
    fr, fc, fs = filter_bit(bits, _home(pos, bits))
    slots[fr, fc] |= np.uint64(1) << fs
    return tt_put(slots, gen, bits, pos, np.uint64(0), np.uint64(0))


@njit(cache=True, inline='always')
def tt_get(slots, gen, bits, key, ignore):
    """The entry stored for ``key`` (never 0), compared outside the bits ``ignore``
    (which hold a value stored with it, and are clear in ``key``); 0 if there is none."""
    mask = (np.int64(1) << bits) - 1
    g = np.uint64(gen)
    h = _home(key, bits)
    for k in range(MAX_PROBE):
        j = (h + k) & mask
        if slots[j, 1] != g:
            return np.uint64(0)
        e = slots[j, 0]
        if e & ~ignore == key:
            return e
    return np.uint64(0)


@njit(cache=True, inline='always')
def tt_put(slots, gen, bits, key, value, ignore):
    """Store ``key`` with ``value`` in the bits ``ignore`` (replacing an earlier value);
    returns 1 if it took a free slot, 0 otherwise.  When every probed slot is taken by
    this generation, the home slot is overwritten."""
    mask = (np.int64(1) << bits) - 1
    g = np.uint64(gen)
    h = _home(key, bits)
    for k in range(MAX_PROBE):
        j = (h + k) & mask
        if slots[j, 1] != g:
            slots[j, 1] = g
            slots[j, 0] = key | value
            return 1
        if slots[j, 0] & ~ignore == key:
            slots[j, 0] = key | value
            return 0
    slots[h, 0] = key | value
    return 0
