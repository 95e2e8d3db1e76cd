/// The phone's own life for devices that hold a socket (issue 37): a relaunched app's process is gone, and its
/// socket with it. The socket ends abruptly, counted as callstorm's (`socket.lost.injected`, as a drop fault's), the
/// lifecycle reconnects after the device's backoff, and the app registers again over HTTP.
extension DeviceSockets {
    func relaunched(_ local: Int) {
        sender.reregister(local)
        guard let id = links.socket[local], phase(local) == .open else { return }
        // Marked first: the pool reports an abort's end at once, inside `drop`.
        plan.dropping.insert(id)
        _ = drop(local)
    }
}
