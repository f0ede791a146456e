/*
 * Pin assignment on the Arduino Mega 2560 (ATmega2560 @ 16 MHz).
 *
 *   mux select S0..S3   PA0..PA3  (digital 22..25), shared by the four CD74HC4067
 *   mux 0..3 common     ADC0..ADC3 (A0..A3); mux enables tied low
 *   WS2812B data        PB4 (digital 10), through a 330 ohm resistor
 *   serial              USART0 (the USB serial of the Mega), 250000 baud with U2X
 */
#ifndef KAESHI_BOARD_H
#define KAESHI_BOARD_H

#include <avr/io.h>

#define MUX_SELECT_PORT PORTA
#define MUX_SELECT_DDR DDRA
#define MUX_SELECT_MASK 0x0F

#define LED_PORT PORTB
#define LED_DDR DDRB
#define LED_BIT PB4

/* stored by the firmware right before it lets the watchdog reset the chip, for
 * bootloaders that clear MCUSR before the application can read it */
#define WATCHDOG_MAGIC 0x5744u

void ws2812_show(const uint8_t *grb, uint16_t count);

#endif
