#if canImport(Glibc)
import Glibc
#endif

/// The Strings made for the previous request's header fields on one HTTP/2 connection, by position in the
/// header list, so a request whose fields repeat byte for byte reuses them.
///
/// Why: an APNs client sends the same authorization, topic, push type and user agent on every stream (HPACK
/// makes that cheap on the wire), and making a String of each field (UTF-8 validation plus an allocation for
/// any over 15 bytes) was the largest share of the push gateway's own instructions per push under callgrind.
/// A memcmp against the String already held costs a fraction of that. A field that differs (a new device
/// token in the path, a new `apns-id`) is made as before and replaces the held one.
///
/// Bounded: `slots` Strings per connection, each no longer than the server's header list limit.
/// A class over raw storage, not a struct in the connection: mutating a struct property of the connection, or
/// an array, is access-checked (exclusivity) on every field, which cost more than the Strings it saved.
/// Loop thread only, like its connection.
final class HTTP2FieldStrings {
    /// Two slots per field (name, value): the first 16 fields of a request are reused, later ones made anew.
    static let slots = 32
    private let recent: UnsafeMutablePointer<String>

    init() {
        recent = .allocate(capacity: Self.slots)
        recent.initialize(repeating: "", count: Self.slots)
    }

    deinit {
        recent.deinitialize(count: Self.slots)
        recent.deallocate()
    }

    /// The String that `bytes` spell, reused from `slot` when the last String there spells the same bytes.
    func string(_ bytes: UnsafeBufferPointer<UInt8>, slot: Int) -> String {
        guard slot < Self.slots else { return String(decoding: bytes, as: UTF8.self) }
        if Self.spells(recent[slot], bytes) { return recent[slot] }
        let made = String(decoding: bytes, as: UTF8.self)
        recent[slot] = made
        return made
    }

    /// Whether `text`'s UTF-8 is exactly `bytes`. A String made from invalid UTF-8 holds repaired bytes, so it
    /// never matches the invalid input again: reuse only ever returns what decoding would have made.
    private static func spells(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.utf8.count == bytes.count else { return false }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return text.utf8.withContiguousStorageIfAvailable { held in
            memcmp(held.baseAddress!, base, bytes.count) == 0
        } ?? false
    }
}
