/*
 * The simulated board's physics: what each Hall sensor reads given the disc on its square.
 *
 * A sensor with no disc reads its baseline, 512 + offset. A centred disc's magnet moves the
 * reading by `swing` counts: down for black-up, up for white-up. A shifted disc sits
 * further from the sensor and moves it by about half as much. Gaussian noise of `noise`
 * counts (standard deviation) is added to every conversion. A square marked '?' reads 0,
 * as an open sensor does, which the firmware reports as unknown.
 */
#ifndef KAESHI_SENSOR_MODEL_H
#define KAESHI_SENSOR_MODEL_H

#include <stdint.h>

#define MODEL_BASELINE 512
#define MODEL_SWING 300
#define MODEL_NOISE 1.5

void model_init(uint64_t seed);

/* disc characters of the board string: - X O x o ? */
int model_set_square(int square, char disc);  /* 0 = ok, -1 = bad character */
char model_square(int square);

void model_set_sensor(int square, double offset, double noise, double swing);
void model_get_sensor(int square, double *offset, double *noise, double *swing);

/* Give every sensor a random offset, noise and swing spread (normal distributions). */
void model_spread(uint64_t seed, double offset_sd, double noise, double swing_sd);

/* Force a square's reading (fault injection); value < 0 clears the override. */
void model_force(int square, int value);

uint16_t model_read(int square);

#endif
