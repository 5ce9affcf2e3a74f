// SHA-256's block function on the CPU's SHA extensions (SHA-NI), when it has them.
#ifndef TIME_SHA256_HARDWARE_H
#define TIME_SHA256_HARDWARE_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the SHA extensions (and SSE4.1) that time_sha256_blocks needs, else 0.
int time_sha256_hardware_available(void);

/// Runs `blocks` 64-byte blocks of `data` through SHA-256's compression, updating `state`
/// (the eight words H0…H7). Only to be called when time_sha256_hardware_available() is 1.
void time_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
