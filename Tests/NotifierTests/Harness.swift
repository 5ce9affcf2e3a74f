import CGLib
import Foundation
import TestSupport
import XCTest

/// One private session bus (with no service files, so nothing is ever auto-started) and one Xvfb
/// for the whole test process. libnotify and GDBus keep process-global state bound to the first
/// bus they see, so every test shares this bus and starts or stops the servers it needs on it:
/// dunst runs only while a test has started it.
final class Harness: @unchecked Sendable {
    nonisolated(unsafe) static var shared: Harness?

    let bus: PrivateBus
    let desktop: NotificationDesktop
    /// Where wire logs and screenshots are kept.
    let outputDirectory: String

    static func get() throws -> Harness {
        if let h = shared { return h }
        let h = try Harness()
        shared = h
        XCTestObservationCenter.shared.addTestObserver(NotifierTestObserver())
        return h
    }

    private init() throws {
        outputDirectory = try testOutputDirectory("NotifierTests")
        bus = try PrivateBus()
        do {
            desktop = try NotificationDesktop(bus: bus)
        } catch {
            bus.stop()
            throw error
        }
        desktop.stopDunst()
        // libnotify in this process finds the bus and the display through the environment.
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
        setenv("DISPLAY", desktop.display, 1)
    }

    /// Torn down at the end of the test process (see NotifierTestObserver).
    func tearDownAll() {
        desktop.stop()
        bus.stop()
    }

    func nameHasOwner(_ name: String) -> Bool { bus.hasOwner(name) }

    /// Iterates the global default main context (where onAction is delivered) until cond holds.
    static func iterateMain(seconds: Double, _ cond: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            while g_main_context_iteration(nil, 0) != 0 {}
            if cond() { return true }
            usleep(20_000)
        }
        return cond()
    }
}

final class NotifierTestObserver: NSObject, XCTestObservation {
    func testBundleDidFinish(_ testBundle: Bundle) { Harness.shared?.tearDownAll() }
}
