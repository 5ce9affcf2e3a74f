import XCTest
@testable import TimeCore

/// Projects and categories: lookups, uniqueness, colors, updates, category deletion.
final class ProjectTests: TrackerTestCase {
    func testLookupIsTrimmedCaseInsensitiveAndUnicodeAware() throws {
        let id = try tracker.createProject(name: "écriture", color: "", category: "")
        XCTAssertEqual(try tracker.resolveProject("Écriture").id, id)
        XCTAssertEqual(try tracker.resolveProject("  ÉCRITURE\t").id, id)
        XCTAssertEqual(try tracker.resolveProject("#\(id)").id, id)
        XCTAssertEqual(try tracker.resolveProject(" #\(id) ").id, id)
        assertTrackerError("NoSuchProject", try tracker.resolveProject("ecriture"))
        assertTrackerError("NoSuchProject", try tracker.resolveProject("#\(id + 1)"))
        XCTAssertEqual(try tracker.startProject("ÉCRITURE"), try tracker.status().session!.id)
        XCTAssertEqual(try tracker.status().project?.name, "écriture")
    }

    func testHashIdNamesTheProjectWithThatId() throws {
        var ids: [ProjectID] = []
        for i in 0..<13 { ids.append(try tracker.createProject(name: "P\(i)", color: "", category: "")) }
        XCTAssertEqual(ids[12], 13)
        XCTAssertEqual(try tracker.resolveProject("#12").name, "P11")
        try tracker.startProject("#12")
        XCTAssertEqual(try tracker.status().project?.id, 12)
    }

