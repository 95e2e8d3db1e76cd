import Bytes
import XCTest

/// The one flush loop: a queue written out through any write function until it is empty, the writer would block,
/// or a write fails.
final class ByteQueueDrainTests: XCTestCase {
    /// A writer that takes at most `chunk` bytes a call, then answers `end` once `budget` bytes were taken.
    private final class Writer {
        var taken: [UInt8] = []
        var calls = 0
        let chunk: Int
        let budget: Int
        let end: IOResult

        init(chunk: Int, budget: Int, end: IOResult) {
            self.chunk = chunk
            self.budget = budget
            self.end = end
        }

        func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
            calls += 1
            let room = min(chunk, budget - taken.count, bytes.count)
            guard room > 0 else { return end }
            taken += bytes.prefix(room)
            return .bytes(room)
        }
    }

    func testADrainThatSendsEverythingEmptiesTheQueueAndReportsNoStop() {
        var queue = ByteQueue(Array(0..<10).map { UInt8($0) })
        let writer = Writer(chunk: 3, budget: 100, end: .wouldBlock)
        let drain = queue.drain(keepingCapacityUpTo: 0) { writer.write($0) }
        XCTAssertEqual(drain, ByteQueue.Drain(written: 10, stoppedBy: nil))
        XCTAssertTrue(drain.progressed)
        XCTAssertFalse(drain.failed)
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(queue.capacity, 0)
        XCTAssertEqual(writer.taken, Array(0..<10).map { UInt8($0) })
        XCTAssertEqual(writer.calls, 4, "partial writes go on from where the last one stopped")
    }

    func testADrainThatWouldBlockKeepsTheUnsentBytesAndIsNotAFailure() {
        var queue = ByteQueue(Array(0..<10).map { UInt8($0) })
        let writer = Writer(chunk: 4, budget: 6, end: .wouldBlock)
        let drain = queue.drain(keepingCapacityUpTo: 0) { writer.write($0) }
        XCTAssertEqual(drain.written, 6)
        XCTAssertEqual(drain.stoppedBy, .wouldBlock)
        XCTAssertFalse(drain.failed)
        XCTAssertEqual(queue.withReadableBytes { Array($0) }, [6, 7, 8, 9])
    }

    func testAFailedWriteStopsTheDrainAsAFailure() {
        for end in [IOResult.error(32), .closed] {
            var queue = ByteQueue([1, 2, 3])
            let writer = Writer(chunk: 1, budget: 1, end: end)
            let drain = queue.drain(keepingCapacityUpTo: 0) { writer.write($0) }
            XCTAssertEqual(drain, ByteQueue.Drain(written: 1, stoppedBy: end))
            XCTAssertTrue(drain.failed)
            XCTAssertTrue(drain.progressed)
            XCTAssertEqual(queue.count, 2)
        }
    }

    func testDrainingAnEmptyQueueWritesNothing() {
        var queue = ByteQueue()
        let writer = Writer(chunk: 1, budget: 1, end: .wouldBlock)
        let drain = queue.drain(keepingCapacityUpTo: 0) { writer.write($0) }
        XCTAssertEqual(drain, ByteQueue.Drain(written: 0, stoppedBy: nil))
        XCTAssertFalse(drain.progressed)
        XCTAssertEqual(writer.calls, 0)
    }
}
