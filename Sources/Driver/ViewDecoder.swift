import CallModel
import Foundation

/// Reads the reference protocol's conversation JSON (responses and push payloads) into server views.
enum ViewDecoder {
    struct MemberJSON: Decodable {
        let device: String
        let state: String
        let handle: Handle
    }

    struct ConversationJSON: Decodable {
        let id: String
        let version: Int
        let ended: Bool?
        let state: String?
        let members: [MemberJSON]

        var view: ConversationView {
            ConversationView(uuid: id, version: version, ended: ended ?? (state == "left"),
                             members: members.map { .init(device: $0.device, handle: $0.handle, state: $0.state) })
        }
    }

    private struct SplitJSON: Decodable { let split: ConversationJSON? }

    /// A push's payload: what happened, to which conversation, and the conversation it is about now.
    struct PushJSON: Decodable {
        struct PushHandle: Decodable {
            let kind: String?
            let value: String?
            let displayName: String?
        }

        let uuid: String?
        let handle: PushHandle?
        let capabilities: [String]?
        let event: String?
        let device: String?
        let version: Int?
        let ended: Bool?
        let reason: String?
        let into: String?
        let conversation: ConversationJSON?
    }

    static func conversation(_ bytes: [UInt8]) -> ConversationView? {
        (try? JSONDecoder().decode(ConversationJSON.self, from: Data(bytes)))?.view
    }

    static func split(_ bytes: [UInt8]) -> ConversationView? {
        (try? JSONDecoder().decode(SplitJSON.self, from: Data(bytes)))?.split?.view
    }

    static func push(_ bytes: [UInt8]) -> PushJSON? {
        try? JSONDecoder().decode(PushJSON.self, from: Data(bytes))
    }
}
