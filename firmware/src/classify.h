#ifndef KAESHI_CLASSIFY_H
#define KAESHI_CLASSIFY_H

#include <stdint.h>

/* One sensor's calibration, as carried by WRITE_CAL. Black-up magnets read LOW,
 * white-up read HIGH: black_th < empty_lo <= empty_hi < white_th. */
typedef struct {
    uint16_t empty_lo;
    uint16_t empty_hi;
    uint16_t black_th;
    uint16_t white_th;
    uint8_t hysteresis;
} cal_record_t;

/* Whether the thresholds are ordered and within the ADC range. */
uint8_t cal_record_valid(const cal_record_t *cal);

/* Class of reading v with no memory (KP_STATE_*). */
uint8_t classify_raw(const cal_record_t *cal, uint16_t v);

/* Class of reading v given the sensor's previous class: leaving `previous` needs the
 * reading to pass that class's boundary by cal->hysteresis counts. */
uint8_t classify(const cal_record_t *cal, uint16_t v, uint8_t previous);

void cal_record_decode(cal_record_t *cal, const uint8_t *bytes);
void cal_record_encode(const cal_record_t *cal, uint8_t *bytes);

#endif
