#ifndef KAESHI_LEDS_H
#define KAESHI_LEDS_H

#include <stdint.h>

/* The LED overlay: a palette of 8 colours and, per square, a palette index and a pattern
 * (steady, slow blink, fast blink, breathe) that the firmware animates by itself, so the
 * host sends one SET_LEDS per change rather than a stream. */
void leds_init(uint32_t now_ms);

/* SET_LEDS payload (88 bytes) -> KP_STATUS_*; nothing changes unless all of it is good.
 * Pattern phases restart at now_ms, so a blinking square starts lit. */
uint8_t leds_set(const uint8_t *payload, uint8_t len, uint32_t now_ms);

/* Colour of every LED at now_ms, 3 bytes per LED in wire order G, R, B, after the power
 * limit. */
void leds_render(uint32_t now_ms, uint8_t *grb);

/* Refresh the strip when due and changed; returns 1 if it wrote the strip. */
uint8_t leds_poll(uint32_t now_ms);

#endif
