#include "calib.h"

#include "config.h"
#include "crc16.h"
#include "hal.h"
#include "protocol_gen.h"

static cal_record_t active[KP_SQUARES];
static cal_record_t staged[KP_SQUARES];
static uint8_t written[KP_SQUARES / 8];
static uint8_t valid;
static uint16_t crc_active;

/* commit state: image of records + CRC written byte by byte, then read back */
static uint8_t committing;
static uint16_t commit_pos;
static uint16_t commit_crc;

static void set_defaults(void)
{
    for (uint8_t i = 0; i < KP_SQUARES; i++) {
        active[i].empty_lo = CAL_DEFAULT_EMPTY_LO;
        active[i].empty_hi = CAL_DEFAULT_EMPTY_HI;
        active[i].black_th = CAL_DEFAULT_BLACK_TH;
        active[i].white_th = CAL_DEFAULT_WHITE_TH;
        active[i].hysteresis = CAL_DEFAULT_HYSTERESIS;
    }
}

void calib_init(void)
{
    uint8_t rec[KP_CAL_RECORD_LEN];
    uint16_t crc = KP_CRC_INIT;
    uint8_t sane = 1;
    for (uint8_t i = 0; i < KP_SQUARES; i++) {
        for (uint8_t b = 0; b < KP_CAL_RECORD_LEN; b++) {
            rec[b] = hal_eeprom_read((uint16_t)(EE_CAL_RECORDS + i * KP_CAL_RECORD_LEN + b));
            crc = crc16_update(crc, rec[b]);
        }
        cal_record_decode(&active[i], rec);
        sane &= cal_record_valid(&active[i]);
    }
    crc ^= KP_CRC_XOROUT;
    uint16_t stored = (uint16_t)(hal_eeprom_read(EE_CAL_CRC) | (hal_eeprom_read(EE_CAL_CRC + 1) << 8));
    valid = sane && crc == stored;
    crc_active = valid ? crc : 0;
    if (!valid)
        set_defaults();
    for (uint8_t i = 0; i < sizeof written; i++)
        written[i] = 0;
    committing = 0;
}

const cal_record_t *calib_record(uint8_t sq) { return &active[sq]; }
uint8_t calib_valid(void) { return valid; }
uint16_t calib_crc(void) { return crc_active; }

uint8_t calib_stage(const uint8_t *p, uint8_t len)
{
    if (len < 2)
        return KP_STATUS_BAD_LENGTH;
    uint8_t first = p[0], count = p[1];
    if (count == 0 || count > KP_CAL_MAX_RECORDS_PER_WRITE)
        return KP_STATUS_BAD_VALUE;
    if (len != 2 + count * KP_CAL_RECORD_LEN)
        return KP_STATUS_BAD_LENGTH;
    if ((uint16_t)first + count > KP_SQUARES)
        return KP_STATUS_BAD_VALUE;
    if (committing)
        return KP_STATUS_BAD_VALUE;
    cal_record_t rec;
    for (uint8_t i = 0; i < count; i++) {
        cal_record_decode(&rec, p + 2 + i * KP_CAL_RECORD_LEN);
        if (!cal_record_valid(&rec))
            return KP_STATUS_BAD_VALUE;
    }
    for (uint8_t i = 0; i < count; i++) {
        uint8_t sq = (uint8_t)(first + i);
        cal_record_decode(&staged[sq], p + 2 + i * KP_CAL_RECORD_LEN);
        written[sq >> 3] |= (uint8_t)(1u << (sq & 7));
    }
    return KP_STATUS_OK;
}

/* Byte `pos` of the EEPROM image of the staged set. */
static uint8_t image_byte(uint16_t pos)
{
    if (pos >= KP_SQUARES * KP_CAL_RECORD_LEN)
        return pos == KP_SQUARES * KP_CAL_RECORD_LEN ? (uint8_t)commit_crc
                                                      : (uint8_t)(commit_crc >> 8);
    uint8_t rec[KP_CAL_RECORD_LEN];
    cal_record_encode(&staged[pos / KP_CAL_RECORD_LEN], rec);
    return rec[pos % KP_CAL_RECORD_LEN];
}

uint8_t calib_commit_start(void)
{
    if (committing)
        return KP_STATUS_BAD_VALUE;
    for (uint8_t i = 0; i < sizeof written; i++)
        if (written[i] != 0xFF)
            return KP_STATUS_BAD_VALUE;
    uint16_t crc = KP_CRC_INIT;
    uint8_t rec[KP_CAL_RECORD_LEN];
    for (uint8_t i = 0; i < KP_SQUARES; i++) {
        cal_record_encode(&staged[i], rec);
        for (uint8_t b = 0; b < KP_CAL_RECORD_LEN; b++)
            crc = crc16_update(crc, rec[b]);
    }
    commit_crc = crc ^ KP_CRC_XOROUT;
    commit_pos = 0;
    committing = 1;
    return KP_STATUS_OK;
}

uint8_t calib_busy(void) { return committing; }

uint8_t calib_poll(void)
{
    if (!committing || !hal_eeprom_ready())
        return 0;
    /* Skip bytes that already hold the right value: a repeated commit costs nothing and
     * each EEPROM cell is worn only when it changes. One write per call at most. */
    while (commit_pos < EE_CAL_IMAGE_LEN) {
        uint8_t want = image_byte(commit_pos);
        uint16_t addr = (uint16_t)(EE_CAL_RECORDS + commit_pos);
        commit_pos++;
        if (hal_eeprom_read(addr) != want) {
            hal_eeprom_write(addr, want);
            return 0;
        }
    }
    committing = 0;
    for (uint16_t pos = 0; pos < EE_CAL_IMAGE_LEN; pos++)
        if (hal_eeprom_read((uint16_t)(EE_CAL_RECORDS + pos)) != image_byte(pos))
            return 1 + KP_STATUS_EEPROM_FAILURE;
    for (uint8_t i = 0; i < KP_SQUARES; i++)
        active[i] = staged[i];
    for (uint8_t i = 0; i < sizeof written; i++)
        written[i] = 0;
    valid = 1;
    crc_active = commit_crc;
    return 1 + KP_STATUS_OK;
}

uint32_t calib_board_id(void)
{
    uint32_t id = 0;
    for (uint8_t i = 0; i < 4; i++)
        id |= (uint32_t)hal_eeprom_read((uint16_t)(EE_BOARD_ID + i)) << (8 * i);
    return id;
}
