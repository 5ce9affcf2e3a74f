import DBusCore
import Glibc
import TimeClient
import TimeWindow
import XCTest

/// What each view shows for a given agent state, and which calls each edit makes (bad input: a
/// clear message and no call), without a display or a bus. Expected times come from `mktime`.
final class ViewModelTests: XCTestCase {
    override func setUp() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    private func local(_ y: Int32, _ mo: Int32, _ d: Int32, _ h: Int32, _ mi: Int32) -> Int64 {
        var parts = tm()
        parts.tm_year = y - 1900; parts.tm_mon = mo - 1; parts.tm_mday = d
        parts.tm_hour = h; parts.tm_min = mi; parts.tm_isdst = -1
        return Int64(mktime(&parts))
    }

    private func running(since: Int64, active: UInt64 = 0) -> AgentProperties {
        AgentProperties(["State": .string("running"), "Project": .string("Writing <draft>"), "ProjectColor": .string("#3366cc"),
                         "Category": .string("Work"), "SessionId": .uint64(9), "RunningSince": .int64(since),
                         "ActiveSeconds": .uint64(active), "Note": .string("intro"), "LastProject": .string("Writing <draft>"),
                         "StorageState": .string("ok"), "PendingAway": .array(elementSignature: "(txxss)", [])])
    }

    func testNowShowsARunningSessionTickingFromRunningSince() {
        let now = local(2026, 12, 2, 10, 0)
        let model = NowModel(properties: running(since: now - 65, active: 3600), status: ["today": .uint64(7200), "week": .uint64(36000)],
                             statusTime: now - 5, now: now, connected: true)
        XCTAssertEqual(model.elapsed, "1:01:05")
        XCTAssertTrue(model.showsPause)
        XCTAssertFalse(model.showsResume)
        XCTAssertTrue(model.showsStop)
        XCTAssertNil(model.continueLabel)
        XCTAssertTrue(model.ticks)
        // The totals move on with the timer since they were read (5 s ago).
        XCTAssertEqual(model.totals, "Today 2:00 · This week 10:00")
        XCTAssertEqual(NowModel(properties: running(since: now), status: ["today": .uint64(7200), "week": .uint64(36000), "week_target": .uint64(144000)],
                                statusTime: now - 60, now: now, connected: true).totals, "Today 2:01 · This week 10:01 of 40:00")
        XCTAssertTrue(model.canChange)
        XCTAssertNil(model.noteRequest("intro"), "an unchanged note makes no call")
        XCTAssertEqual(model.noteRequest("intro, then more"), AgentRequest("SetNote", [.uint64(9), .string("intro, then more")]))
    }

    func testATickMovesOnlyTheTime() {
        let now = local(2026, 12, 2, 10, 0)
        let first = NowModel(properties: running(since: now - 60), status: [:], statusTime: now, now: now, connected: true)
        let second = NowModel(properties: running(since: now - 60), status: [:], statusTime: now, now: now + 1, connected: true)
        XCTAssertNotEqual(first.elapsed, second.elapsed)
        XCTAssertTrue(second.sameExceptTime(as: first))
        // A screen reader's words move once a minute, not with each second.
        XCTAssertEqual(first.elapsedSpoken, "Elapsed 1 min")
        XCTAssertEqual(second.elapsedSpoken, first.elapsedSpoken)
        let later = NowModel(properties: running(since: now - 60), status: [:], statusTime: now, now: now + 59, connected: true)
        XCTAssertEqual(later.elapsedSpoken, "Elapsed 1 min")
        let hours = NowModel(properties: running(since: now - 60, active: 3600 * 2 + 60 * 3), status: [:], statusTime: now,
                             now: now, connected: true)
        XCTAssertEqual(hours.elapsedSpoken, "Elapsed 2 h 4 min")
        var paused = running(since: 0, active: 60)
        paused.merge(["State": .string("paused")])
        XCTAssertFalse(NowModel(properties: paused, status: [:], statusTime: now, now: now, connected: true).sameExceptTime(as: first))
    }

