import Bytes
import Foundation
import SystemCalls
import Synchronization
import CLinux
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// A call a signal interrupted (EINTR) is made again, in the layer, and the caller sees only its final result.
/// The first tests inject the call; the last sends a real signal (installed without SA_RESTART, so the kernel does
/// not restart the read itself) to a thread blocked in a read, and waits on what happened, never on time.
final class InterruptedCallTests: XCTestCase {
    func testAnInterruptedCallIsMadeAgainUntilItReturns() {
        var calls = 0
        let n = SystemCall.retryingInterrupts { () -> Int in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 5
        }
        XCTAssertEqual(n, 5)
        XCTAssertEqual(calls, 3)
    }

    func testAFailureOtherThanAnInterruptionIsReturnedAtOnceWithItsErrno() {
        var calls = 0
        let n = SystemCall.retryingInterrupts { () -> Int in
            calls += 1
            errno = EBADF
            return -1
        }
        XCTAssertEqual(n, -1)
        XCTAssertEqual(errno, EBADF)
        XCTAssertEqual(calls, 1)
    }

    func testAReadInterruptedByASignalGoesOnAndReturnsTheBytes() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)  // blocking
        defer { for fd in fds { close(fd) } }
        let (writer, reader) = (fds[0], fds[1])

        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = 0  // no SA_RESTART: a blocked read returns EINTR
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        XCTAssertEqual(sigaction(SIGUSR1, &action, &previous), 0)
        defer { sigaction(SIGUSR1, &previous, nil) }

        let interrupts = Atomic<Int>(0)
        let thread = Atomic<UInt>(0)
        let result = Mutex<(IOResult, [UInt8])?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            thread.store(UInt(pthread_self()), ordering: .releasing)
            var buffer = [UInt8](repeating: 0, count: 16)
            // The layer's retry around a real read, counting the interruptions it absorbs.
            let n = buffer.withUnsafeMutableBytes { raw in
                SystemCall.retryingInterrupts { () -> Int in
                    let n = Glibc.read(reader, raw.baseAddress, raw.count)
                    if n < 0 && errno == EINTR { interrupts.add(1, ordering: .relaxed) }
                    return n
                }
            }
            result.withLock { $0 = (n > 0 ? .bytes(n) : .error(errno), Array(buffer.prefix(max(n, 0)))) }
            done.signal()
        }
        var target = thread.load(ordering: .acquiring)
        while target == 0 {
            sched_yield()
            target = thread.load(ordering: .acquiring)
        }
        // Signal until one interrupted the blocked read (a signal that lands before the read begins interrupts
        // nothing), then give the read its bytes.
        while interrupts.load(ordering: .relaxed) == 0 {
            pthread_kill(pthread_t(target), SIGUSR1)
            sched_yield()
        }
        XCTAssertEqual([UInt8](arrayLiteral: 4, 2).withUnsafeBytes { SystemCall.send(writer, $0) }, .bytes(2))
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let (read, bytes) = try XCTUnwrap(result.withLock { $0 })
        XCTAssertEqual(read, .bytes(2), "the interruption never reached the caller")
        XCTAssertEqual(bytes, [4, 2])
        XCTAssertGreaterThanOrEqual(interrupts.load(ordering: .relaxed), 1)
    }
}
