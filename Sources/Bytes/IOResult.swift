/// What one read or write on a descriptor did, an interrupted call already retried and EAGAIN/EWOULDBLOCK told
/// apart from failures (by `SystemCall` for sockets and files, by `SocketStream` under TLS), so a loop switches
/// on four cases instead of re-reading `errno`.
///
/// A plain value: no allocation, no existential; `errno` is read once, where the call returned.
public enum IOResult: Equatable, Sendable {
    /// This many bytes moved. Always more than 0 on a stream; a datagram may be empty (`bytes(0)`).
    case bytes(Int)
    /// The descriptor is non-blocking and nothing could move now; epoll says when to try again.
    case wouldBlock
    /// The peer ended the stream (a read returned 0), or a write took nothing.
    case closed
    /// The call failed with this errno (never an interruption, EAGAIN or EWOULDBLOCK).
    case error(Int32)
}
