import Scenario
import TextEscaping
import Transport

/// Reads what a server sends on a device socket with `target.api.socket`: replies by their echoed id, events like
/// background pushes (`events`), names in `events.ignore` set aside. A value with no I/O, tested on its own.
struct SocketMessageReader: Sendable {
    /// Reads events with `events` (like pushes) and the scenario's view mapping.
    let reader: ViewReader
    let replyID: JSONPath?
    /// Reads a reply's status (or ok flag) and body as an HTTP answer.
    let reply: SocketReplyReader
    let eventName: JSONPath?
    let ignore: Set<String>

    init(_ mapping: APIMapping.Socket, view: ViewMapping?) {
        reader = ViewReader(view: view, push: mapping.events)
        replyID = JSONPath(mapping.reply.id)
        reply = SocketReplyReader(mapping.reply)
        eventName = JSONPath(mapping.events.event)
        ignore = Set(mapping.ignore)
    }

    /// What a server→device message is.
    enum Incoming {
        /// The reply to action `id` as an HTTP answer (`SocketReplyReader`): its status or ok flag (200 when the
        /// mapping names neither; 0 when a named path is missing) and the part read like an HTTP body.
        case reply(id: String, ClientResponse)
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
            return .reply(id: id, reply.response(root, bytes))
        }
        if let name = eventName?.value(in: root)?.stringValue, ignore.contains(name) { return .ignored }
        return .event(reader.push(root: root))
    }
}
