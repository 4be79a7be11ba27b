# SPDX-License-Identifier: GPL-2.0
"""python3 -m mmbk TOOL ARGS... - run one tool of the kit's Python package.

Each tool is a module with main(argv) returning an exit status; an Error it
raises is printed as the one error line "<tool>: error: <problem>; <fix>".
"""

import importlib
import sys

from mmbk import EXIT_USAGE, Error

TOOLS = {
    'tables': 'tables',
    'ktap': 'ktap',
    'results': 'results',
    'reanchor': 'reanchor',
    'abi-report': 'abi_report',
    'bench-report': 'bench_report',
    'bench-kit-report': 'bench_kit_report',
    'ci-templates': 'ci_templates',
    'kselftest': 'kselftest',
}


def main(argv):
    if not argv or argv[0] not in TOOLS:
        got = f"unknown tool '{argv[0]}'" if argv else 'no tool given'
        print(f'mmbk: error: {got}; use one of: {" ".join(TOOLS)}', file=sys.stderr)
        return EXIT_USAGE
    tool = argv[0]
    module = importlib.import_module(f'mmbk.{TOOLS[tool]}')
    try:
        return module.main(argv[1:])
    except Error as e:
        print(f'{tool}: error: {e.problem}; {e.fix}', file=sys.stderr)
        return e.status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
