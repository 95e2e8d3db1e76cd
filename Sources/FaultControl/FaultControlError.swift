/// Why the fault controller could not start; the description says what to change.
public enum FaultControlError: Error, CustomStringConvertible {
    case noHost(url: String)
    case proxyFailed(String)

    public var description: String {
        switch self {
        case .noHost(let url): return "cannot put the fault proxy in front of '\(url)': no host"
        case .proxyFailed(let why): return "the fault proxy could not start: \(why)"
        }
    }
}
