/// Why an ng request got no usable answer.
public enum NGError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No answer after every retransmission: rtpengine is not running, or not on that port.
    case timeout(command: String, attempts: Int, seconds: Double)
    /// rtpengine answered `result: error` (or another result the command does not expect) with its reason.
    case refused(command: String, result: String, reason: String)
    /// The answer is not an ng message, or lacks what the command's answer must hold.
    case malformed(command: String, detail: String)
    /// The control socket could not be made or used (errno).
    case socket(Int32)
    /// The address is not an IPv4 literal with a port in 1...65535.
    case badAddress(host: String, port: Int)

    public var description: String {
        switch self {
        case .timeout(let command, let attempts, let seconds):
            return "rtpengine did not answer '\(command)' (\(attempts) tries over \(seconds) s); is it running and "
                + "listening for ng on that port (--listen-ng)?"
        case .refused(let command, let result, let reason):
            return "rtpengine refused '\(command)': \(result)\(reason.isEmpty ? "" : ": \(reason)")"
        case .malformed(let command, let detail):
            return "rtpengine's answer to '\(command)' is malformed: \(detail)"
        case .badAddress(let host, let port):
            return "rtpengine's ng address \(host):\(port) is not an IPv4 literal with a port in 1...65535"
        case .socket(let code):
            return "the ng control socket failed: errno \(code)"
        }
    }
}
