@testable import CallstormCLI
import Foundation
import TestSupport
import XCTest

/// Every command refuses a flag value it cannot use with a usage error naming the flag (exit 2), instead of
/// falling back to a default (`target --threads abc` once ran with one thread, silently).
///
/// Each case runs the callstorm binary, so a value that slips through shows as a command that ran (and is stopped
/// after the timeout) rather than as a test that hangs.
final class BadFlagValueTests: XCTestCase {
    struct Case {
        var args: [String]
        var flag: String
    }

    static func c(_ flag: String, _ args: String...) -> Case { Case(args: args, flag: flag) }

    static func prefixed(_ head: [String], _ cases: [Case]) -> [Case] {
        cases.map { Case(args: head + $0.args, flag: $0.flag) }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let smoke = root.appendingPathComponent("Scenarios/smoke.yaml").path
    static let missing = "/nonexistent/callstorm-test-file.pem"

    static let run: [Case] = prefixed(["run", smoke], [
        c("seed", "--seed", "-1"),
        c("seed", "--seed", "abc"),
        c("duration", "--duration", "abc"),
        c("duration", "--duration", "0s"),
        c("workers", "--workers", "abc"),
        c("workers", "--workers", "0"),
        c("trace", "--trace", "x"),
        c("target", "--target", "no-host"),
        c("allow-remote", "--allow-remote", ","),
        c("out", "--out="),
        c("shard", "--shard", "5/2"),
        c("start-at", "--start-at", "yesterday"),
        c("clock-reference", "--clock-reference", "x"),
        c("metrics-listen", "--metrics-listen", "nope"),
        c("metrics-linger", "--metrics-linger", "forever"),
        c("quiet", "--quiet=yes"),
        c("workers", "--workers"),
    ])

    static let target: [Case] = prefixed(["target"], [
        c("threads", "--threads", "abc"),
        c("threads", "--threads", "0"),
        c("listen", "--listen", "abc"),
        c("listen", "--listen", "127.0.0.1:99999"),
        c("apns-url", "--apns-url", "abc"),
        c("apns-proxy", "--apns-proxy", "abc"),
        c("bug", "--bug", "nope"),
        c("unmerge-policy", "--unmerge-policy", "sometimes"),
        c("push-expiration", "--push-expiration", "soon"),
        c("push-expiration", "--push-expiration", "-5"),
        c("push-retries", "--push-retries", "x"),
        c("apns-key", "--apns-key", "short=x.p8"),
        c("apns-key", "--apns-key", "ABCDEFGHIJ=\(missing)"),
        c("apns-ca", "--apns-ca", missing),
        c("apns-cert", "--apns-cert", missing),
        c("cert", "--cert", missing, "--key", missing),
        c("key", "--cert", missing),
        c("allow-remote", "--allow-remote", ","),
        c("bundle-id", "--bundle-id="),
        c("tls", "--tls=1"),
    ])

    static let gateway: [Case] = prefixed(["gateway"], [
        c("threads", "--threads", "abc"),
        c("threads", "--threads", "-2"),
        c("listen", "--listen", "abc"),
        c("keys", "--keys", "short=x.pem"),
        c("keys", "--keys", "ABCDEFGHIJ=\(missing)"),
        c("client-ca", "--client-ca", missing),
        c("cert", "--cert", missing, "--key", missing),
        c("allow-remote", "--allow-remote", ","),
        c("team", "--team="),
    ])

    static let others: [Case] = [
        c("days", "cert", "voip", "--bundle-id", "com.example.a", "--days", "abc"),
        c("days", "cert", "voip", "--bundle-id", "com.example.a", "--days", "0"),
        c("environment", "cert", "voip", "--bundle-id", "com.example.a", "--environment", "staging"),
        c("bundle-id", "cert", "voip", "--bundle-id", "a b"),
        c("bundle-id", "cert", "voip"),
        c("max-regression", "compare", "a", "b", "--max-regression", "lots"),
        c("min-delta", "compare", "a", "b", "--min-delta", "abc"),
        c("out", "compare", "a", "b", "--out="),
        c("threshold", "merge", "a", "--out", "o", "--threshold", "nonsense"),
        c("out", "merge", "a", "--out"),
        c("devices", "raw-http", "--url", "http://127.0.0.1:9/", "--devices", "abc"),
        c("workers", "raw-http", "--url", "http://127.0.0.1:9/", "--workers", "0"),
        c("per-client", "raw-http", "--url", "http://127.0.0.1:9/", "--per-client", "x"),
        c("duration", "raw-http", "--url", "http://127.0.0.1:9/", "--duration", "long"),
        c("url", "raw-http", "--url", "ftp://x/"),
        c("repeat", "replay", "repro-1.yaml", "--repeat", "abc"),
        c("repeat", "replay", "repro-1.yaml", "--repeat", "0"),
        c("out", "replay", "repro-1.yaml", "--out="),
        c("help", "validate", smoke, "--help=no"),
        c("verbose", "check", "run", "--verbose"),
        c("help", "report", "run", "--help=1"),
    ]

    func testRunRefusesEveryBadFlagValueNamingTheFlag() throws { try expectUsageErrors(Self.run) }

    func testTargetRefusesEveryBadFlagValueNamingTheFlag() throws { try expectUsageErrors(Self.target) }

    func testGatewayRefusesEveryBadFlagValueNamingTheFlag() throws { try expectUsageErrors(Self.gateway) }

    func testCertCompareMergeRawHTTPReplayValidateCheckAndReportRefuseBadFlagValuesNamingTheFlag() throws {
        try expectUsageErrors(Self.others)
    }

    func testEveryCommandHasACase() {
        let covered = Set((Self.run + Self.target + Self.gateway + Self.others).map { $0.args[0] })
        XCTAssertEqual(covered, ["run", "target", "gateway", "cert", "compare", "merge", "raw-http", "replay",
                                 "validate", "check", "report"])
    }

    func testABadValueIsAUsageErrorThatNamesTheFlagAndWhatItTakes() {
        let error = CLIError.badValue(flag: "threads", value: "abc", expected: "a whole number from 1 to 256")
        XCTAssertEqual(error.exitCode, .invalidInput)
        XCTAssertTrue(error.description.hasPrefix("usage error: --threads takes a whole number from 1 to 256, got 'abc'"),
                      error.description)
    }

    func testTypedAccessorsRefuseWhatTheyCannotUseAndKeepDefaultsForAbsentFlags() throws {
        let parsed = try Arguments(["--n", "7", "--d", "250ms"], valued: ["n", "d", "absent"], boolean: [])
        XCTAssertEqual(try parsed.integer("n", in: 1...10), 7)
        XCTAssertEqual(try parsed.integer("absent", default: 3, in: 1...10), 3)
        XCTAssertEqual(try parsed.duration("d"), 250_000_000)
        XCTAssertThrowsError(try parsed.integer("n", in: 8...10)) { error in
            guard case .badValue(let flag, "7", _) = error as? CLIError else { return XCTFail("\(error)") }
            XCTAssertEqual(flag, "n")
        }
        XCTAssertThrowsError(try Arguments(["--n"], valued: ["n"], boolean: [])) { error in
            guard case .missingValue("n") = error as? CLIError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try Arguments(["--n="], valued: ["n"], boolean: []))
        // A list flag that may be empty (merge's --threshold from a manifest's variable) keeps "" as "none".
        XCTAssertEqual(try Arguments(["--n", ""], valued: ["n"], boolean: [], emptyAllowed: ["n"]).value("n"), "")
    }

    private func expectUsageErrors(_ cases: [Case], file: StaticString = #filePath, line: UInt = #line) throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("bad-flags")
        defer { TemporaryDirectory.remove(dir) }
        for (n, c) in cases.enumerated() {
            let run = try ChildProcess.run(binary, c.args, in: dir, logs: dir, name: "case-\(n)", seconds: 20)
            let shown = c.args.joined(separator: " ")
            XCTAssertEqual(run.status, 2, "callstorm \(shown): \(run.err)", file: file, line: line)
            XCTAssertTrue(run.err.contains("usage error:"), "callstorm \(shown): \(run.err)", file: file, line: line)
            XCTAssertTrue(run.err.contains("--\(c.flag)"), "callstorm \(shown) should name --\(c.flag): \(run.err)",
                          file: file, line: line)
        }
    }
}
