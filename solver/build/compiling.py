"""Three changes to how numba compiles the solver's kernels: less work, the same computation,
and no crash where a tuple returned to Python cannot be made.

- **The inliner's copy of a function.**  Inlining a function (``inline="always"``) starts by
  copying its IR, and numba copies it block by block, each block with a fresh memo, so every
  block copies the function's whole scope (every variable, with its location) again: work
  that grows as blocks times variables.  The depth-first search inlines its expansion, the
  bounds and the projections, hundreds of blocks, into one kernel, and this copying was the
  biggest single part of its compilation.  Here one copy of a function's IR shares one memo:
  every block of the copy refers to one copy of the scope, as the original's blocks do, and
  the inlined result, down to the LLVM code, is the same.
- **Constant arguments between kernels.**  A kernel calling another with a literal argument
  (``_add(..., 2)``, ``luby(1)``, ``projection_verdict(..., PROJ_BUDGET)``) makes numba compile
  the callee once for each literal value besides once for a plain integer: the grouping
  search's helpers were compiled up to six times each.  Calls from compiled code to the
  solver's own kernels here take their arguments' plain types (``int64`` for a literal
  integer), so each helper compiles once.  The callee computes the same; only its own body no
  longer folds the constant (where LLVM inlines it into the caller, the caller's copy still
  does).  A kernel that cannot be typed without the constant (a tuple indexed by it) is
  compiled for it as numba would.  Kernels of other packages (numba's own included) keep
  numba's rule.
- **A tuple returned to Python that cannot be made.**  Handing a named tuple back to Python
  (the grouping search's model, from :func:`~solver.grouping.clause_learning.grouping_run`)
  runs Python code inside the compiled function's wrapper: numba unpickles the class
  (``numba.core.serialize._numba_unpickle``) and calls it.  A Ctrl-C that came while the
  kernel ran is raised there, as KeyboardInterrupt, and numba's boxing does not look: it
  calls the class it failed to get, a NULL pointer, and the process dies of SIGSEGV (or a
  NULL item goes into the enclosing tuple; an array the kernel was given comes back with
  the exception set, a SystemError).  Here tuples, named tuples and arrays are boxed as
  numba boxes them, but an item or class that fails (no object, or an exception set) stops
  the boxing (the items left are released) and the call raises that exception.  This
  applies to every kernel: it changes nothing but the path where numba would crash.

:func:`install` makes the changes, once a process, before anything is compiled (the
package's ``__init__`` calls it); where numba's insides differ from what is expected here, it
leaves them alone and numba compiles as it always does.  The compiled kernels in the cache
are numba's own format either way.
"""

from __future__ import annotations

import copy
import functools
import os

_installed: dict[str, bool] = {}
PACKAGE = __name__.split(".")[0]  # the solver package: its kernels alone get plain arguments


class _SharedMemoCopy:
    """The ``copy`` module as numba's inliner sees it: ``deepcopy`` of an IR block shares a
    memo with the other blocks of the same scope within one inlining."""

    def __init__(self, block_type) -> None:
        self.block_type = block_type
        self.memos: dict[int, dict] = {}

    def deepcopy(self, x, memo=None):
        if memo is None and isinstance(x, self.block_type):
            memo = self.memos.setdefault(id(x.scope), {})
        return copy.deepcopy(x, memo)

    def __getattr__(self, name):
        return getattr(copy, name)


def _share_the_inliners_memo() -> bool:
    try:
        from numba.core import inline_closurecall, ir
    except ImportError:  # pragma: no cover - another numba
        return False
    worker = getattr(inline_closurecall, "InlineWorker", None)
    inline_ir = getattr(worker, "inline_ir", None)
    if inline_ir is None or getattr(inline_closurecall, "copy", None) is not copy:
        return False  # pragma: no cover - another numba
    shim = _SharedMemoCopy(ir.Block)

    @functools.wraps(inline_ir)
    def shared_inline_ir(self, *args, **kwargs):
        # one inlining copies the callee twice (a working copy and the one it returns): each
        # copy's blocks share their scope's memo; nothing is kept past the inlining
        shim.memos.clear()
        try:
            return inline_ir(self, *args, **kwargs)
        finally:
            shim.memos.clear()

    inline_closurecall.copy = shim
    worker.inline_ir = shared_inline_ir
    return True


def _plain_arguments_between_kernels() -> bool:
    try:
        from numba.core import dispatcher, errors, types
    except ImportError:  # pragma: no cover - another numba
        return False
    get_call_template = getattr(dispatcher.Dispatcher, "get_call_template", None)
    if get_call_template is None:
        return False  # pragma: no cover - another numba

    @functools.wraps(get_call_template)
    def plain_call_template(self, args, kws):
        module = getattr(getattr(self, "py_func", None), "__module__", "") or ""
        if module == PACKAGE or module.startswith(PACKAGE + "."):
            plain = tuple(types.unliteral(a) for a in args)
            if plain != tuple(args) or any(types.unliteral(v) != v for v in kws.values()):
                try:
                    return get_call_template(
                        self, plain, {k: types.unliteral(v) for k, v in kws.items()})
                except errors.TypingError:  # a kernel that needs the constant: numba's way
                    pass
        return get_call_template(self, args, kws)

    dispatcher.Dispatcher.get_call_template = plain_call_template
    return True


