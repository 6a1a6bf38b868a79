import ScanCore

/// Shows or forwards effects. Each presenter is confined to one serial queue or thread,
/// which its owner names (hence Sendable by that rule): presenting is not time-critical,
/// since the engine has already decided everything by timestamp.
public protocol EffectPresenter: AnyObject, Sendable {
    func present(_ effects: [TimedEffect]) throws
    /// Leaves the output as it was found (the terminal restored, sockets closed).
    func finish()
}
