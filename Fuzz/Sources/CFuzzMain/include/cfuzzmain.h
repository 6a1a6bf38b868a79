// SwiftPM names an executable's entry point <Module>_main; libFuzzer's driver is started
// from there, with the target's LLVMFuzzerTestOneInput.
