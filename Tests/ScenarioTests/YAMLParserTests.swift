import XCTest
@testable import Scenario

final class YAMLParserTests: XCTestCase {
    func testBlockMappingKeepsOrderAndMarks() throws {
        let root = try YAMLParser.parse("b: 1\na:\n  - x\n  - 'y'\n")
        guard case .mapping(let pairs, let mark) = root else { return XCTFail("expected a mapping") }
        XCTAssertEqual(mark, Mark(line: 1, column: 1))
        XCTAssertEqual(pairs.map { $0.key.scalarText }, ["b", "a"])
        XCTAssertEqual(pairs[0].value.mark, Mark(line: 1, column: 4))
        guard case .sequence(let items, let seqMark) = pairs[1].value else { return XCTFail("expected a sequence") }
        XCTAssertEqual(seqMark, Mark(line: 3, column: 3))
        XCTAssertEqual(items[1], .scalar("y", style: .singleQuoted, tag: nil, mark: Mark(line: 4, column: 5)))
    }

    func testFlowStyleCollectionsParse() throws {
        let root = try YAMLParser.parse("load: [ { hold: { rate: 5/s, for: 2s } } ]")
        guard case .mapping(let top, _) = root, case .sequence(let stages, _) = top[0].value,
              case .mapping(let stage, let stageMark) = stages[0], case .mapping(let hold, _) = stage[0].value
        else { return XCTFail("unexpected shape: \(root)") }
        XCTAssertEqual(stageMark, Mark(line: 1, column: 9))
        XCTAssertEqual(hold.map { $0.value.scalarText }, ["5/s", "2s"])
        XCTAssertEqual(hold[1].value.mark, Mark(line: 1, column: 35))
    }

    func testAliasesResolveToTheAnchoredNode() throws {
        let root = try YAMLParser.parse("a: &d { constant: 2s }\nb: *d\n")
        guard case .mapping(let pairs, _) = root else { return XCTFail("expected a mapping") }
        XCTAssertEqual(pairs[1].value, pairs[0].value)
    }

    func testUndefinedAliasIsAnError() {
        XCTAssertThrowsError(try YAMLParser.parse("a: *nowhere\n")) { error in
            let errors = (error as? ScenarioErrors)?.errors ?? []
            XCTAssertEqual(errors.count, 1)
            XCTAssertTrue(errors.first?.message.contains("'*nowhere'") ?? false, "\(errors)")
        }
    }

    func testAliasBombIsRejected() {
        var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for level in 1...7 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            lines.append("a\(level): &a\(level) [\(refs)]")
        }
        XCTAssertThrowsError(try YAMLParser.parse(lines.joined(separator: "\n"))) { error in
            XCTAssertTrue("\(error)".contains("aliases"), "\(error)")
        }
    }

    func testDuplicateKeyIsReportedAtTheSecondKey() {
        XCTAssertThrowsError(try YAMLParser.parse("a: 1\nb: 2\na: 3\n", file: "x.yaml")) { error in
            let errors = (error as? ScenarioErrors)?.errors ?? []
            XCTAssertEqual(errors.map(\.mark), [Mark(line: 3, column: 1)])
            XCTAssertTrue(errors.first?.message.contains("first defined at line 1") ?? false)
        }
    }

    func testSyntaxErrorCarriesLibyamlProblemAndPosition() {
        XCTAssertThrowsError(try YAMLParser.parse("a: [1, 2\nb: 3\n", file: "bad.yaml")) { error in
            let errors = (error as? ScenarioErrors)?.errors ?? []
            XCTAssertEqual(errors.count, 1)
            let first = errors[0]
            XCTAssertEqual(first.file, "bad.yaml")
            XCTAssertTrue(first.message.hasPrefix("invalid YAML: "), first.message)
            XCTAssertTrue(first.message.contains("flow sequence"), first.message)
            XCTAssertGreaterThanOrEqual(first.line, 2)
        }
    }

    func testTabIndentationIsASyntaxError() {
        XCTAssertThrowsError(try YAMLParser.parse("a:\n\tb: 1\n"))
    }

    func testSecondDocumentIsRejected() {
        XCTAssertThrowsError(try YAMLParser.parse("a: 1\n---\nb: 2\n")) { error in
            XCTAssertTrue("\(error)".contains("one YAML document"), "\(error)")
        }
    }

    func testEmptyValueIsNull() throws {
        let root = try YAMLParser.parse("a:\nb: ~\nc: ''\n")
        guard case .mapping(let pairs, _) = root else { return XCTFail("expected a mapping") }
        XCTAssertEqual(pairs.map(\.value.isNull), [true, true, false])
    }

    func testColumnsCountCharactersNotBytes() throws {
        let root = try YAMLParser.parse("é: x\n")
        guard case .mapping(let pairs, _) = root else { return XCTFail("expected a mapping") }
        XCTAssertEqual(pairs[0].value.mark, Mark(line: 1, column: 4))
    }
}
