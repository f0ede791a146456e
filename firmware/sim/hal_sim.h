/* The simulator's side doors into its HAL: what the control channel and main loop use. */
#ifndef KAESHI_HAL_SIM_H
#define KAESHI_HAL_SIM_H

#include <stddef.h>
#include <stdint.h>

uint64_t sim_monotonic_us(void);

/* Set before app_init(): whether this boot is a watchdog reset. */
void sim_hal_set_boot_reason(uint8_t watchdog);
uint8_t sim_hal_reset_requested(void);

/* UART: bytes from the pty go in, bytes queued by the firmware come out. */
size_t sim_hal_rx_push(const uint8_t *data, size_t len); /* returns bytes taken */
size_t sim_hal_rx_free(void);
size_t sim_hal_tx_pending(const uint8_t **data);          /* contiguous run waiting */
void sim_hal_tx_consume(size_t len);

/* EEPROM: optional backing file, write time, failure injection. */
int sim_hal_eeprom_open(const char *path); /* 0 ok, -1 error (errno set) */
void sim_hal_eeprom_set_write_us(uint32_t us);
void sim_hal_eeprom_fail(uint8_t fail);
void sim_hal_eeprom_poke(uint16_t addr, uint8_t value); /* instant, e.g. the board id */
uint8_t sim_hal_eeprom_peek(uint16_t addr);

/* LEDs as last shown, G, R, B per LED; and how many times the strip was written. */
const uint8_t *sim_hal_leds(void);
uint32_t sim_hal_led_shows(void);

#endif
