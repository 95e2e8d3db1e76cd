#if canImport(Glibc)
import Glibc
#endif

/// The UDP senders a pool's agents answer, by handle (address and port in one `Int`): a request's responses go
/// back where it came from. Nearly every datagram is the proxy's, whose handle is told apart by one comparison;
/// the others are kept in a dictionary, bounded so that a flood from many ports cannot grow it (a forgotten
/// sender's answer goes to the proxy). Hashing the proxy's handle on every datagram read and every response sent
/// was a third of the pool's `Hasher` work (issue 33).
struct DatagramSources {
    let proxy: sockaddr_in
    private let proxyHandle: Int
    private var others: [Int: sockaddr_in] = [:]

    init(proxy: sockaddr_in) {
        self.proxy = proxy
        proxyHandle = Self.handle(proxy)
    }

    private static func handle(_ from: sockaddr_in) -> Int { Int(from.sin_addr.s_addr) << 16 | Int(from.sin_port) }

    /// The handle of a datagram's sender, kept for the answers.
    mutating func remember(_ from: sockaddr_in) -> Int {
        let handle = Self.handle(from)
        if handle != proxyHandle, others[handle] == nil {
            if others.count >= 4096 { others.removeAll(keepingCapacity: true) }
            others[handle] = from
        }
        return handle
    }

    /// Where an answer to `handle` goes: the sender, or the proxy when it is the proxy or forgotten.
    func address(_ handle: Int) -> sockaddr_in { handle == proxyHandle ? proxy : others[handle] ?? proxy }
}
