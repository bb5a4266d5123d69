/* libfuzzer.c — the libFuzzer entry point of one fuzz target, chosen at build time with
 * -DFUZZ_TARGET=fuzz_NAME (Makefile.am builds one program per target). */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return FUZZ_TARGET(data, size); }
