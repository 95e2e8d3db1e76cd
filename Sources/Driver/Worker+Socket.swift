import CallModel
import Determinism
import Foundation
import Metrics
import Scenario
import Transport
import WebSocket
import WebSocketClient

/// Device sockets on the worker: the lifecycle's effects applied to the pool, server messages fed into the
/// observation seam (the same path as background pushes), and actions sent over the socket with their replies
/// judged like HTTP answers. Everything here runs on the worker's queue.
extension Worker {
    /// The sockets of this worker, or nil when `device.socket` is `none` (no pool, no counters). Call on the queue.
    func makeSockets(deviceIndexes: [Int]) -> DeviceSockets? {
        guard settings.socket.mode != .none, let mapping = api.mapping.socket else { return nil }
        let secure = mapping.url.hasPrefix("wss://") || (mapping.url.hasPrefix("/")
            && settings.targetURL.hasPrefix("https://"))
        let tls = secure ? try? ClientTLS(caFile: settings.targetCAFile) : nil
        var limits = WebSocketClientPool.Limits()
        limits.openTimeoutNanos = settings.actionTimeoutNanos
        guard let pool = loop.makeSocketPool(tls: tls, limits: limits, onEvent: { [unowned self] id, event in
            socketEvent(id, event)
        }) else { return nil }
        let lifecycle = SocketLifecycle(mode: settings.socket.mode, reconnect: settings.socket.reconnect,
                                        lingerNanos: settings.socket.lingerNanos, seed: settings.seed,
                                        devices: deviceIndexes)
        return DeviceSockets(pool: pool, lifecycle: lifecycle, mapping: mapping, view: api.mapping.view)
    }

    /// Whether `local` has a live conversation (a call it takes part in).
    func isLive(_ local: Int) -> Bool { devices[local].callID != nil }

    // MARK: - What the app does

    func socketRegistered(_ local: Int) {
        guard let sockets else { return }
        sockets.lifecycle.registered(local, now: clock.nowNanos())
        applySocketEffects()
    }

    func socketPushReported(_ local: Int, conversation: String, acceptedNanos: UInt64) {
        guard let sockets else { return }
        sockets.lifecycle.pushReported(local, conversation: conversation, acceptedNanos: acceptedNanos,
                                       now: clock.nowNanos())
        applySocketEffects()
    }

    func socketUserActs(_ local: Int) {
        guard let sockets else { return }
        sockets.lifecycle.userActs(local, now: clock.nowNanos())
        applySocketEffects()
    }

    func socketIdle(_ local: Int) {
        guard let sockets else { return }
        sockets.lifecycle.idle(local, now: clock.nowNanos())
        applySocketEffects()
    }

    func socketTimerFired(_ timer: SocketTimer, now: UInt64) {
        guard let sockets else { return }
        let local: Int
        switch timer {
        case .linger(let device, _), .reconnect(let device, _): local = device
        }
        sockets.lifecycle.fired(timer, live: isLive(local), now: now)
        applySocketEffects()
    }

    // MARK: - Fault hooks (socket faults build on these)

    /// Ends `local`'s socket as a fault would: abruptly (no close frame) or with `code`. Either way the device
    /// did not decide it: it counts as lost and the device reconnects (always, or while it has a live
    /// conversation) after its seeded backoff. False when the device has no socket.
    @discardableResult
    func dropSocket(_ local: Int, code: CloseCode? = nil) -> Bool {
        guard let sockets, let id = sockets.socket[local] else { return false }
        if let code { sockets.pool.close(id, code, reason: "fault") } else { sockets.pool.abort(id) }
        return true
    }

    /// Stops (`paused: true`) or resumes reading `local`'s socket: a stalled app (a `socket_stall` fault arms the
    /// resume on the wheel). False when the device has no socket.
    @discardableResult
    func stallSocket(_ local: Int, paused: Bool) -> Bool {
        guard let sockets, let id = sockets.socket[local] else { return false }
        sockets.pool.setReading(id, paused: paused)
        return true
    }

    /// The phase of `local`'s socket (closed when the run has no sockets).
    func socketPhase(_ local: Int) -> SocketLifecycle.Phase { sockets?.lifecycle[local].phase ?? .closed }

    // MARK: - Effects

    func applySocketEffects() {
        guard let sockets else { return }
        var armed = false
        while true {
            let effects = sockets.lifecycle.take()
            if effects.isEmpty { break }
            let now = clock.nowNanos()
            for effect in effects {
                switch effect {
                case .open(let local): openSocket(local, now: now)
                case .close(let local):
                    if let id = sockets.socket[local] { sockets.pool.close(id, .normal, reason: "") }
                case .ready(let local): socketReady(local)
                case .arm(let timer, let at):
                    schedule(.socket(timer), at: at)
                    armed = true
                case .count(let name, let n): recorder.count(name, by: n, atNanos: now)
                case .record(let name, let micros): recorder.record(name, micros: micros, atNanos: now)
                }
            }
        }
        if armed { rearm() }
    }

