#ifndef KAESHI_PROTOCOL_H
#define KAESHI_PROTOCOL_H

#include <stdint.h>

#include "protocol_gen.h"

/* ---- sending */
void proto_tx_init(void);

/* Queue one frame if the UART can take all of it while keeping `reserve` bytes free;
 * returns 1 if queued. A frame is never half-sent. */
uint8_t proto_send(uint8_t type, const uint8_t *payload, uint8_t len, uint16_t reserve);

/* ---- receiving */
typedef struct {
    uint8_t seq;
    uint8_t type;
    uint8_t len;
    const uint8_t *payload;
} frame_t;

/* Accepts only frames whose TYPE is for `direction_bit` (0x80: host commands). */
void proto_rx_init(uint8_t direction_bit);

/* Feed one received byte at time now_ms; returns 1 and fills *out when a frame with a
 * good CRC completed. The payload pointer stays valid until the next call. */
uint8_t proto_rx_byte(uint8_t byte, uint32_t now_ms, frame_t *out);

/* Called when no byte arrived: a frame that stopped arriving mid-way is abandoned after
 * RX_STALL_MS so the next good frame is not held up. Returns 1 with *out as above if the
 * bytes after the abandoned start held a complete frame. */
uint8_t proto_rx_idle(uint32_t now_ms, frame_t *out);

/* Counters for tests and diagnostics. */
uint16_t proto_rx_dropped_bytes(void);
uint16_t proto_rx_bad_crc(void);

static inline void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif
