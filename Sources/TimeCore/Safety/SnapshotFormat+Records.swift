// The payload's parts that a change seldom touches, serialized apart so that the keeper can keep
// them between changes (SnapshotKeeper.record): categories and projects, and the settings.
extension SnapshotFormat {
    /// Categories and projects as the payload holds them (the lists, sorted by id), with the
    /// records they were written from, so that equal records need not be written again.
    struct Records {
        var categoryRecords: [Category]
        var projectRecords: [Project]
        var categories: String
        var projects: String

        /// Whether these are the records the lists were written from, field by written field
        /// (the records' own `==` leaves out the global id; a field `records` writes is compared here).
        func hold(categories: [Category], projects: [Project]) -> Bool {
            categories.count == categoryRecords.count && projects.count == projectRecords.count
                && zip(categories, categoryRecords).allSatisfy { $0.id == $1.id && $0.name == $1.name && $0.globalID == $1.globalID }
                && zip(projects, projectRecords).allSatisfy {
                    $0.id == $1.id && $0.name == $1.name && $0.color == $1.color && $0.categoryID == $1.categoryID
                        && $0.archived == $1.archived && $0.globalID == $1.globalID && $0.rateCents == $1.rateCents
                        && $0.weeklyTarget == $1.weeklyTarget
                }
        }
    }

    static func records(categories: [Category], projects: [Project]) -> Records {
        var out = "["
        for (index, category) in categories.sorted(by: { $0.id < $1.id }).enumerated() {
            out += index == 0 ? "{" : ",{"
            appendGlobalID(category.globalID, to: &out)
            out += "\"id\":"
            out += String(category.id)
            out += ",\"name\":"
            JSON.writeString(category.name, to: &out)
            out += "}"
        }
        out += "]"
        var list = "["
        list.reserveCapacity(120 * projects.count + 2)
        for (index, project) in projects.sorted(by: { $0.id < $1.id }).enumerated() {
            list += index == 0 ? "{\"archived\":" : ",{\"archived\":"
            list += project.archived ? "true" : "false"
            list += ",\"categoryId\":"
            list += project.categoryID.map { String($0) } ?? "null"
            list += ",\"color\":"
            JSON.writeString(project.color, to: &list)
            list += ","
            appendGlobalID(project.globalID, to: &list)
            list += "\"id\":"
            list += String(project.id)
            list += ",\"name\":"
            JSON.writeString(project.name, to: &list)
            appendPlan(of: project, to: &list)
            list += "}"
        }
        list += "]"
        return Records(categoryRecords: categories, projectRecords: projects, categories: out, projects: list)
    }

    /// The `settings` object.
    static func settings(reminderMinutes: UInt32, dataID: String, plans: PlanSettings) -> String {
        var out = "{\"currency\":"
        JSON.writeString(plans.currency, to: &out)
        out += ","
        if !dataID.isEmpty {
            out += "\"dataId\":"
            JSON.writeString(dataID, to: &out)
            out += ","
        }
        out += "\"reminderMinutes\":"
        out += String(reminderMinutes)
        appendPlanSettings(plans, to: &out)
        out += "}"
        return out
    }
}
