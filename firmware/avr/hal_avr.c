/*
 * HAL for the ATmega2560 at 16 MHz.
 *
 * Timer0 in CTC mode ticks every 1 ms (prescaler 64, 250 counts of 4 us). USART0 runs at
 * 250000 baud (U2X, UBRR 7, exact), interrupt driven both ways. The watchdog runs at
 * 500 ms and is kicked by every main-loop pass.
 *
 * The ADC uses AVcc as its reference and a 500 kHz clock (prescaler 32): 26 us per
 * conversion instead of 104 us at the 125 kHz the datasheet asks for full 10-bit accuracy.
 * Above 200 kHz the datasheet trades resolution for speed; at 500 kHz the result is good
 * to about 9 bits (an error of a few counts), while a disc moves a reading by hundreds of
 * counts and calibration measures each sensor at this same clock. The inputs are driven
 * by the muxes from low-impedance sensor outputs, well under the 10 kOhm the datasheet
 * names for a negligible sampling time.
 */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/wdt.h>
#include <util/atomic.h>
#include <util/delay.h>

#include "../src/config.h"
#include "../src/hal.h"
#include "../src/protocol_gen.h"
#include "board.h"

#if F_CPU / 32 / 1000 != ADC_CLOCK_KHZ
#error "ADC prescaler 32 at this F_CPU does not give ADC_CLOCK_KHZ"
#endif

#if UART_RX_BUF != 256
#error "the receive ring relies on 8-bit index wrap-around"
#endif

static volatile uint32_t ms_count;

static volatile uint8_t rx_ring[UART_RX_BUF];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t tx_ring[UART_TX_BUF];
static volatile uint16_t tx_head, tx_count;

/* reset cause, captured before main() and before anything clears it */
static uint8_t reset_flags __attribute__((section(".noinit")));
static uint16_t reset_magic __attribute__((section(".noinit")));
static uint8_t by_watchdog;

void early_reset_cause(void) __attribute__((naked, used, section(".init3")));
void early_reset_cause(void)
{
    reset_flags = MCUSR;
    MCUSR = 0;
    wdt_disable(); /* after a watchdog reset the watchdog stays on at 15 ms */
}

void hal_init(void)
{
    by_watchdog = (reset_flags & _BV(WDRF)) || reset_magic == WATCHDOG_MAGIC;
    reset_magic = 0;

    MUX_SELECT_DDR |= MUX_SELECT_MASK;
    MUX_SELECT_PORT &= (uint8_t)~MUX_SELECT_MASK;
    LED_DDR |= _BV(LED_BIT);
    LED_PORT &= (uint8_t)~_BV(LED_BIT);

    TCCR0A = _BV(WGM01);
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);

    DIDR0 = 0x0F;
    ADCSRB = 0; /* MUX5 = 0: inputs ADC0..ADC7 */
    ADMUX = _BV(REFS0);
    ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS0);
    /* the first conversion after enabling takes 25 ADC clocks and samples late: do it now,
     * so every scan conversion takes 13 clocks and samples within ADC_HOLD_US */
    ADCSRA |= _BV(ADSC);
    while (ADCSRA & _BV(ADSC)) {
    }

    UCSR0A = _BV(U2X0);
    UBRR0 = (uint16_t)(F_CPU / (8UL * KP_BAUD) - 1);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);

    wdt_enable(WDTO_500MS);
    sei();
}

ISR(TIMER0_COMPA_vect) { ms_count++; }

uint32_t hal_millis(void)
{
    uint32_t m;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { m = ms_count; }
    return m;
}

uint32_t hal_micros(void)
{
    uint32_t m;
    uint8_t t;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        m = ms_count;
        t = TCNT0;
        if ((TIFR0 & _BV(OCF0A)) && t < 249)
            m++; /* the counter wrapped but its interrupt has not run yet */
    }
    return m * 1000UL + (uint32_t)t * 4UL;
}

void hal_delay_us(uint16_t us)
{
    while (us--)
        _delay_us(1);
}

void hal_mux_select(uint8_t channel)
{
    MUX_SELECT_PORT = (uint8_t)((MUX_SELECT_PORT & ~MUX_SELECT_MASK) | (channel & MUX_SELECT_MASK));
}

void hal_adc_start(uint8_t mux)
{
    ADMUX = (uint8_t)(_BV(REFS0) | (mux & 0x07));
    ADCSRA |= _BV(ADSC);
}

uint16_t hal_adc_finish(void)
{
    while (ADCSRA & _BV(ADSC)) {
    }
    return ADC;
}

ISR(USART0_RX_vect)
{
    uint8_t status = UCSR0A;
    uint8_t b = UDR0;
    if (status & (_BV(FE0) | _BV(DOR0)))
        return; /* a damaged byte; the frame's CRC will fail and the parser resyncs */
    uint8_t next = (uint8_t)(rx_head + 1);
    if (next != rx_tail) {
        rx_ring[rx_head] = b;
        rx_head = next;
    }
}

ISR(USART0_UDRE_vect)
{
    if (tx_count == 0) {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_ring[tx_head];
    UCSR0A = (uint8_t)((UCSR0A & _BV(U2X0)) | _BV(TXC0)); /* clear "transmit complete" */
    tx_head = (uint16_t)((tx_head + 1) % UART_TX_BUF);
    tx_count--;
}

int16_t hal_uart_read(void)
{
    int16_t b = -1;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (rx_tail != rx_head) {
            b = rx_ring[rx_tail];
            rx_tail = (uint8_t)(rx_tail + 1);
        }
    }
    return b;
}

uint16_t hal_uart_tx_free(void)
{
    uint16_t n;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { n = tx_count; }
    return (uint16_t)(UART_TX_BUF - n);
}

void hal_uart_write(const uint8_t *data, uint16_t len)
{
    while (len--) {
        ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
        {
            if (tx_count < UART_TX_BUF) {
                tx_ring[(tx_head + tx_count) % UART_TX_BUF] = *data;
                tx_count++;
            }
        }
        data++;
    }
    UCSR0B |= _BV(UDRIE0);
}

uint8_t hal_uart_tx_idle(void)
{
    uint16_t n;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { n = tx_count; }
    return n == 0 && (UCSR0A & _BV(TXC0));
}

uint8_t hal_eeprom_read(uint16_t addr) { return eeprom_read_byte((const uint8_t *)addr); }
uint8_t hal_eeprom_ready(void) { return eeprom_is_ready(); }

void hal_eeprom_write(uint16_t addr, uint8_t value)
{
    /* returns as soon as the write has started (the caller checked it is ready) */
    eeprom_write_byte((uint8_t *)addr, value);
}

void hal_leds_show(const uint8_t *grb, uint16_t count) { ws2812_show(grb, count); }

void hal_watchdog_kick(void) { wdt_reset(); }
uint8_t hal_reset_was_watchdog(void) { return by_watchdog; }

void hal_watchdog_reset(void)
{
    reset_magic = WATCHDOG_MAGIC;
    wdt_enable(WDTO_15MS);
    for (;;) {
    }
}
