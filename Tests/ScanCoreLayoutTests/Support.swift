import Foundation
@_exported import TestSupport

// The scan-list tests' helpers are TestSupport's (Layouts.swift).

/// The package root.
let packageRoot = TestPaths.packageRoot
