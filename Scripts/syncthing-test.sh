#!/usr/bin/env bash
# Two libraries synced through two real Syncthing instances (Debian's `syncthing`), on 127.0.0.1
# only: global discovery, local discovery, relays, NAT traversal, usage reports and upgrades off.
# Each library's `vacation sync` writes into its own instance's folder; Syncthing carries the
# change files between them. The script checks that the libraries converge (photos, tags,
# places and albums equal, `check` passes on both) after edits on each side and concurrent edits
# of the same photos, and prints how long each change took to arrive. CI need not run it.
#
#   Scripts/syncthing-test.sh            (needs: apt-get install syncthing, python3, curl)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v syncthing >/dev/null || { echo "syncthing is not installed (apt-get install syncthing)" >&2; exit 69; }
swift build --product vacation >/dev/null
vacation_binary="$PWD/.build/debug/vacation"
work="$(mktemp -d /tmp/vacation-syncthing.XXXXXX)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

gui_port=(0 28384 28385)
listen_port=(0 28001 28002)
api_key="vacation-syncthing-test-key"
for side in 1 2; do
    syncthing generate --home="$work/st$side" --no-default-folder --skip-port-probing >/dev/null 2>&1
    mkdir -p "$work/shared$side"
done
id1="$(syncthing serve --home="$work/st1" --device-id)"
id2="$(syncthing serve --home="$work/st2" --device-id)"
for side in 1 2; do
    other=$((3 - side))
    python3 - "$work/st$side/config.xml" "$id1" "$id2" "$side" "${gui_port[$side]}" "${listen_port[1]}" "${listen_port[2]}" \
        "$work/shared$side" "$api_key" <<'PY'
import sys
path, id1, id2, side, gui, listen1, listen2, folder, key = sys.argv[1:]
listen = {"1": listen1, "2": listen2}
def device(ident, number):
    return (f'<device id="{ident}" name="side{number}" compression="metadata" introducer="false">'
            f'<address>tcp://127.0.0.1:{listen[number]}</address></device>')
config = f"""<configuration version="36">
  <folder id="vacations" label="vacations" path="{folder}" type="sendreceive" rescanIntervalS="5"
          fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
    <device id="{id1}"></device><device id="{id2}"></device>
  </folder>
  {device(id1, "1")}
  {device(id2, "2")}
  <gui enabled="true" tls="false"><address>127.0.0.1:{gui}</address><apikey>{key}</apikey></gui>
  <options>
    <listenAddress>tcp://127.0.0.1:{listen[side]}</listenAddress>
    <globalAnnounceEnabled>false</globalAnnounceEnabled>
    <localAnnounceEnabled>false</localAnnounceEnabled>
    <relaysEnabled>false</relaysEnabled>
    <natEnabled>false</natEnabled>
    <startBrowser>false</startBrowser>
    <urAccepted>-1</urAccepted>
    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
    <crashReportingEnabled>false</crashReportingEnabled>
    <stunServer></stunServer>
  </options>
</configuration>
"""
open(path, "w").write(config)
PY
    STNOUPGRADE=1 syncthing serve --home="$work/st$side" --no-browser --no-restart --logfile="$work/st$side.log" >/dev/null 2>&1 &
    pids+=($!)
done

rest() { curl -fsS -H "X-API-Key: $api_key" "$@"; }
for side in 1 2; do
    for _ in $(seq 1 100); do rest "http://127.0.0.1:${gui_port[$side]}/rest/system/ping" >/dev/null 2>&1 && break; sleep 0.2; done
done
connected() { rest "http://127.0.0.1:${gui_port[1]}/rest/system/connections" | python3 -c "import json,sys; print(json.load(sys.stdin)['connections']['$id2']['connected'])"; }
start=$(date +%s.%N)
for _ in $(seq 1 150); do [ "$(connected 2>/dev/null || echo False)" = "True" ] && break; sleep 0.2; done
[ "$(connected)" = "True" ] || { echo "the two Syncthing instances did not connect; logs in $work (KEEP=1 keeps them)" >&2; exit 1; }
echo "Syncthing instances connected in $(python3 -c "print(round($(date +%s.%N) - $start, 1))") s"

