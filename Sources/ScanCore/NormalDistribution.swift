/// The normal distribution, for the reaction times of `cost`'s late person and of the
/// simulated people. The core has no math library: `log` and `exp` are reduced to a small
/// range and summed as series (to within a few units in the last place), and the normal
/// tail uses the Chebyshev-fitted complementary error function (relative error < 1.2e-7).
public enum NormalDistribution {
    static let ln2 = 0.693_147_180_559_945_3

    /// Natural logarithm of a positive finite number.
    public static func log(_ x: Double) -> Double {
        precondition(x > 0 && x.isFinite)
        // x = m · 2^e with m in [1, 2); log m = 2 atanh((m − 1)/(m + 1)).
        let m = x.significand, e = Double(x.exponent)
        let z = (m - 1) / (m + 1), z2 = z * z
        var term = z, sum = 0.0, k = 1.0
        while true {
            let add = term / k
            if abs(add) < 1e-17 { break }
            sum += add
            term *= z2
            k += 2
        }
        return e * ln2 + 2 * sum
    }

    public static func exp(_ x: Double) -> Double {
        if x < -745 { return 0 }
        if x > 709 { return .infinity }
        // x = k ln 2 + r with |r| ≤ ln 2 / 2; e^r by its series.
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0, sum = 1.0, n = 1.0
        while abs(term) > 1e-17 {
            term *= r / n
            sum += term
            n += 1
        }
        return Double(sign: .plus, exponent: Int(k), significand: 1) * sum
    }

    /// The complementary error function.
    public static func erfc(_ x: Double) -> Double {
        let z = abs(x)
        let t = 1 / (1 + 0.5 * z)
        var p = 0.17087277
        for c in [-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196, 1.00002368, -1.26551223] {
            p = c + t * p
        }
        let r = t * exp(-z * z + p)
        return x >= 0 ? r : 2 - r
    }

    /// P(X ≤ x) for a standard normal X.
    public static func cdf(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// P(X > x), accurate far into the tail (where 1 − cdf would lose its digits).
    public static func tail(_ x: Double) -> Double { 0.5 * erfc(x / 2.0.squareRoot()) }

    /// The standard normal density.
    public static func pdf(_ x: Double) -> Double { exp(-x * x / 2) / (2 * Double.pi).squareRoot() }
}
