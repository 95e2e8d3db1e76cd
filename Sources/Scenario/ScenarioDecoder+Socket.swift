/// `device.socket*` and `target.api.socket`: the app's signaling WebSocket and how the server's one is mapped.
extension ScenarioDecoder {
    static let socketKeys = ["url", "headers", "hello", "events", "actions", "reply"]
    static let socketEventKeys = ["conversation", "event", "joined", "ended", "view", "capabilities", "handle",
                                  "reason", "into", "version", "sent_at", "ignore"]

    /// `socket`, `socket_reconnect` and `socket_linger` of the `device:` section.
    mutating func deviceSocket(_ fields: Fields, into profile: inout DeviceProfile) {
        if let node = fields["socket"],
           let word = word(node, "socket", among: SocketMode.allCases.map(\.rawValue)) {
            profile.socket = SocketMode(rawValue: word) ?? .none
        }
        if let node = fields["socket_linger"], let nanos = duration(node, "socket_linger", allowZero: true) {
            profile.socketLingerNanos = nanos
        }
        if let node = fields["socket_reconnect"],
           let f = self.fields(of: node, in: "'device.socket_reconnect'", known: ["base", "max", "jitter"]) {
            var reconnect = SocketReconnect()
            if let n = f["base"], let nanos = duration(n, "base") { reconnect.baseNanos = nanos }
            if let n = f["max"], let nanos = duration(n, "max") { reconnect.maxNanos = nanos }
            if let n = f["jitter"], let value = number(n, "jitter", allowZero: true) {
                if value > 1 { report(n.mark, "'jitter' is a share of each delay, 0…1; got \(value)") }
                reconnect.jitter = min(value, 1)
            }
            if reconnect.maxNanos < reconnect.baseNanos {
                report(f.mark, "'device.socket_reconnect': 'max' must be at least 'base'")
            }
            profile.socketReconnect = reconnect
        }
    }

    /// A device that holds a socket needs the server's socket mapped (the reference protocol's built-in mapping
    /// has one).
    mutating func checkSocketMapped(_ root: YAMLNode, _ scenario: Scenario) {
        guard scenario.device.socket != .none, let api = scenario.api, api.socket == nil else { return }
        let device = Self.topLevelValue(root, "device")
        var mark = device?.mark ?? Mark(line: 1, column: 1)
        if case .mapping(let pairs, _)? = device, let pair = pairs.first(where: { $0.key.scalarText == "socket" }) {
            mark = pair.value.mark
        }
        report(mark, "'device.socket: \(scenario.device.socket.rawValue)' needs 'target.api.socket' "
            + "(the URL of your server's WebSocket and how its messages read), or 'socket: none'")
    }

    /// `target.api.socket`.
    mutating func socket(_ node: YAMLNode, _ used: inout [(mark: Mark, name: String)]) -> APIMapping.Socket? {
        let context = "'target.api.socket'"
        guard let f = fields(of: node, in: context, known: Self.socketKeys, required: ["url", "events"]),
              let urlNode = f["url"], let url = string(urlNode, "url") else { return nil }
        if !(url.hasPrefix("/") || url.hasPrefix("ws://") || url.hasPrefix("wss://")) {
            report(urlNode.mark, "the socket's 'url' is a path on the target ('/v1/events') or a ws:// or wss:// "
                + "URL, got '\(url)'")
        }
        checkVariables(urlNode, url, &used)
        var socket = APIMapping.Socket(url: url)
        if let n = f["headers"] { socket.headers = socketHeaders(n, &used) }
        if let n = f["hello"], let hello = string(n, "hello") {
            checkVariables(n, hello, &used)
            socket.hello = hello
        }
        if let n = f["events"], let (events, ignore) = socketEvents(n) {
            (socket.events, socket.ignore) = (events, ignore)
        }
        if let n = f["actions"], let a = fields(of: n, in: "'target.api.socket.actions'",
                                                 known: APIMapping.Socket.operations) {
            for op in APIMapping.Socket.operations {
                guard let value = a[op], let text = string(value, op) else { continue }
                checkVariables(value, text, &used)
                socket.actions[op] = text
            }
        }
        if let n = f["reply"], let r = fields(of: n, in: "'target.api.socket.reply'", known: ["id", "status", "body"],
                                               required: ["id"]) {
            if let idNode = r["id"], let path = jsonPath(idNode, "id") { socket.reply.id = path }
            socket.reply.status = r["status"].flatMap { jsonPath($0, "status") }
            socket.reply.body = r["body"].flatMap { jsonPath($0, "body") }
        } else if f["actions"] != nil && f["reply"] == nil {
            report(f.mark, "\(context) maps 'actions' but not 'reply': say where the server echoes the request id, "
                + "like 'reply: { id: \"$.id\", status: \"$.status\", body: \"$.body\" }'")
        }
        return socket
    }

    /// Headers as a list of `Name: value` lines or as a mapping of names to values.
    private mutating func socketHeaders(_ node: YAMLNode, _ used: inout [(mark: Mark, name: String)]) -> [String] {
        var lines: [String] = []
        switch node {
        case .mapping(let pairs, _):
            for pair in pairs {
                guard let name = pair.key.scalarText, let value = pair.value.scalarText else {
                    report(pair.key.mark, "headers are 'Name: value' pairs")
                    continue
                }
                checkVariables(pair.value, value, &used)
                lines.append("\(name): \(value)")
            }
        case .sequence(let items, _):
            for item in items {
                guard let line = string(item, "headers") else { continue }
                guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                    report(item.mark, "a header is 'Name: value', got '\(line)'")
                    continue
                }
                checkVariables(item, line, &used)
                lines.append(line)
            }
        default:
            report(node.mark, "expected 'headers' as a list of 'Name: value' lines or a mapping")
        }
        return lines
    }

    /// `events:` reads like `target.api.push`, plus `ignore`.
    private mutating func socketEvents(_ node: YAMLNode) -> (APIMapping.PushFields, [String])? {
        guard let f = fields(of: node, in: "'target.api.socket.events'", known: Self.socketEventKeys) else {
            return nil
        }
        var ignore: [String] = []
        if let n = f["ignore"], let list = stringList(n, "ignore") { ignore = list }
        let pairs = f.pairs.filter { $0.key.scalarText != "ignore" }
        let stripped = YAMLNode.mapping(pairs.map { YAMLNode.Pair(key: $0.key, value: $0.value) }, mark: f.mark)
        guard let events = pushFields(stripped, context: "'target.api.socket.events'") else { return nil }
        return (events, ignore)
    }
}
