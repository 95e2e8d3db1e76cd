import CallModel
import Foundation

/// SIP devices of users with several devices (`users:`, issue 36): every device of a user registers the user's
/// address of record (`sip:user-N@<domain>`, N its first device), each with its own contact and RFC 5626
/// instance; a call is sent to that address and the server forks it to the devices. Which devices sleep is each
/// device's own seeded draw (`device.sleep: 50%`), so one user's devices can differ.
extension SIPSignaling {
    /// Whether device `local` sleeps: every device with `sleep: true`, a seeded share with `sleep: 50%`.
    func sleeps(_ local: Int) -> Bool {
        spec.sleeps(index: table.devices[local].identity.index, seed: settings.seed)
    }

    /// The caller's handle when a From URI names a user's address of record (`sip:user-N@…`): the user's handle,
    /// the one every device of the user registered and the server's push names; a device's own (`sip:dev-N`)
    /// otherwise, as without users.
    func userHandle(_ from: String) -> Handle? {
        guard let start = from.range(of: "sip:user-")?.upperBound else {
            guard let index = Self.deviceIndex(inURI: from), index < settings.devices else { return nil }
            return handleBook.handle(index: index)
        }
        let digits = from[start...].prefix { $0.isASCII && $0.isNumber }
        guard let index = Int(digits), index < settings.devices else { return nil }
        return handleBook.handle(index: index, user: true)
    }
}
