import Faults

/// The fault controller (FaultControl's `FaultController`) acts on the load's clock and logs into this run's
/// faults.csv.
extension LoadDriver: FaultRunContext {}
