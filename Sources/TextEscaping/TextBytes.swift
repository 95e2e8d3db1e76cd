/// A text's UTF-8 bytes read borrowed, for every writer that escapes a `String` into bytes (`JSONText.appendQuoted`,
/// `CSVText.appendField`, RunFormats' `JSONLineWriter.quoted` and `csvField`): one place that knows how to read a
/// `String` without copying it, instead of four that each tried the borrowed read and fell back to a copy.
///
/// `utf8.withContiguousStorageIfAvailable` gives a native string's bytes, a small one's included (Swift 6), with no
/// retain of its storage; `var copy = text; copy.withUTF8` was a retain and a release per field (issue 33). Only a
/// string without contiguous UTF-8 (a bridged one: none on Linux) takes the copy.
public enum TextBytes {
    @inlinable @inline(__always)
    public static func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        return copied(text, body)
    }

    /// `withUTF8`'s rare path, kept out of line so the common one stays small where it is inlined.
    @usableFromInline @inline(never)
    static func copied<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var copy = text
        return copy.withUTF8(body)
    }
}
