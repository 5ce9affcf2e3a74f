import CGLib
import ChartRaster
import Glibc
import TimeCore

/// The week's chart as a PNG: for `WeeklyReportPNG` and the `ShowWeeklyReport` notification.
enum WeekPicture {
    static func png(_ report: WeeklyReport) throws -> [UInt8] { try png(svg: report.svg) }

    /// Any report's chart (`ReportPNG`).
    static func png(svg: String) throws -> [UInt8] {
        do {
            return try PNGRenderer.png(svg: svg)
        } catch {
            throw TrackerError.storageFailure("The chart could not be drawn (\(error)); the text report still works (timectl report).")
        }
    }

    /// Writes the chart to `$XDG_RUNTIME_DIR/time-tracker-week.png` (0600) for a notification;
    /// nil (and a log line) when it cannot, so the notification goes out with its text alone.
    static func writeForNotification(_ report: WeeklyReport) -> String? {
        let path = String(cString: g_get_user_runtime_dir()) + "/time-tracker-week.png"
        do {
            let bytes = try png(report)
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw TrackerError.storageFailure("cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            fchmod(fd, 0o600)
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw TrackerError.storageFailure("cannot write \(path): \(String(cString: strerror(errno)))") }
                written += count
            }
            return path
        } catch {
            Log.warning("the week's chart is left out of the notification: \(error)")
            return nil
        }
    }
}
