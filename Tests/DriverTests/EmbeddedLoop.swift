import StreamIO
import Determinism
import MediaIO
@testable import Driver
import SIPClient
import SIPEmbedded
import Transport
import WebSocket
import WebSocketClient

/// A `DriverLoop` run by the test itself, like swift-nio's EmbeddedEventLoop: work handed to it waits until the
/// test runs it, its one timer fires when the test moves the `ManualClock` to the armed deadline, and its client
/// answers every request from `target` in memory (the answer arrives as later work, as a real client's would).
/// No threads, no sockets, no sleeps: a run is as deterministic as the code under test.
final class EmbeddedLoop: DriverLoop, @unchecked Sendable {
    let manual: ManualClock
    private var pending: [() -> Void] = []
    private var deadline: UInt64?
    private var wake: () -> Void = {}
    private(set) var closed = false
    private(set) var requests: [ClientRequest] = []
    private lazy var memoryClient = MemoryClient(loop: self)
    /// Answers each request the worker sends; set before the worker sends any.
    var target: (ClientRequest) -> ClientResponse = { _ in ClientResponse(status: 404, body: []) }
    /// The socket server: what it answers to a device's text. Set before the worker is made for a pool
    /// (`sockets`); nil makes none, as for a loop without sockets.
    var socketServer: ((String) -> String?)?
    private(set) var sockets: MemorySocketPool?
    /// The SIP network the worker's SIP agents join (`MemorySIPPool`), its proxy on `target.sip`'s port. Set
    /// before the worker is made; nil makes no SIP pool, as before.
    var sipNetwork: SIPNetwork?
    private(set) var sipPool: MemorySIPPool?
    /// The media wire the worker's streams join (`MemoryMediaStreams`). Set before the worker is made; nil makes
    /// no media streams, as before.
    var mediaWire: MediaWire?
    private(set) var mediaStreams: MemoryMediaStreams?

    init(clock: ManualClock) { manual = clock }

    var clock: Clock { manual }
    var client: RequestSender { memoryClient }

    func execute(_ work: @escaping () -> Void) { pending.append(work) }
    func post(_ work: @escaping () -> Void) { pending.append(work) }
    func sync<T>(_ work: () throws -> T) rethrows -> T { try work() }
    func arm(wakeAt nanos: UInt64) { deadline = nanos }
    func onWake(_ wake: @escaping () -> Void) { self.wake = wake }
    func makeSocketPool(tls: ClientTLS?, limits: WebSocketClientPool.Limits,
                        onEvent: @escaping WebSocketClientPool.EventHandler) -> SocketPool? {
        guard let socketServer else { return nil }
        sockets = MemorySocketPool(loop: self, onEvent: onEvent, server: socketServer)
        return sockets
    }
    func makeSIPPool(proxyHost: String, proxyPort: Int, tls: ClientTLS?, onEvent: @escaping SIPAgentEventHandler)
        -> (any SIPAgentPool)? {
        guard let sipNetwork else { return nil }
        sipPool = MemorySIPPool(network: sipNetwork, proxyPort: proxyPort, onEvent: onEvent)
        return sipPool
    }
    func makeMediaStreams(ports: ClosedRange<Int>?, onEvent: @escaping MediaEventHandler) -> (any MediaStreams)? {
        guard let mediaWire else { return nil }
        mediaStreams = MemoryMediaStreams(wire: mediaWire, onEvent: onEvent)
        return mediaStreams
    }
    func close() { closed = true }
    func waitUntilStopped() { runPending() }

    /// Runs the work handed to the loop, and the work that work hands it, until none is left; between, the SIP
    /// network and the media wire deliver what is due now.
    func runPending() {
        var ran = 0
        while true {
            while !pending.isEmpty {
                let work = pending.removeFirst()
                work()
                ran += 1
                precondition(ran < 10_000_000, "the loop never went idle")
            }
            if let mediaWire, let due = mediaWire.nextDeadline, due <= manual.nowNanos() {
                mediaWire.run()
                continue
            }
            guard let sipNetwork, sipNetwork.hasDueWork else { return }
            sipNetwork.run()
        }
    }

    /// Runs pending work, then moves the clock to the timer's deadline and fires it, again and again, until
    /// `done` holds or no timer is armed before `limit`. Returns `done()`.
    @discardableResult
    func run(until limit: UInt64, _ done: () -> Bool) -> Bool {
        for _ in 0..<10_000_000 {
            runPending()
            if done() { return true }
            let sipDue = sipNetwork?.nextDeadline
            let mediaDue = mediaWire?.nextDeadline
            guard let due = [deadline, sipDue, mediaDue].compactMap({ $0 }).min(), due <= limit else { return done() }
            if due > manual.nowNanos() { manual.advance(to: due) }
            if let armed = deadline, armed <= due {
                deadline = nil
                wake()
            }
        }
        return done()
    }

    fileprivate func answer(_ request: ClientRequest, _ completion: @escaping HTTPClient.Completion) {
        requests.append(request)
        let response = target(request)
        pending.append { completion(.success(response)) }
    }
}

/// The embedded loop's client: the target answers in memory.
private final class MemoryClient: RequestSender {
    unowned let loop: EmbeddedLoop
    init(loop: EmbeddedLoop) { self.loop = loop }
    func send(_ request: ClientRequest, completion: @escaping HTTPClient.Completion) {
        loop.answer(request, completion)
    }
    func close() {}
}
