import Faults

/// The fault controller (Chaos) acts on the load's clock and logs into this run's faults.csv.
extension LoadDriver: FaultRunContext {}
