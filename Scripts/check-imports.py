#!/usr/bin/env python3
"""Fails when a Swift file imports a module its target does not declare in Package.swift.

Debug builds can pass such a file by build order alone, and release or clean builds then fail
with "no such module"; run by .ci/run before the tests.
"""
import json, pathlib, re, subprocess, sys

description = json.loads(subprocess.run(["swift", "package", "dump-package"], capture_output=True,
                                         text=True, check=True).stdout)
toolchain = {"Foundation", "FoundationXML", "FoundationNetworking", "Testing", "XCTest", "Glibc", "Darwin",
             "Dispatch", "Synchronization"}
problems = 0
for target in description["targets"]:
    declared = set()
    for dependency in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                declared.add(dependency[kind][0])
    folder = pathlib.Path(target.get("path") or (("Tests/" if target["type"] == "test" else "Sources/") + target["name"]))
    for source in sorted(folder.rglob("*.swift")):
        for match in re.finditer(r"^(?:@testable )?import (\w+)", source.read_text(), re.M):
            module = match.group(1)
            if module not in toolchain and module != target["name"] and module not in declared:
                print(f"{source}: imports {module}, which {target['name']} does not depend on in Package.swift")
                problems += 1
sys.exit(1 if problems else 0)
