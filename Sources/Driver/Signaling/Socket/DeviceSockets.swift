import StreamIO
import CallModel
import Determinism
import Foundation
import Metrics
import Scenario
import Transport
import WebSocket
import WebSocketClient

/// The socket signaling kind (`device.socket`): devices that register and act over HTTP (`ActionSender`) and hold
/// a WebSocket beside it. The pool on the worker's loop, the lifecycle deciding when each device's socket opens and
/// closes, server messages fed into the observation seam (`WorkerEffect.observe`, the path background pushes
/// take), the actions the mapping puts on the socket sent there with their replies judged like HTTP answers
/// (`ActionRoute`), and the socket faults. Exists only when `device.socket` is not `none`, so a run without
/// sockets creates no pool and counts nothing.
///
/// It is one `DeviceSignaling` conformer of several (HTTP, SIP): the app's moments (`AppMoment`: registered, a push
/// reported, the user acting, idle) reach it from the worker's parts through `DeviceSignalings`, what it hears goes
/// back as `WorkerEffect`s, and its timers come back as `TimerEvent.signaling` (`SocketSignalingTimer`).
///
/// Thread rule: touched only on the worker's loop (the pool's events come there too).
final class DeviceSockets: DeviceSignaling, ActionRoute, HoldsSignalingParts {
    /// An action on its way over a socket: queued until the socket opens, then waiting for its reply.
    struct Outgoing {
        let device: Int
        let text: String
        /// The operation's HTTP endpoint when the mapping has one (its `expect` and `capture` apply), else a
        /// stand-in that expects 2xx.
        let endpoint: APIMapping.Endpoint
        let completion: ActionSender.Completion
    }

    /// Which socket is whose, and the actions on their way.
    struct Links {
        /// Pool socket id ↔ the device (worker-local index) it belongs to.
        var device: [UInt64: Int] = [:]
        var socket: [Int: UInt64] = [:]
        /// Actions waiting for their device's socket to open, by device, in order.
        var queued: [Int: [String]] = [:]
        /// Every socket action not answered yet, by request id (queued ones included).
        var outgoing: [String: Outgoing] = [:]
        var nextRequest: UInt64 = 0
        /// Sockets opened so far: part of each socket's seeded stream (its handshake key and masks).
        var opens: UInt64 = 0
        /// Set at the end of the run: the pool's last `.closed` events are the shutdown's, already in the books.
        var stopping = false
    }

    private(set) var pool: SocketPool!
    var lifecycle: SocketLifecycle
    let mapping: APIMapping.Socket
    /// `mapping`'s templates, compiled once.
    let templates: SocketTemplates
    /// The socket URL's scheme, host, port and base path, parsed once when the mapping's url is a path on the
    /// target's base URL: each open then sets the resource alone (`openURL`).
    private let socketBase: (url: WebSocketURL, path: String)?
    /// Reads server→device messages: replies and events.
    let messages: SocketMessageReader
    var links = Links()
    /// The socket faults of the worker's devices (`DeviceSockets+Faults`).
    var plan = SocketFaultPlan()
    /// The worker's shared state and doors (`sender` for HTTP, `host` for effects), and this kind's slot.
    let parts: SignalingParts

    /// The sockets of a worker, or nil when `device.socket` is `none` or the loop has no pool. Call on the loop.
    static func make(_ parts: SignalingParts) -> DeviceSockets? {
        let settings = parts.settings
        guard settings.socket.mode != .none, let mapping = parts.sender.api.mapping.socket else { return nil }
        let lifecycle = SocketLifecycle(mode: settings.socket.mode, reconnect: settings.socket.reconnect,
                                        lingerNanos: settings.socket.lingerNanos, seed: settings.seed,
                                        devices: parts.deviceIndexes)
        let sockets = DeviceSockets(lifecycle: lifecycle, mapping: mapping, parts: parts)
        let secure = mapping.url.hasPrefix("wss://") || (mapping.url.hasPrefix("/")
            && settings.targetURL.hasPrefix("https://"))
        let tls = secure ? try? ClientTLS(caFile: settings.targetCAFile) : nil
        var limits = WebSocketClientPool.Limits()
        limits.openTimeoutNanos = settings.actionTimeoutNanos
        guard let pool = parts.loop.makeSocketPool(tls: tls, limits: limits, onEvent: {
            [unowned sockets] id, event in sockets.event(id, event)
        }) else { return nil }
        sockets.pool = pool
        return sockets
    }

