/*
 * WS2812B driver for a 16 MHz AVR: one bit is 20 cycles = 1.25 us.
 *
 * Cycle budget of one bit (cycle 0 = the `out` that raises the line):
 *
 *   0      out  PORT, hi       line high
 *   1-4    4 x nop
 *   5      sbrs data, 7        1 cycle if the bit is 0, 2 (skipping the out) if it is 1
 *   6      out  PORT, lo       0-bit: high for 6 cycles = 375 ns      (T0H, spec 220-380 ns)
 *   7      lsl  data
 *   8-11   4 x nop
 *   12     out  PORT, lo       1-bit: high for 12 cycles = 750 ns     (T1H, spec 580-1000 ns)
 *   13-16  4 x nop
 *   17     dec  bits
 *   18-19  brne next bit       taken: the next bit rises at cycle 20  (period 1.25 us)
 *
 * After the 8th bit brne falls through (1 cycle) and the next byte is loaded: ld (2),
 * ldi (1), dec (1), brne (2), so the first bit of the next byte rises at cycle 25: a
 * byte's last low phase is 5 cycles (312 ns) longer, well inside what the LEDs accept
 * (they only time the high pulse; a low longer than ~50 us would latch).
 *
 * Interrupts are off while one LED's 24 bits go out (30 us) and on between LEDs, so the
 * serial receive interrupt is never held off long enough to lose a byte (the USART holds
 * three bytes, 120 us at 250000 baud). Between LEDs the line is low for the length of any
 * interrupt that runs (a few us), far below the latch time.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/delay.h>

#include "board.h"

static void send_bytes(const uint8_t *p, uint8_t n, uint8_t hi, uint8_t lo)
{
    uint8_t data, bits;
    __asm__ volatile(
        "ld   %[data], %a[ptr]+  \n\t"
        "ldi  %[bits], 8         \n\t"
        "1:                      \n\t"
        "out  %[port], %[hi]     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "sbrs %[data], 7         \n\t"
        "out  %[port], %[lo]     \n\t"
        "lsl  %[data]            \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "out  %[port], %[lo]     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "nop                     \n\t"
        "dec  %[bits]            \n\t"
        "brne 1b                 \n\t"
        "ld   %[data], %a[ptr]+  \n\t"
        "ldi  %[bits], 8         \n\t"
        "dec  %[n]               \n\t"
        "brne 1b                 \n\t"
        : [data] "=&r"(data), [bits] "=&d"(bits), [ptr] "+e"(p), [n] "+r"(n)
        : [port] "I"(_SFR_IO_ADDR(LED_PORT)), [hi] "r"(hi), [lo] "r"(lo));
}

void ws2812_show(const uint8_t *grb, uint16_t count)
{
    for (uint16_t i = 0; i < count; i++) {
        uint8_t sreg = SREG;
        cli();
        uint8_t lo = (uint8_t)(LED_PORT & ~_BV(LED_BIT));
        send_bytes(grb + 3 * i, 3, (uint8_t)(lo | _BV(LED_BIT)), lo);
        SREG = sreg;
    }
    _delay_us(300); /* latch: newer WS2812B parts need more than 280 us of low */
}
