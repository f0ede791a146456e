#include "debounce.h"

#include "protocol_gen.h"

static uint8_t reported[KP_SQUARES];
static uint8_t candidate[KP_SQUARES];
static uint8_t agree[KP_SQUARES];

void debounce_init(void)
{
    for (uint8_t i = 0; i < KP_SQUARES; i++) {
        reported[i] = KP_STATE_UNKNOWN;
        candidate[i] = KP_STATE_UNKNOWN;
        agree[i] = 0;
    }
}

uint8_t debounce_update(uint8_t sq, uint8_t cls)
{
    if (cls == reported[sq]) {
        agree[sq] = 0;
        candidate[sq] = cls;
        return 0;
    }
    if (cls != candidate[sq]) {
        candidate[sq] = cls;
        agree[sq] = 1;
    } else if (agree[sq] < KP_DEBOUNCE_SCANS) {
        agree[sq]++;
    }
    if (agree[sq] >= KP_DEBOUNCE_SCANS) {
        reported[sq] = cls;
        agree[sq] = 0;
        return 1;
    }
    return 0;
}

uint8_t debounce_state(uint8_t sq) { return reported[sq]; }