    private func openSocket(_ local: Int, now: UInt64) {
        guard let sockets else { return }
        var missing: [String] = []
        let vars = deviceVars(local)
        let text = DeviceSockets.socketURL(TargetAPI.render(sockets.mapping.url, vars, &missing),
                                           base: settings.targetURL)
        var headers: [(name: String, value: String)] = []
        for line in sockets.mapping.headers {
            let rendered = TargetAPI.render(line, vars, &missing)
            guard let colon = rendered.firstIndex(of: ":") else { continue }
            headers.append((String(rendered[..<colon]),
                            rendered[rendered.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        if !missing.isEmpty { recorder.count(.apiMissingVariable, atNanos: now) }
        sockets.opens += 1
        let stream = UInt64(devices[local].identity.index) << 24 ^ sockets.opens
        let result: Result<UInt64, WebSocketClientError>
        do {
            let url = try WebSocketURL(parsing: text)
            result = sockets.pool.open(url, headers: headers, random: SeededRandom(seed: settings.seed ^ 0x5753,
                                                                                   stream: stream))
        } catch {
            result = .failure(.handshake(error))
        }
        switch result {
        case .success(let id):
            sockets.device[id] = local
            sockets.socket[local] = id
        case .failure(let error):
            recorder.count(.socketOpenRefused, atNanos: now)
            books.note("socket of \(devices[local].identity.id) could not open: \(error)", limit: 10)
            sockets.lifecycle.openFailed(local, live: isLive(local), now: now)
        }
    }

    /// The socket is open: the hello, then every action queued while it was not.
    private func socketReady(_ local: Int) {
        guard let sockets, let id = sockets.socket[local] else { return }
        if let hello = sockets.mapping.hello {
            var missing: [String] = []
            sockets.pool.send(id, text: TargetAPI.render(hello, deviceVars(local), &missing))
        }
        for request in sockets.queued.removeValue(forKey: local) ?? [] {
            guard let outgoing = sockets.outgoing[request] else { continue }
            sockets.pool.send(id, text: outgoing.text)
        }
    }

    // MARK: - Socket events

    private func socketEvent(_ id: UInt64, _ event: ClientConnection.Event) {
        guard let sockets, !sockets.stopping, !finished, let local = sockets.device[id] else { return }
        let now = clock.nowNanos()
        switch event {
        case .opened:
            sockets.lifecycle.opened(local, now: now)
        case .message(.text(let text)):
            socketMessage(Array(text.utf8), from: local, now: now)
        case .message:
            recorder.count(.socketMessagesBinary, atNanos: now)
        case .pong:
            break
        case .closed(let report):
            sockets.device[id] = nil
            if sockets.socket[local] == id { sockets.socket[local] = nil }
            attributeSocketEnd(id, report, local: local, now: now)
            socketClosed(local, report, now: now)
        }
        applySocketEffects()
    }

    private func socketClosed(_ local: Int, _ report: CloseReport, now: UInt64) {
        guard let sockets else { return }
        var (byServer, lost, kind): (Bool, Bool, String?) = (false, true, nil)
        switch report.cause {
        case .remote: (byServer, lost) = (true, false)
        case .local: lost = false
        case .protocolError(let error): kind = error.kind
        case .aborted, .transport, .handshakeFailed, .connectFailed, .tlsFailed: break
        }
        if sockets.lifecycle[local].phase == .connecting {
            recorder.count(.socketConnectFailed(report.cause.kind), atNanos: now)
        }
        sockets.lifecycle.closed(local, byServer: byServer, lost: lost, code: Int(report.code.rawValue),
                                 protocolKind: kind, live: isLive(local), now: now)
        // Actions sent on this socket lose their replies; queued ones wait for the next socket.
        let waiting = Set(sockets.queued[local] ?? [])
        let sent = sockets.outgoing.filter { $0.value.device == local && !waiting.contains($0.key) }
        for request in sent.keys.sorted() {
            guard let outgoing = sockets.outgoing.removeValue(forKey: request) else { continue }
            // Later on the queue: a close can come from inside the send that is still handing this action over.
            nonisolated(unsafe) let completion = outgoing.completion
            let endpoint = outgoing.endpoint
            loop.execute { [self] in
                if !finished { completion(.failure(.reset("socket closed before the reply")), endpoint) }
            }
        }
    }
}
