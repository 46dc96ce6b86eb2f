"""A repair's static checks made ahead, while the sandbox runs its tests.

The weakening and tampering checks (verify.py, tampering.py) and the question whether a
repair only follows a rename (renamed.py) read only the files: the test file as it was
and as the agent left it. Yet they ran after the repair's verification run, on the host,
one group after another: for a hundred groups repaired together that is about half a
second added after the run, while during the run the host only waits for the sandbox.
`prejudge` makes them in a thread as the run starts, and `per_content` (remembered.py)
keeps each file's answer, so the check after the run finds it made. The answer is the
same function of the same bytes: nothing is judged differently, only earlier. A check
the thread has not reached yet is made after the run.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

from coder.workflows.fix.renamed import only_renamed
from coder.workflows.fix.verify import find_weakenings
from coder.workflows.session import Session


def prejudge(session: Session, files: Mapping[str, bytes]) -> threading.Thread:
    """The static checks of `files` (the agents' writes, about to be run) against the
    files as they were at the start, made in a thread of their own, started."""
    thread = threading.Thread(
        target=_judge, args=(session, dict(files)), name="coder-prejudge", daemon=True
    )
    thread.start()
    return thread


def _judge(session: Session, files: dict[str, bytes]) -> None:
    try:
        find_weakenings(session.files.originals_of(files), files)
        for path, data in sorted(files.items()):  # as strength_of_all asks, file by file
            only_renamed(session, {path: data})
    except Exception:  # only a head start: verify checks again after the run, and says
        return
