#if canImport(Glibc)
import Glibc
#endif

/// What went wrong configuring or starting a `FaultProxy`. `description` is user text that says what to change.
public enum FaultProxyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No toxic kind of that name is registered; `suggestion` is the nearest registered one, if any is close.
    case unknownKind(toxic: String, kind: String, suggestion: String?, known: [String])
    /// The kind has no attribute of that name.
    case unknownAttribute(toxic: String, kind: String, attribute: String, suggestion: String?, known: [String])
    /// The attribute's value is outside its range (or not finite).
    case attributeOutOfRange(toxic: String, attribute: String, value: Double, minimum: Double, maximum: Double)
    /// Toxicity must be a probability in 0...1.
    case toxicityOutOfRange(toxic: String, value: Double)
    /// Two toxics in one list share a name (or a name is empty).
    case badName(toxic: String, reason: String)
    /// Several problems in one list of specs, all of them.
    case invalidToxics([FaultProxyError])
    /// The listening socket could not be created or bound.
    case bindFailed(host: String, port: Int, errno: Int32)
    /// A system call needed to run the proxy failed (epoll, eventfd, thread creation).
    case systemCallFailed(call: String, errno: Int32)
    /// `start()` on a proxy that is running or was stopped (a stopped proxy is not restarted: make a new one).
    case notStartable

    public var description: String {
        switch self {
        case .unknownKind(let toxic, let kind, let suggestion, let known):
            let hint = suggestion.map { " — did you mean '\($0)'?" } ?? ""
            return "toxic '\(toxic)': unknown kind '\(kind)'\(hint) (known kinds: \(known.joined(separator: ", ")))"
        case .unknownAttribute(let toxic, let kind, let attribute, let suggestion, let known):
            let hint = suggestion.map { " — did you mean '\($0)'?" } ?? ""
            let list = known.isEmpty ? "it takes none" : "it takes: " + known.joined(separator: ", ")
            return "toxic '\(toxic)': \(kind) has no attribute '\(attribute)'\(hint) (\(list))"
        case .attributeOutOfRange(let toxic, let attribute, let value, let minimum, let maximum):
            let range = maximum == .greatestFiniteMagnitude ? "at least \(format(minimum))"
                : "in \(format(minimum))...\(format(maximum))"
            return "toxic '\(toxic)': \(attribute) is \(format(value)), it must be \(range)"
        case .toxicityOutOfRange(let toxic, let value):
            return "toxic '\(toxic)': toxicity is \(format(value)), it must be a probability in 0...1"
        case .badName(let toxic, let reason):
            return "toxic '\(toxic)': \(reason)"
        case .invalidToxics(let problems):
            return problems.map(\.description).joined(separator: "; ")
        case .bindFailed(let host, let port, let code):
            var hint = ""
            if code == EADDRINUSE { hint = " — another process is listening there; use port 0 for any free one" }
            if code == EINVAL || code == EADDRNOTAVAIL { hint = " — the host must be an IP literal such as 127.0.0.1" }
            return "fault proxy cannot listen on \(host):\(port): \(errnoText(code)) (errno \(code))\(hint)"
        case .systemCallFailed(let call, let code):
            return "fault proxy: \(call) failed: \(errnoText(code)) (errno \(code))"
        case .notStartable:
            return "the fault proxy is running or was stopped; make a new FaultProxy to start again"
        }
    }
}

private func format(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}

func errnoText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "unknown error" }
    return String(cString: text)
}
