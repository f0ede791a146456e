#ifndef KAESHI_APP_H
#define KAESHI_APP_H

#include <stdint.h>

/* The firmware's main loop, the same on the AVR, the simulator and the unit tests. */
void app_init(void);
void app_poll(void);

/* Used by the command handlers. */
uint8_t app_flags(void);
uint8_t app_set_mode(uint8_t mode, uint8_t rate_hz); /* -> KP_STATUS_* */
void app_request_reset(void);                        /* after the queued bytes have left */
uint8_t app_board_state(uint8_t square);             /* debounced state */

#endif
