@testable import CallstormCLI
import Foundation
import HTTPServer
import Locking
import TestSupport
import XCTest

/// Issue 17, acceptance 1 end to end: a call server whose pushes go out through a published APNs client library,
/// unchanged (aioapns with a JWT and with a client certificate, kalyke-apns and pyapns-client through
/// HTTPS_PROXY, httpx with HTTP/2, an h2 client offering no ALPN through CONNECT), reaches the devices of a
/// `callstorm run`: every push is accepted and the calls complete.
final class ClientLibraryRunTests: XCTestCase {
    private static let fixture = CustomAPIExample.root
        .appendingPathComponent("Tests/PushGatewayTests/Fixtures/apns_clients.py").path

    /// One `apns_clients.py CLIENT --serve` process: a push per JSON line on its stdin, a result line each.
    private final class LibraryPusher: @unchecked Sendable {
        let process = Process()
        private let input = Pipe()
        private let output: URL
        private let lock = Mutex(0)

        init(_ client: String, arguments: [String], output: URL) throws {
            self.output = output
            FileManager.default.createFile(atPath: output.path, contents: nil)
            FileManager.default.createFile(atPath: output.appendingPathExtension("err").path, contents: nil)
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", ClientLibraryRunTests.fixture, client, "--serve"] + arguments
            process.standardInput = input
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = try FileHandle(forWritingTo: output.appendingPathExtension("err"))
            try process.run()
        }

        /// Hands one push to the library (called on the call server's threads).
        func push(_ token: String, voip: Bool, _ payload: String) {
            let line = #"{"token":"\#(token)","voip":\#(voip),"payload":\#(payload)}"# + "\n"
            lock.withLock { sent in
                sent += 1
                input.fileHandleForWriting.write(Data(line.utf8))
            }
        }

        /// Closes its stdin, waits for it to finish the queue, and returns its result lines and exit status.
        func finish() -> (sent: Int, results: [[String: String]], status: Int32, errors: String) {
            try? input.fileHandleForWriting.close()
            let deadline = Date().addingTimeInterval(60)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            let errors = (try? String(contentsOf: output.appendingPathExtension("err"), encoding: .utf8)) ?? ""
            let results = text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
            return (lock.withLock { $0 }, results, process.terminationStatus, errors)
        }
    }

    /// Skips (saying why) when the client's package is missing and PyPI cannot be reached to install it; a
    /// missing package with PyPI reachable is a failure: scripts/test-deps.sh (make test) installs it.
    private func requirePackage(_ module: String, in dir: URL) throws {
        let probe = try ChildProcess.run("/usr/bin/env", ["python3", "-c", "import \(module)"], in: dir, logs: dir,
                                         name: "import", seconds: 30)
        guard probe.status != 0 else { return }
        let index = try ChildProcess.run("/usr/bin/env", ["python3", "-c",
            "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/pip/', timeout=10)"],
            in: dir, logs: dir, name: "pypi", seconds: 30)
        if index.status != 0 {
            throw XCTSkip("python package '\(module)' is missing and the package index (pypi.org) cannot be reached")
        }
        XCTFail("python package '\(module)' is missing although PyPI is reachable: run scripts/test-deps.sh")
    }

    private func runWithLibrary(_ client: String, module: String) throws {
        let dir = try TemporaryDirectory.make("libs-\(client)")
        defer { TemporaryDirectory.remove(dir) }
        try requirePackage(module, in: dir)
        // The run's gateway takes its CA from the state directory; the library trusts the same CA.
        let previous = ProcessInfo.processInfo.environment["CALLSTORM_STATE_DIR"]
        setenv("CALLSTORM_STATE_DIR", dir.path + "/state", 1)
        defer {
            if let previous { setenv("CALLSTORM_STATE_DIR", previous, 1) } else { unsetenv("CALLSTORM_STATE_DIR") }
        }
        let bundle = "com.example.callstorm"
        XCTAssertEqual(Command.run(["cert", "voip", "--bundle-id", bundle, "--state-dir", dir.path + "/state",
                                    "--out", dir.path]), .passed)
        let key = dir.appendingPathComponent("AuthKey.p8").path
        let made = try ChildProcess.run("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt",
                                                             "ec_paramgen_curve:P-256", "-out", key],
                                        in: dir, logs: dir, name: "openssl", seconds: 30)
        XCTAssertEqual(made.status, 0, made.err)

        let gatewayPort = try CustomAPIExample.freePort()
        let pusher = try LibraryPusher(client, arguments: [
            "--port", "\(gatewayPort)", "--ca", dir.path + "/state/tls/ca.pem", "--bundle", bundle, "--key", key,
            "--key-id", "LIBRARYKEY", "--team", "LIBRARYTEA", "--cert", dir.path + "/voip-\(bundle).pem",
        ], output: dir.appendingPathComponent("pusher.out"))
        let alt = AltCallServer(gatewayURL: "http://127.0.0.1:\(gatewayPort)") { token, voip, payload in
            pusher.push(token, voip: voip, payload)
        }
        let server = HTTPServer(handler: alt)
        try server.start()
        defer {
            server.stop()
            alt.close()
        }
        let outcome = try CustomAPIExample.run(serverPort: server.port, gatewayPort: gatewayPort, in: dir) { text in
            // TLS like APNs (every library needs it), a longer deadline for Python, fewer calls, one flow.
            let edited = text.replacingOccurrences(of: "deadline: 2s, tls: false", with: "deadline: 5s, tls: true")
                .replacingOccurrences(of: "hold: { rate: 5/s, for: 4s }", with: "hold: { rate: 2/s, for: 2s }")
                .replacingOccurrences(of: "mix: { incoming-1to1: 50, hold-resume: 50 }",
                                      with: "mix: { incoming-1to1: 100 }")
            XCTAssertTrue(edited.contains("tls: true") && edited.contains("2/s"), "the example changed shape")
            return edited
        }
        let finished = pusher.finish()
        let c = outcome.result.recorder.counters
        XCTAssertGreaterThan(finished.sent, 0, client)
        XCTAssertEqual(finished.results.count, finished.sent, "\(client): \(finished.errors)")
        XCTAssertTrue(finished.results.allSatisfy { $0["status"] == "200" }, "\(client): \(finished.results)")
        XCTAssertGreaterThan(c["flow.incoming-1to1.completed"] ?? 0, 0, "\(client): \(c)")
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(client): \(c)")
        XCTAssertGreaterThanOrEqual(c["pushes.delivered"] ?? 0, c["calls.started"] ?? 1, "\(client): \(c)")
        XCTAssertEqual(c["gateway.pushes.rejected"] ?? 0, 0, "\(client): \(c)")
    }

    func testAioapnsWithATokenReachesDevices() throws { try runWithLibrary("aioapns-jwt", module: "aioapns") }
    func testAioapnsWithACertificateReachesDevices() throws { try runWithLibrary("aioapns-cert", module: "aioapns") }
    func testKalykeThroughHTTPSProxyReachesDevices() throws { try runWithLibrary("kalyke", module: "kalyke") }
    func testPyapnsViaHTTPSProxyReachesDevices() throws { try runWithLibrary("pyapns-client", module: "pyapns_client") }
    func testHttpxOverHTTP2ReachesDevices() throws { try runWithLibrary("httpx", module: "httpx, h2") }
    func testH2WithoutALPNViaCONNECTReachesDevices() throws { try runWithLibrary("no-alpn", module: "h2") }
}
