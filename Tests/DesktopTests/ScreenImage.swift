import Foundation

/// An 8-bit RGB colour.
struct RGB: Equatable, Hashable, Sendable, CustomStringConvertible {
    var r: UInt8
    var g: UInt8
    var b: UInt8

    /// The largest difference of one channel (0 = the same colour).
    func distance(to other: RGB) -> Int {
        max(abs(Int(r) - Int(other.r)), abs(Int(g) - Int(other.g)), abs(Int(b) - Int(other.b)))
    }

    var description: String { "rgb(\(r),\(g),\(b))" }
}

/// A screen capture as RGB pixels, read from a binary PPM (P6), the format
/// `import -window root ppm:-` writes. 16-bit samples (maxval > 255) are scaled to 8 bits.
struct ScreenImage: Sendable {
    let width: Int
    let height: Int
    /// Row-major RGB triples.
    let pixels: [UInt8]

    init(ppm data: Data) throws {
        let bytes = [UInt8](data)
        var i = 0
        // The header: "P6", width, height, maxval, separated by whitespace, with # comments;
        // exactly one whitespace byte follows maxval.
        func token() throws -> String {
            while i < bytes.count {
                if bytes[i] == UInt8(ascii: "#") {
                    while i < bytes.count && bytes[i] != UInt8(ascii: "\n") { i += 1 }
                } else if [9, 10, 13, 32].contains(bytes[i]) {
                    i += 1
                } else { break }
            }
            let start = i
            while i < bytes.count && ![9, 10, 13, 32].contains(bytes[i]) { i += 1 }
            guard i > start else { throw DesktopError("PPM: the header ends early") }
            return String(decoding: bytes[start..<i], as: UTF8.self)
        }
        let magic = try token()
        guard magic == "P6" else { throw DesktopError("PPM: expected P6, got \(magic.prefix(8))") }
        guard let w = Int(try token()), let h = Int(try token()), let maxval = Int(try token()),
              w > 0, h > 0, maxval > 0, maxval < 65536
        else { throw DesktopError("PPM: bad width, height or maxval") }
        i += 1
        let sampleBytes = maxval > 255 ? 2 : 1
        let needed = w * h * 3 * sampleBytes
        guard bytes.count - i >= needed else { throw DesktopError("PPM: \(bytes.count - i) bytes of pixels, \(needed) needed for \(w)x\(h)") }
        var rgb = [UInt8](repeating: 0, count: w * h * 3)
        if sampleBytes == 1 && maxval == 255 {
            rgb.replaceSubrange(0..<rgb.count, with: bytes[i..<(i + needed)])
        } else {
            for k in 0..<(w * h * 3) {
                let v = sampleBytes == 2 ? Int(bytes[i + 2 * k]) << 8 | Int(bytes[i + 2 * k + 1]) : Int(bytes[i + k])
                rgb[k] = UInt8((v * 255 + maxval / 2) / maxval)
            }
        }
        width = w
        height = h
        pixels = rgb
    }

    /// The colour at screen point (x, y).
    func pixel(x: Int, y: Int) -> RGB {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x),\(y)) is outside the \(width)x\(height) image")
        let k = (y * width + x) * 3
        return RGB(r: pixels[k], g: pixels[k + 1], b: pixels[k + 2])
    }

    /// How many pixels in `rect` are within `tolerance` of `color`.
    func count(of color: RGB, in rect: ScreenRect, tolerance: Int = 0) -> Int {
        var n = 0
        for y in max(0, rect.y)..<min(height, rect.y + rect.height) {
            for x in max(0, rect.x)..<min(width, rect.x + rect.width) where pixel(x: x, y: y).distance(to: color) <= tolerance { n += 1 }
        }
        return n
    }
}
