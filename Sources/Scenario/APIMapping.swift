/// How callstorm speaks to a team's own call server instead of the reference protocol (docs/PROTOCOL.md):
/// each operation mapped to a request template, and the server's push payloads mapped to the fields devices need.
///
/// Templates substitute `${name}` variables: `device.id`, `device.handle`, `device.name`, `device.token`,
/// `to.id`, `to.handle`, `to.handles` (a JSON array of handle objects), `conversation.id`, `with.id`,
/// `member.id`, `member.handle`, `reason`, `video`, and every value captured from an earlier response.
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

    /// Where devices find things in the server's pushes.
    public struct PushFields: Sendable, Equatable {
        /// JSON path of the conversation id in VoIP and background pushes.
        public var conversation: String
        /// JSON path of the event name in background pushes.
        public var event: String
        /// Event values meaning "a remote member answered" and "the conversation ended".
        public var joined: [String]
        public var ended: [String]

        public init(conversation: String = "$.uuid", event: String = "$.event", joined: [String] = ["joined"],
                    ended: [String] = ["ended"]) {
            self.conversation = conversation
            self.event = event
            self.joined = joined
            self.ended = ended
        }
    }

    /// Operation name (`register`, `start`, `join`, `decline`, `end`, `pause`, `resume`, `merge`, `unmerge`) → endpoint.
    public var endpoints: [String: Endpoint]
    public var push: PushFields

    public static let operations = ["register", "start", "join", "decline", "end", "pause", "resume", "merge", "unmerge"]

    public init(endpoints: [String: Endpoint], push: PushFields = PushFields()) {
        self.endpoints = endpoints
        self.push = push
    }
}
