#include "leds.h"

#include <string.h>

#include "config.h"
#include "hal.h"
#include "protocol_gen.h"

static uint8_t palette[8][3];       /* r, g, b */
static uint8_t squares[KP_SQUARES]; /* low nibble palette index, high nibble pattern */
static uint32_t phase_origin;
static uint32_t last_refresh;
static uint8_t dirty;
static uint8_t shown[LED_COUNT * 3];
static uint8_t next[LED_COUNT * 3];

void leds_init(uint32_t now_ms)
{
    memset(palette, 0, sizeof palette);
    memset(squares, 0, sizeof squares);
    memset(shown, 0, sizeof shown);
    phase_origin = now_ms;
    last_refresh = now_ms;
    dirty = 1; /* blank the strip once after boot: it keeps its colours through a reset */
}

uint8_t leds_set(const uint8_t *p, uint8_t len, uint32_t now_ms)
{
    if (len != KP_LEN_SET_LEDS)
        return KP_STATUS_BAD_LENGTH;
    const uint8_t *sq = p + KP_SET_LEDS_OFF_SQUARES;
    for (uint8_t i = 0; i < KP_SQUARES; i++)
        if ((sq[i] & 0x0F) > 7 || (sq[i] >> 4) > KP_LED_BREATHE)
            return KP_STATUS_BAD_VALUE;
    memcpy(palette, p + KP_SET_LEDS_OFF_PALETTE, sizeof palette);
    memcpy(squares, sq, sizeof squares);
    phase_origin = now_ms;
    dirty = 1;
    return KP_STATUS_OK;
}

/* Brightness 0..255 of `pattern` at `t` ms after the phase origin. */
static uint8_t level(uint8_t pattern, uint32_t t)
{
    switch (pattern) {
    case KP_LED_SLOW_BLINK:
        return (t % KP_LED_SLOW_BLINK_PERIOD_MS) < KP_LED_SLOW_BLINK_PERIOD_MS / 2 ? 255 : 0;
    case KP_LED_FAST_BLINK:
        return (t % KP_LED_FAST_BLINK_PERIOD_MS) < KP_LED_FAST_BLINK_PERIOD_MS / 2 ? 255 : 0;
    case KP_LED_BREATHE: {
        /* full at the start of a period, dark half-way; squared because the eye is
         * more sensitive to changes at low brightness */
        const uint16_t half = KP_LED_BREATHE_PERIOD_MS / 2;
        uint16_t p = (uint16_t)(t % KP_LED_BREATHE_PERIOD_MS);
        uint16_t d = p < half ? (uint16_t)(half - p) : (uint16_t)(p - half);
        uint16_t tri = (uint16_t)(((uint32_t)d * 255u) / half);
        return (uint8_t)((tri * tri + 254u) / 255u);
    }
    default:
        return 255;
    }
}

/* c * level / 255, exact at both ends, without a division (the AVR has no divider) */
static uint8_t scale(uint8_t c, uint8_t lv) { return (uint8_t)(((uint16_t)c * (uint16_t)(lv + 1u)) >> 8); }

void leds_render(uint32_t now_ms, uint8_t *grb)
{
    uint32_t t = now_ms - phase_origin;
    uint8_t levels[4];
    for (uint8_t p = 0; p < 4; p++)
        levels[p] = level(p, t);
    uint16_t sum = 0;
    for (uint8_t i = 0; i < LED_COUNT; i++) {
        const uint8_t *c = palette[squares[i] & 0x0F];
        uint8_t lv = levels[squares[i] >> 4];
        uint8_t *out = grb + 3 * i;
        out[0] = scale(c[1], lv);
        out[1] = scale(c[0], lv);
        out[2] = scale(c[2], lv);
        sum = (uint16_t)(sum + out[0] + out[1] + out[2]);
    }
    if (sum > LED_MAX_SUM) {
        /* dim every channel by the same factor to stay within the supply */
        uint8_t f = (uint8_t)(((uint32_t)LED_MAX_SUM * 255u) / sum);
        for (uint16_t i = 0; i < LED_COUNT * 3; i++)
            grb[i] = scale(grb[i], f);
    }
}

uint8_t leds_poll(uint32_t now_ms)
{
    if (!dirty && (uint32_t)(now_ms - last_refresh) < LED_FRAME_MS)
        return 0;
    last_refresh = now_ms;
    leds_render(now_ms, next);
    if (!dirty && memcmp(next, shown, sizeof shown) == 0)
        return 0;
    dirty = 0;
    memcpy(shown, next, sizeof shown);
    hal_leds_show(shown, LED_COUNT);
    return 1;
}
