#!/usr/bin/env bash
# The MSRV claim holds for `cargo test` too: no package the workspace
# resolves (dependencies and dev-dependencies alike, as locked) declares a
# rust-version newer than the workspace's own. (A toolchain of that exact
# version cannot be installed here: the check reads what every package
# declares.)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --locked | python3 -c '
import json, sys
m = json.load(sys.stdin)
ver = lambda v: tuple((list(map(int, v.split("."))) + [0, 0])[:3])
ours = {p["name"]: p["rust_version"] for p in m["packages"] if p["source"] is None}
claim = max(ver(v) for v in ours.values() if v)
shown = ".".join(map(str, claim)).removesuffix(".0")
bad = sorted((p["name"], p["version"], p["rust_version"]) for p in m["packages"]
             if p.get("rust_version") and ver(p["rust_version"]) > claim)
for name, version, rv in bad:
    print(f"msrv: {name} {version} needs Rust {rv}, past the workspace rust-version {shown}")
if bad:
    sys.exit(1)
print(f"msrv: every package declares Rust {shown} or older, as the workspace claims")
'
