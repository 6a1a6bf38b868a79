import ScanBenchmarks

SwitchScanBench.main()
