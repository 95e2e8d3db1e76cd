import Credentials
import Foundation
import HTTPServer
import Locking
import TestSupport

/// Starts a server on 127.0.0.1 port 0 with a closure handler. The caller stops it in `defer`.
func startServer(
    _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
    _ handle: @escaping @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void
) throws -> HTTPServer {
    let server = HTTPServer(configuration: configuration, handler: HTTPClosureHandler(handle))
    try server.start()
    return server
}

/// Answers with the method, path and body it received, so tests can see what the handler saw.
let echoHandler: @Sendable (HTTPRequest, @escaping @Sendable (HTTPResponse) -> Void) -> Void = { request, respond in
    respond(.text(200, "\(request.method) \(request.path) \(request.bodyString)"))
}

/// A value shared between a handler and the test, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    init(_ value: Value) {
        mutex = Mutex(value)
    }

    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}

/// callstorm's local CA in a fresh temporary directory; `remove()` in `tearDown`.
struct TemporaryCA {
    let directory: String
    let material: TLSMaterial

    init() throws {
        directory = try TemporaryDirectory.make("ca").path
        material = try LocalCertificateAuthority.ensure(stateDirectory: directory).material
    }

    func remove() {
        TemporaryDirectory.remove(URL(fileURLWithPath: directory))
    }
}
