import CallModel
import XCTest

/// `SmallStringMap` stands in for the dictionaries a device and a call kept by conversation UUID: the same answers
/// for lookups, stores and removals, equality in any order, and iteration in insertion order.
final class SmallStringMapTests: XCTestCase {
    func testStoresLooksUpReplacesAndRemovesAsADictionary() {
        var map = SmallStringMap<Int>()
        XCTAssertNil(map["a"])
        map["a"] = 1
        map["b"] = 2
        map["a"] = 3
        XCTAssertEqual(map["a"], 3)
        XCTAssertEqual(map["b"], 2)
        XCTAssertEqual(map.count, 2)
        map["a"] = nil
        XCTAssertNil(map["a"])
        XCTAssertEqual(map.keys, ["b"])
        XCTAssertEqual(map.removeValue(forKey: "b"), 2)
        XCTAssertNil(map.removeValue(forKey: "b"))
        XCTAssertTrue(map.isEmpty)
    }

    func testKeysWithEqualTextFromDifferentStorageMatch() {
        var map = SmallStringMap<Int>()
        let uuid = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
        map[uuid] = 7
        let rebuilt = String(decoding: Array(uuid.utf8), as: UTF8.self)
        XCTAssertEqual(map[rebuilt], 7)
        XCTAssertEqual(map.index(forKey: rebuilt), 0)
    }

    func testIteratesInInsertionOrderAndKeepsTheRestInOrderAfterARemoval() {
        var map: SmallStringMap<Int> = ["c": 1, "a": 2, "b": 3]
        map["a"] = nil
        map["d"] = 4
        XCTAssertEqual(map.map(\.key), ["c", "b", "d"])
        XCTAssertEqual(map.map(\.value), [1, 3, 4])
        XCTAssertEqual(map.values, [1, 3, 4])
    }

    func testEqualityIgnoresOrderButNotValues() {
        let a: SmallStringMap<Int> = ["x": 1, "y": 2]
        XCTAssertEqual(a, ["y": 2, "x": 1])
        XCTAssertNotEqual(a, ["x": 1, "y": 3])
        XCTAssertNotEqual(a, ["x": 1])
    }

    func testDefaultSubscriptAndInPlaceChange() {
        var map = SmallStringMap<Int>()
        map["n", default: 0] += 5
        map["n", default: 0] += 1
        XCTAssertEqual(map["n"], 6)
        let i = map.index(forKey: "n")!
        let before = map.modify(at: i) { value -> Int in
            defer { value *= 10 }
            return value
        }
        XCTAssertEqual(before, 6)
        XCTAssertEqual(map["n"], 60)
    }

    func testRemoveAllEmptiesAndTheMapFillsAgain() {
        var map: SmallStringMap<String> = ["a": "1"]
        map.removeAll()
        XCTAssertTrue(map.isEmpty)
        XCTAssertNil(map["a"])
        map["a"] = "2"
        XCTAssertEqual(map["a"], "2")
    }
}
