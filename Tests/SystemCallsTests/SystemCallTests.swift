import Bytes
import SystemCalls
import CLinux
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The one syscall layer on real descriptors: what a read or write did comes back as an `IOResult` (bytes, would
/// block, the peer's end, an error), never as errno for the caller to read. Nothing here depends on time.
final class SystemCallTests: DescriptorTestCase {
    /// A connected, non-blocking AF_UNIX stream pair.
    private func streamPair() -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        XCTAssertEqual(socketpair(AF_UNIX, type, 0, &fds), 0)
        open += fds
        return (fds[0], fds[1])
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> IOResult {
        bytes.withUnsafeBytes { SystemCall.send(fd, $0) }
    }

    private func read(_ fd: Int32, _ buffer: inout [UInt8]) -> IOResult {
        buffer.withUnsafeMutableBytes { SystemCall.read(fd, into: $0.baseAddress!, count: $0.count) }
    }

    // MARK: - Streams

    func testBytesSentOnOneEndAreReadOnTheOther() {
        let (a, b) = streamPair()
        XCTAssertEqual(send(a, [1, 2, 3]), .bytes(3))
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(read(b, &buffer), .bytes(3))
        XCTAssertEqual(Array(buffer.prefix(3)), [1, 2, 3])
    }

    func testAnEmptyNonBlockingSocketWouldBlock() {
        let (_, b) = streamPair()
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(read(b, &buffer), .wouldBlock)
        XCTAssertEqual(buffer.withUnsafeMutableBytes {
            SystemCall.receive(b, into: $0.baseAddress!, count: $0.count, flags: Int32(MSG_PEEK))
        }, .wouldBlock)
    }

    func testAFullSendBufferWouldBlockAfterSomeBytesWent() {
        let (a, _) = streamPair()
        let chunk = [UInt8](repeating: 0x55, count: 64 * 1024)
        var total = 0
        var last = IOResult.bytes(0)
        for _ in 0..<10_000 {
            last = send(a, chunk)
            guard case .bytes(let n) = last else { break }
            total += n
        }
        XCTAssertEqual(last, .wouldBlock, "the peer reads nothing, so the kernel buffers fill")
        XCTAssertGreaterThan(total, 0)
    }

    func testPeekLeavesTheBytesForTheNextRead() {
        let (a, b) = streamPair()
        XCTAssertEqual(send(a, [9, 8]), .bytes(2))
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(buffer.withUnsafeMutableBytes {
            SystemCall.receive(b, into: $0.baseAddress!, count: $0.count, flags: Int32(MSG_PEEK))
        }, .bytes(2))
        XCTAssertEqual(read(b, &buffer), .bytes(2))
        XCTAssertEqual(Array(buffer.prefix(2)), [9, 8])
    }

    func testThePeersCloseIsClosedOnReadAndAnErrorOnSendWithoutSIGPIPE() {
        let (a, b) = streamPair()
        close(a)
        open.removeAll { $0 == a }
        var buffer = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(read(b, &buffer), .closed)
        XCTAssertEqual(send(b, [1]), .error(EPIPE), "MSG_NOSIGNAL: the process is not killed")
    }

    func testACallOnAClosedDescriptorIsAnError() {
        var buffer = [UInt8](repeating: 0, count: 4)
        XCTAssertEqual(read(-1, &buffer), .error(EBADF))
        XCTAssertEqual(send(-1, [1]), .error(EBADF))
        XCTAssertEqual([UInt8(1)].withUnsafeBytes { SystemCall.write(-1, $0) }, .error(EBADF))
    }

    func testWriteAllWritesEveryByteThroughAPipe() {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        open += fds
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        XCTAssertNil(bytes.withUnsafeBytes { all in SystemCall.writeAll(all) { SystemCall.write(fds[1], $0) } })
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while got.count < bytes.count, case .bytes(let n) = read(fds[0], &buffer) {
            got += buffer.prefix(n)
        }
        XCTAssertEqual(got, bytes)
    }

    func testWriteAllStopsAtTheFirstResultThatIsNotProgress() {
        var calls = 0
        let stopped = [UInt8](repeating: 1, count: 10).withUnsafeBytes { all in
            SystemCall.writeAll(all) { part -> IOResult in
                calls += 1
                return calls == 1 ? .bytes(min(4, part.count)) : .wouldBlock
            }
        }
        XCTAssertEqual(stopped, .wouldBlock)
        XCTAssertEqual(calls, 2)
    }

    func testADrainThroughSendStopsWhenTheSocketWouldBlock() {
        let (a, b) = streamPair()
        var queue = ByteQueue([UInt8](repeating: 7, count: 4 * 1024 * 1024))
        let drain = queue.drain(keepingCapacityUpTo: 0) { SystemCall.send(a, $0) }
        XCTAssertEqual(drain.stoppedBy, .wouldBlock)
        XCTAssertFalse(drain.failed)
        XCTAssertEqual(drain.written + queue.count, 4 * 1024 * 1024)
        var buffer = [UInt8](repeating: 0, count: 1024)
        XCTAssertEqual(read(b, &buffer), .bytes(1024))
    }

    // MARK: - Accepting

    func testAnAcceptWithNothingPendingFailsWithEAGAIN() {
        let listener = boundLoopback(Int32(SOCK_STREAM.rawValue)).fd
        XCTAssertEqual(listen(listener, 4), 0)
        XCTAssertEqual(SystemCall.accept(listener), -1)
        XCTAssertEqual(errno, EAGAIN)
    }
}
