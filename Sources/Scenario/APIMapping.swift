/// How callstorm speaks to a team's own call server instead of the reference protocol (docs/PROTOCOL.md):
/// each operation mapped to a request template, and the server's push payloads mapped to the fields devices need.
///
/// Templates substitute `${name}` variables: `device.id`, `user.id` (the device's user, `users:`; the device's own
/// id without users), `device.handle`, `device.name`, `device.token`,
/// `to.id`, `to.handle`, `to.handles` (a JSON array of handle objects), `to.ids` (a JSON array of callee ids),
/// `conversation.id`, `with.id`, `member.id`, `member.handle`, `reason`, `video`, and every value captured from an
/// earlier response.
public struct APIMapping: Sendable, Equatable {
    public struct Endpoint: Sendable, Equatable {
        public var method: String
        public var path: String
        /// `Name: value` lines, templated.
        public var headers: [String]
        public var body: String?
        /// Statuses that mean success; empty means any 2xx.
        public var expect: [Int]
        /// Variable name → JSON path into the response (`$.call.id`, `$.items[0].id`).
        public var captures: [String: String]

        public init(method: String, path: String, headers: [String] = [], body: String? = nil, expect: [Int] = [],
                    captures: [String: String] = [:]) {
            self.method = method
            self.path = path
            self.headers = headers
            self.body = body
            self.expect = expect
            self.captures = captures
        }

        public func accepts(_ status: Int) -> Bool { expect.isEmpty ? (200..<300).contains(status) : expect.contains(status) }
    }

    /// Where devices find things in the server's pushes. Paths left nil are not in the server's pushes.
    public struct PushFields: Sendable, Equatable {
        /// JSON path of the conversation id in VoIP and background pushes.
        public var conversation: String
        /// JSON path of the event name in background pushes.
        public var event: String
        /// Event values meaning "a remote member answered" and "the conversation ended".
        public var joined: [String]
        public var ended: [String]
        /// Event values meaning "your conversation was merged into `into`" and "you were split off into `into`"
        /// (the reference protocol's `merged` and `split`; a server may have its own words).
        public var merged: [String] = ["merged"]
        public var split: [String] = ["split"]
        /// The conversation's view (read with `target.api.view`), the capabilities the conversation has (without
        /// them, the device's own: an LCK app sets them in its `Conversation.Update`), the caller's handle, the
        /// end reason, the conversation a merge or split moved the device into, a version, and the server's send
        /// time (epoch ms).
        public var view: String?
        public var capabilities: String?
        public var handle: String?
        public var reason: String?
        public var into: String?
        public var version: String?
        public var sentAt: String?
        /// `capability_words`: LCK capability name → the server's words for it (see `CapabilityWords`).
        public var capabilityWords: [String: [String]] = [:]

        public init(conversation: String = "$.uuid", event: String = "$.event", joined: [String] = ["joined"],
                    ended: [String] = ["ended"]) {
            self.conversation = conversation
            self.event = event
            self.joined = joined
            self.ended = ended
        }

        /// The reference protocol's pushes (docs/PROTOCOL.md).
        public static let reference: PushFields = {
            var fields = PushFields()
            (fields.view, fields.capabilities, fields.handle) = ("$.conversation", "$.capabilities", "$.handle")
            (fields.reason, fields.into) = ("$.reason", "$.into")
            (fields.version, fields.sentAt) = ("$.version", "$.sentAt")
            return fields
        }()

        /// Every JSON path the mapping names, with its field's name, for validation.
        public var paths: [(field: String, path: String)] {
            var out: [(String, String)] = [("conversation", conversation), ("event", event)]
            for (field, path) in [("view", view), ("capabilities", capabilities), ("handle", handle),
                                  ("reason", reason), ("into", into), ("version", version), ("sent_at", sentAt)] {
                if let path { out.append((field, path)) }
            }
            return out
        }
    }

    /// Operation name (`register`, `start`, `join`, `decline`, `end`, `pause`, `resume`, `merge`, `unmerge`,
    /// `get`) → endpoint.
    /// `get` reads one conversation back (polling and the final-view check).
    public var endpoints: [String: Endpoint]
    public var push: PushFields
    /// How to read a conversation view; nil when the server's JSON is not mapped (no views, no history checks).
    public var view: ViewMapping?
    /// Statuses of an `end` or `decline` that mean "this conversation had already ended".
    public var alreadyEnded: [Int]
    /// The server's signaling WebSocket; nil when it has none (devices with `socket:` other than none need one).
    public var socket: Socket?
    /// `trace_header`: the header a sampled call's requests carry its W3C trace context in when OpenTelemetry
    /// export is on (`traceparent` unless renamed; `off`: nil, none sent; `${trace.parent}` is set either way).
    public var traceHeader: String? = "traceparent"

    public static let operations = ["register", "start", "join", "decline", "end", "pause", "resume", "merge",
                                    "unmerge", "get"]

    public init(endpoints: [String: Endpoint], push: PushFields = PushFields(), view: ViewMapping? = nil,
                alreadyEnded: [Int] = [], socket: Socket? = nil) {
        self.endpoints = endpoints
        self.push = push
        self.view = view
        self.alreadyEnded = alreadyEnded
        self.socket = socket
    }
}
