import PathTrace
import Glibc

/// The one thread that runs a slot's `fdatasync` while the change gate goes on with work that
/// writes nothing to disk (the undo step, kept in SQLite's page cache until the COMMIT): the
/// flush is I/O wait, not CPU, so the two overlap. One per snapshot folder (the agent has one),
/// made at the first flush and kept: no thread per change. Handing a flush over is two semaphore
/// posts (futex wake-ups), whose latency `PathTrace` measures ("handoff: …").
///
/// Nothing changes in what reaches the disk or in which order: the caller wrote the slot before
/// `start` and waits for the flush (and reads the slot back) before its COMMIT writes anything.
final class SlotFlusher: @unchecked Sendable {
    // The caller writes `descriptor` (and `stopping`) before posting `work`; the thread writes
    // `outcome` before posting `done`: each semaphore orders the fields it hands over.
    private let work = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private let done = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var thread: pthread_t?
    private var descriptor: Int32 = -1
    private var stopping = false
    /// 0, or the errno of the flush.
    private var outcome: Int32 = 0
    /// When the caller posted `work` and when the thread posted `done` (only with PathTrace on).
    private var postedAt: UInt64 = 0
    private var wokeAt: UInt64 = 0
    private var doneAt: UInt64 = 0
    /// A flush was started and not yet waited for.
    private(set) var inFlight = false

    init() {
        sem_init(work, 0, 0)
        sem_init(done, 0, 0)
    }

    deinit {
        wait()
        if let thread {
            stopping = true
            sem_post(work)
            pthread_join(thread, nil)
        }
        sem_destroy(work)
        sem_destroy(done)
        work.deallocate()
        done.deallocate()
    }

    /// Starts `fdatasync(fd)` on the thread. Without a thread (none could be made) the flush runs
    /// here, at once; `wait` then gives its outcome all the same.
    func start(_ fd: Int32) {
        precondition(!inFlight, "a slot flush is already under way")
        inFlight = true
        guard startThread() else {
            outcome = fdatasync(fd) == 0 ? 0 : errno
            sem_post(done)
            return
        }
        descriptor = fd
        if PathTrace.enabled { postedAt = PathTrace.now() }
        sem_post(work)
    }

    /// Waits for the flush started last; 0 or its errno. Nothing under way: 0.
    @discardableResult
    func wait() -> Int32 {
        guard inFlight else { return 0 }
        while sem_wait(done) != 0 && errno == EINTR {}
        inFlight = false
        // (Recorded here: PathTrace belongs to the calling thread.)
        if PathTrace.enabled && doneAt != 0 {
            PathTrace.sample("handoff: flusher woken", nanoseconds: wokeAt &- postedAt)
            PathTrace.sample("handoff: caller woken after the flush", nanoseconds: PathTrace.now() &- doneAt)
            doneAt = 0
        }
        return outcome
    }

    private func startThread() -> Bool {
        if thread != nil { return true }
        var made = pthread_t()
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard pthread_create(&made, nil, { context in
            Unmanaged<SlotFlusher>.fromOpaquePointer(context!).takeUnretainedValue().run()
            return nil
        }, context) == 0 else { return false }
        thread = made
        return true
    }

    private func run() {
        while true {
            while sem_wait(work) != 0 && errno == EINTR {}
            if stopping { return }
            if PathTrace.enabled { wokeAt = PathTrace.now() }
            outcome = fdatasync(descriptor) == 0 ? 0 : errno
            if PathTrace.enabled { doneAt = PathTrace.now() }
            sem_post(done)
        }
    }
}

private extension Unmanaged {
    static func fromOpaquePointer(_ pointer: UnsafeMutableRawPointer) -> Unmanaged { fromOpaque(UnsafeRawPointer(pointer)) }
}
