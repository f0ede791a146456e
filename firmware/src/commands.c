#include "commands.h"

#include "calib.h"
#include "config.h"

#define MAX_HANDLERS 8

static uint8_t handler_type[MAX_HANDLERS];
static command_fn handler_fn[MAX_HANDLERS];
static uint8_t handler_count;
static uint8_t (*device_flags)(void);

static uint8_t have_last;
static uint8_t last_seq;
static uint8_t last_type;
static uint8_t last_status;
static uint8_t commit_waiting; /* COMMIT_CAL accepted, its ACK not sent yet */
static uint8_t commit_seq;

void commands_init(uint8_t (*flags)(void))
{
    have_last = 0;
    commit_waiting = 0;
    handler_count = 0;
    device_flags = flags;
}

uint8_t commands_register(uint8_t type, command_fn fn)
{
    if (handler_count >= MAX_HANDLERS)
        return 0;
    for (uint8_t i = 0; i < handler_count; i++)
        if (handler_type[i] == type)
            return 0;
    handler_type[handler_count] = type;
    handler_fn[handler_count] = fn;
    handler_count++;
    return 1;
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
    p[KP_IDENTITY_OFF_FLAGS] = device_flags ? device_flags() : 0;
    proto_send(KP_MSG_IDENTITY, p, sizeof p, 0);
}

static uint8_t execute(const frame_t *f, uint32_t now_ms)
{
    switch (f->type) {
    case KP_MSG_IDENTIFY:
        return KP_STATUS_OK;
    case KP_MSG_WRITE_CAL:
        return calib_stage(f->payload, f->len);
    case KP_MSG_COMMIT_CAL:
        return calib_commit_start();
    default:
        for (uint8_t i = 0; i < handler_count; i++)
            if (handler_type[i] == f->type)
                return handler_fn[i](f, now_ms);
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
