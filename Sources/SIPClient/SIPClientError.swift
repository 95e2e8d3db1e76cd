/// Why an agent could not be added to a pool.
public enum SIPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// socket, bind or connect failed with this errno.
    case socket(call: String, errno: Int32)
    /// The proxy host is not an IPv4 literal (resolve names once before a run, not per device).
    case badProxyAddress(String)

    public var description: String {
        switch self {
        case .socket(let call, let errno):
            return "SIP socket: \(call) failed with errno \(errno); raise the open-file limit or check the proxy "
                + "address"
        case .badProxyAddress(let host):
            return "SIP proxy address '\(host)' is not an IPv4 literal; resolve it before the run"
        }
    }
}
