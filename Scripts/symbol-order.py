#!/usr/bin/env python3
"""Writes Linking/vacation.order: the functions `vacation` runs in its everyday commands, for the
linker to place side by side (`--symbol-ordering-file`, Package.swift), so that a command touches
few pages of the binary's 18 MB of code. Each page of code touched first costs a page fault
(the kernel maps up to 16 neighbours with it), and scattered, a one-photo `show` took 124 of them.

Runs each command under valgrind's callgrind (names not demangled) on a library of the sample
data, and lists every function any of them ran: those most commands run first, then by name.
A stale list costs nothing but speed: the linker ignores names it does not find, and places new
functions where it would have anyway. Run it after changes to start-up or the everyday commands:

    swift build -c release --product vacation && python3 Scripts/symbol-order.py
"""
import collections, os, re, shutil, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.join(root, ".build/release/vacation")
output = os.path.join(root, "Linking/vacation.order")


def functions_run(stripped, arguments, folder):
    """The mangled names of the functions `vacation arguments` ran in `stripped`."""
    profile = os.path.join(folder, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", "--callgrind-out-file=" + profile, stripped] + arguments,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    names, ran = {}, set()
    binary_name = os.path.basename(stripped)
    current_object = None
    objects = {}
    for line in open(profile, encoding="utf-8", errors="replace"):
        if line.startswith(("ob=", "cob=")):
            match = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
            if match:
                if match.group(2): objects[match.group(1)] = match.group(2)
                if line.startswith("ob="): current_object = objects.get(match.group(1))
            continue
        match = re.match(r"(c?fn)=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
        if not match: continue
        kind, identifier, name = match.groups()
        if name: names[identifier] = re.sub(r"'\d+$", "", name)
        if kind == "fn" and current_object and os.path.basename(current_object) == binary_name:
            ran.add(identifier)
    os.remove(profile)
    return {names[i] for i in ran if i in names and not names[i].startswith("0x")}


def main():
    if not shutil.which("valgrind"): sys.exit("symbol-order: needs valgrind")
    folder = tempfile.mkdtemp(prefix="symbol-order")
    try:
        # valgrind 3.19 cannot read the toolchain's DWARF 5.
        stripped = os.path.join(folder, "vacation")
        subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
        library = os.path.join(folder, "library")
        sample = lambda name: os.path.join(root, "SampleData", name)
        run = lambda *arguments: subprocess.run([binary, "--library", library] + list(arguments),
                                                stdout=subprocess.DEVNULL, check=True)
        run("import", sample("lisbon-porto.xml"), sample("kyoto.json"), sample("iceland.jsonp"), sample("new-york.xml"),
            "--places", sample("top-places.xml"))
        run("--vacation", "Second", "import", sample("kyoto.json"))
        photo = subprocess.run([binary, "--library", library, "photos", "--limit", "1", "--json"], capture_output=True,
                               text=True, check=True).stdout.split('"id": "')[1].split('"')[0]
        commands = [["--version"], ["list"], ["list", "--json"], ["photos", "--limit", "50"], ["photos", "--limit", "50", "--json"],
                    ["photos", "--tag", "temple", "--limit", "50"], ["show", photo], ["show", photo, "--json"],
                    ["tags"], ["tags", "--json"], ["places"], ["places", "--json"], ["search", "temple", "--limit", "20"],
                    ["search", "temple", "--json"], ["check"], ["toggle", photo, "--feed", sample("kyoto.json")],
                    ["toggle", photo, "--feed", sample("kyoto.json")], ["import", sample("kyoto.json")],
                    ["import", sample("new-york.xml")], ["help"], ["photos", "--nonsense"]]
        counts = collections.Counter()
        for arguments in commands:
            counts.update(functions_run(stripped, ["--library", library] + arguments, folder))
        ordered = sorted(counts, key=lambda name: (-counts[name], name))
        with open(output, "w") as file:
            file.write("".join(name + "\n" for name in ordered))
        print(f"symbol-order: {len(ordered)} functions from {len(commands)} commands in {os.path.relpath(output, root)}")
    finally:
        shutil.rmtree(folder)


main()
