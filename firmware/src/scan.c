#include "scan.h"

#include "config.h"
#include "hal.h"
#include "protocol_gen.h"

static uint8_t channel;
static uint16_t partial[KP_SQUARES];
static uint16_t complete[KP_SQUARES];

void scan_init(void)
{
    channel = 0;
    for (uint8_t i = 0; i < KP_SQUARES; i++) {
        partial[i] = 0;
        complete[i] = 0;
    }
}

uint8_t scan_step(void)
{
    hal_mux_select(channel);
    hal_delay_us(MUX_SETTLE_US);
    for (uint8_t mux = 0; mux < MUX_COUNT; mux++)
        partial[scan_square(mux, channel)] = hal_adc_read(mux);
    if (++channel < MUX_CHANNELS)
        return 0;
    channel = 0;
    for (uint8_t i = 0; i < KP_SQUARES; i++)
        complete[i] = partial[i];
    return 1;
}

const uint16_t *scan_readings(void) { return complete; }