def _failed(c, obj):
    """Whether boxing made no object, or one with an exception set (numba's array boxing
    returns the array a kernel was given even when getting the array type failed)."""
    from numba.core import cgutils

    return c.builder.or_(cgutils.is_null(c.builder, obj),
                         cgutils.is_not_null(c.builder, c.pyapi.err_occurred()))


def _box_array_checked(box_array):
    """numba's ``box_array``, then NULL where it failed, the exception set (it may return
    the kernel's argument with the exception of getting the array type set)."""

    def box(typ, val, c):
        from numba.core import cgutils

        builder = c.builder
        obj = cgutils.alloca_once_value(builder, box_array(typ, val, c))
        with builder.if_then(_failed(c, builder.load(obj)), likely=False):
            c.pyapi.decref(builder.load(obj))  # Py_DecRef: NULL too
            builder.store(c.pyapi.get_null_object(), obj)
        return builder.load(obj)

    return box


def _box_tuple_checked(typ, val, c):
    """A tuple or named tuple boxed item by item as numba does, but stopping at the first
    item (or class) that fails: the items not boxed yet are released (boxing takes the
    native reference), the tuple made so far too, and NULL is returned with the item's
    exception set, which the wrapper raises."""
    from numba.core import cgutils, types

    builder, pyapi = c.builder, c.pyapi
    out = cgutils.alloca_once_value(builder, pyapi.get_null_object())
    tup = pyapi.tuple_new(typ.count)
    ok = cgutils.alloca_once_value(builder, cgutils.is_not_null(builder, tup))
    for i, dtype in enumerate(typ):
        item = builder.extract_value(val, i)
        with builder.if_else(builder.load(ok), likely=True) as (boxing, failed):
            with boxing:
                obj = c.box(dtype, item)
                bad = _failed(c, obj)
                builder.store(builder.not_(bad), ok)
                with builder.if_else(bad, likely=False) as (dropped, made):
                    with dropped:
                        pyapi.decref(obj)
                    with made:
                        pyapi.tuple_setitem(tup, i, obj)  # steals obj
            with failed:
                if c.context.enable_nrt:
                    c.context.nrt.decref(builder, dtype, item)
    if isinstance(typ, types.BaseNamedTuple):
        with builder.if_then(builder.load(ok), likely=True):
            cls = pyapi.unserialize(pyapi.serialize_object(typ.instance_class))
            with builder.if_then(cgutils.is_not_null(builder, cls), likely=True):
                builder.store(pyapi.call(cls, tup), out)
            pyapi.decref(cls)  # Py_DecRef: NULL too
        pyapi.decref(tup)
    else:
        with builder.if_else(builder.load(ok), likely=True) as (made, failed):
            with made:
                builder.store(tup, out)
            with failed:
                pyapi.decref(tup)
    return builder.load(out)


def _boxing_that_stops_at_a_failure() -> bool:
    try:
        from numba.core import boxing, pythonapi, types
    except ImportError:  # pragma: no cover - another numba
        return False
    boxers = getattr(getattr(pythonapi, "_boxers", None), "functions", None)
    expected = {types.Tuple: "box_tuple", types.UniTuple: "box_tuple",
                types.NamedTuple: "box_namedtuple", types.NamedUniTuple: "box_namedtuple",
                types.Array: "box_array"}
    if not isinstance(boxers, dict) or any(
            boxers.get(t) is not getattr(boxing, name, None) for t, name in expected.items()):
        return False  # pragma: no cover - another numba
    for t in (types.Tuple, types.UniTuple, types.NamedTuple, types.NamedUniTuple):
        boxers[t] = _box_tuple_checked
    boxers[types.Array] = _box_array_checked(boxing.box_array)
    return True


def install() -> dict[str, bool]:
    """Make the changes in this process (once; later calls change nothing); which are in
    place.  With ``HALFMOON_NUMBA_AS_IS=1`` in the environment it changes nothing (to
    measure or compare against numba's own way)."""
    if not _installed:
        off = os.environ.get("HALFMOON_NUMBA_AS_IS", "") not in ("", "0")
        _installed["inliner"] = not off and _share_the_inliners_memo()
        _installed["plain arguments"] = not off and _plain_arguments_between_kernels()
        _installed["boxing checked"] = not off and _boxing_that_stops_at_a_failure()
    return dict(_installed)
