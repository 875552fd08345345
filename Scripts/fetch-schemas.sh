#!/usr/bin/env bash
# The XML schemas the export tests validate against, fetched once into .build/schemas/:
#   kml22/ogckml22.xsd   OGC KML 2.2 (with its Atom and xAL imports), as the PyPI package pykml
#                        0.2.0 ships them (BSD; the schemas are OGC's and OASIS's), checked by the
#                        wheel's SHA-256, the xAL import pointed at the local copy.
# GPX 1.1's schema is not shipped by any Debian or PyPI package found here: GPX exports are read
# back by Python's parsers instead (ExportFormatTests). CI runs this script (.ci/run); without
# it, ExportSchemaTests says how to get the schemas and is skipped outside CI.
set -euo pipefail
cd "$(dirname "$0")/.."
destination=.build/schemas/kml22
[ -f "$destination/ogckml22.xsd" ] && exit 0
mkdir -p "$destination"
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT
python3 -m pip download --quiet --no-deps --only-binary :all: pykml==0.2.0 -d "$download"
python3 - "$download/pykml-0.2.0-py3-none-any.whl" "$destination" <<'PYTHON'
import hashlib, sys, zipfile
wheel, destination = sys.argv[1], sys.argv[2]
expected = "bd4e259527a88c3b3d0d264c133b8b05bfc457efca37467f7f891b6be937d60e"
if hashlib.sha256(open(wheel, "rb").read()).hexdigest() != expected:
    sys.exit("fetch-schemas: pykml-0.2.0-py3-none-any.whl does not have the expected SHA-256")
with zipfile.ZipFile(wheel) as archive:
    for name in ("ogckml22.xsd", "atom-author-link.xsd", "xAL.xsd"):
        text = archive.read("pykml/schemas/" + name).decode("utf-8")
        text = text.replace("http://docs.oasis-open.org/election/external/xAL.xsd", "xAL.xsd")
        open(f"{destination}/{name}", "w", encoding="utf-8").write(text)
PYTHON
echo "fetch-schemas: KML 2.2 schema in $destination"
