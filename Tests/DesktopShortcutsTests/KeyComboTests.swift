@testable import DesktopShortcuts
import XCTest

/// A key as each desktop spells it, read from every spelling a person or a desktop writes; the
/// desktop of a session; GSettings' list text. Pure: no desktop needed.
final class KeyComboTests: XCTestCase {
    func testEverySpellingReadsToTheSameKey() throws {
        let superT = KeyCombo(modifiers: [.superKey], key: "t")
        for text in ["<Super>t", "<Super>T", "Super+T", "super+t", "Meta+T", "Mod4+t", "<Mod4>t"] {
            XCTAssertEqual(KeyCombo(text), superT, text)
        }
        let chord = KeyCombo(modifiers: [.control, .alt], key: "F9")
        for text in ["<Primary><Alt>F9", "<Control><Alt>f9", "Ctrl+Alt+F9", "ctrl + alt + F9", "Mod1+Ctrl+F9"] {
            XCTAssertEqual(KeyCombo(text), chord, text)
        }
        XCTAssertEqual(KeyCombo("Ctrl++")?.key, "plus")
        XCTAssertEqual(KeyCombo("<Shift><Super>space"), KeyCombo(modifiers: [.shift, .superKey], key: "space"))
        for bad in ["", "<Super>", "Super+", "<Hyper>t", "Super+ü", "Super+F36", "Super+tt", "Foo+t", "<Super"] {
            XCTAssertNil(KeyCombo(bad), bad)
        }
    }

    func testEachDesktopsSpelling() throws {
        let key = try XCTUnwrap(KeyCombo("Ctrl+Super+Shift+t"))
        XCTAssertEqual(key.gtk, "<Control><Shift><Super>t")
        XCTAssertEqual(key.kde, "Meta+Ctrl+Shift+T")
        XCTAssertEqual(key.sway, "Mod4+Ctrl+Shift+t")
        XCTAssertEqual(key.label, "Super+Ctrl+Shift+T")
        XCTAssertEqual(KeyCombo("Alt+Page_Down")?.kde, "Alt+PgDown")
        XCTAssertEqual(KeyCombo("Alt+Page_Down")?.sway, "Mod1+Page_Down")
        // Read back, each spelling is the same key.
        XCTAssertEqual(KeyCombo(key.gtk), key)
        XCTAssertEqual(KeyCombo(key.kde), key)
        XCTAssertEqual(KeyCombo(key.sway), key)
    }

    func testTheSessionsDesktop() {
        XCTAssertEqual(Desktop.detect(["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]), .gnome)
        XCTAssertEqual(Desktop.detect(["XDG_CURRENT_DESKTOP": "KDE"]), .kde)
        XCTAssertEqual(Desktop.detect(["XDG_CURRENT_DESKTOP": "XFCE"]), .xfce)
        XCTAssertEqual(Desktop.detect(["XDG_CURRENT_DESKTOP": "sway"]), .sway)
        XCTAssertEqual(Desktop.detect(["SWAYSOCK": "/run/user/1000/sway-ipc.sock"]), .sway)
        XCTAssertEqual(Desktop.detect(["I3SOCK": "/tmp/i3"]), .i3)
        XCTAssertEqual(Desktop.detect([:]), .other)
    }

    func testTheSwayLineAndTheCommands() {
        let line = Shortcuts.line(KeyCombo(modifiers: [.superKey], key: "t"), .toggle)
        XCTAssertEqual(line, "bindsym Mod4+t exec busctl --user call io.github.timetracker.Time1 /io/github/timetracker/Time1 io.github.timetracker.Time1 Toggle")
        XCTAssertTrue(ShortcutAction.showWeek.command.hasSuffix(" ShowWeeklyReport s \"\""))
    }

    func testGSettingsListsAreReadAndWrittenWithTheirQuotes() {
        XCTAssertEqual(GnomeShortcuts.parseStrings("@as []"), [])
        XCTAssertEqual(GnomeShortcuts.parseStrings("['/a/custom0/', '/b/']\n"), ["/a/custom0/", "/b/"])
        XCTAssertEqual(GnomeShortcuts.parseStrings(GnomeShortcuts.quoted("it's a \\ test")), ["it's a \\ test"])
    }
}
