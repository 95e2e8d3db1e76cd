import CZlib
import Foundation
import Metrics
import Results
import TextEscaping

/// HdrHistogram interval logs (`.hlog`, log format version 1.3): one line per second of a latency metric, each
/// holding that second's histogram as base64 of the compressed V2 encoding, so HistogramLogProcessor, HdrPlot or
/// Python's `hdrh.log.HistogramLogReader` can read callstorm's measurements directly.
///
/// Values are microseconds; the `Interval_Max` column is in milliseconds. Timestamps are seconds relative to
/// `BaseTime`, the run's wall-clock start.
public enum HdrLog {
    public static let directoryName = RunBundle.hlogDirectoryName

    /// The compressed form: cookie 0x1c849304, length of the zlib stream, then the zlib stream of the V2 encoding.
    ///
    /// An interval of up to `smallInput` bytes (nearly all of them: a second's V2 encoding is a few dozen bytes)
    /// is one fixed-Huffman block of literals written by `HdrDeflater`, which any inflater reads; zlib's own deflate
    /// cost ~33 k instructions per interval for a few bytes saved. A longer one goes through compress2.
    /// `deflater` may be shared by the intervals of a report (`text`).
    public static func compressed(_ encoding: [UInt8], deflater: HdrDeflater = HdrDeflater()) -> [UInt8] {
        withCompressed(encoding, deflater: deflater) { Array($0) }
    }

    /// `compressed`'s bytes lent to `body` from scratch memory (the cookie and length written in front of the
    /// deflated stream in place): `text` base64s them straight into its line, without the two arrays and the
    /// `Data` an interval cost before (~4 k instructions an interval; issue 33, round 3).
    static func withCompressed<R>(_ encoding: [UInt8], deflater: HdrDeflater,
                                  _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let bound = 8 + Int(compressBound(uLong(encoding.count)))
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
            var length = uLong(bound - 8)
            let status = encoding.withUnsafeBufferPointer { source in
                let target = UnsafeMutableBufferPointer(rebasing: scratch[8...])
                if source.count <= smallInput {
                    return deflater.deflate(source, into: target, length: &length)
                }
                return compress2(target.baseAddress, &length, source.baseAddress, uLong(source.count),
                                 Z_DEFAULT_COMPRESSION)
            }
            precondition(status == Z_OK, "zlib compress2 failed with \(status)")
            let header = UInt64(HdrEncoding.v2CompressedCookie) << 32 | UInt64(length) & 0xFFFF_FFFF
            for i in 0..<8 { scratch[i] = UInt8(truncatingIfNeeded: header >> UInt64(56 - 8 * i)) }
            return body(UnsafeBufferPointer(rebasing: scratch[0..<(8 + Int(length))]))
        }
    }

    /// Inputs up to this many bytes are written by `HdrDeflater`.
    static let smallInput = 512

    /// Reverses `compressed` and decodes; used by tests and by tools reading callstorm's logs.
    public static func decompress(_ bytes: [UInt8]) throws -> HdrHistogram {
        guard bytes.count >= 8 else { throw HdrEncoding.DecodeError.truncated }
        let cookie = UInt32(HdrEncoding.readBigEndian(bytes, at: 0, bytes: 4))
        guard cookie == HdrEncoding.v2CompressedCookie else { throw HdrEncoding.DecodeError.badCookie(cookie) }
        let length = Int(HdrEncoding.readBigEndian(bytes, at: 4, bytes: 4))
        guard bytes.count >= 8 + length else { throw HdrEncoding.DecodeError.truncated }
        var size = 1 << 16
        while true {
            var out = [UInt8](repeating: 0, count: size)
            var produced = uLong(size)
            let status = bytes.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { target in
                    uncompress(target.baseAddress, &produced, source.baseAddress! + 8, uLong(length))
                }
            }
            if status == Z_BUF_ERROR, size < 1 << 28 {
                size *= 4
                continue
            }
            guard status == Z_OK else { throw HdrEncoding.DecodeError.badCounts("zlib status \(status)") }
            return try HdrEncoding.decode(Array(out[0..<Int(produced)]))
        }
    }

    /// The log of one metric's per-second intervals, in order of second.
    public static func text(metric: String, intervals: [Int: SparseHistogram], startedAt: Date,
                            deflater: HdrDeflater = HdrDeflater()) -> String {
        let base = startedAt.timeIntervalSince1970
        var text = "#[Histogram log format version 1.3]\n"
        text += "#[callstorm metric \(metric); values in microseconds, Interval_Max in milliseconds]\n"
        text += "#[StartTime: \(ReportFormat.fixed(base, decimals: 3)) (seconds since epoch), "
            + "\(ReportFormat.iso8601UTC(startedAt))]\n"
        text += "#[BaseTime: \(ReportFormat.fixed(base, decimals: 3)) (seconds since epoch)]\n"
        text += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"
        // The interval lines as bytes: a `String` interpolated per line (and the figure's own `String`s) cost as much
        // as the line's base64.
        var lines: [UInt8] = []
        for second in intervals.keys.sorted() {
            let interval = intervals[second]!
            guard !interval.isEmpty else { continue }
            JSONText.appendInteger(Int64(second), to: &lines)
            lines.append(contentsOf: ".000,1.000,".utf8)
            ReportFormat.appendMillis(interval.max, to: &lines)
            lines.append(UInt8(ascii: ","))
            withCompressed(interval.encodedV2(), deflater: deflater) { Base64Text.append($0, to: &lines) }
            lines.append(10)
        }
        text += String(decoding: lines, as: UTF8.self)
        return text
    }

    /// A file name for a metric: `push_to_report.hlog`, with anything but letters, digits, `.`, `-`, `_` as `_`.
    public static func fileName(metric: String) -> String {
        String(metric.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" ? $0 : "_" }) + ".hlog"
    }
}
