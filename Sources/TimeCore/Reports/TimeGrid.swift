/// Consecutive columns of time between instants (local midnights, or the first midnight of each
/// week or month): the one place where sessions are cut, for the weekly report and for reports
/// over any range. Column `i` is `boundaries[i] ..< boundaries[i + 1]`.
struct TimeGrid: Equatable, Sendable {
    let boundaries: [Int64]

    init(boundaries: [Int64]) {
        precondition(boundaries.count >= 2, "a grid has at least one column")
        self.boundaries = boundaries
    }

    var count: Int { boundaries.count - 1 }
    var start: Int64 { boundaries[0] }
    var end: Int64 { boundaries[boundaries.count - 1] }

    /// The column holding `instant`, or nil outside the grid.
    func column(of instant: Int64) -> Int? {
        guard instant >= start && instant < end else { return nil }
        var low = 0, high = count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if boundaries[middle] <= instant { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// Hands each column the part of [from, to) inside it (`visit(column, low, high)`, in column
    /// order); true when the interval touches the grid (a zero-length one touches the column it is in).
    @discardableResult
    func cut(from: Int64, to: Int64, _ visit: (Int, Int64, Int64) -> Void) -> Bool {
        guard to > start || (to == from && from >= start), from < end else { return false }
        guard var column = self.column(of: max(from, start)) else { return false }
        while column < count && boundaries[column] < to {
            let low = max(from, boundaries[column]), high = min(to, boundaries[column + 1])
            if high > low { visit(column, low, high) }
            column += 1
        }
        return true
    }

    /// Spreads `seconds` over [from, to) in proportion to wall-clock time, exactly: each column
    /// gets the difference of the floor-rounded running totals at its edges, so nothing is lost to
    /// rounding. True when the span touches the grid.
    @discardableResult
    func spread(_ seconds: Int64, over from: Int64, _ to: Int64, _ visit: (Int, Int64) -> Void) -> Bool {
        let span = to - from
        if span <= 0 {
            guard let column = column(of: from) else { return false }
            visit(column, seconds)
            return true
        }
        guard to > start && from < end, var column = self.column(of: max(from, start)) else { return false }
        func share(until instant: Int64) -> Int64 {
            let elapsed = min(max(instant, from), to) - from
            return Int64((Double(seconds) * Double(elapsed) / Double(span)).rounded(.down))
        }
        while column < count && boundaries[column] < to {
            visit(column, share(until: boundaries[column + 1]) - share(until: boundaries[column]))
            column += 1
        }
        return true
    }
}

/// One session cut by a grid: its active seconds per column (only the columns it touches, in
/// order), with the first and last active instant in each, the open session counting up to `now`.
struct SessionCut {
    struct Cell {
        var column: Int
        var seconds: Int64
        var first: Int64
        var last: Int64
    }

    private(set) var cells: [Cell] = []
    /// The session lies (at least in part) inside the grid; a 0-second session inside it does too.
    private(set) var touches = false
    /// Its time was spread because its segments were never recorded.
    private(set) var estimated = false

    init(_ session: WorkSession, grid: TimeGrid, now: Int64) {
        for segment in session.segments {
            let end = segment.end ?? max(now, segment.start)
            touches = grid.cut(from: segment.start, to: end) { column, low, high in
                add(column, high - low, low, high)
            } || touches
        }
        if session.unrecordedSeconds > 0 {
            let spanEnd = session.end ?? max(now, session.start)
            let spread = grid.spread(session.unrecordedSeconds, over: session.start, spanEnd) { column, seconds in
                add(column, seconds, max(session.start, grid.boundaries[column]), min(spanEnd, grid.boundaries[column + 1]))
            }
            if spread { estimated = true; touches = true }
        }
        if session.segments.isEmpty && session.unrecordedSeconds == 0 {
            touches = session.start >= grid.start && session.start < grid.end
        }
    }

    private mutating func add(_ column: Int, _ seconds: Int64, _ first: Int64, _ last: Int64) {
        if let index = cells.lastIndex(where: { $0.column <= column }), cells[index].column == column {
            cells[index].seconds += seconds
            cells[index].first = min(cells[index].first, first)
            cells[index].last = max(cells[index].last, last)
        } else {
            let position = cells.firstIndex { $0.column > column } ?? cells.count
            cells.insert(Cell(column: column, seconds: seconds, first: first, last: last), at: position)
        }
    }
}
