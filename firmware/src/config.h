/* Build-time settings of the sensor-board firmware. */
#ifndef KAESHI_CONFIG_H
#define KAESHI_CONFIG_H

#define FW_MAJOR 1
#define FW_MINOR 0
#define FW_PATCH 0

/* Analog front end: 4 muxes x 16 channels; mux m, channel c senses square m * 16 + c
 * (mux 0 covers rows 1-2, mux 1 rows 3-4, ...). */
#define MUX_COUNT 4
#define MUX_CHANNELS 16
#define MUX_SETTLE_US 10        /* after changing S0..S3, before the first conversion */

/* ADC timing (ATmega2560 at 16 MHz, prescaler 32: a 500 kHz ADC clock). A conversion takes
 * 13 ADC clocks; the sample-and-hold closes 1.5 ADC clocks after the start, after which
 * the input may change without affecting the result. The scan uses that: once the last
 * mux of a channel is sampled it moves S0..S3 to the next channel, which then settles
 * while that conversion finishes (see scan.c). */
#define ADC_CLOCK_KHZ 500
#define ADC_CONVERSION_US 26    /* 13 ADC clocks */
#define ADC_HOLD_US 4           /* 1.5 ADC clocks (3 us), rounded up with margin */
#if ADC_CONVERSION_US - ADC_HOLD_US < MUX_SETTLE_US
#error "the rest of a conversion after its sample must cover the mux settle time"
#endif

/* Readings at the rails mean an open or shorted sensor, never a magnet. */
#define ADC_FAULT_LOW 4
#define ADC_FAULT_HIGH 1019

/* Calibration used when EEPROM holds none (nominal sensor at mid-scale, ~300 counts swing). */
#define CAL_DEFAULT_EMPTY_LO 452
#define CAL_DEFAULT_EMPTY_HI 572
#define CAL_DEFAULT_BLACK_TH 300
#define CAL_DEFAULT_WHITE_TH 724
#define CAL_DEFAULT_HYSTERESIS 8

/* EEPROM layout (ATmega2560: 4 KiB). */
#define EE_BOARD_ID 0x000       /* u32, written when the board is made; 0xFFFFFFFF = unset */
#define EE_CAL_RECORDS 0x020    /* 64 x 9-byte records, protocol layout */
#define EE_CAL_CRC (EE_CAL_RECORDS + 64 * 9) /* u16 CRC-16/CCITT-FALSE of the records */
#define EE_CAL_IMAGE_LEN (64 * 9 + 2)
#define EE_SIZE 4096

/* Serial buffers (bytes). TX must hold a RAW frame plus an ACK and an IDENTITY. */
#define UART_RX_BUF 256
#define UART_TX_BUF 512
#define TX_RESERVE 32           /* kept free by periodic frames for command answers */
#define RX_STALL_MS 50          /* a frame that stops arriving mid-way is abandoned */
#define RESET_DRAIN_MS 50       /* longest wait for the RESET ACK to leave before resetting */

/* LEDs: one WS2812B per square, LED i = square i (a1, b1, ... h8), not serpentine. */
#define LED_COUNT 64
#define LED_FRAME_MS 20         /* pattern refresh; the strip is rewritten only on change */
#define LED_MAX_SUM 12240       /* sum of all channel values (~1 A at 20 mA per full channel) */

#endif
