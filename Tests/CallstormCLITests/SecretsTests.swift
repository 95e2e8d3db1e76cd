import Foundation
import TestSupport
import XCTest

/// No secret reaches a report or a log: a run whose gateway verifies ES256 provider tokens signed with a key
/// from the scenario leaves neither the key nor a signed token in any file of its run directory or its output.
final class SecretsTests: XCTestCase {
    func testProviderKeyAndTokensAreNeverWrittenToReportsOrLogs() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("secrets")
        defer { TemporaryDirectory.remove(dir) }
        let key = dir.appendingPathComponent("AuthKey.p8")
        let made = try ChildProcess.run("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt",
                                                             "ec_paramgen_curve:P-256", "-out", key.path],
                                        in: dir, logs: dir, name: "openssl", seconds: 30)
        XCTAssertEqual(made.status, 0, made.err)
        let pem = try String(contentsOf: key, encoding: .utf8)
        let keyLines = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
        XCTAssertFalse(keyLines.isEmpty)
        try """
            name: secrets
            seed: 4
            devices: 10
            push: { deadline: 2s, auth: { keys: { ABC123DEFG: AuthKey.p8 }, team: TEAM123456 } }
            load:
              - hold: { rate: 5/s, for: 1s }
            behavior:
              answer_after: 50ms
              talk: 100ms
            drain: 5s
            """.write(to: dir.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
        let run = dir.appendingPathComponent("run")
        let result = try ChildProcess.run(binary, ["run", "s.yaml", "--out", run.path], in: dir, logs: dir,
                                          name: "run", seconds: 90)
        XCTAssertEqual(result.status, 0, result.err)
        let summary = try SummaryFile(run.appendingPathComponent("summary.json"))
        XCTAssertGreaterThanOrEqual(summary.counters["pushes.delivered"] ?? 0, 5, "the signed pushes went through")
        XCTAssertEqual(summary.counters["gateway.pushes.rejected"], 0)

        var texts = [("stdout", result.out), ("stderr", result.err)]
        let files = FileManager.default.enumerator(at: run, includingPropertiesForKeys: nil)!
        for case let url as URL in files where !url.hasDirectoryPath {
            guard let data = try? Data(contentsOf: url) else { continue }
            texts.append((url.lastPathComponent, String(decoding: data, as: UTF8.self)))
        }
        XCTAssertGreaterThan(texts.count, 10)
        for (name, text) in texts {
            XCTAssertFalse(text.contains("PRIVATE KEY"), name)
            for line in keyLines { XCTAssertFalse(text.contains(line), "\(name) holds the provider key") }
            // An ES256 JWT starts with the base64url of {"alg":"ES256" or {"kid":...: "eyJ".
            XCTAssertFalse(text.contains("bearer eyJ") || text.contains("eyJhbGciOi") || text.contains("eyJraWQiOi"),
                           "\(name) holds a provider token")
        }
    }
}
