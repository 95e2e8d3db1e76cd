import Foundation
@testable import HTTPWire
import TestSupport
import XCTest

/// The client against Python's `http.server`, a server this project did not write: its default HTTP/1.0
/// file server (a connection per response), and its HTTP/1.1 mode with a handler that sends chunked bodies and
/// keeps the connection.
final class PythonServerTests: XCTestCase {
    /// Starts `python3 -c script PORT_FILE` in `dir`; returns the process and the port it wrote.
    private func startPython(_ script: String, in dir: URL) throws -> (ChildProcess, Int) {
        let portFile = dir.appendingPathComponent("port").path
        let child = try ChildProcess.start("/usr/bin/python3", ["-c", script, portFile], in: dir, logs: dir,
                                           name: "python-http")
        guard eventually(10, { FileManager.default.fileExists(atPath: portFile + ".done") }),
              let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) else {
            child.stop()
            throw NSError(domain: "python3 http.server did not start: \(child.errorText)", code: 1)
        }
        return (child, port)
    }

    private static let prelude = """
        import http.server, os, sys
        def serve(handler):
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
            open(sys.argv[1], "w").write(str(server.server_address[1]))
            open(sys.argv[1] + ".done", "w").write("")
            server.serve_forever()

        """

    func testHTTP10FileServerAConnectionPerResponseAnd404() throws {
        let dir = try TemporaryDirectory.make("wire-python")
        defer { TemporaryDirectory.remove(dir) }
        try Data("file body\n".utf8).write(to: dir.appendingPathComponent("hello.txt"))
        let script = Self.prelude + """
            class Quiet(http.server.SimpleHTTPRequestHandler):
                def log_message(self, *args): pass
            serve(Quiet)
            """
        let (python, port) = try startPython(script, in: dir)
        defer { python.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        for _ in 0..<2 {
            let response = try client.request("http://127.0.0.1:\(port)/hello.txt").get()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "file body\n")
            XCTAssertEqual(response.header("content-type"), "text/plain")
        }
        XCTAssertEqual(try client.request("http://127.0.0.1:\(port)/missing").get().status, 404)
        // HTTP/1.0 without keep-alive: every response ends its connection.
        XCTAssertEqual(client.stats, WireClient.Stats(opened: 3, reused: 0, retried: 0))
    }

    func testHTTP11ChunkedBodiesOnAKeptConnection() throws {
        let dir = try TemporaryDirectory.make("wire-python-chunked")
        defer { TemporaryDirectory.remove(dir) }
        let script = Self.prelude + """
            class Chunked(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def log_message(self, *args): pass
                def do_GET(self):
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    for part in [b"chunked ", self.path.encode(), b"x" * 70000]:
                        self.wfile.write(b"%x\\r\\n%s\\r\\n" % (len(part), part))
                    self.wfile.write(b"0\\r\\n\\r\\n")
            serve(Chunked)
            """
        let (python, port) = try startPython(script, in: dir)
        defer { python.stop() }
        let client = WireHarness()
        defer { client.shutDown() }
        for path in ["/one", "/two", "/three"] {
            let response = try client.request("http://127.0.0.1:\(port)\(path)").get()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(String(decoding: response.body.prefix(8 + path.utf8.count), as: UTF8.self),
                           "chunked " + path)
            XCTAssertEqual(response.body.count, 8 + path.utf8.count + 70000)
        }
        XCTAssertEqual(client.stats, WireClient.Stats(opened: 1, reused: 2, retried: 0))
    }
}