    private init(lifecycle: SocketLifecycle, mapping: APIMapping.Socket, parts: SignalingParts) {
        self.lifecycle = lifecycle
        self.mapping = mapping
        self.templates = SocketTemplates(mapping)
        self.socketBase = Self.socketBase(mapping, target: parts.settings.targetURL)
        self.messages = SocketMessageReader(mapping, view: parts.sender.api.mapping.view)
        self.parts = parts
    }

    /// Puts one of this kind's timers on the worker's wheel.
    func schedule(_ timer: SocketSignalingTimer, at nanos: UInt64) {
        parts.host.schedule(.signaling(timer.timer(slot: parts.slot)), at: nanos)
    }

    // MARK: - DeviceSignaling

    func serves(_ local: Int) -> Bool { true }

    /// Registers over HTTP; a registered device's socket opens as its mode says.
    func register(_ local: Int, then: @escaping () -> Void) {
        sender.register(local) { [self] ok in
            if ok { registered(local) }
            then()
        }
    }

    /// The user acts (the app opens its socket for it), then the action goes over the socket when the mapping
    /// puts it there, else over HTTP.
    func perform(_ request: ActionRequest) {
        guard table.calls[request.call] != nil else { return }
        userActs(request.device)
        sender.perform(request, route: self)
    }

    func timerFired(_ timer: SignalingTimer, now: UInt64) {
        switch SocketSignalingTimer(timer) {
        case .lifecycle(let timer)?: lifecycleFired(timer, now: now)
        case .reply(let id)?: replyTimedOut(id)
        case .fault(let timer)?: faultFired(timer, now: now)
        case nil: break
        }
    }

    func moment(_ moment: AppMoment, device local: Int) {
        switch moment {
        case .pushReported(let uuid, let acceptedNanos):
            pushReported(local, conversation: uuid, acceptedNanos: acceptedNanos)
        case .idle: idle(local)
        case .relaunched: relaunched(local)
        }
    }

    func isForeground(_ local: Int) -> Bool { lifecycle.isForeground(local) }

    func loadStarts(at loadStart: UInt64) { planFaults(loadStart: loadStart) }

    func checkpoint(into snapshot: inout Recorder, now: UInt64) {
        let open = lifecycle.openCount
        if open > 0 { snapshot.count(.socketOpenAtStop, by: Int64(open), atNanos: now) }
    }

    /// The phase of `local`'s socket.
    func phase(_ local: Int) -> SocketLifecycle.Phase { lifecycle[local].phase }

    // MARK: - What the app does

    func registered(_ local: Int) {
        lifecycle.registered(local, now: now)
        applyEffects()
    }

    func pushReported(_ local: Int, conversation: String, acceptedNanos: UInt64) {
        lifecycle.pushReported(local, conversation: conversation, acceptedNanos: acceptedNanos, now: now)
        applyEffects()
    }

    func userActs(_ local: Int) {
        lifecycle.userActs(local, now: now)
        applyEffects()
    }

    func idle(_ local: Int) {
        lifecycle.idle(local, now: now)
        applyEffects()
    }

    func lifecycleFired(_ timer: SocketTimer, now: UInt64) {
        let local: Int
        switch timer {
        case .linger(let device, _), .reconnect(let device, _): local = device
        }
        lifecycle.fired(timer, live: table.isLive(local), now: now)
        applyEffects()
    }

    /// Ends `local`'s socket as a fault would: abruptly (no close frame) or with `code`. Either way the device
    /// did not decide it: it counts as lost and the device reconnects (always, or while it has a live
    /// conversation) after its seeded backoff. False when the device has no socket.
    @discardableResult
    func drop(_ local: Int, code: CloseCode? = nil) -> Bool {
        guard let id = links.socket[local] else { return false }
        if let code { pool.close(id, code, reason: "fault") } else { pool.abort(id) }
        return true
    }

    // MARK: - Effects

