#if canImport(Glibc)
import Glibc
#endif

/// Prefix and substring tests on UTF-8 bytes for the gateway's hot path. `String.hasPrefix` and
/// `StringProtocol.contains` work in Characters (grapheme breaking): under callgrind the device-path prefix test
/// alone cost more instructions per push than the whole APNs header check. Every text compared here is ASCII, so
/// a byte answer is the same answer.
enum ByteSearch {
    /// Whether `text`'s UTF-8 starts with `prefix`.
    static func hasPrefix(_ text: Substring, _ prefix: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.count >= prefix.utf8CodeUnitCount
                && (prefix.utf8CodeUnitCount == 0
                    || memcmp(bytes.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0)
        }
    }

    /// Whether `text`'s UTF-8 contains `needle`.
    static func contains(_ text: String, _ needle: StaticString) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            contains(bytes, UnsafeRawBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount))
        }
    }

    /// Whether `haystack` contains `needle`: memchr finds each candidate by the needle's second byte (the first
    /// is a quote in a JSON key, common in a payload), memcmp checks it; no per-byte Swift loop.
    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeRawBufferPointer) -> Bool {
        guard !needle.isEmpty else { return true }
        guard let base = haystack.baseAddress, haystack.count >= needle.count else { return false }
        let anchor = needle.count > 2 ? 1 : 0
        let last = haystack.count - needle.count  // the last offset where the needle fits
        var from = 0
        while from <= last {
            guard let hit = memchr(base + from + anchor, Int32(needle[anchor]), last - from + 1) else { return false }
            let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) - anchor
            // The first and last bytes decide most candidates without a call.
            if base[offset] == needle[0] && base[offset + needle.count - 1] == needle[needle.count - 1]
                && memcmp(base + offset, needle.baseAddress!, needle.count) == 0 {
                return true
            }
            from = offset + 1
        }
        return false
    }

    /// Whether `text` equals the lowercase ASCII `lower`, ignoring ASCII case (header names).
    static func equalsIgnoringCase(_ text: String, _ lower: StaticString) -> Bool {
        guard text.utf8.count == lower.utf8CodeUnitCount else { return false }
        var text = text
        return text.withUTF8 { bytes in
            for i in 0..<bytes.count {
                let byte = bytes[i]
                let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                if folded != lower.utf8Start[i] { return false }
            }
            return true
        }
    }
}
