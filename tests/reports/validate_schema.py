# SPDX-License-Identifier: Apache-2.0
"""Checks that reports the writer produces satisfy reports/schema/report.schema.json (format 2): the
committed fixture reports, the format-2 H200 recordings under tests/data/h200 and, when given, every report in SAMPLE_DIR (written by this build:
reports_json_io_test writes one with every field in use and a converted format-1 recording); and that the
future-version fixture and a format-1 recording do not. Exits 77 (skipped) when the jsonschema module is not
installed.

    validate_schema.py SCHEMA DATA_DIR [SAMPLE_DIR]"""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("SKIPPED: python3 module jsonschema not installed")
    sys.exit(77)

schema_path, data_dir = sys.argv[1], pathlib.Path(sys.argv[2])
sample_dir = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else None
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
failed = False

valid = [data_dir / f"{name}.json"
         for name in ["simulate-tiled-small", "simulate-naive-small", "synthetic-profile-small", "sweep-small"]]
# Format-2 recordings committed under tests/data/h200 (written by `attnscope profile`/`run` on the GPU).
for path in sorted((data_dir.parent / "h200").rglob("*.json")):
    try:
        doc = json.load(open(path))
    except ValueError:
        continue
    if isinstance(doc, dict) and doc.get("format_version") == 2:
        valid.append(path)
if sample_dir is not None:
    samples = sorted(sample_dir.glob("*.json"))
    if not samples:
        print(f"no written reports in {sample_dir}")
        failed = True
    valid += samples
for path in valid:
    errors = list(validator.iter_errors(json.load(open(path))))
    for e in errors[:5]:
        print(f"{path.name}: /{'/'.join(str(p) for p in e.path)}: {e.message}")
    failed |= bool(errors)
    print(f"{path.name}: {'FAILED' if errors else 'ok'}")

invalid = [data_dir / "future-version.json",
           data_dir.parent / "h200" / "h200-20261202T171145Z" / "llm-4k-tiled-br128-bc64-w4.json"]
for path in invalid:
    if path.exists() and validator.is_valid(json.load(open(path))):
        print(f"{path.name} (format {json.load(open(path))['format_version']}) should not satisfy the format-2 schema")
        failed = True
print("schema check:", "FAILED" if failed else "ok")
sys.exit(1 if failed else 0)