    func testNowWhenIdleOffersContinueAndAPickerAndNoTick() {
        let idle = AgentProperties(["State": .string("idle"), "LastProject": .string("Reviews")])
        let model = NowModel(properties: idle, status: [:], statusTime: 0, now: 100, connected: true)
        XCTAssertEqual(model.continueLabel, "Continue Reviews")
        XCTAssertTrue(model.showsStartPicker)
        XCTAssertFalse(model.showsPause || model.showsResume || model.showsStop)
        XCTAssertFalse(model.ticks)
        XCTAssertEqual(NowModel.start(projectID: 12), AgentRequest("StartProject", [.string("#12")]))
    }

    func testAPausedSessionDoesNotTick() {
        var paused = running(since: 0, active: 125)
        paused.merge(["State": .string("paused")])
        let model = NowModel(properties: paused, status: [:], statusTime: 0, now: 10_000, connected: true)
        XCTAssertEqual(model.elapsed, "0:02:05")
        XCTAssertTrue(model.showsResume)
        XCTAssertFalse(model.ticks)
    }

    func testAReadOnlyStoreOrALostAgentLocksEveryChange() {
        var locked = running(since: 0)
        locked.merge(["StorageState": .string("read-only"), "StorageMessage": .string("The store could not be opened; it was kept as it was.")])
        let model = NowModel(properties: locked, status: [:], statusTime: 0, now: 0, connected: true)
        XCTAssertFalse(model.canChange)
        XCTAssertEqual(model.storageBanner, "The store could not be opened; it was kept as it was.")
        XCTAssertFalse(NowModel(properties: running(since: 0), status: [:], statusTime: 0, now: 0, connected: false).canChange)
    }

    func testAwaySpansOfferTheirThreeAnswers() {
        var away = running(since: 0)
        let start = local(2026, 12, 2, 14, 5), end = local(2026, 12, 2, 14, 47)
        away.merge(["PendingAway": .array(elementSignature: "(txxss)", [.structure([.uint64(3), .int64(start), .int64(end), .string("lock"), .string("Writing")])])])
        let model = NowModel(properties: away, status: [:], statusTime: 0, now: end + 60, connected: true)
        XCTAssertEqual(model.away.map(\.text), ["Away 42 min: Writing kept running 14:05–14:47 (screen locked)"])
        XCTAssertEqual(model.away.first?.stopLabel, "Stop at 14:05")
        XCTAssertEqual(NowModel.resolveAway(3, "discard"), AgentRequest("ResolveAway", [.uint64(3), .string("discard")]))
    }

    private func session(_ id: UInt64, start: Int64, end: Int64, active: Int64? = nil, note: String = "", device: String = "") -> SessionRecord {
        SessionRecord(["id": .uint64(id), "project_id": .uint64(1), "project": .string("Writing"), "start": .int64(start),
                       "end": .int64(end), "active": .uint64(UInt64(active ?? (end - start))), "state": .string(end == 0 ? "running" : "completed"),
                       "note": .string(note), "device": .string(device),
                       "segments": .array(elementSignature: "(xx)", [.structure([.int64(start), .int64(end)])])])
    }

    func testTheDayListsItsSessionsAndCountsOnlyTheTimeInsideIt() {
        let day = local(2026, 12, 1, 0, 0), now = local(2026, 12, 2, 10, 0)
        let late = session(2, start: local(2026, 12, 1, 23, 0), end: local(2026, 12, 2, 1, 0))
        let morning = session(1, start: local(2026, 12, 1, 9, 0), end: local(2026, 12, 1, 11, 30), note: "draft")
        let elsewhere = session(0, start: local(2026, 12, 1, 12, 0), end: local(2026, 12, 1, 13, 0), device: "laptop")
        let model = DayModel(dayStart: day, sessions: [late, morning, elsewhere], now: now)
        XCTAssertEqual(model.title, "Yesterday, Tuesday 1 December 2026")
        XCTAssertEqual(model.rows.map(\.span), ["09:00–11:30", "12:00–13:00", "23:00–2026-12-02 01:00"])
        XCTAssertEqual(model.rows.map(\.active), ["2:30", "1:00", "2:00"])
        XCTAssertEqual(model.rows.map(\.editable), [true, false, true], "another device's session is not edited from here")
        // 2:30 + 1:00 + the hour before midnight.
        XCTAssertEqual(model.total, "Total 4:30")
        XCTAssertEqual(DayModel.request(dayStart: day), AgentRequest("ListSessions", [.uint64(0), .int64(day), .int64(local(2026, 12, 2, 0, 0))]))
    }

