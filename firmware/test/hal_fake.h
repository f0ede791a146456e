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
