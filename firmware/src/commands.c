#include "commands.h"

#include "app.h"
#include "calib.h"
#include "config.h"
#include "leds.h"

static uint8_t have_last;
static uint8_t last_seq;
static uint8_t last_type;
static uint8_t last_status;
static uint8_t commit_waiting; /* COMMIT_CAL accepted, its ACK not sent yet */
static uint8_t commit_seq;

void commands_init(void)
{
    have_last = 0;
    commit_waiting = 0;
}

void commands_send_ack(uint8_t seq, uint8_t type, uint8_t status)
{
    uint8_t p[KP_LEN_ACK];
    p[KP_ACK_OFF_SEQ] = seq;
    p[KP_ACK_OFF_TYPE] = type;
    p[KP_ACK_OFF_STATUS] = status;
    proto_send(KP_MSG_ACK, p, sizeof p, 0);
}

void commands_send_identity(void)
{
    uint8_t p[KP_LEN_IDENTITY];
    p[KP_IDENTITY_OFF_PROTOCOL_VERSION] = KP_PROTOCOL_VERSION;
    p[KP_IDENTITY_OFF_FW_MAJOR] = FW_MAJOR;
    p[KP_IDENTITY_OFF_FW_MINOR] = FW_MINOR;
    p[KP_IDENTITY_OFF_FW_PATCH] = FW_PATCH;
    put_u32(p + KP_IDENTITY_OFF_BOARD_ID, calib_board_id());
    put_u16(p + KP_IDENTITY_OFF_CALIBRATION_CRC, calib_crc());
    p[KP_IDENTITY_OFF_FLAGS] = app_flags();
    proto_send(KP_MSG_IDENTITY, p, sizeof p, 0);
}

static uint8_t execute(const frame_t *f, uint32_t now_ms)
{
    switch (f->type) {
    case KP_MSG_IDENTIFY:
        return KP_STATUS_OK;
    case KP_MSG_SET_LEDS:
        return leds_set(f->payload, f->len, now_ms);
    case KP_MSG_SET_MODE:
        return app_set_mode(f->payload[KP_SET_MODE_OFF_MODE], f->payload[KP_SET_MODE_OFF_RATE_HZ]);
    case KP_MSG_WRITE_CAL:
        return calib_stage(f->payload, f->len);
    case KP_MSG_COMMIT_CAL:
        return calib_commit_start();
    case KP_MSG_RESET:
        app_request_reset();
        return KP_STATUS_OK;
    default:
        return KP_STATUS_UNSUPPORTED;
    }
}

void commands_handle(const frame_t *f, uint32_t now_ms)
{
    if (have_last && f->seq == last_seq && f->type == last_type) {
        if (commit_waiting && f->type == KP_MSG_COMMIT_CAL)
            return; /* the ACK comes when the EEPROM write is done */
        commands_send_ack(f->seq, f->type, last_status);
        if (f->type == KP_MSG_IDENTIFY && last_status == KP_STATUS_OK)
            commands_send_identity();
        return;
    }
    uint8_t status = execute(f, now_ms);
    have_last = 1;
    last_seq = f->seq;
    last_type = f->type;
    last_status = status;
    if (f->type == KP_MSG_COMMIT_CAL && status == KP_STATUS_OK) {
        commit_waiting = 1;
        commit_seq = f->seq;
        return;
    }
    commands_send_ack(f->seq, f->type, status);
    if (f->type == KP_MSG_IDENTIFY)
        commands_send_identity();
}

void commands_poll(void)
{
    uint8_t done = calib_poll();
    if (!done || !commit_waiting)
        return;
    uint8_t status = (uint8_t)(done - 1);
    commit_waiting = 0;
    if (last_type == KP_MSG_COMMIT_CAL && last_seq == commit_seq)
        last_status = status;
    commands_send_ack(commit_seq, KP_MSG_COMMIT_CAL, status);
}
