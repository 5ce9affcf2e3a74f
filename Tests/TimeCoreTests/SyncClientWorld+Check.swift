import XCTest
@testable import TimeCore

/// The proof of `SyncClientWorld`: every device shows the same, and every field shows a value
/// that a client wrote and no later client write of that field replaced. Only the identity of
/// same-name groups is taken from the merged state (rule 3: which global ids show as one project,
/// and which of them is its representative, whose fields are the ones shown); every value comes
/// from the oracle.
extension SyncClientWorld {
    /// What a person sees on a device, one line per record, by global id.
    func view(_ device: Device) throws -> [String] {
        let store = device.tracker.store
        let categories = try store.categories()
        let categoryGID = Dictionary(categories.map { ($0.id, $0.globalID) }, uniquingKeysWith: { a, _ in a })
        let projects = try store.projects()
        let projectGID = Dictionary(projects.map { ($0.id, $0.globalID) }, uniquingKeysWith: { a, _ in a })
        var lines = categories.map { "category \($0.globalID) \($0.name)" }
        lines += projects.map {
            "project \($0.globalID) \($0.name) \($0.color) \($0.archived) \($0.categoryID.flatMap { categoryGID[$0] } ?? "-") \(planFields($0).sorted { $0.key < $1.key })"
        }
        let settings = device.tracker.planSettings
        lines.append("settings \(settings.currency) \(settings.weeklyTarget)")
        lines += try store.allSessions().map {
            "session \($0.globalID) \(projectGID[$0.projectID] ?? "?") \(sessionTimes($0).sorted { $0.key < $1.key }.map(\.value)) \($0.note)"
        }
        return lines.sorted()
    }

    func check() throws {
        let views = try devices.map(view)
        for device in devices.dropFirst() where views[device.index] != views[0] {
            let (here, there) = (Set(views[device.index]), Set(views[0]))
            XCTFail("\(context): device \(device.index) differs from device 0: it has \(here.subtracting(there).sorted()), device 0 \(there.subtracting(here).sorted())")
            // Replaying the seed with TIME_SYNC_DEBUG=1 prints every record of what differs.
            if getenv("TIME_SYNC_DEBUG") != nil {
                var reader = SyncLogReader(layout: devices[0].engine.layout)
                let records = reader.readNew(except: nil).records
                for line in here.symmetricDifference(there) {
                    let gid = line.split(separator: " ")[1]
                    for record in records where record.id == gid { print("record", record.line) }
                }
            }
        }
        let reference = devices[0]
        let projectGroups = reference.engine.replica.representatives(.project)
        let categoryGroups = reference.engine.replica.representatives(.category)
        let store = reference.tracker.store
        let categories = try store.categories()
        let storeCategories = Set(categories.map(\.globalID))
        let categoryGID = Dictionary(categories.map { ($0.id, $0.globalID) }, uniquingKeysWith: { a, _ in a })
        // A project's category as shown: its group's representative while the store has it, else none.
        func shown(category gid: String) -> String {
            guard !gid.isEmpty else { return "" }
            let target = categoryGroups[gid] ?? gid
            return storeCategories.contains(target) ? target : ""
        }

        for category in categories {
            let expected = oracle.expected(.category, [category.globalID], "name")
            XCTAssertTrue(expected.contains(category.name), "\(context): category \(category.globalID) is \"\(category.name)\"; the clients wrote \(expected)")
        }
        for gid in oracle.created[.category] ?? [] where oracle.isDeleted(.category, gid) {
            XCTAssertFalse(storeCategories.contains(gid), "\(context): category \(gid) was deleted by a client and is shown")
        }
        let projects = try store.projects()
        let projectGID = Dictionary(projects.map { ($0.id, $0.globalID) }, uniquingKeysWith: { a, _ in a })
        for project in projects {
            let group = [project.globalID]  // the representative: its fields are shown (rule 3)
            let values = ["name": project.name, "color": project.color, "archived": String(project.archived)].merging(planFields(project)) { a, _ in a }
            for (field, value) in values {
                let expected = oracle.expected(.project, group, field)
                XCTAssertTrue(expected.contains(value), "\(context): project \(project.globalID)'s \(field) is \(value); the clients wrote \(expected)")
            }
            let category = project.categoryID.flatMap { categoryGID[$0] } ?? ""
            let expected = Set(oracle.expected(.project, group, "category").map(shown(category:)))
            XCTAssertTrue(expected.contains(category), "\(context): project \(project.name)'s category is \(category); the clients wrote \(expected)")
        }
        let stored = Dictionary(try store.allSessions().map { ($0.globalID, $0) }, uniquingKeysWith: { a, _ in a })
        for gid in oracle.created[.session] ?? [] {
            if oracle.isDeleted(.session, gid) {
                XCTAssertNil(stored[gid], "\(context): session \(gid) was deleted by a client and is shown")
                continue
            }
            guard let session = stored[gid] else { XCTFail("\(context): session \(gid) is lost"); continue }
            let project = projectGID[session.projectID] ?? "?"
            let expected = Set(oracle.expected(.session, [gid], "project").map { projectGroups[$0] ?? $0 })
            XCTAssertTrue(expected.contains(project), "\(context): session \(gid) is in project \(project); the clients put it in \(expected)")
            var values = sessionTimes(session)
            values["note"] = session.note
            for (field, value) in values {
                let expected = oracle.expected(.session, [gid], field)
                XCTAssertTrue(expected.contains(value), "\(context): session \(gid)'s \(field) is \(value); the clients wrote \(expected)")
            }
        }
        let settings = reference.tracker.planSettings
        for (field, value, none) in [("currency", settings.currency, ""), ("weekly_target", String(settings.weeklyTarget), "0")] {
            let expected = oracle.expected(.device, [SyncClientWorld.settings], field)
            XCTAssertTrue(expected.isEmpty ? value == none : expected.contains(value), "\(context): the \(field) is \(value); the clients wrote \(expected)")
        }
        XCTAssertEqual(Set(stored.keys).subtracting(oracle.created[.session] ?? []), [], "\(context): sessions no client made")
        XCTAssertGreaterThan(stored.count, 3, "\(context): the history is not empty")
    }
}
