import Glibc

/// Runs a desktop's own tool (gsettings, xfconf-query, kwriteconfig5, gdbus) and gives its exit
/// status and output; never through a shell, so nothing in an argument is interpreted.
enum Run {
    struct Result { var status: Int32; var output: String }

    static func tool(_ arguments: [String]) -> Result {
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { return Result(status: -1, output: "no pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 2)
        // Only stdout and stderr carry the pipe: a daemon the tool leaves behind holds no end of it.
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        close(pipe[1])
        defer { close(pipe[0]) }
        guard spawned == 0 else {
            return Result(status: 127, output: "\(arguments[0]) is not installed (\(String(cString: strerror(spawned))))")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipe[0], &buffer, buffer.count)
            if count > 0 { bytes += buffer[0..<count]; continue }
            if count < 0 && errno == EINTR { continue }
            break
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exit, output: String(decoding: bytes, as: UTF8.self))
    }

    /// Whether `name` is on PATH.
    static func exists(_ name: String) -> Bool {
        let path = String(cString: getenv("PATH") ?? strdup("/usr/bin:/bin"))
        return path.split(separator: ":").contains { access("\($0)/\(name)", X_OK) == 0 }
    }
}
