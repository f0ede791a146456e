/*
 * Timing probe for the ATmega2560 build, run under simavr by benchmarks/bench_firmware.py.
 * It times the firmware's own functions with the firmware's own clock (Timer0, 4 us
 * resolution) and prints "name=microseconds" lines on the serial port, then halts.
 */
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <stdio.h>
#include <string.h>

#include "../src/calib.h"
#include "../src/classify.h"
#include "../src/config.h"
#include "../src/crc16.h"
#include "../src/debounce.h"
#include "../src/hal.h"
#include "../src/leds.h"
#include "../src/protocol_gen.h"
#include "../src/scan.h"

static void print(const char *name, uint32_t us)
{
    char line[48];
    int n = snprintf(line, sizeof line, "%s=%lu\n", name, (unsigned long)us);
    while (hal_uart_tx_free() < (uint16_t)n)
        hal_watchdog_kick();
    hal_uart_write((const uint8_t *)line, (uint16_t)n);
}

#define REPEAT 8

int main(void)
{
    hal_init();
    calib_init();
    scan_init();
    debounce_init();
    leds_init(0);

    uint32_t t0 = hal_micros();
    for (uint8_t r = 0; r < REPEAT; r++) {
        hal_watchdog_kick();
        while (!scan_step()) {
        }
    }
    print("scan_us", (hal_micros() - t0) / REPEAT);

    static uint16_t readings[KP_SQUARES];
    static uint8_t cls[KP_SQUARES];
    for (uint8_t i = 0; i < KP_SQUARES; i++) {
        readings[i] = (uint16_t)(212 + (i * 37u) % 600); /* every band */
        cls[i] = KP_STATE_UNKNOWN;
    }
    t0 = hal_micros();
    for (uint8_t r = 0; r < REPEAT; r++)
        for (uint8_t i = 0; i < KP_SQUARES; i++) {
            cls[i] = classify(calib_record(i), readings[i], cls[i]);
            debounce_update(i, cls[i]);
        }
    print("classify_debounce_us", (hal_micros() - t0) / REPEAT);

    static uint8_t raw[KP_LEN_RAW + 4];
    memset(raw, 0x5A, sizeof raw);
    t0 = hal_micros();
    uint16_t crc = 0;
    for (uint8_t r = 0; r < REPEAT; r++)
        crc ^= crc16(raw, KP_LEN_RAW + 3);
    print("crc_raw_frame_us", (hal_micros() - t0) / REPEAT);

    static uint8_t payload[KP_LEN_SET_LEDS];
    memset(payload, 0, sizeof payload);
    payload[3] = 255;
    for (uint8_t i = 0; i < KP_SQUARES; i++)
        payload[KP_SET_LEDS_OFF_SQUARES + i] = (uint8_t)((KP_LED_BREATHE << 4) | 1);
    leds_set(payload, sizeof payload, 0);
    static uint8_t grb[LED_COUNT * 3];
    t0 = hal_micros();
    for (uint8_t r = 0; r < REPEAT; r++)
        leds_render(300u * r, grb);
    print("led_render_us", (hal_micros() - t0) / REPEAT);

    t0 = hal_micros();
    hal_leds_show(grb, LED_COUNT);
    print("led_show_us", hal_micros() - t0);
    print("crc", crc);

    while (!hal_uart_tx_idle())
        hal_watchdog_kick();
    cli();
    sleep_enable();
    sleep_cpu(); /* simavr ends the run here */
    for (;;) {
    }
}
