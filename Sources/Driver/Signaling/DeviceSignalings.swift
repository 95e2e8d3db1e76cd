/// A worker's signaling kinds (those its devices use, from `SignalingRegistry`) and which one serves each device.
/// The worker, the push intake and the launcher reach a device's signaling through it, never a kind by name.
///
/// Ownership rule: made and used on the worker's loop.
final class DeviceSignalings {
    /// The kinds in registry order; a `SignalingTimer.slot` indexes this.
    let kinds: [any DeviceSignaling]
    /// Each device's (worker-local index) kind, as an index into `kinds`.
    private let ofDevice: [Int]
    private let table: CallTable

    /// Makes every registered kind that has devices on this worker. Call on the loop.
    init(_ parts: SignalingParts) {
        var kinds: [any DeviceSignaling] = []
        for kind in SignalingRegistry.kinds {
            var parts = parts
            parts.slot = kinds.count
            if let made = kind.make(parts) { kinds.append(made) }
        }
        self.kinds = kinds
        ofDevice = parts.deviceIndexes.indices.map { local in kinds.firstIndex { $0.serves(local) } ?? 0 }
        table = parts.table
    }

    /// The signaling of device `local`.
    subscript(local: Int) -> any DeviceSignaling { kinds[ofDevice[local]] }

    /// Sends `request` through its device's kind, called where the kind lies in `kinds` (a `let`): through the
    /// subscript, the kind was copied out (retained, then released) at every action (issue 33).
    func perform(_ request: ActionRequest) { kinds[ofDevice[request.device]].perform(request) }

    /// Tells device `local`'s kind of a moment in the device's life, as `perform` does.
    func moment(_ moment: AppMoment, device local: Int) { kinds[ofDevice[local]].moment(moment, device: local) }

    /// The kind of type `kind`, when the worker has it.
    func first<Kind: DeviceSignaling>(_ kind: Kind.Type) -> Kind? {
        kinds.lazy.compactMap { $0 as? Kind }.first
    }

    func timerFired(_ timer: SignalingTimer, now: UInt64) { kinds[timer.slot].timerFired(timer, now: now) }

    /// Registers every device of the worker's slice, at most `concurrency` at a time (a large slice would open as
    /// many requests at once), then puts the idle pool back in index order (answers come in any order) and calls
    /// `done`.
    func registerAll(concurrency: Int, done: @escaping () -> Void) {
        var (next, outstanding) = (0, 0)
        func pump() {
            while outstanding < concurrency, next < table.devices.count {
                next += 1
                outstanding += 1
                let local = next - 1
                self[local].register(local) { [self] in
                    outstanding -= 1
                    if next < table.devices.count {
                        pump()
                    } else if outstanding == 0 {
                        table.devices.sortIdle()
                        done()
                    }
                }
            }
            if table.devices.count == 0 { done() }
        }
        pump()
    }
}
