import Dispatch
import Foundation
import Locking
import XCTest
import struct Synchronization.Atomic

/// What the contention test shares between its threads: the mutex under test and, outside it, atomics that notice
/// two bodies running at once.
private final class Contended: Sendable {
    let counter = Mutex(0)
    let holders = Atomic<Int>(0)
    let overlaps = Atomic<Int>(0)
    let ready = Atomic<Int>(0)
}

private struct Refused: Error, Equatable {
    let code: Int
}

/// Counts its own deinit, to show the mutex destroys the value it guards.
private final class Tracked: Sendable {
    let gone: Gone
    init(_ gone: Gone) { self.gone = gone }
    deinit { gone.count.wrappingAdd(1, ordering: .relaxed) }
}

private final class Gone: Sendable {
    let count = Atomic<Int>(0)
}

private struct Ticket: ~Copyable {
    var number: Int
}

final class MutexTests: XCTestCase {
    /// Many threads, released together, each read-modify-write a plain Int inside withLock with a yield in the middle
    /// of the update: a lock that let two bodies overlap would lose increments and be caught by `holders`. Under
    /// `make test-sanitize` this is also the check that TSan sees each hand-over (Synchronization.Mutex's futex slow
    /// path it did not see, and reported this very counter as a race).
    func testContendedIncrementsFromManyThreadsAreNeverLostOrOverlapped() {
        let threads = 8
        let perThread = 4_000
        let shared = Contended()
        let done = DispatchGroup()
        for _ in 0..<threads {
            done.enter()
            let thread = Thread {
                shared.ready.wrappingAdd(1, ordering: .relaxed)
                while shared.ready.load(ordering: .relaxed) < threads { sched_yield() }
                for i in 0..<perThread {
                    shared.counter.withLock { value in
                        if shared.holders.wrappingAdd(1, ordering: .relaxed).oldValue != 0 {
                            shared.overlaps.wrappingAdd(1, ordering: .relaxed)
                        }
                        let seen = value
                        if i % 16 == 0 { sched_yield() }
                        value = seen + 1
                        shared.holders.wrappingSubtract(1, ordering: .relaxed)
                    }
                }
                done.leave()
            }
            thread.start()
        }
        done.wait()
        XCTAssertEqual(shared.counter.withLock { $0 }, threads * perThread)
        XCTAssertEqual(shared.overlaps.load(ordering: .relaxed), 0)
    }

    func testWithLockReturnsWhatTheBodyReturnsAndKeepsItsChanges() {
        let mutex = Mutex([1, 2])
        let count = mutex.withLock { list -> Int in
            list.append(3)
            return list.count
        }
        XCTAssertEqual(count, 3)
        XCTAssertEqual(mutex.withLock { $0 }, [1, 2, 3])
    }

    /// A body that throws leaves the lock free: another thread then takes it (the wait is a bound on a deadlock,
    /// not a measurement).
    func testThrowingBodyRethrowsItsTypedErrorAndReleasesTheLock() {
        let shared = Contended()
        do {
            try shared.counter.withLock { (value: inout Int) throws(Refused) in
                value = 7
                throw Refused(code: 42)
            }
            XCTFail("withLock returned although its body threw")
        } catch {
            XCTAssertEqual(error, Refused(code: 42))
        }
        let taken = DispatchSemaphore(value: 0)
        Thread {
            shared.counter.withLock { $0 += 1 }
            taken.signal()
        }.start()
        XCTAssertEqual(taken.wait(timeout: .now() + 30), .success, "the lock stayed held after the body threw")
        XCTAssertEqual(shared.counter.withLock { $0 }, 8)
    }

    func testMutexDestroysTheValueItGuards() {
        let gone = Gone()
        do {
            let mutex = Mutex(Tracked(gone))
            mutex.withLock { _ in }
            XCTAssertEqual(gone.count.load(ordering: .relaxed), 0)
        }
        XCTAssertEqual(gone.count.load(ordering: .relaxed), 1)
    }

    func testNoncopyableValueIsUpdatedInPlace() {
        let mutex = Mutex(Ticket(number: 1))
        mutex.withLock { $0.number += 1 }
        XCTAssertEqual(mutex.withLock { $0.number }, 2)
    }
}
