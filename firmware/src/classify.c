#include "classify.h"

#include "config.h"
#include "protocol_gen.h"

uint8_t cal_record_valid(const cal_record_t *cal)
{
    return cal->black_th < cal->empty_lo && cal->empty_lo <= cal->empty_hi &&
           cal->empty_hi < cal->white_th && cal->white_th <= KP_ADC_MAX;
}

uint8_t classify_raw(const cal_record_t *cal, uint16_t v)
{
    if (v < ADC_FAULT_LOW || v > ADC_FAULT_HIGH)
        return KP_STATE_UNKNOWN;
    if (v <= cal->black_th)
        return KP_STATE_BLACK;
    if (v >= cal->white_th)
        return KP_STATE_WHITE;
    if (v < cal->empty_lo)
        return KP_STATE_BLACK_SHIFTED;
    if (v > cal->empty_hi)
        return KP_STATE_WHITE_SHIFTED;
    return KP_STATE_EMPTY;
}

/* Whether v still lies within class `c` widened by h counts on each side. */
static uint8_t within(const cal_record_t *cal, int32_t v, uint8_t c, int32_t h)
{
    switch (c) {
    case KP_STATE_BLACK:
        return v <= (int32_t)cal->black_th + h;
    case KP_STATE_BLACK_SHIFTED:
        return v > (int32_t)cal->black_th - h && v < (int32_t)cal->empty_lo + h;
    case KP_STATE_EMPTY:
        return v >= (int32_t)cal->empty_lo - h && v <= (int32_t)cal->empty_hi + h;
    case KP_STATE_WHITE_SHIFTED:
        return v > (int32_t)cal->empty_hi - h && v < (int32_t)cal->white_th + h;
    case KP_STATE_WHITE:
        return v >= (int32_t)cal->white_th - h;
    default:
        return 0;
    }
}

uint8_t classify(const cal_record_t *cal, uint16_t v, uint8_t previous)
{
    uint8_t now = classify_raw(cal, v);
    if (now == previous || now == KP_STATE_UNKNOWN)
        return now;
    if (within(cal, v, previous, cal->hysteresis))
        return previous;
    return now;
}

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void cal_record_decode(cal_record_t *cal, const uint8_t *b)
{
    cal->empty_lo = get16(b + KP_CAL_OFF_EMPTY_LO);
    cal->empty_hi = get16(b + KP_CAL_OFF_EMPTY_HI);
    cal->black_th = get16(b + KP_CAL_OFF_BLACK_TH);
    cal->white_th = get16(b + KP_CAL_OFF_WHITE_TH);
    cal->hysteresis = b[KP_CAL_OFF_HYSTERESIS];
}

void cal_record_encode(const cal_record_t *cal, uint8_t *b)
{
    put16(b + KP_CAL_OFF_EMPTY_LO, cal->empty_lo);
    put16(b + KP_CAL_OFF_EMPTY_HI, cal->empty_hi);
    put16(b + KP_CAL_OFF_BLACK_TH, cal->black_th);
    put16(b + KP_CAL_OFF_WHITE_TH, cal->white_th);
    b[KP_CAL_OFF_HYSTERESIS] = cal->hysteresis;
}
