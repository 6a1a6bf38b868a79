import WordPrediction

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWords(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The user's own file is read around its bad lines: what is read writes and reads back
    // strictly, and a list without bad lines reads the same both ways.
    let (lenient, problems) = WordList.parsingSkippingBadLines(bytes, file: "fuzz.words")
    guard let strict = try? WordList(parsing: lenient.serialized(), file: "lenient.words"), strict == lenient else {
        fatalError("what was read around the bad lines does not load back the same")
    }
    guard let list = try? WordList(parsing: bytes, file: "fuzz.words") else { return 0 }
    if problems != nil || list != lenient { fatalError("a list without bad lines read differently when skipping them") }
    // A list that loads is written in a form that loads back the same.
    guard let again = try? WordList(parsing: list.serialized(), file: "again.words"), again == list else {
        fatalError("the serialized list does not load back the same")
    }
    // And predicts and learns from any text.
    var predictor = WordPredictor(system: list, user: list)
    let text = String(decoding: bytes.prefix(80), as: UTF8.self)
    _ = predictor.predictions(after: text, count: 5)
    let context = WordContext(textBefore: text)
    predictor.learn(context.partial, after: context.previous)
    _ = predictor.forget(context.partial)
    return 0
}
