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
    // Both live on the heap: a pthread mutex must not move once initialised, and the value is reached through a
    // pointer so that the only accesses TSan sees to it are the ones inside `withLock`. (An `inout` of a stored
    // property of a generic class is reported by TSan at the object's address, where it collides with the
    // unlocked metadata read of the next `withLock`: a false race.)
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// Makes a mutex guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed with error \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with the lock held and exclusive access to the value; returns what `body` returns.
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed with error \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed with error \(unlocked)")
        }
        return try body(&value.pointee)
    }
}

extension Mutex: @unchecked Sendable where Value: ~Copyable {}
