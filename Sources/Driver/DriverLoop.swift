import StreamIO
import Determinism
import Dispatch
import Transport
import WebSocket
import WebSocketClient
import SIPClient
import MediaIO

/// The loop one worker runs on: where its work runs, its one timer, the HTTP client that sends the target its
/// requests, and the pools its device sockets and SIP agents live in. The real one (`ThreadLoop`) is an epoll thread serving a
/// DispatchQueue; tests run the real `Worker` on an embedded loop instead, moved by a `ManualClock` like
/// swift-nio's EmbeddedEventLoop, with an in-memory target behind its client, in-memory device sockets and the
/// embedded SIP twin (SIPEmbedded): no sockets, no threads, no sleeps.
///
/// Ownership rule: everything a worker owns is touched only inside work this loop runs.
protocol DriverLoop: AnyObject, Sendable {
    /// The clock the worker's wheel, its measurements and its timer deadlines run on.
    var clock: Clock { get }
    /// Runs `work` on the loop later (never inline); from any thread.
    func execute(_ work: @escaping () -> Void)
    /// Hands `work` over from another thread (the push gateway's) for the loop to run soon.
    func post(_ work: @escaping () -> Void)
    /// Runs `work` on the loop and waits for it; never from the loop itself.
    func sync<T>(_ work: () throws -> T) rethrows -> T
    /// Calls `wake` (on the loop) once `clock` reaches `nanos`; a new deadline replaces the last one.
    func arm(wakeAt nanos: UInt64)
    /// What the one timer calls; set once, before the first `arm`.
    func onWake(_ wake: @escaping () -> Void)
    /// Sends the target its requests; the completion runs on the loop.
    var client: RequestSender { get }
    /// A device socket pool on this loop, or nil when the loop has none (then devices hold no sockets).
    func makeSocketPool(tls: ClientTLS?, limits: WebSocketClientPool.Limits,
                        onEvent: @escaping WebSocketClientPool.EventHandler) -> SocketPool?
    /// SIP user agents on this loop (`SIPSignaling`): `SIPClientPool` on `ThreadLoop`'s event thread; on the
    /// tests' embedded loop SIPEmbedded's `MemorySIPPool` on an in-memory network with the `SIPTwinProxy`. Nil
    /// when the loop cannot carry SIP (an embedded loop given no SIP network). `tls`: the client context TLS
    /// devices verify the proxy with (nil when no device speaks TLS).
    func makeSIPPool(proxyHost: String, proxyPort: Int, tls: ClientTLS?, onEvent: @escaping SIPAgentEventHandler)
        -> (any SIPAgentPool)?
    /// Media streams on this loop (issue 34, `media:`): `UDPMediaStreams` on `ThreadLoop`'s event thread, binding
    /// `ports` (nil: ephemeral); on the tests' embedded loop `MemoryMediaStreams` on its `MediaWire`. Nil when the
    /// loop carries no media (an embedded loop given no wire, a socket that cannot be made).
    func makeMediaStreams(ports: ClosedRange<Int>?, onEvent: @escaping MediaEventHandler) -> (any MediaStreams)?
    /// Stops the timer, the client and the loop (on the loop).
    func close()
    /// Returns once the loop ran everything handed to it and stopped (not from the loop).
    func waitUntilStopped()
}

/// Sends requests to the target: libcurl's multi handle (`HTTPClient`) or callstorm's own HTTP/1.1 client
/// (`WireSender`), as `target.client` says; both book the same `TransportError` kinds.
protocol RequestSender: AnyObject {
    func send(_ request: ClientRequest, completion: @escaping HTTPClient.Completion)
    func close()
}

extension HTTPClient: RequestSender {}
extension WireSender: RequestSender {}

/// Device sockets (the real one: `WebSocketClientPool` on the worker's event thread).
protocol SocketPool: AnyObject {
    func open(_ url: WebSocketURL, headers: [(name: String, value: String)],
              random: SeededRandom) -> Result<UInt64, WebSocketClientError>
    @discardableResult func send(_ id: UInt64, text: String) -> Bool
    func close(_ id: UInt64, _ code: CloseCode, reason: String)
    func abort(_ id: UInt64)
    func setReading(_ id: UInt64, paused: Bool)
    func shutDown()
}

extension WebSocketClientPool: SocketPool {
    func open(_ url: WebSocketURL, headers: [(name: String, value: String)],
              random: SeededRandom) -> Result<UInt64, WebSocketClientError> {
        open(url, address: nil, headers: headers, random: random)
    }

    func send(_ id: UInt64, text: String) -> Bool { send(id, text: text, maxFrameBytes: .max) }
}
