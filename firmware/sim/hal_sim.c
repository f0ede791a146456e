/*
 * HAL of the host simulator: real monotonic time since boot, the sensor model behind the
 * mux/ADC calls, ring buffers between the firmware and the pseudo-terminal, an EEPROM that
 * takes 3.3 ms per byte like the ATmega2560's (optionally backed by a file so calibration
 * survives a restart), and a record of what the LED strip shows.
 */
#define _POSIX_C_SOURCE 200809L
#include "hal_sim.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/config.h"
#include "../src/hal.h"
#include "sensor_model.h"

static uint64_t epoch_us;
static uint8_t selected_channel;
static uint16_t sampled;
static uint8_t boot_watchdog;
static uint8_t reset_requested;

static uint8_t rx_ring[UART_RX_BUF];
static size_t rx_head, rx_count;
static uint8_t tx_ring[UART_TX_BUF];
static size_t tx_head, tx_count;

static uint8_t eeprom[EE_SIZE];
static uint8_t eeprom_loaded;
static int eeprom_fd = -1;
static uint32_t eeprom_write_us = 3300;
static uint64_t eeprom_busy_until;
static uint8_t eeprom_failing;

static uint8_t leds[LED_COUNT * 3];
static uint32_t led_shows;

uint64_t sim_monotonic_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

void hal_init(void)
{
    epoch_us = sim_monotonic_us();
    selected_channel = 0;
    reset_requested = 0;
    rx_head = rx_count = 0;
    tx_head = tx_count = 0;
    eeprom_busy_until = 0;
    if (!eeprom_loaded) {
        memset(eeprom, 0xFF, sizeof eeprom);
        eeprom_loaded = 1;
    }
}

uint32_t hal_micros(void) { return (uint32_t)(sim_monotonic_us() - epoch_us); }
uint32_t hal_millis(void) { return (uint32_t)((sim_monotonic_us() - epoch_us) / 1000ULL); }
void hal_delay_us(uint16_t us) { (void)us; /* the main loop paces the scan steps */ }

void hal_mux_select(uint8_t channel) { selected_channel = (uint8_t)(channel & 15); }
/* the reading is taken when the conversion starts, as the ADC samples its input then */
void hal_adc_start(uint8_t mux) { sampled = model_read(mux * 16 + selected_channel); }
uint16_t hal_adc_finish(void) { return sampled; }

int16_t hal_uart_read(void)
{
    if (!rx_count)
        return -1;
    uint8_t b = rx_ring[rx_head];
    rx_head = (rx_head + 1) % UART_RX_BUF;
    rx_count--;
    return b;
}

uint16_t hal_uart_tx_free(void) { return (uint16_t)(UART_TX_BUF - tx_count); }

void hal_uart_write(const uint8_t *data, uint16_t len)
{
    for (uint16_t i = 0; i < len && tx_count < UART_TX_BUF; i++) {
        tx_ring[(tx_head + tx_count) % UART_TX_BUF] = data[i];
        tx_count++;
    }
}

uint8_t hal_uart_tx_idle(void) { return tx_count == 0; }

uint8_t hal_eeprom_read(uint16_t addr) { return addr < EE_SIZE ? eeprom[addr] : 0xFF; }
uint8_t hal_eeprom_ready(void) { return sim_monotonic_us() >= eeprom_busy_until; }

void hal_eeprom_write(uint16_t addr, uint8_t value)
{
    eeprom_busy_until = sim_monotonic_us() + eeprom_write_us;
    if (addr >= EE_SIZE || eeprom_failing)
        return; /* a worn cell keeps its old value */
    sim_hal_eeprom_poke(addr, value);
}

void hal_leds_show(const uint8_t *grb, uint16_t count)
{
    memcpy(leds, grb, (size_t)count * 3 < sizeof leds ? (size_t)count * 3 : sizeof leds);
    led_shows++;
}

void hal_watchdog_kick(void) {}
uint8_t hal_reset_was_watchdog(void) { return boot_watchdog; }
void hal_watchdog_reset(void) { reset_requested = 1; }

/* ---------------------------------------------------------------- side doors */

void sim_hal_set_boot_reason(uint8_t watchdog) { boot_watchdog = watchdog; }
uint8_t sim_hal_reset_requested(void) { return reset_requested; }

size_t sim_hal_rx_push(const uint8_t *data, size_t len)
{
    size_t n = 0;
    while (n < len && rx_count < UART_RX_BUF) {
        rx_ring[(rx_head + rx_count) % UART_RX_BUF] = data[n++];
        rx_count++;
    }
    return n;
}

size_t sim_hal_rx_free(void) { return UART_RX_BUF - rx_count; }

size_t sim_hal_tx_pending(const uint8_t **data)
{
    *data = tx_ring + tx_head;
    size_t run = UART_TX_BUF - tx_head;
    return tx_count < run ? tx_count : run;
}

void sim_hal_tx_consume(size_t len)
{
    tx_head = (tx_head + len) % UART_TX_BUF;
    tx_count -= len;
}

int sim_hal_eeprom_open(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0)
        return -1;
    memset(eeprom, 0xFF, sizeof eeprom);
    ssize_t got = pread(fd, eeprom, sizeof eeprom, 0);
    if (got < 0) {
        close(fd);
        return -1;
    }
    if ((size_t)got < sizeof eeprom) {
        memset(eeprom + got, 0xFF, sizeof eeprom - (size_t)got);
        if (pwrite(fd, eeprom, sizeof eeprom, 0) != (ssize_t)sizeof eeprom) {
            close(fd);
            return -1;
        }
    }
    eeprom_fd = fd;
    eeprom_loaded = 1;
    return 0;
}

void sim_hal_eeprom_set_write_us(uint32_t us) { eeprom_write_us = us; }
void sim_hal_eeprom_fail(uint8_t fail) { eeprom_failing = fail; }

void sim_hal_eeprom_poke(uint16_t addr, uint8_t value)
{
    if (!eeprom_loaded) {
        memset(eeprom, 0xFF, sizeof eeprom);
        eeprom_loaded = 1;
    }
    eeprom[addr] = value;
    if (eeprom_fd >= 0 && pwrite(eeprom_fd, &value, 1, addr) != 1)
        eeprom_fd = -1; /* keep running in memory; the file is best effort */
}

uint8_t sim_hal_eeprom_peek(uint16_t addr) { return eeprom[addr]; }

const uint8_t *sim_hal_leds(void) { return leds; }
uint32_t sim_hal_led_shows(void) { return led_shows; }
