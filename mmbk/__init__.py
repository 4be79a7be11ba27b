# SPDX-License-Identifier: GPL-2.0
"""mmbk - the kit's Python layer: data tables, KTAP, the one result model
and its writers, and the reports.  The shell calls it as

    PYTHONPATH=KIT_DIR python3 -B -m mmbk TOOL ARGS...     (lib/kit.sh kit_py)

with TOOL one of the names in mmbk/__main__.py.  Every tool reports an
error as one line "<tool>: error: <problem>; <fix>" on stderr and exits
with EXIT_USAGE (bad usage or input) or EXIT_FAILED (a failed check or a
broken document); tools raise Error and __main__ prints it.  No module
looks for the kit's cache: what lives there (a kernel tree's
tools/testing/kunit) is passed in by the shell.
"""

import argparse

EXIT_FAILED = 1
EXIT_USAGE = 64


class Error(Exception):
    """An error of a tool: the problem, how to fix it, the exit status."""

    def __init__(self, problem, fix, status=EXIT_USAGE):
        super().__init__(problem)
        self.problem, self.fix, self.status = problem, fix, status


class ArgumentParser(argparse.ArgumentParser):
    """argparse, with a usage error raised as a one-line Error (exit 64)."""

    def error(self, message):
        raise Error(message, ' '.join(self.format_usage().split()))
