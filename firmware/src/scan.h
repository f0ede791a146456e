#ifndef KAESHI_SCAN_H
#define KAESHI_SCAN_H

#include <stdint.h>

/* Scanning is split into 16 steps, one per mux channel: select the channel on the shared
 * S0..S3 lines, let the muxes settle, convert the four mux outputs. Short steps keep the
 * main loop answering the host while a 64-sensor scan is under way. */
void scan_init(void);

/* Run one step; returns 1 when it completed a full scan of all 64 sensors. */
uint8_t scan_step(void);

/* Readings of the last completed scan, square order a1..h8. */
const uint16_t *scan_readings(void);

/* Square sensed by channel `channel` of mux `mux`. */
static inline uint8_t scan_square(uint8_t mux, uint8_t channel)
{
    return (uint8_t)(mux * 16u + channel);
}

#endif
