/*
 * Hardware abstraction: the only functions the firmware logic calls to touch the board.
 *
 * Three implementations exist: hal_avr.c (ATmega2560), sim/hal_sim.c (the host simulator,
 * real time, a pseudo-terminal and a sensor model) and test/hal_fake.c (unit tests, a fake
 * clock the test advances by hand). Keeping this surface small is what lets the same
 * scan/classify/protocol code run unchanged on all three.
 */
#ifndef KAESHI_HAL_H
#define KAESHI_HAL_H

#include <stdint.h>

void hal_init(void);

/* Time since boot; both wrap (micros after ~71 minutes), callers subtract unsigned. */
uint32_t hal_millis(void);
uint32_t hal_micros(void);
void hal_delay_us(uint16_t us);

/* Analog front end: four CD74HC4067 muxes share the select lines S0..S3; mux m's common
 * pin goes to analog input m. A conversion is started and finished separately so the
 * caller can move the select lines once the input is sampled (ADC_HOLD_US after the
 * start) and let the next channel settle while the conversion runs on. */
void hal_mux_select(uint8_t channel);  /* 0..15 */
void hal_adc_start(uint8_t mux);       /* 0..3; one conversion at a time */
uint16_t hal_adc_finish(void);         /* waits for the conversion; returns 0..1023 */

/* Serial link. Reception is buffered by the HAL (interrupt-driven on the AVR). */
int16_t hal_uart_read(void);           /* next received byte, or -1 */
uint16_t hal_uart_tx_free(void);       /* bytes that hal_uart_write can take now */
void hal_uart_write(const uint8_t *data, uint16_t len); /* len <= hal_uart_tx_free() */
uint8_t hal_uart_tx_idle(void);        /* every queued byte has left */

/* EEPROM: byte reads are immediate; a write takes milliseconds on the AVR, so writes are
 * started one byte at a time and hal_eeprom_ready() says when the next may start. */
uint8_t hal_eeprom_read(uint16_t addr);
uint8_t hal_eeprom_ready(void);
void hal_eeprom_write(uint16_t addr, uint8_t value);

/* WS2812B strip: `count` LEDs, three bytes each in wire order G, R, B. */
void hal_leds_show(const uint8_t *grb, uint16_t count);

/* Watchdog. hal_watchdog_reset() asks for a watchdog reset: on the AVR it never returns;
 * on the host builds it records the request and returns, and the caller must return too. */
void hal_watchdog_kick(void);
uint8_t hal_reset_was_watchdog(void);
void hal_watchdog_reset(void);

#endif
