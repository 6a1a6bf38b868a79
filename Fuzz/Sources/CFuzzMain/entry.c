#include <stddef.h>
#include <stdint.h>
#include "cfuzzmain.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAIN(name) int name##_main(int argc, char **argv) { return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput); }
FUZZ_MAIN(FuzzLayout)
FUZZ_MAIN(FuzzSettings)
FUZZ_MAIN(FuzzEvents)
FUZZ_MAIN(FuzzEvemu)
FUZZ_MAIN(FuzzProfile)
FUZZ_MAIN(FuzzWords)
FUZZ_MAIN(FuzzTerminalText)
FUZZ_MAIN(FuzzSettingsWriter)
