import Foundation
import HTTPServer
import Locking

/// The trace context each request reached the reference target with, one line per request appended to a file:
/// `<method> <path> <traceparent or ->`. A test joins it with the spans callstorm exported (issue 38: every
/// request of a sampled call carries `traceparent`, and its trace id is the call's). Off unless a file is named
/// (`callstorm target --traceparent-log`, or `CALLSTORM_TARGET_TRACEPARENT_LOG` for the embedded target).
final class TraceparentLog: Sendable {
    private let descriptor: Mutex<Int32>

    /// Nil when the file cannot be opened for appending.
    init?(path: String) {
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        descriptor = Mutex(fd)
    }

    /// One line for `request`; the WebSocket channel's upgrade is a request like any other.
    func record(_ request: HTTPRequest) {
        let value = request.header("traceparent") ?? "-"
        let line = Array("\(request.method) \(request.pathWithoutQuery) \(value)\n".utf8)
        descriptor.withLock { fd in
            _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }

    func close() {
        descriptor.withLock { fd in
            if fd >= 0 { Glibc.close(fd) }
            fd = -1
        }
    }
}
