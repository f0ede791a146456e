/*
 * Framing: SOF, LEN, SEQ, TYPE, PAYLOAD, CRC16 (little-endian) over LEN..PAYLOAD.
 *
 * The receiver keeps the bytes of the candidate frame. When the candidate proves bad
 * (LEN too long, a TYPE/LEN pair this side does not take, a CRC mismatch, or a stall) it
 * drops only the candidate's first byte and rescans the rest for the next SOF, so a good
 * frame that started inside garbage is still found.
 */
#include "protocol.h"

#include <string.h>

#include "config.h"
#include "crc16.h"
#include "hal.h"

#define FRAME_MAX (KP_MAX_PAYLOAD + KP_FRAME_OVERHEAD)

static uint8_t tx_seq;

static uint8_t rx_buf[FRAME_MAX];
static uint8_t rx_len;
static uint8_t rx_dir;
static uint32_t rx_last_ms;
static uint16_t rx_dropped;
static uint16_t rx_crc_errors;
static uint8_t rx_consumed; /* bytes of a delivered frame still at the front of rx_buf */

void proto_tx_init(void) { tx_seq = 0; }

uint8_t proto_send(uint8_t type, const uint8_t *payload, uint8_t len, uint16_t reserve)
{
    uint8_t head[KP_HEADER_LEN];
    uint8_t tail[KP_CRC_LEN];
    if (hal_uart_tx_free() < (uint16_t)(len + KP_FRAME_OVERHEAD) + reserve)
        return 0;
    head[0] = KP_SOF;
    head[1] = len;
    head[2] = tx_seq;
    head[3] = type;
    uint16_t crc = KP_CRC_INIT;
    for (uint8_t i = 1; i < KP_HEADER_LEN; i++)
        crc = crc16_update(crc, head[i]);
    for (uint8_t i = 0; i < len; i++)
        crc = crc16_update(crc, payload[i]);
    crc ^= KP_CRC_XOROUT;
    put_u16(tail, crc);
    hal_uart_write(head, KP_HEADER_LEN);
    if (len)
        hal_uart_write(payload, len);
    hal_uart_write(tail, KP_CRC_LEN);
    tx_seq++;
    return 1;
}

void proto_rx_init(uint8_t direction_bit)
{
    rx_len = 0;
    rx_dir = direction_bit;
    rx_last_ms = 0;
    rx_dropped = 0;
    rx_crc_errors = 0;
    rx_consumed = 0;
}

static void drop_front(uint8_t n)
{
    memmove(rx_buf, rx_buf + n, (size_t)(rx_len - n));
    rx_len = (uint8_t)(rx_len - n);
}

/* Drop the candidate's first byte, then everything up to the next SOF. */
static void resync(void)
{
    uint8_t skip = 1;
    while (skip < rx_len && rx_buf[skip] != KP_SOF)
        skip++;
    rx_dropped = (uint16_t)(rx_dropped + skip);
    drop_front(skip);
}

/* Examine rx_buf from the front: 1 = frame delivered, 0 = need more bytes. */
static uint8_t parse(frame_t *out)
{
    for (;;) {
        if (rx_len == 0)
            return 0;
        if (rx_buf[0] != KP_SOF) {
            resync();
            continue;
        }
        if (rx_len < 2)
            return 0;
        uint8_t len = rx_buf[1];
        if (len > KP_MAX_PAYLOAD) {
            resync();
            continue;
        }
        if (rx_len < KP_HEADER_LEN)
            return 0;
        uint8_t type = rx_buf[3];
        if ((type & 0x80) != rx_dir || !kp_length_ok(type, len)) {
            resync();
            continue;
        }
        uint16_t total = (uint16_t)(len + KP_FRAME_OVERHEAD);
        if (rx_len < total)
            return 0;
        uint16_t crc = KP_CRC_INIT;
        for (uint16_t i = 1; i < total - KP_CRC_LEN; i++)
            crc = crc16_update(crc, rx_buf[i]);
        crc ^= KP_CRC_XOROUT;
        uint16_t got = (uint16_t)(rx_buf[total - 2] | (rx_buf[total - 1] << 8));
        if (crc != got) {
            rx_crc_errors++;
            resync();
            continue;
        }
        out->len = len;
        out->seq = rx_buf[2];
        out->type = type;
        out->payload = rx_buf + KP_HEADER_LEN;
        rx_consumed = (uint8_t)total;
        return 1;
    }
}

static void release_delivered(void)
{
    if (rx_consumed) {
        drop_front(rx_consumed);
        rx_consumed = 0;
    }
}

uint8_t proto_rx_byte(uint8_t byte, uint32_t now_ms, frame_t *out)
{
    release_delivered();
    if (rx_len == 0 && byte != KP_SOF) {
        rx_dropped++;
        return 0;
    }
    if (rx_len == sizeof rx_buf) /* cannot happen with the lengths in the table; stay safe */
        resync();
    rx_buf[rx_len++] = byte;
    rx_last_ms = now_ms;
    return parse(out);
}

uint8_t proto_rx_idle(uint32_t now_ms, frame_t *out)
{
    release_delivered();
    if (parse(out))
        return 1;
    if (rx_len == 0 || (uint32_t)(now_ms - rx_last_ms) < RX_STALL_MS)
        return 0;
    resync();
    rx_last_ms = now_ms;
    return parse(out);
}

uint16_t proto_rx_dropped_bytes(void) { return rx_dropped; }
uint16_t proto_rx_bad_crc(void) { return rx_crc_errors; }
