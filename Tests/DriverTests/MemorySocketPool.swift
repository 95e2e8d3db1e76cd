import Determinism
@testable import Driver
import WebSocket
import WebSocketClient

/// Device sockets in memory on an `EmbeddedLoop`, with the events a `WebSocketClientPool` reports: an open
/// succeeds on the loop's next turn, a text reaches `server` (whose answer comes back as a message on a later
/// turn), a close is echoed later, an abort ends the socket at once, and a paused socket holds what the server
/// sends until it reads again. No socket, no thread.
final class MemorySocketPool: SocketPool {
    private unowned let loop: EmbeddedLoop
    private let onEvent: WebSocketClientPool.EventHandler
    /// The server: what it answers to a device's text (nil: nothing).
    private let server: (String) -> String?
    /// Every text devices sent, in order.
    private(set) var texts: [String] = []
    private var open: Set<UInt64> = []
    /// Messages held for a socket whose reading is paused.
    private var held: [UInt64: [String]] = [:]
    private var nextID: UInt64 = 1

    init(loop: EmbeddedLoop, onEvent: @escaping WebSocketClientPool.EventHandler,
         server: @escaping (String) -> String?) {
        self.loop = loop
        self.onEvent = onEvent
        self.server = server
    }

    func open(_ url: WebSocketURL, headers: [(name: String, value: String)],
              random: SeededRandom) -> Result<UInt64, WebSocketClientError> {
        let id = nextID
        nextID += 1
        open.insert(id)
        loop.execute { [self] in if open.contains(id) { onEvent(id, .opened) } }
        return .success(id)
    }

    func send(_ id: UInt64, text: String) -> Bool {
        guard open.contains(id) else { return false }
        texts.append(text)
        if let answer = server(text) { deliver(answer, to: id) }
        return true
    }

    private func deliver(_ text: String, to id: UInt64) {
        if held[id] != nil {
            held[id]!.append(text)
            return
        }
        loop.execute { [self] in if open.contains(id) { onEvent(id, .message(.text(text))) } }
    }

    func close(_ id: UInt64, _ code: CloseCode, reason: String) {
        guard open.remove(id) != nil else { return }
        held[id] = nil
        loop.execute { [self] in onEvent(id, .closed(CloseReport(cause: .local, code: code, reason: reason))) }
    }

    func abort(_ id: UInt64) {
        guard open.remove(id) != nil else { return }
        held[id] = nil
        onEvent(id, .closed(CloseReport(cause: .aborted, code: .abnormal, reason: "")))
    }

    func setReading(_ id: UInt64, paused: Bool) {
        guard open.contains(id) else { return }
        if paused {
            held[id] = held[id] ?? []
        } else if let texts = held.removeValue(forKey: id) {
            for text in texts { deliver(text, to: id) }
        }
    }

    func shutDown() {
        for id in open.sorted() { close(id, .goingAway, reason: "") }
    }

    /// Sockets open now.
    var openCount: Int { open.count }
    /// Sockets whose reading is paused now.
    var pausedCount: Int { held.count }
}
