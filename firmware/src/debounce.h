#ifndef KAESHI_DEBOUNCE_H
#define KAESHI_DEBOUNCE_H

#include <stdint.h>

/* A square's reported state changes only after KP_DEBOUNCE_SCANS consecutive scans agree
 * on the new state; until the first agreement after boot every square reports UNKNOWN. */
void debounce_init(void);

/* Feed one scan's class for `square`; returns 1 if the reported state changed. */
uint8_t debounce_update(uint8_t square, uint8_t cls);

uint8_t debounce_state(uint8_t square);

#endif
