/*
 * Main loop. Each pass does a little of everything so no job starves another:
 * take received bytes and run commands, advance an EEPROM write by a byte, run one scan
 * step (one mux channel, four conversions), send the frame and heartbeat when due,
 * refresh the LEDs when due.
 *
 * The four squares a scan step converts are classified and debounced in the same pass,
 * so a square's third agreeing reading counts at once, not at the end of the scan. In
 * board mode a change of the debounced board sends a BOARD frame (the whole board) as
 * soon as the transmit queue is empty, so it never waits for the next frame tick, and
 * restarts the frame period from it: frames are never more than a period apart. Waiting
 * for an empty queue costs nothing (the frame could not leave sooner) and merges changes
 * that come while a frame is on the wire into the next one, so change frames never
 * queue up behind each other.
 */
#include "app.h"

#include "calib.h"
#include "classify.h"
#include "commands.h"
#include "config.h"
#include "debounce.h"
#include "hal.h"
#include "leds.h"
#include "protocol.h"
#include "scan.h"

static uint8_t mode;
static uint32_t frame_period_us;
static uint32_t next_frame_us;
static uint32_t next_heartbeat_ms;
static uint8_t watchdog_flag;
static uint8_t class_now[KP_SQUARES]; /* classifier memory for hysteresis */
static uint8_t reset_pending;
static uint8_t board_changed; /* a change frame is owed; it waits for an empty queue */
static uint32_t reset_asked_ms;

static uint8_t command_set_leds(const frame_t *f, uint32_t now_ms)
{
    return leds_set(f->payload, f->len, now_ms);
}

static uint8_t command_set_mode(const frame_t *f, uint32_t now_ms)
{
    (void)now_ms;
    return app_set_mode(f->payload[KP_SET_MODE_OFF_MODE], f->payload[KP_SET_MODE_OFF_RATE_HZ]);
}

static uint8_t command_reset(const frame_t *f, uint32_t now_ms)
{
    (void)f;
    (void)now_ms;
    app_request_reset();
    return KP_STATUS_OK;
}

void app_init(void)
{
    hal_init();
    watchdog_flag = hal_reset_was_watchdog();
    uint32_t now = hal_millis();
    proto_tx_init();
    proto_rx_init(0x80);
    calib_init();
    scan_init();
    debounce_init();
    commands_init(app_flags);
    commands_register(KP_MSG_SET_LEDS, command_set_leds);
    commands_register(KP_MSG_SET_MODE, command_set_mode);
    commands_register(KP_MSG_RESET, command_reset);
    leds_init(now);
    for (uint8_t i = 0; i < KP_SQUARES; i++)
        class_now[i] = KP_STATE_UNKNOWN;
    mode = KP_MODE_BOARD;
    frame_period_us = 1000000UL / KP_DEFAULT_RATE_HZ;
    next_frame_us = hal_micros();
    next_heartbeat_ms = now;
    reset_pending = 0;
    board_changed = 0;
}

uint8_t app_flags(void)
{
    uint8_t f = 0;
    if (calib_valid())
        f |= KP_FLAG_CAL_VALID;
    if (watchdog_flag)
        f |= KP_FLAG_WATCHDOG_RESET;
    if (mode == KP_MODE_RAW)
        f |= KP_FLAG_RAW_MODE;
    return f;
}

uint8_t app_set_mode(uint8_t new_mode, uint8_t rate_hz)
{
    if (new_mode != KP_MODE_BOARD && new_mode != KP_MODE_RAW)
        return KP_STATUS_BAD_VALUE;
    if (rate_hz == 0)
        rate_hz = KP_DEFAULT_RATE_HZ;
    if (rate_hz > (new_mode == KP_MODE_RAW ? KP_MAX_RAW_RATE_HZ : KP_MAX_BOARD_RATE_HZ))
        return KP_STATUS_BAD_VALUE;
    mode = new_mode;
    frame_period_us = (uint32_t)(1000000UL / rate_hz);
    next_frame_us = hal_micros();
    return KP_STATUS_OK;
}

void app_request_reset(void)
{
    reset_pending = 1;
    reset_asked_ms = hal_millis();
}

uint8_t app_board_state(uint8_t sq) { return debounce_state(sq); }

