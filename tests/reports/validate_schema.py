# SPDX-License-Identifier: Apache-2.0
"""Checks that the committed fixture reports satisfy reports/schema/report.schema.json and that the
future-version fixture does not. Exits 77 (skipped) when the jsonschema module is not installed."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("SKIPPED: python3 module jsonschema not installed")
    sys.exit(77)

schema_path, data_dir = sys.argv[1], sys.argv[2]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failed = False
for name in ["simulate-tiled-small", "simulate-naive-small", "synthetic-profile-small", "sweep-small"]:
    errors = list(validator.iter_errors(json.load(open(f"{data_dir}/{name}.json"))))
    for e in errors[:5]:
        print(f"{name}.json: /{'/'.join(str(p) for p in e.path)}: {e.message}")
    failed |= bool(errors)
if validator.is_valid(json.load(open(f"{data_dir}/future-version.json"))):
    print("future-version.json should not satisfy the version-1 schema")
    failed = True
print("schema check:", "FAILED" if failed else "ok")
sys.exit(1 if failed else 0)
