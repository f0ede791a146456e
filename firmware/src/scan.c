/*
 * One step converts the four mux outputs of one channel back to back. The select lines
 * move to the next channel as soon as the last of the four is sampled, so the next
 * channel's settle time runs during that conversion instead of after it: at
 * ADC_CONVERSION_US - ADC_HOLD_US (22 us) it is more than the MUX_SETTLE_US the muxes
 * need, and the next step starts converting without waiting.
 */
#include "scan.h"

#include "config.h"
#include "hal.h"
#include "protocol_gen.h"

static uint8_t channel;
static uint8_t last_channel;
static uint32_t completed;
static uint16_t partial[KP_SQUARES];
static uint16_t complete[KP_SQUARES];

void scan_init(void)
{
    channel = 0;
    last_channel = 0;
    completed = 0;
    for (uint8_t i = 0; i < KP_SQUARES; i++) {
        partial[i] = 0;
        complete[i] = 0;
    }
    hal_mux_select(0);
    hal_delay_us(MUX_SETTLE_US);
}

uint8_t scan_step(void)
{
    uint8_t next = (uint8_t)((channel + 1u) % MUX_CHANNELS);
    for (uint8_t mux = 0; mux < MUX_COUNT; mux++) {
        hal_adc_start(mux);
        if (mux == MUX_COUNT - 1) {
            hal_delay_us(ADC_HOLD_US); /* this channel's last input is held now */
            hal_mux_select(next);
        }
        partial[scan_square(mux, channel)] = hal_adc_finish();
    }
    last_channel = channel;
    channel = next;
    if (channel != 0)
        return 0;
    for (uint8_t i = 0; i < KP_SQUARES; i++)
        complete[i] = partial[i];
    completed++;
    return 1;
}

const uint16_t *scan_readings(void) { return complete; }

uint8_t scan_last_channel(void) { return last_channel; }

uint16_t scan_reading(uint8_t square) { return partial[square]; }

uint32_t scan_count(void) { return completed; }