vacation() { local side="$1"; shift; "$vacation_binary" --library "$work/library$side" "$@"; }
scan() { rest -X POST "http://127.0.0.1:${gui_port[$1]}/rest/db/scan?folder=vacations" >/dev/null; }
# Syncs `side` again and again until it has applied `files` more change files, or 60 s pass;
# prints the seconds it took.
await() {
    local side="$1" wanted="$2" began now received=0
    began=$(date +%s.%N)
    for _ in $(seq 1 300); do
        now=$(vacation "$side" sync Trip --folder "$work/shared$side" --json 2>/dev/null \
              | python3 -c "import json,sys; print(json.load(sys.stdin)['files'])")
        received=$((received + now))
        [ "$received" -ge "$wanted" ] && { python3 -c "print(round($(date +%s.%N) - $began, 2))"; return 0; }
        sleep 0.2
    done
    echo "side $side did not receive $wanted change files within 60 s" >&2
    exit 1
}
same() {
    for command in "photos --json" "tags --json" "places --json" "album list --json"; do
        if ! diff <(vacation 1 $command --vacation Trip) <(vacation 2 $command --vacation Trip) >/dev/null; then
            echo "the libraries differ in '$command'" >&2; exit 1
        fi
    done
    vacation 1 check Trip >/dev/null && vacation 2 check Trip >/dev/null
}

# 1. A vacation made on side 1 reaches side 2, which did not have it.
vacation 1 import SampleData/lisbon-porto.xml --vacation Trip >/dev/null
vacation 1 album create Towers --where "ANY tags.name == 'tower'" --vacation Trip >/dev/null
sent=$(vacation 1 sync Trip --folder "$work/shared1" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['sent'])")
scan 1
first=$(await 2 1)
same
echo "1. a new vacation (${sent} changes) went from side 1 to side 2 in ${first} s"

# 2. Edits on side 2 come back: an import, an unvisit.
vacation 2 import SampleData/kyoto.json --vacation Trip >/dev/null
gone=$(vacation 2 photos --json --vacation Trip | python3 -c "import json,sys; print(json.load(sys.stdin)[0]['id'])")
vacation 2 unvisit "$gone" --vacation Trip >/dev/null
vacation 2 sync Trip --folder "$work/shared2" >/dev/null
scan 2
second=$(await 1 1)
same
echo "2. an import and an unvisit went from side 2 to side 1 in ${second} s"

# 3. Both sides edit the same photos before either hears of the other: a toggle on one side, a
#    re-import with other tags and places on the other, an unvisit of one photo against a visit.
photo=$(vacation 1 photos --json --vacation Trip | python3 -c "import json,sys; print(json.load(sys.stdin)[1]['id'])")
vacation 1 unvisit "$photo" --vacation Trip >/dev/null
vacation 1 import SampleData/new-york.xml --vacation Trip >/dev/null
vacation 2 import SampleData/lisbon-porto.xml --vacation Trip --place "Somewhere Else" --exclude-tag lisbon >/dev/null
vacation 2 import SampleData/iceland.jsonp --vacation Trip >/dev/null
vacation 1 sync Trip --folder "$work/shared1" >/dev/null
vacation 2 sync Trip --folder "$work/shared2" >/dev/null
scan 1; scan 2
third_a=$(await 1 1)
third_b=$(await 2 1)
# Each side sent what it merged; one more round settles both.
vacation 1 sync Trip --folder "$work/shared1" >/dev/null; vacation 2 sync Trip --folder "$work/shared2" >/dev/null
scan 1; scan 2
sleep 3
for side in 1 2; do vacation "$side" sync Trip --folder "$work/shared$side" >/dev/null; done
same
photos=$(vacation 1 photos --json --vacation Trip | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")
files=$(find "$work/shared1/Trip" -name '*.change' | wc -l)
bytes=$(find "$work/shared1/Trip" -name '*.change' -printf '%s\n' | awk '{s+=$1} END {print s}')
echo "3. concurrent edits on both sides settled alike: ${third_a} s and ${third_b} s to arrive"
echo "converged: ${photos} photos on both sides, check passes on both; ${files} change files, ${bytes} bytes in the folder"

# 4. Side 2 undoes its latest operation (a sync that applied side 1's edits, as the rounds above
#    leave it): what the undo put back is side 2's edit, and it reaches side 1.
before=$(vacation 1 photos --json --vacation Trip | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")
undone=$(vacation 2 undo Trip --json | python3 -c "import json,sys; print(json.load(sys.stdin)['undone']['author'])")
undo_sent=$(vacation 2 sync Trip --folder "$work/shared2" --json | python3 -c "import json,sys; print(json.load(sys.stdin)['sent'])")
scan 2
if [ "$undo_sent" -gt 0 ]; then fourth=$(await 1 1); else fourth=0; fi
same
after=$(vacation 1 photos --json --vacation Trip | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")
echo "4. side 2 undid its latest operation ('${undone}'): ${undo_sent} changes reached side 1 in ${fourth} s (${before} photos before, ${after} after, the same on both sides)"
