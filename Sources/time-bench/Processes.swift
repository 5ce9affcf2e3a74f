import Glibc
import TimeCore

// The processes a measurement runs: the agent under test and a private bus for it.

final class Agent {
    let pid: pid_t
    init(binary: String, dataDirectory: String, address: String) throws {
        var pid: pid_t = 0
        let arguments = [binary, "--data-dir", dataDirectory, "--no-notifications"]
        var environment = ["DBUS_SESSION_BUS_ADDRESS=\(address)", "TZ=\(String(cString: getenv("TZ") ?? strdup("UTC")))",
                           "PATH=/usr/bin:/bin"]
        // The agent's own timing of its path (Sources/PathTrace), when the bench is asked for it.
        if let trace = getenv("TIME_PATH_TRACE") { environment.append("TIME_PATH_TRACE=" + String(cString: trace)) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) }; environment.removeAll() }
        let rc = posix_spawn(&pid, binary, nil, nil, &argv, &envp)
        guard rc == 0 else { throw BenchError("could not start \(binary): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Sum of voluntary context switches over every thread.
    var voluntarySwitches: Int {
        Files.list("/proc/\(pid)/task").reduce(0) { total, task in
            total + (statusField("/proc/\(pid)/task/\(task)/status", "voluntary_ctxt_switches") ?? 0)
        }
    }

    var residentKiB: Int { statusField("/proc/\(pid)/status", "VmRSS") ?? 0 }

    /// Bytes the process has written through write(2) and friends (`wchar` of /proc/PID/io).
    var bytesWritten: Int { statusField("/proc/\(pid)/io", "wchar") ?? 0 }
}

func statusField(_ path: String, _ name: String) -> Int? {
    guard let bytes = try? Files.read(path) else { return nil }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name + ":") {
        return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    }
    return nil
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

final class PrivateBus {
    let pid: pid_t
    let address: String
    init(work: String) throws {
        let addressFile = work + "/bus-address"
        unlink(addressFile)
        var pid: pid_t = 0
        let words = ["/usr/bin/dbus-daemon", "--session", "--nofork", "--nopidfile", "--print-address=1"]
        var argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, addressFile, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawn(&pid, "/usr/bin/dbus-daemon", &actions, nil, &argv, environ) == 0 else { throw BenchError("dbus-daemon did not start") }
        self.pid = pid
        var found = ""
        for _ in 0..<500 {
            found = String(decoding: (try? Files.read(addressFile)) ?? [], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            if found.hasPrefix("unix:") { break }
            usleep(10_000)
        }
        guard found.hasPrefix("unix:") else { throw BenchError("dbus-daemon printed no address") }
        address = found
    }
    func stop() { kill(pid, SIGTERM); var status: Int32 = 0; waitpid(pid, &status, 0) }
}
