"""cli/progress: phases are timed, the bar follows them on a terminal only, and the
process clock counts from the interpreter's start."""

from __future__ import annotations

import subprocess
import sys
import time

from repoctx.cli.progress import Phases, process_seconds


def test_phases_add_up_their_seconds():
    phases = Phases(show=True)  # pytest's stderr is no terminal: no bar, no thread
    with phases.phase("export"):
        time.sleep(0.05)
    with phases.phase("export"):
        time.sleep(0.05)
    advance = phases.files(10, 2)
    advance(3)
    phases.close()
    assert 0.1 <= phases.seconds["export"] < 5 and set(phases.seconds) == {"export"}
    assert phases._bar is None


def test_the_process_clock_includes_the_interpreter_start():
    code = "import time; time.sleep(0.3); from repoctx.cli.progress import process_seconds; " \
           "print(process_seconds())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert 0.3 <= float(out) < 30
    assert process_seconds() > 0


def test_steps_follow_done_of_total_in_the_phase_they_name():
    phases = Phases(show=False)
    progress = phases.steps("embed", "source")
    progress(10, 40)
    assert phases._state == ("embed", 40, 10) and phases._unit == "source"
    progress(25, 40)
    assert phases._state == ("embed", 40, 25)
    progress(3, 5)  # a second round (retirements, then embeddings) restarts the count
    assert phases._state == ("embed", 5, 3)
    phases.close()
