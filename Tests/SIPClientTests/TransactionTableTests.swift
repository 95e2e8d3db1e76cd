import Determinism
@testable import SIPClient
import XCTest

/// The agent's transaction table: found by key through its index whatever the number of entries, a key that only
/// shares a fingerprint never found for another, and the due entries coming out in the order they were added.
final class TransactionTableTests: XCTestCase {
    private struct Timed: TimedTransaction, Equatable {
        var nextDeadline: UInt64?
        var tag: Int
    }

    /// Branches in groups that share a `KeyPrint` (same length, same last eight bytes, or last eight bytes apart
    /// only in the bit the print sets), so the index's probes meet equal prints of different keys.
    private static let branches: [String] = {
        var all: [String] = []
        for suffix in ["00a1b2c3", "10a1b2c3", "9zzzzzzz", "k7.0a1b2", "z9hG4bKq"] {
            for prefix in ["z9hG4bK", "z9hG4bJ", "z9hG4bKx", "Z9hG4bK", "a"] { all.append(prefix + suffix) }
        }
        return all + ["", "z", "z9hG4bK", "z9hG4bK1"]
    }()

    func testTheTableFindsExactlyWhatADictionaryHoldsThroughInsertsRemovalsAndSharedPrints() {
        XCTAssertEqual(KeyPrint.of("z9hG4bK00a1b2c3"), KeyPrint.of("z9hG4bJ00a1b2c3"), "a shared print, as meant")
        XCTAssertEqual(KeyPrint.of("z9hG4bK00a1b2c3"), KeyPrint.of("z9hG4bK10a1b2c3"), "the print's low bit set")
        var random = SeededRandom(seed: 33)
        var table = TransactionTable<Timed>()
        var model: [TransactionKey: (value: Timed, rank: Int)] = [:]
        var rank = 0
        for step in 0..<20_000 {
            let key = TransactionKey(branch: Self.branches.randomElement(using: &random)!,
                                     method: Bool.random(using: &random) ? "INVITE" : "CANCEL")
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5 where model[key] == nil:
                let value = Timed(nextDeadline: UInt64.random(in: 0..<1_000, using: &random), tag: step)
                table.insert(key, value)
                model[key] = (value, rank)
                rank += 1
            case 0..<5, 5..<8:
                if let slot = table.find(key) {
                    XCTAssertEqual(table.remove(slot), model.removeValue(forKey: key)?.value, "step \(step)")
                }
            default:
                if let slot = table.find(key) {
                    let due = UInt64.random(in: 0..<1_000, using: &random)
                    table.update(slot) { $0.nextDeadline = due }
                    model[key]?.value.nextDeadline = due
                }
            }
            XCTAssertEqual(table.find(key).map { table[$0] }, model[key]?.value, "step \(step)")
            XCTAssertEqual(table.count, model.count)
        }
        for branch in Self.branches {
            for method in ["INVITE", "CANCEL", "BYE"] {
                let key = TransactionKey(branch: String(branch), method: method)
                XCTAssertEqual(table.find(key).map { table.key($0) }, model[key] == nil ? nil : key)
            }
        }
        XCTAssertEqual(table.nextDue, model.values.compactMap { $0.value.nextDeadline }.min() ?? .max)
        var due: [Int] = []
        table.popDue(500, into: &due)
        let expected = model.filter { ($0.value.value.nextDeadline ?? .max) <= 500 }
            .sorted { $0.value.rank < $1.value.rank }
        XCTAssertEqual(due.map { table.key($0) }, expected.map { $0.key }, "the due ones, in the order they were added")
    }

    /// A branch of another's making that looks like ours (the same length and last eight bytes, so the same
    /// print and bucket) is another transaction's; one equal as a `String` (canonical equivalence) is the same.
    func testABranchFromElsewhereThatLooksLikeOursDoesNotMatch() {
        var table = TransactionTable<Timed>()
        let ours = TransactionKey(branch: "z9hG4bKr4nd0mk1", method: "INVITE")
        for i in 0..<100 { table.insert(TransactionKey(branch: "z9hG4bK\(i)lingers", method: "BYE"), Timed(tag: i)) }
        let slot = table.insert(ours, Timed(tag: 100))
        XCTAssertEqual(table.find(TransactionKey(branch: "z9hG4bKr4nd0mk1", method: "INVITE")), slot)
        XCTAssertNil(table.find(TransactionKey(branch: "x9hG4bKr4nd0mk1", method: "INVITE")), "the same print")
        XCTAssertNil(table.find(TransactionKey(branch: "z9hG4bKr4nd0mk1", method: "CANCEL")), "another method")
        XCTAssertNil(table.find(TransactionKey(branch: "z9hG4bKr4nd0mk", method: "INVITE")), "a prefix of it")
        XCTAssertNil(table.find(TransactionKey(branch: "z9hG4bKr4nd0mk1\u{0301}", method: "INVITE")), "not ASCII")

        let plain = TransactionKey(branch: "z9hG4bKK77", method: "INVITE")
        let kelvin = TransactionKey(branch: "z9hG4bK\u{212A}77", method: "INVITE")  // KELVIN SIGN: K as a String
        let plainSlot = table.insert(plain, Timed(tag: 101))
        XCTAssertEqual(table.find(kelvin), plainSlot, "a key without a print is compared by its strings")
        table.remove(plainSlot)
        let kelvinSlot = table.insert(kelvin, Timed(tag: 102))
        XCTAssertEqual(table.find(plain), kelvinSlot, "kept apart from the index, still found")
        XCTAssertNil(table.find(TransactionKey(branch: "z9hG4bKK78", method: "INVITE")))
        table.remove(kelvinSlot)
        XCTAssertNil(table.find(plain))
        XCTAssertEqual(table.count, 101)
    }

    /// Due entries come out in the order they were added, whatever their deadlines and slots: a slot freed and
    /// taken again by a newer entry puts that one last, and a replaced entry keeps its place.
    func testDueEntriesComeOutInTheOrderTheyWereAddedAndAReplacedOneKeepsItsPlace() {
        var table = TransactionTable<Timed>()
        let keys = (0..<4).map { TransactionKey(branch: "z9hG4bKorder\($0)", method: "INVITE") }
        let first = table.insert(keys[0], Timed(nextDeadline: 30, tag: 0))
        table.insert(keys[1], Timed(nextDeadline: 10, tag: 1))
        let third = table.insert(keys[2], Timed(nextDeadline: 20, tag: 2))
        table.remove(first)
        XCTAssertEqual(table.insert(keys[3], Timed(nextDeadline: 5, tag: 3)), first, "the freed slot reused")
        XCTAssertEqual(table.replace(third, with: Timed(nextDeadline: 1, tag: 4)), Timed(nextDeadline: 20, tag: 2))
        XCTAssertEqual(table.nextDue, 1)
        var due: [Int] = []
        table.popDue(100, into: &due)
        XCTAssertEqual(due.map { table.key($0) }, [keys[1], keys[2], keys[3]])
        XCTAssertEqual(table.nextDue, .max, "taken out of the heap until noted again")
        table.update(due[0]) { $0.nextDeadline = 200 }
        XCTAssertEqual(table.nextDue, 200)
        table.removeAll()
        XCTAssertTrue(table.isEmpty)
        XCTAssertNil(table.find(keys[1]))
        XCTAssertEqual(table.nextDue, .max)
        XCTAssertEqual(table.insert(keys[1], Timed(nextDeadline: 7, tag: 5)), 0, "a new table's first slot")
        XCTAssertEqual(table.nextDue, 7)
    }
}
