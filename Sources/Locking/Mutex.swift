#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`: the surface of `Synchronization.Mutex` (`init(_:)`, `withLock`), so a file
/// switches by its import alone.
///
/// Why not `Synchronization.Mutex`: on Linux its contended lock and unlock go through `_lockSlow`/`_unlockSlow` in
/// libswiftSynchronization (futex syscalls), which ThreadSanitizer does not instrument, so under contention TSan misses
/// the release/acquire and reports two `withLock` bodies as a race. TSan intercepts `pthread_mutex_lock`/`unlock`, so
/// every hand-over through this mutex is a happens-before it sees (and its deadlock detector sees the lock order).
///
/// Like `Synchronization.Mutex` it is non-copyable (one lock per value, never shared by accident), `Sendable` whatever
/// the value (the value crosses threads only inside `withLock`, as `sending`), and not recursive: calling `withLock`
/// from inside its own body deadlocks.
public struct Mutex<Value: ~Copyable>: ~Copyable {
    private let storage: Storage

    /// Makes a mutex guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        storage = Storage(initialValue)
    }

    /// Runs `body` with the lock held and exclusive access to the value; returns what `body` returns.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        storage.lock()
        defer { storage.unlock() }
        return try body(&storage.value)
    }

    /// Heap storage: a pthread mutex must not move once initialised, and the value lives beside it.
    private final class Storage {
        /// The mutex itself provides the exclusive access, and a nested `withLock` deadlocks before a second access
        /// could begin, so the runtime's dynamic exclusivity check on every `withLock` would only cost time.
        @exclusivity(unchecked) var value: Value
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>

        init(_ value: consuming Value) {
            self.value = value
            mutex = .allocate(capacity: 1)
            mutex.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(mutex, nil)
            precondition(status == 0, "pthread_mutex_init failed with error \(status)")
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
            mutex.deallocate()
        }

        func lock() {
            let status = pthread_mutex_lock(mutex)
            precondition(status == 0, "pthread_mutex_lock failed with error \(status)")
        }

        func unlock() {
            let status = pthread_mutex_unlock(mutex)
            precondition(status == 0, "pthread_mutex_unlock failed with error \(status)")
        }
    }
}

extension Mutex: @unchecked Sendable where Value: ~Copyable {}
