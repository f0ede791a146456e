#include "sensor_model.h"

#include <math.h>

static char disc[64];
static double offset[64], noise[64], swing[64];
static int forced[64];
static uint64_t rng_state;

static uint64_t next_u64(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static double uniform(void) { return ((double)(next_u64() >> 11) + 0.5) / 9007199254740992.0; }

static double gauss(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

void model_init(uint64_t seed)
{
    rng_state = seed ? seed : 0x9E3779B97F4A7C15ULL;
    for (int i = 0; i < 64; i++) {
        disc[i] = '-';
        offset[i] = 0.0;
        noise[i] = MODEL_NOISE;
        swing[i] = MODEL_SWING;
        forced[i] = -1;
    }
}

int model_set_square(int sq, char c)
{
    switch (c) {
    case '-': case 'X': case 'O': case 'x': case 'o': case '?':
        disc[sq] = c;
        return 0;
    default:
        return -1;
    }
}

char model_square(int sq) { return disc[sq]; }

void model_set_sensor(int sq, double off, double nz, double sw)
{
    offset[sq] = off;
    noise[sq] = nz;
    swing[sq] = sw;
}

void model_get_sensor(int sq, double *off, double *nz, double *sw)
{
    *off = offset[sq];
    *nz = noise[sq];
    *sw = swing[sq];
}

void model_spread(uint64_t seed, double offset_sd, double nz, double swing_sd)
{
    uint64_t saved = rng_state;
    rng_state = seed ? seed : 1;
    for (int i = 0; i < 64; i++) {
        offset[i] = offset_sd * gauss();
        noise[i] = nz;
        swing[i] = MODEL_SWING + swing_sd * gauss();
        if (swing[i] < 50.0)
            swing[i] = 50.0;
    }
    rng_state = saved;
}

void model_force(int sq, int value) { forced[sq] = value; }

uint16_t model_read(int sq)
{
    if (forced[sq] >= 0)
        return (uint16_t)forced[sq];
    double v = MODEL_BASELINE + offset[sq];
    switch (disc[sq]) {
    case 'X': v -= swing[sq]; break;
    case 'O': v += swing[sq]; break;
    case 'x': v -= swing[sq] / 2.0; break;
    case 'o': v += swing[sq] / 2.0; break;
    case '?': return 0;
    default: break;
    }
    if (noise[sq] > 0.0)
        v += noise[sq] * gauss();
    long r = lround(v);
    if (r < 0)
        r = 0;
    if (r > 1023)
        r = 1023;
    return (uint16_t)r;
}