    func applyEffects() {
        while true {
            let effects = lifecycle.take()
            if effects.isEmpty { break }
            let now = now
            for effect in effects {
                switch effect {
                case .open(let local): open(local, now: now)
                case .close(let local):
                    if let id = links.socket[local] { pool.close(id, .normal, reason: "") }
                case .ready(let local): ready(local)
                case .arm(let timer, let at): schedule(.lifecycle(timer), at: at)
                case .count(let name, let n): books.count(name, by: n, at: now)
                case .record(let name, let micros): books.record(name, micros: micros, at: now)
                }
            }
        }
    }

    private func open(_ local: Int, now: UInt64) {
        var missing: [String] = []
        let vars = sender.deviceVars(local)
        let rendered = templates.url.render(vars, &missing)
        var headers: [(name: String, value: String)] = []
        for line in templates.headers {
            let rendered = line.render(vars, &missing)
            guard let colon = rendered.firstIndex(of: ":") else { continue }
            headers.append((String(rendered[..<colon]),
                            rendered[rendered.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        if !missing.isEmpty { books.count(.apiMissingVariable, at: now) }
        links.opens += 1
        let stream = UInt64(table.devices[local].identity.index) << 24 ^ links.opens
        let result: Result<UInt64, WebSocketClientError>
        do {
            let url = try openURL(rendered)
            let random = SeededRandom(seed: settings.seed ^ 0x5753, stream: stream)
            result = pool.open(url, headers: headers, random: random)
        } catch {
            result = .failure(.handshake(error))
        }
        switch result {
        case .success(let id):
            links.device[id] = local
            links.socket[local] = id
        case .failure(let error):
            books.count(.socketOpenRefused, at: now)
            books.note("socket of \(table.devices[local].identity.id) could not open: \(error)", limit: 10)
            lifecycle.openFailed(local, live: table.isLive(local), now: now)
        }
    }

    /// The socket is open: the hello, then every action queued while it was not.
    private func ready(_ local: Int) {
        guard let id = links.socket[local] else { return }
        if let hello = templates.hello {
            var missing: [String] = []
            pool.send(id, text: hello.render(sender.deviceVars(local), &missing))
        }
        for request in links.queued.removeValue(forKey: local) ?? [] {
            guard let outgoing = links.outgoing[request] else { continue }
            pool.send(id, text: outgoing.text)
        }
    }

    /// The ws:// or wss:// URL for a rendered `url` template: a path joins the target's base URL.
    /// The URL a device's socket opens, from its rendered `url`: what parsing `socketURL(rendered, base:)` gives.
    /// With `socketBase` the resource is the base path and the rendered path, with no parse: the whole URL's
    /// String parse (`WebSocketURL(parsing:)`, Character by Character) cost ~48,000 instructions an open (a
    /// websocket call of the capacity flow, issue 33). A `#` in the path is left to the parse, which refuses it.
    private func openURL(_ rendered: String) throws(HandshakeError) -> WebSocketURL {
        try Self.openURL(rendered, base: socketBase, target: settings.targetURL)
    }

    static func openURL(_ rendered: String, base: (url: WebSocketURL, path: String)?, target: String)
        throws(HandshakeError) -> WebSocketURL {
        guard let base, rendered.utf8.first == 0x2F, !rendered.utf8.contains(0x23) else {
            return try WebSocketURL(parsing: socketURL(rendered, base: target))
        }
        return WebSocketURL(secure: base.url.secure, host: base.url.host, port: base.url.port,
                            resource: base.path.isEmpty ? rendered : base.path + rendered)
    }

    /// `socketBase`: the target's base URL as a socket URL with the resource `/`, parsed, and its resource without
    /// that `/` (the base path, usually empty); nil when the mapping's url is not a path or the base does not parse.
    static func socketBase(_ mapping: APIMapping.Socket, target: String) -> (url: WebSocketURL, path: String)? {
        guard mapping.url.hasPrefix("/"), target.hasPrefix("http://") || target.hasPrefix("https://"),
              let url = try? WebSocketURL(parsing: socketURL("/", base: target)) else { return nil }
        return (url, String(url.resource.dropLast()))
    }

    static func socketURL(_ rendered: String, base: String) -> String {
        guard rendered.hasPrefix("/") else { return rendered }
        if base.hasPrefix("https://") { return "wss://" + base.dropFirst(8) + rendered }
        if base.hasPrefix("http://") { return "ws://" + base.dropFirst(7) + rendered }
        return base + rendered
    }
}
