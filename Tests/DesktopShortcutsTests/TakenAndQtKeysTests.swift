@testable import DesktopShortcuts
import Glibc
import XCTest

/// KDE's Qt key names read back, the comma key refused on KDE, and a key another shortcut holds
/// refused on GNOME and KDE: with the desktops' real tools (kwriteconfig5/kreadconfig5, gsettings
/// on its keyfile backend) in a temporary home, so the person's own settings are never touched.
final class TakenAndQtKeysTests: XCTestCase {
    private var saved: [String: String?] = [:]
    private var home = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/time-shortcuts-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw XCTSkip("no temporary folder") }
        home = String(cString: template)
        for (name, value) in ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
                              "GSETTINGS_BACKEND": "keyfile"] {
            saved[name] = getenv(name).map { String(cString: $0) }
            setenv(name, value, 1)
        }
        _ = mkdir(home + "/.config", 0o755)
    }

    override func tearDown() {
        for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } }
        _ = Run.tool(["rm", "-rf", home])
    }

    private var environment: [String: String] {
        ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share"]
    }

    private func kde() throws -> Shortcuts {
        guard Run.exists("kwriteconfig5"), Run.exists("kreadconfig5") else { throw XCTSkip("kwriteconfig5/kreadconfig5 not installed") }
        return Shortcuts(desktop: .kde, environment: environment)
    }

    func testQtNamesReadBack() {
        XCTAssertEqual(KeyCombo("Meta+Del"), KeyCombo(modifiers: [.superKey], key: "Delete"))
        XCTAssertEqual(KeyCombo("Ctrl+PgUp")?.key, "Page_Up")
        XCTAssertEqual(KeyCombo("Meta+Media Play")?.key, "AudioPlay")
        XCTAssertEqual(KeyCombo("Meta+ScrollLock")?.key, "Scroll_Lock")
        XCTAssertEqual(KeyCombo("Meta+Esc")?.key, "Escape")
    }

    func testSuperDeleteRoundTripsOnKde() throws {
        let shortcuts = try kde()
        let key = try XCTUnwrap(KeyCombo("Super+Delete"))
        try shortcuts.set(key, for: .toggle)
        XCTAssertEqual(try shortcuts.show(.toggle)?.key, key)
        XCTAssertTrue(try shortcuts.remove(.toggle))
        XCTAssertNil(try shortcuts.show(.toggle))
    }

    func testCommaKeyRefusedOnKde() throws {
        let shortcuts = try kde()
        XCTAssertThrowsError(try shortcuts.set(KeyCombo(modifiers: [.superKey], key: "comma"), for: .toggle)) { error in
            XCTAssertTrue("\(error)".contains("Super+period"), "\(error)")
        }
        XCTAssertNil(try shortcuts.show(.toggle))
        XCTAssertEqual(access(KdeShortcuts.desktopFile(.toggle, environment: environment), F_OK), -1)
    }

    func testTakenKeyRefusedOnKde() throws {
        let shortcuts = try kde()
        let other = "[org.kde.spectacle.desktop]\n_k_friendly_name=Spectacle\nRectangularRegionScreenShot=Meta+Shift+Print\tMeta+Del,Meta+Shift+Print,Capture Rectangular Region\n"
        let file = KdeConflicts.file(environment: environment)
        let handle = try XCTUnwrap(fopen(file, "w"))
        fputs(other, handle)
        fclose(handle)
        XCTAssertThrowsError(try shortcuts.set(XCTUnwrap(KeyCombo("Super+Delete")), for: .toggle)) { error in
            XCTAssertTrue("\(error)".contains("Capture Rectangular Region"), "\(error)")
        }
        XCTAssertNil(try shortcuts.show(.toggle))
        XCTAssertEqual(KdeConflicts.read(environment: environment), other)
        try shortcuts.set(XCTUnwrap(KeyCombo("Super+F9")), for: .toggle)
        XCTAssertEqual(try shortcuts.show(.toggle)?.key.label, "Super+F9")
    }

    func testTakenKeyRefusedOnGnome() throws {
        guard Run.tool(["gsettings", "list-keys", GnomeShortcuts.schema]).status == 0 else { throw XCTSkip("no media-keys schema") }
        let shortcuts = Shortcuts(desktop: .gnome, environment: environment)
        let theirs = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/"
        let place = GnomeShortcuts.relocatable + ":" + theirs
        XCTAssertEqual(Run.tool(["gsettings", "set", place, "name", "Files"]).status, 0)
        XCTAssertEqual(Run.tool(["gsettings", "set", place, "binding", "<Super>Delete"]).status, 0)
        XCTAssertEqual(Run.tool(["gsettings", "set", GnomeShortcuts.schema, "custom-keybindings", "['\(theirs)']"]).status, 0)
        XCTAssertThrowsError(try shortcuts.set(XCTUnwrap(KeyCombo("Super+Delete")), for: .toggle)) { error in
            XCTAssertTrue("\(error)".contains("\"Files\""), "\(error)")
        }
        XCTAssertEqual(try GnomeShortcuts.list(), [theirs])
        XCTAssertNil(try shortcuts.show(.toggle))
        if Run.tool(["gsettings", "get", "org.gnome.desktop.wm.keybindings", "close"]).output.contains("<Alt>F4") {
            XCTAssertThrowsError(try shortcuts.set(XCTUnwrap(KeyCombo("Alt+F4")), for: .toggle)) { error in
                XCTAssertTrue("\(error)".contains("close"), "\(error)")
            }
        }
        try shortcuts.set(XCTUnwrap(KeyCombo("Super+F9")), for: .toggle)
        XCTAssertEqual(try GnomeShortcuts.list(), [theirs, GnomeShortcuts.path(.toggle)])
        XCTAssertEqual(Run.tool(["gsettings", "get", place, "binding"]).output.trimmingSpaces, "'<Super>Delete'")
    }
}
