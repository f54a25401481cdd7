#!/usr/bin/python3
"""The scenario JSON Schema: the committed copy equals what `tmasim schema` prints, every
catalog scenario validates against it, and it refuses what the loader refuses (an unknown
key, an unknown op, a key the op does not take, an unknown rule id).

usage: schema_check.py TMASIM SOURCE_DIR"""
import copy
import json
import pathlib
import subprocess
import sys

import jsonschema
import yaml

tmasim, root = sys.argv[1], pathlib.Path(sys.argv[2])
printed = json.loads(subprocess.run([tmasim, "schema"], check=True, capture_output=True, text=True).stdout)
committed = json.loads((root / "scenarios/scenario.schema.json").read_text())
if printed != committed:
    sys.exit("scenarios/scenario.schema.json is stale: regenerate it with `tmasim schema`")
jsonschema.Draft7Validator.check_schema(printed)
validator = jsonschema.Draft7Validator(printed)

failures, checked = [], 0
for path in sorted((root / "scenarios/catalog").rglob("*.yaml")):
    if "invalid" in path.parts:
        continue  # these fail to load on purpose (encode rules the schema does not state)
    doc = yaml.safe_load(path.read_text())
    errors = list(validator.iter_errors(doc))
    checked += 1
    if errors:
        failures.append(f"{path.relative_to(root)}: {errors[0].message} at {list(errors[0].absolute_path)}")

base = yaml.safe_load((root / "scenarios/catalog/guide/tma_2d_load_modify_store.yaml").read_text())
refused = {
    "an unknown top-level key": lambda d: d.update(pogram=[]),
    "an unknown op": lambda d: d["program"].append({"op": "tma.lod"}),
    "a key the op does not take": lambda d: d["program"].append({"op": "sync", "barrier": "full"}),
    "an unknown rule id": lambda d: d.update(expect={"outcome": "hazard", "rule": "race.nope"}),
    "an unknown dtype": lambda d: d["global"][next(iter(d["global"]))].update(type="f64"),
}
for what, mutate in refused.items():
    doc = copy.deepcopy(base)
    mutate(doc)
    if validator.is_valid(doc):
        failures.append(f"the schema accepts {what}")

for f in failures:
    print(f)
print(f"{checked} catalog scenarios validated, {len(refused)} broken variants refused: "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)
