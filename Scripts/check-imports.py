#!/usr/bin/env python3
"""Fails when a Swift file imports a module its target does not declare in Package.swift, or when
a comment cites a document outside the repository.

Debug builds can pass such a file by build order alone, and release or clean builds then fail
with "no such module"; run by .ci/run before the tests. Comments cite README.md or ARCHITECTURE.md
(by a section number that exists), never a design document a reader of the repository cannot open.
"""
import json, pathlib, re, subprocess, sys

description = json.loads(subprocess.run(["swift", "package", "dump-package"], capture_output=True,
                                         text=True, check=True).stdout)
toolchain = {"Foundation", "FoundationXML", "FoundationNetworking", "Testing", "XCTest", "Glibc", "Musl", "Darwin", "Android", "WinSDK", "ucrt",
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

# Citations: "DESIGN §8" named a document that is not in the repository. A "§" must follow
# ARCHITECTURE.md (with a section it has) or an RFC's number; third-party fixtures are not ours.
sections = set(re.findall(r"^## (\d+)\.", pathlib.Path("ARCHITECTURE.md").read_text(), re.M))
for folder in ("Sources", "Tests", "Scripts", "Fuzz"):
    for source in sorted(pathlib.Path(folder).rglob("*")):
        if (source.suffix not in {".swift", ".py", ".sh", ".c", ".h"} or "Fixtures" in source.parts
                or source.resolve() == pathlib.Path(__file__).resolve()):
            continue
        for number, line in enumerate(source.read_text(errors="replace").splitlines(), 1):
            if re.search(r"\bDESIGN\b|DESIGN\.md", line):
                print(f"{source}:{number}: cites DESIGN, a document outside the repository; cite README.md or ARCHITECTURE.md")
                problems += 1
                continue
            for citation in re.finditer(r"(\S*)\s*§\s*(\d+)", line):
                before, section = citation.group(1), citation.group(2)
                if before.endswith("ARCHITECTURE.md"):
                    if section not in sections:
                        print(f"{source}:{number}: cites ARCHITECTURE.md §{section}, which ARCHITECTURE.md does not have")
                        problems += 1
                elif not re.search(r"RFC \d+$", line[:citation.start(2)].rstrip(" §")):
                    print(f"{source}:{number}: cites §{section} of a document outside the repository; cite README.md or ARCHITECTURE.md")
                    problems += 1
sys.exit(1 if problems else 0)
