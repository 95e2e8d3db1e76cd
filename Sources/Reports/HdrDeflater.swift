import CZlib

/// One zlib deflate stream kept for every small interval of a report's `.hlog` files and reset between them
/// (`deflateReset`), which zlib documents as `deflateEnd` then `deflateInit` without freeing and allocating the
/// state again: the same bytes out. A fresh stream per interval spent ~14 k of its ~46 k instructions in
/// `deflateInit2_` and `deflateEnd` (its 64 KB window and tables allocated and freed each time), one interval per
/// latency metric per second of the run.
///
/// Ownership rule: used by one thread at a time (a report is written on one).
public final class HdrDeflater {
    private var stream = z_stream()
    private var ready = false

    public init() {}

    deinit {
        if ready { deflateEnd(&stream) }
    }

    /// compress2 at the default level with `memLevel` 4: one deflate stream over `source`, its length in `length`.
    func deflate(_ source: UnsafeBufferPointer<UInt8>, into target: UnsafeMutableBufferPointer<UInt8>,
                 length: inout uLong) -> Int32 {
        var status: Int32
        if ready {
            status = deflateReset(&stream)
        } else {
            status = deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, MAX_WBITS, 4, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
            ready = status == Z_OK
        }
        guard status == Z_OK else { return status }
        stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
        stream.avail_in = uInt(source.count)
        stream.next_out = target.baseAddress
        stream.avail_out = uInt(target.count)
        status = CZlib.deflate(&stream, Z_FINISH)
        length = stream.total_out
        stream.next_in = nil
        stream.next_out = nil
        return status == Z_STREAM_END ? Z_OK : (status == Z_OK ? Z_BUF_ERROR : status)
    }
}
