#!/bin/sh
# Every import of one of the package's own targets names a direct dependency in
# Package.swift. SwiftPM's --explicit-target-dependency-import-check (in CI and the README)
# refuses only imports from outside a target's dependency closure; this also refuses a
# module reached only through another dependency, so that Package.swift states the
# layering exactly as the code uses it.
#   sh scripts/check-imports.sh
set -eu
cd "$(dirname "$0")/.."
swift package describe --type json | python3 -c '
import json, re, sys
package = json.load(sys.stdin)
own = {t["name"] for t in package["targets"]}
importLine = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)")
problems = 0
for target in package["targets"]:
    if target.get("module_type") != "SwiftTarget":
        continue
    name = target["name"]
    allowed = set(target.get("target_dependencies", [])) | set(target.get("product_dependencies", [])) | {name}
    for source in target.get("sources", []):
        path = target["path"] + "/" + source
        with open(path, encoding="utf-8") as file:
            for number, line in enumerate(file, 1):
                match = importLine.match(line)
                if match and match.group(1) in own and match.group(1) not in allowed:
                    print(f"{path}:{number}: {name} imports {match.group(1)}, which is not among its dependencies in Package.swift")
                    problems += 1
sys.exit(1 if problems else 0)
'
