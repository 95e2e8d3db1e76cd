#if canImport(Glibc)
import Glibc
#endif

/// Why an `HTTPServer` could not start. Descriptions are meant for the user and say what to change.
public enum HTTPServerError: Error, CustomStringConvertible, Equatable {
    /// The configuration failed `validate()`; every problem is listed.
    case invalidConfiguration([String])
    /// The listening socket could not be created, bound or put into listen mode.
    case bindFailed(host: String, port: Int, errno: Int32)
    /// A system call needed to run the event loops failed (epoll, eventfd, thread creation).
    case systemCallFailed(call: String, errno: Int32)
    /// `start()` was called on a server that is already running.
    case alreadyRunning
    /// The TLS certificate or key could not be loaded.
    case tlsSetupFailed(String)

    public var description: String {
        switch self {
        case .invalidConfiguration(let problems):
            return "invalid HTTP server configuration: " + problems.joined(separator: "; ")
        case .bindFailed(let host, let port, let code):
            let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            var hint = ""
            if code == EADDRINUSE {
                hint = " — another process is listening there; pick another port or use 0 for any free one"
            } else if code == EACCES {
                hint = " — ports below 1024 need privileges; pick a higher port"
            } else if code == EADDRNOTAVAIL || code == EINVAL {
                hint = " — the host must be an IPv4 or IPv6 literal of this machine, e.g. 127.0.0.1 or ::1"
            }
            return "cannot listen on \(address): \(errnoText(code)) (errno \(code))\(hint)"
        case .systemCallFailed(let call, let code):
            return "\(call) failed: \(errnoText(code)) (errno \(code))"
        case .alreadyRunning:
            return "the HTTP server is already running; stop() it before starting it again"
        case .tlsSetupFailed(let detail):
            return "cannot set up TLS: \(detail) — check the --cert and --key files (PEM, the key matching the certificate)"
        }
    }
}

func errnoText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "unknown error" }
    return String(cString: text)
}