    func testDuplicateNamesAreRefused() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Écriture", color: "", category: "")
        for name in ["Writing", "writing", "  WRITING  ", "écriture", "ÉCRITURE"] {
            assertTrackerError("AlreadyExists", try tracker.createProject(name: name, color: "", category: ""))
        }
        XCTAssertEqual(tracker.projects().map(\.name), ["Writing", "Écriture"])
        assertTrackerError("InvalidArgument", try tracker.createProject(name: "   ", color: "", category: ""))
        assertTrackerError("InvalidArgument", try tracker.createProject(name: "two\nlines", color: "", category: ""))
        assertTrackerError("InvalidArgument", try tracker.createProject(name: String(repeating: "x", count: 201), color: "", category: ""))
        XCTAssertNoThrow(try tracker.createProject(name: String(repeating: "x", count: 200), color: "", category: ""))
    }

    func testNamesAreStoredTrimmed() throws {
        let id = try tracker.createProject(name: "  Reading \t", color: "", category: "")
        XCTAssertEqual(tracker.project(id: id)?.name, "Reading")
        try reopen()
        XCTAssertEqual(tracker.project(id: id)?.name, "Reading")
    }

    func testPaletteColorWhenColorIsEmpty() throws {
        let a = try tracker.createProject(name: "A", color: "", category: "")
        let b = try tracker.createProject(name: "B", color: "  ", category: "")
        let c = try tracker.createProject(name: "C", color: "#FF9900", category: "")
        let d = try tracker.createProject(name: "D", color: "", category: "")
        let e = try tracker.createProject(name: "E", color: "#ABC", category: "")
        XCTAssertEqual(tracker.project(id: a)?.color, "#3366cc")
        XCTAssertEqual(tracker.project(id: b)?.color, "#dc3912")
        XCTAssertEqual(tracker.project(id: c)?.color, "#ff9900")
        // The third palette color is taken by C, so D gets the fourth.
        XCTAssertEqual(tracker.project(id: d)?.color, "#109618")
        XCTAssertEqual(tracker.project(id: e)?.color, "#aabbcc")
        for project in tracker.projects() {
            XCTAssertNotNil(project.color.wholeMatch(of: /#[0-9a-f]{6}/), project.color)
        }
    }

    func testInvalidColorsAreRefused() throws {
        for color in ["red", "#12345", "#1234567", "#ggg000", "123456", "#", "#１２３"] {
            assertTrackerError("InvalidArgument", try tracker.createProject(name: "P", color: color, category: ""))
        }
        XCTAssertTrue(tracker.projects().isEmpty)
        let id = try tracker.createProject(name: "P", color: "#000000", category: "")
        assertTrackerError("InvalidArgument", try tracker.updateProject(id: id, changes: ProjectChanges(color: "blue")))
        XCTAssertEqual(tracker.project(id: id)?.color, "#000000")
    }

    func testUnknownCategoryIsRefused() throws {
        assertTrackerError("NoSuchCategory", try tracker.createProject(name: "P", color: "", category: "Work"))
        XCTAssertTrue(tracker.projects().isEmpty)
        try tracker.addCategory("Work")
        let id = try tracker.createProject(name: "P", color: "", category: " work ")
        XCTAssertEqual(tracker.categoryName(of: tracker.project(id: id)!), "Work")
        assertTrackerError("NoSuchCategory", try tracker.updateProject(id: id, changes: ProjectChanges(category: "Play")))
        XCTAssertEqual(tracker.categoryName(of: tracker.project(id: id)!), "Work")
    }

    func testCategories() throws {
        try tracker.addCategory("Work")
        try tracker.addCategory("admin")
        try tracker.addCategory("Écoles")
        for name in ["work", " WORK ", "écoles"] {
            assertTrackerError("AlreadyExists", try tracker.addCategory(name))
        }
        assertTrackerError("InvalidArgument", try tracker.addCategory(" "))
        XCTAssertEqual(tracker.categories().map(\.name).sorted(), ["Work", "admin", "Écoles"].sorted())
        XCTAssertEqual(Array(tracker.categories().map(\.name).prefix(2)), ["admin", "Work"])
        assertTrackerError("NoSuchCategory", try tracker.deleteCategory("Play"))
        assertTrackerError("NoSuchCategory", try tracker.deleteCategory(""))
    }

    func testDeleteCategoryUncategorizesProjectsAndLeavesSessionsAlone() throws {
        try tracker.addCategory("Work")
        try tracker.addCategory("Home")
        let a = try tracker.createProject(name: "A", color: "", category: "Work")
        let b = try tracker.createProject(name: "B", color: "", category: "Work")
        let c = try tracker.createProject(name: "C", color: "", category: "Home")
        try tracker.addSession(project: a, start: base - 7200, duration: "30m", note: "a")
        try tracker.addSession(project: b, start: base - 3600, duration: "15m", note: "b")
        try tracker.startProject("A")
        clock.advance(30)
        try tracker.pause()
        let before = try allSessions()
        let segmentsBefore = try segmentRowCount()

        try tracker.deleteCategory("work")
        XCTAssertNil(tracker.project(id: a)?.categoryID)
        XCTAssertNil(tracker.project(id: b)?.categoryID)
        XCTAssertNotNil(tracker.project(id: c)?.categoryID)
        XCTAssertEqual(try tracker.status().categoryName, "")
        XCTAssertEqual(tracker.categories().map(\.name), ["Home"])
        XCTAssertEqual(try allSessions(), before)
        XCTAssertEqual(try segmentRowCount(), segmentsBefore)

        try reopen()
        XCTAssertNil(tracker.project(id: a)?.categoryID)
        XCTAssertNil(tracker.project(id: b)?.categoryID)
        XCTAssertEqual(tracker.categoryName(of: tracker.project(id: c)!), "Home")
        XCTAssertEqual(try allSessions(), before)
        XCTAssertEqual(try tracker.status().state, .paused)
        // The name is free again.
        try tracker.addCategory("Work")
    }

    func testUpdateProject() throws {
        try tracker.addCategory("Work")
        let id = try tracker.createProject(name: "Writing", color: "#111111", category: "")
        let other = try tracker.createProject(name: "Reading", color: "", category: "")
        try tracker.updateProject(id: id, changes: ProjectChanges(name: " Drafting ", color: "#ABCDEF", category: "work", archived: true))
        var expected = Project(id: id, name: "Drafting", color: "#abcdef", categoryID: tracker.categories()[0].id, archived: true)
        XCTAssertEqual(tracker.project(id: id), expected)
        XCTAssertEqual(try tracker.resolveProject("drafting").id, id)
        assertTrackerError("NoSuchProject", try tracker.resolveProject("Writing"))

        // A case change of its own name is allowed; another project's name is not.
        try tracker.updateProject(id: id, changes: ProjectChanges(name: "DRAFTING"))
        expected.name = "DRAFTING"
        assertTrackerError("AlreadyExists", try tracker.updateProject(id: id, changes: ProjectChanges(name: "reading")))
        assertTrackerError("AlreadyExists", try tracker.updateProject(id: other, changes: ProjectChanges(name: "drafting")))
        assertTrackerError("NoSuchProject", try tracker.updateProject(id: 999, changes: ProjectChanges(name: "x")))
        assertTrackerError("InvalidArgument", try tracker.updateProject(id: id, changes: ProjectChanges(name: "")))

        try tracker.updateProject(id: id, changes: ProjectChanges(category: "", archived: false))
        expected.categoryID = nil
        expected.archived = false
        XCTAssertEqual(tracker.project(id: id), expected)
        try reopen()
        XCTAssertEqual(tracker.project(id: id), expected)
        XCTAssertEqual(tracker.project(id: other)?.name, "Reading")
    }
}
