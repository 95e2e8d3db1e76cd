import Scenario

/// Reads what a server sends on a device socket with `target.api.socket`: replies by their echoed id, events like
/// background pushes (`events`), names in `events.ignore` set aside. A value with no I/O, tested on its own.
struct SocketMessageReader: Sendable {
    /// Reads events with `events` (like pushes) and the scenario's view mapping.
    let reader: ViewReader
    let replyID: JSONPath?
    let replyStatus: JSONPath?
    let replyBody: JSONPath?
    let eventName: JSONPath?
    let ignore: Set<String>

    init(_ mapping: APIMapping.Socket, view: ViewMapping?) {
        reader = ViewReader(view: view, push: mapping.events)
        replyID = JSONPath(mapping.reply.id)
        replyStatus = mapping.reply.status.flatMap(JSONPath.init)
        replyBody = mapping.reply.body.flatMap(JSONPath.init)
        eventName = JSONPath(mapping.events.event)
        ignore = Set(mapping.ignore)
    }

    /// What a server→device message is.
    enum Incoming {
        /// The reply to action `id`: its status (200 when the mapping names none; 0 when the named path is
        /// missing) and the part read like an HTTP body.
        case reply(id: String, status: Int, body: [UInt8])
        /// An event named in `events.ignore`.
        case ignored
        /// An event, read like a background push (nil: not readable with the mapping).
        case event(PushPayload?)
        /// Not JSON.
        case unreadable
    }

    /// Sorts a message: a reply when it echoes the id of an action in flight, else an event. The message is
    /// parsed once.
    func classify(_ bytes: [UInt8], awaiting: (String) -> Bool) -> Incoming {
        guard let root = JSONLite.parse(bytes) else { return .unreadable }
        if let value = replyID?.value(in: root), let id = value.stringValue ?? value.intValue.map(String.init),
           awaiting(id) {
            var status = 200
            if let path = replyStatus { status = path.value(in: root)?.intValue ?? 0 }
            var body = bytes
            if let path = replyBody { body = path.value(in: root).map { Array($0.text.utf8) } ?? [] }
            return .reply(id: id, status: status, body: body)
        }
        if let name = eventName?.value(in: root)?.stringValue, ignore.contains(name) { return .ignored }
        return .event(reader.push(root: root))
    }
}
