/// SwitchScan's version: `switchscan --version` prints it, and scripts/package-deb.sh names
/// the package after it (it reads this line).
public let switchScanVersion = "0.1.0"
