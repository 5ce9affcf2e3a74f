import Glibc

/// Local dates and midnights from the C library, which honours `TZ` and knows every zone's rules.
/// (FoundationEssentials' TimeZone knows only GMT on Linux, so it is never used for this.)
public enum LocalTime {
    /// Re-reads `TZ`; cheap when it has not changed.
    public static func refresh() { tzset() }

    public static func parts(_ time: Int64) -> tm {
        var seconds = time_t(time)
        var result = tm()
        localtime_r(&seconds, &result)
        return result
    }

    /// The local calendar day that holds `time`.
    public static func date(of time: Int64) -> CivilDate {
        let local = parts(time)
        return CivilDate(year: Int(local.tm_year) + 1900, month: Int(local.tm_mon) + 1, day: Int(local.tm_mday))
    }

    /// The first instant of a local day: midnight, or the first valid time after it where a
    /// DST change skips midnight. Computed by the calendar, never as a multiple of 86400.
    public static func startOfDay(_ date: CivilDate) -> Int64 {
        var local = tm()
        local.tm_year = Int32(date.year - 1900)
        local.tm_mon = Int32(date.month - 1)
        local.tm_mday = Int32(date.day)
        local.tm_isdst = -1
        let guess = Int64(mktime(&local))
        // mktime may resolve an ambiguous or skipped midnight into the day before; step to the day itself.
        if LocalTime.date(of: guess) < date {
            var probe = guess
            while LocalTime.date(of: probe) < date { probe += 900 }
            return probe
        }
        return guess
    }

    /// "HH:MM" in local time.
    public static func clock(_ time: Int64) -> String {
        let local = parts(time)
        return "\(pad(Int(local.tm_hour), 2)):\(pad(Int(local.tm_min), 2))"
    }

    /// The zone's name as the user set it: `TZ`, else the target of /etc/localtime, else its abbreviation.
    public static func zoneName() -> String {
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            return tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        }
        var buffer = [CChar](repeating: 0, count: 512)
        let count = readlink("/etc/localtime", &buffer, buffer.count - 1)
        if count > 0 {
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let components = target.split(separator: "/")
            if let zoneinfo = components.lastIndex(of: "zoneinfo"), zoneinfo + 1 < components.count {
                return components[(zoneinfo + 1)...].joined(separator: "/")
            }
        }
        let local = parts(Int64(time(nil)))
        return local.tm_zone.map { String(cString: $0) } ?? "UTC"
    }
}
