"""Where a run's findings are written: beside the run (its ``_findings/``) or in ``--out``,
never over another run's page unless asked; the stages derived there and the page drawn
from their data (:func:`~halfmoon.report.findings.write_page`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional, Union

from halfmoon.game.errors import HalfMoonError

from .findings import write_page

PAGE_NAME, DATA_NAME = "findings.md", "findings"


def default_out(census: Union[str, Path], work: Union[str, Path, None] = None) -> Path:
    """Where ``halfmoon findings`` writes without ``--out``: beside the run, in its
    ``_findings/`` (as ``findings.md`` and ``findings/``, names no stage's pieces use), or in
    ``work`` for a run at a URL."""
    from halfmoon.research.findings import _work_dir

    return _work_dir(census, work)


def check_out(out: Union[str, Path], census: Union[str, Path], force: bool = False,
              partial: bool = False, manifest: Optional[dict] = None) -> Optional[str]:
    """Before any work: refuse to write the page of ``census`` into ``out`` where ``out``
    holds the page of another run, unless ``force``; then the words for what is replaced.
    None where ``out`` holds no page, or one of this run.  ``manifest``: the run's, where
    it is not yet written (runs pooled, :func:`~halfmoon.research.pool.pooled_run`)."""
    from halfmoon.batch.state import run_state
    from halfmoon.research.census import FindingsError
    from halfmoon.research.findings import census_command, run_identity, same_run

    if manifest is not None:  # runs pooled, each finished
        from halfmoon.batch.state import RunState

        st = RunState(int(manifest["deals"]["count"]), "complete", None, manifest)
    else:
        st = run_state(census)
    if st.manifest is None:
        return None  # open_census names what is wrong
    if not partial and not st.finished:
        done = _done(census)
        raise FindingsError(f"{census}: {'; '.join(st.lines(done))}; findings are of a finished "
                            "run (--partial derives them from the deals it holds so far, and the "
                            "page says so)")
    out = Path(out)
    page, summary = out / PAGE_NAME, out / DATA_NAME / "summary.json"
    if not page.exists() and not summary.exists():
        return None
    try:
        old = json.loads(summary.read_text(encoding="utf-8")) if summary.exists() else {}
    except (OSError, ValueError):
        old = {}
    if "run" in old:
        same = same_run(old["run"], run_identity(st.manifest, str(census)))
    else:  # findings made before the run was kept: its batch command, wherever it wrote
        here = census_command(st.manifest, str(census)).split(" --out ")[0]
        same = "command" in old and old["command"].split(" --out ")[0] == here
    if same:
        return None
    what = (f"the page of another run ({old['command'].splitlines()[0]}, "
            f"{int(old.get('deals', 0)):,} deals, "
            f"made {str(old.get('created', '?'))[:10]})" if "command" in old
            else "a page of unknown origin")
    if not force:
        raise FindingsError(f"{out} holds {what}: --force replaces it ({PAGE_NAME} and the data "
                            f"in {DATA_NAME}/), or choose another --out")
    return what


def _done(census) -> int:
    from halfmoon.research.census import dataset_rows
    from halfmoon.research.scan import open_dataset

    try:
        return dataset_rows(open_dataset(census))
    except HalfMoonError:
        return 0


def write_findings(census: Union[str, Path], out: Union[str, Path, None] = None, *,
                   force: bool = False, partial: bool = False, formats=(), **options) -> Path:
    """Derive the findings from a run, keep their data in ``out/findings/`` and write
    ``out/findings.md`` (``out``: default beside the run, :func:`default_out`).  Refuses to
    replace another run's page unless ``force``, and an unfinished run unless ``partial``."""
    from halfmoon.research.findings import derive, save_data

    given = out
    out = default_out(census, options.get("work")) if out is None else Path(out)
    check_out(out, census, force=force, partial=partial)
    derived = derive(census, partial=partial, **options)
    derived["summary"]["out"] = None if given is None else str(given)
    data_dir = save_data(derived, out / DATA_NAME)
    return write_page(data_dir, out / PAGE_NAME, formats)


def write_fair(census: Union[str, Path], out: Union[str, Path, None] = None, *,
               force: bool = False, formats=(), **options) -> Path:
    """Add the fair-play stage to the findings in ``out/findings/`` (derived from ``census``)
    and redraw ``out/findings.md``.  Where the run changed since those findings (it grew, or
    was redone), every stage is brought up to date with the options they were made with
    (:func:`write_findings`; the stages whose rows did not change are read back), so that the
    page never mixes states of its run.  A ``confidence`` other than the findings' own is
    refused: the page would give intervals at two."""
    from halfmoon.batch.state import run_state
    from halfmoon.research.findings import RunChanged, derive_fair, findings_options, save_fair

    given = out
    out = default_out(census, options.get("work")) if out is None else Path(out)
    st = run_state(census)
    check_out(out, census, force=force, partial=not st.finished)
    data_dir = out / DATA_NAME
    asked = options.pop("confidence", None)
    if asked is not None and (data_dir / "summary.json").exists():
        own = float(json.loads((data_dir / "summary.json").read_text(encoding="utf-8"))
                    .get("confidence", 0.95))
        if float(asked) != own:
            from halfmoon.research.census import FindingsError

            raise FindingsError(f"{out}: these findings give {own:g} intervals; --fair-only keeps "
                                f"them (run the findings again with --confidence {float(asked):g}"
                                " for all of them)")
    try:
        fair = derive_fair(census, data_dir, **options)
    except RunChanged as exc:
        if options.get("progress", True):
            print(f"halfmoon: {exc}: every stage is brought up to date, not only the fair-play "
                  "one", file=sys.stderr, flush=True)
        return write_findings(census, given, force=True, partial=not st.finished,
                              formats=formats, **findings_options(data_dir), **options)
    save_fair(fair, data_dir)
    return write_page(data_dir, out / PAGE_NAME, formats)
