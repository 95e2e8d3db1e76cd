@testable import Driver
import XCTest

/// `LegTable`, the SIP legs by device and Call-ID: what a `[LegKey: Value]` answered, without hashing.
final class LegTableTests: XCTestCase {
    private func key(_ local: Int, _ callID: String) -> LegKey { LegKey(local: local, callID: callID) }

    func testFindsEachLegByDeviceAndCallID() {
        var table = LegTable<Int>()
        table[key(3, "a@h")] = 1
        table[key(3, "b@h")] = 2
        table[key(0, "a@h")] = 3
        XCTAssertEqual(table[key(3, "a@h")], 1)
        XCTAssertEqual(table[key(3, "b@h")], 2)
        XCTAssertEqual(table[key(0, "a@h")], 3)
        XCTAssertNil(table[key(1, "a@h")])
        XCTAssertNil(table[key(9, "a@h")])
        XCTAssertEqual(table.count, 3)
    }

    func testSettingNilAndRemovingTakeTheLegOut() {
        var table = LegTable<Int>()
        table[key(2, "a")] = 1
        table[key(2, "b")] = 2
        table[key(2, "a")] = nil
        XCTAssertNil(table[key(2, "a")])
        XCTAssertEqual(table.removeValue(forKey: key(2, "b")), 2)
        XCTAssertNil(table.removeValue(forKey: key(2, "b")))
        XCTAssertTrue(table.isEmpty)
        XCTAssertFalse(table.has(device: 2))
    }

    func testUpdateChangesInPlaceAndSaysWhetherTheLegWasThere() {
        var table = LegTable<Int>()
        table[key(1, "a")] = 5
        XCTAssertTrue(table.update(key(1, "a")) { $0 += 1 })
        XCTAssertFalse(table.update(key(1, "b")) { $0 += 1 })
        XCTAssertEqual(table[key(1, "a")], 6)
        XCTAssertEqual(table.read(key(1, "a")) { $0 * 2 }, 12)
        XCTAssertNil(table.read(key(1, "b")) { $0 })
    }

    func testListsByDeviceThenInTheOrderLegsCame() {
        var table = LegTable<Int>()
        table[key(4, "z")] = 1
        table[key(1, "y")] = 2
        table[key(4, "x")] = 3
        XCTAssertEqual(table.entries(of: 4).map(\.key.callID), ["z", "x"])
        XCTAssertEqual(table.all.map(\.value), [2, 1, 3])
        table.removeAll()
        XCTAssertEqual(table.count, 0)
        XCTAssertTrue(table.all.isEmpty)
    }
}
