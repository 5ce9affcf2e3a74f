/// The week as an SVG chart: one column per day stacked by project in the project's color, hours
/// on the axis, each day's total above its column, and a legend with each project's total.
/// Pure text, so it is tested as text; the agent rasterises it for notifications. It carries its
/// own card background (light, or dark where the viewer asks for a dark scheme), so it reads on
/// light and dark themes alike.
extension WeeklyReport {
    public var svg: String {
        let width = 720, height = 420
        let left = 56, top = 64, plotWidth = 420, plotHeight = 290
        let bottom = top + plotHeight
        let columnStep = plotWidth / 7, columnWidth = columnStep * 3 / 5
        // The axis: whole hours, a step of 1, 2, 4 or 8 hours so that there are at most 6 lines.
        let maxHours = max(1, Int(((days.max() ?? 0) + 3599) / 3600))
        let step = [1, 2, 4, 8, 12, 24].first { maxHours / $0 <= 5 } ?? 24
        let axisHours = ((maxHours + step - 1) / step) * step
        let scale = Double(plotHeight) / Double(axisHours * 3600)

        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="DejaVu Sans, Cantarell, sans-serif">
        <style>
        .card{fill:#ffffff;stroke:#d0d0d0}.text{fill:#202020}.muted{fill:#606060}.grid{stroke:#e0e0e0}.axis{stroke:#808080}
        @media (prefers-color-scheme: dark){.card{fill:#242424;stroke:#404040}.text{fill:#f0f0f0}.muted{fill:#b0b0b0}.grid{stroke:#3a3a3a}}
        </style>
        <rect class="card" x="0.5" y="0.5" width="\(width - 1)" height="\(height - 1)" rx="8"/>
        <text class="text" x="\(left - 40)" y="30" font-size="18" font-weight="bold">Week \(week.isoName): \(Self.clockDuration(total))</text>
        <text class="muted" x="\(left - 40)" y="50" font-size="12">\(week.monday) to \(week.sunday) (\(Self.svgEscaped(timeZone)))</text>

        """
        for hours in stride(from: 0, through: axisHours, by: step) {
            let y = bottom - Int(Double(hours * 3600) * scale)
            out += "<line class=\"\(hours == 0 ? "axis" : "grid")\" x1=\"\(left)\" y1=\"\(y)\" x2=\"\(left + plotWidth)\" y2=\"\(y)\"/>\n"
            out += "<text class=\"muted\" x=\"\(left - 8)\" y=\"\(y + 4)\" font-size=\"11\" text-anchor=\"end\">\(hours) h</text>\n"
        }
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        for day in 0..<7 {
            let x = left + day * columnStep + (columnStep - columnWidth) / 2
            var y = Double(bottom)
            for line in projects where line.days[day] > 0 {
                let h = Double(line.days[day]) * scale
                y -= h
                out += "<rect x=\"\(x)\" y=\"\(Self.number(y))\" width=\"\(columnWidth)\" height=\"\(Self.number(h))\" fill=\"\(Self.safeColor(line.color))\"><title>\(Self.svgEscaped(line.name)): \(Self.clockDuration(line.days[day]))</title></rect>\n"
            }
            let center = x + columnWidth / 2
            if days[day] > 0 {
                out += "<text class=\"text\" x=\"\(center)\" y=\"\(Int(y) - 6)\" font-size=\"12\" text-anchor=\"middle\">\(Self.clockDuration(days[day]))</text>\n"
            }
            out += "<text class=\"muted\" x=\"\(center)\" y=\"\(bottom + 18)\" font-size=\"12\" text-anchor=\"middle\">\(names[day])</text>\n"
        }
        let legendX = left + plotWidth + 28
        if projects.isEmpty {
            out += "<text class=\"muted\" x=\"\(legendX)\" y=\"\(top + 14)\" font-size=\"13\">No time tracked.</text>\n"
        }
        let shown = projects.prefix(14)
        for (index, line) in shown.enumerated() {
            let y = top + index * 20
            let name = line.name.count > 18 ? String(line.name.prefix(17)) + "…" : line.name
            out += "<rect x=\"\(legendX)\" y=\"\(y + 2)\" width=\"12\" height=\"12\" rx=\"2\" fill=\"\(Self.safeColor(line.color))\"/>\n"
            out += "<text class=\"text\" x=\"\(legendX + 18)\" y=\"\(y + 13)\" font-size=\"13\">\(Self.svgEscaped(name))</text>\n"
            out += "<text class=\"muted\" x=\"\(width - 16)\" y=\"\(y + 13)\" font-size=\"13\" text-anchor=\"end\">\(Self.clockDuration(line.total))</text>\n"
        }
        if projects.count > shown.count {
            out += "<text class=\"muted\" x=\"\(legendX)\" y=\"\(top + shown.count * 20 + 13)\" font-size=\"12\">… and \(projects.count - shown.count) more</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// Escapes text for SVG content and attributes.
    static func svgEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // Control characters are not allowed in XML 1.0.
                if scalar.value < 0x20 && scalar != "\t" { out += " " } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// A stored color is `#rrggbb`; anything else is drawn grey rather than written into the markup.
    static func safeColor(_ color: String) -> String {
        let bytes = Array(color.utf8)
        let hex = bytes.count == 7 && bytes[0] == UInt8(ascii: "#") && bytes.dropFirst().allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70)
        }
        return hex ? color : "#888888"
    }

    private static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }
}
