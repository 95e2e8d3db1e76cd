import CLinux

/// What an event loop needs from each accepted connection, whatever protocol it speaks.
///
/// Thread rule: every member is used on the owning loop's thread only.
protocol LoopConnection: AnyObject {
    var fd: Int32 { get }
    var id: UInt64 { get }
    var stream: ByteStream { get }
    var isClosed: Bool { get set }
    /// Set while the connection sits in the loop's list of connections to make progress on.
    var isDirty: Bool { get set }
    /// Reacts to what epoll reported for the socket.
    func handleEvents(_ events: UInt32)
    /// Records a handler's answer to request `sequence` (an HTTP/1.1 position, an HTTP/2 stream id); returns
    /// whether it was taken.
    func store(_ sequence: UInt64, _ response: HTTPResponse) -> Bool
    /// Writes what is ready and updates epoll interest.
    func makeProgress()
    /// Called by the loop's periodic sweep: idle and handshake timeouts.
    func checkTimers()
}

/// A connection whose protocol is settled (HTTP/1.1, HTTP/2, a WebSocket): it writes its buffer out, reads what
/// the socket has, and ends on an error or hang-up the same way whatever it speaks, so one `handleEvents` serves
/// all three.
///
/// Thread rule: loop thread only, like every `LoopConnection`.
protocol StreamConnection: LoopConnection {
    /// Sends what the write buffer holds, as far as the socket takes it; may close the connection.
    func writeOut()
    /// Reads what the socket has (a bounded amount, for fairness) and handles it; may close the connection.
    func readIn()
    /// Ends the connection after epoll reported an error or a hang-up (see `HangUpRule`).
    func hangUp()
}

/// What a connection does when epoll reports an error or a hang-up (EPOLLERR, EPOLLHUP: a reset, or both
/// directions shut down) while bytes are still readable (EPOLLIN with it). On a bare error or hang-up every
/// connection ends at once.
enum HangUpRule {
    /// End at once, readable bytes or not (HTTP/1.1): nothing more can be written to the socket, so no request in
    /// those bytes could be answered, and answers still pending are moot.
    case endAtOnce
    /// Read first, end only on a bare error or hang-up (HTTP/2, WebSocket): the peer's last bytes may be a frame
    /// that counts on its own (an HTTP/2 GOAWAY or RST_STREAM, which nghttp2 reads and the server counts as a
    /// protocol error; a WebSocket close frame, whose code the session is told). The read that follows meets the
    /// end of the stream or the error, and the connection ends there.
    case readFirst
}

extension StreamConnection {
    /// Reacts to what epoll reported: the error or hang-up rule, then writing (EPOLLOUT), reading (EPOLLIN), and
    /// progress on what they changed.
    func handleEvents(_ events: UInt32, onHangUp rule: HangUpRule) {
        if events & (CLINUX_EPOLLERR | CLINUX_EPOLLHUP) != 0 && (rule == .endAtOnce || events & CLINUX_EPOLLIN == 0) {
            hangUp()
            return
        }
        if events & CLINUX_EPOLLOUT != 0 {
            writeOut()
            if isClosed { return }
        }
        if events & CLINUX_EPOLLIN != 0 {
            readIn()
            if isClosed { return }
        }
        makeProgress()
    }
}
