#!/bin/sh
# redfish-seeds.sh DIR - write fuzz_redfish seeds built from DMTF's mockups
# ($FALCON_SHARED/fixtures/redfish) into DIR: each seed is a small service,
# records "PATH\nBODY" (compact JSON) separated by NUL bytes.  Nothing is
# written when the fixtures are absent (the fuzzer then starts from scratch).
#
# Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
set -eu
out=$1
mock=${FALCON_SHARED:-}/fixtures/redfish
[ -d "$mock" ] || { echo "redfish-seeds: $mock absent: no seeds"; exit 0; }
mkdir -p "$out"
python3 - "$mock" "$out" <<'PY'
import json, os, sys
mock, out = sys.argv[1], sys.argv[2]
seeds = {
    "cxl": ("public-cxl-multiswitch", ["Fabrics", "Chassis/PooledCXLType1/Processors",
            "Chassis/PooledCXLType2/Processors", "Chassis/PooledCXLType2/PCIeDevices"]),
    "composability": ("public-composability", ["CompositionService"]),
    "compose-action": ("public-compose-action", ["CompositionService/index.json",
            "CompositionService/ResourceBlocks/index.json",
            "CompositionService/ResourceBlocks/NVMe-TargetsAppliance-1",
            "CompositionService/ResourceBlocks/SASSled-1"]),
}
for name, (m, subs) in seeds.items():
    recs = []
    for sub in subs:
        top = os.path.join(mock, m, sub)
        files = [top] if top.endswith(".json") else [
            os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs if f == "index.json"]
        for f in sorted(files):
            rel = os.path.relpath(os.path.dirname(f), os.path.join(mock, m))
            body = json.dumps(json.load(open(f)), separators=(",", ":"))
            recs.append(("/redfish/v1/" + rel + "\n" + body).encode())
    with open(os.path.join(out, name), "wb") as fh:
        fh.write(b"\0".join(recs))
    print("redfish-seeds: %s: %d resources" % (name, len(recs)))
PY