    func testTheToastsUndoUndoesOnlyTheDeletion() {
        XCTAssertTrue(DayModel.isDeletion("Deleted 2:00 of Writing on 2026-11-29", of: "Writing"))
        XCTAssertFalse(DayModel.isDeletion("Started Reading at 14:00", of: "Writing"))
        XCTAssertFalse(DayModel.isDeletion("Deleted 2:00 of Reading on 2026-11-29", of: "Writing"))
        XCTAssertFalse(DayModel.isDeletion("", of: "Writing"))
    }

    func testEditingTheEndOfYesterdaysSessionSendsItsNewDuration() throws {
        let now = local(2026, 12, 2, 10, 0)
        let yesterday = session(5, start: local(2026, 12, 1, 9, 0), end: local(2026, 12, 1, 11, 0), note: "n")
        let form = SessionForm(projectID: 1, start: "09:00", end: "17:30", duration: "", note: "n")
        XCTAssertEqual(try form.edit(yesterday, now: now),
                       AgentRequest("EditSession", [.uint64(5), .vardict(["duration": .string("8:30:00")])]))
        // Moving the start keeps the end typed, so the duration follows.
        let moved = SessionForm(projectID: 1, start: "9:15", end: "11:00", duration: "", note: "n")
        XCTAssertEqual(try moved.edit(yesterday, now: now),
                       AgentRequest("EditSession", [.uint64(5), .vardict(["start": .int64(local(2026, 12, 1, 9, 15)), "duration": .string("1:45:00")])]))
        // The form as it was opened changes nothing: no call (and a paused session keeps its segments).
        let paused = session(6, start: local(2026, 12, 1, 9, 0), end: local(2026, 12, 1, 11, 0), active: 3600)
        XCTAssertNil(try SessionForm(projectID: 1, start: "09:00", end: "11:00", duration: "", note: "").edit(paused, now: now))
        XCTAssertEqual(try SessionForm(projectID: 2, start: "09:00", end: "11:00", duration: "", note: "").edit(paused, now: now),
                       AgentRequest("EditSession", [.uint64(6), .vardict(["project": .uint64(2)])]))
    }

    func testBadTimesAndDurationsSayWhatToTypeAndMakeNoCall() {
        let now = local(2026, 12, 2, 10, 0)
        let s = session(5, start: local(2026, 12, 1, 9, 0), end: local(2026, 12, 1, 11, 0))
        func message(_ form: SessionForm) -> String? {
            do { _ = try form.edit(s, now: now); return nil } catch let invalid as SessionForm.Invalid { return invalid.message } catch { return "\(error)" }
        }
        XCTAssertEqual(message(SessionForm(projectID: 1, start: "9:15", end: "soon", duration: "", note: "")),
                       "End: 'soon' is not a time. Type it as \(DateInput.accepted).")
        XCTAssertEqual(message(SessionForm(projectID: 1, start: "", end: "", duration: "1 month", note: "")),
                       "Duration: '1 month' is not a duration. Type it as \(DurationInput.accepted).")
        XCTAssertEqual(message(SessionForm(projectID: 1, start: "", end: "17:00", duration: "1h", note: "")),
                       "Type an end or a duration, not both.")
        XCTAssertNotNil(message(SessionForm(projectID: 1, start: "10:00", end: "2026-12-01 08:00", duration: "", note: "")))
    }

