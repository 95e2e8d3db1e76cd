import Scenario
import TextEscaping
import Transport

/// Reads what a server sends on a device socket with `target.api.socket`: replies by their echoed id, events like
/// background pushes (`events`), names in `events.ignore` set aside. A value with no I/O, tested on its own.
struct SocketMessageReader: Sendable {
    /// Reads events with `events` (like pushes) and the scenario's view mapping.
    let reader: ViewReader
    /// Reads a reply's status (or ok flag) and body as an HTTP answer.
    let reply: SocketReplyReader
    let ignore: Set<String>
    /// Everything a message is read for, in one pass (`JSONScan`): the reply's id and fields, the event's name,
    /// and the event's fields as a push's.
    private let pattern: JSONPattern
    private let replyID: JSONPattern.Slot
    private let eventName: JSONPattern.Slot
    private let event: PushSlots

    init(_ mapping: APIMapping.Socket, view: ViewMapping?) {
        reader = ViewReader(view: view, push: mapping.events)
        ignore = Set(mapping.ignore)
        var pattern = JSONPattern()
        replyID = pattern.capture(ViewSlots.steps(mapping.reply.id))
        eventName = pattern.capture(ViewSlots.steps(mapping.events.event))
        reply = SocketReplyReader(mapping.reply, into: &pattern)
        event = PushSlots(mapping.events, view: view, into: &pattern)
        self.pattern = pattern
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
    /// read once.
    func classify(_ bytes: [UInt8], awaiting: (String) -> Bool) -> Incoming {
        guard let scan = JSONScan(bytes, pattern) else { return .unreadable }
        if let id = scan.string(replyID) ?? scan.int(replyID).map(String.init), awaiting(id) {
            return .reply(id: id, reply.response(scan))
        }
        if let name = scan.string(eventName), ignore.contains(name) { return .ignored }
        return .event(reader.push(scan, event))
    }
}
