#include "hal_fake.h"

#include <string.h>

#include "../src/hal.h"

uint32_t fake_us;
uint16_t fake_adc[64];
uint8_t fake_selected;
uint32_t fake_selects;
uint32_t fake_delay_total_us;
uint32_t fake_conversions;
uint32_t fake_sample_violations;
uint32_t fake_overlapping_starts;
uint32_t fake_min_settle_us;
uint8_t fake_converted[64];
uint8_t fake_tx[65536];
uint32_t fake_tx_len;
uint16_t fake_tx_room;
uint8_t fake_eeprom[EE_SIZE];
uint32_t fake_eeprom_write_us;
uint32_t fake_eeprom_writes;
uint8_t fake_eeprom_fail;
uint8_t fake_leds[LED_COUNT * 3];
uint32_t fake_led_shows;
uint8_t fake_boot_watchdog;
uint8_t fake_reset_requested;

static uint8_t rx_buf[8192];
static uint32_t rx_head, rx_tail;
static uint32_t eeprom_busy_until;
static uint32_t select_at, adc_start_at;
static uint8_t adc_busy;
static uint16_t adc_sampled;

void fake_reset_all(void)
{
    fake_us = 0;
    for (int i = 0; i < 64; i++)
        fake_adc[i] = 512;
    fake_selected = 0;
    fake_selects = 0;
    fake_delay_total_us = 0;
    fake_conversions = 0;
    fake_sample_violations = 0;
    fake_overlapping_starts = 0;
    fake_min_settle_us = UINT32_MAX;
    memset(fake_converted, 0, sizeof fake_converted);
    select_at = 0;
    adc_start_at = 0;
    adc_busy = 0;
    adc_sampled = 0;
    fake_tx_len = 0;
    fake_tx_room = UART_TX_BUF;
    memset(fake_eeprom, 0xFF, sizeof fake_eeprom);
    fake_eeprom_write_us = 3300;
    fake_eeprom_writes = 0;
    fake_eeprom_fail = 0;
    memset(fake_leds, 0, sizeof fake_leds);
    fake_led_shows = 0;
    fake_boot_watchdog = 0;
    fake_reset_requested = 0;
    rx_head = rx_tail = 0;
    eeprom_busy_until = 0;
}

void fake_rx(const uint8_t *data, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        rx_buf[rx_tail++ % sizeof rx_buf] = data[i];
}

uint32_t fake_rx_pending(void) { return rx_tail - rx_head; }

void hal_init(void) { fake_reset_requested = 0; }
uint32_t hal_millis(void) { return fake_us / 1000u; }
uint32_t hal_micros(void) { return fake_us; }

void hal_delay_us(uint16_t us)
{
    fake_us += us;
    fake_delay_total_us += us;
}

void hal_mux_select(uint8_t channel)
{
    if (adc_busy && fake_us - adc_start_at < FAKE_ADC_SAMPLE_US && channel != fake_selected)
        fake_sample_violations++;
    fake_selected = channel;
    fake_selects++;
    select_at = fake_us;
}

void hal_adc_start(uint8_t mux)
{
    if (adc_busy && fake_us - adc_start_at < FAKE_ADC_CONVERSION_US)
        fake_overlapping_starts++;
    if (fake_us - select_at < fake_min_settle_us)
        fake_min_settle_us = fake_us - select_at;
    adc_busy = 1;
    adc_start_at = fake_us;
    uint8_t sq = (uint8_t)(mux * 16 + fake_selected);
    adc_sampled = fake_adc[sq];
    if (fake_converted[sq] < 255)
        fake_converted[sq]++;
    fake_conversions++;
}

uint16_t hal_adc_finish(void)
{
    uint32_t end = adc_start_at + FAKE_ADC_CONVERSION_US;
    if (adc_busy && (int32_t)(end - fake_us) > 0)
        fake_us = end;
    adc_busy = 0;
    return adc_sampled;
}

int16_t hal_uart_read(void)
{
    if (rx_head == rx_tail)
        return -1;
    return rx_buf[rx_head++ % sizeof rx_buf];
}

uint16_t hal_uart_tx_free(void) { return fake_tx_room; }

void hal_uart_write(const uint8_t *data, uint16_t len)
{
    memcpy(fake_tx + fake_tx_len, data, len);
    fake_tx_len += len;
}

uint8_t hal_uart_tx_idle(void) { return 1; }

uint8_t hal_eeprom_read(uint16_t addr) { return fake_eeprom[addr]; }
uint8_t hal_eeprom_ready(void) { return (int32_t)(fake_us - eeprom_busy_until) >= 0; }

void hal_eeprom_write(uint16_t addr, uint8_t value)
{
    eeprom_busy_until = fake_us + fake_eeprom_write_us;
    fake_eeprom_writes++;
    if (!fake_eeprom_fail)
        fake_eeprom[addr] = value;
}

void hal_leds_show(const uint8_t *grb, uint16_t count)
{
    memcpy(fake_leds, grb, (size_t)count * 3);
    fake_led_shows++;
}

void hal_watchdog_kick(void) {}
uint8_t hal_reset_was_watchdog(void) { return fake_boot_watchdog; }
void hal_watchdog_reset(void) { fake_reset_requested = 1; }