    func testAddingTimeByHand() throws {
        let day = local(2026, 11, 30, 0, 0), now = local(2026, 12, 2, 10, 0)
        XCTAssertEqual(try SessionForm(projectID: 3, start: "9:00", end: "", duration: "1h30m", note: "call").add(day: day, now: now),
                       AgentRequest("AddSession", [.uint64(3), .int64(local(2026, 11, 30, 9, 0)), .string("1:30:00"), .string("call")]))
        // 23:00 to 01:00 crosses midnight: the end is on the next day.
        XCTAssertEqual(try SessionForm(projectID: 3, start: "23:00", end: "01:00", duration: "", note: "").add(day: day, now: now),
                       AgentRequest("AddSession", [.uint64(3), .int64(local(2026, 11, 30, 23, 0)), .string("2:00:00"), .string("")]))
        XCTAssertThrowsError(try SessionForm(projectID: 0, start: "9:00", end: "", duration: "1h", note: "").add(day: day, now: now))
        XCTAssertThrowsError(try SessionForm(projectID: 3, start: "9:00", end: "", duration: "", note: "").add(day: day, now: now))
    }

    func testANewProjectWithANewCategoryCreatesTheCategoryFirst() throws {
        let form = ProjectForm(name: "  Garden ", color: "#33AA55", category: "Home", archived: false, rate: "12.50", weeklyTarget: "5h")
        XCTAssertEqual(try form.requests(existing: nil, categories: ["Work"]),
                       [AgentRequest("AddCategory", [.string("Home")]), AgentRequest("CreateProject", [.string("Garden"), .string("#33aa55"), .string("Home")])])
        XCTAssertEqual(form.settingsAfterCreate(id: 4),
                       AgentRequest("UpdateProject", [.uint64(4), .vardict(["rate": .string("12.50"), "weekly_target": .uint64(18000)])]))
        // A known category, typed in another case, is used as it is named.
        XCTAssertEqual(try ProjectForm(name: "G", color: "", category: "work", archived: false).requests(existing: nil, categories: ["Work"]),
                       [AgentRequest("CreateProject", [.string("G"), .string(""), .string("Work")])])
    }

    func testEditingAProjectSendsOnlyWhatChangedAndRefusesBadFields() throws {
        let project = Project(["id": .uint64(2), "name": .string("Writing"), "color": .string("#3366cc"), "category": .string("Work"),
                               "archived": .bool(false), "rate": .string(""), "weekly_target": .uint64(0)])
        var form = ProjectForm(project)
        XCTAssertEqual(try form.requests(existing: project, categories: ["Work"]), [])
        form.archived = true
        form.category = ""
        XCTAssertEqual(try form.requests(existing: project, categories: ["Work"]),
                       [AgentRequest("UpdateProject", [.uint64(2), .vardict(["archived": .bool(true), "category": .string("")])])])
        for (field, bad) in [("name", " "), ("color", "blue"), ("rate", "85.555"), ("rate", "-1"), ("target", "a lot")] {
            var wrong = ProjectForm(project)
            switch field {
            case "name": wrong.name = bad
            case "color": wrong.color = bad
            case "rate": wrong.rate = bad
            default: wrong.weeklyTarget = bad
            }
            XCTAssertThrowsError(try wrong.requests(existing: project, categories: ["Work"]), "\(field) '\(bad)'")
        }
    }

