import StreamIO
import Credentials
import Foundation
import TestSupport
import WebSocket
import WebSocketClient
import XCTest

/// `callstorm target --tls` as its own process (what `make bench`'s socket section drives): wss to its event
/// channel verified against the CA file its banner names, and the `--admin` endpoints that start a reconnect storm.
final class StandaloneTargetTests: XCTestCase {
    private struct Target {
        let child: ChildProcess
        let port: Int
        let caFile: String?
    }

    /// Starts the binary with two registered devices (d0, d1) and waits for its banner.
    private func start(_ extra: [String], in dir: URL) throws -> Target {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let registrations = dir.appendingPathComponent("devices.jsonl")
        try (0..<2).map { i in
            "{\"id\":\"d\(i)\",\"handle\":{\"kind\":\"generic\",\"value\":\"d\(i)\",\"displayName\":\"d\(i)\"},"
                + "\"apnsToken\":\"\(String(repeating: String(i), count: 64))\"}\n"
        }.joined().write(to: registrations, atomically: true, encoding: .utf8)
        let child = try ChildProcess.start(binary, ["target", "--listen", "127.0.0.1:0", "--registrations",
                                                    registrations.path] + extra,
                                           in: dir, logs: dir, name: "target")
        let harness = ClientHarness()
        defer { harness.shutDown() }
        let banner = "listening on https://127.0.0.1:"
        XCTAssertTrue(harness.wait { child.outputText.contains(banner) || !child.process.isRunning },
                      "no banner: \(child.errorText)")
        let text = child.outputText
        guard let range = text.range(of: banner), let port = Int(text[range.upperBound...].prefix { $0.isNumber })
        else {
            child.stop()
            throw XCTSkip("the target did not start: \(text) \(child.errorText)")
        }
        let ca = text.components(separatedBy: "trust this CA for https and wss: ").dropFirst().first
            .map { String($0.prefix { $0 != "\n" }) }
        return Target(child: child, port: port, caFile: ca)
    }

    /// curl against the target's https port (its CA trusted): (HTTP status, body).
    private func curl(_ target: Target, _ args: [String], in dir: URL) throws -> (Int, String) {
        let run = try ChildProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", target.caFile ?? "",
                                                         "-w", "\n%{http_code}"] + args,
                                       in: dir, logs: dir, name: "curl", seconds: 30)
        let lines = run.out.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    func testTLSTargetServesWssVerifiedByTheCAItNamesAndAdminDropsEverySocket() throws {
        let dir = try TemporaryDirectory.make("tls-target")
        defer { TemporaryDirectory.remove(dir) }
        let target = try start(["--tls", "--state-dir", dir.appendingPathComponent("state").path, "--admin"], in: dir)
        defer { target.child.stop() }
        let caFile = try XCTUnwrap(target.caFile, "the banner names the CA to trust")
        XCTAssertTrue(FileManager.default.fileExists(atPath: caFile))
        let client = ClientHarness(tls: try ClientTLS(caFile: caFile))
        defer { client.shutDown() }
        let sockets = try (0..<2).map { try client.open("wss://127.0.0.1:\(target.port)/v1/events?device=d\($0)") }
        sockets.forEach { client.waitOpen($0) }
        let base = "https://127.0.0.1:\(target.port)/admin/"
        XCTAssertEqual(try curl(target, ["-X", "POST", base + "drop-event-sockets?code=1006"], in: dir).0, 400,
                       "1006 cannot be sent in a close frame")
        let (status, body) = try curl(target, ["-X", "POST", base + "drop-event-sockets"], in: dir)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(body, "{\"dropped\":2}")
        XCTAssertTrue(client.wait { sockets.allSatisfy { client.report($0) != nil } })
        for id in sockets { XCTAssertEqual(client.report(id)?.code, .abnormal, "an abrupt drop: no close frame") }
        let again = try client.open("wss://127.0.0.1:\(target.port)/v1/events?device=d0", seed: 9)
        client.waitOpen(again)
        var counts = ""
        XCTAssertTrue(client.wait {
            counts = (try? curl(target, [base + "event-sockets"], in: dir).1) ?? ""
            return counts.contains("\"aborted.1006\":2")
        }, counts)
        XCTAssertEqual(counts, "{\"open\":1,\"accepted\":3,\"closed\":{\"aborted.1006\":2}}")
    }

    func testOwnCertAndKeyServeWssAdminIsOffWithoutTheFlagAndAnUntrustingClientIsRefused() throws {
        let dir = try TemporaryDirectory.make("tls-target-plain")
        defer { TemporaryDirectory.remove(dir) }
        // The user's own pair (here issued by a CA of the test's): no local CA is made or named.
        let own = try LocalCertificateAuthority.ensure(stateDirectory: dir.appendingPathComponent("own").path).material
        var target = try start(["--cert", own.certificatePath, "--key", own.keyPath], in: dir)
        defer { target.child.stop() }
        XCTAssertNil(target.caFile)
        target = Target(child: target.child, port: target.port, caFile: own.caCertificatePath)
        let client = ClientHarness(tls: try ClientTLS(caFile: own.caCertificatePath))
        defer { client.shutDown() }
        let trusted = try client.open("wss://127.0.0.1:\(target.port)/v1/events?device=d1")
        client.waitOpen(trusted)
        XCTAssertEqual(try curl(target, ["-X", "POST", "https://127.0.0.1:\(target.port)/admin/drop-event-sockets"],
                                in: dir).0, 404)
        // A client trusting only the system store does not accept the local CA's certificate.
        let stranger = ClientHarness(tls: try ClientTLS(caFile: nil))
        defer { stranger.shutDown() }
        let id = try stranger.open("wss://127.0.0.1:\(target.port)/v1/events?device=d0")
        XCTAssertTrue(stranger.wait { stranger.report(id) != nil })
        XCTAssertFalse(stranger.events(id).contains(.opened))
    }

    func testCertWithoutKeyIsAUsageError() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let dir = try TemporaryDirectory.make("tls-target-usage")
        defer { TemporaryDirectory.remove(dir) }
        let run = try ChildProcess.run(binary, ["target", "--listen", "127.0.0.1:0", "--cert", "server.pem"],
                                       in: dir, logs: dir, name: "target", seconds: 30)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("--cert and --key go together"), run.err)
    }
}
