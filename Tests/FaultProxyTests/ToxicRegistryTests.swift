@testable import FaultProxy
import XCTest

final class ToxicRegistryTests: XCTestCase {
    func testEveryKindIsRegistered() {
        XCTAssertEqual(ToxicRegistry.names,
                       ["latency", "bandwidth", "slow_close", "timeout", "reset_peer", "slicer", "limit_data"])
    }

    func testUnknownKindSuggestsTheNearestName() {
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec(name: "slow", kind: "latancy"))) { error in
            XCTAssertEqual("\(error)",
                "toxic 'slow': unknown kind 'latancy' — did you mean 'latency'? (known kinds: latency, bandwidth, "
                + "slow_close, timeout, reset_peer, slicer, limit_data)")
        }
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec("reset-peer"))) { error in
            XCTAssertTrue("\(error)".contains("did you mean 'reset_peer'?"), "\(error)")
        }
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec("teleport"))) { error in
            XCTAssertFalse("\(error)".contains("did you mean"), "\(error)")
        }
    }

    func testUnknownAttributeNamesWhatTheKindTakes() {
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec("slicer", ["avg_size": 3]))) { error in
            XCTAssertEqual("\(error)", "toxic 'slicer': slicer has no attribute 'avg_size' — did you mean 'average_size'? "
                + "(it takes: average_size, size_variation, delay)")
        }
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec("latency", ["jiter": 3]))) { error in
            XCTAssertTrue("\(error)".contains("did you mean 'jitter'?"), "\(error)")
        }
    }

    func testOutOfRangeValuesAndToxicityAreRejected() {
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec("latency", ["latency": -5]))) { error in
            XCTAssertEqual("\(error)", "toxic 'latency': latency is -5, it must be in 0...3600000")
        }
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec("timeout", toxicity: 1.5))) { error in
            XCTAssertEqual("\(error)", "toxic 'timeout': toxicity is 1.5, it must be a probability in 0...1")
        }
        XCTAssertThrowsError(try ToxicRegistry.make(ToxicSpec("bandwidth", ["rate": .nan])))
    }

    func testValidateReportsEveryProblemAtOnce() {
        let problems = ToxicRegistry.validate([
            ToxicSpec("latency", ["latency": -1]),
            ToxicSpec("latency"),
            ToxicSpec(name: "x", kind: "nope"),
            ToxicSpec(name: "", kind: "timeout", toxicity: 2),
        ])
        XCTAssertEqual(problems.count, 5, "\(problems)")
    }

    func testMissingAttributesTakeTheirDefaults() throws {
        let slicer = try XCTUnwrap(try ToxicRegistry.make(ToxicSpec("slicer")) as? SlicerToxic)
        XCTAssertEqual(slicer.averageSize, 16)
        XCTAssertEqual(slicer.delayNanos, 0)
    }

    func testSetToxicsWithABadSpecChangesNothing() throws {
        let proxy = FaultProxy(upstreamPort: 1, seed: 1)
        try proxy.setToxics([ToxicSpec("latency", ["latency": 10])])
        XCTAssertThrowsError(try proxy.setToxics([ToxicSpec("latency"), ToxicSpec("blackhole")])) { error in
            XCTAssertTrue("\(error)".contains("unknown kind 'blackhole'"), "\(error)")
        }
        XCTAssertEqual(proxy.toxics, [ToxicSpec("latency", ["latency": 10])])
    }
}
