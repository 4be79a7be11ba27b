#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""check-schema.py SCHEMA FILE... - validate YAML files against a JSON
schema the way check-jsonschema does (YAML 1.2 with ruamel.yaml, the
validator of the schema's $schema draft, format checking), with Debian 12's
python3-jsonschema and python3-ruamel.yaml: check-jsonschema itself (Debian
sid, 0.25.0) needs jsonschema >= 4.18, which Debian 12 does not have.  The
schemas are check-jsonschema's vendored ones (tests/ci/schemas/README.md).
One "file: path: message" line per problem; exit 1 if there is any."""

import json
import sys

import jsonschema
from ruamel.yaml import YAML


def main(argv):
    if len(argv) < 3:
        print('check-schema.py: error: usage: check-schema.py SCHEMA FILE...', file=sys.stderr)
        return 2
    with open(argv[1], encoding='utf-8') as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    problems = 0
    for path in argv[2:]:
        with open(path, encoding='utf-8') as f:
            doc = YAML(typ='safe', pure=True).load(f)
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = '.'.join(str(p) for p in err.absolute_path) or '$'
            print(f'{path}: {where}: {err.message}')
            problems += 1
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
