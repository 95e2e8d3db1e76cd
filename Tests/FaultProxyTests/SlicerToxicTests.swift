@testable import FaultProxy
import TestSupport
import XCTest

final class SlicerToxicTests: XCTestCase {
    func testCutsIntoSlicesOfTheAverageSizeSpacedByTheDelay() throws {
        var pipe = try VirtualPipe([ToxicSpec("slicer", ["average_size": 10, "size_variation": 4, "delay": 1_000])])
        let data = (0..<200).map { UInt8($0) }
        pipe.send(.data(data), atMillis: 0)
        pipe.run(untilMillis: 1_000)
        XCTAssertEqual(pipe.bytes, data)
        let sizes = pipe.released.compactMap { item -> Int? in
            if case .data(let b) = item.emission { return b.count }
            return nil
        }
        XCTAssertTrue(sizes.dropLast().allSatisfy { (6...14).contains($0) }, "\(sizes)")
        XCTAssertEqual(Double(sizes.count), 20, accuracy: 6)
        XCTAssertEqual(pipe.dataMillis[1] - pipe.dataMillis[0], 1, accuracy: 1e-6)
    }

    func testRawClientGetsManySmallReads() throws {
        let harness = try ProxiedServer(toxics: [ToxicSpec("slicer", ["average_size": 64, "delay": 1_000])])
        defer { harness.stop() }
        let client = try LoopbackSocket(port: harness.proxy.port, receiveTimeoutMillis: 3_000)
        client.get("/size/2000")
        let result = client.readAll()
        XCTAssertEqual(body(of: result.bytes).count, 2000)
        // About 33 slices a millisecond apart; allow for the reader sometimes finding two waiting.
        XCTAssertGreaterThanOrEqual(result.reads, 12, "reads: \(result.reads)")
    }
}