    func testTheWeekTableComesFromTheAgentsReport() throws {
        let monday = local(2026, 11, 23, 0, 0)
        let columns = (23...29).map { "{\"label\":\"2026-11-\($0)\",\"from\":\"2026-11-\($0)\",\"to\":\"2026-11-\($0)\"}" }.joined(separator: ",")
        let projects = "{\"columns\":[\(columns)],\"total\":9000,\"target\":144000,\"groups\":[{\"name\":\"Writing\",\"color\":\"#3366cc\",\"total\":9000,\"columns\":[3600,5400,0,0,0,0,0],\"rate\":\"85.50\",\"amount\":\"213.75\"}],\"currency\":\"EUR\"}"
        let categories = "{\"columns\":[\(columns)],\"total\":9000,\"groups\":[{\"name\":\"\",\"total\":9000,\"columns\":[3600,5400,0,0,0,0,0]}]}"
        let model = try WeekModel(weekStart: monday, projects: projects, categories: categories)
        XCTAssertEqual(model.columns, ["Mon 23", "Tue 24", "Wed 25", "Thu 26", "Fri 27", "Sat 28", "Sun 29"])
        XCTAssertEqual(model.projects.first?.cells, ["1:00", "1:30", "0:00", "0:00", "0:00", "0:00", "0:00"])
        XCTAssertEqual(model.categories.first?.name, "Uncategorized")
        XCTAssertEqual(model.projects.first?.amount, "213.75 EUR")
        XCTAssertTrue(model.showsAmounts)
        XCTAssertEqual(model.total, "Total 2:30 of 40:00")
        XCTAssertEqual(WeekModel.range(weekStart: monday), "2026-11-23..2026-11-29")
        XCTAssertEqual(WeekModel.export(start: monday, format: "ical"),
                       AgentRequest("Export", [.string("ical"), .int64(monday), .int64(local(2026, 11, 30, 0, 0)), .uint64(0)]))
    }

    func testTheRangePickerMovesByWeeksMonthsAndYears() {
        let now = local(2026, 12, 2, 10, 0)
        XCTAssertEqual(Period.week.start(containing: now), local(2026, 11, 30, 0, 0))
        XCTAssertEqual(Period.month.range(start: Period.month.start(containing: now)), "2026-12-01..2026-12-31")
        XCTAssertEqual(Period.month.start(after: local(2026, 12, 1, 0, 0), offset: 1), local(2027, 1, 1, 0, 0))
        XCTAssertEqual(Period.month.range(start: local(2026, 2, 1, 0, 0)), "2026-02-01..2026-02-28")
        XCTAssertEqual(Period.year.range(start: Period.year.start(containing: now)), "2026-01-01..2026-12-31")
        // Across the change to summer time the week still starts at a local midnight.
        XCTAssertEqual(Period.week.start(after: local(2026, 3, 23, 0, 0), offset: 1), local(2026, 3, 30, 0, 0))
        XCTAssertEqual(WeekModel.report(.year, start: local(2026, 1, 1, 0, 0), group: "category"),
                       AgentRequest("Report", [.string("2026-01-01..2026-12-31"),
                                               .vardict(["format": .string("json"), "group": .string("category"), "columns": .string("month")])]))
    }

    func testRedoNamesTheOldestOfTheUndoneStepsOnTop() {
        let steps: [[String: DBusValue]] = [
            ["description": .string("Stopped Writing"), "undone": .bool(true)],
            ["description": .string("Paused Writing"), "undone": .bool(true)],
            ["description": .string("Started Writing"), "undone": .bool(false)],
        ]
        XCTAssertEqual(HistoryModel(canUndo: "Started Writing", history: steps).redo, "Paused Writing")
        XCTAssertEqual(HistoryModel(canUndo: "x", history: [["description": .string("x"), "undone": .bool(false)]]).redo, "")
    }

    func testTheImportDryRunIsSummedUpBeforeAnythingChanges() {
        let summary = ExchangeFormats.summary(["sessions": .uint64(12), "skipped": .uint64(1), "projects": .array(elementSignature: "s", [.string("Garden")]),
                                               "categories": .array(elementSignature: "s", []), "from": .int64(0), "to": .int64(0),
                                               "warnings": .array(elementSignature: "s", [.string("the running interval was not imported")])])
        XCTAssertEqual(summary, "12 new sessions, 1 already here.\nNew projects: Garden.\nNote: the running interval was not imported")
        XCTAssertEqual(ExchangeFormats.importRequest(format: "watson", path: "/tmp/frames", dryRun: true),
                       AgentRequest("Import", [.string("watson"), .string("/tmp/frames"), .bool(true)]))
    }
}
