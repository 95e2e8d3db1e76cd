import CCurl
import Dispatch
import Foundation

/// The read and write DispatchSources of one curl socket, suspended while curl does not want that direction.
/// Owned by the client's queue.
final class SocketWatch {
    private let fd: Int32
    private var read: DispatchSourceRead?
    private var write: DispatchSourceWrite?
    private var readActive = false
    private var writeActive = false
    private let queue: DispatchQueue
    private let onEvent: (Int32, Int32) -> Void

    init(fd: Int32, queue: DispatchQueue, onEvent: @escaping (Int32, Int32) -> Void) {
        self.fd = fd
        self.queue = queue
        self.onEvent = onEvent
    }

    func want(read wantRead: Bool, write wantWrite: Bool) {
        if wantRead != readActive {
            if read == nil {
                let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
                let fd = self.fd
                let onEvent = self.onEvent
                source.setEventHandler { onEvent(fd, CURL_CSELECT_IN) }
                read = source
                readActive = true
                source.resume()
            } else if wantRead {
                read?.resume()
                readActive = true
            } else {
                read?.suspend()
                readActive = false
            }
        }
        if wantWrite != writeActive {
            if write == nil {
                let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
                let fd = self.fd
                let onEvent = self.onEvent
                source.setEventHandler { onEvent(fd, CURL_CSELECT_OUT) }
                write = source
                writeActive = true
                source.resume()
            } else if wantWrite {
                write?.resume()
                writeActive = true
            } else {
                write?.suspend()
                writeActive = false
            }
        }
    }

    /// Cancels both sources; the fd is closed once both cancel handlers have run.
    func cancelThenClose() {
        let fd = self.fd
        var pending = (read != nil ? 1 : 0) + (write != nil ? 1 : 0)
        if pending == 0 {
            Foundation.close(fd)
            return
        }
        let done = { pending -= 1; if pending == 0 { Foundation.close(fd) } }
        read?.setCancelHandler(handler: done)
        write?.setCancelHandler(handler: done)
        cancel()
    }

    /// Cancels both sources (resuming suspended ones so their cancel handlers run).
    func cancel() {
        if let read {
            read.setEventHandler(handler: nil)
            read.cancel()
            if !readActive { read.resume() }
        }
        if let write {
            write.setEventHandler(handler: nil)
            write.cancel()
            if !writeActive { write.resume() }
        }
        read = nil
        write = nil
        readActive = false
        writeActive = false
    }
}
