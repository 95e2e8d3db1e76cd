import FaultControl
import Faults

/// The child target, as the fault controller (FaultControl's `FaultController`, which the run session starts and
/// finishes) kills and restarts it.
extension TargetProcess: ControlledTarget {
    func restart() throws { try start() }
}
