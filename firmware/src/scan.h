#ifndef KAESHI_SCAN_H
#define KAESHI_SCAN_H

#include <stdint.h>

/* Scanning is split into 16 steps, one per mux channel: convert the four mux outputs of
 * the selected channel, moving the shared S0..S3 lines to the next channel during the last
 * conversion. Short steps keep the main loop answering the host while a 64-sensor scan is
 * under way. scan_init() selects channel 0 and waits for it to settle. */
void scan_init(void);

/* Run one step; returns 1 when it completed a full scan of all 64 sensors. */
uint8_t scan_step(void);

/* Readings of the last completed scan, square order a1..h8 (what RAW frames carry). */
const uint16_t *scan_readings(void);

/* The channel the last step converted, and the newest reading of a square: the four
 * squares of that channel can be classified at once rather than at the end of the scan. */
uint8_t scan_last_channel(void);
uint16_t scan_reading(uint8_t square);

/* Full scans completed since scan_init() (for diagnostics and the timing probe). */
uint32_t scan_count(void);

/* Square sensed by channel `channel` of mux `mux`. */
static inline uint8_t scan_square(uint8_t mux, uint8_t channel)
{
    return (uint8_t)(mux * 16u + channel);
}

#endif
