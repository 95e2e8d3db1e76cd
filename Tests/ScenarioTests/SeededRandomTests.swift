import XCTest
@testable import Scenario

final class SeededRandomTests: XCTestCase {
    func testMatchesTheReferenceAlgorithm() {
        // Values from the reference C implementations of splitmix64 and xoshiro256**.
        var state: UInt64 = 0
        XCTAssertEqual(SeededRandom.splitmix64(&state), 0xE220_A839_7B1D_CDAF)
        var random = SeededRandom(seed: 42)
        XCTAssertEqual([random.next(), random.next(), random.next()],
                       [0x1578_0B2E_0C2E_C716, 0x6104_D986_6D11_3A7E, 0xAE17_5332_39E4_99A1])
    }

    func testSameSeedAndStreamRepeat() {
        var a = SeededRandom(seed: 7, stream: 3)
        var b = SeededRandom(seed: 7, stream: 3)
        XCTAssertEqual((0..<100).map { _ in a.next() }, (0..<100).map { _ in b.next() })
    }

    func testStreamsAndSeedsDiffer() {
        var firsts: Set<UInt64> = []
        for seed: UInt64 in 0..<20 {
            for stream: UInt64 in 0..<50 {
                var random = SeededRandom(seed: seed, stream: stream)
                firsts.insert(random.next())
            }
        }
        XCTAssertEqual(firsts.count, 1000)
    }

    func testUnitValuesStayInRange() {
        var random = SeededRandom(seed: 1)
        for _ in 0..<10_000 {
            let closedOpen = random.nextUnit()
            let openClosed = random.nextOpenUnit()
            XCTAssertTrue(closedOpen >= 0 && closedOpen < 1)
            XCTAssertTrue(openClosed > 0 && openClosed <= 1)
        }
    }
}
