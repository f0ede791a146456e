/* Fake HAL for the unit tests: time moves only when a test says so, the ADC returns what
 * the test put in fake_adc, and every byte sent, EEPROM write and LED show is recorded. */
#ifndef KAESHI_HAL_FAKE_H
#define KAESHI_HAL_FAKE_H

#include <stdint.h>

#include "../src/config.h"

extern uint32_t fake_us;
extern uint16_t fake_adc[64];
extern uint8_t fake_selected;
extern uint32_t fake_selects;
extern uint32_t fake_delay_total_us;

/* ADC model: a conversion samples its input during its first FAKE_ADC_SAMPLE_US (1.5 ADC
 * clocks at 500 kHz) and ends FAKE_ADC_CONVERSION_US (13 clocks) after its start;
 * hal_adc_finish() moves the clock to that end. The fake records what a real front end
 * would not tolerate: the select lines moving while an input is being sampled, a
 * conversion started before the previous one ended, and the shortest time from a select
 * to the next conversion start (the mux settle time actually given). */
#define FAKE_ADC_SAMPLE_US 3
#define FAKE_ADC_CONVERSION_US 26
extern uint32_t fake_conversions;
extern uint32_t fake_sample_violations;
extern uint32_t fake_overlapping_starts;
extern uint32_t fake_min_settle_us;
extern uint8_t fake_converted[64]; /* per square, conversions of it since the reset */

extern uint8_t fake_tx[65536];
extern uint32_t fake_tx_len;
extern uint16_t fake_tx_room; /* what hal_uart_tx_free reports */

extern uint8_t fake_eeprom[EE_SIZE];
extern uint32_t fake_eeprom_write_us;
extern uint32_t fake_eeprom_writes;
extern uint8_t fake_eeprom_fail;

extern uint8_t fake_leds[LED_COUNT * 3];
extern uint32_t fake_led_shows;

extern uint8_t fake_boot_watchdog;
extern uint8_t fake_reset_requested;

void fake_reset_all(void);          /* fresh fake hardware, blank EEPROM */
void fake_rx(const uint8_t *data, uint32_t len);
uint32_t fake_rx_pending(void);

#endif
