import Bytes
import StreamIO

extension EventLoop {
    /// Reads `stream` into the loop's scratch buffer up to `limit` times, handing each chunk to `take` where it
    /// landed (parsed in place, copied only if unfinished); `take` returns whether to read again (false after a
    /// short read, a pause, or once it closed its connection). The one read loop of every connection on the loop.
    ///
    /// Returns the read that ended the run when one did: `.wouldBlock` (the socket is drained; level-triggered
    /// epoll reports what arrives later), `.closed` (the peer's end of stream) or `.error`; nil when `take` or the
    /// limit ended it. What the connection does at the end of the stream or on an error is its own.
    @inline(__always)
    func readChunks(from stream: SocketStream, limit: Int, _ take: (UnsafeBufferPointer<UInt8>) -> Bool)
        -> IOResult? {
        let base = readScratch.baseAddress!
        for _ in 0..<limit {
            let result = stream.read(into: base, count: readScratch.count)
            guard case .bytes(let count) = result else { return result }
            if !take(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count)) { return nil }
        }
        return nil
    }

    /// Whether a chunk `readChunks` handed over filled the scratch buffer, so the socket may hold more. Static: a
    /// constant, with no load of the (unowned) loop per chunk.
    @inline(__always)
    static func filledScratch(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        chunk.count == readChunkBytes
    }
}
