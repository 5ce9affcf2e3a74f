#!/usr/bin/env python3
"""Instructions per change for each part of the durable path, from callgrind_annotate's inclusive
table of the agent's main thread, demangled (scripts/profile-durable-path.sh writes it).
   profile-parts.py INCLUSIVE.txt CHANGES
A part is the largest inclusive count among the functions whose name holds its pattern (a Swift
function shows up under its file and as compiler-generated thunks; the largest is the whole).
"Not seen" means the function was inlined into its caller or never ran."""
import re
import sys

PARTS = [
    ("whole main thread", ["PROGRAM TOTALS"], 0),
    ("D-Bus dispatch of the message (libdbus + ours)", ["dbus_connection_dispatch"], 0),
    ("decode: the message's arguments", ["Message.arguments()"], 1),
    ("change gate (Tracker.change)", ["Tracker.change<"], 1),
    ("BEGIN IMMEDIATE", ["Store.begin()"], 2),
    ("undo: start recording (pre-update hook)", ["UndoHistory.beginStep()"], 2),
    ("change: rows written (per Pause)", ["closure #1 in Tracker.pause()"], 2, 2),
    ("change: rows written (per Resume)", ["closure #1 in Tracker.resume()"], 2, 2),
    ("change: rows written (StartProject)", ["closure #1 in Tracker.startProject("], 2),
    ("change: rows written (Stop)", ["closure #1 in Tracker.stop()"], 2),
    ("change: rows written (EditSession)", ["closure #1 in Tracker.editSession("], 2),
    ("undo: step written (changeset, sentence, rows)", ["UndoHistory.finishStep("], 2),
    ("snapshot + slot (SnapshotKeeper.record)", ["SnapshotKeeper.record("], 2),
    ("day chunks and index chunks written", ["SnapshotKeeper.writeChunk("], 3),
    ("chunks carried in the slot (list, patches)", ["SnapshotKeeper.chunksToCarry("], 3),
    ("payload parts read (PayloadParts)", ["PayloadParts.current("], 3),
    ("payload read and serialised", ["SnapshotFormat.payload("], 3),
    ("payload checksum (SnapshotFormat.file)", ["SnapshotFormat.file("], 3),
    ("kept state file (Files.writeDurably)", ["Files.writeDurably("], 3),
    ("slot: body checksum, write, flush, read back", ["SnapshotSlots.write("], 3),
    ("COMMIT", ["Store.commit()"], 2),
    ("every SHA-256 (GLib's: valgrind hides SHA-NI)", ["g_checksum_update"], 1),
    ("every sqlite3_step", ["sqlite3_step"], 1),
    ("every sqlite3_prepare_v2", ["sqlite3_prepare_v2"], 1),
    ("reply + the work after it (ObjectRegistration.reply)", ["ObjectRegistration.reply("], 1),
    ("after the reply (refreshAfterChange)", ["AgentService.refreshAfterChange()"], 2),
    ("tidy up (old snapshots, next files)", ["SnapshotKeeper.tidyUp()"], 3),
    ("properties computed", ["AgentService.currentProperties("], 3),
    ("PropertiesChanged", ["BusConnection.emitPropertiesChanged("], 3),
    ("reminder timer", ["AgentService.scheduleReminder()"], 3),
    ("timer notification", ["AgentService.updateTimerNotification("], 3),
    ("tray", ["AgentTray.refresh("], 3),
    ("DataRevision etc. (TimerProperties.changes)", ["TimerProperties.changes("], 3),
    ("every malloc", [":malloc"], 1),
]

def main():
    path, changes = sys.argv[1], int(sys.argv[2])
    counts = []
    for line in open(path, errors="replace"):
        match = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)", line)
        if match:
            counts.append((int(match.group(1).replace(",", "")), match.group(2)))
    total = max((c for c, name in counts if "PROGRAM TOTALS" in name), default=1)
    print(f"{'part':<56}{'instructions':>14}{'share':>8}")
    for label, patterns, depth, *share in PARTS:
        per = changes // (share[0] if share else 1)
        found = [c for c, name in counts if any(p in name for p in patterns)]
        if not found:
            print(f"{'  ' * depth + label:<56}{'not seen':>14}")
            continue
        value = max(found)
        print(f"{'  ' * depth + label:<56}{value // per:>14,}{100 * value / total:>7.1f}%")

main()
