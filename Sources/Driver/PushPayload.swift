import Foundation

/// The fields a device reads from a push the reference protocol sends (docs/PROTOCOL.md): VoIP pushes carry the
/// conversation `uuid` and caller `handle`; background pushes carry an `event` about a conversation.
struct PushPayload: Decodable {
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

    static func decode(_ bytes: [UInt8]) -> PushPayload? {
        try? JSONDecoder().decode(PushPayload.self, from: Data(bytes))
    }
}

/// The part of a conversation response a device needs.
struct ConversationReply: Decodable {
    let id: String
    let version: Int?
    let state: String?
}
