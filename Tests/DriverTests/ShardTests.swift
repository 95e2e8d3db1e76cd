@testable import Driver
import Scenario
import XCTest

final class ShardTests: XCTestCase {
    private func settings(devices: Int, workers: Int, shard: Shard) throws -> DriverSettings {
        let yaml = """
            name: t
            devices: \(devices)
            load:
              - hold: { rate: 10/s, for: 1s }
            """
        guard case .success(let scenario) = ScenarioLoader.parse(yaml, file: "inline") else {
            throw XCTSkip("scenario did not parse")
        }
        var s = DriverSettings(scenario: scenario, targetURL: "http://127.0.0.1:1", workers: workers)
        s.shard = shard
        return s
    }

    func testParsingAcceptsOnlyIndexBelowCount() {
        XCTAssertEqual(Shard(parsing: "2/4"), Shard(index: 2, count: 4))
        for bad in ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", ""] { XCTAssertNil(Shard(parsing: bad), bad) }
        XCTAssertTrue(Shard.whole.isWhole)
    }

    func testShardsAndWorkersOwnEveryDeviceExactlyOnceAndFindItsOwner() throws {
        for (devices, n, w) in [(103, 4, 2), (10, 3, 3), (7, 8, 1), (600, 4, 1)] {
            var owners: [Int: Int] = [:]
            for i in 0..<n {
                let s = try settings(devices: devices, workers: w, shard: Shard(index: i, count: n)!)
                var owned = 0
                for worker in 0..<w {
                    for (local, d) in s.deviceIndexes(worker: worker).enumerated() {
                        owners[d, default: 0] += 1
                        owned += 1
                        let owner = try XCTUnwrap(s.owner(ofDevice: d))
                        XCTAssertEqual(owner.worker, worker)
                        XCTAssertEqual(owner.local, local)
                    }
                }
                XCTAssertEqual(owned, s.shard.deviceCount(of: devices))
                for d in 0..<devices where d % n != i { XCTAssertNil(s.owner(ofDevice: d)) }
            }
            XCTAssertEqual(owners.count, devices)
            XCTAssertTrue(owners.values.allSatisfy { $0 == 1 })
        }
    }

    func testShardsAndWorkersRunEveryArrivalExactlyOnce() throws {
        let n = 4, w = 3
        var runs = [Int](repeating: 0, count: 1000)
        for i in 0..<n {
            let s = try settings(devices: 100, workers: w, shard: Shard(index: i, count: n)!)
            for k in 0..<runs.count { for worker in 0..<w where s.owns(arrival: k, worker: worker) { runs[k] += 1 } }
        }
        XCTAssertTrue(runs.allSatisfy { $0 == 1 })
    }
}