static uint8_t send_board(uint32_t now_ms)
{
    uint8_t p[KP_LEN_BOARD];
    put_u32(p + KP_BOARD_OFF_T_MS, now_ms);
    p[KP_BOARD_OFF_FLAGS] = app_flags();
    for (uint8_t i = 0; i < KP_SQUARES / 2; i++)
        p[KP_BOARD_OFF_SQUARES + i] =
            (uint8_t)(debounce_state((uint8_t)(2 * i)) | (debounce_state((uint8_t)(2 * i + 1)) << 4));
    return proto_send(KP_MSG_BOARD, p, sizeof p, TX_RESERVE);
}

static void send_raw(uint32_t now_ms)
{
    uint8_t p[KP_LEN_RAW];
    const uint16_t *r = scan_readings();
    put_u32(p + KP_RAW_OFF_T_MS, now_ms);
    for (uint8_t i = 0; i < KP_SQUARES; i++)
        put_u16(p + KP_RAW_OFF_READINGS + 2 * i, r[i]);
    proto_send(KP_MSG_RAW, p, sizeof p, TX_RESERVE);
}

static void send_heartbeat(uint32_t now_ms)
{
    uint8_t p[KP_LEN_HEARTBEAT];
    put_u32(p + KP_HEARTBEAT_OFF_T_MS, now_ms);
    p[KP_HEARTBEAT_OFF_FLAGS] = app_flags();
    proto_send(KP_MSG_HEARTBEAT, p, sizeof p, TX_RESERVE);
}

static void receive(uint32_t now_ms)
{
    frame_t f;
    int16_t c;
    /* bounded so a flood of input cannot stop the scan */
    for (uint8_t n = 0; n < 64 && (c = hal_uart_read()) >= 0; n++) {
        if (proto_rx_byte((uint8_t)c, now_ms, &f))
            commands_handle(&f, now_ms);
        if (reset_pending)
            return;
    }
    if (proto_rx_idle(now_ms, &f))
        commands_handle(&f, now_ms);
}

/* Classify the squares of one mux channel; returns 1 if the debounced board changed. */
static uint8_t classify_channel(uint8_t channel)
{
    uint8_t changed = 0;
    for (uint8_t mux = 0; mux < MUX_COUNT; mux++) {
        uint8_t sq = scan_square(mux, channel);
        class_now[sq] = classify(calib_record(sq), scan_reading(sq), class_now[sq]);
        changed |= debounce_update(sq, class_now[sq]);
    }
    return changed;
}

void app_poll(void)
{
    hal_watchdog_kick();
    uint32_t now_ms = hal_millis();
    if (reset_pending) {
        if (hal_uart_tx_idle() || (uint32_t)(now_ms - reset_asked_ms) >= RESET_DRAIN_MS)
            hal_watchdog_reset();
        return;
    }
    receive(now_ms);
    if (reset_pending)
        return;
    commands_poll();
    scan_step();
    if (classify_channel(scan_last_channel()) && mode == KP_MODE_BOARD)
        board_changed = 1;

    now_ms = hal_millis();
    uint32_t now_us = hal_micros();
    uint8_t change_now =
        board_changed && mode == KP_MODE_BOARD && hal_uart_tx_free() >= UART_TX_BUF;
    if (change_now) {
        if (send_board(now_ms)) {
            board_changed = 0;
            next_frame_us = now_us + frame_period_us;
        }
    } else if ((int32_t)(now_us - next_frame_us) >= 0) {
        if (mode == KP_MODE_RAW)
            send_raw(now_ms);
        else if (send_board(now_ms))
            board_changed = 0; /* this frame carries the change */
        next_frame_us += frame_period_us;
        if ((int32_t)(now_us - next_frame_us) >= 0) /* fell behind: do not burst */
            next_frame_us = now_us + frame_period_us;
    }
    if ((int32_t)(now_ms - next_heartbeat_ms) >= 0) {
        send_heartbeat(now_ms);
        /* from the beat just sent, not the one due: a late beat is never followed
           by a catch-up beat, so beats are always a full period apart */
        next_heartbeat_ms = now_ms + KP_HEARTBEAT_MS;
    }
    leds_poll(now_ms);
}
