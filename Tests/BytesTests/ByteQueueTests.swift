import Bytes
import XCTest

/// The one buffer + reader index value: bytes in at the back, read in place, consumed from the front, with each
/// owner's memory policy (capacity kept when emptied, compaction of the consumed front).
final class ByteQueueTests: XCTestCase {
    private func contents(_ queue: ByteQueue) -> [UInt8] {
        queue.withReadableBytes { Array($0) }
    }

    func testAppendedBytesAreReadableInOrderAndConsumeDropsThemFromTheFront() {
        var queue = ByteQueue()
        XCTAssertTrue(queue.isEmpty)
        queue.append([1, 2, 3])
        [UInt8]([4, 5]).withUnsafeBytes { queue.append($0) }
        [UInt8]([6]).withUnsafeBufferPointer { queue.append($0) }
        XCTAssertEqual(queue.count, 6)
        XCTAssertEqual(contents(queue), [1, 2, 3, 4, 5, 6])
        queue.consume(2)
        XCTAssertEqual(queue.count, 4)
        XCTAssertEqual(contents(queue), [3, 4, 5, 6])
        XCTAssertEqual(Array(queue.readable), [3, 4, 5, 6])
        XCTAssertEqual(queue.withReadableBuffer { Array($0) }, [3, 4, 5, 6])
        XCTAssertEqual(queue.copyBytes(at: 1, count: 2), [4, 5], "offsets count from the first readable byte")
    }

    func testAQueueEmptiedByConsumeKeepsItsCapacityOnlyUpToTheOwnersLimit() {
        var small = ByteQueue(Array(repeating: 7, count: 100))
        small.consume(100, keepingCapacityUpTo: 4096)
        XCTAssertTrue(small.isEmpty)
        XCTAssertGreaterThanOrEqual(small.capacity, 100, "a small buffer is kept for the next bytes")

        var large = ByteQueue(Array(repeating: 7, count: 10_000))
        large.consume(10_000, keepingCapacityUpTo: 4096)
        XCTAssertTrue(large.isEmpty)
        XCTAssertEqual(large.capacity, 0, "a buffer over the limit is given back")

        var idle = ByteQueue([1, 2, 3])
        idle.consume(3)
        XCTAssertEqual(idle.capacity, 0, "by default an emptied queue holds no buffer (idle sockets)")
    }

    func testConsumingPastTheCompactionPointMovesWhatIsLeftToTheFront() {
        var queue = ByteQueue(Array(0..<100).map { UInt8($0) })
        queue.consume(10, compactingAt: 50)
        XCTAssertEqual(contents(queue).first, 10, "below the compaction point nothing moves")
        queue.consume(45, compactingAt: 50)
        XCTAssertEqual(contents(queue), Array(55..<100).map { UInt8($0) })
        queue.append([200])
        XCTAssertEqual(queue.count, 46)
        XCTAssertEqual(contents(queue).last, 200)
    }

    func testRemoveAllEmptiesAndAppendingLetsAnEncoderWriteInPlace() {
        var queue = ByteQueue([1, 2])
        queue.appending { $0.append(contentsOf: [3, 4]) }
        XCTAssertEqual(contents(queue), [1, 2, 3, 4])
        queue.consume(1)
        queue.removeAll(keepingCapacityUpTo: 1024)
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(queue.count, 0)
        queue.append([9])
        XCTAssertEqual(contents(queue), [9], "a removed queue starts again at its front")
    }

    func testTakeAllHandsOverTheReadableBytesAndLeavesTheQueueEmpty() {
        var queue = ByteQueue([1, 2, 3, 4])
        queue.consume(1)
        XCTAssertEqual(queue.takeAll(), [2, 3, 4])
        XCTAssertTrue(queue.isEmpty)
        var kept = ByteQueue(Array(repeating: 1, count: 64))
        kept.consume(64, keepingCapacityUpTo: 1 << 20)
        let taken = kept.takeAll()
        XCTAssertEqual(taken, [])
        XCTAssertEqual(taken.capacity, 0, "an empty hand-over carries no buffer to its new owner")
    }

    func testConsumeAfterCompactionKeepsTheByteOrder() {
        var queue = ByteQueue()
        var expected: [UInt8] = []
        var next: UInt8 = 0
        for round in 0..<50 {
            let chunk = (0..<(round % 7 + 1)).map { _ -> UInt8 in
                next &+= 1
                return next
            }
            queue.append(chunk)
            expected += chunk
            let take = min(queue.count, round % 5)
            queue.consume(take, keepingCapacityUpTo: 16, compactingAt: 8)
            expected.removeFirst(take)
            XCTAssertEqual(contents(queue), expected)
        }
    }
}
